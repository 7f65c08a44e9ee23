import Foundation
import LecternCore
import LecternLLM

/// A topic's reinforcement pool (FR-009): one question per level 1–4 with the level's
/// attributes (difficulty, frequency range, format, occurrence 7). Each level is its own model
/// call (`reinforcement/<topic>/level-N`): asked for the four questions in one answer, the 1.5B
/// local model repeated options across and within questions on most topics, while one question
/// at a time it writes them as reliably as the engagement question. The four calls share the
/// prompt up to the level line, so a server with prompt caching reads the lecture once.
public struct ReinforcementStage: Sendable {
    public static let name: StageName = "reinforcement"
    public static let occurrence = 7
    public static let levels = 1...4

    /// One question as the model writes it.
    struct Answer: Decodable {
        var topic_id: String
        var prompt: String
        var correct_answer: MultipleChoice.AnswerText?
        var wrong_answers: [MultipleChoice.AnswerText]?
        var reference_answer: String?
        var explanation: String
    }

    /// FR-009's formats: levels 1–2 are multiple choice (level 2 also has a reference answer, so
    /// the optional quiz can show it as free text); levels 3–4 are free text with a reference
    /// answer.
    static func schema(level: Int) -> ResponseSchema {
        var properties: [String: JSONValue] = ["topic_id": SchemaParts.string, "prompt": SchemaParts.string, "explanation": SchemaParts.string]
        var required = ["topic_id", "prompt"]
        if level <= 2 {
            properties.merge(MultipleChoice.properties) { a, _ in a }
            required += MultipleChoice.required
        }
        if level >= 2 {
            properties["reference_answer"] = SchemaParts.string
            required.append("reference_answer")
        }
        return ResponseSchema(name: "reinforcement_question_level_\(level)", schema: SchemaParts.object(properties, required: required + ["explanation"]))
    }

    static func instruction(level: Int) -> String {
        switch level {
        case 1: return "basic recall of one fact or definition from the lecture, as a multiple-choice question."
        case 2:
            return "a simple problem the learner solves with what the lecture teaches, as a multiple-choice question, with a reference answer too so it can also be shown as free text."
        case 3: return "advanced problem solving: a free-text question the learner answers in a few sentences, with a reference answer."
        default: return "the learner explains the idea in their own words or applies it to a realistic situation: a free-text question with a reference answer."
        }
    }

    static let multipleChoiceNote = "\n" + MultipleChoice.instruction + "\n"

    public let job: CourseJobContext
    public init(job: CourseJobContext) { self.job = job }

    public func call(itemID: String, place: TopicPlace, outline: Outline, lecture: String, level: Int) throws -> ModelCall<ReinforcementQuestion> {
        var variables = place.variables(job, outline: outline)
        let attributes = ReinforcementQuestion.attributes(level: level)
        variables["lecture_excerpt"] = EngagementQuestionStage.excerpt(lecture, limit: 4_000)
        variables["level"] = String(level)
        variables["level_name"] = attributes.difficulty
        variables["level_instruction"] = Self.instruction(level: level)
        variables["format_note"] = level <= 2 ? Self.multipleChoiceNote : ""
        let schema = Self.schema(level: level)
        variables["schema"] = AnswerParsing.schemaText(schema)
        let topicID = place.topicID
        return ModelCall(
            itemID: itemID, stage: Self.name, template: try PromptLibrary.template("course/reinforcement"), variables: variables, schema: schema,
            check: { Self.check($0, topicID: topicID, level: level) })
    }

    /// Parses and checks one level's question.
    static func check(_ text: String, topicID: String, level: Int) -> AnswerCheck<ReinforcementQuestion> {
        switch AnswerParsing.decode(Answer.self, from: text) {
        case .failure(let errors): return .invalid(errors)
        case .success(let a):
            let attributes = ReinforcementQuestion.attributes(level: level)
            var options: [Choice]?
            var labels: [String]?
            var reference = a.reference_answer?.trimmed ?? ""
            if level <= 2, let correct = a.correct_answer, let wrong = a.wrong_answers {
                // Level 2 without a reference answer: its correct option is one.
                if reference.isEmpty { reference = correct.text.trimmed }
                let built = MultipleChoice.options(prompt: a.prompt.trimmed, correct: correct, wrong: wrong)
                options = built.options
                labels = built.labels
            }
            let question = ReinforcementQuestion(
                topicID: a.topic_id.trimmed, level: level, difficulty: attributes.difficulty, frequencyDays: attributes.frequency,
                occurrence: Self.occurrence, format: attributes.format, prompt: a.prompt.trimmed, options: options,
                referenceAnswer: level >= 2 && !reference.isEmpty ? reference : nil,
                explanation: a.explanation.trimmed, jeevaDifficulty: attributes.jeeva)
            let issues = ReinforcementRules.checkQuestion(question, expectedTopicID: topicID, optionLabels: labels)
            return .judged(question, by: issues)
        }
    }
}
