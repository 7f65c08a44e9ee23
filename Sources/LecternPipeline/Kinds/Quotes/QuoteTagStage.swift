import Foundation
import LecternCore
import LecternLLM

/// A batch of quotes to tag in one call.
public struct QuoteBatch: Sendable, Hashable {
    /// `b` and the first quote's id: stable while the batch's first quote stays.
    public var id: String
    public var quotes: [QuoteCandidate]
}

/// How the candidates are cut into batches: sorted by id (a hash, so unrelated to the corpus
/// order), a batch ends after a quote whose id falls on a content-defined boundary (one id in
/// `size`, so batches hold `size` quotes on average), or when it reaches twice `size`. Adding
/// or dropping one quote therefore changes its own batch and rarely the next, not every batch
/// after it: the rest are answered from the cache.
public enum QuoteBatches {
    public static func make(_ candidates: [QuoteCandidate], size: Int) -> [QuoteBatch] {
        let sorted = candidates.sorted { $0.id < $1.id }
        var batches: [QuoteBatch] = []
        var current: [QuoteCandidate] = []
        func close() {
            guard let first = current.first else { return }
            batches.append(QuoteBatch(id: "b" + first.id.dropFirst(), quotes: current))
            current = []
        }
        for quote in sorted {
            current.append(quote)
            if current.count >= 2 * size || boundary(quote.id, every: size) { close() }
        }
        close()
        return batches
    }

    /// Whether `id` ends a batch: its last hex digits, as a number, divisible by `every`.
    static func boundary(_ id: String, every: Int) -> Bool {
        guard every > 1, let value = UInt64(id.suffix(6), radix: 16) else { return true }
        return value % UInt64(every) == 0
    }
}

/// The outcome of a tagging call: a verdict for each quote that passed its checks, the problems
/// of each that did not, and what the answer held beyond the batch.
struct TagOutcome: Sendable {
    var verdicts: [String: QuoteVerdict] = [:]
    var problems: [String: [String]] = [:]
    /// Answers for numbers outside the batch, or a second answer for one quote.
    var strays = 0
}

/// The tagging call: many quotes per call, each judged on its own (`QuoteRules.check`). An answer
/// that cannot be read at all is repaired as a whole by the runner; one that reads is accepted,
/// and the quotes it got wrong, left out or answered twice are asked again in a smaller call.
public struct QuoteTagStage: Sendable {
    public static let name: StageName = "tag"

    let spec: QuotesSpec

    struct Answer: Decodable {
        var quotes: [QuoteRules.TagAnswer]
    }

    /// The answer's schema. With `count`, the one sent as the response format: exactly `count`
    /// answers, numbered 1…`count`, so a model with constrained output cannot run on past the
    /// batch inventing quotes (the local model once wrote a hundred answers for twenty). Without,
    /// the one shown in the prompt: the same for every batch, so consecutive prompts share
    /// their whole instructions and a server's prompt cache reads them once.
    func schema(count: Int? = nil) -> ResponseSchema {
        let names = spec.emotions.map { JSONValue.string($0.name) }
        var number: JSONValue = ["type": "integer"]
        if let count { number = ["type": "integer", "enum": .array((1...max(1, count)).map { .number(Double($0)) })] }
        let tag: JSONValue = SchemaParts.object(
            [
                "n": number,
                "opening": ["type": "string", "maxLength": 24],
                "verdict": ["type": "string", "enum": ["keep", "reject"]],
                "reason": ["type": "string", "enum": .array([.string("")] + QuoteRules.rejectReasons.map { .string($0.id) })],
                "emotions": SchemaParts.array(["type": "string", "enum": .array(names)], max: 3),
                "category": ["type": "string", "enum": .array([.string("")] + spec.categories.map { .string($0) })],
            ],
            required: ["n", "opening", "verdict", "reason", "emotions", "category"])
        return ResponseSchema(
            name: "quote_tags", schema: SchemaParts.object(["quotes": SchemaParts.array(tag, min: count, max: count)], required: ["quotes"]))
    }

