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
        #expect(quality.validAtFirstAttempt == Set(provider.calledItems.filter { !$0.hasSuffix("/" + BlindSolver.stage) }).count - 2)
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

        // The bundle's quality.json: the same counts, by check and by stage.
        let report = try JSONDecoder().decode(QualityReport.self, from: Data(contentsOf: dir.appendingPathComponent("quality.json")))
        #expect(report == result.quality)
        #expect(report.items.checked == 17 && report.items.firstTime == 15 && report.items.repaired == 1 && report.items.failed == 1)
        #expect(report.items.attempts == 15 + 2 + 3, "the failed item used all three attempts")
        let checks = Dictionary(uniqueKeysWithValues: report.checks.map { ($0.check, $0) })
        #expect(checks[.grounding].map { [$0.passed, $0.repaired, $0.failed, $0.refusals] } == [16, 1, 0, 1], "the wrong topic id, repaired")
        #expect(checks[.distinctOptions].map { [$0.passed, $0.repaired, $0.failed, $0.refusals] } == [16, 0, 1, 3], "an option written twice, every time")
        #expect(checks[.arithmetic].map { [$0.passed, $0.repaired, $0.failed, $0.refusals] } == [17, 0, 0, 0])
        #expect(report.checks.map(\.check) == QualityCheck.allCases)
        let questions = try #require(report.stages.first { $0.stage == "engagement-question" })
        let counts: [Int] = [questions.items.checked, questions.items.firstTime, questions.items.repaired, questions.items.failed]
        #expect(counts == [5, 3, 1, 1])
        #expect(report.stages.map(\.stage) == ["tone-preview", "lecture", "engagement-question", "bonus-question", "ending-project"])
        #expect(report.warnings == [QualityReport.Warning(kind: kind, items: 1)])
        #expect(report.bank?.items == 8 && report.bank?.flagged == [], "4 engagement and 4 bonus questions; the failed one is left out")
        #expect(report.summaryLines.first == "quality: 17 model answers: 15 accepted first time, 1 repaired, 1 failed (20 attempts)")
        #expect(report.notApplied == nil, "English has a profile: every check applies")

        // Replayed from the cache, the run reports the quality it was recorded with.
        let replay = try await ws.run(spec, provider: nil, mode: .offline, allowPartial: true)
        #expect(RunQuality(replay) == quality)
        #expect(replay.quality == report)
    }

    /// A run in a language without a `LanguageProfile` (French) says once, in quality.json and its
    /// summary lines, which checks read wording it has no profile for; a run in "ar-EG" does not.
    @Test func aRunInALanguageWithoutAProfileSaysWhichChecksItDidNotApply() async throws {
        for language in ["fr", "ar-EG"] {
            let ws = try Workspace()
            let spec = try Workspace.spec(Specs.pinned + "\nlanguage: \(language)\n")
            let provider = try RecordingProvider(script: ws.script())
            let result = try await ws.runner(spec, provider: provider).run(options: .init(outputRoot: ws.output, allowPartial: true))
            guard case .written(let dir)? = result.bundle else { throw PipelineError("no bundle") }
            let data = try Data(contentsOf: dir.appendingPathComponent("quality.json"))
            let report = try JSONDecoder().decode(QualityReport.self, from: data)
            if language == "ar-EG" {
                #expect(report.notApplied == nil && !String(decoding: data, as: UTF8.self).contains("not_applied"))
                continue
            }
            let notApplied = try #require(report.notApplied)
            #expect(notApplied.map(\.check) == [.feedbackAgreesWithKey, .questionForm, .projectScope, .stageRules])
            #expect(notApplied.allSatisfy { $0.language == "fr" })
            #expect(String(decoding: data, as: UTF8.self).contains("\"not_applied\""))
            let lines = report.summaryLines.filter { $0.contains("not applied: no profile for fr") }
            #expect(lines.count == 4, "once each per run, not per item")
            #expect(lines.first?.hasPrefix("  check feedback-agrees-with-key not applied: no profile for fr (") == true)
        }
    }

    /// docs/schemas/quality.schema.json names every check a quality.json may hold, in order: a
    /// check added without it made every bundle's quality.json fail its schema (`question-form`).
    @Test func theSchemaNamesEveryCheck() throws {
        let url = Workspace.repository.appendingPathComponent("docs/schemas/quality.schema.json")
        let schema = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
        let properties = (schema?["properties"] as? [String: Any])?["checks"] as? [String: Any]
        let check = ((properties?["items"] as? [String: Any])?["properties"] as? [String: Any])?["check"] as? [String: Any]
        #expect(check?["enum"] as? [String] == QualityCheck.allCases.map(\.rawValue))
    }

    /// A refusal carries its check from where it is raised: the validators' own ids, whatever
    /// their words (CheckIDTests in LecternCLITests holds them to the words over every example).
    @Test func everyRefusalTheValidatorsWriteCarriesItsCheck() {
        let inspector = ContentInspector(renderer: nil, language: "en")
        #expect(
            inspector.issues([LearnerText("explanation", "So 2 + 2 = 5, as the lecture shows.", asserts: true)]).map(\.check) == [.arithmetic])
        #expect(inspector.issues([LearnerText("prompt", "The mean is \\mu here.", asserts: false)]).map(\.check) == [.rendering])
        #expect(QuestionRules.checkOneQuestion("prompt", "What is a value? Why? How is it stored?").map(\.check) == [.questionForm])
        #expect(QuestionRules.checkAsksSomething("prompt", "A variable holds a value.").map(\.check) == [.questionForm])
        #expect(
            QuestionRules.checkKeyAgreesWithWorking(
                options: [Choice(text: "70", correct: true, feedback: ""), Choice(text: "336", correct: false, feedback: "")],
                explanation: "There are 40320 / 120 = 336 ways."
            ).map(\.check) == [.answerKey])
        if case .failure(let errors) = AnswerParsing.decode(ReinforcementStage.Answer.self, from: #"{"topic_id": "s01-t01""#) {
            #expect(errors.map(\.check) == [.wellFormed])
        } else {
            Issue.record("a cut-off answer decoded")
        }
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
