import Foundation
import Testing

@testable import LecternLLM

@Suite("Price table")
struct PriceTableTests {
    @Test("cost splits cached and uncached prompt tokens")
    func cost() throws {
        let usage = TokenUsage(promptTokens: 1_000_000, completionTokens: 500_000, cachedTokens: 400_000)
        let cost = try #require(PriceTable.builtIn.cost(provider: "openai", model: "gpt-4o", usage: usage))
        // 600k × 2.50 + 400k × 1.25 + 500k × 10.00, per million.
        #expect(abs(cost - (1.5 + 0.5 + 5.0)) < 1e-9)
    }

    @Test("dated snapshots use the longest matching entry")
    func prefixes() {
        #expect(PriceTable.builtIn.price(provider: "openai", model: "gpt-4o-mini-2024-07-18")?.model == "gpt-4o-mini")
        #expect(PriceTable.builtIn.price(provider: "openai", model: "gpt-4o-2024-08-06")?.model == "gpt-4o")
        #expect(PriceTable.builtIn.price(provider: "anthropic", model: "claude-sonnet-4-5-20250929")?.model == "claude-sonnet-4-5")
        #expect(PriceTable.builtIn.price(provider: "openai", model: "gpt-4o2") == nil)
    }

    @Test("local and scripted cost nothing; unknown models have no cost")
    func freeAndUnknown() {
        let usage = TokenUsage(promptTokens: 10, completionTokens: 10)
        #expect(PriceTable.builtIn.cost(provider: "local", model: "qwen2.5-coder-1.5b-instruct", usage: usage) == 0)
        #expect(PriceTable.builtIn.cost(provider: "scripted", model: "anything", usage: usage) == 0)
        #expect(PriceTable.builtIn.cost(provider: "openai", model: "my-fine-tune", usage: usage) == nil)
        #expect(PriceTable.builtIn.cost(provider: "anthropic", model: "gpt-4o", usage: usage) == nil)
    }

    @Test("a JSON file adds and overrides entries")
    func loadFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("prices-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(
            #"{"prices":[{"provider":"openai","model":"llama-3.3-70b-versatile","prompt":0.59,"completion":0.79},{"provider":"openai","model":"gpt-4o","prompt":2,"completion":8,"cachedPrompt":1}]}"#
                .utf8
        ).write(to: url)
        let table = try PriceTable.builtInMerged(withFileAt: url)
        #expect(table.price(provider: "openai", model: "llama-3.3-70b-versatile")?.completion == 0.79)
        #expect(table.price(provider: "openai", model: "gpt-4o")?.prompt == 2)
        #expect(table.price(provider: "anthropic", model: "claude-opus-4-1") != nil)
        let roundTrip = url.deletingLastPathComponent().appendingPathComponent("prices-rt-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: roundTrip) }
        try table.jsonData().write(to: roundTrip)
        #expect(try PriceTable.load(contentsOf: roundTrip) == table)
    }

    @Test("a bad file names the file and the problem")
    func badFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("prices-bad-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(#"{"prices":[{"provider":"openai","model":"x","prompt":1}]}"#.utf8).write(to: url)
        let error = #expect(throws: PriceTableError.self) { _ = try PriceTable.load(contentsOf: url) }
        #expect(error?.message.contains(url.path) == true)
        #expect(error?.message.contains("completion") == true)
        let missing = #expect(throws: PriceTableError.self) {
            _ = try PriceTable.load(contentsOf: URL(fileURLWithPath: "/nonexistent/prices.json"))
        }
        #expect(missing?.message.contains("/nonexistent/prices.json") == true)
    }
}

