import Crypto
import Foundation

/// One request of a batch: its custom id (unique within the batch, stable for the request) and
/// what to ask.
public struct BatchLine: Sendable {
    public var customID: String
    public var request: LLMRequest
    public var context: RequestContext
}

/// What a batch said about one line.
public enum BatchLineResult: Sendable {
    case answer(LLMResponse)
    /// The line failed or was not run (an error line, an expired or cancelled batch); the reason.
    case failed(String)
}

/// Where a batch is.
public struct BatchStatus: Sendable {
    public enum Phase: String, Sendable {
        /// Validating, in progress, finalizing.
        case running
        /// Done: every line has a result or an error.
        case ended
        /// The provider refused the whole batch.
        case failed
        /// The completion window passed; lines without results did not run.
        case expired
        case cancelled
    }

    public var phase: Phase
    public var total: Int
    public var succeeded: Int
    public var failed: Int
    /// The provider's own word for the state, for the status line.
    public var providerState: String
}

/// A provider's batch API: OpenAI's Batch API or Anthropic's Message Batches.
protocol BatchBackend: Sendable {
    /// `OpenAI Batch API` …, for messages.
    var name: String { get }
    /// Submits the lines as one batch; returns its id. `label` goes into the batch's metadata
    /// where the API has it.
    func submit(_ lines: [BatchLine], label: String) async throws -> String
    func status(of id: String) async throws -> BatchStatus
    /// The results of a batch that is no longer running, by custom id (lines without a result
    /// are missing).
    func results(of id: String, lines: [String: BatchLine]) async throws -> [String: BatchLineResult]
}

/// HTTP for the batch APIs: JSON in and out, transient failures retried with backoff.
struct BatchHTTP: Sendable {
    let runtime: ProviderRuntime
    let configuration: ProviderConfiguration
    let authorization: HTTPHeaders
    let provider: String

    func send(_ method: String, _ url: URL, body: Data? = nil, contentType: String = "application/json") async throws -> Data {
        var headers = authorization
        if body != nil { headers.add(name: "Content-Type", value: contentType) }
        headers.add(name: "Accept", value: "application/json")
        let request = HTTPRequest(
            method: method, url: url, headers: headers, body: body, connectTimeout: .seconds(clamping: configuration.connectTimeoutSeconds),
            timeout: .seconds(clamping: max(configuration.requestTimeoutSeconds, 120)))
        var attempt = 1
        let attempts = configuration.retryPolicy.maxRetries + 1
        while true {
            var failure = ""
            var retryable = true
            do {
                let response = try await runtime.httpClient.send(request)
                if (200..<300).contains(response.status) { return response.body }
                let said = (try? JSONValue.parse(String(decoding: response.body, as: UTF8.self)))?["error"]?["message"]?.stringValue
                failure = "HTTP \(response.status)" + (said.map { ": \($0)" } ?? "")
                retryable = RetryPolicy.isRetryable(status: response.status)
                if response.status == 401 || response.status == 403 {
                    throw LLMError(.authentication, "\(provider) batch API refused the key (\(failure)) at \(url.redactedForMessages); check the key and its permissions.")
                }
            } catch let error as LLMError {
                throw error
            } catch let error as HTTPClientError {
                failure = error.description
                retryable = error.isTransient
            }
            guard retryable, attempt < attempts else {
                throw LLMError(.unavailable, "\(provider) batch API: \(method) \(url.redactedForMessages) failed after \(attempt) attempt(s): \(failure)")
            }
            let delay = min(30.0, 0.5 * pow(2.0, Double(attempt - 1)))
            runtime.events(
                ProviderEvent(
                    kind: .retrying, provider: provider, model: configuration.model, attempt: attempt + 1, delaySeconds: delay,
                    message: "batch API: \(failure); retrying in \(String(format: "%.1f", delay)) s"))
            try await runtime.sleeper.sleep(for: .milliseconds(Int(delay * 1000)))
            attempt += 1
        }
    }

    func json(_ method: String, _ url: URL, body: JSONValue? = nil) async throws -> JSONValue {
        let data = try await send(method, url, body: body.map { Data($0.canonicalText.utf8) })
        do {
            return try JSONValue.parse(String(decoding: data, as: UTF8.self))
        } catch {
            throw LLMError(.unavailable, "\(provider) batch API: \(method) \(url.redactedForMessages) answered with something that is not JSON")
        }
    }

    /// A result line's answer, read as the provider reads a whole answer (`decode`).
    static func answer(
        _ body: JSONValue, for line: BatchLine, decode: (HTTPResponse, LLMRequest, RequestContext) throws -> LLMResponse
    ) -> BatchLineResult {
        do {
            let response = HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(body.canonicalText.utf8))
            return .answer(try decode(response, line.request, line.context))
        } catch {
            return .failed("unreadable answer: \(error)")
        }
    }

    /// A request body without the streaming fields.
    static func unstreamed(_ body: JSONValue) -> JSONValue {
        guard var object = body.objectValue else { return body }
        object["stream"] = nil
        object["stream_options"] = nil
        return .object(object)
    }

    /// The lines of a JSON Lines body, each parsed; unreadable lines are skipped (their
    /// requests count as missing and go again).
    static func jsonLines(_ data: Data) -> [JSONValue] {
        String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { try? JSONValue.parse(String($0)) }
    }
}

enum BatchIDs {
    /// A custom id for a request: the item id (for people and the mock server) and a hash of
    /// the request, in `[A-Za-z0-9_-]{1,64}` (Anthropic's rule; OpenAI takes it too).
    static func customID(for request: LLMRequest, context: RequestContext) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(request)) ?? Data()
        let hash = HexText.lowercase(SHA256.hash(data: data).prefix(8))
        let item = context.itemID.replacingOccurrences(of: "/", with: "__").unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == "_") ? Character(scalar) : "_"
        }
        return String(String(item).prefix(46)) + "-" + hash
    }
}
