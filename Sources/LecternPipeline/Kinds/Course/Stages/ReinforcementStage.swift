import Foundation
import LecternCore
import LecternLLM
import LecternMarkdown

/// A topic's reinforcement pool (FR-009): one question per level 1–4 with the level's
/// attributes (difficulty, frequency range, format, occurrence 7). Each level is its own model
/// call (`reinforcement/<topic>/level-N`): asked for the four questions in one answer, the 1.5B
/// local model repeated options across and within questions on most topics, while one question
/// at a time it writes them as reliably as the engagement question. The four calls share the
/// prompt up to the level line, so a server with prompt caching reads the lecture once.
public struct ReinforcementStage: Sendable {
    public static let name = CourseStages.reinforcement
    public static let occurrence = 7
    public static let levels = 1...4

    /// One question as the model writes it.
    struct Answer: Decodable {
        var topic_id: String
        var prompt: String
        var correct_answer: MultipleChoice.AnswerText?
        var wrong_answers: [MultipleChoice.AnswerText]?
        var reference_answer: String?
        var explanation: String
    }

    /// FR-009's formats: levels 1–2 are multiple choice (level 2 also has a reference answer, so
    /// the optional quiz can show it as free text); levels 3–4 are free text with a reference
    /// answer.
    static func schema(level: Int) -> ResponseSchema {
        var properties: [String: JSONValue] = ["topic_id": SchemaParts.string, "prompt": SchemaParts.string, "explanation": SchemaParts.string]
        var required = ["topic_id", "prompt"]
        if level <= 2 {
            properties.merge(MultipleChoice.properties) { a, _ in a }
            required += MultipleChoice.required
        }
        if level >= 2 {
            properties["reference_answer"] = SchemaParts.string
            required.append("reference_answer")
        }
        return ResponseSchema(name: "reinforcement_question_level_\(level)", schema: SchemaParts.object(properties, required: required + ["explanation"]))
    }

    /// Levels 3 and 4 are free text, and the local model wrote their prompts as stories with no
    /// question in them ("Imagine you're building a toy car … This is like giving your program
    /// different values to make it do different things."), refused 4 times of 4 at level 4 of
    /// "Understanding Values": the prompt now says where the question goes.
    static let asks = "End the prompt with what the learner is to answer: a question ending with '?', or an instruction such as 'Explain …' or 'Describe …'; a story alone asks nothing."

    static func instruction(level: Int) -> String {
        switch level {
        // Told only "recall" and "a simple problem", the local model wrote "What is a value in
        // programming?" at both levels (20 attempts of level 2 refused as repeating level 1) and,
        // at level 1, options that were one lecture sentence each with a shared tail (28 attempts).
        case 1: return "basic recall of one fact or definition from the lecture, as a multiple-choice question whose options are short (a few words each)."
        case 2:
            return
                "a simple problem the learner solves with what the lecture teaches: show one concrete case (a short piece of code, numbers or an everyday situation) and ask what happens or what the result is — not what a term means — as a multiple-choice question, with a reference answer too so it can also be shown as free text."
        case 3: return "advanced problem solving: a free-text question the learner answers in a few sentences, with a reference answer. " + asks
        default: return "the learner explains the idea in their own words or applies it to a realistic situation: a free-text question with a reference answer. " + asks
        }
    }

    /// A level's instruction when the excerpt has a sentence to ask about: told "one fact or
    /// definition", the local model asked the engagement question again ("What is a value in
    /// programming?") in 18 attempts of 18 at level 1, whatever the list of questions already
    /// asked said, and at levels 2 and 3 "What is a variable in programming?" again.
    static func instruction(level: Int, about sentence: String) -> String {
        let quoted = "\"\(sentence)\""
        switch level {
        case 1:
            return "basic recall of one fact the lecture states, as a multiple-choice question whose options are short (a few words each). "
                + "Ask, in your own words, about what this sentence of the lecture says (its answer is in it), not what the topic or a term means: \(quoted)"
        case 2:
            return "a simple problem the learner solves with what this sentence of the lecture teaches: \(quoted). Show one concrete case (a short "
                + "piece of code, numbers or an everyday situation) and ask what happens or what the result is — not what a term means — as a "
                + "multiple-choice question, with a reference answer too so it can also be shown as free text."
        case 3:
            return "advanced problem solving with what this sentence of the lecture teaches: \(quoted). A free-text question the learner "
                + "answers in a few sentences, with a reference answer; not what the topic or a term means. " + asks
        default:
            return "the learner explains what this sentence of the lecture says in their own words, or applies it to a realistic situation: "
                + "\(quoted). A free-text question with a reference answer. " + asks
        }
    }

