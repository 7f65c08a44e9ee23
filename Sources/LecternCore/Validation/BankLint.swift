import Foundation
import LecternLLM

/// One question of a JSON Lines bank, a line of its own:
/// `{"id": "q1", "question": "…", "options": ["…", "…"], "answer": 0}` (`answer` is the 0-based
/// index of the correct option). Other keys on the line are ignored.
public struct BankItem: Sendable, Hashable {
    public var id: String
    public var question: String
    public var options: [String]
    public var answer: Int
    /// Where it is in its file (1-based), for messages.
    public var line: Int

    public init(id: String, question: String, options: [String], answer: Int, line: Int) {
        self.id = id; self.question = question; self.options = options; self.answer = answer; self.line = line
    }
}

/// The kinds of file `lectern check` reads (its `--help` names each).
public enum BankFormat: String, Codable, Sendable, Hashable, CaseIterable {
    case jsonLines = "JSON Lines"
    case exam = "exam.json"
    case course = "course.json"
    case quotes = "quotes.json"
    case deck = "deck.json"
}

/// What `lectern check` found: how many questions it checked and the problems of each flagged
/// one, in file order.
public struct BankReport: Codable, Sendable, Hashable {
    public struct Flag: Codable, Sendable, Hashable {
        public var id: String
        public var problems: [String]
        /// The check of each problem, in the same order (`QualityCheck`).
        public var checks: [QualityCheck]

        public init(id: String, problems: [Refusal]) {
            self.id = id
            self.problems = problems.messages
            self.checks = problems.map(\.check)
        }
    }

    public var format: BankFormat
    /// Questions checked.
    public var items: Int
    public var flagged: [Flag]
    /// Lectures read beside a course.json and checked.
    public var lectures: Int
    /// What a blind solver made of the bank's multiple-choice questions (`lectern check --model`).
    public var solved: Solved?

    /// A blind solve of the bank: its solver, the questions put to it, how many it answered with
    /// the key, how many with no option (cut off, or naming none), how many answers came from the
    /// exchange cache, and the tokens and cost of those asked now.
    public struct Solved: Codable, Sendable, Hashable {
        public var model: String
        public var provider: String
        public var asked: Int
        public var agreed: Int
        public var unanswered: Int
        public var cached: Int
        public var tokens: Int
        /// From the price table; nil when it has no price for the model.
        public var costUSD: Double?

        public init(model: String, provider: String, asked: Int, agreed: Int, unanswered: Int, cached: Int, tokens: Int, costUSD: Double?) {
            self.model = model; self.provider = provider; self.asked = asked; self.agreed = agreed; self.unanswered = unanswered
            self.cached = cached
            self.tokens = tokens; self.costUSD = costUSD
        }

        enum CodingKeys: String, CodingKey {
            case model, provider, asked, agreed, unanswered, cached, tokens, costUSD = "cost_usd"
        }
    }

    /// What the rubric judge made of the bank's multiple-choice questions (`--rubric`).
    public var judged: Judged?

    /// A rubric judgement of the bank: its judge, the questions judged, those it passed, the
    /// criteria it found broken quoting the question (by criterion), the broken verdicts that
    /// quoted nothing of it (disregarded), the answers that were no judgement, and their cost.
    public struct Judged: Codable, Sendable, Hashable {
        public var model: String
        public var provider: String
        public var judged: Int
        public var passed: Int
        public var broken: [String: Int]
        public var unquoted: Int
        public var unanswered: Int
        public var cached: Int
        public var tokens: Int
        public var costUSD: Double?

        public init(
            model: String, provider: String, judged: Int, passed: Int, broken: [String: Int], unquoted: Int, unanswered: Int, cached: Int, tokens: Int,
            costUSD: Double?
        ) {
            self.model = model
            self.provider = provider
            self.judged = judged
            self.passed = passed
            self.broken = broken
            self.unquoted = unquoted
            self.unanswered = unanswered
            self.cached = cached
            self.tokens = tokens
            self.costUSD = costUSD
        }

        enum CodingKeys: String, CodingKey {
            case model, provider, judged, passed, broken, unquoted, unanswered, cached, tokens, costUSD = "cost_usd"
        }
    }

    public init(format: BankFormat, items: Int, flagged: [Flag], lectures: Int = 0) {
        self.format = format; self.items = items; self.flagged = flagged; self.lectures = lectures
    }

    /// `{"items": N, "flagged": [{"checks": ["…"], "id": "…", "problems": ["…"]}]}`, one flagged
    /// item a line, `checks` naming the check of each problem; a course.json's report also gives
    /// `"lectures": N` after the items, and a solved bank `"solved": {…}` (``Solved``).
    public var jsonText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let flags = flagged.compactMap { (try? encoder.encode($0)).flatMap { String(data: $0, encoding: .utf8) } }
        var counts = "\"items\": \(items)" + (format == .course ? ", \"lectures\": \(lectures)" : "")
        if let solved, let data = try? encoder.encode(solved), let text = String(data: data, encoding: .utf8) {
            counts += ", \"solved\": " + text
        }
        if let judged, let data = try? encoder.encode(judged), let text = String(data: data, encoding: .utf8) {
            counts += ", \"judged\": " + text
        }
        if flags.isEmpty { return "{\(counts), \"flagged\": []}\n" }
        return "{\(counts), \"flagged\": [\n  " + flags.joined(separator: ",\n  ") + "\n]}\n"
    }

    /// `ID: problem; problem`, one flagged item a line.
    public var text: String {
        flagged.map { "\($0.id): \($0.problems.joined(separator: "; "))\n" }.joined()
    }
}

