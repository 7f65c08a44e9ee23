import Synchronization

/// The provider's connection slots: at most `limit` requests in flight, handed out first come,
/// first served. The engine runs more model items than this (`Exchanger.requestSlots`), so an
/// item checking its answer, building its prompt or reading the cache holds no slot: the next
/// request goes out while an answer is being checked.
public final class RequestSlots: Sendable {
    public let limit: Int

    /// What a request throws once the slots are closed: no call was made.
    public struct Closed: Error, Sendable {
        public var reason: String
        public init(_ reason: String) { self.reason = reason }
    }

    private struct State {
        var inUse = 0
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID: UInt64 = 0
        /// Set by `close`: what every later or waiting request throws.
        var closed: (any Error & Sendable)?
    }

    private let state = Mutex(State())

    public init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Runs `body` holding a slot, waiting for one first; a task cancelled while waiting throws
    /// `CancellationError` without taking one.
    public func withSlot<T>(_ body: () async throws -> T) async throws -> T {
        try await acquire()
        defer { release() }
        return try await body()
    }

    /// Requests in flight now (for tests).
    public var inUse: Int { state.withLock { $0.inUse } }

    /// No request starts from now on: those waiting for a slot, and any later, throw `error`
    /// (the provider failed for every item, the machine cannot keep answers). Requests in
    /// flight finish.
    public func close(throwing error: any Error & Sendable) {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            if state.closed == nil { state.closed = error }
            defer { state.waiters = [] }
            return state.waiters.map(\.continuation)
        }
        for continuation in waiting { continuation.resume(throwing: error) }
    }

    func acquire() async throws {
        try Task.checkCancellation()
        let id: UInt64? = try state.withLock { state in
            if let closed = state.closed { throw closed }
            if state.inUse < limit {
                state.inUse += 1
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // A slot freed since the first look is taken here, not waited for.
                enum Next { case cancelled, closed(any Error), taken, waiting }
                let next = state.withLock { state -> Next in
                    if Task.isCancelled { return .cancelled }
                    if let closed = state.closed { return .closed(closed) }
                    if state.inUse < limit {
                        state.inUse += 1
                        return .taken
                    }
                    state.waiters.append((id, continuation))
                    return .waiting
                }
                switch next {
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .closed(let error): continuation.resume(throwing: error)
                case .taken: continuation.resume()
                case .waiting: break
                }
            }
        } onCancel: {
            let waiting = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiting?.resume(throwing: CancellationError())
        }
    }

    /// Gives the slot to the longest waiter, or frees it.
    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            if state.waiters.isEmpty {
                state.inUse -= 1
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume()
    }
}
