import Foundation

/// How long the mock "model" takes to answer.
public enum LatencyDistribution: Sendable, Hashable, CustomStringConvertible {
    /// Always this many milliseconds.
    case fixed(milliseconds: Double)
    /// Uniformly between the bounds, in milliseconds.
    case uniform(minimum: Double, maximum: Double)
    /// Log-normal around `median` milliseconds with shape `sigma` (0.5 gives a p95 of about 2.3×
    /// the median), the usual shape of LLM latencies.
    case logNormal(median: Double, sigma: Double)

    /// No latency at all.
    public static let none = LatencyDistribution.fixed(milliseconds: 0)

    /// Parses `fixed:300`, `uniform:100-500` or `lognormal:300,0.5` (milliseconds).
    public init(parsing text: String) throws {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        let kind = parts.first?.lowercased() ?? ""
        let arguments = parts.count > 1 ? parts[1] : ""
        func numbers(_ separator: Character) -> [Double] {
            arguments.split(separator: separator).compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        }
        switch kind {
        case "fixed":
            guard let ms = Double(arguments), ms >= 0 else {
                throw MockConfigurationError("latency 'fixed:MS' needs a non-negative number, got '\(text)'")
            }
            self = .fixed(milliseconds: ms)
        case "uniform":
            let bounds = numbers("-")
            guard bounds.count == 2, bounds[0] >= 0, bounds[1] >= bounds[0] else {
                throw MockConfigurationError("latency 'uniform:MIN-MAX' needs 0 ≤ MIN ≤ MAX, got '\(text)'")
            }
            self = .uniform(minimum: bounds[0], maximum: bounds[1])
        case "lognormal":
            let values = numbers(",")
            guard values.count == 2, values[0] >= 0, values[1] >= 0, values[1] <= 3 else {
                throw MockConfigurationError("latency 'lognormal:MEDIAN,SIGMA' needs MEDIAN ≥ 0 and 0 ≤ SIGMA ≤ 3, got '\(text)'")
            }
            self = .logNormal(median: values[0], sigma: values[1])
        default:
            throw MockConfigurationError("latency must be fixed:MS, uniform:MIN-MAX or lognormal:MEDIAN,SIGMA (got '\(text)')")
        }
    }

    /// A sample in milliseconds from two uniform numbers in [0, 1).
    func sample(_ u1: Double, _ u2: Double) -> Double {
        switch self {
        case .fixed(let ms): return ms
        case .uniform(let low, let high): return low + (high - low) * u1
        case .logNormal(let median, let sigma):
            // Box–Muller; 1 − u keeps the logarithm finite.
            let z = (-2 * log(1 - u1)).squareRoot() * cos(2 * Double.pi * u2)
            return min(median * exp(sigma * z), 120_000)
        }
    }

    /// The form ``init(parsing:)`` reads.
    public var description: String {
        switch self {
        case .fixed(let ms): return "fixed:\(Self.format(ms))"
        case .uniform(let low, let high): return "uniform:\(Self.format(low))-\(Self.format(high))"
        case .logNormal(let median, let sigma): return "lognormal:\(Self.format(median)),\(Self.format(sigma))"
        }
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// A failure the mock injects instead of a good answer.
public enum FaultKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// 429 with `Retry-After`.
    case rateLimited = "429"
    /// 500 Internal Server Error.
    case serverError = "500"
    /// 503 Service Unavailable.
    case unavailable = "503"
    /// The connection is reset (TCP RST) without an answer.
    case reset
    /// No answer at all until ``MockConfiguration/hangSeconds``, then a reset: the client's
    /// timeout must fire first.
    case hang
    /// A 200 cut off by the token budget: `finish_reason: length` / `stop_reason: max_tokens`,
    /// with half the content.
    case truncated
    /// A 200 whose structured answer is not valid JSON (structured requests only).
    case invalidJSON = "invalid_json"
    /// A 200 with a schema-valid but wrong answer: every option marked correct, the wrong topic
    /// id, or another topic's lecture.
    case wrongContent = "wrong_content"
    /// A streamed answer (the request asked for `stream: true`) that stops halfway, without its
    /// final events: the client must not take it as an answer (streaming requests only).
    case cutStream = "cut_stream"
}

/// How often each fault is injected: a probability per request.
public struct FaultRates: Sendable, Hashable, CustomStringConvertible {
    /// The probability of each kind per request.
    public var rates: [FaultKind: Double]

    /// No faults.
    public static let none = FaultRates(rates: [:])

