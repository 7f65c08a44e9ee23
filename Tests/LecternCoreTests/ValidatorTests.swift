import Foundation
import Testing

@testable import LecternCore

/// The semantic validators on the kinds of bad output models really produce.
struct ValidatorTests {
    static func options(_ items: [(String, Bool)]) -> [Choice] {
        items.map { Choice(text: $0.0, correct: $0.1, feedback: "Because of the definition of \($0.0).") }
    }

    static let good = options([("A list", true), ("A tuple", false), ("A set", false), ("A dict", false)])

    @Test func aValidQuestionPasses() {
        let q = Question(
            topicID: "s01-t01", format: .multipleChoice, prompt: "Which type is mutable and ordered?", options: Self.good, referenceAnswer: nil,
            explanation: "Lists can change and keep their order.")
        #expect(QuestionRules.check(q, expectedTopicID: "s01-t01").errors.isEmpty)
    }

    @Test func twoCorrectOptionsAreAnError() {
        let issues = QuestionRules.checkMultipleChoice(
            prompt: "Pick one", options: Self.options([("a", true), ("b", true), ("c", false), ("d", false)]))
        #expect(issues.errors.contains { $0.message.contains("exactly one option must be correct; 2") })
    }

    @Test func noCorrectOptionMeansTheAnswerIsOutsideTheOptions() {
        let issues = QuestionRules.checkMultipleChoice(
            prompt: "Pick one", options: Self.options([("a", false), ("b", false), ("c", false), ("d", false)]))
        #expect(issues.errors.contains { $0.message.contains("0 are marked correct") })
    }

    @Test func duplicateOptionsIgnoringCaseAndSpace() {
        let issues = QuestionRules.checkMultipleChoice(
            prompt: "Pick one", options: Self.options([("A  List", true), ("a list", false), ("c", false), ("d", false)]))
        #expect(issues.errors.contains { $0.message.contains("option 1 and option 2 are the same") })
    }

    @Test func wrongOptionCount() {
        let issues = QuestionRules.checkMultipleChoice(prompt: "Pick one", options: Self.options([("a", true), ("b", false), ("c", false)]))
        #expect(issues.errors.contains { $0.message.contains("exactly 4 options") })
    }

    @Test func answerGivenAwayInTheStem() {
        let options = Self.options([
            ("the global interpreter lock", true), ("garbage collection", false), ("a bytecode cache", false), ("the import system", false),
        ])
        let issues = QuestionRules.checkMultipleChoice(prompt: "Why does the global interpreter lock limit threads?", options: options)
        #expect(issues.errors.contains { $0.message.contains("gives the answer away") })
    }

    /// A key stated after the stem gives it away whatever its length (issue 48 §1: "(answer:
    /// insulator)" passed because the key is short); an answer marker stating a wrong option, or
    /// "answer" as a word of the question, is not this.
    @Test func aShortKeyStatedAfterTheStemGivesItAway() {
        let options = Self.options([("insulator", true), ("conductor", false), ("resistor", false), ("semiconductor", false)])
        let stated = QuestionRules.checkMultipleChoice(
            prompt: "What is a material called that does not let electricity pass through it easily? (answer: insulator)", options: options)
        #expect(stated.errors.contains { $0.message.contains("gives the answer away ('insulator')") }, "\(stated.map(\.message))")
        let line = QuestionRules.checkMultipleChoice(prompt: "What does not let electricity pass easily?\nAnswer: an insulator", options: options)
        #expect(line.errors.contains { $0.message.contains("gives the answer away") })
        // After the end of a sentence on the same line, as "the correct answer", or as a hint that names it.
        for prompt in [
            "A material that does not let electricity pass easily is called what? Answer: insulator",
            "Name the material that blocks electricity. (The correct answer is insulator.)",
            "What blocks electricity? (Hint: an insulator)", "What blocks electricity? Hint: think of an insulator.",
        ] {
            #expect(QuestionRules.checkMultipleChoice(prompt: prompt, options: options).errors.contains { $0.message.contains("gives the answer away") }, "\(prompt)")
        }
        for prompt in [
            "What is a material called that does not let electricity pass through it easily?", "Which answer names a material that blocks electricity?",
            "What blocks electricity? (Hint: think of what wraps a cable.)", "Which material blocks electricity? Justify your answer: why does it?",
        ] {
            #expect(!QuestionRules.checkMultipleChoice(prompt: prompt, options: options).errors.contains { $0.message.contains("gives the answer away") }, "\(prompt)")
        }
    }

    /// Real science banks ask which question science can answer, and their options are questions
    /// (issue 48 §1: "an option that is a question" refused them). Such a stem and options that
    /// are all questions pass; questions as options of any other stem are still refused.
    @Test func optionsThatAreQuestionsPassWhenTheStemAsksForOne() {
        let options = [
            Choice(text: "How many moons does Jupiter have?", correct: true, feedback: "Observation can count them: a question science can answer."),
            Choice(text: "Which painting is the most beautiful?", correct: false, feedback: "Beauty is a matter of taste, not of measurement."),
            Choice(text: "Should everyone like jazz?", correct: false, feedback: "What people should like is a value, not something to test."),
            Choice(text: "Is chocolate the best ice cream flavor?", correct: false, feedback: "The best flavor is an opinion; no experiment decides it."),
        ]
        for prompt in ["Which question can be answered by science?", "Which of these is a testable question?", "What question could a scientist answer with an experiment?"] {
            let issues = QuestionRules.checkMultipleChoice(prompt: prompt, options: options)
            #expect(!issues.errors.contains { $0.message.contains("is a question") }, "\(prompt): \(issues.map(\.message))")
        }
        let elsewhere = QuestionRules.checkMultipleChoice(prompt: "Which planet has the most moons?", options: options)
        #expect(elsewhere.errors.contains { $0.message.contains("option 1 ('How many moons does Jupiter have?') is a question") })
        // One option that is not a question: the stem may ask about a question, but the options are its answers.
        var mixed = options
        mixed[3] = Choice(text: "A question about taste", correct: false, feedback: "Taste is not measured.")
        #expect(QuestionRules.checkMultipleChoice(prompt: "Which question can be answered by science?", options: mixed).errors.contains { $0.message.contains("is a question") })
    }

    @Test func longCorrectOptionIsFlaggedNotRejected() {
        let options = Self.options([
            ("Because it keeps a reference count for every object and frees it at zero", true), ("Speed", false), ("Habit", false), ("Luck", false),
        ])
        let issues = QuestionRules.checkMultipleChoice(prompt: "Why is memory freed promptly?", options: options)
        #expect(issues.errors.isEmpty)
        #expect(issues.warnings.contains { $0.message.contains("length alone") })
        // Counted by kind: the same for every question, whatever the lengths.
        #expect(issues.warnings.map(\.kind) == ["the correct option is much longer than the others"])
        let pool = ReinforcementQuestion(
            topicID: "t", level: 1, difficulty: "easy", frequencyDays: SizeRange(min: 1, max: 2), occurrence: 7, format: .multipleChoice,
            prompt: "Why is memory freed promptly?", options: options, referenceAnswer: nil, explanation: "Reference counting frees it.",
            jeevaDifficulty: "easy")
        let relabelled = ReinforcementRules.checkQuestion(pool, expectedTopicID: "t").warnings
        #expect(relabelled.map(\.kind) == ["the correct option is much longer than the others"])
        #expect(relabelled.first?.message.hasPrefix("the level-1 question: the correct option is much longer") == true)
    }

    @Test func missingFeedbackAndWrongTopic() {
        var options = Self.good
        options[2].feedback = ""
        let q = Question(
            topicID: "s01-t02", format: .multipleChoice, prompt: "Which type is mutable?", options: options, referenceAnswer: nil,
            explanation: "Lists can change.")
        let issues = QuestionRules.check(q, expectedTopicID: "s01-t01")
        #expect(issues.errors.contains { $0.message.contains("option 3 has no feedback") })
        #expect(issues.errors.contains { $0.message.contains("must be about topic s01-t01") })
    }

