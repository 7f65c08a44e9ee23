import Foundation
import LecternCore
import LecternMarkdown

/// One text of a model's answer that a learner reads: its field (for the repair message), its
/// Markdown, and whether it asserts what it says (a lecture, an explanation, feedback, a reference
/// answer) or may state something false on purpose (a prompt, an option).
public struct LearnerText: Sendable, Hashable {
    public var field: String
    public var markdown: String
    public var asserts: Bool

    public init(_ field: String, _ markdown: String, asserts: Bool) {
        self.field = field
        self.markdown = markdown
        self.asserts = asserts
    }
}

/// A stage's answer whose texts a learner reads: every kind's content checks (rendering,
/// arithmetic) run over `learnerTexts` after the stage's own checks pass.
public protocol LearnerVisible {
    var learnerTexts: [LearnerText] { get }
}

/// The checks every model answer's learner texts get, whatever its kind:
/// - **Rendering.** Each text is rendered as the bundle will render it; any warning (an unknown
///   TeX command shown as an error box, raw HTML left out, a link removed) makes the answer
///   invalid, and the repair message quotes the warning. TeX commands outside math delimiters,
///   which would show as typed, are refused too.
/// - **Form.** No text holds a field name of the answer's JSON or a quotation mark that closes no
///   quotation (`TextIntegrity.strayQuotes`: `… is η"), ` — the rest of the JSON after an option).
/// - **Arithmetic.** Each asserting text's equalities between evaluable expressions are evaluated
///   exactly (`ArithmeticClaims`); a false one makes the answer invalid.
/// - **Code.** Each asserting text's Python blocks must be code Python would accept
///   (`CodeStructure`: an `elif` after its `if`, a header with its colon and body).
public struct ContentInspector: Sendable {
    public var renderer: (any DocumentRenderer)?
    public var language: String

    /// The snake_case field names of the stages' answers, followed by a colon: never prose.
    nonisolated(unsafe) static let fieldName =
        /\b(reference_answer|correct_answer|wrong_answers|topic_id|subject_id|source_quote|frequency_days)\b\s*["']?\s*:/

    public init(renderer: (any DocumentRenderer)?, language: String) {
        self.renderer = renderer
        self.language = language
    }

    /// What is wrong with `texts`, as errors for a repair message.
    public func issues(_ texts: [LearnerText]) -> [ValidationIssue] {
        // The renderer is named by its type: a renderer's warnings depend on nothing else.
        let parts = [language, renderer.map { String(reflecting: type(of: $0)) } ?? "no renderer"] + texts.flatMap { [$0.field, $0.markdown, $0.asserts ? "asserts" : "shows"] }
        return CheckMemo.verdict("ContentInspector.issues", parts) { computedIssues(texts) }
    }

    func computedIssues(_ texts: [LearnerText]) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        for text in texts where !text.markdown.trimmed.isEmpty {
            // Answers read as JSON were recovered and checked when decoded; this covers the rest
            // (a lecture's Markdown) and anything a stage built from them.
            issues += TextIntegrity.inspect(text.markdown).problems.map { .error("\(text.field) \($0)", check: .textIntegrity) }
            // A field of the answer's JSON written into a text: the local model ended a bonus
            // question with "… a variable named 'money'. reference_answer:".
            let prose = MarkdownLayout(text.markdown).prose(codeSpan: { _ in " " })
            // Every field name holds an underscore: a text without one is passed over.
            if prose.utf8.contains(UInt8(ascii: "_")), let leaked = prose.firstMatch(of: Self.fieldName) {
                issues.append(
                    .error(
                        "\(text.field) holds the JSON field name '\(leaked.output.1)': each field's text goes in its own field of the answer, and no text names a field", check: .wellFormed))
            }
            // The rest of the answer's JSON after a text: `… is η"), ` as an option.
            if let stray = TextIntegrity.strayQuotes(text.markdown).first {
                issues.append(
                    .error(
                        "\(text.field) holds a quotation mark that closes no quotation ('\(stray)'): a piece of the answer's JSON left in the text; end the text where its sentence ends",
                        check: .wellFormed))
            }
            // TeX without math delimiters is shown as typed, with or without a renderer.
            let raw = TextIntegrity.commandsOutsideMath(text.markdown)
            if !raw.isEmpty {
                issues.append(
                    .error(
                        "\(text.field) does not render as written (\(raw.prefix(3).map { "\\" + $0 }.joined(separator: ", ")) outside math shows as typed): put formulas between $…$", check: .rendering
                    ))
            }
            if text.asserts {
                for claim in ArithmeticClaims.check(text.markdown).prefix(3) {
                    issues.append(.error("\(text.field) states false arithmetic: \(claim.message); compute it again and write the right value", check: .arithmetic))
                }
                // Code shown as working must run; a prompt or an option may show broken code on purpose.
                for problem in CodeStructure.pythonProblems(text.markdown).prefix(3) {
                    issues.append(.error(CodeStructure.repairMessage(problem, field: text.field), check: .stageRules))
                }
            }
            if let renderer {
                for warning in renderer.fragmentWarnings(text.markdown, language: language).prefix(5) {
                    issues.append(
                        .error(
                            "\(text.field) does not render as written (\(warning)): write TeX the renderer knows (standard LaTeX math commands) and Markdown without HTML", check: .rendering))
                }
            }
        }
        return issues
    }
}

