import Foundation
import LecternLLM

/// `quotes.json`, exactly in Echo's schema (§4.4): `{"quotes": [{id, text, author, source,
/// emotionTags, category}]}`.
public struct QuoteDatabase: Codable, Sendable, Hashable {
    public struct Quote: Codable, Sendable, Hashable {
        public var id: String
        public var text: String
        public var author: String
        /// The work it is from; empty when the corpus names none.
        public var source: String
        public var emotionTags: [String]
        public var category: String

        public init(id: String, text: String, author: String, source: String, emotionTags: [String], category: String) {
            self.id = id
            self.text = text
            self.author = author
            self.source = source
            self.emotionTags = emotionTags
            self.category = category
        }

        enum CodingKeys: String, CodingKey { case id, text, author, source, emotionTags, category }
    }

    public var quotes: [Quote]

    public init(quotes: [Quote]) { self.quotes = quotes }

    /// The file's bytes: keys in the seed's order, two-space indentation, no escaped slashes.
    public func json() -> Data {
        var out = "{\n  \"quotes\": ["
        for (i, q) in quotes.enumerated() {
            out += i == 0 ? "\n" : ",\n"
            out += "    {\"id\": \(JSONText.string(q.id)), \"text\": \(JSONText.string(q.text)), \"author\": \(JSONText.string(q.author)), "
            out += "\"source\": \(JSONText.string(q.source)), \"emotionTags\": [\(q.emotionTags.map(JSONText.string).joined(separator: ", "))], "
            out += "\"category\": \(JSONText.string(q.category))}"
        }
        out += quotes.isEmpty ? "]\n}\n" : "\n  ]\n}\n"
        return Data(out.utf8)
    }

    /// Echo's limit on the file (QM-005).
    public static let maxBytes = 2_000_000
}

/// `templates.json` (Echo §4.3, SR-001): `{"templates": {"<emotion>": ["…", …]}}`, the emotions
/// in the spec's order.
public struct TemplateBank: Sendable, Hashable {
    public var emotions: [(name: String, templates: [String])]

    public init(emotions: [(name: String, templates: [String])]) { self.emotions = emotions }

    public static func == (a: TemplateBank, b: TemplateBank) -> Bool {
        a.emotions.map(\.name) == b.emotions.map(\.name) && a.emotions.map(\.templates) == b.emotions.map(\.templates)
    }

    public func hash(into hasher: inout Hasher) {
        for e in emotions {
            hasher.combine(e.name)
            hasher.combine(e.templates)
        }
    }

    /// A templates.json read back, its emotions in the file's order (the spec's).
    public static func read(_ data: Data) throws -> TemplateBank {
        struct File: Decodable { var templates: [String: [String]] }
        let file = try JSONDecoder().decode(File.self, from: data)
        // The decoder keeps no key order: each emotion's place is where its key stands in the text.
        let text = String(decoding: data, as: UTF8.self)
        func place(_ name: String) -> String.Index { text.range(of: JSONText.string(name) + ": [")?.lowerBound ?? text.endIndex }
        let names = file.templates.keys.sorted { (place($0), $0) < (place($1), $1) }
        return TemplateBank(emotions: names.map { ($0, file.templates[$0] ?? []) })
    }

    public func json() -> Data {
        var out = "{\n  \"templates\": {"
        for (i, e) in emotions.enumerated() {
            out += i == 0 ? "\n" : ",\n"
            out += "    \(JSONText.string(e.name)): [\n"
            out += e.templates.map { "      " + JSONText.string($0) }.joined(separator: ",\n")
            out += "\n    ]"
        }
        out += emotions.isEmpty ? "}\n}\n" : "\n  }\n}\n"
        return Data(out.utf8)
    }
}

/// JSON string literals, for files written by hand because their key order is part of the
/// contract: the canonical writer's escaping.
public enum JSONText {
    public static func string(_ value: String) -> String { JSONValue.string(value).canonicalText }
}

/// What the model said of one quote, once it passed the checks.
public struct QuoteVerdict: Codable, Sendable, Hashable {
    public var id: String
    /// Tags in the spec's emotion order; empty when rejected.
    public var emotionTags: [String]
    public var category: String?
    /// Why the quote does not belong (`QuoteRules.rejectReasons`), when rejected.
    public var rejected: String?
    /// The tagging round that classified it (1: the batch's first answer).
    public var round: Int

