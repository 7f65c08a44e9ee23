import Foundation
import LecternMarkdown

/// The course's question rules that read the lecture a question follows: nothing asked that it
/// does not teach, nothing pasted from it.
extension QuestionRules {
    /// A question naming a technical term its lecture never mentions (`ProjectRules`' terms of the
    /// course's domain, in the singular or the plural, outside code): python-collections' practice
    /// question on lists asked "What is the difference between a list and a tuple?" over a
    /// lecture without tuples, and keyed and explained it wrongly. English only, as the terms are.
    public static func checkTaught(_ field: String, _ text: String, lecture: String, language: String = "en") -> [ValidationIssue] {
        CheckMemo.verdict("QuestionRules.checkTaught", [field, text, lecture, language]) { computedCheckTaught(field, text, lecture: lecture, language: language) }
    }

    static func computedCheckTaught(_ field: String, _ text: String, lecture: String, language: String) -> [ValidationIssue] {
        if let keyword = unshownKeyword(in: text, lecture: lecture) {
            return [
                .error(
                    "'\(field)' uses `\(keyword)`, which the lecture never shows; ask only about what the lecture teaches", check: .grounding)
            ]
        }
        // The same for every question of the topic and every attempt at one: computed once per
        // lecture (the terms are English; other languages have none).
        guard LanguageProfile.isEnglish(language) else { return [] }
        let untaught = untaughtByLecture.value(lecture) { ProjectRules.untaughtTerms(taught: lecture, lectures: [lecture], language: "en") }
        guard !untaught.isEmpty else { return [] }
        let asked = prose(text)
        let words = ProjectRules.TermWords(asked)
        guard let term = untaught.first(where: { words.mayMention($0) && ProjectRules.mentions(asked, $0) }) else { return [] }
        return [.error("'\(field)' asks about '\(term)', which the lecture does not teach; ask only about what the lecture teaches", check: .grounding)]
    }

    /// `ProjectRules.untaughtTerms` of an English lecture, by lecture. The pipeline asks a topic's
    /// questions stage by stage across the course, so a lecture is read again a course's length
    /// of topics later: the memo holds as many lectures as a large course has (the key shares the
    /// lecture's storage; the values are lists of a few terms).
    static let untaughtByLecture = RecentMemo<[String]>(limit: 4_096)

    /// Python's statement keywords, which a question's code may use only when its lecture shows
    /// them: `try: … except` in a question on `if`, `import numpy as np` in one on variables.
    static let statementKeywords = ["def", "class", "for", "while", "try", "except", "finally", "import", "lambda", "with", "yield", "raise", "async", "await", "global"]

    /// The first Python keyword of `statementKeywords` that `text`'s code (inline spans and
    /// fenced blocks) uses and `lecture` never has as a word, in its code or its prose; nil when
    /// the lecture holds no code (not a programming lecture) or the question holds none.
    static func unshownKeyword(in text: String, lecture: String) -> String? {
        guard let shown = shownWords.value(lecture, { lectureWords(lecture) }) else { return nil }
        let layout = MarkdownLayout(text)
        var code = layout.codeBlocks.flatMap(\.lines).joined(separator: "\n")
        _ = layout.prose(codeSpan: { span in
            code += "\n" + span
            return " "
        })
        guard !code.isEmpty else { return nil }
        let used = words(code)
        return statementKeywords.first { used.contains(Substring($0)) && !shown.contains($0) }
    }

    private static func words(_ s: String) -> Set<Substring> { Set(s.split { !($0.isLetter || $0.isNumber || $0 == "_") }) }

    /// The `statementKeywords` a lecture has as words, or nil when it holds no code
    /// (`unshownKeyword` has nothing to hold a question to): read once per lecture, not once per
    /// question field, and kept as those few words (not the lecture's every word).
    private static func lectureWords(_ lecture: String) -> Set<String>? {
        let layout = MarkdownLayout(lecture)
        guard !layout.codeBlocks.isEmpty || !layout.codeSpans.isEmpty else { return nil }
        let all = words(lecture)
        return Set(statementKeywords.filter { all.contains(Substring($0)) })
    }

    /// `lectureWords` by lecture (as `untaughtByLecture`).
    static let shownWords = RecentMemo<Set<String>?>(limit: 4_096)

    /// Words in a row a question may share with its lecture: a sentence quoted for a question
    /// about it is shorter; a paragraph pasted in is longer.
    public static let copiedRun = 25

    /// A question that pastes a stretch of its lecture (`copiedRun` words in a row or more, case
    /// and punctuation aside): the golden course's level-3 question was the lecture's two opening
    /// paragraphs with "Can you explain how an `if` statement works?" after them.
    public static func checkNotCopied(_ field: String, _ text: String, lecture: String) -> [ValidationIssue] {
        CheckMemo.verdict("QuestionRules.checkNotCopied", [field, text, lecture]) { computedCheckNotCopied(field, text, lecture: lecture) }
    }

    static func computedCheckNotCopied(_ field: String, _ text: String, lecture: String) -> [ValidationIssue] {
        func words(_ s: String) -> [Substring] { s.lowercased().split { !$0.isLetter && !$0.isNumber } }
        let asked = words(text)
        guard asked.count >= copiedRun else { return [] }
        var runs = Set<[Substring]>()
        let taught = words(lecture)
        if taught.count >= copiedRun {
            for start in 0...(taught.count - copiedRun) { runs.insert(Array(taught[start..<(start + copiedRun)])) }
        }
        for start in 0...(asked.count - copiedRun) where runs.contains(Array(asked[start..<(start + copiedRun)])) {
            let quoted = asked[start..<(start + 8)].joined(separator: " ")
            return [
                .error(
                    "'\(field)' copies the lecture word for word ('\(quoted) …', \(copiedRun) words or more): ask the question in a sentence or two of your own", check: .questionForm)
            ]
        }
        return []
    }

}
