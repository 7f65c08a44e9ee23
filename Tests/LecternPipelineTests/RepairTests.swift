import Foundation
import LecternBundle
import LecternCore
import LecternLLM
import Testing

@testable import LecternPipeline

/// Bad model output, as small models really write it: each is repaired by re-asking with the
/// validator's errors, or reported (exit 1) when it never becomes valid.
struct RepairTests {
    static let topic = "s01-t02"

    static func badQuestion(_ mutate: (inout [String: JSONValue]) -> Void) -> JSONValue {
        var q: [String: JSONValue] = [
            "topic_id": "{{topic_id}}", "prompt": "Which statement about {{topic_title}} is true?",
            "correct_answer": ["text": "It helps structure programs", "feedback": "Right."],
            "wrong_answers": [
                ["text": "It slows programs", "feedback": "No."], ["text": "Java only", "feedback": "No."],
                ["text": "Deprecated", "feedback": "No."],
            ],
            "explanation": "It is a basic building block of programs.",
        ]
        mutate(&q)
        return .object(q)
    }

    static func answer(
        stage: String, item: String, attempt: Int? = nil, content: String? = nil, json: JSONValue? = nil, finish: String? = nil
    ) -> JSONValue {
        var a: [String: JSONValue] = ["stage": .string(stage), "item": .string(item)]
        if let attempt { a["attempt"] = .number(Double(attempt)) }
        if let content { a["content"] = .string(content) }
        if let json { a["json"] = json }
        if let finish { a["finish_reason"] = .string(finish) }
        return .object(a)
    }

    func runWithFirstAttempt(_ bad: JSONValue, item: String) async throws -> (JobRunner.Result, RecordingProvider) {
        let ws = try Workspace()
        let provider = try RecordingProvider(script: ws.script(extra: [bad]))
        let result = try await ws.run(try Workspace.spec(Specs.pinned), provider: provider)
        _ = ws
        return (result, provider)
    }

    static let questionItem = "engagement-question/\(topic)"

    @Test(arguments: [
        (
            "two wrong answers instead of three",
            badQuestion { q in
                q["wrong_answers"] = [["text": "B", "feedback": "No."], ["text": "C", "feedback": "No."]]
            }, "needs exactly 4 options"
        ),
        (
            "a wrong answer that repeats the correct one",
            badQuestion { q in
                q["correct_answer"] = ["text": "Loops", "feedback": "Yes."]
                q["wrong_answers"] = [["text": "loops ", "feedback": "No."], ["text": "C", "feedback": "No."], ["text": "D", "feedback": "No."]]
            }, "correct_answer and wrong_answers[1] are the same"
        ),
        (
            "a question written as an answer",
            badQuestion { q in
                q["wrong_answers"] = [
                    ["text": "What is a loop?", "feedback": "No."], ["text": "C", "feedback": "No."], ["text": "D", "feedback": "No."],
                ]
            }, "wrong_answers[1] ('What is a loop?') is a question"
        ),
        ("wrong topic id", badQuestion { q in q["topic_id"] = "s02-t01" }, "must be about topic s01-t02"),
    ])
    func invalidQuestionsAreRepaired(_ name: String, _ bad: JSONValue, _ expectedError: String) async throws {
        let (result, provider) = try await runWithFirstAttempt(
            Self.answer(stage: "engagement-question", item: Self.questionItem, attempt: 1, json: bad), item: Self.questionItem)
        #expect(result.status == .complete, "\(name)")
        let attempts = provider.requests.filter { $0.0.itemID == Self.questionItem }
        #expect(attempts.map(\.0.attempt) == [1, 2], "\(name)")
        // The repair request carries the invalid answer and the validator's errors.
        let repair = try #require(attempts.last?.1)
        #expect(repair.messages.count == 4)
        #expect(repair.messages[2].role == .assistant)
        #expect(repair.messages[3].content.contains(expectedError), "\(name): \(repair.messages[3].content)")
    }

    @Test func truncatedJSONIsRepaired() async throws {
        let (result, provider) = try await runWithFirstAttempt(
            Self.answer(
                stage: "engagement-question", item: Self.questionItem, attempt: 1,
                content: "{\"topic_id\": \"s01-t02\", \"prompt\": \"Which"), item: Self.questionItem)
        #expect(result.status == .complete)
        let last = try #require(provider.requests.last { $0.0.itemID == Self.questionItem })
        #expect(last.0.attempt == 2)
        #expect(last.1.messages.last?.content.contains("not complete, valid JSON") == true)
    }

    @Test func answerCutOffByTheTokenBudgetIsNeverTakenAsComplete() async throws {
        // Syntactically complete JSON, but the provider says it stopped for length.
        let (result, provider) = try await runWithFirstAttempt(
            Self.answer(stage: "engagement-question", item: Self.questionItem, attempt: 1, json: Self.badQuestion { _ in }, finish: "length"),
            item: Self.questionItem)
        #expect(result.status == .complete)
        #expect(provider.requests.filter { $0.0.itemID == Self.questionItem }.count == 2)
    }

