import Foundation
import LecternCore
import LecternLLM
import Testing

@testable import LecternPipeline

/// How the question stages read answers: the correct answer placed among the options, the
/// model's field names in messages, level rules of the reinforcement pool.
struct StageAnswerTests {
    static func multipleChoice(prompt: String, correct: String, wrong: [String], reference: String? = nil) -> String {
        var object: [String: JSONValue] = [
            "topic_id": "s01-t01", "prompt": .string(prompt), "explanation": "Because the lecture says so.",
            "correct_answer": ["text": .string(correct), "feedback": "Yes."],
            "wrong_answers": .array(wrong.map { ["text": .string($0), "feedback": "No."] }),
        ]
        if let reference { object["reference_answer"] = .string(reference) }
        return JSONValue.object(object).canonicalText
    }

    /// The model wrote TeX in JSON without doubling the backslash: `"$\frac{105}{512}$"` decodes
    /// to a form feed and "rac", `\times` to a tab and "imes". Inside math the command is put
    /// back; outside math the answer is sent back with what happened and what to do.
    @Test func texEatenByAJSONEscapeIsRecoveredInsideMathOrAsABareFormulaAndRefusedInProse() throws {
        let raw =
            #"{"topic_id": "s01-t01", "prompt": "What is the chance of exactly 5 heads in 10 flips?", "#
            + #""correct_answer": {"text": "$\frac{252}{1024}$", "feedback": "Yes: $\binom{10}{5} = 252$ of $2^{10}$ outcomes."}, "#
            + #""wrong_answers": [{"text": "$\frac{105}{512}$", "feedback": "No: that is $\frac{210}{1024}$."}, "#
            + #"{"text": "$\frac{1}{2}$", "feedback": "No: half is the chance of heads in one flip."}, "#
            + #"{"text": "$\frac{5}{10}$", "feedback": "No: $5 \times \frac{1}{10}$ is not a probability of this."}], "#
            + #""explanation": "Count the outcomes with 5 heads and divide by $2^{10}$."}"#
        guard case .valid(let q, _) = EngagementQuestionStage.check(raw, topicID: "s01-t01", format: .multipleChoice) else {
            Issue.record("the recovered answer is invalid")
            return
        }
        let texts = (q.options ?? []).flatMap { [$0.text, $0.feedback] }
        #expect(texts.contains(#"$\frac{252}{1024}$"#) && texts.contains(#"No: $5 \times \frac{1}{10}$ is not a probability of this."#))
        #expect(texts.contains(#"Yes: $\binom{10}{5} = 252$ of $2^{10}$ outcomes."#))
        #expect(!texts.joined().unicodeScalars.contains { $0.value < 0x20 })
        // An option that is one bare formula can only be math: it is read between $…$.
        let bare = raw.replacingOccurrences(of: #""text": "$\frac{105}{512}$""#, with: #""text": "\frac{105}{512}""#)
        guard case .valid(let read, _) = EngagementQuestionStage.check(bare, topicID: "s01-t01", format: .multipleChoice) else {
            Issue.record("a bare formula option was not read as math")
            return
        }
        #expect((read.options ?? []).map(\.text).contains(#"$\frac{105}{512}$"#))
        // Beside math already delimited nothing is guessed: the answer is sent back.
        let outside = raw.replacingOccurrences(of: #""feedback": "No: that is $\frac{210}{1024}$.""#, with: #""feedback": "No: that is \frac{210}{1024}, not $x$.""#)
        guard case .invalid(let errors) = EngagementQuestionStage.check(outside, topicID: "s01-t01", format: .multipleChoice) else {
            Issue.record("TeX without math delimiters that lost its backslash was accepted")
            return
        }
        #expect(errors.count == 1 && errors[0].message.hasPrefix(#"wrong_answers[1].feedback contains a form feed (U+000C) before "rac{210}{1024},""#), "\(errors)")
    }

    @Test func theCorrectAnswerIsPlacedByThePromptsHashAndSpreadOverPositions() throws {
        var positions = Set<Int>()
        for n in 0..<40 {
            let prompt = "Question number \(n) about loops?"
            let text = Self.multipleChoice(prompt: prompt, correct: "Right \(n)", wrong: ["W1", "W2", "W3"])
            guard case .valid(let q, _) = EngagementQuestionStage.check(text, topicID: "s01-t01", format: .multipleChoice) else {
                Issue.record("question \(n) is invalid")
                continue
            }
            let options = try #require(q.options)
            #expect(options.count == 4 && options.filter(\.correct).map(\.text) == ["Right \(n)"])
            let position = try #require(options.firstIndex { $0.correct })
            #expect(position == MultipleChoice.correctPosition(prompt: prompt, count: 4), "stable for the same prompt")
            #expect(options.filter { !$0.correct }.map(\.text) == ["W1", "W2", "W3"], "wrong answers keep their order")
            positions.insert(position)
        }
        #expect(positions == [0, 1, 2, 3])
    }

    @Test func aBonusQuestionThatStartsFromTheFirstOneRepeatsIt() {
        let first = "What is a variable in programming?"
        // What Qwen2.5-Coder-1.5B wrote: the first question, then an explanation appended.
        #expect(QuestionRules.holdsTheOther("What is a variable in programming? A variable is like a box for toys.", first))
        #expect(QuestionRules.holdsTheOther("what is a variable in programming", first))
        #expect(!QuestionRules.holdsTheOther("Why does a loop need a stopping condition?", first))
        // Short texts are not compared by containment ("Why?" is in many questions).
        #expect(!QuestionRules.holdsTheOther("Why is x = 5 an assignment?", "Why?"))
    }

    static let probabilityLecture = """
        # Conditional Probability

        Some opening words before the first section.

        ## The formula

        The conditional probability of A given B is P(A|B) = P(A ∩ B) / P(B), defined whenever the
        probability of B is above zero. The formula divides the probability of both events by the
        probability of the condition, which shrinks the sample space to the outcomes where B happened.

        ## Independent events

        Two events are independent when knowing that one happened does not change the chance of the
        other. Tossing a coin twice gives independent results: the first toss tells nothing about the
        second toss, so the chance of heads stays one half whatever came before it in the sequence.

        ```python
        ## not a heading: inside a fence
        print(0.5)
        ```

        ## Conclusion

        Independence and the formula for conditional probability are the two ideas of this lecture.
        """

    @Test func theBonusQuestionIsAskedAboutTheSectionFurthestFromTheFirstQuestion() {
        let first = Question(
            topicID: "s01-t03", format: .multipleChoice, prompt: "What is the formula for conditional probability?",
            options: [Choice(text: "P(A|B) = P(A ∩ B) / P(B)", correct: true, feedback: "Yes.")], referenceAnswer: nil, explanation: "")
        let sections = LectureRules.sections(Self.probabilityLecture)
        #expect(sections.map { $0.prefix(while: { $0 != "\n" }) } == ["## The formula", "## Independent events", "## Conclusion"])
        #expect(sections[1].contains("## not a heading: inside a fence"))
        let focus = EngagementQuestionStage.bonusFocus(lecture: Self.probabilityLecture, first: first)
        #expect(focus.hasPrefix("## Independent events"), "not the formula the first question asked, not the recap")
        #expect(!focus.contains("## Conclusion") && !focus.contains("opening words"))
        // A question about independence sends the bonus to the formula.
        var other = first
        other.prompt = "When are two events independent?"
        other.options = [Choice(text: "When one tells nothing about the other", correct: true, feedback: "Yes.")]
        #expect(EngagementQuestionStage.bonusFocus(lecture: Self.probabilityLecture, first: other).hasPrefix("## The formula"))
        // Without sections the lecture is given whole.
        let plain = "# Loops\n\nA loop repeats work until its condition is false."
        #expect(EngagementQuestionStage.bonusFocus(lecture: plain, first: first) == plain)
    }

    @Test func aFreeTextQuestionThatCarriesItsAnswerIsRejected() {
        func bonus(_ prompt: String, _ reference: String) -> String {
            JSONValue.object([
                "topic_id": "s01-t01", "prompt": .string(prompt), "reference_answer": .string(reference),
                "explanation": "Because the lecture says so.",
            ]).canonicalText
        }
        // What Qwen2.5-Coder-1.5B wrote under bonus-question@2.
        let marked = bonus(
            "What is the difference between a variable and a constant? (answer: A variable can be changed, while a constant cannot.)",
            "A variable can be changed, while a constant cannot.")
        guard case .invalid(let errors) = EngagementQuestionStage.check(marked, topicID: "s01-t01", format: .freeText) else {
            Issue.record("a question with '(answer: …)' in it is rejected")
            return
        }
        #expect(errors.contains { $0.message.contains("gives the answer away") && $0.message.contains("reference_answer") })
        let quoted = bonus("Explain why a variable can be changed, while a constant cannot, in your own words?", "a variable can be changed, while a constant cannot")
        guard case .invalid(let quotedErrors) = EngagementQuestionStage.check(quoted, topicID: "s01-t01", format: .freeText) else {
            Issue.record("a question quoting its reference answer is rejected")
            return
        }
        #expect(quotedErrors.contains { $0.message.contains("contains the reference answer") })
        let line = bonus("Why can a variable change?\nAnswer: because it is a name for a value.", "Because it names a value.")
        guard case .invalid = EngagementQuestionStage.check(line, topicID: "s01-t01", format: .freeText) else {
            Issue.record("a question with an 'Answer:' line is rejected")
            return
        }
        for prompt in [
            "Why would you use a constant instead of a variable for the number of days in a week?",
            "Imagine a program that counts visitors. Justify your answer: should the count be a variable?",
        ] {
            let fine = bonus(prompt, "Because it never changes.")
            if case .invalid(let e) = EngagementQuestionStage.check(fine, topicID: "s01-t01", format: .freeText) { Issue.record("valid question rejected: \(e)") }
        }
    }

    @Test func levelTwoTakesAShortReferenceAnswerOrFallsBackToTheCorrectOption() {
        let short = Self.multipleChoice(
            prompt: "Which toy do you play with first?", correct: "red ball", wrong: ["blue car", "both", "nothing"], reference: "red ball")
        guard case .valid(let q, _) = ReinforcementStage.check(short, topicID: "s01-t01", level: 2) else {
            Issue.record("a reference answer as short as the correct option is valid at level 2")
            return
        }
        #expect(q.referenceAnswer == "red ball" && q.options?.count == 4)
        let missing = Self.multipleChoice(prompt: "Which toy do you play with first?", correct: "red ball", wrong: ["blue car", "both", "nothing"])
        if case .valid(let q, _) = ReinforcementStage.check(missing, topicID: "s01-t01", level: 2) {
            #expect(q.referenceAnswer == "red ball")
        } else {
            Issue.record("level 2 without a reference answer uses its correct option")
        }
        // Level 1 has no reference answer; levels 3–4 need one that explains.
        if case .valid(let q, _) = ReinforcementStage.check(short, topicID: "s01-t01", level: 1) { #expect(q.referenceAnswer == nil) }
        let free: JSONValue = [
            "topic_id": "s01-t01", "prompt": "Explain why a loop needs a stopping condition.", "reference_answer": "stops",
            "explanation": "Without one it never ends.",
        ]
        guard case .invalid(let errors) = ReinforcementStage.check(free.canonicalText, topicID: "s01-t01", level: 3) else {
            Issue.record("a five-letter reference answer is not enough at level 3")
            return
        }
        #expect(errors.contains { $0.message.contains("at least 10 characters") })
        let withOptions = Self.multipleChoice(
            prompt: "Which toy do you play with first, and why?", correct: "red ball", wrong: ["blue car", "both", "nothing"],
            reference: "The red ball, because it was found first.")
        guard case .valid(let q3, _) = ReinforcementStage.check(withOptions, topicID: "s01-t01", level: 3) else {
            Issue.record("a level-3 answer with a reference answer is valid")
            return
        }
        #expect(q3.options == nil, "levels 3–4 are free text even when the answer has options")
    }

    /// Answers that are lists — a topic's flashcards, a deck's written cards — get the checks
    /// every learner text gets, found by the same cast the runner makes: a back stating false
    /// arithmetic or TeX the renderer does not know is refused, naming the card; a front (a term,
    /// a question, a sentence with a blank) is not held to its arithmetic.
    @Test func flashcardsAndWrittenCardsAreInspectedLikeEveryLearnerText() throws {
        let inspector = ContentInspector(renderer: MarkdownDocumentRenderer(), language: "en")
        let cards: any Sendable = [
            Flashcard(id: "s01-t01-c01", kind: .term, front: "dozen", back: "Twelve of a thing: $2 \\times 6 = 12$."),
            Flashcard(id: "s01-t01-c02", kind: .question, front: "Is 3 + 3 = 7?", back: "No: $3 + 3 = 5$, an odd number."),
            Flashcard(id: "s01-t01-c03", kind: .term, front: "half", back: "One of two equal parts, $\\halve{1}$."),
        ]
        let visible = try #require(cards as? any LearnerVisible, "a list of flashcards is a learner-visible answer")
        let issues = inspector.issues(visible.learnerTexts).map(\.message)
        #expect(issues.count == 2, "\(issues)")
        #expect(issues.contains { $0.hasPrefix("the card 'Is 3 + 3 = 7?''s back states false arithmetic: \"3 + 3 = 5\" is false") }, "\(issues)")
        #expect(issues.contains { $0.hasPrefix("the card 'half''s back does not render as written") && $0.contains("\\halve") }, "\(issues)")

        let written: any Sendable = [DeckDraft(id: "c001", line: nil, front: "mole", back: "An amount: $6.02 \\times 10^{23} = 602$ particles.")]
        let deck = try #require(written as? any LearnerVisible)
        #expect(inspector.issues(deck.learnerTexts).map(\.message).contains { $0.hasPrefix("cards[1]: definition states false arithmetic") })
    }

    /// A pool question that holds an earlier question of its topic whole, with more after it,
    /// repeats it; one that only shares a short generic question does not.
    /// A pool level is given one sentence of the lecture to ask about: about the topic, and sharing
    /// the least with what the topic already asked (python-basics' level 1 asked the engagement
    /// question again in 18 attempts of 18 when told "one fact or definition").
    @Test func aPoolLevelIsGivenASentenceOfTheLectureTheTopicsQuestionsLeftOut() {
        let excerpt = """
            ## Storing values

            Imagine you have a toy box with many different toys inside it.
            A variable stores a value so that your program can use the value again later.
            - You create a variable by writing its name, an equals sign and then the value: `cookies = 3`.
            Which name is best for a box of cookies in a program?
            Short.

            ```python
            cookies = 3  # a comment long enough to be a sentence of eight words.
            ```
            """
        let topic = "Variables. After this topic you can store values in variables."
        let sentence = ReinforcementStage.keySentence(in: excerpt, topic: topic, avoiding: ["What does a variable store in a program?"])
        #expect(sentence?.sentence == "You create a variable by writing its name, an equals sign and then the value: `cookies = 3`.")
        #expect(sentence?.paragraph == "- You create a variable by writing its name, an equals sign and then the value: `cookies = 3`.")
        // With nothing asked yet, the sentence naming the topic most, then the first.
        #expect(ReinforcementStage.keySentence(in: excerpt, topic: topic, avoiding: [])?.sentence == "A variable stores a value so that your program can use the value again later.")
        // Nothing about the topic: no sentence, and the general instruction stays.
        #expect(ReinforcementStage.keySentence(in: "Imagine you have a toy box with many different toys inside it.", topic: topic, avoiding: []) == nil)
        #expect(ReinforcementStage.instruction(level: 1, about: "A variable stores a value.").hasSuffix("not what the topic or a term means: \"A variable stores a value.\""))
        for level in 2...4 { #expect(ReinforcementStage.instruction(level: level, about: "A variable stores a value.").contains("\"A variable stores a value.\"")) }
    }

    @Test func aPoolQuestionHoldingAnEarlierQuestionRepeatsIt() {
        let earlier = [(id: "engagement-question/s01-t01", prompt: "What is a value in programming?")]
        let padded = "What is a value in programming? Imagine you have a toy box. Which toy would you pick?"
        #expect(
            ReinforcementStage.repeated(padded, earlier: earlier) == [
                Refusal(
                    .distinctQuestions,
                    "the question asks what engagement-question/s01-t01 already asks ('What is a value in programming?'); ask about another fact, step or idea of the lecture")
            ])
        #expect(ReinforcementStage.repeated("Which of these is a value a program can store?", earlier: earlier).isEmpty)
        let code = [(id: "engagement-question/s01-t02", prompt: "What does this print?\n```python\nprint(1 + 1)\n```")]
        #expect(ReinforcementStage.repeated("What does this print?\n```python\nprint('a' * 2)\n```", earlier: code).isEmpty, "other code, another question")
        // python-basics' level 4 was its level 3 with `apples` quoted otherwise and the last sentence left out.
        let level3 = [(id: "reinforcement/s01-t02/level-3", prompt: "What is the variable `apples` assigned to? The line of code reads 'apples = 5'.")]
        #expect(ReinforcementStage.repeated("What is the variable 'apples' assigned to?", earlier: level3).count == 1)
    }

    /// TeX written without math delimiters shows as typed: the recorded intro-probability options
    /// "f(x; \mu, \sigma) = \frac{1}{\sqrt{2\pi\sigma^2}} …" are refused, naming the commands; math,
    /// code and a Windows path are not.
    @Test func texOutsideMathIsRefusedAsNotRenderingAsWritten() {
        let raw = "f(x; \\mu, \\sigma) = \\frac{1}{\\sqrt{2\\pi\\sigma^2}} e^{-x^2}"
        #expect(TextIntegrity.commandsOutsideMath(raw) == ["mu", "sigma", "frac", "sqrt", "pi"])
        let inspector = ContentInspector(renderer: nil, language: "en")
        #expect(
            inspector.issues([LearnerText("correct_answer's text", raw, asserts: false)]).map(\.message) == [
                "correct_answer's text does not render as written (\\mu, \\sigma, \\frac outside math shows as typed): put formulas between $…$"
            ])
        #expect(inspector.issues([LearnerText("x", raw, asserts: false)])[0].check == .rendering)
        for fine in [
            "$f(x) = \\frac{1}{2}$", "$$\\sum_{i=1}^n i$$", "\\(\\alpha\\) and \\[\\beta\\]", "Use `\\n` for a new line.",
            "```latex\n\\frac{1}{2}\n```", "Open C:\\Users\\Documents\\notes.txt", "It costs \\$5, not \\$6.",
        ] {
            #expect(TextIntegrity.commandsOutsideMath(fine).isEmpty, "\(fine)")
        }
    }

    /// A field name of the answer's JSON written into a learner text is refused (it is filed under
    /// well-formed answers); in code, or without its colon, it is left alone.
    @Test func aFieldNameWrittenIntoATextIsRefused() {
        let inspector = ContentInspector(renderer: nil, language: "en")
        let leaked = "Suppose you add $5 to your piggy bank. You give the value 5 to a variable named 'money'. reference_answer:"
        let found = inspector.issues([LearnerText("prompt", leaked, asserts: false)])
        let issues = found.map(\.message)
        #expect(found.map(\.check) == [.wellFormed])
        #expect(issues == ["prompt holds the JSON field name 'reference_answer': each field's text goes in its own field of the answer, and no text names a field"])
        for fine in ["Print `topic_id: 3` with an f-string.", "```python\nrow = {\"topic_id\": 3}\n```", "The correct answer: 4."] {
            #expect(inspector.issues([LearnerText("prompt", fine, asserts: false)]).isEmpty, "\(fine)")
        }
    }

    /// A quotation mark that closes nothing is the rest of the answer's JSON left in a text: the
    /// local model's options "The mean of a normal distribution is η\"), " (intro-probability,
    /// refused before only because a blind solver picked another option). Quotations, code and
    /// math keep theirs.
    @Test func aQuotationMarkThatClosesNothingIsRefused() {
        let inspector = ContentInspector(renderer: nil, language: "en")
        let option = "The mean of a normal distribution is η\"), "
        let found = inspector.issues([LearnerText("correct_answer's text", option, asserts: false)])
        let issues = found.map(\.message)
        #expect(found.map(\.check) == [.wellFormed])
        #expect(
            issues == [
                "correct_answer's text holds a quotation mark that closes no quotation ('of a normal distribution is η\"),'): a piece of the answer's JSON left in the text; end the text where its sentence ends"
            ])
        // intro-probability's engagement question on a die, accepted through mending before this check.
        #expect(TextIntegrity.strayQuotes("The probability of rolling a 4 is $\\frac{1}{6}$\"). This is because") == ["robability of rolling a 4 is …\")."])
        #expect(TextIntegrity.strayQuotes("The mean is not φ\"). It is η\".") == ["The mean is not φ\").", "The mean is not φ\"). It is η\"."])
        for fine in [
            "He said \"the mean\", not \"the median\".", "Call print(\"Hello, World!\") to greet.", "`x = \"a\"),`", "Use \"(\" and \")\" to group.",
            "```python\nprint(\"done\")\n```", "$a\"$ is a symbol", "A \"quoted\nline\" across a break.", "It's \"yes\"; or \"no\"!",
        ] {
            #expect(TextIntegrity.strayQuotes(fine).isEmpty, "\(fine): \(TextIntegrity.strayQuotes(fine))")
        }
    }
}
