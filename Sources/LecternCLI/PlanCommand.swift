import ArgumentParser
import Foundation
import LecternLLM
import LecternPipeline

/// `lectern plan SPEC`: the work graph and its cost, without calling anything.
struct PlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Show the work graph, calls per stage, cache hits and a token and cost estimate; calls nothing.",
        discussion: """
            Cached items are those the cache and the cassettes answer: every --cassette, or without \
            one the spec's recorded cassette (cassettes/<id>.jsonl in the nearest directory above \
            the spec that has one), as `run --cache offline` and `--cache replay` use them. A \
            `run` in the default record mode reads only the cache and --cassette.
            """)

    @Argument(help: ArgumentHelp("The job spec file.", valueName: "SPEC"))
    var spec: String

    @Flag(help: "Print the plan as JSON.")
    var json = false

    @Flag(help: "Estimate at the batch price (run --batch, model.batch: true): half the standard price.")
    var batch = false

    @OptionGroup var specOptions: SpecOptions
    @OptionGroup var cacheOptions: CacheOptions

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        var (jobSpec, presets, specURL) = try JobSetup.loadSpec(spec, options: specOptions)
        if batch {
            guard jobSpec.model.provider == .openai || jobSpec.model.provider == .anthropic else {
                throw ValidationError("--batch needs a provider with a batch API (openai, anthropic); this spec's model.provider is \(jobSpec.model.provider.rawValue)")
            }
            jobSpec.model.batch = true
        }
        // A spec `run` would refuse before its first call is refused here too (exit 2).
        _ = try JobSetup.preflight(spec: jobSpec, presets: presets, specURL: specURL, path: spec, environment: environment, cache: .offline).problems
        let batchPrice = jobSpec.model.batch == true
        // The answers a replay of this spec would have: the cache, every --cassette, and without
        // one the spec's recorded cassette (the same choice `run --cache offline` makes).
        let recorded = cacheOptions.cassettes.isEmpty ? JobSetup.recordedCassette(id: jobSpec.id, specAt: specURL) : nil
        let cache = try cacheOptions.open(environment, cassettes: recorded.map { [$0] } ?? [])
        let cassettes =
            cacheOptions.cassettes.map { URL(fileURLWithPath: $0).standardizedFileURL.path } + (recorded.map { [$0.standardizedFileURL.path] } ?? [])
        let exchanger = Exchanger(providerKind: jobSpec.model.provider.rawValue, provider: nil, cache: cache, mode: .replay)
        let runner = JobRunner(
            spec: jobSpec, presets: presets, exchanger: exchanger, renderer: RendererSetup.make(), events: SilentEventSink(),
            cost: PricingSetup.cost(batch: batchPrice))
        let plan = try await runner.plan()
        let stages = plan.orderedStages
        if json {
            var object: [String: JSONValue] = [
                "spec": .string(spec), "id": .string(jobSpec.id), "version": .string(jobSpec.version),
                "items": .number(Double(plan.totalItems)), "calls": .number(Double(plan.totalCalls)), "cached": .number(Double(plan.totalCached)),
                "estimated_tokens": .number(Double(plan.totalTokens)), "estimated_cost_usd": .number(plan.estimatedCostUSD),
                "estimated": .bool(plan.estimated), "estimate_note": plan.estimateNote.map(JSONValue.string) ?? .null, "batch_price": .bool(batchPrice),
                "cache_dir": .string(cacheOptions.root(environment).path),
                "cassettes": .array(cassettes.map { .string($0) }),
            ]
            object["stages"] = .object(
                Dictionary(
                    uniqueKeysWithValues: stages.map { stage in
                        let c = plan.stages[stage]!
                        return (
                            stage,
                            JSONValue.object([
                                "items": .number(Double(c.items)), "cached": .number(Double(c.cached)), "calls": .number(Double(c.toCall)),
                                "estimated_tokens": .number(Double(c.estimatedTokens)),
                            ])
                        )
                    }))
            Console.out(JSONValue.object(object).canonicalText)
            return
        }
        Console.out("\(jobSpec.id) \(jobSpec.version) (\(jobSpec.kind.rawValue)) on \(jobSpec.model.provider.rawValue)/\(jobSpec.model.name)")
        func row(_ cells: [String]) -> String {
            cells[0].padding(toLength: 22, withPad: " ", startingAt: 0)
                + cells.dropFirst().map { String(repeating: " ", count: max(0, 9 - $0.count)) + $0 }.joined()
        }
        Console.out(row(["stage", "items", "cached", "calls", "tokens"]))
        for stage in stages {
            guard let c = plan.stages[stage] else { continue }
            Console.out(row([stage, "\(c.items)", "\(c.cached)", "\(c.toCall)", "\(c.estimatedTokens)"]))
        }
        Console.out(row(["total", "\(plan.totalItems)", "\(plan.totalCached)", "\(plan.totalCalls)", "\(plan.totalTokens)"]))
        Console.out(
            String(
                format: "estimated cost: $%.4f%@%@", plan.estimatedCostUSD, batchPrice ? " at the batch price (half the standard)" as NSString : "" as NSString,
                plan.estimateNote.map { " (\($0))" as NSString } ?? "" as NSString))
        var sources = "cached: what the cache (\(cacheOptions.root(environment).path))"
        if !cacheOptions.cassettes.isEmpty { sources += " and --cassette \(cacheOptions.cassettes.joined(separator: ", "))" }
        if let recorded { sources += " and the spec's recorded cassette \(recorded.path)" }
        // A reviewer's approved and edited answers are kept without a call, as a run keeps them.
        if let review = try runner.reviewBook().fileName { sources += " and the review file \(review) (its approved and edited items)" }
        Console.out(sources + " answer")
        if recorded != nil {
            Console.out(
                "  `run --cache offline` and `--cache replay` answer from that cassette; a plain `run` (record mode) does not read it "
                    + "and calls the model for what the cache lacks")
        }
        if plan.totalCalls > 0 {
            Console.out("calls are at least one per item; repairs of invalid answers add more")
        }
    }
}
