import Foundation

/// deck.json: a flashcard deck enriched for the flashcard app's study modes (docs/bundle.md#deckjson).
public struct Deck: Codable, Sendable, Hashable {
    public static let formatVersion = 1

    public var formatVersion = Deck.formatVersion
    public var id: String
    public var version: String
    public var language: String
    public var title: String
    public var description: String
    /// The imported set and what could not be imported; nil for a written deck.
    public var source: DeckSource?
    public var cards: [DeckCard]
    /// Matching rounds of 4–6 pairs in which no two definitions could be swapped.
    public var matching: [MatchingRound]
    /// Cards no matching round could take without a pair that could be swapped.
    public var unmatched: [String]

    public init(
        id: String, version: String, language: String, title: String, description: String, source: DeckSource?, cards: [DeckCard],
        matching: [MatchingRound], unmatched: [String]
    ) {
        self.id = id
        self.version = version
        self.language = language
        self.title = title
        self.description = description
        self.source = source
        self.cards = cards
        self.matching = matching
        self.unmatched = unmatched
    }

    enum CodingKeys: String, CodingKey {
        case formatVersion = "format_version", id, version, language, title, description, source, cards, matching, unmatched
    }
}

public struct DeckSource: Codable, Sendable, Hashable {
    public var path: String
    public var format: DeckSpec.Format
    public var sha256: String
    /// Rows read (blank lines, comment lines and a header row aside) and cards imported.
    public var rows: Int
    public var imported: Int
    /// Rows left out, by line.
    public var problems: [DeckImport.Problem]

    public init(path: String, format: DeckSpec.Format, sha256: String, rows: Int, imported: Int, problems: [DeckImport.Problem]) {
        self.path = path
        self.format = format
        self.sha256 = sha256
        self.rows = rows
        self.imported = imported
        self.problems = problems
    }
}

public struct DeckCard: Codable, Sendable, Hashable {
    /// `c001` …
    public var id: String
    /// The imported row's line; nil for a written card.
    public var line: Int?
    /// The term; never rewritten for an imported card.
    public var front: String
    /// The definition; never rewritten for an imported card.
    public var back: String
    public var quiz: Quiz
    /// The back with a key word blanked; nil when it has none to blank.
    public var cloze: Cloze?
    public var review: Flashcard.Review

    public init(id: String, line: Int?, front: String, back: String, quiz: Quiz, cloze: Cloze?, review: Flashcard.Review = .init()) {
        self.id = id
        self.line = line
        self.front = front
        self.back = back
        self.quiz = quiz
        self.cloze = cloze
        self.review = review
    }

    /// A multiple-choice question on the card: its front asks, the options are its back and
    /// distractors, at positions derived from the card.
    public struct Quiz: Codable, Sendable, Hashable {
        public enum Origin: String, Codable, Sendable, Hashable {
            /// Every distractor is another card's back.
            case deck
            /// Some were written by the model (the deck had too few that fit).
            case generated
        }
        public var options: [String]
        /// Index of the card's back in `options`.
        public var answer: Int
        public var distractors: Origin

        public init(options: [String], answer: Int, distractors: Origin) {
            self.options = options
            self.answer = answer
            self.distractors = distractors
        }
    }

    public struct Cloze: Codable, Sendable, Hashable {
        /// The back with the blanked word as `____`.
        public var text: String
        public var answer: String

        public init(text: String, answer: String) {
            self.text = text
            self.answer = answer
        }
    }
}

public struct MatchingRound: Codable, Sendable, Hashable {
    public var round: Int
    /// Card ids.
    public var cards: [String]

    public init(round: Int, cards: [String]) {
        self.round = round
        self.cards = cards
    }
}

/// Reading an imported set: TSV (Anki's "Notes in Plain Text", Quizlet's export) or CSV
/// (RFC 4180), a term and a definition a row. Malformed rows are reported by line and left out;
/// the rest are imported as they are written.
public enum DeckImport {
    public static let maxBytes = 10 * 1024 * 1024

    public struct Problem: Codable, Sendable, Hashable, CustomStringConvertible {
        public var line: Int
        public var message: String
        public var description: String { "line \(line): \(message)" }

        public init(line: Int, message: String) {
            self.line = line
            self.message = message
        }
    }

    public struct Row: Sendable, Hashable {
        public var line: Int
        public var term: String
        public var definition: String
    }

    public struct Result: Sendable {
        public var rows: [Row]
        public var problems: [Problem]
        /// Data rows read (blank, comment and header rows aside).
        public var read: Int
    }

