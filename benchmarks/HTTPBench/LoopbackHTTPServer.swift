import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A single-threaded, non-blocking HTTP/1.1 keep-alive server over `poll(2)`, fast enough not
/// to be the bottleneck of the client benchmark. Every request gets the same Chat Completions
/// answer; a path starting with `/delay/<ms>/` is answered after that many milliseconds (without
/// blocking other connections).
final class LoopbackHTTPServer {
    private final class Connection {
        let fd: Int32
        let id: Int
        var input: [UInt8] = []
        var output: [UInt8] = []
        var outputOffset = 0
        var closed = false

        init(fd: Int32, id: Int) {
            self.fd = fd
            self.id = id
        }
    }

    private let listener: Int32
    let port: Int
    private var connections: [Int32: Connection] = [:]
    private var nextID = 0
    /// Delayed answers, sorted by due time (monotonic nanoseconds).
    private var delayed: [(due: UInt64, connection: Connection)] = []
    private let response: [UInt8]
    private(set) var served = 0

    init(port requested: Int = 0) throws {
        let body =
            #"{"id":"chatcmpl-bench","object":"chat.completion","created":1700000000,"model":"bench-model","choices":[{"index":0,"message":{"role":"assistant","content":"Hello! This is a benchmark answer.","refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":21,"completion_tokens":9,"total_tokens":30,"prompt_tokens_details":{"cached_tokens":0}}}"#
        let head =
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Connection: keep-alive\r\n\r\n"
        response = Array((head + body).utf8)

        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket() failed: errno \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(requested).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 1024) == 0 else {
            close(fd)
            throw BenchError("bind/listen on 127.0.0.1:\(requested) failed: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Serves until `shouldStop` returns true (checked at least every 100 ms).
    func run(until shouldStop: () -> Bool) {
        var fds: [pollfd] = []
        var order: [Connection] = []
        while !shouldStop() {
            fds.removeAll(keepingCapacity: true)
            order.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0))
            for connection in connections.values {
                let wantsWrite = connection.outputOffset < connection.output.count
                fds.append(pollfd(fd: connection.fd, events: Int16(POLLIN) | (wantsWrite ? Int16(POLLOUT) : 0), revents: 0))
                order.append(connection)
            }
            var timeout: Int32 = 100
            if let first = delayed.first {
                let now = Self.monotonicNanoseconds()
                timeout = first.due <= now ? 0 : Int32(min(100, (first.due - now + 999_999) / 1_000_000))
            }
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready > 0 {
                if fds[0].revents != 0 { acceptAll() }
                for (index, connection) in order.enumerated() {
                    let events = fds[index + 1].revents
                    if events == 0 { continue }
                    if events & Int16(POLLIN | POLLHUP | POLLERR) != 0 { readAndHandle(connection) }
                    if !connection.closed, events & Int16(POLLOUT) != 0 { flush(connection) }
                }
            }
            fireDueResponses()
        }
        for connection in connections.values { close(connection.fd) }
        close(listener)
    }

    private func acceptAll() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 { return }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            nextID += 1
            connections[fd] = Connection(fd: fd, id: nextID)
        }
    }

    private func readAndHandle(_ connection: Connection) {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                connection.input.append(contentsOf: chunk[..<count])
                if count < chunk.count { break }
            } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) {
                drop(connection)
                return
            } else {
                break
            }
        }
        handleRequests(connection)
        flush(connection)
    }

    /// Answers (or schedules answers to) every complete request in the input buffer.
    private func handleRequests(_ connection: Connection) {
        var consumed = 0
        let input = connection.input
        while let headEnd = Self.headEnd(input, from: consumed) {
            let contentLength = Self.contentLength(input, from: consumed, to: headEnd)
            let requestEnd = headEnd + 4 + contentLength
            guard requestEnd <= input.count else { break }
            let delay = Self.delayMilliseconds(input, from: consumed)
            if delay > 0 {
                let due = Self.monotonicNanoseconds() + UInt64(delay) * 1_000_000
                let index = delayed.firstIndex { $0.due > due } ?? delayed.count
                delayed.insert((due, connection), at: index)
            } else {
                connection.output.append(contentsOf: response)
                served += 1
            }
            consumed = requestEnd
        }
        if consumed > 0 { connection.input.removeFirst(consumed) }
    }

    private func fireDueResponses() {
        guard !delayed.isEmpty else { return }
        let now = Self.monotonicNanoseconds()
        var fired = 0
        var touched: [Connection] = []
        for entry in delayed {
            if entry.due > now { break }
            fired += 1
            guard !entry.connection.closed else { continue }
            entry.connection.output.append(contentsOf: response)
            served += 1
            touched.append(entry.connection)
        }
        delayed.removeFirst(fired)
        for connection in touched where !connection.closed { flush(connection) }
    }

    private func flush(_ connection: Connection) {
        while connection.outputOffset < connection.output.count {
            let written = connection.output.withUnsafeBytes { raw in
                send(connection.fd, raw.baseAddress! + connection.outputOffset, raw.count - connection.outputOffset, Int32(MSG_NOSIGNAL))
            }
            if written > 0 {
                connection.outputOffset += written
            } else if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                return
            } else {
                drop(connection)
                return
            }
        }
        connection.output.removeAll(keepingCapacity: true)
        connection.outputOffset = 0
    }

    private func drop(_ connection: Connection) {
        guard !connection.closed else { return }
        connection.closed = true
        connections[connection.fd] = nil
        close(connection.fd)
    }

    // MARK: Parsing

    private static func headEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= start + 4 else { return nil }
        var index = start
        while index + 3 < bytes.count {
            if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13, bytes[index + 3] == 10 { return index }
            index += 1
        }
        return nil
    }

    /// The Content-Length of the head in `bytes[start..<end]` (0 when absent).
    private static func contentLength(_ bytes: [UInt8], from start: Int, to end: Int) -> Int {
        let name = Array("content-length:".utf8)
        var lineStart = start
        while lineStart < end {
            var lineEnd = lineStart
            while lineEnd < end, bytes[lineEnd] != 13 { lineEnd += 1 }
            if lineEnd - lineStart > name.count {
                var matches = true
                for offset in 0..<name.count where bytes[lineStart + offset] | 0x20 != name[offset] | 0x20 {
                    matches = false
                    break
                }
                if matches {
                    var value = 0
                    for byte in bytes[(lineStart + name.count)..<lineEnd] where byte >= 48 && byte <= 57 {
                        value = value * 10 + Int(byte - 48)
                    }
                    return value
                }
            }
            lineStart = lineEnd + 2
        }
        return 0
    }

    /// The `<ms>` of a request line `POST /delay/<ms>/… HTTP/1.1`, else 0.
    private static func delayMilliseconds(_ bytes: [UInt8], from start: Int) -> Int {
        let prefix = Array(" /delay/".utf8)
        var index = start
        while index < bytes.count, bytes[index] != 32 { index += 1 }
        guard index + prefix.count < bytes.count, Array(bytes[index..<(index + prefix.count)]) == prefix else { return 0 }
        index += prefix.count
        var value = 0
        while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
            value = value * 10 + Int(bytes[index] - 48)
            index += 1
        }
        return value
    }

    static func monotonicNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
