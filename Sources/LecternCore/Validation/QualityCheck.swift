import Foundation

/// The checks a model answer goes through, as the quality report counts them: the id a refusal
/// carries from where it is raised (`ValidationIssue.check`, `Refusal.check`). quality.json, the
/// event log and `lectern check --json` name checks by these ids; nothing reads a message's
/// words to find its check.
public enum QualityCheck: String, CaseIterable, Sendable, Codable {
    /// The answer is complete JSON with the schema's fields.
    case wellFormed = "well-formed"
    /// No control character left by a JSON escape, no TeX command without its backslash.
    case textIntegrity = "text-integrity"
    /// Every learner text renders without a warning (TeX the renderer knows, no raw HTML).
    case rendering
    /// Every equality between numbers in what an answer asserts is true.
    case arithmetic
    /// No option restates another; wrong options have their own feedback.
    case distinctOptions = "distinct-options"
    /// No question asks what another of its topic (or bank) already asks.
    case distinctQuestions = "distinct-questions"
    /// Feedback agrees with the key: a wrong option's feedback does not call it right.
    case feedbackAgreesWithKey = "feedback-agrees-with-key"
    /// A solver shown the question and its options without the key picks the key (`review:`).
    case answerKey = "answer-key"
    /// A reviewing model judged the item against the rubric (`review: { rubric: true }`): the
    /// key right and alone, feedback agreeing with it and the source, statements true, on topic.
    case rubric
    /// Quotes are copied from the source and support the key; the answer is about its topic.
    case grounding
    /// A project's rubric adds up to its total; its deliverables fit the course's medium; it
    /// requires nothing a later subject teaches.
    case projectScope = "project-scope"
    /// A course question put as a question to a learner who read the lecture: it asks something,
    /// one question, last, not answered in the stem nor rhetorical; its texts speak to the learner
    /// about the subject (no video, no lecture's voice, nothing about the question itself), and
    /// its code is in a block.
    case questionForm = "question-form"
    /// Everything else a stage asks of its answer (counts, lengths, formats, levels).
    case stageRules = "stage-rules"

    /// One line for the report and `lectern verify`.
    public var summary: String {
        switch self {
        case .wellFormed: return "complete JSON with the schema's fields"
        case .textIntegrity: return "no control characters or TeX commands that lost their backslash"
        case .rendering: return "every text renders without a warning; TeX only inside math"
        case .arithmetic: return "no false arithmetic in what an answer asserts"
        case .distinctOptions: return "no option restating another; distinct feedback"
        case .distinctQuestions: return "no question asking what another already asks"
        case .feedbackAgreesWithKey: return "feedback agrees with the answer key"
        case .answerKey: return "a blind solver picks the key; a numeric key is what its working gives"
        case .rubric: return "a reviewing model finds no rubric criterion broken (review.rubric)"
        case .grounding: return "quotes copied from the source; answers about their topic"
        case .projectScope: return "rubrics add up; deliverables fit the course; nothing it does not teach"
        case .questionForm: return "a question put to the learner: one, asked last, not answered in the stem; code in a block"
        case .stageRules: return "the stage's own rules (counts, lengths, formats)"
        }
    }
}

/// A refused answer's problem: the check that raised it and the message a repair prompt and a
/// person read.
public struct Refusal: Sendable, Hashable, Codable, CustomStringConvertible {
    public var check: QualityCheck
    public var message: String

    public init(_ check: QualityCheck, _ message: String) {
        self.check = check
        self.message = message
    }

    public var description: String { message }
}

extension Array where Element == Refusal {
    /// The messages alone, for a repair prompt or a line of text.
    public var messages: [String] { map(\.message) }
}