    @Test func aQuestionWithALectureHeadingIsPartOfTheLecturePastedIn() {
        // The local model's engagement question: the lecture's opening, heading and code included.
        let pasted = """
            Imagine you have a toy box. Before you play, you check if the toy is broken.

            ## The If Statement

            Here's how you might write an `if` statement:

            ```python
            # Let's say we have a variable called 'toy'
            if toy == "broken":
                print("Fix it")
            ```
            Which keyword starts the check?
            """
        let q = Question(
            topicID: "t", format: .multipleChoice, prompt: pasted, options: Self.good, referenceAnswer: nil, explanation: "Lists can change and keep their order.")
        #expect(
            QuestionRules.check(q, expectedTopicID: "t").errors.map(\.message) == [
                "'prompt' holds a heading ('## The If Statement') as a lecture does: write only the question, in a sentence or two, not part of the lecture"
            ])
        // A comment in code, a hashtag, "#1": no heading.
        for prompt in ["What does this print?\n```python\n# a comment\nprint(1)\n```", "Which is item #1 of the list?", "#include is C, not Python: what is Python's?"] {
            #expect(QuestionRules.checkNoHeading("prompt", prompt).isEmpty, "\(prompt)")
        }
    }

    @Test func aQuestionOfATextCourseRefersToNoVideoOrInstructor() {
        // The local model's level-2 pool question, in a course of written lectures.
        let video = "In this video, the instructor showed how to assign values to variables in Python. What does `x = 5` do?"
        #expect(
            QuestionRules.checkNoMissingMedium("prompt", video).map(\.message) == [
                "'prompt' refers to a video, slides or an instructor ('In this video, the instructor showed how to assign values to variables in Python'), which this course does not have: its learners read written lectures; refer to the lecture, or ask without it"
            ])
        let pool = ReinforcementQuestion(
            topicID: "t", level: 3, difficulty: "medium", frequencyDays: SizeRange(min: 1, max: 2), occurrence: 7, format: .freeText,
            prompt: "Explain what happens when the line runs.", options: nil, referenceAnswer: "The name x refers to the value 5 afterwards.",
            explanation: "As the presenter explained, assignment binds a name to a value.", jeevaDifficulty: "medium")
        #expect(
            ReinforcementRules.checkQuestion(pool, expectedTopicID: "t").map(\.message).contains {
                $0.hasPrefix("'the level-3 question's explanation' refers to a video, slides or an instructor ('As the presenter explained")
            })
        let lecture = "# Variables\n\n## Assigning\n\nWatch the video below to see how it works. A variable names a value.\n\n## Recap\n\nA variable names a value.\n"
        #expect(
            LectureRules.check(lecture, topicTitle: "Variables").map(\.message).contains {
                $0.hasPrefix("'the lecture' refers to a video, slides or an instructor ('Watch the video below to see how it works')")
            })
        // A story's teacher, a figure the item carries, code and a lecture that is itself the
        // subject are not references to a missing medium.
        for fine in [
            "Your teacher says you must finish your homework first. What does the `if` check?",
            "As shown in the figure, the triangle has a right angle. What is its area?",
            "What does `play(\"the video\")` print?", "A video file is stored as bytes. What type holds them?",
            "```python\n# from the video lesson\nx = 5\n```\nWhat is x?",
        ] {
            #expect(QuestionRules.checkNoMissingMedium("prompt", fine).isEmpty, "\(fine)")
        }
    }

    @Test func optionsThatDoNotMakeAMultipleChoiceQuestionAreRefused() {
        // The local model's level-1 pool question, word for word.
        let meta = QuestionRules.checkMultipleChoice(
            prompt: "Can you explain what the sentence 'Using `elif` statements helps you handle more than one condition in your programs' means?",
            options: Self.options([("No", false), ("The sentence is too short", false), ("The sentence doesn't make sense as a multiple-choice question", false), ("Yes", true)])
        ).map(\.message)
        #expect(meta.contains("'Yes' and 'No' stand beside 2 other options: a yes/no question has two answers; ask what, which or how, with 4 answers of the same kind"))
        #expect(meta.contains("option 2 ('The sentence is too short') is about the question, not an answer to it; every option answers the question"))
        #expect(meta.contains("option 3 ('The sentence doesn't make sense as a multiple-choice question') is about the question, not an answer to it; every option answers the question"))
        let own = QuestionRules.checkMultipleChoice(prompt: "In your own words, what does a list hold?", options: Self.good).map(\.message)
        #expect(own == ["the question asks for the learner's own words ('In your own words'), which options cannot be: ask which option is right, or make it a free-text question"])
        // A correct option that is the question turned into a statement.
        let echo = QuestionRules.checkMultipleChoice(
            prompt: "In simple words, how does the `if` statement tell the computer to look at a value and decide what to do next?",
            options: Self.options([
                ("The `if` statement tells the computer to look at a value and decide what to do next.", true), ("It repeats a block.", false),
                ("It names a value.", false), ("It ends the program.", false),
            ])
        ).errors.map(\.message)
        #expect(
            echo == [
                "the correct option ('The `if` statement tells the computer to look at a value and decide what to do next.') only repeats the question's own words; it must answer the question with what the question does not already say"
            ])
        // A true/false pair, a yes/no question with two options, and a key naming a few of a long
        // question's words (the US amateur radio pools' G1D03) pass.
        #expect(QuestionRules.checkMultipleChoice(prompt: "Can a tuple change after it is made?", options: Self.options([("Yes", false), ("No", true)]), optionCount: 2).isEmpty)
        #expect(
            QuestionRules.checkMultipleChoice(
                prompt:
                    "On which of the following band segments may you operate if you are a Technician class operator and have a Certificate of Successful Completion of Examination (CSCE) for General class privileges?",
                options: Self.options([
                    ("Only the Technician band segments until your upgrade is posted in the FCC database", false),
                    ("Only on the Technician band segments until your license arrives in the mail", false), ("On any General or Technician class band segment", true),
                    ("On any General or Technician class band segment except 30 meters and 60 meters", false),
                ])
            ).isEmpty)
        // A question in the lecture's voice.
        #expect(
            QuestionRules.checkNotLectureVoice("prompt", "In this section, we'll learn how to handle more than one condition. What do these statements mean?").map(\.message) == [
                "'prompt' speaks as the lecture does ('In this section, we'll…'): a question is asked of a learner who has read the lecture; ask it without announcing what will be learned"
            ])
        #expect(QuestionRules.checkNotLectureVoice("prompt", "You will need a list of names. Which method adds one at the end?").isEmpty)
    }

    @Test func aQuestionAsksSomething() {
        // The local model's accepted level-3 and level-4 pool questions: stories with no question.
        let story =
            "Imagine you have a piggy bank. In this piggy bank, you can put different types of coins. For example, if you put 3 pennies in your piggy bank, that's equivalent to the value 3 in programming. This is how we use values to store information in our programs."
        #expect(QuestionRules.checkAsksSomething("prompt", story).map(\.message).first?.hasPrefix("'prompt' asks nothing ('… in programming. This is how we use values") == true)
        let pool = ReinforcementQuestion(
            topicID: "t", level: 3, difficulty: "medium", frequencyDays: SizeRange(min: 1, max: 2), occurrence: 7, format: .freeText, prompt: story,
            options: nil, referenceAnswer: "Values hold what a program works with.", explanation: "Values are what a program works with.", jeevaDifficulty: "medium")
        #expect(ReinforcementRules.checkQuestion(pool, expectedTopicID: "t").map(\.message).contains { $0.hasPrefix("'the level-3 question's prompt' asks nothing") })
        #expect(
            QuestionRules.checkAsksSomething("prompt", "The `if` statement is the first step. Does this help explain how the `if` statement works?").map(\.message) == [
                "'prompt' asks whether the explanation helped ('Does this help'), not about the subject: ask what the learner should know or do"
            ])
        // A question mark, a blank, or an instruction is asking; a question mark in code is not.
        for asks in [
            "Imagine a shop. What does it sell?", "The capital of France is ____.", "Imagine a shop that sells toys. Explain how it could use a list.",
            "In your own words, describe what a variable is.", "Using the lecture's example, write a loop that prints 1 to 3.", "Choose the line that prints 5",
        ] {
            #expect(QuestionRules.checkAsksSomething("prompt", asks).isEmpty, "\(asks)")
        }
        #expect(QuestionRules.checkAsksSomething("prompt", "A program runs:\n```python\nprint('why?')\n```").count == 1)
    }

    @Test func pythonWrittenAsProseIsRefused() {
        // The local model's level-2 question: a function outside any code block.
        let prose = "What happens when you run this program?\n\ndef check_car_color(car_color):\n    if car_color == 'red':\n        print('This car is red!')"
        #expect(
            QuestionRules.checkCodeInABlock("prompt", prose).map(\.message) == [
                "'prompt' shows code outside a code block (line 3: 'def check_car_color(car_color):'): Markdown joins its lines into one paragraph; put the code in a ```python fence"
            ])
        // Headers with a colon of their own: an annotation, a dictionary, a slice.
        for header in ["def area(width: int, height: int) -> int:", "for name, age in {'Ana': 7}.items():", "if word[1:] == 'ello':"] {
            #expect(QuestionRules.checkCodeInABlock("prompt", "What does this print?\n\n\(header)\n    print(1)").count == 1, "\(header)")
        }
        for fine in [
            "What happens when you run this program?\n\n```python\ndef check(c):\n    if c == 'red':\n        print('red')\n```",
            "If you want to check this, here is how:\nfirst look at the value.", "Else: nothing happens.\n    (an aside)",
        ] {
            #expect(QuestionRules.checkCodeInABlock("prompt", fine).isEmpty, "\(fine)")
        }
        // A fence sharing its line: python-basics' level-3 pool question.
        #expect(
            QuestionRules.checkCodeInABlock("prompt", "What will happen if you execute this code snippet? ```python myName = 'Alice' print(myName) ```?").count == 1)
    }

    /// python-basics' level-2 and level-3 pool questions: one code, asked what it does twice.
    @Test func twoQuestionsAskingWhatTheSameCodeDoesRepeatEachOther() {
        let level2 = "In the following code snippet, what will happen when executed?\n```python\nmyName = 'Alice'\nprint(myName)\n```"
        let level3 = "What will happen if you execute this code snippet? ```python myName = 'Alice' print(myName) ```?"
        #expect(QuestionRules.asksTheSameCode(level3, level2))
        #expect(!QuestionRules.asksTheSameCode(level3, "What does this print?\n```python\nmyName = 'Bob'\nprint(myName)\n```"), "other code")
        #expect(!QuestionRules.asksTheSameCode("Why is `myName = 'Alice'` a good name?", "What does `myName = 'Alice'` store as its value?"), "one asks why")
    }

    @Test func statementsOnLinesOfTheirOwnAreCodeOutsideABlock() {
        // The local model's level-2 question: Markdown shows "myName = 'Alice' print(myName)".
        #expect(
            QuestionRules.checkCodeInABlock("prompt", "What will happen when we run this code?\nmyName = 'Alice'\nprint(myName)").map(\.message) == [
                "'prompt' shows code outside a code block (line 2: 'myName = 'Alice''): Markdown joins its lines into one paragraph; put the code in a ```python fence"
            ])
        #expect(QuestionRules.checkCodeInABlock("prompt", "Run this:\nscores.append(3)\nreturn total").count == 1)
        for fine in [
            "What will happen when we run this code?\n\n```python\nmyName = 'Alice'\nprint(myName)\n```",
            "x = 5 stores five in x.\nThen the program goes on.", "`x = 5`\n`print(x)`",
            "P(A) = 1/2\nP(A ∩ B) = P(A)P(B)", "What does this print?\n    x = 5\n    print(x)",
        ] {
            #expect(QuestionRules.checkCodeInABlock("prompt", fine).isEmpty, "\(fine)")
        }
    }

    @Test func aRhetoricalQuestionAsksNothing() {
        let modelText =
            "Imagine you have a toy box. You want to put different toys in it, right? That's what we call assigning values to variables! "
            + "Isn't it fun how we can organize our toys using variables? Let's try it out with a simple example!?"
        #expect(QuestionRules.checkAsksSomething("prompt", modelText).first?.message.hasPrefix("'prompt' asks nothing") == true)
        for asks in [
            "Isn't `x` equal to 5 after this line runs?", "You have a list, right? Which method adds an item to its end?",
            "Ready? Which line prints the name?", "What does `print('Ready?')` show?",
        ] {
            #expect(QuestionRules.checkAsksSomething("prompt", asks).isEmpty, "\(asks)")
        }
    }

    @Test func aStemThatGoesOnWithMoreThanInstructionsIsRefused() {
        let mixed = "How many ways can you do it? Use the formula for combinations. The answer is 15 because six books choose four is fifteen ways in all."
        #expect(!QuestionRules.checkQuestionLast("prompt", mixed).isEmpty)
    }

    @Test func aStemThatGoesOnAfterItsQuestionIsRefused() {
        // The local model's bonus question answered itself and ended on a statement.
        let modelText =
            "Imagine you have a favorite toy. You want to count how many times you played with it today. What would you use? A number! "
            + "Just like the cookies example, we can give this value a name and then use it in our program."
        #expect(
            QuestionRules.checkQuestionLast("prompt", modelText).map(\.message) == [
                "'prompt' goes on after its question ('What would you use?' is followed by 'A number! Just like the cookies example, we can give this value…', 21 words): put what the learner needs before the question, end the stem with the question, and leave its answer out"
            ])
        for fine in [
            "Imagine you have a favorite toy and you want to count how many times you played with it today. What would you use to count?",
            "What does this print?\n\n```python\nfor i in range(3):\n    print(i)\n    print('done? yes, done. it is all done now, really')\n```",
            "What is the probability of two heads in two flips? Give your answer as a fraction in lowest terms.",
            "A story with no question at all. It goes on and on about toys and boxes and cookies for many, many words.",
            // intro-probability's bonus question: instructions after the question, however long.
            "Imagine you have 6 books and want to select 4 of them. How many ways can you do it? Use the formula for combinations to calculate this. Compare the result with the number of ways to arrange them.",
        ] {
            #expect(QuestionRules.checkQuestionLast("prompt", fine).isEmpty, "\(fine)")
        }
    }

    @Test func textAboutTheQuestionInsteadOfToTheLearnerIsRefused() {
        for (text, match) in [
            ("This question is designed to check if the student has correctly understood how to store strings.", "This question is designed"),
            ("The prompt asks the learner to explain these statements, while the reference answer provides a clear explanation.", "The prompt asks"),
            ("To explain this to a five-year-old: constants stay the same.", "to a five-year-old"),
            ("The prompt gives the correct option as 'the Hellenistic Period', which matches the text.", "The prompt gives"),
            ("Write a short story. The story should end with the question that the learner answers.", "the learner"),
            // python-collections, accepted before the plural counted: a practice explanation.
            ("By comparing the features outlined in the lecture, learners can identify the key difference.", "learners"),
            // python-collections, accepted before these counted: a practice explanation and feedback.
            ("The question asks what a dictionary is in Python. To answer this, imagine a toy box.", "The question asks"),
            ("The question gives all it takes to answer it: we only need to know how dictionaries work.", "The question gives"),
            ("The explanation shows how to use the `print()` function to display the value.", "The explanation shows"),
            ("The statement correctly explains the concept using everyday toys and language.", "The statement correctly explains"),
            ("It uses everyday toys and language that young children can understand.", "young children can understand"),
            // python-collections and python-basics, read in the tenth session.
            ("In this explanation, I explain the concept of dictionaries using toys.", "In this explanation"),
            ("Here we talk about what the level-2 question asks of you.", "the level-2 question"),
            ("This question is asking what a value in programming is.", "This question is asking"),
            ("This explanation explains why the wrong answers are incorrect.", "This explanation explains"),
        ] {
            #expect(
                QuestionRules.checkSpeaksToTheLearner("explanation", text).map(\.message) == [
                    "'explanation' speaks about the question instead of to the learner ('\(match)'): the learner reads it; write to them about the subject, not about the question, its parts or its audience"
                ], "\(text)")
        }
        for fine in [
            "If the student has 90 points or more, the program prints 'A'.", "This question helps you practise slicing.",
            "A student has learned 12 words and learns 3 more each day.", "This question tests your knowledge of slicing.", "If the student's grade is 90 or more, print 'A'.",
            "A five-year-old child has 3 candies and gets 2 more.", "The `prompt` variable holds the text `input()` shows.",
            "This statement is correct: `remove()` deletes the first matching item.", "The `question` variable asks the user for a name.",
            "In this example, the loop runs three times.", "Level 2 of the game asks a harder question.",
        ] {
            #expect(QuestionRules.checkSpeaksToTheLearner("explanation", fine).isEmpty, "\(fine)")
        }
    }

    /// intro-probability's engagement question on permutations, keyed 70 beside its own 336.
    @Test func aNumericKeyItsOwnWorkingContradictsIsRefused() {
        func options(_ key: String, _ wrong: [String], feedback: String = "Right.") -> [Choice] {
            [Choice(text: key, correct: true, feedback: feedback)] + wrong.map { Choice(text: $0, correct: false, feedback: "No.") }
        }
        let explanation = "The number is 70, as P(8, 3) = 8! / (8-3)! = 8! / 5! = 40320 / 120 = 336 permutations."
        #expect(
            QuestionRules.checkKeyAgreesWithWorking(options: options("70", ["87", "127", "9"]), explanation: explanation).map(\.message) == [
                "the key ('70') is not what the explanation works out ('40320 / 120 = 336'): make the key the value the working gives, or correct the working"
            ])
        #expect(
            QuestionRules.checkMultipleChoice(prompt: "How many?", options: options("70", ["87", "127", "9"]), explanation: explanation).errors
                .contains { $0.message.contains(QuestionRules.keyAgainstWorking) })
        // Agreeing, with no working, or not a number: nothing to hold the key to.
        #expect(QuestionRules.checkKeyAgreesWithWorking(options: options("336", ["70", "87", "9"]), explanation: explanation).isEmpty)
        #expect(QuestionRules.checkKeyAgreesWithWorking(options: options("36", ["12", "21", "8"]), explanation: "Each of 6 faces pairs with each of 6: 6 × 6 = 36.").isEmpty)
        #expect(QuestionRules.checkKeyAgreesWithWorking(options: options("$\\frac{1}{6}$", ["1/3", "1/2", "1"]), explanation: "One face of six: 6/36 = 1/6.").isEmpty)
        #expect(QuestionRules.checkKeyAgreesWithWorking(options: options("70", ["87", "127", "9"]), explanation: "Count them one by one.").isEmpty)
        #expect(
            QuestionRules.checkKeyAgreesWithWorking(
                options: options("$\\frac{252}{1024}$", ["1/2", "1/4", "1/8"], feedback: "Yes: $\\binom{10}{5} = 252$ of $2^{10}$ outcomes."),
                explanation: "Count the outcomes with 5 heads and divide by $2^{10}$."
            ).isEmpty, "the working counts what the key divides")
        #expect(QuestionRules.checkKeyAgreesWithWorking(options: options("A list", ["A tuple", "A set", "A dict"]), explanation: "2 + 2 = 4.").isEmpty)
        // The key's feedback is working too.
        #expect(!QuestionRules.checkKeyAgreesWithWorking(options: options("56", ["70", "60", "35"], feedback: "C(10, 4) = 10! / (4! * 6!) = 210."), explanation: "Use combinations.").isEmpty)
        // A division with remainder works out its quotient and its remainder (labelled set h-c-05, h-c-21), and nothing else.
        let division = "10 divided by 3 is 3 with 1 left over: 10 = 3 × 3 + 1."
        #expect(QuestionRules.checkKeyAgreesWithWorking(options: options("1", ["0", "2", "3.3"]), explanation: division).isEmpty)
        #expect(QuestionRules.checkKeyAgreesWithWorking(options: options("2", ["0", "1", "4"]), explanation: "10 = 4 × 2 + 2, so 2 remain.").isEmpty)
        #expect(QuestionRules.checkKeyAgreesWithWorking(options: options("3", ["0", "1", "4"]), explanation: division).isEmpty, "the quotient")
        #expect(!QuestionRules.checkKeyAgreesWithWorking(options: options("4", ["0", "1", "3"]), explanation: "10 = 4 × 2 + 2, so 2 remain.").isEmpty, "2 is no remainder of a division by 2")
        #expect(!QuestionRules.checkKeyAgreesWithWorking(options: options("7", ["0", "2", "3"]), explanation: division).isEmpty)
        // Not a division with remainder: 5 is no smaller than either factor.
        #expect(!QuestionRules.checkKeyAgreesWithWorking(options: options("5", ["0", "2", "3"]), explanation: "11 = 2 × 3 + 5.").isEmpty)
    }

    /// intro-probability's bonus explanation: the question again, then the reference answer.
    @Test func anExplanationDoesNotWriteTheQuestionOutAgain() {
        let prompt = "Imagine you're playing a game where you guess the colour of a ball from a bag. What is the sample space?"
        let explanation = "Imagine you're playing a game where you guess the colour of a ball from a bag. What is the sample space? It is {red, blue}."
        #expect(
            QuestionRules.checkLearnerTexts(prompt: ("prompt", prompt), after: [("explanation", explanation)]).map(\.message) == [
                "'explanation' repeats the question word for word: the learner has just read it; say what it adds instead"
            ])
        #expect(QuestionRules.checkNotTheQuestionAgain("explanation", "The sample space is every colour the bag holds: {red, blue}.", prompt: prompt).isEmpty)
        #expect(QuestionRules.checkNotTheQuestionAgain("explanation", "Why? Because x is 5.", prompt: "Why?").isEmpty, "short prompts are not compared")
        // A lead-in carrying the question into a sentence of its own is not the question again.
        let imperative = "Calculate the number of ways to choose 4 students from a class of 10."
        #expect(
            QuestionRules.checkNotTheQuestionAgain(
                "explanation", "To calculate the number of ways to choose 4 students from a class of 10, we use combinations: C(10, 4) = 210.",
                prompt: imperative
            ).isEmpty)
        #expect(!QuestionRules.checkNotTheQuestionAgain("explanation", "**" + imperative + "** Use C(10, 4) = 210.", prompt: imperative).isEmpty)
        #expect(!QuestionRules.checkNotTheQuestionAgain("explanation", "Sure! " + prompt.lowercased() + " It is {red, blue}.", prompt: prompt).isEmpty)
    }

    /// python-collections' practice stem: a statement whose code's next line opens "will".
    @Test func aContinuedLineIsNoQuestion() {
        let stem = "To find out what's inside a dictionary, you use its key. For example:\n\nprint(my_dict['name'])\nwill print the value associated with the key."
        #expect(QuestionRules.checkAsksSomething("prompt", stem).first?.message.hasPrefix("'prompt' asks nothing") == true)
        #expect(QuestionRules.checkAsksSomething("prompt", "Look at this code.\nWhat will it print").isEmpty)
        // An option announcing the key: "The correct answer is that …", "The correct answer says …".
        let options = ValidatorParameterTests.options([
            "The correct answer is that you use the key.", "The correct answer says the key is used", "You use the index", "You use the name",
        ])
        let messages = QuestionRules.checkMultipleChoice(prompt: "How do you look up a value in a dictionary?", options: options).errors.map(\.message)
        #expect(messages.filter { $0.contains("says whether it is the answer") }.count == 2, "\(messages)")
    }

    /// Feedback about the item, from a mend of intro-probability's counting question.
    @Test func feedbackPointingAtTheFeedbackIsAboutTheItem() {
        #expect(!QuestionRules.checkSpeaksToTheLearner("feedback", "The correct answer, as stated in the question and explained in the feedback, is 10.").isEmpty)
        #expect(!QuestionRules.checkSpeaksToTheLearner("feedback", "The feedback says 10 is right.").isEmpty)
        #expect(QuestionRules.checkSpeaksToTheLearner("feedback", "You counted each order of the same three students: 60 is P(5, 3).").isEmpty)
    }

    /// Pool questions recorded on a branch (2026-11-29) that point at an example they do not show.
    @Test func aQuestionPointingAtAnExampleInItsFirstSentenceShowsIt() {
        for (text, match) in [
            ("What does the `day` toy represent in this example?", "this example"),
            (
                "In this example, if `toy_color` is 'blue', it will print 'Playing with the blue car'. What happens when `toy_color` is 'green'?",
                "this example"
            ),
            ("In the situation above, which statement runs first?", "the situation above"),
        ] {
            #expect(
                QuestionRules.checkAskedOfTheLearner("prompt", text).map(\.message).contains(
                    "'prompt' points at an example it does not show ('\(match)'): set the example out in the question before asking about it, or ask without pointing at one"
                ), "\(text)")
        }
        for fine in [
            "Imagine you have 3 apples and eat one. In this example, how many apples are left?",
            "What does this example print?\n\n```python\nprint(2 + 3)\n```",
            "Why do programmers test their code with small examples?", "Give an example of a value you could store in a variable. Why that one?",
            "Now, let's use the same example with numbers again. Suppose you have 5 apples: `apples = 5`. What does `print(apples)` show?",
            "Consider the following situation: Maria has 3 apples and eats one. How many apples does she have left?",
        ] {
            #expect(QuestionRules.checkShowsItsExample("prompt", fine).isEmpty, "\(fine)")
        }
    }

    /// python-basics' pool questions that point at code and show none.
    @Test func aQuestionPointingAtCodeShowsIt() {
        for (text, match) in [
            ("What does this line of code mean? The string 'Alice' will be stored in the variable named 'myName'.", "this line of code"),
            ("In the following code, what will be printed to the console?", "the following code"),
            ("What does the code above print?", "the code above"),
            // Recorded at level 2 and level 4 of one topic, neither with code.
            ("In the Python code above, what will be printed to the console? Choose the correct answer.", "the Python code above"),
            ("In the Python code snippet above, what is the variable 'apples' assigned to?", "the Python code snippet above"),
        ] {
            #expect(
                QuestionRules.checkAskedOfTheLearner("prompt", text).map(\.message).contains(
                    "'prompt' asks about code it does not show ('\(match)'): put the code in the question, in a ```python block, or ask without pointing at code"),
                "\(text)")
        }
        for fine in [
            "What does this code print?\n\n```python\nprint(2 + 3)\n```", "What does `print(len('abc'))` show when this code runs?",
            "Why do programmers write code in small steps?", "What will this program print if the user types 5?",
            "Given `my_list = [3, 1, 2]`, what is the first item in the list `my_list`?",
            "What happens to the list `my_list` when you call `my_list.clear()`?",
            "What does `print(my_list[0])` show?\n\n```python\nmy_list = [3, 1, 2]\n```\n\nWhat is the first item in the list `my_list`?",
            // Asking for the code, not for what the list holds (labelled set h-py-15).
            "Which line removes and returns the last item of the list `xs`?", "How do you get the length of the list `xs`?",
        ] {
            #expect(QuestionRules.checkShowsItsCode("prompt", fine).isEmpty, "\(fine)")
        }
        // Asking what the code gives still needs the contents.
        #expect(!QuestionRules.checkShowsItsCode("prompt", "What value does `xs.pop()` return as the last item of the list `xs`?").isEmpty)
        // python-collections' engagement question: a named list, and nothing showing what it holds.
        #expect(
            QuestionRules.checkShowsItsCode("prompt", "What is the first item in the list `my_list`?").map(\.message) == [
                "'prompt' asks about code it does not show ('the list `my_list`' without what it holds): put the code in the question, in a ```python block, or ask without pointing at code"
            ])
    }

    @Test func feedbackThatCongratulatesAWrongOptionCallsItRight() {
        let options = Self.options([
            ("It only helps when using nested if statements", false), ("It helps by making your code easier to read.", true),
            ("It can check more than three conditions at once", false), ("It makes the code hard to read", false),
        ])
        var feedback = options
        feedback[0].feedback = "You're right! `elif` is not just about checking one condition."
        feedback[1].feedback = "Each condition is on its own line, so the code reads top to bottom."
        feedback[2].feedback = "True! Just like a toy box with different colored cars."
        feedback[3].feedback = "False! In fact, using `elif` makes the code cleaner."
        let messages = QuestionRules.checkMultipleChoice(prompt: "How does `elif` help?", options: feedback).map(\.message).filter { $0.contains("calls it right") }
        #expect(messages.count == 2)
        #expect(messages.first?.hasPrefix("option 1's feedback ('You're right!") == true)
        // A reading question's wrong option "supported by the passage" (the local model's feedback).
        var reading = feedback
        reading[2].feedback = "This answer is supported by the passage, which states that several countries made stations."
        #expect(QuestionRules.checkMultipleChoice(prompt: "How does `elif` help?", options: reading).filter { $0.message.contains("calls it right") }.count == 2)
        reading[2].feedback = "This answer is not supported by the passage: it names only seasonal stations."
        #expect(QuestionRules.checkMultipleChoice(prompt: "How does `elif` help?", options: reading).filter { $0.message.contains("calls it right") }.count == 1)
        // The option quoted between "statement" and "is correct" (the local model's feedback on a
        // wrong option of a reading set); "… is not correct" passes.
        reading[2].feedback = "The statement 'To establish territorial claims' is correct as it relates to the text, but it does not name the Treaty."
        #expect(QuestionRules.checkMultipleChoice(prompt: "How does `elif` help?", options: reading).filter { $0.message.contains("calls it right") }.count == 2)
        reading[2].feedback = "The statement 'To establish territorial claims' is not correct: the Treaty neither denies nor recognizes claims."
        #expect(QuestionRules.checkMultipleChoice(prompt: "How does `elif` help?", options: reading).filter { $0.message.contains("calls it right") }.count == 1)
        feedback[0].feedback = "True, it can be nested, but nesting is not what it is for."
        feedback[2].feedback = "True is what the first condition gives here; the question is what `elif` adds."
        #expect(QuestionRules.checkMultipleChoice(prompt: "How does `elif` help?", options: feedback).filter { $0.message.contains("calls it right") }.isEmpty)
    }

    @Test func anOptionThatSaysItIsTheAnswerIsRefused() {
        let options = Self.options([
            ("The correct answer is: `elif` handles more conditions.", true), ("The wrong answer is: 'After each guess, we ask again.'", false),
            ("It ends the program.", false), ("It repeats a block.", false),
        ])
        let messages = QuestionRules.checkMultipleChoice(prompt: "What does `elif` do?", options: options).map(\.message)
        #expect(messages.filter { $0.contains("says whether it is the answer") }.count == 2)
        #expect(QuestionRules.checkMultipleChoice(prompt: "Is a list ordered?", options: Self.options([("True", true), ("False", false)]), optionCount: 2).isEmpty)
    }

    @Test func aMultipleChoiceStemAsksOneQuestion() {
        // The local model's level-1 pool question: the engagement question, then two more.
        let several =
            "What is a value in programming? Imagine you have a toy box. Why do you think it's important to keep track of the money in your piggy bank? How can you use values in programming to help you manage your piggy bank?"
        #expect(
            QuestionRules.checkOneQuestion("prompt", several).map(\.message) == [
                "'prompt' asks 3 questions ('What is a value in programming?', 'Why do you think it's important to keep track of the money in your piggy bank?', 'How can you use values in programming to help you manage your piggy bank?'): a multiple-choice question asks one question, which its options answer — keep one of them as the stem's only question mark, turn the rest into statements or drop them, and make every option answer that one"
            ])
        let q = Question(topicID: "t", format: .multipleChoice, prompt: several, options: Self.good, referenceAnswer: nil, explanation: "Lists can change and keep their order.")
        #expect(QuestionRules.check(q, expectedTopicID: "t").errors.contains { $0.message.hasPrefix("'prompt' asks 3 questions") })
        let pool = ReinforcementQuestion(
            topicID: "t", level: 1, difficulty: "easy", frequencyDays: SizeRange(min: 1, max: 2), occurrence: 7, format: .multipleChoice, prompt: several,
            options: Self.good, referenceAnswer: nil, explanation: "Values are what a program works with.", jeevaDifficulty: "easy")
        #expect(ReinforcementRules.checkQuestion(pool, expectedTopicID: "t").errors.contains { $0.message.hasPrefix("'the level-1 question's prompt' asks 3 questions") })
        // One question, with a scenario before it; question marks in code and math; Arabic's ؟;
        // a question quoted in the question (the local model's level-2 stems).
        for prompt in [
            "Now, if someone asks 'What is this?', what would you say?",
            "Your friend asks \"Can you check if this car is red?\" Which line of code answers?",
            "You have 3 apples and eat one. How many are left?", "What does `x ?? 0` give when x is nil?",
            "What does this print?\n```python\nprint('why?')\n```", "Is $P(A?)$ a probability? Pick one.", "ما عاصمة مصر؟",
        ] {
            #expect(QuestionRules.checkOneQuestion("prompt", prompt).isEmpty, "\(prompt)")
        }
        #expect(QuestionRules.checkOneQuestion("prompt", "ما عاصمة مصر؟ وما عاصمة المغرب؟").count == 1)
        // A free-text question may ask for several things.
        let bonus = Question(
            topicID: "t", format: .freeText, prompt: "Why do we name values? How would you name the money in your piggy bank?", options: nil,
            referenceAnswer: "So we can use them again; for example 'savings'.", explanation: "A name lets a program use a value again.")
        #expect(!QuestionRules.check(bonus, expectedTopicID: "t").errors.contains { $0.message.contains("questions (") })
    }

    @Test func aQuestionThatPastesItsLectureIsRefusedAQuotedSentenceIsNot() {
        let lecture = """
            Imagine you have a toy box, and you want to play with your favorite toy. But before you can play, you need to make sure it's not broken. So, you check if the toy is broken. If it is, you don't play with it.

            In programming, we do something similar with the `if` statement.
            """
        // The golden course's level-3 question: the lecture's opening, then a question.
        let pasted =
            "Imagine you have a toy box, and you want to play with your favorite toy. But before you can play, you need to make sure it's not broken. So, you check if the toy is broken. Can you explain how an `if` statement works?"
        #expect(
            QuestionRules.checkNotCopied("prompt", pasted, lecture: lecture).map(\.message) == [
                "'prompt' copies the lecture word for word ('imagine you have a toy box and you …', 25 words or more): ask the question in a sentence or two of your own"
            ])
        // A sentence of the lecture quoted to ask about it is fine.
        let quoting = "The lecture says: \"So, you check if the toy is broken. If it is, you don't play with it.\" Which statement does this describe?"
        #expect(QuestionRules.checkNotCopied("prompt", quoting, lecture: lecture).isEmpty)
        #expect(QuestionRules.checkNotCopied("prompt", pasted, lecture: "").isEmpty)
    }

    @Test func freeTextNeedsAReferenceAnswer() {
        let q = Question(
            topicID: "t", format: .freeText, prompt: "Explain recursion in a sentence.", options: nil, referenceAnswer: "",
            explanation: "Recursion is a function calling itself.")
        #expect(QuestionRules.check(q, expectedTopicID: "t").errors.contains { $0.message.contains("reference answer") })
    }

    static let lecture = """
        # Loops

        ## Why loops

        Loops repeat work. \(String(repeating: "Repeating work by hand is slow and error prone. ", count: 20))

        ## A for loop

        ```python
        for i in range(3):
            print(i)
        ```

        The loop prints three numbers. \(String(repeating: "Each pass binds the next value. ", count: 10))
        """

    @Test func aGoodLecturePasses() {
        #expect(LectureRules.check(Self.lecture, topicTitle: "Loops").errors.isEmpty)
    }

    @Test func lectureWithoutHeadingOrWithTwoTitles() {
        let noTitle = Self.lecture.replacingOccurrences(of: "# Loops\n", with: "")
        #expect(LectureRules.check(noTitle, topicTitle: "Loops").errors.contains { $0.message.contains("no title heading") })
        let twoTitles = Self.lecture + "\n# Another title\n\ntext\n"
        #expect(LectureRules.check(twoTitles, topicTitle: "Loops").errors.contains { $0.message.contains("2 level-1 headings") })
    }

    @Test func emptySectionAndUnbalancedFence() {
        let empty = Self.lecture.replacingOccurrences(of: "## A for loop", with: "## Empty one\n\n## A for loop")
        #expect(LectureRules.check(empty, topicTitle: "Loops").errors.contains { $0.message.contains("'Empty one'") })
        let open = Self.lecture + "\n```python\nprint('never closed')\n"
        #expect(LectureRules.check(open, topicTitle: "Loops").errors.contains { $0.message.contains("never closed") })
    }

    @Test func headingInsideCodeIsNotAHeading() {
        let withComment = Self.lecture.replacingOccurrences(of: "for i in range(3):", with: "# a comment, not a title\nfor i in range(3):")
        #expect(LectureRules.check(withComment, topicTitle: "Loops").errors.isEmpty)
    }

    @Test func lectureAboutTheWrongTopic() {
        let issues = LectureRules.check(Self.lecture, topicTitle: "Dictionaries and Hashing")
        #expect(issues.errors.contains { $0.message.contains("does not seem to be about 'Dictionaries and Hashing'") })
    }

    @Test func tooShortLecture() {
        #expect(LectureRules.check("# Loops\n\n## A\n\nshort.\n", topicTitle: "Loops").errors.contains { $0.message.contains("too short") })
    }

    @Test func aLectureMayNotLinkToFilesBesideIt() {
        // The bundle ships no images or notes beside a lecture: such a link or image would break.
        let image =
            Self.lecture + "\n![a diagram of the loop](loop-diagram.png)\n\nSee [my notes](notes/loops.md) and [the list][1].\n\n[1]: ./lists.html\n"
        let errors = LectureRules.check(image, topicTitle: "Loops").errors.map(\.message)
        #expect(errors.count == 3, "\(errors)")
        #expect(errors.contains { $0.contains("links to 'loop-diagram.png' (line 15)") && $0.contains("https://") })
        #expect(errors.contains { $0.contains("'notes/loops.md'") })
        #expect(errors.contains { $0.contains("'./lists.html'") })
        // Web addresses, places in the lecture, and code that looks like a link are fine.
        let fine =
            Self.lecture
            + "\nRead [the tutorial](https://docs.python.org/3/tutorial/), jump to [the for loop](#a-for-loop), or mail [us](mailto:a@b.c).\n\n"
            + "Call it as `handlers[name](event)`.\n\n```python\nresult = table[key](value)\n```\n"
        #expect(LectureRules.check(fine, topicTitle: "Loops").errors.isEmpty)
        #expect(LectureRules.localLinks(fine).isEmpty)
    }

    @Test func fencedMarkdownAnswersAreUnwrapped() {
        #expect(LectureRules.unwrapFence("```markdown\n# T\n\ntext\n```\n") == "# T\n\ntext\n")
        #expect(LectureRules.unwrapFence("```md\n# T\n```") == "# T\n")
        // A lecture that merely starts with a code block is left alone.
        let code = "```python\nprint(1)\n```\n\n# T\n"
        #expect(LectureRules.unwrapFence(code) == code)
    }

    @Test func curriculumBoundsAndDuplicates() {
        let outline = Outline(
            title: "C",
            subjects: [
                OutlineSubject(
                    title: "S1",
                    topics: [OutlineTopic(title: "Loops", objective: "Repeat work with loops."), OutlineTopic(title: "loops ", objective: "Again.")])
            ])
        let issues = CurriculumRules.check(outline, subjects: SizeRange(min: 2, max: 3), topicsPerSubject: SizeRange(min: 1, max: 5))
        #expect(issues.errors.contains { $0.message.contains("must have 2–3 subjects") })
        #expect(issues.errors.contains { $0.message.contains("appears twice") })
        #expect(issues.errors.contains { $0.message.contains("learning objective") })
    }

    /// A curriculum that drops what its description lists is flagged (a warning, not a refusal):
    /// python-basics' two subjects teach values and decisions, not the "repeating work" and
    /// "functions" its description promises; intro-probability's drops Bayes' theorem. A list
    /// whose every clause a title or objective covers, in any word form, is not.
    @Test func aCurriculumDroppingWhatTheDescriptionPromisesIsFlagged() {
        func outline(_ topics: [(String, String)]) -> Outline {
            Outline(title: "Course", subjects: [OutlineSubject(title: "Subject", topics: topics.map { OutlineTopic(title: $0.0, objective: $0.1) })])
        }
        let basics = outline([
            ("Understanding Values", "After this topic you can understand what values are in programming."),
            ("Assigning Values", "After this topic you can assign values to variables."),
            ("If Statements", "After this topic you can use if statements to make decisions in your programs."),
        ])
        let description = """
            An introduction to programming with Python for people who have never written code:
            values and variables, making decisions, repeating work, and organising code into functions.
            """
        let issues = CurriculumRules.droppedPromises(description: description, outline: basics)
        #expect(issues.map(\.severity) == [.warning])
        #expect(issues.first?.check == .stageRules)
        #expect(
            issues.first?.message
                == "the description promises 'repeating work', 'organising code into functions', which no subject, topic or objective of the curriculum covers: teach them, or say less in the description"
        )
        // A domain term the curriculum never names, outside any listed clause.
        let probability = outline([
            ("Conditional Probability", "After this topic you can calculate conditional probabilities."),
            ("Expectation and Variance", "After this topic you can calculate expectation and variance."),
        ])
        let promised = "A first course in probability: conditional probability and Bayes' theorem, expectation and variance. Every lecture works through examples."
        #expect(CurriculumRules.droppedPromises(description: promised, outline: probability).first?.message.hasPrefix("the description promises 'Bayes', which") == true)
        // Every clause covered (python-collections' description and outline); no list, no promise.
        let collections = outline([
            ("Lists", "Create lists, index and slice them, and change them with append and remove."),
            ("Dictionaries", "Store values under keys, look them up, and loop over keys and values."),
        ])
        let listed =
            "A short course on Python's built-in collections for people who have written their first programs: lists and dictionaries, how to create them, read and change them, and loop over them."
        #expect(CurriculumRules.droppedPromises(description: listed, outline: collections).isEmpty)
        #expect(CurriculumRules.droppedPromises(description: "A gentle course for adults who want to start.", outline: collections).isEmpty)
        #expect(CurriculumRules.promisedClauses("Topics: a, b; and c. Then: or d") == ["a", "b", "c", "d"])
    }

    @Test func reinforcementNeedsEveryLevelAndRenditions() {
        let a = ReinforcementQuestion.attributes(level: 1)
        let q1 = ReinforcementQuestion(
            topicID: "t", level: 1, difficulty: a.difficulty, frequencyDays: a.frequency, occurrence: 7, format: a.format,
            prompt: "What does a loop do?", options: nil, referenceAnswer: nil, explanation: "It repeats.", jeevaDifficulty: a.jeeva)
        let issues = ReinforcementRules.check([q1], expectedTopicID: "t")
        #expect(issues.errors.contains { $0.message.contains("each level 1, 2, 3 and 4") })
        #expect(issues.errors.contains { $0.message.contains("must have multiple-choice options") })
        #expect(ReinforcementQuestion.attributes(level: 3).frequency == SizeRange(min: 7, max: 8))
        #expect(ReinforcementQuestion.attributes(level: 4).format == .freeText)
    }

    @Test func slugsAndVersions() {
        #expect(Slug.isValidID("python-basics"))
        for bad in ["", "-a", "a-", "a--b", "A", "a/b", "..", "a b", String(repeating: "a", count: 65)] {
            #expect(!Slug.isValidID(bad), "\(bad)")
        }
        #expect(Slug.make("Loops & Iteration: for/while!") == "loops-iteration-for-while")
        #expect(Slug.make("الحلقات") == "topic")
        #expect(Slug.isValidVersion("1.0.0") && Slug.isValidVersion("2.1.0-rc.1"))
        #expect(!Slug.isValidVersion("1.0") && !Slug.isValidVersion("1.0.0/..") && !Slug.isValidVersion("1.0.0-"))
    }
}

