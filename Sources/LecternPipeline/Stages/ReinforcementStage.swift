import Foundation
import LecternCore
import LecternLLM

/// A topic's reinforcement pool (FR-009): one question per level 1–4 with the level's
/// attributes (difficulty, frequency range, format, occurrence 7) and both renditions where the
/// content allows, since the optional quiz (FR-010) shows questions in either format.
public struct ReinforcementStage: Sendable {
    public static let name = "reinforcement"
    public static let occurrence = 7

    /// One question per level, as `level_1` … `level_4`: the schema itself then guarantees one
    /// question at each level, which small models otherwise get wrong.
    struct Answer: Decodable {
        struct Item: Decodable {
            var topic_id: String
            var prompt: String
            var correct_answer: MultipleChoice.AnswerText?
            var wrong_answers: [MultipleChoice.AnswerText]?
            var reference_answer: String?
            var explanation: String
        }
        var level_1: Item
        var level_2: Item
        var level_3: Item
        var level_4: Item

        var byLevel: [(Int, Item)] { [(1, level_1), (2, level_2), (3, level_3), (4, level_4)] }
    }

    /// FR-009's formats in the schema: levels 1–2 are multiple choice (level 2 also has a
    /// reference answer, so the optional quiz can show it as free text); levels 3–4 are free
    /// text with a reference answer.
    static func levelSchema(level: Int) -> JSONValue {
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
        return SchemaParts.object(properties, required: required + ["explanation"])
    }

    static let schema = ResponseSchema(
        name: "reinforcement_pool",
        schema: SchemaParts.object(
            ["level_1": levelSchema(level: 1), "level_2": levelSchema(level: 2), "level_3": levelSchema(level: 3), "level_4": levelSchema(level: 4)],
            required: ["level_1", "level_2", "level_3", "level_4"]))

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
                    var labels: [Int: [String]] = [:]
                    let questions = a.byLevel.map { level, item -> ReinforcementQuestion in
                        let attributes = ReinforcementQuestion.attributes(level: level)
                        var options: [Choice]?
                        if let correct = item.correct_answer, let wrong = item.wrong_answers {
                            let built = MultipleChoice.options(prompt: item.prompt.trimmed, correct: correct, wrong: wrong)
                            options = built.options
                            labels[level] = built.labels.map { "level_\(level).\($0)" }
                        }
                        return ReinforcementQuestion(
                            topicID: item.topic_id.trimmed, level: level, difficulty: attributes.difficulty,
                            frequencyDays: attributes.frequency, occurrence: Self.occurrence, format: attributes.format,
                            prompt: item.prompt.trimmed, options: options,
                            referenceAnswer: item.reference_answer.map { $0.trimmed }.flatMap { $0.isEmpty ? nil : $0 },
                            explanation: item.explanation.trimmed, jeevaDifficulty: attributes.jeeva)
                    }
                    let issues = ReinforcementRules.check(questions, expectedTopicID: topicID, optionLabels: labels)
                    if !issues.errors.isEmpty { return .invalid(issues.errors.map(\.message)) }
                    return .valid(questions, warnings: issues.warnings.map(\.message))
                }
            })
    }
}
