import CLecternSystem
import Foundation
import LecternLLM
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A mock LLM server on 127.0.0.1 speaking OpenAI Chat Completions (`POST …/chat/completions`)
/// and Anthropic Messages (`POST …/messages`). It answers each request from a recorded cassette
/// by the request's `X-Lectern-Item` header, after a latency drawn from a seeded distribution,
/// or injects a fault instead (429, 500, 503, reset, hang, truncated, invalid JSON, wrong
/// content). It counts requests and answers per item (`stats`, `GET /__stats`), so tests can
/// prove nothing was paid for twice.
///
/// One thread runs a `poll(2)` loop over non-blocking sockets; latencies are timers in that loop,
/// so thousands of slow requests cost no threads. It only ever binds the loopback address.
///
///     let server = try MockLLMServer(answers: MockAnswerBook(cassettes: [cassette]),
///                                    configuration: MockConfiguration(latency: .fixed(milliseconds: 300)))
///     // model: { provider: openai, base_url: \(server.baseURL)/v1, name: mock }
///     print(server.stats.answered)
///     server.stop()
public final class MockLLMServer: Sendable {
    /// The port it listens on (127.0.0.1 only).
    public let port: Int
    private let shared: MockSharedState
    private let loop: MockEventLoop

    /// Binds 127.0.0.1:`port` (0 picks a free port) and starts serving at once.
    public init(answers: MockAnswerBook, configuration: MockConfiguration = MockConfiguration(), port: Int = 0) throws {
        shared = MockSharedState(answers: answers, configuration: configuration)
        loop = try MockEventLoop(port: port, shared: shared)
        self.port = loop.port
        let loop = self.loop
        let thread = Thread { loop.run() }
        thread.name = "lectern-mock-llm"
        thread.start()
    }

    deinit { loop.stop() }

    /// `http://127.0.0.1:PORT` (append `/v1` for the providers' base URL).
    public var baseURL: URL {
        URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")  // always valid: a literal host and an integer port
    }

    /// What the server has done so far.
    public var stats: MockStats { shared.state.withLock { $0.stats } }

    /// Forgets the counters (between phases of a benchmark). Requests in flight stay counted.
    public func resetStats() {
        shared.state.withLock { state in
            let inFlight = state.stats.inFlight
            state.stats = MockStats()
            state.stats.inFlight = inFlight
        }
    }

    /// Serves from other answers from now on (e.g. after an edited spec was recorded).
    public func replaceAnswers(_ answers: MockAnswerBook) {
        shared.state.withLock { $0.answers = answers }
    }

    /// Changes latency, faults or authentication from the next request on.
    public func reconfigure(_ configuration: MockConfiguration) {
        shared.state.withLock { $0.responder = MockResponder(configuration: configuration) }
    }

    /// The model requests received so far, when `recordRequests` is on.
    public var recordedRequests: [MockRecordedRequest] { shared.state.withLock { $0.log } }

    /// Seconds since the server started, on the clock of ``MockStats/firstRequestAt``.
    public var uptime: Double { loop.elapsedSeconds() }

    /// Stops serving and closes every connection; returns once the loop has ended.
    public func stop() { loop.stop() }

    /// Blocks the calling thread until `stop()` is called (for the executable).
    public func waitUntilStopped() { loop.waitUntilStopped() }
}

/// State shared between the loop thread and the server's callers.
final class MockSharedState: Sendable {
    struct State {
        var answers: MockAnswerBook
        var responder: MockResponder
        var stats = MockStats()
        var log: [MockRecordedRequest] = []
        var serial = 0
        var batches = MockBatchStore()
    }

    let state: Mutex<State>

    init(answers: MockAnswerBook, configuration: MockConfiguration) {
        state = Mutex(State(answers: answers, responder: MockResponder(configuration: configuration)))
    }
}

/// The `poll(2)` loop. Everything but `stop()` runs on the loop's own thread.
final class MockEventLoop: @unchecked Sendable {
    // @unchecked: connections, timers and buffers are only touched by the loop thread (`run`);
    // `stop()` only sets an atomic flag and writes to the wake pipe.

    private final class Connection {
        let fd: Int32
        var input: [UInt8] = []
        var output: [UInt8] = []
        var outputOffset = 0
        var closed = false
        var closeAfterFlush = false
        /// The request being answered (one at a time per connection, so answers stay in order).
        var pending: (item: String?, hang: Bool)?

        init(fd: Int32) { self.fd = fd }
    }

    private enum TimerAction {
        case send(status: Int, headers: [(String, String)], body: Data, billable: Bool)
        case reset
    }

    private struct Timer {
        var due: UInt64
        var connection: Connection
        var action: TimerAction
    }

