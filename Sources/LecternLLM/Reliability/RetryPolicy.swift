import Foundation

/// When and how long to wait before sending a failed request again.
///
/// Retries 408, 409, 429 and 5xx answers, connection failures and timeouts. The wait is what
/// the server asked for (`retry-after-ms`, `Retry-After` in seconds or as an HTTP date, and on
/// 429 the rate-limit reset headers of OpenAI and Anthropic) or otherwise exponential backoff
/// with full jitter: a uniform random wait between zero and `baseDelay · 2^(retry−1)`, capped
/// at `maxBackoff`.
public struct RetryPolicy: Sendable, Hashable, Codable {
    /// Retries after the first attempt (so at most `maxRetries + 1` attempts).
    public var maxRetries: Int
    /// The backoff ceiling of the first retry; it doubles with every further retry.
    public var baseDelay: Duration
    /// The longest backoff.
    public var maxBackoff: Duration
    /// The longest server-requested wait honoured; a longer one ends the retries with an error
    /// that names the wait.
    public var maxServerWait: Duration

    /// Creates a policy; the defaults are 3 retries, 0.5 s base, 30 s cap, 120 s longest server wait.
    public init(
        maxRetries: Int = 3, baseDelay: Duration = .milliseconds(500), maxBackoff: Duration = .seconds(30),
        maxServerWait: Duration = .seconds(120)
    ) {
        self.maxRetries = max(0, maxRetries)
        self.baseDelay = baseDelay
        self.maxBackoff = maxBackoff
        self.maxServerWait = maxServerWait
    }

    /// Whether an HTTP status is worth retrying.
    public static func isRetryable(status: Int) -> Bool {
        status == 408 || status == 409 || status == 429 || (500...599).contains(status)
    }

    /// The jittered exponential backoff before retry number `retry` (1 for the first retry).
    public func backoff(retry: Int, random: any RandomSource) -> Duration {
        let exponent = Double(max(0, retry - 1))
        let ceiling = min(maxBackoff.seconds, baseDelay.seconds * pow(2, min(exponent, 30)))
        let unit = min(max(random.nextUnitInterval(), 0), 1)
        return .seconds(clamping: ceiling * unit)
    }

    /// The wait the server asked for in `headers`, if any.
    ///
    /// `retry-after-ms` and `Retry-After` apply to any status; for 429 answers the rate-limit
    /// reset headers (`x-ratelimit-reset-requests` / `-tokens` as Go durations like `6m0s`,
    /// `anthropic-ratelimit-*-reset` as RFC 3339 dates) are read too, preferring the limit whose
    /// `remaining` count is zero.
    public static func serverRequestedWait(status: Int, headers: HTTPHeaders, now: Date) -> Duration? {
        if let text = headers["retry-after-ms"], let milliseconds = Double(text.trimmingCharacters(in: .whitespaces)),
            milliseconds >= 0
        {
            return .seconds(clamping: milliseconds / 1000)
        }
        if let text = headers["retry-after"], let wait = parseRetryAfter(text, now: now) {
            return wait
        }
        guard status == 429 else { return nil }

        var exhausted: [Duration] = []
        var all: [Duration] = []
        for dimension in ["requests", "tokens", "input-tokens", "output-tokens"] {
            let pairs = [
                ("x-ratelimit-reset-\(dimension)", "x-ratelimit-remaining-\(dimension)"),
                ("anthropic-ratelimit-\(dimension)-reset", "anthropic-ratelimit-\(dimension)-remaining"),
            ]
            for (resetName, remainingName) in pairs {
                guard let text = headers[resetName], let wait = parseResetValue(text, now: now) else { continue }
                all.append(wait)
                if let remaining = headers[remainingName], Int(remaining.trimmingCharacters(in: .whitespaces)) == 0 {
                    exhausted.append(wait)
                }
            }
        }
        return (exhausted.isEmpty ? all : exhausted).max()
    }

    /// `Retry-After`: delay seconds or an HTTP date.
    static func parseRetryAfter(_ text: String, now: Date) -> Duration? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed) {
            return seconds >= 0 ? .seconds(clamping: seconds) : nil
        }
        guard let date = parseHTTPDate(trimmed) else { return nil }
        return .seconds(clamping: date.timeIntervalSince(now))
    }

    /// A rate-limit reset value: a Go duration (`1s`, `6m0s`, `250ms`), plain seconds, or an
    /// RFC 3339 / HTTP date.
    static func parseResetValue(_ text: String, now: Date) -> Duration? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed) { return seconds >= 0 ? .seconds(clamping: seconds) : nil }
        if let duration = parseGoDuration(trimmed) { return duration }
        if let date = parseRFC3339(trimmed) ?? parseHTTPDate(trimmed) {
            return .seconds(clamping: date.timeIntervalSince(now))
        }
        return nil
    }

    /// Parses Go's duration syntax as OpenAI sends it: `1s`, `6m0s`, `1h2m3.5s`, `20ms`.
    static func parseGoDuration(_ text: String) -> Duration? {
        var total = 0.0
        var number = ""
        var sawUnit = false
        var characters = Array(text)[...]
        while let character = characters.first {
            if character.isNumber || character == "." {
                number.append(character)
                characters.removeFirst()
                continue
            }
            guard let value = Double(number) else { return nil }
            var unit = String(character)
            characters.removeFirst()
            if let next = characters.first, next.isLetter {
                unit.append(next)
                characters.removeFirst()
            }
            switch unit {
            case "h": total += value * 3600
            case "m": total += value * 60
            case "s": total += value
            case "ms": total += value / 1000
            case "us", "µs": total += value / 1_000_000
            case "ns": total += value / 1_000_000_000
            default: return nil
            }
            number = ""
            sawUnit = true
        }
        guard sawUnit, number.isEmpty else { return nil }
        return .seconds(clamping: total)
    }

    static func parseHTTPDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    static func parseRFC3339(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
