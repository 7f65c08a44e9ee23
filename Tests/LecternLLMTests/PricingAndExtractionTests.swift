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
    @Test("finds the first JSON value in model prose", arguments: [
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
                "explanation": ["type": "string"], "correct_answer": ["type": "object", "required": ["text", "feedback"],
                    "properties": ["feedback": ["type": "string"], "text": ["type": "string"]]],
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
