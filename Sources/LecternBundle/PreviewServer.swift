import CLecternSystem
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `lectern preview --serve`: the preview site over HTTP on loopback, for browsers that will not
/// run a page's script from `file://` and for phones on an emulator's host loopback. GET and
/// HEAD of files inside the site only (a path that leaves it, a hidden file, a link pointing out
/// is a 404), with the right media types (`application/xhtml+xml` for the XHTML pages, so that
/// MathML and XHTML parsing apply), `no-store` so a rebuilt preview shows at once. One thread a
/// connection; each response closes its connection.
///
/// Only a browser on this machine, asking for this server by its loopback name, is answered: a
/// request whose `Host` is not `localhost`, `127.0.0.1` or `[::1]` with the served port gets 421
/// (a page on another site whose name an attacker re-points at 127.0.0.1 — DNS rebinding — would
/// send its own host name). A connection must send its whole request head within `idleTimeout`
/// or is closed, however slowly it trickles bytes.
public final class PreviewServer: @unchecked Sendable {
    // @unchecked: every stored property is a constant set in init.
    public let port: Int
    let root: URL
    private let listener: Int32
    /// How long a connection may take to send its request head, and a send may wait.
    let idleTimeout: Duration

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Listens on 127.0.0.1:`port` (0 picks a free one) and serves `root`.
    public init(root: URL, port requested: Int, idleTimeout: Duration = .seconds(10)) throws {
        guard (0...65535).contains(requested) else { throw Failure(description: "port \(requested) is not 0–65535") }
        self.idleTimeout = idleTimeout
        self.root = root.standardizedFileURL.resolvingSymlinksInPath()
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

    static let mediaTypes: [String: String] = [
        "xhtml": "application/xhtml+xml; charset=utf-8", "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "json": "application/json", "svg": "image/svg+xml", "png": "image/png", "jpg": "image/jpeg",
        "jpeg": "image/jpeg", "webp": "image/webp", "mp3": "audio/mpeg", "ogg": "audio/ogg", "opus": "audio/ogg", "wav": "audio/wav",
        "m4a": "audio/mp4", "txt": "text/plain; charset=utf-8", "md": "text/markdown; charset=utf-8",
    ]

    func handle(_ client: Int32) {
        var sendTimeout = Self.socketTimeout(idleTimeout)
        setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
        // The request head (up to 16 KiB), whole within idleTimeout; the body, if any, is not read.
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: idleTimeout)
        var head = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var complete = false
        while head.count < 16_384 {
            let left = clock.now.duration(to: deadline)
            guard left > .zero else { break }
            var wait = Self.socketTimeout(left)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
            let n = recv(client, &buffer, buffer.count, 0)
            if n <= 0 { break }
            head += buffer[0..<n]
            if Self.endOfHead(head, from: max(0, head.count - n - 3)) {
                complete = true
                break
            }
        }
        // Slow or silent: closed without a word (nothing was asked).
        guard complete else { return }
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = (lines.first ?? "").split(separator: " ")
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else { return respond(client, 400, "Bad Request", body: Data("bad request\n".utf8)) }
        let host = lines.dropFirst().first { $0.lowercased().hasPrefix("host:") }.map { String($0.dropFirst(5)).trimmingCharacters(in: .whitespaces) }
        guard Self.isLoopbackHost(host, port: port) else {
            return respond(
                client, 421, "Misdirected Request",
                body: Data("this preview answers only http://127.0.0.1:\(port)/ and http://localhost:\(port)/\n".utf8))
        }
        let method = requestLine[0]
        guard method == "GET" || method == "HEAD" else { return respond(client, 405, "Method Not Allowed", body: Data("GET or HEAD only\n".utf8)) }
        guard let file = resolve(String(requestLine[1])), let data = FileManager.default.contents(atPath: file.path) else {
            return respond(client, 404, "Not Found", body: Data("not found\n".utf8), head: method == "HEAD")
        }
        respond(client, 200, "OK", type: Self.mediaTypes[file.pathExtension.lowercased()] ?? "application/octet-stream", body: data, head: method == "HEAD")
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

    static func endOfHead(_ bytes: [UInt8], from start: Int) -> Bool {
        var i = start
        while i + 3 < bytes.count {
            if bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 { return true }
            i += 1
        }
        return false
    }

    /// The file a request target names inside the site, or nil: percent-decoded, query and
    /// fragment dropped, `/` as index.xhtml; no `..`, no hidden files, symbolic links resolved and
    /// required to stay inside.
    func resolve(_ target: String) -> URL? {
        guard target.hasPrefix("/") else { return nil }
        let path = String(target.prefix { $0 != "?" && $0 != "#" })
        guard let decoded = path.removingPercentEncoding, !decoded.contains("\0"), !decoded.contains("\\") else { return nil }
        let parts = decoded.split(separator: "/", omittingEmptySubsequences: true)
        guard !parts.contains(where: { $0 == ".." || $0 == "." || $0.hasPrefix(".") }) else { return nil }
        var url = root
        for part in parts { url.appendPathComponent(String(part)) }
        if parts.isEmpty || decoded.hasSuffix("/") { url.appendPathComponent("index.xhtml") }
        let real = url.resolvingSymlinksInPath().standardizedFileURL
        guard real.path.hasPrefix(root.path + "/") else { return nil }
        var directory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: real.path, isDirectory: &directory), !directory.boolValue else { return nil }
        return real
    }

    func respond(_ client: Int32, _ status: Int, _ reason: String, type: String = "text/plain; charset=utf-8", body: Data, head: Bool = false) {
        var response = Data("HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\n".utf8)
        response += Data("Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n".utf8)
        if !head { response += body }
        response.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let n = send(client, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                if n <= 0 { return }
                sent += n
            }
        }
    }
}
