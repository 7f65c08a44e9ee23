import CLecternSystem
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small HTTP/1.1 server on 127.0.0.1 for what Lectern serves a browser on this machine
/// (`preview --serve`, `review`): one thread a connection, one request a connection.
///
/// Only a browser on this machine, asking for this server by its loopback name, is answered: a
/// request whose `Host` is not `localhost`, `127.0.0.1` or `[::1]` with the served port gets 421
/// (a page on another site whose name an attacker re-points at 127.0.0.1 — DNS rebinding — sends
/// its own host name). A connection must send its request head within `idleTimeout`, however
/// slowly it trickles bytes, or is closed; a body is read only up to `maxBodyBytes`.
public final class LoopbackHTTPServer: @unchecked Sendable {
    // @unchecked: every stored property is a constant set in init; `handler` is Sendable.

    /// A request as the handler sees it.
    public struct Request: Sendable {
        public var method: String
        /// The target as sent: path and query.
        public var target: String
        public var headers: [(name: String, value: String)]
        public var body: Data

        public init(method: String, target: String, headers: [(name: String, value: String)] = [], body: Data = Data()) {
            self.method = method
            self.target = target
            self.headers = headers
            self.body = body
        }

        /// The first header named `name` (case-insensitive).
        public func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }

        /// The path, percent-decoded, without query or fragment; nil when it does not decode.
        public var path: String? {
            String(target.prefix { $0 != "?" && $0 != "#" }).removingPercentEncoding
        }

        /// The query's `name=value` pairs (form-decoded).
        public var query: [String: String] {
            guard let mark = target.firstIndex(of: "?") else { return [:] }
            return Self.formValues(String(target[target.index(after: mark)...].prefix { $0 != "#" }))
        }

        /// An `application/x-www-form-urlencoded` body's values (the last of a repeated name).
        public var form: [String: String] { Self.formValues(String(decoding: body, as: UTF8.self)) }

        static func formValues(_ text: String) -> [String: String] {
            var values: [String: String] = [:]
            for pair in text.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                func decode(_ s: Substring) -> String { s.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
                guard let name = parts.first else { continue }
                values[decode(name)] = parts.count > 1 ? decode(parts[1]) : ""
            }
            return values
        }
    }

    /// An answer.
    public struct Response: Sendable {
        public var status: Int
        public var type: String
        public var body: Data
        public var headers: [(String, String)]

        public init(status: Int = 200, type: String = "text/plain; charset=utf-8", body: Data = Data(), headers: [(String, String)] = []) {
            self.status = status
            self.type = type
            self.body = body
            self.headers = headers
        }

        public static func text(_ status: Int, _ text: String) -> Response { Response(status: status, body: Data((text + "\n").utf8)) }

        /// A redirect after a form (303: the browser asks for `location` with GET).
        public static func seeOther(_ location: String) -> Response { Response(status: 303, headers: [("Location", location)]) }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public let port: Int
    private let listener: Int32
    let idleTimeout: Duration
    let maxBodyBytes: Int
    let handler: @Sendable (Request) -> Response

    /// Listens on 127.0.0.1:`port` (0 picks a free one); `handler` answers each request that
    /// passed the checks above.
    public init(
        port requested: Int, idleTimeout: Duration = .seconds(10), maxBodyBytes: Int = 4 << 20, handler: @escaping @Sendable (Request) -> Response
    ) throws {
        guard (0...65535).contains(requested) else { throw Failure(description: "port \(requested) is not 0–65535") }
        self.idleTimeout = idleTimeout
        self.maxBodyBytes = maxBodyBytes
        self.handler = handler
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "cannot create a socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(requested).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")  // loopback only
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: "cannot listen on 127.0.0.1:\(requested): \(reason); choose another --port")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Accepts connections until the process ends.
    public func serveForever() -> Never {
        while true {
            let client = lectern_accept_cloexec(listener)
            guard client >= 0 else { continue }
            Thread.detachNewThread { [self] in
                handle(client)
                close(client)
            }
        }
    }

    func handle(_ client: Int32) {
        var sendTimeout = Self.socketTimeout(idleTimeout)
        setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
        // The request head (up to 16 KiB), whole within idleTimeout.
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: idleTimeout)
        var bytes = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var headEnd: Int?
        func receive() -> Bool {
            let left = clock.now.duration(to: deadline)
            guard left > .zero else { return false }
            var wait = Self.socketTimeout(left)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
            let n = recv(client, &buffer, buffer.count, 0)
            guard n > 0 else { return false }
            bytes += buffer[0..<n]
            return true
        }
        while headEnd == nil && bytes.count < 16_384 {
            let from = max(0, bytes.count - 3)
            guard receive() else { break }
            headEnd = Self.endOfHead(bytes, from: from)
        }
        // Slow or silent: closed without a word (nothing was asked).
        guard let headEnd else { return }
        let lines = String(decoding: bytes[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = (lines.first ?? "").split(separator: " ")
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else { return respond(client, .text(400, "bad request"), head: false) }
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]).trimmingCharacters(in: .whitespaces), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
        }
        var request = Request(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: Data())
        guard Self.isLoopbackHost(request.header("Host"), port: port) else {
            return respond(client, .text(421, "this server answers only http://127.0.0.1:\(port)/ and http://localhost:\(port)/"), head: false)
        }
        if let length = request.header("Content-Length").flatMap(Int.init), length > 0 {
            guard length <= maxBodyBytes else { return respond(client, .text(413, "the request is larger than \(maxBodyBytes) bytes"), head: false) }
            var body = Array(bytes[(headEnd + 4)...])
            while body.count < length {
                let before = bytes.count
                guard receive() else { break }
                body += bytes[before...]
            }
            guard body.count >= length else { return }
            request.body = Data(body.prefix(length))
        }
        respond(client, handler(request), head: request.method == "HEAD")
    }

    /// Whether a request's `Host` header value names this server: `localhost`, `127.0.0.1` or
    /// `[::1]`, with `port`.
    static func isLoopbackHost(_ host: String?, port: Int) -> Bool {
        guard let host = host?.lowercased() else { return false }
        return ["localhost", "127.0.0.1", "[::1]"].contains { host == "\($0):\(port)" }
    }

    /// A socket timeout of `duration` (at least a microsecond: zero would mean none).
    static func socketTimeout(_ duration: Duration) -> timeval {
        let (seconds, attoseconds) = duration.components
        let microseconds = Int(max(0, attoseconds / 1_000_000_000_000))
        return timeval(tv_sec: Int(max(0, seconds)), tv_usec: seconds <= 0 && microseconds == 0 ? 1 : microseconds)
    }

    /// Where the blank line ending the head starts, looking from `start`; nil before it arrives.
    static func endOfHead(_ bytes: [UInt8], from start: Int) -> Int? {
        var i = start
        while i + 3 < bytes.count {
            if bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 { return i }
            i += 1
        }
        return nil
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 303: "See Other"
        case 400: "Bad Request"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 421: "Misdirected Request"
        case 422: "Unprocessable Content"
        default: "Error"
        }
    }

    func respond(_ client: Int32, _ response: Response, head: Bool) {
        var text = "HTTP/1.1 \(response.status) \(Self.reason(response.status))\r\nContent-Type: \(response.type)\r\nContent-Length: \(response.body.count)\r\n"
        for (name, value) in response.headers { text += "\(name): \(value)\r\n" }
        text += "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n"
        var data = Data(text.utf8)
        if !head { data += response.body }
        data.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let n = send(client, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                if n <= 0 { return }
                sent += n
            }
        }
    }
}
