import Foundation
import Testing

@testable import LecternLLM

/// Both HTTP providers against a real loopback server.
@Suite("Providers over loopback HTTP")
struct ProviderBehaviourTests {
    @Test("a plain answer: content, usage, headers and body on the wire", arguments: Flavor.allCases)
    func success(flavor: Flavor) async throws {
        let server = try LoopbackServer(replies: [flavor.answer(text: "Hello there.")])
        let rig = TestRig()
        let provider = try flavor.provider(flavor.configuration(server), rig: rig)
        let response = try await provider.complete(simpleRequest(flavor), context: testContext)

        #expect(provider.kind == flavor.rawValue)
        #expect(response.content == "Hello there.")
        #expect(response.finishReason == .stop)
        #expect(response.usage == TokenUsage(promptTokens: 12, completionTokens: 5, cachedTokens: 3))
        let received = try #require(server.requests.first)
        #expect(received.method == "POST")
        #expect(received.path == flavor.path)
        let body = try #require(received.json)
        #expect(body["model"]?.stringValue == flavor.model)
        #expect(body["temperature"] == .number(0.3))
        #expect(flavor.maxTokens(in: body) == 100)
        switch flavor {
        case .openai:
            #expect(received.headers["authorization"] == "Bearer \(Flavor.sentinelKey)")
            #expect(body["messages"]?.arrayValue?.count == 2)
            #expect(body["messages"]?.arrayValue?.first?["role"]?.stringValue == "system")
        case .anthropic:
            #expect(received.headers["x-api-key"] == Flavor.sentinelKey)
            #expect(received.headers["anthropic-version"] == "2023-06-01")
            #expect(body["system"]?.stringValue == "You are a teacher.")
            #expect(body["messages"] == [["role": "user", "content": "Say hello."]])
        }
        #expect(rig.sleeper.waits.isEmpty)
        #expect(rig.events.all.isEmpty)
    }

    @Test("structured output carries the schema in the provider's form", arguments: Flavor.allCases)
    func schemaOutput(flavor: Flavor) async throws {
        let json = #"{"minutes":5,"title":"Loops"}"#
        let server = try LoopbackServer(replies: [flavor.answer(toolInput: json)])
        let rig = TestRig()
        let provider = try flavor.provider(flavor.configuration(server), rig: rig)
        let response = try await provider.complete(simpleRequest(flavor, schema: lectureSchema), context: testContext)

        #expect(try JSONValue.parse(response.content) == ["title": "Loops", "minutes": 5])
        let body = try #require(server.requests.first?.json)
        switch flavor {
        case .openai:
            #expect(body["response_format"]?["type"] == "json_schema")
            #expect(body["response_format"]?["json_schema"]?["name"] == "lecture")
            #expect(body["response_format"]?["json_schema"]?["strict"] == true)
            #expect(body["response_format"]?["json_schema"]?["schema"] == lectureSchema.schema)
        case .anthropic:
            #expect(response.content == json)  // canonical text of the tool input
            let tool = try #require(body["tools"]?.arrayValue?.first)
            #expect(tool["name"] == "lecture")
            #expect(tool["input_schema"] == lectureSchema.schema)
            #expect(body["tool_choice"] == ["type": "tool", "name": "lecture"])
        }
    }

    @Test("429 with Retry-After waits exactly as asked, then succeeds", arguments: Flavor.allCases)
    func retryAfter(flavor: Flavor) async throws {
        let httpDate = "Fri, 15 Jan 2027 08:00:03 GMT"  // testNow + 3 s
        let server = try LoopbackServer(replies: [
            .json(429, flavor.errorBody("slow down"), headers: [("Retry-After", "2")]),
            .json(429, flavor.errorBody("slow down"), headers: [("Retry-After", httpDate)]),
            .json(429, flavor.errorBody("slow down"), headers: [("retry-after-ms", "1500")]),
            flavor.answer(),
        ])
        let rig = TestRig()
        let provider = try flavor.provider(flavor.configuration(server), rig: rig)
        let response = try await provider.complete(simpleRequest(flavor), context: testContext)

        #expect(response.content == "Hello there.")
        #expect(server.requests.count == 4)
        #expect(rig.sleeper.waits == [.seconds(2), .seconds(3), .milliseconds(1500)])
        let retries = rig.events.of(.retrying)
        #expect(retries.map(\.statusCode) == [429, 429, 429])
        #expect(retries.map(\.attempt) == [2, 3, 4])
        #expect(retries.map(\.delaySeconds) == [2, 3, 1.5])
    }

