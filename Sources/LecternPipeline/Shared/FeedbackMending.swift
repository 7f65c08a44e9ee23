import Foundation
import LecternCore
import LecternLLM

/// Mends an answer refused only for the feedback of wrong options — shared by two of them
/// (`QuestionRules.sameFeedback`), calling one right (`QuestionRules.callsAWrongAnswerRight`),
/// or written about the question instead of to the learner, unfinished, or with code outside a
/// block (`QuestionRules.checkLearnerText`), or stating false arithmetic — or for a question's
/// explanation failing those rules, writing the question out again
/// (`QuestionRules.checkNotTheQuestionAgain`) or stating false arithmetic (in an exam, also naming
/// numbers its source text lacks) — or for a course question's stem that is no question put to
/// the learner (it goes on after its question, asks nothing, stops in the middle, speaks as the
/// lecture does or about the question, holds a heading or code outside a block, or asks several
/// questions beside multiple-choice options): each such wrong
/// option's feedback, each such explanation and each such stem is written by the model in a call
/// of its own that sees the question, the key (and the explanation, for a feedback; the options,
/// for a stem) and that one option — then the whole answer is checked again.
///
/// Small models asked to repair the whole answer copy one feedback to every wrong option again:
/// the local model's intro-probability question on conditional probability was refused so at 6 of
/// its 11 attempts, with nothing else wrong in 4 of them. Asked about one wrong answer at a time,
/// it has nothing to copy. Its explanations opened "This question tests the learner's
/// understanding of …" attempt after attempt, the rest of the answer fit to publish. Its pool
/// questions asked "What is a variable in programming?" and went on with a story of 54 words, 2 to
/// 6 attempts in a row, everything else accepted; asked for the stem alone, with the draft to
/// keep the idea of, it has one job: the question last. The mended
/// answer meets every check an answer meets; when it does not, the item goes on to the usual
/// repair of the answer as the model wrote it.
public struct FeedbackMending: Sendable {
    public static let stage = "wrong-answer-feedback"
    /// The stage of an explanation's mend.
    public static let explanationStage = "explanation"
    /// The stage of a question stem's mend.
    public static let stemStage = "stem"
    /// The id a mend's exchanges are filed under: its item's, with `/wrong-answer-feedback` (or
    /// `/explanation`, `stage`).
    public static func itemID(of item: String, stage: String = stage) -> String { item + "/" + stage }
    static let schema = ResponseSchema(name: "wrong_answer_feedback", schema: SchemaParts.object(["feedback": SchemaParts.string], required: ["feedback"]))
    static let explanationSchema = ResponseSchema(name: "explanation", schema: SchemaParts.object(["explanation": SchemaParts.string], required: ["explanation"]))
    static let stemSchema = ResponseSchema(name: "stem", schema: SchemaParts.object(["prompt": SchemaParts.string], required: ["prompt"]))
    /// Tokens one feedback or explanation takes at most: one to three sentences.
    static let maxTokens = 300
    /// Tokens a stem takes at most: a few sentences, and the code it shows.
    static let stemMaxTokens = 600

    let template: PromptTemplate
    let explanationTemplate: PromptTemplate
    let stemTemplate: PromptTemplate
    /// The job's language code: feedback is compared as the check compares it.
    let language: String

    public init(language: String) throws {
        template = try PromptLibrary.template("review/wrong-answer-feedback")
        explanationTemplate = try PromptLibrary.template("review/explanation")
        stemTemplate = try PromptLibrary.template("review/stem")
        self.language = language
    }

    /// One text to write: where its object is in the answer, the field written (`feedback` of a
    /// wrong option, `explanation` or `prompt` of a question), and the prompt's values.
    struct Site: Equatable {
        var path: String
        var field: String = "feedback"
        var variables: [String: String]
        /// The text Lectern writes itself, without asking (`questionLast`); nil: the model is asked.
        var settled: String? = nil

