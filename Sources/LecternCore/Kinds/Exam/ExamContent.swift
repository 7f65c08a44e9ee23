import Foundation

/// An exam item bank as it is written to `exam.json` (docs/schemas/exam.schema.json): Tafawoq's
/// exam and practice questions (seed 003, FR-026–FR-046), Jeeva's practice questions and mock
/// exams (seed 001, §4.1–4.2).
public struct ExamBank: Codable, Sendable, Hashable {
    public static let formatVersion = 1

    public var formatVersion: Int = ExamBank.formatVersion
    public var id: String
    public var version: String
    public var language: String
    public var title: String
    public var description: String
    public var audience: String
    public var sections: [ExamBankSection]
    public var passages: [Passage]
    public var items: [ExamItem]
    public var forms: [ExamForm]
    /// Where each corpus document came from, by document id.
    public var documents: [CorpusDocumentInfo]

    public init(
        id: String, version: String, language: String, title: String, description: String, audience: String, sections: [ExamBankSection],
        passages: [Passage], items: [ExamItem], forms: [ExamForm], documents: [CorpusDocumentInfo]
    ) {
        self.id = id; self.version = version; self.language = language; self.title = title; self.description = description
        self.audience = audience; self.sections = sections; self.passages = passages; self.items = items; self.forms = forms
        self.documents = documents
    }

    enum CodingKeys: String, CodingKey {
        case formatVersion = "format_version", id, version, language, title, description, audience, sections, passages, items, forms,
            documents
    }
}

/// A section and its categories as the app lists them (ids and display titles).
public struct ExamBankSection: Codable, Sendable, Hashable {
    public var id: String
    public var title: String
    public var categories: [ExamBankCategory]

    public init(id: String, title: String, categories: [ExamBankCategory]) {
        self.id = id; self.title = title; self.categories = categories
    }
}

public struct ExamBankCategory: Codable, Sendable, Hashable {
    public var id: String
    public var title: String
    /// The item format (`standard`, `fact`, `vocabulary`, `completion`, `wrong-word`, `reading`):
    /// how the app may show its items (a completion stem has a blank) and what `lectern check`
    /// holds them to. `standard` when a bank leaves it out.
    public var format: ExamCategory.Format

    public init(id: String, title: String, format: ExamCategory.Format = .standard) {
        self.id = id; self.title = title; self.format = format
    }

    enum CodingKeys: String, CodingKey { case id, title, format }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        title = try c.decode(String.self, forKey: .title)
        format = try c.decodeIfPresent(ExamCategory.Format.self, forKey: .format) ?? .standard
    }
}

/// One exam item.
public struct ExamItem: Codable, Sendable, Hashable {
    /// `verbal/analogies/medium-03`, or `verbal/reading-comprehension/p02-q1`.
    public var id: String
    public var section: String
    public var category: String
    public var difficulty: Difficulty
    /// The label shown to the learner (سهل / متوسط / صعب in Arabic).
    public var difficultyLabel: String
    public var prompt: String
    public var promptXHTML: String?
    public var options: [Choice]
    /// The solving technique.
    public var explanation: String
    /// Recommended seconds for this item.
    public var seconds: Int
    /// Verbatim spans of the corpus that support the key.
    public var sources: [SourceQuote]
    /// The passage id, for reading comprehension.
    public var passage: String?
    /// A quantitative item's solution, from which its key was computed.
    public var solution: ItemSolution?
    /// A geometry item's figure.
    public var figure: ItemFigure?
    public var generation: GenerationInfo

    public init(
        id: String, section: String, category: String, difficulty: Difficulty, difficultyLabel: String, prompt: String, promptXHTML: String? = nil,
        options: [Choice], explanation: String, seconds: Int, sources: [SourceQuote], passage: String?, solution: ItemSolution? = nil,
        figure: ItemFigure? = nil, generation: GenerationInfo
    ) {
        self.id = id; self.section = section; self.category = category; self.difficulty = difficulty
        self.difficultyLabel = difficultyLabel; self.prompt = prompt; self.promptXHTML = promptXHTML; self.options = options
        self.explanation = explanation; self.seconds = seconds; self.sources = sources; self.passage = passage
        self.solution = solution; self.figure = figure; self.generation = generation
    }