    public init(id: String, emotionTags: [String], category: String?, rejected: String?, round: Int) {
        self.id = id
        self.emotionTags = emotionTags
        self.category = category
        self.rejected = rejected
        self.round = round
    }
}

/// The checks of a tagging answer, quote by quote, and of the template bank.
public enum QuoteRules {
    /// The rejection Lectern gives a fragment itself (`QuoteText.isFragment`), whatever the
    /// model's verdict.
    public static let fragmentReason = "fragment"
    /// The rejection Lectern gives a quotation attributed to a work, not a person
    /// (`QuoteText.namesAWork`).
    public static let workReason = "attributed-to-a-work"
    /// The rejection Lectern gives a quotation attributed to a company or brand
    /// (`QuoteText.namesACompany`), the model's reason for an author who is no person.
    public static let notAPersonReason = "not-a-person"

    /// Why a quote may be rejected, with what each means (said to the model).
    public static let rejectReasons: [(id: String, meaning: String)] = [
        ("not-encouraging", "neither encouraging, comforting nor thoughtful: a joke, a complaint, cynicism, a plain statement of fact"),
        ("mocking", "mocks, belittles or insults people or groups"),
        ("religious", "promotes or attacks a religion or belief"),
        ("political", "takes a side in politics, a party, a politician or a policy"),
        ("not-a-quotation", "a joke setup, a definition, a riddle, a list, a dialogue, a title or an instruction rather than a saying"),
        ("offensive", "crude, sexual, violent or about drugs"),
        ("not-a-person", "its author is not a real person: a company or brand, a film, show or book, a fictional character, a group"),
    ]

    /// A tagging answer's verdict on one quote, as the model writes it.
    public struct TagAnswer: Decodable, Sendable {
        public var n: Int
        public var opening: String
        public var verdict: String
        public var reason: String?
        public var emotions: [String]?
        public var category: String?
    }

    /// The problems of `answer` for `quote` (phrased for the model; empty when it is usable) and
    /// the verdict when there are none.
    public static func check(_ answer: TagAnswer, quote: QuoteCandidate, spec: QuotesSpec, round: Int) -> (QuoteVerdict?, [String]) {
        var problems: [String] = []
        if !openingMatches(answer.opening, quote.text) {
            let words = quote.text.split(separator: " ").prefix(3).joined(separator: " ")
            problems.append("\"opening\" is \"\(answer.opening)\", but quotation \(answer.n) begins \"\(words)\": copy its first three words")
        }
        switch answer.verdict.lowercased() {
        case "reject":
            let reason = (answer.reason ?? "").lowercased().trimmingCharacters(in: .whitespaces)
            guard rejectReasons.contains(where: { $0.id == reason }) else {
                problems.append("a rejected quote needs \"reason\": one of " + rejectReasons.map(\.id).joined(separator: ", "))
                return (nil, problems)
            }
            return problems.isEmpty ? (QuoteVerdict(id: quote.id, emotionTags: [], category: nil, rejected: reason, round: round), []) : (nil, problems)
        case "keep":
            let names = spec.emotions.map(\.name)
            var tags: [String] = []
            for raw in answer.emotions ?? [] {
                guard let name = names.first(where: { $0.caseInsensitiveCompare(raw.trimmingCharacters(in: .whitespaces)) == .orderedSame }) else {
                    problems.append("\"\(raw)\" is not an emotion; use only " + names.joined(separator: ", "))
                    continue
                }
                if !tags.contains(name) { tags.append(name) }  // a tag given twice is the same tag
            }
            if tags.isEmpty && problems.isEmpty { problems.append("a kept quote needs 1 to 3 emotions from " + names.joined(separator: ", ")) }
            if tags.count > 3 { problems.append("give at most 3 emotions, the ones that fit best; there are \(tags.count)") }
            let category = spec.categories.first { $0.caseInsensitiveCompare((answer.category ?? "").trimmingCharacters(in: .whitespaces)) == .orderedSame }
            if category == nil {
                problems.append("\"category\" is \"\(answer.category ?? "")\"; use one of " + spec.categories.joined(separator: ", "))
            }
            guard problems.isEmpty, let category else { return (nil, problems) }
            let ordered = names.filter { tags.contains($0) }
            return (QuoteVerdict(id: quote.id, emotionTags: ordered, category: category, rejected: nil, round: round), [])
        default:
            problems.append("\"verdict\" is \"\(answer.verdict)\"; use \"keep\" or \"reject\"")
            return (nil, problems)
        }
    }

