import Foundation
import LecternLLM
import Testing

@testable import LecternMockLLM

/// The mock server itself: both protocols, structured answers, faults, counters.
@Suite("Mock LLM server")
struct MockServerTests {
    static let question: JSONValue = [
        "topic_id": "s01-t01", "format": "multiple_choice", "prompt": "What does a loop do?",
        "explanation": "A loop repeats work.",
        "options": [
            ["text": "Repeats work", "correct": true, "feedback": "Yes."],
            ["text": "Stops work", "correct": false, "feedback": "No."],
        ],
    ]

    static let book = MockAnswerBook(records: [
        record("engagement-question/s01-t01", stage: "engagement-question", question.canonicalText),
        record("lecture/s01-t01", stage: "lecture", "# Loops\n\nLoops repeat work."),
        record("lecture/s01-t02", stage: "lecture", "# Lists\n\nLists hold values."),
    ])

    static func record(_ item: String, stage: String, _ content: String) -> ExchangeRecord {
        ExchangeRecord(
            key: String(repeating: "0", count: 64), itemID: item, stage: stage, promptTemplate: "\(stage)@1", provider: "scripted",
            model: "m", response: LLMResponse(content: content, usage: TokenUsage(promptTokens: 40, completionTokens: 20)), elapsedMilliseconds: 0)
    }

    static let schema = ResponseSchema(name: "question", schema: ["type": "object"])

    func provider(_ kind: String, _ server: MockLLMServer) throws -> any LLMProvider {
        try ProviderFactory.make(
            ProviderConfiguration(
                kind: kind, model: "mock-model", baseURL: server.baseURL.appendingPathComponent("v1"),
                apiKeyEnvironmentVariable: kind == "anthropic" ? "K" : nil, requestTimeoutSeconds: 5, maxRetries: 0),
            environment: ["K": "k"], events: { _ in })
    }

    @Test("answers by item in each protocol's form: OpenAI content, Anthropic tool_use input", arguments: ["openai", "anthropic"])
    func answersByItem(_ kind: String) async throws {
        let server = try MockLLMServer(answers: Self.book)
        defer { server.stop() }
        let provider = try provider(kind, server)
        let request = LLMRequest(model: "mock-model", messages: [.user("Ask me.")], responseSchema: Self.schema)
        let answer = try await provider.complete(
            request, context: RequestContext(itemID: "engagement-question/s01-t01", stage: "engagement-question"))
        #expect(answer.content == Self.question.canonicalText)
        #expect(answer.usage.completionTokens == 20)
        let lecture = try await provider.complete(
            LLMRequest(model: "mock-model", messages: [.user("Teach.")]), context: RequestContext(itemID: "lecture/s01-t02", stage: "lecture"))
        #expect(lecture.content == "# Lists\n\nLists hold values.")
        let stats = server.stats
        #expect(stats.answered == 2 && stats.items["lecture/s01-t02"]?.answered == 1)
        #expect(server.baseURL.host == "127.0.0.1")
    }

