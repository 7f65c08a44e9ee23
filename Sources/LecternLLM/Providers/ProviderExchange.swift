import Foundation
import Synchronization

/// The loop every HTTP provider shares: rate limiting, sending, retrying with backoff, turning
/// statuses into ``LLMError``s with advice, and asking truncated answers again with a larger
/// budget. Providers supply only how to encode a request and decode an answer.
struct ProviderExchange: Sendable {
    let kind: String
    let configuration: ProviderConfiguration
    /// Host (and port) for messages, e.g. `api.openai.com`.
    let host: String
    let apiKey: APIKey?
    let runtime: ProviderRuntime
    let limiters: RateLimiterRegistry
    /// How many times a truncated answer is asked again before giving up.
    let maxTruncationRetries = 2

    init(kind: String, configuration: ProviderConfiguration, endpoint: URL, apiKey: APIKey?, runtime: ProviderRuntime) {
        self.kind = kind
        self.configuration = configuration
        self.host = endpoint.host.map { host in endpoint.port.map { "\(host):\($0)" } ?? host } ?? "the server"
        self.apiKey = apiKey
        self.runtime = runtime
        let events = runtime.events
        self.limiters = RateLimiterRegistry(
            kind: kind, limits: configuration.rateLimits, clock: runtime.monotonicClock, events: events)
    }

    /// Runs one logical request to a complete answer. `encode` builds the HTTP request for a
    /// token budget (`nil`: send none); `decode` reads a 2xx answer.
    func perform(
        _ request: LLMRequest, context: RequestContext, budget initialBudget: Int?,
        encode: (Int?) throws -> HTTPRequest, decode: (HTTPResponse) throws -> LLMResponse
    ) async throws -> LLMResponse {
        var budget = initialBudget
        var usage = TokenUsage()
        var truncations = 0
        let limiter = limiters.limiter(for: request.model)
        while true {
            var httpRequest = try encode(budget)
            httpRequest.maxResponseBytes = Self.maxAnswerBytes(budget: budget ?? configuration.maxTokensCeiling, stream: configuration.stream)
            if configuration.stream {
                let progress = StreamProgress { [runtime, kind] tokens in
                    runtime.events(
                        ProviderEvent(
                            kind: .receiving, provider: kind, model: request.model, itemID: context.itemID, receivedTokens: tokens,
                            message: "receiving: \(tokens) tokens"))
                }
                httpRequest.onReceive = { progress.receive($0) }
            }
            let estimate = Self.estimatePromptTokens(request) + (budget ?? 1024)
            var answer = try await send(
                httpRequest, request: request, context: context, limiter: limiter, estimatedTokens: estimate,
                decode: decode)
            usage += answer.usage
            guard answer.finishReason == .length else {
                answer.usage = usage
                return answer
            }
            let spent = budget ?? answer.usage.completionTokens
            // Blank space after a closed JSON value: the value is the answer. A loop: finished
            // `loop`, for its stage to refuse; more tokens would only buy a longer loop.
            let padded = AnswerLoop.completeBeforeBlank(answer.content)
            if let ending = padded.map({ _ in "padded with blank space after its JSON until \(spent) tokens; the JSON is the answer" })
                ?? AnswerLoop.repeated(in: answer.content).map({
                    "ran into a loop after \(usage.completionTokens) tokens, repeating '\(AnswerLoop.quoted($0))'; not asked again with more tokens"
                })
            {
                answer.content = padded ?? answer.content
                answer.finishReason = padded == nil ? .loop : .stop
                answer.usage = usage
                emit(.looped, context: context, request: request, message: "answer " + ending)
                return answer
            }
            let next = min(configuration.maxTokensCeiling, max(spent, 1) * 2)
            guard truncations < maxTruncationRetries, spent > 0, next > spent else {
                // The answer as far as it got, finished `length`: its stage refuses it and the
                // repair asks for a shorter one. It is stored, as a loop is: the same prompt and
                // seed run out the same way, so asking again would pay for the same cut-off answer.
                let budgetText = budget.map { "max_tokens=\($0)" } ?? "the server's default budget (\(spent) tokens)"
                let advice =
                    spent >= configuration.maxTokensCeiling
                    ? "raise maxTokensCeiling (now \(configuration.maxTokensCeiling)) for longer answers"
                    : "raise max_tokens for this stage for longer answers"
                answer.usage = usage
                emit(
                    .cutOff, context: context, request: request,
                    message: "The answer from \(host) for item \(context.itemID) (model \(request.model)) was cut off at "
                        + "\(budgetText) after \(truncations + 1) attempt(s); returned cut off, for its stage to refuse and repair (\(advice)).")
                return answer
            }
            truncations += 1
            budget = next
            emit(
                .truncatedRetry, context: context, request: request, maxTokens: next,
                message: "answer cut off at \(spent) tokens; asking again with max_tokens=\(next)")
        }
    }

