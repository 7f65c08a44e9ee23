import Foundation
import LecternCore
import LecternLLM

/// A topic's practice set (the `practice` add-on; Jeeva §4.1): multiple-choice and true/false
/// questions at the spec's difficulty mix, one call per question (`practice/<topic>/q-NN`) — the
/// 1.5B local model writes one question well and a list of them with repeats. The questions of a
/// set are written in order, each after the one before, and each is refused when it repeats a
/// question the topic already has (engagement, bonus, reinforcement pool, earlier practice).
/// Each question is given its own part of the lecture, in turn.
public struct PracticeStage: Sendable {
    public static let name = CourseStages.practice

    struct ChoiceAnswer: Decodable {
        var prompt: String
        var correct_answer: MultipleChoice.AnswerText
        var wrong_answers: [MultipleChoice.AnswerText]
        var explanation: String
    }

    struct TrueFalseAnswer: Decodable {
        var statement: String
        var is_true: Bool
        var feedback_if_true: String
        var feedback_if_false: String
        var explanation: String
    }

    static func schema(_ format: PracticeQuestion.Format) -> ResponseSchema {
        switch format {
        case .multipleChoice:
            return ResponseSchema(
                name: "practice_multiple_choice",
                schema: SchemaParts.object(
                    MultipleChoice.properties(optionCount: QuestionRules.optionCount, textLimit: 160).merging([
                        "prompt": SchemaParts.string, "explanation": SchemaParts.string,
                    ]) { a, _ in a },
                    required: ["prompt"] + MultipleChoice.required + ["explanation"]))
        case .trueFalse:
            return ResponseSchema(
                name: "practice_true_false",
                schema: SchemaParts.object(
                    [
                        "statement": FlashcardStage.statementPattern(15...(PracticeRules.statementLimit - 1)), "is_true": ["type": "boolean"], "feedback_if_true": SchemaParts.string,
                        "feedback_if_false": SchemaParts.string, "explanation": SchemaParts.string,
                    ], required: ["statement", "is_true", "feedback_if_true", "feedback_if_false", "explanation"]))
        }
    }

    /// What each difficulty asks of the learner.
    static func instruction(_ difficulty: PracticeQuestion.Difficulty) -> String {
        switch difficulty {
        case .easy: return "Easy: it checks recall of one fact or definition the lecture states."
        case .medium: return "Medium: the learner applies or compares what the lecture explains, for instance on a small new example."
        case .hard:
            return "Hard: it takes two steps of reasoning, or spotting a subtle mistake, and can still be answered from the lecture alone."
        }
    }

    /// Whether the `n`-th true/false statement of a set (from 0) is to be true: they alternate,
    /// true first, so a set is not all "True".
    static func statementIsTrue(trueFalseIndex n: Int) -> Bool { n % 2 == 0 }

    public let job: CourseJobContext
    public init(job: CourseJobContext) { self.job = job }

    /// Question `number` (from 1) of a topic's set; `asked` are the topic's questions so far.
    public func call(itemID: String, place: TopicPlace, outline: Outline, lecture: String, number: Int, asked: [String]) throws -> ModelCall<PracticeQuestion> {
        let spec = job.course.practice
        let difficulty = spec.difficulties[number - 1]
        let format = spec.format(at: number - 1)
        var variables = place.variables(job, outline: outline)
        variables["focus_section"] = Self.focus(lecture: lecture, number: number, asked: asked)
        variables["number"] = String(number)
        variables["count"] = String(spec.perTopic)
        variables["difficulty"] = difficulty.rawValue
        variables["difficulty_instruction"] = Self.instruction(difficulty)
        let wantTrue = Self.statementIsTrue(trueFalseIndex: (0..<(number - 1)).filter { spec.format(at: $0) == .trueFalse }.count)
        switch format {
        case .multipleChoice:
            variables["format_instruction"] = "multiple-choice question. " + MultipleChoice.instruction
        case .trueFalse:
            variables["format_instruction"] =
                "true/false item: in \"statement\", one declarative sentence ending with a period — never a question, never \"what\", \"how\" or \"can you\" — that the learner judges true or false. "
                + (wantTrue
                    ? "Write a statement that is TRUE according to the lecture, and set \"is_true\" to true."
                    : "Write a statement that is FALSE: a plausible misconception the lecture corrects. Set \"is_true\" to false.")
                + " \"feedback_if_true\" is shown to a learner who answers True, \"feedback_if_false\" to one who answers False; each says why that answer is right or wrong."
        }
        let schema = Self.schema(format)
        variables["schema"] = AnswerParsing.schemaText(schema)
        let id = String(format: "\(place.topicID)-p%02d", number)
        let (topicID, language) = (place.topicID, job.spec.language)
        var call = ModelCall<PracticeQuestion>(
            itemID: itemID, stage: Self.name, template: try PromptLibrary.template("course/practice"), variables: variables, schema: schema,
            check: { text in
                let result = Self.check(
                    text, id: id, topicID: topicID, format: format, difficulty: difficulty, wantTrue: format == .trueFalse ? wantTrue : nil, language: language)
                if case .valid(let question, _) = result, let earlier = PracticeRules.repeated(question.prompt, in: asked, language: language) {
                    return .invalid([
                        Refusal(
                            .stageRules,
                            "the question repeats one the learner has already answered ('\(earlier)'); ask about something else in this part of the lecture")
                    ])
                }
                return EngagementQuestionStage.notCopied(result, prompt: \.prompt, lecture: lecture)
            })
        // The key is checked by solving: a true/false statement as a question of two options.
        call.blindSolve = { (question: PracticeQuestion) in [BlindSolveItem(label: "the question", prompt: question.prompt, choices: question.options)] }
        return call
    }

