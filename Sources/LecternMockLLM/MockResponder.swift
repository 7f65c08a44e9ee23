import Foundation
import LecternLLM
import LecternRandom

/// The API a request speaks, from its path.
enum WireProtocol: Sendable {
    case openai, anthropic

    init?(path: String) {
        let route = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        if route.hasSuffix("/chat/completions") {
            self = .openai
        } else if route.hasSuffix("/messages") {
            self = .anthropic
        } else {
            return nil
        }
    }
}

/// One HTTP request as the server read it.
struct MockHTTPRequest: Sendable {
    var method: String
    var path: String
    /// Header names lowercased.
    var headers: [String: String]
    var body: Data
}

/// What the server does with a request.
enum MockAction: Sendable {
    /// Send this response after `delay` milliseconds. `billable`: a 200 answer, counted as
    /// answered when it is actually sent.
    case respond(status: Int, headers: [(String, String)], body: Data, delay: Double, billable: Bool)
    /// Reset the connection after `delay` milliseconds.
    case reset(delay: Double)
    /// Say nothing; reset after `seconds`.
    case hang(seconds: Double)
}

/// Decides the answer to each request: the recorded content in the protocol's form, or an
/// injected fault. Pure apart from the counters it updates in `stats`.
struct MockResponder: Sendable {
    let configuration: MockConfiguration