    /// Rates by kind; zero and negative rates are dropped.
    public init(rates: [FaultKind: Double]) {
        self.rates = rates.filter { $0.value > 0 }
    }

    /// `total` spread evenly over `kinds` (every kind by default).
    public static func spread(_ total: Double, over kinds: [FaultKind] = FaultKind.allCases) -> FaultRates {
        guard !kinds.isEmpty else { return .none }
        return FaultRates(rates: Dictionary(uniqueKeysWithValues: kinds.map { ($0, total / Double(kinds.count)) }))
    }

    /// The probability that a request is faulted.
    public var total: Double { min(1, rates.values.reduce(0, +)) }

    /// Parses `all=0.2` (spread over every kind) or `429=0.05,500=0.02,hang=0.01,…`.
    public init(parsing text: String) throws {
        var rates: [FaultKind: Double] = [:]
        for part in text.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, let rate = Double(pair[1]), (0...1).contains(rate) else {
                throw MockConfigurationError("a fault rate is KIND=PROBABILITY with 0 ≤ PROBABILITY ≤ 1, got '\(part)'")
            }
            if pair[0] == "all" {
                for (kind, value) in FaultRates.spread(rate).rates { rates[kind, default: 0] += value }
            } else if let kind = FaultKind(rawValue: pair[0]) {
                rates[kind, default: 0] += rate
            } else {
                throw MockConfigurationError(
                    "unknown fault '\(pair[0])'; known: all, " + FaultKind.allCases.map(\.rawValue).joined(separator: ", "))
            }
        }
        self.init(rates: rates)
    }

    /// The form ``init(parsing:)`` reads.
    public var description: String {
        rates.isEmpty
            ? "none"
            : rates.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: ",")
    }
}

/// Whether the mock accepts the client's credentials.
public enum MockAuthPolicy: Sendable, Hashable {
    /// Any key, or none.
    case acceptAll
    /// Only this key (as `Authorization: Bearer …` or `x-api-key`); anything else gets 401.
    case requireKey(String)
    /// The first `count` model requests are served; every later one gets 401 — a key revoked
    /// mid-run, i.e. a permanent authentication failure.
    case revokeAfter(Int)
}

/// Everything that shapes the mock's behaviour. Every random choice derives from `seed`, the
/// item id and the item's request number, so a run is reproducible whatever the arrival order.
public struct MockConfiguration: Sendable {
    /// Latency of good answers and of model-made faults (truncated, invalid, wrong content).
    public var latency: LatencyDistribution
    /// Latency of 429/500/503 answers and resets (a gateway answers those quickly).
    public var errorLatency: LatencyDistribution
    /// Which faults to inject, and how often.
    public var faults: FaultRates
    /// Seconds sent in `Retry-After` with a 429.
    public var retryAfterSeconds: Int
    /// How long a hung request is held before the connection is reset.
    public var hangSeconds: Double
    /// Whether to accept the client's key.
    public var auth: MockAuthPolicy
    /// The seed of every random choice (faults, latencies).
    public var seed: UInt64
    /// Keep every model request's item, attempt, path and body (for replaying them from a peer).
    public var recordRequests: Bool
    /// Faults by item, for targeted tests: the n-th request of the item gets the n-th entry
    /// (`nil`: a good answer); past the list's end the random draw applies again.
    public var scriptedFaults: [String: [FaultKind?]]
    /// The batch APIs: how long a batch takes, and their faults.
    public var batch: MockBatchConfiguration

    /// A configuration; the defaults answer at once, without faults, to any key.
    public init(
        latency: LatencyDistribution = .none, errorLatency: LatencyDistribution = .fixed(milliseconds: 5),
        faults: FaultRates = .none, retryAfterSeconds: Int = 1, hangSeconds: Double = 30, auth: MockAuthPolicy = .acceptAll,
        seed: UInt64 = 1, recordRequests: Bool = false, scriptedFaults: [String: [FaultKind?]] = [:], batch: MockBatchConfiguration = MockBatchConfiguration()
    ) {
        self.batch = batch
        self.latency = latency
        self.errorLatency = errorLatency
        self.faults = faults
        self.retryAfterSeconds = max(0, retryAfterSeconds)
        self.hangSeconds = max(0, hangSeconds)
        self.auth = auth
        self.seed = seed
        self.recordRequests = recordRequests
        self.scriptedFaults = scriptedFaults
    }
}

/// A configuration value that cannot be used.
public struct MockConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, in words for the user.
    public var message: String
    /// An error with `message`.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