@Suite("JSON extraction")
struct JSONExtractionTests {
    @Test(
        "finds the first JSON value in model prose",
        arguments: [
            (#"{"a":1}"#, #"{"a":1}"#),
            ("Here you go: {\"a\": [1, 2]} and more text {\"b\": 2}", #"{"a":[1,2]}"#),
            ("```json\n{\"a\": \"x\"}\n```", #"{"a":"x"}"#),
            ("Before {not json} then ```\n[1, 2, 3]\n``` after", "[1,2,3]"),
            ("Text {\"s\": \"a } inside a string \\\" quote\"} end", #"{"s":"a } inside a string \" quote"}"#),
            ("{broken {\"ok\": true}", #"{"ok":true}"#),
            ("```json\n{\"unterminated\": true}", #"{"unterminated":true}"#),
        ])
    func extracts(text: String, expected: String) throws {
        let value = try #require(JSONExtraction.firstJSONValue(in: text))
        #expect(value.canonicalText == expected)
    }

    @Test("schema properties go in the order of their required list; everything else stays canonical")
    func schemaOrder() throws {
        let schema: JSONValue = [
            "type": "object", "required": ["prompt", "correct_answer", "explanation"],
            "properties": [
                "explanation": ["type": "string"],
                "correct_answer": [
                    "type": "object", "required": ["text", "feedback"],
                    "properties": ["feedback": ["type": "string"], "text": ["type": "string"]],
                ],
                "prompt": ["type": "string"], "extra": ["type": "string"],
            ],
        ]
        #expect(
            schema.schemaOrderedText
                == #"{"properties":{"prompt":{"type":"string"},"correct_answer":{"properties":{"text":{"type":"string"},"feedback":{"type":"string"}},"required":["text","feedback"],"type":"object"},"explanation":{"type":"string"},"extra":{"type":"string"}},"required":["prompt","correct_answer","explanation"],"type":"object"}"#
        )
        #expect(try JSONValue.parse(schema.schemaOrderedText) == schema)
        // A property named "properties" inside data is not a schema: plain values keep sorted keys.
        let data: JSONValue = ["properties": ["b": 1, "a": 2], "required": ["b"]]
        #expect(data.canonicalText == #"{"properties":{"a":2,"b":1},"required":["b"]}"#)
    }

    @Test("an answer that is JSON as a whole is read whole, even when its strings quote code fences")
    func wholeAnswerWithFencesInside() throws {
        // What the local model wrote for an engagement question: its prompt opens a code fence
        // that a later string closes. Taken for a fenced wrapper, the text between held
        // `{"text": "is_broken", …}`, which was read as the answer ("missing 'topic_id'").
        let answer =
            #"{"topic_id": "s02-t01", "prompt": "Which name is used here?\n```python\n# a variable called ", "correct_answer": {"text": "is_broken", "feedback": "Right."}, "explanation": "See the ``` block above."}"#
        let value = try #require(JSONExtraction.firstJSONValue(in: answer))
        #expect(value["topic_id"] == "s02-t01")
        // Prose around a fenced answer is still read as before.
        #expect(JSONExtraction.firstJSONValue(in: "Here you go:\n```json\n{\"a\": 1}\n```\nDone.") == ["a": 1])
    }

    @Test("a line break typed raw into a string is read as one")
    func rawControlCharactersInStrings() throws {
        // The local model's bonus question: valid JSON but for the line breaks inside "prompt".
        let answer = "{\"topic_id\": \"s02-t01\", \"prompt\": \"If it's not broken, you play with it.\n\nIn programming,\twe do the same.\"}"
        let value = try #require(JSONExtraction.firstJSONValue(in: answer))
        #expect(value["prompt"] == "If it's not broken, you play with it.\n\nIn programming,\twe do the same.")
        // Outside strings nothing changes; escaped quotes and backslashes keep their meaning.
        #expect(JSONExtraction.escapingRawControlCharacters("{\n\"a\": \"x\\\"\ny\"\n}") == "{\n\"a\": \"x\\\"\\ny\"\n}")
        #expect(JSONExtraction.escapingRawControlCharacters("{\"a\": 1}") == nil)
    }

    @Test("returns nil when there is no JSON")
    func none() {
        #expect(JSONExtraction.firstJSONValue(in: "no json here") == nil)
        #expect(JSONExtraction.firstJSONValue(in: "{ unbalanced") == nil)
        #expect(JSONExtraction.firstJSONValue(in: "") == nil)
    }
}

@Suite("Provider events")
struct ProviderEventTests {
    @Test("events render as one JSON line with sorted keys")
    func jsonLine() {
        let event = ProviderEvent(
            kind: .retrying, provider: "openai", model: "gpt-4o", itemID: "lecture/x", attempt: 2, statusCode: 429,
            delaySeconds: 1.5, message: "429; retrying")
        #expect(
            event.jsonLine
                == #"{"attempt":2,"delay_s":1.5,"event":"retrying","item":"lecture/x","message":"429; retrying","model":"gpt-4o","provider":"openai","status":429}"#
        )
    }
}
