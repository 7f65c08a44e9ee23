import Foundation

/// One message of a chat exchange.
public struct ChatMessage: Codable, Sendable, Hashable {
    public enum Role: String, Codable, Sendable, Hashable {
        case system, user, assistant
    }

    public var role: Role
    public var content: String

    public init(role: Role, content: String) {
        self.role = role
        self.content = content
    }

    public static func system(_ text: String) -> ChatMessage { ChatMessage(role: .system, content: text) }
    public static func user(_ text: String) -> ChatMessage { ChatMessage(role: .user, content: text) }
    public static func assistant(_ text: String) -> ChatMessage { ChatMessage(role: .assistant, content: text) }
}

/// A JSON Schema the answer must follow, with the name providers require for it.
public struct ResponseSchema: Codable, Sendable, Hashable {
    public var name: String
    public var schema: JSONValue

    public init(name: String, schema: JSONValue) {
        self.name = name
        self.schema = schema
    }
}

/// What a work item asks of a model. Everything here enters the exchange cache key, so it holds
/// no secrets and nothing that varies between identical asks.
public struct LLMRequest: Codable, Sendable, Hashable {
    public var model: String
    public var messages: [ChatMessage]
    public var temperature: Double?
    public var maxTokens: Int?
    /// Structured output: the answer must be one JSON value following this schema.
    public var responseSchema: ResponseSchema?
    public var seed: Int?
    /// OpenAI's `frequency_penalty` (−2 to 2): positive values make repeating a token less likely.
    public var frequencyPenalty: Double?

    public init(
        model: String, messages: [ChatMessage], temperature: Double? = nil, maxTokens: Int? = nil,
        responseSchema: ResponseSchema? = nil, seed: Int? = nil, frequencyPenalty: Double? = nil
    ) {
        self.frequencyPenalty = frequencyPenalty
        self.model = model
        self.messages = messages
        self.temperature = temperature
        self.maxTokens = maxTokens
        self.responseSchema = responseSchema
        self.seed = seed
    }
}

/// Who is asking: used for logs, for scripted test providers and for error messages. Not part
/// of the cache key.
public struct RequestContext: Sendable, Hashable {
    /// The work item's identifier, e.g. `lecture/s01-t02`.
    public var itemID: String
    /// The stage name, e.g. `lecture`.
    public var stage: String
    /// 1 for the first ask, 2… for repairs.
    public var attempt: Int
    /// The prompt's variables (topic title, subject …): lets scripted providers answer in kind.
    public var variables: [String: String]

    public init(itemID: String, stage: String, attempt: Int = 1, variables: [String: String] = [:]) {
        self.itemID = itemID
        self.stage = stage
        self.attempt = attempt
        self.variables = variables
    }
}

/// Why a model stopped writing.
public enum FinishReason: String, Codable, Sendable, Hashable {
    /// A complete answer.
    case stop
    /// Cut off by the token budget: never a complete answer.
    case length
    /// Stopped by a content filter or other provider rule.
    case contentFilter = "content_filter"
    /// Cut off by the token budget while repeating itself (`AnswerLoop`): stored and replayed as
    /// an answer the stage refuses, so a repair asks again in other words instead of paying for a
    /// longer loop.
    case loop
    case other

    /// Whether an exchange with this ending is kept in the cache and a cassette: a complete
    /// answer, a loop and an answer still cut off after the provider layer's larger asks (their
    /// refusals must replay as they happened, and asking again would pay for the same answer).
    public var isStored: Bool { self == .stop || self == .loop || self == .length }
}

/// Token counts of one exchange.
public struct TokenUsage: Codable, Sendable, Hashable {
    public var promptTokens: Int
    public var completionTokens: Int
    /// Prompt tokens the provider served from its own prompt cache (billed lower by some).
    public var cachedTokens: Int

    public init(promptTokens: Int = 0, completionTokens: Int = 0, cachedTokens: Int = 0) {
        self.promptTokens = promptTokens
        self.completionTokens = completionTokens
        self.cachedTokens = cachedTokens
    }

    public var totalTokens: Int { promptTokens + completionTokens }

    public static func + (lhs: TokenUsage, rhs: TokenUsage) -> TokenUsage {
        TokenUsage(
            promptTokens: lhs.promptTokens + rhs.promptTokens,
            completionTokens: lhs.completionTokens + rhs.completionTokens,
            cachedTokens: lhs.cachedTokens + rhs.cachedTokens)
    }

    public static func += (lhs: inout TokenUsage, rhs: TokenUsage) { lhs = lhs + rhs }
}

/// A model's answer.
public struct LLMResponse: Codable, Sendable, Hashable {
    /// The text of the answer (for structured output: the JSON text).
    public var content: String
    public var finishReason: FinishReason
    public var usage: TokenUsage
    /// The model that answered, as the provider names it.
    public var model: String?

    public init(content: String, finishReason: FinishReason = .stop, usage: TokenUsage = TokenUsage(), model: String? = nil) {
        self.content = content
        self.finishReason = finishReason
        self.usage = usage
        self.model = model
    }
}

/// The seam between the pipeline and a model: OpenAI-compatible and Anthropic clients, the local
/// model, and scripted test doubles all conform.
public protocol LLMProvider: Sendable {
    /// The provider kind as it enters the cache key: `openai`, `anthropic`, `local`, `scripted`.
    var kind: String { get }
    /// How many requests this provider should have in flight at once.
    var maxConcurrency: Int { get }
    /// Sends one request, with the provider's own retries, and returns the answer. Throws
    /// `LLMError` on failure.
    func complete(_ request: LLMRequest, context: RequestContext) async throws -> LLMResponse
}

/// A failure talking to a model, with what to do about it.
public struct LLMError: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// Bad credentials or permissions (401/403): fix the key.
        case authentication
        /// The request itself is wrong (400/404/422): fix the model name or parameters.
        case invalidRequest
        /// 408/409/429/5xx, connection errors and timeouts that outlived the retries.
        case unavailable
        /// The answer was cut off by the token budget.
        case truncated
        /// The answer could not be read (not the protocol's JSON shape).
        case malformedResponse
        /// The scripted provider has no answer for this request (tests).
        case noScriptedAnswer
        case cancelled
    }

    public var kind: Kind
    /// What happened, where, and what to do, in words for the user. Never contains a secret.
    public var message: String
    public var statusCode: Int?

    public init(_ kind: Kind, _ message: String, statusCode: Int? = nil) {
        self.kind = kind
        self.message = message
        self.statusCode = statusCode
    }

    public var description: String { message }
}
