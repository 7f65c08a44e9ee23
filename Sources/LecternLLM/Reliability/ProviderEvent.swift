import Foundation

/// Something a provider did on the way to an answer that a log should show: a retry, a wait
/// imposed by the rate limiter, a change of allowed concurrency, a truncated answer asked again.
///
/// Events never carry credentials. `jsonLine` renders one as a single JSON line.
public struct ProviderEvent: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What happened.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A request failed in a way worth retrying; the provider waits `delaySeconds` and sends
        /// it again as attempt `attempt`.
        case retrying
        /// The client-side rate limiter made a request wait `delaySeconds` before sending.
        case rateLimited = "rate_limited"
        /// Repeated 429 answers lowered the allowed concurrency to `concurrency`.
        case concurrencyReduced = "concurrency_reduced"
        /// Successes raised the allowed concurrency back to `concurrency`.
        case concurrencyRaised = "concurrency_raised"
        /// The answer hit its token budget; it is asked again with `maxTokens`.
        case truncatedRetry = "truncated_retry"
        /// The answer hit its token budget going round in a loop (`AnswerLoop`): it is returned
        /// finished `loop`, not asked again with more tokens.
        case looped
        /// The answer hit its token budget at the ceiling, or after the last larger ask: it is
        /// returned finished `length`, for its stage to refuse (`message` names the budget).
        case cutOff = "cut_off"
        /// The request failed for good; `message` says why.
        case failed
        /// A streamed answer is arriving: `receivedTokens` so far (about one per event).
        case receiving
        /// A batch was submitted, is progressing, or ended (`run --batch`).
        case batch
    }

    public var kind: Kind
    /// The provider kind (`openai`, `anthropic`, …).
    public var provider: String
    public var model: String
    /// The work item, when the event concerns one request.
    public var itemID: String?
    /// The attempt about to be made (for `retrying`) or that failed (for `failed`).
    public var attempt: Int?
    public var statusCode: Int?
    public var delaySeconds: Double?
    public var concurrency: Int?
    public var maxTokens: Int?
    /// For `receiving`: the tokens of the answer received so far.
    public var receivedTokens: Int?
    /// A sentence for people.
    public var message: String

    /// Creates an event.
    public init(
        kind: Kind, provider: String, model: String, itemID: String? = nil, attempt: Int? = nil,
        statusCode: Int? = nil, delaySeconds: Double? = nil, concurrency: Int? = nil, maxTokens: Int? = nil,
        receivedTokens: Int? = nil, message: String
    ) {
        self.receivedTokens = receivedTokens
        self.kind = kind
        self.provider = provider
        self.model = model
        self.itemID = itemID
        self.attempt = attempt
        self.statusCode = statusCode
        self.delaySeconds = delaySeconds
        self.concurrency = concurrency
        self.maxTokens = maxTokens
        self.message = message
    }

    /// The event as a JSON object with `event` naming the kind; absent fields are left out.
    public var jsonObject: JSONValue {
        var object: [String: JSONValue] = [
            "event": .string(kind.rawValue), "provider": .string(provider), "model": .string(model),
            "message": .string(message),
        ]
        if let itemID { object["item"] = .string(itemID) }
        if let attempt { object["attempt"] = .number(Double(attempt)) }
        if let statusCode { object["status"] = .number(Double(statusCode)) }
        if let delaySeconds { object["delay_s"] = .number((delaySeconds * 1000).rounded() / 1000) }
        if let concurrency { object["concurrency"] = .number(Double(concurrency)) }
        if let maxTokens { object["max_tokens"] = .number(Double(maxTokens)) }
        if let receivedTokens { object["received_tokens"] = .number(Double(receivedTokens)) }
        return .object(object)
    }

    /// One line of JSON (canonical: sorted keys, no spaces).
    public var jsonLine: String { jsonObject.canonicalText }

    public var description: String { jsonLine }
}

/// Receives provider events; must return quickly and may be called from any task.
public typealias ProviderEventSink = @Sendable (ProviderEvent) -> Void
