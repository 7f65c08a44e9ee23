import Foundation
import LecternCore
import LecternLLM
import Testing

@testable import LecternPipeline

/// The rubric (`review: { rubric: true }`, issue 48): every answer put to the blind solver is also
/// judged by a reviewing model against fixed criteria; a broken criterion that quotes the item is
/// repaired like any check, one that quotes nothing of it is disregarded — through the real
/// runner, engine and cache on a scripted provider.
struct ReviewRubricTests {
    static let item = "engagement-question/s01-t02"

    /// A judgement of `item`'s `attempt`: every criterion holds but `broken`, with its quote.
    static func judgement(attempt: Int?, broken: RubricJudge.Criterion? = nil, quote: String = "", reason: String = "") -> JSONValue {
        var verdicts: [String: JSONValue] = [:]
        for criterion in RubricJudge.Criterion.allCases {
            let holds = criterion != broken
            verdicts[criterion.rawValue] = ["holds": .bool(holds), "quote": .string(holds ? "" : quote), "reason": .string(holds ? "" : reason)]
        }
        var entry: [String: JSONValue] = ["stage": .string(RubricJudge.stage), "item": .string(RubricJudge.itemID(of: item)), "json": .object(verdicts)]
        if let attempt { entry["attempt"] = .number(Double(attempt)) }
        return .object(entry)
    }

    static func spec() throws -> JobSpec {
        var spec = try Workspace.spec(Specs.pinned)
        spec.review.rubric = true
        return spec
    }

    @Test func aBrokenCriterionQuotingTheItemIsRepairedWithItsReason() async throws {
        let ws = try Workspace()
        let reason = "Slowing programs down is not what loops cost; the feedback should say why the option is wrong."
        // The first answer words its question and wrong answers its own way; the judge finds one feedback at fault.
        let first = RepairTests.rewordedFirstAnswer(item: Self.item)
        let provider = try RecordingProvider(
            script: ws.script(extra: [first, Self.judgement(attempt: 1, broken: .feedbackAgrees, quote: "No: it costs nothing.", reason: reason)]))
        let result = try await ws.run(try Self.spec(), provider: provider)
        #expect(result.status == .complete, "\(result.failures)")
        let asked = provider.requests.filter { $0.0.itemID.hasPrefix(Self.item) }
        #expect(
            asked.map { "\($0.0.stage) \($0.0.attempt)" } == [
                "engagement-question 1", "blind-solve 1", "rubric 1", "engagement-question 2", "blind-solve 2", "rubric 2",
            ])
        // The judge read the item field by field, with its topic and the lecture it is about, at temperature 0.
        let judge = try #require(asked.first { $0.0.stage == RubricJudge.stage }?.1)
        let text = judge.messages.map(\.content).joined(separator: "\n")
        #expect(text.contains("correct_answer.text: It helps structure programs") && text.contains("wrong_answers[0].feedback: No: it costs nothing."))
        #expect(text.contains("Topic: Loops") && text.contains("- only_key: No wrong answer is also right."), "\(text.prefix(1_500))")
        #expect(judge.temperature == 0 && judge.responseSchema?.name == "rubric")
        // Judged are exactly the answers put to the solver (no free-text bonus question or pool level).
        let judgedItems = Set(provider.calls.filter { $0.stage == RubricJudge.stage }.map { $0.itemID.replacingOccurrences(of: "/rubric", with: "") })
        let solvedItems = Set(provider.calls.filter { $0.stage == BlindSolver.stage }.map { $0.itemID.replacingOccurrences(of: "/blind-solve", with: "") })
        #expect(!judgedItems.isEmpty && judgedItems == solvedItems, "\(judgedItems.sorted()) vs \(solvedItems.sorted())")
        let repair = try #require(asked.first { $0.0.stage == "engagement-question" && $0.0.attempt == 2 }?.1.messages.last?.content)
        #expect(repair.contains("a reviewing model judged that a feedback contradicts the key or the source: “No: it costs nothing.” — " + reason), "\(repair)")