    let port: Int
    private let listener: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let shared: MockSharedState
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let ended = Atomic<Bool>(false)
    private var connections: [Int32: Connection] = [:]
    private var timers: [Timer] = []
    private let started = MockEventLoop.now()

    /// Seconds since the loop was created.
    func elapsedSeconds() -> Double { Double(Self.now() - started) / 1e9 }

    init(port requested: Int, shared: MockSharedState) throws {
        self.shared = shared
        guard (0...65535).contains(requested) else { throw MockConfigurationError("port \(requested) is not 0–65535") }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw MockConfigurationError("socket() failed: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(requested).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")  // loopback only, never configurable
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 1024) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw MockConfigurationError("cannot listen on 127.0.0.1:\(requested): \(reason)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else {
            close(fd)
            throw MockConfigurationError("pipe() failed: \(String(cString: strerror(errno)))")
        }
        _ = fcntl(pipeFDs[0], F_SETFL, fcntl(pipeFDs[0], F_GETFL) | O_NONBLOCK)
        listener = fd
        wakeRead = pipeFDs[0]
        wakeWrite = pipeFDs[1]
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else {
            waitUntilStopped()
            return
        }
        var byte: UInt8 = 1
        _ = Glibc.write(wakeWrite, &byte, 1)
        waitUntilStopped()
    }

    func waitUntilStopped() {
        if ended.load(ordering: .acquiring) { return }
        finished.wait()
        finished.signal()  // later waiters pass too
    }

    func run() {
        var fds: [pollfd] = []
        var order: [Connection] = []
        while !stopping.load(ordering: .acquiring) {
            fds.removeAll(keepingCapacity: true)
            order.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0))
            fds.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
            for connection in connections.values {
                let wantsWrite = connection.outputOffset < connection.output.count
                fds.append(pollfd(fd: connection.fd, events: Int16(POLLIN) | (wantsWrite ? Int16(POLLOUT) : 0), revents: 0))
                order.append(connection)
            }
            var timeout: Int32 = 1000
            if let first = timers.first {
                let now = Self.now()
                timeout = first.due <= now ? 0 : Int32(min(1000, (first.due - now + 999_999) / 1_000_000))
            }
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready > 0 {
                if fds[0].revents != 0 { acceptAll() }
                for (index, connection) in order.enumerated() {
                    let events = fds[index + 2].revents
                    if events == 0 || connection.closed { continue }
                    if events & Int16(POLLIN | POLLHUP | POLLERR) != 0 { readAndHandle(connection) }
                    if !connection.closed, events & Int16(POLLOUT) != 0 { flush(connection) }
                }
            }
            fireDueTimers()
        }
        for connection in Array(connections.values) { drop(connection) }
        close(listener)
        close(wakeRead)
        close(wakeWrite)
        ended.store(true, ordering: .releasing)
        finished.signal()
    }

    // MARK: Connections

    private func acceptAll() {
        while true {
            let fd = lectern_accept_cloexec(listener)
            if fd < 0 { return }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            connections[fd] = Connection(fd: fd)
        }
    }

    private func readAndHandle(_ connection: Connection) {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                connection.input.append(contentsOf: chunk[..<count])
                if connection.input.count > 64 << 20 {
                    drop(connection)
                    return
                }
                if count < chunk.count { break }
            } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                drop(connection)
                return
            } else {
                break
            }
        }
        handleNextRequest(connection)
    }

    /// Takes the next complete request off the connection's input, unless one is being answered.
    private func handleNextRequest(_ connection: Connection) {
        guard connection.pending == nil, !connection.closed, let request = Self.parse(&connection.input) else { return }
        if request.headers["connection"]?.lowercased() == "close" { connection.closeAfterFlush = true }
        let (action, itemID) = shared.state.withLock { state -> (MockAction, String?) in
            state.serial += 1
            let route = request.path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.path
            if MockBatchStore.isBatchRoute(request.method, route) {
                let action = state.batches.handle(
                    request, route: route, answers: state.answers, stats: &state.stats, configuration: state.responder.configuration, now: elapsedSeconds())
                return (action, nil)
            }
            let result = state.responder.action(
                for: request, answers: state.answers, stats: &state.stats, serial: state.serial, now: elapsedSeconds())
            if state.responder.configuration.recordRequests, request.method == "POST", WireProtocol(path: request.path) != nil {
                let attempt = request.headers["x-lectern-attempt"].flatMap { Int($0) } ?? 1
                state.log.append(
                    MockRecordedRequest(
                        itemID: result.itemID ?? "-", attempt: attempt, path: request.path, body: request.body, receivedAt: elapsedSeconds()))
            }
            return result
        }
        switch action {
        case .respond(let status, let headers, let body, let delay, let billable):
            if billable || delay > 0 {
                connection.pending = (itemID, false)
                schedule(
                    Timer(
                        due: Self.due(afterMilliseconds: delay), connection: connection,
                        action: .send(status: status, headers: headers, body: body, billable: billable)))
            } else {
                // Model requests (those with an item) count as in flight until answered.
                if itemID != nil { shared.state.withLock { $0.stats.inFlight -= 1 } }
                write(status: status, headers: headers, body: body, to: connection)
                handleNextRequest(connection)
            }
        case .reset(let delay):
            connection.pending = (itemID, false)
            schedule(Timer(due: Self.due(afterMilliseconds: delay), connection: connection, action: .reset))
        case .hang(let seconds):
            connection.pending = (itemID, true)
            schedule(Timer(due: Self.due(afterMilliseconds: seconds * 1000), connection: connection, action: .reset))
        }
    }

    private func schedule(_ timer: Timer) {
        let index = timers.firstIndex { $0.due > timer.due } ?? timers.count
        timers.insert(timer, at: index)
    }

    private func fireDueTimers() {
        guard !timers.isEmpty else { return }
        let now = Self.now()
        var fired = 0
        for timer in timers {
            if timer.due > now { break }
            fired += 1
        }
        guard fired > 0 else { return }
        let due = timers.prefix(fired)
        timers.removeFirst(fired)
        for timer in due {
            let connection = timer.connection
            guard !connection.closed, let pending = connection.pending else { continue }
            connection.pending = nil
            switch timer.action {
            case .send(let status, let headers, let body, let billable):
                shared.state.withLock { state in
                    state.stats.inFlight -= 1
                    if billable {
                        state.stats.answered += 1
                        state.stats.lastAnswerAt = elapsedSeconds()
                        if let item = pending.item { state.stats.items[item, default: MockStats.ItemCounts()].answered += 1 }
                    }
                }
                write(status: status, headers: headers, body: body, to: connection)
                handleNextRequest(connection)
            case .reset:
                shared.state.withLock { $0.stats.inFlight -= 1 }
                var linger = linger(l_onoff: 1, l_linger: 0)
                setsockopt(connection.fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
                drop(connection)
            }
        }
    }

    private func write(status: Int, headers: [(String, String)], body: Data, to connection: Connection) {
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\n"
        head += connection.closeAfterFlush ? "Connection: close\r\n\r\n" : "Connection: keep-alive\r\n\r\n"
        connection.output.append(contentsOf: Array(head.utf8))
        connection.output.append(contentsOf: body)
        flush(connection)
    }

    private func flush(_ connection: Connection) {
        while connection.outputOffset < connection.output.count {
            let written = connection.output.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return send(connection.fd, base + connection.outputOffset, raw.count - connection.outputOffset, Int32(MSG_NOSIGNAL))
            }
            if written > 0 {
                connection.outputOffset += written
            } else if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                return
            } else {
                drop(connection)
                return
            }
        }
        connection.output.removeAll(keepingCapacity: true)
        connection.outputOffset = 0
        if connection.closeAfterFlush && connection.pending == nil { drop(connection) }
    }

    /// Closes a connection; a request still being answered there was abandoned by the client.
    private func drop(_ connection: Connection) {
        guard !connection.closed else { return }
        connection.closed = true
        if let pending = connection.pending {
            connection.pending = nil
            shared.state.withLock { state in
                state.stats.inFlight -= 1
                if !pending.hang {
                    state.stats.abandoned += 1
                    if let item = pending.item { state.stats.items[item, default: MockStats.ItemCounts()].abandoned += 1 }
                }
            }
        }
        connections[connection.fd] = nil
        close(connection.fd)
    }

    // MARK: HTTP parsing

    /// The first complete request in `input` (removed from it), or nil when more bytes are needed.
    static func parse(_ input: inout [UInt8]) -> MockHTTPRequest? {
        guard let headEnd = headEnd(input) else { return nil }
        let head = String(decoding: input[..<headEnd], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.isEmpty ? "" : lines.removeFirst()
        let parts = requestLine.split(separator: " ")
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = headers["content-length"].flatMap { Int($0) } ?? 0
        let end = headEnd + 4 + max(0, length)
        guard input.count >= end else { return nil }
        let body = Data(input[(headEnd + 4)..<end])
        input.removeFirst(end)
        return MockHTTPRequest(
            method: parts.count > 0 ? String(parts[0]) : "", path: parts.count > 1 ? String(parts[1]) : "/", headers: headers, body: body)
    }

    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        var index = 0
        while index + 3 < bytes.count {
            if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13, bytes[index + 3] == 10 { return index }
            index += 1
        }
        return nil
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }

    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    static func due(afterMilliseconds milliseconds: Double) -> UInt64 {
        now() + UInt64(max(0, milliseconds) * 1_000_000)
    }
}