/// A file `lectern check` cannot read as a bank, with every problem found and where.
public struct BankReadError: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [SpecDiagnostic]

    public init(_ diagnostics: [SpecDiagnostic]) {
        self.diagnostics = diagnostics
    }

    /// The first `limit` problems and how many more there are.
    public func description(limit: Int) -> String {
        var lines = diagnostics.prefix(limit).map(\.description)
        if diagnostics.count > limit { lines.append("… and \(diagnostics.count - limit) more") }
        return lines.joined(separator: "\n")
    }

    public var description: String { description(limit: 20) }
}

/// The deterministic checks of `lectern check` over a question bank written by hand or generated:
/// the validators the pipeline runs on model answers (`QuestionRules`, `ReinforcementRules`),
/// and checks across the bank (ids used twice, the same question asked twice). No model call.
public enum BankLint {
    /// Reads `data` (the file `file`, named so in messages), finds its format and checks it.
    /// `language` overrides the file's own (`language` in exam.json and course.json; JSON Lines
    /// has none and is taken as English).
    ///
    /// `lecture` reads a lecture a course.json names (its bundle-relative path) and returns its
    /// Markdown, or nil when there is none to read; without it lectures are not checked.
    public static func check(
        data: Data, file: String, language: String? = nil, lecture: ((String) -> String?)? = nil
    ) throws(BankReadError) -> BankReport {
        switch try read(data: data, file: file) {
        case .lines(let items): return check(items, language: language ?? "en")
        case .course(let course): return check(course, language: language ?? course.language, lecture: lecture)
        case .exam(let exam): return check(exam, language: language ?? exam.language ?? "en")
        case .quotes(let database, let bytes): return check(database, bytes: bytes)
        case .deck(let deck): return check(deck)
        }
    }

    /// A bank as read from its file, before it is checked.
    enum ReadBank {
        case lines([BankItem])
        case course(Course)
        case exam(ExamDraft)
        case quotes(QuoteDatabase, bytes: Int)
        case deck(Deck)
    }

    /// Reads `data` (the file `file`, named so in messages) in the format its name and content say.
    static func read(data: Data, file: String) throws(BankReadError) -> ReadBank {
        guard var text = String(data: data, encoding: .utf8) else {
            throw BankReadError([SpecDiagnostic(file: file, message: "is not UTF-8 text", hint: "save the bank as UTF-8")])
        }
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        let lowered = file.lowercased()
        if lowered.hasSuffix(".jsonl") || lowered.hasSuffix(".ndjson") {
            return .lines(try readJSONLines(text, file: file))
        }
        guard let first = text.first(where: { !$0.isWhitespace }) else {
            throw BankReadError([SpecDiagnostic(file: file, message: "is empty", hint: formatsHint)])
        }
        guard first == "{" else {
            let message = "is not a question bank: it starts with '\(first)', not '{'"
            throw BankReadError([SpecDiagnostic(file: file, message: message, hint: formatsHint)])
        }
        // The document's top-level keys say what it is; its tree is let go (at the end of the
        // `do`) before the file is decoded, so that a large course.json is not held twice (the
        // quality report of a 1,000-topic course reads a 6 MB course.json).
        var keys: Set<String>?
        do {
            if case .object(let object) = try JSONValue.parse(text) { keys = Set(object.keys) }
        } catch {
            // Not one JSON document: JSON Lines if its first line is an object of its own.
            let firstLine = text.split(separator: "\n", omittingEmptySubsequences: true).first { !$0.trimmed.isEmpty } ?? ""
            if case .object? = try? JSONValue.parse(String(firstLine)) {
                return .lines(try readJSONLines(text, file: file))
            }
            let reason = syntaxError(text)
            let place = reason.flatMap { Self.position(of: $0, in: text) }
            throw BankReadError([
                SpecDiagnostic(
                    file: file, line: place?.line, column: place?.column, message: "is not valid JSON: \(reason ?? describe(error))",
                    hint: formatsHint)
            ])
        }
        guard let keys else {
            throw BankReadError([SpecDiagnostic(file: file, message: "is not a JSON object", hint: formatsHint)])
        }
        // The file's bytes as decoded (without a byte order mark).
        let body = text.utf8.count == data.count ? data : Data(text.utf8)
        if keys.contains("subjects") {
            return .course(try decode(Course.self, from: body, file: file, format: .course))
        }
        if keys.contains("items") {
            guard keys.contains("format_version") else {
                throw BankReadError([
                    SpecDiagnostic(
                        file: file, message: "has 'items' but no 'format_version'",
                        hint: "an exam bank (exam.json) starts with \"format_version\": \(ExamBank.formatVersion); add it")
                ])
            }
            return .exam(try decode(ExamDraft.self, from: body, file: file, format: .exam))
        }
        if keys.contains("quotes") {
            return .quotes(try decode(QuoteDatabase.self, from: body, file: file, format: .quotes), bytes: text.utf8.count)
        }
        if keys.contains("cards") {
            return .deck(try decode(Deck.self, from: body, file: file, format: .deck))
        }
        if keys.contains("question") {
            // One JSON Lines item, perhaps written over several lines.
            return .lines([try item((try? JSONValue.parse(text)) ?? .null, line: 1, file: file)])
        }
        throw BankReadError([
            SpecDiagnostic(
                file: file, message: "is not a question bank: the object has neither 'items' (exam.json), 'subjects' (course.json), 'quotes' (quotes.json) nor 'cards' (deck.json)",
                hint: formatsHint)
        ])
    }

    static let formatsHint =
        "lectern check reads exam.json (an object with 'format_version' and 'items'), course.json (an object with 'subjects'), quotes.json (an object with 'quotes'), deck.json (an object with 'cards'), or JSON Lines: one {\"id\": …, \"question\": …, \"options\": […], \"answer\": 0} a line"