    /// The sentence of `excerpt` a pool question asks about: a statement of 8–40 words in its
    /// prose (not a heading, code, a question or a lead-in ending with a colon) that is about the
    /// topic (it names a significant word of `topic`, its title and objective, or holds code) and
    /// shares the fewest other significant words with the topic's questions so far (`asked`);
    /// among equals, the one naming the topic most, then the first; with the paragraph (the line)
    /// it is in. Nil when there is none.
    static func keySentence(in excerpt: String, topic: String, avoiding asked: [String]) -> (sentence: String, paragraph: String)? {
        func stems(_ text: String) -> Set<String> { Set(TextKey.significantWords(text).map(NearDuplicate.stem)) }
        let topicWords = stems(topic)
        let askedWords = Set(asked.flatMap(stems)).subtracting(topicWords)
        var best: (rank: (Int, Int), sentence: String, paragraph: String)?
        for line in MarkdownLayout(excerpt).prose().split(separator: "\n") {
            var text = line.trimmedSpaces
            if text.hasPrefix("#") || text.hasPrefix(">") || text.hasPrefix("|") { continue }
            if let bullet = text.firstMatch(of: Self.listBullet) { text = String(text[bullet.range.upperBound...]) }
            for match in ProseScan.sentences(text) {
                let sentence = String(match).trimmedSpaces
                guard sentence.hasSuffix(".") || sentence.hasSuffix("!"), !sentence.hasSuffix("..."),
                    (8...40).contains(sentence.split(whereSeparator: \.isWhitespace).count)
                else { continue }
                let words = stems(sentence)
                let topical = words.intersection(topicWords).count + (sentence.contains("`") ? 1 : 0)
                guard topical > 0 else { continue }
                let rank = (words.intersection(askedWords).count, -topical)
                if best == nil || rank < best!.rank { best = (rank, sentence, line.trimmedSpaces) }
            }
        }
        return best.map { ($0.sentence, $0.paragraph) }
    }

