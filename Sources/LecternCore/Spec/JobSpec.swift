import Foundation
import LecternLLM

/// A job kind's name: the spec's `kind:` and the manifest's `kind`. Each kind has a spec reader
/// in LecternCore (`JobKindSpecReader`, registered in `SpecLoader.kindReaders`), a job in
/// LecternPipeline (`JobKinds`) and a read side in LecternBundle (`BundleKinds`); a kind listed
/// in `allCases` without them gets a clear "not yet" instead of "unknown".
///
/// A name, not a closed enum, so that a kind can be registered from outside these modules (the
/// toy kind of `ToyKindTests`); nothing compares it with a string: code names the constants, and
/// what a kind does is asked of its registered types.
public struct JobKind: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }

    public static let course = JobKind(rawValue: "course")
    public static let exam = JobKind(rawValue: "exam")
    public static let quotes = JobKind(rawValue: "quotes")
    public static let flashcards = JobKind(rawValue: "flashcards")

    /// The kinds this version of Lectern knows.
    public static let allCases: [JobKind] = [.course, .exam, .quotes, .flashcards]

    /// The kinds this version runs: those with a spec reader.
    public static var supported: [JobKind] { allCases.filter { SpecLoader.kindReaders[$0] != nil } }
}

/// The kind-specific part of a spec: one case per built-in kind, and `other` for a kind
/// registered from outside LecternCore (its reader keeps its part as JSON, which its job decodes).
public enum JobContent: Sendable, Hashable {
    case course(CourseSpec)
    case exam(ExamSpec)
    case quotes(QuotesSpec)
    case flashcards(DeckSpec)
    case other(JobKind, JSONValue)

    public var kind: JobKind {
        switch self {
        case .course: .course
        case .exam: .exam
        case .quotes: .quotes
        case .flashcards: .flashcards
        case .other(let kind, _): kind
        }
    }
}

/// A job spec, decoded and checked: the keys every kind shares, read once, and the part of its
/// kind. Everything here enters the spec hash; nothing here is a secret (API keys are named by
/// environment variable, never written in specs).
public struct JobSpec: Sendable, Hashable {
    public var kind: JobKind { content.kind }
    /// Slug `[a-z0-9-]`; the bundle goes to `output/<id>/<version>/`.
    public var id: String
    /// Semantic version of the bundle.
    public var version: String
    /// BCP 47 language tag of the content, e.g. `en`, `ar`.
    public var language: String
    /// What the job is about, in the author's words.
    public var description: String
    /// Who the content is for.
    public var audience: String
    /// Free text; changing it forces fresh samples (it enters every cache key).
    public var variant: String?
    /// The tone of delivery (presets and free text).
    public var tone: ToneSpec
    public var model: ModelSpec
    public var budget: BudgetSpec
    public var repair: RepairSpec
    /// How multiple-choice answers are checked beyond the validators (blind solving).
    public var review: ReviewSpec
    /// The kind-specific part.
    public var content: JobContent
    /// The directory relative paths in the spec (a corpus) are resolved against; not part of
    /// the hash (the same spec elsewhere is the same job).
    public var baseDirectory: URL?
    /// Where the files the spec names may be read from (``FileRoots``); not part of the hash.
    /// nil: the project of `baseDirectory`.
    public var fileRoots: FileRoots?

    /// The review decisions on this job's items (`review_file:`, else `<spec name>.review.yaml`
    /// beside the spec; docs/review.md); not part of the hash. nil: none (a spec read from text).
    public var reviewFile: URL?

