import Foundation

/// How hard an item is. Arabic output labels them سهل / متوسط / صعب (Tafawoq FR-030, FR-041).
public enum Difficulty: String, Codable, Sendable, Hashable, CaseIterable, Comparable {
    case easy, medium, hard

    public static func < (a: Difficulty, b: Difficulty) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// The label a learner sees in `language`.
    public func label(language: String) -> String {
        if LanguageProfile.isArabic(language) {
            switch self {
            case .easy: return "سهل"
            case .medium: return "متوسط"
            case .hard: return "صعب"
            }
        }
        return rawValue
    }
}

/// The `exam` job: an item bank grounded in a corpus, laid out by a blueprint, and the full
/// exams (forms) assembled from it.
public struct ExamSpec: Codable, Sendable, Hashable {
    /// The bank's title; nil: made from the spec's id.
    public var title: String?
    /// Where the source material is: files or directories of Markdown or plain text, or course
    /// bundles. Paths are relative to the spec's directory.
    public var corpus: [CorpusSource]
    /// The exam preset the blueprint's sections and categories come from, if any.
    public var preset: String?
    /// Sections → categories → counts per difficulty, in the order the exam presents them.
    public var sections: [ExamSection]
    /// Options per multiple-choice item (2–6; default 4).
    public var optionCount: Int
    /// Full exams assembled from the bank.
    public var forms: [ExamFormSpec]
    /// The digits quantitative items are written in; nil: the language's (`DigitSystem.default`).
    public var digits: DigitSystem?

    public init(
        title: String? = nil, corpus: [CorpusSource], preset: String?, sections: [ExamSection], optionCount: Int, forms: [ExamFormSpec],
        digits: DigitSystem? = nil
    ) {
        self.title = title
        self.corpus = corpus
        self.preset = preset
        self.sections = sections
        self.optionCount = optionCount
        self.forms = forms
        self.digits = digits
    }

    enum CodingKeys: String, CodingKey {
        case title, corpus, preset, sections, optionCount = "option_count", forms, digits
    }

    /// Every category with its section, in exam order.
    public var cells: [(section: ExamSection, category: ExamCategory)] {
        sections.flatMap { section in section.categories.map { (section, $0) } }
    }

    /// Items the blueprint asks for.
    public var itemCount: Int { sections.reduce(0) { $0 + $1.categories.reduce(0) { $0 + $1.counts.total } } }
}

/// How numbers are written in an exam's quantitative items: one system throughout. The model may
/// write either; Lectern reads both and writes the exam's.
public enum DigitSystem: String, Codable, Sendable, Hashable, CaseIterable {
    /// 0–9, with `.` as the decimal point.
    case western
    /// Arabic-Indic ٠–٩, with ٫ as the decimal separator and ٬ between thousands.
    case eastern

    /// The language profile's digits: eastern for Arabic (as the Arabic aptitude tests print
    /// them), western otherwise.
    public static func `default`(language: String) -> DigitSystem {
        LanguageProfile.for(language)?.digits ?? .western
    }

    /// `text` with every digit in this system, and the decimal and thousands separators between
    /// digits with it.
    public func apply(to text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        func digit(_ index: Int) -> Bool {
            guard scalars.indices.contains(index) else { return false }
            return ArithmeticLexer.digitValue(scalars[index]) != nil
        }
        var out = String.UnicodeScalarView()
        for (index, c) in scalars.enumerated() {
            if let value = ArithmeticLexer.digitValue(c) {
                out.append(Unicode.Scalar((self == .eastern ? 0x660 : 0x30) + UInt32(value))!)
                continue
            }
            let between = digit(index - 1) && digit(index + 1)
            switch (self, c) {
            case (.eastern, "."), (.western, "\u{066B}"):
                out.append(between ? (self == .eastern ? "\u{066B}" : ".") : c)
            case (.eastern, ","), (.western, "\u{066C}"):
                // A thousands separator: three digits after it and no fourth.
                let group = digit(index + 1) && digit(index + 2) && digit(index + 3) && !digit(index + 4)
                out.append(between && group ? (self == .eastern ? "\u{066C}" : ",") : c)
            default:
                out.append(c)
            }
        }
        return String(out)
    }
}

/// One entry of `corpus:`. `sections` / `categories` limit what it may ground (nil: everything).
public struct CorpusSource: Codable, Sendable, Hashable {
    /// As written in the spec, relative to the spec's directory.
    public var path: String
    public var sections: [String]?
    public var categories: [String]?

    public init(path: String, sections: [String]? = nil, categories: [String]? = nil) {
        self.path = path
        self.sections = sections
        self.categories = categories
    }

    /// Whether this source may ground items of `category` in `section`.
    public func serves(section: String, category: String) -> Bool {
        (sections?.contains(section) ?? true) && (categories?.contains(category) ?? true)
    }
}

/// A section of the exam (Tafawoq: Verbal, Quantitative), scored on its own.
public struct ExamSection: Codable, Sendable, Hashable {
    /// Slug, e.g. `verbal`.
    public var id: String
    /// As the learner sees it, in the content's language.
    public var title: String
    public var categories: [ExamCategory]

