import Foundation
import Testing

@testable import LecternCore

@Suite struct CheckMemoTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("memo-\(UUID().uuidString)")

    let refused = [ValidationIssue.error("the level-1 question asks nothing", check: .questionForm)]

    @Test func aVerdictIsComputedOnceAndReadByTheNextRunOfTheSameBuild() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let memo = try #require(CheckMemo(directory: folder, identity: "build-a"))
        var computed = 0
        let compute = { () -> [ValidationIssue] in
            computed += 1
            return refused
        }
        #expect(memo.verdict("rule", ["text", "en"], compute) == refused)
        #expect(memo.verdict("rule", ["text", "en"], compute) == refused)
        #expect(computed == 1)
        // Every argument is part of the key: another language, another split of the same text.
        #expect(memo.verdict("rule", ["text", "fr"], { [ValidationIssue]() }).isEmpty)
        #expect(memo.verdict("rule", ["tex", "ten"], { [ValidationIssue]() }).isEmpty)
        #expect(memo.verdict("other rule", ["text", "en"], { [ValidationIssue]() }).isEmpty)
        memo.flush()
        let next = try #require(CheckMemo(directory: folder, identity: "build-a"))
        #expect(
            next.verdict(
                "rule", ["text", "en"],
                {
                    Issue.record("recomputed"); return [ValidationIssue]()
                }) == refused)
        #expect(
            next.verdict(
                "rule", ["text", "fr"],
                {
                    Issue.record("recomputed"); return refused
                }
            ).isEmpty)
        #expect(next.counts == CheckMemo.Counts(reused: 2, computed: 0))
    }

    @Test func anotherBuildOfTheChecksRecomputesAndItsOldVerdictsAreDeleted() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let memo = try #require(CheckMemo(directory: folder, identity: "build-a"))
        _ = memo.verdict("rule", ["text"], { refused })
        memo.flush()
        let verdicts = folder.appendingPathComponent("verdicts")
        #expect(try FileManager.default.contentsOfDirectory(atPath: verdicts.path) == ["build-a.jsonl"])
        let rebuilt = try #require(CheckMemo(directory: folder, identity: "build-b"))
        #expect(rebuilt.verdict("rule", ["text"], { [ValidationIssue]() }).isEmpty, "a new build's checks judge again")
        #expect(rebuilt.counts == CheckMemo.Counts(reused: 0, computed: 1))
        #expect(try FileManager.default.contentsOfDirectory(atPath: verdicts.path).isEmpty)
    }

    @Test func aDamagedLineIsSkippedAndTheRestRead() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let memo = try #require(CheckMemo(directory: folder, identity: "build-a"))
        _ = memo.verdict("rule", ["one"], { refused })
        memo.flush()
        let file = folder.appendingPathComponent("verdicts/build-a.jsonl")
        var data = try Data(contentsOf: file)
        // A key with a verdict that does not decode, a key too short, a line that is no entry, a cut line.
        data.append(Data("{\"k\":\"\(CheckMemo.key("rule", ["three"]))\",\"v\":[{\"severity\":}\n".utf8))
        data.append(Data("{\"k\": \"short\", \"v\": []}\nnot json\n{\"k\":".utf8))
        try data.write(to: file)
        let next = try #require(CheckMemo(directory: folder, identity: "build-a"))
        #expect(next.verdict("rule", ["one"], { [ValidationIssue]() }) == refused)
        #expect(next.verdict("rule", ["two"], { refused }) == refused)
        #expect(next.verdict("rule", ["three"], { refused }) == refused, "a verdict that does not decode is computed again")
        #expect(next.counts == CheckMemo.Counts(reused: 1, computed: 2))
    }

    @Test func aBankReportIsAVerdictToo() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let memo = try #require(CheckMemo(directory: folder, identity: "build-a"))
        let report = BankReport(format: .course, items: 3, flagged: [.init(id: "practice/s01-t01/1", problems: [Refusal(.distinctQuestions, "the same question")])])
        #expect(memo.verdict("BankLint.check", ["{}"], { report }) == report)
        memo.flush()
        let next = try #require(CheckMemo(directory: folder, identity: "build-a"))
        #expect(next.verdict("BankLint.check", ["{}"], { BankReport(format: .course, items: 0, flagged: []) }) == report)
        #expect(next.verdict("BankLint.check", ["{}"], { refused }) == refused, "a verdict that is not of the type asked for is computed")
    }

    @Test func theRulesReadTheirVerdictsFromTheRunsMemo() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let question = ReinforcementQuestion(
            topicID: "s01-t01", level: 3, difficulty: "medium", frequencyDays: SizeRange(min: 7, max: 8), occurrence: 7, format: .freeText,
            prompt: "Explain what a variable is.", options: nil, referenceAnswer: "A name for a value.", explanation: "A variable names a value.",
            jeevaDifficulty: "3")
        let direct = ReinforcementRules.checkQuestion(question, expectedTopicID: "s01-t02")
        #expect(!direct.isEmpty, "another topic's id is refused")
        let memo = CheckMemo()
        let first = CheckMemo.$current.withValue(memo) { ReinforcementRules.checkQuestion(question, expectedTopicID: "s01-t02") }
        let again = CheckMemo.$current.withValue(memo) { ReinforcementRules.checkQuestion(question, expectedTopicID: "s01-t02") }
        let otherTopic = CheckMemo.$current.withValue(memo) { ReinforcementRules.checkQuestion(question, expectedTopicID: "s01-t01") }
        #expect(first == direct && again == direct)
        #expect(otherTopic == ReinforcementRules.checkQuestion(question, expectedTopicID: "s01-t01"))
        #expect(memo.counts == CheckMemo.Counts(reused: 1, computed: 2))
    }

    /// The stage names a question's options as the model wrote them, the bank lint of course.json
    /// as "option N": one verdict serves both, each with its own names.
    @Test func aQuestionsVerdictIsKeptWithoutItsOptionNames() throws {
        let question = Question(
            topicID: "s01-t01", format: .multipleChoice, prompt: "Which value is a string?",
            options: [
                Choice(text: "a river", correct: false, feedback: "No: a river is water, not text in quotes."),
                Choice(text: "\"hello\"", correct: true, feedback: "Yes: text in quotes is a string."),
                Choice(text: "the rivers", correct: false, feedback: "No: rivers are not text in quotes either."),
                Choice(text: "42", correct: false, feedback: "No: 42 is a number."),
            ],
            referenceAnswer: nil, explanation: "A string is text in quotes, such as \"hello\".")
        let labels = ["wrong_answers[1]", "correct_answer", "wrong_answers[2]", "wrong_answers[3]"]
        let memo = CheckMemo()
        let stage = CheckMemo.$current.withValue(memo) { QuestionRules.check(question, expectedTopicID: "s01-t01", optionLabels: labels) }
        let bank = CheckMemo.$current.withValue(memo) { QuestionRules.check(question, expectedTopicID: "s01-t01") }
        #expect(memo.counts == CheckMemo.Counts(reused: 1, computed: 1), "the bank lint reads the stage's verdict")
        let restated = try #require(stage.first { $0.message.contains("say the same thing in other words") }, "\(stage)")
        #expect(restated.message.hasPrefix("wrong_answers[1] ('a river') and wrong_answers[2] ('the rivers')"), "\(restated.message)")
        #expect(bank.map(\.message) == stage.map { $0.message.replacingOccurrences(of: "wrong_answers[1]", with: "option 1").replacingOccurrences(of: "wrong_answers[2]", with: "option 3") })
        // The same as computed directly, with either names: nothing but the names changed.
        #expect(stage == QuestionRules.computedCheck(question, expectedTopicID: "s01-t01", optionLabels: labels, optionCount: QuestionRules.optionCount, language: "en"))
        #expect(bank == QuestionRules.computedCheck(question, expectedTopicID: "s01-t01", optionLabels: nil, optionCount: QuestionRules.optionCount, language: "en"))
        #expect(!(stage + bank).contains { $0.message.unicodeScalars.contains(OptionNames.open) || $0.kind.unicodeScalars.contains(OptionNames.open) })
        // Names of the wrong count are not the options' names: "option N", as the rules say.
        #expect(QuestionRules.check(question, expectedTopicID: "s01-t01", optionLabels: ["x"]) == bank)
        // A stand-in the text itself holds is no name.
        #expect(OptionNames.replaced("a \u{E0F0}7\u{E0F1} b \u{E0F0}1\u{E0F1}", ["p", "q"]) == "a \u{E0F0}7\u{E0F1} b q")
    }

    @Test func theRunningExecutableHasAnIdentity() {
        defer { try? FileManager.default.removeItem(at: folder) }
        let identity = CheckMemo.executableIdentity()
        #expect(identity?.count == 32)
        #expect(identity == CheckMemo.executableIdentity())
    }
}