    /// `fileRoots`, or the project of the base directory (the current directory when none).
    public var resolvedFileRoots: FileRoots {
        fileRoots ?? FileRoots(specDirectory: baseDirectory ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true))
    }

    public init(
        id: String, version: String, language: String, description: String, audience: String, variant: String?, tone: ToneSpec,
        model: ModelSpec, budget: BudgetSpec, repair: RepairSpec, review: ReviewSpec = ReviewSpec(), content: JobContent,
        baseDirectory: URL? = nil
    ) {
        self.review = review
        self.id = id; self.version = version; self.language = language; self.description = description; self.audience = audience
        self.variant = variant; self.tone = tone; self.model = model; self.budget = budget; self.repair = repair; self.content = content
        self.baseDirectory = baseDirectory
    }

    /// The course part, when this is a course.
    public var course: CourseSpec? {
        if case .course(let course) = content { return course }
        return nil
    }

    /// The exam part, when this is an exam.
    public var exam: ExamSpec? {
        if case .exam(let exam) = content { return exam }
        return nil
    }

    /// The deck part, when this is a flashcard deck.
    public var deck: DeckSpec? {
        if case .flashcards(let deck) = content { return deck }
        return nil
    }

    /// The quotes part, when this is a quote database.
    public var quotes: QuotesSpec? {
        if case .quotes(let quotes) = content { return quotes }
        return nil
    }

    /// SHA-256 of the canonical JSON of this spec: the same job gives the same hash, whatever its
    /// comments, key order or YAML style.
    public var hash: String {
        (try? hashedJSON()).map(SHA256Digest.hex) ?? ""
    }

    /// The canonical JSON the hash is taken of.
    public func hashedJSON() throws -> Data { try CanonicalJSON.encode(HashForm(self)) }

    /// What the hash covers: the common keys at the top and the kind's part under its name, with
    /// the tone inside it (where version 1's course specs kept it, so their hashes, and the
    /// manifests that carry them, are unchanged).
    struct HashForm: Encodable {
        let spec: JobSpec

        init(_ spec: JobSpec) { self.spec = spec }

        enum Key: String, CodingKey {
            case kind, id, version, language, description, audience, variant, model, budget, repair, review, course, exam, quotes, flashcards
        }

        /// A kind of its own's part, under its name.
        struct OtherPart: Encodable {
            let spec: JSONValue
            let tone: ToneSpec
        }

        struct NamedKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        struct KindPart<Part: Encodable>: Encodable {
            let part: Part
            let tone: ToneSpec

            func encode(to encoder: any Encoder) throws {
                try part.encode(to: encoder)
                var container = encoder.container(keyedBy: ToneKey.self)
                try container.encode(tone, forKey: .tone)
            }

            enum ToneKey: String, CodingKey { case tone }
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(spec.kind, forKey: .kind)
            try c.encode(spec.id, forKey: .id)
            try c.encode(spec.version, forKey: .version)
            try c.encode(spec.language, forKey: .language)
            try c.encode(spec.description, forKey: .description)
            try c.encode(spec.audience, forKey: .audience)
            try c.encodeIfPresent(spec.variant, forKey: .variant)
            try c.encode(spec.model, forKey: .model)
            try c.encode(spec.budget, forKey: .budget)
            try c.encode(spec.repair, forKey: .repair)
            // Left out when it is the default, so the hashes of specs written before it existed stand.
            if spec.review != ReviewSpec() { try c.encode(spec.review, forKey: .review) }
            switch spec.content {
            case .course(let course): try c.encode(KindPart(part: course, tone: spec.tone), forKey: .course)
            case .exam(let exam): try c.encode(KindPart(part: exam, tone: spec.tone), forKey: .exam)
            case .quotes(let quotes): try c.encode(KindPart(part: quotes, tone: spec.tone), forKey: .quotes)
            case .flashcards(let deck): try c.encode(KindPart(part: deck, tone: spec.tone), forKey: .flashcards)
            case .other(let kind, let part):
                var named = encoder.container(keyedBy: NamedKey.self)
                try named.encode(OtherPart(spec: part, tone: spec.tone), forKey: NamedKey(stringValue: kind.rawValue))
            }
        }
    }
}

/// Which service answers a spec's model calls. The one place the provider kinds are listed.
public enum ProviderKind: String, Codable, Sendable, Hashable, CaseIterable {
    /// The embedded llama.cpp model Lectern installs (no key, no network).
    case local
    /// Any OpenAI-compatible Chat Completions endpoint.
    case openai
    /// Anthropic's Messages API.
    case anthropic
    /// Canned answers from a file, for tests and demos.
    case scripted

