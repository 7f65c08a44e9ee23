import Foundation

/// A multiple-choice question of a bank as a blind solver sees it (`lectern check --model`): the
/// id `lectern check` reports it under, and its stem and options without the key.
public struct BankQuestion: Sendable, Hashable {
    public var id: String
    public var solve: BlindSolveItem
    /// The question as the rubric judge reads it (`lectern check --model … --rubric`): JSON of its
    /// prompt, key and wrong answers with their feedback, and explanation, as a stage ships one.
    public var judged: String
    /// The prompt values the judge reads its context from: `topic_title`, `topic_objective`, `passage`.
    public var context: [String: String]

    public init(id: String, solve: BlindSolveItem, judged: String = "{}", context: [String: String] = [:]) {
        self.id = id
        self.solve = solve
        self.judged = judged
        self.context = context
    }

    /// `judged` for a question: prompt, correct_answer and wrong_answers (text and feedback), explanation.
    static func judged(prompt: String, choices: [Choice], explanation: String?) -> String {
        var object: [String: Any] = ["prompt": prompt]
        // A bank without feedback (JSON Lines) gives the judge no empty feedback fields to read.
        func option(_ choice: Choice) -> [String: String] { choice.feedback.isEmpty ? ["text": choice.text] : ["text": choice.text, "feedback": choice.feedback] }
        if let key = choices.first(where: \.correct) { object["correct_answer"] = option(key) }
        object["wrong_answers"] = choices.filter { !$0.correct }.map(option)
        if let explanation, !explanation.isEmpty { object["explanation"] = explanation }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

extension BankLint {
    /// The multiple-choice questions of the bank in `data` (read as `check(data:)` reads it), in
    /// the bank's order, each with its reading passage when it has one. A question without exactly
    /// one correct option, or with fewer than two options, is left out: a solver's answer says
    /// nothing of its key, and `check` flags it already. Quote databases and decks hold none.
    public static func multipleChoiceQuestions(data: Data, file: String) throws(BankReadError) -> (format: BankFormat, questions: [BankQuestion]) {
        func question(
            _ id: String, _ prompt: String, _ choices: [Choice]?, context: String? = nil, explanation: String? = nil, topic: (String, String)? = nil
        ) -> BankQuestion? {
            guard let choices, choices.count >= 2, choices.count(where: \.correct) == 1 else { return nil }
            var values: [String: String] = [:]
            if let context { values["passage"] = context }
            if let topic { (values["topic_title"], values["topic_objective"]) = topic }
            return BankQuestion(
                id: id, solve: BlindSolveItem(label: "the question", prompt: prompt, choices: choices, context: context),
                judged: BankQuestion.judged(prompt: prompt, choices: choices, explanation: explanation), context: values)
        }
        switch try read(data: data, file: file) {
        case .lines(let items):
            let questions = items.compactMap { item in
                question(
                    item.id, item.question,
                    item.options.enumerated().map { Choice(text: $0.element, correct: $0.offset == item.answer, feedback: "") })
            }
            return (.jsonLines, questions)
        case .exam(let exam):
            let passages = Dictionary((exam.passages ?? []).compactMap { p in p.text.map { (p.id, $0) } }, uniquingKeysWith: { first, _ in first })
            let questions = exam.items.compactMap { item in
                question(
                    item.id, item.prompt, item.options.map { Choice(text: $0.text, correct: $0.correct, feedback: $0.feedback ?? "") },
                    context: item.passage.flatMap { passages[$0] }, explanation: item.explanation)
            }
            return (.exam, questions)
        case .course(let course):
            var questions: [BankQuestion] = []
            for topic in course.subjects.flatMap(\.topics) {
                let about = (topic.title, topic.objective)
                for (id, asked) in [(CourseItems.engagementQuestion(topic.id), topic.engagementQuestion), (CourseItems.bonusQuestion(topic.id), topic.bonusQuestion)] {
                    if let asked, let found = question(id.rawValue, asked.prompt, asked.options, explanation: asked.explanation, topic: about) {
                        questions.append(found)
                    }
                }
                for (index, practice) in (topic.practice ?? []).enumerated() where practice.format == .multipleChoice {
                    if let found = question(
                        CourseItems.practice(topic.id, number: index + 1).rawValue, practice.prompt, practice.options, explanation: practice.explanation, topic: about)
                    {
                        questions.append(found)
                    }
                }
                for level in (topic.reinforcement ?? []).sorted(by: { $0.level < $1.level }) {
                    if let found = question(
                        CourseItems.reinforcement(topic.id, level: level.level).rawValue, level.prompt, level.options, explanation: level.explanation, topic: about)
                    {
                        questions.append(found)
                    }
                }
            }
            return (.course, questions)
        case .quotes: return (.quotes, [])
        case .deck: return (.deck, [])
        }
    }
}