    static let termHeaders: Set<String> = ["term", "front", "question", "word", "card", "prompt"]
    static let definitionHeaders: Set<String> = ["definition", "back", "answer", "meaning", "translation"]

    /// The bytes of the set at `url`, or why they cannot be read: only a regular file of at most
    /// `maxBytes` is read (a spec naming `/dev/zero` or a directory gets an error, not a hang).
    public static func readSource(_ url: URL) -> (data: Data?, problem: String?) {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else {
            return (nil, "cannot be read (looked for \(url.path))")
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular else { return (nil, "is not a regular file (\(url.path))") }
        if let size = attributes[.size] as? Int, size > maxBytes { return (nil, "is \(size) bytes; at most \(maxBytes)") }
        guard let data = FileManager.default.contents(atPath: url.path) else { return (nil, "cannot be read (looked for \(url.path))") }
        return (data, nil)
    }

    /// The set at `url` read, parsed and checked: what the spec reader (so `validate`) and the
    /// job (so `run`) both refuse — a file that cannot be read, is not UTF-8 or does not parse
    /// (nothing of it is imported), or holds fewer than 2 usable rows — throws, with the rows'
    /// problems. Returns the bytes (for the spec's digest) and the result.
    public static func load(_ url: URL, format: DeckSpec.Format, roots: FileRoots) throws(DeckImportError) -> (data: Data, result: Result) {
        if let refusal = roots.refusal(url, written: url.path) {
            throw DeckImportError("may not be read: \(refusal)", hint: FileRoots.hint)
        }
        let read = readSource(url)
        guard let data = read.data else {
            throw DeckImportError(read.problem ?? "cannot be read", hint: "give a TSV or CSV file relative to the spec")
        }
        let result = try parse(data, format: format)
        guard result.rows.count >= 2 else {
            let separator = format == .csv ? "a comma" : "a tab"
            var error = DeckImportError(
                "has \(result.rows.count) usable row\(result.rows.count == 1 ? "" : "s") of \(result.read); a deck needs at least 2",
                hint: "write a term and its definition on each row, separated by \(separator)")
            error.rowProblems = Array(result.problems.prefix(10))
            throw error
        }
        return (data, result)
    }

    public static func parse(_ data: Data, format: DeckSpec.Format) throws(DeckImportError) -> Result {
        guard let text = String(data: data, encoding: .utf8) else {
            let valid = String(decoding: data, as: UTF8.self).prefix { $0 != "\u{FFFD}" }
            let line = valid.reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
            throw DeckImportError(
                "is not UTF-8 text (line \(line) is the first that is not)",
                hint: "save it as UTF-8 (TSV or CSV); for example `iconv -f WINDOWS-1252 -t UTF-8` converts it")
        }
        var rows: [Row] = []
        var problems: [Problem] = []
        var read = 0
        var seen: [String: Int] = [:]
        var first = true
        let parsed: [CSVRows.Row]
        do {
            parsed = try CSVRows.parse(text, separator: format == .csv ? "," : "\t")
        } catch {
            var failure = DeckImportError(
                "does not parse, so nothing of it is imported: line \(error.line): \(error.message)",
                hint: "fix the file at that line")
            failure.line = error.line
            throw failure
        }
        for raw in parsed {
            let fields = raw.fields.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            if fields.allSatisfy(\.isEmpty) { continue }
            // Anki's plain-text export starts with `#separator:tab`, `#html:false` … lines.
            if fields.count == 1 && fields[0].hasPrefix("#") { continue }
            // A header row, as the first row: `term,definition`, `front,back` …
            defer { first = false }
            if first && fields.count >= 2 && termHeaders.contains(fields[0].lowercased()) && definitionHeaders.contains(fields[1].lowercased()) { continue }
            read += 1
            func problem(_ message: String) { problems.append(Problem(line: raw.line, message: message)) }
            guard fields.count >= 2 else {
                problem("one column only; a card needs a term and a definition separated by \(format == .csv ? "a comma" : "a tab")")
                continue
            }
            let term = fields[0]
            let definition = fields[1]
            if term.isEmpty { problem("the term is empty"); continue }
            if definition.isEmpty { problem("the definition of '\(term.prefix(60))' is empty"); continue }
            if term.count > FlashcardRules.frontLimit { problem("the term is \(term.count) characters; at most \(FlashcardRules.frontLimit)"); continue }
            if definition.count > FlashcardRules.backLimit { problem("the definition is \(definition.count) characters; at most \(FlashcardRules.backLimit)"); continue }
            if (term + definition).unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\n" && $0 != "\r" && $0 != "\t" }) {
                problem("the row holds control characters"); continue
            }
            let key = TextKey.normalize(term)
            if let first = seen[key] { problem("the term '\(term.prefix(60))' is already on line \(first)"); continue }
            seen[key] = raw.line
            rows.append(Row(line: raw.line, term: term, definition: definition))
        }
        return Result(rows: rows, problems: problems, read: read)
    }