    /// The call for `quotes` in round `round`; `earlier` holds the problems of earlier answers
    /// for these quotes, told to the model so it does not repeat them.
    func call(batch: String, quotes: [QuoteCandidate], round: Int, earlier: [String: [String]]) throws -> ModelCall<TagOutcome> {
        let template = try PromptLibrary.template("quotes/tag-quotes")
        var listing: [String] = []
        for (i, quote) in quotes.enumerated() {
            var line = "\(i + 1). \"\(quote.text)\" (\(quote.author))"
            if let problems = earlier[quote.id], !problems.isEmpty {
                line += "\n   An earlier answer for this quotation was wrong: " + problems.joined(separator: "; ")
            }
            listing.append(line)
        }
        let schema = self.schema(count: quotes.count)
        let variables = [
            "emotions": spec.emotions.map { $0.meaning.isEmpty ? "  - \($0.name)" : "  - \($0.name): \($0.meaning)" }.joined(separator: "\n"),
            "categories": spec.categories.joined(separator: ", "),
            "reasons": QuoteRules.rejectReasons.map { "  - \($0.id): \($0.meaning)" }.joined(separator: "\n"),
            "schema": AnswerParsing.schemaText(self.schema()),
            "quotes": listing.joined(separator: "\n"),
        ]
        let spec = self.spec
        let itemID = round == 1 ? ItemID(Self.name, batch) : ItemID(Self.name, batch, "round-\(round)")
        return ModelCall(itemID: itemID.rawValue, stage: Self.name, template: template, variables: variables, schema: schema) { text in
            switch AnswerParsing.decode(Answer.self, from: text) {
            case .failure(let errors): return .invalid(errors)
            case .success(let answer):
                if answer.quotes.isEmpty { return .invalid([Refusal(.stageRules, "\"quotes\" is empty; answer each of the \(quotes.count) quotations")]) }
                return .valid(Self.outcome(answer.quotes, for: quotes, spec: spec, round: round), warnings: [])
            }
        }
    }

    /// Matches answers to quotes by number and checks each.
    static func outcome(_ answers: [QuoteRules.TagAnswer], for quotes: [QuoteCandidate], spec: QuotesSpec, round: Int) -> TagOutcome {
        var outcome = TagOutcome()
        var byNumber: [Int: QuoteRules.TagAnswer] = [:]
        var twice: Set<Int> = []
        for answer in answers {
            guard (1...quotes.count).contains(answer.n) else {
                outcome.strays += 1
                continue
            }
            if byNumber[answer.n] != nil {
                twice.insert(answer.n)
                outcome.strays += 1
            } else {
                byNumber[answer.n] = answer
            }
        }
        for (i, quote) in quotes.enumerated() {
            let n = i + 1
            guard let answer = byNumber[n] else {
                outcome.problems[quote.id] = ["the answer left out quotation \(n)"]
                continue
            }
            if twice.contains(n) {
                outcome.problems[quote.id] = ["quotation \(n) was answered twice, differently; answer it once"]
                continue
            }
            let (verdict, problems) = QuoteRules.check(answer, quote: quote, spec: spec, round: round)
            if let verdict { outcome.verdicts[quote.id] = verdict } else { outcome.problems[quote.id] = problems }
        }
        return outcome
    }
}

/// A batch's result: the verdicts, and the quotes no round could classify.
public struct TaggedBatch: Sendable, Hashable {
    public var verdicts: [QuoteVerdict]
    /// Quote id → the problems of its last answer.
    public var unclassified: [String: [String]]
    /// Answers for quotes the batch did not hold, or second answers.
    public var strays: Int
    /// Calls made (the first, re-asks of failed quotes, and repairs of unreadable answers).
    public var calls: Int
    /// Each call's item id (`tag/b…`, `tag/b…/round-2` …) → the ids of the quotes it listed, in
    /// its numbering: what an answer's `n` names (curation.json, for a reviewer's page).
    public var asked: [String: [String]] = [:]
}

/// What one template answer gave: the candidates that passed their checks and repeat no template
/// accepted before, and the problems of the others.
struct TemplateRound: Sendable {
    var usable: [String]
    var problems: [String]
}

