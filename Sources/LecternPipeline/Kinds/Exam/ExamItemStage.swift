import Foundation
import LecternCore
import LecternLLM
import LecternRender
import Synchronization

/// The exam's model calls: one item of a standard category grounded in a chunk of the corpus,
/// or a reading-comprehension set of 2–5 items on one passage. Each item is checked on its own
/// (options, lengths), its source quote is looked up in the cited document, and its stem is
/// compared with the stems it must not repeat.
public struct ExamItemStage: Sendable {
    public static let name: StageName = "exam-item"
    public static let readingName: StageName = "reading-set"

    /// An item as the model writes it.
    struct Answer: Codable, Sendable {
        var prompt: String
        var correct_answer: MultipleChoice.AnswerText
        var wrong_answers: [MultipleChoice.AnswerText]
        var explanation: String
        var source_quote: String
    }

    struct SetAnswer: Codable {
        var questions: [Answer]
    }

    /// A quantitative or geometry item as the model writes it: the solution in place of a source
    /// quote, and for geometry the figure.
    struct ComputedAnswer: Decodable, Sendable {
        var prompt: String
        var correct_answer: MultipleChoice.AnswerText
        var wrong_answers: [MultipleChoice.AnswerText]
        var explanation: String
        var solution: String
        /// The figure's fields and its alt text.
        var figure: DescribedFigure?
    }

    static let figureSchema: JSONValue = {
        let number: JSONValue = ["type": "number"]
        let label = SchemaParts.string
        let labels = SchemaParts.array(label)
        return SchemaParts.object(
            [
                "points": SchemaParts.array(SchemaParts.object(["label": label, "x": number, "y": number], required: ["label", "x", "y"]), min: 2, max: 26),
                "segments": SchemaParts.array(SchemaParts.array(label, min: 2, max: 2)),
                "polygons": SchemaParts.array(labels),
                "right_angles": SchemaParts.array(SchemaParts.array(label, min: 3, max: 3)),
                "lengths": SchemaParts.array(
                    SchemaParts.object(["from": label, "to": label, "value": number, "label": label], required: ["from", "to", "value", "label"])),
                "angles": SchemaParts.array(
                    SchemaParts.object(["vertex": label, "from": label, "to": label, "degrees": number, "label": label], required: ["vertex", "from", "to"])),
                "circles": SchemaParts.array(SchemaParts.object(["center": label, "radius": number, "label": label], required: ["center", "radius"])),
                "arcs": SchemaParts.array(SchemaParts.object(["center": label, "from": label, "to": label], required: ["center", "from", "to"])),
                "not_to_scale": ["type": "boolean"],
                "alt": SchemaParts.string,
            ],
            required: ["points", "alt"])
    }()