    @Test func anAnswerThatLoopedIsAskedAgainWithTheLoopQuotedNotShown() async throws {
        // The provider layer returns a cut-off answer that repeats itself finished 'loop'.
        let looped = "{\"topic_id\": \"s01-t02\", \"prompt\": \"" + String(repeating: "Which loop runs forever? ", count: 30)
        let ws = try Workspace()
        let provider = try RecordingProvider(
            script: ws.script(extra: [Self.answer(stage: "engagement-question", item: Self.questionItem, attempt: 1, content: looped, finish: "loop")]))
        let spec = try Workspace.spec(Specs.pinned)
        let result = try await ws.run(spec, provider: provider)
        #expect(result.status == .complete)
        // The looped answer is kept with the others, so an offline replay refuses it again.
        let replay = try await ws.run(spec, provider: nil, mode: .offline, output: ws.root.appendingPathComponent("replay"))
        #expect(replay.status == .complete, "\(replay.failures)")
        let last = try #require(provider.requests.last { $0.0.itemID == Self.questionItem })
        #expect(last.0.attempt == 2)
        let repair = try #require(last.1.messages.last?.content)
        #expect(repair.contains("the answer went round in a loop, writing 'Which loop runs forever?' again and again until it was cut off"))
        // The answer shown goes to the loop's first turn, not 30 of them.
        let shown = try #require(last.1.messages.dropLast().last { $0.role == ChatMessage.Role.assistant }?.content)
        #expect(shown == "{\"topic_id\": \"s01-t02\", \"prompt\": \"Which loop runs forever? \n[… the same again and again until cut off]")
    }

    @Test func lectureAboutTheWrongTopicIsRepaired() async throws {
        let wrong =
            "# Cooking pasta\n\n## Water\n\n" + String(repeating: "Boil salted water and add the pasta. ", count: 40) + "\n\n## Sauce\n\n"
            + String(repeating: "Tomatoes, garlic, olive oil. ", count: 20)
        let item = "lecture/\(Self.topic)"
        let (result, provider) = try await runWithFirstAttempt(Self.answer(stage: "lecture", item: item, attempt: 1, content: wrong), item: item)
        #expect(result.status == .complete)
        let attempts = provider.requests.filter { $0.0.itemID == item }
        #expect(attempts.count == 2)
        #expect(attempts.last?.1.messages.last?.content.contains("does not seem to be about 'Loops'") == true)
    }

    @Test func aLectureThatEmbedsAnImageItCannotShipIsRepaired() async throws {
        let item = "lecture/\(Self.topic)"
        let withImage =
            "# Loops\n\n## Repeating work\n\n![a loop drawn as a circle](loop.png)\n\n"
            + String(repeating: "A loop repeats the same steps for every item. ", count: 30) + "\n\n## Stopping\n\n"
            + String(repeating: "A loop stops when the items run out. ", count: 10) + "\n"
        let (result, provider) = try await runWithFirstAttempt(
            Self.answer(stage: "lecture", item: item, attempt: 1, content: withImage), item: item)
        #expect(result.status == .complete)
        let attempts = provider.requests.filter { $0.0.itemID == item }
        #expect(attempts.count == 2)
        #expect(attempts.last?.1.messages.last?.content.contains("links to 'loop.png' (line 5), a file the course does not have") == true)
        #expect(result.failures.isEmpty)
    }