/// What Qwen2.5-Coder-1.5B actually wrote during fixture recording: the question as an option.
/// A lecture that says a paragraph twice: the golden "Else and elif Statements" lecture pasted
/// two of its paragraphs again, the second as its whole "Conclusion".
struct RepeatedParagraphTests {
    static let reason =
        "Using \"elif\" statements can make your code more readable and easier to understand. It also allows you to add as many conditions as you need without having to write a lot of nested if statements."

    @Test func aParagraphSaidTwiceIsRefusedButCodeShownTwiceIsNot() {
        let code = "```python\nif toy == 'red ball':\n    print(\"You found the red ball!\")\n```"
        let lecture = """
            # Else and elif Statements

            ## Why use else and elif?

            \(Self.reason)

            \(code)

            ## Practice

            Write a program that checks three toys, one after the other, and prints which one you found first.

            \(code)

            ## Conclusion

            \(Self.reason.uppercased())
            """
        let messages = LectureRules.repeatedParagraphs(lecture, language: "en").map(\.message)
        #expect(messages == ["the paragraph on line 23 ('USING \"ELIF\" STATEMENTS CAN MAKE YOUR CODE MORE READABLE AND…') says again what the one on line 5 says; say each thing once"])
        #expect(LectureRules.check(lecture, topicTitle: "Else and elif Statements").map(\.message).contains(messages[0]))
        // Short lines may recur ("Try it:"); they are not compared.
        #expect(LectureRules.repeatedParagraphs("# T\n\nTry it yourself.\n\n## A\n\nTry it yourself.\n", language: "en") == [])
    }
}

