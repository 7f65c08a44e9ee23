import Foundation

/// Whether two stems ask the same thing, or two options say the same thing, in different words.
///
/// A text becomes a fingerprint: its words after `GroundingText.normalize` (case, accents,
/// harakat, tatweel, alef forms, punctuation), less stop words (English and Arabic function words
/// and the pieces of contractions: `what's` → `what s`), lightly stemmed (an English plural `s`; the
/// Arabic article and its attached prepositions `ال وال بال كال فال لل`). Kept apart from those
/// content words, as a gate that must match exactly, are the question words by kind
/// (what/which/ما/ماذا/أي, why/لماذا, when/متى, where/أين, who, how/كيف, كم), negation
/// (not, except, ليس, لا, غير, عدا …) and the numbers: "Why did …" and "When did …", "Which is …" and
/// "Which is not …", "What is 2 + 3?" and "What is 2 + 5?" are never duplicates.
///
/// Two stems are near duplicates when their gates match and the Jaccard similarity of their
/// content words is at least `threshold` (0.6): "What is the capital of France?" and "What's the
/// capital city of France?" (2 of 3 words) are; two odd-one-out items on one template with
/// different words are not (4 of 12).
public enum NearDuplicate {
    public static let threshold = 0.6

    /// Jaccard similarity of the content words, 0 when the gates differ (1 for two texts that
    /// have no content words and normalize alike).
    public static func similarity(_ a: String, _ b: String) -> Double {
        similarity(Fingerprint(a), Fingerprint(b))
    }

    /// Whether two stems are near duplicates.
    public static func areDuplicates(_ a: String, _ b: String, threshold: Double = NearDuplicate.threshold) -> Bool {
        similarity(a, b) >= threshold - 1e-9
    }

    /// Which of `others` are near duplicates of `text` (`areDuplicates`), `text` read once.
    public static func duplicates(of text: String, among others: [String], threshold: Double = NearDuplicate.threshold) -> [Bool] {
        let read = Fingerprint(text)
        return others.map { other in similarity(read, recentFingerprints.value(other) { Fingerprint(other) }) >= threshold - 1e-9 }
    }

    /// The fingerprints of the texts `duplicates(of:among:)` compared with lately: a topic's new
    /// question is compared with each earlier one, at every attempt, so the earlier ones are read
    /// again and again (a thirtieth of a 1,000-topic run's CPU).
    static let recentFingerprints = RecentMemo<Fingerprint>(limit: 2048)

    /// Whether two texts restate each other: the same content words in any order (and the same
    /// gate), or for texts of at least four content words, a similarity of 0.8 or more.
    /// "Because water expands when it freezes" restates "When it freezes, water expands"; "Paris"
    /// does not restate "The city of Paris". A flashcard quiz's distractors from other cards are
    /// held to this (questions' options to `QuestionRules.restates`, which only sets aside
    /// articles, case and plurals: a real distractor is often the key with one word changed).
    public static func restate(_ a: String, _ b: String) -> Bool {
        let x = Fingerprint(a)
        let y = Fingerprint(b)
        guard x.gate == y.gate else { return false }
        if x.tokens.isEmpty || y.tokens.isEmpty { return x.normalized == y.normalized }
        if x.tokens == y.tokens { return true }
        return min(x.tokens.count, y.tokens.count) >= 4 && similarity(x, y) >= 0.8 - 1e-9
    }

    /// The content words of `text` (normalized, stop words and question words out, light
    /// stemming; numbers kept), sorted and unique: what two texts are compared by.
    public static func contentWords(_ text: String) -> [String] {
        Fingerprint(text).tokens
    }

    static func similarity(_ a: Fingerprint, _ b: Fingerprint) -> Double {
        guard a.gate == b.gate else { return 0 }
        if a.tokens.isEmpty && b.tokens.isEmpty { return a.normalized == b.normalized ? 1 : 0 }
        let shared = intersectionCount(a.tokens, b.tokens)
        return Double(shared) / Double(a.tokens.count + b.tokens.count - shared)
    }

