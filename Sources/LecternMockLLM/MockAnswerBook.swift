import Foundation
import LecternLLM

/// The recorded answers the mock serves, by work item: a cassette (sorted JSONL of
/// `ExchangeRecord`s) recorded from a real or scripted run, so every answer is valid content
/// for the item that asks.
public struct MockAnswerBook: Sendable {
    /// One recorded answer.
    public struct Answer: Sendable, Hashable {
        /// The work item that asked, e.g. `lecture/s01-t02`.
        public var itemID: String
        /// The item's stage, e.g. `lecture`.
        public var stage: String
        /// The answer text (for structured answers, the JSON text).
        public var content: String
        /// The recorded token counts, sent back as the answer's usage.
        public var usage: TokenUsage
        /// The content as a JSON object or array, when it is one (a structured answer).
        public var json: JSONValue?
    }

    /// Answers by item id. A cassette holds one exchange per item unless the recording needed
    /// repairs; then the first record in cassette order wins (record from a clean run).
    public private(set) var answers: [String: Answer]
    /// Item ids by stage, sorted: the source of "another topic's lecture".
    private var itemsByStage: [String: [String]]

    /// An answer book from records; later records for the same item do not replace earlier ones.
    public init(records: [ExchangeRecord]) {
        var answers: [String: Answer] = [:]
        for record in records where record.response.finishReason == .stop && answers[record.itemID] == nil {
            answers[record.itemID] = Answer(
                itemID: record.itemID, stage: record.stage, content: record.response.content, usage: record.response.usage,
                json: MockResponder.structuredValue(record.response.content))
        }
        self.answers = answers
        var byStage: [String: [String]] = [:]
        for answer in answers.values { byStage[answer.stage, default: []].append(answer.itemID) }
        self.itemsByStage = byStage.mapValues { $0.sorted() }
    }

    /// Reads cassettes; for an item in several, the first cassette given wins.
    public init(cassettes: [URL]) throws {
        var records: [ExchangeRecord] = []
        for url in cassettes { records += try ExchangeCache.readCassette(url) }
        self.init(records: records)
    }

    /// The answer for `itemID`, if recorded.
    public func answer(for itemID: String) -> Answer? { answers[itemID] }

    /// Another item of the same stage (the next one in sorted order, or `offset` further), for
    /// wrong-content faults.
    func neighbour(of answer: Answer, offset: Int = 0) -> Answer? {
        guard let items = itemsByStage[answer.stage], items.count > 1, let index = items.firstIndex(of: answer.itemID) else {
            return nil
        }
        let step = 1 + offset % (items.count - 1)
        return answers[items[(index + step) % items.count]]
    }

    /// How many items have an answer.
    public var count: Int { answers.count }
}

/// What the mock did, in total and per item. `answered` counts 200 responses: what a real
/// provider would bill. An item answered twice was paid for twice.
public struct MockStats: Codable, Sendable, Hashable {
    /// Per-item counts.
    public struct ItemCounts: Codable, Sendable, Hashable {
        /// Model requests received for the item (retries and repairs included).
        public var requests = 0
        /// 200 answers sent (including truncated, invalid and wrong ones: those are billed too).
        public var answered = 0
        /// Answers the mock computed but could not send because the client had gone away.
        public var abandoned = 0
        /// Injected faults by kind (`FaultKind` raw values).
        public var faults: [String: Int] = [:]

        /// All counts zero.
        public init() {}
    }

    /// Model requests received (retries and repairs included).
    public var requests = 0
    /// 200 answers sent: what a provider would bill.
    public var answered = 0
    /// Answers not sent because the client had gone away (a timeout or a kill).
    public var abandoned = 0
    /// Injected faults by kind (`FaultKind` raw values).
    public var faults: [String: Int] = [:]
    /// 401 answers (auth policy), 400s for items without a recorded answer, 404s for unknown paths.
    public var rejected = 0
    /// Requests received and not yet answered, reset or abandoned; and the most ever at once.
    public var inFlight = 0
    /// The most requests in flight at once.
    public var peakInFlight = 0
    /// Seconds since the server started at the first model request and at the last answer sent
    /// since the counters were last reset (nil before any): how long the client kept the model busy.
    public var firstRequestAt: Double?
    /// See ``firstRequestAt``.
    public var lastAnswerAt: Double?
    /// Counts per item id.
    public var items: [String: ItemCounts] = [:]

    /// All counts zero.
    public init() {}

    /// Items answered more than once, with their answer counts.
    public var itemsAnsweredMoreThanOnce: [String: Int] {
        items.compactMapValues { $0.answered > 1 ? $0.answered : nil }
    }

    /// Answers beyond the first, summed over items.
    public var repeatedAnswers: Int {
        items.values.reduce(0) { $0 + max(0, $1.answered - 1) }
    }

    /// Every injected fault.
    public var totalFaults: Int { faults.values.reduce(0, +) }

    enum CodingKeys: String, CodingKey {
        case requests, answered, abandoned, faults, rejected, inFlight = "in_flight", peakInFlight = "peak_in_flight",
            firstRequestAt = "first_request_at", lastAnswerAt = "last_answer_at", items
    }
}

/// One model request as the mock received it (kept when `recordRequests` is on).
public struct MockRecordedRequest: Sendable, Hashable {
    /// The `X-Lectern-Item` header (`-` when absent).
    public var itemID: String
    /// The `X-Lectern-Attempt` header (1 when absent).
    public var attempt: Int
    /// The request path, e.g. `/v1/chat/completions`.
    public var path: String
    /// The request body as sent.
    public var body: Data
    /// Seconds since the server started (the clock of ``MockLLMServer/uptime``).
    public var receivedAt: Double
}
