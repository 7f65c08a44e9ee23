import Foundation

/// The `quotes` job (Echo §4.4, §4.3): a database of quotations taken verbatim from corpus files
/// and tagged by emotion and category by the model, and optionally a bank of recommendation
/// templates per emotion. The model never writes a quote; it only classifies them.
public struct QuotesSpec: Codable, Sendable, Hashable {
    /// The quote collections, in the order their quotes are preferred (an earlier source wins a
    /// duplicate).
    public var sources: [QuoteSource]
    /// How many quotes the database holds at most (Echo: 1,000–2,000).
    public var target: Int
    /// Quotes per tagging call on average; a call holds at most twice as many (`QuoteBatches`).
    public var batchSize: Int
    /// The emotion tags, in order, with what each means (Echo §4.1's eight by default).
    public var emotions: [QuoteEmotion]
    /// The categories a quote is filed under (Echo §4.4's six by default).
    public var categories: [String]
    /// Quotes each emotion should have at least; fewer is reported.
    public var minPerEmotion: Int
    /// The emotion the app falls back to (QM-002); it may never be empty. Default `Reflection`
    /// when the emotions include it.
    public var fallbackEmotion: String?
    /// Characters a quote's text may have (QM: 50–200).
    public var length: SizeRange
    /// The template bank, when asked for.
    public var templates: TemplateBankSpec?

    public init(
        sources: [QuoteSource], target: Int = 1_000, batchSize: Int = 20, emotions: [QuoteEmotion] = QuoteEmotion.echo,
        categories: [String] = QuotesSpec.echoCategories, minPerEmotion: Int = 40, fallbackEmotion: String? = "Reflection",
        length: SizeRange = SizeRange(min: 50, max: 200), templates: TemplateBankSpec? = nil
    ) {
        self.sources = sources
        self.target = target
        self.batchSize = batchSize
        self.emotions = emotions
        self.categories = categories
        self.minPerEmotion = minPerEmotion
        self.fallbackEmotion = fallbackEmotion
        self.length = length
        self.templates = templates
    }

    public static let echoCategories = ["Stoicism", "Mindfulness", "Psychology", "Literature", "Philosophy", "Science"]

    enum CodingKeys: String, CodingKey {
        case sources, target, batchSize = "batch", emotions, categories, minPerEmotion = "min_per_emotion", fallbackEmotion = "fallback_emotion",
            length, templates
    }
}

/// An emotion tag and what it covers (said to the model).
public struct QuoteEmotion: Codable, Sendable, Hashable {
    public var name: String
    public var meaning: String

    public init(name: String, meaning: String) {
        self.name = name
        self.meaning = meaning
    }

    /// Echo §4.1's initial set.
    public static let echo: [QuoteEmotion] = [
        QuoteEmotion(name: "Achievement", meaning: "celebrating wins, accomplishments, milestones"),
        QuoteEmotion(name: "Comfort", meaning: "self-soothing for anxiety, stress, difficult times"),
        QuoteEmotion(name: "Motivation", meaning: "encouragement for upcoming challenges, goals"),
        QuoteEmotion(name: "Gratitude", meaning: "appreciation, thankfulness, positive moments"),
        QuoteEmotion(name: "Struggle", meaning: "acknowledging hardship, processing difficulty"),
        QuoteEmotion(name: "Joy", meaning: "pure happiness, excitement, positive energy"),
        QuoteEmotion(name: "Reflection", meaning: "thoughtful introspection, learning moments"),
        QuoteEmotion(name: "Hope", meaning: "optimism for the future, aspirational thoughts"),
    ]
}

/// One quote collection named by the spec.
public struct QuoteSource: Codable, Sendable, Hashable {
    public enum Format: String, Codable, Sendable, Hashable, CaseIterable {
        /// fortune(6) data: records separated by `%` lines, the attribution on a last line
        /// starting with `--`.
        case fortune
        /// CSV (RFC 4180) with a header naming `text`, `author` and optionally `source`.
        case csv
        /// One JSON object per line with `text`, `author` and optionally `source`.
        case jsonl

        /// The format a file name suggests: `.csv`, `.jsonl`/`.ndjson`, otherwise fortune.
        public static func guess(_ path: String) -> Format {
            let lower = path.lowercased()
            if lower.hasSuffix(".csv") { return .csv }
            if lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson") { return .jsonl }
            return .fortune
        }
    }

    /// What is known of the attributions in a source (Echo: "public domain or verified").
    public enum Attribution: String, Codable, Sendable, Hashable, CaseIterable {
        /// Each quote's author and wording checked against a primary source.
        case verified
        /// Attributed by the collection, not checked by us.
        case attributed
        /// Known to contain misattributions or paraphrases.
        case unverified
    }

    /// The file, relative to the spec.
    public var path: String
    public var format: Format
    /// The collection's licence, as its distributor states it.
    public var licence: String?
    /// Where the file came from (package, URL, edition).
    public var origin: String?
    public var attribution: Attribution

    public init(path: String, format: Format? = nil, licence: String? = nil, origin: String? = nil, attribution: Attribution = .attributed) {
        self.path = path
        self.format = format ?? Format.guess(path)
        self.licence = licence
        self.origin = origin
        self.attribution = attribution
    }
}

/// The template bank (Echo §4.3, SR-001–005): per emotion, short recommendation templates, most
/// with one `{keyword}` placeholder, some with none (the fallback when no keyword is found).
public struct TemplateBankSpec: Codable, Sendable, Hashable {
    /// Templates per emotion (Echo: 10).
    public var perEmotion: Int
    /// Characters a template may have once a keyword of `keywordLength` characters is filled in
    /// (SR-005: under 100, so 99).
    public var maxCharacters: Int
    /// The longest keyword the app fills in (20).
    public var keywordLength: Int
    /// Templates per emotion without a placeholder, at least (SR-003's fallback: 2).
    public var minWithoutPlaceholder: Int
    /// Rounds of template calls per emotion, each keeping what passed and asking for what is
    /// missing (each call repaired up to `repair.max_attempts` times when nothing in it is usable).
    public var rounds: Int
    /// Whether the model judges each usable line against its emotion (`TemplateJudge`) before it
    /// is kept: one more call a round. Off by default: on the local model it refused 12% of the
    /// labelled lines that do not fit and 11% of those that do (BENCHMARKS, "template judge").
    public var judge: Bool

    public init(perEmotion: Int = 10, maxCharacters: Int = 99, keywordLength: Int = 20, minWithoutPlaceholder: Int = 2, rounds: Int = 5, judge: Bool = false) {
        self.perEmotion = perEmotion
        self.maxCharacters = maxCharacters
        self.keywordLength = keywordLength
        self.minWithoutPlaceholder = minWithoutPlaceholder
        self.rounds = rounds
        self.judge = judge
    }

    /// The placeholder the app replaces.
    public static let placeholder = "{keyword}"

    enum CodingKeys: String, CodingKey {
        case perEmotion = "per_emotion", maxCharacters = "max_characters", keywordLength = "keyword_length",
            minWithoutPlaceholder = "min_without_placeholder", rounds, judge
    }
}
