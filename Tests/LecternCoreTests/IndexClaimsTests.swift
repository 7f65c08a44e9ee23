import Foundation
import Testing

@testable import LecternCore

/// A key that counts its stem's index otherwise than its own texts (`IndexClaims`,
/// `QuestionRules.checkKeyAgreesWithIndexing`): the recorded wrong key, the same question keyed
/// right, a language counting from one, and texts that say nothing sure.
struct IndexClaimsTests {
    /// python-collections' engagement question on lists, as the local model wrote it (20:55).
    static let recordedPrompt =
        "Create a list called `my_list` with the numbers 1, 2, 3, 4, 5. Then, print the second item in `my_list`. What does `my_list[2]` represent?"
    static let recordedExplanation =
        "In this question, we first create a list called `my_list` with the numbers 1 through 5. We then print the second item in the list using the index `2`. The second item is the third number in the list, which is 3. This is why `my_list[2]` represents the third item in the list."

    static func options(key: String, keyFeedback: String) -> [Choice] {
        [
            Choice(text: "The first item in the list.", correct: false, feedback: "The index is 0, so `my_list[1]` is the second item in the list."),
            Choice(text: "The last item in the list.", correct: false, feedback: "The index is 4, not 5, so `my_list[4]` is the fifth item in the list."),
            Choice(text: "The length of the list minus one.", correct: false, feedback: "`my_list[5]` does not exist."),
            Choice(text: key, correct: true, feedback: keyFeedback),
        ]
    }

    @Test func theRecordedKeyCountingOtherwiseThanItsFeedbackIsRefused() throws {
        let options = Self.options(
            key: "The second item in the list.", keyFeedback: "The index starts at 0, so `my_list[2]` refers to the third item in the list.")
        let errors = QuestionRules.checkKeyAgreesWithIndexing(prompt: Self.recordedPrompt, options: options, explanation: Self.recordedExplanation)
        let error = try #require(errors.first)
        #expect(errors.count == 1)
        #expect(error.message.contains("the key ('The second item in the list.') counts the index otherwise than"), "\(error.message)")
        #expect(error.message.contains("`my_list[2]` is item 3, not item 2"), "\(error.message)")
        // Through the multiple-choice checks every question kind runs.
        let all = QuestionRules.checkMultipleChoice(prompt: Self.recordedPrompt, options: options, explanation: Self.recordedExplanation)
        #expect(all.errors.contains { $0.message.contains(QuestionRules.keyAgainstIndexing) })
    }

    @Test func theSameQuestionKeyedRightPasses() {
        let options = Self.options(
            key: "The third item in the list.", keyFeedback: "The index starts at 0, so `my_list[2]` refers to the third item in the list.")
        #expect(QuestionRules.checkKeyAgreesWithIndexing(prompt: Self.recordedPrompt, options: options, explanation: Self.recordedExplanation).isEmpty)
    }