    static func computedSchema(optionCount: Int, figure: Bool) -> ResponseSchema {
        var properties: [String: JSONValue] = ["prompt": SchemaParts.string, "explanation": SchemaParts.string, "solution": SchemaParts.string]
        if figure { properties["figure"] = figureSchema }
        return ResponseSchema(
            name: figure ? "geometry_item" : "quantitative_item",
            schema: SchemaParts.object(
                properties.merging(MultipleChoice.properties(optionCount: optionCount)) { a, _ in a },
                required: ["prompt"] + MultipleChoice.required + ["explanation", "solution"] + (figure ? ["figure"] : [])))
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

    /// What the prompt adds for a category format whose items are checked word by word against
    /// the source sentence.
    /// The worked example the completion and wrong-word rules show, in the exam's language (an
    /// example in the candidates' language keeps the model writing in it).
    struct RuleExample {
        var sentence: String
        var blanked: String
        var key: String
        var distractors: [String]
        var wrongWordStem: String
        var changedWord: String
        var otherWords: [String]
        /// An analogy drawn from `sentence`: the stem's pair, the key and the wrong pairs.
        var pair: String
        var keyPair: String
        var wrongPairs: [String]
        /// "a", "b" and "c" (English) or "a" and "b" and "c".
        var commaList: Bool

        func list(_ words: [String]) -> String {
            let quoted = words.map { "\"\($0)\"" }
            guard commaList, let last = quoted.last else { return quoted.joined(separator: " and ") }
            return quoted.dropLast().joined(separator: ", ") + " and " + last
        }

        static let english = RuleExample(
            sentence: "The Nile is the longest river in Africa.", blanked: "The Nile is the longest ____ in Africa.", key: "river",
            distractors: ["mountain", "desert", "city"], wrongWordStem: "Which word is wrong in this sentence: The Nile is the shortest river in Africa.",
            changedWord: "shortest", otherWords: ["Nile", "river", "Africa"], pair: "Nile : river", keyPair: "Sahara : desert",
            wrongPairs: ["Africa : Nile", "mountain : Everest", "city : river"], commaList: true)
        static let arabic = RuleExample(
            sentence: "النيل أطول نهر في أفريقيا.", blanked: "النيل أطول ____ في أفريقيا.", key: "نهر", distractors: ["جبل", "صحراء", "مدينة"],
            wrongWordStem: "ما الكلمة الخطأ في الجملة: النيل أقصر نهر في أفريقيا.", changedWord: "أقصر", otherWords: ["النيل", "نهر", "أفريقيا"],
            pair: "النيل : نهر", keyPair: "الصحراء الكبرى : صحراء", wrongPairs: ["أفريقيا : النيل", "جبل : إيفرست", "مدينة : نهر"], commaList: false)
    }

    /// `focus`: the sentence the item is built on (a vocabulary item asks about the word Lectern
    /// chooses in it, `ExamRules.vocabularyWord`, and a completion item blanks it, `blanked`).
    static func formatRule(_ format: ExamCategory.Format, language: String, focus: String = "") -> String {
        let example = LanguageProfile.isArabic(language) ? RuleExample.arabic : RuleExample.english
        return switch format {
        case .completion:
            if let (word, blanked) = blanked(focus, language: language) {
                "\nThe prompt is this sentence with the word \"\(word)\" replaced by \"____\", copied exactly: \"\(blanked)\". The correct answer is "
                    + "\"\(word)\"; each wrong answer is one word of the same kind that does not fit the sentence. For example, from the sentence "
                    + "\"\(example.sentence)\" the prompt is \"\(example.blanked)\", the correct answer \"\(example.key)\", and wrong answers such as "
                    + example.list(example.distractors) + "."
            } else {
                "\nCopy that sentence into \"prompt\" word for word, with one important word replaced by \"____\". That word is the correct answer; "
                    + "each wrong answer is a word of the same kind that does not fit the sentence. For example, from the sentence "
                    + "\"\(example.sentence)\" the prompt is \"\(example.blanked)\", the correct answer \"\(example.key)\", and wrong answers such as "
                    + example.list(example.distractors) + "."
            }
        case .wrongWord:
            "\nCopy that sentence into \"prompt\" word for word, then change exactly one of its words to a word that contradicts the sentence's meaning. "
                + "The changed word is the correct answer; each wrong answer is another word of the sentence, written exactly as it appears there. "
                + "For example, from the sentence \"\(example.sentence)\" the prompt is \"\(example.wrongWordStem)\", the correct answer "
                + "\"\(example.changedWord)\", and the wrong answers " + example.list(example.otherWords) + "."
        case .fact:
            "\nThe correct answer is a fact this sentence states, in its words; \"source_quote\" is this sentence."
        case .vocabulary:
            if let word = ExamRules.vocabularyWord(in: focus, language: language) {
                "\nThe prompt quotes this sentence and asks what the word '\(word)' means there. The correct answer is a meaning of '\(word)' "
                    + "as this sentence uses it, in two to five words (a synonym or a short phrase, not '\(word)' itself nor another form of it); "
                    + "each wrong answer is a meaning of two to five words too, one that '\(word)' does not have in this sentence but a candidate "
                    + "could take it for. \"source_quote\" is this sentence, copied from the source text. The prompt is: In the sentence "
                    + "\"\(focus.trimmed)\", what does '\(word)' mean?"
            } else {
                "\nThe prompt quotes this sentence and asks what one word of it means there; write that word in quotation marks. The correct answer "
                    + "is a short meaning of the word (not the word itself); each wrong answer is a meaning it does not have in this sentence. "
                    + "\"source_quote\" is this sentence, copied from the source text. The prompt has this shape: In the sentence \"<the sentence>\", "
                    + "what does '<one word of it>' mean?"
            }
        case .analogy:
            "\nTake two words of this sentence that have a clear relation and write them in \"prompt\" as the pair \"A : B\"; copy this sentence "
                + "into \"source_quote\". Every answer is another pair \"C : D\" written the same way; the correct answer has the same relation as "
                + "A to B, in the same order, and each wrong answer a different or reversed relation. For example, from the sentence \"\(example.sentence)\" "
                + "the prompt is \"\(example.pair)\", the correct answer \"\(example.keyPair)\", and wrong answers such as " + example.list(example.wrongPairs) + "."
        case .standard, .reading, .quantitative, .geometry: ""
        }
    }

    /// The word a completion item blanks in `sentence` (`ExamRules.vocabularyWord`: Lectern chooses
    /// it, as it chooses the sentence) and the sentence with its first whole-word occurrence
    /// written "____" (`FlashcardRules.clozeFront`, as a cloze card's front). The local model,
    /// asked to choose, copied the category's instructions into
    /// the stem, or the sentence with its "Climate:" label and no blank.
    static func blanked(_ sentence: String, language: String) -> (word: String, stem: String)? {
        let sentence = sentence.trimmed
        guard let word = ExamRules.vocabularyWord(in: sentence, language: language),
            let stem = FlashcardRules.clozeFront(sentence: sentence, span: word)
        else { return nil }
        return (word, stem)
    }

    /// What the quantitative prompt says about the figure of a geometry item.
    static func figureRule(_ format: ExamCategory.Format, language: String) -> String {
        guard format == .geometry else { return "" }
        let labels = LanguageProfile.isArabic(language) ? ("أ", "ب", "ج", "٤ سم", "٣ سم") : ("A", "B", "C", "4 cm", "3 cm")
        return "\"figure\" describes the figure the question shows, as data, and Lectern draws it. \"points\": each point's label and its x, y "
            + "coordinates, drawn to scale (a right triangle with legs 4 and 3: \(labels.0) (0, 0), \(labels.1) (4, 0), \(labels.2) (4, 3)). "
            + "\"segments\" and \"polygons\" name points by label; \"right_angles\": [\"\(labels.0)\", \"\(labels.1)\", \"\(labels.2)\"] marks a right angle at \(labels.1); "
            + "\"lengths\": the lengths the question gives, as {\"from\": \"\(labels.0)\", \"to\": \"\(labels.1)\", \"value\": 4, \"label\": \"\(labels.3)\"}; "
            + "\"angles\": {\"vertex\", \"from\", \"to\", \"degrees\"}; \"circles\": {\"center\", \"radius\"}. Every given length and angle must agree "
            + "with the coordinates. The stem names only points the figure has, and does not give away the answer. \"alt\" describes the figure in "
            + "words, so that a candidate who cannot see it can still answer: it names every point label and every length label (\"\(labels.3)\", \"\(labels.4)\")."
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
        if planned.category.format.computesKey { return try computedItem(planned, avoid: avoid, retry: retry) }
        var v = variables(section: planned.section, category: planned.category)
        v["difficulty"] = planned.difficulty.rawValue
        v["source"] = planned.source
        v["focus"] = planned.focus
        v["format_rule"] = Self.formatRule(planned.category.format, language: context.spec.language, focus: planned.focus)
        v["avoid"] = Self.avoidText(avoid)
        let schema = Self.schema(optionCount: context.exam.optionCount)
        v["schema"] = AnswerParsing.schemaText(schema)
        let template = try PromptLibrary.template("exam/exam-item")
        let context = self.context
        let avoided = ExamWork.AvoidedStems(avoid)
        var call = itemCall(planned, retry: retry, template: template, variables: v, schema: schema, as: Answer.self) { answer in
            context.build(
                answer, id: planned.id, section: planned.section, category: planned.category, difficulty: planned.difficulty,
                document: planned.document, passage: nil, template: template, avoid: avoided, focus: planned.focus, source: planned.source)
        }
        if planned.category.format == .completion {
            // The stem ships with its key blanked (`build`): a reviewer reads it so.
            call.shipped = { text in
                guard case .success(var answer) = AnswerParsing.decode(Answer.self, from: text) else { return nil }
                let blanked = ExamRules.blankingKey(answer.prompt.trimmed, key: answer.correct_answer.text)
                guard blanked != answer.prompt.trimmed else { return nil }
                answer.prompt = blanked
                return ShippedAnswer.encoded(answer)
            }
        }
        return call
    }

    /// The model call of one item: its answer decoded as `A`, then built and judged by `build`;
    /// its key is put to the blind solver as a candidate meets the item (stem and options).
    private func itemCall<A: Decodable & Sendable>(
        _ planned: ExamWork.Question, retry: Bool, template: PromptTemplate, variables: [String: String], schema: ResponseSchema, as _: A.Type,
        build: @escaping @Sendable (A) -> (ExamItem, [ValidationIssue])
    ) -> ModelCall<ExamItem> {
        var call = ModelCall<ExamItem>(
            itemID: (retry ? ExamItems.retry(ExamItems.item(planned.id)) : ExamItems.item(planned.id)).rawValue,
            stage: retry ? ExamJob.retryName : Self.name, template: template, variables: variables, schema: schema,
            check: { text in
                switch AnswerParsing.decode(A.self, from: text) {
                case .failure(let errors): return .invalid(errors)
                case .success(let answer):
                    let (item, issues) = build(answer)
                    return .judged(item, by: issues)
                }
            })
        call.blindSolve = { item in [BlindSolveItem(label: "the item", prompt: item.prompt, choices: item.options)] }
        return call
    }

    /// One quantitative or geometry item: its key is computed from the solution it gives.
    func computedItem(_ planned: ExamWork.Question, avoid: [String], retry: Bool) throws -> ModelCall<ExamItem> {
        let format = planned.category.format
        var v = variables(section: planned.section, category: planned.category)
        v["difficulty"] = planned.difficulty.rawValue
        v["topic"] = planned.focus.isEmpty ? "" : "This question is about: \(planned.focus)."
        v["avoid"] = Self.avoidText(avoid)
        v["figure_rule"] = Self.figureRule(format, language: context.spec.language)
        let schema = Self.computedSchema(optionCount: context.exam.optionCount, figure: format == .geometry)
        v["schema"] = AnswerParsing.schemaText(schema)
        let template = try PromptLibrary.template("exam/quantitative-item")
        let context = self.context
        let avoided = ExamWork.AvoidedStems(avoid)
        return itemCall(planned, retry: retry, template: template, variables: v, schema: schema, as: ComputedAnswer.self) { answer in
            context.buildComputed(
                answer, id: planned.id, section: planned.section, category: planned.category, difficulty: planned.difficulty,
                template: template, avoid: avoided)
        }
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
        let avoided = ExamWork.AvoidedStems(avoid)
        /// The set's items from the model's questions, and what is wrong with them, each issue
        /// named after its question ("questions[2]: …").
        @Sendable func judge(_ written: [Answer]) -> ([ExamItem], [ValidationIssue]) {
            var items: [ExamItem] = []
            var issues: [ValidationIssue] = []
            var stems = avoided
            for (index, (planned, question)) in zip(set.questions, written).enumerated() {
                let (item, found) = context.build(
                    question, id: planned.id, section: set.section, category: set.category, difficulty: planned.difficulty,
                    document: set.passage.document, passage: set.passage.id, template: template, avoid: stems, given: set.passage.text)
                issues += found.map { issue in
                    var copy = issue
                    copy.message = "questions[\(index + 1)]: " + issue.message
                    return copy
                }
                stems.insert(ExamWork.duplicateKey(item))
                items.append(item)
            }
            return (items, issues)
        }
        let kept = KeptQuestions<Answer>()
        var call = ModelCall<[ExamItem]>(
            itemID: (retry ? ExamItems.retry(ExamItems.readingSet(set.passage.id)) : ExamItems.readingSet(set.passage.id)).rawValue,
            stage: retry ? ExamJob.retryName : Self.readingName, template: template, variables: v, schema: schema,
            check: { text in
                switch AnswerParsing.decode(SetAnswer.self, from: text) {
                case .failure(let errors): return .invalid(errors)
                case .success(let answer):
                    guard answer.questions.count == set.questions.count else {
                        return .invalid([Refusal(.stageRules, "write exactly \(set.questions.count) questions in 'questions'; the answer has \(answer.questions.count)")])
                    }
                    let (items, issues) = judge(answer.questions)
                    let failed = Set(issues.errors.compactMap { KeptQuestions<Answer>.index(named: $0.message) })
                    guard let composed = kept.compose(answer.questions, failed: failed) else {
                        kept.noteComposed(nil, for: text)
                        return .judged(items, by: issues)
                    }
                    let (keptItems, keptIssues) = judge(composed)
                    // The set ships as composed: what a reviewer reads (`shipped` below).
                    kept.noteComposed(ShippedAnswer.encoded(SetAnswer(questions: composed)), for: text)
                    return .judged(keptItems, by: keptIssues)
                }
            })
        call.rejected = { kept.forget(namedIn: $0.messages) }
        call.shipped = { kept.composed(for: $0) }
        // Each question with its passage, as a candidate reads it.
        let passage = set.passage.text
        call.blindSolve = { items in
            items.enumerated().map { BlindSolveItem(label: "questions[\($0.offset + 1)]", prompt: $0.element.prompt, choices: $0.element.options, context: passage) }
        }
        return call
    }
}

extension ExamJobContext {
    /// An item from the model's answer, and what is wrong with it. `focus`: the sentence a
    /// standard item was built on. A completion or wrong-word item whose key is found in the
    /// source cites that span (the focus sentence when it holds it) in place of the model's quote.
    func build(
        _ answer: ExamItemStage.Answer, id: String, section: ExamSection, category: ExamCategory, difficulty: Difficulty, document: String,
        passage: String?, template: PromptTemplate, avoid: ExamWork.AvoidedStems, focus: String? = nil, source: String? = nil,
        given: String? = nil
    ) -> (ExamItem, [ValidationIssue]) {
        var prompt = answer.prompt.trimmed
        if category.format == .completion { prompt = ExamRules.blankingKey(prompt, key: answer.correct_answer.text) }
        let built = MultipleChoice.options(prompt: prompt, correct: answer.correct_answer, wrong: answer.wrong_answers)
        let quote =
            answer.source_quote.trimmed.isEmpty
            ? ""
            : work.groundedQuote(
                answer.source_quote.trimmed, document: document, given: given ?? source,
                claims: [prompt, answer.correct_answer.text] + answer.wrong_answers.map(\.text))
        var item = ExamItem(
            id: id, section: section.id, category: category.id, difficulty: difficulty, difficultyLabel: difficulty.label(language: spec.language),
            prompt: prompt, options: built.options, explanation: answer.explanation.trimmed,
            seconds: ExamRules.seconds(category: category.seconds, difficulty: difficulty),
            sources: quote.isEmpty ? [] : [SourceQuote(document: document, quote: quote)], passage: passage,
            generation: GenerationInfo(attempts: 1, model: spec.model.name, prompt: template.identifier))
        let key: ExamWork.KeyCheck? =
            switch category.format {
            case .completion: work.completionProblems(item, labels: built.labels, document: document, focus: focus)
            case .wrongWord: work.wrongWordProblems(item, document: document, focus: focus)
            case .standard, .fact, .vocabulary, .analogy, .reading, .quantitative, .geometry: nil
            }
        if let grounded = key?.grounded { item.sources = [SourceQuote(document: document, quote: grounded)] }
        var issues = ExamRules.check(item, optionCount: exam.optionCount, language: spec.language, labels: built.labels, format: category.format)
        if key?.grounded == nil, !quote.isEmpty, let problem = work.groundingProblem(quote: quote, document: document, given: given ?? source) {
            issues.append(.error(problem, check: .grounding))
        }
        issues += key?.issues ?? []
        if let shown = given ?? source {
            issues += ExamRules.unsourcedKeyIssues(prompt: item.prompt, options: item.options, source: shown, labels: built.labels)
            issues += ExamRules.unsourcedNumberIssues(explanation: item.explanation, prompt: item.prompt, options: item.options, source: shown)
            issues += ExamRules.copiedLabelIssues(prompt: item.prompt, source: shown)
        }
        issues += standardItemProblems(item, format: category.format, source: source, labels: built.labels)
        if let repeated = avoid.repeated(by: ExamWork.duplicateKey(item)) {
            issues.append(.error("the question repeats one already in the bank ('\(repeated.prefix(120))'); ask about something else", check: .stageRules))
        }
        return (item, issues)
    }

