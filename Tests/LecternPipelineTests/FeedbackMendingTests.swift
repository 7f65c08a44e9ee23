import Foundation
import LecternCore
import LecternLLM
import Testing

@testable import LecternPipeline

/// Wrong options sharing one feedback (`FeedbackMending`): an answer refused for that alone is
/// given each wrong option's own feedback, one call per option, and checked again — through the
/// real runner, engine and cache on a scripted provider.
struct FeedbackMendingTests {
    static let item = RepairTests.questionItem
    static let copied = "This answer is incorrect because a loop repeats the steps you give it."

    /// The question the local model writes: every wrong option with one feedback.
    static let sharedFeedback = RepairTests.badQuestion { q in
        q["wrong_answers"] = [
            ["text": "It slows programs", "feedback": .string(copied)], ["text": "Java only", "feedback": .string(copied)],
            ["text": "It is deprecated", "feedback": .string(copied)],
        ]
    }

    /// The answer of every feedback call for `item`: `feedback`, where `{{option}}` is the option asked about.
    static func feedback(_ feedback: String) -> JSONValue {
        ["stage": .string(FeedbackMending.stage), "item": .string(FeedbackMending.itemID(of: item)), "json": ["feedback": .string(feedback)]]
    }

    /// A provider whose first engagement answer is `sharedFeedback` and whose every feedback call
    /// answers `mended`.
    static func sharedFeedbackRun(_ ws: Workspace, mended: String) throws -> RecordingProvider {
        try RecordingProvider(
            script: ws.script(extra: [
                RepairTests.answer(stage: "engagement-question", item: Self.item, attempt: 1, json: Self.sharedFeedback), Self.feedback(mended),
            ]))
    }

    static func asked(_ provider: RecordingProvider) -> [(RequestContext, LLMRequest)] {
        provider.requests.filter { $0.0.itemID.hasPrefix(item) && $0.0.stage != BlindSolver.stage }
    }

    @Test func anAnswerRefusedOnlyForSharedFeedbackGetsEachWrongOptionsOwn() async throws {
        let ws = try Workspace()
        let provider = try Self.sharedFeedbackRun(ws, mended: "You picked '{{option}}', but a loop only repeats the steps you give it.")
        let spec = try Workspace.spec(Specs.pinned)
        let result = try await ws.run(spec, provider: provider)
        #expect(result.status == .complete, "\(result.failures)")
        let asked = Self.asked(provider)
        #expect(asked.map { "\($0.0.stage) \($0.0.attempt)" } == ["engagement-question 1"] + Array(repeating: "wrong-answer-feedback 1", count: 3))
        // Each call sees the question, its key, the explanation and its one wrong option.
        let first = try #require(asked.dropFirst().first?.1)
        let text = first.messages.map(\.content).joined(separator: "\n")
        #expect(text.contains("Question: Which statement about Loops is true?") && text.contains("Correct answer: It helps structure programs"))
        #expect(text.contains("Why it is correct: It is a basic building block of programs."))
        #expect(text.contains("Wrong answer chosen: It slows programs") && !text.contains("Java only"), "\(text)")
        #expect(first.responseSchema?.name == "wrong_answer_feedback" && first.maxTokens == FeedbackMending.maxTokens)

        let report = try #require(result.reports[Self.item])
        #expect(report.attempts == 1, "mended within its attempt")
        #expect(report.rejections.count == 1 && report.rejections[0].allSatisfy { $0.message.contains(QuestionRules.sameFeedback) }, "\(report.rejections)")
        let distinct = try #require(result.quality?.checks.first { $0.check == .distinctOptions })
        #expect(distinct.repaired == 1 && distinct.refusals == 1)

        guard case .written(let dir)? = result.bundle else { throw PipelineError("no bundle") }
        let bundle = try String(contentsOf: dir.appendingPathComponent("course.json"), encoding: .utf8)
        for option in ["It slows programs", "Java only", "It is deprecated"] {
            #expect(bundle.contains("You picked '\(option)', but a loop only repeats the steps you give it."), "\(option)")
        }
        #expect(!bundle.contains(Self.copied))

        // An offline replay takes the same path from the cache.
        let replay = try await ws.run(spec, provider: nil, mode: .offline, output: ws.root.appendingPathComponent("replay"))
        #expect(replay.status == .complete, "\(replay.failures)")
        guard case .written(let replayed)? = replay.bundle else { throw PipelineError("no replayed bundle") }
        let again = try String(contentsOf: replayed.appendingPathComponent("course.json"), encoding: .utf8)
        #expect(again == bundle)
    }

