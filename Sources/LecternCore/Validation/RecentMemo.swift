import Synchronization

/// What a rule or a prompt reads of a text that many items share, computed once per text and kept
/// for the most recent `limit` texts: a topic's lecture is read by each of its questions, and by
/// each attempt at one (the untaught terms of `QuestionRules.checkTaught`, the sections a question
/// is asked about). Within one process only; `CheckMemo` keeps verdicts across runs.
public final class RecentMemo<Value: Sendable>: Sendable {
    private struct State {
        var values: [String: Value] = [:]
        /// Keys in the order they were added: the oldest goes first when `limit` is passed.
        var order: [String] = []
    }

    private let state = Mutex(State())
    public let limit: Int

    public init(limit: Int = 256) {
        self.limit = max(1, limit)
    }

    /// The value kept for `key`, else `compute()`'s, kept.
    public func value(_ key: String, _ compute: () -> Value) -> Value {
        if let known = state.withLock({ $0.values[key] }) { return known }
        let value = compute()
        state.withLock { state in
            guard state.values[key] == nil else { return }
            state.values[key] = value
            state.order.append(key)
            if state.order.count > limit { state.values[state.order.removeFirst()] = nil }
        }
        return value
    }
}