    /// A quantitative or geometry item from the model's answer, and what is wrong with it: its
    /// key against the value of its solution, its figure against itself, and the SVG drawn from
    /// the figure against the allowlist.
    func buildComputed(
        _ answer: ExamItemStage.ComputedAnswer, id: String, section: ExamSection, category: ExamCategory, difficulty: Difficulty,
        template: PromptTemplate, avoid: ExamWork.AvoidedStems
    ) -> (ExamItem, [ValidationIssue]) {
        let answer = answer.written(in: exam.digits ?? .default(language: spec.language), language: spec.language)
        let prompt = answer.prompt.trimmed
        let built = MultipleChoice.options(prompt: prompt, correct: answer.correct_answer, wrong: answer.wrong_answers)
        let expression = answer.solution.trimmed
        let value = (try? QuantitativeExpression.evaluate(QuantitativeExpression.solutionParts(expression).expression)).map(\.description) ?? ""
        var item = ExamItem(
            id: id, section: section.id, category: category.id, difficulty: difficulty, difficultyLabel: difficulty.label(language: spec.language),
            prompt: prompt, options: built.options, explanation: answer.explanation.trimmed,
            seconds: ExamRules.seconds(category: category.seconds, difficulty: difficulty), sources: [], passage: nil,
            solution: ItemSolution(expression: expression, value: value),
            figure: answer.figure.map { ItemFigure(path: ItemFigure.path(forItem: id), alt: $0.alt.trimmed, geometry: $0.geometry.readingSegmentNames()) },
            generation: GenerationInfo(attempts: 1, model: spec.model.name, prompt: template.identifier))
        if category.format != .geometry { item.figure = nil }
        var issues = ExamRules.check(item, optionCount: exam.optionCount, language: spec.language, labels: built.labels, format: category.format)
        if let figure = item.figure, !issues.contains(where: { $0.message.hasPrefix("figure: ") }) {
            let svg = GeometryFigureDrawing.svg(figure.geometry, alt: figure.alt, language: spec.language)
            issues += SVGSafety.problems(in: svg).map { .error("figure: the drawing is not safe to ship: " + $0, check: .stageRules) }
        }
        issues += standardItemProblems(item, format: category.format, source: nil, labels: built.labels)
        if let repeated = avoid.repeated(by: ExamWork.duplicateKey(item)) {
            issues.append(.error("the question repeats one already in the bank ('\(repeated.prefix(120))'); ask about something else", check: .stageRules))
        }
        return (item, issues)
    }