    /// The action for `request`, updating `stats` (request counts, faults, rejections).
    func action(
        for request: MockHTTPRequest, answers: MockAnswerBook, stats: inout MockStats, serial: Int, now: Double = 0
    ) -> (action: MockAction, itemID: String?) {
        let route = request.path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.path
        if request.method == "GET" && route == "/__stats" {
            return (Self.json(200, Self.encode(stats)), nil)
        }
        if request.method == "GET" && route == "/__health" {
            return (Self.json(200, Data(#"{"ok":true}"#.utf8)), nil)
        }
        guard request.method == "POST", let wire = WireProtocol(path: route) else {
            stats.rejected += 1
            return (
                Self.json(
                    404,
                    Self.errorBody(.openai, type: "not_found_error", message: "the mock serves POST …/chat/completions and …/messages, GET /__stats")),
                nil
            )
        }

        let itemID = request.headers["x-lectern-item"].map(TracingHeaders.decode) ?? "-"
        let number = stats.items[itemID]?.requests ?? 0
        let globalNumber = stats.requests
        if stats.firstRequestAt == nil { stats.firstRequestAt = now }
        stats.requests += 1
        stats.items[itemID, default: MockStats.ItemCounts()].requests += 1
        stats.inFlight += 1
        stats.peakInFlight = max(stats.peakInFlight, stats.inFlight)

        if let refusal = authenticationFailure(request, wire: wire, number: globalNumber) {
            stats.rejected += 1
            return (refusal, itemID)
        }
        guard let answer = answers.answer(for: itemID, body: request.body, wire: wire) else {
            stats.rejected += 1
            let message =
                itemID == "-"
                ? "mock: the request has no X-Lectern-Item header, so there is no recorded answer to give"
                : "mock: no recorded answer for item \(itemID); record a cassette that covers it"
            return (Self.json(400, Self.errorBody(wire, type: "invalid_request_error", message: message)), itemID)
        }

        var random = SeededRandom(seed: configuration.seed, item: itemID, number: number)
        let shape = RequestShape(wire: wire, body: request.body)
        let json = answer.json
        let faultDraw = random.unit()
        let kindDraw = random.unit()
        let latency = configuration.latency.sample(random.unit(), random.unit())
        let errorLatency = configuration.errorLatency.sample(random.unit(), random.unit())

        var fault: FaultKind?
        let applicable = applicableFaults(
            answer: answer, json: json, answers: answers, number: number, streaming: shape.stream, schemaHasOptions: shape.schemaHasOptions)
        if let script = configuration.scriptedFaults[itemID], number < script.count {
            fault = script[number].flatMap { applicable.contains($0) ? $0 : nil }
        } else if faultDraw < configuration.faults.total {
            fault = pickFault(kindDraw, applicable: applicable)
        }
        if let fault {
            stats.faults[fault.rawValue, default: 0] += 1
            stats.items[itemID, default: MockStats.ItemCounts()].faults[fault.rawValue, default: 0] += 1
        }
        let serialID = "\(serial)"
        switch fault {
        case .rateLimited?:
            return (
                .respond(
                    status: 429, headers: [("Content-Type", "application/json"), ("Retry-After", String(configuration.retryAfterSeconds))],
                    body: Self.errorBody(
                        wire, type: wire == .openai ? "rate_limit_exceeded" : "rate_limit_error",
                        message: "mock: rate limit reached; retry after \(configuration.retryAfterSeconds) s"),
                    delay: errorLatency, billable: false), itemID
            )
        case .serverError?:
            return (
                .respond(
                    status: 500, headers: [("Content-Type", "application/json")],
                    body: Self.errorBody(wire, type: "api_error", message: "mock: internal server error"), delay: errorLatency, billable: false),
                itemID
            )
        case .unavailable?:
            return (
                .respond(
                    status: 503, headers: [("Content-Type", "application/json")],
                    body: Self.errorBody(wire, type: "overloaded_error", message: "mock: the service is overloaded"), delay: errorLatency,
                    billable: false), itemID
            )
        case .reset?:
            return (.reset(delay: errorLatency), itemID)
        case .hang?:
            return (.hang(seconds: configuration.hangSeconds), itemID)
        case .truncated?:
            let cut = String(answer.content.prefix(max(1, answer.content.count / 2)))
            let body = Self.answerBody(wire, shape: shape, content: cut, json: nil, usage: answer.usage, truncated: true, id: serialID)
            return (Self.billable(body, shape: shape, delay: latency), itemID)
        case .cutStream?:
            let body = Self.answerBody(wire, shape: shape, content: answer.content, json: json, usage: answer.usage, truncated: false, id: serialID)
            return (Self.billable(body, shape: shape, delay: latency, cut: true), itemID)
        case .invalidJSON?:
            let body = Self.answerBody(
                wire, shape: shape, content: Self.brokenJSON(answer.content, number: number), json: nil, usage: answer.usage, truncated: false,
                id: serialID)
            return (Self.billable(body, shape: shape, delay: latency), itemID)
        case .wrongContent?:
            let wrong =
                Self.wrongContent(answer: answer, json: json, answers: answers, number: number, spoilOptions: shape.schemaHasOptions)
                ?? (answer.content, json)
            let body = Self.answerBody(wire, shape: shape, content: wrong.0, json: wrong.1, usage: answer.usage, truncated: false, id: serialID)
            return (Self.billable(body, shape: shape, delay: latency), itemID)
        case nil:
            let body = Self.answerBody(
                wire, shape: shape, content: answer.content, json: json, usage: answer.usage, truncated: answer.ranOutOfTokens,
                usageAsRecorded: true, id: serialID)
            return (Self.billable(body, shape: shape, delay: latency), itemID)
        }
    }

    // MARK: Faults

    /// The faults that make sense for this answer.
    func applicableFaults(
        answer: MockAnswerBook.Answer, json: JSONValue?, answers: MockAnswerBook, number: Int, streaming: Bool = false,
        schemaHasOptions: Bool = true
    ) -> [FaultKind] {
        FaultKind.allCases.filter { kind in
            // A blind solver's wrong or unreadable answer is content to judge (a disagreement, a
            // solve that names no option), not a fault to recover from: only transport faults.
            if answer.stage == "blind-solve" && (kind == .invalidJSON || kind == .wrongContent) { return false }
            switch kind {
            case .cutStream: return streaming
            case .invalidJSON: return json != nil
            case .wrongContent:
                return Self.wrongContent(answer: answer, json: json, answers: answers, number: number, spoilOptions: schemaHasOptions) != nil
            default: return true
            }
        }
    }

    /// A kind among the applicable ones, weighted by their rates.
    func pickFault(_ draw: Double, applicable: [FaultKind]) -> FaultKind? {
        let weighted = applicable.compactMap { kind in configuration.faults.rates[kind].map { (kind, $0) } }
        let total = weighted.reduce(0) { $0 + $1.1 }
        guard total > 0 else { return nil }
        var threshold = draw * total
        for (kind, weight) in weighted {
            if threshold < weight { return kind }
            threshold -= weight
        }
        return weighted.last?.0
    }

    /// A schema-valid but wrong answer: for questions every option marked correct (or a wrong
    /// answer copying the correct one), or the wrong
    /// topic or subject id; for text, another item's answer of the same stage (a lecture about
    /// another topic). The item's request `number` varies the mistake, as a model's would vary
    /// between asks. Nil when there is no way to make this answer wrong.
    /// `spoilOptions` false: the request's schema asks for no options, so options in the recorded
    /// answer are ignored by the client and spoiling them would be no fault at all.
    static func wrongContent(
        answer: MockAnswerBook.Answer, json: JSONValue?, answers: MockAnswerBook, number: Int = 0, spoilOptions spoil: Bool = true
    ) -> (String, JSONValue?)? {
        if let json {
            var changed = false
            if spoil, number % 2 == 0 {
                let wrong = spoilOptions(json, changed: &changed)
                if changed { return (wrong.canonicalText, wrong) }
            }
            let moved = replaceIDs(json, number: number, changed: &changed)
            if changed { return (moved.canonicalText, moved) }
            guard spoil else { return nil }
            let wrong = spoilOptions(json, changed: &changed)
            return changed ? (wrong.canonicalText, wrong) : nil
        }
        guard let other = answers.neighbour(of: answer, offset: number), other.content != answer.content else { return nil }
        return (other.content, nil)
    }

    /// Options a validator must reject: the first `options` array of objects with `correct` flags
    /// gets every flag set (several correct); in Lectern's `correct_answer` + `wrong_answers`
    /// shape, the first wrong answer becomes a copy of the correct one (two options the same).
    static func spoilOptions(_ value: JSONValue, changed: inout Bool) -> JSONValue {
        guard !changed else { return value }
        switch value {
        case .object(var object):
            if let correct = object["correct_answer"], case .object = correct, var wrong = object["wrong_answers"]?.arrayValue, !wrong.isEmpty {
                wrong[0] = correct
                object["wrong_answers"] = .array(wrong)
                changed = true
                return .object(object)
            }
            if let options = object["options"]?.arrayValue, options.count > 1,
                options.allSatisfy({ if case .bool? = $0["correct"] { return true } else { return false } })
            {
                object["options"] = .array(
                    options.map { option in
                        guard case .object(var fields) = option else { return option }
                        fields["correct"] = .bool(true)
                        return .object(fields)
                    })
                changed = true
                return .object(object)
            }
            for key in object.keys.sorted() {
                if let inner = object[key] { object[key] = spoilOptions(inner, changed: &changed) }
                if changed { break }
            }
            return .object(object)
        case .array(let items):
            var result: [JSONValue] = []
            for item in items { result.append(spoilOptions(item, changed: &changed)) }
            return .array(result)
        default:
            return value
        }
    }

    /// Every `topic_id` / `subject_id` string pointed at a topic or subject that does not exist
    /// (a different one for each request `number`).
    static func replaceIDs(_ value: JSONValue, number: Int = 0, changed: inout Bool) -> JSONValue {
        switch value {
        case .object(var object):
            for key in Array(object.keys) {
                guard let inner = object[key] else { continue }
                if key == "topic_id" || key == "subject_id", case .string = inner {
                    let other = String(format: "%02d", 99 - number % 50)
                    object[key] = .string(key == "topic_id" ? "s\(other)-t\(other)" : "s\(other)")
                    changed = true
                } else {
                    object[key] = replaceIDs(inner, number: number, changed: &changed)
                }
            }
            return .object(object)
        case .array(let items):
            return .array(items.map { replaceIDs($0, number: number, changed: &changed) })
        default:
            return value
        }
    }

    /// JSON cut before its first closing bracket: no complete object or array survives, so no
    /// lenient extractor can find a value in it. The tail differs with the request `number`.
    static func brokenJSON(_ text: String, number: Int = 0) -> String {
        let cut = text.firstIndex(where: { $0 == "}" || $0 == "]" }) ?? text.endIndex
        let prefix = text[..<cut]
        return (prefix.isEmpty ? "{" : String(prefix)) + ", \"" + String(repeating: "…", count: 1 + number % 7)
    }

    /// The recorded content as a JSON object or array, when it is one.
    static func structuredValue(_ content: String) -> JSONValue? {
        let trimmed = content.drop(while: { $0 == " " || $0 == "\n" })
        guard trimmed.first == "{" || trimmed.first == "[", let value = try? JSONValue.parse(content) else { return nil }
        return value
    }

    // MARK: Authentication

    private func authenticationFailure(_ request: MockHTTPRequest, wire: WireProtocol, number: Int) -> MockAction? {
        let refused: Bool
        switch configuration.auth {
        case .acceptAll:
            refused = false
        case .requireKey(let key):
            let presented =
                request.headers["x-api-key"]
                ?? request.headers["authorization"].map { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : $0 }
            refused = presented != key
        case .revokeAfter(let count):
            refused = number >= count
        }
        guard refused else { return nil }
        let body =
            wire == .openai
            ? Data(
                #"{"error":{"code":"invalid_api_key","message":"mock: Incorrect API key provided.","param":null,"type":"invalid_request_error"}}"#
                    .utf8)
            : Data(#"{"error":{"message":"mock: invalid x-api-key","type":"authentication_error"},"type":"error"}"#.utf8)
        return Self.json(401, body)
    }

    // MARK: Wire formats

    /// What the request asks for that changes the answer's form.
    struct RequestShape {
        var wire: WireProtocol
        var model: String
        /// Anthropic tool mode: the forced tool's name.
        var toolName: String?
        /// The client asked for server-sent events (`stream: true`).
        var stream = false
        /// The request's schema asks for answer options (`wrong_answers` or `options`), or the
        /// request has no schema to tell.
        var schemaHasOptions = true

        init(wire: WireProtocol, body: Data) {
            self.wire = wire
            // Only a few top-level fields matter; a byte scan finds them without decoding the
            // (large) messages, which keeps the mock's CPU out of the client's way.
            let bytes = Array(body)
            let fields = Self.topLevelFields(bytes)
            func value(_ key: String) -> Any? {
                guard let range = fields[key] else { return nil }
                return try? JSONSerialization.jsonObject(with: Data(bytes[range]), options: [.fragmentsAllowed])
            }
            model = value("model") as? String ?? "mock-model"
            stream = value("stream") as? Bool ?? false
            let schemaField = wire == .anthropic ? "tools" : "response_format"
            if let range = fields[schemaField] {
                let schema = String(decoding: bytes[range], as: UTF8.self)
                schemaHasOptions = schema.contains("\"wrong_answers\"") || schema.contains("\"options\"")
            }
            if wire == .anthropic, let tools = value("tools") as? [[String: Any]], !tools.isEmpty {
                toolName = (value("tool_choice") as? [String: Any])?["name"] as? String ?? tools.first?["name"] as? String
            }
        }

        /// The byte ranges of the values of a JSON object's top-level keys (empty when the text
        /// is not an object; keys with escapes are skipped).
        static func topLevelFields(_ bytes: [UInt8]) -> [String: Range<Int>] {
            var fields: [String: Range<Int>] = [:]
            var i = 0
            func skipSpace() {
                while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
            }
            /// Moves past a string starting at `i` (a quote); returns whether it had escapes.
            func skipString() -> Bool {
                var escaped = false
                i += 1
                while i < bytes.count {
                    if bytes[i] == 0x5C {
                        escaped = true
                        i += 2
                        continue
                    }
                    if bytes[i] == 0x22 {
                        i += 1
                        return escaped
                    }
                    i += 1
                }
                return escaped
            }
            func skipValue() {
                guard i < bytes.count else { return }
                switch bytes[i] {
                case 0x22: _ = skipString()
                case 0x7B, 0x5B:
                    var depth = 0
                    while i < bytes.count {
                        switch bytes[i] {
                        case 0x22:
                            _ = skipString()
                            continue
                        case 0x7B, 0x5B: depth += 1
                        case 0x7D, 0x5D:
                            depth -= 1
                            if depth == 0 {
                                i += 1
                                return
                            }
                        default: break
                        }
                        i += 1
                    }
                default:
                    while i < bytes.count, ![0x2C, 0x7D, 0x5D, 0x20, 0x0A, 0x0D, 0x09].contains(bytes[i]) { i += 1 }
                }
            }
            skipSpace()
            guard i < bytes.count, bytes[i] == 0x7B else { return [:] }
            i += 1
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == 0x22 else { return fields }
                let keyStart = i + 1
                let escaped = skipString()
                let key = escaped ? nil : String(decoding: bytes[keyStart..<max(keyStart, i - 1)], as: UTF8.self)
                skipSpace()
                guard i < bytes.count, bytes[i] == 0x3A else { return fields }
                i += 1
                skipSpace()
                let valueStart = i
                skipValue()
                if let key { fields[key] = valueStart..<i }
                skipSpace()
                guard i < bytes.count, bytes[i] == 0x2C else { return fields }
                i += 1
            }
        }
    }

    /// A 200 answer in the protocol's shape. `json` (with a tool-mode Anthropic request) becomes
    /// a `tool_use` block's input; otherwise the content is text. `truncated`: cut off at the
    /// token budget, with half the completion tokens unless `usageAsRecorded` (a recorded loop).
    static func answerBody(
        _ wire: WireProtocol, shape: RequestShape, content: String, json: JSONValue?, usage: TokenUsage, truncated: Bool,
        usageAsRecorded: Bool = false, id: String
    ) -> Data {
        let completionTokens = truncated && !usageAsRecorded ? max(1, usage.completionTokens / 2) : usage.completionTokens
        switch wire {
        case .openai:
            let body: JSONValue = [
                "id": .string("chatcmpl-mock-\(id)"), "object": "chat.completion", "created": 1_700_000_000,
                "model": .string(shape.model),
                "choices": [
                    [
                        "index": 0,
                        "message": ["role": "assistant", "content": .string(content), "refusal": .null],
                        "logprobs": .null, "finish_reason": .string(truncated ? "length" : "stop"),
                    ]
                ],
                "usage": [
                    "prompt_tokens": .number(Double(usage.promptTokens)), "completion_tokens": .number(Double(completionTokens)),
                    "total_tokens": .number(Double(usage.promptTokens + completionTokens)),
                    "prompt_tokens_details": ["cached_tokens": 0],
                ],
            ]
            return Data(body.canonicalText.utf8)
        case .anthropic:
            let block: JSONValue
            let stop: String
            if let toolName = shape.toolName, let json, !truncated {
                block = ["type": "tool_use", "id": .string("toolu_mock_\(id)"), "name": .string(toolName), "input": json]
                stop = "tool_use"
            } else {
                block = ["type": "text", "text": .string(content)]
                stop = truncated ? "max_tokens" : "end_turn"
            }
            let body: JSONValue = [
                "id": .string("msg_mock_\(id)"), "type": "message", "role": "assistant", "model": .string(shape.model),
                "content": [block], "stop_reason": .string(stop), "stop_sequence": .null,
                "usage": ["input_tokens": .number(Double(usage.promptTokens)), "output_tokens": .number(Double(completionTokens))],
            ]
            return Data(body.canonicalText.utf8)
        }
    }

    static func errorBody(_ wire: WireProtocol, type: String, message: String) -> Data {
        let body: JSONValue =
            wire == .openai
            ? ["error": ["message": .string(message), "type": .string(type), "param": .null, "code": .null]]
            : ["type": "error", "error": ["type": .string(type), "message": .string(message)]]
        return Data(body.canonicalText.utf8)
    }

    static func json(_ status: Int, _ body: Data) -> MockAction {
        .respond(status: status, headers: [("Content-Type", "application/json")], body: body, delay: 0, billable: false)
    }

    static func billable(_ body: Data, shape: RequestShape, delay: Double, cut: Bool = false) -> MockAction {
        guard shape.stream, let answer = try? JSONValue.parse(String(decoding: body, as: UTF8.self)) else {
            return .respond(status: 200, headers: [("Content-Type", "application/json")], body: body, delay: delay, billable: true)
        }
        return .respond(
            status: 200, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")],
            body: eventStream(shape.wire, answer: answer, cut: cut), delay: delay, billable: true)
    }

    /// A whole answer as the server-sent events a streaming server would send: the text (or
    /// Anthropic's tool input) in pieces of 16 characters, then the final events; `cut` stops
    /// halfway through the pieces, with no final event.
    static func eventStream(_ wire: WireProtocol, answer: JSONValue, cut: Bool) -> Data {
        func pieces(_ text: String) -> [String] {
            var out: [String] = []
            var rest = Substring(text)
            while !rest.isEmpty {
                out.append(String(rest.prefix(16)))
                rest = rest.dropFirst(16)
            }
            return cut ? Array(out.prefix(out.count / 2)) : out
        }
        var events: [String] = []
        func add(_ name: String?, _ value: JSONValue) {
            events.append((name.map { "event: \($0)\n" } ?? "") + "data: " + value.canonicalText + "\n\n")
        }
        switch wire {
        case .openai:
            let choice = answer["choices"]?.arrayValue?.first
            let header: [String: JSONValue] = [
                "id": answer["id"] ?? "chatcmpl-mock", "object": "chat.completion.chunk", "created": 1_700_000_000,
                "model": answer["model"] ?? "mock-model",
            ]
            func chunk(_ delta: JSONValue, finish: JSONValue = .null) -> JSONValue {
                .object(header.merging(["choices": [["index": 0, "delta": delta, "finish_reason": finish]]]) { $1 })
            }
            add(nil, chunk(["role": "assistant", "content": ""]))
            for piece in pieces(choice?["message"]?["content"]?.stringValue ?? "") { add(nil, chunk(["content": .string(piece)])) }
            if !cut {
                add(nil, chunk([:], finish: choice?["finish_reason"] ?? "stop"))
                add(nil, .object(header.merging(["choices": [], "usage": answer["usage"] ?? .null]) { $1 }))
                events.append("data: [DONE]\n\n")
            }
        case .anthropic:
            let usage = answer["usage"]
            var start = answer.objectValue ?? [:]
            start["content"] = []
            start["stop_reason"] = .null
            start["usage"] = ["input_tokens": usage?["input_tokens"] ?? 0, "output_tokens": 1]
            add("message_start", ["type": "message_start", "message": .object(start)])
            for (index, block) in (answer["content"]?.arrayValue ?? []).enumerated() {
                let isTool = block["type"]?.stringValue == "tool_use"
                var opening = block.objectValue ?? [:]
                if isTool { opening["input"] = [:] } else { opening["text"] = "" }
                add("content_block_start", ["type": "content_block_start", "index": .number(Double(index)), "content_block": .object(opening)])
                let text = isTool ? (block["input"]?.canonicalText ?? "{}") : (block["text"]?.stringValue ?? "")
                for piece in pieces(text) {
                    let delta: JSONValue = isTool ? ["type": "input_json_delta", "partial_json": .string(piece)] : ["type": "text_delta", "text": .string(piece)]
                    add("content_block_delta", ["type": "content_block_delta", "index": .number(Double(index)), "delta": delta])
                }
                if cut { break }
                add("content_block_stop", ["type": "content_block_stop", "index": .number(Double(index))])
            }
            if !cut {
                add(
                    "message_delta",
                    [
                        "type": "message_delta", "delta": ["stop_reason": answer["stop_reason"] ?? "end_turn", "stop_sequence": .null],
                        "usage": ["output_tokens": usage?["output_tokens"] ?? 0],
                    ])
                add("message_stop", ["type": "message_stop"])
            }
        }
        return Data(events.joined().utf8)
    }

    static func encode(_ stats: MockStats) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(stats)) ?? Data("{}".utf8)
    }
}

/// SplitMix64 seeded from the run seed, the item and the item's request number: the same
/// request gets the same draws whatever order requests arrive in.
struct SeededRandom {
    private var generator: SplitMix64

    init(seed: UInt64, item: String, number: Int) {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in item.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        generator = SplitMix64(state: seed &* 0x9E37_79B9_7F4A_7C15 ^ hash ^ (UInt64(truncatingIfNeeded: number) &* 0xBF58_476D_1CE4_E5B9))
        _ = next()
    }

    mutating func next() -> UInt64 { generator.next() }

    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }
}
