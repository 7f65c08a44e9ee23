import Foundation
import LecternCore
import LecternLLM
import Testing

@testable import LecternPipeline

/// What a run's result says after it finishes: answers valid at the first attempt, repaired and
/// failed, warnings by kind, wall time and the document to open first — from a real run of the
/// runner, engine and cache on a scripted provider.
struct RunQualityTests {
    static let longCorrectOption = RepairTests.badQuestion { q in
        q["correct_answer"] = ["text": "It repeats the same steps for every item of a list without copying any code", "feedback": "Yes."]
        q["wrong_answers"] = [["text": "Speed", "feedback": "No."], ["text": "Habit", "feedback": "No."], ["text": "Luck", "feedback": "No."]]
    }

    @Test func theResultCountsFirstAttemptsRepairsFailuresAndWarningsByKind() async throws {
        let ws = try Workspace()
        let spec = try Workspace.spec(Specs.pinned)
        let provider = try RecordingProvider(
            script: ws.script(extra: [
                // Repaired: the first answer names the wrong topic; the second (the script's) is valid.
                RepairTests.answer(
                    stage: "engagement-question", item: "engagement-question/s01-t02", attempt: 1,
                    json: RepairTests.badQuestion { $0["topic_id"] = "s02-t01" }),
                // Failed: never valid, so its bonus question never starts.
                RepairTests.answer(stage: "engagement-question", item: "engagement-question/s02-t01", json: RepairTests.twoCorrect),
                // Valid, with a warning.
                RepairTests.answer(stage: "engagement-question", item: "engagement-question/s01-t01", json: Self.longCorrectOption),
            ]))
        let events = CollectingSink()
        let result = try await ws.runner(spec, provider: provider, events: events).run(
            options: .init(outputRoot: ws.output, allowPartial: true))
        #expect(result.status == .itemsFailed)

        let quality = RunQuality(result)
        #expect(quality.repaired == 1)
        #expect(quality.failed == 1)
        #expect(quality.notStarted == 1, "bonus-question/s02-t01")
        // Every item the model was asked is valid at the first attempt, but those two.
        #expect(quality.validAtFirstAttempt == Set(provider.calledItems).count - 2)
        #expect(quality.validAtFirstAttempt == 15, "18 model items: 1 repaired, 1 failed, 1 not started")
        let kind = "the correct option is much longer than the others"
        #expect(quality.warnings == [RunQuality.WarningGroup(kind: kind, count: 1, items: ["engagement-question/s01-t01"])])
        #expect(quality.warningCount == 1)
        let warned = events.all.compactMap { if case .warning(let w) = $0 { return w } else { return nil } }
        #expect(warned.map(\.kind) == [kind] && warned.first?.message.contains("(75 vs about 4 characters)") == true)

        #expect(result.wallTime > .zero)
        // No renderer here, so the first lecture's Markdown.
        #expect(result.entryDocument == "lectures/01-01-variables-and-values.md")
        guard case .written(let dir)? = result.bundle else { throw PipelineError("no partial bundle") }
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(result.entryDocument ?? "-").path))

        // Replayed from the cache, the run reports the quality it was recorded with.
        let replay = try await ws.run(spec, provider: nil, mode: .offline, allowPartial: true)
        #expect(RunQuality(replay) == quality)
    }

    @Test func aRunWithNoBundleHasNothingToOpen() async throws {
        let ws = try Workspace()
        let provider = try RecordingProvider(
            script: ws.script(extra: [
                RepairTests.answer(stage: "engagement-question", item: "engagement-question/s02-t01", json: RepairTests.twoCorrect)
            ]))
        let result = try await ws.run(try Workspace.spec(Specs.pinned), provider: provider)
        #expect(result.bundle == nil && result.entryDocument == nil)
        #expect(RunQuality(result).failed == 1)
    }
}
