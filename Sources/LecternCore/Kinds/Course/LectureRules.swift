import Foundation
import LecternMarkdown

/// Checks on lecture Markdown.
public enum LectureRules {
    public static let wordRange = 120...6_000

    /// Removes a fence that wraps the whole answer (small models write ```markdown … ```).
    public static func unwrapFence(_ text: String) -> String {
        let trimmed = text.trimmed
        guard trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") else { return text }
        var lines = trimmed.components(separatedBy: "\n")
        guard lines.count >= 2 else { return text }
        let opener = lines[0].trimmedSpaces
        let info = opener.dropFirst(3).trimmedSpaces.lowercased()
        guard ["", "markdown", "md", "mdx"].contains(info) else { return text }
        let fence = String(opener.prefix(3))
        guard lines.last?.trimmedSpaces == fence else { return text }
        lines.removeFirst()
        lines.removeLast()
        return lines.joined(separator: "\n") + "\n"
    }

    struct Heading {
        var level: Int
        var text: String
        var line: Int
    }

    /// Headings outside code fences, and whether the fences are balanced; `prose` holds every line
    /// outside code fences with its number.
    static func scan(
        _ markdown: String
    ) -> (
        headings: [Heading], contentLinesAfter: [Int: Int], fencesBalanced: Bool, fenceLine: Int?, prose: [(line: Int, text: String)]
    ) {
        var headings: [Heading] = []
        var contentAfter: [Int: Int] = [:]
        var prose: [(line: Int, text: String)] = []
        let layout = MarkdownLayout(markdown)
        let unclosed = layout.codeBlocks.first { $0.fenced && !$0.closed }
        for (index, rawLine) in markdown.components(separatedBy: "\n").enumerated() {
            let line = rawLine.trimmedSpaces
            if layout.isCodeLine(index + 1) {
                if let last = headings.last { contentAfter[last.line, default: 0] += 1 }
                continue
            }
            prose.append((index + 1, rawLine))
            if line.hasPrefix("#") {
                let level = line.prefix(while: { $0 == "#" }).count
                let rest = line.dropFirst(level)
                if level <= 6 && (rest.isEmpty || rest.first == " ") {
                    headings.append(Heading(level: level, text: rest.trimmedSpaces, line: index + 1))
                    continue
                }
            }
            if !line.isEmpty, let last = headings.last { contentAfter[last.line, default: 0] += 1 }
        }
        return (headings, contentAfter, unclosed == nil, unclosed?.lineRange.lowerBound, prose)
    }

    /// The targets of links and images outside code (`[text](target)`, `![alt](target)`,
    /// `[label]: target`) that name a file beside the document rather than a web address or a
    /// place in it, with their line numbers.
    public static func localLinks(_ markdown: String) -> [(line: Int, target: String)] {
        var found: [(line: Int, target: String)] = []
        // Code spans are code, not links: `table[i](x)` in backticks is Python. A span over two
        // lines keeps its line break, so the lines keep their numbers.
        let lines = MarkdownLayout(markdown).prose(codeBlocks: .kept, codeSpan: { span in String(span.filter { $0 == "\n" }) })
            .components(separatedBy: "\n")
        for (number, _) in scan(markdown).prose where number <= lines.count {
            let prose = lines[number - 1]
            var targets: [String] = []
            for pattern in [#"\]\(\s*(<[^>]*>|[^\s)]+)"#, #"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)"#] {
                guard let regex = try? NSRegularExpression(pattern: pattern) else { continue }
                let range = NSRange(prose.startIndex..., in: prose)
                for match in regex.matches(in: prose, range: range) {
                    guard let target = Range(match.range(at: 1), in: prose) else { continue }
                    targets.append(String(prose[target]).trimmingCharacters(in: CharacterSet(charactersIn: "<>")))
                }
            }
            for target in targets where LocalReference.isLocal(target) { found.append((number, target)) }
        }
        return found
    }

    /// Errors for links and images to files beside a lecture or sample (`![diagram](diagram.png)`):
    /// a bundle ships no such files, so the reader would meet a broken link or image.
    public static func checkLocalLinks(_ markdown: String, document: String = "the lecture") -> [ValidationIssue] {
        localLinks(markdown).map { link in
            .error(
                "\(document) links to '\(link.target)' (line \(link.line)), a file the course does not have; link only to full https:// addresses, or leave the link or image out", check: .stageRules)
        }
    }