    /// Whether an answer's `opening` names `text`: it ties the verdict to its quote, so that an
    /// answer shifted by one is caught. Compared word by word after normalization: the first
    /// word must match, and two thirds of the opening's words must match the quote's words in
    /// the same places (a small model copies "Children are unpredictable" as "Children are
    /// predictable"); the last word may be cut short (the schema bounds the opening's length).
    public static func openingMatches(_ opening: String, _ text: String) -> Bool {
        let said = GroundingText.normalize(opening).split(separator: " ")
        let quote = GroundingText.normalize(text).split(separator: " ")
        guard let first = said.first, let head = quote.first, first == head || (said.count == 1 && head.hasPrefix(first)) else { return false }
        let k = min(said.count, quote.count)
        var same = 0
        for i in 0..<k where said[i] == quote[i] || (i == said.count - 1 && quote[i].hasPrefix(said[i])) { same += 1 }
        return same * 3 >= said.count * 2
    }

    // MARK: selection

    /// What the database holds per emotion and category.
    public struct Coverage: Codable, Sendable, Hashable {
        public var emotions: [String: Int]
        public var categories: [String: Int]
    }

    /// The database from the kept quotes: every kept quote when there are no more than `target`
    /// (a ceiling, not a quota: no quote is taken to reach it); otherwise each emotion first gets
    /// quotes up to `minPerEmotion` (in id order, which is stable and unrelated to the corpus
    /// order), then the rest in id order. `shortfalls` says the database is under its target (a
    /// note, not a fault); `belowMinimum` names each emotion with fewer than `minPerEmotion` quotes
    /// that fit it, which fails the run.
    public static func select(
        _ candidates: [QuoteCandidate], verdicts: [String: QuoteVerdict], spec: QuotesSpec
    )
        -> (database: QuoteDatabase, coverage: Coverage, shortfalls: [String], belowMinimum: [(emotion: String, fit: Int)])
    {
        let kept = candidates.filter { verdicts[$0.id]?.rejected == nil && verdicts[$0.id] != nil }.sorted { $0.id < $1.id }
        var chosen: Set<String> = []
        if kept.count <= spec.target {
            chosen = Set(kept.map(\.id))
        } else {
            for emotion in spec.emotions {
                var have = kept.filter { chosen.contains($0.id) && verdicts[$0.id]!.emotionTags.contains(emotion.name) }.count
                for quote in kept where have < spec.minPerEmotion && chosen.count < spec.target {
                    if !chosen.contains(quote.id) && verdicts[quote.id]!.emotionTags.contains(emotion.name) {
                        chosen.insert(quote.id)
                        have += 1
                    }
                }
            }
            for quote in kept where chosen.count < spec.target { chosen.insert(quote.id) }
        }
        let quotes = kept.filter { chosen.contains($0.id) }.map { c in
            let v = verdicts[c.id]!
            // The person's name, without a role the attribution adds; the id stays the candidate's.
            return QuoteDatabase.Quote(
                id: c.id, text: c.text, author: QuoteText.personName(c.author), source: c.source, emotionTags: v.emotionTags, category: v.category ?? "")
        }
        var coverage = Coverage(emotions: [:], categories: [:])
        for e in spec.emotions { coverage.emotions[e.name] = 0 }
        for c in spec.categories { coverage.categories[c] = 0 }
        for q in quotes {
            for t in q.emotionTags { coverage.emotions[t, default: 0] += 1 }
            coverage.categories[q.category, default: 0] += 1
        }
        var shortfalls: [String] = []
        if quotes.count < spec.target {
            shortfalls.append(
                "the database holds the \(quotes.count) quotes that fit, under the target of \(spec.target) (a ceiling): add quote collections to 'corpus' for more")
        }
        // Every kept quote that fits the emotion counts, chosen or not: a shortfall is what the
        // corpus and the tagging gave, not what the target cut.
        let below = spec.emotions.compactMap { e -> (emotion: String, fit: Int)? in
            let fit = kept.filter { verdicts[$0.id]!.emotionTags.contains(e.name) }.count
            return fit < spec.minPerEmotion ? (e.name, fit) : nil
        }
        return (QuoteDatabase(quotes: quotes), coverage, shortfalls, below)
    }

