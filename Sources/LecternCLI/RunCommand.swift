import ArgumentParser
import Foundation
import LecternBundle
import LecternCore
import LecternLLM
import LecternPipeline

/// `lectern run SPEC...`: generate bundles.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Generate the content of one or more job specs into versioned bundles.",
        discussion: """
            Every model answer is cached by content hash, so a re-run (after a crash, Ctrl-C or an \
            edit) only pays for what changed, and gives an item that failed validation another \
            round of repair attempts. On a terminal a table at the bottom shows each stage's \
            progress (done/total, tokens, cost, ETA); above it each repair, failure and provider \
            retry is one line (the item, the attempt, the check that refused it), and every \
            message is in full in the event log (--event-log; by default <cache-dir>/logs/<id>.jsonl \
            on a terminal) and, with --verbose, on the screen. The bundle goes to OUTPUT/<id>/<version>/; an existing \
            version is never modified. The closing summary gives items, model calls, tokens and \
            cost; the model answers accepted first time, repaired and failed (counted and worded as \
            the bundle's quality.json and `lectern verify` count them); the warnings by kind; the \
            wall time; and the file to open first.
            """)

    @Argument(help: ArgumentHelp("Job spec files (YAML). Each runs in turn; an error in one is reported and the others still run.", valueName: "SPEC"))
    var specs: [String]

    @Option(
        help: ArgumentHelp(
            "record: use the cache and call the model on a miss (default); replay: cache and cassettes only, a miss is an error (without --cassette, the spec's recorded cassettes/<id>.jsonl above it is used when there is one); offline: like replay and never start a provider; off: neither read nor write the cache.",
            valueName: "MODE"))
    var cache: CacheMode = .record

    @Option(name: .customLong("output"), help: ArgumentHelp("Directory the bundles are written under.", valueName: "DIR"))
    var output: String = "output"

    @Flag(name: .customLong("allow-partial"), help: "Write the bundle even when some items failed (the manifest lists them under incomplete_items).")
    var allowPartial = false

    @Option(
        name: .customLong("log-format"),
        help: ArgumentHelp(
            "auto: live progress on a terminal, JSON lines otherwise; text: a line per item; json: one JSON event per line on stderr.",
            valueName: "FORMAT"))
    var logFormat: LogFormat = .auto

    @Flag(
        help: ArgumentHelp(
            "Print every repair's, failure's and provider retry's messages in full (and given-up mends and warnings), not one line cut to the terminal's width."))
    var verbose = false

    @Option(
        name: .customLong("event-log"),
        help: ArgumentHelp(
            "Also write the JSON event log (one event a line, every message in full) to FILE. On a terminal it is written by default to <cache-dir>/logs/<id>.jsonl (the last run of each spec).",
            valueName: "FILE"))
    var eventLog: String?

    @Option(
        name: .customLong("record-cassette"),
        help: ArgumentHelp(
            "After the run, write every exchange it used (of every spec) to FILE as sorted JSONL (for committing fixtures); a failure to write it exits 5.",
            valueName: "FILE"))
    var recordCassette: String?

    @Option(name: .customLong("max-concurrency"), help: ArgumentHelp("Override the spec's model.max_concurrency.", valueName: "N"))
    var maxConcurrency: Int?

    @Option(
        help: ArgumentHelp(
            "Run shard K of N into the cache and write no bundle (0/N: the shared planning stages only). Merge the shards' caches with `lectern cache export`/`import`, then a run without --shard assembles the bundle from the cache with no model call (`--cache offline`); an exam runs its shards twice (docs/scale.md).",
            valueName: "K/N"))
    var shard: String?

    @Flag(
        help: ArgumentHelp(
            "Send the requests through the provider's batch API (OpenAI, Anthropic; like model.batch: true): half the price, answers within hours. Rounds: the items ready together, then the ones their answers unlock; an interrupted run picks up its batches in flight."
        ))
    var batch = false

    @OptionGroup var specOptions: SpecOptions
    @OptionGroup var cacheOptions: CacheOptions

    func validate() throws {
        if let maxConcurrency, !(1...1024).contains(maxConcurrency) {
            throw ValidationError("--max-concurrency must be between 1 and 1024")
        }
        if let shard, Shard(parsing: shard) == nil {
            throw ValidationError("--shard must be K/N with 1 ≤ N ≤ 10000 and 0 ≤ K ≤ N (0/N runs the shared planning stages only), e.g. --shard 2/4")
        }
        if shard != nil, recordCassette != nil {
            throw ValidationError("--record-cassette records a whole run; record it from the assembling run, without --shard")
        }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let cacheStore = try cacheOptions.open(environment)
        var worst: Int32 = 0
        var used: [ExchangeRecord] = []
        // One --event-log file for every spec of the run.
        let sharedLog = eventLog.flatMap { EventLogFile(URL(fileURLWithPath: $0)) }
        defer { sharedLog?.close() }
        for path in specs {
            let outcome = await runOne(path, cacheStore: cacheStore, environment: environment, eventLog: sharedLog)
            used += outcome.used
            worst = LecternExit.worse(worst, outcome.code)
            if outcome.code == LecternExit.interrupted.rawValue { break }
        }
        if let recordCassette {
            do {
                try ExchangeCache.writeCassette(used, to: URL(fileURLWithPath: recordCassette))
                Console.error("recorded \(used.count) exchanges to \(recordCassette)")
            } catch {
                Console.error(
                    "error: cannot write the cassette \(recordCassette): \(error.localizedDescription); the answers are in the cache, so a re-run with --cache replay writes it without model calls")
                worst = LecternExit.worse(worst, LecternExit.runtime.rawValue)
            }
        }
        if worst != 0 { throw ExitCode(worst) }
    }

    /// Runs one spec; never throws, so one spec's error does not stop the others.
    func runOne(
        _ path: String, cacheStore: ExchangeCache, environment: [String: String], eventLog sharedLog: EventLogFile?
    ) async -> (code: Int32, used: [ExchangeRecord]) {
        var spec: JobSpec
        let presets: PresetLibrary
        let specURL: URL
        do {
            (spec, presets, specURL) = try JobSetup.loadSpec(path, options: specOptions)
        } catch {
            return (LecternExit.code(for: error), [])
        }
        if batch {
            guard spec.model.provider == .openai || spec.model.provider == .anthropic else {
                Console.error("\(path): error: --batch needs a provider with a batch API (openai, anthropic); this spec's model.provider is \(spec.model.provider.rawValue)")
                return (LecternExit.usage.rawValue, [])
            }
            spec.model.batch = true
        }
        let terminal = logFormat == .auto && Console.stderrIsTerminal
        let progress = terminal ? TerminalProgressSink(verbose: verbose) : nil
        let display: any EngineEventSink =
            switch logFormat {
            case .text: TextEventSink(verbose: verbose)
            case .json: JSONLinesEventSink()
            case .auto: progress ?? JSONLinesEventSink()
            }
        // The progress table shows one line a message: the full messages go to the event log.
        let ownLog =
            sharedLog == nil && progress != nil
            ? EventLogFile(cacheStore.root.appendingPathComponent("logs/\(spec.id).jsonl")) : nil
        defer { ownLog?.close() }
        let log = sharedLog ?? ownLog
        let events: any EngineEventSink = log.map { FanOutEventSink(sinks: [display, $0]) } ?? display
        // What `validate` refuses, in the same code: the job built from the spec, the provider
        // and the speech set-up it needs — made here, before any work starts, and used below.
        let made: JobSetup.Preflight
        do {
            made = try JobSetup.preflight(
                spec: spec, presets: presets, specURL: specURL, path: path, environment: environment, cache: cache, events: events,
                cacheRoot: cacheStore.root)
        } catch {
            return (LecternExit.code(for: error), [])
        }
        if let problem = made.problems.first {
            Console.error("\(path): error: \(problem.message)")
            return (problem.exit.rawValue, [])
        }
        var provider = made.provider
        if cache == .record || cache == .off, spec.model.provider == .local {
            // The local model server starts on the first cache miss, so a fully cached run never
            // loads a model.
            let specCopy = spec
            provider = LazyProvider(kind: spec.model.provider.rawValue, maxConcurrency: spec.model.maxConcurrency) {
                try JobSetup.makeProvider(spec: specCopy, specURL: specURL, environment: environment, events: events)
            }
        }
        var cacheStore = cacheStore
        if cache == .replay || cache == .offline, cacheOptions.cassettes.isEmpty, let recorded = JobSetup.recordedCassette(id: spec.id, specAt: specURL) {
            do {
                cacheStore = try cacheOptions.open(environment, cassettes: [recorded])
            } catch {
                return (LecternExit.code(for: error), [])
            }
            Console.error("\(path): answering from the recorded cassette \(recorded.path)")
        }
        let exchanger = Exchanger(providerKind: spec.model.provider.rawValue, provider: provider, cache: cacheStore, mode: cache)
        var runner = JobRunner(
            spec: spec, presets: presets, exchanger: exchanger, renderer: RendererSetup.make(), events: events,
            cost: PricingSetup.cost(batch: spec.model.batch == true), generator: "lectern \(LecternCommand.version)")
        runner.speech = made.speech
        progress?.useStageOrder(runner.stageOrder)
        let task = Task {
            try await runner.run(
                options: JobRunner.Options(
                    outputRoot: URL(fileURLWithPath: output, isDirectory: true), allowPartial: allowPartial, maxConcurrency: maxConcurrency,
                    shard: shard.flatMap(Shard.init(parsing:))))
        }
        let interrupt = InterruptHandler { task.cancel() }
        defer { interrupt.cancel() }
        let outcome = await task.result
        // The local model server stops here, whatever happened (done, failed, Ctrl-C).
        if let lazy = provider as? LazyProvider { await lazy.shutdown() }
        progress?.finish()
        let result: JobRunner.Result
        do {
            result = try outcome.get()
        } catch {
            Console.error("\(path): error: \(error)")
            if LecternExit.code(for: error) == LecternExit.runtime.rawValue {
                Console.error("finished items are cached; fix the cause and re-run to resume")
            }
            return (LecternExit.code(for: error), exchanger.usedRecords())
        }
        return (report(result, spec: spec, path: path, mode: cache, eventLog: log?.url), exchanger.usedRecords())
    }

    func report(_ result: JobRunner.Result, spec: JobSpec, path: String, mode: CacheMode, eventLog: URL? = nil) -> Int32 {
        let t = result.totals
        let summary = String(
            format: "%@: %d items, %d model calls (%d from cache), %d tokens, $%.4f paid this run",
            path as NSString, result.itemCount, t.calls, t.cachedCalls, t.usage.totalTokens, t.paidCostUSD)
        Console.error(summary)
        for line in RunSummary.details(result) { Console.error(line) }
        if let eventLog { Console.error("  event log (every message in full): \(eventLog.path)") }
        if !result.failures.isEmpty {
            let real = result.failures.filter { $0.reason != .dependency }
            let skipped = result.failures.count - real.count
            Console.error(
                "\(real.count) item\(real.count == 1 ? "" : "s") failed\(skipped > 0 ? " (\(skipped) more not started because of them)" : ""):")
            for failure in real.prefix(20) { Console.error("  " + failure.description.replacingOccurrences(of: "\n", with: "\n  ")) }
        }
        if let shard = result.shard {
            Console.error(
                "shard \(shard.shard): \(result.itemCount) items run or read from the cache; \(shard.otherShards) left to other shards, "
                    + "\(shard.leftForAssembly) to the assembling run; no bundle written")
            if shard.waitingForOtherShards > 0 {
                Console.error(
                    "\(shard.waitingForOtherShards) item\(shard.waitingForOtherShards == 1 ? " waits" : "s wait") for other shards' answers: "
                        + "merge the shards' caches, import the merge into each shard's cache and run the shards again (docs/scale.md)")
            } else if shard.shard.index > 0 {
                Console.error("next: merge the shards' caches, then assemble with `lectern run SPEC --cache offline` (no model calls)")
            }
            if shard.modelItemsLeftForAssembly > 0 {
                Console.error(
                    "warning: \(shard.modelItemsLeftForAssembly) model item\(shard.modelItemsLeftForAssembly == 1 ? " is" : "s are") left to the assembling run, "
                        + "which will call the model for \(shard.modelItemsLeftForAssembly == 1 ? "it" : "them"): their inputs are in several shards")
            }
        }
        switch result.bundle {
        case .written(let url)?: Console.out("wrote \(url.path)")
        case .unchanged(let url)?: Console.out("unchanged \(url.path) (identical content is already there)")
        case nil: break
        }
        if let entry = RunSummary.entry(result) { Console.out(entry) }
        switch result.status {
        case .complete: return 0
        case .itemsFailed:
            // Only a run that may call the model can give failed items another round.
            let again = mode == .record ? "re-run to give the failed items another round of attempts (finished items are cached)" : nil
            if result.shard != nil {
                if let again { Console.error(again) }
            } else if result.bundle == nil {
                Console.error("no bundle written; " + [again, "fix the spec or prompts", "or pass --allow-partial"].compactMap { $0 }.joined(separator: ", "))
            } else if let again {
                Console.error(again)
            }
            return LecternExit.itemsFailed.rawValue
        case .providerFailed:
            Console.error("the model provider failed; finished items are cached — fix the cause and re-run to resume")
            return LecternExit.provider.rawValue
        case .runtimeFailed:
            Console.error("this machine failed the run (cache or disk I/O, see above); finished items are cached — fix the cause and re-run to resume")
            return LecternExit.runtime.rawValue
        case .budgetExceeded:
            Console.error("the budget (budget.max_cost_usd) was reached; finished items are cached — raise the budget and re-run to resume")
            return LecternExit.budget.rawValue
        case .cancelled:
            Console.error("interrupted; finished items are cached — re-run the same command to resume")
            return LecternExit.interrupted.rawValue
        }
    }
}

/// Cancels the run on SIGINT/SIGTERM so in-flight requests are aborted and finished work kept.
final class InterruptHandler: @unchecked Sendable {
    // @unchecked: the dispatch sources are only created here and cancelled in cancel().
    private var sources: [DispatchSourceSignal] = []

    init(_ action: @escaping @Sendable () -> Void) {
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { action() }
            source.resume()
            sources.append(source)
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}

/// The renderer used for `.xhtml` renditions.
enum RendererSetup {
    static func make() -> (any DocumentRenderer)? { MarkdownDocumentRenderer() }
}