    @Test("429 without Retry-After honours the rate-limit reset headers", arguments: Flavor.allCases)
    func rateLimitHeaders(flavor: Flavor) async throws {
        let headers: [(String, String)] =
            flavor == .openai
            ? [
                ("x-ratelimit-remaining-requests", "0"), ("x-ratelimit-reset-requests", "1m30s"),
                ("x-ratelimit-remaining-tokens", "5000"), ("x-ratelimit-reset-tokens", "6ms"),
            ]
            : [
                ("anthropic-ratelimit-requests-remaining", "0"),
                ("anthropic-ratelimit-requests-reset", "2027-01-15T08:00:45Z"),  // testNow + 45 s
                ("anthropic-ratelimit-tokens-remaining", "90000"),
                ("anthropic-ratelimit-tokens-reset", "2027-01-15T08:00:01Z"),
            ]
        let server = try LoopbackServer(replies: [.json(429, flavor.errorBody("rate limited"), headers: headers), flavor.answer()])
        let rig = TestRig()
        let provider = try flavor.provider(flavor.configuration(server), rig: rig)
        _ = try await provider.complete(simpleRequest(flavor), context: testContext)
        #expect(rig.sleeper.waits == [flavor == .openai ? .seconds(90) : .seconds(45)])
    }

    @Test("500 then success retries after a jittered backoff", arguments: Flavor.allCases)
    func serverErrorThenSuccess(flavor: Flavor) async throws {
        let server = try LoopbackServer(replies: [.json(500, flavor.errorBody("boom")), .json(503, "overloaded"), flavor.answer()])
        let rig = TestRig()
        let provider = try flavor.provider(flavor.configuration(server), rig: rig)
        let response = try await provider.complete(simpleRequest(flavor), context: testContext)
        #expect(response.content == "Hello there.")
        // Full jitter with random 0.5: 0.5 × 0.5 s, then 0.5 × 1 s.
        #expect(rig.sleeper.waits == [.milliseconds(250), .milliseconds(500)])
        #expect(rig.events.of(.retrying).map(\.statusCode) == [500, 503])
    }

    @Test("a reset or dropped connection is retried", arguments: Flavor.allCases)
    func connectionReset(flavor: Flavor) async throws {
        let server = try LoopbackServer(replies: [.reset, .closeWithoutAnswer, flavor.answer()])
        let rig = TestRig()
        let provider = try flavor.provider(flavor.configuration(server), rig: rig)
        let response = try await provider.complete(simpleRequest(flavor), context: testContext)
        #expect(response.content == "Hello there.")
        #expect(server.requests.count == 3)
        #expect(rig.events.of(.retrying).count == 2)
        #expect(rig.events.of(.retrying).allSatisfy { $0.statusCode == nil })
    }

