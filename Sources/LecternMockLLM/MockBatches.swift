import Foundation
import LecternLLM

/// How the mock's batch APIs behave.
public struct MockBatchConfiguration: Sendable {
    /// Seconds from a batch's creation until it has ended.
    public var seconds: Double
    /// The first batch ends `expired` with only its first half answered.
    public var expireFirstBatch: Bool
    /// Every n-th line (counting lines across batches, each line's first appearance only) ends
    /// with an error; 0: none.
    public var failEveryNthLine: Int
    /// Every n-th line (first appearance only) is left out of the results, as if lost; 0: none.
    public var dropEveryNthLine: Int

    public init(seconds: Double = 0.2, expireFirstBatch: Bool = false, failEveryNthLine: Int = 0, dropEveryNthLine: Int = 0) {
        self.seconds = max(0, seconds)
        self.expireFirstBatch = expireFirstBatch
        self.failEveryNthLine = max(0, failEveryNthLine)
        self.dropEveryNthLine = max(0, dropEveryNthLine)
    }
}

/// The mock's OpenAI Batch API (`POST /v1/files`, `POST /v1/batches`, `GET /v1/batches/{id}`,
/// `GET /v1/files/{id}/content`) and Anthropic Message Batches API (`POST /v1/messages/batches`,
/// `GET /v1/messages/batches/{id}`, `GET …/{id}/results`). A line is answered from the answer
/// book by the item its custom id names (`<item with / as __>-<hash>`), when its batch ends;
/// an answered line counts in the stats as a billed answer of that item.
struct MockBatchStore: Sendable {
    struct Line: Sendable {
        var customID: String
        var body: Data
    }

    struct Batch: Sendable {
        var id: String
        var wire: WireProtocol
        var lines: [Line]
        var createdAt: Double
        var ended = false
        var expired = false
        /// By custom id: the result line (OpenAI: output or error file; Anthropic: results).
        var results: [String: JSONValue] = [:]
        var errors: [String: JSONValue] = [:]
    }

    var files: [String: Data] = [:]
    var batches: [String: Batch] = [:]
    var serial = 0
    var linesSeen = 0
    var seenCustomIDs: Set<String> = []
    var endedBatches = 0

    static func isBatchRoute(_ method: String, _ route: String) -> Bool {
        (method == "POST" && (route.hasSuffix("/files") || route.hasSuffix("/batches")))
            || (method == "GET" && (route.contains("/batches/") || route.contains("/files/")))
    }

    /// The item id a custom id names.
    static func itemID(of customID: String) -> String {
        var text = customID
        if let dash = text.lastIndex(of: "-"), text.distance(from: dash, to: text.endIndex) == 17 { text = String(text[..<dash]) }
        return text.replacingOccurrences(of: "__", with: "/")
    }

