import Foundation
import LecternCore
import LecternLLM

/// The engagement question at the end of each topic (FR-004): multiple choice with feedback per
/// option, or free text with a reference answer; an explanation whatever the answer. The same
/// stage type writes the bonus question ("ask one additional question"), which must test a
/// different idea.
public struct EngagementQuestionStage: Sendable {
    public static let name = CourseStages.engagementQuestion
    public static let bonusName = CourseStages.bonusQuestion

    /// A question as the model writes it: a multiple-choice question has `correct_answer` and
    /// `wrong_answers` (see `MultipleChoice`), a free-text one a `reference_answer`.
    struct Answer: Decodable {
        var topic_id: String
        var prompt: String
        var correct_answer: MultipleChoice.AnswerText?
        var wrong_answers: [MultipleChoice.AnswerText]?
        var reference_answer: String?
        var explanation: String
    }

    static func schema(_ format: Question.Format) -> ResponseSchema {
        let common: [String: JSONValue] = ["topic_id": SchemaParts.string, "prompt": SchemaParts.string, "explanation": SchemaParts.string]
        switch format {
        case .multipleChoice:
            return ResponseSchema(
                name: "multiple_choice_question",
                schema: SchemaParts.object(
                    common.merging(MultipleChoice.properties) { a, _ in a },
                    required: ["topic_id", "prompt"] + MultipleChoice.required + ["explanation"]))
        case .freeText:
            return ResponseSchema(
                name: "free_text_question",
                schema: SchemaParts.object(
                    common.merging(["reference_answer": SchemaParts.string]) { a, _ in a },
                    required: ["topic_id", "prompt", "reference_answer", "explanation"]))
        }
    }

    public let job: CourseJobContext
    public init(job: CourseJobContext) { self.job = job }

    /// Parses and checks an answer for `topicID` in `format`.
    public static func check(_ text: String, topicID: String, format: Question.Format) -> AnswerCheck<Question> {
        switch AnswerParsing.decode(Answer.self, from: text) {
        case .failure(let errors): return .invalid(errors)
        case .success(let a):
            var question = Question(
                topicID: a.topic_id.trimmed, format: format, prompt: a.prompt.trimmed, options: nil,
                referenceAnswer: format == .freeText ? a.reference_answer?.trimmed : nil, explanation: a.explanation.trimmed)
            var labels: [String]?
            if format == .multipleChoice {
                guard let correct = a.correct_answer, let wrong = a.wrong_answers else {
                    return .invalid([Refusal(.wellFormed, "a multiple-choice question needs 'correct_answer' and 'wrong_answers'")])
                }
                let built = MultipleChoice.options(prompt: question.prompt, correct: correct, wrong: wrong)
                question.options = built.options
                labels = built.labels
            }
            let issues = QuestionRules.check(question, expectedTopicID: topicID, optionLabels: labels)
            return .judged(question, by: issues)
        }
    }

    static func formatInstruction(_ format: Question.Format) -> String {
        switch format {
        case .multipleChoice:
            return
                "multiple-choice question: the question, its correct answer, three plausible wrong answers (each a possible answer, never a question, all different), feedback for each answer saying why it is right or wrong, and an explanation."
        case .freeText:
            return "free-text question the learner answers in a few sentences, with a reference answer and an explanation."
        }
    }

    /// The engagement question: multiple choice (the app checks it automatically).
    public func engagement(itemID: String, place: TopicPlace, outline: Outline, lecture: String) throws -> ModelCall<Question> {
        var variables = place.variables(job, outline: outline)
        variables["lecture_excerpt"] = Self.excerpt(lecture)
        variables["format_instruction"] = Self.formatInstruction(.multipleChoice)
        variables["answer_shape"] = MultipleChoice.instruction
        let schema = Self.schema(.multipleChoice)
        variables["schema"] = AnswerParsing.schemaText(schema)
        let topicID = place.topicID
        var call = ModelCall(
            itemID: itemID, stage: Self.name, template: try PromptLibrary.template("course/engagement-question"), variables: variables, schema: schema,
            check: { Self.notCopied(Self.check($0, topicID: topicID, format: .multipleChoice), prompt: \.prompt, lecture: lecture) })
        call.blindSolve = { question in question.options.map { [BlindSolveItem(label: "the question", prompt: question.prompt, choices: $0)] } ?? [] }
        return call
    }

