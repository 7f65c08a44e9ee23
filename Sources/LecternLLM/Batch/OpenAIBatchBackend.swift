import Foundation

/// OpenAI's Batch API: the requests as a JSON Lines file (`POST /files`, purpose `batch`), a batch
/// over it (`POST /batches`, 24-hour window), its status (`GET /batches/{id}`), and its output and
/// error files (`GET /files/{id}/content`). Each line's answer is read as the provider reads a
/// Chat Completions answer.
struct OpenAIBatchBackend: BatchBackend {
    let provider: OpenAICompatibleProvider
    let http: BatchHTTP
    let base: URL

    var name: String { "OpenAI Batch API" }

    init(provider: OpenAICompatibleProvider, runtime: ProviderRuntime) {
        let configuration = provider.configuration
        self.provider = provider
        self.base = configuration.baseURL ?? OpenAICompatibleProvider.defaultBaseURL
        var authorization = HTTPHeaders()
        if let key = provider.apiKey { authorization.add(name: "Authorization", value: "Bearer \(key.value)") }
        self.http = BatchHTTP(runtime: runtime, configuration: configuration, authorization: authorization, provider: "openai")
    }

    func submit(_ lines: [BatchLine], label: String) async throws -> String {
        var file = ""
        for line in lines {
            // A batch line is a plain request: never streamed.
            let body = BatchHTTP.unstreamed(provider.body(for: line.request, maxTokens: line.request.maxTokens ?? provider.configuration.defaultMaxTokens))
            let entry: JSONValue = [
                "custom_id": .string(line.customID), "method": "POST", "url": .string(endpointPath), "body": body,
            ]
            file += entry.canonicalText + "\n"
        }
        let boundary = "lectern-batch-\(UUID().uuidString)"
        var form = Data()
        form += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n".utf8)
        form += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"lectern-batch.jsonl\"\r\n".utf8)
        form += Data("Content-Type: application/jsonl\r\n\r\n".utf8) + Data(file.utf8) + Data("\r\n--\(boundary)--\r\n".utf8)
        let uploaded = try await http.send("POST", base.appendingPathComponent("files"), body: form, contentType: "multipart/form-data; boundary=\(boundary)")
        guard let fileID = (try? JSONValue.parse(String(decoding: uploaded, as: UTF8.self)))?["id"]?.stringValue else {
            throw LLMError(.malformedResponse, "OpenAI Batch API: the file upload answered without a file id")
        }
        let batch = try await http.json(
            "POST", base.appendingPathComponent("batches"),
            body: [
                "input_file_id": .string(fileID), "endpoint": .string(endpointPath), "completion_window": "24h",
                "metadata": ["lectern": .string(String(label.prefix(512)))],
            ])
        guard let id = batch["id"]?.stringValue else { throw LLMError(.malformedResponse, "OpenAI Batch API: the new batch has no id") }
        return id
    }

    /// `/v1/chat/completions`, the endpoint path the lines name (the base URL's path + the route).
    var endpointPath: String {
        let path = base.path.hasSuffix("/") ? String(base.path.dropLast()) : base.path
        return (path.isEmpty ? "/v1" : path) + "/chat/completions"
    }

    func status(of id: String) async throws -> BatchStatus {
        let batch = try await http.json("GET", base.appendingPathComponent("batches").appendingPathComponent(id))
        let state = batch["status"]?.stringValue ?? "unknown"
        let phase: BatchStatus.Phase
        switch state {
        case "completed": phase = .ended
        case "failed": phase = .failed
        case "expired": phase = .expired
        case "cancelled", "cancelling": phase = state == "cancelled" ? .cancelled : .running
        default: phase = .running
        }
        let counts = batch["request_counts"]
        return BatchStatus(
            phase: phase, total: counts?["total"]?.intValue ?? 0, succeeded: counts?["completed"]?.intValue ?? 0,
            failed: counts?["failed"]?.intValue ?? 0, providerState: state)
    }

    func results(of id: String, lines: [String: BatchLine]) async throws -> [String: BatchLineResult] {
        let batch = try await http.json("GET", base.appendingPathComponent("batches").appendingPathComponent(id))
        var out: [String: BatchLineResult] = [:]
        for key in ["output_file_id", "error_file_id"] {
            guard let fileID = batch[key]?.stringValue, !fileID.isEmpty else { continue }
            let content = try await http.send("GET", base.appendingPathComponent("files").appendingPathComponent(fileID).appendingPathComponent("content"))
            for entry in BatchHTTP.jsonLines(content) {
                guard let customID = entry["custom_id"]?.stringValue, let line = lines[customID] else { continue }
                let response = entry["response"]
                let status = response?["status_code"]?.intValue ?? 0
                if status == 200, let body = response?["body"] {
                    out[customID] = BatchHTTP.answer(body, for: line) { try provider.decode($0, request: $1, context: $2) }
                } else {
                    let said = entry["error"]?["message"]?.stringValue ?? response?["body"]?["error"]?["message"]?.stringValue
                    out[customID] = .failed("HTTP \(status)" + (said.map { ": \($0)" } ?? ""))
                }
            }
        }
        return out
    }
}
