import Foundation
import LecternBundle
import LecternCore
import LecternLLM

/// Runs one job end to end: plan, engine, assembly, bundle. The CLI and the tests both drive
/// this; the provider, cache, renderer and event sink come in through the initializer.
public struct JobRunner: Sendable {
    public struct Options: Sendable {
        public var outputRoot: URL
        public var allowPartial: Bool
        /// Overrides the spec's max_concurrency when set.
        public var maxConcurrency: Int?
        /// Runs one shard's items into the cache and writes no bundle (`run --shard K/N`).
        public var shard: Shard?

        public init(outputRoot: URL, allowPartial: Bool = false, maxConcurrency: Int? = nil, shard: Shard? = nil) {
            self.outputRoot = outputRoot
            self.allowPartial = allowPartial
            self.maxConcurrency = maxConcurrency
            self.shard = shard
        }
    }

    /// How a run ended.
    public struct Result: Sendable {
        public enum Status: Sendable, Equatable {
            /// The bundle was written (or was already there, identical).
            case complete
            /// Some items failed; the bundle was not written (or written partial with --allow-partial).
            case itemsFailed
            case providerFailed
            /// The cache or the disk could not be written, or an internal error stopped items.
            case runtimeFailed
            case budgetExceeded
            case cancelled
        }

        public var status: Status
        public var bundle: BundleWriteResult?
        public var failures: [ItemFailure]
        public var totals: Ledger.Totals
        public var itemCount: Int
        /// What each finished item reported (attempts, usage, warnings), by item id.
        public var reports: [String: ItemReport] = [:]
        /// From the start of the run to the bundle on disk (or to the end of a run that wrote none).
        public var wallTime: Duration = .zero
        /// The document to open first, relative to the bundle: the first lecture's XHTML (its
        /// Markdown without a renderer), else the tone preview; nil when no bundle was written.
        public var entryDocument: String?
        /// What the checks did (the bundle's quality.json); nil when no bundle was written.
        public var quality: QualityReport?
        /// A shard's run: the items it left to other shards and to the assembling run, and
        /// those waiting for other shards' answers.
        public var shard: ShardOutcome?
        /// The kind's own lines for the closing summary (a quote database's coverage).
        public var summary: [String] = []
        /// The checks' verdicts this run read from the cache and computed (`CheckMemo`); nil
        /// with `--cache off`.
        public var checkVerdicts: CheckMemo.Counts?
    }

    public struct ShardOutcome: Sendable, Equatable {
        public var shard: Shard
        /// Items of other shards (some perhaps read from the cache for a gathering stage).
        public var otherShards: Int
        /// Items only the assembling run runs: local work on several shards' results.
        public var leftForAssembly: Int
        /// Of those, the ones that would call the model in the assembling run (a kind that
        /// splits a model call's inputs over shards; none of the built-in kinds does).
        public var modelItemsLeftForAssembly: Int
        /// This shard's items that need other shards' answers its cache does not hold yet: the
        /// shard runs again (a second round) once the shards' caches are merged into its own.
        public var waitingForOtherShards: Int
    }

    public let spec: JobSpec
    public let presets: PresetLibrary
    public let exchanger: Exchanger
    public let renderer: (any DocumentRenderer)?
    public let events: any EngineEventSink
    public let cost: CostFunction
    public let generator: String
    /// Speech synthesis for the `narration` add-on (the CLI sets it from the spec's `speech`).
    public var speech: SpeechSetup?
    /// The pipeline of each kind this runner runs: `JobKinds.all`, and any a program adds for a
    /// kind of its own (`runner.pipelines[.glossary] = GlossaryJob.self`).
    public var pipelines: [JobKind: any GenerationJob.Type] = JobKinds.all
    /// The read side of each kind, for the quality report's lint: `BundleKinds.builtIn` unless set.
    public var bundleKinds: BundleKinds = .builtIn

    public init(
        spec: JobSpec, presets: PresetLibrary, exchanger: Exchanger, renderer: (any DocumentRenderer)?, events: any EngineEventSink,
        cost: @escaping CostFunction = { _, _, _ in 0 }, generator: String = "lectern"
    ) {
        self.spec = spec
        self.presets = presets
        self.exchanger = exchanger
        self.renderer = renderer
        self.events = events
        self.cost = cost
        self.generator = generator
    }

    /// The stages of this spec's kind, in the order a run reaches them.
    public var stageOrder: [StageName] { pipelines[spec.kind]?.stages.map(\.name) ?? [] }

