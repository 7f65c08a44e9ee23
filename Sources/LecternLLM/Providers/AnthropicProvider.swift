import Foundation

/// A provider for Anthropic's Messages API.
///
/// System messages go to the top-level `system` field; `max_tokens` is always sent (the request's,
/// else the configuration's `defaultMaxTokens`, else 4096). Structured output uses one tool whose
/// `input_schema` is the schema, forced with `tool_choice`; the tool input becomes the answer as
/// canonical JSON text.
public struct AnthropicProvider: LLMProvider, CustomStringConvertible {
    public let kind = "anthropic"
    public let configuration: ProviderConfiguration
    /// `…/messages` under the base URL.
    public let endpoint: URL
    let apiKey: APIKey?
    private let exchange: ProviderExchange
    private let schemaMode: SchemaMode

    /// The public Anthropic API root.
    public static let defaultBaseURL = URL(string: "https://api.anthropic.com/v1")!  // a literal, always valid
    /// The variable read when the configuration names none (for ``ownHost`` only).
    public static let defaultKeyVariable = "ANTHROPIC_API_KEY"
    /// Anthropic's own API host, the only one the default key variable is sent to.
    public static let ownHost = "api.anthropic.com"
    /// The API version header value.
    public static let apiVersion = "2023-06-01"
    /// The budget when neither the request nor the configuration sets one.
    public static let fallbackMaxTokens = 4096

    /// Creates a provider; reads the key from `environment` (see ``CredentialPolicy``): required
    /// for api.anthropic.com and whenever the configuration names a variable; at another base URL
    /// with no variable named, none is sent. Throws ``LLMError`` (`.authentication`) naming the
    /// variable to set when a required key is missing, and (`.invalidRequest`) when the key would
    /// go over plain http to another machine.
    public init(
        configuration: ProviderConfiguration, environment: [String: String], runtime: ProviderRuntime = ProviderRuntime()
    )
        throws
    {
        let base = configuration.baseURL ?? Self.defaultBaseURL
        self.configuration = configuration
        self.endpoint = base.appendingPathComponent("messages")
        self.apiKey = try APIKey.resolve(
            kind: "anthropic", configuration: configuration, defaultVariable: Self.defaultKeyVariable, ownHost: Self.ownHost,
            endpoint: endpoint, environment: environment)
        self.schemaMode = configuration.schemaMode == .prompt ? .prompt : .tool
        self.exchange = ProviderExchange(
            kind: "anthropic", configuration: configuration, endpoint: endpoint, apiKey: apiKey, runtime: runtime)
    }

    public var maxConcurrency: Int { configuration.maxConcurrency }

    /// Kind, model and endpoint; never the key.
    public var description: String {
        "AnthropicProvider(model: \(configuration.model), endpoint: \(endpoint.redactedForMessages), "
            + "schemaMode: \(schemaMode.rawValue))"
    }

    public func complete(_ request: LLMRequest, context: RequestContext) async throws -> LLMResponse {
        let budget = request.maxTokens ?? configuration.defaultMaxTokens ?? Self.fallbackMaxTokens
        return try await exchange.perform(
            request, context: context, budget: budget,
            encode: { budget in try httpRequest(for: request, maxTokens: budget ?? Self.fallbackMaxTokens, context: context) },
            decode: { response in try decode(response, request: request, context: context) })
    }

    // MARK: Wire format

    /// The HTTP request for `request` with the given budget; `context` adds the item-tracing headers.
    func httpRequest(for request: LLMRequest, maxTokens: Int, context: RequestContext? = nil) throws -> HTTPRequest {
        var headers: HTTPHeaders = [
            "Content-Type": "application/json", "Accept": configuration.stream ? "text/event-stream" : "application/json",
            "anthropic-version": Self.apiVersion,
        ]
        if let apiKey { headers.add(name: "x-api-key", value: apiKey.value) }
        if let context { TracingHeaders.add(context, to: &headers) }
        return HTTPRequest(
            method: "POST", url: endpoint, headers: headers,
            body: Data(body(for: request, maxTokens: maxTokens).schemaOrderedText.utf8),
            connectTimeout: .seconds(clamping: configuration.connectTimeoutSeconds),
            timeout: .seconds(clamping: configuration.requestTimeoutSeconds),
            idleTimeout: configuration.effectiveIdleTimeout)
    }

