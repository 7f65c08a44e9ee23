import Foundation

/// A generated course as it is written to `course.json`: what Learnable's lecture scene,
/// engagement questions and reinforcement system display (seed 000, FR-003/004/008/009).
public struct Course: Codable, Sendable, Hashable {
    public init(
        id: String, version: String, language: String, title: String, description: String, audience: String, tone: Tone, subjects: [Subject],
        tonePreview: TonePreview?
    ) {
        self.id = id; self.version = version; self.language = language; self.title = title; self.description = description
        self.audience = audience; self.tone = tone; self.subjects = subjects; self.tonePreview = tonePreview
    }

    public static let formatVersion = 1

    public var formatVersion: Int = Course.formatVersion
    public var id: String
    public var version: String
    public var language: String
    public var title: String
    public var description: String
    public var audience: String
    public var tone: Tone
    public var subjects: [Subject]
    /// A short sample of the tone on one topic (FR-008 step 2).
    public var tonePreview: TonePreview?
    /// The sum of the subjects' `duration_seconds`.
    public var durationSeconds: Int?

    enum CodingKeys: String, CodingKey {
        case formatVersion = "format_version", id, version, language, title, description, audience, tone, subjects,
            tonePreview = "tone_preview", durationSeconds = "duration_seconds"
    }
}

/// The tone of delivery: presets and free text combined into one instruction.
public struct Tone: Codable, Sendable, Hashable {
    public init(presets: [String], text: String?, instruction: String) {
        self.presets = presets; self.text = text; self.instruction = instruction
    }

    public var presets: [String]
    public var text: String?
    /// The instruction every content prompt carries.
    public var instruction: String
}

public struct TonePreview: Codable, Sendable, Hashable {
    public init(topicID: String, markdown: String, path: String, xhtmlPath: String?) {
        self.topicID = topicID; self.markdown = markdown; self.path = path; self.xhtmlPath = xhtmlPath
    }

    public var topicID: String
    public var markdown: String
    /// Bundle-relative paths of the preview files.
    public var path: String
    public var xhtmlPath: String?

    enum CodingKeys: String, CodingKey { case topicID = "topic_id", markdown, path, xhtmlPath = "xhtml_path" }
}

public struct Subject: Codable, Sendable, Hashable {
    public init(id: String, title: String, topics: [Topic], project: EndingProject?) {
        self.id = id; self.title = title; self.topics = topics; self.project = project
    }

    /// `s01`, `s02` …
    public var id: String
    public var title: String
    public var topics: [Topic]
    /// The ending project (FR-008 add-on), when generated.
    public var project: EndingProject?
    /// The sum of the subject's topics' `duration_seconds` (Jeeva §2.3); absent in bundles
    /// written before durations existed.
    public var durationSeconds: Int?

    enum CodingKeys: String, CodingKey { case id, title, topics, project, durationSeconds = "duration_seconds" }
}

public struct Topic: Codable, Sendable, Hashable {
    public init(id: String, title: String, objective: String) {
        self.id = id; self.title = title; self.objective = objective
    }

    /// `s01-t01` …: the subject and the topic's place in it.
    public var id: String
    public var title: String
    /// One line: what the learner can do after this topic.
    public var objective: String
    public var lecture: Lecture?
    public var engagementQuestion: Question?
    /// FR-004: "ask one additional question".
    public var bonusQuestion: Question?
    /// The reinforcement pool for this topic (FR-009), levels 1–4.
    public var reinforcement: [ReinforcementQuestion]?
    /// The topic's flashcards (the `flashcards` add-on), grounded in its lecture.
    public var flashcards: [Flashcard]?
    /// The topic's practice set (the `practice` add-on; Jeeva §4.1).
    public var practice: [PracticeQuestion]?
    /// How long the lesson takes (Jeeva §2.3 `duration`): the narration's length when narrated,
    /// else the lecture's reading time, plus the time its questions and practice set take.
    public var durationSeconds: Int?

    enum CodingKeys: String, CodingKey {
        case id, title, objective, lecture, engagementQuestion = "engagement_question", bonusQuestion = "bonus_question",
            reinforcement, flashcards, practice, durationSeconds = "duration_seconds"
    }
}

/// A flashcard (Jeeva §4.3, the flashcard app's cards): a term and its definition, a question and
/// its answer, or a cloze — a sentence of the lecture with a span blanked on the front.
public struct Flashcard: Codable, Sendable, Hashable {
    public enum Kind: String, Codable, Sendable, Hashable, CaseIterable {
        case term
        case question
        case cloze
    }