        /// The stage its exchanges are filed under.
        var stage: String {
            switch field {
            case "explanation": FeedbackMending.explanationStage
            case "prompt": FeedbackMending.stemStage
            default: FeedbackMending.stage
            }
        }
        /// Where the written text goes, for `applying`.
        var key: String { path + "#" + field }
        /// The text for a message: "feedback of wrong_answers[2]", "explanation of questions[1]".
        var label: String { path.isEmpty ? field : field + " of " + path.dropFirst() }
    }

    /// Whether `errors` are all errors a mend can answer: wrong options sharing a feedback, or
    /// whose feedback calls them right or fails the rules of a learner's text
    /// (`QuestionRules.checkLearnerText`: "'wrong_answers[2]'s feedback' speaks about the question …"),
    /// and explanations failing those rules, repeating the question or stating false arithmetic
    /// (as a wrong option's feedback may, `falseArithmetic`); in an exam, also feedback
    /// about the question and numbers the source text lacks (`examLabel`, `ExamRules.unsourcedNumber`).
    static func mends(_ errors: [String]) -> Bool {
        !errors.isEmpty
            && errors.allSatisfy {
                $0.contains(QuestionRules.sameFeedback) || $0.contains(QuestionRules.callsAWrongAnswerRight) || $0.contains(Self.wrongFeedbackField)
                    || $0.contains(Self.explanationField) || $0.contains(Self.examLabel) || $0.contains(ExamRules.unsourcedNumber)
                    || $0.contains(Self.falseArithmetic) || $0.contains(Self.promptField)
            }
    }

    /// A course question's stem that is no question put to the learner (`stemProblems`): "'the
    /// level-3 question's prompt' goes on after its question …", "'prompt' asks nothing …".
    nonisolated(unsafe) static let promptField =
        #/'(the level-\d question's )?prompt' (goes on after its question|asks nothing|asks \d+ questions|stops in the middle|speaks as the lecture does|speaks about the question|holds a heading|shows code outside a code block)/#

    /// An exam's learner-text or made-up-number error on an explanation or an option's feedback
    /// ("'the feedback of 'Age'' speaks about the question …", "questions[1]: the explanation names
    /// 1925, which neither the source text …"). Only a wrong option's feedback and an explanation
    /// are written again; an error on the key's feedback leaves the mended answer refused.
    nonisolated(unsafe) static let examLabel = #/'the feedback of '.*'' (speaks about the question|stops in the middle)/#

    /// False arithmetic in a wrong option's feedback or an explanation (`ContentInspector`: "wrong
    /// answer 2's feedback states false arithmetic: …"): the local model's feedback on a wrong count
    /// gave "the permutation formula P(5, 3) = 5! / (3!(5-3)!)", the rest of the answer fit.
    nonisolated(unsafe) static let falseArithmetic = #/(wrong answer \d+'s feedback|explanation) states false arithmetic: /#
    /// A learner-text error on a wrong option's feedback names its field so.
    nonisolated(unsafe) static let wrongFeedbackField = #/wrong_answers\[\d+\]'s feedback' /#
    /// A learner-text error on a question's explanation ("'explanation' speaks about …", "'the
    /// level-2 question's explanation' stops …").
    nonisolated(unsafe) static let explanationField =
        #/'(the level-\d question's )?explanation' (speaks about the question|stops in the middle|shows code outside a code block|repeats the question word for word)/#

    /// The answer's JSON object and the wrong options of its questions whose feedback is unfit
    /// (`questionSites`), in the answer's order; nil when the answer is no JSON object or no
    /// wrong option's feedback is unfit.
    /// `variables` are the item's prompt values (`language`, `tone`, an exam's `passage` or `source`).
    func sites(in answer: String, variables: [String: String]) -> (JSONValue, [Site])? {
        guard let root = JSONExtraction.firstJSONValue(in: answer), case .object = root else { return nil }
        var sites: [Site] = []
        Self.collect(root, path: "", variables: variables, language: language, into: &sites)
        return sites.isEmpty ? nil : (root, sites)
    }

