import Foundation

/// The `course` job.
public struct CourseSpec: Codable, Sendable, Hashable {
    public var curriculum: CurriculumSpec
    /// A pinned outline: when present, no curriculum is generated.
    public var outline: Outline?
    public var addons: Addons
    /// How narration is spoken (with `addons.narration`).
    public var speech: SpeechSpec

    public init(curriculum: CurriculumSpec, outline: Outline?, addons: Addons, speech: SpeechSpec = SpeechSpec()) {
        self.curriculum = curriculum
        self.outline = outline
        self.addons = addons
        self.speech = speech
    }
}

/// The `speech` mapping: the speech provider behind the `narration` add-on.
public struct SpeechSpec: Codable, Sendable, Hashable {
    public enum Provider: String, Codable, Sendable, CaseIterable {
        /// espeak-ng (Debian's `espeak-ng`), local and keyless: the default.
        case espeak = "espeak-ng"
        /// An OpenAI-compatible `/v1/audio/speech` endpoint; the key is read from
        /// `LECTERN_SPEECH_API_KEY` (else `OPENAI_API_KEY`).
        case openai
    }

    public var provider: Provider
    /// The provider's voice; nil uses the language's default (espeak-ng `en-us` or `ar`; OpenAI `alloy`).
    public var voice: String?
    /// The speech model (OpenAI: `tts-1`).
    public var model: String?
    public var baseURL: URL?
    /// Ogg Opus bit rate in kbit/s (speech is clear from 16).
    public var bitrate: Int

    public init(provider: Provider = .espeak, voice: String? = nil, model: String? = nil, baseURL: URL? = nil, bitrate: Int = 24) {
        self.provider = provider
        self.voice = voice
        self.model = model
        self.baseURL = baseURL
        self.bitrate = bitrate
    }

    enum CodingKeys: String, CodingKey { case provider, voice, model, baseURL = "base_url", bitrate }
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