struct SmallModelValidatorTests {
    @Test func anOptionThatRepeatsTheQuestionIsNamedAsSuch() {
        let prompt = "What is the main purpose of values in programming?"
        let options = ValidatorTests.options([(prompt, true), ("To store data", false), ("To slow programs", false), ("What is a variable?", false)])
        let issues = QuestionRules.checkMultipleChoice(prompt: prompt, options: options)
        #expect(issues.errors.contains { $0.message.contains("option 1 ('What is the main purpose of values in programming?') is a question") })
        #expect(issues.errors.contains { $0.message.contains("option 4 ('What is a variable?') is a question") })
        #expect(!issues.errors.contains { $0.message.contains("gives the answer away") }, "the clearer message replaces the confusing one")
    }
}

/// The validators' option count and language (issue 12): a course asks for 4 options in English;
/// a bank may have 2 to 6, and Arabic text is compared by its letters.
struct ValidatorParameterTests {
    static func options(_ texts: [String], correct: Int = 0) -> [Choice] {
        texts.enumerated().map { Choice(text: $0.element, correct: $0.offset == correct, feedback: "Because of the definition (option \($0.offset + 1)).") }
    }

    @Test func theOptionCountIsAParameterFrom2To6() {
        let three = Self.options(["A list", "A tuple", "A set"])
        #expect(QuestionRules.checkMultipleChoice(prompt: "Which type is mutable?", options: three, optionCount: 3).errors.isEmpty)
        // The default is the course's four.
        #expect(
            QuestionRules.checkMultipleChoice(prompt: "Which type is mutable?", options: three).errors.map(\.message) == [
                "a multiple-choice question needs exactly 4 options; it has 3"
            ])
        let six = Self.options(["2", "3", "4", "5", "6", "7"], correct: 2)
        #expect(QuestionRules.checkMultipleChoice(prompt: "What is 2 + 2?", options: six, optionCount: 6).errors.isEmpty)
        for impossible in [1, 7] {
            let errors = QuestionRules.checkMultipleChoice(prompt: "What is 2 + 2?", options: six, optionCount: impossible).errors.map(\.message)
            #expect(errors.contains("a multiple-choice question has 2 to 6 options; \(impossible) were asked for"))
        }
        let question = Question(
            topicID: "t", format: .multipleChoice, prompt: "Which type is mutable?", options: three, referenceAnswer: nil,
            explanation: "Lists can change and keep their order.")
        #expect(QuestionRules.check(question, expectedTopicID: "t", optionCount: 3).errors.isEmpty)
        #expect(!QuestionRules.check(question, expectedTopicID: "t").errors.isEmpty)
    }

    @Test func feedbackCanBeOptional() {
        let bare = [Choice(text: "Paris", correct: true, feedback: ""), Choice(text: "Rome", correct: false, feedback: "")]
        #expect(!QuestionRules.checkMultipleChoice(prompt: "Capital of France?", options: bare, optionCount: 2).errors.isEmpty)
        #expect(
            QuestionRules.checkMultipleChoice(prompt: "Capital of France?", options: bare, optionCount: 2, requiresFeedback: false).errors.isEmpty)
    }

    @Test func optionsSpellingOneWordThreeWaysAreAQuestionAboutCase() {
        // hamexam T5C14, "What is the proper abbreviation for megahertz?": the case is the point.
        let spellings = Self.options(["mHz", "mhZ", "Mhz", "MHz"], correct: 3)
        #expect(QuestionRules.checkMultipleChoice(prompt: "What is the proper abbreviation for megahertz?", options: spellings).errors.isEmpty)
        // Two spellings of one answer are still one answer given twice, and the same spelling twice always is.
        let twice = Self.options(["Paris", "paris", "Rome", "Lyon"])
        #expect(
            QuestionRules.checkMultipleChoice(prompt: "Capital of France?", options: twice).errors.map(\.message) == [
                "option 1 and option 2 are the same ('paris'); every option must differ"
            ])
        let repeated = Self.options(["mHz", "mHz", "Mhz", "MHz"], correct: 3)
        #expect(QuestionRules.checkMultipleChoice(prompt: "The abbreviation for megahertz?", options: repeated).errors.count == 1)
    }

    /// Options `TextKey.normalize` gives one key (it trims quotes, backticks and sentence marks)
    /// are still different answers when they are code or values whose symbols differ: labelled
    /// set h-py items keyed '==' beside '!=' and ':=', and '42' beside 42.
    @Test func operatorsAndQuotedValuesAreDifferentOptions() {
        let operators = Self.options(["`==`", "`!=`", "`:=`", "`=`"])
        #expect(QuestionRules.checkMultipleChoice(prompt: "Which operator compares two values for equality?", options: operators).errors.isEmpty)
        let values = Self.options(["`'42'`", "`42`", "`42.0`", "`None`"])
        #expect(QuestionRules.checkMultipleChoice(prompt: "What does `input()` return when you type 42?", options: values).errors.isEmpty)
        let bare = Self.options(["'42'", "42", "4.2", "420"])
        #expect(QuestionRules.checkMultipleChoice(prompt: "Which is a string?", options: bare).errors.isEmpty)
        // The same code with and without backticks, or a closing full stop, is one answer.
        let same = Self.options(["`x = 5`", "x = 5.", "`x == 5`", "`x := 5`"])
        #expect(
            QuestionRules.checkMultipleChoice(prompt: "How do you assign 5 to x?", options: same).errors.map(\.message) == [
                "option 1 and option 2 are the same ('x = 5.'); every option must differ"
            ])
        // An option repeating a later one is found though the first with its key differs from both.
        let again = Self.options(["`:=`", "`!=`", "`!=`", "`==`"])
        #expect(
            QuestionRules.checkMultipleChoice(prompt: "Which operator tests inequality?", options: again).errors.map(\.message) == [
                "option 2 and option 3 are the same ('`!=`'); every option must differ"
            ])
        // Prose keeps its one key: "Paris." is "Paris".
        #expect(QuestionRules.checkMultipleChoice(prompt: "Capital of France?", options: Self.options(["Paris.", "Paris", "Rome", "Lyon"])).errors.count == 1)
    }

    /// A language without a profile has no instruction forms to read: its stems are not refused
    /// as asking nothing (labelled set h-fr-07); quality.json says question-form's wording was not applied.
    @Test func aStemInALanguageWithoutAProfileIsNotRefusedAsAskingNothing() {
        #expect(QuestionRules.checkAsksSomething("prompt", "Expliquez pourquoi `x = x + 1` augmente la valeur de x de 1.", language: "fr").isEmpty)
        #expect(!QuestionRules.checkAsksSomething("prompt", "A variable holds a value in your program.", language: "en").isEmpty)
        #expect(!QuestionRules.checkAsksSomething("prompt", "المتغير يحفظ قيمة في البرنامج.", language: "ar").isEmpty)
    }

    @Test func arabicIsComparedByItsLetters() {
        // Vowel marks, tatweel and the alef forms do not make two texts differ.
        #expect(TextKey.foldArabic("أَسَاسِيَّات") == "اساسيات")
        #expect(TextKey.foldArabic("إِلَى الآنَ ٱلْقَمَرُ") == "الى الان القمر")
        #expect(TextKey.foldArabic("الحـــلقات") == "الحلقات")
        #expect(TextKey.foldArabic("Loops") == "Loops")
        #expect(TextKey.normalize("ما هي الحَلْقَة؟", language: "ar") == TextKey.normalize("ما هي الحلقة", language: "ar"))
        #expect(TextKey.normalize("  المتغيرات،  والثوابت ؛ ", language: "ar-EG") == "المتغيرات، والثوابت")
        // English normalisation is as it was.
        #expect(TextKey.normalize("  What IS a   Loop? ") == "what is a   loop".split(separator: " ").joined(separator: " "))
        #expect(LanguageProfile.isArabic("ar") && LanguageProfile.isArabic("ar-SA") && LanguageProfile.isArabic("AR_eg"))
        #expect(!LanguageProfile.isArabic("en") && !LanguageProfile.isArabic("arn"))
    }

    @Test func arabicSignificantWordsDropParticlesAndKeepThreeLetterWords() {
        let words = TextKey.significantWords("مقدمة إلى الحلقات في بايثون: ما هي الدالة التي تعيد قيمة من هذه القائمة؟", language: "ar")
        #expect(words == ["الحلقات", "بايثون", "الدالة", "تعيد", "قيمة", "القائمة"])
        // Three letters count in Arabic (most roots have three); four in English.
        #expect(TextKey.significantWords("علم الحاسوب", language: "ar") == ["علم", "الحاسوب"])
        #expect(TextKey.significantWords("The map of the loops") == ["loops"])
        // Spelled with or without vowel marks, a word is the same word.
        #expect(TextKey.significantWords("الدَّالَّةُ", language: "ar") == ["الدالة"])
    }

    @Test func arabicOptionsRepeatedWithVowelMarksAreTheSame() {
        let options = Self.options(["القَاهِرَة", "القاهرة", "الإسكندرية", "أسوان"])
        let errors = QuestionRules.checkMultipleChoice(prompt: "ما عاصمة مصر؟", options: options, language: "ar").errors.map(\.message)
        #expect(errors == ["option 1 and option 2 are the same ('القاهرة'); every option must differ"])
        // Compared as English, the marks make them differ.
        #expect(QuestionRules.checkMultipleChoice(prompt: "ما عاصمة مصر؟", options: options).errors.isEmpty)
    }

    @Test func arabicQuestionsAsOptionsAndAnswersInTheStem() {
        let asQuestion = Self.options(["القاهرة", "ما عاصمة فرنسا؟", "الإسكندرية", "أسوان"])
        #expect(
            QuestionRules.checkMultipleChoice(prompt: "ما عاصمة مصر؟", options: asQuestion, language: "ar").errors.contains {
                $0.message.contains("option 2 ('ما عاصمة فرنسا؟') is a question")
            })
        let given = Self.options(["حلقة تكرار محددة", "شرط", "دالة", "متغير"])
        let errors = QuestionRules.checkMultipleChoice(prompt: "ما اسم حَلْقَة تِكْرَار مُحَدَّدة في بايثون؟", options: given, language: "ar").errors
        #expect(errors.contains { $0.message.contains("gives the answer away") })
        let free = QuestionRules.checkFreeTextPrompt("اشرح معنى المتغير الذي يخزن قيمة", referenceAnswer: "المُتَغَيِّر الذي يخزن قيمة", language: "ar")
        #expect(free.map(\.message).first?.contains("gives the answer away") == true)
    }

    @Test func anArabicLectureIsAboutItsTopicWithOrWithoutTheArticle() {
        let body = String(repeating: "نكرر العمل باستخدام حلقات التكرار في بايثون مرات كثيرة. ", count: 30)
        let example = String(repeating: "مثال: نطبع الأعداد من واحد إلى عشرة بحلقة واحدة. ", count: 30)
        let lecture = "# التكرار\n\n## لماذا\n\n\(body)\n\n## مثال\n\n\(example)\n"
        #expect(LectureRules.check(lecture, topicTitle: "الحلقات", language: "ar").errors.isEmpty)
        let errors = LectureRules.check(lecture, topicTitle: "القواميس", language: "ar").errors.map(\.message)
        #expect(errors.contains { $0.contains("does not seem to be about 'القواميس'") })
    }

    @Test func reinforcementRulesPassTheParametersOn() {
        let a = ReinforcementQuestion.attributes(level: 1)
        let q = ReinforcementQuestion(
            topicID: "t", level: 1, difficulty: a.difficulty, frequencyDays: a.frequency, occurrence: 7, format: a.format,
            prompt: "ما عاصمة مصر في الخريطة؟", options: Self.options(["القَاهِرَة", "القاهرة", "أسوان"]), referenceAnswer: nil,
            explanation: "القاهرة هي العاصمة.", jeevaDifficulty: a.jeeva)
        let errors = ReinforcementRules.checkQuestion(q, expectedTopicID: "t", optionCount: 3, language: "ar").errors.map(\.message)
        #expect(errors == ["the level-1 question: option 1 and option 2 are the same ('القاهرة'); every option must differ"])
    }
}