    /// Common elements of two sorted arrays without repeats.
    static func intersectionCount(_ a: [String], _ b: [String]) -> Int {
        var i = 0
        var j = 0
        var n = 0
        while i < a.count && j < b.count {
            if a[i] == b[j] {
                n += 1
                i += 1
                j += 1
            } else if a[i] < b[j] {
                i += 1
            } else {
                j += 1
            }
        }
        return n
    }

    /// A text's content words (sorted, unique), its gate, and its normalized form.
    struct Fingerprint: Sendable, Hashable {
        var tokens: [String]
        var gate: String
        var normalized: String

        init(_ text: String) {
            normalized = GroundingText.normalize(text)
            var tokens = Set<String>()
            var kinds = Set<String>()
            var numbers = Set<String>()
            // A text without a question mark is read whole, as before (its clauses would change
            // nothing); a question clause by clause, for its conditions.
            let asksAnything = text.contains("?") || text.contains("؟")
            let clauses: [(words: String, asks: Bool, last: Bool)] =
                asksAnything ? Self.clauses(text).map { (GroundingText.normalize(String($0.0)), $0.asks, $0.last) } : [(normalized, false, true)]
            for (clause, asks, last) in clauses {
                for (index, word) in clause.split(separator: " ").enumerated() {
                    let word = String(word)
                    if word.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
                        numbers.insert(word)
                        tokens.insert(word)
                    } else if asks, index > 0 || !last, Lexicon.conjunctions.contains(word) {
                        // "… of heads when a fair coin is tossed", "When a coin is tossed, what …":
                        // a condition, not the question "When …?". Its words are compared; the
                        // conjunction itself says nothing of what is asked.
                        continue
                    } else if let kind = Lexicon.questionKinds[word] {
                        kinds.insert(kind)
                    } else if !Lexicon.stopWords.contains(word) {
                        tokens.insert(Lexicon.stem(word))
                    }
                }
            }
            self.tokens = tokens.sorted()
            gate = kinds.sorted().joined(separator: ",") + "|" + numbers.sorted().joined(separator: ",")
        }

