import Foundation
import LecternCore
import LecternLLM

/// A topic's reinforcement pool (FR-009): one question per level 1–4 with the level's
/// attributes (difficulty, frequency range, format, occurrence 7) and both renditions where the
/// content allows, since the optional quiz (FR-010) shows questions in either format.
public struct ReinforcementStage: Sendable {
    public static let name = "reinforcement"
    public static let occurrence = 7

    struct Answer: Decodable {
        struct Item: Decodable {
            var topic_id: String
            var level: Int
            var prompt: String
            var options: [EngagementQuestionStage.AnswerOption]?
            var reference_answer: String?
            var explanation: String
        }
        var questions: [Item]
    }

    static let schema = ResponseSchema(
        name: "reinforcement_pool",
        schema: SchemaParts.object(
            [
                "questions": SchemaParts.array(
                    SchemaParts.object(
                        [
                            "topic_id": SchemaParts.string, "level": ["type": "integer", "enum": [1, 2, 3, 4]], "prompt": SchemaParts.string,
                            // Required but nullable: levels 3–4 may have no options, level 1 no
                            // reference answer (and strict structured output needs every key required).
                            "options": ["type": ["array", "null"], "items": SchemaParts.option, "maxItems": 4],
                            "reference_answer": ["type": ["string", "null"]],
                            "explanation": SchemaParts.string,
                        ], required: ["topic_id", "level", "prompt", "options", "reference_answer", "explanation"]), min: 4, max: 4)
            ], required: ["questions"]))

    public let job: CourseJobContext
    public init(job: CourseJobContext) { self.job = job }

    public func call(itemID: String, place: TopicPlace, outline: Outline, lecture: String) throws -> ModelCall<[ReinforcementQuestion]> {
        var variables = place.variables(job, outline: outline)
        variables["lecture_excerpt"] = EngagementQuestionStage.excerpt(lecture, limit: 4_000)
        variables["schema"] = AnswerParsing.schemaText(Self.schema)
        let topicID = place.topicID
        return ModelCall(
            itemID: itemID, stage: Self.name, template: try PromptLibrary.template("reinforcement"), variables: variables, schema: Self.schema,
            check: { text in
                switch AnswerParsing.decode(Answer.self, from: text) {
                case .failure(let errors): return .invalid(errors)
                case .success(let a):
                    let questions = a.questions.sorted { $0.level < $1.level }.map { item -> ReinforcementQuestion in
                        let attributes = ReinforcementQuestion.attributes(level: item.level)
                        let options = item.options.map { list in
                            list.map { Choice(text: $0.text.trimmed, correct: $0.correct, feedback: $0.feedback.trimmed) }
                        }
                        return ReinforcementQuestion(
                            topicID: item.topic_id.trimmed, level: item.level, difficulty: attributes.difficulty,
                            frequencyDays: attributes.frequency, occurrence: Self.occurrence, format: attributes.format,
                            prompt: item.prompt.trimmed,
                            options: (options?.isEmpty ?? true) ? nil : options,
                            referenceAnswer: item.reference_answer.map { $0.trimmed }.flatMap { $0.isEmpty ? nil : $0 },
                            explanation: item.explanation.trimmed, jeevaDifficulty: attributes.jeeva)
                    }
                    let issues = ReinforcementRules.check(questions, expectedTopicID: topicID)
                    if !issues.errors.isEmpty { return .invalid(issues.errors.map(\.message)) }
                    return .valid(questions, warnings: issues.warnings.map(\.message))
                }
            })
    }
}