    /// A list item's bullet or number, and a sentence with its end marks (compiled once).
    nonisolated(unsafe) static let listBullet = /^([-*+]|\d+[.)])\s+/

    static let multipleChoiceNote = "\n" + MultipleChoice.instruction + "\n"

    public let job: CourseJobContext
    public init(job: CourseJobContext) { self.job = job }

    /// One level's call. `earlier` are the topic's questions already written (its engagement and
    /// bonus questions, the lower levels), by item id: a question asking what one of them asks
    /// (`NearDuplicate`) is refused, so a pool never repeats the question the learner just answered.
    public func call(
        itemID: String, place: TopicPlace, outline: Outline, lecture: String, level: Int, earlier: [(id: String, prompt: String)] = []
    ) throws -> ModelCall<ReinforcementQuestion> {
        var variables = place.variables(job, outline: outline)
        let attributes = ReinforcementQuestion.attributes(level: level)
        // The part of the lecture the topic's questions so far touch least: told only what was
        // asked, the local model copied the bonus question at levels 3–4 about half the time.
        variables["lecture_excerpt"] = EngagementQuestionStage.focus(lecture: lecture, avoiding: earlier.map(\.prompt), limit: 4_000)
        variables["level"] = String(level)
        variables["level_name"] = attributes.difficulty
        variables["level_instruction"] = Self.instruction(level: level)
        variables["format_note"] = level <= 2 ? Self.multipleChoiceNote : ""
        variables["asked"] = Self.askedNote(earlier.map(\.prompt))
        // Each level is given one sentence to ask about, and only its paragraph: shown the section
        // and the questions already asked, the local model wrote the engagement question again, or
        // it with a question of the bonus's after it, in every attempt of level 1 and most of levels
        // 2 and 3. Each level's sentence shares the least with the questions below it, so the
        // levels ask about different parts of the lecture. The repeat check still holds.
        if let key = Self.keySentence(
            in: variables["lecture_excerpt"] ?? "", topic: (variables["topic_title"] ?? "") + " " + (variables["topic_objective"] ?? ""),
            avoiding: earlier.map(\.prompt))
        {
            variables["level_instruction"] = Self.instruction(level: level, about: key.sentence)
            variables["lecture_excerpt"] = key.paragraph
            variables["asked"] = ""
        }
        let schema = Self.schema(level: level)
        variables["schema"] = AnswerParsing.schemaText(schema)
        let topicID = place.topicID
        var call = ModelCall(
            itemID: itemID, stage: Self.name, template: try PromptLibrary.template("course/reinforcement"), variables: variables, schema: schema,
            check: { text in
                let result = Self.check(text, topicID: topicID, level: level)
                guard case .valid(let question, _) = result else { return result }
                let repeated = Self.repeated(question.prompt, earlier: earlier)
                guard !repeated.isEmpty else { return EngagementQuestionStage.notCopied(result, prompt: \.prompt, lecture: lecture) }
                return .invalid(repeated)
            })
        call.blindSolve = { question in
            question.options.map { [BlindSolveItem(label: "the level-\(level) question", prompt: question.prompt, choices: $0)] } ?? []
        }
        return call
    }

    /// The topic's questions so far, for the prompt: a small model told only "not the same"
    /// wrote the engagement question again at level 1 in 16 attempts of 16.
    static func askedNote(_ prompts: [String]) -> String {
        guard !prompts.isEmpty else { return "" }
        return "Learners have already answered these questions on this topic; ask about another fact, step or idea of the lecture:\n"
            + prompts.map { "- " + $0.replacingOccurrences(of: "\n", with: " ").prefix(300) }.joined(separator: "\n") + "\n"
    }

    /// Why `prompt` repeats one of `earlier`: what it repeats, and what to do instead. A
    /// question holding an earlier one whole repeats it too: the local model's level-1 question
    /// was the engagement question ("What is a value in programming?") with three sentences after it.
    static func repeated(_ prompt: String, earlier: [(id: String, prompt: String)]) -> [Refusal] {
        CheckMemo.verdict("ReinforcementStage.repeated", [prompt] + earlier.flatMap { [$0.id, $0.prompt] }) { computedRepeated(prompt, earlier: earlier) }
    }

    static func computedRepeated(_ prompt: String, earlier: [(id: String, prompt: String)]) -> [Refusal] {
        // The new question read once, not once for each earlier one.
        let near = NearDuplicate.duplicates(of: QuestionRules.howForm(prompt), among: earlier.map { QuestionRules.howForm($0.prompt) })
        return zip(earlier, near).filter { question, near in
            near || QuestionRules.holdsTheOther(prompt, question.prompt) || QuestionRules.asksTheSameCode(prompt, question.prompt)
        }.map(\.0).map {
            Refusal(.distinctQuestions, "the question asks what \($0.id) already asks ('\($0.prompt)'); ask about another fact, step or idea of the lecture")
        }
    }

    /// Parses and checks one level's question.
    static func check(_ text: String, topicID: String, level: Int) -> AnswerCheck<ReinforcementQuestion> {
        switch AnswerParsing.decode(Answer.self, from: text) {
        case .failure(let errors): return .invalid(errors)
        case .success(let a):
            let attributes = ReinforcementQuestion.attributes(level: level)
            var options: [Choice]?
            var labels: [String]?
            var reference = a.reference_answer?.trimmed ?? ""
            if level <= 2, let correct = a.correct_answer, let wrong = a.wrong_answers {
                // Level 2 without a reference answer: its correct option is one.
                if reference.isEmpty { reference = correct.text.trimmed }
                let built = MultipleChoice.options(prompt: a.prompt.trimmed, correct: correct, wrong: wrong)
                options = built.options
                labels = built.labels
            }
            let question = ReinforcementQuestion(
                topicID: a.topic_id.trimmed, level: level, difficulty: attributes.difficulty, frequencyDays: attributes.frequency,
                occurrence: Self.occurrence, format: attributes.format, prompt: a.prompt.trimmed, options: options,
                referenceAnswer: level >= 2 && !reference.isEmpty ? reference : nil,
                explanation: a.explanation.trimmed, jeevaDifficulty: attributes.jeeva)
            let issues = ReinforcementRules.checkQuestion(question, expectedTopicID: topicID, optionLabels: labels)
            return .judged(question, by: issues)
        }
    }
}
