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

    /// Runs the pinned course with `answers` for the engagement question's attempts (1, 2, …;
    /// later ones the script's valid answer), rendering: the run's status and the question's
    /// requests (its blind solves left out).
    static func engagementAttempts(_ answers: [JSONValue]) async throws -> (JobRunner.Result, [(RequestContext, LLMRequest)]) {
        let ws = try Workspace()
        let extra = answers.enumerated().map { answer(stage: "engagement-question", item: questionItem, attempt: $0.offset + 1, json: $0.element) }
        let provider = try RecordingProvider(script: ws.script(extra: extra))
        let result = try await ws.run(try Workspace.spec(Specs.pinned), provider: provider, renderer: MarkdownDocumentRenderer())
        return (result, provider.requests.filter { $0.0.itemID == questionItem && $0.0.stage != BlindSolver.stage })
    }

    /// A first answer for `item` that passes every check but words its question and wrong answers
    /// its own way (so a repair's answer, the script's, differs from it): what a reviewing check
    /// is then put to.
    static func rewordedFirstAnswer(item: String) -> JSONValue {
        answer(
            stage: "engagement-question", item: item, attempt: 1,
            json: badQuestion { q in
                q["prompt"] = "Which of these statements about {{topic_title}} is true?"
                q["wrong_answers"] = wrongWithTheirOwnFeedback
            })
    }

    /// Three wrong answers for `badQuestion`, each with feedback of its own.
    static let wrongWithTheirOwnFeedback: JSONValue = [
        ["text": "It slows programs", "feedback": "No: it costs nothing."], ["text": "Java only", "feedback": "No: every language has it."],
        ["text": "It is deprecated", "feedback": "No: it is current."],
    ]

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
        let attempts = provider.requests.filter { $0.0.itemID == Self.questionItem && $0.0.stage != BlindSolver.stage }
        #expect(attempts.map(\.0.attempt) == [1, 2], "\(name)")
        // The repair request carries the invalid answer and the validator's errors.
        let repair = try #require(attempts.last?.1)
        #expect(repair.messages.count == 4)
        #expect(repair.messages[2].role == .assistant)
        #expect(repair.messages[3].content.contains(expectedError), "\(name): \(repair.messages[3].content)")
    }

    /// Every text a learner reads is rendered before the answer is accepted: a command the
    /// converter does not know, in a wrong answer's feedback, is sent back, quoted. Without a
    /// renderer (Markdown-only bundles) it is not rendered, but a TeX command eaten by a JSON
    /// escape outside math (`"\frac"` read as a form feed + "rac") is still refused.
    @Test func aTextThatDoesNotRenderAsWrittenIsRepaired() async throws {
        func firstRepair(_ bad: JSONValue, renderer: (any DocumentRenderer)?) async throws -> String {
            let ws = try Workspace()
            let provider = try RecordingProvider(
                script: ws.script(extra: [Self.answer(stage: "engagement-question", item: Self.questionItem, attempt: 1, json: bad)]))
            let result = try await ws.run(try Workspace.spec(Specs.pinned), provider: provider, renderer: renderer)
            #expect(result.status == .complete)
            let attempts = provider.requests.filter { $0.0.itemID == Self.questionItem && $0.0.stage != BlindSolver.stage }
            #expect(attempts.map(\.0.attempt) == [1, 2])
            return try #require(attempts.last?.1.messages.last?.content)
        }
        let unknown = Self.badQuestion { q in
            q["wrong_answers"] = [
                ["text": "It slows programs", "feedback": "No: it costs $\\nosuchcommand{x}$ nothing."], ["text": "Java only", "feedback": "No."],
                ["text": "Deprecated", "feedback": "No."],
            ]
        }
        let rendered = try await firstRepair(unknown, renderer: MarkdownDocumentRenderer())
        #expect(rendered.contains("'s feedback does not render as written (line 1, column 14: “$\\nosuchcommand{x}$”: Unknown command \\nosuchcommand)"), "\(rendered)")
        // Beside math already delimited, an eaten escape is not guessed at (a bare formula would be
        // read as math: `TextIntegrity.inspectField`).
        let eaten = Self.badQuestion { q in q["explanation"] = .string("With $p$ the chance is \u{0C}rac{1}{2}: half of the outcomes.") }
        let plain = try await firstRepair(eaten, renderer: nil)
        #expect(plain.contains("explanation contains a form feed (U+000C) before \"rac{1}{2}:\" outside math: the JSON escape \"\\f\" took the backslash of \\frac"), "\(plain)")
    }

    /// An answer that gives back Lectern's own words — six in a row of its template, or of a
    /// repair it was sent — is refused and asked again (`InstructionEcho`).
    @Test func anAnswerGivingBackItsInstructionsIsRepaired() async throws {
        let echoing = Self.badQuestion { q in
            q["explanation"] = .string("Loops check understanding at the end of a lesson by repeating its steps.")
            q["wrong_answers"] = Self.wrongWithTheirOwnFeedback
        }
        let (result, attempts) = try await Self.engagementAttempts([echoing])
        #expect(result.status == .complete)
        #expect(attempts.map(\.0.attempt) == [1, 2])
        let repair = try #require(attempts.last?.1.messages.last?.content)
        #expect(repair.contains("'explanation' repeats the instructions it was given ('check understanding at the end of')"), "\(repair)")

        // The words of the repair it was sent, given back in the next answer.
        let falseSum = Self.badQuestion { q in
            q["explanation"] = .string("Three passes of four steps each run $3 \\times 4 = 7$ steps.")
            q["wrong_answers"] = Self.wrongWithTheirOwnFeedback
        }
        let parroting = Self.badQuestion { q in
            q["explanation"] = .string("Three passes of four steps each run 12 steps; compute it again and write the right value.")
            q["wrong_answers"] = Self.wrongWithTheirOwnFeedback
        }
        let (result2, attempts2) = try await Self.engagementAttempts([falseSum, parroting])
        #expect(result2.status == .complete)
        #expect(attempts2.map(\.0.attempt) == [1, 2, 3])
        let third = try #require(attempts2.last?.1.messages.map(\.content).joined(separator: "\n"))
        #expect(third.contains("'explanation' repeats the instructions it was given ('compute it again and write the')"), "\(third)")
    }

    /// What Lectern quotes is not its own words: a stem shaped as a format rule offers it, a
    /// lecture's sentence, a reviewer's note. A call's echo holds the template's words and the
    /// rules it inserts, never a content variable's.
    @Test func quotedWordingAndContentAreNoEcho() throws {
        let template = try PromptTemplate(
            parsing: "---\nname: t\nversion: 1\n---\n[user]\nWrite a question about this sentence of the lecture, and keep it short:\n{{lecture_excerpt}}\n{{format_rule}}\n{{schema}}",
            file: "t.prompt")
        let lecture = "A loop repeats the same steps until its condition is false."
        let call = ModelCall<String>(
            itemID: "q", stage: "engagement-question", template: template,
            variables: [
                "lecture_excerpt": lecture,
                "format_rule": "The prompt is: In the sentence \"\(lecture)\", what does 'loop' mean? Ask it in plain words for the learner.",
                "schema": "{\"type\":\"object\",\"properties\":{\"prompt\":{\"type\":\"string\"}}}",
            ],
            schema: nil, check: { .valid($0, warnings: []) })
        let echo = ModelCallRunner.instructionEcho(for: call)
        #expect(echo.firstEcho(in: "In the sentence \"\(lecture)\", what does 'loop' mean?") == nil)
        #expect(echo.firstEcho(in: "Write a question about this sentence of the lecture.") == "Write a question about this sentence")
        #expect(echo.firstEcho(in: "Ask it in plain words for the learner.") == "Ask it in plain words for")
        #expect(ModelCallRunner.unquoted("the key ('isn't it?') is 'x', isn't it") == ["the key (", ") is ", ", isn't it"])
        // No run spans a quotation: these six words are only joined across one.
        #expect(echo.firstEcho(in: "Ask it in plain words for") != nil)
        #expect(InstructionEcho(instructions: ModelCallRunner.unquoted("one two three 'x' four five six")).firstEcho(in: "one two three four five six") == nil)
        let afterNote = ModelCallRunner.echo(
            echo, afterRefusing: [Refusal(.stageRules, ModelCallRunner.reviewerRejection + "Ask instead how many times the loop body runs for range(3).")],
            answers: [])
        #expect(afterNote.firstEcho(in: "How many times the loop body runs for range(3)?") == nil, "a reviewer's note may suggest wording")
    }

    @Test func falseArithmeticInWhatTheAnswerAssertsIsRepairedButNotInAWrongOption() async throws {
        let bad = Self.badQuestion { q in
            q["explanation"] = .string("Three passes of four steps each run $3 \\times 4 = 7$ steps.")
            q["wrong_answers"] = [
                ["text": "$3 + 4 = 12$ steps", "feedback": "No: that adds where it should multiply."], ["text": "Java only", "feedback": "No: every language loops."],
                ["text": "Deprecated", "feedback": "No: loops are current."],
            ]
        }
        let (result, attempts) = try await Self.engagementAttempts([bad])
        #expect(result.status == .complete)
        #expect(attempts.map(\.0.attempt) == [1, 2])
        let repair = try #require(attempts.last?.1.messages.last?.content)
        #expect(repair.contains("explanation states false arithmetic: \"3 \\times 4 = 7\" is false: 3 \\times 4 is 12"), "\(repair)")
        #expect(!repair.contains("3 + 4 = 12"), "a wrong option is false on purpose: \(repair)")
    }

    @Test func aPoolQuestionThatAsksWhatTheTopicAlreadyAskedIsRepaired() async throws {
        // Level 1 writes the engagement question again, in other words.
        let levelOne = "reinforcement/\(Self.topic)/level-1"
        let again = Self.badQuestion { q in
            q["prompt"] = "Which statement is true about {{topic_title}}?"
            q["wrong_answers"] = Self.wrongWithTheirOwnFeedback
        }
        let ws = try Workspace()
        let provider = try RecordingProvider(script: ws.script(extra: [Self.answer(stage: "reinforcement", item: levelOne, attempt: 1, json: again)]))
        let result = try await ws.run(try Workspace.spec(Specs.pinned + "\naddons: { reinforcement: true }"), provider: provider)
        #expect(result.status == .complete)
        let attempts = provider.requests.filter { $0.0.itemID == levelOne && $0.0.stage != BlindSolver.stage }
        #expect(attempts.map(\.0.attempt) == [1, 2])
        let repair = try #require(attempts.last?.1.messages.last?.content)
        #expect(repair.contains("the question asks what engagement-question/\(Self.topic) already asks ('Which statement about Loops is true?')"), "\(repair)")
        // Level 1's section names no loop in its prose: it keeps the general instruction and the
        // list of what the topic already asks (the engagement and bonus questions).
        let levelOnePrompt = try #require(provider.requests.first { $0.0.itemID == levelOne }?.1.messages.last?.content)
        #expect(levelOnePrompt.contains("basic recall of one fact or definition from the lecture"), "\(levelOnePrompt)")
        #expect(levelOnePrompt.contains("Learners have already answered these questions on this topic"))
        #expect(levelOnePrompt.contains("- Which statement about Loops is true?\n") && levelOnePrompt.contains("- Describe a situation where Loops would help you."))
        // Level 2's section (the one the questions so far touch least) has a sentence about loops:
        // level 2 is given that sentence and its paragraph alone, without the list.
        let levelTwo = try #require(provider.requests.first { $0.0.itemID == "reinforcement/\(Self.topic)/level-2" }?.1.messages.last?.content)
        #expect(
            levelTwo.contains("a simple problem the learner solves with what this sentence of the lecture teaches: \"Write three small programs that use Loops in different ways.\""), "\(levelTwo)")
        #expect(levelTwo.contains("---\nWrite three small programs that use Loops in different ways. Compare them with a friend"))
        #expect(!levelTwo.contains("Learners have already answered") && !levelTwo.contains("## "))
        // Every level started after the topic's questions and the levels below it.
        let order = provider.requests.map(\.0.itemID)
        for level in 1...4 {
            let first = try #require(order.firstIndex(of: "reinforcement/\(Self.topic)/level-\(level)"))
            #expect(order.lastIndex(of: "bonus-question/\(Self.topic)")! < first)
            if level > 1 { #expect(order.lastIndex(of: "reinforcement/\(Self.topic)/level-\(level - 1)")! < first) }
        }
    }

    @Test func truncatedJSONIsRepaired() async throws {
        let (result, provider) = try await runWithFirstAttempt(
            Self.answer(
                stage: "engagement-question", item: Self.questionItem, attempt: 1,
                content: "{\"topic_id\": \"s01-t02\", \"prompt\": \"Which"), item: Self.questionItem)
        #expect(result.status == .complete)
        let last = try #require(provider.requests.last { $0.0.itemID == Self.questionItem && $0.0.stage != BlindSolver.stage })
        #expect(last.0.attempt == 2)
        #expect(last.1.messages.last?.content.contains("not complete, valid JSON") == true)
    }

    @Test func answerCutOffByTheTokenBudgetIsNeverTakenAsComplete() async throws {
        // Syntactically complete JSON, but the provider says it stopped for length.
        let (result, provider) = try await runWithFirstAttempt(
            Self.answer(stage: "engagement-question", item: Self.questionItem, attempt: 1, json: Self.badQuestion { _ in }, finish: "length"),
            item: Self.questionItem)
        #expect(result.status == .complete)
        #expect(provider.requests.filter { $0.0.itemID == Self.questionItem && $0.0.stage != BlindSolver.stage }.count == 2)
        let repair = try #require(provider.requests.last { $0.0.itemID == Self.questionItem && $0.0.stage != BlindSolver.stage }?.1.messages.last?.content)
        #expect(repair.contains("the answer was cut off (length) before it was complete; write a shorter, complete answer"))
    }

    /// An answer still cut off after the provider's larger asks is stored with its ending, so a
    /// replay refuses it as the recording did instead of missing it.
    @Test func aCutOffAnswerIsKeptAndReplaysAsItWasRefused() async throws {
        let ws = try Workspace()
        let provider = try RecordingProvider(
            script: ws.script(extra: [
                Self.answer(stage: "engagement-question", item: Self.questionItem, attempt: 1, json: Self.badQuestion { _ in }, finish: "length")
            ]))
        let spec = try Workspace.spec(Specs.pinned)
        let result = try await ws.run(spec, provider: provider)
        #expect(result.status == .complete)
        let replay = try await ws.run(spec, provider: nil, mode: .offline, output: ws.root.appendingPathComponent("replay"))
        #expect(replay.status == .complete, "\(replay.failures)")
        #expect(replay.reports[Self.questionItem]?.attempts == 2)
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
        let last = try #require(provider.requests.last { $0.0.itemID == Self.questionItem && $0.0.stage != BlindSolver.stage })
        #expect(last.0.attempt == 2)
        let repair = try #require(last.1.messages.last?.content)
        #expect(repair.contains("the answer went round in a loop, writing 'Which loop runs forever?' again and again until it was cut off"))
        // The answer shown goes to the loop's first turn, not 30 of them.
        let shown = try #require(last.1.messages.dropLast().last { $0.role == .assistant }?.content)
        #expect(shown == "{\"topic_id\": \"s01-t02\", \"prompt\": \"Which loop runs forever? \n[… the same again and again until cut off]")
    }

    @Test func lectureAboutTheWrongTopicIsRepaired() async throws {
        let wrong =
            "# Cooking pasta\n\n## Water\n\n" + String(repeating: "Boil salted water and add the pasta. ", count: 40) + "\n\n## Sauce\n\n"
            + String(repeating: "Tomatoes, garlic, olive oil. ", count: 20)
        let item = "lecture/\(Self.topic)"
        let (result, provider) = try await runWithFirstAttempt(Self.answer(stage: "lecture", item: item, attempt: 1, content: wrong), item: item)
        #expect(result.status == .complete)
        let attempts = provider.requests.filter { $0.0.itemID == item && $0.0.stage != BlindSolver.stage }
        #expect(attempts.count == 2)
        #expect(attempts.last?.1.messages.last?.content.contains("does not seem to be about 'Loops'") == true)
    }

    /// Code a learner copies must run: a lecture whose example continues another with a lone
    /// `elif` (as the local model wrote python-basics' lecture on else and elif) is sent back;
    /// a question may show broken code in its prompt on purpose, but not in its explanation.
    @Test func codeThatPythonWouldRefuseIsRepairedWhereTheTextAssertsIt() async throws {
        let item = "lecture/\(Self.topic)"
        let lecture =
            "# Loops\n\n## Repeating work\n\n" + String(repeating: "A loop repeats the same steps for every item. ", count: 30)
            + "\n\n```python\nfor n in range(3):\n    print(n)\n```\n\n## Stopping\n\nThen you can say:\n\n"
            + "```python\nelif n == 2:\n    break\n```\n\n" + String(repeating: "A loop stops when the items run out. ", count: 10) + "\n"
        let (result, provider) = try await runWithFirstAttempt(Self.answer(stage: "lecture", item: item, attempt: 1, content: lecture), item: item)
        #expect(result.status == .complete)
        let attempts = provider.requests.filter { $0.0.itemID == item && $0.0.stage != BlindSolver.stage }
        #expect(attempts.count == 2)
        let repair = try #require(attempts.last?.1.messages.last?.content)
        #expect(repair.contains("the text: the Python code does not run as written (line 17: 'elif' has no statement before it at its indentation"), "\(repair)")

        let inPrompt = Self.badQuestion { q in
            q["prompt"] = "What is wrong with this code?\n\n```python\nif n > 2\n    print(n)\n```"
            q["wrong_answers"] = Self.wrongWithTheirOwnFeedback
        }
        let (fine, asked) = try await runWithFirstAttempt(
            Self.answer(stage: "engagement-question", item: Self.questionItem, attempt: 1, json: inPrompt), item: Self.questionItem)
        #expect(fine.status == .complete)
        let questionAttempts = asked.requests.filter { $0.0.itemID == Self.questionItem && $0.0.stage != BlindSolver.stage }
        #expect(questionAttempts.count == 1, "a prompt may show code that does not run")
        let inExplanation = Self.badQuestion { q in
            q["explanation"] = "Write the condition, then what to do:\n\n```python\nif n > 2\n    print(n)\n```"
            q["wrong_answers"] = Self.wrongWithTheirOwnFeedback
        }
        let (_, repaired) = try await runWithFirstAttempt(
            Self.answer(stage: "engagement-question", item: Self.questionItem, attempt: 1, json: inExplanation), item: Self.questionItem)
        let explanationRepair = try #require(
            repaired.requests.last { $0.0.itemID == Self.questionItem && $0.0.stage != BlindSolver.stage }?.1.messages.last?.content)
        #expect(explanationRepair.contains("explanation: the Python code does not run as written (line 4: the 'if' line has no colon at its end)"), "\(explanationRepair)")
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
        let attempts = provider.requests.filter { $0.0.itemID == item && $0.0.stage != BlindSolver.stage }
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
        let attempts = provider.requests.filter { $0.0.itemID == Self.questionItem && $0.0.stage != BlindSolver.stage }.map(\.1)
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
        let asked = second.requests.filter { $0.0.itemID == Self.questionItem && $0.0.stage != BlindSolver.stage }
        #expect(asked.map(\.0.attempt) == [4, 5])
        // Fresh requests from the base, with every error so far; the round's size in the count.
        #expect(asked.map(\.1.messages.count) == [2, 2])
        #expect(asked[0].1.messages[1].content.contains("Attempt 4 of 6") && asked[0].1.messages[1].content.contains("are the same"))
        #expect(events.finished.first { $0.id == Self.questionItem }?.attempts == 5)
        // Only the item itself (its answers and the blind solve of the accepted one) and what waited for it.
        #expect(second.calledItems.filter { !$0.hasPrefix(Self.questionItem) && !$0.hasPrefix("bonus-question/\(Self.topic)") }.isEmpty)

        // That chain replays offline with no model.
        let replay = try await ws.run(spec, provider: nil, mode: .offline)
        #expect(replay.status == .complete)
    }

    @Test func fromTheThirdRoundOnEachRoundStartsAfreshWithAnotherSeed() async throws {
        let ws = try Workspace()
        let spec = try Workspace.spec(
            Specs.pinned.replacingOccurrences(of: "model: { provider: scripted, script: unused.json }", with: "model: { provider: scripted, script: unused.json, seed: 7 }"))
        func bad(_ attempts: [Int]) -> [JSONValue] {
            attempts.map { Self.answer(stage: "engagement-question", item: Self.questionItem, attempt: $0, json: Self.twoCorrect) }
        }
        // Two runs, two rounds of 3 refused attempts (the first run's provider refuses every one).
        let first = try RecordingProvider(script: ws.script(extra: bad([1, 2, 3])))
        _ = try await ws.run(spec, provider: first)
        let second = try RecordingProvider(script: ws.script(extra: bad([4, 5, 6]), name: "second.json"))
        #expect(try await ws.run(spec, provider: second).failures.first { $0.id == Self.questionItem }?.attempts == 6)
        // The third round: attempt 7 is the first request again, with no errors listed, at the
        // spec's temperature and another seed; attempt 8 repairs it in conversation.
        let third = try RecordingProvider(script: ws.script(extra: bad([7]), name: "third.json"))
        let rerun = try await ws.run(spec, provider: third)
        #expect(rerun.status == .complete)
        let asked = third.requests.filter { $0.0.itemID == Self.questionItem && $0.0.stage != BlindSolver.stage }
        #expect(asked.map(\.0.attempt) == [7, 8])
        let opening = try #require(first.requests.first { $0.0.itemID == Self.questionItem && $0.0.attempt == 1 }?.1)
        #expect(asked[0].1.messages.map(\.content) == opening.messages.map(\.content))
        #expect(asked[0].1.temperature == opening.temperature)
        #expect(asked[0].1.seed != nil && asked[0].1.seed == opening.seed.map { $0 + 1 })
        #expect(asked[1].1.messages.count == 4 && asked[1].1.messages[3].content.contains("Attempt 8 of 9"))
        // The second round's requests still list every error so far.
        let round2 = second.requests.filter { $0.0.itemID == Self.questionItem && $0.0.stage != BlindSolver.stage }.map(\.1)
        #expect(round2.map(\.seed) == [opening.seed, opening.seed, opening.seed] && round2.allSatisfy { $0.messages.count == 2 })
        // The chain replays offline.
        #expect(try await ws.run(spec, provider: nil, mode: .offline).status == .complete)
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
        #expect(report.usage.totalTokens == 600, "both attempts' tokens (200 each) and the blind solve of the accepted one are counted")
        #expect(result.totals.usage.totalTokens == provider.calls.count * 200)
    }
}
