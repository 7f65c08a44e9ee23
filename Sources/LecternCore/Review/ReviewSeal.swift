import Foundation

/// `review.json` in every bundle: each model item's answer and where review left it — approved
/// or edited (by whom, when) or pending — the rejections this run acted on, the decisions it did
/// not apply (stale), and the counts. What `lectern review` shows and decides on, what `lectern
/// package --require-review` requires, and what `lectern diff` compares (docs/review.md).
public struct ReviewSeal: Sendable, Hashable, Codable {
    public static let fileName = "review.json"
    public static let formatVersion = 1

    /// Where review left an item in the bundle.
    public enum State: String, Sendable, Codable {
        /// No decision applies to the answer in the bundle.
        case pending
        case approved
        case edited
        /// No answer passed the checks (a run with `--allow-partial`): `answer` is the last one
        /// refused, which is not in the bundle; a person may write the item from it (an edit).
        case failed
    }

    public struct Item: Sendable, Hashable, Codable {
        public var id: String
        public var stage: String
        public var state: State
        /// SHA-256 of `answer` (`ReviewFile.contentHash`): what a decision on it names.
        public var content: String
        /// SHA-256 of what the answer was built from (`ReviewFile.basisHash`).
        public var basis: String
        /// The answer as it stands (mends and edits included): what the item's content came from.
        public var answer: String
        public var by: String?
        public var at: String?
        /// The note of the rejection this run acted on (the answer is the model's new one).
        public var rejected: String?
        /// Why a decision on the item was not applied.
        public var stale: String?
        /// What was wrong with the last answer of a failed item.
        public var problems: [String]?

        public init(
            id: String, stage: String, state: State, content: String, basis: String, answer: String, by: String? = nil, at: String? = nil,
            rejected: String? = nil, stale: String? = nil, problems: [String]? = nil
        ) {
            self.id = id
            self.stage = stage
            self.state = state
            self.content = content
            self.basis = basis
            self.answer = answer
            self.by = by
            self.at = at
            self.rejected = rejected
            self.stale = stale
            self.problems = problems
        }
    }

    /// A decision on an item this run did not produce.
    public struct Unmatched: Sendable, Hashable, Codable {
        public var id: String
        public var decision: ReviewFile.Kind
        public var reason: String
    }

    public struct Counts: Sendable, Hashable, Codable {
        public var approved = 0
        public var edited = 0
        public var pending = 0
        /// Rejections acted on this run (their items asked again: now pending).
        public var rejected = 0
        /// Decisions not applied: their item changed, or is gone.
        public var stale = 0
        /// Items no answer of which passed (a partial bundle); written only when there are some.
        public var failed: Int {
            get { failedItems ?? 0 }
            set { failedItems = newValue > 0 ? newValue : nil }
        }
        private var failedItems: Int?

        public init() {}

        enum CodingKeys: String, CodingKey {
            case approved, edited, pending, rejected, stale
            case failedItems = "failed"
        }

        /// "37 items: 3 approved, 1 edited, 33 pending (2 rejected and asked again, 1 stale decision)";
        /// ", 2 failed" after pending when some are.
        public func sentence(items: Int) -> String {
            let text = "\(items) items: \(approved) approved, \(edited) edited, \(pending) pending" + (failed > 0 ? ", \(failed) failed" : "")
            var notes: [String] = []
            if rejected > 0 { notes.append("\(rejected) rejected and asked again") }
            if stale > 0 { notes.append("\(stale) stale decision\(stale == 1 ? "" : "s")") }
            return text + (notes.isEmpty ? "" : " (" + notes.joined(separator: ", ") + ")")
        }
    }

    public var format = ReviewSeal.formatVersion
    /// The review file the decisions came from (relative to the spec), and its SHA-256; nil when
    /// the spec has none yet.
    public var reviewFile: String?
    public var reviewFileSHA256: String?
    public var counts: Counts
    public var items: [Item]
    public var unmatched: [Unmatched]

    enum CodingKeys: String, CodingKey {
        case format, counts, items, unmatched
        case reviewFile = "review_file"
        case reviewFileSHA256 = "review_file_sha256"
    }

    /// The seal of a run: its `items` (sorted here by id) and the decisions on no item of it.
    public init(items: [Item], unmatched: [ReviewFile.Decision], reviewFile: String?, reviewFileSHA256: String?) {
        self.items = items.sorted { $0.id < $1.id }
        self.unmatched = unmatched.sorted { $0.item < $1.item }.map {
            Unmatched(id: $0.item, decision: $0.kind, reason: "no item of this id in the run (renamed or removed?)")
        }
        var counts = Counts()
        for item in self.items {
            switch item.state {
            case .approved: counts.approved += 1
            case .edited: counts.edited += 1
            case .pending: counts.pending += 1
            case .failed: counts.failed += 1
            }
            if item.rejected != nil { counts.rejected += 1 }
            if item.stale != nil { counts.stale += 1 }
        }
        counts.stale += self.unmatched.count
        self.counts = counts
        self.reviewFile = reviewFile
        self.reviewFileSHA256 = reviewFileSHA256
    }

    /// Sorted-key, pretty JSON with a final newline, as every bundle file.
    public func jsonData() throws -> Data { try CanonicalJSON.encode(self, pretty: true) }

    /// Reads a bundle's `review.json`.
    public static func read(_ data: Data) throws -> ReviewSeal { try JSONDecoder().decode(ReviewSeal.self, from: data) }
}

/// Where an item of a bundle stands with the review file as it is now: what `lectern review`
/// shows and decides on.
public enum ReviewStatus: String, Sendable, CaseIterable {
    /// No decision.
    case pending
    case approved
    case edited
    /// Rejected: the next run asks for it again with the note.
    case rejected
    /// Decided on another answer than the bundle holds (a run in between): not applied.
    case stale
    /// No answer passed the checks, and no edit writes it yet: not in the bundle.
    case failed
}

extension ReviewSeal.Item {
    /// The status `decision` (the review file's, if any) gives this item.
    public func status(_ decision: ReviewFile.Decision?) -> ReviewStatus {
        if state == .failed {
            // Only a person's text can stand for it: an edit made for what it is built from (a
            // run keeps an edit while its basis holds); any other decision leaves it failed.
            return decision?.kind == .edit && decision?.basis == basis ? .edited : .failed
        }
        guard let decision else { return .pending }
        switch decision.kind {
        case .reject:
            // A run that acted on the rejection holds the model's new answer: not yet read.
            return decision.content == content ? .rejected : rejected != nil ? .pending : .stale
        case .approve:
            return decision.content == content ? .approved : .stale
        case .edit:
            // Decided on the model's answer (`content`), sealed as the edited one.
            let edited = decision.answer.flatMap { try? AnswerFields.apply(decision.fields, to: $0) }.map(ReviewFile.contentHash)
            return decision.content == content || edited == content ? .edited : .stale
        }
    }
}
