import Foundation
import Testing

@testable import LecternLLM

@Suite("Retry policy")
struct RetryPolicyTests {
    @Test("retryable statuses")
    func statuses() {
        for status in [408, 409, 429, 500, 502, 503, 504, 529] { #expect(RetryPolicy.isRetryable(status: status)) }
        for status in [200, 400, 401, 403, 404, 422] { #expect(!RetryPolicy.isRetryable(status: status)) }
    }

    @Test("full-jitter backoff doubles and is capped")
    func backoff() {
        let policy = RetryPolicy(baseDelay: .seconds(1), maxBackoff: .seconds(5))
        let top = FixedRandom(value: 0.999_999)
        #expect(policy.backoff(retry: 1, random: FixedRandom(value: 0)) == .zero)
        #expect(policy.backoff(retry: 1, random: top) == .seconds(1))
        #expect(policy.backoff(retry: 2, random: top) == .seconds(2))
        #expect(policy.backoff(retry: 3, random: top) == .seconds(4))
        #expect(policy.backoff(retry: 4, random: top) == .seconds(5))
        #expect(policy.backoff(retry: 40, random: top) == .seconds(5))
    }

    @Test(
        "Go durations as OpenAI sends them",
        arguments: [
            ("1s", 1.0), ("6m0s", 360.0), ("20ms", 0.02), ("1h2m3.5s", 3723.5), ("0.5s", 0.5),
        ])
    func goDurations(text: String, seconds: Double) throws {
        let parsed = try #require(RetryPolicy.parseGoDuration(text))
        #expect(abs(parsed.seconds - seconds) < 0.001)
    }

    @Test("bad durations are ignored")
    func badDurations() {
        for text in ["", "s", "5", "5x", "1m5"] { #expect(RetryPolicy.parseGoDuration(text) == nil) }
    }

    @Test("server-requested waits")
    func serverWaits() {
        func wait(_ status: Int, _ headers: HTTPHeaders) -> Duration? {
            RetryPolicy.serverRequestedWait(status: status, headers: headers, now: testNow)
        }
        #expect(wait(503, ["Retry-After": "7"]) == .seconds(7))
        #expect(wait(429, ["retry-after": "Fri, 15 Jan 2027 08:00:10 GMT"]) == .seconds(10))
        #expect(wait(429, ["retry-after": "Fri, 15 Jan 2027 07:00:00 GMT"]) == .zero)  // in the past
        #expect(wait(429, ["retry-after-ms": "250", "Retry-After": "9"]) == .milliseconds(250))
        #expect(wait(429, ["x-ratelimit-reset-tokens": "6m0s"]) == .seconds(360))
        #expect(wait(500, ["x-ratelimit-reset-tokens": "6m0s"]) == nil)  // only 429 reads reset headers
        #expect(wait(429, ["x-ratelimit-reset-requests": "2s", "x-ratelimit-reset-tokens": "5s"]) == .seconds(5))
        #expect(
            wait(
                429,
                [
                    "x-ratelimit-reset-requests": "2s", "x-ratelimit-remaining-requests": "0",
                    "x-ratelimit-reset-tokens": "5s", "x-ratelimit-remaining-tokens": "100",
                ]) == .seconds(2))
        #expect(
            wait(429, ["anthropic-ratelimit-output-tokens-reset": "2027-01-15T08:00:12.500Z"]) == .milliseconds(12500))
        #expect(wait(429, ["Retry-After": "soon"]) == nil)
        #expect(wait(429, [:]) == nil)
    }

    @Test("a server wait beyond the limit ends the retries with the wait named")
    func overlongWait() async throws {
        let server = try LoopbackServer(replies: [
            .json(429, Flavor.openai.errorBody("slow"), headers: [("Retry-After", "600")]), Flavor.openai.answer(),
        ])
        let rig = TestRig()
        let provider = try Flavor.openai.provider(Flavor.openai.configuration(server), rig: rig)
        let error = await #expect(throws: LLMError.self) {
            _ = try await provider.complete(simpleRequest(.openai), context: testContext)
        }
        #expect(error?.kind == .unavailable)
        #expect(error?.message.contains("600 s") == true)
        #expect(rig.sleeper.waits.isEmpty)
    }