    // MARK: templates

    /// The problem of one template (nil when it is usable): placeholders other than one
    /// `{keyword}`, more than two sentences, longer than `maxCharacters` once a keyword of
    /// `keywordLength` characters is in, markup or symbols, or a script other than the language's.
    public static func templateProblem(_ template: String, spec: TemplateBankSpec, language: String) -> String? {
        let placeholder = TemplateBankSpec.placeholder
        let uses = template.components(separatedBy: placeholder).count - 1
        let bare = template.replacingOccurrences(of: placeholder, with: "")
        if bare.contains("{") || bare.contains("}") { return "\"\(template)\": the only placeholder is {keyword}" }
        if uses > 1 { return "\"\(template)\": {keyword} appears \(uses) times; use it once at most" }
        let filled = template.replacingOccurrences(of: placeholder, with: String(repeating: "x", count: spec.keywordLength))
        if filled.count > spec.maxCharacters {
            return "\"\(template)\": \(filled.count) characters with a \(spec.keywordLength)-character keyword; at most \(spec.maxCharacters)"
        }
        if template.count < 15 { return "\"\(template)\": too short to be a sentence of encouragement" }
        if QuoteText.hasOddCharacters(bare) { return "\"\(template)\": plain text only, no markup, symbols or emoji" }
        if sentenceCount(template) > 2 { return "\"\(template)\": more than two sentences" }
        if let last = template.last, !".!?؟…".contains(last) { return "\"\(template)\": end it as a sentence ends (. ! ?)" }
        // The app puts a word where {keyword} is: glued to another word it makes a new one
        // ("eager{keyword}" shows as "eagerexam").
        if let range = template.range(of: placeholder) {
            let before = range.lowerBound > template.startIndex ? template[template.index(before: range.lowerBound)] : " "
            let after = range.upperBound < template.endIndex ? template[range.upperBound] : " "
            if before.isLetter || before.isNumber || after.isLetter || after.isNumber {
                return "\"\(template)\": {keyword} must stand as a word of its own, with a space or punctuation on each side"
            }
        }
        // Echo puts a noun from the message where {keyword} is (SR-002: "the most frequent
        // nouns"): the place must be one where any noun reads.
        if LanguageProfile.isEnglish(language), let problem = keywordSlotProblem(template) { return "\"\(template)\": \(problem)" }
        // Echo shows the line under the reader's own message: it speaks to them ("you"), not as them.
        if LanguageProfile.isEnglish(language) {
            let words = Set(bare.lowercased().split(whereSeparator: { !$0.isLetter && $0 != "'" && $0 != "’" }).map { $0.replacingOccurrences(of: "’", with: "'") })
            if !words.isDisjoint(with: ["i", "i'm", "i've", "i'll", "i'd", "me", "my", "myself", "mine"]) {
                return "\"\(template)\": speak to the reader as \"you\", not as \"I\""
            }
        }
        if LanguageProfile.isArabic(language) {
            let letters = bare.unicodeScalars.filter { $0.properties.isAlphabetic }
            let arabic = letters.filter { (0x0600...0x06FF).contains($0.value) || (0x0750...0x077F).contains($0.value) }
            if arabic.count * 2 < letters.count { return "\"\(template)\": write it in Arabic" }
        } else if LanguageProfile.isEnglish(language) {
            if bare.unicodeScalars.contains(where: { $0.properties.isAlphabetic && $0.value > 0x24F }) {
                return "\"\(template)\": write it in English"
            }
        }
        return nil
    }