    // MARK: JSON Lines

    /// The items of a JSON Lines bank; every line that is not an item is reported, with its number.
    public static func readJSONLines(_ text: String, file: String) throws(BankReadError) -> [BankItem] {
        var items: [BankItem] = []
        var problems: [SpecDiagnostic] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmed
            if line.isEmpty { continue }
            do {
                items.append(try item(try JSONValue.parse(line), line: index + 1, file: file))
            } catch let error as BankReadError {
                problems += error.diagnostics
            } catch {
                let reason = syntaxError(line)
                problems.append(
                    SpecDiagnostic(
                        file: file, line: index + 1, column: reason.flatMap { Self.position(of: $0, in: line) }?.column,
                        message: "is not JSON: \(reason ?? describe(error))",
                        hint: "write each question as one JSON object on one line"))
            }
        }
        if !problems.isEmpty { throw BankReadError(problems) }
        if items.isEmpty { throw BankReadError([SpecDiagnostic(file: file, message: "has no questions", hint: formatsHint)]) }
        return items
    }

    static func item(_ value: JSONValue, line: Int, file: String) throws(BankReadError) -> BankItem {
        func problem(_ message: String, _ hint: String) -> BankReadError {
            BankReadError([SpecDiagnostic(file: file, line: line, message: message, hint: hint)])
        }
        let shape = "each line is {\"id\": \"…\", \"question\": \"…\", \"options\": [\"…\", …], \"answer\": 0}"
        guard case .object(let object) = value else { throw problem("is not a JSON object", shape) }
        let missing = ["id", "question", "options", "answer"].filter { object[$0] == nil }
        if !missing.isEmpty {
            throw problem("lacks \(missing.map { "'\($0)'" }.joined(separator: ", "))", shape)
        }
        guard let id = object["id"]?.stringValue else { throw problem("'id' is not a string", "write the id in quotes: \"id\": \"q1\"") }
        guard let question = object["question"]?.stringValue else { throw problem("'question' is not a string", shape) }
        guard let list = object["options"]?.arrayValue else { throw problem("'options' is not a list", shape) }
        var options: [String] = []
        for (index, option) in list.enumerated() {
            guard let text = option.stringValue else { throw problem("options[\(index)] is not a string", "write every option as text in quotes") }
            options.append(text)
        }
        guard let answer = object["answer"]?.intValue else {
            throw problem("'answer' is not a whole number", "'answer' is the 0-based index of the correct option: 0 for the first")
        }
        return BankItem(id: id, question: question, options: options, answer: answer, line: line)
    }

    /// Checks the items of a JSON Lines bank.
    public static func check(_ items: [BankItem], language: String = "en") -> BankReport {
        var flags: [BankReport.Flag] = []
        var firstLineOfID: [String: Int] = [:]
        var stems = StemIndex()
        for item in items {
            var problems: [Refusal] = []
            if item.id.trimmed.isEmpty { problems.append(Refusal(.stageRules, "the id is empty (line \(item.line))")) }
            if let first = firstLineOfID[item.id] {
                problems.append(Refusal(.stageRules, "the id is used again (line \(item.line); first on line \(first))"))
            } else {
                firstLineOfID[item.id] = item.line
            }
            if item.question.trimmed.isEmpty { problems.append(Refusal(.stageRules, "the question is empty")) }
            problems += checkOptionCount(item.options.count)
            let inRange = item.options.indices.contains(item.answer)
            if !inRange {
                let range = item.options.isEmpty ? "there are no options" : "the options are numbered 0 to \(item.options.count - 1)"
                problems.append(Refusal(.stageRules, "the answer \(item.answer) is not an option: \(range)"))
            }
            let choices = item.options.enumerated().map { Choice(text: $0.element, correct: $0.offset == item.answer, feedback: "") }
            // A bank written by people: an option may be as long as its subject needs (a law
            // question's options are paragraphs); a course's options are held to 300 characters.
            problems += QuestionRules.checkMultipleChoice(
                prompt: item.question, options: choices, labels: item.options.indices.map { "options[\($0)]" }, optionCount: item.options.count,
                language: language, requiresFeedback: false, maxOptionLength: nil
            ).errors.filter { inRange || $0.kind != QuestionRules.oneCorrectKind }.map(\.refusal)
            problems += mathIssues([("the question", item.question)] + item.options.enumerated().map { ("options[\($0.offset)]", $0.element) }).map(\.refusal)
            // A stem that reads its options ("Which of the following statements is true?",
            // "With a 'bug':") asks another question with another key and other options; with the
            // same key, or the same options, it is the same question asked twice. Any other stem
            // ("What is impedance?") is the same question whatever its options.
            let readsItsOptions = Self.readsItsOptions(item.question, language: language)
            let keyText = !readsItsOptions ? "" : inRange ? TextKey.normalize(item.options[item.answer], language: language) : "\u{0}"
            let optionSet = !readsItsOptions ? [] : Set(item.options.map { TextKey.normalize($0, language: language) })
            if let earlier = stems.add(item.question, id: item.id, language: language, answer: keyText, options: optionSet) {
                problems.append(Refusal(.distinctQuestions, "the same question as \(earlier)"))
            }
            if !problems.isEmpty { flags.append(.init(id: item.id.trimmed.isEmpty ? "line \(item.line)" : item.id, problems: problems)) }
        }
        return BankReport(format: .jsonLines, items: items.count, flagged: flags)
    }

    /// Whether an English stem is finished by its options or chooses among them: "which", "the
    /// following", "choose the most correct statement", a blank, a sentence its options end
    /// ("Tariffs and quotas", "… contain mostly metal because"). Other languages: never (a
    /// repeated stem is the same question).
    static func readsItsOptions(_ stem: String, language: String) -> Bool {
        guard LanguageProfile.isEnglish(language) || language.isEmpty else { return false }
        let trimmed = stem.trimmed
        guard let last = trimmed.last(where: { !"\"'”’)".contains($0) }) else { return false }
        let unfinished = !".?!".contains(last) && trimmed.firstMatch(of: Self.opensAQuestion) == nil
        return last == ":" || unfinished || trimmed.contains("__") || trimmed.firstMatch(of: Self.choosesAmongOptions) != nil
    }

    /// A question without its mark is still a question: "what is the capital of France".
    nonisolated(unsafe) static let opensAQuestion =
        /^(?i:what|who|whom|whose|where|when|why|how|is|are|was|were|do|does|did|can|could|will|would|should|has|have|had)\b/

    nonisolated(unsafe) static let choosesAmongOptions = /(?i)\b(which|the\s+following|choose|select)\b/

    static func checkOptionCount(_ count: Int) -> [Refusal] {
        QuestionRules.optionCounts.contains(count) ? [] : [Refusal(.stageRules, "it has \(count) option\(count == 1 ? "" : "s"); a question has 2 to 6")]
    }

    // MARK: exam.json

    /// exam.json as `ExamBank` writes it, read leniently: what the checks need, with the fields a
    /// check reports on optional, so that a wrong value is a flagged problem rather than an
    /// unreadable file.
    struct ExamDraft: Decodable {
        struct Item: Decodable {
            var id: String
            var section: String?
            var category: String?
            var difficulty: String?
            var difficultyLabel: String?
            var prompt: String
            var options: [Option]
            var explanation: String?
            var sources: [Source]?
            var passage: String?
            var solution: ItemSolution?
            var figure: ItemFigure?

            enum CodingKeys: String, CodingKey {
                case id, section, category, difficulty, difficultyLabel = "difficulty_label", prompt, options, explanation, sources, passage, solution,
                    figure
            }
        }

        struct Option: Decodable {
            var text: String
            var correct: Bool
            var feedback: String?
        }

        struct Source: Decodable {
            var document: String?
            var quote: String?
        }

        /// A passage: its id, and its text when the file holds it (a bundle's exam.json does).
        struct PassageDraft: Decodable {
            var id: String
            var text: String?
        }

        struct Form: Decodable {
            struct Section: Decodable { var items: [String] }
            var id: String
            var sections: [Section]
        }

        var language: String?
        var sections: [ExamBankSection]?
        var passages: [PassageDraft]?
        var items: [Item]
        var forms: [Form]?
    }

    static func check(_ exam: ExamDraft, language: String) -> BankReport {
        var flags: [BankReport.Flag] = []
        var seenIDs: Set<String> = []
        var stems = StemIndex()
        let passages = Set((exam.passages ?? []).map(\.id))
        let passageTexts = Dictionary((exam.passages ?? []).compactMap { p in p.text.map { (p.id, $0) } }, uniquingKeysWith: { first, _ in first })
        let sections = exam.sections ?? []
        let difficulties = Difficulty.allCases.map(\.rawValue).joined(separator: ", ")
        for (index, item) in exam.items.enumerated() {
            var problems: [Refusal] = []
            if item.id.trimmed.isEmpty { problems.append(Refusal(.stageRules, "the id is empty (items[\(index)])")) }
            if !seenIDs.insert(item.id).inserted { problems.append(Refusal(.stageRules, "the id is used by an earlier item (this is items[\(index)])")) }
            if item.prompt.trimmed.isEmpty { problems.append(Refusal(.stageRules, "the prompt is empty")) }
            problems += checkOptionCount(item.options.count)
            let choices = item.options.map { Choice(text: $0.text, correct: $0.correct, feedback: $0.feedback ?? "") }
            // Feedback is checked (distinct, agreeing with the key) when every option has some.
            problems += QuestionRules.checkMultipleChoice(
                prompt: item.prompt, options: choices, labels: item.options.indices.map { "options[\($0)]" }, optionCount: item.options.count,
                language: language, requiresFeedback: choices.allSatisfy { !$0.feedback.trimmed.isEmpty }, explanation: item.explanation
            ).errors.map(\.refusal)
            problems += mathIssues(question: (item.prompt, choices, nil, item.explanation ?? "")).map(\.refusal)
            problems += ExamRules.aboutTheItemIssues(explanation: item.explanation ?? "", options: choices).errors.map(\.refusal)
            problems += ExamRules.unfinishedIssues(explanation: item.explanation ?? "", options: choices).errors.map(\.refusal)
            let format = sections.first(where: { $0.id == item.section })?.categories.first(where: { $0.id == item.category })?.format
            if let format {
                problems += ExamRules.formatIssues(
                    prompt: item.prompt, options: choices, quote: item.sources?.first?.quote, format: format, language: language,
                    labels: item.options.indices.map { "options[\($0)]" }
                ).errors.map(\.refusal)
                if item.passage == nil && format != .reading {
                    problems += ExamRules.sourcelessIssues(prompt: item.prompt, format: format, language: language).errors.map(\.refusal)
                }
                if format.computesKey {
                    problems += ExamRules.languageIssues(prompt: item.prompt, explanation: item.explanation ?? "", options: choices, language: language)
                        .errors.map(\.refusal)
                    // The key is computed again from the solution the item carries, not taken from the file.
                    problems += ExamRules.computedKeyIssues(
                        prompt: item.prompt, options: choices, solution: item.solution, figure: item.figure, format: format,
                        names: item.options.indices.map { "options[\($0)]" }
                    ).errors.map(\.refusal)
                }
            }
            // What the item was written from: its passage and the quotes it cites.
            let shown = ([item.passage.flatMap { passageTexts[$0] }] + (item.sources ?? []).map(\.quote)).compactMap { $0 }.filter { !$0.trimmed.isEmpty }
            if !shown.isEmpty {
                problems += AbsenceClaims.issues(explanation: item.explanation ?? "", options: choices, source: shown.joined(separator: "\n"), language: language)
                    .errors.map(\.refusal)
            }
            if let raw = item.difficulty {
                if let difficulty = Difficulty(rawValue: raw) {
                    // A label naming another difficulty contradicts it; other wording is the author's.
                    let others = Difficulty.allCases.filter { $0 != difficulty }
                    if let label = item.difficultyLabel?.trimmed,
                        let named = others.first(where: { $0.rawValue == label.lowercased() || $0.label(language: language) == label })
                    {
                        problems.append(Refusal(.stageRules, "the difficulty is \(difficulty.rawValue) but its label '\(label)' says \(named.rawValue)"))
                    }
                } else {
                    problems.append(Refusal(.stageRules, "the difficulty '\(raw)' is not one of \(difficulties)"))
                }
            } else {
                problems.append(Refusal(.stageRules, "it has no difficulty (one of \(difficulties))"))
            }
            if let passage = item.passage, !passages.contains(passage) {
                problems.append(Refusal(.stageRules, "it refers to passage '\(passage)', which the bank does not have"))
            }
            if !sections.isEmpty, let sectionID = item.section {
                if let section = sections.first(where: { $0.id == sectionID }) {
                    if let category = item.category, !section.categories.isEmpty, !section.categories.contains(where: { $0.id == category }) {
                        problems.append(Refusal(.stageRules, "its category '\(category)' is not a category of section '\(sectionID)'"))
                    }
                } else {
                    problems.append(Refusal(.stageRules, "its section '\(sectionID)' is not a section of the bank"))
                }
            }
            let sources = item.sources ?? []
            // A computed key needs no quote: its solution is checked instead.
            if sources.isEmpty && format?.computesKey != true {
                problems.append(Refusal(.stageRules, "it cites no source; every item needs a verbatim quote of the corpus that supports its key"))
            }
            for (number, source) in sources.enumerated() {
                if (source.document ?? "").trimmed.isEmpty { problems.append(Refusal(.stageRules, "sources[\(number)] names no document")) }
                if (source.quote ?? "").trimmed.isEmpty { problems.append(Refusal(.stageRules, "sources[\(number)] has no quote")) }
            }
            // Reading-comprehension items share stems ("What is the passage mainly about?") across passages.
            if let earlier = stems.add(item.prompt, id: item.id, scope: item.passage ?? "", language: language) {
                problems.append(Refusal(.distinctQuestions, "the same question as \(earlier)"))
            }
            if !problems.isEmpty { flags.append(.init(id: item.id.trimmed.isEmpty ? "items[\(index)]" : item.id, problems: problems)) }
        }
        for form in exam.forms ?? [] {
            let unknown = form.sections.flatMap(\.items).filter { !seenIDs.contains($0) }
            if !unknown.isEmpty {
                flags.append(
                    .init(id: "forms/\(form.id)", problems: [Refusal(.stageRules, "it lists items the bank does not have: \(unknown.joined(separator: ", "))")]))
            }
        }
        return BankReport(format: .exam, items: exam.items.count, flagged: flags)
    }

    // MARK: quotes.json

    /// A quote database as Echo loads it (docs/quotes.md), hand-edited or generated: each quote's
    /// id, text (50–200 characters, already in the normalized form, no markup or symbols),
    /// author (one that names somebody), 1–3 distinct tags of Echo's eight and one of its six
    /// categories; across the file, ids and texts used twice, the same saying in other words, a
    /// file over 2 MB (QM-005) and no quote for Reflection (QM-002).
    public static func check(_ database: QuoteDatabase, bytes: Int) -> BankReport {
        var flagged: [BankReport.Flag] = []
        var whole: [Refusal] = []
        if bytes > QuoteDatabase.maxBytes { whole.append(Refusal(.stageRules, "the file has \(bytes) bytes; Echo loads at most \(QuoteDatabase.maxBytes) (QM-005)")) }
        if !database.quotes.contains(where: { $0.emotionTags.contains("Reflection") }) {
            whole.append(Refusal(.stageRules, "no quote is tagged Reflection, the emotion Echo falls back to (QM-002)"))
        }
        if !whole.isEmpty { flagged.append(BankReport.Flag(id: "quotes.json", problems: whole)) }
        let emotions = QuoteEmotion.echo.map(\.name)
        var ids: Set<String> = []
        var texts: [String: String] = [:]
        var index = QuoteDuplicateIndex()
        for (i, quote) in database.quotes.enumerated() {
            let id = quote.id.isEmpty ? "#\(i + 1)" : quote.id
            var problems: [Refusal] = []
            if quote.id.isEmpty { problems.append(Refusal(.stageRules, "no id")) } else if !ids.insert(quote.id).inserted { problems.append(Refusal(.stageRules, "the id is used twice")) }
            if quote.text != QuoteText.sanitize(quote.text) { problems.append(Refusal(.textIntegrity, "the text holds markup, control characters or extra white space")) }
            if QuoteText.hasOddCharacters(quote.text) { problems.append(Refusal(.stageRules, "the text holds markup or symbols")) }
            if !(50...200).contains(quote.text.count) { problems.append(Refusal(.stageRules, "the text has \(quote.text.count) characters; Echo shows 50–200")) }
            if quote.author.isEmpty || QuoteText.author(quote.author) == nil {
                problems.append(Refusal(.stageRules, "the author '\(quote.author)' names nobody (QM-004)"))
            } else if QuoteText.namesACompany(quote.author) || QuoteText.namesAWork(quote.author) {
                problems.append(Refusal(.stageRules, "the author '\(quote.author)' is a company, a brand or a work, not a person (QM-004)"))
            }
            if !(1...3).contains(quote.emotionTags.count) { problems.append(Refusal(.stageRules, "\(quote.emotionTags.count) emotion tags; give 1 to 3")) }
            if Set(quote.emotionTags).count != quote.emotionTags.count { problems.append(Refusal(.stageRules, "an emotion tag is given twice")) }
            for tag in quote.emotionTags where !emotions.contains(tag) { problems.append(Refusal(.stageRules, "'\(tag)' is not one of Echo's emotions (\(emotions.joined(separator: ", ")))")) }
            if !QuotesSpec.echoCategories.contains(quote.category) {
                problems.append(Refusal(.stageRules, "the category '\(quote.category)' is not one of Echo's (\(QuotesSpec.echoCategories.joined(separator: ", ")))"))
            }
            let key = GroundingText.normalize(quote.text)
            if let other = texts[key] {
                problems.append(Refusal(.distinctQuestions, "the same text as \(other)"))
            } else if let other = index.duplicate(of: quote.text) {
                problems.append(Refusal(.distinctQuestions, "the same saying as \(other) in other words"))
            } else {
                texts[key] = id
                index.insert(id: id, text: quote.text)
            }
            if !problems.isEmpty { flagged.append(BankReport.Flag(id: id, problems: problems)) }
        }
        return BankReport(format: .quotes, items: database.quotes.count, flagged: flagged)
    }

    // MARK: deck.json

    /// Checks a flashcard deck as its job built it: each quiz holds the card's back once, at
    /// `answer`, beside distractors that fit (`DeckRules.checkDistractors`); a cloze blanks a word
    /// of its back; no term twice; no matching round with two cards that could swap definitions.
    public static func check(_ deck: Deck) -> BankReport {
        var flags: [BankReport.Flag] = []
        var fronts: [String: String] = [:]
        let byID = Dictionary(deck.cards.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for card in deck.cards {
            var problems: [Refusal] = []
            let options = card.quiz.options
            if !options.indices.contains(card.quiz.answer) || options[card.quiz.answer] != card.back {
                problems.append(Refusal(.stageRules, "the quiz's answer \(card.quiz.answer) is not the card's back"))
            } else if options.filter({ $0 == card.back }).count != 1 {
                problems.append(Refusal(.stageRules, "the quiz shows the card's back more than once"))
            } else {
                let wrong = options.enumerated().filter { $0.offset != card.quiz.answer }.map(\.element)
                problems += DeckRules.checkDistractors(wrong, answer: card.back, term: card.front).map(\.refusal)
            }
            if let cloze = card.cloze, !cloze.text.contains(FlashcardRules.blank) || FlashcardRules.clozeFront(sentence: card.back, span: cloze.answer) != cloze.text {
                problems.append(Refusal(.stageRules, "the cloze '\(cloze.text)' is not the back with '\(cloze.answer)' blanked"))
            }
            let key = TextKey.normalize(card.front, language: deck.language)
            if let earlier = fronts[key] { problems.append(Refusal(.distinctQuestions, "the term is card \(earlier)'s too")) } else { fronts[key] = card.id }
            if !problems.isEmpty { flags.append(.init(id: card.id, problems: problems)) }
        }
        for round in deck.matching {
            let cards = round.cards.compactMap { byID[$0] }
            var problems: [Refusal] = []
            if !(4...6).contains(cards.count) { problems.append(Refusal(.stageRules, "a matching round has 4 to 6 pairs; this one has \(round.cards.count)")) }
            for (i, a) in cards.enumerated() {
                for b in cards[(i + 1)...] where DeckRules.couldSwap((a.front, a.back), (b.front, b.back)) {
                    problems.append(Refusal(.stageRules, "\(a.id) and \(b.id) could swap definitions"))
                }
            }
            if !problems.isEmpty { flags.append(.init(id: "matching/\(round.round)", problems: problems)) }
        }
        return BankReport(format: .deck, items: deck.cards.count, flagged: flags)
    }

    // MARK: course.json

    /// Checks a course's questions with the rules its stages applied: engagement and bonus
    /// questions, reinforcement pools and practice sets, and the shape of its flashcards (their
    /// grounding needs the lectures, which course.json alone does not hold). Ids are the
    /// pipeline's item ids (`engagement-question/s01-t01`, `reinforcement/s01-t01/level-2`,
    /// `practice/s01-t01/q-03`), a card's its own (`s01-t01-c02`).
    ///
    /// With `lecture` (a lecture's Markdown by its bundle-relative path), each topic's lecture is
    /// checked too, as `lecture/s01-t01`: its stage's rules, and Python code that does not run
    /// (`CodeStructure`); a lecture the course names and `lecture` cannot give is flagged; and
    /// each of its questions is held to its lecture as the pipeline holds it: no pasted stretch
    /// (`QuestionRules.checkNotCopied`), no technical term the lecture does not teach
    /// (`QuestionRules.checkTaught`).
    /// Explanations, feedback and reference answers, which assert what they say, are held to
    /// code that runs in any case.
    public static func check(_ course: Course, language: String? = nil, lecture: ((String) -> String?)? = nil) -> BankReport {
        let language = language ?? course.language
        var flags: [BankReport.Flag] = []
        var count = 0
        var stems = StemIndex()
        // A question in other words is a repeat too: within a topic by the pipeline's measure
        // (`NearDuplicate`), across topics only when nearly word for word — questions built on
        // one template differ by little more than their topic ("Describe a situation where
        // loops would help you" and "… variables …" share 3 of 5 content words).
        var inTopic = NearDuplicateIndex()
        var inCourse = NearDuplicateIndex(threshold: 0.8)
        var topicID = ""
        // The topic's questions so far: one holding another whole repeats it, as the pipeline finds.
        var topicPrompts: [(id: String, prompt: String)] = []
        var cardFronts: [String: String] = [:]
        func add(_ id: String, _ issues: [ValidationIssue], prompt: String?) {
            var problems = issues.errors.map(\.refusal)
            if let prompt {
                // Each text read once for both the question and the index.
                let howForm = NearDuplicate.Fingerprint(QuestionRules.howForm(prompt))
                let whole = NearDuplicate.Fingerprint(prompt)
                if let earlier = stems.add(prompt, id: id, language: language) {
                    problems.append(Refusal(.distinctQuestions, "the same question as \(earlier)"))
                } else if let earlier = inTopic.firstDuplicate(of: howForm, scope: topicID) ?? inCourse.firstDuplicate(of: whole)
                    ?? topicPrompts.first(where: {
                        QuestionRules.holdsTheOther(prompt, $0.prompt, language: language) || QuestionRules.asksTheSameCode(prompt, $0.prompt)
                    })?.id
                {
                    problems.append(Refusal(.distinctQuestions, "nearly the same question as \(earlier)"))
                }
                topicPrompts.append((id, prompt))
                inTopic.insert(id: id, fingerprint: howForm, scope: topicID)
                inCourse.insert(id: id, fingerprint: whole)
            }
            if !problems.isEmpty { flags.append(.init(id: id, problems: problems)) }
        }
        /// What a question asserts (its explanation, reference answer and each option's feedback)
        /// shows code that runs; its options' distinctness is in the stage rules above.
        func code(_ question: (explanation: String, referenceAnswer: String?, options: [Choice]?), label: String = "") -> [ValidationIssue] {
            var asserted = [("explanation", question.explanation)]
            if let referenceAnswer = question.referenceAnswer { asserted.append(("reference_answer", referenceAnswer)) }
            for (index, option) in (question.options ?? []).enumerated() { asserted.append(("option \(index + 1)'s feedback", option.feedback)) }
            let issues = asserted.flatMap { field, text in
                CodeStructure.pythonProblems(text).prefix(3).map { ValidationIssue.error(CodeStructure.repairMessage($0, field: field), check: .stageRules) }
            }
            return label.isEmpty ? issues : issues.map { ValidationIssue(severity: $0.severity, message: "\(label): \($0.message)", kind: $0.kind, check: $0.check) }
        }
        var lecturesRead = 0
        for topic in course.subjects.flatMap(\.topics) {
            topicID = topic.id
            topicPrompts = []
            // The topic's lecture, when read: a question must not paste it or ask what it does not teach.
            var taught: String?
            func grounded(_ prompt: String) -> [ValidationIssue] {
                guard let taught else { return [] }
                return QuestionRules.checkNotCopied("prompt", prompt, lecture: taught) + QuestionRules.checkTaught("prompt", prompt, lecture: taught, language: language)
            }
            if let lecture, let path = topic.lecture?.path {
                if let markdown = lecture(path) {
                    taught = markdown
                    lecturesRead += 1
                    let issues =
                        LectureRules.check(markdown, topicTitle: topic.title, language: language)
                        + CodeStructure.pythonProblems(markdown).prefix(3).map { .error(CodeStructure.repairMessage($0), check: .stageRules) }
                    add(CourseItems.lecture(topic.id).rawValue, issues, prompt: nil)
                } else {
                    add(
                        CourseItems.lecture(topic.id).rawValue,
                        [
                            .error(
                                "the lecture \(path) cannot be read beside course.json (check the bundle directory as it was written, with its lectures/ folder, or give course.json from there)",
                                check: .stageRules)
                        ],
                        prompt: nil)
                }
            }
            for (id, question) in [(CourseItems.engagementQuestion(topic.id), topic.engagementQuestion), (CourseItems.bonusQuestion(topic.id), topic.bonusQuestion)] {
                guard let question else { continue }
                count += 1
                add(
                    id.rawValue,
                    QuestionRules.check(question, expectedTopicID: topic.id, language: language)
                        + code((question.explanation, question.referenceAnswer, question.options)) + grounded(question.prompt)
                        + mathIssues(question: (question.prompt, question.options, question.referenceAnswer, question.explanation)),
                    prompt: question.prompt)
            }
            for (index, question) in (topic.practice ?? []).enumerated() {
                count += 1
                add(
                    CourseItems.practice(topic.id, number: index + 1).rawValue,
                    PracticeRules.check(question, language: language)
                        + code((question.explanation, nil, question.format == .multipleChoice ? question.options : nil)) + grounded(question.prompt)
                        + mathIssues(question: (question.prompt, question.options, nil, question.explanation)),
                    prompt: question.prompt)
            }
            for card in topic.flashcards ?? [] {
                // The shape only: grounding needs the lecture, which course.json does not hold.
                var problems = FlashcardRules.check(.init(label: "the card", card: card), lecture: nil, language: language).map(\.refusal)
                let front = FlashcardRules.frontKey(card, language: language)
                if let earlier = cardFronts[front] {
                    problems.append(Refusal(.distinctQuestions, "asks what card \(earlier) asks"))
                } else {
                    cardFronts[front] = card.id
                }
                if !problems.isEmpty { flags.append(.init(id: card.id, problems: problems)) }
            }
            guard let pool = topic.reinforcement else { continue }
            let levels = pool.map(\.level).sorted()
            if levels != [1, 2, 3, 4] {
                add(
                    CourseItems.reinforcementPool(topic.id).rawValue, [.error("the pool needs exactly one question at each level 1, 2, 3 and 4; it has levels \(levels)", check: .stageRules)],
                    prompt: nil)
            }
            for question in pool {
                count += 1
                add(
                    CourseItems.reinforcement(topic.id, level: question.level).rawValue,
                    ReinforcementRules.checkQuestion(question, expectedTopicID: topic.id, language: language)
                        + code((question.explanation, question.referenceAnswer, question.options), label: "the level-\(question.level) question")
                        + grounded(question.prompt)
                        + mathIssues(question: (question.prompt, question.options, question.referenceAnswer, question.explanation)),
                    prompt: question.prompt)
            }
        }
        return BankReport(format: .course, items: count, flagged: flags, lectures: lecturesRead)
    }

    // MARK: Helpers

    /// Inline math whose delimiters do not pair in any text of a question (`MathDelimiters`): the
    /// learner would see words rendered as math, or a delimiter shown as typed.
    static func mathIssues(_ texts: [(field: String, text: String)]) -> [ValidationIssue] {
        texts.compactMap { field, text in
            MathDelimiters.firstUnbalanced(text).map { .error("\(field) does not render as written: \($0); close each formula where it ends", check: .rendering) }
        }
    }

    /// `mathIssues` over a question's prompt, options and their feedback, reference answer and explanation.
    static func mathIssues(question: (prompt: String, options: [Choice]?, referenceAnswer: String?, explanation: String)) -> [ValidationIssue] {
        var texts = [("the prompt", question.prompt)]
        for (index, option) in (question.options ?? []).enumerated() {
            texts += [("option \(index + 1)", option.text), ("option \(index + 1)'s feedback", option.feedback)]
        }
        if let reference = question.referenceAnswer { texts.append(("the reference answer", reference)) }
        texts.append(("the explanation", question.explanation))
        return mathIssues(texts)
    }

    /// Question stems seen so far, compared by their words alone: case, punctuation, white space
    /// and (in Arabic) vowel marks do not make two questions different.
    struct StemIndex {
        var first: [String: String] = [:]
        /// Per stem, each question asked with it: its id, its key and its options (`add(_:id:language:answer:options:)`).
        var asked: [String: [(id: String, answer: String, options: Set<String>)]] = [:]

        /// Records `stem` for `id` with its key and options; returns the id of an earlier
        /// question with this stem and the same key or the same options, if one was recorded.
        mutating func add(_ stem: String, id: String, language: String, answer: String, options: Set<String>) -> String? {
            let key = Self.key(stem, language: language)
            guard !key.isEmpty else { return nil }
            if let earlier = asked[key, default: []].first(where: { $0.answer == answer || $0.options == options }) { return earlier.id }
            asked[key, default: []].append((id, answer, options))
            return nil
        }

        static func key(_ text: String, language: String) -> String {
            let folded = LanguageProfile.for(language)?.fold(text) ?? text
            return folded.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).joined(separator: " ")
        }

        /// Records `stem` for `id`; returns the id that asked it first, if one did.
        mutating func add(_ stem: String, id: String, scope: String = "", language: String) -> String? {
            let key = Self.key(stem, language: language)
            guard !key.isEmpty else { return nil }
            let scoped = scope + "\u{0}" + key
            if let earlier = first[scoped] { return earlier }
            first[scoped] = id
            return nil
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, from data: Data, file: String, format: BankFormat) throws(BankReadError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw BankReadError([
                SpecDiagnostic(
                    file: file, message: "is not a valid \(format.rawValue): \(describe(error))", hint: "fix that field, or regenerate the file")
            ])
        }
    }

    /// Where JSON text stops being JSON, as Foundation's parser says it ("Unexpected character … around line 1, column 9").
    static func syntaxError(_ text: String) -> String? {
        do {
            _ = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
            return nil
        } catch {
            return (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
        }
    }

    /// The line and column of Foundation's "around character N" (a byte offset), 1-based.
    static func position(of reason: String, in text: String) -> (line: Int, column: Int)? {
        guard let match = reason.range(of: #"character [0-9]+"#, options: .regularExpression),
            let offset = Int(reason[match].dropFirst("character ".count))
        else { return nil }
        let before = text.utf8.prefix(offset)
        let line = before.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
        let column = before.count - (before.lastIndex(of: UInt8(ascii: "\n")).map { before.distance(from: before.startIndex, to: $0) + 1 } ?? 0) + 1
        return (line, column)
    }

    /// A decoding error as a path and a reason: `items[3].options[1]: 'correct' is missing`.
    public static func describe(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "\(error)" }
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.reduce("") { text, key in
                if let index = key.intValue { return text + "[\(index)]" }
                return text.isEmpty ? key.stringValue : text + "." + key.stringValue
            }
        }
        func at(_ codingPath: [any CodingKey]) -> String {
            let place = path(codingPath)
            return place.isEmpty ? "" : "\(place): "
        }
        switch decoding {
        case .keyNotFound(let key, let context): return "\(at(context.codingPath))'\(key.stringValue)' is missing"
        case .typeMismatch(let type, let context): return "\(at(context.codingPath))expected \(typeName(type))"
        case .valueNotFound(let type, let context): return "\(at(context.codingPath))expected \(typeName(type)), found null"
        case .dataCorrupted(let context):
            return at(context.codingPath) + context.debugDescription
        @unknown default: return "\(error)"
        }
    }

    static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "text"
        case is Bool.Type: "true or false"
        case is Int.Type, is Double.Type: "a number"
        default: "\(type)".hasPrefix("Array") ? "a list" : "an object"
        }
    }
}
