import Foundation

/// Feedback that says the source text gives no year, date or number about something, when the text
/// gives one there. The local model's reading set on Antarctica keyed "1961" for "What year did the
/// Antarctic Treaty come into force?" and gave the wrong option "1960" the feedback "The passage does
/// not mention any year when the Antarctic Treaty came into force", over a passage that says it "was
/// signed in 1959 and entered into force in 1961": a candidate who picked 1960 is told the text they
/// just read says nothing of the kind. English wording (the absence verbs); the values are digits.
///
/// Run by `lectern check` (`BankLint`, against an item's passage and the quotes it cites; so also
/// in the bank lint a run writes into quality.json), not yet among the checks that refuse a
/// reading set's answer in a run: in the recorded world-geography example, an attempt at reading
/// set p01 refused for other reasons before its accepted answer carries such feedback ("The passage
/// does not mention any year when the Antarctic Treaty came into force"), so a run that refused it
/// for this too would send a repair the cassette does not hold (measured: the offline replay fails
/// at p01's attempt 4). The accepted bank passes. It joins the run
/// (`ExamItemStage`, beside `ExamRules.unsourcedNumberIssues`) with that example's next recording.
public enum AbsenceClaims {
    /// A claim found in a feedback or explanation, and the sentence of the text that answers it.
    public struct Contradiction: Sendable, Equatable {
        /// The claim as written ("passage does not mention any year when …").
        public var claim: String
        /// What kind of value the claim says is missing ("year", "temperature", "number").
        public var kind: String
        /// The source's sentence that gives such a value about the same thing (its clause that
        /// holds the value, when semicolons join several).
        public var sentence: String
    }

    /// The claims in `text` that `source` answers: "the passage/text/article does not
    /// mention/state/give … a year/date/temperature/number …" (or "when …"), where one sentence of
    /// `source` holds a value of that kind and most of the claim's other words. A claim about a
    /// named value ("does not mention 1960") or about something the text has no value for passes.
    public static func contradictions(in text: String, source: String) -> [Contradiction] {
        let words = Self.words(text)
        guard words.count >= 4 else { return [] }
        var found: [Contradiction] = []
        var sentences: [(text: String, stems: Set<String>)]?
        var index = 0
        while index < words.count {
            defer { index += 1 }
            guard subjects.contains(words[index].text) else { continue }
            // "the passage does not mention", "the text itself never states", "the passage fails to give".
            var cursor = index + 1
            var negated = false
            while cursor < min(words.count, index + 5) {
                let word = words[cursor].text
                if negations.contains(word) {
                    negated = true
                    cursor += word == "fails" || word == "failed" ? 2 : 1
                    if cursor < words.count, words[cursor].text == "not" { cursor += 1 }
                    break
                }
                if words[cursor].endsClause { break }
                cursor += 1
            }
            guard negated, cursor < words.count, verbs.contains(words[cursor].text), !words[cursor - 1].endsClause else { continue }
            // The object: the words after the verb, to the end of the clause.
            var object: [Word] = []
            var end = cursor
            while end + 1 < words.count {
                end += 1
                object.append(words[end])
                if words[end].endsClause { break }
            }
            guard let kind = object.first(where: { kinds[$0.text] != nil }).flatMap({ kinds[$0.text] }) else { continue }
            let qualifiers = Set(object.filter { kinds[$0.text] == nil && !stopWords.contains($0.text) && $0.text.count >= 3 }.map { stem($0.text) })
            // A name is what the claim is about: a year of the United States' station does not
            // answer one about China's.
            let names = Set(object.filter(\.capitalized).map { stem($0.text) })
            guard !qualifiers.isEmpty else { continue }
            if sentences == nil {
                sentences = Self.sentences(source).map { ($0, Set(Self.words($0).map { stem($0.text) })) }
            }
            for sentence in sentences ?? [] where kind.value(in: sentence.text) {
                let shared = qualifiers.filter { sentence.stems.contains($0) }.count
                guard Double(shared) >= 0.6 * Double(qualifiers.count), names.isSubset(of: sentence.stems) else { continue }
                let claim = words[index...end].map(\.original).joined(separator: " ")
                // The clause that holds the value, when the sentence has several.
                let clause = sentence.text.split(separator: ";").map { String($0).trimmed }.first(where: kind.value(in:)) ?? sentence.text
                found.append(Contradiction(claim: claim, kind: kind.name, sentence: clause))
                break
            }
            index = end
        }
        return found
    }

    /// The issues of an item on a text: each option's feedback and the explanation whose absence
    /// claim `source` answers.
    public static func issues(explanation: String, options: [Choice], source: String, language: String) -> [ValidationIssue] {
        guard LanguageProfile.isEnglish(language) || language.isEmpty, !source.isEmpty else { return [] }
        var issues: [ValidationIssue] = []
        for (name, text) in ExamRules.textsAfterAnswering(explanation: explanation, options: options) {
            guard let first = contradictions(in: text, source: source).first else { continue }
            issues.append(
                .error(
                    "\(name) says the \(first.claim.split(separator: " ").first?.lowercased() ?? "text") gives no \(first.kind) ('\(first.claim.prefix(100))'), but it does: '\(first.sentence.prefix(160))'; "
                        + "say what the text says", check: .feedbackAgreesWithKey))
        }
        return issues
    }

