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

    @Test func theRunningExecutableHasAnIdentity() {
        defer { try? FileManager.default.removeItem(at: folder) }
        let identity = CheckMemo.executableIdentity()
        #expect(identity?.count == 32)
        #expect(identity == CheckMemo.executableIdentity())
    }
}
