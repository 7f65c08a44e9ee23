import Foundation
import LecternCore
import LecternLLM

/// The exam's model calls: one item of a standard category grounded in a chunk of the corpus,
/// or a reading-comprehension set of 2–5 items on one passage. Each item is checked on its own
/// (options, lengths), its source quote is looked up in the cited document, and its stem is
/// compared with the stems it must not repeat.
public struct ExamItemStage: Sendable {
    public static let name: StageName = "exam-item"
    public static let readingName: StageName = "reading-set"

    /// An item as the model writes it.
    struct Answer: Decodable {
        var prompt: String
        var correct_answer: MultipleChoice.AnswerText
        var wrong_answers: [MultipleChoice.AnswerText]
        var explanation: String
        var source_quote: String
    }

    struct SetAnswer: Decodable {
        var questions: [Answer]
    }

    let context: ExamJobContext

    static func itemSchema(optionCount: Int) -> JSONValue {
        SchemaParts.object(
            ["prompt": SchemaParts.string, "explanation": SchemaParts.string, "source_quote": SchemaParts.string].merging(
                MultipleChoice.properties(optionCount: optionCount)
            ) { a, _ in a },
            required: ["prompt"] + MultipleChoice.required + ["explanation", "source_quote"])
    }

    static func schema(optionCount: Int) -> ResponseSchema {
        ResponseSchema(name: "exam_item", schema: itemSchema(optionCount: optionCount))
    }

    static func setSchema(optionCount: Int, count: Int) -> ResponseSchema {
        ResponseSchema(
            name: "reading_set",
            schema: SchemaParts.object(["questions": SchemaParts.array(itemSchema(optionCount: optionCount), min: count, max: count)], required: ["questions"]))
    }

    /// What the prompt says about stems already in the bank.
    static func avoidText(_ stems: [String]) -> String {
        guard !stems.isEmpty else { return "" }
        return "These questions are already in the bank; ask something different from each of them:\n"
            + stems.prefix(30).map { "- " + $0.replacingOccurrences(of: "\n", with: " ") }.joined(separator: "\n")
    }

    func variables(section: ExamSection, category: ExamCategory) -> [String: String] {
        [
            "description": context.spec.description.trimmed, "audience": context.spec.audience, "language": context.languageName,
            "tone": context.toneInstruction, "section_title": section.title, "category_title": category.title,
            "category_instructions": category.instructions.replacingOccurrences(of: "\n", with: " "),
            "answer_shape": MultipleChoice.instruction(optionCount: context.exam.optionCount),
        ]
    }

    /// One item of a standard category. `avoid`: stems it must not repeat; `retry`: the re-ask
    /// after the bank check found it repeating an earlier item.
    public func item(_ planned: ExamWork.Question, avoid: [String] = [], retry: Bool = false) throws -> ModelCall<ExamItem> {
        var v = variables(section: planned.section, category: planned.category)
        v["difficulty"] = planned.difficulty.rawValue
        v["source"] = planned.source
        v["focus"] = planned.focus
        v["avoid"] = Self.avoidText(avoid)
        let schema = Self.schema(optionCount: context.exam.optionCount)
        v["schema"] = AnswerParsing.schemaText(schema)
        let template = try PromptLibrary.template("exam/exam-item")
        let context = self.context
        return ModelCall(
            itemID: (retry ? ExamItems.retry(ExamItems.item(planned.id)) : ExamItems.item(planned.id)).rawValue,
            stage: retry ? ExamJob.retryName : Self.name, template: template, variables: v, schema: schema,
            check: { text in
                switch AnswerParsing.decode(Answer.self, from: text) {
                case .failure(let errors): return .invalid(errors)
                case .success(let answer):
                    let (item, issues) = context.build(
                        answer, id: planned.id, section: planned.section, category: planned.category, difficulty: planned.difficulty,
                        document: planned.document, passage: nil, template: template, avoid: avoid)
                    return .judged(item, by: issues)
                }
            })
    }

    /// The questions of one passage, in the order of `passage.questions`.
    public func readingSet(_ set: ExamWork.PassageSet, avoid: [String] = [], retry: Bool = false) throws -> ModelCall<[ExamItem]> {
        var v = variables(section: set.section, category: set.category)
        v["passage"] = set.passage.text
        v["count"] = "\(set.questions.count)"
        v["difficulties"] = set.questions.map(\.difficulty.rawValue).joined(separator: ", ")
        v["avoid"] = Self.avoidText(avoid)
        let schema = Self.setSchema(optionCount: context.exam.optionCount, count: set.questions.count)
        v["schema"] = AnswerParsing.schemaText(schema)
        let template = try PromptLibrary.template("exam/reading-set")
        let context = self.context
        return ModelCall(
            itemID: (retry ? ExamItems.retry(ExamItems.readingSet(set.passage.id)) : ExamItems.readingSet(set.passage.id)).rawValue,
            stage: retry ? ExamJob.retryName : Self.readingName, template: template, variables: v, schema: schema,
            check: { text in
                switch AnswerParsing.decode(SetAnswer.self, from: text) {
                case .failure(let errors): return .invalid(errors)
                case .success(let answer):
                    guard answer.questions.count == set.questions.count else {
                        return .invalid(["write exactly \(set.questions.count) questions in 'questions'; the answer has \(answer.questions.count)"])
                    }
                    var items: [ExamItem] = []
                    var issues: [ValidationIssue] = []
                    var stems = avoid
                    for (index, (planned, written)) in zip(set.questions, answer.questions).enumerated() {
                        let (item, found) = context.build(
                            written, id: planned.id, section: set.section, category: set.category, difficulty: planned.difficulty,
                            document: set.passage.document, passage: set.passage.id, template: template, avoid: stems)
                        issues += found.map { issue in
                            var copy = issue
                            copy.message = "questions[\(index + 1)]: " + issue.message
                            return copy
                        }
                        stems.append(ExamWork.duplicateKey(item))
                        items.append(item)
                    }
                    return .judged(items, by: issues)
                }
            })
    }
}

extension ExamJobContext {
    /// An item from the model's answer, and what is wrong with it.
    func build(
        _ answer: ExamItemStage.Answer, id: String, section: ExamSection, category: ExamCategory, difficulty: Difficulty, document: String,
        passage: String?, template: PromptTemplate, avoid: [String]
    ) -> (ExamItem, [ValidationIssue]) {
        let prompt = answer.prompt.trimmed
        let built = MultipleChoice.options(prompt: prompt, correct: answer.correct_answer, wrong: answer.wrong_answers)
        let quote = answer.source_quote.trimmed
        let item = ExamItem(
            id: id, section: section.id, category: category.id, difficulty: difficulty, difficultyLabel: difficulty.label(language: spec.language),
            prompt: prompt, options: built.options, explanation: answer.explanation.trimmed,
            seconds: ExamRules.seconds(category: category.seconds, difficulty: difficulty),
            sources: quote.isEmpty ? [] : [SourceQuote(document: document, quote: quote)], passage: passage,
            generation: GenerationInfo(attempts: 1, model: spec.model.name, prompt: template.identifier))
        var issues = ExamRules.check(item, optionCount: exam.optionCount, language: spec.language, labels: built.labels)
        if !quote.isEmpty, let problem = work.groundingProblem(quote: quote, document: document) {
            issues.append(.error(problem))
        }
        if let repeated = work.repeats(ExamWork.duplicateKey(item), among: avoid) {
            issues.append(.error("the question repeats one already in the bank ('\(repeated.prefix(120))'); ask about something else"))
        }
        return (item, issues)
    }
}
