import Foundation
import LecternCore
import LecternLLM
import Testing

@testable import LecternPipeline

/// Keys checked by solving (`review:`): every multiple-choice answer is put to a solver without
/// its key, and a disagreement is repaired, and after the last attempt fails the item (or, with
/// `disputed: warn`, is kept and reported) — through
/// the real runner, engine and cache on a scripted provider.
struct BlindSolveTests {
    static let item = "engagement-question/s01-t02"

    /// The solver's answer for `item`'s `attempt` (every attempt when nil): the option `text`.
    static func solver(chooses text: String, attempt: Int? = nil) -> JSONValue {
        var entry: [String: JSONValue] = [
            "stage": .string(BlindSolver.stage), "item": .string(BlindSolver.itemID(of: item)), "json": ["work": "I think so.", "answer": .string(text)],
        ]
        if let attempt { entry["attempt"] = .number(Double(attempt)) }
        return .object(entry)
    }

    @Test func aKeyTheSolverDoesNotReachIsRepaired() async throws {
        let ws = try Workspace()
        // The first answer words the question its own way; the solver, asked about it, misses the key.
        let first = RepairTests.rewordedFirstAnswer(item: Self.item)
        let provider = try RecordingProvider(script: ws.script(extra: [first, Self.solver(chooses: "It is deprecated", attempt: 1)]))
        let result = try await ws.run(try Workspace.spec(Specs.pinned), provider: provider)
        #expect(result.status == .complete)
        let asked = provider.requests.filter { $0.0.itemID.hasPrefix(Self.item) }
        #expect(asked.map { "\($0.0.stage) \($0.0.attempt)" } == ["engagement-question 1", "blind-solve 1", "engagement-question 2", "blind-solve 2"])
        // The solver saw neither the key nor the feedback, and the options in an order of their own.
        let solve = try #require(asked.first { $0.0.stage == BlindSolver.stage }?.1)
        let text = solve.messages.map(\.content).joined(separator: "\n")
        #expect(text.contains("Question: Which of these statements about Loops is true?") && text.contains("It helps structure programs"))
        #expect(!text.contains("Right.") && !text.contains("No: it is current.") && !text.contains("correct"), "\(text)")
        #expect(solve.temperature == 0 && solve.responseSchema?.name == "blind_solve")
        let repair = try #require(asked.first { $0.0.stage == "engagement-question" && $0.0.attempt == 2 }?.1.messages.last?.content)
        #expect(
            repair.contains(
                "the question: a solver who saw the question and its options without the key chose 'It is deprecated', not the keyed 'It helps structure programs'"
            ), "\(repair)")