/// A project's rubric adds up to 100: the model's weights, scaled.
struct RubricTests {
    static func rubric(_ points: [Int]) -> [RubricCriterion] {
        points.enumerated().map { RubricCriterion(criterion: "C\($0.offset)", points: $0.element, excellent: "Excellent work.") }
    }

    @Test func pointsThatDoNotAddUpTo100AreScaledKeepingTheirProportions() {
        #expect(ProjectRules.scaled(Self.rubric([3, 3, 3, 3, 3, 3])).map(\.points) == [17, 17, 17, 17, 16, 16])
        #expect(ProjectRules.scaled(Self.rubric([20, 30, 25, 30])).map(\.points) == [19, 29, 24, 28])
        #expect(ProjectRules.scaled(Self.rubric([5, 5, 10, 5, 3])).map(\.points).reduce(0, +) == 100)
        #expect(ProjectRules.scaled(Self.rubric([40, 30, 30])).map(\.points) == [40, 30, 30])
        // A criterion worth nothing is the check's to refuse, not to scale away.
        #expect(ProjectRules.scaled(Self.rubric([50, 0, 30])).map(\.points) == [50, 0, 30])
        let project = EndingProject(
            subjectID: "s01", title: "A game", brief: String(repeating: "Build a small text game with what the subject taught. ", count: 2),
            requirements: ["Use variables", "Use conditions", "Print the score"], deliverables: ["A short video of the game"],
            rubric: Self.rubric([30, 30, 30]))
        let messages = ProjectRules.check(project, expectedSubjectID: "s01").map(\.message)
        #expect(messages.contains("the rubric's points add up to 90 (30 + 30 + 30), not 100; give the criteria points that add up to 100"))
        #expect(messages.contains { $0.hasPrefix("deliverables[1] asks for video") })
        #expect(ProjectRules.check(project, expectedSubjectID: "s01", allowsMedia: true).count == 1)
    }

