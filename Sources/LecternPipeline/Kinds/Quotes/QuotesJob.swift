import Foundation
import LecternCore
import LecternLLM

/// The ids of a quotes job's items, shared by planning and assembly.
public enum QuotesItems {
    public static func tag(_ batch: String) -> ItemID { ItemID(QuoteTagStage.name, batch) }
    public static func templates(_ emotion: String) -> ItemID { ItemID(TemplateStage.name, Slug.make(emotion)) }
    public static let select = ItemID(QuotesJob.selectName)
}

/// What the selection item hands to assembly.
public struct QuoteSelection: Sendable {
    public var database: QuoteDatabase
    public var coverage: QuoteRules.Coverage
    public var shortfalls: [String]
    public var verdicts: [String: QuoteVerdict]
    public var unclassified: [String: [String]]
    public var strays: Int
    public var calls: Int
    /// Each tagging call → the quote ids it listed, in its numbering (`TaggedBatch.asked`).
    public var asked: [String: [String]] = [:]
}

/// The `quotes` kind (docs/quotes.md): the corpus is read and cleaned without a call
/// (`QuoteCorpus`), the candidates are tagged by the model in batches (`QuoteTagStage`), a local
/// `select` item builds the database from the kept quotes, and, when the spec asks, one
/// `templates/<emotion>` call per emotion writes the template bank. Quote texts come from the
/// corpus only: the model's answer carries a number, an opening to check, and tags.
public struct QuotesJob: GenerationJob {
    public static let selectName: StageName = "select"
    public static let languageBoundChecks: [LanguageBoundCheck] = [
        LanguageBoundCheck(.stageRules, "a template said as \"I\" rather than to \"you\", or not written in the spec's language, is found in English and Arabic only")
    ]

    public static let stages: [StageInfo] = [
        StageInfo(QuoteTagStage.name, typicalTokens: 2_200), StageInfo(TemplateStage.name, typicalTokens: 1_100),
        StageInfo(selectName, typicalTokens: 0),
    ]

    public let spec: JobSpec
    public let quotes: QuotesSpec
    public let corpus: QuoteCorpus
    public let batches: [QuoteBatch]
    public let runner: ModelCallRunner
    let tone: String

    public init(environment: JobEnvironment) throws {
        guard let quotes = environment.spec.quotes else { throw PipelineError("the spec '\(environment.spec.id)' is not a quote database") }
        self.spec = environment.spec
        self.quotes = quotes
        do {
            self.corpus = try QuoteCorpus.load(
                quotes.sources, relativeTo: environment.spec.baseDirectory ?? URL(fileURLWithPath: "."), length: quotes.length,
                roots: environment.spec.resolvedFileRoots)
        } catch let error as CorpusError {
            throw PipelineError("the quote corpus cannot be read:\n" + error.description)
        }
        self.batches = QuoteBatches.make(corpus.candidates, size: quotes.batchSize)
        self.runner = environment.runner
        self.tone = PromptText.tone(environment.spec.tone, presets: environment.presets)
    }

    var tagStage: QuoteTagStage { QuoteTagStage(spec: quotes) }

    public func initialItems() -> [WorkItem] {
        var items: [WorkItem] = []
        for batch in batches {
            items.append(
                WorkItem(id: QuotesItems.tag(batch.id), stage: QuoteTagStage.name, context: "\(batch.quotes.count) quotes") { [self] _ in
                    try await tag(batch)
                })
        }
        let sources = batches.map { QuotesItems.tag($0.id) }
        items.append(
            WorkItem(id: QuotesItems.select, stage: Self.selectName, context: "the database", dependencies: sources, usesModel: false) { [self] context in
                let tagged = try sources.map { try context.results.value($0, as: TaggedBatch.self) }
                return try select(tagged)
            })
        if let bank = quotes.templates {
            let stage = TemplateStage(spec: quotes, bank: bank, language: spec.language, languageName: PromptText.languageName(spec.language), tone: tone)
            for emotion in quotes.emotions {
                items.append(
                    WorkItem(id: QuotesItems.templates(emotion.name), stage: TemplateStage.name, context: emotion.name) { [self] _ in
                        try await templates(emotion, stage: stage, bank: bank)
                    })
            }
        }
        return items
    }

