import Foundation
import LecternLLM
import Synchronization

/// Records every wait instead of sleeping (but still honours cancellation), and advances a
/// fake monotonic clock by the waited time so rate-limiter arithmetic stays consistent.
final class RecordingSleeper: Sleeper {
    private let state = Mutex<(waits: [Duration], now: Duration)>(([], .zero))

    var waits: [Duration] { state.withLock { $0.waits } }
    var now: Duration { state.withLock { $0.now } }

    func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        state.withLock {
            $0.waits.append(duration)
            $0.now += duration
        }
        await Task.yield()
    }

    func advance(by duration: Duration) {
        state.withLock { $0.now += duration }
    }
}

/// Always returns the same number, so jittered backoff is predictable.
struct FixedRandom: RandomSource {
    var value: Double
    func nextUnitInterval() -> Double { value }
}

/// Collects provider events.
final class EventRecorder: Sendable {
    private let events = Mutex<[ProviderEvent]>([])

    var all: [ProviderEvent] { events.withLock { $0 } }

    var sink: ProviderEventSink {
        { [self] event in events.withLock { $0.append(event) } }
    }

    func of(_ kind: ProviderEvent.Kind) -> [ProviderEvent] { all.filter { $0.kind == kind } }
}

/// The moment tests pretend it is, for `Retry-After` dates.
let testNow = Date(timeIntervalSince1970: 1_800_000_000)

/// A runtime with recorded waits, fixed jitter (0.5), a fixed wall clock and an event recorder.
struct TestRig {
    let sleeper = RecordingSleeper()
    let events = EventRecorder()
    let client: CurlHTTPClient

    init(client: CurlHTTPClient = CurlHTTPClient()) {
        self.client = client
    }

    var runtime: ProviderRuntime {
        let sleeper = self.sleeper
        return ProviderRuntime(
            httpClient: client, events: events.sink, sleeper: sleeper, random: FixedRandom(value: 0.5),
            wallClock: { testNow }, monotonicClock: { sleeper.now })
    }
}