    /// The JSON body of a Messages request.
    func body(for request: LLMRequest, maxTokens: Int) -> JSONValue {
        var messages = request.messages
        if let schema = request.responseSchema, schemaMode == .prompt {
            messages = OpenAICompatibleProvider.addingSchemaInstruction(schema, to: messages)
        }
        let system = messages.filter { $0.role == .system }.map(\.content).joined(separator: "\n\n")
        // The API wants alternating user/assistant turns: merge neighbours of the same role.
        var turns: [(role: ChatMessage.Role, content: String)] = []
        for message in messages where message.role != .system {
            if let last = turns.last, last.role == message.role {
                turns[turns.count - 1].content += "\n\n" + message.content
            } else {
                turns.append((message.role, message.content))
            }
        }
        var body: [String: JSONValue] = [
            "model": .string(request.model),
            "max_tokens": .number(Double(maxTokens)),
            "messages": .array(turns.map { ["role": .string($0.role.rawValue), "content": .string($0.content)] }),
        ]
        if !system.isEmpty { body["system"] = .string(system) }
        if let temperature = request.temperature { body["temperature"] = .number(min(1, max(0, temperature))) }
        if let schema = request.responseSchema, schemaMode == .tool {
            let name = OpenAICompatibleProvider.schemaName(schema.name)
            body["tools"] = [
                [
                    "name": .string(name),
                    "description": "Record the answer. Call this tool exactly once with the complete answer as its input.",
                    "input_schema": schema.schema,
                ]
            ]
            body["tool_choice"] = ["type": "tool", "name": .string(name)]
        }
        if configuration.stream { body["stream"] = true }
        return .object(body)
    }

    private struct Message: Decodable {
        struct Block: Decodable {
            var type: String
            var text: String?
            var input: JSONValue?
        }
        struct Usage: Decodable {
            var input_tokens: Int?
            var output_tokens: Int?
            var cache_read_input_tokens: Int?
            var cache_creation_input_tokens: Int?
        }
        var content: [Block]?
        var stop_reason: String?
        var usage: Usage?
        var model: String?
    }

    /// Reads a 2xx Messages answer, whole or streamed (a stream that ended early throws
    /// ``StreamEndedEarly``, which the exchange retries).
    func decode(_ response: HTTPResponse, request: LLMRequest, context: RequestContext) throws -> LLMResponse {
        let body =
            configuration.stream && StreamAssembler.isEventStream(response)
            ? try StreamAssembler.anthropicMessage(response.body, stopped: response.stopped) : response.body
        let message: Message
        do {
            message = try JSONDecoder().decode(Message.self, from: body)
        } catch {
            throw malformed("the body is not a Messages JSON object (\(error.localizedDescription))", response, context)
        }
        guard let blocks = message.content else { throw malformed("no content in the answer", response, context) }
        let finish: FinishReason
        switch message.stop_reason {
        case "end_turn", "stop_sequence", "tool_use", "pause_turn", nil: finish = .stop
        case "max_tokens", "model_context_window_exceeded": finish = .length
        case "refusal": finish = .contentFilter
        default: finish = .other
        }
        let text = blocks.compactMap { $0.type == "text" ? $0.text : nil }.joined()
        var content = text
        if request.responseSchema != nil {
            if schemaMode == .tool, let input = blocks.first(where: { $0.type == "tool_use" })?.input {
                content = input.canonicalText
            } else if finish == .stop, let value = JSONExtraction.firstJSONValue(in: text) {
                content = value.canonicalText
            }
        }
        // `input_tokens` excludes cached prompt tokens; the total is what other providers report.
        let cacheRead = message.usage?.cache_read_input_tokens ?? 0
        let cacheWrite = message.usage?.cache_creation_input_tokens ?? 0
        let usage = TokenUsage(
            promptTokens: (message.usage?.input_tokens ?? 0) + cacheRead + cacheWrite,
            completionTokens: message.usage?.output_tokens ?? 0,
            cachedTokens: cacheRead)
        return LLMResponse(content: content, finishReason: finish, usage: usage, model: message.model)
    }

    private func malformed(_ what: String, _ response: HTTPResponse, _ context: RequestContext) -> LLMError {
        let message =
            "Unreadable answer from \(endpoint.host ?? "the server") for item \(context.itemID): \(what). "
            + "Check that baseURL points at the Anthropic /v1 root."
        return LLMError(.malformedResponse, apiKey?.redact(message) ?? message, statusCode: response.status)
    }
}