    @Test("a recording with repairs is replayed by cache key: each attempt gets its own answer, a request two items share gets the recorded one")
    func replaysByKey() async throws {
        let first = LLMRequest(model: "mock-model", messages: [.user("Teach loops.")], temperature: 0.3, maxTokens: 100, seed: 7)
        var repair = first
        repair.messages += [.assistant("Loops loops loops."), .user("Say each thing once.")]
        repair.temperature = 0.5
        let solve = LLMRequest(model: "mock-model", messages: [.user("Which option?")], temperature: 0, maxTokens: 40)
        func record(_ request: LLMRequest, item: String, stage: String, _ content: String) -> ExchangeRecord {
            let key = ExchangeKeyMaterial(provider: "local", request: request, promptTemplate: "\(stage)@1", variant: nil).key
            return ExchangeRecord(
                key: key, itemID: item, stage: stage, promptTemplate: "\(stage)@1", provider: "local", model: "mock-model",
                response: LLMResponse(content: content, usage: TokenUsage(promptTokens: 10, completionTokens: 5)), elapsedMilliseconds: 0)
        }
        // Sorted by key, as a cassette is: which answer comes first says nothing of the attempts.
        let records = [
            record(first, item: "lecture/s01-t01", stage: "lecture", "# Loops\n\nLoops loops loops."),
            record(repair, item: "lecture/s01-t01", stage: "lecture", "# Loops\n\nA loop repeats work."),
            record(solve, item: "question/a/blind-solve", stage: "blind-solve", "{\"answer\":\"A\"}"),
            record(
                LLMRequest(model: "mock-model", messages: [.user("Other?")]), item: "question/b/blind-solve", stage: "blind-solve",
                "{\"answer\":\"C\"}"),
        ].sorted { $0.key < $1.key }
        let book = MockAnswerBook(records: records)
        #expect(book.replaysByKey)
        let server = try MockLLMServer(answers: book)
        defer { server.stop() }
        let provider = try provider("openai", server)
        for (request, expected) in [(repair, "# Loops\n\nA loop repeats work."), (first, "# Loops\n\nLoops loops loops.")] {
            let answer = try await provider.complete(request, context: RequestContext(itemID: "lecture/s01-t01", stage: "lecture"))
            #expect(answer.content == expected)
        }
        // Item b asks what item a asked (a single run answered it once, from its cache).
        let shared = try await provider.complete(solve, context: RequestContext(itemID: "question/b/blind-solve", stage: "blind-solve"))
        #expect(shared.content == "{\"answer\":\"A\"}")
        // A request the recording never made: the item's first answer, as before.
        let unknown = try await provider.complete(
            LLMRequest(model: "mock-model", messages: [.user("Something else.")]),
            context: RequestContext(itemID: "question/b/blind-solve", stage: "blind-solve"))
        #expect(unknown.content == "{\"answer\":\"C\"}")
        // A clean recording (one answer an item) is answered by item without reading requests.
        #expect(!Self.book.replaysByKey)
    }

    @Test("GET /__stats reports the counters as JSON")
    func statsEndpoint() async throws {
        let server = try MockLLMServer(answers: Self.book)
        defer { server.stop() }
        _ = try await provider("openai", server).complete(
            LLMRequest(model: "mock-model", messages: [.user("Teach.")]), context: RequestContext(itemID: "lecture/s01-t01", stage: "lecture"))
        let response = try await CurlHTTPClient().send(HTTPRequest(method: "GET", url: server.baseURL.appendingPathComponent("__stats")))
        #expect(response.status == 200)
        let stats = try JSONDecoder().decode(MockStats.self, from: response.body)
        #expect(stats.answered == 1 && stats.items["lecture/s01-t01"]?.requests == 1)
    }