    @Test func aRequirementThatNeedsALaterSubjectsTopicIsRefused() {
        let project = EndingProject(
            subjectID: "s01", title: "A dice game", brief: String(repeating: "Simulate a dice game and report its odds. ", count: 2),
            requirements: [
                "List the sample space of two dice", "Use conditional probabilities to update the odds after the first roll",
                "Explain each event in a sentence",
            ],
            deliverables: ["A report with a table of the expected value of each bet"], rubric: Self.rubric([40, 30, 30]))
        let later = [
            ProjectRules.LaterTopic(subjectID: "s02", title: "Conditional Probability"), ProjectRules.LaterTopic(subjectID: "s02", title: "Bayes' Theorem"),
            ProjectRules.LaterTopic(subjectID: "s03", title: "Expected Value"), ProjectRules.LaterTopic(subjectID: "s03", title: "Sample Spaces"),
        ]
        let taught = "Outcomes and sample spaces\nEvents\n# Sample spaces\nA sample space lists every outcome. An event is a set of outcomes."
        let messages = ProjectRules.laterTopicIssues(project, taught: taught, later: later).map(\.message)
        #expect(
            messages == [
                "requirements[2] ('Use conditional probabilities to update the odds after the first roll') needs 'Conditional Probability', which subject s02 teaches after this one; require only what this subject's topics teach",
                "deliverables[1] ('A report with a table of the expected value of each bet') needs 'Expected Value', which subject s03 teaches after this one; require only what this subject's topics teach",
            ])
        // Taught here as well ("sample spaces"), a later title is no reach; with nothing later, nothing is.
        #expect(ProjectRules.laterTopicIssues(project, taught: taught + " Expected value and conditional probability, briefly.", later: later) == [])
        #expect(ProjectRules.laterTopicIssues(project, taught: taught, later: []) == [])
    }
}

