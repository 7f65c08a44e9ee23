import ArgumentParser
import Foundation
import LecternCore
import LecternLLM
import LecternPipeline

/// The blind solver of `lectern check --model SPEC_OR_NAME`: a job spec's model (its
/// `review.model` when it names one, through the spec's provider) or a local model by name.
struct SolverSetup {
    var providerKind: String
    var model: String
    var seed: Int?
    var maxConcurrency: Int
    /// Made when the first question misses the cache, so that `--plan` and a solve answered from
    /// the cache start nothing (no local model server, no connection).
    let makeProvider: @Sendable () throws -> any LLMProvider

    static var localNames: String { LocalModelCatalog.knownModels.map(\.name).joined(separator: ", ") }

    static func make(_ value: String, specOptions: SpecOptions) throws -> SolverSetup {
        let environment = ProcessInfo.processInfo.environment
        let lowered = value.lowercased()
        let isLocal = LocalModelCatalog.knownModels.contains { $0.name == value }
        if !isLocal || FileManager.default.fileExists(atPath: value) {
            guard lowered.hasSuffix(".yaml") || lowered.hasSuffix(".yml") || FileManager.default.fileExists(atPath: value) else {
                Console.error(
                    "error: --model \(value) names neither a job spec nor a local model\n"
                        + "  hint: give a spec whose model: section names the provider and model (e.g. pipelines/examples/python-basics.yaml), or one of \(localNames)")
                throw LecternExit.usage
            }
            guard FileManager.default.isReadableFile(atPath: value) else {
                Console.error("error: --model \(value): the spec does not exist or cannot be read\n  hint: check the path")
                throw LecternExit.usage
            }
            let (spec, _, url) = try JobSetup.loadSpec(value, options: specOptions)
            return SolverSetup(
                providerKind: spec.model.provider.rawValue, model: spec.review.model ?? spec.model.name, seed: spec.model.seed,
                maxConcurrency: spec.model.maxConcurrency
            ) {
                try JobSetup.makeProvider(spec: spec, specURL: url, environment: environment, events: SilentEventSink())
            }
        }
        return SolverSetup(providerKind: "local", model: value, seed: nil, maxConcurrency: 1) {
            try LocalProviderFactory.make(
                model: value, maxConcurrency: 1, maxTokens: 400, environment: environment, events: { _ in }, status: { Console.error($0) })
        }
    }

    /// `--plan`: the calls a solve of `questions` questions makes, and its estimated tokens and cost.
    func printPlan(questions: Int, json: Bool, judged: Bool = false) {
        var usage = BankSolve.estimatedUsage(count: questions)
        if judged {
            let tokens = questions * RubricJudge.typicalTokens
            usage = usage + TokenUsage(promptTokens: tokens * 3 / 5, completionTokens: tokens * 2 / 5)
        }
        let calls = questions * (judged ? 2 : 1)
        let tokens = usage.promptTokens + usage.completionTokens
        let cost = PricingSetup.cost(providerKind, model, usage)
        if json {
            let value: JSONValue = [
                "calls": .number(Double(calls)), "provider": .string(providerKind), "model": .string(model),
                "estimated_tokens": .number(Double(tokens)), "estimated_cost_usd": cost.map(JSONValue.number) ?? .null,
            ]
            FileHandle.standardOutput.write(Data((value.canonicalText + "\n").utf8))
            return
        }
        let price =
            cost.map { String(format: "estimated cost $%.4f", $0) }
            ?? "no price for \(providerKind)/\(model) in the price table (docs/pricing.md)"
        FileHandle.standardOutput.write(
            Data(
                (judged
                    ? "blind solve and rubric with \(providerKind)/\(model): \(calls) calls (two a multiple-choice question), about \(tokens) tokens (\(BankSolve.typicalTokens) a solve, \(RubricJudge.typicalTokens) a judgement), \(price); nothing was asked\n"
                    : "blind solve with \(providerKind)/\(model): \(questions) call\(questions == 1 ? "" : "s") (one a multiple-choice question), about \(tokens) tokens (\(BankSolve.typicalTokens) a call), \(price); nothing was asked\n")
                    .utf8))
    }

    /// Solves `questions` through `cache` in `mode` (as `run` asks) and adds each disagreement
    /// with the key to `report` (in file order), with what was solved. A provider failure, or a
    /// miss in replay or offline mode, is printed and exits 3; a cache that cannot be written, 5.
    func solve(_ questions: [BankQuestion], into report: BankReport, file: String, cache: ExchangeCache, mode: CacheMode) async throws -> BankReport {
        let verdicts = try await asking(
            questions.count, "solving", "blind with", answered: "answered", role: "the blind solver", file: file, cache: cache, mode: mode
        ) { exchanger, progress in
            try await BankSolve.solve(questions, exchanger: exchanger, model: model, seed: seed, progress: progress)
        }
        var report = report
        var costs = verdicts.filter { !$0.cached }.map { PricingSetup.cost(providerKind, model, $0.usage) }
        if costs.isEmpty { costs = [0] }
        report.solved = BankReport.Solved(
            model: model, provider: providerKind, asked: verdicts.count, agreed: verdicts.count { $0.chosen == $0.question.solve.key },
            unanswered: verdicts.count { $0.chosen == nil }, cached: verdicts.count(where: \.cached),
            tokens: verdicts.reduce(0) { $0 + $1.usage.promptTokens + $1.usage.completionTokens },
            costUSD: costs.contains(nil) ? nil : costs.reduce(0) { $0 + ($1 ?? 0) })
        let problems = Dictionary(
            verdicts.compactMap { v in v.problem(model: model).map { (v.id, [Refusal(.answerKey, $0)]) } }, uniquingKeysWith: { first, _ in first })
        return Self.merging(problems, questions: questions, into: report)
    }

