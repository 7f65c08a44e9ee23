import Foundation
import LecternMarkdown
import Synchronization

/// Checks on ending projects.
public enum ProjectRules {
    /// The points a project's rubric adds up to unless the spec says otherwise.
    public static let rubricTotal = 100

    /// Media a text course's learner cannot hand in through it: a deliverable naming one is out of
    /// the course's reach unless the spec allows media.
    nonisolated(unsafe) static let mediaDeliverable =
        /(?i)\b(video|videos|vlog|screencast|film|movie|audio|podcast|voice recording|recording of|record yourself|slide ?deck|slides|powerpoint|poster|physical model|diorama)\b/

    /// A rubric whose positive points do not add up to `total`, scaled so that they do, keeping
    /// their proportions (largest remainders, ties to the earlier criterion): 3 + 3 + 3 + 3 becomes
    /// 25 each, 20 + 30 + 25 + 30 becomes 19 + 29 + 24 + 28. The weights are the model's; the total
    /// is the course's. A rubric with a criterion of 0 points or fewer is left as it is (the check
    /// refuses it).
    public static func scaled(_ rubric: [RubricCriterion], to total: Int = ProjectRules.rubricTotal) -> [RubricCriterion] {
        let sum = rubric.reduce(0) { $0 + $1.points }
        guard !rubric.isEmpty, sum > 0, sum != total, rubric.allSatisfy({ $0.points > 0 }) else { return rubric }
        let exact = rubric.map { Double($0.points) * Double(total) / Double(sum) }
        var points = exact.map { Int($0.rounded(.down)) }
        let order = exact.indices.sorted { (exact[$0] - Double(points[$0]), -$0) > (exact[$1] - Double(points[$1]), -$1) }
        for index in order.prefix(total - points.reduce(0, +)) { points[index] += 1 }
        var out = rubric
        for index in out.indices { out[index].points = points[index] }
        return out
    }

    /// Checks a subject's project: its subject, lengths, requirements, deliverables and rubric.
    /// The rubric's points must add up to `rubricTotal`; a deliverable in another medium than text
    /// and code (a video, slides, a poster) is refused unless `allowsMedia`.
    public static func check(
        _ project: EndingProject, expectedSubjectID: String, rubricTotal: Int = ProjectRules.rubricTotal, allowsMedia: Bool = false
    ) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        if project.subjectID != expectedSubjectID {
            issues.append(.error("the project must be for subject \(expectedSubjectID), but it names \(project.subjectID)", check: .stageRules))
        }
        issues += QuestionRules.checkLength("title", project.title, 3...200)
        issues += QuestionRules.checkLength("brief", project.brief, 40...3_000)
        if project.requirements.count < 3 { issues.append(.error("a project needs at least 3 requirements; it has \(project.requirements.count)", check: .stageRules)) }
        if project.deliverables.isEmpty { issues.append(.error("a project needs at least one deliverable", check: .projectScope)) }
        if project.rubric.count < 3 { issues.append(.error("the rubric needs at least 3 criteria; it has \(project.rubric.count)", check: .projectScope)) }
        for criterion in project.rubric where criterion.points <= 0 {
            issues.append(.error("the rubric criterion '\(criterion.criterion)' must be worth more than 0 points", check: .projectScope))
        }
        let sum = project.rubric.reduce(0) { $0 + $1.points }
        if !project.rubric.isEmpty && sum != rubricTotal {
            issues.append(
                .error(
                    "the rubric's points add up to \(sum) (\(project.rubric.map { String($0.points) }.joined(separator: " + "))), not \(rubricTotal); give the criteria points that add up to \(rubricTotal)",
                    check: .projectScope))
        }
        if !allowsMedia {
            for (index, deliverable) in project.deliverables.enumerated() {
                if let match = deliverable.firstMatch(of: mediaDeliverable) {
                    issues.append(
                        .error(
                            "deliverables[\(index + 1)] asks for \(String(match.output.0).lowercased()) ('\(deliverable.prefix(120))'); this is a text course: a deliverable is a document, code or a table the learner writes",
                            check: .projectScope))
                }
            }
        }
        return issues
    }
}

extension ProjectRules {
    /// A topic of a later subject, which a project may not require.
    public struct LaterTopic: Sendable, Hashable {
        public var subjectID: String
        public var title: String

        public init(subjectID: String, title: String) {
            self.subjectID = subjectID
            self.title = title
        }
    }

    /// The terms of the course's domains (`programmingTerms` when its lectures hold code,
    /// `mathematicsTerms` when they hold math) that `taught` never mentions: what a project may
    /// not require, and what its prompt says it may not. English only (empty otherwise).
    public static func untaughtTerms(taught: String, lectures: [String], language: String = "en") -> [String] {
        guard LanguageProfile.isEnglish(language) else { return [] }
        let code = lectures.contains { !MarkdownLayout($0).codeBlocks.isEmpty }
        // A lecture on probability or statistics written without TeX is mathematical too.
        let math = lectures.contains { $0.contains("$") || $0.contains("\\(") || mathematicalCues.contains(where: $0.lowercased().contains) }
        let words = TermWords(taught)
        return ((code ? programmingTerms : []) + (math ? mathematicsTerms : [])).filter { !(words.mayMention($0) && mentions(taught, $0)) }
    }

