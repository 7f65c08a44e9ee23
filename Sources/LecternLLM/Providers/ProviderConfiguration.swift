import Foundation

/// How a provider asks for structured (JSON Schema) output.
public enum SchemaMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// OpenAI's `response_format: {type: json_schema, json_schema: {name, schema, strict: true}}`
    /// (OpenAI, vLLM, recent llama.cpp servers, Ollama, OpenRouter, Groq).
    case jsonSchema = "json_schema"
    /// llama.cpp's (and llama-cpp-python's) `response_format: {type: "json_object", schema: …}`.
    case jsonObjectWithSchema = "json_object_schema"
    /// No server support: the schema goes into the system message and the first JSON value is
    /// taken out of the answer's text.
    case prompt
    /// Anthropic: one tool whose `input_schema` is the schema, forced with `tool_choice`.
    case tool
}

/// Everything needed to build a provider: which API, which model, where, which key variable,
/// and the limits. Holds no secret (the key is read from the environment when the provider is
/// made), so it may be logged, stored and compared freely.
public struct ProviderConfiguration: Sendable, Hashable, Codable {
    /// `openai` (any OpenAI-compatible server) or `anthropic`; see ``ProviderFactory``.
    public var kind: String
    /// The model name the API expects, e.g. `gpt-4o-mini`, `claude-sonnet-4-5`.
    public var model: String
    /// The API root, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:8080/v1`; `nil`
    /// uses the kind's public endpoint.
    public var baseURL: URL?
    /// The environment variable that holds the key; `nil` uses `OPENAI_API_KEY` or
    /// `ANTHROPIC_API_KEY`, but only for the provider's own API host: at a custom `baseURL` with
    /// no variable named here, no key is sent (local servers need none). See ``CredentialPolicy``.
    public var apiKeyEnvironmentVariable: String?
    /// Requests in flight at most.
    public var maxConcurrency: Int
    /// Requests per minute at most; `nil` for no client-side limit.
    public var requestsPerMinute: Int?
    /// Tokens per minute at most (prompt estimate plus completion budget); `nil` for no limit.
    public var tokensPerMinute: Int?
    /// Seconds to set up a connection.
    public var connectTimeoutSeconds: Double
    /// Seconds for one whole request (the model writes its full answer in this time).
    public var requestTimeoutSeconds: Double
    /// Abort a request when no byte arrives for this many seconds; `nil` never does for a whole
    /// answer (which sends nothing until the model has finished) and uses 60 s for a stream.
    public var idleTimeoutSeconds: Double?
    /// Ask for the answer as server-sent events: progress as tokens arrive, an idle stream cut
    /// and retried, a stream that ends early never taken as an answer.
    public var stream: Bool
    /// Retries after the first attempt for 408/409/429/5xx, connection errors and timeouts.
    public var maxRetries: Int
    /// How to ask for structured output; `nil` uses the kind's native form.
    public var schemaMode: SchemaMode?
    /// The largest `max_tokens` a truncated answer may be asked again with.
    public var maxTokensCeiling: Int
    /// The budget sent when a request sets none. Anthropic requires one; for OpenAI-compatible
    /// servers `nil` sends none (the server's default applies).
    public var defaultMaxTokens: Int?
    /// The name of the budget field for OpenAI-compatible servers: `max_tokens` or
    /// `max_completion_tokens`; `nil` picks `max_completion_tokens` for api.openai.com and
    /// `max_tokens` elsewhere.
    public var maxTokensParameter: String?

    /// Creates a configuration; omitted values take the defaults documented on each property.
    public init(
        kind: String, model: String, baseURL: URL? = nil, apiKeyEnvironmentVariable: String? = nil,
        maxConcurrency: Int = 4, requestsPerMinute: Int? = nil, tokensPerMinute: Int? = nil,
        connectTimeoutSeconds: Double = 10, requestTimeoutSeconds: Double = 600, idleTimeoutSeconds: Double? = nil,
        maxRetries: Int = 3,
        schemaMode: SchemaMode? = nil, maxTokensCeiling: Int = 16384, defaultMaxTokens: Int? = nil,
        maxTokensParameter: String? = nil, stream: Bool = false
    ) {
        self.stream = stream
        self.kind = kind
        self.model = model
        self.baseURL = baseURL
        self.apiKeyEnvironmentVariable = apiKeyEnvironmentVariable
        self.maxConcurrency = maxConcurrency
        self.requestsPerMinute = requestsPerMinute
        self.tokensPerMinute = tokensPerMinute
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.requestTimeoutSeconds = requestTimeoutSeconds
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.maxRetries = maxRetries
        self.schemaMode = schemaMode
        self.maxTokensCeiling = maxTokensCeiling
        self.defaultMaxTokens = defaultMaxTokens
        self.maxTokensParameter = maxTokensParameter
    }

    private enum CodingKeys: String, CodingKey {
        case kind, model, baseURL, apiKeyEnvironmentVariable, maxConcurrency, requestsPerMinute, tokensPerMinute
        case connectTimeoutSeconds, requestTimeoutSeconds, idleTimeoutSeconds, maxRetries, schemaMode, maxTokensCeiling
        case defaultMaxTokens, maxTokensParameter, stream
    }