    @Test("an unknown item is refused with a message naming it; a revoked key gets 401")
    func refusals() async throws {
        let server = try MockLLMServer(answers: Self.book, configuration: MockConfiguration(auth: .revokeAfter(1)))
        defer { server.stop() }
        let provider = try provider("openai", server)
        await #expect(throws: LLMError.self) {
            _ = try await provider.complete(
                LLMRequest(model: "m", messages: [.user("x")]), context: RequestContext(itemID: "lecture/s09-t09", stage: "lecture"))
        }
        do {
            _ = try await provider.complete(
                LLMRequest(model: "m", messages: [.user("x")]), context: RequestContext(itemID: "lecture/s01-t01", stage: "lecture"))
            Issue.record("a revoked key must be refused")
        } catch let error as LLMError {
            #expect(error.kind == .authentication && error.statusCode == 401)
        }
        #expect(server.stats.rejected == 2 && server.stats.answered == 0)
    }

    @Test("fault draws depend on seed, item and request number only, not on arrival order")
    func deterministicFaults() {
        let responder = MockResponder(configuration: MockConfiguration(faults: .spread(0.5), seed: 9))
        func kinds(_ order: [String]) -> [String: [String]] {
            var stats = MockStats()
            var seen: [String: [String]] = [:]
            for (serial, item) in order.enumerated() {
                let request = MockHTTPRequest(method: "POST", path: "/v1/chat/completions", headers: ["x-lectern-item": item], body: Data("{}".utf8))
                let before = stats.faults
                _ = responder.action(for: request, answers: Self.book, stats: &stats, serial: serial)
                let added = stats.faults.first { before[$0.key, default: 0] != $0.value }?.key ?? "none"
                seen[item, default: []].append(added)
            }
            return seen
        }
        let items = ["lecture/s01-t01", "lecture/s01-t02", "engagement-question/s01-t01"]
        let forward = kinds(Array(repeating: items, count: 20).flatMap { $0 })
        let backward = kinds(Array(repeating: items.reversed(), count: 20).flatMap { $0 })
        #expect(forward == backward)
        let injected = forward.values.flatMap { $0 }.filter { $0 != "none" }.count
        #expect((15...45).contains(injected), "about half of 60 requests are faulted: \(injected)")
    }

    @Test("wrong content breaks exactly what the validators check")
    func wrongContent() throws {
        let question = try #require(Self.book.answer(for: "engagement-question/s01-t01"))
        let wrong = try #require(MockResponder.wrongContent(answer: question, json: question.json, answers: Self.book))
        let options = try #require(wrong.1?["options"]?.arrayValue)
        #expect(options.allSatisfy { $0["correct"] == .bool(true) })
        // Lectern's own shape: a wrong answer becomes a copy of the correct one.
        let split: JSONValue = [
            "prompt": "What does a loop do?", "correct_answer": ["text": "Repeats work", "feedback": "Yes."],
            "wrong_answers": [["text": "Stops work", "feedback": "No."], ["text": "Nothing", "feedback": "No."]],
        ]
        var changed = false
        let copied = MockResponder.spoilOptions(split, changed: &changed)
        #expect(changed && copied["wrong_answers"]?.arrayValue?.first == split["correct_answer"])
        let lecture = try #require(Self.book.answer(for: "lecture/s01-t01"))
        #expect(MockResponder.wrongContent(answer: lecture, json: nil, answers: Self.book)?.0 == "# Lists\n\nLists hold values.")
        #expect((try? JSONValue.parse(MockResponder.brokenJSON(question.content))) == nil)
        #expect(JSONExtraction.firstJSONValue(in: MockResponder.brokenJSON(question.content)) == nil)
    }

    @Test("request bodies are read by their top-level fields, whatever the messages hold")
    func requestShape() {
        let body = #"""
            { "messages": [{"role": "user", "content": "say \"model\": {\"x\"} [ ] , }"}], "model" : "claude-x",
              "tools": [{"name": "question", "input_schema": {"type": "object"}}], "tool_choice": {"type": "tool", "name": "question"} }
            """#
        let shape = MockResponder.RequestShape(wire: .anthropic, body: Data(body.utf8))
        #expect(shape.model == "claude-x" && shape.toolName == "question")
        let plain = MockResponder.RequestShape(wire: .anthropic, body: Data(#"{"model":"m","messages":[]}"#.utf8))
        #expect(plain.model == "m" && plain.toolName == nil)
        #expect(MockResponder.RequestShape(wire: .openai, body: Data("not json".utf8)).model == "mock-model")
    }

    @Test("latency distributions parse and sample within their bounds")
    func latency() throws {
        #expect(try LatencyDistribution(parsing: "fixed:300") == .fixed(milliseconds: 300))
        let uniform = try LatencyDistribution(parsing: "uniform:100-500")
        #expect((100...500).contains(uniform.sample(0.5, 0.1)))
        let logNormal = try LatencyDistribution(parsing: "lognormal:300,0.5")
        #expect(abs(logNormal.sample(0.5, 0.25) - 300) < 1, "cos(π/2) = 0: the median")
        #expect(throws: MockConfigurationError.self) { try LatencyDistribution(parsing: "gaussian:3") }
        #expect(try FaultRates(parsing: "all=0.2").total > 0.199)
        #expect(throws: MockConfigurationError.self) { try FaultRates(parsing: "418=0.1") }
    }
}