    @Test func aMendThatStillFailsGoesToTheUsualRepairOfTheModelsAnswer() async throws {
        let ws = try Workspace()
        // The same feedback for every option: the mended answer is refused as the first was.
        let provider = try Self.sharedFeedbackRun(ws, mended: "A loop repeats the steps you give it, nothing more.")
        let events = CollectingSink()
        let result = try await ws.runner(try Workspace.spec(Specs.pinned), provider: provider, events: events).run(
            options: JobRunner.Options(outputRoot: ws.output))
        #expect(result.status == .complete, "\(result.failures)")
        // Why the mend was given up is reported, before the repair it hands the answer to.
        let given = events.all.compactMap { event -> (String, Int, String)? in
            if case .mendGivenUp(let id, _, let attempt, let reason) = event { return (id, attempt, reason) } else { return nil }
        }
        #expect(given.count == 1 && given.first?.0 == Self.item && given.first?.1 == 1, "\(given)")
        #expect(given.first?.2.hasPrefix("the mended answer was refused: ") == true && given.first?.2.contains(QuestionRules.sameFeedback) == true, "\(given)")
        let asked = Self.asked(provider)
        #expect(
            asked.map { "\($0.0.stage) \($0.0.attempt)" } == ["engagement-question 1"] + Array(repeating: "wrong-answer-feedback 1", count: 3) + [
                "engagement-question 2"
            ])
        // The repair quotes the answer as the model wrote it, and its errors.
        let repair = try #require(asked.last?.1.messages)
        #expect(repair.dropLast().last { $0.role == .assistant }?.content.contains(Self.copied) == true)
        #expect(repair.last?.content.contains("wrong_answers[1] and wrong_answers[2] have the same feedback") == true)
        #expect(result.reports[Self.item]?.attempts == 2)
    }

    /// A run whose engagement question's first answer gives its first wrong option `feedback`
    /// (the others their own), every feedback call answering in kind.
    static func runWithFirstWrongFeedback(_ feedback: String) async throws -> (JobRunner.Result, RecordingProvider) {
        let ws = try Workspace()
        let question = RepairTests.badQuestion { q in
            q["wrong_answers"] = [
                ["text": "It slows programs", "feedback": .string(feedback)],
                ["text": "Java only", "feedback": "No: every language has it."], ["text": "It is deprecated", "feedback": "No: it is current."],
            ]
        }
        let provider = try RecordingProvider(
            script: ws.script(extra: [
                RepairTests.answer(stage: "engagement-question", item: Self.item, attempt: 1, json: question),
                Self.feedback("You picked '{{option}}', but a loop only repeats the steps you give it."),
            ]))
        return (try await ws.run(try Workspace.spec(Specs.pinned), provider: provider), provider)
    }

    @Test func aWrongOptionWhoseFeedbackCallsItRightIsMendedToo() async throws {
        let (result, provider) = try await Self.runWithFirstWrongFeedback("This is correct because loops take time to run.")
        #expect(result.status == .complete, "\(result.failures)")
        let asked = Self.asked(provider)
        #expect(asked.map { "\($0.0.stage) \($0.0.attempt)" } == ["engagement-question 1", "wrong-answer-feedback 1"])
        #expect(asked.last?.1.messages.last?.content.contains("Wrong answer chosen: It slows programs") == true)
        let rejection = try #require(result.reports[Self.item]?.rejections.first)
        #expect(
            rejection == [
                Refusal(
                    .feedbackAgreesWithKey,
                    "wrong_answers[1]'s feedback ('This is correct because loops take time to run.') calls it right, but it is a wrong answer: the feedback says why this answer is wrong")
            ])
    }

    /// Feedback is a text the learner reads, held to what the explanation is held to; a wrong
    /// option's that is not is mended, a correct option's goes to the usual repair.
    @Test func feedbackAboutTheQuestionIsRefusedAndAWrongOptionsIsMended() async throws {
        let (result, provider) = try await Self.runWithFirstWrongFeedback("The question asks what a loop does, and this is not it.")
        #expect(result.status == .complete, "\(result.failures)")
        #expect(Self.asked(provider).map { "\($0.0.stage) \($0.0.attempt)" } == ["engagement-question 1", "wrong-answer-feedback 1"])
        #expect(
            result.reports[Self.item]?.rejections == [
                [
                    Refusal(
                        .questionForm,
                        "'wrong_answers[1]'s feedback' speaks about the question instead of to the learner ('The question asks'): the learner reads it; write to them about the subject, not about the question, its parts or its audience"
                    )
                ]
            ])

        let keyed = RepairTests.badQuestion { q in
            q["correct_answer"] = ["text": "It helps structure programs", "feedback": "The question asks what a loop does."]
            q["wrong_answers"] = RepairTests.wrongWithTheirOwnFeedback
        }
        let ws2 = try Workspace()
        let provider2 = try RecordingProvider(
            script: ws2.script(extra: [RepairTests.answer(stage: "engagement-question", item: Self.item, attempt: 1, json: keyed)]))
        let repaired = try await ws2.run(try Workspace.spec(Specs.pinned), provider: provider2)
        #expect(repaired.status == .complete)
        #expect(Self.asked(provider2).map { "\($0.0.stage) \($0.0.attempt)" } == ["engagement-question 1", "engagement-question 2"])
    }

    @Test func anAnswerWithOtherErrorsIsNotMended() async throws {
        let ws = try Workspace()
        var question = Self.sharedFeedback
        question = RepairTests.badQuestion { q in
            q["wrong_answers"] = question["wrong_answers"]
            q["topic_id"] = "s02-t01"
        }
        let provider = try RecordingProvider(
            script: ws.script(extra: [
                RepairTests.answer(stage: "engagement-question", item: Self.item, attempt: 1, json: question),
                Self.feedback("You picked '{{option}}', but a loop only repeats the steps you give it."),
            ]))
        let result = try await ws.run(try Workspace.spec(Specs.pinned), provider: provider)
        #expect(result.status == .complete)
        #expect(Self.asked(provider).map { "\($0.0.stage) \($0.0.attempt)" } == ["engagement-question 1", "engagement-question 2"])
    }

    /// Every question of an answer (a reading set's `questions`), each wrong option in a group
    /// sharing a feedback, the group whole; the feedback written back at its place.
    @Test func sitesAreTheWrongOptionsSharingAFeedbackInEachQuestion() throws {
        let answer: JSONValue = [
            "questions": [
                [
                    "prompt": "What does the passage say of rivers?", "correct_answer": ["text": "They flood", "feedback": "Yes."],
                    "wrong_answers": [
                        ["text": "They dry", "feedback": "Not in the passage."], ["text": "They freeze", "feedback": "Not in the passage!"],
                        ["text": "They move", "feedback": "The passage says they flood."],
                    ],
                ],
                [
                    "prompt": "Who wrote it?", "correct_answer": ["text": "Ann", "feedback": "Yes."],
                    "wrong_answers": [["text": "Bo", "feedback": "No: Ann."], ["text": "Cy", "feedback": "No: Ann wrote it."]],
                ],
            ]
        ]
        let mending = try FeedbackMending(language: "en")
        let found = try #require(mending.sites(in: "Here it is:\n" + answer.canonicalText, variables: ["language": "English", "passage": "Rivers flood."]))
        #expect(found.1.map(\.path) == [".questions[0].wrong_answers[0]", ".questions[0].wrong_answers[1]"])
        #expect(found.1.map { $0.variables["option"] } == ["They dry", "They freeze"])
        #expect(found.1[0].variables["context"] == "Read this text:\n\nRivers flood.\n\n")
        let mended = FeedbackMending.applying([".questions[0].wrong_answers[1]#feedback": "Rivers do not freeze in the passage."], to: found.0)
        let value = try JSONValue.parse(mended)
        #expect(value["questions"]?.arrayValue?[0]["wrong_answers"]?.arrayValue?[1]["feedback"]?.stringValue == "Rivers do not freeze in the passage.")
        #expect(value["questions"]?.arrayValue?[0]["wrong_answers"]?.arrayValue?[0]["feedback"]?.stringValue == "Not in the passage.")
        #expect(value["questions"]?.arrayValue?[1] == answer["questions"]?.arrayValue?[1])

        #expect(mending.sites(in: RepairTests.badQuestion { _ in }.canonicalText, variables: [:]) == nil, "'No.' is too short to count as shared")
        #expect(mending.sites(in: "no JSON here", variables: [:]) == nil)
        #expect(FeedbackMending.mends(["wrong_answers[1] and wrong_answers[2] have the same feedback; …"]))
        #expect(!FeedbackMending.mends(["wrong_answers[1] and wrong_answers[2] have the same feedback; …", "the prompt gives the answer away"]))
        #expect(!FeedbackMending.mends([]))
        #expect(FeedbackMending.mends(["the level-2 question: wrong_answers[3]'s feedback ('…') \(QuestionRules.callsAWrongAnswerRight): …"]))
        #expect(!FeedbackMending.mends(["correct_answer's feedback ('…') calls it wrong, but it is the correct answer: …"]))
        #expect(FeedbackMending.mends(["'the level-2 question's explanation' speaks about the question instead of to the learner ('x'): …"]))
        #expect(FeedbackMending.mends(["questions[1]: 'explanation' stops in the middle of a sentence ('…'): finish it"]))
        #expect(FeedbackMending.mends(["'explanation' repeats the question word for word: …", "wrong_answers[1] and wrong_answers[2] have the same feedback; …"]))
        #expect(FeedbackMending.mends(["'prompt' speaks about the question instead of to the learner ('x'): …"]))
        #expect(!FeedbackMending.mends(["'prompt' refers to a video, slides or an instructor ('x'), which this course does not have: …"]))
        #expect(!FeedbackMending.mends(["'reference_answer' stops in the middle of a sentence ('…'): finish it"]))
    }

    /// A free-text question's explanation is written against its reference answer; one that
    /// repeats the question is a site too, and a fit one is none.
    @Test func anExplanationSiteTakesTheReferenceAnswerAsItsKey() throws {
        let mending = try FeedbackMending(language: "en")
        let prompt = "Imagine you roll a die twice. How many outcomes are there, and why?"
        let bonus: JSONValue = [
            "prompt": .string(prompt), "reference_answer": "There are 36: six for each roll.",
            "explanation": .string(prompt + " There are 36."),
        ]
        let found = try #require(mending.sites(in: bonus.canonicalText, variables: ["language": "English"]))
        #expect(found.1.map(\.key) == ["#explanation"] && found.1[0].stage == FeedbackMending.explanationStage)
        #expect(found.1[0].variables["correct"] == "There are 36: six for each roll." && found.1[0].label == "explanation")
        let mended = try JSONValue.parse(FeedbackMending.applying(["#explanation": "Each of the 6 faces can follow each of the 6: 6 × 6 = 36."], to: found.0))
        #expect(mended["explanation"]?.stringValue == "Each of the 6 faces can follow each of the 6: 6 × 6 = 36." && mended["prompt"]?.stringValue == prompt)
        let fit: JSONValue = ["prompt": .string(prompt), "reference_answer": "36.", "explanation": "Each roll has 6 faces, so 6 × 6 = 36."]
        #expect(mending.sites(in: fit.canonicalText, variables: [:]) == nil)
    }

    /// An exam item's wrong-option feedback and explanation naming a number its source text lacks
    /// (the local model's "The age mentioned in the sentence is about 400 years") are sites, as is
    /// feedback about the question; the key's feedback is not, and a course (no source) has none.
    @Test func anExamsMadeUpNumbersAndFeedbackAboutTheQuestionAreSites() throws {
        let mending = try FeedbackMending(language: "en")
        let item: JSONValue = [
            "prompt": "The Hellenistic ____ began in 323 B.C.", "correct_answer": ["text": "Period", "feedback": "The text says 'Hellenistic Period'."],
            "wrong_answers": [
                ["text": "Age", "feedback": "The age mentioned in the sentence is about 400 years."],
                ["text": "Era", "feedback": "The question asks for the word the text uses."],
                ["text": "Empire", "feedback": "An empire is a state; the text speaks of a time, from 323 B.C."],
            ],
            "explanation": "Read the words around the blank: the period began in 323 B.C., 2,300 years ago.",
        ]
        let source = "The Hellenistic Period began in 323 B.C. with the death of Alexander."
        let found = try #require(mending.sites(in: item.canonicalText, variables: ["language": "English", "source": source]))
        #expect(found.1.map(\.key) == [".wrong_answers[0]#feedback", ".wrong_answers[1]#feedback", "#explanation"])
        #expect(found.1[0].variables["context"] == "Read this text:\n\n\(source)\n\n")
        // Without a source text (a course) the numbers are not held to one.
        #expect(mending.sites(in: item.canonicalText, variables: ["language": "English"])?.1.map(\.key) == [".wrong_answers[1]#feedback"])
        #expect(FeedbackMending.mends(["the feedback of 'Age' names 400, \(ExamRules.unsourcedNumber), in its words and numbers"]))
        #expect(FeedbackMending.mends(["questions[1]: the explanation names 1925, \(ExamRules.unsourcedNumber), in its words and numbers"]))
        #expect(FeedbackMending.mends(["'the feedback of 'Era'' speaks about the question instead of to the learner ('The question asks'): …"]))
        #expect(!FeedbackMending.mends(["questions[1]: correct_answer ('United States') names 'United', which neither the source text nor the question has: …"]))
        let issues = ExamRules.unsourcedNumberIssues(
            explanation: "", prompt: "The Hellenistic ____ began in 323 B.C.", options: [Choice(text: "Age", correct: false, feedback: "About 400 years.")],
            source: source)
        #expect(issues.map(\.message) == ["the feedback of 'Age' names 400, \(ExamRules.unsourcedNumber), in its words and numbers"])
        // A number the source writes in words is the source's: "4th" for "fourth".
        #expect(ExamRules.unsourcedNumbers(in: "It ended in the 4th century, 2 ages later.", prompt: "", options: [], source: "In the fourth century B.C. two ages …") == [])
        #expect(ExamRules.unsourcedNumbers(in: "It ended in the 5th century.", prompt: "", options: [], source: "In the fourth century B.C.") == ["5"])
    }

    /// False arithmetic in a wrong option's feedback or in an explanation makes it a site (the
    /// local model's "the permutation formula P(5, 3) = 5! / (3!(5-3)!)"); in the key's feedback
    /// it does not, and its error is not one a mend answers.
    @Test func falseArithmeticInAWrongOptionsFeedbackOrTheExplanationIsASite() throws {
        let mending = try FeedbackMending(language: "en")
        let question: JSONValue = [
            "prompt": "How many ways can you choose 3 students from a class of 5?",
            "correct_answer": ["text": "10", "feedback": "C(5, 3) = 5! / (3! 2!) = 10."],
            "wrong_answers": [
                ["text": "60", "feedback": "60 counts orders: the permutation formula P(5, 3) = 5! / (3!(5-3)!)."],
                ["text": "15", "feedback": "15 is C(6, 2), not the count here."], ["text": "5", "feedback": "5 is one student at a time."],
            ],
            "explanation": "A committee has no order, so count combinations: 5040 / (6 * 2) = 10.",
        ]
        let found = try #require(mending.sites(in: question.canonicalText, variables: ["language": "English"]))
        #expect(found.1.map(\.key) == [".wrong_answers[0]#feedback", "#explanation"])
        #expect(FeedbackMending.mends(["wrong answer 3's feedback states false arithmetic: \"P(5, 3) = 5! / (3!(5-3)!)\" is false: …"]))
        #expect(FeedbackMending.mends(["the level-2 question's explanation states false arithmetic: \"5040 / (6 * 2) = 10\" is false: …"]))
        #expect(!FeedbackMending.mends(["correct_answer's feedback states false arithmetic: \"C(5, 3) = 9\" is false: …"]))
        #expect(!FeedbackMending.mends(["reference_answer states false arithmetic: \"2 + 2 = 5\" is false: …"]))
    }

    /// An answer refused only for its explanation — the local model's "This question tests the
    /// learner's understanding of …" — gets the explanation written alone, and is accepted at the
    /// same attempt; the rest of the answer is the model's.
    @Test func anExplanationAboutTheQuestionIsWrittenAgainAlone() async throws {
        let ws = try Workspace()
        let question = RepairTests.badQuestion { q in
            q["wrong_answers"] = [
                ["text": "It slows programs", "feedback": "No: it makes them clearer."], ["text": "Java only", "feedback": "No: every language has it."],
                ["text": "It is deprecated", "feedback": "No: it is current."],
            ]
            q["explanation"] = "This question tests the learner's understanding of loops."
        }
        let written = "You use it to give a program its structure: each part does one job."
        let provider = try Self.fieldMendRun(ws, question: question, stage: FeedbackMending.explanationStage, json: ["explanation": .string(written)])
        let result = try await ws.run(try Workspace.spec(Specs.pinned), provider: provider)
        #expect(result.status == .complete, "\(result.failures)")
        let asked = Self.asked(provider)
        #expect(asked.map { "\($0.0.stage) \($0.0.attempt)" } == ["engagement-question 1", "explanation 1"])
        let request = try #require(asked.last?.1)
        let text = request.messages.map(\.content).joined(separator: "\n")
        #expect(text.contains("Question: Which statement about Loops is true?") && text.contains("Correct answer: It helps structure programs"), "\(text)")
        #expect(request.responseSchema?.name == "explanation" && !text.contains("tests the learner"))
        let report = try #require(result.reports[Self.item])
        #expect(report.attempts == 1 && report.rejections.count == 1, "\(report.rejections)")
        let form = try #require(result.quality?.checks.first { $0.check == .questionForm })
        #expect(form.repaired == 1 && form.refusals == 1)
        guard case .written(let dir)? = result.bundle else { throw PipelineError("no bundle") }
        let bundle = try String(contentsOf: dir.appendingPathComponent("course.json"), encoding: .utf8)
        #expect(bundle.contains(written) && !bundle.contains("tests the learner"))
    }

    /// A course question's stem that is no question put to the learner is a site of its own: the
    /// draft, the options sorted (the key named) or the reference answer go to the model; a fit stem,
    /// a true/false statement and an exam item's stem are none.
    @Test func aStemThatIsNoQuestionIsASite() throws {
        let mending = try FeedbackMending(language: "en")
        let story = "What is a variable in programming? Imagine you have a magical box. You put a toy in it and write its name on the lid, so you can find it again later."
        let pool: JSONValue = [
            "topic_id": "s01-t01", "prompt": .string(story), "reference_answer": "A named box that holds a value.",
            "explanation": "A variable gives a value a name, so you can use it later.",
        ]
        let found = try #require(mending.sites(in: pool.canonicalText, variables: ["language": "English", "tone": "friendly"]))
        #expect(found.1.map(\.key) == ["#prompt"] && found.1[0].stage == FeedbackMending.stemStage && found.1[0].label == "prompt")
        #expect(found.1[0].variables["draft"] == story && found.1[0].variables["tone"] == " Tone: friendly")
        #expect(found.1[0].settled == "What is a variable in programming?", "a stem going on after its question is cut after it")
        #expect(found.1[0].variables["answers"] == "The learner writes the answer; a good one says: A named box that holds a value.")
        let written = "Imagine a box with a name on its lid. What is a variable in programming?"
        let mended = try JSONValue.parse(FeedbackMending.applying(["#prompt": written], to: found.0))
        #expect(mended["prompt"]?.stringValue == written && mended["explanation"] == pool["explanation"])

        // A multiple-choice stem: its options, sorted, and its key.
        let question = RepairTests.badQuestion { q in
            q["prompt"] = "In this lesson we will learn about loops. Loops repeat steps."
            q["wrong_answers"] = [
                ["text": "It slows programs", "feedback": "No: it makes them clearer."], ["text": "Java only", "feedback": "No: every language has it."],
                ["text": "It is deprecated", "feedback": "No: it is current."],
            ]
        }
        let site = try #require(mending.sites(in: question.canonicalText, variables: [:])?.1.first)
        #expect(site.key == "#prompt" && site.settled == nil, "a stem asking nothing is written by the model")
        #expect(
            site.variables["answers"]
                == "The learner chooses one of these answers: \"It helps structure programs\"; \"It is deprecated\"; \"It slows programs\"; \"Java only\". The correct one is \"It helps structure programs\"."
        )
        #expect(FeedbackMending.stemProblems("What do loops do? Pick one.", multipleChoice: true, statement: false).isEmpty)
        #expect(FeedbackMending.stemProblems("Loops repeat steps.", multipleChoice: false, statement: true).isEmpty, "a true/false statement asks nothing")
        #expect(FeedbackMending.stemProblems("Loops repeat steps.", multipleChoice: false, statement: false).count == 1)
        #expect(FeedbackMending.stemProblems("What is a loop? What is a list?", multipleChoice: true, statement: false).count == 1)
        let statement: JSONValue = [
            "format": "true_false", "prompt": "Loops repeat steps.", "correct_answer": ["text": "True", "feedback": "Yes: they do."],
            "wrong_answers": [["text": "False", "feedback": "No: they repeat the steps you give them."]], "explanation": "A loop repeats its body.",
        ]
        #expect(mending.sites(in: statement.canonicalText, variables: [:]) == nil)
        #expect(mending.sites(in: question.canonicalText, variables: ["source": "Loops repeat steps."]) == nil, "an exam's stem is not mended")
        // Ended with its question only when the question stands alone.
        #expect(
            FeedbackMending.questionLast("Imagine a box with a name. What does a variable hold in Python? It holds a value, like 5.")
                == "Imagine a box with a name. What does a variable hold in Python?")
        #expect(FeedbackMending.questionLast("What will happen? Imagine you write x = 5 and then print(x) in a program.") == nil, "too short to stand alone")
        #expect(FeedbackMending.questionLast("What will the following code print when you run it? x = 5, then print(x) is run.") == nil, "it points at what follows")
        #expect(FeedbackMending.mends(["'the level-3 question's prompt' goes on after its question ('…' is followed by '…', 54 words): …"]))
        #expect(FeedbackMending.mends(["'prompt' asks nothing ('…'): …", "wrong_answers[1] and wrong_answers[2] have the same feedback; …"]))
    }

    /// An answer refused only because its stem asks nothing gets the stem written alone, and is
    /// accepted at the same attempt; the rest of the answer is the model's.
    @Test func aStemThatAsksNothingIsWrittenAgainAlone() async throws {
        let told = "Loops repeat the steps you give them, like a recipe you follow one step at a time."
        let written = "Think of a recipe: you follow its steps one by one. Which statement about Loops is true?"
        let (result, asked, bundle) = try await Self.runStem(told, mended: written)
        #expect(result.status == .complete, "\(result.failures)")
        #expect(asked.map { "\($0.0.stage) \($0.0.attempt)" } == ["engagement-question 1", "stem 1"])
        let request = try #require(asked.last?.1)
        let text = request.messages.map(\.content).joined(separator: "\n")
        #expect(text.contains(told) && text.contains("The correct one is \"It helps structure programs\""), "\(text)")
        #expect(request.responseSchema?.name == "stem" && request.maxTokens == FeedbackMending.stemMaxTokens)
        let report = try #require(result.reports[Self.item])
        #expect(report.attempts == 1 && report.rejections.count == 1, "\(report.rejections)")
        #expect(report.rejections.first?.contains { $0.message.contains("asks nothing") } == true)
        #expect(bundle.contains(written) && !bundle.contains(told))
    }

    /// An answer refused only because its stem goes on after its question is ended with the
    /// question by Lectern, without a call, and accepted at the same attempt.
    @Test func aStemThatGoesOnAfterItsQuestionEndsWithIt() async throws {
        let told = "Which statement about Loops is true? Think of a recipe: you follow its steps one by one, and each step builds on the one before it."
        let (result, asked, bundle) = try await Self.runStem(told, mended: "unused")
        #expect(result.status == .complete, "\(result.failures)")
        #expect(asked.map { "\($0.0.stage) \($0.0.attempt)" } == ["engagement-question 1"])
        let report = try #require(result.reports[Self.item])
        #expect(report.attempts == 1 && report.rejections.first?.contains { $0.message.contains("goes on after its question") } == true, "\(report.rejections)")
        #expect(bundle.contains("\"Which statement about Loops is true?\"") && !bundle.contains("each step builds on the one before it"))
    }

    /// A stem ended with its question by Lectern and then refused (here: the bonus question's cut
    /// asks what the engagement question asks) goes to the repair with why: the model hears what
    /// its question, once ended, repeats — not only that it went on.
    @Test func aCutStemRefusedTellsTheRepairWhy() async throws {
        let ws = try Workspace()
        let bonus = "bonus-question/\(RepairTests.topic)"
        let told = "Which statement about {{topic_title}} is true? Think of a recipe: you follow its steps one by one, and each step builds on the one before it."
        let provider = try RecordingProvider(
            script: ws.script(extra: [
                RepairTests.answer(
                    stage: "bonus-question", item: bonus, attempt: 1,
                    json: [
                        "topic_id": "{{topic_id}}", "prompt": .string(told), "reference_answer": "A statement that says what it is for.",
                        "explanation": "Thinking of uses makes the idea stick.",
                    ])
            ]))
        let result = try await ws.run(try Workspace.spec(Specs.pinned), provider: provider)
        #expect(result.status == .complete, "\(result.failures)")
        let asked = provider.requests.filter { $0.0.itemID == bonus }
        #expect(asked.map(\.0.attempt) == [1, 2], "the cut is Lectern's: no stem call")
        let report = try #require(result.reports[bonus])
        let first = try #require(report.rejections.first)
        #expect(first.contains { $0.message.contains("goes on after its question") }, "\(first)")
        let why = try #require(first.first { $0.message.hasPrefix("with the words after its question left out, ") }, "\(first)")
        #expect(why.message.contains("repeats the first question ('Which statement about Loops is true?')"), "\(why)")
        #expect(why.check == .distinctQuestions, "the cut stem's refusal keeps its own check")
        let repair = try #require(asked.last?.1).messages.map(\.content).joined(separator: "\n")
        #expect(repair.contains(why.message), "the repair says what the cut question repeats: \(repair)")
    }

    /// A run whose engagement question for `item` has the stem `told` (its feedback fit), and whose
    /// stem mend answers `mended`; the requests of the item, blind solves left out.
    /// The bundle's course.json is read while the workspace is there (`Self.course`).
    static func runStem(_ told: String, mended: String) async throws -> (JobRunner.Result, [(RequestContext, LLMRequest)], String) {
        let ws = try Workspace()
        let question = RepairTests.badQuestion { q in
            q["prompt"] = .string(told)
            q["wrong_answers"] = [
                ["text": "It slows programs", "feedback": "No: it makes them clearer."], ["text": "Java only", "feedback": "No: every language has it."],
                ["text": "It is deprecated", "feedback": "No: it is current."],
            ]
        }
        let provider = try Self.fieldMendRun(ws, question: question, stage: FeedbackMending.stemStage, json: ["prompt": .string(mended)])
        let result = try await ws.run(try Workspace.spec(Specs.pinned), provider: provider)
        return (result, Self.asked(provider), (try? Self.course(result)) ?? "")
    }

    /// A provider whose first engagement answer for `item` is `question`, and whose mend call of
    /// `stage` (`explanation`, `stem`) answers `json`.
    static func fieldMendRun(_ ws: Workspace, question: JSONValue, stage: String, json: JSONValue) throws -> RecordingProvider {
        try RecordingProvider(
            script: ws.script(extra: [
                RepairTests.answer(stage: "engagement-question", item: Self.item, attempt: 1, json: question),
                ["stage": .string(stage), "item": .string(FeedbackMending.itemID(of: Self.item, stage: stage)), "json": json],
            ]))
    }

    static func course(_ result: JobRunner.Result) throws -> String {
        guard case .written(let dir)? = result.bundle else { throw PipelineError("no bundle") }
        return try String(contentsOf: dir.appendingPathComponent("course.json"), encoding: .utf8)
    }
}
