import Foundation
import Synchronization

/// Waits for a while. Providers wait through one so tests can record the waits instead of
/// sitting through them.
public protocol Sleeper: Sendable {
    /// Suspends for `duration`; throws `CancellationError` when the task is cancelled.
    func sleep(for duration: Duration) async throws
}

/// The real sleeper: `Task.sleep`.
public struct TaskSleeper: Sleeper {
    public init() {}

    public func sleep(for duration: Duration) async throws {
        guard duration > .zero else { return }
        try await Task.sleep(for: duration)
    }
}

/// A source of random numbers for backoff jitter, replaceable in tests.
public protocol RandomSource: Sendable {
    /// A number in `0 ..< 1`.
    func nextUnitInterval() -> Double
}

/// The system's random number generator.
public struct SystemRandomSource: RandomSource {
    public init() {}

    public func nextUnitInterval() -> Double { Double.random(in: 0..<1) }
}

/// A monotonic clock reading as time since an arbitrary origin; rate limiting measures with it.
public typealias MonotonicClock = @Sendable () -> Duration

/// The real monotonic clock.
public let systemMonotonicClock: MonotonicClock = {
    let origin = monotonicOrigin
    return ContinuousClock.now - origin
}

private let monotonicOrigin = ContinuousClock.now

extension Duration {
    /// The duration in seconds as a `Double`.
    var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }

    /// A duration from seconds, clamped to be non-negative and finite.
    static func seconds(clamping value: Double) -> Duration {
        guard value.isFinite, value > 0 else { return .zero }
        return .milliseconds(Int64((value * 1000).rounded(.up)))
    }
}