        /// `text` cut after sentence marks, commas, semicolons and colons that a space or the end
        /// follows (so "2.5" and "1,000" stay whole), and at line breaks; each clause with whether
        /// its sentence ends with a question mark and whether it is that sentence's last clause.
        /// Only in a question is a "when" inside a clause, or opening one before the last, a
        /// condition rather than the question (left out of the comparison): in a statement ("Water expands when it freezes")
        /// it stays a question word, as before, so statements compare as they did.
        static func clauses(_ text: String) -> [(Substring, asks: Bool, last: Bool)] {
            var out: [(Substring, asks: Bool, last: Bool)] = []
            var sentence: [Substring] = []
            var start = text.startIndex
            var index = text.startIndex
            func endSentence(asks: Bool) {
                out += sentence.enumerated().map { ($1, asks, $0 == sentence.count - 1) }
                sentence = []
            }
            while index < text.endIndex {
                let character = text[index]
                let next = text.index(after: index)
                let atBreak = next == text.endIndex || text[next].isWhitespace
                if character.isNewline || (".?!,;:؟،؛".contains(character) && atBreak) {
                    sentence.append(text[start..<next])
                    start = next
                    if character.isNewline || ".?!؟".contains(character) { endSentence(asks: character == "?" || character == "؟") }
                }
                index = next
            }
            if start < text.endIndex { sentence.append(text[start...]) }
            endSentence(asks: false)
            return out
        }
    }

    /// A word's stem as the measure compares words: an English plural `s` or an Arabic article
    /// dropped ("variables" and "variable" are one word).
    public static func stem(_ word: String) -> String { Lexicon.stem(word) }

    /// Word lists, in normalized form (so `إلى`, `على` are listed as written and match `الي`, `علي`).
    enum Lexicon {
        static let questionKinds: [String: String] = {
            let kinds: [String: [String]] = [
                "what": ["what", "which", "ما", "ماذا", "أي", "أيّ"],
                "why": ["why", "لماذا"],
                "when": ["when", "متى"],
                "where": ["where", "أين"],
                "who": ["who", "whom", "whose"],
                "how": ["how", "كيف"],
                "how-many": ["كم"],
                "not": [
                    "not", "no", "never", "none", "except", "without", "ليس", "ليست", "لا", "لم", "لن", "غير", "عدا", "باستثناء", "سوى",
                ],
            ]
            var map: [String: String] = [:]
            for (kind, words) in kinds {
                for word in words { map[GroundingText.normalize(word)] = kind }
            }
            return map
        }()

        /// Question words that, inside a clause, join a condition to it ("… when a coin is
        /// tossed", "… where the list ends"): in a question, a question kind only where its last
        /// clause opens with them; otherwise left out.
        static let conjunctions: Set<String> = ["when", "where"]

        /// Every profile's `comparisonStopWords`: a stem's language is not asked, and a word of one
        /// language is no word of another.
        static let stopWords: Set<String> = Set(LanguageProfile.all.flatMap(\.comparisonStopWords).map(GroundingText.normalize))

        private static let arabicPrefixes = ["وال", "بال", "كال", "فال", "لل", "ال"].map { GroundingText.normalize($0) }

        static func stem(_ word: String) -> String {
            if let first = word.unicodeScalars.first, (0x0600...0x06FF).contains(first.value) {
                for prefix in arabicPrefixes where word.hasPrefix(prefix) {
                    let rest = word.unicodeScalars.dropFirst(prefix.unicodeScalars.count)
                    if rest.count >= 2 { return String(String.UnicodeScalarView(rest)) }
                }
                return word
            }
            if word.utf8.count > 3, word.hasSuffix("s"), !word.hasSuffix("ss"), !word.hasSuffix("us"), !word.hasSuffix("is") {
                return String(word.dropLast())
            }
            return word
        }
    }
}

/// The stems (or any texts) of a bank seen so far, to find a new one's near duplicate without
/// comparing it with all of them.
///
/// Frame words: in a bank, one category's stems share a frame ("Which word is the odd one out:
/// …"), and counting its words would make any two of them look alike when they share half their
/// distinctive words. So once a scope and gate hold at least `frameMinimumEntries` texts, a word
/// found in at least `frameFraction` of them is a frame word and is left out of the similarity
/// (unless a text has nothing else). `NearDuplicate.areDuplicates` compares two texts alone, with
/// no frame.
///
/// Lookups are exact: every entry is filed under each of its words; a text of n counted words can
/// only reach similarity t with an entry sharing at least ⌈t·n⌉ of them, so it holds one of any
/// n − ⌈t·n⌉ + 1 of them, and a lookup reads only the lists of its rarest words. Thousands of stems
/// cost milliseconds.
///
/// A scope keeps groups apart: questions on different passages may share a stem ("What is the main
/// idea of the passage?"), so give each passage's questions the passage id as scope.
public struct NearDuplicateIndex: Sendable {
    public let threshold: Double
    /// Texts in a scope and gate before frame words are looked for.
    public static let frameMinimumEntries = 20
    /// The share of a scope and gate's texts that makes a word a frame word.
    public static let frameFraction = 0.1

    private var ids: [String] = []
    private var fingerprints: [NearDuplicate.Fingerprint] = []
    /// Entries by scope and gate, and by scope, gate and word (or whole text, for texts without words).
    private var entriesByHead: [String: Int] = [:]
    private var postings: [String: [Int]] = [:]

    public init(threshold: Double = NearDuplicate.threshold) {
        self.threshold = threshold
    }

    /// Texts inserted so far.
    public var count: Int { ids.count }

    /// Adds a text under `id` (ids need not be unique; the first inserted is reported first).
    public mutating func insert(id: String, text: String, scope: String = "") {
        insert(id: id, fingerprint: NearDuplicate.Fingerprint(text), scope: scope)
    }

