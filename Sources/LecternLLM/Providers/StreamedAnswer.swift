import Foundation
import Synchronization

/// One server-sent event (`text/event-stream`): its `event:` name, if any, and its `data:` lines
/// joined with newlines.
struct ServerSentEvent: Sendable, Hashable {
    var name: String?
    var data: String

    /// The events of a whole stream, by the WHATWG rules: lines end in LF, CRLF or CR; a blank
    /// line dispatches the event; `:` starts a comment; an event not closed by a blank line
    /// before the stream ends is dropped (it may be cut short). Read by its bytes, as the rules
    /// are written (every byte that ends a line or names a field is ASCII): splitting the decoded
    /// text into Characters was a tenth of a 4,000-call run's CPU.
    static func parse(_ body: Data) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        var name: String?
        var data: [UInt8] = []
        var hasData = false
        body.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            func line(_ start: Int, _ end: Int) {
                if start == end {
                    if hasData { events.append(ServerSentEvent(name: name, data: String(decoding: data, as: UTF8.self))) }
                    name = nil
                    data = []
                    hasData = false
                    return
                }
                if bytes[start] == UInt8(ascii: ":") { return }
                var colon = start
                while colon < end && bytes[colon] != UInt8(ascii: ":") { colon += 1 }
                var value = colon < end ? colon + 1 : end
                if value < end && bytes[value] == UInt8(ascii: " ") { value += 1 }
                let field = UnsafeBufferPointer(rebasing: bytes[start..<colon])
                if field.elementsEqual("data".utf8) {
                    if hasData { data.append(UInt8(ascii: "\n")) }
                    data.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[value..<end]))
                    hasData = true
                } else if field.elementsEqual("event".utf8) {
                    name = String(decoding: UnsafeBufferPointer(rebasing: bytes[value..<end]), as: UTF8.self)
                }
            }
            var lineStart = 0
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                    line(lineStart, index)
                    if byte == UInt8(ascii: "\r"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") { index += 1 }
                    lineStart = index + 1
                }
                index += 1
            }
            // The bytes after the last line break are an unterminated line: not part of any event.
        }
        return events
    }
}

/// A streamed answer that stopped before its final event. The provider exchange sends the
/// request again, like a broken connection: a cut-off stream is never taken as an answer.
struct StreamEndedEarly: Error, Sendable {
    /// What was missing, for messages.
    var detail: String
}

/// Turns a finished event stream into the JSON body the same request would have had without
/// streaming, so a streamed and a whole answer go through one decoder (and the cache stores
/// the same assembled answer either way).
enum StreamAssembler {
    /// Whether a 2xx body is an event stream rather than a whole JSON answer (a server may ignore
    /// `stream: true`).
    static func isEventStream(_ response: HTTPResponse) -> Bool {
        if let type = response.headers["Content-Type"]?.lowercased(), type.contains("text/event-stream") { return true }
        let first = response.body.first { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }
        return first != nil && first != UInt8(ascii: "{")
    }