    /// Why `{keyword}` in an English template is not where a noun goes (nil when it is, or when
    /// the line has none). The app fills it with a noun from the message ("exam", "marathon",
    /// "move"), so the word before it must be one a noun follows whatever the noun is: a
    /// determiner ("this {keyword}", "your {keyword}"), a preposition ("during {keyword}", "of
    /// {keyword}"), or a word between a determiner and it ("this difficult {keyword}"). Refused:
    /// a verb's place ("time to {keyword}", "will {keyword}", "you {keyword}"), the line's first
    /// word (it would start in lower case), "a" or "an" (which one depends on the noun), and a
    /// word after a comma (the reader addressed as "{keyword}"). Echo's own examples pass.
    static func keywordSlotProblem(_ template: String) -> String? {
        guard let range = template.range(of: TemplateBankSpec.placeholder) else { return nil }
        let head = template[..<range.lowerBound]
        let fix = "put it where any noun reads, right after \"this\", \"the\", \"your\" or a preposition (\"this {keyword}\", \"during {keyword}\"): the app puts a noun from the message there"
        let trimmed = head.trimmingCharacters(in: .whitespaces)
        guard let last = trimmed.last else { return "{keyword} opens the line; \(fix)" }
        if !last.isLetter { return "{keyword} follows \"\(last)\"; \(fix)" }
        let words = trimmed.lowercased().split(whereSeparator: { !$0.isLetter && $0 != "'" && $0 != "’" && $0 != "-" })
        let previous = String(words[words.count - 1])
        if keywordDeterminers.contains(previous) || keywordPrepositions.contains(previous) { return nil }
        if words.count >= 2, keywordDeterminers.contains(String(words[words.count - 2])), !keywordVerbMarkers.contains(previous) {
            return nil
        }
        return "a noun after \"\(previous)\" does not read (\"\(previous) exam\"); \(fix)"
    }

    /// Words any noun may follow, for `keywordSlotProblem`.
    static let keywordDeterminers: Set<String> = ["the", "this", "that", "your", "every", "each", "any", "another", "such"]
    static let keywordPrepositions: Set<String> = [
        "of", "during", "for", "about", "on", "in", "with", "through", "from", "after", "before", "towards", "toward", "into", "beyond",
        "despite", "at", "by", "over", "around", "behind", "since", "until", "within", "amid", "past", "like", "beside", "without", "throughout",
        "upon", "near", "across", "against", "among",
    ]
    /// Words that make the place after them a verb's even after a determiner ("that you {keyword}").
    static let keywordVerbMarkers: Set<String> = [
        "to", "you", "i", "we", "they", "he", "she", "will", "can", "could", "would", "should", "must", "may", "might", "shall", "do", "does",
        "did", "don't", "didn't", "can't", "won't", "let", "let's", "you'll", "you're", "you've", "a", "an",
    ]

    /// What a curator should look at in an accepted English template (empty for none): it speaks
    /// as "we"; it names one reader's life (an activity, a job, an event: `specificWords`, among
    /// them the prompt's example words "exam" and "interview"), so it fits only some messages.
    /// (A line addressing the reader as `{keyword}`, "You're doing great today, {keyword}.", is
    /// refused: `keywordSlotProblem`.) Found reading the recorded bank. They are flagged, not
    /// refused: refused, the 1.5B model could not fill Achievement's ten in sixteen rounds.
    public static func templateConcerns(_ template: String, language: String) -> [String] {
        guard LanguageProfile.isEnglish(language) else { return [] }
        let bare = template.replacingOccurrences(of: TemplateBankSpec.placeholder, with: "")
        // In the line's order, so the concern names the first such word on every run (a Set's
        // order changes from process to process).
        let words = bare.lowercased().split(whereSeparator: { !$0.isLetter && $0 != "'" && $0 != "’" }).map { $0.replacingOccurrences(of: "’", with: "'") }
        var concerns: [String] = []
        if words.contains(where: ["we", "we're", "we've", "we'll", "we'd", "us", "our", "ours", "ourselves", "let's"].contains) {
            concerns.append("speaks as \"we\", not to the reader as \"you\"")
        }
        if let specific = words.first(where: specificWords.contains) {
            concerns.append("'\(specific)' is one person's life, not every message's")
        }
        return concerns
    }

    /// Words that tie an English template to one reader's life: activities, jobs and events (and
    /// the prompt's example keywords "exam" and "interview"), which fit only the messages about them.
    static let specificWords: Set<String> = [
        "exam", "exams", "interview", "interviews", "dancer", "dancing", "photography", "photographer", "photos", "music", "musician", "songs",
        "song", "sports", "sport", "athlete", "business", "company", "job", "career", "promotion", "wedding", "marriage", "baby", "house",
        "car", "school", "college", "university", "degree", "graduation", "marathon", "novel", "painting", "painter", "singer", "actor",
        "doctor", "lawyer", "teacher", "engineer", "startup", "salary", "diet", "gym",
    ]