    /// The words of a text (runs of ASCII letters and digits, lowercased), so that `mentions` runs
    /// its pattern over a long text only for a term whose words the text holds: a subject's
    /// lectures were scanned once per term of a domain, for every project and question asked on
    /// them. Knows nothing (every term may be mentioned) when the text holds a letter or digit
    /// outside ASCII, which a case-insensitive pattern might read as an ASCII one (the Kelvin
    /// sign as "k").
    struct TermWords {
        let words: Set<Substring>?

        init(_ text: String) {
            var words = Set<Substring>()
            var outsideASCII = false
            let lower = String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
            var start: String.Index?
            for index in lower.utf8.indices {
                let byte = lower.utf8[index]
                let alphanumeric = (0x30...0x39).contains(byte) || (0x61...0x7A).contains(byte)
                if alphanumeric {
                    if start == nil { start = index }
                    continue
                }
                if let from = start { words.insert(lower[from..<index]) }
                start = nil
                if byte >= 0x80 { outsideASCII = true }
            }
            if let from = start { words.insert(lower[from...]) }
            if outsideASCII, lower.unicodeScalars.contains(where: { !$0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil) }) {
                self.words = nil
            } else {
                self.words = words
            }
        }

        /// False when `mentions(text, term)` is surely false: a word of the term (its last in
        /// any of the pattern's plural forms) is not a word of the text.
        func mayMention(_ term: String) -> Bool {
            guard let words else { return true }
            let shape = TermShape.known[term] ?? TermShape(term)
            guard shape.checkable else { return true }
            for run in shape.leadingWords where !words.contains(run) { return false }
            return shape.lastWordForms.contains { words.contains($0) } || shape.endsInSign
        }
    }

    /// What `TermWords.mayMention` reads of a term, worked out once per term of the domains (it
    /// was worked out again for every term, for every question field checked against a lecture).
    struct TermShape: Sendable {
        /// Its lowercased words but the last.
        let leadingWords: [Substring]
        /// Its last word in the singular and the plural.
        let lastWordForms: [Substring]
        /// A term ending in a sign ("c++") takes its plural as a word of its own.
        let endsInSign: Bool
        /// ASCII with at least one word: otherwise anything may mention it.
        let checkable: Bool

        init(_ term: String) {
            let runs = term.lowercased().split(whereSeparator: { !($0.isASCII && ($0.isLetter || $0.isNumber)) })
            checkable = !runs.isEmpty && term.unicodeScalars.allSatisfy(\.isASCII)
            leadingWords = Array(runs.dropLast())
            lastWordForms = runs.last.map { ProjectRules.forms(of: String($0)).map { Substring($0) } } ?? []
            endsInSign = term.last.map { !($0.isLetter || $0.isNumber) } ?? false
        }

        static let known: [String: TermShape] = Dictionary(
            (programmingTerms + mathematicsTerms).map { ($0, TermShape($0)) }, uniquingKeysWith: { first, _ in first })
    }

    /// Whether `text` mentions `term`, in the singular or the plural, as whole words.
    static func mentions(_ text: String, _ term: String) -> Bool {
        // Case-insensitive matching rather than a lowercased copy: `text` is a subject's lectures,
        // read once per term.
        guard let pattern = termPattern(term) else { return false }
        return pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    /// A term in the singular and its plurals, lowercased; `mentions` and `TermWords` read the same
    /// forms. "array" → "arrays", "dictionary" → "dictionaries", "matrix" → "matrices" and
    /// "matrixes", "index" → "indices" and "indexes", "box" → "boxes", "class" → "classes".
    static func forms(of term: String) -> [String] {
        let word = term.lowercased()
        if word.hasSuffix("y") { return [word, word + "s", word.dropLast() + "ies"] }
        if word.hasSuffix("ix") { return [word, word + "es", word.dropLast() + "ces"] }
        if word.hasSuffix("ex") { return [word, word + "es", word.dropLast(2) + "ices"] }
        if word.hasSuffix("x") { return [word, word + "es"] }
        return [word, word + "s", word + "es"]
    }

    /// The pattern of `mentions`, compiled once per term (`String.range(of:options:)` compiled
    /// it again on every call: a tenth of a replay's CPU went to ICU's regex compiler).
    static func termPattern(_ term: String) -> NSRegularExpression? {
        if let known = termPatterns.withLock({ $0[term] }) { return known }
        let alternatives = forms(of: term).map(NSRegularExpression.escapedPattern(for:)).joined(separator: "|")
        guard let pattern = try? NSRegularExpression(pattern: "(?<![\\p{L}\\p{N}])(?:" + alternatives + ")(?![\\p{L}\\p{N}])", options: [.caseInsensitive]) else {
            return nil
        }
        termPatterns.withLock { $0[term] = pattern }
        return pattern
    }

    static let termPatterns = Mutex<[String: NSRegularExpression]>([:])

    /// A project's requirements and deliverables, each with its field name for a message.
    static func requirementTexts(_ project: EndingProject) -> [(field: String, text: String)] {
        project.requirements.enumerated().map { ("requirements[\($0.offset + 1)]", $0.element) }
            + project.deliverables.enumerated().map { ("deliverables[\($0.offset + 1)]", $0.element) }
    }

    /// Requirements and deliverables that need what a later subject teaches: all the significant
    /// words of a later topic's title ("Conditional probability", "Loops") are in the requirement,
    /// and not all of them are in `taught` (this subject's topics, objectives and lectures). A
    /// title every word of which this subject also teaches is not held against it.
    public static func laterTopicIssues(_ project: EndingProject, taught: String, later: [LaterTopic], language: String = "en") -> [ValidationIssue] {
        func stem(_ word: String) -> String {
            word.count > 4 && word.hasSuffix("ies") ? String(word.dropLast(3)) + "y" : NearDuplicate.Lexicon.stem(word)
        }
        func stems(_ text: String) -> Set<String> { Set(TextKey.significantWords(text, language: language).map(stem)) }
        let known = stems(taught)
        let needed = later.compactMap { topic -> (LaterTopic, Set<String>)? in
            let words = stems(topic.title)
            return words.isEmpty || words.isSubset(of: known) ? nil : (topic, words)
        }
        guard !needed.isEmpty else { return [] }
        var issues: [ValidationIssue] = []
        for (field, text) in requirementTexts(project) {
            let words = stems(text)
            if let (topic, _) = needed.first(where: { $0.1.isSubset(of: words) }) {
                issues.append(
                    .error(
                        "\(field) ('\(text.prefix(120))') needs '\(topic.title)', which subject \(topic.subjectID) teaches after this one; require only what this subject's topics teach",
                        check: .projectScope))
            }
        }
        return issues
    }
}