    /// Tags a batch: the whole batch first, then only the quotes whose answers failed their
    /// checks, up to the spec's attempts; what is still unclassified is reported and left out.
    func tag(_ batch: QuoteBatch) async throws -> WorkOutput {
        var pending = batch.quotes
        var verdicts: [QuoteVerdict] = []
        var problems: [String: [String]] = [:]
        var strays = 0
        var reports: [ItemReport] = []
        var failedCalls = 0
        var asked: [String: [String]] = [:]
        var round = 1
        while !pending.isEmpty && round <= spec.repair.maxAttempts {
            let call = try tagStage.call(batch: batch.id, quotes: pending, round: round, earlier: problems)
            asked[call.itemID] = pending.map(\.id)
            let outcome: TagOutcome
            let report: ItemReport
            do {
                (outcome, report) = try await runner.run(call)
            } catch let failure as ItemFailureError where failure.reason == .invalid && round > 1 {
                // A re-ask that never gave a readable answer: the verdicts of earlier rounds
                // stand, and the quotes it held stay untagged.
                for quote in pending { problems[quote.id] = failure.errors.isEmpty ? ["no readable answer"] : failure.errors }
                failedCalls += failure.attempts
                break
            }
            reports.append(report)
            strays += outcome.strays
            for quote in pending {
                if let verdict = outcome.verdicts[quote.id] {
                    verdicts.append(verdict)
                    problems[quote.id] = nil
                } else {
                    problems[quote.id] = outcome.problems[quote.id] ?? ["no answer"]
                }
            }
            pending = pending.filter { outcome.verdicts[$0.id] == nil }
            round += 1
        }
        let id = QuotesItems.tag(batch.id).rawValue
        var warnings = reports.flatMap(\.warnings)
        if !pending.isEmpty {
            warnings.append(
                ItemWarning(
                    itemID: id, kind: "quotes left untagged after every attempt",
                    message: "\(pending.count) quotes left untagged: " + pending.map { "\($0.id) (\(problems[$0.id]?.first ?? ""))" }.joined(separator: "; "),
                    check: .stageRules))
        }
        if strays > 0 {
            warnings.append(ItemWarning(itemID: id, kind: "tag answers for quotes not asked", message: "\(strays) answers named no quote of the batch, or one twice", check: .stageRules))
        }
        let calls = reports.reduce(0) { $0 + $1.attempts } + failedCalls
        let report = Self.combined(reports, id: id, stage: QuoteTagStage.name, attempts: calls, warnings: warnings)
        let unclassified = Dictionary(uniqueKeysWithValues: pending.map { ($0.id, problems[$0.id] ?? []) })
        return WorkOutput(value: TaggedBatch(verdicts: verdicts, unclassified: unclassified, strays: strays, calls: calls, asked: asked), report: report)
    }

    /// One emotion's template bank: rounds of `TemplateStage` calls, the usable templates of each
    /// kept, until the bank's mix can be chosen or `templates.rounds` are spent.
    func templates(_ emotion: QuoteEmotion, stage: TemplateStage, bank: TemplateBankSpec) async throws -> WorkOutput {
        var accepted: [String] = []
        var problems: [String] = []
        var reports: [ItemReport] = []
        var failedCalls = 0
        var unjudged: [ItemWarning] = []
        let judge = bank.judge ? try TemplateJudge() : nil
        for round in 1...max(1, bank.rounds) {
            do {
                let (outcome, report) = try await runner.run(try stage.call(emotion, round: round, accepted: accepted, problems: problems))
                reports.append(report)
                problems = outcome.problems
                var usable = outcome.usable
                if let judge, !usable.isEmpty {
                    // The judge's verdicts: a line that does not fit the emotion is not kept, and
                    // its reason goes back with the next round like a refused line's problem. A
                    // judge that gives no readable verdicts leaves the lines kept, with a warning.
                    do {
                        let (verdicts, judged) = try await runner.run(judge.call(emotion, round: round, lines: usable))
                        reports.append(judged)
                        let unfit = zip(usable, verdicts).filter { !$0.1.fits }
                        problems += unfit.map { "\"\($0.0)\" does not fit \(emotion.name): \($0.1.reason.isEmpty ? "the judge said so" : $0.1.reason)" }
                        usable = zip(usable, verdicts).filter { $0.1.fits }.map(\.0)
                    } catch let failure as ItemFailureError where failure.reason == .invalid {
                        failedCalls += failure.attempts
                        unjudged.append(
                            ItemWarning(
                                itemID: QuotesItems.templates(emotion.name).rawValue, kind: "template lines not judged",
                                message: "round \(round): the judge gave no readable verdicts (\(failure.errors.first ?? "")); its \(usable.count) lines were kept unjudged",
                                check: .stageRules))
                    }
                }
                accepted += usable
            } catch let failure as ItemFailureError where failure.reason == .invalid {
                // Nothing usable in this round's calls (the first included): the next round asks
                // again, told so, with its lines held to their kind by the schema.
                failedCalls += failure.attempts
                problems = failure.errors
                continue
            }
            if case .success(let chosen) = QuoteRules.chooseTemplates(accepted, spec: bank, language: spec.language) {
                let id = QuotesItems.templates(emotion.name)
                let calls = reports.reduce(0) { $0 + $1.attempts } + failedCalls
                return WorkOutput(value: chosen, report: Self.combined(reports, id: id.rawValue, stage: TemplateStage.name, attempts: calls, warnings: reports.flatMap(\.warnings) + unjudged))
            }
        }
        let needs = QuoteRules.templateNeeds(accepted, spec: bank)
        throw ItemFailureError(
            reason: .invalid, attempts: reports.reduce(0) { $0 + $1.attempts } + failedCalls,
            errors: Array(problems.prefix(6)) + [
                "\(accepted.count) usable templates after \(bank.rounds) rounds; \(needs.with) more with {keyword} and \(needs.without) more without a placeholder were needed"
            ])
    }