    @Test func anItemThatNeverBecomesValidIsReportedAndNoBundleIsWritten() async throws {
        let ws = try Workspace()
        let twoCorrect = Self.badQuestion { q in
            q["wrong_answers"] = [
                ["text": "It helps structure programs", "feedback": "No."], ["text": "C", "feedback": "No."], ["text": "D", "feedback": "No."],
            ]
        }
        let provider = try RecordingProvider(
            script: ws.script(extra: [Self.answer(stage: "engagement-question", item: Self.questionItem, json: twoCorrect)]))
        let result = try await ws.run(try Workspace.spec(Specs.pinned), provider: provider)
        #expect(result.status == .itemsFailed)
        #expect(result.bundle == nil)
        #expect(!FileManager.default.fileExists(atPath: ws.output.appendingPathComponent("pinned-course/1.0.0").path))
        let failure = try #require(result.failures.first { $0.id == Self.questionItem })
        #expect(failure.reason == .invalid && failure.attempts == 3)
        #expect(failure.context.contains("topic 2 'Loops'"))
        #expect(failure.errors.contains { $0.contains("correct_answer and wrong_answers[1] are the same") })
        #expect(failure.description.contains("failed after 3 attempts"))
        // Its dependent is not started; independent items all finished.
        #expect(result.failures.first { $0.id == "bonus-question/\(Self.topic)" }?.reason == .dependency)
        #expect(result.failures.count == 2)
        #expect(provider.calledItems.contains("engagement-question/s02-t02"))
        // Attempt 2 repairs in conversation (base + the answer + the errors); attempt 3 starts
        // afresh from the base request with the errors listed; each repair samples hotter.
        let attempts = provider.requests.filter { $0.0.itemID == Self.questionItem }.map(\.1)
        #expect(attempts.map(\.messages.count) == [2, 4, 2])
        #expect(attempts[2].messages[1].content.hasPrefix(attempts[0].messages[1].content))
        #expect(attempts[2].messages[1].content.contains("Attempt 3 of 3"))
        #expect(attempts[2].messages[1].content.contains("are the same"))
        let temperatures = attempts.compactMap(\.temperature)
        #expect(temperatures.count == 3 && temperatures[0] < temperatures[1] && temperatures[1] < temperatures[2])

        // With --allow-partial the bundle is written and says what is missing.
        let partial = try await ws.run(try Workspace.spec(Specs.pinned), provider: provider, allowPartial: true)
        guard case .written(let dir)? = partial.bundle else { throw PipelineError("no partial bundle") }
        let manifest = try BundleVerifier.verify(dir).manifest
        #expect(manifest.incompleteItems == ["bonus-question/s01-t02", "engagement-question/s01-t02"])
    }

    static let twoCorrect = badQuestion { q in
        q["wrong_answers"] = [
            ["text": "It helps structure programs", "feedback": "No."], ["text": "C", "feedback": "No."], ["text": "D", "feedback": "No."],
        ]
    }

    @Test func aRerunGivesAFailedItemAnotherRoundInsteadOfReplayingItsFailure() async throws {
        let ws = try Workspace()
        let spec = try Workspace.spec(Specs.pinned)
        let alwaysBad = try RecordingProvider(
            script: ws.script(extra: [Self.answer(stage: "engagement-question", item: Self.questionItem, json: Self.twoCorrect)]))
        let first = try await ws.run(spec, provider: alwaysBad)
        #expect(first.failures.first { $0.id == Self.questionItem }?.attempts == 3)

        // Offline, the recorded chain ends in the same failure: reported as such, not as a miss.
        let offline = try await ws.run(spec, provider: nil, mode: .offline)
        let replayed = try #require(offline.failures.first { $0.id == Self.questionItem })
        #expect(replayed.reason == .invalid && replayed.attempts == 3)
        #expect(replayed.errors.contains { $0.contains("are the same") })

        // Re-run: attempts 1–3 come from the cache and fail as before, so attempts 4–6 are asked;
        // attempt 4 is still wrong, attempt 5 (the script's default answer) is valid.
        let second = try RecordingProvider(
            script: ws.script(
                extra: [Self.answer(stage: "engagement-question", item: Self.questionItem, attempt: 4, json: Self.twoCorrect)], name: "second.json"))
        let events = CollectingSink()
        let rerun = try await ws.runner(spec, provider: second, events: events).run(options: .init(outputRoot: ws.output))
        #expect(rerun.status == .complete)
        let asked = second.requests.filter { $0.0.itemID == Self.questionItem }
        #expect(asked.map(\.0.attempt) == [4, 5])
        // Fresh requests from the base, with every error so far; the round's size in the count.
        #expect(asked.map(\.1.messages.count) == [2, 2])
        #expect(asked[0].1.messages[1].content.contains("Attempt 4 of 6") && asked[0].1.messages[1].content.contains("are the same"))
        #expect(events.finished.first { $0.id == Self.questionItem }?.attempts == 5)
        #expect(second.calledItems.filter { $0 != Self.questionItem && !$0.hasPrefix("bonus-question/\(Self.topic)") }.isEmpty)

        // That chain replays offline with no model.
        let replay = try await ws.run(spec, provider: nil, mode: .offline)
        #expect(replay.status == .complete)
    }

    @Test func theUsageOfEveryAttemptIsCounted() async throws {
        let ws = try Workspace()
        let bad = Self.answer(
            stage: "engagement-question", item: Self.questionItem, attempt: 1, json: Self.badQuestion { q in q["topic_id"] = "nope" })
        let provider = try RecordingProvider(script: ws.script(extra: [bad]))
        let events = CollectingSink()
        let runner = try ws.runner(try Workspace.spec(Specs.pinned), provider: provider, events: events)
        let result = try await runner.run(options: .init(outputRoot: ws.output))
        let report = try #require(events.finished.first { $0.id == Self.questionItem })
        #expect(report.attempts == 2)
        #expect(report.usage.totalTokens == 400, "both attempts' tokens (200 each) are counted")
        #expect(result.totals.usage.totalTokens == provider.calls.count * 200)
    }
}
