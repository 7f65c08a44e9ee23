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
        /// Recorded as a loop (`FinishReason.loop`): the model wrote until its token budget ran
        /// out. Served as cut off at the budget, with the recorded usage, so the client finds the
        /// same loop and its stage refuses the answer as it did when recording.
        public var ranOutOfTokens = false
    }

    /// Answers by item id. A cassette holds one exchange per item unless the recording needed
    /// repairs; then the first record in cassette order wins, unless the request is one the
    /// cassette recorded (`answer(for:body:wire:)`).
    public private(set) var answers: [String: Answer]
    /// What a cache key is made of besides the request: the provider kind and prompt template.
    struct KeyOrigin: Hashable {
        var provider: String
        var template: String
    }
    /// With `replaysByKey`: every recorded answer (loops included) by its cache key, and the
    /// origins of each item's records (`allOrigins` for an item without records of its own).
    private var byKey: [String: Answer] = [:]
    private var origins: [String: [KeyOrigin]] = [:]
    private var allOrigins: [KeyOrigin] = []
    /// The cassette is a recording with repairs (an item answered more than once, or a loop): a
    /// request is answered by its cache key where the cassette has it. A clean recording (one
    /// answer per item: the benchmarks' synthetic course) is answered by item alone, which costs
    /// the mock no parsing or hashing of requests.
    public let replaysByKey: Bool
    /// Item ids by stage, sorted: the source of "another topic's lecture".
    private var itemsByStage: [String: [String]]

    /// An answer book from records; later records for the same item do not replace earlier ones.
    public init(records: [ExchangeRecord]) {
        var answers: [String: Answer] = [:]
        var perItem: [String: Int] = [:]
        var loops = false
        for record in records where record.response.finishReason == .stop || record.response.finishReason == .loop {
            let answer = Answer(
                itemID: record.itemID, stage: record.stage, content: record.response.content, usage: record.response.usage,
                json: MockResponder.structuredValue(record.response.content), ranOutOfTokens: record.response.finishReason == .loop)
            byKey[record.key] = answer
            let origin = KeyOrigin(provider: record.provider, template: record.promptTemplate)
            if !(origins[record.itemID] ?? []).contains(origin) { origins[record.itemID, default: []].append(origin) }
            if !allOrigins.contains(origin) { allOrigins.append(origin) }
            perItem[record.itemID, default: 0] += 1
            loops = loops || answer.ranOutOfTokens
            if answers[record.itemID] == nil && !answer.ranOutOfTokens { answers[record.itemID] = answer }
        }
        self.answers = answers
        self.replaysByKey = loops || perItem.values.contains { $0 > 1 }
        if !replaysByKey {
            byKey = [:]
            origins = [:]
        }
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

    /// The answer for `itemID` to this request. With `replaysByKey`, the answer recorded for this
    /// very request — its cache key computed from the request body as the client computed it from
    /// the request, whichever item it was recorded for (two items may ask the same thing, and a
    /// recording answers it once) — so a replay through the mock asks and repairs exactly as the
    /// recording did, loops included; else, or when the cassette lacks the request, the item's
    /// first answer. (OpenAI wire with a `json_schema` or no schema, and no spec `variant`: the
    /// other shapes do not carry everything the key is made of, and get the first answer.)
    func answer(for itemID: String, body: Data, wire: WireProtocol) -> Answer? {
        guard replaysByKey, wire == .openai else { return answers[itemID] }
        let candidates = origins[itemID] ?? allOrigins
        for request in Self.requests(fromOpenAIBody: body) {
            for origin in candidates {
                let key = ExchangeKeyMaterial(provider: origin.provider, request: request, promptTemplate: origin.template, variant: nil).key
                if let answer = byKey[key] { return answer }
            }
        }
        return answers[itemID]
    }

    /// The requests a Chat Completions body may have been made from: with its token budget, and
    /// without one (a budget the provider chose is not part of the request).
    static func requests(fromOpenAIBody body: Data) -> [LLMRequest] {
        guard let json = try? JSONValue.parse(String(decoding: body, as: UTF8.self)), let model = json["model"]?.stringValue,
            let list = json["messages"]?.arrayValue
        else { return [] }
        var messages: [ChatMessage] = []
        for message in list {
            guard let role = message["role"]?.stringValue.flatMap(ChatMessage.Role.init(rawValue:)), let content = message["content"]?.stringValue
            else { return [] }
            messages.append(ChatMessage(role: role, content: content))
        }
        var schema: ResponseSchema?
        if let format = json["response_format"] {
            guard let inner = format["json_schema"], let name = inner["name"]?.stringValue, let value = inner["schema"] else { return [] }
            schema = ResponseSchema(name: name, schema: value)
        }
        func number(_ key: String) -> Double? {
            if case .number(let n)? = json[key] { return n }
            return nil
        }
        let budget = (json["max_tokens"] ?? json["max_completion_tokens"])?.intValue
        let request = LLMRequest(
            model: model, messages: messages, temperature: number("temperature"), maxTokens: budget, responseSchema: schema,
            seed: json["seed"]?.intValue, frequencyPenalty: number("frequency_penalty"))
        guard budget != nil else { return [request] }
        var unbudgeted = request
        unbudgeted.maxTokens = nil
        return [request, unbudgeted]
    }

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