    public init(id: String, title: String, categories: [ExamCategory]) {
        self.id = id
        self.title = title
        self.categories = categories
    }
}

/// A question category and how many items of it the bank holds.
public struct ExamCategory: Codable, Sendable, Hashable {
    public enum Format: String, Codable, Sendable, Hashable {
        /// One item per call, grounded in a chunk of the corpus.
        case standard
        /// Reading comprehension: a passage from the corpus and 2–5 items on it.
        case reading
        /// Sentence completion: a standard item whose stem is a sentence of the source text with
        /// one blank; the correct option fills it back to the source's words, and no wrong one does.
        case completion
        /// Contextual error: a standard item whose stem is a sentence of the source text with one
        /// word changed to one that contradicts it; the options are words of the stem, and the key
        /// is the changed word.
        case wrongWord = "wrong-word"
        /// A stated fact: a standard item whose correct option is what its source quote says (its
        /// content words and numbers are the quote's).
        case fact
        /// Vocabulary in context: a standard item asking what a word of its source quote, named in
        /// quotation marks in the stem, means there; the options are meanings, not the word.
        case vocabulary
        /// Verbal analogy: the stem gives a pair of words of its source quote written "A : B";
        /// every option is a pair "C : D", and the key has the same relation.
        case analogy
        /// A computed-key problem: with each item the model writes its solution as an expression
        /// (docs/spec.md, "Quantitative items"); Lectern evaluates it exactly, and the key must be
        /// the one option equal to it.
        case quantitative
        /// A quantitative item with a figure: the model describes the figure as data (points,
        /// segments, circles, marks, given lengths and angles) with alt text; Lectern checks it
        /// against itself and draws the SVG.
        case geometry

        /// Whether its key is computed from a solution expression.
        public var computesKey: Bool { self == .quantitative || self == .geometry }

        /// What the spec reader's hint lists.
        public static let described =
            "'standard', 'fact' (a stated fact), 'vocabulary' (a word in context), 'completion' (sentence completion), "
            + "'wrong-word' (contextual error), 'analogy' (a verbal analogy 'A : B'), 'reading' (reading comprehension), "
            + "'quantitative' (a computed key) or 'geometry' (a computed key and a figure)"
    }

    /// Slug, e.g. `analogies`.
    public var id: String
    public var title: String
    public var format: Format
    /// What an item of this category is, for the model (from the preset or the spec).
    public var instructions: String
    /// Recommended seconds per item, unless the model's item says otherwise.
    public var seconds: Int
    public var counts: DifficultyCounts
    /// For `reading`: questions per passage.
    public var questionsPerPassage: SizeRange?
    /// For `quantitative` and `geometry`: what the items are about, one per item in turn ("the
    /// area of a circle", "a negative exponent"), so that a cell's items differ. Nil: none given.
    public var topics: [String]?

    public init(
        id: String, title: String, format: Format, instructions: String, seconds: Int, counts: DifficultyCounts,
        questionsPerPassage: SizeRange? = nil, topics: [String]? = nil
    ) {
        self.topics = topics
        self.id = id
        self.title = title
        self.format = format
        self.instructions = instructions
        self.seconds = seconds
        self.counts = counts
        self.questionsPerPassage = questionsPerPassage
    }

    enum CodingKeys: String, CodingKey {
        case id, title, format, instructions, seconds, counts, questionsPerPassage = "questions_per_passage", topics
    }
}

/// Items per difficulty in one blueprint cell.
public struct DifficultyCounts: Codable, Sendable, Hashable {
    public var easy: Int
    public var medium: Int
    public var hard: Int

    public init(easy: Int = 0, medium: Int = 0, hard: Int = 0) {
        self.easy = easy
        self.medium = medium
        self.hard = hard
    }

    public var total: Int { easy + medium + hard }

    public subscript(_ difficulty: Difficulty) -> Int {
        switch difficulty {
        case .easy: easy
        case .medium: medium
        case .hard: hard
        }
    }

    /// The difficulties in order, one per item: easy ones first.
    public var sequence: [Difficulty] {
        Difficulty.allCases.flatMap { Array(repeating: $0, count: self[$0]) }
    }
}

/// A full exam assembled from the bank: Tafawoq FR-026/FR-036, Jeeva §4.2 mock exams.
public struct ExamFormSpec: Codable, Sendable, Hashable {
    public var id: String
    public var title: String
    public var durationMinutes: Int
    public var sections: [FormSectionSpec]

    public init(id: String, title: String, durationMinutes: Int, sections: [FormSectionSpec]) {
        self.id = id
        self.title = title
        self.durationMinutes = durationMinutes
        self.sections = sections
    }

    enum CodingKeys: String, CodingKey { case id, title, durationMinutes = "duration_minutes", sections }
}

/// How many items of one section a form takes.
public struct FormSectionSpec: Codable, Sendable, Hashable {
    public var section: String
    public var count: Int

    public init(section: String, count: Int) {
        self.section = section
        self.count = count
    }
}
