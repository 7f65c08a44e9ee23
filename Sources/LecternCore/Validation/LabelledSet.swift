import Foundation
import LecternLLM

/// One item of a labelled set (Tests/LecternCoreTests/Fixtures/labelled/): a question as a bundle
/// holds it, and what a careful reader found in it — clean, or defective with its class, a reason
/// quoting the defect and where the item came from. The checks are measured against these labels
/// (recall per class, share of clean items refused), never the other way round.
public struct LabelledItem: Codable, Sendable, Hashable {
    /// An earlier question of the same topic that a `repeated-question` item asks again.
    public struct Earlier: Codable, Sendable, Hashable {
        public var kind: String
        public var prompt: String
        public var options: [Choice]?
        public var explanation: String?
    }

    public var id: String
    /// `engagement-question`, `bonus-question`, `reinforcement`, `practice` (course items) or
    /// `exam-item`.
    public var kind: String
    public var language: String
    public var topicID: String?
    /// The topic's title and the lecture it follows, for the classes that need them (off-topic).
    public var topic: String?
    public var lecture: String?
    public var level: Int?
    public var prompt: String
    public var options: [Choice]?
    public var referenceAnswer: String?
    public var explanation: String
    /// Exam items: the passage, the quote cited as the key's source and the category's format.
    public var passage: String?
    public var sourceQuote: String?
    public var format: String?
    public var repeats: Earlier?
    /// `clean` or `defective`.
    public var label: String
    /// One of the classes (`more-than-one-correct`, `broken-inline-math` …) or `clean`.
    public var defectClass: String
    public var reason: String
    public var source: String

    enum CodingKeys: String, CodingKey {
        case id, kind, language, topicID = "topic_id", topic, lecture, level, prompt, options, referenceAnswer = "reference_answer", explanation,
            passage, sourceQuote = "source_quote", format, repeats, label, defectClass = "class", reason, source
    }

    public var isDefective: Bool { label == "defective" }
}

/// Reads a labelled set and runs `lectern check` on each item the way a bank holds it.
public enum LabelledSet {
    /// The items of a JSON Lines labelled set, one a line.
    public static func read(_ data: Data) throws -> [LabelledItem] {
        let decoder = JSONDecoder()
        return try data.split(separator: UInt8(ascii: "\n")).filter { !$0.isEmpty }.map { try decoder.decode(LabelledItem.self, from: Data($0)) }
    }

    /// What `lectern check` (`BankLint`) says of `item` when it is the only question of a bank of
    /// its kind (a course.json with one topic, or an exam.json), after the question it repeats
    /// when it has one: each problem reported against the item itself, with its check.
    public static func checkRefusals(_ item: LabelledItem) -> [(check: QualityCheck, problem: String)] {
        guard let (document, id, file) = bank(for: item) else { return [] }
        let lecture: ((String) -> String?)? = item.lecture.map { text in { _ in text } }
        guard let data = try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys]),
            let report = try? BankLint.check(data: data, file: file, language: item.language, lecture: lecture)
        else { return [(.wellFormed, "the labelled item does not make a bank lectern check reads")] }
        return report.flagged.filter { $0.id == id }.flatMap { zip($0.checks, $0.problems).map { ($0, $1) } }
    }

    /// The bank holding `item`, the id `BankLint` gives the item there, and the file name that
    /// tells its format.
    static func bank(for item: LabelledItem) -> (document: [String: Any], id: String, file: String)? {
        func choices(_ options: [Choice]?) -> [[String: Any]]? {
            options.map { $0.map { ["text": $0.text, "correct": $0.correct, "feedback": $0.feedback] } }
        }
        if item.kind == "exam-item" {
            var entry: [String: Any] = [
                "id": item.id, "difficulty": "medium", "prompt": item.prompt, "options": choices(item.options) ?? [],
                "explanation": item.explanation, "sources": [["document": "source", "quote": item.sourceQuote ?? ""]],
                "section": "s", "category": "c",
            ]
            var document: [String: Any] = [
                "format_version": ExamBank.formatVersion, "language": item.language,
                "sections": [["id": "s", "title": "Section", "categories": [["id": "c", "title": "Category", "format": item.format ?? "standard"]]]],
            ]
            if let passage = item.passage {
                entry["passage"] = "p1"
                document["passages"] = [["id": "p1", "text": passage]]
            }
            document["items"] = [entry]
            return (document, item.id, "exam.json")
        }
        let topicID = item.topicID ?? "s01-t01"
        var topic: [String: Any] = ["id": topicID, "title": item.topic ?? "Topic", "objective": "After this topic you can answer its questions."]
        if item.lecture != nil {
            topic["lecture"] = ["topic_id": topicID, "path": "lectures/topic.md", "word_count": 100, "reading_minutes": 1]
        }
        func question(_ prompt: String, _ options: [Choice]?, _ reference: String?, _ explanation: String) -> [String: Any] {
            var question: [String: Any] = [
                "topic_id": topicID, "format": options == nil ? "free_text" : "multiple_choice", "prompt": prompt, "explanation": explanation,
            ]
            if let options = choices(options) { question["options"] = options }
            if let reference { question["reference_answer"] = reference }
            return question
        }
        // The question asked again sits before the item, in its own slot of the topic.
        if let earlier = item.repeats {
            let slot = earlier.kind == "bonus-question" ? "bonus_question" : "engagement_question"
            topic[slot] = question(earlier.prompt, earlier.options, nil, earlier.explanation ?? "")
        }
        let id: String
        switch item.kind {
        case "engagement-question", "bonus-question":
            topic[item.kind == "bonus-question" ? "bonus_question" : "engagement_question"] = question(
                item.prompt, item.options, item.referenceAnswer, item.explanation)
            id = "\(item.kind)/\(topicID)"
        case "reinforcement":
            let level = item.level ?? (item.options == nil ? 3 : 1)
            let attributes = ReinforcementQuestion.attributes(level: level)
            var entry = question(item.prompt, item.options, item.referenceAnswer, item.explanation)
            entry["level"] = level
            entry["difficulty"] = attributes.difficulty
            entry["frequency_days"] = ["min": attributes.frequency.min, "max": attributes.frequency.max]
            entry["occurrence"] = 1
            entry["jeeva_difficulty"] = attributes.jeeva
            topic["reinforcement"] = [entry]
            id = "reinforcement/\(topicID)/level-\(level)"
        case "practice":
            topic["practice"] = [
                [
                    "id": "q-01", "topic_id": topicID, "format": "multiple_choice", "difficulty": "medium", "prompt": item.prompt,
                    "options": choices(item.options) ?? [], "explanation": item.explanation,
                ]
            ]
            id = "practice/\(topicID)/q-01"
        default:
            return nil
        }
        let document: [String: Any] = [
            "format_version": Course.formatVersion, "id": "labelled", "version": "1.0.0", "language": item.language, "title": "Labelled item",
            "description": "", "audience": "", "tone": ["presets": [String](), "instruction": ""],
            "subjects": [["id": "s01", "title": "Subject", "topics": [topic]]],
        ]
        return (document, id, "course.json")
    }
}