    /// The report of an item made of several calls.
    static func combined(_ reports: [ItemReport], id: String, stage: StageName, attempts: Int, warnings: [ItemWarning]) -> ItemReport {
        ItemReport(
            id: id, stage: stage.rawValue, attempts: attempts, usage: reports.reduce(TokenUsage()) { $0 + $1.usage },
            paidUsage: reports.reduce(TokenUsage()) { $0 + $1.paidUsage }, costUSD: reports.reduce(0) { $0 + $1.costUSD },
            cached: reports.allSatisfy(\.cached), latency: reports.reduce(Duration.zero) { $0 + $1.latency }, warnings: warnings)
    }

    /// The database from every batch's verdicts; an emotion under `min_per_emotion`, an empty
    /// fallback emotion or a file over Echo's 2 MB fails the item (the app could not use it). A
    /// database under its target is no fault (the target is a ceiling): the summary says so.
    func select(_ tagged: [TaggedBatch]) throws -> WorkOutput {
        var verdicts: [String: QuoteVerdict] = [:]
        var unclassified: [String: [String]] = [:]
        for batch in tagged {
            for v in batch.verdicts { verdicts[v.id] = v }
            unclassified.merge(batch.unclassified) { a, _ in a }
        }
        // Lectern's own rejections, whatever the model said: a fragment (opening with "…" or
        // mid-sentence) reads as broken shown alone; an attribution to a work (a film, a book, a
        // scripture verse) or to a company ("Macy's") names no person to show under it.
        for c in corpus.candidates {
            guard let v = verdicts[c.id], v.rejected == nil else { continue }
            let reason =
                QuoteText.isFragment(c.text)
                ? QuoteRules.fragmentReason
                : QuoteText.namesAWork(c.author) ? QuoteRules.workReason : QuoteText.namesACompany(c.author) ? QuoteRules.notAPersonReason : nil
            if let reason { verdicts[c.id] = QuoteVerdict(id: c.id, emotionTags: [], category: nil, rejected: reason, round: v.round) }
        }
        let (database, coverage, shortfalls, below) = QuoteRules.select(corpus.candidates, verdicts: verdicts, spec: quotes)
        var errors: [String] = []
        // An emotion the app cannot fill is a database the app cannot ship (target is a ceiling;
        // min_per_emotion is not): the run fails, naming each emotion and how many quotes fit it.
        for (emotion, fit) in below {
            let fits = fit == 1 ? "1 quote fits" : "\(fit) quotes fit"
            errors.append(
                "\(emotion): \(fits), and min_per_emotion is \(quotes.minPerEmotion): add quote collections that hold \(emotion.lowercased()) quotations to 'corpus', or lower min_per_emotion"
            )
        }
        if let fallback = quotes.fallbackEmotion, coverage.emotions[fallback, default: 0] == 0 {
            errors.append("no quote is tagged \(fallback), the emotion the app falls back to (QM-002): add quote collections or choose another fallback_emotion")
        }
        let bytes = database.json().count
        if bytes > QuoteDatabase.maxBytes {
            errors.append("quotes.json would have \(bytes) bytes, over Echo's \(QuoteDatabase.maxBytes) (QM-005): lower 'target'")
        }
        if database.quotes.isEmpty { errors.append("every quote was rejected or left untagged: nothing to write") }
        if !errors.isEmpty { throw ItemFailureError(reason: .invalid, attempts: 0, errors: errors) }
        let selection = QuoteSelection(
            database: database, coverage: coverage, shortfalls: shortfalls, verdicts: verdicts, unclassified: unclassified,
            strays: tagged.reduce(0) { $0 + $1.strays }, calls: tagged.reduce(0) { $0 + $1.calls },
            asked: tagged.reduce(into: [:]) { $0.merge($1.asked) { a, _ in a } })
        return WorkOutput(value: selection, report: nil)
    }

