import CLecternSystem
import Foundation
import Synchronization

@testable import LecternLLM

#if canImport(Glibc)
    import Glibc
#endif

/// A real HTTP/1.1 server on 127.0.0.1 for tests: answers requests from a script of replies, in
/// order, and records every request it received. One thread accepts; each connection gets its
/// own thread and may carry several requests (keep-alive).
final class LoopbackServer: Sendable {
    /// What to do with one request.
    struct Reply: Sendable {
        enum Action: Sendable {
            /// Send the status, headers and body.
            case respond
            /// Close the connection without answering (the client sees an empty reply).
            case closeWithoutAnswer
            /// Reset the connection (TCP RST) without answering.
            case reset
            /// Send the status and headers with no length, then each part after its delay, then
            /// wait `hangAfter` (if any) and close: a server-sent event stream.
            case stream(parts: [(delay: Duration, text: String)], hangAfter: Duration?)
        }

        var status: Int = 200
        var headers: [(String, String)] = [("Content-Type", "application/json")]
        var body: Data = Data()
        /// Wait this long before acting; the wait ends early when the client goes away.
        var delay: Duration = .zero
        var action: Action = .respond

        static func json(
            _ status: Int = 200, _ body: String, headers: [(String, String)] = [], delay: Duration = .zero
        )
            -> Reply
        {
            Reply(
                status: status, headers: [("Content-Type", "application/json")] + headers, body: Data(body.utf8),
                delay: delay)
        }

        /// A `text/event-stream` answer sent in parts; `hangAfter` keeps the connection open and
        /// silent that long after the last part before closing it.
        static func stream(_ parts: [(delay: Duration, text: String)], hangAfter: Duration? = nil) -> Reply {
            Reply(status: 200, headers: [("Content-Type", "text/event-stream")], action: .stream(parts: parts, hangAfter: hangAfter))
        }

        /// A redirect to `location`.
        static func redirect(_ status: Int = 307, to location: String) -> Reply {
            Reply(status: status, headers: [("Location", location)], body: Data())
        }

        static let closeWithoutAnswer = Reply(action: .closeWithoutAnswer)
        static let reset = Reply(action: .reset)
    }

    /// A request as the server read it.
    struct ReceivedRequest: Sendable {
        var method: String
        var path: String
        var headers: HTTPHeaders
        var body: Data

        var json: JSONValue? { try? JSONValue.parse(String(decoding: body, as: UTF8.self)) }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    private struct State {
        var replies: [Reply] = []
        var fallback: Reply
        var received: [ReceivedRequest] = []
        var connections: Set<Int32> = []
        var connectionsAccepted = 0
        var stopped = false
    }

    private let listener: Int32
    let port: Int
    private let state: Mutex<State>

