import Foundation

/// The `course` job.
public struct CourseSpec: Codable, Sendable, Hashable {
    public var curriculum: CurriculumSpec
    /// A pinned outline: when present, no curriculum is generated.
    public var outline: Outline?
    public var addons: Addons

    public init(curriculum: CurriculumSpec, outline: Outline?, addons: Addons) {
        self.curriculum = curriculum
        self.outline = outline
        self.addons = addons
    }
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
