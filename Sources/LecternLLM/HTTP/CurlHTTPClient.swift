import CCurl
import Foundation
import Synchronization

/// An HTTP client over libcurl's multi interface, driven by one dedicated thread.
///
/// Every libcurl handle is created, configured and released on that thread; callers hand
/// requests over through a lock and a `curl_multi_wakeup`, and get their answer back through a
/// continuation. Connections (and DNS results) live in the multi handle's cache and are reused
/// across requests; HTTP/2 is negotiated over TLS where the server offers it, so requests to
/// one host share a connection. Cancelling the calling task removes the transfer from libcurl
/// at once and throws `CancellationError`.
///
/// One client serves any number of concurrent requests; make one per process (or per provider)
/// and share it.
public final class CurlHTTPClient: Sendable {
    /// Limits and defaults of a client.
    public struct Configuration: Sendable {
        /// Connect timeout for requests that do not set one.
        public var connectTimeout: Duration
        /// Total timeout for requests that do not set one.
        public var requestTimeout: Duration
        /// Idle connections kept open for reuse; 0 lets libcurl size the cache (four times the
        /// transfers in flight), which keeps every connection of a large burst reusable.
        public var maxCachedConnections: Int
        /// Connections open at once to one host; 0 means no limit. Requests beyond it wait
        /// inside libcurl for a free connection.
        public var maxConnectionsPerHost: Int
        /// Connections open at once in all; 0 means no limit.
        public var maxTotalConnections: Int
        /// The `User-Agent` header sent when a request has none.
        public var userAgent: String

        /// Creates a configuration; the defaults suit LLM APIs.
        public init(
            connectTimeout: Duration = .seconds(10), requestTimeout: Duration = .seconds(300),
            maxCachedConnections: Int = 0, maxConnectionsPerHost: Int = 0,
            maxTotalConnections: Int = 0, userAgent: String = "Lectern"
        ) {
            self.connectTimeout = connectTimeout
            self.requestTimeout = requestTimeout
            self.maxCachedConnections = maxCachedConnections
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.maxTotalConnections = maxTotalConnections
            self.userAgent = userAgent
        }
    }

    private let engine: CurlEngine

    /// Creates a client and starts its thread. The thread ends when the client is released.
    public init(configuration: Configuration = Configuration()) {
        engine = CurlEngine(configuration: configuration)
        let engine = self.engine
        let thread = Thread { engine.run() }
        thread.name = "lectern-curl"
        thread.start()
    }

    deinit {
        engine.stop()
    }

    /// Sends a request and returns the response, whatever its status.
    ///
    /// Throws ``HTTPClientError`` when no response arrived (connection failure, timeout) and
    /// `CancellationError` when the calling task was cancelled.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let transfer = CurlTransfer(request: request)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                engine.submit(transfer, continuation: continuation)
            }
        } onCancel: {
            engine.cancel(transfer)
        }
    }
}

/// Where a transfer is in its life; guarded by the transfer's own lock so that cancellation
/// (any thread) and submission/completion (the caller, the curl thread) agree.
private enum TransferPhase {
    case created
    case submitted
    case cancelledBeforeSubmission
    case finished
}

/// One request in flight.
///
/// `@unchecked Sendable` is safe because the mutable libcurl-side fields below the `phase`
/// lock are only read or written on the curl thread, after the transfer was handed to it
/// through the engine's mutex (which orders the hand-over); `request` is immutable.
private final class CurlTransfer: @unchecked Sendable {
    let request: HTTPRequest
    let phase = Mutex(TransferPhase.created)

    // Curl thread only.
    var continuation: CheckedContinuation<HTTPResponse, any Error>?
    var easy: UnsafeMutableRawPointer?
    var headerList: UnsafeMutablePointer<curl_slist>?
    var responseHeaders: [(name: String, value: String)] = []
    var responseBody = Data()
    /// The request's `onReceive` asked to stop.
    var stopped = false
    /// The body passed the request's `maxResponseBytes`.
    var tooLarge = false
    /// libcurl writes its error message here; it needs a stable address for the transfer's life.
    let errorBuffer: UnsafeMutablePointer<CChar>

    init(request: HTTPRequest) {
        self.request = request
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        errorBuffer.deallocate()
    }

    var target: String { request.url.redactedForMessages }
}

/// The state other threads share with the curl thread.
private struct EngineInbox {
    var submitted: [CurlTransfer] = []
    var cancelled: [CurlTransfer] = []
    var stopping = false
}