    /// Parses and checks one practice question.
    static func check(
        _ text: String, id: String, topicID: String, format: PracticeQuestion.Format, difficulty: PracticeQuestion.Difficulty, wantTrue: Bool?,
        language: String
    ) -> AnswerCheck<PracticeQuestion> {
        switch format {
        case .multipleChoice:
            switch AnswerParsing.decode(ChoiceAnswer.self, from: text) {
            case .failure(let errors): return .invalid(errors)
            case .success(let a):
                let prompt = a.prompt.trimmed
                let built = MultipleChoice.options(prompt: prompt, correct: a.correct_answer, wrong: a.wrong_answers)
                let question = PracticeQuestion(
                    id: id, topicID: topicID, format: .multipleChoice, difficulty: difficulty, prompt: prompt, options: built.options,
                    explanation: a.explanation.trimmed)
                return .judged(question, by: PracticeRules.check(question, optionLabels: built.labels, language: language))
            }
        case .trueFalse:
            switch AnswerParsing.decode(TrueFalseAnswer.self, from: text) {
            case .failure(let errors): return .invalid(errors)
            case .success(let a):
                let options = [
                    Choice(text: PracticeRules.trueText, correct: a.is_true, feedback: a.feedback_if_true.trimmed),
                    Choice(text: PracticeRules.falseText, correct: !a.is_true, feedback: a.feedback_if_false.trimmed),
                ]
                let question = PracticeQuestion(
                    id: id, topicID: topicID, format: .trueFalse, difficulty: difficulty, prompt: a.statement.trimmed, options: options,
                    explanation: a.explanation.trimmed)
                var issues = PracticeRules.check(question, language: language)
                if let wantTrue, wantTrue != a.is_true {
                    issues.append(
                        .error(
                            wantTrue
                                ? "a TRUE statement was asked for, and \"is_true\" is false; write a statement the lecture supports"
                                : "a FALSE statement was asked for, and \"is_true\" is true; write a plausible misconception and set \"is_true\" to false", check: .stageRules))
                }
                return .judged(question, by: issues)
            }
        }
    }

    /// The part of the lecture question `number` is about: of the lecture's `##` sections (recaps
    /// and sections under 15 significant words only when nothing else is left), the one sharing
    /// the fewest significant words with the questions the topic already has, the turn of the
    /// set (`number`) breaking ties, so a set covers the lecture instead of its first idea ten
    /// times. The questions themselves are not shown: shown a question, the 1.5B model wrote it
    /// again in every attempt.
    static func focus(lecture: String, number: Int, asked: [String], limit: Int = 3_000) -> String {
        let sections = LectureRules.sections(lecture)
        guard sections.count > 1 else { return EngagementQuestionStage.excerpt(lecture, limit: limit) }
        let substantial = sections.filter { !LectureRules.isRecap($0) && TextKey.significantWords($0).count >= 15 }
        let pool = substantial.isEmpty ? sections : substantial
        let askedWords = Set(asked.flatMap { TextKey.significantWords($0) })
        let start = (number - 1) % pool.count
        let order = (0..<pool.count).map { (start + $0) % pool.count }
        let overlap = pool.map { Set(TextKey.significantWords($0)).intersection(askedWords).count }
        let best = order.min { overlap[$0] < overlap[$1] } ?? start
        return EngagementQuestionStage.excerpt(pool[best], limit: limit)
    }
}