    /// The lecture's `##` sections, each from its heading line up to the next `##` heading
    /// (deeper headings stay inside; headings in code fences do not count, as in `check`).
    /// Text before the first `##` belongs to no section.
    public static func sections(_ markdown: String) -> [String] {
        let lines = markdown.components(separatedBy: "\n")
        let starts = scan(markdown).headings.filter { $0.level == 2 }.map { $0.line - 1 }
        return starts.enumerated().map { index, start in
            let end = index + 1 < starts.count ? starts[index + 1] : lines.count
            return lines[start..<end].joined(separator: "\n").trimmed
        }
    }

    /// Whether a section (as `sections` gives it) is a recap — its heading a conclusion, summary,
    /// recap, takeaways, wrap-up or review — which says again what the sections before it teach:
    /// questions are asked about the other sections first.
    public static func isRecap(_ section: String) -> Bool {
        let heading = section.prefix(while: { $0 != "\n" }).lowercased().split(whereSeparator: { !$0.isLetter })
        return heading.contains { word in recapWords.contains { word.hasPrefix($0) } }
    }

    static let recapWords = ["conclu", "summar", "recap", "takeaway", "wrap", "review"]

    /// Checks a lecture for a topic titled `topicTitle`, written in `language`.
    public static func check(_ markdown: String, topicTitle: String, language: String = "en") -> [ValidationIssue] {
        CheckMemo.verdict("LectureRules.check", [markdown, topicTitle, language]) { computedCheck(markdown, topicTitle: topicTitle, language: language) }
    }