    /// Sentences: runs ending in `.`, `!`, `?` or `؟` (an ellipsis ends none).
    static func sentenceCount(_ text: String) -> Int {
        let (ends, trailingWords) = sentenceEnds(text)
        return ends.count + (trailingWords ? 1 : 0)
    }

    /// The character counts of `text` (trimmed) at which its sentences end, and whether words
    /// follow the last end.
    static func sentenceEnds(_ text: String) -> (ends: [Int], trailingWords: Bool) {
        let characters = Array(text.trimmingCharacters(in: .whitespaces))
        var ends: [Int] = []
        var hasWords = false
        var i = 0
        while i < characters.count {
            let c = characters[i]
            if c.isLetter || c.isNumber || c == "{" { hasWords = true }
            if ".!?؟".contains(c) {
                var j = i
                while j + 1 < characters.count && ".!?؟".contains(characters[j + 1]) { j += 1 }
                let ellipsis = j > i && characters[i] == "." && characters[j] == "."
                if hasWords && !ellipsis && (j + 1 == characters.count || characters[j + 1] == " ") {
                    ends.append(j + 1)
                    hasWords = false
                }
                i = j
            }
            i += 1
        }
        return (ends, hasWords)
    }

    /// An English line turned from the first person to the second: "I feel" → "you feel", "I'm"
    /// → "you're", "I am"/"I was" → "you are"/"you were", "me" → "you", "my" → "your", "myself" →
    /// "yourself", "mine" → "yours"; a capital where the word began a sentence. English verbs have
    /// the same form after "I" and "you" except "am" and "was", which are turned with it. Nil when
    /// nothing changed.
    static func secondPerson(_ line: String) -> String? {
        let swaps: [String: String] = [
            "i": "you", "i'm": "you're", "i've": "you've", "i'll": "you'll", "i'd": "you'd", "me": "you", "my": "your",
            "myself": "yourself", "mine": "yours",
        ]
        var out: [String] = []
        var changed = false
        var previousWasI = false
        for word in line.split(separator: " ", omittingEmptySubsequences: false) {
            let token = String(word)
            // The word without the punctuation around it.
            let core = token.trimmingCharacters(in: CharacterSet.punctuationCharacters.subtracting(CharacterSet(charactersIn: "'’")))
            let key = core.lowercased().replacingOccurrences(of: "’", with: "'")
            var replacement: String?
            if let swap = swaps[key] {
                replacement = swap
            } else if previousWasI && key == "am" {
                replacement = "are"
            } else if previousWasI && key == "was" {
                replacement = "were"
            }
            previousWasI = key == "i"
            guard var replacement, !core.isEmpty, let range = token.range(of: core) else {
                out.append(token)
                continue
            }
            if core.first?.isUppercase == true && core != "I" || (core == "I" && (out.isEmpty || out.last.map { $0.hasSuffix(".") || $0.hasSuffix("!") || $0.hasSuffix("?") } == true)) {
                replacement = replacement.prefix(1).uppercased() + replacement.dropFirst()
            }
            out.append(token.replacingCharacters(in: range, with: replacement))
            changed = true
        }
        return changed ? out.joined(separator: " ") : nil
    }

    /// A candidate too long or of more than two sentences, cut after its second or its first
    /// sentence: the longest such beginning that passes `templateProblem` on its own, or nil. The
    /// cut keeps the model's words and order; a small model often writes a good short line and
    /// then goes on.
    static func shortenedTemplate(_ template: String, spec: TemplateBankSpec, language: String) -> String? {
        let trimmed = template.trimmingCharacters(in: .whitespaces)
        let ends = sentenceEnds(trimmed).ends
        // Whole sentences only: also what is left of a line cut off mid-sentence.
        for count in [2, 1] where ends.count >= count && ends[count - 1] < trimmed.count {
            let cut = String(trimmed.prefix(ends[count - 1]))
            if templateProblem(cut, spec: spec, language: language) == nil { return cut }
        }
        return nil
    }