    /// The set as TSV or CSV again (the flashcard app's export): a row a card, term then
    /// definition, no header. CSV quotes where RFC 4180 needs it; in TSV a tab or line break inside
    /// a field becomes a space, and only a field that starts with a quote is quoted.
    public static func write(_ cards: [(front: String, back: String)], format: DeckSpec.Format) -> Data {
        func field(_ text: String) -> String {
            switch format {
            case .tsv:
                let flat = text.replacingOccurrences(of: "\r\n", with: " ").replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\t", with: " ")
                    .replacingOccurrences(of: "\r", with: " ")
                // A field that starts with a quote is quoted, as Anki's export does, so that it is
                // read back as written ("Hola" means hello).
                return flat.hasPrefix("\"") ? "\"" + flat.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : flat
            case .csv:
                guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) || text.hasPrefix(" ") else { return text }
                return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            }
        }
        let separator = format == .csv ? "," : "\t"
        let newline = format == .csv ? "\r\n" : "\n"
        return Data(cards.map { field($0.front) + separator + field($0.back) + newline }.joined().utf8)
    }
}

/// Why an imported set cannot be used: what, and (where it is one place) the file's line.
public struct DeckImportError: Error, CustomStringConvertible, Sendable {
    /// What is wrong with the file, as a predicate ("is not UTF-8 text …"), so a message can
    /// name the file first.
    public var reason: String
    public var hint: String?
    /// The line of the deck file at fault, when one is.
    public var line: Int?
    /// The rows left out, by line, when too few were usable.
    public var rowProblems: [DeckImport.Problem] = []

    public var description: String { "the deck file \(reason)" }

    public init(_ reason: String, hint: String? = nil) {
        self.reason = reason
        self.hint = hint
    }
}