/// The template calls for one emotion. The first asks for more candidates than the bank needs;
/// each is checked on its own (`QuoteRules.templateProblem`; one too long or of too many sentences
/// is cut after its first two or its first sentence when that passes), and near duplicates and
/// copies of the prompt's examples are dropped.
/// What passes is kept across rounds: when too few are usable, the next round shows the model the
/// accepted ones and the problems, and asks only for what is missing (`QuoteRules.templateNeeds`);
/// the bank's mix is then chosen from all of them (`QuoteRules.chooseTemplates`). An answer with
/// nothing usable is repaired by the runner.
public struct TemplateStage: Sendable {
    public static let name: StageName = "templates"

    let spec: QuotesSpec
    let bank: TemplateBankSpec
    let language: String
    let languageName: String
    let tone: String

    struct Answer: Decodable {
        var templates: [String]
    }

    /// A later round's answer: the two kinds apart, each constrained by its schema.
    struct SplitAnswer: Decodable {
        var withKeyword: [String]
        var withoutPlaceholder: [String]

        enum CodingKeys: String, CodingKey {
            case withKeyword = "with_keyword", withoutPlaceholder = "without_placeholder"
        }
    }

    /// Echo's own examples (§4.3), shown for another emotion than the one asked.
    static let examples: [(emotion: String, lines: [String])] = [
        ("Achievement", ["This moment of {keyword} shows your true capability.", "You did it once. You can do it again.", "Carry the confidence from this {keyword} forward."]),
        ("Comfort", ["Be gentle with yourself during {keyword}.", "Breathe. This moment will pass, and you will endure.", "This difficult {keyword} is temporary. You are resilient."]),
    ]