    /// The bonus question: free text, on a different idea from the engagement question.
    public func bonus(itemID: String, place: TopicPlace, outline: Outline, lecture: String, first: Question) throws -> ModelCall<Question> {
        var variables = place.variables(job, outline: outline)
        variables["focus_section"] = Self.bonusFocus(lecture: lecture, first: first)
        variables["first_question"] = first.prompt
        variables["format_instruction"] = Self.formatInstruction(.freeText)
        let schema = Self.schema(.freeText)
        variables["schema"] = AnswerParsing.schemaText(schema)
        let topicID = place.topicID
        let firstPrompt = first.prompt
        return ModelCall(
            itemID: itemID, stage: Self.bonusName, template: try PromptLibrary.template("course/bonus-question"), variables: variables, schema: schema,
            check: { text in
                let result = Self.check(text, topicID: topicID, format: .freeText)
                if case .valid(let q, _) = result, QuestionRules.holdsTheOther(q.prompt, firstPrompt) {
                    return .invalid([
                        Refusal(.distinctQuestions, "the bonus question repeats the first question ('\(first.prompt)'); ask about a different idea of the lecture")
                    ])
                }
                return Self.notCopied(result, prompt: \.prompt, lecture: lecture)
            })
    }

    /// `result`, refused when its question pastes a stretch of the lecture
    /// (`QuestionRules.checkNotCopied`) or asks about a technical term the lecture does not teach
    /// (`QuestionRules.checkTaught`); shared by every course question stage.
    static func notCopied<Q>(_ result: AnswerCheck<Q>, prompt: KeyPath<Q, String>, lecture: String) -> AnswerCheck<Q> {
        guard case .valid(let question, let warnings) = result else { return result }
        let asked = question[keyPath: prompt]
        return .judged(
            question, by: warnings + QuestionRules.checkNotCopied("prompt", asked, lecture: lecture) + QuestionRules.checkTaught("prompt", asked, lecture: lecture))
    }

    /// The part of the lecture the bonus question is to be about: the `##` section sharing the
    /// fewest significant words with the first question and its answer — a recap section only
    /// when no other is left, a section under 15 significant words only when all are. Small
    /// models told "not the same idea" write the first question again; given another part of the
    /// lecture, they ask about it. A lecture without sections is given whole, cut to `limit`.
    static func bonusFocus(lecture: String, first: Question, limit: Int = 3_000) -> String {
        let answer = first.options?.first(where: \.correct)?.text ?? first.referenceAnswer ?? ""
        return focus(lecture: lecture, avoiding: [first.prompt + " " + answer], limit: limit)
    }

    /// The `##` section of `lecture` sharing the fewest significant words with `asked` (questions
    /// already written, with their answers), by the rule of `bonusFocus`; the whole lecture, cut
    /// to `limit`, when it has no sections.
    static func focus(lecture: String, avoiding asked: [String], limit: Int = 3_000) -> String {
        let sections = focusSections.value(lecture) { LectureRules.sections(lecture) }
        guard sections.count > 1 else { return excerpt(lecture, limit: limit) }
        let asked = Set(asked.flatMap { TextKey.significantWords($0) })
        func rank(_ section: String) -> (Int, Int, Int, Int) {
            let words = TextKey.significantWords(section)
            let isRecap = LectureRules.isRecap(section) ? 1 : 0
            let isShort = words.count < 15 ? 1 : 0
            // Fewer shared words first; among equals, the longer section (more to ask about).
            return (isRecap, isShort, Set(words).intersection(asked).count, -words.count)
        }
        // Ranked once per section; the first of equal ranks wins.
        let ranks = sections.map(rank)
        let best = ranks.indices.min { ranks[$0] < ranks[$1] || (ranks[$0] == ranks[$1] && $0 < $1) } ?? 0
        return excerpt(sections[best], limit: limit)
    }

    /// The `##` sections of a lecture, cut once for all the questions of its topic (they are asked
    /// stage by stage across the course, so as many lectures as a large course has are kept;
    /// the sections are the lecture's text once more).
    static let focusSections = RecentMemo<[String]>(limit: 1_024)

    /// The lecture, cut to a size small models can take in.
    static func excerpt(_ lecture: String, limit: Int = 6_000) -> String {
        lecture.count <= limit ? lecture : String(lecture.prefix(limit)) + "\n[…]"
    }
}
