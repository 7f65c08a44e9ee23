import Foundation

/// HTTP header fields in the order they were given, with case-insensitive lookup.
///
/// Descriptions redact the values of credential headers (`Authorization`, `x-api-key`, …) so a
/// request can be logged or printed without leaking a key.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral,
    CustomStringConvertible
{
    /// The fields as (name, value) pairs, in order; a name may repeat.
    public private(set) var fields: [(name: String, value: String)]

    /// Creates headers from (name, value) pairs.
    public init(_ fields: [(name: String, value: String)] = []) {
        self.fields = fields
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The first value of the field `name`, compared without regard to case.
    public subscript(name: String) -> String? {
        fields.first { Self.sameName($0.name, name) }?.value
    }

    /// Every value of the field `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    /// Appends a field, keeping any earlier field of the same name.
    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// Sets a field, replacing every earlier field of the same name.
    public mutating func replaceOrAdd(name: String, value: String) {
        fields.removeAll { Self.sameName($0.name, name) }
        fields.append((name: name, value: value))
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for field in fields {
            hasher.combine(field.name)
            hasher.combine(field.value)
        }
    }

    /// Names of fields that carry credentials; their values never appear in descriptions.
    public static let credentialFieldNames: Set<String> = [
        "authorization", "proxy-authorization", "x-api-key", "api-key", "cookie", "set-cookie",
    ]

    public var description: String {
        let shown = fields.map { field in
            Self.credentialFieldNames.contains(field.name.lowercased())
                ? "\(field.name): <redacted>" : "\(field.name): \(field.value)"
        }
        return "[" + shown.joined(separator: ", ") + "]"
    }

    static func sameName(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a.caseInsensitiveCompare(b) == .orderedSame
    }
}

/// One HTTP request for ``CurlHTTPClient``.
public struct HTTPRequest: Sendable, CustomStringConvertible {
    /// `GET`, `POST`, … (upper case).
    public var method: String
    public var url: URL
    public var headers: HTTPHeaders
    /// The request body; `nil` sends none.
    public var body: Data?
    /// Longest time to set up the connection (TCP and TLS); `nil` uses the client's default.
    public var connectTimeout: Duration?
    /// Longest time for the whole exchange; `nil` uses the client's default.
    public var timeout: Duration?
    /// Abort when no byte arrives for this long. `nil` (the default) disables it: a
    /// non-streaming LLM answer sends nothing until the model has finished writing.
    public var idleTimeout: Duration?
    /// Called with each piece of the response body as it arrives (on the client's thread; keep
    /// it short). The whole body is still returned in the ``HTTPResponse``; this is for progress
    /// of streamed answers. Returning false stops the transfer there: the body received so far
    /// is returned as the response, marked ``HTTPResponse/stopped``.
    public var onReceive: (@Sendable (Data) -> Bool)?
    /// The largest response body accepted; a larger one stops the transfer as soon as it passes
    /// the bound and fails with ``HTTPClientError/Kind/responseTooLarge`` (nothing of it kept).
    /// `nil`: no bound.
    public var maxResponseBytes: Int?

    /// Creates a request.
    public init(
        method: String = "GET", url: URL, headers: HTTPHeaders = [:], body: Data? = nil,
        connectTimeout: Duration? = nil, timeout: Duration? = nil, idleTimeout: Duration? = nil,
        onReceive: (@Sendable (Data) -> Bool)? = nil
    ) {
        self.onReceive = onReceive
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.idleTimeout = idleTimeout
    }

    /// Method, URL without its query, and headers with credentials redacted.
    public var description: String {
        "\(method) \(url.redactedForMessages) \(headers)"
    }
}

/// The answer to an ``HTTPRequest``.
public struct HTTPResponse: Sendable {
    /// The status code of the final response (after any `100 Continue`).
    public var status: Int
    /// The final response's header fields.
    public var headers: HTTPHeaders
    public var body: Data
    /// The request's `onReceive` stopped the transfer: `body` is what had arrived by then.
    public var stopped: Bool

    /// Creates a response.
    public init(status: Int, headers: HTTPHeaders = [:], body: Data = Data(), stopped: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.stopped = stopped
    }
}

/// A transfer that ended without an HTTP response.
public struct HTTPClientError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, in the terms retry decisions need.
    public enum Kind: String, Sendable {
        /// Name resolution or TCP connect failed.
        case connectionFailed
        /// The connection broke or closed before a complete response arrived.
        case connectionLost
        /// A connect, total or idle timeout fired.
        case timedOut
        /// TLS negotiation or certificate verification failed.
        case tls
        /// The request could not be sent as given (bad URL, unsupported scheme).
        case invalidRequest
        /// The client was shut down while the request was pending.
        case shutDown
        /// The response body grew past the request's `maxResponseBytes`.
        case responseTooLarge
        /// Any other libcurl failure.
        case other
    }

    public var kind: Kind
    /// Scheme, host and path of the request (never the query, which some APIs use for keys).
    public var target: String
    /// libcurl's error code, when libcurl reported one.
    public var curlCode: Int?
    /// libcurl's own words.
    public var detail: String

    /// Creates an error.
    public init(kind: Kind, target: String, curlCode: Int? = nil, detail: String) {
        self.kind = kind
        self.target = target
        self.curlCode = curlCode
        self.detail = detail
    }

    /// Whether sending the same request again may succeed.
    public var isTransient: Bool {
        switch kind {
        case .connectionFailed, .connectionLost, .timedOut: true
        case .tls, .invalidRequest, .shutDown, .responseTooLarge, .other: false
        }
    }

    public var description: String {
        let code = curlCode.map { " (curl error \($0))" } ?? ""
        switch kind {
        case .connectionFailed:
            return "Could not connect to \(target): \(detail)\(code). Check the URL and that the server is up."
        case .connectionLost:
            return "The connection to \(target) broke before the answer was complete: \(detail)\(code)."
        case .timedOut:
            return "No complete answer from \(target) in time: \(detail)\(code)."
        case .tls:
            return "TLS with \(target) failed: \(detail)\(code). Check the host name and the system's CA certificates."
        case .invalidRequest:
            return "The request to \(target) could not be sent: \(detail)\(code). Check the URL."
        case .shutDown:
            return "The HTTP client was shut down while a request to \(target) was pending."
        case .responseTooLarge:
            return "The answer from \(target) was refused: \(detail)."
        case .other:
            return "The request to \(target) failed: \(detail)\(code)."
        }
    }
}

extension URL {
    /// Scheme, host, port and path: what error messages may show. The query and user info
    /// are left out because some services take keys there.
    var redactedForMessages: String {
        var components = URLComponents(url: self, resolvingAgainstBaseURL: false)
        components?.query = nil
        components?.user = nil
        components?.password = nil
        components?.fragment = nil
        return components?.string ?? (host ?? "the server")
    }
}