    /// What is wrong with an item shown without its source text (every format but `reading`),
    /// judged against that text (`source`, the chunk it was built on): a stem speaking of "the
    /// text" the candidate does not see; a completion stem of more than one sentence; a fact
    /// item's wrong option that the text states word for word (so it is true too).
    func standardItemProblems(_ item: ExamItem, format: ExamCategory.Format, source: String?, labels: [String]?) -> [ValidationIssue] {
        guard item.passage == nil, format != .reading else { return [] }
        var issues = ExamRules.sourcelessIssues(prompt: item.prompt, format: format, language: spec.language)
        if format == .fact, let source {
            let names = labels.flatMap { $0.count == item.options.count ? $0 : nil } ?? item.options.indices.map { "option \($0 + 1)" }
            for (index, option) in item.options.enumerated() where !option.correct {
                if option.text.split(separator: " ").count >= 4, GroundingText.contains(option.text, in: source) {
                    issues.append(
                        .error(
                            "\(names[index]) ('\(option.text.prefix(120))') is stated in the source text word for word, so it is true too: "
                                + "a wrong option must be false", check: .stageRules))
                }
            }
        }
        return issues
    }
}

extension ExamItemStage.ComputedAnswer {
    /// The answer with every number a candidate reads (stem, options, feedback, explanation,
    /// figure labels and alt text) in `digits`, and its root and power terms isolated left to right
    /// when `language` is written right to left (BidiMath); the solution expression is left as
    /// written.
    func written(in digits: DigitSystem, language: String) -> ExamItemStage.ComputedAnswer {
        var copy = self
        let convert = { BidiMath.isolatingTerms(digits.apply(to: $0), language: language) }
        copy.prompt = convert(prompt)
        copy.correct_answer = correct_answer.mappingText(convert)
        copy.wrong_answers = wrong_answers.map { $0.mappingText(convert) }
        copy.explanation = convert(explanation)
        if var figure {
            figure.alt = convert(figure.alt)
            // What is drawn is written out, so that a measure without a label is in the exam's digits too.
            for index in figure.geometry.lengths.indices { figure.geometry.lengths[index].label = convert(figure.geometry.lengths[index].text) }
            for index in figure.geometry.angles.indices { figure.geometry.angles[index].label = figure.geometry.angles[index].text.map(convert) }
            for index in figure.geometry.circles.indices { figure.geometry.circles[index].label = figure.geometry.circles[index].label.map(convert) }
            copy.figure = figure
        }
        return copy
    }
}

extension MultipleChoice.AnswerText {
    func mappingText(_ convert: (String) -> String) -> MultipleChoice.AnswerText {
        MultipleChoice.AnswerText(text: convert(text), feedback: convert(feedback))
    }
}

/// The questions of a reading set that passed, kept across its attempts: a set of three questions
/// is accepted only when all three pass together, and the local model's passage-1 set was refused
/// 25 times in a row, almost every time for one question of the three (a source quote re-typed
/// from memory, two wrong options sharing one feedback, a blind solver choosing another option),
/// each time a different one. A question that passes its checks is kept in its place; a later
/// answer whose question there fails has the kept one put in instead, and the set so composed is
/// checked again as a whole (stems that repeat each other, then the inspector and the blind
/// solver). A question that any later error names ("questions[2]: …") is forgotten.
final class KeptQuestions<Question: Sendable>: Sendable {
    private let kept = Mutex<[Int: Question]>([:])

