import Foundation

/// A course spec of any size with a pinned outline and every add-on the course job has
/// (engagement and bonus questions, reinforcement pools, ending projects), for benchmarks and
/// reliability suites.
///
/// Topic titles are made-up words ("Zorvexquaic"), one per topic, so a lecture written for one
/// topic never passes the on-topic check of another: the mock's "lecture about another topic"
/// fault is then always caught.
public struct SyntheticCourse: Sendable, Hashable {
    /// The spec's id (the bundle's directory name).
    public var id: String
    /// Subjects in the outline.
    public var subjects: Int
    /// Topics in each subject.
    public var topicsPerSubject: Int
    /// The topic (0-based subject, topic) whose title is edited, if any.
    public var editedTopic: TopicPosition?

    /// A topic's place in the outline.
    public struct TopicPosition: Sendable, Hashable {
        /// 0-based subject index.
        public var subject: Int
        /// 0-based topic index within the subject.
        public var topic: Int
        /// A position.
        public init(subject: Int, topic: Int) {
            self.subject = subject
            self.topic = topic
        }
    }

    /// A course of `subjects` × `topicsPerSubject` topics.
    public init(id: String = "synthetic-course", subjects: Int, topicsPerSubject: Int, editedTopic: TopicPosition? = nil) {
        self.id = id
        self.subjects = max(1, subjects)
        self.topicsPerSubject = max(1, topicsPerSubject)
        self.editedTopic = editedTopic
    }

    /// The same course with one topic's title changed.
    public func editing(_ position: TopicPosition) -> SyntheticCourse {
        var copy = self
        copy.editedTopic = position
        return copy
    }

    /// Topics in the whole course.
    public var topics: Int { subjects * topicsPerSubject }

    /// Model calls of a clean run: the tone preview, ten per topic (lecture, engagement
    /// question, bonus question, the reinforcement pool's four levels, and the blind solves of the
    /// three multiple-choice questions among them) and one project per subject.
    public var modelCalls: Int { 1 + 10 * topics + subjects }

    /// The longest chain of calls that must follow one another: lecture → engagement question →
    /// bonus question (the outline is pinned, so no curriculum call precedes them).
    public static let criticalPathCalls = 3

    private static let syllables = ["zor", "vex", "qua", "jib", "kru", "plo", "yth", "wum", "fen", "dax", "gri", "lom", "nup", "sar", "tev", "bix"]

    /// The title of topic `topic` of subject `subject` (0-based).
    public func title(subject: Int, topic: Int) -> String {
        let k = subject * topicsPerSubject + topic
        let s = Self.syllables
        let word = s[k % 16] + s[(k / 16) % 16] + s[(k / 256) % 16] + (k >= 4096 ? String(k / 4096) : "") + "ic"
        var title = word.prefix(1).uppercased() + word.dropFirst()
        if editedTopic == TopicPosition(subject: subject, topic: topic) { title += " revisited" }
        return title
    }

    /// The job spec, with `model` as the flow mapping of its `model:` key, e.g.
    /// `{ provider: openai, base_url: http://127.0.0.1:8080/v1, name: mock, max_concurrency: 16 }`.
    public func yaml(model: String) -> String {
        var lines = [
            "kind: course",
            "id: \(id)",
            "version: 1.0.0",
            "description: A synthetic course of \(topics) topics for benchmarks and reliability tests.",
            "outline:",
            "  title: Synthetic course",
            "  subjects:",
        ]
        for s in 0..<subjects {
            lines.append("    - title: Unit \(s + 1)")
            lines.append("      topics:")
            for t in 0..<topicsPerSubject {
                let title = title(subject: s, topic: t)
                lines.append("        - { title: \(title), objective: Explain \(title) with one example. }")
            }
        }
        lines += [
            "tone: { presets: [eli5], text: friendly and concrete }",
            "addons: { engagement_questions: true, ending_projects: true, reinforcement: true }",
            "model: \(model)",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The `model:` mapping for the scripted provider reading `script`.
    public static func scriptedModel(script: String, concurrency: Int) -> String {
        "{ provider: scripted, script: \(script), max_concurrency: \(concurrency) }"
    }

    /// The `model:` mapping for an OpenAI-compatible server at `baseURL` (the server root).
    public static func openAIModel(baseURL: URL, concurrency: Int, keyVariable: String? = nil) -> String {
        let key = keyVariable.map { ", api_key_env: \($0)" } ?? ""
        return "{ provider: openai, base_url: \(baseURL.absoluteString)/v1, name: mock-model, max_concurrency: \(concurrency)\(key) }"
    }

    /// The `model:` mapping for an Anthropic server at `baseURL` (the server root); Anthropic
    /// always needs a key, read from `keyVariable`.
    public static func anthropicModel(baseURL: URL, concurrency: Int, keyVariable: String) -> String {
        "{ provider: anthropic, base_url: \(baseURL.absoluteString)/v1, name: mock-model, max_concurrency: \(concurrency), api_key_env: \(keyVariable) }"
    }
}