    /// The spec's review decisions, read and checked — every problem at its line and column, an
    /// item id that is none of this kind's — or an empty book when the spec has no review file.
    public func reviewBook() throws -> ReviewBook {
        guard let url = spec.reviewFile else { return ReviewBook() }
        let current = FileManager.default.currentDirectoryPath
        let display = url.path.hasPrefix(current + "/") ? String(url.path.dropFirst(current.count + 1)) : url.path
        let file = try ReviewFile.read(url, displayName: display)
        let stages = Set(stageOrder.map(\.rawValue))
        let unknown = file.decisions.values.filter { !stages.contains(String($0.item.split(separator: "/").first ?? "")) }
            .sorted { ($0.line ?? 0, $0.column ?? 0) < ($1.line ?? 0, $1.column ?? 0) }
        if !unknown.isEmpty {
            throw SpecError(
                unknown.map {
                    SpecDiagnostic(
                        file: display, line: $0.line, column: $0.column, message: "'\($0.item)' is no item of a \(spec.kind.rawValue) job",
                        hint: "its items start with " + stageOrder.map(\.rawValue).joined(separator: ", ") + "; the bundle's review.json lists them")
                })
        }
        let base = spec.baseDirectory?.path ?? current
        let name = url.path.hasPrefix(base + "/") ? String(url.path.dropFirst(base.count + 1)) : url.lastPathComponent
        return ReviewBook(file: file, fileName: FileManager.default.fileExists(atPath: url.path) ? name : nil)
    }

    func makeJob(ledger: Ledger, review: ReviewBook? = nil) throws -> any GenerationJob {
        var runner = ModelCallRunner(
            exchanger: exchanger, model: spec.model.name, temperature: spec.model.temperature, maxTokens: spec.model.maxTokens,
            seed: spec.model.seed, variant: spec.variant, maxAttempts: spec.repair.maxAttempts, budgetUSD: spec.budget.maxCostUSD,
            ledger: ledger, cost: cost, events: events, inspector: ContentInspector(renderer: renderer, language: spec.language),
            solver: spec.review.blindSolve ? try BlindSolver(model: spec.review.model) : nil)
        runner.judge = spec.review.rubric ? try RubricJudge(model: spec.review.model) : nil
        runner.disputed = spec.review.disputed
        runner.optionJudge = spec.review.judgeOptions ? try OptionJudge(model: spec.review.model) : nil
        runner.frequencyPenalty = spec.model.frequencyPenalty
        runner.mending = try FeedbackMending(language: spec.language)
        runner.review = review
        let environment = JobEnvironment(spec: spec, presets: presets, runner: runner, renderer: renderer, speech: speech)
        guard let pipeline = pipelines[spec.kind] else { throw PipelineError("kind '\(spec.kind)' is not supported by this version of Lectern") }
        return try pipeline.init(environment: environment)
    }

    /// Builds this spec's job as `run` does, without running anything: what its kind refuses
    /// before the first call (an imported set that does not parse, a corpus that cannot serve the
    /// blueprint) throws here, so `validate` refuses the same specs as `run`.
    public func prepare() throws {
        _ = try makeJob(ledger: Ledger(), review: try reviewBook())
    }

    public func run(options: Options) async throws -> Result {
        let clock = ContinuousClock()
        let started = clock.now
        // The checks' verdicts are kept beside the exchanges they judged: an unchanged re-run
        // reads them instead of running the rules again.
        let memo = exchanger.mode == .off ? nil : CheckMemo(directory: exchanger.cache.root)
        defer { memo?.flush() }
        var result = try await CheckMemo.$current.withValue(memo) { try await generate(options: options) }
        result.wallTime = started.duration(to: clock.now)
        result.checkVerdicts = memo?.counts
        return result
    }