    /// Round `round` for `emotion`; `accepted` holds the templates earlier rounds gave, `problems`
    /// what was wrong with the rest of the last answer.
    func call(_ emotion: QuoteEmotion, round: Int = 1, accepted: [String] = [], problems: [String] = []) throws -> ModelCall<TemplateRound> {
        let template = try PromptLibrary.template(round == 1 ? "quotes/templates" : "quotes/templates-more")
        let withCount: Int
        let without: Int
        if round == 1 {
            // Spare candidates: a small model's list holds some too long or too alike.
            withCount = bank.perEmotion + 6 - (bank.minWithoutPlaceholder + 2)
            without = bank.minWithoutPlaceholder + 2
        } else {
            // Only what is missing, two spare of each kind asked for; none of a kind not needed.
            let needs = QuoteRules.templateNeeds(accepted, spec: bank)
            withCount = needs.with == 0 ? 0 : needs.with + 2
            without = needs.without == 0 ? 0 : needs.without + 2
        }
        let count = withCount + without
        let example = Self.examples.first { $0.emotion != emotion.name } ?? Self.examples[0]
        let schema: ResponseSchema
        if round == 1 {
            schema = ResponseSchema(
                name: "templates", schema: SchemaParts.object(["templates": SchemaParts.array(SchemaParts.string, min: count, max: count)], required: ["templates"]))
        } else {
            // Later rounds: the two kinds in two lists, each held to its kind while the model
            // writes (a grammar-constrained model cannot put {keyword} in a line meant to have no
            // placeholder, or leave it out of one meant to have it), and to the bank's length.
            let placeholder = TemplateBankSpec.placeholder
            // No brace, and no quotation mark, backslash or line break either: a grammar built
            // from a pattern that allows `"` lets the string run on past its closing quote (the
            // local model wrote 3,072 tokens into one template that way).
            let line = #"[^{}"\\\n]"#
            // The place of {keyword} is left to the checks, not put in the pattern: a pattern that
            // required a determiner or a preposition before it made the local model end its lines
            // with one whatever it had written ("the strength and resilience to over {keyword}").
            // llama.cpp drops `maxLength` beside a `pattern`, so the pattern bounds the length
            // itself: a line cannot run on for thousands of tokens (one did, before this bound).
            let side = bank.maxCharacters - bank.keywordLength
            let withLine: JSONValue = [
                "type": "string", "pattern": .string("^\(line){0,\(side)}\\{keyword\\}\(line){0,\(side)}$"),
                "maxLength": .number(Double(bank.maxCharacters - bank.keywordLength + placeholder.count)),
            ]
            let withoutLine: JSONValue = [
                "type": "string", "pattern": .string("^\(line){1,\(bank.maxCharacters)}$"), "maxLength": .number(Double(bank.maxCharacters)),
            ]
            schema = ResponseSchema(
                name: "templates",
                schema: SchemaParts.object(
                    [
                        "with_keyword": SchemaParts.array(withLine, min: withCount, max: withCount),
                        "without_placeholder": SchemaParts.array(withoutLine, min: without, max: without),
                    ], required: ["with_keyword", "without_placeholder"]))
        }
        var variables = [
            "tone": tone, "count": "\(count)", "emotion": emotion.name, "meaning": emotion.meaning.isEmpty ? emotion.name.lowercased() : emotion.meaning,
            "language": languageName, "keyword_length": "\(bank.keywordLength)", "max_characters": "\(bank.maxCharacters)",
            "with_count": "\(withCount)", "without_count": "\(without)", "example_emotion": example.emotion,
            "max_words": "\(max(6, bank.maxCharacters / 8))",
            "examples": example.lines.map { "- \($0)" }.joined(separator: "\n"), "schema": AnswerParsing.schemaText(schema),
        ]
        if round > 1 {
            variables["accepted"] = accepted.isEmpty ? "- (none yet)" : accepted.map { "- \($0)" }.joined(separator: "\n")
            // The distinct problems, a few: enough to show what to avoid without drowning the ask.
            // Lines that repeated a chosen one or copied an example are not shown again (a small
            // model shown a line writes it again): one sentence says what happened.
            var seen: Set<String> = []
            let repeats = problems.filter { $0.contains("\" repeats \"") || $0.contains("\" copies the example") }
            var shown = problems.filter { !repeats.contains($0) && seen.insert($0).inserted }.prefix(6).map { "- \($0)" }
            if !repeats.isEmpty {
                shown.append("- \(repeats.count) lines repeated a chosen template or an example with other words; write new ideas")
            }
            variables["problems"] = shown.isEmpty ? "- (none)" : shown.joined(separator: "\n")
        }
        let bank = self.bank
        let language = self.language
        let itemID = round == 1 ? QuotesItems.templates(emotion.name) : ItemID(Self.name, Slug.make(emotion.name), "round-\(round)")
        return ModelCall(itemID: itemID.rawValue, stage: Self.name, template: template, variables: variables, schema: schema) { text in
            let candidates: Decoded<[String]>
            if round == 1 {
                switch AnswerParsing.decode(Answer.self, from: text) {
                case .success(let answer): candidates = .success(answer.templates)
                case .failure(let errors): candidates = .failure(errors)
                }
            } else {
                switch AnswerParsing.decode(SplitAnswer.self, from: text) {
                case .success(let answer): candidates = .success(answer.withKeyword + answer.withoutPlaceholder)
                case .failure(let errors): candidates = .failure(errors)
                }
            }
            switch candidates {
            case .failure(let errors): return .invalid(errors)
            case .success(let templates):
                let (usable, problems) = QuoteRules.usableTemplates(templates, accepted: accepted, examples: example.lines, spec: bank, language: language)
                if usable.isEmpty {
                    return .invalid(problems.isEmpty ? [Refusal(.stageRules, "\"templates\" is empty; write \(count) templates")] : problems.map { Refusal(.stageRules, $0) })
                }
                return .valid(TemplateRound(usable: usable, problems: problems), warnings: [])
            }
        }
    }
}

/// The emotion judge of the template bank (`templates: { judge: true }`): the model is shown the
/// usable lines of a round, numbered, and says of each whether it fits a message tagged with the
/// emotion, with a reason. A line judged not to fit is not kept and its reason is sent back with
/// the next round, as a refused line's problem is. Whether it is worth its calls depends on the
/// model: docs/quotes.md and BENCHMARKS ("template judge") measure it on a labelled set.
public struct TemplateJudge: Sendable {
    let template: PromptTemplate