    /// Decodes a configuration; only `kind` and `model` are required.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = ProviderConfiguration(kind: "", model: "")
        kind = try c.decode(String.self, forKey: .kind)
        model = try c.decode(String.self, forKey: .model)
        baseURL = try c.decodeIfPresent(URL.self, forKey: .baseURL)
        apiKeyEnvironmentVariable = try c.decodeIfPresent(String.self, forKey: .apiKeyEnvironmentVariable)
        maxConcurrency = try c.decodeIfPresent(Int.self, forKey: .maxConcurrency) ?? defaults.maxConcurrency
        requestsPerMinute = try c.decodeIfPresent(Int.self, forKey: .requestsPerMinute)
        tokensPerMinute = try c.decodeIfPresent(Int.self, forKey: .tokensPerMinute)
        connectTimeoutSeconds =
            try c.decodeIfPresent(Double.self, forKey: .connectTimeoutSeconds) ?? defaults.connectTimeoutSeconds
        requestTimeoutSeconds =
            try c.decodeIfPresent(Double.self, forKey: .requestTimeoutSeconds) ?? defaults.requestTimeoutSeconds
        idleTimeoutSeconds = try c.decodeIfPresent(Double.self, forKey: .idleTimeoutSeconds)
        maxRetries = try c.decodeIfPresent(Int.self, forKey: .maxRetries) ?? defaults.maxRetries
        schemaMode = try c.decodeIfPresent(SchemaMode.self, forKey: .schemaMode)
        maxTokensCeiling = try c.decodeIfPresent(Int.self, forKey: .maxTokensCeiling) ?? defaults.maxTokensCeiling
        defaultMaxTokens = try c.decodeIfPresent(Int.self, forKey: .defaultMaxTokens)
        maxTokensParameter = try c.decodeIfPresent(String.self, forKey: .maxTokensParameter)
        stream = try c.decodeIfPresent(Bool.self, forKey: .stream) ?? false
    }

    /// The idle timeout in force: the configured one, else 60 s for a stream and none otherwise.
    public var effectiveIdleTimeout: Duration? {
        (idleTimeoutSeconds ?? (stream ? Self.defaultStreamIdleTimeoutSeconds : nil)).map { .seconds(clamping: $0) }
    }

    /// The idle timeout of a stream when none is configured.
    public static let defaultStreamIdleTimeoutSeconds = 60.0

    /// The retry policy these settings describe.
    public var retryPolicy: RetryPolicy { RetryPolicy(maxRetries: maxRetries) }

    /// The rate limits these settings describe.
    public var rateLimits: RateLimiter.Limits {
        RateLimiter.Limits(
            maxConcurrency: maxConcurrency, requestsPerMinute: requestsPerMinute, tokensPerMinute: tokensPerMinute)
    }
}

/// What a provider needs from its surroundings: the HTTP client, where events go, and the
/// clock, sleeper and random source (all replaceable in tests).
public struct ProviderRuntime: Sendable {
    /// The HTTP client; share one between providers.
    public var httpClient: CurlHTTPClient
    /// Receives retry, rate-limit and truncation events.
    public var events: ProviderEventSink
    /// Waits between retries and for rate limits.
    public var sleeper: any Sleeper
    /// Jitter for backoff.
    public var random: any RandomSource
    /// The wall clock, for `Retry-After` and reset headers given as dates.
    public var wallClock: @Sendable () -> Date
    /// The monotonic clock of the rate limiter.
    public var monotonicClock: MonotonicClock

    /// Creates a runtime; by default a new HTTP client, no events, and the real clocks.
    public init(
        httpClient: CurlHTTPClient = CurlHTTPClient(), events: @escaping ProviderEventSink = { _ in },
        sleeper: any Sleeper = TaskSleeper(), random: any RandomSource = SystemRandomSource(),
        wallClock: @escaping @Sendable () -> Date = { Date() },
        monotonicClock: @escaping MonotonicClock = systemMonotonicClock
    ) {
        self.httpClient = httpClient
        self.events = events
        self.sleeper = sleeper
        self.random = random
        self.wallClock = wallClock
        self.monotonicClock = monotonicClock
    }
}

/// An API key read from the environment. It prints, dumps and mirrors as `<redacted>` and is
/// not `Codable`, so it cannot leak through descriptions, logs or stored files.
struct APIKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let value: String
    /// The variable it came from, which messages may name.
    let variable: String

    var description: String { "<redacted>" }
    var debugDescription: String { "<redacted>" }
    var customMirror: Mirror { Mirror(self, children: []) }

    /// Reads the key for a provider whose public API is `ownHost` (see ``CredentialPolicy``): the
    /// configured variable, or the default one only when `baseURL` is the provider's own; nil when
    /// no key is to be sent. Throws when a required key is missing, or when the key would cross the
    /// network in plain text.
    static func resolve(
        kind: String, configuration: ProviderConfiguration, defaultVariable: String, ownHost: String, endpoint: URL,
        environment: [String: String]
    ) throws -> APIKey? {
        let configured = configuration.apiKeyEnvironmentVariable
        guard
            let variable = CredentialPolicy.keyVariable(
                configured: configured, defaultVariable: defaultVariable, ownHost: ownHost, baseURL: configuration.baseURL)
        else { return nil }
        guard let value = environment[variable]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else {
            let hint =
                configured == nil
                ? " (or name another variable with apiKeyEnvironmentVariable in the model configuration)" : ""
            throw LLMError(
                .authentication,
                "No API key for the \(kind) provider: the environment variable \(variable) is not set or empty. "
                    + "Set it to your key\(hint), or use the local provider.")
        }
        if let problem = CredentialPolicy.plainTextProblem(sendingKeyTo: endpoint) {
            throw LLMError(
                .invalidRequest,
                "Refusing to send the key in \(variable) to \(endpoint.redactedForMessages): \(problem). Use an https:// base URL, "
                    + "or name no key variable if the server needs none.")
        }
        return APIKey(value: value, variable: variable)
    }

    /// `text` with every occurrence of the key replaced, for messages built from server answers.
    func redact(_ text: String) -> String {
        guard !value.isEmpty else { return text }
        return text.replacingOccurrences(of: value, with: "<redacted>")
    }
}
