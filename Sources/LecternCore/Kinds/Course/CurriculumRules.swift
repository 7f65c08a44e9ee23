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

    /// What the course's description promises that no subject, topic or objective of `outline`
    /// covers, as warnings: python-basics' description promises "repeating work, and organising
    /// code into functions" over two subjects that teach neither. A promise is a clause of a
    /// list after a colon ("…: values and variables, making decisions, repeating work") none of
    /// whose significant words the curriculum holds (in any form: "decisions", "Making
    /// Decisions"), or a technical term of the course's domains (`ProjectRules`: function, loop,
    /// Bayes …) that it never names. A flag, not a refusal: the author may mean the description
    /// loosely; a reader of it expects what it names.
    public static func droppedPromises(description: String, outline: Outline, language: String = "en") -> [ValidationIssue] {
        let taught = ([outline.title] + outline.subjects.flatMap { [$0.title] + $0.topics.flatMap { [$0.title, $0.objective ?? ""] } })
            .joined(separator: "\n")
        func stems(_ text: String) -> Set<String> { Set(TextKey.significantWords(text, language: language).map(NearDuplicate.stem)) }
        let taughtStems = stems(taught)
        var dropped: [String] = []
        for clause in promisedClauses(description) {
            let words = stems(clause)
            if !words.isEmpty, words.isDisjoint(with: taughtStems) { dropped.append(clause) }
        }
        let words = ProjectRules.TermWords(taught)
        let descriptionWords = ProjectRules.TermWords(description)
        for term in ProjectRules.programmingTerms + ProjectRules.mathematicsTerms
        where descriptionWords.mayMention(term) && ProjectRules.mentions(description, term) && !(words.mayMention(term) && ProjectRules.mentions(taught, term))
            && !dropped.contains(where: { ProjectRules.mentions($0, term) })
        {
            dropped.append(term)
        }
        guard !dropped.isEmpty else { return [] }
        let named = dropped.map { "'\($0)'" }.joined(separator: ", ")
        return [
            .warning(
                "the description promises \(named), which no subject, topic or objective of the curriculum covers: teach \(dropped.count == 1 ? "it" : "them"), or say less in the description",
                kind: "the description promises what the curriculum does not cover", check: .stageRules)
        ]
    }

    /// The clauses of the lists a description gives after a colon, split at commas and
    /// semicolons ("…: lists and dictionaries, how to create them, and loop over them" → three),
    /// a leading "and"/"or" dropped. A sentence without a colon promises nothing listable.
    static func promisedClauses(_ description: String) -> [String] {
        var clauses: [String] = []
        for sentence in description.replacingOccurrences(of: "\n", with: " ").split(whereSeparator: { ".!?".contains($0) }) {
            guard let colon = sentence.lastIndex(of: ":") else { continue }
            for part in sentence[sentence.index(after: colon)...].split(whereSeparator: { $0 == "," || $0 == ";" }) {
                var clause = part.trimmingCharacters(in: .whitespaces)
                for lead in ["and ", "or "] where clause.lowercased().hasPrefix(lead) { clause = String(clause.dropFirst(lead.count)) }
                if !clause.isEmpty { clauses.append(clause) }
            }
        }
        return clauses
    }
}