    /// The most bytes an answer of `budget` tokens can take on the wire: 64 bytes a token in a
    /// whole JSON answer (a token is a few characters, each at most a 6-byte `\uXXXX` escape), 1 KiB
    /// a token in a stream (each token is an event with its own envelope), plus 64 KiB for the
    /// envelope. A larger body is not an answer to this request — a server gone wrong, or one
    /// that would fill memory and the cache — and is refused, uncached.
    static func maxAnswerBytes(budget: Int, stream: Bool) -> Int {
        65_536 + max(budget, 1) * (stream ? 1_024 : 64)
    }

    /// Sends with rate limiting and retries; returns a decoded 2xx answer.
    private func send(
        _ httpRequest: HTTPRequest, request: LLMRequest, context: RequestContext, limiter: RateLimiter,
        estimatedTokens: Int, decode: (HTTPResponse) throws -> LLMResponse
    ) async throws -> LLMResponse {
        let policy = configuration.retryPolicy
        let attempts = policy.maxRetries + 1
        var attempt = 1
        while true {
            let permit: RateLimiter.Permit
            do {
                permit = try await limiter.acquire(estimatedTokens: estimatedTokens)
            } catch {
                throw cancelled(context)
            }
            do {
                if permit.wait > .zero {
                    emit(
                        .rateLimited, context: context, request: request, attempt: attempt,
                        delay: permit.wait,
                        message: "client-side rate limit: waiting \(Self.format(permit.wait)) before sending")
                    try await runtime.sleeper.sleep(for: permit.wait)
                }
                try Task.checkCancellation()
            } catch {
                limiter.release(permit, outcome: .failure)
                throw cancelled(context)
            }

            // One failed attempt: what to say, and the wait the server asked for.
            let failure: (status: Int?, summary: String, serverWait: Duration?, error: LLMError)
            do {
                let response = try await runtime.httpClient.send(httpRequest)
                if (200..<300).contains(response.status) {
                    let answer: LLMResponse
                    do {
                        answer = try decode(response)
                    } catch let early as StreamEndedEarly {
                        // Retried like a broken connection (the catch below releases the permit).
                        throw HTTPClientError(kind: .connectionLost, target: host, detail: early.detail)
                    } catch {
                        limiter.release(permit, outcome: .failure)
                        throw error
                    }
                    limiter.release(permit, outcome: .success(usedTokens: answer.usage.totalTokens))
                    return answer
                }
                let retryable = RetryPolicy.isRetryable(status: response.status)
                limiter.release(permit, outcome: response.status == 429 ? .rateLimited : .failure)
                guard retryable else {
                    let error = statusError(response, request: request, context: context)
                    emit(.failed, context: context, request: request, attempt: attempt, status: response.status, message: error.message)
                    throw error
                }
                let wait = RetryPolicy.serverRequestedWait(
                    status: response.status, headers: response.headers, now: runtime.wallClock())
                let summary = "\(Self.statusText(response.status)) from \(host)"
                failure = (
                    response.status, summary, wait,
                    exhaustedError(response, request: request, context: context, attempts: attempt)
                )
            } catch let error as HTTPClientError {
                limiter.release(permit, outcome: .failure)
                guard error.isTransient else {
                    let llmError =
                        error.kind == .responseTooLarge
                        ? LLMError(
                            .malformedResponse,
                            "The answer from \(host) for item \(context.itemID) was refused, not stored: \(error.detail), more than "
                                + "max_tokens=\(request.maxTokens ?? configuration.defaultMaxTokens ?? configuration.maxTokensCeiling) can explain. "
                                + "Check that the server at baseURL is the model you meant.")
                        : LLMError(
                            error.kind == .invalidRequest ? .invalidRequest : .unavailable,
                            "Request for item \(context.itemID) to \(host) failed: \(redact(error.description))")
                    emit(.failed, context: context, request: request, attempt: attempt, message: llmError.message)
                    throw llmError
                }
                failure = (nil, redact(error.description), nil, transportExhaustedError(error, context: context, attempts: attempt))
            } catch is CancellationError {
                limiter.release(permit, outcome: .failure)
                throw cancelled(context)
            }

            if failure.status == 429, let wait = failure.serverWait { limiter.pause(for: wait) }
            guard attempt < attempts else {
                emit(.failed, context: context, request: request, attempt: attempt, status: failure.status, message: failure.error.message)
                throw failure.error
            }
            if let wait = failure.serverWait, wait > policy.maxServerWait {
                let error = LLMError(
                    .unavailable,
                    "\(failure.summary) for item \(context.itemID): the server asked to wait \(Self.format(wait)), "
                        + "longer than the \(Self.format(policy.maxServerWait)) Lectern waits; lower "
                        + "requests_per_minute / max_concurrency or try again later.",
                    statusCode: failure.status)
                emit(.failed, context: context, request: request, attempt: attempt, status: failure.status, message: error.message)
                throw error
            }
            let delay = failure.serverWait ?? policy.backoff(retry: attempt, random: runtime.random)
            attempt += 1
            emit(
                .retrying, context: context, request: request, attempt: attempt, status: failure.status, delay: delay,
                message: "\(failure.summary); retrying in \(Self.format(delay)) (attempt \(attempt) of \(attempts))")
            do {
                try await runtime.sleeper.sleep(for: delay)
            } catch {
                throw cancelled(context)
            }
        }
    }