    @Test("a server that is not there: retried, then an error saying what to check")
    func refused() async throws {
        let server = try LoopbackServer()
        var configuration = Flavor.openai.configuration(server, maxRetries: 1)
        server.stop()
        // Port 1 on loopback, where nothing listens and the suite's servers (on ephemeral ports)
        // never bind: the stopped server's own port was taken by a parallel test's server under
        // the full suite, which answered instead of refusing.
        configuration.baseURL = URL(string: "http://127.0.0.1:1/v1")
        let rig = TestRig()
        let provider = try Flavor.openai.provider(configuration, rig: rig)
        let error = await #expect(throws: LLMError.self) {
            _ = try await provider.complete(simpleRequest(.openai), context: testContext)
        }
        #expect(error?.kind == .unavailable)
        #expect(error?.message.contains("after 2 attempt(s): could not connect") == true)
        #expect(error?.message.contains("check baseURL") == true)
        #expect(rig.sleeper.waits.count == 1)
    }

    @Test("retries run out into an unavailable error with advice")
    func exhausted() async throws {
        let server = try LoopbackServer(fallback: .json(503, Flavor.anthropic.errorBody("Overloaded")))
        let rig = TestRig()
        let provider = try Flavor.anthropic.provider(Flavor.anthropic.configuration(server, maxRetries: 2), rig: rig)
        let error = await #expect(throws: LLMError.self) {
            _ = try await provider.complete(simpleRequest(.anthropic), context: testContext)
        }
        #expect(error?.kind == .unavailable)
        #expect(error?.statusCode == 503)
        #expect(error?.message.contains("after 3 attempt(s)") == true)
        #expect(error?.message.contains("Overloaded") == true)
        #expect(server.requests.count == 3)
        #expect(rig.sleeper.waits.count == 2)
    }
}

@Suite("Rate limiter")
struct RateLimiterTests {
    @Test("concurrency is bounded and waiters are served in order")
    func concurrencyBound() async throws {
        let limiter = RateLimiter(limits: .init(maxConcurrency: 2))
        let first = try await limiter.acquire(estimatedTokens: 0)
        let second = try await limiter.acquire(estimatedTokens: 0)
        #expect(limiter.inFlight == 2)
        let third = Task { try await limiter.acquire(estimatedTokens: 0) }
        try await Task.sleep(for: .milliseconds(50))
        #expect(limiter.inFlight == 2)
        limiter.release(first, outcome: .success(usedTokens: nil))
        let granted = try await third.value
        #expect(limiter.inFlight == 2)
        limiter.release(second, outcome: .success(usedTokens: nil))
        limiter.release(granted, outcome: .success(usedTokens: nil))
        #expect(limiter.inFlight == 0)
    }

    @Test("a cancelled waiter leaves the queue and the slot goes to the next")
    func cancelledWaiter() async throws {
        let limiter = RateLimiter(limits: .init(maxConcurrency: 1))
        let held = try await limiter.acquire(estimatedTokens: 0)
        let cancelled = Task { try await limiter.acquire(estimatedTokens: 0) }
        try await Task.sleep(for: .milliseconds(20))
        let next = Task { try await limiter.acquire(estimatedTokens: 0) }
        try await Task.sleep(for: .milliseconds(20))
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { _ = try await cancelled.value }
        limiter.release(held, outcome: .failure)
        let permit = try await next.value
        #expect(limiter.inFlight == 1)
        limiter.release(permit, outcome: .failure)
    }

