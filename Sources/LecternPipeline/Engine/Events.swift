import Foundation
import LecternCore
import LecternLLM

/// What the engine reports as it works: progress lines on a terminal, JSON lines in CI.
public enum EngineEvent: Sendable {
    /// The plan grew (the curriculum spawned its items): totals per stage.
    case planned(totals: [String: Int])
    case itemStarted(id: String, stage: String)
    case itemFinished(ItemReport)
    /// An answer failed validation and the model is being asked again.
    case itemRepairing(id: String, stage: String, attempt: Int, errors: [Refusal])
    /// An attempt's wrong-option feedback was asked for option by option (`FeedbackMending`) and
    /// the mend was given up — `reason` says why —; the attempt goes on to the usual repair.
    case mendGivenUp(id: String, stage: String, attempt: Int, reason: String)
    case itemFailed(ItemFailure)
    /// A provider-level retry (429, 5xx, timeout) or rate-limit wait.
    case provider(id: String, message: String)
    /// A streamed answer for the item is arriving: tokens received so far (about one per event).
    case receiving(id: String, tokens: Int)
    /// A finished item's answer was accepted with a flag (emitted just before its `itemFinished`).
    case warning(ItemWarning)
}

/// A flag on an accepted answer: kept in the event log and counted by kind in the run's summary.
public struct ItemWarning: Sendable, Hashable {
    public var itemID: String
    /// What was flagged, without this answer's particulars: "the correct option is much longer
    /// than the others".
    public var kind: String
    /// The whole message, particulars included.
    public var message: String
    /// The check that raised it (`QualityCheck`): quality.json counts the item as flagged there.
    public var check: QualityCheck

    public init(itemID: String, kind: String, message: String, check: QualityCheck) {
        self.itemID = itemID
        self.kind = kind
        self.message = message
        self.check = check
    }
}

/// A finished item.
public struct ItemReport: Sendable {
    public var id: String
    public var stage: String
    public var attempts: Int
    /// Usage of every attempt of this item (stored answers included).
    public var usage: TokenUsage
    /// Usage paid in this run (cache misses only).
    public var paidUsage: TokenUsage
    public var costUSD: Double
    public var cached: Bool
    public var latency: Duration
    /// Flags raised on the accepted answer (validator warnings, rendering notes).
    public var warnings: [ItemWarning] = []
    /// The errors of each refused attempt before the accepted one, in order, with their checks.
    public var rejections: [[Refusal]] = []
    /// Blind solving of the accepted answer's multiple-choice questions.
    public var blindSolve = BlindSolveTally()
    /// What the rubric judge found on the accepted answer (empty: not judged).
    public var rubric = RubricTally()
}

/// An item that could not be completed, with the context to act on it.
public struct ItemFailure: Sendable, CustomStringConvertible {
    public enum Reason: String, Sendable {
        /// The answer never passed validation.
        case invalid
        /// The provider failed after its retries (network, auth, rate limits).
        case provider
        /// The budget was reached before this item could be paid for.
        case budget
        /// Replay/offline mode and no stored answer.
        case cacheMiss = "cache_miss"
        /// An item it depends on failed.
        case dependency
        /// This machine failed it: the cache or the disk could not be written, or an internal error.
        case `internal`
        case cancelled
    }

    public var id: String
    public var stage: String
    /// Human context, e.g. "subject 1 'Basics', topic 2 'Loops'".
    public var context: String
    public var attempts: Int
    public var reason: Reason
    /// The last validation errors, or the provider's message.
    public var errors: [String]
    /// The errors of every refused attempt, in order, with their checks (the last is `errors`
    /// when the answer never passed validation).
    public var rejections: [[Refusal]] = []
    /// The last attempt's refusals with their checks, when the answer failed without a refused
    /// attempt before (a provider script with no answer): `errors` with the check of each.
    public var refusals: [Refusal] = []

    public var description: String {
        var text = "\(id) (\(stage); \(context)) failed after \(attempts) attempt\(attempts == 1 ? "" : "s")"
        switch reason {
        case .invalid: text += ": the answer never passed validation"
        case .provider: text += ": the model provider failed"
        case .budget: text += ": the budget was reached"
        case .cacheMiss: text += ": no recorded answer"
        case .dependency: text += ": an item it needs failed"
        case .cancelled: text += ": cancelled"
        case .internal: text += ": this machine failed it (cache or disk I/O)"
        }
        for error in errors.prefix(6) { text += "\n    - \(error)" }
        return text
    }
}

/// Receives engine events. Implementations must be cheap and thread-safe.
public protocol EngineEventSink: Sendable {
    func emit(_ event: EngineEvent)
}

/// Discards events.
public struct SilentEventSink: EngineEventSink {
    public init() {}
    public func emit(_ event: EngineEvent) {}
}
