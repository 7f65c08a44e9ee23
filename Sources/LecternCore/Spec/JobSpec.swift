import Foundation

/// The job kinds Lectern knows. Only `course` runs in this version; the others are reserved so
/// that a spec naming them gets a clear "not yet" instead of "unknown".
public enum JobKind: String, Codable, Sendable, CaseIterable {
    case course, exam, quotes, flashcards

    public static let supported: [JobKind] = [.course]
}

/// A job spec, decoded and checked. Everything here enters the spec hash; nothing here is a secret
/// (API keys are named by environment variable, never written in specs).
public struct JobSpec: Codable, Sendable, Hashable {
    public var kind: JobKind
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
    public var model: ModelSpec
    public var budget: BudgetSpec
    public var repair: RepairSpec
    /// The kind-specific part.
    public var course: CourseSpec?

    /// SHA-256 of the canonical JSON of this spec: the same job gives the same hash, whatever its
    /// comments, key order or YAML style.
    public var hash: String {
        (try? CanonicalJSON.encode(self)).map(SHA256Digest.hex) ?? ""
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
        case .openai: "api.openai.com"
        case .anthropic: "api.anthropic.com"
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

    public static let defaultLocalModel = "qwen2.5-coder-1.5b-instruct"

    /// Whether answers are streamed, with the default applied.
    public var streams: Bool { stream ?? provider.isRemote }

    enum CodingKeys: String, CodingKey {
        case provider, name, temperature, maxConcurrency = "max_concurrency", maxTokens = "max_tokens",
            baseURL = "base_url", apiKeyEnv = "api_key_env", requestsPerMinute = "requests_per_minute",
            tokensPerMinute = "tokens_per_minute", maxRetries = "max_retries", seed, script,
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

/// The `course` job.
public struct CourseSpec: Codable, Sendable, Hashable {
    public var curriculum: CurriculumSpec
    /// A pinned outline: when present, no curriculum is generated.
    public var outline: Outline?
    public var tone: ToneSpec
    public var addons: Addons
}

public struct CurriculumSpec: Codable, Sendable, Hashable {
    /// Curriculum presets (pipelines/presets/curriculum/<name>.yaml), applied together.
    public var presets: [String]
    public var subjects: SizeRange
    public var topicsPerSubject: SizeRange
    /// AI-assisted edit instructions, applied in order after generation.
    public var edits: [String]

    enum CodingKeys: String, CodingKey {
        case presets, subjects, topicsPerSubject = "topics_per_subject", edits
    }
}

public struct ToneSpec: Codable, Sendable, Hashable {
    /// Tone presets (pipelines/presets/tone/<name>.yaml), combinable.
    public var presets: [String]
    /// Free-text tone, combined with the presets.
    public var text: String?
}

/// Optional products (Learnable FR-008 step 3 and its defaults).
public struct Addons: Codable, Sendable, Hashable {
    public var engagementQuestions: Bool
    public var endingProjects: Bool
    public var narration: Bool
    public var reinforcement: Bool
    public var flashcards: Bool

    public static let defaults = Addons(engagementQuestions: true, endingProjects: true, narration: false, reinforcement: false, flashcards: false)

    enum CodingKeys: String, CodingKey {
        case engagementQuestions = "engagement_questions", endingProjects = "ending_projects", narration,
            reinforcement, flashcards
    }
}

/// A curriculum outline: title → subjects → topics. Pinned in a spec, or generated.
public struct Outline: Codable, Sendable, Hashable {
    public var title: String
    public var subjects: [OutlineSubject]

    public init(title: String, subjects: [OutlineSubject]) {
        self.title = title
        self.subjects = subjects
    }
}

public struct OutlineSubject: Codable, Sendable, Hashable {
    public var title: String
    public var topics: [OutlineTopic]

    public init(title: String, topics: [OutlineTopic]) {
        self.title = title
        self.topics = topics
    }
}

public struct OutlineTopic: Codable, Sendable, Hashable {
    public var title: String
    /// One line: what the learner can do after this topic.
    public var objective: String?

    public init(title: String, objective: String? = nil) {
        self.title = title
        self.objective = objective
    }
}
