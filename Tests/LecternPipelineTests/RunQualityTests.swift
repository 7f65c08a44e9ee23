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

        // Replayed from the cache, the run reports the quality it was recorded with.
        let replay = try await ws.run(spec, provider: nil, mode: .offline, allowPartial: true)
        #expect(RunQuality(replay) == quality)
        #expect(replay.quality == report)
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

    @Test func everyRefusalTheValidatorsWriteIsFiledUnderItsCheck() {
        let cases: [(String, QualityCheck)] = [
            ("the answer is not complete, valid JSON (it may be cut off or have a syntax error); send one complete JSON object", .wellFormed),
            ("the answer was cut off (length) before it was complete; write a shorter, complete answer", .wellFormed),
            ("'explanation' is missing", .wellFormed),
            (#"wrong_answers[1].text contains a form feed (U+000C) before "rac{1}{2}" outside math: the JSON escape "\f" took the backslash of \frac"#, .textIntegrity),
            ("explanation: probably \\frac that lost its backslash — write the command with it", .textIntegrity),
            ("wrong answer 1's feedback does not render as written (line 1: Unknown command \\foo)", .rendering),
            (#"rubric[1].criterion states false arithmetic: "2 + 2 = 5" is false: 2 + 2 is 4; compute it again and write the right value"#, .arithmetic),
            ("the level-2 question: wrong_answers[1] and correct_answer are the same ('x'); every option must differ", .distinctOptions),
            ("wrong_answers[1] and wrong_answers[2] have the same feedback; each wrong answer's feedback says why that answer is wrong", .distinctOptions),
            ("the question asks what engagement-question/s01-t01 already asks ('What is a value?'); ask about another fact", .distinctQuestions),
            ("the bonus question repeats the first question ('What is a loop?'); ask about a different idea of the lecture", .distinctQuestions),
            ("questions[2]: wrong_answers[3]'s feedback ('This answer is correct') calls it right, but it is a wrong answer", .feedbackAgreesWithKey),
            ("questions[1]: 'source_quote' ('In 1925 …') does not occur in the source text; copy it character for character", .grounding),
            ("the lecture does not seem to be about 'Loops'", .grounding),
            ("the rubric's points add up to 115 (40 + 40 + 35), not 100; give the criteria points that add up to 100", .projectScope),
            ("requirements[3] ('Organising code into functions') needs 'function', which the course does not teach up to this subject; require only what its topics teach", .projectScope),
            (
                "'prompt' asks 3 questions ('What is a value?', 'Why?', 'How?'): a multiple-choice question asks one question, which its options answer — keep one of them as the stem's only question mark, turn the rest into statements or drop them, and make every option answer that one",
                .questionForm
            ),
            ("'the level-4 question's prompt' goes on after its question ('What would you use?' is followed by 'A number! …', 34 words)", .questionForm),
            ("'the level-3 question's prompt' asks nothing ('… a simple example!?'): it tells a story or explains", .questionForm),
            ("'explanation' speaks about the question instead of to the learner ('This question is designed')", .questionForm),
            ("'the lecture' shows code outside a code block (line 3: 'def f(x):')", .questionForm),
            ("'prompt' refers to a video, slides or an instructor ('In this video')", .questionForm),
            ("the prompt gives the answer away: it contains the correct option 'x = 5'", .questionForm),
            ("'prompt' asks about code it does not show ('the following code'): put the code in the question", .questionForm),
            ("'explanation' repeats the question word for word: the learner has just read it", .questionForm),
            ("the key ('70') is not what the explanation works out ('40320 / 120 = 336'): make the key the value the working gives", .answerKey),
            ("correct_answer's text holds a quotation mark that closes no quotation ('is η\"),'): a piece of the answer's JSON left in the text", .wellFormed),
            ("deliverables[2] asks for a video ('A video'); this is a text course: a deliverable is a document, code or a table the learner writes", .projectScope),
            ("requirements[2] ('Use loops') needs 'Loops', which subject s02 teaches after this one; require only what this subject's topics teach", .projectScope),
            ("exactly one option must be correct; 2 are", .stageRules),
        ]
        for (message, check) in cases { #expect(QualityCheck.classify(message) == check, "\(message)") }
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
