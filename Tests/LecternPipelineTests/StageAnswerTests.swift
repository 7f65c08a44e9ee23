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
