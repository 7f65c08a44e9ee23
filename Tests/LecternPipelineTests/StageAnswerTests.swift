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
        let first = TextKey.normalize("What is a variable in programming?")
        // What Qwen2.5-Coder-1.5B wrote: the first question, then an explanation appended.
        #expect(EngagementQuestionStage.repeats("What is a variable in programming? A variable is like a box for toys.", firstKey: first))
        #expect(EngagementQuestionStage.repeats("what is a variable in programming", firstKey: first))
        #expect(!EngagementQuestionStage.repeats("Why does a loop need a stopping condition?", firstKey: first))
        // Short texts are not compared by containment ("Why?" is in many questions).
        #expect(!EngagementQuestionStage.repeats("Why is x = 5 an assignment?", firstKey: TextKey.normalize("Why?")))
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
        #expect(errors.contains { $0.contains("gives the answer away") && $0.contains("reference_answer") })
        let quoted = bonus("Explain why a variable can be changed, while a constant cannot, in your own words?", "a variable can be changed, while a constant cannot")
        guard case .invalid(let quotedErrors) = EngagementQuestionStage.check(quoted, topicID: "s01-t01", format: .freeText) else {
            Issue.record("a question quoting its reference answer is rejected")
            return
        }
        #expect(quotedErrors.contains { $0.contains("contains the reference answer") })
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
        #expect(errors.contains { $0.contains("at least 10 characters") })
        let withOptions = Self.multipleChoice(
            prompt: "Which toy do you play with first, and why?", correct: "red ball", wrong: ["blue car", "both", "nothing"],
            reference: "The red ball, because it was found first.")
        guard case .valid(let q3, _) = ReinforcementStage.check(withOptions, topicID: "s01-t01", level: 3) else {
            Issue.record("a level-3 answer with a reference answer is valid")
            return
        }
        #expect(q3.options == nil, "levels 3–4 are free text even when the answer has options")
    }
}