    // MARK: Errors

    /// The error for a non-retryable status, with what to do about it.
    private func statusError(_ response: HTTPResponse, request: LLMRequest, context: RequestContext) -> LLMError {
        let status = Self.statusText(response.status)
        let said = serverMessage(response).map { " (server said: \($0))" } ?? ""
        let keyVariable = apiKey?.variable ?? configuration.apiKeyEnvironmentVariable
        switch response.status {
        case 401:
            let message: String
            if let keyVariable, apiKey != nil {
                message = "\(status) from \(host): the key in \(keyVariable) was refused; check it."
            } else {
                let variable = keyVariable ?? (kind == "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY")
                message =
                    "\(status) from \(host): the server wants an API key; set \(variable) "
                    + "(and apiKeyEnvironmentVariable if you use another name)."
            }
            return LLMError(.authentication, message, statusCode: 401)
        case 403:
            let whose = keyVariable.map { "the key in \($0)" } ?? "this client"
            return LLMError(
                .authentication,
                "\(status) from \(host): \(whose) may not use model \(request.model)\(said); check the key's "
                    + "permissions, organisation and region, or choose another model.",
                statusCode: 403)
        case 404:
            return LLMError(
                .invalidRequest,
                "\(status) from \(host) for \(configuration.kind) model \(request.model)\(said): the model or the "
                    + "endpoint \(endpointPath) does not exist; check the model name and baseURL.",
                statusCode: 404)
        default:
            return LLMError(
                .invalidRequest,
                "\(status) from \(host) for item \(context.itemID) (model \(request.model))\(said); the request was "
                    + "rejected as invalid: check the model's parameters (max_tokens, temperature, schema).",
                statusCode: response.status)
        }
    }

    /// The error once every retry of a retryable status failed.
    private func exhaustedError(
        _ response: HTTPResponse, request: LLMRequest, context: RequestContext, attempts: Int
    )
        -> LLMError
    {
        let said = serverMessage(response).map { " (server said: \($0))" } ?? ""
        let advice =
            response.status == 429
            ? "the rate limit keeps being hit; lower max_concurrency or requests_per_minute, or try again later"
            : "the service is failing or overloaded; try again later"
        return LLMError(
            .unavailable,
            "\(Self.statusText(response.status)) from \(host) for item \(context.itemID) (model \(request.model)) "
                + "after \(attempts) attempt(s)\(said); \(advice).",
            statusCode: response.status)
    }

    private func transportExhaustedError(_ error: HTTPClientError, context: RequestContext, attempts: Int) -> LLMError {
        let what: String
        let advice: String
        switch error.kind {
        case .timedOut:
            what = "timed out"
            let idle = configuration.effectiveIdleTimeout.map { ", or the idle timeout model.idle_timeout_s (now \(Int($0.seconds)) s)" } ?? ""
            advice =
                "raise model.request_timeout_s (now \(Int(configuration.requestTimeoutSeconds)) s)\(idle) if answers are long "
                + "or the server is slow to start, or try again later"
        case .connectionFailed:
            what = "could not connect"
            advice = "check baseURL, the network, and that the server at \(host) is running"
        default:
            what = "the connection broke"
            advice = "check the network and proxies between here and \(host), or try again later"
        }
        let code = error.curlCode.map { ", curl error \($0)" } ?? ""
        return LLMError(
            .unavailable,
            "No answer from \(host) for item \(context.itemID) after \(attempts) attempt(s): \(what) "
                + "(\(redact(error.detail))\(code)); \(advice).")
    }