/// Feedback that contradicts its option's key: the recorded world-geography reading set called
/// two wrong options "also correct".
struct FeedbackContradictionTests {
    static func options(correct: String, wrong: [String]) -> [Choice] {
        [Choice(text: "Cacti and short grasses", correct: true, feedback: correct)]
            + wrong.enumerated().map { Choice(text: "Option \($0.offset + 2)", correct: false, feedback: $0.element) }
    }

    @Test func aWrongOptionsFeedbackThatCallsItCorrectIsAnError() {
        let flagged = QuestionRules.checkMultipleChoice(
            prompt: "What grows in a desert?",
            options: Self.options(
                correct: "This is stated directly in the passage.",
                wrong: [
                    "This answer is also correct, but it comes from a later period.", "While this is true, it does not relate to the passage.",
                    "The passage does not mention trees.",
                ])
        ).errors.map(\.message)
        #expect(flagged.count == 2, "\(flagged)")
        #expect(flagged.first?.hasPrefix("option 2's feedback ('This answer is also correct, but it comes from a later period.') calls it right, but it is a wrong answer") == true)
        let keyCalledWrong = QuestionRules.checkMultipleChoice(
            prompt: "What grows in a desert?",
            options: Self.options(correct: "Incorrect: cacti need water.", wrong: ["No trees grow there.", "It is not correct.", "Nothing says so."])
        ).errors.map(\.message)
        #expect(keyCalledWrong == ["option 1's feedback ('Incorrect: cacti need water.') calls it wrong, but it is the correct answer: the feedback says why this answer is right"])
        // Ordinary feedback of both kinds passes: "not correct", "is correct only if …" wording on the right side.
        #expect(
            QuestionRules.checkMultipleChoice(
                prompt: "What grows in a desert?",
                options: Self.options(
                    correct: "Yes: the passage names cacti and short grasses.",
                    wrong: ["This is not correct: trees need more rain.", "The passage does not mention flowers.", "Incorrect: grasslands are another biome."])
            ).errors.isEmpty)
    }

    @Test func aRequirementNamingATermTheCourseNeverTaughtIsRefused() {
        // The local model's first python-basics project, in a course on values, variables and `if`.
        let project = EndingProject(
            subjectID: "s01", title: "Simple Program with Values and Variables", brief: String(repeating: "Write a small calculator program. ", count: 2),
            requirements: ["Understanding values and variables", "Assigning values to variables", "Organising code into functions"],
            deliverables: ["A simple Python program that uses values and variables", "A table showing how values change"], rubric: RubricTests.rubric([40, 30, 30]))
        let lectures = ["# Values\n\nA value is a piece of data.\n\n```python\nx = 5\nprint(x)\n```\n"]
        let taught = "Understanding Values\nAssigning Values\n" + lectures[0]
        #expect(
            ProjectRules.untaughtTermIssues(project, taught: taught, lectures: lectures).map(\.message) == [
                "requirements[3] ('Organising code into functions') needs 'function', which the course does not teach up to this subject; require only what its topics teach"
            ])
        // Taught (in the singular or the plural), it is no reach; a course without code is not held
        // to programming terms; another language is not read.
        #expect(ProjectRules.untaughtTermIssues(project, taught: taught + "\nDefining a function", lectures: lectures).isEmpty)
        #expect(ProjectRules.untaughtTermIssues(project, taught: taught, lectures: ["# Values\n\nA value is a piece of data."]).isEmpty)
        #expect(ProjectRules.untaughtTermIssues(project, taught: taught, lectures: lectures, language: "ar").isEmpty)
        // What the project's prompt names as not taught: the programming terms the course never mentions.
        let untaught = ProjectRules.untaughtTerms(taught: taught + "\nRepeat work with loops", lectures: lectures)
        #expect(untaught.contains("function") && !untaught.contains("loop"), "\(untaught)")
        #expect(ProjectRules.untaughtTerms(taught: taught, lectures: ["No code here."]).isEmpty)
        // A mathematical course: "variance" untaught, "probabilities" no term; an everyday word
        // that contains a term ("functional", "classy") is not it.
        let dice = EndingProject(
            subjectID: "s01", title: "Dice", brief: String(repeating: "Study two dice and their sums. ", count: 2),
            requirements: ["Compute the probabilities of each sum", "Find the variance of the sum", "Write a functional, classy report"],
            deliverables: ["A report"], rubric: RubricTests.rubric([40, 30, 30]))
        let math = ["# Sums\n\nThe chance of a 7 is $\\frac{6}{36}$."]
        #expect(
            ProjectRules.untaughtTermIssues(dice, taught: "Sums of dice\n" + math[0], lectures: math).map(\.message) == [
                "requirements[2] ('Find the variance of the sum') needs 'variance', which the course does not teach up to this subject; require only what its topics teach"
            ])
    }

    @Test func aQuestionThatStopsInTheMiddleOfASentenceIsRefused() {
        let cut = "Imagine you have a piggy bank. Suppose you want to add $5 to it. You might write a program that gives the value 5 to a variable named "
        #expect(
            QuestionRules.checkFinished("prompt", cut).map(\.message) == [
                "'prompt' stops in the middle of a sentence ('…program that gives the value 5 to a variable named'): finish the question"
            ])
        let bonus = Question(
            topicID: "t", format: .freeText, prompt: cut, options: nil, referenceAnswer: "A variable named money holds it.", explanation: "Variables hold values.")
        #expect(QuestionRules.check(bonus, expectedTopicID: "t").errors.contains { $0.message.hasPrefix("'prompt' stops in the middle of a sentence") })
        #expect(!QuestionRules.checkFinished("prompt", "Count the faces. There are 6 faces and 6 more faces in 2").isEmpty, "a number not after = or ≈ still counts")
        // Finished: a mark at the end, code or math last, one sentence without a mark, a closing quote.
        for prompt in [
            "What is a value?", "Calculate 5 + 3", "What does this print?\n```python\nprint(1)\n```", "Which is larger: $2^3$ or $3^2$",
            "Name the keyword. It starts with `if`", "He said: \"stop.\"", "ما عاصمة مصر؟",
            "Weigh each value by its probability. E(X) = (1 * 0.6) + (2 * 0.4) = 0.6 + 0.8 = 1.4",
        ] {
            #expect(QuestionRules.checkFinished("prompt", prompt).isEmpty, "\(prompt)")
        }
    }

    @Test func aLectureTeachesTheTechnicalTermsOfItsTitle() {
        // intro-probability's lecture on expectation and variance after its variance example was
        // refused for a false sum: the section gone, variance named in the conclusion only.
        let expectation = (1...20).map { "With \($0) dice the expectation of the sum is $\\mathbb{E}[S] = \($0 * 7)/2$." }.joined(separator: " ")
        let lecture =
            "# Expectation and Variance\n\n## Expectation\n\n" + expectation + "\n\n"
            + "## Conclusion\n\nWe defined and calculated the expectation and variance of random variables.\n"
        #expect(
            LectureRules.check(lecture, topicTitle: "Expectation and Variance").map(\.message) == [
                "the lecture's title names 'variance', but only its last section mentions it: teach it as the title promises — say what it is and work it out in an example"
            ])
        let taught = lecture + "\n## Variance\n\nThe variance measures spread: the variance of a die roll is about 2.92, and variances add for independent rolls.\n"
        #expect(LectureRules.check(taught, topicTitle: "Expectation and Variance").isEmpty)
        // A title without a technical term of the lecture's domain asks nothing more.
        #expect(LectureRules.check(lecture.replacingOccurrences(of: "# Expectation and Variance", with: "# Expectation"), topicTitle: "Expectation").isEmpty)
    }

    @Test func aQuestionOnATermItsLectureDoesNotTeachIsRefused() {
        let lecture = "# Lists\n\nTo create a list, you use square brackets:\n```python\nmy_list = [1, 2, 3]\n```\nSlicing gives you a part of the list."
        #expect(
            QuestionRules.checkTaught("prompt", "What is the difference between a list and a tuple in Python?", lecture: lecture).map(\.message) == [
                "'prompt' asks about 'tuple', which the lecture does not teach; ask only about what the lecture teaches"
            ])
        // Plurals count; a term the lecture teaches, a term in code only, or a course without code passes.
        #expect(QuestionRules.checkTaught("prompt", "Which of these are tuples?", lecture: lecture).count == 1)
        #expect(QuestionRules.checkTaught("prompt", "What does slicing give you?", lecture: lecture).isEmpty)
        #expect(QuestionRules.checkTaught("prompt", "What does this print?\n```python\nprint(tuple([1]))\n```", lecture: lecture).isEmpty)
        #expect(QuestionRules.checkTaught("prompt", "What is a tuple?", lecture: "Lists hold values in order.").isEmpty)
        #expect(QuestionRules.checkTaught("prompt", "What is a tuple?", lecture: lecture + " A tuple cannot change.").isEmpty)
    }

    /// Code in a question that uses a Python statement its lecture never shows (labelled set
    /// h-ot-04, h-ot-12, h-ot-16), in any language; and a probability lecture without TeX is held
    /// to the mathematical terms (h-ot-10, h-ot-11).
    @Test func aQuestionWhoseCodeUsesAStatementItsLectureNeverShowsIsRefused() {
        let lecture = "# If statements\n\nAn `if` statement runs its block when its condition is true:\n```python\nif n > 0:\n    print('positive')\n```\n"
        #expect(
            QuestionRules.checkTaught("prompt", "What does `try: … except ValueError:` do?", lecture: lecture).map(\.message) == [
                "'prompt' uses `try`, which the lecture never shows; ask only about what the lecture teaches"
            ])
        #expect(QuestionRules.checkTaught("prompt", "What does `import numpy as np` do?", lecture: lecture).first?.message.contains("`import`") == true)
        #expect(QuestionRules.checkTaught("prompt", "Que fait une boucle `for x in xs:` ?", lecture: lecture, language: "fr").count == 1)
        // A statement the lecture shows, code without one, or a question without code passes.
        #expect(QuestionRules.checkTaught("prompt", "What does this print?\n```python\nif 3 > 0:\n    print('yes')\n```", lecture: lecture).isEmpty)
        #expect(QuestionRules.checkTaught("prompt", "What does `n > 0` give when n is 5?", lecture: lecture).isEmpty)
        #expect(QuestionRules.checkTaught("prompt", "Which word starts a block that runs when its condition holds?", lecture: lecture).isEmpty)
        // A lecture that mentions the keyword in its prose shows it ("for example").
        #expect(QuestionRules.checkTaught("prompt", "What does `for x in xs: print(x)` do?", lecture: lecture + "For example, `if n:` is true for 3.").isEmpty)
        let binomial = "# Binomial distribution\n\nA binomial variable counts the successes in n independent trials, each a success with probability p."
        #expect(QuestionRules.checkTaught("prompt", "What is a Markov chain's stationary distribution?", lecture: binomial).count == 1)
        #expect(QuestionRules.checkTaught("prompt", "What is the probability of 2 successes in 3 trials?", lecture: binomial).isEmpty)
    }

    @Test func aReferenceAnswerOrOptionThatStopsShortIsRefused() {
        // python-collections on the local model: a bonus question's reference answer, and four
        // options each ending "For example:".
        let reference = "The key and value are separated by a colon (:), just like a name and age on a card. For example, `{"
        let bonus = Question(
            topicID: "t", format: .freeText, prompt: "What are the key and the value in `{'apple': 3}`?", options: nil, referenceAnswer: reference,
            explanation: "A dictionary stores each value under its key.")
        #expect(
            QuestionRules.check(bonus, expectedTopicID: "t").map(\.message) == [
                "'reference_answer' stops in the middle of a sentence ('…ust like a name and age on a card. For example, `{'): finish it"
            ])
        // Cut off as inline code opens (the same course's key feedback); closed code at the end is finished.
        #expect(
            QuestionRules.checkFinished("feedback", "In a dictionary, you use the key. For example, to find a name you would use the key `", finish: "finish it")
                .map(\.message) == ["'feedback' stops in the middle of a sentence ('…or example, to find a name you would use the key `'): finish it"])
        #expect(!QuestionRules.checkFinished("prompt", "It will print the value of the key `'name'`, which is `'Alice'").isEmpty)
        #expect(QuestionRules.checkFinished("feedback", "In a dictionary, you use the key. For example, `my_dict['name']`", finish: "finish it").isEmpty)
        let options = ValidatorParameterTests.options([
            "To find out what's inside a dictionary, you use its key. For example:", "You use its value.", "You use the index of the key.",
            "You use the length of the key.",
        ])
        #expect(
            QuestionRules.checkMultipleChoice(prompt: "How do you look up a value in a dictionary?", options: options).errors.map(\.message) == [
                "option 1 ends with a colon and nothing after it ('…ictionary, you use its key. For example:'): an option is a whole answer; finish it, or leave out what announces more"
            ])
        // A stem may end with a colon before its options; an explanation ending in code is finished.
        #expect(QuestionRules.checkFinished("explanation", "Run this:\n```python\nprint(1)\n```", finish: "finish it").isEmpty)
    }
}
