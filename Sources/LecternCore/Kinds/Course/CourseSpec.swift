import Foundation

/// The `course` job.
public struct CourseSpec: Codable, Sendable, Hashable {
    public var curriculum: CurriculumSpec
    /// A pinned outline: when present, no curriculum is generated.
    public var outline: Outline?
    public var addons: Addons
    /// How narration is spoken (with `addons.narration`).
    public var speech: SpeechSpec
    /// Cards per topic (with `addons.flashcards`).
    public var flashcards: FlashcardsSpec
    /// The practice sets (with `addons.practice`).
    public var practice: PracticeSpec

    public init(
        curriculum: CurriculumSpec, outline: Outline?, addons: Addons, speech: SpeechSpec = SpeechSpec(), flashcards: FlashcardsSpec = FlashcardsSpec(),
        practice: PracticeSpec = PracticeSpec()
    ) {
        self.curriculum = curriculum
        self.outline = outline
        self.addons = addons
        self.speech = speech
        self.flashcards = flashcards
        self.practice = practice
    }

    enum CodingKeys: String, CodingKey { case curriculum, outline, addons, speech, flashcards, practice }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        curriculum = try c.decode(CurriculumSpec.self, forKey: .curriculum)
        outline = try c.decodeIfPresent(Outline.self, forKey: .outline)
        addons = try c.decode(Addons.self, forKey: .addons)
        speech = try c.decode(SpeechSpec.self, forKey: .speech)
        flashcards = try c.decodeIfPresent(FlashcardsSpec.self, forKey: .flashcards) ?? FlashcardsSpec()
        practice = try c.decodeIfPresent(PracticeSpec.self, forKey: .practice) ?? PracticeSpec()
    }

    /// The settings of an add-on that is off are left out, so they do not enter the spec hash
    /// (a course without flashcards hashes as it did before they existed).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(curriculum, forKey: .curriculum)
        try c.encodeIfPresent(outline, forKey: .outline)
        try c.encode(addons, forKey: .addons)
        try c.encode(speech, forKey: .speech)
        if addons.flashcards { try c.encode(flashcards, forKey: .flashcards) }
        if addons.practice { try c.encode(practice, forKey: .practice) }
    }
}

/// The `flashcards` mapping: how many cards each topic gets.
public struct FlashcardsSpec: Codable, Sendable, Hashable {
    public static let perTopicRange = 5...15
    /// Cards per topic (5–15): about half terms, a quarter questions, a quarter clozes.
    public var perTopic: Int

    public init(perTopic: Int = 8) { self.perTopic = perTopic }

    /// How many cards of each kind a topic gets: at least one question and one cloze, a quarter
    /// of the cards each, the rest terms.
    public var kindCounts: (terms: Int, questions: Int, clozes: Int) {
        let questions = max(1, perTopic / 4)
        let clozes = max(1, perTopic / 4)
        return (perTopic - questions - clozes, questions, clozes)
    }

    /// What a topic's call asks for: one spare of each kind, so one weak card does not cost the
    /// whole answer.
    public var askedCounts: (terms: Int, questions: Int, clozes: Int) {
        let need = kindCounts
        return (need.terms + 1, need.questions + 1, need.clozes + 1)
    }

    enum CodingKeys: String, CodingKey { case perTopic = "per_topic" }
}

/// The `practice` mapping: the size, difficulty mix and formats of each topic's practice set.
public struct PracticeSpec: Codable, Sendable, Hashable {
    public static let perTopicRange = 1...30
    /// Questions per topic.
    public var perTopic: Int
    /// Relative weights of easy, medium and hard questions.
    public var mix: [PracticeQuestion.Difficulty: Int]
    /// The formats in the order they repeat through a set.
    public var formats: [PracticeQuestion.Format]

    public init(
        perTopic: Int = 10, mix: [PracticeQuestion.Difficulty: Int] = [.easy: 3, .medium: 4, .hard: 3],
        formats: [PracticeQuestion.Format] = [.multipleChoice, .multipleChoice, .trueFalse]
    ) {
        self.perTopic = perTopic
        self.mix = mix
        self.formats = formats
    }

    /// The difficulty of each question of a set, easy first: the mix's weights turned into
    /// counts by largest remainder (ties to the easier), so 10 questions at 3:4:3 are 3, 4 and 3.
    public var difficulties: [PracticeQuestion.Difficulty] {
        let levels = PracticeQuestion.Difficulty.allCases
        let weights = levels.map { max(0, mix[$0] ?? 0) }
        let total = weights.reduce(0, +)
        guard total > 0 else { return Array(repeating: .medium, count: perTopic) }
        var counts = weights.map { $0 * perTopic / total }
        let remainders = weights.map { $0 * perTopic % total }
        var left = perTopic - counts.reduce(0, +)
        for index in levels.indices.sorted(by: { (remainders[$0], -$0) > (remainders[$1], -$1) }) where left > 0 {
            counts[index] += 1
            left -= 1
        }
        return zip(levels, counts).flatMap { Array(repeating: $0, count: $1) }
    }