    @Test func aLanguageCountingFromOneIsHeldToItsOwnTexts() {
        let options = [
            Choice(text: "The second element", correct: true, feedback: "Yes: in R, indexing starts at 1, so `x[2]` is the second element."),
            Choice(text: "The third element", correct: false, feedback: "That would be `x[3]`."),
        ]
        #expect(
            QuestionRules.checkKeyAgreesWithIndexing(prompt: "What does `x[2]` return for `x <- c(5, 6, 7)`?", options: options, explanation: "R counts from one.").isEmpty)
    }

    @Test func textsThatSayNothingSureLeaveTheKeyAlone() {
        let prompt = "What does `my_list[2]` represent?"
        // No claim in the key's feedback or the explanation.
        let silent = [Choice(text: "The second item", correct: true, feedback: "Yes."), Choice(text: "The first item", correct: false, feedback: "No.")]
        #expect(QuestionRules.checkKeyAgreesWithIndexing(prompt: prompt, options: silent, explanation: "Lists hold items in order.").isEmpty)
        // The texts disagree with each other: nothing to hold the key to.
        let torn = [
            Choice(text: "The second item", correct: true, feedback: "`my_list[2]` is the second item."),
            Choice(text: "The first item", correct: false, feedback: "No."),
        ]
        #expect(QuestionRules.checkKeyAgreesWithIndexing(prompt: prompt, options: torn, explanation: "`my_list[2]` is the third item.").isEmpty)
        // A wrong option's feedback may word the mistake; it is not read.
        let mistaken = [
            Choice(text: "The third item", correct: true, feedback: "Right."),
            Choice(text: "The second item", correct: false, feedback: "You may think `my_list[2]` is the second item, but counting starts at 0."),
        ]
        #expect(QuestionRules.checkKeyAgreesWithIndexing(prompt: prompt, options: mistaken, explanation: "Indexes start at 0.").isEmpty)
        // A stem with two subscripts, or a key that is no ordinal, asks nothing this reads.
        let two = "Which is larger, `a[0]` or `a[1]`?"
        #expect(QuestionRules.checkKeyAgreesWithIndexing(prompt: two, options: silent, explanation: "`a[1]` is the second item.").isEmpty)
        let value = [Choice(text: "3", correct: true, feedback: "`my_list[2]` is the second item."), Choice(text: "2", correct: false, feedback: "No.")]
        #expect(QuestionRules.checkKeyAgreesWithIndexing(prompt: prompt, options: value, explanation: "Indexes start at 0.").isEmpty)
    }

    @Test func claimsAreReadForwardBackwardAndFromTheStart() {
        #expect(IndexClaims.claims(in: "`fruits[0]` is the first fruit.").map(\.offset) == [1])
        #expect(IndexClaims.claims(in: "The third element is `nums[2]`.").map(\.offset) == [1])
        #expect(IndexClaims.claims(in: "Indexing starts at 1 in Lua.").map(\.offset) == [0])
        #expect(IndexClaims.claims(in: "The index starts at zero.").map(\.offset) == [1])
        // Slices, nested and negative subscripts name no single ordinal.
        #expect(IndexClaims.claims(in: "`a[1:3]` is the second and third item.").isEmpty)
        #expect(IndexClaims.claims(in: "`m[1][2]` is the third item of the second row.").isEmpty)
        #expect(IndexClaims.claims(in: "`a[-1]` is the last item.").isEmpty)
        #expect(IndexClaims.ordinal(of: "The 2nd element of the list") == 2)
        #expect(IndexClaims.ordinal(of: "It removes the second item and returns it") == nil)
    }
}

/// The check on every multiple-choice question the committed cassettes hold (accepted and
/// refused answers alike): it flags the one recorded wrong key and nothing else.
struct IndexClaimsCorpusTests {
    static let knownMistakes = [IndexClaimsTests.recordedPrompt]

    @Test func theCassettesQuestionsFlagOnlyTheRecordedWrongKey() throws {
        var flagged: Set<String> = []
        var checked = 0
        func visit(_ value: Any) {
            if let object = value as? [String: Any] {
                if let prompt = object["prompt"] as? String, let correct = object["correct_answer"] as? [String: Any],
                    let key = correct["text"] as? String, let wrong = object["wrong_answers"] as? [[String: Any]]
                {
                    let options =
                        [Choice(text: key, correct: true, feedback: correct["feedback"] as? String ?? "")]
                        + wrong.map { Choice(text: $0["text"] as? String ?? "", correct: false, feedback: $0["feedback"] as? String ?? "") }
                    checked += 1
                    let explanation = object["explanation"] as? String ?? ""
                    if !QuestionRules.checkKeyAgreesWithIndexing(prompt: prompt, options: options, explanation: explanation).isEmpty {
                        flagged.insert(prompt.trimmingCharacters(in: .whitespacesAndNewlines))
                    }
                }
                for key in object.keys.sorted() { visit(object[key] as Any) }
            } else if let array = value as? [Any] {
                for element in array { visit(element) }
            } else if let text = value as? String, let data = text.data(using: .utf8),
                let inner = try? JSONSerialization.jsonObject(with: data), inner is [Any] || inner is [String: Any]
            {
                visit(inner)
            }
        }
        for url in ArithmeticClaimsCorpusTests.files(under: "pipelines/cassettes")
        where url.lastPathComponent.hasSuffix(".jsonl") && !url.lastPathComponent.hasSuffix(".log.jsonl") {
            for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
                let record = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                visit((record?["response"] as? [String: Any])?["content"] as Any)
            }
        }
        #expect(checked >= 100, "\(checked) questions")
        #expect(flagged.sorted() == Self.knownMistakes.sorted())
    }
}
