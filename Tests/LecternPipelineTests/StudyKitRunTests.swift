import Foundation
import LecternBundle
import LecternCore
import LecternLLM
import Testing

@testable import LecternPipeline

/// Flashcards and practice sets (issue 15), through the real runner, engine, cache and bundle
/// writer with a scripted model; and their rules on the model's kinds of mistakes.
struct StudyKitRunTests {
    static let spec = Specs.pinned.replacingOccurrences(
        of: "model:",
        with: """
            addons: { flashcards: true, practice: true, ending_projects: false }
            flashcards: { per_topic: 5 }
            practice: { per_topic: 3, difficulty: { easy: 1, medium: 1, hard: 1 }, formats: [multiple_choice, true_false] }
            model:
            """)

    /// Cards grounded in the scripted lecture (course-script.json): three terms, a question, a cloze.
    static let cards: JSONValue = [
        "terms": [
            ["term": "{{topic_title}}", "definition": "A core idea of this course, shown with small programs you run and change yourself."],
            ["term": "mental model of {{topic_title}}", "definition": "What you believe a program does; a wrong prediction shows which part needs an update."],
            ["term": "prediction of {{topic_title}}", "definition": "What you expect the code to print before you run it, checked line by line."],
        ],
        "questions": [["question": "What should you do after predicting what code about {{topic_title}} prints?", "answer": "Run it and compare the output with your prediction."]],
        "clozes": [["sentence": "Explaining each line aloud is the best test of understanding {{topic_title}}.", "blank": "aloud"]],
    ]

    static func answers() -> [JSONValue] {
        var bad = cards.objectValue ?? [:]
        bad["clozes"] = [["sentence": "Explaining each line aloud is the best test of understanding.", "blank": "out loud"]]
        func choice(_ prompt: String) -> JSONValue {
            [
                "prompt": .string(prompt),
                "correct_answer": ["text": "When the prediction turns out wrong", "feedback": "Right: a wrong prediction shows what to update."],
                "wrong_answers": [
                    ["text": "When the code runs without output", "feedback": "No: silence tells you little."],
                    ["text": "When you copy the code unchanged", "feedback": "No: copying teaches nothing new."],
                    ["text": "When a friend runs it for you", "feedback": "No: you learn by running it yourself."],
                ],
                "explanation": "The lecture says a wrong prediction tells you which part of your mental model needs an update.",
            ]
        }
        let statement: JSONValue = [
            "statement": "To {{topic_objective}} you can test yourself by explaining each line aloud.", "is_true": true,
            "feedback_if_true": "Right: the lecture calls explaining the best test.", "feedback_if_false": "Not so: the lecture recommends it.",
            "explanation": "Explaining aloud shows whether you can say why each line does what it does.",
        ]
        // The first practice answer of the first topic asks the engagement question again.
        return [
            ["stage": "flashcards", "item": "flashcards/s01-t01", "attempt": 1, "json": .object(bad)],
            ["stage": "flashcards", "json": cards],
            ["stage": "practice", "item": "practice/s01-t01/q-01", "attempt": 1, "json": choice("Which statement about {{topic_title}} is true?")],
            ["stage": "practice", "item": "practice/s01-t01/q-02", "json": statement],
            ["stage": "practice", "item": "practice/s01-t02/q-02", "json": statement],
            ["stage": "practice", "item": "practice/s01-t03/q-02", "json": statement],
            ["stage": "practice", "item": "practice/s02-t01/q-02", "json": statement],
            ["stage": "practice", "item": "practice/s02-t02/q-02", "json": statement],
            // Written on its own, this one asks what another topic's engagement question asks.
            ["stage": "practice", "item": "practice/s02-t02/q-01", "json": choice("Which statement about Conditions is true?")],
            ["stage": "practice", "json": choice("Practice {{number}}: when you {{topic_objective}}, what is the most useful moment?")],
        ]
    }