    // MARK: Words

    private struct Word {
        /// Lowercased.
        var text: String
        /// As written.
        var original: String
        /// A comma or sentence mark follows the word.
        var endsClause: Bool
        /// Written with a capital, not at a sentence's start: a name.
        var capitalized: Bool
    }

    /// Lowercased words (letters, digits and apostrophes), each marking whether a clause ends after
    /// it and whether it is written as a name.
    private static func words(_ text: String) -> [Word] {
        var out: [Word] = []
        var current = ""
        var sentenceStart = true
        func flush(_ ends: Bool, _ sentenceEnds: Bool) {
            if !current.isEmpty {
                let capitalized = !sentenceStart && (current.first?.isUppercase ?? false)
                out.append(Word(text: current.lowercased().replacingOccurrences(of: "’", with: "'"), original: current, endsClause: ends, capitalized: capitalized))
                current = ""
                sentenceStart = false
            } else if ends, !out.isEmpty {
                out[out.count - 1].endsClause = true
            }
            if sentenceEnds { sentenceStart = true }
        }
        for character in text {
            if character.isLetter || character.isNumber || ((character == "'" || character == "’") && !current.isEmpty) {
                current.append(character)
            } else {
                flush(",.;:!?".contains(character), ".!?\n".contains(character))
            }
        }
        flush(true, true)
        return out
    }

    private static func stem(_ word: String) -> String { String(word.prefix(5)) }

    /// The sentences of `text`: cut after '.', '!' or '?' before a space or the end (a
    /// semicolon does not end one: "it was signed in 1959 and entered into force in 1961" is about
    /// the treaty its clause before names).
    private static func sentences(_ text: String) -> [String] {
        var out: [String] = []
        var current = ""
        let characters = Array(text)
        for (index, character) in characters.enumerated() {
            current.append(character)
            if ".!?\n".contains(character), index + 1 == characters.count || characters[index + 1].isWhitespace {
                out.append(current.trimmed)
                current = ""
            }
        }
        out.append(current.trimmed)
        return out.filter { !$0.isEmpty }
    }

    private static let subjects: Set<String> = ["passage", "text", "article", "source", "excerpt", "reading", "author", "paragraph"]
    private static let negations: Set<String> = ["not", "doesn't", "didn't", "never", "fails", "failed"]
    private static let verbs: Set<String> = [
        "mention", "mentions", "state", "states", "say", "says", "give", "gives", "include", "includes", "specify", "specifies", "provide",
        "provides", "contain", "contains", "tell", "tells", "list", "lists", "name", "names", "indicate", "indicates", "report", "reports",
    ]

    /// A kind of value a claim can say is missing, and how the text shows one.
    private struct Kind {
        enum Value { case year, temperature, digits }
        var name: String
        var pattern: Value

        func value(in sentence: String) -> Bool {
            switch pattern {
            case .year: return AbsenceClaims.hasYear(sentence)
            case .temperature: return AbsenceClaims.hasTemperature(sentence)
            case .digits: return sentence.contains(where: \.isNumber)
            }
        }
    }

    private static let kinds: [String: Kind] = {
        var kinds: [String: Kind] = [:]
        for word in ["year", "years"] { kinds[word] = Kind(name: "year", pattern: .year) }
        for word in ["date", "dates", "when"] { kinds[word] = Kind(name: "date", pattern: .year) }
        for word in ["temperature", "temperatures"] { kinds[word] = Kind(name: "temperature", pattern: .temperature) }
        for word in ["number", "numbers", "figure", "figures", "amount", "amounts", "percentage", "percent", "population", "statistics", "total"] {
            kinds[word] = Kind(name: "number", pattern: .digits)
        }
        return kinds
    }()

    /// Words a claim's object holds that say nothing of what it is about.
    private static let stopWords: Set<String> = [
        "the", "any", "all", "other", "this", "that", "these", "those", "its", "their", "his", "her", "which", "what", "who", "was", "were",
        "are", "has", "have", "had", "been", "for", "with", "from", "into", "about", "specific", "exact", "such", "and", "nor", "but",
        "also", "there", "then", "than", "did", "does", "how", "many", "much", "only", "even", "single", "particular",
    ]

    /// A year written in digits (1000–2099), not part of a longer number.
    static func hasYear(_ sentence: String) -> Bool {
        digitRuns(sentence).contains { run in
            guard run.count == 4, let value = Int(run) else { return false }
            return (1_000...2_099).contains(value)
        }
    }

    /// A temperature: digits followed by "°" or "degrees".
    static func hasTemperature(_ sentence: String) -> Bool {
        let characters = Array(sentence)
        for (index, character) in characters.enumerated() where character.isNumber {
            var next = index + 1
            while next < characters.count, characters[next] == " " { next += 1 }
            if next < characters.count, characters[next] == "°" { return true }
            if String(characters[next...].prefix(7)).lowercased() == "degrees" { return true }
        }
        return false
    }

    /// The runs of ASCII digits of `text` (a digit run with a thousands comma or a decimal point is
    /// cut there, so "1,959" gives "1" and "959").
    private static func digitRuns(_ text: String) -> [Substring] {
        text.split(whereSeparator: { !($0.isASCII && $0.isNumber) })
    }
}