    /// Chooses `perEmotion` templates from a model's candidates: the usable ones in order, no two
    /// near duplicates (`NearDuplicate.areDuplicates`), at least `minWithoutPlaceholder` without
    /// `{keyword}` and more than half with it. The chosen ones, or the problems to send back.
    public static func chooseTemplates(_ candidates: [String], spec: TemplateBankSpec, language: String) -> Result<[String], TemplateProblems> {
        let (usable, problems) = usableTemplates(candidates, accepted: [], spec: spec, language: language)
        let placeholder = TemplateBankSpec.placeholder
        let with = usable.filter { $0.contains(placeholder) }
        let without = usable.filter { !$0.contains(placeholder) }
        let minWith = spec.perEmotion / 2 + 1
        let takeWithout = min(without.count, max(spec.minWithoutPlaceholder, spec.perEmotion - with.count))
        let takeWith = spec.perEmotion - takeWithout
        guard without.count >= spec.minWithoutPlaceholder, with.count >= minWith, takeWith >= minWith, with.count >= takeWith else {
            var summary = problems
            summary.append(
                "there are \(with.count) usable templates with {keyword} and \(without.count) without; \(spec.perEmotion) are needed, "
                    + "at least \(minWith) with {keyword} once and at least \(spec.minWithoutPlaceholder) without any placeholder")
            return .failure(TemplateProblems(messages: summary))
        }
        let chosenWith = Set(with.prefix(takeWith))
        let chosenWithout = Set(without.prefix(takeWithout))
        return .success(usable.filter { chosenWith.contains($0) || chosenWithout.contains($0) })
    }

    /// How many more usable templates `accepted` needs before `chooseTemplates` can fill the
    /// bank: with `{keyword}` and without any placeholder.
    public static func templateNeeds(_ accepted: [String], spec: TemplateBankSpec) -> (with: Int, without: Int) {
        let placeholder = TemplateBankSpec.placeholder
        let with = accepted.filter { $0.contains(placeholder) }.count
        let without = accepted.count - with
        let needWithout = max(0, spec.minWithoutPlaceholder - without)
        let minWith = spec.perEmotion / 2 + 1
        let usableWithout = min(max(without, spec.minWithoutPlaceholder), spec.perEmotion - minWith)
        return (max(0, spec.perEmotion - usableWithout - with), needWithout)
    }

    /// The candidates of one answer that pass `templateProblem` and repeat neither an `accepted`
    /// template nor each other, sanitized, and the problems of the others.
    /// Candidates that copy one of `examples` (the prompt's examples, written for another emotion)
    /// are not usable either.
    public static func usableTemplates(
        _ candidates: [String], accepted: [String], examples: [String] = [], spec: TemplateBankSpec, language: String
    ) -> (usable: [String], problems: [String]) {
        var problems: [String] = []
        var usable: [String] = []
        for raw in candidates {
            var template = QuoteText.sanitize(raw)
            if let problem = templateProblem(template, spec: spec, language: language) {
                // Said as "I" in English: the same line said to "you", when that passes.
                if LanguageProfile.isEnglish(language), problem.hasSuffix("not as \"I\""), let turned = secondPerson(template),
                    templateProblem(turned, spec: spec, language: language) == nil || shortenedTemplate(turned, spec: spec, language: language) != nil
                {
                    template = templateProblem(turned, spec: spec, language: language) == nil ? turned : shortenedTemplate(turned, spec: spec, language: language)!
                } else if let shorter = shortenedTemplate(template, spec: spec, language: language) {
                    template = shorter
                } else {
                    problems.append(problem)
                    continue
                }
            }
            if let example = examples.first(where: { NearDuplicate.areDuplicates($0.lowercased(), template.lowercased()) }) {
                problems.append("\"\(template)\" copies the example \"\(example)\", written for another emotion; write your own")
            } else if let earlier = (accepted + usable).first(where: { NearDuplicate.areDuplicates($0.lowercased(), template.lowercased()) }) {
                problems.append("\"\(template)\" repeats \"\(earlier)\"; each template must say something different")
            } else {
                usable.append(template)
            }
        }
        return (usable, problems)
    }

    public struct TemplateProblems: Error, Sendable {
        public var messages: [String]
    }
}