    /// The model name used when a spec names none.
    public var defaultModelName: String {
        switch self {
        case .openai: "gpt-4o-mini"
        case .anthropic: "claude-3-5-haiku-latest"
        case .scripted: "scripted"
        case .local: ModelSpec.defaultLocalModel
        }
    }

    /// The kind's own public API host: the only host its default key variable is sent to.
    public var ownAPIHost: String? {
        switch self {
        case .openai: OpenAICompatibleProvider.ownHost
        case .anthropic: AnthropicProvider.ownHost
        case .local, .scripted: nil
        }
    }

    /// The environment variable the kind's key is read from when the spec names none (sent only
    /// to ``ownAPIHost``).
    public var defaultKeyVariable: String? {
        switch self {
        case .openai: OpenAICompatibleProvider.defaultKeyVariable
        case .anthropic: AnthropicProvider.defaultKeyVariable
        case .local, .scripted: nil
        }
    }

    /// Whether the kind talks to a remote HTTP API (and so takes base_url, keys, timeouts).
    public var isRemote: Bool { ownAPIHost != nil }
}

/// Which model answers, and how hard to push it.
public struct ModelSpec: Codable, Sendable, Hashable {
    public var provider: ProviderKind
    public var name: String
    public var temperature: Double
    public var maxConcurrency: Int
    /// Tokens the model may write per answer.
    public var maxTokens: Int
    /// Base URL of an OpenAI-compatible server (default: OpenAI's).
    public var baseURL: String?
    /// Environment variable holding the API key. Unset: `OPENAI_API_KEY` / `ANTHROPIC_API_KEY`, and
    /// only for the provider's own endpoint; with a custom `base_url` no key is sent unless named.
    public var apiKeyEnv: String?
    public var requestsPerMinute: Int?
    public var tokensPerMinute: Int?
    /// Retries of a failed request (timeouts, 429, 5xx). Tafawoq's rule: 3.
    public var maxRetries: Int
    public var seed: Int?
    /// OpenAI's `frequency_penalty` (−2 to 2), for OpenAI-compatible servers and the local model:
    /// a small model that loops ("ثم ضربه على ٢، ثم ضربه على ٣، …") stops with 0.3–0.5. Nil: not sent.
    public var frequencyPenalty: Double?
    /// For `scripted`: the script file, resolved against the spec's directory.
    public var script: String?
    /// Seconds to open a connection; nil: the provider configuration's default (10 s).
    public var connectTimeoutSeconds: Double?
    /// Seconds for one whole request; nil: the provider configuration's default (600 s).
    public var requestTimeoutSeconds: Double?
    /// Seconds a streamed answer may go without a byte before it is cut and retried; nil: the
    /// provider configuration's default (60 s for a stream, none for a whole answer).
    public var idleTimeoutSeconds: Double?
    /// Stream answers as server-sent events; nil: on for remote providers, off for the local model.
    public var stream: Bool?
    /// Send the requests through the provider's batch API (OpenAI, Anthropic): half the price,
    /// answers within hours. How the answers are fetched, not what is asked, so it is left out
    /// of the spec's hash (and of its Codable form): a batch run writes the same bundle.
    public var batch: Bool? = nil

    public static let defaultLocalModel = "qwen2.5-coder-1.5b-instruct"

    /// Whether answers are streamed, with the default applied.
    public var streams: Bool { stream ?? provider.isRemote }

    enum CodingKeys: String, CodingKey {
        case provider, name, temperature, maxConcurrency = "max_concurrency", maxTokens = "max_tokens",
            baseURL = "base_url", apiKeyEnv = "api_key_env", requestsPerMinute = "requests_per_minute",
            tokensPerMinute = "tokens_per_minute", maxRetries = "max_retries", seed, frequencyPenalty = "frequency_penalty", script,
            connectTimeoutSeconds = "connect_timeout_s", requestTimeoutSeconds = "request_timeout_s",
            idleTimeoutSeconds = "idle_timeout_s", stream
    }
}