    private static func collect(_ value: JSONValue, path: String, variables: [String: String], language: String, into sites: inout [Site]) {
        switch value {
        case .object(let object):
            if let wrong = object["wrong_answers"]?.arrayValue {
                sites += questionSites(object, wrong: wrong, path: path, variables: variables, language: language)
            }
            if let site = explanationSite(object, path: path, variables: variables) { sites.append(site) }
            if let site = stemSite(object, path: path, variables: variables, language: language) { sites.append(site) }
            for key in object.keys.sorted() where key != "wrong_answers" {
                if let element = object[key] { collect(element, path: path + "." + key, variables: variables, language: language, into: &sites) }
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() { collect(element, path: path + "[\(index)]", variables: variables, language: language, into: &sites) }
        case .null, .bool, .number, .string:
            break
        }
    }

    /// The sites of one question: every wrong option in a group sharing one feedback (compared as
    /// the check compares them, `TextKey`; each group whole: the feedback they share is written for
    /// none of them), and every wrong option whose feedback calls it right or fails the rules of a
    /// learner's text.
    private static func questionSites(
        _ question: [String: JSONValue], wrong: [JSONValue], path: String, variables: [String: String], language: String
    ) -> [Site] {
        var groups: [String: [Int]] = [:]
        var unfit: [Int] = []
        for (index, option) in wrong.enumerated() {
            guard let feedback = option["feedback"]?.stringValue, option["text"]?.stringValue != nil else { continue }
            let key = TextKey.normalize(feedback, language: language)
            if key.count >= QuestionRules.sharedFeedbackMinimum { groups[key, default: []].append(index) }
            if QuestionRules.feedbackCallsItRight(feedback, language: language)
                || !QuestionRules.checkLearnerText("feedback", feedback, afterPrompt: true).errors.isEmpty
                || inventsNumbers(feedback, in: question, variables: variables) || !ArithmeticClaims.check(feedback).isEmpty
            {
                unfit.append(index)
            }
        }
        let rewritten = Set(groups.values.filter { $0.count > 1 }.flatMap { $0 } + unfit).sorted()
        guard !rewritten.isEmpty, let prompt = question["prompt"]?.stringValue, let correct = question["correct_answer"]?["text"]?.stringValue else { return [] }
        let explanation = question["explanation"]?.stringValue.map { "Why it is correct: \($0)" } ?? ""
        // An exam's text (a reading set's passage, an item's source): the feedback says what it says.
        let passage = (variables["passage"] ?? variables["source"]).map { "Read this text:\n\n\($0)\n\n" } ?? ""
        let tone = variables["tone"].map { " Tone: \($0)" } ?? ""
        return rewritten.compactMap { index in
            guard let option = wrong[index]["text"]?.stringValue else { return nil }
            return Site(
                path: path + ".wrong_answers[\(index)]",
                variables: [
                    "context": passage, "prompt": prompt, "correct": correct, "explanation": explanation, "option": option,
                    "language": variables["language"] ?? "English", "tone": tone, "schema": AnswerParsing.schemaText(schema),
                ])
        }
    }

    /// The site of a question's explanation (an object with a `prompt` and an `explanation`)
    /// that fails the rules of a learner's text or writes the question out again; its key is the
    /// correct option or the reference answer.
    private static func explanationSite(_ question: [String: JSONValue], path: String, variables: [String: String]) -> Site? {
        guard let prompt = question["prompt"]?.stringValue, let explanation = question["explanation"]?.stringValue,
            let correct = question["correct_answer"]?["text"]?.stringValue ?? question["reference_answer"]?.stringValue,
            !QuestionRules.checkLearnerText("explanation", explanation, afterPrompt: true).errors.isEmpty
                || !QuestionRules.checkNotTheQuestionAgain("explanation", explanation, prompt: prompt).isEmpty
                || inventsNumbers(explanation, in: question, variables: variables) || !ArithmeticClaims.check(explanation).isEmpty
        else { return nil }
        let passage = (variables["passage"] ?? variables["source"]).map { "Read this text:\n\n\($0)\n\n" } ?? ""
        let tone = variables["tone"].map { " Tone: \($0)" } ?? ""
        return Site(
            path: path, field: "explanation",
            variables: [
                "context": passage, "prompt": prompt, "correct": correct, "language": variables["language"] ?? "English", "tone": tone,
                "schema": AnswerParsing.schemaText(explanationSchema),
            ])
    }

    /// The errors of a course question's stem a mend answers (`promptField`), as the question's
    /// checks find them (`QuestionRules.check`, `ReinforcementRules.checkQuestion`, the practice
    /// set's): a true/false statement (`format` "true_false") is not held to asking something.
    static func stemProblems(_ prompt: String, multipleChoice: Bool, statement: Bool, language: String = "en") -> [String] {
        let field = "prompt"
        let issues =
            QuestionRules.checkNoHeading(field, prompt) + QuestionRules.checkFinished(field, prompt)
            + QuestionRules.checkAskedOfTheLearner(field, prompt, asks: !statement, language: language) + QuestionRules.checkLearnerText(field, prompt, afterPrompt: false)
            + (multipleChoice ? QuestionRules.checkOneQuestion(field, prompt) : [])
        return issues.errors.map(\.message).filter { $0.contains(Self.promptField) }
    }

    /// The site of a course question's stem that fails `stemProblems`: the model writes it again
    /// from the draft, seeing the options and the key (or the reference answer). Never an exam's:
    /// its stems are held to its source text, and its messages name them otherwise.
    private static func stemSite(_ question: [String: JSONValue], path: String, variables: [String: String], language: String) -> Site? {
        guard variables["passage"] == nil, variables["source"] == nil, let prompt = question["prompt"]?.stringValue else { return nil }
        let wrong = (question["wrong_answers"]?.arrayValue ?? []).compactMap { $0["text"]?.stringValue }
        let answers: String
        if let correct = question["correct_answer"]?["text"]?.stringValue, !wrong.isEmpty {
            answers =
                "The learner chooses one of these answers: " + ([correct] + wrong).sorted().map { "\"\($0)\"" }.joined(separator: "; ")
                + ". The correct one is \"\(correct)\"."
        } else if let reference = question["reference_answer"]?.stringValue, !reference.trimmed.isEmpty {
            answers = "The learner writes the answer; a good one says: \(reference.trimmed)"
        } else {
            return nil
        }
        let statement = question["format"]?.stringValue == "true_false"
        let problems = stemProblems(prompt, multipleChoice: !wrong.isEmpty && !statement, statement: statement, language: language)
        guard !problems.isEmpty else { return nil }
        // A stem wrong only in going on after its question ends with it: Lectern cuts what follows.
        let settled = problems.allSatisfy { $0.contains(Self.goesOn) } ? questionLast(prompt) : nil
        let tone = variables["tone"].map { " Tone: \($0)" } ?? ""
        return Site(
            path: path, field: "prompt",
            variables: [
                "draft": prompt, "answers": answers, "language": variables["language"] ?? "English", "tone": tone,
                "schema": AnswerParsing.schemaText(stemSchema),
            ], settled: settled)
    }

    static let goesOn = "goes on after its question"

    /// `stem` ended with its last question (`QuestionRules.askedQuestions`), the words after it
    /// left out — when the question stands alone: five words or more, none pointing at what
    /// followed ("the following", "this code", "below"). The local
    /// model's pool questions asked "What is a variable in programming?" and went on "Imagine you
    /// have a magical box …" for 54 words, or answered themselves ("It's like giving a name to
    /// something …"); asked to write the stem again, it kept the order. What follows a question
    /// is either its answer, which a stem leaves out, or a story the question does not need; nil
    /// when the question is not found in the text as it is, or leans on what follows.
    static func questionLast(_ stem: String) -> String? {
        guard let question = QuestionRules.askedQuestions(stem).last?.question, let found = stem.range(of: question, options: .backwards) else { return nil }
        var end = found.upperBound
        while end < stem.endIndex, "?؟\"'”’)»".contains(stem[end]) { end = stem.index(after: end) }
        let kept = stem[..<end].trimmingCharacters(in: .whitespacesAndNewlines)
        func words(_ text: String) -> Int { text.split(whereSeparator: { $0.isWhitespace }).filter { $0.contains(where: \.isLetter) }.count }
        guard words(question) >= 5, question.firstMatch(of: Self.pointsOnward) == nil else { return nil }
        return kept
    }

    nonisolated(unsafe) static let pointsOnward =
        /(?i)\b(the following|below|next|this (code|example|program|line|snippet|story|situation|scenario|case)|these (lines|examples|steps))\b/

    /// Whether `text`, written on an exam's text (the `passage` or `source` of the prompt), names a
    /// number that neither that text nor the question and its options have
    /// (`ExamRules.unsourcedNumbers`). Never for a course, which has no source text.
    private static func inventsNumbers(_ text: String, in question: [String: JSONValue], variables: [String: String]) -> Bool {
        guard let source = variables["passage"] ?? variables["source"], let prompt = question["prompt"]?.stringValue else { return false }
        let options = ([question["correct_answer"]] + (question["wrong_answers"]?.arrayValue ?? []).map { Optional($0) })
            .compactMap { $0?["text"]?.stringValue }
        return !ExamRules.unsourcedNumbers(in: text, prompt: prompt, options: options, source: source).isEmpty
    }

    /// The request for `site`.
    func request(_ site: Site, model: String, temperature: Double, seed: Int?) -> LLMRequest {
        LLMRequest(
            model: model, messages: template(of: site).messages(site.variables), temperature: temperature,
            maxTokens: site.field == "prompt" ? Self.stemMaxTokens : Self.maxTokens,
            responseSchema: Self.schema(of: site), seed: seed)
    }

    static func schema(of site: Site) -> ResponseSchema {
        switch site.field {
        case "explanation": explanationSchema
        case "prompt": stemSchema
        default: schema
        }
    }

    /// The template of `site`'s request.
    func template(of site: Site) -> PromptTemplate {
        switch site.field {
        case "explanation": explanationTemplate
        case "prompt": stemTemplate
        default: template
        }
    }

    /// The text of an answer to a request of `request(_:…)` for a `field`; nil when it holds none.
    static func text(in response: LLMResponse, field: String = "feedback") -> String? {
        guard response.finishReason == .stop, let value = JSONExtraction.firstJSONValue(in: response.content),
            let text = value[field]?.stringValue?.trimmed, !text.isEmpty
        else { return nil }
        return text
    }

    /// `root` with the text at each site key of `written` (`Site.key`: an object's path and the
    /// field written) replaced, as JSON text.
    static func applying(_ written: [String: String], to root: JSONValue) -> String {
        replaced(root, path: "", written: written).canonicalText
    }

    private static func replaced(_ value: JSONValue, path: String, written: [String: String]) -> JSONValue {
        switch value {
        case .object(var object):
            for field in ["feedback", "explanation", "prompt"] {
                if let new = written[path + "#" + field] { object[field] = .string(new) }
            }
            for (key, element) in object { object[key] = replaced(element, path: path + "." + key, written: written) }
            return .object(object)
        case .array(let elements):
            return .array(elements.enumerated().map { replaced($1, path: path + "[\($0)]", written: written) })
        case .null, .bool, .number, .string:
            return value
        }
    }
}