    public func unreachedEstimate(reached: Set<String>) -> [StageName: Int] {
        [:]  // every item is known from the corpus before any call
    }

    /// `quotes.json`, `templates.json` (when asked), `curation.json` and `ATTRIBUTIONS.md`.
    public func assemble(results: ResultStore) throws -> AssembledBundle? {
        guard let selection = results.optionalValue(QuotesItems.select, as: QuoteSelection.self) else { return nil }
        var files: [String: Data] = ["quotes.json": selection.database.json()]
        var bank: [(name: String, templates: [String])] = []
        if quotes.templates != nil {
            for emotion in quotes.emotions {
                if let templates = results.optionalValue(QuotesItems.templates(emotion.name), as: [String].self) {
                    bank.append((emotion.name, templates))
                }
            }
            files["templates.json"] = TemplateBank(emotions: bank).json()
        }
        var curation = QuoteCuration(corpus: corpus.report, candidates: corpus.candidates, selection: selection, spec: quotes, batches: batches.count, templates: bank.count)
        curation.templateFlags = bank.flatMap { emotion in
            emotion.templates.compactMap { line in
                let concerns = QuoteRules.templateConcerns(line, language: spec.language)
                return concerns.isEmpty ? nil : QuoteCuration.TemplateFlag(emotion: emotion.name, template: line, concerns: concerns)
            }
        }
        files["curation.json"] = try curation.json()
        files["ATTRIBUTIONS.md"] = Data(QuoteCuration.attributions(selection.database, corpus: corpus, spec: quotes).utf8)
        var counts: [String: [String: Int]] = [
            "emotions": selection.coverage.emotions, "categories": selection.coverage.categories,
            "quotes": ["selected": selection.database.quotes.count, "tagged": selection.verdicts.count, "read": corpus.report.read],
        ]
        if !bank.isEmpty { counts["templates"] = Dictionary(uniqueKeysWithValues: bank.map { ($0.name, $0.templates.count) }) }
        return AssembledBundle(
            title: "\(spec.id): \(selection.database.quotes.count) quotes", files: files, entryDocument: "quotes.json", counts: counts,
            summary: curation.summaryLines())
    }
}

/// `curation.json` and the run summary's lines: what cleaning dropped and why, what the model
/// kept and rejected, what the database covers.
struct QuoteCuration: Encodable {
    /// A template a curator should look at, and why (`QuoteRules.templateConcerns`).
    struct TemplateFlag: Encodable {
        var emotion: String
        var template: String
        var concerns: [String]
    }

    struct Selection: Encodable {
        var target: Int
        var selected: Int
        var minPerEmotion: Int
        var emotions: [String: Int]
        var categories: [String: Int]
        var shortfalls: [String]
        var templates: Int

        enum CodingKeys: String, CodingKey {
            case target, selected, minPerEmotion = "min_per_emotion", emotions, categories, shortfalls, templates = "template_emotions"
        }
    }

    var corpus: QuoteCorpusReport
    var tagging: QuoteTagging
    var selection: Selection
    /// The bank's lines flagged for a curator; empty without a bank.
    var templateFlags: [TemplateFlag] = []