/// Spending limits.
public struct BudgetSpec: Codable, Sendable, Hashable {
    /// Stop scheduling new model calls once this much has been spent (USD); nil: no limit.
    public var maxCostUSD: Double?

    enum CodingKeys: String, CodingKey { case maxCostUSD = "max_cost_usd" }
}

/// How invalid model output is handled.
public struct RepairSpec: Codable, Sendable, Hashable {
    /// Asks per item, the first included: 1 + repairs.
    public var maxAttempts: Int

    enum CodingKeys: String, CodingKey { case maxAttempts = "max_attempts" }
}

/// Blind solving: each multiple-choice answer is put, without its key and feedback and with its
/// options in another order, to a solver — the job's model, or `model` on the same provider — and
/// an answer the solver does not key the same way is asked again; after the last attempt the item
/// fails (`disputed: fail`, the default) or is kept with a warning (`disputed: warn`).
///
/// `rubric`: each answer put to the blind solver is also judged by a reviewing model against a
/// fixed rubric (`RubricJudge`, docs/spec.md); a criterion it finds broken, quoting the item, is
/// repaired like any check. Off by default: measured on the labelled set, the local 1.5B model's
/// verdicts refuse half of the clean items and a tenth of the defective ones (docs/BENCHMARKS.md, "The rubric judge on the local model").
public struct ReviewSpec: Codable, Sendable, Hashable {
    /// What a run does with an item whose key the solver still disputes, or whose rubric verdict
    /// is still broken, after its last attempt.
    public enum Disputed: String, Codable, Sendable, Hashable, CaseIterable {
        /// The item fails like any item still refused (exit 1, listed with the solver's pick).
        case fail
        /// The item is kept, with a warning in the run's summary and quality.json.
        case warn
    }

    public var blindSolve: Bool
    /// The solver's model name; nil: the job's model.
    public var model: String?
    public var rubric: Bool
    public var disputed: Disputed
    /// Each option of each solved question judged on its own by the reviewing model (`OptionJudge`).
    public var judgeOptions: Bool

    public init(blindSolve: Bool = true, model: String? = nil, rubric: Bool = false, disputed: Disputed = .fail, judgeOptions: Bool = false) {
        self.blindSolve = blindSolve
        self.model = model
        self.rubric = rubric
        self.disputed = disputed
        self.judgeOptions = judgeOptions
    }

    enum CodingKeys: String, CodingKey {
        case blindSolve = "blind_solve"
        case model
        case rubric
        case disputed
        case judgeOptions = "judge_options"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        blindSolve = try c.decode(Bool.self, forKey: .blindSolve)
        model = try c.decodeIfPresent(String.self, forKey: .model)
        rubric = try c.decodeIfPresent(Bool.self, forKey: .rubric) ?? false
        disputed = try c.decodeIfPresent(Disputed.self, forKey: .disputed) ?? .fail
        judgeOptions = try c.decodeIfPresent(Bool.self, forKey: .judgeOptions) ?? false
    }

    /// `rubric`, `disputed` and `judge_options` only when not their defaults, so that the hashes
    /// of specs written before they existed stand.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(blindSolve, forKey: .blindSolve)
        try c.encodeIfPresent(model, forKey: .model)
        if rubric { try c.encode(rubric, forKey: .rubric) }
        if disputed != .fail { try c.encode(disputed, forKey: .disputed) }
        if judgeOptions { try c.encode(judgeOptions, forKey: .judgeOptions) }
    }
}

/// An inclusive size range from the spec.
public struct SizeRange: Codable, Sendable, Hashable, CustomStringConvertible {
    public var min: Int
    public var max: Int

    public init(min: Int, max: Int) {
        self.min = min
        self.max = max
    }

    public var description: String { min == max ? "\(min)" : "\(min)–\(max)" }
}

public struct ToneSpec: Codable, Sendable, Hashable {
    /// Tone presets (pipelines/presets/tone/<name>.yaml), combinable.
    public var presets: [String]
    /// Free-text tone, combined with the presets.
    public var text: String?

    public init(presets: [String] = [], text: String? = nil) {
        self.presets = presets
        self.text = text
    }
}
