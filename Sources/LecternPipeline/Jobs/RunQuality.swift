import Foundation

/// How the items of a run fared — what a user asks once it has finished: how many answers were
/// accepted first time, how many needed repairs, how many failed, and what was flagged. The
/// answers are counted by the function that writes the bundle's quality.json, so `run` and
/// `lectern verify` say the same. Answers replayed from the cache count as they did when they
/// were recorded, so an offline replay reports the recorded run's quality.
public struct RunQuality: Sendable, Equatable {
    /// The warnings of one kind and the items that raised them.
    public struct WarningGroup: Sendable, Equatable {
        public var kind: String
        public var count: Int
        /// Sorted, each once.
        public var items: [String]
    }

    /// How the model answers fared, counted as the bundle's quality.json counts them
    /// (`QualityReport.answers`): accepted first time, repaired, failed, attempts.
    public var answers: QualityReport.Items
    /// Model answers accepted first time: no attempt refused (`answers.firstTime`).
    public var validAtFirstAttempt: Int { answers.firstTime }
    /// Model answers accepted after one or more refusals, a mended answer among them (`answers.repaired`).
    public var repaired: Int { answers.repaired }
    /// Items that failed themselves (validation, rendering, provider, budget, no recorded
    /// answer); not those an interruption stopped or a failed dependency never let start.
    public var failed = 0
    /// Items never started because an item they need failed.
    public var notStarted = 0
    /// Warnings by kind, the most frequent first.
    public var warnings: [WarningGroup] = []

    public init(_ result: JobRunner.Result) {
        answers = QualityReport.answers(reports: Array(result.reports.values), failures: result.failures)
        for failure in result.failures {
            switch failure.reason {
            case .dependency: notStarted += 1
            case .cancelled: break
            case .invalid, .provider, .budget, .cacheMiss, .internal: failed += 1
            }
        }
        var byKind: [String: (count: Int, items: Set<String>)] = [:]
        for warning in result.reports.values.flatMap(\.warnings) {
            byKind[warning.kind, default: (0, [])].count += 1
            byKind[warning.kind, default: (0, [])].items.insert(warning.itemID)
        }
        warnings = byKind.map { WarningGroup(kind: $0.key, count: $0.value.count, items: $0.value.items.sorted()) }
            .sorted { ($1.count, $0.kind) < ($0.count, $1.kind) }
    }

    /// Warnings of every kind.
    public var warningCount: Int { warnings.reduce(0) { $0 + $1.count } }
}
