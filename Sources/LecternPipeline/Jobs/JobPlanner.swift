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
    /// True when the curriculum is not stored yet, so per-topic counts are estimates (upper bounds).
    public var estimated: Bool
    public var estimatedCostUSD: Double

    public var totalItems: Int { stages.values.reduce(0) { $0 + $1.items } }
    public var totalCalls: Int { stages.values.reduce(0) { $0 + $1.toCall } }
    public var totalCached: Int { stages.values.reduce(0) { $0 + $1.cached } }
    public var totalTokens: Int { stages.values.reduce(0) { $0 + $1.estimatedTokens } }
}

extension JobRunner {
    /// Typical tokens per call of each stage, used where the cache has nothing better.
    static let typicalTokens: [String: Int] = [
        "curriculum": 1_400, "curriculum-edit": 2_000, "tone-preview": 700, "lecture": 2_400, "engagement-question": 2_300,
        "bonus-question": 900, "ending-project": 1_300, "reinforcement": 1_400, "render": 0,
    ]

    /// The plan of this job against the current cache.
    public func plan() async throws -> JobPlan {
        let ledger = Ledger()
        let replay = Exchanger(providerKind: exchanger.providerKind, provider: nil, cache: exchanger.cache, mode: .replay)
        let probe = JobRunner(
            spec: spec, presets: presets, exchanger: replay, renderer: renderer, events: SilentEventSink(), cost: cost, generator: generator)
        let job = try probe.makeJob(ledger: ledger)
        let collector = PlanCollector()
        let engine = Engine(modelConcurrency: 8, events: collector)
        let outcome = await engine.run(job.initialItems(), results: ResultStore())
        var stages = collector.counts()
        var estimated = false
        for failure in outcome.failures {
            stages[failure.stage, default: JobPlan.StageCount()].toCall += 1
        }
        if !outcome.completed.contains(job.finalCurriculumID), let course = spec.course {
            // The curriculum is not stored: count the items it would spawn at the upper bounds.
            estimated = true
            let subjects = course.outline?.subjects.count ?? course.curriculum.subjects.max
            let topics = course.outline.map { $0.subjects.reduce(0) { $0 + $1.topics.count } } ?? subjects * course.curriculum.topicsPerSubject.max
            var add: [String: Int] = ["tone-preview": 1, "lecture": topics]
            if course.addons.engagementQuestions {
                add["engagement-question"] = topics
                add["bonus-question"] = topics
            }
            if course.addons.reinforcement { add["reinforcement"] = topics * ReinforcementStage.levels.count }
            if course.addons.endingProjects { add["ending-project"] = subjects }
            if renderer != nil { add["render"] = topics + 1 }
            for (stage, n) in add {
                stages[stage, default: JobPlan.StageCount()].items += n
                stages[stage, default: JobPlan.StageCount()].toCall += stage == "render" ? 0 : n
            }
        }
        var cost = 0.0
        for (stage, count) in stages {
            var entry = count
            entry.items = max(entry.items, entry.cached + entry.toCall)
            let typical = Self.typicalTokens[stage] ?? 1_500
            entry.estimatedTokens = typical * entry.toCall
            let usage = TokenUsage(promptTokens: entry.estimatedTokens * 3 / 5, completionTokens: entry.estimatedTokens * 2 / 5)
            cost += self.cost(exchanger.providerKind, spec.model.name, usage) ?? 0
            stages[stage] = entry
        }
        return JobPlan(stages: stages, estimated: estimated, estimatedCostUSD: cost)
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