    /// `s01-t02-c03` in a course; `c001` … in a deck.
    public var id: String
    public var kind: Kind
    /// What the learner sees first (at most 120 characters); a cloze's front is its back with
    /// the blanked span shown as `____`.
    public var front: String
    /// The answer side (at most 300 characters); a cloze's back is the whole sentence.
    public var back: String
    /// A cloze's blanked span: it occurs once in `back`, as whole words.
    public var cloze: String?
    /// Spaced-repetition state a new learner starts from.
    public var review: Review

    public init(id: String, kind: Kind, front: String, back: String, cloze: String? = nil, review: Review = Review()) {
        self.id = id
        self.kind = kind
        self.front = front
        self.back = back
        self.cloze = cloze
        self.review = review
    }

    /// Jeeva's spaced repetition: mastery 0–5 picks the days to the next review from
    /// `intervals_days` (mastery 0 → 1 day … mastery 5 → 90 days).
    public struct Review: Codable, Sendable, Hashable {
        public static let intervals = [1, 3, 7, 14, 30, 90]
        public var mastery: Int
        public var intervalsDays: [Int]

        public init(mastery: Int = 0, intervalsDays: [Int] = Review.intervals) {
            self.mastery = mastery
            self.intervalsDays = intervalsDays
        }

        enum CodingKeys: String, CodingKey { case mastery, intervalsDays = "intervals_days" }
    }
}

/// A practice question (Jeeva §4.1 `Question`): multiple choice (four options) or true/false
/// (the options "True" and "False", in that order), a difficulty, feedback per option and an
/// explanation shown after the answer.
public struct PracticeQuestion: Codable, Sendable, Hashable {
    public enum Format: String, Codable, Sendable, Hashable, CaseIterable {
        case multipleChoice = "multiple_choice"
        case trueFalse = "true_false"
    }

    public enum Difficulty: String, Codable, Sendable, Hashable, CaseIterable {
        case easy, medium, hard
    }

    /// `s01-t02-p03`.
    public var id: String
    public var topicID: String
    public var format: Format
    public var difficulty: Difficulty
    public var prompt: String
    public var options: [Choice]
    public var explanation: String
    /// Rendition of `prompt` in XHTML, when rendered.
    public var promptXHTML: String?

    public init(id: String, topicID: String, format: Format, difficulty: Difficulty, prompt: String, options: [Choice], explanation: String) {
        self.id = id
        self.topicID = topicID
        self.format = format
        self.difficulty = difficulty
        self.prompt = prompt
        self.options = options
        self.explanation = explanation
    }

    enum CodingKeys: String, CodingKey {
        case id, topicID = "topic_id", format, difficulty, prompt, options, explanation, promptXHTML = "prompt_xhtml"
    }
}

public struct Lecture: Codable, Sendable, Hashable {
    public init(topicID: String, path: String, xhtmlPath: String?, wordCount: Int, readingMinutes: Int) {
        self.topicID = topicID; self.path = path; self.xhtmlPath = xhtmlPath; self.wordCount = wordCount; self.readingMinutes = readingMinutes
    }

    public var topicID: String
    /// Bundle-relative path of the Markdown file, e.g. `lectures/01-02-loops.md`.
    public var path: String
    /// Bundle-relative path of the XHTML rendition, when rendered.
    public var xhtmlPath: String?
    public var wordCount: Int
    /// Estimated reading time (Jeeva's lesson duration), at 200 words per minute.
    public var readingMinutes: Int
    /// The narration (the `narration` add-on), when made.
    public var audio: LectureAudio?

    enum CodingKeys: String, CodingKey {
        case topicID = "topic_id", path, xhtmlPath = "xhtml_path", wordCount = "word_count", readingMinutes = "reading_minutes", audio
    }
}

/// A lecture read aloud: an Ogg Opus file in `audio/`, its length measured from the file, and
/// where each section (the lecture's start, then each `#`/`##` heading) begins.
public struct LectureAudio: Codable, Sendable, Hashable {
    public struct Section: Codable, Sendable, Hashable {
        public var title: String
        public var startSeconds: Double

        public init(title: String, startSeconds: Double) {
            self.title = title
            self.startSeconds = startSeconds
        }

        enum CodingKeys: String, CodingKey { case title, startSeconds = "start_seconds" }
    }

    /// Bundle-relative, e.g. `audio/01-02-loops.opus`.
    public var path: String
    public var seconds: Double
    /// The speech provider and voice (`espeak-ng en-us`).
    public var voice: String
    public var sections: [Section]

    public init(path: String, seconds: Double, voice: String, sections: [Section]) {
        self.path = path
        self.seconds = seconds
        self.voice = voice
        self.sections = sections
    }
}

