import Foundation
import Testing

@testable import LecternCore

/// The semantic validators on the kinds of bad output models really produce.
struct ValidatorTests {
    static func options(_ items: [(String, Bool)]) -> [Choice] {
        items.map { Choice(text: $0.0, correct: $0.1, feedback: "Because of the definition.") }
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
        texts.enumerated().map { Choice(text: $0.element, correct: $0.offset == correct, feedback: "Because of the definition.") }
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
        #expect(TextKey.isArabic("ar") && TextKey.isArabic("ar-SA") && TextKey.isArabic("AR_eg"))
        #expect(!TextKey.isArabic("en") && !TextKey.isArabic("arn"))
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
        let lecture = "# التكرار\n\n## لماذا\n\n\(body)\n\n## مثال\n\n\(body)\n"
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
