import Foundation

/// Checks on a generated or edited curriculum.
public enum CurriculumRules {
    public static func check(_ outline: Outline, subjects: SizeRange, topicsPerSubject: SizeRange) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        if outline.title.trimmingCharacters(in: .whitespaces).isEmpty { issues.append(.error("the curriculum has no title", check: .stageRules)) }
        if !(subjects.min...subjects.max).contains(outline.subjects.count) {
            issues.append(.error("the curriculum must have \(subjects) subjects; it has \(outline.subjects.count)", check: .stageRules))
        }
        var titles: [String: String] = [:]
        for (i, subject) in outline.subjects.enumerated() {
            if subject.title.trimmingCharacters(in: .whitespaces).isEmpty { issues.append(.error("subject \(i + 1) has no title", check: .stageRules)) }
            if !(topicsPerSubject.min...topicsPerSubject.max).contains(subject.topics.count) {
                issues.append(.error("subject \(i + 1) ('\(subject.title)') must have \(topicsPerSubject) topics; it has \(subject.topics.count)", check: .stageRules))
            }
            for topic in subject.topics {
                let key = TextKey.normalize(topic.title)
                if key.isEmpty {
                    issues.append(.error("a topic of subject \(i + 1) has no title", check: .stageRules))
                } else if let other = titles[key] {
                    issues.append(.error("the topic '\(topic.title)' appears twice (also under '\(other)'); every topic must be distinct", check: .stageRules))
                } else {
                    titles[key] = subject.title
                }
                if topic.title.count > 200 { issues.append(.error("the topic title '\(topic.title.prefix(40))…' is longer than 200 characters", check: .stageRules)) }
                let objective = topic.objective ?? ""
                if objective.trimmingCharacters(in: .whitespaces).count < 10 {
                    issues.append(.error("the topic '\(topic.title)' needs a one-line learning objective", check: .stageRules))
                } else if objective.contains("\n") || objective.count > 300 {
                    issues.append(.error("the objective of '\(topic.title)' must be one line of at most 300 characters", check: .stageRules))
                }
            }
        }
        return issues
    }
}
