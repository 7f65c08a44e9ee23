import Foundation
import LecternCore
import LecternLLM
import Testing

@testable import LecternPipeline

/// Each option judged on its own (`review: { judge_options: true }`, issue 48 §2): for every
/// option of every multiple-choice question, a reviewing model says whether that answer alone is
/// a correct answer according to the text it was written from — through the real runner, engine
/// and cache on a scripted provider.
struct OptionJudgeTests {
    static let item = "engagement-question/s01-t02"
    /// Words of the scripted lecture, which a verdict may quote as what decides it.
    static let lectureWords = "using small programs that you can run yourself"

    /// Every option of `item`'s `attempt` judged `correct`, quoting `quote`.
    static func judgement(attempt: Int, correct: Bool, quote: String, reason: String) -> JSONValue {
        [
            "stage": .string(OptionJudge.stage), "item": .string(OptionJudge.itemID(of: item)), "attempt": .number(Double(attempt)),
            "json": ["correct": .bool(correct), "quote": .string(quote), "reason": .string(reason)],
        ]
    }

    /// The scripted answer of every other judgement: the option judged as keyed.
    static let asKeyed: JSONValue = ["stage": .string(OptionJudge.stage), "json": ["correct": "{{expected}}", "quote": "", "reason": ""]]

    static func spec() throws -> JobSpec {
        try Workspace.spec(Specs.pinned + "\nreview: { judge_options: true }")
    }

    @Test func aWrongOptionJudgedCorrectQuotingTheLectureIsRepaired() async throws {
        let ws = try Workspace()
        let reason = "The lecture says any of these helps."
        // The first answer words its question and wrong answers its own way; every option is judged correct.
        let first = RepairTests.rewordedFirstAnswer(item: Self.item)
        let provider = try RecordingProvider(
            script: ws.script(extra: [first, Self.judgement(attempt: 1, correct: true, quote: Self.lectureWords, reason: reason), Self.asKeyed]))
        let result = try await ws.run(try Self.spec(), provider: provider)
        #expect(result.status == .complete, "\(result.failures)")
        let asked = provider.requests.filter { $0.0.itemID.hasPrefix(Self.item) }
        #expect(
            asked.map { "\($0.0.stage) \($0.0.attempt)" } == ["engagement-question 1", "blind-solve 1"] + Array(repeating: "option-judge 1", count: 4)
                + ["engagement-question 2", "blind-solve 2"] + Array(repeating: "option-judge 2", count: 4))
        // Each judgement reads the question, one option and the lecture, never the key or the feedback.
        let judgements = asked.filter { $0.0.stage == OptionJudge.stage && $0.0.attempt == 1 }.map { $0.1.messages.map(\.content).joined(separator: "\n") }
        for option in ["It helps structure programs", "It is deprecated", "Java only", "It slows programs"] {
            #expect(judgements.filter { $0.contains("The answer to judge:\n\(option)") }.count == 1, "\(option)")
        }
        #expect(judgements.allSatisfy { $0.contains("Topic: Loops") && $0.contains(Self.lectureWords) && !$0.contains("Right.") && !$0.contains("correct_answer") })
        let judge = try #require(asked.first { $0.0.stage == OptionJudge.stage }?.1)
        #expect(judge.temperature == 0 && judge.responseSchema?.name == "option_judgement")
        // The repair names each wrong option the judge found correct, with its quote and reason; the key, judged correct, is not named.
        let repair = try #require(asked.first { $0.0.stage == "engagement-question" && $0.0.attempt == 2 }?.1.messages.last?.content)
        #expect(repair.contains("found 'It is deprecated' a correct answer too: “\(Self.lectureWords)” — \(reason)"), "\(repair)")
        #expect(!repair.contains("found 'It helps structure programs'"))
        let quality = try #require(result.quality)
        #expect(quality.checks.first { $0.check == .rubric }?.repaired == 1)
        #expect(quality.items.rubric == RubricTally(judged: 5, passed: 5), "\(String(describing: quality.items.rubric))")
    }

    @Test func aVerdictThatQuotesNothingOfTheTextIsCountedNotActedOn() async throws {
        let ws = try Workspace()
        let provider = try RecordingProvider(
            script: ws.script(extra: [Self.judgement(attempt: 1, correct: false, quote: "loops are never needed at all", reason: "No."), Self.asKeyed]))
        let result = try await ws.run(try Self.spec(), provider: provider)
        #expect(result.status == .complete)
        #expect(result.reports[Self.item]?.attempts == 1)
        // The key judged not correct, on a quote the lecture does not hold: one unchecked verdict.
        #expect(result.reports[Self.item]?.rubric == RubricTally(judged: 1, passed: 1, unquoted: 1))
    }

    @Test func besideTheRubricEachAnswerIsJudgedOnce() async throws {
        let ws = try Workspace()
        let provider = try RecordingProvider(script: ws.script(extra: [Self.asKeyed]))
        var spec = try Self.spec()
        spec.review.rubric = true
        let result = try await ws.run(spec, provider: provider)
        #expect(result.status == .complete, "\(result.failures)")
        // Five engagement questions, each judged by the rubric (one call) and option by option (four).
        #expect(provider.requests.filter { $0.0.stage == RubricJudge.stage }.count == 5)
        #expect(provider.requests.filter { $0.0.stage == OptionJudge.stage }.count == 20)
        #expect(result.quality?.items.rubric == RubricTally(judged: 5, passed: 5), "\(String(describing: result.quality?.items.rubric))")
    }

    @Test func offByDefaultAndPlannedWhenOn() async throws {
        let ws = try Workspace()
        let provider = try RecordingProvider(script: ws.script())
        let plain = try await ws.run(try Workspace.spec(Specs.pinned), provider: provider)
        #expect(plain.status == .complete)
        #expect(!provider.requests.contains { $0.0.stage == OptionJudge.stage })
        #expect(try Workspace.spec(Specs.pinned).review.judgeOptions == false)

        let planned = try await Workspace().runner(try Self.spec(), provider: nil).plan()
        let solves = try #require(planned.stages[BlindSolver.stage]?.toCall)
        #expect(planned.stages[OptionJudge.stage]?.toCall == solves * OptionJudge.plannedOptions)
    }
}