    mutating func handle(
        _ request: MockHTTPRequest, route: String, answers: MockAnswerBook, stats: inout MockStats, configuration: MockConfiguration, now: Double
    ) -> MockAction {
        let batch = configuration.batch
        func json(_ value: JSONValue, status: Int = 200) -> MockAction { MockResponder.json(status, Data(value.canonicalText.utf8)) }
        func notFound(_ what: String) -> MockAction {
            MockResponder.json(404, MockResponder.errorBody(.openai, type: "not_found_error", message: "mock: no such \(what)"))
        }
        // OpenAI: upload the input file.
        if request.method == "POST" && route.hasSuffix("/files") {
            guard let file = Self.multipartFile(request) else {
                return MockResponder.json(400, MockResponder.errorBody(.openai, type: "invalid_request_error", message: "mock: no file part in the upload"))
            }
            serial += 1
            let id = "file-\(serial)"
            files[id] = file
            return json(["id": .string(id), "object": "file", "bytes": .number(Double(file.count)), "purpose": "batch"])
        }
        // OpenAI: create a batch over an uploaded file.
        if request.method == "POST" && route.hasSuffix("/v1/batches") {
            guard let body = try? JSONValue.parse(String(decoding: request.body, as: UTF8.self)), let fileID = body["input_file_id"]?.stringValue,
                let file = files[fileID]
            else { return MockResponder.json(400, MockResponder.errorBody(.openai, type: "invalid_request_error", message: "mock: unknown input_file_id")) }
            let lines = String(decoding: file, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { text -> Line? in
                guard let entry = try? JSONValue.parse(String(text)), let id = entry["custom_id"]?.stringValue, let body = entry["body"] else { return nil }
                return Line(customID: id, body: Data(body.canonicalText.utf8))
            }
            serial += 1
            let id = "batch_\(serial)"
            batches[id] = Batch(id: id, wire: .openai, lines: lines, createdAt: now)
            stats.requests += lines.count
            return json(openAIObject(batches[id]!))
        }
        // Anthropic: create a batch with its requests inline.
        if request.method == "POST" && route.hasSuffix("/messages/batches") {
            guard let body = try? JSONValue.parse(String(decoding: request.body, as: UTF8.self)), let requests = body["requests"]?.arrayValue else {
                return MockResponder.json(400, MockResponder.errorBody(.anthropic, type: "invalid_request_error", message: "mock: no requests"))
            }
            let lines = requests.compactMap { entry -> Line? in
                guard let id = entry["custom_id"]?.stringValue, let params = entry["params"] else { return nil }
                return Line(customID: id, body: Data(params.canonicalText.utf8))
            }
            serial += 1
            let id = "msgbatch_\(serial)"
            batches[id] = Batch(id: id, wire: .anthropic, lines: lines, createdAt: now)
            stats.requests += lines.count
            return json(anthropicObject(batches[id]!, host: request.headers["host"] ?? "127.0.0.1"))
        }
        // OpenAI: a file's content (an input, output or error file).
        if request.method == "GET", route.hasSuffix("/content"), let range = route.range(of: "/files/") {
            let id = String(route[range.upperBound...].dropLast("/content".count))
            guard let file = files[id] else { return notFound("file \(id)") }
            return .respond(status: 200, headers: [("Content-Type", "application/jsonl")], body: file, delay: 0, billable: false)
        }
        // Anthropic: a batch's results.
        if request.method == "GET", route.hasSuffix("/results"), let range = route.range(of: "/messages/batches/") {
            let id = String(route[range.upperBound...].dropLast("/results".count))
            guard let found = batches[id], found.ended else { return notFound("ended batch \(id)") }
            let text = found.lines.compactMap { found.results[$0.customID].map { $0.canonicalText + "\n" } }.joined()
            return .respond(status: 200, headers: [("Content-Type", "application/binary")], body: Data(text.utf8), delay: 0, billable: false)
        }
        // Either: a batch's status; it ends (and is answered) once its time has passed.
        if request.method == "GET", let range = route.range(of: "/batches/") {
            let id = String(route[range.upperBound...])
            guard batches[id] != nil else { return notFound("batch \(id)") }
            if !batches[id]!.ended && now - batches[id]!.createdAt >= batch.seconds {
                end(id, answers: answers, stats: &stats, configuration: batch)
            }
            let found = batches[id]!
            return json(found.wire == .openai ? openAIObject(found) : anthropicObject(found, host: request.headers["host"] ?? "127.0.0.1"))
        }
        return notFound("route \(route)")
    }

    /// Answers a batch's lines, with the configured faults.
    mutating func end(_ id: String, answers: MockAnswerBook, stats: inout MockStats, configuration: MockBatchConfiguration) {
        var found = batches[id]!
        found.ended = true
        found.expired = configuration.expireFirstBatch && endedBatches == 0
        endedBatches += 1
        let half = (found.lines.count + 1) / 2
        for (index, line) in found.lines.enumerated() {
            let firstTime = seenCustomIDs.insert(line.customID).inserted
            if firstTime { linesSeen += 1 }
            let item = Self.itemID(of: line.customID)
            if found.expired && index >= half {
                if found.wire == .anthropic { found.results[line.customID] = ["custom_id": .string(line.customID), "result": ["type": "expired"]] }
                continue
            }
            if firstTime && configuration.dropEveryNthLine > 0 && linesSeen % configuration.dropEveryNthLine == 0 { continue }
            if firstTime && configuration.failEveryNthLine > 0 && linesSeen % configuration.failEveryNthLine == 0 {
                let error: JSONValue =
                    found.wire == .openai
                    ? ["custom_id": .string(line.customID), "response": ["status_code": 500, "body": ["error": ["message": "mock: line failed", "type": "server_error"]]]]
                    : ["custom_id": .string(line.customID), "result": ["type": "errored", "error": ["type": "error", "error": ["type": "api_error", "message": "mock: line failed"]]]]
                if found.wire == .openai { found.errors[line.customID] = error } else { found.results[line.customID] = error }
                continue
            }
            guard let answer = answers.answer(for: item, body: line.body, wire: found.wire) else {
                let error: JSONValue =
                    found.wire == .openai
                    ? ["custom_id": .string(line.customID), "response": ["status_code": 400, "body": ["error": ["message": .string("mock: no recorded answer for item \(item)")]]]]
                    : [
                        "custom_id": .string(line.customID),
                        "result": ["type": "errored", "error": ["type": "error", "error": ["type": "invalid_request_error", "message": .string("mock: no recorded answer for item \(item)")]]],
                    ]
                if found.wire == .openai { found.errors[line.customID] = error } else { found.results[line.customID] = error }
                stats.rejected += 1
                continue
            }
            let shape = MockResponder.RequestShape(wire: found.wire, body: line.body)
            let body = MockResponder.answerBody(
                found.wire, shape: shape, content: answer.content, json: answer.json, usage: answer.usage, truncated: false, id: "\(id)-\(index)")
            let message = (try? JSONValue.parse(String(decoding: body, as: UTF8.self))) ?? .null
            found.results[line.customID] =
                found.wire == .openai
                ? ["custom_id": .string(line.customID), "response": ["status_code": 200, "body": message], "error": .null]
                : ["custom_id": .string(line.customID), "result": ["type": "succeeded", "message": message]]
            stats.answered += 1
            stats.items[item, default: MockStats.ItemCounts()].answered += 1
            stats.items[item, default: MockStats.ItemCounts()].requests += 1
        }
        if found.wire == .openai {
            files["file-out-\(id)"] = Data(found.lines.compactMap { found.results[$0.customID].map { $0.canonicalText + "\n" } }.joined().utf8)
            if !found.errors.isEmpty {
                files["file-err-\(id)"] = Data(found.lines.compactMap { found.errors[$0.customID].map { $0.canonicalText + "\n" } }.joined().utf8)
            }
        }
        batches[id] = found
    }

    func openAIObject(_ batch: Batch) -> JSONValue {
        let status = batch.ended ? (batch.expired ? "expired" : "completed") : "in_progress"
        var object: [String: JSONValue] = [
            "id": .string(batch.id), "object": "batch", "endpoint": "/v1/chat/completions", "status": .string(status),
            "request_counts": [
                "total": .number(Double(batch.lines.count)), "completed": .number(Double(batch.results.count)),
                "failed": .number(Double(batch.errors.count)),
            ],
        ]
        if batch.ended {
            object["output_file_id"] = .string("file-out-\(batch.id)")
            object["error_file_id"] = batch.errors.isEmpty ? .null : .string("file-err-\(batch.id)")
        }
        return .object(object)
    }

    func anthropicObject(_ batch: Batch, host: String) -> JSONValue {
        let kinds = batch.results.values.map { $0["result"]?["type"]?.stringValue ?? "" }
        return [
            "id": .string(batch.id), "type": "message_batch", "processing_status": .string(batch.ended ? "ended" : "in_progress"),
            "request_counts": [
                "processing": .number(Double(batch.ended ? 0 : batch.lines.count)),
                "succeeded": .number(Double(kinds.filter { $0 == "succeeded" }.count)),
                "errored": .number(Double(kinds.filter { $0 == "errored" }.count)), "canceled": 0,
                "expired": .number(Double(kinds.filter { $0 == "expired" }.count)),
            ],
            "results_url": batch.ended ? .string("http://\(host)/v1/messages/batches/\(batch.id)/results") : .null,
        ]
    }

    /// The `file` part of a multipart/form-data upload.
    static func multipartFile(_ request: MockHTTPRequest) -> Data? {
        guard let type = request.headers["content-type"], let range = type.range(of: "boundary=") else { return nil }
        let boundary = Data(("--" + type[range.upperBound...].trimmingCharacters(in: CharacterSet(charactersIn: "\" "))).utf8)
        let body = request.body
        var parts: [Data] = []
        var search = body.startIndex
        var starts: [Int] = []
        while let found = body.range(of: boundary, in: search..<body.endIndex) {
            starts.append(found.upperBound)
            search = found.upperBound
        }
        for (index, start) in starts.enumerated() where index + 1 < starts.count {
            parts.append(body[start..<(starts[index + 1] - boundary.count)])
        }
        for part in parts {
            guard let split = part.range(of: Data("\r\n\r\n".utf8)) else { continue }
            let head = String(decoding: part[part.startIndex..<split.lowerBound], as: UTF8.self)
            guard head.contains("name=\"file\"") else { continue }
            var content = Data(part[split.upperBound...])
            if content.suffix(2) == Data("\r\n".utf8) { content.removeLast(2) }
            return content
        }
        return nil
    }
}