    /// A Chat Completions stream (`chat.completion.chunk` events, then `[DONE]`) as one
    /// `chat.completion` body. Complete once a `finish_reason` or `[DONE]` arrived.
    ///
    /// A stream Lectern stopped itself (`stopped`: the answer ran away into a loop) is complete
    /// as far as it went, finished `length` like an answer cut off by its budget.
    static func chatCompletion(_ body: Data, stopped: Bool = false) throws -> Data {
        var content = ""
        var refusal: String?
        var finishReason: String?
        var usage: JSONValue?
        var model: String?
        var done = false
        var deltas = 0
        for event in ServerSentEvent.parse(body) {
            if event.data.utf8.count <= 16, event.data.trimmingCharacters(in: .whitespaces) == "[DONE]" {
                done = true
                continue
            }
            guard let chunk = try? JSONValue.parse(event.data) else {
                throw StreamEndedEarly(detail: "an event of the stream is not JSON: \(event.data.prefix(120))")
            }
            if let error = chunk["error"] {
                let said = error["message"]?.stringValue ?? error.stringValue ?? error.canonicalText
                throw StreamEndedEarly(detail: "the server reported an error in the stream: \(said.prefix(300))")
            }
            if let name = chunk["model"]?.stringValue { model = name }
            if let reported = chunk["usage"], reported != .null { usage = reported }
            guard let choice = chunk["choices"]?.arrayValue?.first else { continue }
            if let delta = choice["delta"] {
                if let text = delta["content"]?.stringValue {
                    content += text
                    deltas += 1
                }
                if let text = delta["refusal"]?.stringValue { refusal = (refusal ?? "") + text }
            }
            if let reason = choice["finish_reason"]?.stringValue { finishReason = reason }
        }
        if stopped && !done && finishReason == nil { finishReason = "length" }
        guard done || finishReason != nil else {
            throw StreamEndedEarly(detail: "the event stream ended before the answer was finished (no finish_reason, no [DONE])")
        }
        var message: [String: JSONValue] = ["role": "assistant", "content": .string(content)]
        if let refusal {
            message["refusal"] = .string(refusal)
            if content.isEmpty { message["content"] = .null }
        }
        var completion: [String: JSONValue] = [
            "object": "chat.completion",
            "choices": [["index": 0, "message": .object(message), "finish_reason": finishReason.map(JSONValue.string) ?? .null]],
        ]
        // Servers that do not honour stream_options.include_usage report none: count the deltas
        // (one token each on every server seen) rather than report a free answer.
        completion["usage"] = usage ?? ["prompt_tokens": 0, "completion_tokens": .number(Double(deltas))]
        if let model { completion["model"] = .string(model) }
        return Data(JSONValue.object(completion).canonicalText.utf8)
    }

    /// A Messages stream (`message_start` … `message_stop`) as one Messages body. Complete only
    /// once `message_stop` arrived.
    /// A stream Lectern stopped (`stopped`) is complete as far as it went, `max_tokens`.
    static func anthropicMessage(_ body: Data, stopped lecternStopped: Bool = false) throws -> Data {
        var message: [String: JSONValue] = [:]
        var usage: [String: JSONValue] = [:]
        var blocks: [Int: (start: [String: JSONValue], text: String, json: String)] = [:]
        var stopReason: JSONValue = .null
        var stopped = false
        for event in ServerSentEvent.parse(body) {
            guard let payload = try? JSONValue.parse(event.data) else {
                throw StreamEndedEarly(detail: "an event of the stream is not JSON: \(event.data.prefix(120))")
            }
            let type = payload["type"]?.stringValue ?? event.name ?? ""
            switch type {
            case "message_start":
                if let start = payload["message"]?.objectValue {
                    message = start
                    if let reported = start["usage"]?.objectValue { usage.merge(reported) { _, new in new } }
                }
            case "content_block_start":
                guard let index = payload["index"]?.intValue, let block = payload["content_block"]?.objectValue else { continue }
                blocks[index] = (block, block["text"]?.stringValue ?? "", "")
            case "content_block_delta":
                guard let index = payload["index"]?.intValue, let delta = payload["delta"], blocks[index] != nil else { continue }
                if let text = delta["text"]?.stringValue { blocks[index]?.text += text }
                if let json = delta["partial_json"]?.stringValue { blocks[index]?.json += json }
            case "message_delta":
                if let reason = payload["delta"]?["stop_reason"], reason != .null { stopReason = reason }
                if let reported = payload["usage"]?.objectValue { usage.merge(reported) { _, new in new } }
            case "message_stop":
                stopped = true
            case "error":
                let said = payload["error"]?["message"]?.stringValue ?? payload.canonicalText
                throw StreamEndedEarly(detail: "the server reported an error in the stream: \(said.prefix(300))")
            default:
                continue  // ping, content_block_stop, and types added later
            }
        }
        if lecternStopped && !stopped {
            stopped = true
            stopReason = "max_tokens"
        }
        guard stopped else {
            throw StreamEndedEarly(detail: "the event stream ended before message_stop")
        }
        var content: [JSONValue] = []
        for index in blocks.keys.sorted() {
            guard let block = blocks[index] else { continue }
            var assembled = block.start
            switch assembled["type"]?.stringValue {
            case "text":
                assembled["text"] = .string(block.text)
            case "tool_use":
                if !block.json.isEmpty {
                    guard let input = try? JSONValue.parse(block.json) else {
                        throw StreamEndedEarly(detail: "the tool input of the stream is not complete JSON")
                    }
                    assembled["input"] = input
                }
            default:
                break
            }
            content.append(.object(assembled))
        }
        message["content"] = .array(content)
        message["stop_reason"] = stopReason
        message["usage"] = .object(usage)
        return Data(JSONValue.object(message).canonicalText.utf8)
    }
}