        let quality = try #require(result.quality)
        let rubric = try #require(quality.checks.first { $0.check == .rubric })
        let counts: [Int] = [rubric.passed, rubric.repaired, rubric.flagged, rubric.failed, rubric.refusals]
        #expect(counts == [17, 1, 0, 0, 1])
        // The accepted answers: five engagement questions judged, each passed in the end (the
        // refused attempt is counted by the check above, as a blind solver's is).
        #expect(quality.items.rubric == RubricTally(judged: 5, passed: 5), "\(String(describing: quality.items.rubric))")
        #expect(quality.summaryLines.contains("  rubric: the reviewing model passed 5 of 5 judged answers"), "\(quality.summaryLines)")
    }

    @Test func aCriterionStillBrokenAfterTheLastAttemptFailsTheItem() async throws {
        let ws = try Workspace()
        let judged = Self.judgement(attempt: nil, broken: .onlyKey, quote: "It only works in Java", reason: "Other languages have it too, so this is not wrong only for that reason.")
        let result = try await ws.run(try Self.spec(), provider: try RecordingProvider(script: ws.script(extra: [judged])))
        #expect(result.status == .itemsFailed)
        let failure = try #require(result.failures.first { $0.id == Self.item })
        #expect(failure.attempts == 3 && failure.errors.contains { $0.contains("another option is also right") }, "\(failure.errors)")
        #expect(failure.rejections.count == 3 && failure.rejections.allSatisfy { $0.map(\.check) == [.rubric] }, "\(failure.rejections)")
    }

    @Test func withDisputedWarnACriterionStillBrokenAfterTheLastAttemptIsKeptAndReported() async throws {
        let ws = try Workspace()
        let judged = Self.judgement(attempt: nil, broken: .onlyKey, quote: "It only works in Java", reason: "Other languages have it too, so this is not wrong only for that reason.")
        let events = CollectingSink()
        var spec = try Self.spec()
        spec.review.disputed = .warn
        let result = try await ws.runner(spec, provider: try RecordingProvider(script: ws.script(extra: [judged])), events: events).run(
            options: .init(outputRoot: ws.output))
        #expect(result.status == .complete, "with disputed: warn, a judge's verdict is reported after the last attempt, not failed")
        let report = try #require(result.reports[Self.item])
        #expect(report.attempts == 3 && report.rubric == RubricTally(judged: 1, passed: 0, broken: ["only_key": 1]))
        let warned = events.all.compactMap { if case .warning(let w) = $0 { return w } else { return nil } }
        #expect(warned.contains { $0.itemID == Self.item && $0.kind == RubricJudge.warningKind && $0.message.contains("another option is also right") })
        let check = try #require(result.quality?.checks.first { $0.check == .rubric })
        #expect(check.flagged == 1 && check.failed == 0 && check.refusals == 2)
    }

    /// Pools: levels 1–2 are multiple choice and judged; levels 3–4 are free text, which the
    /// solver is not given, and neither is the judge (the rubric's criteria are about a key).
    @Test func freeTextLevelsAreNotJudged() async throws {
        let ws = try Workspace()
        var spec = try Workspace.spec(Specs.python)
        spec.review.rubric = true
        let provider = try RecordingProvider(script: ws.script())
        let result = try await ws.run(spec, provider: provider)
        #expect(result.status == .complete, "\(result.failures)")
        let judged = provider.calls.filter { $0.stage == RubricJudge.stage }.map(\.itemID)
        #expect(judged.contains { $0.hasPrefix("reinforcement/") && $0.contains("/level-1/") }, "\(judged)")
        #expect(!judged.contains { $0.contains("/level-3/") || $0.contains("/level-4/") || $0.hasPrefix("bonus-question/") }, "\(judged)")
        let solved = provider.calls.filter { $0.stage == BlindSolver.stage }.map { $0.itemID.replacingOccurrences(of: "/blind-solve", with: "") }
        #expect(Set(judged.map { $0.replacingOccurrences(of: "/rubric", with: "") }) == Set(solved))
    }

    @Test func aVerdictQuotingNothingOfTheItemIsDisregarded() async throws {
        let ws = try Workspace()
        let provider = try RecordingProvider(
            script: ws.script(extra: [
                Self.judgement(attempt: 1, broken: .statementsTrue, quote: "Loops make every program faster", reason: "That is false.")
            ]))
        let result = try await ws.run(try Self.spec(), provider: provider)
        #expect(result.status == .complete)
        #expect(result.reports[Self.item]?.attempts == 1, "no repair for a verdict nobody can check")
        #expect(result.reports[Self.item]?.rubric == RubricTally(judged: 1, passed: 1, broken: [:], unquoted: 1))
        #expect(result.quality?.items.rubric?.unquoted == 1)
    }

    @Test func aJudgeThatGivesNoVerdictFailsNothingAndOffMeansNoCall() async throws {
        let ws = try Workspace()
        let cut: JSONValue = ["stage": .string(RubricJudge.stage), "item": .string(RubricJudge.itemID(of: Self.item)), "content": "I think it is fine."]
        let result = try await ws.run(try Self.spec(), provider: try RecordingProvider(script: ws.script(extra: [cut])))
        #expect(result.status == .complete)
        #expect(result.reports[Self.item]?.attempts == 1 && result.reports[Self.item]?.rubric == RubricTally())

        // Off (the default): no judgement, and quality.json has no rubric entry.
        let off = try Workspace()
        let provider = try RecordingProvider(script: off.script())
        let plain = try await off.run(try Workspace.spec(Specs.pinned), provider: provider)
        #expect(!provider.calls.contains { $0.stage == RubricJudge.stage })
        let data = try #require(try plain.quality?.jsonData())
        #expect(!String(decoding: data, as: UTF8.self).contains("\"rubric\" : {"))
    }

    /// The faults shape (`review/rubric-faults`, measured beside the verdicts by the bench): each
    /// listed fault is a broken criterion, held to the same quote rule; an empty list passes.
    @Test func aListOfFaultsIsReadAsBrokenCriteria() throws {
        let shipped =
            #"{"prompt": "Which statement about loops is true?", "correct_answer": {"text": "They repeat work", "feedback": "Right."}, "wrong_answers": [{"text": "They slow programs", "feedback": "No: it costs nothing."}]}"#
        let faults =
            #"{"faults": [{"criterion": "feedback_agrees", "quote": "No: it costs nothing.", "reason": "Loops cost time."}, {"criterion": "feedback_agrees", "quote": "again", "reason": "twice"}, {"criterion": "on_topic", "quote": "Loops are about music", "reason": "no"}]}"#
        let read = try #require(RubricJudge.verdicts(faults, shipped: shipped))
        #expect(read.tally == RubricTally(judged: 1, passed: 0, broken: ["feedback_agrees": 1], unquoted: 1))
        #expect(read.refusals.map(\.check) == [.rubric])
        #expect(RubricJudge.verdicts(#"{"faults": []}"#, shipped: shipped)?.tally == RubricTally(judged: 1, passed: 1))
        #expect(RubricJudge.verdicts(#"{"faults": [{"criterion": "style"}]}"#, shipped: shipped) == nil, "a criterion of no rubric: no judgement")
        let judge = try RubricJudge(shape: .faults)
        let (request, _) = judge.request(shipped: shipped, variables: [:], fallbackModel: "m", seed: nil)
        #expect(request.responseSchema?.name == "rubric_faults" && judge.template.identifier == "rubric-faults@1")
    }

    @Test func theSpecTurnsItOnAndItIsOffByDefault() throws {
        let spec = try Workspace.spec(Specs.pinned.replacingOccurrences(of: "tone: { presets: [eli5] }", with: "tone: { presets: [eli5] }\nreview: { rubric: true }"))
        #expect(spec.review.rubric && spec.review.blindSolve)
        #expect(try Workspace.spec(Specs.pinned).review == ReviewSpec(), "off by default")
        // Its hash is that of a spec written before the rubric existed when it is off.
        let encoded = try JSONEncoder().encode(ReviewSpec())
        #expect(!String(decoding: encoded, as: UTF8.self).contains("rubric"))
        #expect(try JSONDecoder().decode(ReviewSpec.self, from: Data(#"{"blind_solve": true}"#.utf8)) == ReviewSpec())
    }
}