/// The study modes' derivations and checks: quiz distractors from the deck, cloze variants,
/// matching rounds.
public enum DeckRules {
    /// Whether `text` is a number (a count, a year, a decimal), so that only numbers stand
    /// beside it as distractors.
    public static func isNumeric(_ text: String) -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return !trimmed.isEmpty && trimmed.allSatisfy { $0.isNumber || ".,-−+/ %".contains($0) } && trimmed.contains(where: \.isNumber)
    }

    /// What kind of answer a back is, for the options beside it: a bare number, a quantity (a
    /// number with its unit or power: "6.022 × 10^23 particles per mole", "100 °C"), or words.
    public enum Shape: Sendable, Hashable {
        case number, quantity, words

        /// How a distractor's message names it.
        var described: String {
            switch self {
            case .number: "a number"
            case .quantity: "a number with its unit"
            case .words: "words, not a number"
            }
        }
    }

    /// The shape of `text`: a number, a quantity (it opens with a number: "6.022 × 10^23
    /// particles per mole" beside definitions gives itself away as the only measurement), or words.
    public static func shape(_ text: String) -> Shape {
        if isNumeric(text) { return .number }
        let opening = text.unicodeScalars.drop { $0 == " " || $0 == "+" || $0 == "-" || $0 == "\u{2212}" }
        if let first = opening.first, ("0"..."9").contains(first) { return .quantity }
        return .words
    }

    /// Whether `other` can stand as a wrong option beside `answer`: of the same shape (`shape`: a
    /// number beside a number of a like size — both up to 20, or within 5× of each other — a
    /// quantity beside a quantity, words beside words), of a comparable length (0.4–2.5×), not
    /// the same answer or a restatement of it, neither containing the other.
    public static func fits(_ other: String, distractorOf answer: String) -> Bool {
        guard shape(other) == shape(answer) else { return false }
        // Numbers of another magnitude give themselves away (a year beside atomic numbers).
        if isNumeric(answer), let a = Double(answer.filter { $0.isNumber || $0 == "." }), let o = Double(other.filter { $0.isNumber || $0 == "." }) {
            guard max(a, o) <= 20 || (min(a, o) > 0 && max(a, o) / min(a, o) <= 5) else { return false }
        }
        let a = TextKey.normalize(answer)
        let o = TextKey.normalize(other)
        guard !o.isEmpty, a != o, !a.contains(o), !o.contains(a) else { return false }
        let ratio = Double(other.count) / Double(max(1, answer.count))
        guard ratio >= 0.4 && ratio <= 2.5 else { return false }
        return !NearDuplicate.restate(answer, other)
    }

    /// Problems with generated distractors for a card: each must fit (see `fits`) and differ from
    /// the others.
    public static func checkDistractors(_ distractors: [String], answer: String, term: String) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        var seen: [String] = []
        for (index, d) in distractors.enumerated() {
            let label = "distractors[\(index + 1)]"
            let text = d.trimmed
            if text.isEmpty { issues.append(.error("\(label) is empty", check: .stageRules)); continue }
            if text.count > FlashcardRules.backLimit { issues.append(.error("\(label) is longer than \(FlashcardRules.backLimit) characters", check: .stageRules)) }
            if TextKey.normalize(text) == TextKey.normalize(term) {
                issues.append(.error("\(label) is the term itself ('\(term)'); write a wrong definition", check: .stageRules))
                continue
            }
            if !fits(text, distractorOf: answer) {
                if NearDuplicate.restate(answer, text) || TextKey.normalize(text).contains(TextKey.normalize(answer)) || TextKey.normalize(answer).contains(TextKey.normalize(text)) {
                    issues.append(.error("\(label) ('\(text)') says what the right answer says; a distractor must be wrong", check: .stageRules))
                } else if shape(text) != shape(answer) {
                    issues.append(
                        .error(
                            "\(label) ('\(text)') is \(shape(text).described), and the answer is \(shape(answer).described); write a plausible wrong answer of the same kind",
                            check: .stageRules)
                    )
                } else {
                    issues.append(
                        .error(
                            "\(label) ('\(text)') is much \(text.count > answer.count ? "longer" : "shorter") than the answer (\(answer.count) characters); its length would give it away",
                            check: .stageRules))
                }
                continue
            }
            if seen.contains(where: { NearDuplicate.restate($0, text) || TextKey.normalize($0) == TextKey.normalize(text) }) {
                issues.append(.error("\(label) ('\(text)') repeats another distractor", check: .stageRules))
                continue
            }
            seen.append(text)
        }
        return issues
    }

    /// Where a card's back goes among `count` options: stable, spread over the deck.
    public static func answerPosition(_ card: String, count: Int) -> Int {
        let digest = SHA256Digest.hex(Data(TextKey.normalize(card).utf8))
        return Int(digest.prefix(8), radix: 16).map { $0 % max(1, count) } ?? 0
    }

    /// Words a cloze should not hide when the back has another: they say how, not what.
    static let weakBlanks: Set<String> = [
        "together", "only", "also", "very", "more", "most", "used", "make", "made", "many", "much", "other", "different", "same", "such",
        "usually", "often", "rarely", "always", "never", "called", "known", "kind", "type", "thing", "things", "part", "form",
        "around", "about", "across", "within", "without", "through", "between", "among",
    ]

    /// A cloze variant of a back: its most distinctive content word blanked — the one fewest
    /// other backs use, then the longest, then the first; words that say little of what
    /// (`weakBlanks`: "together", "around" …) only when there is nothing else; never a word of the term
    /// (that would make the cloze a lookup) and only a word that occurs once. Nil for a back
    /// without one. `usage` is the deck's (`DeckBacks.usage`): how many backs use each content word.
    public static func cloze(back: String, term: String, usage: [String: Int]) -> DeckCard.Cloze? {
        let termWords = FlashcardRules.plainWords(term)
        let words = back.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "'" && $0 != "-" }).map(String.init)
        let candidates = words.enumerated().compactMap { index, word -> (Int, Int, Int, Int, String)? in
            let content = NearDuplicate.contentWords(word)
            let lower = word.lowercased()
            guard word.count >= 3, let key = content.first, !termWords.contains(FlashcardRules.stem(lower)) else { return nil }
            guard FlashcardRules.wholeWordRanges(of: word, in: back).count == 1 else { return nil }
            let weak = weakBlanks.contains(lower) ? 1 : 0
            return (weak, usage[key] ?? 0, -word.count, index, word)
        }
        guard let best = candidates.min(by: { ($0.0, $0.1, $0.2, $0.3) < ($1.0, $1.1, $1.2, $1.3) }),
            let text = FlashcardRules.clozeFront(sentence: back, span: best.4)
        else { return nil }
        return DeckCard.Cloze(text: text, answer: best.4)
    }

    /// Whether two cards could swap definitions in a matching round: their definitions say much
    /// the same, one's term appears in the other's definition (in any light inflection), or
    /// their terms are the same word.
    public static func couldSwap(_ a: (front: String, back: String), _ b: (front: String, back: String)) -> Bool {
        if TextKey.normalize(a.front) == TextKey.normalize(b.front) { return true }
        if NearDuplicate.similarity(a.back, b.back) >= 0.5 || NearDuplicate.restate(a.back, b.back) { return true }
        // A definition mentions a term when it holds each of the term's words in some form
        // ("Atoms of one element …" mentions "Atom").
        func mentions(_ definition: String, _ term: String) -> Bool {
            let words = FlashcardRules.plainWords(term)
            return TextKey.normalize(term).count >= 3 && !words.isEmpty && words.isSubset(of: FlashcardRules.plainWords(definition))
        }
        return mentions(a.back, b.front) || mentions(b.back, a.front)
    }

    /// Matching rounds of `pairs` cards (4–6), greedily in deck order: a card joins the first
    /// round with room in which it could swap with no card; rounds left under 4 give their cards
    /// to fuller rounds that can take them (up to 6), and what no round takes is unmatched.
    public static func matchingRounds(_ cards: [(id: String, front: String, back: String)], pairs: Int) -> (rounds: [[String]], unmatched: [String]) {
        let size = min(max(pairs, 4), 6)
        var rounds: [[Int]] = []
        for index in cards.indices {
            let card = (front: cards[index].front, back: cards[index].back)
            if let open = rounds.firstIndex(where: { $0.count < size && $0.allSatisfy { !couldSwap((cards[$0].front, cards[$0].back), card) } }) {
                rounds[open].append(index)
            } else {
                rounds.append([index])
            }
        }
        var full = rounds.filter { $0.count >= 4 }
        var unmatched: [Int] = []
        for index in rounds.filter({ $0.count < 4 }).flatMap({ $0 }) {
            let card = (front: cards[index].front, back: cards[index].back)
            if let room = full.firstIndex(where: { $0.count < 6 && $0.allSatisfy { !couldSwap((cards[$0].front, cards[$0].back), card) } }) {
                full[room].append(index)
            } else {
                unmatched.append(index)
            }
        }
        return (full.map { $0.map { cards[$0].id } }, unmatched.sorted().map { cards[$0].id })
    }
}