    @Test func flashcardsAndPracticeSetsAreWrittenCheckedAndTimed() async throws {
        let ws = try Workspace()
        let spec = try Workspace.spec(Self.spec)
        #expect(spec.course?.addons.flashcards == true && spec.course?.addons.practice == true)
        let provider = try RecordingProvider(script: ws.script(extra: Self.answers()))
        let result = try await ws.run(spec, provider: provider)
        #expect(result.status == .complete, "\(result.failures)")
        guard case .written(let dir)? = result.bundle else { throw PipelineError("no bundle: \(result.failures)") }
        let course = try JSONDecoder().decode(Course.self, from: try #require(Workspace.files(dir)["course.json"]))
        let topics = course.subjects.flatMap(\.topics)
        #expect(topics.count == 5)
        var fronts = Set<String>()
        for topic in topics {
            let cards = try #require(topic.flashcards, "\(topic.id) has no flashcards")
            #expect(cards.map(\.kind) == [.term, .term, .term, .question, .cloze])
            #expect(cards.map(\.id) == (1...5).map { String(format: "\(topic.id)-c%02d", $0) })
            #expect(cards.allSatisfy { $0.front.count <= 120 && $0.back.count <= 300 })
            #expect(cards.allSatisfy { $0.review == Flashcard.Review(mastery: 0, intervalsDays: [1, 3, 7, 14, 30, 90]) })
            let cloze = try #require(cards.last)
            #expect(cloze.cloze == "aloud" && cloze.front.contains("____") && !cloze.front.contains("aloud") && cloze.back.contains("aloud"))
            #expect(cards.allSatisfy { fronts.insert($0.front).inserted }, "no front repeats across the course")

            let set = try #require(topic.practice, "\(topic.id) has no practice set")
            // The last topic's first question repeated another topic's engagement question: it
            // is left out when the course is assembled.
            let numbers = topic.id == "s02-t02" ? [2, 3] : [1, 2, 3]
            #expect(set.map(\.id) == numbers.map { String(format: "\(topic.id)-p%02d", $0) })
            let difficulties: [PracticeQuestion.Difficulty] = [.easy, .medium, .hard]
            let formats: [PracticeQuestion.Format] = [.multipleChoice, .trueFalse, .multipleChoice]
            #expect(set.map(\.difficulty) == numbers.map { difficulties[$0 - 1] })
            #expect(set.map(\.format) == numbers.map { formats[$0 - 1] })
            let statement = try #require(set.first { $0.format == .trueFalse })
            #expect(statement.options.map(\.text) == ["True", "False"] && statement.options[0].correct)
            #expect(set.allSatisfy { $0.options.filter(\.correct).count == 1 && $0.options.allSatisfy { !$0.feedback.isEmpty } })
            // Reading time, a minute each for the engagement and bonus questions, then a minute
            // per multiple-choice practice question and half a minute for the true/false one.
            let lecture = try #require(topic.lecture)
            let reading = Int((Double(lecture.wordCount) / 200 * 60).rounded(.up))
            #expect(topic.durationSeconds == reading + 2 * 60 + set.reduce(0) { $0 + ($1.format == .trueFalse ? 30 : 60) })
        }
        // The repairs: a cloze whose blank is not in its sentence, a practice question that
        // repeats the engagement question.
        let calls = provider.calledItems
        #expect(calls.filter { $0 == "flashcards/s01-t01" }.count == 2)
        #expect(calls.filter { $0 == "practice/s01-t01/q-01" }.count == 2)
        let repairs = provider.requests.filter { $0.0.itemID == "practice/s01-t01/q-01" && $0.0.attempt == 2 }
        let repairText = repairs.flatMap { $0.1.messages.map(\.content) }.joined()
        #expect(repairText.contains("repeats one the learner has already answered"), "\(repairText.suffix(400))")
        // The questions already asked are checked against, not shown (a small model copies them).
        let second = try #require(provider.requests.first { $0.0.itemID == "practice/s01-t02/q-02" })
        let prompt = second.1.messages.map(\.content).joined()
        #expect(!prompt.contains("Practice 1:") && !prompt.contains("Which statement about Conditions is true?"))
        #expect(result.summary.contains("practice: 1 repeating another topic's question, left out"), "\(result.summary)")

        let schemaProblems = try Workspace.schemaProblems(dir.appendingPathComponent("course.json"), schema: "course.schema.json")
        #expect(schemaProblems == nil, "course.json against course.schema.json: \(schemaProblems ?? "")")
    }

    @Test func flashcardRulesRefuseWhatSmallModelsWrite() {
        let lecture = "# Loops\n\nA for loop repeats a block of code once for each item of a list. The loop variable takes each value in turn."
        func issues(_ kind: Flashcard.Kind, _ front: String, _ back: String, cloze: String? = nil) -> String {
            let card = Flashcard(id: "c", kind: kind, front: front, back: back, cloze: cloze)
            return FlashcardRules.check([.init(label: "card", card: card)], lecture: lecture).map(\.message).joined(separator: "\n")
        }
        #expect(issues(.term, "for loop", "Repeats a block of code once for each item of a list.").isEmpty)
        #expect(issues(.term, "while loop", "Repeats a block of code while a condition holds.").contains("does not occur in the lecture"))
        #expect(issues(.term, "What is a for loop?", "Repeats a block of code for each item.").contains("is a question"))
        #expect(issues(.term, "for loop", "Loops.").contains("too short"))
        #expect(issues(.term, "for loop", "The for loop is a loop of for.").contains("only repeats the term"))
        #expect(issues(.term, "loop", "A decorator that caches network responses in memory.").contains("not in the lecture"))
        #expect(issues(.question, "What does a for loop repeat", "A block of code.").contains("question mark"))
        #expect(issues(.question, "What does a for loop repeat once for each item of a list?", "once for each item of a list").contains("gives its answer away"))
        let sentence = "A for loop repeats a block of code once for each item."
        #expect(issues(.cloze, FlashcardRules.clozeFront(sentence: sentence, span: "repeats")!, sentence, cloze: "repeats").isEmpty)
        #expect(issues(.cloze, sentence, sentence, cloze: "iterates").contains("not a word or phrase of the sentence"))
        #expect(issues(.cloze, sentence, sentence, cloze: "a").contains("occurs 2 times"))
        #expect(issues(.cloze, sentence, sentence, cloze: "for").contains("occurs 2 times"))
        #expect(issues(.cloze, FlashcardRules.clozeFront(sentence: sentence, span: "code")!, sentence, cloze: "code").isEmpty)
        #expect(issues(.cloze, sentence, sentence, cloze: "repeats a block of code once").contains("at most four words"))
        #expect(FlashcardRules.clozeFront(sentence: "Forest loops: a loop.", span: "loop") == "Forest loops: a ____.")
        #expect(issues(.question, String(repeating: "why ", count: 31) + "?", "Because.").contains("at most 120"))

        // Repeats within a topic; repeats across topics are left out at assembly.
        let a = Flashcard(id: "a", kind: .term, front: "for loop", back: "Repeats a block of code for each item of a list.")
        let b = Flashcard(id: "b", kind: .term, front: "For loop", back: "Runs code once for each item of a list, in turn.")
        let twice = FlashcardRules.check([.init(label: "terms[1]", card: a), .init(label: "terms[2]", card: b)], lecture: lecture)
        #expect(twice.contains { $0.message.contains("terms[1] and terms[2] ask the same") })
        // Spares: the first good cards of each kind are kept; a kind left short is refused.
        let spare = Flashcard(id: "s", kind: .term, front: "loop variable", back: "Takes each value of the list in turn, one per repeat.")
        let bad = Flashcard(id: "x", kind: .term, front: "while loop", back: "Repeats a block of code while a condition holds.")
        let picked = FlashcardRules.select(
            [.init(label: "terms[1]", card: bad), .init(label: "terms[2]", card: a), .init(label: "terms[3]", card: b), .init(label: "terms[4]", card: spare)],
            needed: [.term: 2], lecture: lecture)
        #expect(picked.cards?.map(\.id) == ["a", "s"], "\(picked.issues)")
        // A question answered with a term's definition keeps the question; a spare term fills in.
        let question = Flashcard(id: "q", kind: .question, front: "What does a for loop do?", back: a.back)
        let both = FlashcardRules.select(
            [.init(label: "terms[1]", card: a), .init(label: "terms[2]", card: spare), .init(label: "questions[1]", card: question)],
            needed: [.term: 1, .question: 1], lecture: lecture)
        #expect(both.cards?.map(\.id) == ["s", "q"], "\(both.issues)")
        let short = FlashcardRules.select([.init(label: "terms[1]", card: bad), .init(label: "terms[2]", card: a)], needed: [.term: 2], lecture: lecture)
        #expect(short.cards == nil && short.issues.map(\.message).joined().contains("only 1 of the 2 term cards needed are usable"))
        // A cloze may hide a code symbol, never in a question.
        let code = "You make an empty list in a for loop with [] and then add items."
        #expect(issues(.cloze, FlashcardRules.clozeFront(sentence: code, span: "[]")!, code, cloze: "[]").contains("filler") == false)
        #expect(issues(.cloze, "How does a for loop repeat a block?", "How does a for loop repeat a block?", cloze: "repeat").contains("is a question"))
        // Terms are found in the lecture in another form.
        #expect(FlashcardRules.stem("dictionaries") == FlashcardRules.stem("dictionary") && FlashcardRules.stem("looking") == "look")
        #expect(FlashcardRules.stem("creating") == FlashcardRules.stem("create") && FlashcardRules.stem("values") == FlashcardRules.stem("value"))

        let decks = FlashcardStage.withoutRepeats([("t1", [a]), ("t2", [b, Flashcard(id: "c", kind: .term, front: "loop variable", back: "x")])], language: "en")
        #expect(decks.decks["t1"]?.map(\.id) == ["a"] && decks.decks["t2"]?.map(\.id) == ["c"] && decks.dropped == 1)
    }

    @Test func practiceRulesAndTheSetsShape() throws {
        func tf(_ statement: String, _ isTrue: Bool, _ onTrue: String = "Right: the lecture says so.", _ onFalse: String = "Not so: see the lecture.") -> PracticeQuestion {
            PracticeQuestion(
                id: "p", topicID: "t", format: .trueFalse, difficulty: .easy, prompt: statement,
                options: [Choice(text: "True", correct: isTrue, feedback: onTrue), Choice(text: "False", correct: !isTrue, feedback: onFalse)],
                explanation: "Because the lecture says so in its second section.")
        }
        #expect(PracticeRules.check(tf("A for loop repeats its block once per item.", true)).isEmpty)
        #expect(PracticeRules.check(tf("Does a for loop repeat its block?", true)).map(\.message).joined().contains("is a question"))
        // The grammar forbids "?", so a small model ends its question with a period instead.
        #expect(PracticeRules.check(tf("What is the difference between indexing and slicing.", true)).map(\.message).joined().contains("is a question"))
        #expect(PracticeRules.check(tf("Whatever you append goes to the end of the list.", true)).isEmpty)
        // A statement as long as the grammar allows was cut off by it.
        let cut = "You can loop over keys and values with `for key, value in d.items()`, which prints each key-value" + String(repeating: " pair", count: 20) + " ."
        #expect(PracticeRules.check(tf(String(cut.suffix(200)), true)).map(\.message).joined().contains("cut off"))
        #expect(PracticeRules.check(tf("A for loop repeats its block once per item.", true, "Same.", "Same.")).map(\.message).joined().contains("the same"))
        // A statement keyed True asserts its arithmetic; one keyed False may be false on purpose.
        #expect(PracticeRules.check(tf("A loop over 3 items of 4 steps runs 3 × 4 = 14 steps.", true)).map(\.message).joined().contains("false arithmetic"))
        #expect(PracticeRules.check(tf("A loop over 3 items of 4 steps runs 3 × 4 = 14 steps.", false)).isEmpty)

        #expect(PracticeRules.repeated("What does a for loop repeat?", in: ["What does the for loop repeat?"]) != nil)
        #expect(PracticeRules.repeated("Why does a for loop stop?", in: ["What does a for loop repeat?"]) == nil)
        // Asking for the way to do it asks how (python-collections' practice questions 2 and 4).
        #expect(
            PracticeRules.repeated("What is the correct way to look up a value in a dictionary?", in: ["How do you look up a value in a dictionary?"])
                == "How do you look up a value in a dictionary?")
        #expect(PracticeRules.repeated("What is the best way to store pairs?", in: ["How do you look up a value in a dictionary?"]) == nil)

        // The difficulty mix by largest remainder, easy first; formats repeat in order.
        #expect(PracticeSpec(perTopic: 10).difficulties == Array(repeating: .easy, count: 3) + Array(repeating: .medium, count: 4) + Array(repeating: .hard, count: 3))
        #expect(PracticeSpec(perTopic: 4, mix: [.easy: 1, .medium: 1, .hard: 1]).difficulties == [.easy, .easy, .medium, .hard])
        #expect(PracticeSpec(perTopic: 5, mix: [.hard: 1]).difficulties == Array(repeating: .hard, count: 5))
        #expect((0..<4).map(PracticeSpec(formats: [.multipleChoice, .trueFalse]).format(at:)) == [.multipleChoice, .trueFalse, .multipleChoice, .trueFalse])
        #expect(FlashcardsSpec(perTopic: 8).kindCounts == (4, 2, 2) && FlashcardsSpec(perTopic: 5).kindCounts == (3, 1, 1))

        // A true/false answer that says the opposite of what was asked is refused.
        let answer =
            #"{"statement": "A for loop repeats its block once per item.", "is_true": true, "feedback_if_true": "Yes.", "feedback_if_false": "No.", "explanation": "The lecture says it repeats once per item."}"#
        guard case .invalid(let errors) = PracticeStage.check(answer, id: "p", topicID: "t", format: .trueFalse, difficulty: .easy, wantTrue: false, language: "en")
        else { Issue.record("a true statement was accepted where a false one was asked for"); return }
        #expect(errors.messages.joined().contains("a FALSE statement was asked for"))
    }

    @Test func studyKitSpecErrorsNameTheirPlace() throws {
        let bad = Specs.pinned.replacingOccurrences(
            of: "model:",
            with: """
                addons: { practice: true }
                flashcards: { per_topic: 40 }
                practice: { per_topic: 0, difficulty: { easy: 0, hard: 0 }, formats: [essay] }
                model:
                """)
        do {
            _ = try Workspace.spec(bad)
            Issue.record("a bad study-kit spec was accepted")
        } catch {
            let text = "\(error)"
            #expect(text.contains("'flashcards' is set but the flashcards add-on is off"), "\(text)")
            #expect(text.contains("'flashcards.per_topic' is 40"), "\(text)")
            #expect(text.contains("'practice.per_topic' is 0"), "\(text)")
            #expect(text.contains("gives every difficulty a weight of 0"), "\(text)")
            #expect(text.contains("'practice.formats' lists 'essay'"), "\(text)")
        }
        // Without the add-ons, the new settings stay out of the spec hash.
        let plain = try Workspace.spec(Specs.pinned)
        let json = String(decoding: try plain.hashedJSON(), as: UTF8.self)
        #expect(!json.contains("practice") && !json.contains("per_topic"))
    }
}
