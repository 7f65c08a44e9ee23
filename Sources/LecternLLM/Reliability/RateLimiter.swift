import Foundation
import Synchronization

/// Client-side limits for one provider and model: requests in flight, requests per minute and
/// tokens per minute.
///
/// Concurrency follows additive-increase / multiplicative-decrease: repeated 429 answers halve
/// the allowed concurrency (never below 1), and every run of successes as long as the current
/// allowance raises it by one, up to the configured maximum. The per-minute limits are token
/// buckets holding ten seconds' worth; a request that finds a bucket short reserves what it
/// needs and is told how long to wait, so waits are computed once and never polled.
public final class RateLimiter: Sendable {
    /// The configured limits.
    public struct Limits: Sendable, Hashable, Codable {
        /// Requests in flight at most (at least 1).
        public var maxConcurrency: Int
        /// Requests started per minute at most; `nil` for no limit.
        public var requestsPerMinute: Int?
        /// Tokens (prompt estimate plus completion budget) per minute at most; `nil` for no limit.
        public var tokensPerMinute: Int?

        /// Creates limits.
        public init(maxConcurrency: Int, requestsPerMinute: Int? = nil, tokensPerMinute: Int? = nil) {
            self.maxConcurrency = max(1, maxConcurrency)
            self.requestsPerMinute = requestsPerMinute.flatMap { $0 > 0 ? $0 : nil }
            self.tokensPerMinute = tokensPerMinute.flatMap { $0 > 0 ? $0 : nil }
        }
    }

    /// The right to send one request; give it back with ``release(_:outcome:)``.
    public struct Permit: Sendable {
        /// Tokens reserved from the tokens-per-minute bucket.
        public let reservedTokens: Int
        /// How long the holder must wait before sending (per-minute limits or a server pause).
        public let wait: Duration
    }

    /// How the request that held a permit ended.
    public enum Outcome: Sendable {
        /// Answered; `usedTokens` (prompt + completion), when known, corrects the reservation.
        case success(usedTokens: Int?)
        /// Answered 429.
        case rateLimited
        /// Any other failure.
        case failure
    }

    /// A change of the allowed concurrency: the new value and whether it went up.
    public typealias ConcurrencyObserver = @Sendable (_ concurrency: Int, _ raised: Bool) -> Void

    private struct Bucket {
        var capacity: Double
        var ratePerSecond: Double
        var level: Double
        var updatedAt: Double

        init(perMinute: Int, now: Double) {
            ratePerSecond = Double(perMinute) / 60
            capacity = max(1, Double(perMinute) / 6)
            level = capacity
            updatedAt = now
        }

        /// Takes `cost` (possibly into debt) and returns how long until the debt is repaid.
        mutating func take(_ cost: Double, now: Double) -> Double {
            level = min(capacity, level + (now - updatedAt) * ratePerSecond)
            updatedAt = now
            let cost = min(cost, capacity)
            level -= cost
            return level >= 0 ? 0 : -level / ratePerSecond
        }

        mutating func giveBack(_ amount: Double) {
            level = min(capacity, level + amount)
        }
    }

    private struct State {
        var allowed: Int
        var inFlight = 0
        var waiters: [Waiter] = []
        var waiterHead = 0
        var requests: Bucket?
        var tokens: Bucket?
        var pausedUntil = 0.0
        var consecutiveRateLimits = 0
        var successStreak = 0
        var grants = 0
        var grantsAtLastDecrease: Int?
    }

    /// The configured limits.
    public let limits: Limits
    private let clock: MonotonicClock
    private let observer: ConcurrencyObserver?
    private let state: Mutex<State>

    /// Creates a limiter. `clock` measures elapsed time for the per-minute buckets.
    public init(limits: Limits, clock: @escaping MonotonicClock = systemMonotonicClock, onConcurrencyChange: ConcurrencyObserver? = nil) {
        self.limits = limits
        self.clock = clock
        self.observer = onConcurrencyChange
        let now = clock().seconds
        var initial = State(allowed: limits.maxConcurrency)
        initial.requests = limits.requestsPerMinute.map { Bucket(perMinute: $0, now: now) }
        initial.tokens = limits.tokensPerMinute.map { Bucket(perMinute: $0, now: now) }
        state = Mutex(initial)
    }

    /// The concurrency allowed right now (lowered after repeated 429 answers).
    public var currentConcurrency: Int { state.withLock { $0.allowed } }

    /// Requests holding a permit right now.
    public var inFlight: Int { state.withLock { $0.inFlight } }