    private func cancelled(_ context: RequestContext) -> LLMError {
        LLMError(.cancelled, "The request for item \(context.itemID) to \(host) was cancelled.")
    }

    private var endpointPath: String {
        kind == "anthropic" ? "/messages" : "/chat/completions"
    }

    /// The server's own explanation from an error body, shortened and with the key removed.
    private func serverMessage(_ response: HTTPResponse) -> String? {
        let text = String(decoding: response.body.prefix(16_384), as: UTF8.self)
        var message: String?
        if let json = try? JSONValue.parse(text) {
            message =
                json["error"]?["message"]?.stringValue ?? json["error"]?.stringValue ?? json["message"]?.stringValue
                ?? json["detail"]?.stringValue
        }
        if message == nil {
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            message = trimmed.isEmpty ? nil : trimmed
        }
        guard var message else { return nil }
        message = redact(message)
        if message.count > 300 { message = String(message.prefix(300)) + "…" }
        return message
    }

    private func redact(_ text: String) -> String {
        apiKey?.redact(text) ?? text
    }

    // MARK: Events

    private func emit(
        _ kind: ProviderEvent.Kind, context: RequestContext, request: LLMRequest, attempt: Int? = nil,
        status: Int? = nil, delay: Duration? = nil, maxTokens: Int? = nil, message: String
    ) {
        runtime.events(
            ProviderEvent(
                kind: kind, provider: self.kind, model: request.model, itemID: context.itemID, attempt: attempt,
                statusCode: status, delaySeconds: delay?.seconds, maxTokens: maxTokens, message: redact(message)))
    }

    // MARK: Helpers

    /// About four characters per token: enough for the tokens-per-minute bucket.
    static func estimatePromptTokens(_ request: LLMRequest) -> Int {
        let characters = request.messages.reduce(0) { $0 + $1.content.utf8.count }
        let schema = request.responseSchema.map { $0.schema.canonicalText.utf8.count } ?? 0
        return (characters + schema) / 4 + 8 * request.messages.count
    }

    static func statusText(_ status: Int) -> String {
        let reason: String
        switch status {
        case 400: reason = "Bad Request"
        case 401: reason = "Unauthorized"
        case 403: reason = "Forbidden"
        case 404: reason = "Not Found"
        case 408: reason = "Request Timeout"
        case 409: reason = "Conflict"
        case 413: reason = "Payload Too Large"
        case 422: reason = "Unprocessable Entity"
        case 429: reason = "Too Many Requests"
        case 500: reason = "Internal Server Error"
        case 502: reason = "Bad Gateway"
        case 503: reason = "Service Unavailable"
        case 504: reason = "Gateway Timeout"
        case 529: reason = "Overloaded"
        default: reason = "HTTP status"
        }
        return "\(status) \(reason)"
    }

    static func format(_ duration: Duration) -> String {
        let seconds = duration.seconds
        return seconds < 10 ? String(format: "%.2f s", seconds) : String(format: "%.0f s", seconds)
    }
}

/// One rate limiter per model of a provider, made on first use.
final class RateLimiterRegistry: Sendable {
    private let kind: String
    private let limits: RateLimiter.Limits
    private let clock: MonotonicClock
    private let events: ProviderEventSink
    private let limiters = Mutex<[String: RateLimiter]>([:])

    init(kind: String, limits: RateLimiter.Limits, clock: @escaping MonotonicClock, events: @escaping ProviderEventSink) {
        self.kind = kind
        self.limits = limits
        self.clock = clock
        self.events = events
    }

    func limiter(for model: String) -> RateLimiter {
        limiters.withLock { limiters in
            if let existing = limiters[model] { return existing }
            let kind = self.kind
            let events = self.events
            let limiter = RateLimiter(limits: limits, clock: clock) { concurrency, raised in
                events(
                    ProviderEvent(
                        kind: raised ? .concurrencyRaised : .concurrencyReduced, provider: kind, model: model,
                        concurrency: concurrency,
                        message: raised
                            ? "successes: allowed concurrency raised to \(concurrency)"
                            : "repeated 429 answers: allowed concurrency lowered to \(concurrency)"))
            }
            limiters[model] = limiter
            return limiter
        }
    }
}
