import Foundation
import LecternCore
import LecternLLM

/// How models write multiple-choice options: the correct answer and the wrong ones in separate
/// fields, not four options with `correct` flags. Small models asked for flagged options write
/// questions or copies as options and mark several correct; asked for "the correct answer" and
/// "three wrong answers" they write answers. Lectern places the correct one among the options
/// itself, at a position derived from the prompt (stable across runs, spread across questions).
enum MultipleChoice {
    /// Options per question in courses.
    static let courseOptionCount = QuestionRules.optionCount
    static let wrongCount = courseOptionCount - 1

    /// One answer as the model writes it.
    struct AnswerText: Codable, Sendable {
        var text: String
        var feedback: String
    }

    static let answerSchema = SchemaParts.object(["text": SchemaParts.string, "feedback": SchemaParts.string], required: ["text", "feedback"])

    /// The schema fields for `optionCount` options, to merge into a question's properties;
    /// `textLimit` bounds each answer's length while a grammar-constrained model writes it.
    static func properties(optionCount: Int, textLimit: Int? = nil) -> [String: JSONValue] {
        var answer = answerSchema
        if let textLimit, case .object(var object) = answer, case .object(var fields) = object["properties"] {
            fields["text"] = ["type": "string", "minLength": 1, "maxLength": .number(Double(textLimit))]
            object["properties"] = .object(fields)
            answer = .object(object)
        }
        return [
            "correct_answer": answer,
            "wrong_answers": SchemaParts.array(answer, min: optionCount - 1, max: optionCount - 1),
        ]
    }

    /// The schema fields of a course question (four options).
    static let properties = properties(optionCount: courseOptionCount)
    static let required = ["correct_answer", "wrong_answers"]

    /// "three", "four" …: counts as prompts spell them.
    static func spelled(_ n: Int) -> String {
        let words = ["zero", "one", "two", "three", "four", "five", "six", "seven"]
        return words.indices.contains(n) ? words[n] : "\(n)"
    }

    /// What the prompts say about these fields (the engagement question's `{{answer_shape}}`,
    /// reinforcement levels 1–2, exam items). Prompts show the shape, never an example answer:
    /// the model copied an example into unrelated questions.
    static func instruction(optionCount: Int) -> String {
        #""correct_answer" is the right answer to your question and "wrong_answers" are "#
            + spelled(optionCount - 1)
            + #" plausible mistakes a learner could make. Each is a short answer (one sentence), never a question, and all "#
            + spelled(optionCount)
            + #" differ. Each has the shape {"text": "<the answer>", "feedback": "<why it is right or wrong>"}."#
    }

    static let instruction = instruction(optionCount: courseOptionCount)

    /// Where the correct answer goes among `count` options for `prompt`.
    static func correctPosition(prompt: String, count: Int) -> Int {
        guard count > 1 else { return 0 }
        let digest = SHA256Digest.hex(Data(TextKey.normalize(prompt).utf8))
        return Int(digest.prefix(8), radix: 16).map { $0 % count } ?? 0
    }

    /// The options in display order, and for each the field the model wrote it in (for messages).
    static func options(prompt: String, correct: AnswerText, wrong: [AnswerText]) -> (options: [Choice], labels: [String]) {
        var options = wrong.map { Choice(text: $0.text.trimmed, correct: false, feedback: $0.feedback.trimmed) }
        var labels = wrong.indices.map { "wrong_answers[\($0 + 1)]" }
        let position = correctPosition(prompt: prompt, count: options.count + 1)
        options.insert(Choice(text: correct.text.trimmed, correct: true, feedback: correct.feedback.trimmed), at: position)
        labels.insert("correct_answer", at: position)
        return (options, labels)
    }
}