    public init() throws { template = try PromptLibrary.template("quotes/judge-templates") }

    public struct Verdict: Sendable, Hashable {
        public var fits: Bool
        public var reason: String
    }

    struct Answer: Decodable {
        struct Line: Decodable {
            var n: Int
            var fits: Bool
            var reason: String
        }

        var lines: [Line]
    }

    /// The answer's schema for `count` lines.
    public static func schema(count: Int) -> ResponseSchema {
        // A reason of a few words: bounded, so that a small model cannot run on inside it.
        let line = SchemaParts.object(
            ["n": ["type": "integer"], "fits": ["type": "boolean"], "reason": ["type": "string", "maxLength": 80]], required: ["n", "fits", "reason"])
        return ResponseSchema(name: "template_verdicts", schema: SchemaParts.object(["lines": SchemaParts.array(line, min: count, max: count)], required: ["lines"]))
    }

    /// The request a run sends for `lines` of `emotion` (its prompt, schema and sampling), for
    /// measuring the judge outside a run (`lectern-bench-template-judge`).
    public func request(_ emotion: QuoteEmotion, lines: [String], model: String, temperature: Double, maxTokens: Int, seed: Int?) -> LLMRequest {
        LLMRequest(
            model: model, messages: template.messages(variables(emotion, lines: lines)), temperature: temperature, maxTokens: maxTokens,
            responseSchema: Self.schema(count: lines.count), seed: seed)
    }

    /// The prompt's values for `lines` of `emotion`.
    func variables(_ emotion: QuoteEmotion, lines: [String]) -> [String: String] {
        [
            "emotion": emotion.name, "meaning": emotion.meaning.isEmpty ? emotion.name.lowercased() : emotion.meaning,
            "lines": lines.enumerated().map { "\($0.offset + 1). \($0.element)" }.joined(separator: "\n"),
            "schema": AnswerParsing.schemaText(Self.schema(count: lines.count)),
        ]
    }

    /// The verdict on each of `count` lines, by index, or the problems of an answer that does not
    /// give one for each (a number outside the list, a line answered twice or not at all).
    public static func verdicts(_ text: String, count: Int) -> Result<[Verdict], TemplateProblemsError> {
        guard count > 0 else { return .success([]) }
        switch AnswerParsing.decode(Answer.self, from: text) {
        case .failure(let errors): return .failure(TemplateProblemsError(messages: errors.map(\.message)))
        case .success(let answer):
            var found: [Int: Verdict] = [:]
            var problems: [String] = []
            for line in answer.lines {
                guard (1...count).contains(line.n) else {
                    problems.append("\"n\" is \(line.n); the lines are numbered 1 to \(count)")
                    continue
                }
                if found[line.n] != nil { problems.append("line \(line.n) is answered twice") }
                found[line.n] = Verdict(fits: line.fits, reason: line.reason.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            for n in 1...count where found[n] == nil { problems.append("line \(n) has no verdict") }
            if !problems.isEmpty { return .failure(TemplateProblemsError(messages: problems)) }
            return .success((1...count).compactMap { found[$0] })
        }
    }

    /// The call judging `lines` (the usable lines of `emotion`'s round `round`).
    func call(_ emotion: QuoteEmotion, round: Int, lines: [String]) -> ModelCall<[Verdict]> {
        let schema = Self.schema(count: lines.count)
        let itemID = ItemID(TemplateStage.name, Slug.make(emotion.name), "judge-\(round)")
        return ModelCall(itemID: itemID.rawValue, stage: TemplateStage.name, template: template, variables: variables(emotion, lines: lines), schema: schema) {
            text in
            switch Self.verdicts(text, count: lines.count) {
            case .success(let verdicts): return .valid(verdicts, warnings: [])
            case .failure(let problems): return .invalid(problems.messages.map { Refusal(.stageRules, $0) })
            }
        }
    }

    public struct TemplateProblemsError: Error, Sendable {
        public var messages: [String]
    }
}