    /// The 0-based place of the question an error names ("questions[2]: …" is 1).
    static func index(named message: String) -> Int? {
        guard let match = message.prefixMatch(of: /questions\[(\d+)\]:/), let number = Int(match.output.1), number >= 1 else { return nil }
        return number - 1
    }

    /// Keeps the questions of `written` whose place is not in `failed`, then gives `written` with
    /// each failed question replaced by the one kept in its place; nil when none is.
    func compose(_ written: [Question], failed: Set<Int>) -> [Question]? {
        kept.withLock { kept in
            var composed = written
            var replaced = false
            for (index, question) in written.enumerated() {
                if !failed.contains(index) {
                    kept[index] = question
                } else if let earlier = kept[index] {
                    composed[index] = earlier
                    replaced = true
                }
            }
            return replaced ? composed : nil
        }
    }

    /// The composed set's JSON for the answer `text` it was composed from, as the last `compose`
    /// for that text left it.
    private let composedText = Mutex<(answer: String, json: String)?>(nil)

    /// Notes that `text`'s set was composed into `json` (nil: it ships as written), in place of
    /// what the last check noted.
    func noteComposed(_ json: String?, for text: String) {
        composedText.withLock { $0 = json.map { (text, $0) } }
    }

    /// The JSON of the set composed from `text`, when the last composition was of it; nil when
    /// `text` shipped as written.
    func composed(for text: String) -> String? {
        composedText.withLock { $0?.answer == text ? $0?.json : nil }
    }

    /// Forgets the questions `errors` name.
    func forget(namedIn errors: [String]) {
        kept.withLock { kept in
            for index in errors.compactMap(Self.index(named:)) { kept[index] = nil }
        }
    }
}