    enum CodingKeys: String, CodingKey {
        case id, section, category, difficulty, difficultyLabel = "difficulty_label", prompt, promptXHTML = "prompt_xhtml", options,
            explanation, seconds, sources, passage, solution, figure, generation
    }
}

/// How a quantitative item's key was computed: the model's expression and its exact value.
public struct ItemSolution: Codable, Sendable, Hashable {
    /// In the solution syntax (docs/spec.md): `(180 - 175) / 8`, `2 * sqrt(3)`, `pi * 3^2`.
    public var expression: String
    /// The exact value Lectern computed, as a reader writes it: `5/8`, `2√3`, `9π`.
    public var value: String

    public init(expression: String, value: String) {
        self.expression = expression; self.value = value
    }
}

/// A geometry item's figure: the SVG Lectern drew (`figures/<item>.svg` in the bundle), its alt
/// text (Tafawoq FR-032), and the figure data it was drawn from.
public struct ItemFigure: Codable, Sendable, Hashable {
    /// Bundle-relative path of the SVG.
    public var path: String
    /// A description from which the question can be answered without seeing the figure; it names
    /// every label drawn.
    public var alt: String
    public var geometry: GeometryFigure

    public init(path: String, alt: String, geometry: GeometryFigure) {
        self.path = path; self.alt = alt; self.geometry = geometry
    }

    /// `figures/<item id with / as ->.svg`.
    public static func path(forItem id: String) -> String {
        "figures/" + id.replacingOccurrences(of: "/", with: "-") + ".svg"
    }
}

/// A verbatim span of a corpus document.
public struct SourceQuote: Codable, Sendable, Hashable {
    /// The document id: its path relative to the spec.
    public var document: String
    public var quote: String

    public init(document: String, quote: String) {
        self.document = document; self.quote = quote
    }
}

/// How an item was made.
public struct GenerationInfo: Codable, Sendable, Hashable {
    /// Asks it took, the first included (0: not asked, e.g. cached across versions).
    public var attempts: Int
    public var model: String
    /// The prompt template's name and version, e.g. `exam-item@1`.
    public var prompt: String

    public init(attempts: Int, model: String, prompt: String) {
        self.attempts = attempts; self.model = model; self.prompt = prompt
    }
}

/// A reading-comprehension passage, stored once and referenced by its items.
public struct Passage: Codable, Sendable, Hashable {
    /// `p01` …
    public var id: String
    public var section: String
    public var category: String
    public var text: String
    /// The corpus document it was taken from.
    public var document: String
    /// Bundle-relative path of its XHTML rendition.
    public var xhtmlPath: String?

    public init(id: String, section: String, category: String, text: String, document: String, xhtmlPath: String? = nil) {
        self.id = id; self.section = section; self.category = category; self.text = text; self.document = document
        self.xhtmlPath = xhtmlPath
    }

    enum CodingKeys: String, CodingKey { case id, section, category, text, document, xhtmlPath = "xhtml_path" }
}

/// A full exam assembled from the bank.
public struct ExamForm: Codable, Sendable, Hashable {
    public var id: String
    public var title: String
    public var durationMinutes: Int
    public var sections: [ExamFormSection]
    public var xhtmlPath: String?

    public init(id: String, title: String, durationMinutes: Int, sections: [ExamFormSection], xhtmlPath: String? = nil) {
        self.id = id; self.title = title; self.durationMinutes = durationMinutes; self.sections = sections; self.xhtmlPath = xhtmlPath
    }

    enum CodingKeys: String, CodingKey { case id, title, durationMinutes = "duration_minutes", sections, xhtmlPath = "xhtml_path" }
}

public struct ExamFormSection: Codable, Sendable, Hashable {
    public var section: String
    public var title: String
    /// Item ids in the order presented.
    public var items: [String]

    public init(section: String, title: String, items: [String]) {
        self.section = section; self.title = title; self.items = items
    }
}

/// A corpus document's provenance in the bank.
public struct CorpusDocumentInfo: Codable, Sendable, Hashable {
    public var id: String
    /// SHA-256 of its text as read.
    public var sha256: String
    public var characters: Int

    public init(id: String, sha256: String, characters: Int) {
        self.id = id; self.sha256 = sha256; self.characters = characters
    }
}