    /// Starts a server that answers with `replies` in order, then with `fallback`.
    init(replies: [Reply] = [], fallback: Reply = .json(500, #"{"error":{"message":"no scripted reply left"}}"#)) throws {
        state = Mutex(State(replies: replies, fallback: fallback))
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard case .success(let bound) = LoopbackSocket.bindEphemeral(fd), listen(fd, 512) == 0 else {
            close(fd)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        listener = fd
        port = bound
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Every request received so far, in order.
    var requests: [ReceivedRequest] { state.withLock { $0.received } }

    /// Waits until the server has received `count` requests or `limit` has passed, polling: a
    /// request is in flight once this returns true (a fixed pause can end before it arrives on a
    /// loaded machine). The default bound is long because the whole suite shares one process:
    /// its hundreds of tests run at once on a cooperative pool of one thread per core, and under
    /// that load (2 cores) a task that only has to send a request waited more than 60 s for a
    /// thread. Passing tests return as soon as the request is in; only a failure waits it out.
    func waitForRequests(_ count: Int = 1, within limit: Duration = .seconds(600)) async throws -> Bool {
        let start = ContinuousClock.now
        while requests.count < count && ContinuousClock.now - start < limit { try await Task.sleep(for: .milliseconds(20)) }
        return requests.count >= count
    }

    /// How many TCP connections the server accepted so far.
    var connectionsAccepted: Int { state.withLock { $0.connectionsAccepted } }

    /// Adds replies to the end of the script.
    func enqueue(_ replies: Reply...) {
        state.withLock { $0.replies.append(contentsOf: replies) }
    }

    /// Stops accepting and closes every connection. Safe to call more than once: only the
    /// first call touches descriptors, and connection descriptors are shut down under the lock
    /// that `serve` holds while forgetting one, so a number the system has already reused for
    /// another socket is never touched.
    func stop() {
        state.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
            for fd in state.connections { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptLoop() {
        while true {
            let fd = lectern_accept_cloexec(listener)
            if fd < 0 {
                if state.withLock({ $0.stopped }) { break }
                usleep(1000)  // EINTR, ECONNABORTED, EMFILE: try again
                continue
            }
            let accepted = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.connections.insert(fd)
                state.connectionsAccepted += 1
                return true
            }
            guard accepted else {
                close(fd)
                break
            }
            let thread = Thread { [self] in serve(fd) }
            thread.start()
        }
        close(listener)
    }

    private func serve(_ fd: Int32) {
        var buffer = [UInt8]()
        defer {
            state.withLock { _ = $0.connections.remove(fd) }
            // Shut down, not only close: the client must see the end even if a child process
            // somewhere holds a copy of the descriptor.
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
        }
        while let request = readRequest(fd, buffer: &buffer) {
            let reply = state.withLock { state -> Reply in
                state.received.append(request)
                return state.replies.isEmpty ? state.fallback : state.replies.removeFirst()
            }
            if reply.delay > .zero, !waitUnlessClientLeaves(fd, for: reply.delay) { return }
            switch reply.action {
            case .closeWithoutAnswer:
                return
            case .reset:
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                return
            case .stream(let parts, let hangAfter):
                var head = "HTTP/1.1 \(reply.status) \(Self.reason(reply.status))\r\n"
                for (name, value) in reply.headers { head += "\(name): \(value)\r\n" }
                head += "Cache-Control: no-cache\r\nConnection: close\r\n\r\n"
                guard writeAll(fd, Data(head.utf8)) else { return }
                for part in parts {
                    if part.delay > .zero, !waitUnlessClientLeaves(fd, for: part.delay) { return }
                    guard writeAll(fd, Data(part.text.utf8)) else { return }
                }
                if let hangAfter { _ = waitUnlessClientLeaves(fd, for: hangAfter) }
                return
            case .respond:
                var head = "HTTP/1.1 \(reply.status) \(Self.reason(reply.status))\r\n"
                for (name, value) in reply.headers { head += "\(name): \(value)\r\n" }
                head += "Content-Length: \(reply.body.count)\r\n\r\n"
                guard writeAll(fd, Data(head.utf8) + reply.body) else { return }
            }
        }
    }

    /// Reads one request (head and Content-Length body); nil when the connection ended.
    private func readRequest(_ fd: Int32, buffer: inout [UInt8]) -> ReceivedRequest? {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while true {
            if let end = Self.find(separator, in: buffer) {
                headEnd = end
                break
            }
            guard readMore(fd, into: &buffer) else { return nil }
        }
        guard let headEnd else { return nil }
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(
                name: String(line[..<colon]),
                value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let length = Int(headers["Content-Length"] ?? "0") ?? 0
        let bodyStart = headEnd + 4
        while buffer.count < bodyStart + length {
            guard readMore(fd, into: &buffer) else { return nil }
        }
        let body = Data(buffer[bodyStart..<(bodyStart + length)])
        buffer.removeFirst(bodyStart + length)
        return ReceivedRequest(
            method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: body)
    }

    private func readMore(_ fd: Int32, into buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }

    private func writeAll(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let written = send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if written <= 0 { return false }
                offset += written
            }
            return true
        }
    }

    /// Sleeps for `duration`, but returns false as soon as the client closes the connection.
    private func waitUnlessClientLeaves(_ fd: Int32, for duration: Duration) -> Bool {
        let deadline = ContinuousClock.now + duration
        while ContinuousClock.now < deadline {
            let remaining = deadline - ContinuousClock.now
            let milliseconds = Int32(max(1, min(100, remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000)))
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, milliseconds)
            if ready > 0 {
                var byte: UInt8 = 0
                let peeked = recv(fd, &byte, 1, Int32(MSG_PEEK))
                if peeked <= 0 { return false }
                // Pipelined data from the client: keep waiting without consuming it.
                usleep(UInt32(milliseconds) * 1000)
            }
            if state.withLock({ $0.stopped }) { return false }
        }
        return true
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count)
        where haystack[start] == needle[0] && Array(haystack[start..<(start + needle.count)]) == needle {
            return start
        }
        return nil
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}

/// A loopback port nothing listens on: bound (without `SO_REUSEADDR`) and never listening for as
/// long as this lives, so a connection to it is refused and no server another test starts in the
/// meantime can take it. (A server's port just stopped was taken by the next test's server, and a
/// "refused" connection hung on it for curl's five minutes.)
final class ClosedPort: Sendable {
    let port: Int
    private let fd: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        guard case .success(let bound) = LoopbackSocket.bindEphemeral(fd) else {
            close(fd)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        self.fd = fd
        port = bound
    }

    deinit { close(fd) }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
}