extension ProjectRules {
    /// Technical terms a project may require only when the course has taught them, by domain: a
    /// programming course's (its lectures hold code) and a mathematical one's (they hold TeX).
    /// Only words that are technical wherever they appear in such a course: "list", "module",
    /// "exception" ("with the exception of") or "combination" are everyday words too, and are
    /// left out.
    public static let programmingTerms = [
        "function", "loop", "recursion", "class", "object-oriented", "inheritance", "try/except",
        "dictionary", "tuple", "lambda", "API", "database", "SQL", "array", "file I/O", "GUI", "graphical user interface", "web server",
        "pandas", "NumPy", "DataFrame", "CSV", "JSON", "matplotlib", "regular expression", "decorator", "exception handling",
    ]
    public static let mathematicsTerms = [
        "derivative", "integral", "matrix", "eigenvalue", "variance", "standard deviation", "expected value", "binomial distribution",
        "normal distribution", "Poisson", "regression", "correlation", "hypothesis test", "p-value", "confidence interval", "Bayes",
        "permutation", "factorial", "logarithm", "geometric distribution", "exponential distribution", "uniform distribution",
        "probability density", "density function", "Markov", "stationary distribution", "covariance", "central limit theorem",
        "law of large numbers", "chi-square", "moment generating function",
    ]

    /// Words that make a lecture without TeX a mathematical one (`untaughtTerms`).
    static let mathematicalCues = ["probability", "probabilities", "statistics", "theorem", "equation"]

    /// Requirements and deliverables naming a technical term (`programmingTerms` in a course whose
    /// lectures hold code, `mathematicsTerms` in one whose lectures hold math) that `taught` (the
    /// course's topics up to this subject and this subject's lectures) never mentions, in the
    /// singular or the plural: the local model's first project required "Organising code into
    /// functions" in a course that teaches values, variables and `if`. English only.
    public static func untaughtTermIssues(_ project: EndingProject, taught: String, lectures: [String], language: String = "en") -> [ValidationIssue] {
        CheckMemo.verdict("ProjectRules.untaughtTermIssues", [CheckMemo.text(project), taught, language] + lectures) {
            computedUntaughtTermIssues(project, taught: taught, lectures: lectures, language: language)
        }
    }

    static func computedUntaughtTermIssues(_ project: EndingProject, taught: String, lectures: [String], language: String) -> [ValidationIssue] {
        let untaught = untaughtTerms(taught: taught, lectures: lectures, language: language)
        guard !untaught.isEmpty else { return [] }
        var issues: [ValidationIssue] = []
        for (field, text) in requirementTexts(project) {
            let words = TermWords(text)
            if let term = untaught.first(where: { words.mayMention($0) && mentions(text, $0) }) {
                issues.append(
                    .error(
                        "\(field) ('\(text.prefix(120))') needs '\(term)', which the course does not teach up to this subject; require only what its topics teach", check: .projectScope))
            }
        }
        return issues
    }
}
