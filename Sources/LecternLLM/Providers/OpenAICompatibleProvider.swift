import Foundation

/// A provider for the OpenAI Chat Completions API and the many servers that speak it: OpenAI,
/// vLLM, llama.cpp's server, Ollama, OpenRouter, Groq.
///
/// Structured output follows ``ProviderConfiguration/schemaMode``: OpenAI's `json_schema`
/// response format (the default), llama.cpp's `json_object` with a `schema`, or the schema in
/// the system message with the JSON taken out of the answer's text.
public struct OpenAICompatibleProvider: LLMProvider, CustomStringConvertible {
    public let kind = "openai"
    public let configuration: ProviderConfiguration
    /// `…/chat/completions` under the base URL.
    public let endpoint: URL
    let apiKey: APIKey?
    private let exchange: ProviderExchange
    private let schemaMode: SchemaMode
    private let maxTokensField: String

    /// The public OpenAI API root.
    public static let defaultBaseURL = URL(string: "https://api.openai.com/v1")!  // a literal, always valid
    /// The variable read when the configuration names none (for ``ownHost`` only).
    public static let defaultKeyVariable = "OPENAI_API_KEY"
    /// OpenAI's own API host, the only one the default key variable is sent to.
    public static let ownHost = "api.openai.com"

    /// Creates a provider; reads the key from `environment` (see ``CredentialPolicy``). A key is
    /// required for api.openai.com and whenever the configuration names a variable; at another
    /// base URL with no variable named, none is sent. Throws ``LLMError`` (`.authentication`)
    /// naming the variable to set when a required key is missing, and (`.invalidRequest`) when
    /// the key would go over plain http to another machine.
    public init(
        configuration: ProviderConfiguration, environment: [String: String], runtime: ProviderRuntime = ProviderRuntime()
    )
        throws
    {
        let base = configuration.baseURL ?? Self.defaultBaseURL
        let isOpenAI = base.host?.lowercased() == Self.ownHost
        self.configuration = configuration
        self.endpoint = base.appendingPathComponent("chat/completions")
        self.apiKey = try APIKey.resolve(
            kind: "openai", configuration: configuration, defaultVariable: Self.defaultKeyVariable, ownHost: Self.ownHost,
            endpoint: endpoint, environment: environment)
        self.schemaMode = configuration.schemaMode.flatMap { $0 == .tool ? nil : $0 } ?? .jsonSchema
        self.maxTokensField = configuration.maxTokensParameter ?? (isOpenAI ? "max_completion_tokens" : "max_tokens")
        self.exchange = ProviderExchange(
            kind: "openai", configuration: configuration, endpoint: endpoint, apiKey: apiKey, runtime: runtime)
    }

    public var maxConcurrency: Int { configuration.maxConcurrency }

    /// Kind, model and endpoint; never the key.
    public var description: String {
        "OpenAICompatibleProvider(model: \(configuration.model), endpoint: \(endpoint.redactedForMessages), "
            + "schemaMode: \(schemaMode.rawValue))"
    }

    public func complete(_ request: LLMRequest, context: RequestContext) async throws -> LLMResponse {
        try await exchange.perform(
            request, context: context, budget: request.maxTokens ?? configuration.defaultMaxTokens,
            encode: { budget in try httpRequest(for: request, maxTokens: budget, context: context) },
            decode: { response in try decode(response, request: request, context: context) })
    }

    // MARK: Wire format

    /// The HTTP request for `request` with the given budget; `context` adds the item-tracing headers.
    func httpRequest(for request: LLMRequest, maxTokens: Int?, context: RequestContext? = nil) throws -> HTTPRequest {
        var headers: HTTPHeaders = [
            "Content-Type": "application/json", "Accept": configuration.stream ? "text/event-stream" : "application/json",
        ]
        if let apiKey { headers.add(name: "Authorization", value: "Bearer \(apiKey.value)") }
        if let context { TracingHeaders.add(context, to: &headers) }
        return HTTPRequest(
            method: "POST", url: endpoint, headers: headers, body: Data(body(for: request, maxTokens: maxTokens).schemaOrderedText.utf8),
            connectTimeout: .seconds(clamping: configuration.connectTimeoutSeconds),
            timeout: .seconds(clamping: configuration.requestTimeoutSeconds),
            idleTimeout: configuration.effectiveIdleTimeout)
    }