    /// The format of question `index` (from 0).
    public func format(at index: Int) -> PracticeQuestion.Format {
        formats.isEmpty ? .multipleChoice : formats[index % formats.count]
    }

    enum CodingKeys: String, CodingKey { case perTopic = "per_topic", mix = "difficulty", formats }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        perTopic = try c.decode(Int.self, forKey: .perTopic)
        let raw = try c.decode([String: Int].self, forKey: .mix)
        mix = Dictionary(uniqueKeysWithValues: raw.compactMap { key, value in PracticeQuestion.Difficulty(rawValue: key).map { ($0, value) } })
        formats = try c.decode([PracticeQuestion.Format].self, forKey: .formats)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(perTopic, forKey: .perTopic)
        try c.encode(Dictionary(uniqueKeysWithValues: mix.map { ($0.key.rawValue, $0.value) }), forKey: .mix)
        try c.encode(formats, forKey: .formats)
    }
}

/// The `speech` mapping: the speech provider behind the `narration` add-on.
public struct SpeechSpec: Codable, Sendable, Hashable {
    public enum Provider: String, Codable, Sendable, CaseIterable {
        /// espeak-ng (Debian's `espeak-ng`), local and keyless: the default.
        case espeak = "espeak-ng"
        /// An OpenAI-compatible `/v1/audio/speech` endpoint; at OpenAI's own host the key is read
        /// from `LECTERN_SPEECH_API_KEY` (else `OPENAI_API_KEY`), elsewhere only from the variable
        /// `speech.api_key_env` names.
        case openai
    }

    public var provider: Provider
    /// The provider's voice; nil uses the language's default (espeak-ng `en-us` or `ar`; OpenAI `alloy`).
    public var voice: String?
    /// The speech model (OpenAI: `tts-1`).
    public var model: String?
    public var baseURL: URL?
    /// The environment variable holding the key for a custom `base_url` (`speech.api_key_env`);
    /// the default variables go only to OpenAI's own host.
    public var apiKeyEnv: String?
    /// Ogg Opus bit rate in kbit/s (speech is clear from 16).
    public var bitrate: Int

    public init(
        provider: Provider = .espeak, voice: String? = nil, model: String? = nil, baseURL: URL? = nil, apiKeyEnv: String? = nil, bitrate: Int = 24
    ) {
        self.provider = provider
        self.voice = voice
        self.model = model
        self.baseURL = baseURL
        self.apiKeyEnv = apiKeyEnv
        self.bitrate = bitrate
    }

    enum CodingKeys: String, CodingKey { case provider, voice, model, baseURL = "base_url", apiKeyEnv = "api_key_env", bitrate }
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
    /// A practice set per topic (Jeeva §4.1).
    public var practice: Bool

    public static let defaults = Addons(
        engagementQuestions: true, endingProjects: true, narration: false, reinforcement: false, flashcards: false, practice: false)

    public init(engagementQuestions: Bool, endingProjects: Bool, narration: Bool, reinforcement: Bool, flashcards: Bool, practice: Bool = false) {
        self.engagementQuestions = engagementQuestions
        self.endingProjects = endingProjects
        self.narration = narration
        self.reinforcement = reinforcement
        self.flashcards = flashcards
        self.practice = practice
    }

    enum CodingKeys: String, CodingKey {
        case engagementQuestions = "engagement_questions", endingProjects = "ending_projects", narration,
            reinforcement, flashcards, practice
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            engagementQuestions: try c.decode(Bool.self, forKey: .engagementQuestions), endingProjects: try c.decode(Bool.self, forKey: .endingProjects),
            narration: try c.decode(Bool.self, forKey: .narration), reinforcement: try c.decode(Bool.self, forKey: .reinforcement),
            flashcards: try c.decode(Bool.self, forKey: .flashcards), practice: try c.decodeIfPresent(Bool.self, forKey: .practice) ?? false)
    }

    /// `practice` only when on, so specs without it hash as before it existed.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(engagementQuestions, forKey: .engagementQuestions)
        try c.encode(endingProjects, forKey: .endingProjects)
        try c.encode(narration, forKey: .narration)
        try c.encode(reinforcement, forKey: .reinforcement)
        try c.encode(flashcards, forKey: .flashcards)
        if practice { try c.encode(practice, forKey: .practice) }
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