    @Test("a request timeout is retried, then reported as unavailable", arguments: Flavor.allCases)
    func timeout(flavor: Flavor) async throws {
        let slow = flavor.answer().with(delay: .seconds(900))
        let server = try LoopbackServer(replies: [slow, slow])
        let rig = TestRig()
        let provider = try flavor.provider(flavor.configuration(server, maxRetries: 1, requestTimeout: 0.3), rig: rig)
        let error = await #expect(throws: LLMError.self) {
            _ = try await provider.complete(simpleRequest(flavor), context: testContext)
        }
        // The timeout ended it: the server's answer (after 900 s) would have been a success. No bound
        // on the time: on a loaded 2-core machine this task has waited 17 minutes for a thread.
        #expect(error?.kind == .unavailable)
        #expect(error?.message.contains("after 2 attempt(s)") == true)
        #expect(error?.message.contains("raise model.request_timeout_s") == true)
        #expect(server.requests.count == 2)
    }

    @Test("401 fails fast with advice and no retry", arguments: Flavor.allCases)
    func unauthorized(flavor: Flavor) async throws {
        let server = try LoopbackServer(replies: [.json(401, flavor.errorBody("invalid x-api-key"))], fallback: flavor.answer())
        let rig = TestRig()
        let provider = try flavor.provider(flavor.configuration(server), rig: rig)
        let error = await #expect(throws: LLMError.self) {
            _ = try await provider.complete(simpleRequest(flavor), context: testContext)
        }
        #expect(error?.kind == .authentication)
        #expect(error?.statusCode == 401)
        #expect(
            error?.message
                == "401 Unauthorized from 127.0.0.1:\(server.port): the key in \(flavor.keyVariable) was refused; check it.")
        #expect(server.requests.count == 1)
        #expect(rig.sleeper.waits.isEmpty)
        #expect(rig.events.of(.retrying).isEmpty)
        #expect(rig.events.of(.failed).count == 1)
    }

    @Test("400, 404 and 422 fail fast as invalid requests with the server's words", arguments: Flavor.allCases)
    func invalidRequests(flavor: Flavor) async throws {
        for status in [400, 404, 422] {
            let server = try LoopbackServer(replies: [.json(status, flavor.errorBody("model 'nope' is unknown"))])
            let rig = TestRig()
            let provider = try flavor.provider(flavor.configuration(server), rig: rig)
            let error = await #expect(throws: LLMError.self) {
                _ = try await provider.complete(simpleRequest(flavor), context: testContext)
            }
            #expect(error?.kind == .invalidRequest)
            #expect(error?.statusCode == status)
            #expect(error?.message.contains("model 'nope' is unknown") == true)
            #expect(server.requests.count == 1)
        }
    }

    @Test("a truncated answer is asked again with a doubled budget", arguments: Flavor.allCases)
    func truncatedThenComplete(flavor: Flavor) async throws {
        let server = try LoopbackServer(replies: [
            flavor.answer(text: "Hel", truncated: true, completion: 100),
            flavor.answer(text: "Hello there.", completion: 120),
        ])
        let rig = TestRig()
        let provider = try flavor.provider(flavor.configuration(server), rig: rig)
        let response = try await provider.complete(simpleRequest(flavor, maxTokens: 100), context: testContext)
        #expect(response.content == "Hello there.")
        #expect(response.finishReason == .stop)
        #expect(response.usage.completionTokens == 220)  // both attempts are billed
        #expect(server.requests.map { flavor.maxTokens(in: $0.json) } == [100, 200])
        #expect(rig.events.of(.truncatedRetry).map(\.maxTokens) == [200])
    }

    @Test("an answer cut off going round in a loop is returned finished 'loop', not asked again with more tokens", arguments: Flavor.allCases)
    func loopedAnswerIsNotAskedAgain(flavor: Flavor) async throws {
        let loop = "{\"prompt\": \"Which value is a string?\", \"explanation\": \"" + String(repeating: "A string is text in quotes. ", count: 40)
        let server = try LoopbackServer(replies: [
            flavor.answer(text: loop, truncated: true, completion: 100),
            flavor.answer(text: "Hello there.", completion: 120),
        ])
        let rig = TestRig()
        let provider = try flavor.provider(flavor.configuration(server), rig: rig)
        let response = try await provider.complete(simpleRequest(flavor, maxTokens: 100), context: testContext)
        #expect(response.content == loop)
        #expect(response.finishReason == .loop)
        #expect(server.requests.count == 1)
        #expect(rig.events.of(.truncatedRetry).isEmpty)
        #expect(rig.events.of(.looped).map(\.message) == ["answer ran into a loop after 100 tokens, repeating 'A string is text in quotes.'; not asked again with more tokens"])
    }

    @Test("a JSON answer padded with blank space to its budget is the JSON, not asked again", arguments: Flavor.allCases)
    func paddedJSON(flavor: Flavor) async throws {
        let server = try LoopbackServer(replies: [
            flavor.answer(text: "{\"title\": \"Loops\", \"minutes\": 5}" + String(repeating: "\n \n", count: 200), truncated: true, completion: 100)
        ])
        let rig = TestRig()
        let provider = try flavor.provider(flavor.configuration(server), rig: rig)
        let response = try await provider.complete(simpleRequest(flavor, maxTokens: 100), context: testContext)
        #expect(response.content == "{\"title\": \"Loops\", \"minutes\": 5}")
        #expect(response.finishReason == .stop)
        #expect(server.requests.count == 1)
    }

    @Test("an answer truncated every time is returned cut off, finished length, with an event naming the budget", arguments: Flavor.allCases)
    func truncatedForGood(flavor: Flavor) async throws {
        let server = try LoopbackServer(fallback: flavor.answer(text: "Hel", truncated: true))
        let rig = TestRig()
        let provider = try flavor.provider(flavor.configuration(server, ceiling: 300), rig: rig)
        let response = try await provider.complete(simpleRequest(flavor, maxTokens: 100), context: testContext)
        #expect(response.finishReason == .length && response.content == "Hel")
        #expect(server.requests.map { flavor.maxTokens(in: $0.json) } == [100, 200, 300])
        let cut = try #require(rig.events.of(.cutOff).first)
        #expect(cut.message.contains("max_tokens=300") && cut.message.contains("lecture/s01-t01"), "\(cut.message)")
        #expect(FinishReason.length.isStored, "kept, so a re-run repairs from it instead of paying for it again")
    }

    @Test("the key never appears in errors, events or descriptions", arguments: Flavor.allCases)
    func keyStaysSecret(flavor: Flavor) async throws {
        let echo = "Incorrect API key provided: \(Flavor.sentinelKey)"
        let server = try LoopbackServer(replies: [
            .json(500, flavor.errorBody(echo)),
            .json(429, flavor.errorBody(echo), headers: [("Retry-After", "1")]),
            .json(403, flavor.errorBody(echo)),
        ])
        let rig = TestRig()
        let configuration = flavor.configuration(server)
        let provider = try flavor.provider(configuration, rig: rig)
        var texts: [String] = []
        do {
            _ = try await provider.complete(simpleRequest(flavor), context: testContext)
            Issue.record("expected a failure")
        } catch {
            texts += [String(describing: error), String(reflecting: error), "\(error)"]
        }
        #expect(server.requests.first?.headers[flavor == .openai ? "Authorization" : "x-api-key"]?.contains(Flavor.sentinelKey) == true)
        texts += rig.events.all.map(\.jsonLine)
        texts += rig.events.all.map { String(describing: $0) }
        texts += [String(describing: provider), String(reflecting: provider)]
        var dumped = ""
        dump(provider, to: &dumped)
        texts.append(dumped)
        texts.append(String(decoding: try JSONEncoder().encode(configuration), as: UTF8.self))
        texts.append(String(decoding: try JSONEncoder().encode(rig.events.all), as: UTF8.self))
        #expect(rig.events.all.count >= 3)
        for text in texts {
            #expect(!text.contains(Flavor.sentinelKey), "leaked in: \(text)")
        }
    }

    @Test("cancelling the task aborts an in-flight request quickly", arguments: Flavor.allCases)
    func cancellation(flavor: Flavor) async throws {
        let server = try LoopbackServer(replies: [flavor.answer().with(delay: .seconds(3600))])
        let rig = TestRig()
        let provider = try flavor.provider(flavor.configuration(server), rig: rig)
        let task = Task { try await provider.complete(simpleRequest(flavor), context: testContext) }
        // In flight: the server has the request (on a loaded machine that can take minutes, see
        // LoopbackServer.waitForRequests).
        try #require(try await server.waitForRequests(1))
        let start = ContinuousClock.now
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        let result = await task.result
        #expect(ContinuousClock.now - start < .seconds(300), "the server would have taken an hour (the bound leaves room for a loaded 2-core machine)")
        #expect(throws: LLMError.self) { try result.get() }
        if case .failure(let error as LLMError) = result { #expect(error.kind == .cancelled) }
        #expect(server.requests.count == 1)
    }

    @Test("a missing key is a clear error naming the variable", arguments: Flavor.allCases)
    func missingKey(flavor: Flavor) throws {
        let configuration = ProviderConfiguration(kind: flavor.rawValue, model: flavor.model)
        let error = #expect(throws: LLMError.self) {
            _ = try ProviderFactory.make(configuration, environment: [:], events: { _ in })
        }
        #expect(error?.kind == .authentication)
        #expect(error?.message.contains(flavor.keyVariable) == true)
        // A variable the configuration names is the one read and named.
        var custom = configuration
        custom.apiKeyEnvironmentVariable = "GROQ_API_KEY"
        let named = #expect(throws: LLMError.self) {
            _ = try ProviderFactory.make(custom, environment: [flavor.keyVariable: "x"], events: { _ in })
        }
        #expect(named?.message.contains("GROQ_API_KEY") == true)
    }
}

extension LoopbackServer.Reply {
    func with(delay: Duration) -> Self {
        var copy = self
        copy.delay = delay
        return copy
    }
}