/// An engagement or bonus question: multiple choice (4 options, exactly one correct, feedback per
/// option) or free text (a reference answer); an explanation shown whatever the answer.
public struct Question: Codable, Sendable, Hashable {
    public enum Format: String, Codable, Sendable, Hashable {
        case multipleChoice = "multiple_choice"
        case freeText = "free_text"
    }

    public var topicID: String
    public var format: Format
    public var prompt: String
    public var options: [Choice]?
    public var referenceAnswer: String?
    public var explanation: String
    /// Renditions of `prompt` in XHTML, when rendered.
    public var promptXHTML: String?

    public init(topicID: String, format: Format, prompt: String, options: [Choice]?, referenceAnswer: String?, explanation: String) {
        self.topicID = topicID
        self.format = format
        self.prompt = prompt
        self.options = options
        self.referenceAnswer = referenceAnswer
        self.explanation = explanation
    }

    enum CodingKeys: String, CodingKey {
        case topicID = "topic_id", format, prompt, options, referenceAnswer = "reference_answer", explanation,
            promptXHTML = "prompt_xhtml"
    }
}

public struct Choice: Codable, Sendable, Hashable {
    public var text: String
    public var correct: Bool
    /// Shown when the learner picks this option.
    public var feedback: String

    public init(text: String, correct: Bool, feedback: String) {
        self.text = text
        self.correct = correct
        self.feedback = feedback
    }
}

/// A subject's ending project: harder than the engagement questions, hands-on.
public struct EndingProject: Codable, Sendable, Hashable {
    public init(subjectID: String, title: String, brief: String, requirements: [String], deliverables: [String], rubric: [RubricCriterion]) {
        self.subjectID = subjectID; self.title = title; self.brief = brief; self.requirements = requirements
        self.deliverables = deliverables; self.rubric = rubric
    }

    public var subjectID: String
    public var title: String
    public var brief: String
    public var requirements: [String]
    public var deliverables: [String]
    public var rubric: [RubricCriterion]

    enum CodingKeys: String, CodingKey { case subjectID = "subject_id", title, brief, requirements, deliverables, rubric }
}

public struct RubricCriterion: Codable, Sendable, Hashable {
    public init(criterion: String, points: Int, excellent: String) {
        self.criterion = criterion; self.points = points; self.excellent = excellent
    }

    public var criterion: String
    public var points: Int
    /// What full marks look like.
    public var excellent: String
}

/// A reinforcement-pool question (Learnable FR-009): its level decides difficulty, frequency,
/// format and occurrence; both renditions are given where the content allows, because the
/// optional quiz (FR-010) may show any question in either format.
public struct ReinforcementQuestion: Codable, Sendable, Hashable {
    public init(
        topicID: String, level: Int, difficulty: String, frequencyDays: SizeRange, occurrence: Int, format: Question.Format, prompt: String,
        options: [Choice]?, referenceAnswer: String?, explanation: String, jeevaDifficulty: String
    ) {
        self.topicID = topicID; self.level = level; self.difficulty = difficulty; self.frequencyDays = frequencyDays
        self.occurrence = occurrence; self.format = format; self.prompt = prompt; self.options = options
        self.referenceAnswer = referenceAnswer; self.explanation = explanation; self.jeevaDifficulty = jeevaDifficulty
    }

    public var topicID: String
    /// 1 basic, 2 intermediate, 3 advanced, 4 master.
    public var level: Int
    public var difficulty: String
    /// Days between appearances: 1–2, 3–4, 7–8, 14–15.
    public var frequencyDays: SizeRange
    /// Correct answers needed to advance: 7.
    public var occurrence: Int
    /// The level's presentation format.
    public var format: Question.Format
    public var prompt: String
    /// Multiple-choice rendition (levels 1–2 always; 3–4 where the content allows).
    public var options: [Choice]?
    /// Free-text rendition's reference answer, for self-assessment.
    public var referenceAnswer: String?
    public var explanation: String
    /// Jeeva's easy/medium/hard.
    public var jeevaDifficulty: String

    enum CodingKeys: String, CodingKey {
        case topicID = "topic_id", level, difficulty, frequencyDays = "frequency_days", occurrence, format, prompt, options,
            referenceAnswer = "reference_answer", explanation, jeevaDifficulty = "jeeva_difficulty"
    }

    /// FR-009's level attributes.
    public static func attributes(level: Int) -> (difficulty: String, frequency: SizeRange, format: Question.Format, jeeva: String) {
        switch level {
        case 1: return ("basic", SizeRange(min: 1, max: 2), .multipleChoice, "easy")
        case 2: return ("intermediate", SizeRange(min: 3, max: 4), .multipleChoice, "medium")
        case 3: return ("advanced", SizeRange(min: 7, max: 8), .freeText, "hard")
        default: return ("master", SizeRange(min: 14, max: 15), .freeText, "hard")
        }
    }
}