    /// Waits for a free slot, then reserves one request and `estimatedTokens` from the buckets.
    /// The returned permit says how much longer to wait before sending. Throws
    /// `CancellationError` when the task is cancelled while waiting for a slot.
    public func acquire(estimatedTokens: Int) async throws -> Permit {
        let waiter = Waiter()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let granted = state.withLock { state -> Bool in
                    if state.inFlight < state.allowed, state.waiterHead == state.waiters.count {
                        state.inFlight += 1
                        state.grants += 1
                        return true
                    }
                    guard waiter.park(continuation) else { return false }
                    state.waiters.append(waiter)
                    return false
                }
                if granted { continuation.resume() }
            }
        } onCancel: {
            waiter.cancel()
        }
        let now = clock().seconds
        return state.withLock { state in
            var wait = max(0, state.pausedUntil - now)
            if var bucket = state.requests {
                wait = max(wait, bucket.take(1, now: now))
                state.requests = bucket
            }
            if var bucket = state.tokens {
                wait = max(wait, bucket.take(Double(max(0, estimatedTokens)), now: now))
                state.tokens = bucket
            }
            return Permit(reservedTokens: max(0, estimatedTokens), wait: .seconds(clamping: wait))
        }
    }

    /// Gives a permit back and adjusts the allowed concurrency to the outcome.
    public func release(_ permit: Permit, outcome: Outcome) {
        var change: (Int, Bool)?
        let resumed = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.inFlight = max(0, state.inFlight - 1)
            switch outcome {
            case .success(let used):
                if let used, var bucket = state.tokens {
                    bucket.giveBack(Double(permit.reservedTokens - used))
                    state.tokens = bucket
                }
                state.consecutiveRateLimits = 0
                state.successStreak += 1
                if state.allowed < limits.maxConcurrency, state.successStreak >= state.allowed {
                    state.allowed += 1
                    state.successStreak = 0
                    change = (state.allowed, true)
                }
            case .rateLimited:
                state.consecutiveRateLimits += 1
                state.successStreak = 0
                // One halving per round trip of the current allowance, so a burst of 429s from
                // requests that were already in flight counts once.
                let settled = state.grantsAtLastDecrease.map { state.grants - $0 >= state.allowed } ?? true
                if state.consecutiveRateLimits >= 2, settled, state.allowed > 1 {
                    state.allowed = max(1, state.allowed / 2)
                    state.consecutiveRateLimits = 0
                    state.grantsAtLastDecrease = state.grants
                    change = (state.allowed, false)
                }
            case .failure:
                state.successStreak = 0
            }
            return Self.grantWaiters(&state)
        }
        for continuation in resumed { continuation.resume() }
        if let change { observer?(change.0, change.1) }
    }

    /// Holds every request not yet sent until `duration` from now (a server asked for a pause).
    public func pause(for duration: Duration) {
        let until = clock().seconds + duration.seconds
        state.withLock { $0.pausedUntil = max($0.pausedUntil, until) }
    }

    private static func grantWaiters(_ state: inout State) -> [CheckedContinuation<Void, any Error>] {
        var resumed: [CheckedContinuation<Void, any Error>] = []
        while state.inFlight < state.allowed, state.waiterHead < state.waiters.count {
            let waiter = state.waiters[state.waiterHead]
            state.waiterHead += 1
            if let continuation = waiter.grant() {
                state.inFlight += 1
                state.grants += 1
                resumed.append(continuation)
            }
        }
        if state.waiterHead > 64, state.waiterHead * 2 > state.waiters.count {
            state.waiters.removeFirst(state.waiterHead)
            state.waiterHead = 0
        }
        return resumed
    }
}

/// One task waiting for a slot. Its own lock settles the race between being granted a slot
/// and being cancelled; cancelled waiters stay in the queue and are skipped when reached.
private final class Waiter: Sendable {
    private enum Phase {
        case pending
        case parked(CheckedContinuation<Void, any Error>)
        case cancelled
        case done
    }

    private let phase = Mutex(Phase.pending)

    /// Stores the continuation; false (after resuming it with `CancellationError`) when the
    /// task was cancelled already.
    func park(_ continuation: CheckedContinuation<Void, any Error>) -> Bool {
        let parked = phase.withLock { phase -> Bool in
            guard case .pending = phase else { return false }
            phase = .parked(continuation)
            return true
        }
        if !parked { continuation.resume(throwing: CancellationError()) }
        return parked
    }

    /// Takes the continuation to resume, or nil when the waiter was cancelled.
    func grant() -> CheckedContinuation<Void, any Error>? {
        phase.withLock { phase in
            guard case .parked(let continuation) = phase else { return nil }
            phase = .done
            return continuation
        }
    }

    func cancel() {
        let continuation = phase.withLock { phase -> CheckedContinuation<Void, any Error>? in
            switch phase {
            case .pending:
                phase = .cancelled
                return nil
            case .parked(let continuation):
                phase = .cancelled
                return continuation
            case .cancelled, .done:
                return nil
            }
        }
        continuation?.resume(throwing: CancellationError())
    }
}