    @Test("repeated 429s halve the concurrency (min 1); successes raise it again by one")
    func aimd() async throws {
        let changes = EventRecorder()
        let sink = changes.sink
        let limiter = RateLimiter(
            limits: .init(maxConcurrency: 8),
            onConcurrencyChange: { concurrency, raised in
                sink(ProviderEvent(kind: raised ? .concurrencyRaised : .concurrencyReduced, provider: "t", model: "m", concurrency: concurrency, message: ""))
            })
        func roundTrip(_ outcome: RateLimiter.Outcome) async throws {
            let permit = try await limiter.acquire(estimatedTokens: 0)
            limiter.release(permit, outcome: outcome)
        }
        try await roundTrip(.rateLimited)
        #expect(limiter.currentConcurrency == 8)  // one 429 is not yet "repeated"
        try await roundTrip(.rateLimited)
        #expect(limiter.currentConcurrency == 4)
        for _ in 0..<20 { try await roundTrip(.rateLimited) }
        #expect(limiter.currentConcurrency == 1)
        try await roundTrip(.success(usedTokens: nil))
        #expect(limiter.currentConcurrency == 2)
        for _ in 0..<2 { try await roundTrip(.success(usedTokens: nil)) }
        #expect(limiter.currentConcurrency == 3)
        #expect(changes.of(.concurrencyReduced).map(\.concurrency) == [4, 2, 1])
        #expect(changes.of(.concurrencyRaised).map(\.concurrency) == [2, 3])
    }

    @Test("a burst of 429s from requests already in flight halves only once")
    func burstCountsOnce() async throws {
        let limiter = RateLimiter(limits: .init(maxConcurrency: 8))
        var permits: [RateLimiter.Permit] = []
        for _ in 0..<8 { permits.append(try await limiter.acquire(estimatedTokens: 0)) }
        for permit in permits { limiter.release(permit, outcome: .rateLimited) }
        #expect(limiter.currentConcurrency == 4)
    }

    @Test("requests per minute: a burst of ten seconds' worth, then evenly spaced waits")
    func requestsPerMinute() async throws {
        let sleeper = RecordingSleeper()
        let limiter = RateLimiter(limits: .init(maxConcurrency: 100, requestsPerMinute: 60), clock: { sleeper.now })
        var waits: [Duration] = []
        for _ in 0..<13 {
            let permit = try await limiter.acquire(estimatedTokens: 0)
            waits.append(permit.wait)
            limiter.release(permit, outcome: .success(usedTokens: nil))
        }
        #expect(waits.prefix(10).allSatisfy { $0 == .zero })
        #expect(Array(waits.suffix(3)) == [.seconds(1), .seconds(2), .seconds(3)])
        sleeper.advance(by: .seconds(10))
        let later = try await limiter.acquire(estimatedTokens: 0)
        #expect(later.wait == .zero)
    }

    @Test("tokens per minute: reservations wait, and unused tokens come back")
    func tokensPerMinute() async throws {
        let sleeper = RecordingSleeper()
        let limiter = RateLimiter(limits: .init(maxConcurrency: 100, tokensPerMinute: 6000), clock: { sleeper.now })
        // Capacity 1,000 tokens, refilled at 100 per second.
        let first = try await limiter.acquire(estimatedTokens: 800)
        #expect(first.wait == .zero)
        limiter.release(first, outcome: .success(usedTokens: 300))  // 500 back
        let second = try await limiter.acquire(estimatedTokens: 700)
        #expect(second.wait == .zero)
        let third = try await limiter.acquire(estimatedTokens: 500)
        #expect(third.wait == .seconds(5))
    }

    @Test("a pause holds every new request until it ends")
    func pause() async throws {
        let sleeper = RecordingSleeper()
        let limiter = RateLimiter(limits: .init(maxConcurrency: 4), clock: { sleeper.now })
        limiter.pause(for: .seconds(30))
        sleeper.advance(by: .seconds(10))
        let permit = try await limiter.acquire(estimatedTokens: 0)
        #expect(permit.wait == .seconds(20))
    }

    @Test("the provider emits a rate_limited event and waits when the bucket is empty")
    func providerWaitsForBucket() async throws {
        let server = try LoopbackServer(fallback: Flavor.openai.answer())
        let rig = TestRig()
        var configuration = Flavor.openai.configuration(server)
        configuration.requestsPerMinute = 6  // capacity 1, one request every 10 s
        let provider = try Flavor.openai.provider(configuration, rig: rig)
        _ = try await provider.complete(simpleRequest(.openai), context: testContext)
        _ = try await provider.complete(simpleRequest(.openai), context: testContext)
        #expect(rig.sleeper.waits == [.seconds(10)])
        #expect(rig.events.of(.rateLimited).map(\.delaySeconds) == [10])
    }
}