extension String: LearnerVisible {
    /// A lecture or tone preview: Markdown that asserts what it says.
    public var learnerTexts: [LearnerText] { [LearnerText("the text", self, asserts: true)] }
}

extension Choice {
    func learnerTexts(_ name: String) -> [LearnerText] {
        [LearnerText("\(name)'s text", text, asserts: false), LearnerText("\(name)'s feedback", feedback, asserts: true)]
    }
}

/// The texts of a multiple-choice or free-text question: its prompt, options and their feedback,
/// reference answer and explanation.
func questionTexts(prompt: String, options: [Choice]?, referenceAnswer: String?, explanation: String, prefix: String = "") -> [LearnerText] {
    var texts = [LearnerText("\(prefix)prompt", prompt, asserts: false)]
    for (index, option) in (options ?? []).enumerated() {
        texts += option.learnerTexts("\(prefix)\(option.correct ? "correct_answer" : "wrong answer \(index + 1)")")
    }
    if let referenceAnswer { texts.append(LearnerText("\(prefix)reference_answer", referenceAnswer, asserts: true)) }
    texts.append(LearnerText("\(prefix)explanation", explanation, asserts: true))
    return texts
}

extension Question: LearnerVisible {
    public var learnerTexts: [LearnerText] {
        questionTexts(prompt: prompt, options: options, referenceAnswer: referenceAnswer, explanation: explanation)
    }
}

extension ReinforcementQuestion: LearnerVisible {
    public var learnerTexts: [LearnerText] {
        questionTexts(prompt: prompt, options: options, referenceAnswer: referenceAnswer, explanation: explanation)
    }
}

extension PracticeQuestion: LearnerVisible {
    /// A true/false statement keyed True asserts what it says; one keyed False is false on purpose.
    public var learnerTexts: [LearnerText] {
        var texts = questionTexts(prompt: prompt, options: options, referenceAnswer: nil, explanation: explanation)
        if format == .trueFalse, options.first?.correct == true { texts[0].asserts = true }
        return texts
    }
}

extension ExamItem: LearnerVisible {
    public var learnerTexts: [LearnerText] {
        questionTexts(prompt: prompt, options: options, referenceAnswer: nil, explanation: explanation)
    }
}

/// One element of an answer that is a list (a reading set's questions, a topic's flashcards, a
/// deck's written cards): its texts, each field named after `prefix` ("cards[3]: ").
public protocol LearnerVisibleElement {
    /// The list's name in a repair message: "questions", "cards".
    static var listName: String { get }
    func learnerTexts(prefix: String) -> [LearnerText]
}

extension Array: LearnerVisible where Element: LearnerVisibleElement {
    /// Each element's texts, named by its place in the list.
    public var learnerTexts: [LearnerText] {
        enumerated().flatMap { index, element in element.learnerTexts(prefix: "\(Element.listName)[\(index + 1)]: ") }
    }
}

extension ExamItem: LearnerVisibleElement {
    /// A reading set's questions.
    public static let listName = "questions"
    public func learnerTexts(prefix: String) -> [LearnerText] {
        questionTexts(prompt: prompt, options: options, referenceAnswer: nil, explanation: explanation, prefix: prefix)
    }
}

extension Flashcard: LearnerVisibleElement {
    public static let listName = "cards"
    /// The front is a term, a question or a sentence with a blank; the back states what is so.
    /// Named by its front (the answer lists terms, questions and clozes apart, so a place in
    /// the selected cards would not say which the model wrote).
    public func learnerTexts(prefix: String) -> [LearnerText] {
        let card = "the card '\(front.prefix(60))'"
        return [LearnerText("\(card)'s front", front, asserts: false), LearnerText("\(card)'s back", back, asserts: true)]
    }
}

extension DeckDraft: LearnerVisibleElement {
    public static let listName = "cards"
    /// A written card: its term, and the definition that states what is so.
    public func learnerTexts(prefix: String) -> [LearnerText] {
        [LearnerText("\(prefix)term", front, asserts: false), LearnerText("\(prefix)definition", back, asserts: true)]
    }
}

extension EndingProject: LearnerVisible {
    public var learnerTexts: [LearnerText] {
        [LearnerText("title", title, asserts: false), LearnerText("brief", brief, asserts: true)]
            + requirements.enumerated().map { LearnerText("requirements[\($0.offset + 1)]", $0.element, asserts: true) }
            + deliverables.enumerated().map { LearnerText("deliverables[\($0.offset + 1)]", $0.element, asserts: true) }
            + rubric.enumerated().flatMap { index, criterion in
                [LearnerText("rubric[\(index + 1)].criterion", criterion.criterion, asserts: true), LearnerText("rubric[\(index + 1)].excellent", criterion.excellent, asserts: true)]
            }
    }
}

extension Outline: LearnerVisible {
    public var learnerTexts: [LearnerText] {
        [LearnerText("title", title, asserts: false)]
            + subjects.enumerated().flatMap { s, subject in
                [LearnerText("subjects[\(s + 1)].title", subject.title, asserts: false)]
                    + subject.topics.enumerated().map { t, topic in LearnerText("subjects[\(s + 1)].topics[\(t + 1)].title", topic.title, asserts: false) }
            }
    }
}