        let quality = try #require(result.quality)
        let answerKey = try #require(quality.checks.first { $0.check == .answerKey })
        let counts: [Int] = [answerKey.passed, answerKey.repaired, answerKey.flagged, answerKey.failed, answerKey.refusals]
        #expect(counts == [17, 1, 0, 0, 1], "18 model answers")
        // Five engagement questions, each solved with the key in the end.
        #expect(quality.items.blindSolve == BlindSolveTally(asked: 5, agreed: 5))
        #expect(quality.stages.first { $0.stage == "engagement-question" }?.items.blindSolve == BlindSolveTally(asked: 5, agreed: 5))
        #expect(quality.stages.first { $0.stage == "bonus-question" }?.items.blindSolve == BlindSolveTally(), "free text is not solved")
    }

    @Test func aDisagreementAfterTheLastAttemptFailsTheItem() async throws {
        let ws = try Workspace()
        let provider = try RecordingProvider(script: ws.script(extra: [Self.solver(chooses: "It only works in Java")]))
        let result = try await ws.run(try Workspace.spec(Specs.pinned), provider: provider)
        #expect(result.status == .itemsFailed, "a key the solver still disputes is refused like any problem")
        #expect(result.bundle == nil)
        let failure = try #require(result.failures.first { $0.id == Self.item })
        #expect(failure.reason == .invalid && failure.attempts == 3)
        #expect(failure.errors.contains { $0.contains("chose 'It only works in Java'") }, "\(failure.errors)")
        #expect(failure.rejections.count == 3)
        // What depends on it is not started; the bonus question reads this question.
        #expect(result.failures.first { $0.id == "bonus-question/s01-t02" }?.reason == .dependency)
        // Every attempt was refused for the solver's pick, under the answer key's check.
        #expect(failure.rejections.allSatisfy { $0.map(\.check) == [.answerKey] }, "\(failure.rejections)")
    }

    @Test func withDisputedWarnADisagreementAfterTheLastAttemptIsKeptAndReported() async throws {
        let ws = try Workspace()
        let provider = try RecordingProvider(script: ws.script(extra: [Self.solver(chooses: "It only works in Java")]))
        let events = CollectingSink()
        let spec = try Workspace.spec(Specs.pinned + "\nreview: { disputed: warn }")
        #expect(spec.review.disputed == .warn)
        let result = try await ws.runner(spec, provider: provider, events: events).run(options: .init(outputRoot: ws.output))
        #expect(result.status == .complete, "with disputed: warn, a key a solver disputes is reported, not failed")
        let report = try #require(result.reports[Self.item])
        #expect(report.attempts == 3 && report.rejections.count == 2)
        #expect(report.blindSolve == BlindSolveTally(asked: 1, agreed: 0))
        let warned = events.all.compactMap { if case .warning(let w) = $0 { return w } else { return nil } }
        #expect(warned.contains { $0.itemID == Self.item && $0.kind == BlindSolver.warningKind && $0.message.contains("chose 'It only works in Java'") })
        let answerKey = try #require(result.quality?.checks.first { $0.check == .answerKey })
        let counts: [Int] = [answerKey.repaired, answerKey.flagged, answerKey.failed, answerKey.refusals]
        #expect(counts == [0, 1, 0, 2])
        #expect(result.quality?.items.blindSolve == BlindSolveTally(asked: 5, agreed: 4))
        #expect(result.quality?.summaryLines.contains("  blind solving: the solver picked the key of 4 of 5 accepted questions") == true)
    }

    @Test func aDisputedPolicyThatIsNoneIsASpecError() throws {
        let error = #expect(throws: SpecError.self) { try Workspace.spec(Specs.pinned + "\nreview: { disputed: ignore }") }
        #expect(error?.description.contains("'review.disputed' is 'ignore'; it must be 'fail' or 'warn'") == true, "\(String(describing: error))")
        #expect(try Workspace.spec(Specs.pinned).review.disputed == .fail)
    }

    @Test func aSolverThatGivesNoAnswerFailsNothingButAProviderThatFailsStopsTheItem() async throws {
        // Cut off (after the provider's own retries) or not naming an option: not counted.
        let ws = try Workspace()
        let cut: JSONValue = ["stage": .string(BlindSolver.stage), "item": .string(BlindSolver.itemID(of: Self.item)), "error": "truncated"]
        let provider = try RecordingProvider(script: ws.script(extra: [cut]))
        let result = try await ws.run(try Workspace.spec(Specs.pinned), provider: provider)
        #expect(result.status == .complete)
        #expect(result.reports[Self.item]?.attempts == 1 && result.reports[Self.item]?.blindSolve == BlindSolveTally())
        #expect(result.quality?.items.blindSolve == BlindSolveTally(asked: 4, agreed: 4))

        let down = try Workspace()
        let refused: JSONValue = ["stage": .string(BlindSolver.stage), "item": .string(BlindSolver.itemID(of: Self.item)), "error": "authentication"]
        let failing = try await down.run(try Workspace.spec(Specs.pinned), provider: try RecordingProvider(script: down.script(extra: [refused])))
        #expect(failing.status == .providerFailed)
        #expect(failing.failures.contains { $0.id == Self.item && $0.reason == .provider })
    }

    @Test func aSpecCanTurnBlindSolvingOffAndNameAnotherModel() async throws {
        let ws = try Workspace()
        let off = try RecordingProvider(script: ws.script())
        let plain = try await ws.run(try Workspace.spec(Specs.pinned + "\nreview: { blind_solve: false }"), provider: off)
        #expect(plain.status == .complete)
        #expect(!off.requests.contains { $0.0.stage == BlindSolver.stage })
        #expect(plain.quality?.items.blindSolve == BlindSolveTally())

        let other = try Workspace()
        let reviewed = try RecordingProvider(script: other.script())
        let result = try await other.run(try Workspace.spec(Specs.pinned + "\nreview: { model: second-opinion }"), provider: reviewed)
        #expect(result.status == .complete)
        let solves = reviewed.requests.filter { $0.0.stage == BlindSolver.stage }
        #expect(solves.count == 5 && solves.allSatisfy { $0.1.model == "second-opinion" })
        #expect(result.totals.models.contains { $0.hasSuffix("/second-opinion") })
    }

    @Test func theSolverSeesTheOptionsInAnOrderOfTheirOwnAndItsAnswerIsReadByLetterOrText() {
        let choices = [
            Choice(text: "Paris", correct: true, feedback: "Yes."), Choice(text: "Lyon", correct: false, feedback: "No."),
            Choice(text: "Nice", correct: false, feedback: "No."), Choice(text: "Lille", correct: false, feedback: "No."),
        ]
        let item = BlindSolveItem(label: "the question", prompt: "What is the capital of France?", choices: choices)
        #expect(Set(item.options) == Set(choices.map(\.text)) && item.options[item.key] == "Paris")
        #expect(BlindSolveItem(label: "x", prompt: "What is the capital of France?", choices: choices.reversed()).options == item.options)
        let letter = BlindSolveItem.letter(item.key)
        #expect(item.chosen("{\"work\": \"It is the capital.\", \"answer\": \"\(letter)\"}") == item.key)
        #expect(item.chosen("(\(letter.lowercased()))") == item.key)
        #expect(item.chosen("{\"answer\": \"paris\"}") == item.key)
        #expect(item.chosen("{\"answer\": \"Z\"}") == nil && item.chosen("I do not know") == nil)
        #expect(item.optionLines.hasPrefix("A. "))
    }
}