/// A deck's backs, read once: their content words, an index from each word to the backs that use
/// it, and how many backs use each word. Choosing distractors then reads only the backs that
/// share a word with the card (most shared first), and only as many as it takes to find enough
/// that fit, instead of comparing every pair of cards: a 3,000-card import is enriched in well
/// under a second rather than in minutes.
public struct DeckBacks: Sendable {
    public let backs: [String]
    let words: [[String]]
    let shapes: [DeckRules.Shape]
    let postings: [String: [Int]]
    /// Backs using each content word.
    public let usage: [String: Int]

    public init(_ backs: [String]) {
        self.backs = backs
        let words = backs.map { NearDuplicate.contentWords($0) }
        self.words = words
        shapes = backs.map(DeckRules.shape)
        var postings: [String: [Int]] = [:]
        for (index, list) in words.enumerated() { for word in list { postings[word, default: []].append(index) } }
        self.postings = postings
        usage = postings.mapValues(\.count)
    }

    /// Up to `count` distractors for card `index` from the other backs that fit
    /// (`DeckRules.fits`): those sharing the most content words first, then the closest in
    /// length, then deck order; then, when too few share a word, the rest in deck order after
    /// the card. Distractors do not restate each other.
    public func distractors(for index: Int, count: Int) -> [String] {
        let answer = backs[index]
        var shared: [Int: Int] = [:]
        for word in words[index] { for other in postings[word] ?? [] where other != index { shared[other, default: 0] += 1 } }
        let ranked = shared.keys.sorted { a, b in
            let ka = (-shared[a]!, abs(backs[a].count - answer.count), a)
            let kb = (-shared[b]!, abs(backs[b].count - answer.count), b)
            return ka < kb
        }
        var chosen: [String] = []
        func consider(_ other: Int) {
            guard chosen.count < count, shapes[other] == shapes[index] else { return }
            let candidate = backs[other]
            guard DeckRules.fits(candidate, distractorOf: answer) else { return }
            if chosen.contains(where: { NearDuplicate.restate($0, candidate) || TextKey.normalize($0) == TextKey.normalize(candidate) }) { return }
            chosen.append(candidate)
        }
        for other in ranked where chosen.count < count { consider(other) }
        if chosen.count < count {
            for step in 1..<max(1, backs.count) where chosen.count < count {
                let other = (index + step) % backs.count
                if shared[other] == nil { consider(other) }
            }
        }
        return chosen
    }
}