/// The multi handle and the loop that drives it.
///
/// `@unchecked Sendable` is safe because `multi`, `active` and `idleHandles` are used only on
/// the curl thread (inside `run()` and the functions it calls); other threads touch only
/// `inbox`, a `Mutex`, and call `curl_multi_wakeup`, which libcurl documents as callable from
/// any thread.
private final class CurlEngine: @unchecked Sendable {
    private let configuration: CurlHTTPClient.Configuration
    private let multi: UnsafeMutableRawPointer?
    private let inbox = Mutex(EngineInbox())

    // Curl thread only.
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private var idleHandles: [UnsafeMutableRawPointer] = []
    private let maxIdleHandles = 256

    init(configuration: CurlHTTPClient.Configuration) {
        _ = curlGlobalInit
        self.configuration = configuration
        multi = curl_multi_init()
        if let multi {
            if configuration.maxCachedConnections > 0 {
                _ = lectern_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, configuration.maxCachedConnections)
            }
            _ = lectern_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maxConnectionsPerHost)
            _ = lectern_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, configuration.maxTotalConnections)
            _ = lectern_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        }
    }

    // MARK: Any thread

    func submit(_ transfer: CurlTransfer, continuation: CheckedContinuation<HTTPResponse, any Error>) {
        guard multi != nil else {
            continuation.resume(
                throwing: HTTPClientError(
                    kind: .other, target: transfer.target,
                    detail: "libcurl could not create a multi handle (out of memory?)"))
            return
        }
        // The phase lock is held across the hand-over so that a cancellation which sees
        // `.submitted` is queued after the submission itself and cannot be lost.
        enum Outcome { case queued, cancelled, shutDown }
        let outcome = transfer.phase.withLock { phase -> Outcome in
            guard phase == .created else { return .cancelled }
            transfer.continuation = continuation
            let accepted = inbox.withLock { inbox -> Bool in
                guard !inbox.stopping else { return false }
                inbox.submitted.append(transfer)
                return true
            }
            guard accepted else {
                transfer.continuation = nil
                phase = .finished
                return .shutDown
            }
            phase = .submitted
            return .queued
        }
        switch outcome {
        case .queued:
            wake()
        case .cancelled:
            continuation.resume(throwing: CancellationError())
        case .shutDown:
            continuation.resume(
                throwing: HTTPClientError(kind: .shutDown, target: transfer.target, detail: "client shut down"))
        }
    }

    func cancel(_ transfer: CurlTransfer) {
        let mustAbort = transfer.phase.withLock { phase -> Bool in
            switch phase {
            case .created:
                phase = .cancelledBeforeSubmission
                return false
            case .submitted:
                return true
            case .cancelledBeforeSubmission, .finished:
                return false
            }
        }
        guard mustAbort else { return }
        inbox.withLock { $0.cancelled.append(transfer) }
        wake()
    }

    func stop() {
        inbox.withLock { $0.stopping = true }
        wake()
    }

    /// Interrupts `curl_multi_poll`. The multi handle is freed only in `deinit`, so it is valid
    /// for as long as anyone can call this.
    private func wake() {
        if let multi { curl_multi_wakeup(multi) }
    }

    deinit {
        if let multi { curl_multi_cleanup(multi) }
    }

    // MARK: Curl thread

    func run() {
        guard let multi else { return }
        while true {
            var submitted: [CurlTransfer] = []
            var cancelled: [CurlTransfer] = []
            let stopping = inbox.withLock { inbox in
                swap(&submitted, &inbox.submitted)
                swap(&cancelled, &inbox.cancelled)
                return inbox.stopping
            }
            for transfer in submitted { start(transfer, multi: multi) }
            for transfer in cancelled {
                guard let easy = transfer.easy, active[easy] != nil else { continue }
                finish(transfer, multi: multi, result: .failure(CancellationError()))
            }
            if stopping { break }

            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            collectFinished(multi: multi)
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        for transfer in Array(active.values) {
            finish(
                transfer, multi: multi,
                result: .failure(HTTPClientError(kind: .shutDown, target: transfer.target, detail: "client shut down")))
        }
        for easy in idleHandles { curl_easy_cleanup(easy) }
        idleHandles.removeAll()
    }

    private func start(_ transfer: CurlTransfer, multi: UnsafeMutableRawPointer) {
        guard let easy = idleHandles.popLast() ?? curl_easy_init() else {
            transfer.phase.withLock { $0 = .finished }
            transfer.continuation?.resume(
                throwing: HTTPClientError(kind: .other, target: transfer.target, detail: "curl_easy_init failed"))
            transfer.continuation = nil
            return
        }
        transfer.easy = easy
        if let failure = configure(easy, for: transfer) {
            recycle(easy, transfer: transfer)
            transfer.phase.withLock { $0 = .finished }
            transfer.continuation?.resume(throwing: failure)
            transfer.continuation = nil
            return
        }
        active[easy] = transfer
        let added = curl_multi_add_handle(multi, easy)
        if added != CURLM_OK {
            active[easy] = nil
            recycle(easy, transfer: transfer)
            transfer.phase.withLock { $0 = .finished }
            let detail = String(cString: curl_multi_strerror(added))
            transfer.continuation?.resume(throwing: HTTPClientError(kind: .other, target: transfer.target, detail: detail))
            transfer.continuation = nil
        }
    }

    /// Sets every option for one transfer; returns an error when the request cannot be sent.
    private func configure(_ easy: UnsafeMutableRawPointer, for transfer: CurlTransfer) -> HTTPClientError? {
        let request = transfer.request
        var code = CURLE_OK
        func set(_ option: CURLoption, _ value: Int) {
            let result = lectern_easy_setopt_long(easy, option, value)
            if code == CURLE_OK { code = result }
        }
        func set(_ option: CURLoption, _ value: String) {
            // libcurl copies string options (since 7.17), so the temporary C string may go.
            let result = value.withCString { lectern_easy_setopt_ptr(easy, option, $0) }
            if code == CURLE_OK { code = result }
        }

        set(CURLOPT_URL, request.url.absoluteString)
        set(CURLOPT_NOSIGNAL, 1)
        set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
        // Waiting to multiplex only makes sense where HTTP/2 can be negotiated (TLS); on plain
        // http:// it holds every new request until the first answer arrives.
        if request.url.scheme?.lowercased() == "https" { set(CURLOPT_PIPEWAIT, 1) }
        set(CURLOPT_TCP_KEEPALIVE, 1)
        // Never follow redirects: a 3xx is returned as it is, so request headers (the API key
        // among them) reach only the host the caller named (CredentialPolicy).
        set(CURLOPT_FOLLOWLOCATION, 0)
        set(CURLOPT_UNRESTRICTED_AUTH, 0)
        set(CURLOPT_ACCEPT_ENCODING, "")
        set(CURLOPT_USERAGENT, configuration.userAgent)
        set(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(request.connectTimeout ?? configuration.connectTimeout))
        set(CURLOPT_TIMEOUT_MS, Self.milliseconds(request.timeout ?? configuration.requestTimeout))
        if let idle = request.idleTimeout {
            set(CURLOPT_LOW_SPEED_LIMIT, 1)
            set(CURLOPT_LOW_SPEED_TIME, max(1, Self.milliseconds(idle) / 1000))
        }

        let method = request.method.uppercased()
        if let body = request.body {
            let sized = lectern_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            if code == CURLE_OK { code = sized }
            let copied = body.withUnsafeBytes { raw -> CURLcode in
                // COPYPOSTFIELDS copies the bytes now, so the buffer need not outlive this call;
                // an empty body still needs a valid pointer.
                guard let base = raw.baseAddress else { return lectern_easy_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, "") }
                return lectern_easy_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, base)
            }
            if code == CURLE_OK { code = copied }
            if method != "POST" { set(CURLOPT_CUSTOMREQUEST, method) }
        } else if method == "GET" {
            set(CURLOPT_HTTPGET, 1)
        } else if method == "HEAD" {
            set(CURLOPT_NOBODY, 1)
        } else {
            set(CURLOPT_CUSTOMREQUEST, method)
        }

        var list: UnsafeMutablePointer<curl_slist>?
        for field in request.headers {
            list = curl_slist_append(list, "\(field.name): \(field.value)")
        }
        // libcurl otherwise sends `Expect: 100-continue` for larger bodies and waits up to a
        // second for an interim answer many servers never send.
        list = curl_slist_append(list, "Expect:")
        transfer.headerList = list
        if let list {
            let result = lectern_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, list)
            if code == CURLE_OK { code = result }
        }

        let context = Unmanaged.passUnretained(transfer).toOpaque()
        _ = lectern_easy_setopt_write(easy, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            guard let data, let context else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
            let length = size * count
            if let limit = transfer.request.maxResponseBytes, transfer.responseBody.count + length > limit {
                transfer.tooLarge = true
                transfer.responseBody = Data()
                return 0
            }
            let keepGoing = data.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
                transfer.responseBody.append(bytes, count: length)
                guard let onReceive = transfer.request.onReceive else { return true }
                return onReceive(Data(UnsafeBufferPointer(start: bytes, count: length)))
            }
            // Fewer bytes than offered make libcurl end the transfer (CURLE_WRITE_ERROR).
            guard keepGoing else {
                transfer.stopped = true
                return 0
            }
            return length
        }
        _ = lectern_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, context)
        _ = lectern_easy_setopt_write(easy, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            guard let data, let context else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
            let length = size * count
            let line = data.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
                String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
            }
            transfer.receivedHeaderLine(line)
            return length
        }
        _ = lectern_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, context)
        transfer.errorBuffer[0] = 0
        _ = lectern_easy_setopt_ptr(easy, CURLOPT_ERRORBUFFER, transfer.errorBuffer)

        guard code == CURLE_OK else {
            return HTTPClientError(
                kind: .invalidRequest, target: transfer.target, curlCode: Int(code.rawValue),
                detail: String(cString: curl_easy_strerror(code)))
        }
        return nil
    }

    private func collectFinished(multi: UnsafeMutableRawPointer) {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                let transfer = active[easy]
            else { continue }
            let code = lectern_msg_result(message)
            if code == CURLE_OK || (code == CURLE_WRITE_ERROR && transfer.stopped) {
                var status = 0
                _ = lectern_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
                let response = HTTPResponse(
                    status: status, headers: HTTPHeaders(transfer.responseHeaders), body: transfer.responseBody, stopped: transfer.stopped)
                finish(transfer, multi: multi, result: .success(response))
            } else if code == CURLE_WRITE_ERROR && transfer.tooLarge {
                finish(
                    transfer, multi: multi,
                    result: .failure(
                        HTTPClientError(
                            kind: .responseTooLarge, target: transfer.target,
                            detail: "it is larger than \(transfer.request.maxResponseBytes ?? 0) bytes")))
            } else {
                finish(transfer, multi: multi, result: .failure(error(for: code, transfer: transfer)))
            }
        }
    }

    private func finish(_ transfer: CurlTransfer, multi: UnsafeMutableRawPointer, result: Result<HTTPResponse, any Error>) {
        if let easy = transfer.easy {
            active[easy] = nil
            curl_multi_remove_handle(multi, easy)
            recycle(easy, transfer: transfer)
        }
        transfer.phase.withLock { $0 = .finished }
        let continuation = transfer.continuation
        transfer.continuation = nil
        transfer.responseBody = Data()
        continuation?.resume(with: result)
    }

    /// Releases a transfer's libcurl resources and keeps the easy handle for the next request.
    private func recycle(_ easy: UnsafeMutableRawPointer, transfer: CurlTransfer) {
        if let list = transfer.headerList {
            curl_slist_free_all(list)
            transfer.headerList = nil
        }
        transfer.easy = nil
        if idleHandles.count < maxIdleHandles {
            curl_easy_reset(easy)
            idleHandles.append(easy)
        } else {
            curl_easy_cleanup(easy)
        }
    }

    private func error(for code: CURLcode, transfer: CurlTransfer) -> HTTPClientError {
        let buffered = String(cString: transfer.errorBuffer)
        let detail = buffered.isEmpty ? String(cString: curl_easy_strerror(code)) : buffered
        let kind: HTTPClientError.Kind
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            kind = .timedOut
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            kind = .connectionFailed
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE, CURLE_HTTP2,
            CURLE_HTTP2_STREAM, CURLE_WEIRD_SERVER_REPLY:
            kind = .connectionLost
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CACERT_BADFILE:
            kind = .tls
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            kind = .invalidRequest
        default:
            kind = .other
        }
        return HTTPClientError(kind: kind, target: transfer.target, curlCode: Int(code.rawValue), detail: detail)
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}

extension CurlTransfer {
    /// Records one header line; a status line starts a new response (after `100 Continue` or a
    /// redirect), so earlier fields are dropped.
    func receivedHeaderLine(_ line: String) {
        if line.hasPrefix("HTTP/") {
            responseHeaders.removeAll()
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces)
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { return }
        responseHeaders.append((name: name, value: value))
    }
}

/// libcurl's process-wide set-up, done once before the first handle (Swift runs a global's
/// initializer exactly once, thread-safely).
private let curlGlobalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_ALL))
