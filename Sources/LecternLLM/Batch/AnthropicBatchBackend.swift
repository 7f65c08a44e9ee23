import Foundation

/// Anthropic's Message Batches API: the requests in one `POST /messages/batches`, its status
/// (`GET /messages/batches/{id}`), and its results (JSON Lines at the batch's `results_url`).
/// Each succeeded line's message is read as the provider reads a Messages answer.
struct AnthropicBatchBackend: BatchBackend {
    let provider: AnthropicProvider
    let http: BatchHTTP
    let batches: URL

    var name: String { "Anthropic Message Batches API" }

    init(provider: AnthropicProvider, runtime: ProviderRuntime) {
        self.provider = provider
        self.batches = provider.endpoint.appendingPathComponent("batches")
        var authorization: HTTPHeaders = ["anthropic-version": AnthropicProvider.apiVersion]
        if let key = provider.apiKey { authorization.add(name: "x-api-key", value: key.value) }
        self.http = BatchHTTP(runtime: runtime, configuration: provider.configuration, authorization: authorization, provider: "anthropic")
    }

    func submit(_ lines: [BatchLine], label: String) async throws -> String {
        let requests: [JSONValue] = lines.map { line in
            let budget = line.request.maxTokens ?? provider.configuration.defaultMaxTokens ?? AnthropicProvider.fallbackMaxTokens
            return ["custom_id": .string(line.customID), "params": BatchHTTP.unstreamed(provider.body(for: line.request, maxTokens: budget))]
        }
        let batch = try await http.json("POST", batches, body: ["requests": .array(requests)])
        guard let id = batch["id"]?.stringValue else { throw LLMError(.malformedResponse, "Anthropic Message Batches API: the new batch has no id") }
        return id
    }

    func status(of id: String) async throws -> BatchStatus {
        let batch = try await http.json("GET", batches.appendingPathComponent(id))
        let state = batch["processing_status"]?.stringValue ?? "unknown"
        let counts = batch["request_counts"]
        let succeeded = counts?["succeeded"]?.intValue ?? 0
        let failed = (counts?["errored"]?.intValue ?? 0) + (counts?["canceled"]?.intValue ?? 0) + (counts?["expired"]?.intValue ?? 0)
        return BatchStatus(
            phase: state == "ended" ? .ended : .running, total: succeeded + failed + (counts?["processing"]?.intValue ?? 0), succeeded: succeeded,
            failed: failed, providerState: state)
    }

    func results(of id: String, lines: [String: BatchLine]) async throws -> [String: BatchLineResult] {
        let batch = try await http.json("GET", batches.appendingPathComponent(id))
        guard let link = batch["results_url"]?.stringValue, let url = URL(string: link) else { return [:] }
        let content = try await http.send("GET", url)
        var out: [String: BatchLineResult] = [:]
        for entry in BatchHTTP.jsonLines(content) {
            guard let customID = entry["custom_id"]?.stringValue, let line = lines[customID] else { continue }
            let result = entry["result"]
            let type = result?["type"]?.stringValue ?? "unknown"
            if type == "succeeded", let message = result?["message"] {
                out[customID] = BatchHTTP.answer(message, for: line) { try provider.decode($0, request: $1, context: $2) }
            } else {
                out[customID] = .failed(type + (result?["error"]?["error"]?["message"]?.stringValue.map { ": \($0)" } ?? ""))
            }
        }
        return out
    }
}
