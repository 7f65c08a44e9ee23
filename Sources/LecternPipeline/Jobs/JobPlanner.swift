import Foundation
import LecternCore
import LecternLLM
import Synchronization

/// What a run would do, found without calling any model: the work graph is expanded as far as
/// stored answers allow; beyond that it is estimated from the spec's size bounds.
public struct JobPlan: Sendable {
    public struct StageCount: Sendable {
        public var items = 0
        /// Items whose answers are all stored: free and instant.
        public var cached = 0
        /// Items that need at least one model call.
        public var toCall = 0
        public var estimatedTokens = 0
    }

    public var stages: [String: StageCount]
    /// The job kind's stages in run order.
    public var order: [String]
    /// True when some items could not be reached from stored answers (a course's curriculum is
    /// not stored yet), so their counts are estimated; `estimateNote` says how.
    public var estimated: Bool
    /// The job kind's words for what the estimated items wait for and what their counts are.
    public var estimateNote: String?
    public var estimatedCostUSD: Double

    /// The stages present, in run order (stages the kind does not list last, by name).
    public var orderedStages: [String] {
        stages.keys.sorted { (order.firstIndex(of: $0) ?? order.count, $0) < (order.firstIndex(of: $1) ?? order.count, $1) }
    }

    public var totalItems: Int { stages.values.reduce(0) { $0 + $1.items } }
    public var totalCalls: Int { stages.values.reduce(0) { $0 + $1.toCall } }
    public var totalCached: Int { stages.values.reduce(0) { $0 + $1.cached } }
    public var totalTokens: Int { stages.values.reduce(0) { $0 + $1.estimatedTokens } }
}

extension JobRunner {
    /// The plan of this job against the current cache.
    public func plan() async throws -> JobPlan {
        let ledger = Ledger()
        let replay = Exchanger(providerKind: exchanger.providerKind, provider: nil, cache: exchanger.cache, mode: .replay)
        let probe = JobRunner(
            spec: spec, presets: presets, exchanger: replay, renderer: renderer, events: SilentEventSink(), cost: cost, generator: generator)
        // The review file's decisions, as a run applies them: an approved or edited item needs no
        // call, a rejected one is asked again.
        let job = try probe.makeJob(ledger: ledger, review: try probe.reviewBook())
        let collector = PlanCollector()
        let engine = Engine(modelConcurrency: 8, events: collector)
        let outcome = await engine.run(job.initialItems(), results: ResultStore())
        var stages = collector.counts()
        let kindStages = type(of: job).stages
        var typicalTokens = Dictionary(kindStages.map { ($0.name.rawValue, $0.typicalTokens) }) { a, _ in a }
        for failure in outcome.failures {
            // An item the replay could not finish: a call, unless its stage calls no model.
            let usesModel = (typicalTokens[failure.stage] ?? 1) > 0
            stages[failure.stage, default: JobPlan.StageCount()].items += usesModel ? 0 : 1
            stages[failure.stage, default: JobPlan.StageCount()].toCall += usesModel ? 1 : 0
        }
        // Items the replay could not reach (a course's lectures before its curriculum is stored),
        // counted at the spec's upper bounds.
        let unreached = job.unreachedEstimate(reached: Set(outcome.completed))
        for (stage, n) in unreached {
            let usesModel = (typicalTokens[stage.rawValue] ?? 1) > 0
            stages[stage.rawValue, default: JobPlan.StageCount()].items += n
            stages[stage.rawValue, default: JobPlan.StageCount()].toCall += usesModel ? n : 0
        }
        // Blind solves of the multiple-choice questions still to be written: a stage of their own.
        if spec.review.blindSolve {
            let perItem = Dictionary(kindStages.map { ($0.name.rawValue, $0.blindSolves) }) { a, _ in a }
            let solves = stages.reduce(0.0) { $0 + Double($1.value.toCall) * (perItem[$1.key] ?? 0) }
            if solves > 0 {
                stages[BlindSolver.stage] = JobPlan.StageCount(items: 0, cached: 0, toCall: Int(solves.rounded(.up)), estimatedTokens: 0)
                typicalTokens[BlindSolver.stage] = BlindSolver.typicalTokens
            }
        }
        // The rubric's judgements: one for each answer still to be written that is solved blind
        // (whatever its number of questions: a judgement reads the whole answer).
        if spec.review.rubric {
            let perItem = Dictionary(kindStages.map { ($0.name.rawValue, min(1, $0.blindSolves)) }) { a, _ in a }
            let judged = stages.reduce(0.0) { $0 + Double($1.value.toCall) * (perItem[$1.key] ?? 0) }
            if judged > 0 {
                stages[RubricJudge.stage] = JobPlan.StageCount(items: 0, cached: 0, toCall: Int(judged.rounded(.up)), estimatedTokens: 0)
                typicalTokens[RubricJudge.stage] = RubricJudge.typicalTokens
            }
        }
        // Each option judged on its own: one call per option of each multiple-choice question
        // still to be written (whether or not it is solved blind).
        if spec.review.judgeOptions {
            let perItem = Dictionary(kindStages.map { ($0.name.rawValue, $0.blindSolves) }) { a, _ in a }
            let questions = stages.reduce(0.0) { $0 + Double($1.value.toCall) * (perItem[$1.key] ?? 0) }
            if questions > 0 {
                stages[OptionJudge.stage] = JobPlan.StageCount(
                    items: 0, cached: 0, toCall: Int(questions.rounded(.up)) * OptionJudge.plannedOptions, estimatedTokens: 0)
                typicalTokens[OptionJudge.stage] = OptionJudge.typicalTokens
            }
        }
        var cost = 0.0
        let within: Set<String> = [BlindSolver.stage, RubricJudge.stage, OptionJudge.stage]
        for (stage, count) in stages {
            var entry = count
            // Blind solves and judgements are calls within the items of their stages, not items of their own.
            if !within.contains(stage) { entry.items = max(entry.items, entry.cached + entry.toCall) }
            let typical = typicalTokens[stage] ?? 1_500
            entry.estimatedTokens = typical * entry.toCall
            let usage = TokenUsage(promptTokens: entry.estimatedTokens * 3 / 5, completionTokens: entry.estimatedTokens * 2 / 5)
            cost += self.cost(exchanger.providerKind, spec.model.name, usage) ?? 0
            stages[stage] = entry
        }
        return JobPlan(
            stages: stages, order: kindStages.map(\.name.rawValue) + [BlindSolver.stage, RubricJudge.stage, OptionJudge.stage], estimated: !unreached.isEmpty,
            estimateNote: unreached.isEmpty ? nil : type(of: job).unreachedNote, estimatedCostUSD: cost)
    }
}

/// Counts finished (stored) items per stage during a planning replay.
final class PlanCollector: EngineEventSink {
    private let state = Mutex<[String: JobPlan.StageCount]>([:])

    func emit(_ event: EngineEvent) {
        if case .itemFinished(let report) = event {
            state.withLock {
                $0[report.stage, default: JobPlan.StageCount()].items += 1
                $0[report.stage, default: JobPlan.StageCount()].cached += 1
            }
        }
    }

    func counts() -> [String: JobPlan.StageCount] { state.withLock { $0 } }
}
