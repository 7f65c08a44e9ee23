import Foundation
import LecternLLM
import Testing

/// The two HTTP providers, so every behaviour test runs against both wire formats.
enum Flavor: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case openai, anthropic

    var testDescription: String { rawValue }

    static let sentinelKey = "sk-SENTINEL-123"

    var keyVariable: String { self == .openai ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY" }

    var model: String { self == .openai ? "gpt-4o-mini" : "claude-sonnet-4-5" }

    var path: String { self == .openai ? "/v1/chat/completions" : "/v1/messages" }

    var environment: [String: String] { [keyVariable: Self.sentinelKey] }

    func configuration(
        _ server: LoopbackServer, maxRetries: Int = 3, requestTimeout: Double = 10, schemaMode: SchemaMode? = nil,
        ceiling: Int = 16384, maxConcurrency: Int = 4
    ) -> ProviderConfiguration {
        ProviderConfiguration(
            kind: rawValue, model: model, baseURL: server.baseURL.appendingPathComponent("v1"),
            apiKeyEnvironmentVariable: keyVariable, maxConcurrency: maxConcurrency, connectTimeoutSeconds: 2,
            requestTimeoutSeconds: requestTimeout, maxRetries: maxRetries, schemaMode: schemaMode,
            maxTokensCeiling: ceiling)
    }

    func provider(
        _ configuration: ProviderConfiguration, rig: TestRig, environment: [String: String]? = nil
    ) throws
        -> any LLMProvider
    {
        try ProviderFactory.make(configuration, environment: environment ?? self.environment, runtime: rig.runtime)
    }

    /// A successful answer with `text` (or, for Anthropic with `toolInput`, a tool call).
    func answer(
        text: String = "Hello there.", toolInput: String? = nil, truncated: Bool = false, prompt: Int = 12,
        completion: Int = 5, cached: Int = 3
    ) -> LoopbackServer.Reply {
        switch self {
        case .openai:
            let content = JSONValue.string(toolInput ?? text).canonicalText
            return .json(
                200,
                #"{"id":"c1","object":"chat.completion","model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"message":{"role":"assistant","content":\#(content),"refusal":null},"finish_reason":"\#(truncated ? "length" : "stop")"}],"usage":{"prompt_tokens":\#(prompt),"completion_tokens":\#(completion),"total_tokens":\#(prompt + completion),"prompt_tokens_details":{"cached_tokens":\#(cached)}}}"#
            )
        case .anthropic:
            let block =
                toolInput.map { #"{"type":"tool_use","id":"t1","name":"lecture","input":\#($0)}"# }
                ?? #"{"type":"text","text":\#(JSONValue.string(text).canonicalText)}"#
            let stop = truncated ? "max_tokens" : (toolInput == nil ? "end_turn" : "tool_use")
            return .json(
                200,
                #"{"id":"m1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[\#(block)],"stop_reason":"\#(stop)","usage":{"input_tokens":\#(prompt - cached),"output_tokens":\#(completion),"cache_read_input_tokens":\#(cached),"cache_creation_input_tokens":0}}"#
            )
        }
    }

    /// The budget field the provider sends.
    func maxTokens(in body: JSONValue?) -> Int? {
        guard case .number(let n)? = body?[self == .openai ? "max_tokens" : "max_tokens"] else { return nil }
        return Int(n)
    }

    /// An error body in the provider's shape.
    func errorBody(_ message: String) -> String {
        let text = JSONValue.string(message).canonicalText
        return self == .openai
            ? #"{"error":{"message":\#(text),"type":"invalid_request_error","code":null}}"#
            : #"{"type":"error","error":{"type":"invalid_request_error","message":\#(text)}}"#
    }
}

let lectureSchema = ResponseSchema(
    name: "lecture",
    schema: [
        "type": "object", "properties": ["title": ["type": "string"], "minutes": ["type": "integer"]],
        "required": ["title", "minutes"], "additionalProperties": false,
    ])

func simpleRequest(_ flavor: Flavor, maxTokens: Int? = 100, schema: ResponseSchema? = nil) -> LLMRequest {
    LLMRequest(
        model: flavor.model,
        messages: [.system("You are a teacher."), .user("Say hello.")], temperature: 0.3, maxTokens: maxTokens,
        responseSchema: schema)
}

let testContext = RequestContext(itemID: "lecture/s01-t01", stage: "lecture")