    func generate(options: Options) async throws -> Result {
        let ledger = Ledger()
        let review = try reviewBook()
        let job = try makeJob(ledger: ledger, review: review)
        // A batch run starts every ready item at once: their requests make the round.
        let concurrency = spec.model.batch == true ? exchanger.maxConcurrency : options.maxConcurrency ?? min(spec.model.maxConcurrency, exchanger.maxConcurrency)
        let filter = options.shard.map {
            ShardFilter(
                shard: $0, sharedStages: Set(type(of: job).sharedStages.map(\.rawValue)),
                gatheringStages: Set(type(of: job).gatheringStages.map(\.rawValue)))
        }
        // Checks off the scheduling path: the provider's `concurrency` slots bound the requests
        // (`RequestSlots`), and the engine runs twice as many model items, so an item checking
        // its answer (or building its prompt, or reading the cache) holds no slot and the next
        // request goes out meanwhile. A batch run starts every ready item at once already.
        let slots = spec.model.batch == true ? nil : RequestSlots(limit: concurrency)
        let engine = Engine(modelConcurrency: slots == nil ? concurrency : 2 * concurrency, events: events, shard: filter)
        let results = ResultStore()
        let outcome = await Exchanger.$requestSlots.withValue(slots) { await engine.run(job.initialItems(), results: results) }
        // Whatever happens next, what was paid for is on disk.
        exchanger.flush()
        // An edit the checks refused is the review file's to fix: the run stops (exit 2).
        if let refused = review.refusedEditsError { throw refused }
        let totals = ledger.totals
        let itemCount = outcome.completed.count + outcome.failures.count
        if outcome.cancelled {
            return Result(status: .cancelled, bundle: nil, failures: outcome.failures, totals: totals, itemCount: itemCount, reports: outcome.reports)
        }
        var status: Result.Status = .complete
        if outcome.budgetExceeded {
            status = .budgetExceeded
        } else if outcome.failures.contains(where: { $0.reason == .internal }) {
            status = .runtimeFailed
        } else if outcome.providerStopped || outcome.failures.contains(where: { $0.reason == .provider || $0.reason == .cacheMiss }) {
            status = .providerFailed
        } else if !outcome.failures.isEmpty {
            status = .itemsFailed
        }
        // A shard's work is in the cache; the assembling run writes the bundle.
        if let shard = options.shard {
            var result = Result(status: status, bundle: nil, failures: outcome.failures, totals: totals, itemCount: itemCount, reports: outcome.reports)
            result.shard = ShardOutcome(
                shard: shard, otherShards: outcome.otherShards, leftForAssembly: outcome.leftForAssembly,
                modelItemsLeftForAssembly: outcome.modelItemsLeftForAssembly, waitingForOtherShards: outcome.waitingForOtherShards)
            return result
        }
        guard status == .complete || options.allowPartial else {
            return Result(status: status, bundle: nil, failures: outcome.failures, totals: totals, itemCount: itemCount, reports: outcome.reports)
        }
        // Some kinds need certain items to write anything (a course its curriculum), even with
        // --allow-partial.
        guard var assembled = try job.assemble(results: results) else {
            return Result(
                status: status == .complete ? .itemsFailed : status, bundle: nil, failures: outcome.failures, totals: totals, itemCount: itemCount,
                reports: outcome.reports)
        }
        let seal = review.seal(reviewFileSHA256: spec.reviewFile.flatMap { FileManager.default.contents(atPath: $0.path) }.map(SHA256Digest.hex))
        assembled.files[ReviewSeal.fileName] = try seal.jsonData()
        var quality = Self.qualityReport(
            stages: stageOrder.map(\.rawValue), reports: outcome.completed.compactMap { outcome.reports[$0] }, failures: outcome.failures,
            files: assembled.files, linted: bundleKinds.all[spec.kind].flatMap { $0.lintedInQualityReport ? $0.document : nil },
            language: spec.language)
        quality.review = seal.counts
        let notApplied = LanguageBoundCheck.notApplied(type(of: job).languageBoundChecks, language: spec.language)
        quality.notApplied = notApplied.isEmpty ? nil : notApplied.map { QualityReport.NotApplied($0, language: spec.language) }
        assembled.files[QualityReport.fileName] = try quality.jsonData()
        let base = Manifest(
            kind: spec.kind, id: spec.id, version: spec.version, title: assembled.title, language: spec.language,
            generator: generator, specHash: spec.hash, models: Array(totals.models), promptTemplates: Array(totals.templates),
            usage: Manifest.Usage(
                promptTokens: totals.usage.promptTokens, completionTokens: totals.usage.completionTokens,
                cachedTokens: totals.usage.cachedTokens, calls: totals.calls + totals.cachedCalls),
            costUSD: totals.costUSD, incompleteItems: outcome.failures.map(\.id), files: [:], contents: assembled.counts.isEmpty ? nil : assembled.counts)
        let written = try BundleWriter(outputRoot: options.outputRoot).write(files: assembled.files, manifest: base)
        var result = Result(
            status: status, bundle: written, failures: outcome.failures, totals: totals, itemCount: itemCount, reports: outcome.reports,
            entryDocument: assembled.entryDocument, quality: quality)
        result.summary = assembled.summary
        return result
    }

    /// The bundle's quality report: the items' reports, and `lectern check`'s lint of the
    /// document its kind has linted (`BundleKind.lintedInQualityReport`: a course's course.json,
    /// an exam's exam.json).
    static func qualityReport(
        stages: [String], reports: [ItemReport], failures: [ItemFailure], files: [String: Data], linted: String?, language: String
    ) -> QualityReport {
        let bank = linted.flatMap { file in
            files[file].flatMap { data in
                // Keyed by the document's digest, not its text: a large course.json is not
                // held once more while it is checked.
                CheckMemo.verdict("BankLint.check", ["sha256:" + SHA256Digest.hex(data), file, language]) {
                    try? BankLint.check(data: data, file: file, language: language)
                }
            }
        }
        return QualityReport(stages: stages, reports: reports, failures: failures, bank: bank)
    }
}