    /// `body`'s answers through `cache` in `mode` (as `run` asks), with a line on standard error
    /// before ("solving 40 multiple-choice questions blind with …") and each tenth of the way (at
    /// least every 10 answers: a local model takes seconds a question, a bank of hundreds minutes
    /// to an hour). A provider failure, or a miss in replay or offline mode, is printed naming
    /// `role` and exits 3; a cache that cannot be written, 5.
    func asking<T>(
        _ count: Int, _ doing: String, _ how: String, answered: String, role: String, file: String, cache: ExchangeCache, mode: CacheMode,
        _ body: (Exchanger, @escaping @Sendable (Int) -> Void) async throws -> T
    ) async throws -> T {
        let make = makeProvider
        let provider = mode == .offline ? nil : LazyProvider(kind: providerKind, maxConcurrency: maxConcurrency, make: make)
        let exchanger = Exchanger(providerKind: providerKind, provider: provider, cache: cache, mode: mode)
        if count > 0 { Console.error("\(doing) \(count) multiple-choice question\(count == 1 ? "" : "s") \(how) \(providerKind)/\(model) …") }
        let step = max(10, count / 10)
        do {
            let result = try await body(exchanger) { done in
                if done % step == 0 && done < count { Console.error("  \(done) of \(count) \(answered)") }
            }
            await provider?.shutdown()
            exchanger.flush()
            return result
        } catch {
            await provider?.shutdown()
            exchanger.flush()
            let reason = (error as? LLMError)?.message ?? "\(error)"
            Console.error("\(file): error: \(role) \(providerKind)/\(model) failed: \(reason)")
            throw error is CacheWriteError ? LecternExit.runtime : LecternExit.provider
        }
    }

    /// `report` with each question's `problems` joined to its flag, or as a flag of its own placed
    /// where the question is in the file.
    static func merging(_ problems: [String: [Refusal]], questions: [BankQuestion], into report: BankReport) -> BankReport {
        guard !problems.isEmpty else { return report }
        var report = report
        let order = Dictionary(questions.enumerated().map { ($0.element.id, $0.offset) }, uniquingKeysWith: { first, _ in first })
        let linted = Set(report.flagged.map(\.id))
        var pending = questions.map(\.id).filter { problems[$0] != nil && !linted.contains($0) }
        var flagged: [BankReport.Flag] = []
        for var flag in report.flagged {
            if let place = order[flag.id] {
                while let next = pending.first, let nextPlace = order[next], nextPlace < place {
                    flagged.append(BankReport.Flag(id: next, problems: problems[next]!))
                    pending.removeFirst()
                }
            }
            for problem in problems[flag.id] ?? [] {
                flag.problems.append(problem.message)
                flag.checks.append(problem.check)
            }
            flagged.append(flag)
        }
        flagged += pending.map { BankReport.Flag(id: $0, problems: problems[$0]!) }
        report.flagged = flagged
        return report
    }

    /// Judges `questions` against the rubric through `cache` in `mode`, as `solve` asks, and adds
    /// each broken criterion that quotes its question to `report`, with what was judged.
    func judge(_ questions: [BankQuestion], into report: BankReport, file: String, cache: ExchangeCache, mode: CacheMode) async throws -> BankReport {
        let judgements = try await asking(
            questions.count, "judging", "against the rubric with", answered: "judged", role: "the rubric judge", file: file, cache: cache, mode: mode
        ) { exchanger, progress in
            try await BankSolve.judge(questions, exchanger: exchanger, model: model, seed: seed, progress: progress)
        }
        var report = report
        let tally = judgements.compactMap(\.tally).reduce(RubricTally(), +)
        let costs = judgements.filter { !$0.cached }.map { PricingSetup.cost(providerKind, model, $0.usage) }
        report.judged = BankReport.Judged(
            model: model, provider: providerKind, judged: tally.judged, passed: tally.passed, broken: tally.broken, unquoted: tally.unquoted,
            unanswered: judgements.count { $0.tally == nil }, cached: judgements.count(where: \.cached),
            tokens: judgements.reduce(0) { $0 + $1.usage.promptTokens + $1.usage.completionTokens },
            costUSD: costs.contains(nil) ? nil : costs.reduce(0) { $0 + ($1 ?? 0) })
        let problems = Dictionary(
            judgements.filter { !$0.refusals.isEmpty }.map { ($0.question.id, $0.refusals) }, uniquingKeysWith: { first, _ in first })
        return Self.merging(problems, questions: questions, into: report)
    }
}