    /// Adds a text by its fingerprint: a caller that also asks `firstDuplicate(of:scope:)` about
    /// the same text reads it once.
    mutating func insert(id: String, fingerprint: NearDuplicate.Fingerprint, scope: String = "") {
        let head = Self.head(fingerprint, scope: scope)
        let position = ids.count
        ids.append(id)
        fingerprints.append(fingerprint)
        entriesByHead[head, default: 0] += 1
        for key in Self.keys(fingerprint, head: head) { postings[key, default: []].append(position) }
    }

    /// The id of the earliest inserted text in `scope` that `text` nearly duplicates, if any.
    public func firstDuplicate(of text: String, scope: String = "") -> String? {
        firstDuplicate(of: NearDuplicate.Fingerprint(text), scope: scope)
    }

    /// `firstDuplicate(of:scope:)` for a text already read.
    func firstDuplicate(of fingerprint: NearDuplicate.Fingerprint, scope: String = "") -> String? {
        let head = Self.head(fingerprint, scope: scope)
        let entries = entriesByHead[head] ?? 0
        guard entries > 0 else { return nil }
        let frameCount =
            entries >= Self.frameMinimumEntries ? Int((Self.frameFraction * Double(entries)).rounded(.up)) : Int.max
        func isFrame(_ token: String) -> Bool { (postings[head + "\u{1E}" + token]?.count ?? 0) >= frameCount }

        let counted = fingerprint.tokens.filter { !isFrame($0) }
        let probe = counted.isEmpty ? fingerprint.tokens : counted
        let lists = (probe.isEmpty ? [head + "\u{1D}" + fingerprint.normalized] : probe.map { head + "\u{1E}" + $0 }).map { postings[$0] ?? [] }
        // The fewest lists a match must appear in: n − ⌈t·n⌉ + 1 (ε keeps 0.6 × 5 at 3).
        let n = lists.count
        let needed = probe.isEmpty ? 1 : n - max(1, Int((threshold * Double(n) - 1e-9).rounded(.up))) + 1
        var best: Int?
        var seen = Set<Int>()
        for list in lists.sorted(by: { $0.count < $1.count }).prefix(max(1, needed)) {
            for position in list {
                if let found = best, position >= found { break }  // lists ascend: nothing earlier follows
                guard seen.insert(position).inserted else { continue }
                let other = fingerprints[position]
                let similarity: Double
                if counted.isEmpty {
                    // Nothing but frame words: the other must have nothing else either.
                    similarity = other.tokens.allSatisfy(isFrame) ? NearDuplicate.similarity(fingerprint, other) : 0
                } else {
                    var distinct = other
                    distinct.tokens = other.tokens.filter { !isFrame($0) }
                    var mine = fingerprint
                    mine.tokens = counted
                    similarity = NearDuplicate.similarity(mine, distinct)
                }
                if similarity >= threshold - 1e-9 { best = position }
            }
        }
        return best.map { ids[$0] }
    }

    /// Inserts `text` unless it nearly duplicates one already there: returns that one's id, or nil
    /// when `text` was inserted.
    public mutating func insertUnlessDuplicate(id: String, text: String, scope: String = "") -> String? {
        if let duplicate = firstDuplicate(of: text, scope: scope) { return duplicate }
        insert(id: id, text: text, scope: scope)
        return nil
    }

    private static func head(_ fingerprint: NearDuplicate.Fingerprint, scope: String) -> String {
        scope + "\u{1F}" + fingerprint.gate
    }

    /// The posting keys of a fingerprint: one per content word, or its whole text when it has none.
    private static func keys(_ fingerprint: NearDuplicate.Fingerprint, head: String) -> [String] {
        guard !fingerprint.tokens.isEmpty else { return [head + "\u{1D}" + fingerprint.normalized] }
        return fingerprint.tokens.map { head + "\u{1E}" + $0 }
    }
}