/// Counts the events of a streamed answer as they arrive and reports progress at most every
/// `interval`, so a terminal can show tokens arriving without an event per token. It also reads
/// the text the deltas carry and says when the answer has run away into a loop
/// (`AnswerLoop.runaway`), so the transfer can stop there instead of paying for the rest of the
/// token budget.
final class StreamProgress: Sendable {
    private struct State {
        var events = 0
        var carry: [UInt8] = []
        var lastReport: ContinuousClock.Instant?
        var text = ""
        var checkedAt = 0
        var looped = false
    }
    private let state = Mutex(State())
    private let interval: Duration
    private let report: @Sendable (Int) -> Void
    /// Events between two loop checks.
    static let checkEvery = 32
    /// The longest line kept while waiting for its end (a delta is far shorter).
    static let maxLine = 1 << 20

    init(interval: Duration = .milliseconds(500), report: @escaping @Sendable (Int) -> Void) {
        self.interval = interval
        self.report = report
    }

    /// Takes one piece of the body; counts the `data:` lines in it (one delta, about one token,
    /// each) and adds their text. Returns false once the text has run away into a loop: the
    /// caller stops the transfer.
    func receive(_ chunk: Data) -> Bool {
        let (due, keepGoing): (Int?, Bool) = state.withLock { state in
            var bytes = state.carry
            bytes.append(contentsOf: chunk)
            var lineStart = 0
            for index in bytes.indices where bytes[index] == 0x0A {
                if index - lineStart >= 5, bytes[lineStart..<(lineStart + 5)].elementsEqual("data:".utf8) {
                    state.events += 1
                    if let text = Self.deltaText(bytes[(lineStart + 5)..<index]) { state.text += text }
                }
                lineStart = index + 1
            }
            state.carry = bytes.count - lineStart > Self.maxLine ? [] : Array(bytes[lineStart...])
            if !state.looped, state.events - state.checkedAt >= Self.checkEvery {
                state.checkedAt = state.events
                state.looped = AnswerLoop.runaway(in: state.text) != nil
            }
            let now = ContinuousClock.now
            if let last = state.lastReport, now - last < interval { return (nil, !state.looped) }
            state.lastReport = now
            return (state.events, !state.looped)
        }
        if let due { report(due) }
        return keepGoing
    }

    /// The text one event adds: a Chat Completions delta's `content`, or a Messages stream's
    /// `text_delta`.
    static func deltaText(_ data: ArraySlice<UInt8>) -> String? {
        guard let event = try? JSONValue.parse(trimmed(data)) else { return nil }
        if let text = event["choices"]?.arrayValue?.first?["delta"]?["content"]?.stringValue { return text }
        return event["delta"]?["text"]?.stringValue
    }

    /// An event's text without the spaces and tabs around it, trimmed by its bytes: Foundation's
    /// `trimmingCharacters(in: .whitespaces)`, which bridges through NSString, took an eighth of
    /// the CPU of a 10,000-call run (every event of every streamed answer passes here). A
    /// non-ASCII byte at either end (a Unicode space `.whitespaces` also trims) goes to Foundation.
    static func trimmed(_ data: ArraySlice<UInt8>) -> String {
        var slice = data
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        if let first = slice.first, let last = slice.last, first >= 0x80 || last >= 0x80 {
            return String(decoding: slice, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        }
        return String(decoding: slice, as: UTF8.self)
    }
}