    init(corpus: QuoteCorpusReport, candidates: [QuoteCandidate], selection: QuoteSelection, spec: QuotesSpec, batches: Int, templates: Int) {
        self.corpus = corpus
        var rejected: [String: Int] = [:]
        var byRound: [String: Int] = [:]
        for v in selection.verdicts.values {
            if let reason = v.rejected { rejected[reason, default: 0] += 1 }
            byRound["\(v.round)", default: 0] += 1
        }
        let kept = selection.verdicts.values.filter { $0.rejected == nil }.count
        let rejections = candidates.compactMap { c in
            selection.verdicts[c.id]?.rejected.map { QuoteTagging.Rejection(id: c.id, reason: $0, text: c.text, author: c.author) }
        }.sorted { $0.id < $1.id }
        tagging = QuoteTagging(
            batches: batches, calls: selection.calls, tagged: selection.verdicts.count, kept: kept, rejected: rejected, rejections: rejections,
            untagged: selection.unclassified,
            strayAnswers: selection.strays, byRound: byRound, asked: selection.asked)
        self.selection = Selection(
            target: spec.target, selected: selection.database.quotes.count, minPerEmotion: spec.minPerEmotion, emotions: selection.coverage.emotions,
            categories: selection.coverage.categories, shortfalls: selection.shortfalls, templates: templates)
        self.order = (spec.emotions.map(\.name), spec.categories)
    }

    var order: ([String], [String]) = ([], [])

    enum CodingKeys: String, CodingKey { case corpus, tagging, selection, templateFlags = "template_flags" }

    func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self) + Data("\n".utf8)
    }

    func summaryLines() -> [String] {
        let dropped = corpus.dropped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key.rawValue)" }.joined(separator: ", ")
        let rejected = tagging.rejected.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        var lines = [
            "  quotes: \(corpus.read) read, \(corpus.kept) after cleaning (dropped: \(dropped.isEmpty ? "none" : dropped))",
            "  tagging: \(tagging.tagged) tagged in \(tagging.calls) calls, \(tagging.kept) kept, \(tagging.tagged - tagging.kept) rejected"
                + (rejected.isEmpty ? "" : " (\(rejected))") + ", \(tagging.untagged.count) left untagged",
            "  database: \(selection.selected) quotes "
                + (selection.selected < selection.target ? "(the ones that fit; the target of \(selection.target) is a ceiling)" : "(target \(selection.target))")
                + ", each emotion at least min_per_emotion \(selection.minPerEmotion)",
        ]
        lines.append("    by emotion:  " + order.0.map { "\($0) \(selection.emotions[$0, default: 0])" }.joined(separator: " · "))
        lines.append("    by category: " + order.1.map { "\($0) \(selection.categories[$0, default: 0])" }.joined(separator: " · "))
        if selection.templates > 0 {
            lines.append("  templates: \(selection.templates) emotions" + (templateFlags.isEmpty ? "" : "; \(templateFlags.count) lines flagged for a curator (curation.json → template_flags)"))
        }
        return lines
    }

    /// ATTRIBUTIONS.md: every source with what is known of it, and how many of its quotes the
    /// database holds; the authors by count.
    static func attributions(_ database: QuoteDatabase, corpus: QuoteCorpus, spec: QuotesSpec) -> String {
        let bySource = Dictionary(grouping: corpus.candidates, by: \.id).mapValues { $0[0].sourceIndex }
        var used = Array(repeating: 0, count: spec.sources.count)
        var authors: [String: Int] = [:]
        for q in database.quotes {
            if let s = bySource[q.id] { used[s] += 1 }
            authors[q.author, default: 0] += 1
        }
        var out = "# Attributions\n\n"
        out += "Every quotation in quotes.json is copied from the sources below; only white space, HTML and control characters were cleaned "
        out += "(docs/quotes.md). The model that tagged them did not write or change any text.\n\n"
        out += "| source | quotes used | licence | origin | attribution |\n|---|---|---|---|---|\n"
        for (i, s) in spec.sources.enumerated() {
            let status: String
            switch s.attribution {
            case .verified: status = "verified against primary sources"
            case .attributed: status = "as the collection attributes them; not verified"
            case .unverified: status = "unverified: may hold misattributions"
            }
            out += "| \(cell(s.path)) | \(used[i]) | \(cell(s.licence ?? "not stated")) | \(cell(s.origin ?? "not stated")) | \(status) |\n"
        }
        out += "\n## Authors\n\n"
        for (author, n) in authors.sorted(by: { ($1.value, $0.key) < ($0.value, $1.key) }) {
            out += "- \(author): \(n)\n"
        }
        return out
    }

    static func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ") }
}