    static func computedCheck(_ markdown: String, topicTitle: String, language: String) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        let scan = scan(markdown)
        let h1 = scan.headings.filter { $0.level == 1 }
        if h1.isEmpty {
            issues.append(.error("the lecture has no title heading; start it with '# ' and the topic's title", check: .stageRules))
        } else if h1.count > 1 {
            issues.append(
                .error(
                    "the lecture has \(h1.count) level-1 headings (lines \(h1.map { String($0.line) }.joined(separator: ", "))); use exactly one '# ' title and '## ' for sections", check: .stageRules)
            )
        }
        if scan.headings.filter({ $0.level >= 2 }).isEmpty {
            issues.append(.error("the lecture has no sections; divide it with '## ' headings", check: .stageRules))
        }
        for (i, heading) in scan.headings.enumerated() {
            let next = i + 1 < scan.headings.count ? scan.headings[i + 1] : nil
            let hasContent = (scan.contentLinesAfter[heading.line] ?? 0) > 0
            // A heading directly followed by a deeper heading is a parent, not an empty section.
            if !hasContent && (next == nil || next!.level <= heading.level) && heading.level >= 2 {
                issues.append(.error("the section '\(heading.text)' (line \(heading.line)) is empty", check: .stageRules))
            }
        }
        if !scan.fencesBalanced {
            issues.append(.error("the code fence opened on line \(scan.fenceLine ?? 0) is never closed", check: .stageRules))
        }
        issues += checkLocalLinks(markdown)
        issues += QuestionRules.checkNoMissingMedium("the lecture", markdown)
        issues += QuestionRules.checkCodeInABlock("the lecture", markdown)
        issues += repeatedParagraphs(markdown, language: language)
        let words = markdown.split(whereSeparator: { $0.isWhitespace }).count
        if words < wordRange.lowerBound {
            issues.append(.error("the lecture is too short (\(words) words; at least \(wordRange.lowerBound))", check: .stageRules))
        } else if words > wordRange.upperBound {
            issues.append(.error("the lecture is too long (\(words) words; at most \(wordRange.upperBound))", check: .stageRules))
        }
        let wanted = TextKey.significantWords(topicTitle, language: language)
        if !wanted.isEmpty {
            let arabic = LanguageProfile.isArabic(language)
            let head = arabic ? TextKey.foldArabic(markdown) : markdown.lowercased()
            let found = wanted.filter { word in
                // Accept simple inflections: "loop" for "loops", "variable" for "variables"; in
                // Arabic the word with or without the article ("الحلقات", "حلقات").
                let stem =
                    arabic
                    ? (word.hasPrefix("ال") && word.count >= 5 ? String(word.dropFirst(2)) : word)
                    : (word.count > 5 ? String(word.prefix(word.count - 2)) : word)
                return head.contains(stem)
            }
            if found.isEmpty {
                issues.append(
                    .error(
                        "the lecture does not seem to be about '\(topicTitle)': none of \(wanted.map { "'\($0)'" }.joined(separator: ", ")) appears in it", check: .grounding))
            }
        }
        issues += untaughtTitleTerms(markdown, topicTitle: topicTitle, language: language)
        return issues
    }

    /// A technical term of the topic's title (`ProjectRules`' terms of the lecture's domain:
    /// "variance" in "Expectation and Variance") that no section of the lecture but its last (the
    /// conclusion, as a rule) mentions, headings aside: the title promises what the lecture does
    /// not teach. intro-probability's lecture on expectation and variance, refused for a false sum
    /// in its variance example, came back without the variance section, naming variance only in
    /// its conclusion. A lecture of one section is read whole. English only, as the terms are.
    static func untaughtTitleTerms(_ markdown: String, topicTitle: String, language: String) -> [ValidationIssue] {
        guard LanguageProfile.isEnglish(language) else { return [] }
        // The domain as `ProjectRules.untaughtTerms` reads it, with math written `\(…\)` or `\[…\]` too.
        let code = !MarkdownLayout(markdown).codeBlocks.isEmpty
        let math = markdown.contains("$") || markdown.contains("\\(") || markdown.contains("\\[")
        // The title's words first: a term's pattern is compiled and run only for a term whose
        // words the title holds.
        let titleWords = ProjectRules.TermWords(topicTitle)
        let terms = ((code ? ProjectRules.programmingTerms : []) + (math ? ProjectRules.mathematicsTerms : [])).filter {
            titleWords.mayMention($0) && ProjectRules.mentions(topicTitle, $0)
        }
        guard !terms.isEmpty else { return [] }
        let scanned = scan(markdown)
        let sections = scanned.headings.filter { $0.level == 2 }
        let before = sections.count >= 2 ? sections[sections.count - 1].line : Int.max
        let taught = scanned.prose.filter { $0.line < before && !$0.text.trimmed.hasPrefix("#") }.map(\.text).joined(separator: "\n")
        let whole = scanned.prose.filter { !$0.text.trimmed.hasPrefix("#") }.map(\.text).joined(separator: "\n")
        var issues: [ValidationIssue] = []
        for term in terms where !ProjectRules.mentions(taught, term) {
            let place = ProjectRules.mentions(whole, term) ? "only its last section mentions it" : "its text never mentions it"
            issues.append(
                .error(
                    "the lecture's title names '\(term)', but \(place): teach it as the title promises — say what it is and work it out in an example", check: .stageRules))
        }
        return issues
    }

    /// Prose paragraphs of at least `minimumWords` words that the lecture says twice (case,
    /// punctuation and white space aside): the local model ended a lecture by pasting two of its
    /// paragraphs again as the "Conclusion". Code blocks and headings are not compared (showing a
    /// program again can be the point).
    static func repeatedParagraphs(_ markdown: String, language: String, minimumWords: Int = 12) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        var first: [String: Int] = [:]
        var block: [Substring] = []
        var blockLine = 0
        let layout = MarkdownLayout(markdown)
        func close() {
            defer { block = [] }
            let text = block.joined(separator: " ")
            guard text.split(whereSeparator: { $0.isWhitespace }).count >= minimumWords else { return }
            let key = TextKey.normalize(text, language: language)
            if let earlier = first[key] {
                issues.append(
                    .error(
                        "the paragraph on line \(blockLine) ('\(text.prefix(60))…') says again what the one on line \(earlier) says; say each thing once", check: .stageRules))
            } else {
                first[key] = blockLine
            }
        }
        for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmedSpaces
            if layout.isCodeLine(index + 1) {
                close()
                continue
            }
            if trimmed.isEmpty || trimmed.hasPrefix("#") {
                close()
                continue
            }
            if block.isEmpty { blockLine = index + 1 }
            block.append(line)
        }
        close()
        return issues
    }

    public static func wordCount(_ markdown: String) -> Int {
        markdown.split(whereSeparator: { $0.isWhitespace }).count
    }

    /// Reading time at 200 words a minute, at least one minute.
    public static func readingMinutes(_ markdown: String) -> Int {
        readingMinutes(words: wordCount(markdown))
    }

    public static func readingMinutes(words: Int) -> Int {
        max(1, Int((Double(words) / 200).rounded()))
    }
}
