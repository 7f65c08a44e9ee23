/// `curation.json` → `tagging` (docs/quotes.md): what the model made of the candidates. A quotes
/// run writes it (`QuoteCuration`); `lectern review` reads it back to show each tagging answer
/// beside its quotes.
public struct QuoteTagging: Codable, Sendable, Hashable {
    /// A quote left out on a rejection (the model's verdict or Lectern's own), for a curator.
    public struct Rejection: Codable, Sendable, Hashable {
        public var id: String
        public var reason: String
        public var text: String
        public var author: String

        public init(id: String, reason: String, text: String, author: String) {
            self.id = id
            self.reason = reason
            self.text = text
            self.author = author
        }
    }

    public var batches: Int
    public var calls: Int
    public var tagged: Int
    public var kept: Int
    public var rejected: [String: Int]
    /// Every rejected quote with its reason, for a curator to review.
    public var rejections: [Rejection]
    /// Quote id → the problems of its last answer, for the quotes no round tagged.
    public var untagged: [String: [String]]
    public var strayAnswers: Int
    /// Quotes classified by the batch's first answer, and by each later round.
    public var byRound: [String: Int]
    /// Each tagging call's item id → the quote ids it listed, in its numbering: what an answer's
    /// `n` names. Absent in bundles written before it was recorded.
    public var asked: [String: [String]]?

    enum CodingKeys: String, CodingKey {
        case batches, calls, tagged, kept, rejected, rejections, untagged, asked, strayAnswers = "stray_answers", byRound = "by_round"
    }

    public init(
        batches: Int = 0, calls: Int = 0, tagged: Int = 0, kept: Int = 0, rejected: [String: Int] = [:], rejections: [Rejection] = [],
        untagged: [String: [String]] = [:], strayAnswers: Int = 0, byRound: [String: Int] = [:], asked: [String: [String]]? = nil
    ) {
        self.batches = batches
        self.calls = calls
        self.tagged = tagged
        self.kept = kept
        self.rejected = rejected
        self.rejections = rejections
        self.untagged = untagged
        self.strayAnswers = strayAnswers
        self.byRound = byRound
        self.asked = asked
    }
}
