import Foundation
import Testing

@testable import LecternLLM

/// Streamed answers (server-sent events) from a real loopback server.
@Suite("Streaming")
struct StreamingTests {
    /// The events of a streamed answer that writes `pieces`, in the flavor's wire format; `complete`
    /// false leaves out the final events (finish reason and terminator).
    static func events(_ flavor: Flavor, pieces: [String], toolName: String? = nil, complete: Bool = true) -> [String] {
        switch flavor {
        case .openai:
            var events = [
                #"data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"#
            ]
            for piece in pieces {
                events.append(
                    #"data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{"content":\#(JSONValue.string(piece).canonicalText)},"finish_reason":null}]}"#
                )
            }
            if complete {
                events.append(#"data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#)
                events.append(
                    #"data: {"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":5,"total_tokens":17,"prompt_tokens_details":{"cached_tokens":3}}}"#
                )
                events.append("data: [DONE]")
            }
            return events.map { $0 + "\n\n" }
        case .anthropic:
            let block =
                toolName.map { #"{"type":"tool_use","id":"t1","name":"\#($0)","input":{}}"# } ?? #"{"type":"text","text":""}"#
            var events = [
                "event: message_start\n"
                    + #"data: {"type":"message_start","message":{"id":"m1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"usage":{"input_tokens":9,"output_tokens":1,"cache_read_input_tokens":3,"cache_creation_input_tokens":0}}}"#,
                "event: content_block_start\n" + #"data: {"type":"content_block_start","index":0,"content_block":\#(block)}"#,
                "event: ping\n" + #"data: {"type": "ping"}"#,
            ]
            for piece in pieces {
                let delta =
                    toolName == nil
                    ? #"{"type":"text_delta","text":\#(JSONValue.string(piece).canonicalText)}"#
                    : #"{"type":"input_json_delta","partial_json":\#(JSONValue.string(piece).canonicalText)}"#
                events.append("event: content_block_delta\n" + #"data: {"type":"content_block_delta","index":0,"delta":\#(delta)}"#)
            }
            if complete {
                events.append("event: content_block_stop\n" + #"data: {"type":"content_block_stop","index":0}"#)
                events.append(
                    "event: message_delta\n"
                        + #"data: {"type":"message_delta","delta":{"stop_reason":"\#(toolName == nil ? "end_turn" : "tool_use")","stop_sequence":null},"usage":{"output_tokens":5}}"#)
                events.append("event: message_stop\n" + #"data: {"type":"message_stop"}"#)
            }
            return events.map { $0 + "\n\n" }
        }
    }

    static func streaming(
        _ flavor: Flavor, _ server: LoopbackServer, idle: Double? = nil, maxRetries: Int = 3, requestTimeout: Double = 60
    ) -> ProviderConfiguration {
        var configuration = flavor.configuration(server, maxRetries: maxRetries, requestTimeout: requestTimeout)
        configuration.stream = true
        configuration.idleTimeoutSeconds = idle
        return configuration
    }

    /// A stream as parts with a small pause between them, so the client reads it in pieces.
    static func reply(_ events: [String], pause: Duration = .milliseconds(20), hangAfter: Duration? = nil) -> LoopbackServer.Reply {
        .stream(events.map { (pause, $0) }, hangAfter: hangAfter)
    }

    @Test("a streamed answer is assembled: content, finish, usage, and progress as it arrives", arguments: Flavor.allCases)
    func assembled(flavor: Flavor) async throws {
        let server = try LoopbackServer(replies: [Self.reply(Self.events(flavor, pieces: ["Hel", "lo ", "there."]))])
        defer { server.stop() }
        let rig = TestRig()
        let provider = try flavor.provider(Self.streaming(flavor, server), rig: rig)
        let response = try await provider.complete(simpleRequest(flavor), context: testContext)
        #expect(response.content == "Hello there.")
        #expect(response.finishReason == .stop)
        #expect(response.usage == TokenUsage(promptTokens: 12, completionTokens: 5, cachedTokens: 3))
        let body = try #require(server.requests.first?.json)
        #expect(body["stream"] == true)
        #expect(server.requests.first?.headers["accept"] == "text/event-stream")
        if flavor == .openai { #expect(body["stream_options"]?["include_usage"] == true) }
        let progress = rig.events.all.filter { $0.kind == .receiving }
        #expect(!progress.isEmpty)
        #expect(progress.allSatisfy { $0.itemID == testContext.itemID && ($0.receivedTokens ?? 0) > 0 })
    }

    @Test("structured output streams too (Anthropic's tool input arrives as JSON pieces)", arguments: Flavor.allCases)
    func structured(flavor: Flavor) async throws {
        let json = #"{"title":"Loops","minutes":5}"#
        let pieces = [String(json.prefix(9)), String(json.dropFirst(9).prefix(10)), String(json.dropFirst(19))]
        let server = try LoopbackServer(replies: [Self.reply(Self.events(flavor, pieces: pieces, toolName: flavor == .anthropic ? "lecture" : nil))])
        defer { server.stop() }
        let provider = try flavor.provider(Self.streaming(flavor, server), rig: TestRig())
        let response = try await provider.complete(simpleRequest(flavor, schema: lectureSchema), context: testContext)
        #expect(try JSONValue.parse(response.content) == ["title": "Loops", "minutes": 5])
    }

    @Test("a stream that runs away into a loop is stopped there and returned finished 'loop'", arguments: Flavor.allCases)
    func runawayStopped(flavor: Flavor) async throws {
        // 300 pieces of one sentence and no end: a server that would go on (and then hang) until
        // the budget. The client stops reading once the loop is plain.
        let pieces = ["{\"prompt\": \"Which loop?\", \"feedback\": \""] + Array(repeating: "It runs again. ", count: 300)
        let server = try LoopbackServer(replies: [
            Self.reply(Self.events(flavor, pieces: pieces, complete: false), pause: .milliseconds(1), hangAfter: .seconds(120))
        ])
        defer { server.stop() }
        let rig = TestRig()
        let provider = try flavor.provider(Self.streaming(flavor, server, maxRetries: 0, requestTimeout: 60), rig: rig)
        let response = try await provider.complete(simpleRequest(flavor), context: testContext)
        #expect(response.finishReason == .loop)
        #expect(response.content.hasPrefix("{\"prompt\": \"Which loop?\", \"feedback\": \"It runs again. It runs again. "))
        // Stopped after about 600 characters of the loop (checked every 32 events), not 300 pieces.
        let repeats = response.content.components(separatedBy: "It runs again. ").count - 1
        #expect(repeats >= 40 && repeats < 120, "\(repeats)")
        #expect(server.requests.count == 1)
        #expect(rig.events.of(.looped).count == 1)
    }

    @Test("a stream that ends early is never an answer: it is asked again", arguments: Flavor.allCases)
    func endsEarly(flavor: Flavor) async throws {
        let cut = Self.reply(Self.events(flavor, pieces: ["Hel", "lo"], complete: false))
        let whole = Self.reply(Self.events(flavor, pieces: ["Hello there."]))
        let server = try LoopbackServer(replies: [cut, whole])
        defer { server.stop() }
        let rig = TestRig()
        let provider = try flavor.provider(Self.streaming(flavor, server), rig: rig)
        let response = try await provider.complete(simpleRequest(flavor), context: testContext)
        #expect(response.content == "Hello there.")
        #expect(server.requests.count == 2)
        let retry = try #require(rig.events.all.first { $0.kind == .retrying })
        #expect(retry.message.contains("ended before"))
    }

    @Test("with no retries left, a cut stream is an error that says so", arguments: Flavor.allCases)
    func endsEarlyForGood(flavor: Flavor) async throws {
        let server = try LoopbackServer(replies: [Self.reply(Self.events(flavor, pieces: ["Hel"], complete: false))])
        defer { server.stop() }
        let provider = try flavor.provider(Self.streaming(flavor, server, maxRetries: 0), rig: TestRig())
        let error = await #expect(throws: LLMError.self) {
            _ = try await provider.complete(simpleRequest(flavor), context: testContext)
        }
        #expect(error?.kind == .unavailable)
        #expect(error?.message.contains("ended before") == true)
    }

    @Test("an idle stream is cut by the idle timeout and asked again", arguments: Flavor.allCases)
    func idleStream(flavor: Flavor) async throws {
        // Half an answer, then silence far longer than the idle timeout.
        let stalled = Self.reply(Self.events(flavor, pieces: ["Hel"], complete: false), hangAfter: .seconds(900))
        let whole = Self.reply(Self.events(flavor, pieces: ["Hello there."]))
        let server = try LoopbackServer(replies: [stalled, whole])
        defer { server.stop() }
        let rig = TestRig()
        let provider = try flavor.provider(Self.streaming(flavor, server, idle: 1, requestTimeout: 3_600), rig: rig)
        let response = try await provider.complete(simpleRequest(flavor), context: testContext)
        #expect(response.content == "Hello there.")
        #expect(server.requests.count == 2)
        // Cut by the 1 s idle timeout: the request timeout is an hour, and the server's hang ends
        // after 900 s with a stream cut short, which a retry would name otherwise. No bound on the
        // time: on a loaded 2-core machine this task has waited 17 minutes for a thread.
        #expect(rig.events.all.contains { $0.kind == .retrying && ($0.message.lowercased().contains("timed out") || $0.message.contains("too slow")) })
    }

    @Test("a server that ignores stream: true and answers whole is still understood", arguments: Flavor.allCases)
    func wholeAnswerToStreamRequest(flavor: Flavor) async throws {
        let server = try LoopbackServer(replies: [flavor.answer(text: "Whole.")])
        defer { server.stop() }
        let provider = try flavor.provider(Self.streaming(flavor, server), rig: TestRig())
        let response = try await provider.complete(simpleRequest(flavor), context: testContext)
        #expect(response.content == "Whole.")
    }

    @Test("event-stream parsing: CRLF, comments, multi-line data, and an unterminated last event dropped")
    func parsing() {
        let text = ": comment\r\nevent: a\r\ndata: one\r\ndata: two\r\n\r\ndata:three\n\nretry: 5\n\ndata: cut"
        let events = ServerSentEvent.parse(Data(text.utf8))
        #expect(events == [ServerSentEvent(name: "a", data: "one\ntwo"), ServerSentEvent(name: nil, data: "three")])
    }

    @Test("event-stream parsing by bytes: CR alone ends a line, a field without a colon, UTF-8 split over data lines, an event without data")
    func parsingBytes() {
        let text = "data: é ✓\rdata\r\revent: only a name\n\nevent:x\ndata:  two spaces\n\ndata: [DONE]\r\n\r\n"
        #expect(
            ServerSentEvent.parse(Data(text.utf8)) == [
                ServerSentEvent(name: nil, data: "é ✓\n"), ServerSentEvent(name: "x", data: " two spaces"), ServerSentEvent(name: nil, data: "[DONE]"),
            ])
        // A character cut between two data lines decodes as it would have in one text: replaced.
        var bytes = Array("data: a".utf8) + [0xE2, 0x82] + Array("\ndata: ".utf8) + [0xAC] + Array("b\n\n".utf8)
        #expect(ServerSentEvent.parse(Data(bytes)) == [ServerSentEvent(name: nil, data: "a\u{FFFD}\n\u{FFFD}b")])
        bytes = Array("data: tail without its blank line\n".utf8)
        #expect(ServerSentEvent.parse(Data(bytes)).isEmpty)
    }

    @Test("an error event in the stream is a failed attempt, not an answer")
    func errorEvent() {
        let body = Data("data: {\"error\":{\"message\":\"overloaded\"}}\n\n".utf8)
        #expect(throws: StreamEndedEarly.self) { try StreamAssembler.chatCompletion(body) }
        let anthropic = Data("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n".utf8)
        #expect(throws: StreamEndedEarly.self) { try StreamAssembler.anthropicMessage(anthropic) }
    }

    /// An event's text is trimmed by its bytes as Foundation trims `.whitespaces`, and its delta
    /// read from either wire format.
    @Test func anEventIsTrimmedAsFoundationTrimsIt() {
        let cases = [
            "", " ", "\t\t", #" {"a":1} "#, "\t{\"a\":1}\t ", "{\"a\":1}\r", " \u{A0}{\"a\":1}\u{A0} ", "\u{2003}x", "x\u{3000}", " é ", "plain",
        ]
        for text in cases {
            #expect(StreamProgress.trimmed(ArraySlice(Array(text.utf8))) == text.trimmingCharacters(in: .whitespaces), "\(text.debugDescription)")
        }
        let openai = #" {"choices":[{"index":0,"delta":{"content":"Hé "},"finish_reason":null}]}"#
        let anthropic = #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" there"}} "#
        #expect(StreamProgress.deltaText(ArraySlice(Array(openai.utf8))) == "Hé ")
        #expect(StreamProgress.deltaText(ArraySlice(Array(anthropic.utf8))) == " there")
        #expect(StreamProgress.deltaText(ArraySlice(Array(" [DONE]".utf8))) == nil)
    }
}