    /// The JSON body of a Chat Completions request.
    func body(for request: LLMRequest, maxTokens: Int?) -> JSONValue {
        var messages = request.messages
        var body: [String: JSONValue] = ["model": .string(request.model)]
        if let schema = request.responseSchema {
            switch schemaMode {
            case .jsonSchema, .tool:
                body["response_format"] = [
                    "type": "json_schema",
                    "json_schema": [
                        "name": .string(Self.schemaName(schema.name)), "schema": schema.schema,
                        // OpenAI refuses strict mode for schemas with optional properties; ask for
                        // it only where it will be accepted.
                        "strict": .bool(StrictSchema.isCompatible(schema.schema)),
                    ],
                ]
            case .jsonObjectWithSchema:
                body["response_format"] = ["type": "json_object", "schema": schema.schema]
            case .prompt:
                messages = Self.addingSchemaInstruction(schema, to: messages)
            }
        }
        body["messages"] = .array(
            messages.map { ["role": .string($0.role.rawValue), "content": .string($0.content)] })
        if let temperature = request.temperature { body["temperature"] = .number(temperature) }
        if let seed = request.seed { body["seed"] = .number(Double(seed)) }
        if let penalty = request.frequencyPenalty { body["frequency_penalty"] = .number(penalty) }
        if let maxTokens { body[maxTokensField] = .number(Double(maxTokens)) }
        if configuration.stream {
            body["stream"] = true
            body["stream_options"] = ["include_usage": true]
        }
        return .object(body)
    }

    /// The instruction used when the server cannot constrain output: appended to the first
    /// system message, or a new one in front.
    static func addingSchemaInstruction(_ schema: ResponseSchema, to messages: [ChatMessage]) -> [ChatMessage] {
        let instruction =
            "Answer with exactly one JSON value and nothing else (no prose, no code fences). "
            + "It must follow this JSON Schema:\n" + schema.schema.schemaOrderedText
        var messages = messages
        if let index = messages.firstIndex(where: { $0.role == .system }) {
            messages[index].content += "\n\n" + instruction
        } else {
            messages.insert(.system(instruction), at: 0)
        }
        return messages
    }

    /// Schema names must match `^[a-zA-Z0-9_-]{1,64}$`.
    static func schemaName(_ name: String) -> String {
        let allowed = name.unicodeScalars.map { scalar -> Character in
            (scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "_" || scalar == "-"))
                ? Character(scalar) : "_"
        }
        let cleaned = String(allowed.prefix(64))
        return cleaned.isEmpty ? "answer" : cleaned
    }

    private struct Completion: Decodable {
        struct Choice: Decodable {
            struct Message: Decodable {
                var content: String?
                var refusal: String?
            }
            var message: Message?
            var finish_reason: String?
        }
        struct Usage: Decodable {
            struct Details: Decodable { var cached_tokens: Int? }
            var prompt_tokens: Int?
            var completion_tokens: Int?
            var prompt_tokens_details: Details?
        }
        var choices: [Choice]?
        var usage: Usage?
        var model: String?
    }

    /// Reads a 2xx Chat Completions answer, whole or streamed (a stream that ended early throws
    /// ``StreamEndedEarly``, which the exchange retries).
    func decode(_ response: HTTPResponse, request: LLMRequest, context: RequestContext) throws -> LLMResponse {
        let body =
            configuration.stream && StreamAssembler.isEventStream(response)
            ? try StreamAssembler.chatCompletion(response.body, stopped: response.stopped) : response.body
        let completion: Completion
        do {
            completion = try JSONDecoder().decode(Completion.self, from: body)
        } catch {
            throw malformed("the body is not a Chat Completions JSON object (\(error.localizedDescription))", response, context)
        }
        guard let choice = completion.choices?.first, let message = choice.message else {
            let said = (try? JSONValue.parse(String(decoding: response.body, as: UTF8.self)))?["error"]?["message"]?
                .stringValue
            throw malformed(said.map { "no choices; the server said: \($0)" } ?? "no choices in the answer", response, context)
        }
        var finish: FinishReason
        switch choice.finish_reason {
        case "stop", "tool_calls", "function_call", "eos", nil: finish = .stop
        case "length": finish = .length
        case "content_filter": finish = .contentFilter
        default: finish = .other
        }
        var content = message.content ?? ""
        if let refusal = message.refusal, !refusal.isEmpty, message.content == nil {
            content = refusal
            finish = .contentFilter
        }
        if schemaMode == .prompt, request.responseSchema != nil, finish == .stop,
            let value = JSONExtraction.firstJSONValue(in: content)
        {
            content = value.canonicalText
        }
        let usage = TokenUsage(
            promptTokens: completion.usage?.prompt_tokens ?? 0,
            completionTokens: completion.usage?.completion_tokens ?? 0,
            cachedTokens: completion.usage?.prompt_tokens_details?.cached_tokens ?? 0)
        return LLMResponse(content: content, finishReason: finish, usage: usage, model: completion.model)
    }

    private func malformed(_ what: String, _ response: HTTPResponse, _ context: RequestContext) -> LLMError {
        let message =
            "Unreadable answer from \(endpoint.host ?? "the server") for item \(context.itemID): \(what). "
            + "Check that baseURL points at an OpenAI-compatible /v1 root."
        return LLMError(.malformedResponse, apiKey?.redact(message) ?? message, statusCode: response.status)
    }
}
