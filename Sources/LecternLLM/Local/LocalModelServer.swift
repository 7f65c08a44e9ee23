import CLecternSystem
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How to run a local OpenAI-compatible server: a Python interpreter and a module or script.
/// ``LocalModelServer`` adds `--host 127.0.0.1 --port N` to the arguments.
public struct LocalServerCommand: Sendable, Hashable {
    /// What Python runs.
    public enum Entry: Sendable, Hashable {
        /// `python -m NAME` (the real server: `llama_cpp.server`).
        case module(String)
        /// `python FILE` (test doubles).
        case script(URL)
    }

    /// The interpreter, e.g. `<venv>/bin/python`.
    public var python: URL
    public var entry: Entry
    /// Arguments before `--host` and `--port`.
    public var arguments: [String]
    /// Variables added to Lectern's own environment for the server.
    public var environment: [String: String]

    /// Creates a command.
    public init(python: URL, entry: Entry, arguments: [String] = [], environment: [String: String] = [:]) {
        self.python = python
        self.entry = entry
        self.arguments = arguments
        self.environment = environment
    }
}

/// A local model server process: started on a free loopback port, healthy once
/// `GET /v1/models` answers 200, and stopped with SIGTERM, then SIGKILL after a grace period.
///
/// No orphans: the server runs in its own process group (a Ctrl-C at the terminal does not
/// reach it; ``stop()`` signals the whole group). Its standard input is a pipe whose write end
/// only this process holds, and a watchdog thread inside the server's Python reads it: when
/// Lectern is gone for any reason — a normal exit without ``stop()``, a crash, SIGKILL — the
/// kernel closes that end, the read returns end-of-file, and the watchdog SIGKILLs the
/// server's process group. (`PR_SET_PDEATHSIG` was not used: it fires when the *thread* that
/// spawned the child exits, and Swift's concurrency threads come and go.) `deinit` kills a
/// server that is still running.
public final class LocalModelServer: Sendable {
    /// Timing of start and stop.
    public struct Options: Sendable {
        /// How long the server may take to answer `GET /v1/models` (it loads the model first).
        public var startupTimeout: Duration
        /// How long ``stop()`` waits after SIGTERM before SIGKILL.
        public var stopGracePeriod: Duration
        /// Where the server's standard output and error go; truncated at each start.
        public var logFile: URL
        /// How many times to start again on another port when the chosen one was taken meanwhile.
        public var portAttempts: Int
        /// Delete the log when a server that had become healthy is stopped (a failed start
        /// keeps it: the error names it).
        public var removeLogAfterCleanStop: Bool

        /// Creates options.
        public init(
            logFile: URL, startupTimeout: Duration = .seconds(180), stopGracePeriod: Duration = .seconds(3),
            portAttempts: Int = 3, removeLogAfterCleanStop: Bool = true
        ) {
            self.removeLogAfterCleanStop = removeLogAfterCleanStop
            self.logFile = logFile
            self.startupTimeout = startupTimeout
            self.stopGracePeriod = stopGracePeriod
            self.portAttempts = portAttempts
        }
    }

    /// A running server.
    private struct Running: Sendable {
        var pid: pid_t
        var port: Int
        /// The write end of the watchdog pipe (see the type's documentation).
        var lifeline: Int32
    }

    private enum Phase: Sendable {
        case idle
        case starting(Running)
        case ready(Running)
        /// The process exited by itself during start-up and was reaped.
        case exited
        case stopped
    }

    /// The command this server runs.
    public let command: LocalServerCommand
    public let options: Options
    /// A name for messages, e.g. the model name.
    public let displayName: String
    private let http: CurlHTTPClient
    private let phase = Mutex(Phase.idle)

    /// Creates a server; nothing runs until ``start()``.
    public init(command: LocalServerCommand, displayName: String, options: Options, httpClient: CurlHTTPClient) {
        self.command = command
        self.displayName = displayName
        self.options = options
        self.http = httpClient
    }

    deinit {
        // Nobody can await here: kill at once and reap, so no zombie and no orphan remain.
        let running: Running? = phase.withLock { phase in
            defer { phase = .stopped }
            switch phase {
            case .starting(let r), .ready(let r): return r
            case .idle, .exited, .stopped: return nil
            }
        }
        if let running {
            close(running.lifeline)
            kill(-running.pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(running.pid, &status, 0)
        }
    }

    /// The server's process ID while it runs (also during start-up).
    public var processID: pid_t? {
        phase.withLock { phase in
            switch phase {
            case .starting(let r), .ready(let r): return r.pid
            case .idle, .exited, .stopped: return nil
            }
        }
    }

    /// `http://127.0.0.1:PORT/v1` once healthy.
    public var baseURL: URL? {
        phase.withLock { phase in
            if case .ready(let r) = phase { return Self.baseURL(port: r.port) }
            return nil
        }
    }

    private static func baseURL(port: Int) -> URL {
        URL(string: "http://127.0.0.1:\(port)/v1") ?? URL(fileURLWithPath: "/")  // always a valid URL
    }

    /// Starts the server and waits until it answers; returns its `/v1` base URL. Cancelling the
    /// calling task stops the half-started server and throws ``LLMError`` (`.cancelled`).
    /// Throws ``LLMError`` (`.unavailable`) with the tail of the server's log when it exits
    /// early or does not answer in time. Call it once.
    public func start() async throws -> URL {
        var attempt = 1
        while true {
            let port = try Self.freeLoopbackPort()
            let running = try spawn(port: port)
            let claimed = phase.withLock { phase -> Bool in
                guard case .idle = phase else { return false }
                phase = .starting(running)
                return true
            }
            guard claimed else {
                Self.terminate(running)
                throw LLMError(.cancelled, "the local model server (\(displayName)) was stopped before it started")
            }
            do {
                try await waitUntilHealthy(running)
                let ready = phase.withLock { phase -> Bool in
                    guard case .starting = phase else { return false }
                    phase = .ready(running)
                    return true
                }
                guard ready else {
                    throw LLMError(.cancelled, "the local model server (\(displayName)) was stopped while starting")
                }
                return Self.baseURL(port: port)
            } catch let failure as PortTaken {
                // Try another port unless attempts are used up or someone called `stop()`.
                let retry = phase.withLock { phase -> Bool in
                    guard case .exited = phase, attempt < options.portAttempts else { return false }
                    phase = .idle
                    return true
                }
                guard retry else { throw failure.error }
                attempt += 1
            } catch {
                await stop()
                throw error
            }
        }
    }

    /// Stops the server: SIGTERM to its process group, SIGKILL after the grace period, and the
    /// process reaped. Safe to call more than once, and before or during ``start()``.
    public func stop() async {
        let (running, wasReady): (Running?, Bool) = phase.withLock { phase in
            defer { phase = .stopped }
            switch phase {
            case .starting(let r): return (r, false)
            case .ready(let r): return (r, true)
            case .idle, .exited, .stopped: return (nil, false)
            }
        }
        guard let running else { return }
        defer { if wasReady && options.removeLogAfterCleanStop { try? FileManager.default.removeItem(at: options.logFile) } }
        kill(-running.pid, SIGTERM)
        let deadline = ContinuousClock.now + options.stopGracePeriod
        while Self.reap(running.pid) == nil {
            if ContinuousClock.now >= deadline {
                kill(-running.pid, SIGKILL)
                var status: Int32 = 0
                _ = waitpid(running.pid, &status, 0)
                break
            }
            // A stop that runs because of cancellation must still wait for the process, and
            // `Task.sleep` returns at once in a cancelled task.
            if Task.isCancelled {
                usleep(20_000)
            } else {
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        // Anything the server itself started goes with it.
        kill(-running.pid, SIGKILL)
        close(running.lifeline)
    }

    /// Tests: closes the watchdog pipe as the kernel does when Lectern dies, leaving the rest
    /// to the server's watchdog. Returns the process ID so the test can reap it.
    func simulateOwnerDeathForTesting() -> pid_t? {
        phase.withLock { phase in
            defer { phase = .stopped }
            switch phase {
            case .starting(let r), .ready(let r):
                close(r.lifeline)
                return r.pid
            case .idle, .exited, .stopped: return nil
            }
        }
    }

    // MARK: Start-up

    /// The child exited because its port was taken between our probe and its bind.
    private struct PortTaken: Error {
        var error: LLMError
    }

    private func waitUntilHealthy(_ running: Running) async throws {
        let probe = HTTPRequest(
            method: "GET", url: Self.baseURL(port: running.port).appendingPathComponent("models"),
            connectTimeout: .seconds(1), timeout: .seconds(5))
        do {
            try await StartupProbing(timeout: options.startupTimeout).run(
                step: {
                    if let status = Self.reap(running.pid) {
                        // Reaped: make sure `stop()` does not signal a process group that no longer exists.
                        let stoppedMeanwhile = phase.withLock { phase -> Bool in
                            guard case .starting = phase else { return true }
                            phase = .exited
                            return false
                        }
                        if stoppedMeanwhile {
                            throw LLMError(.cancelled, "the local model server (\(displayName)) was stopped while starting")
                        }
                        close(running.lifeline)
                        let log = logTail()
                        let error = LLMError(
                            .unavailable,
                            "the local model server (\(displayName)) \(status) before it was ready. "
                                + "Last lines of its log \(options.logFile.path):\n\(log)\n"
                                + "Check the install with 'lectern models', or reinstall with 'lectern models install'.")
                        if log.localizedCaseInsensitiveContains("address already in use") { throw PortTaken(error: error) }
                        throw error
                    }
                    if Task.isCancelled {
                        throw LLMError(.cancelled, "the start of the local model server (\(displayName)) was cancelled")
                    }
                },
                probe: {
                    do {
                        let response = try await http.send(probe)
                        return response.status == 200 ? nil : "HTTP \(response.status)"
                    } catch {
                        return "\(error)"
                    }
                },
                pause: { duration in
                    do {
                        try await Task.sleep(for: duration)
                    } catch {
                        throw LLMError(.cancelled, "the start of the local model server (\(displayName)) was cancelled")
                    }
                })
        } catch let gaveUp as StartupProbing.GaveUp {
            throw LLMError(
                .unavailable,
                "the local model server (\(displayName)) did not answer on 127.0.0.1:\(running.port) within "
                    + "\(options.startupTimeout) (asked \(gaveUp.probes) times in \(gaveUp.waited.components.seconds) s; the last: \(gaveUp.last)). "
                    + "Last lines of its log \(options.logFile.path):\n\(logTail())\n"
                    + "A slow disk or a busy machine can cause this; try again, or check 'lectern models'.")
        }
    }

    /// The last lines of the server's log.
    private func logTail(lines: Int = 25) -> String {
        guard let data = try? Data(contentsOf: options.logFile) else { return "    (no log)" }
        let text = String(decoding: data.suffix(16_384), as: UTF8.self)
        let tail = text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines + 1)
        let body = tail.map { "    " + $0 }.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        return body.isEmpty ? "    (empty log)" : "    " + body
    }

    /// A port on 127.0.0.1 that was free a moment ago (bound to port 0 and released).
    static func freeLoopbackPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw posixFailure("cannot create a socket to find a free port") }
        defer { close(fd) }
        switch LoopbackSocket.bindEphemeral(fd) {
        case .success(let port): return port
        case .failure(let step): throw posixFailure("cannot \(step) to find a free port")
        }
    }

    private static func posixFailure(_ what: String) -> LLMError {
        LLMError(.unavailable, "\(what): \(String(cString: strerror(errno))). The local model server needs the loopback interface.")
    }

    // MARK: Processes

    /// Python that makes llama-cpp-python's answers independent of the requests before them.
    ///
    /// llama-cpp-python keeps the previous request's tokens and reuses the longest prefix the next
    /// prompt shares with them. The reused part was computed in other batches than a fresh
    /// evaluation of the prompt would use (the previous prompt's suffix started elsewhere), and a
    /// batch of other bounds gives other floating-point sums: the same request, seed and all, could
    /// get another answer after another request, so a run's answers depended on the order in which
    /// concurrent requests reached the server. With this patch a request reuses only whole batches
    /// counted from the first token (`n_batch` tokens each) of a prompt that was itself evaluated
    /// that way, which a fresh evaluation computes with the same bounds: the same values, bit for
    /// bit, so the answer is a function of the request alone. It costs less than one batch of
    /// prompt reading a request. `_lectern_pin_prefix(cls)` patches `cls.generate`.
    static let prefixPinning = """
        def _lectern_pin_prefix(cls):
            original = cls.generate
            def generate(self, tokens, *args, **kwargs):
                tokens = list(tokens)
                block = max(1, int(getattr(self, "n_batch", 512) or 512))
                # Positions [0, whole) of the kept tokens were evaluated in whole batches from 0.
                whole = getattr(self, "_lectern_whole", 0)
                limit = min(int(self.n_tokens), whole, len(tokens) - 1)
                ids = self.input_ids
                common = 0
                while common < limit and ids[common] == tokens[common]:
                    common += 1
                keep = common // block * block
                if keep < self.n_tokens:
                    self.n_tokens = keep
                    self._requires_eval = True
                self._lectern_whole = len(tokens) // block * block
                return original(self, tokens, *args, **kwargs)
            generate.__doc__ = original.__doc__
            cls.generate = generate
        """

    /// The Python run with `-c`: starts the watchdog thread, then runs the module or script in
    /// the same process (so the thread lives as long as the server). The real server
    /// (`llama_cpp.server`) gets ``prefixPinning`` first.
    static let watchdogBootstrap =
        prefixPinning + "\n" + """
            import os, runpy, signal, sys, threading
            def _lectern_watchdog():
                # stdin is a pipe whose write end only Lectern holds: end-of-file means Lectern is gone.
                try:
                    while os.read(0, 4096):
                        pass
                except OSError:
                    pass
                os.killpg(os.getpgrp(), signal.SIGKILL)
            threading.Thread(target=_lectern_watchdog, name="lectern-watchdog", daemon=True).start()
            _kind, _target = sys.argv[1], sys.argv[2]
            sys.argv = [_target] + sys.argv[3:]
            if _kind == "module":
                if _target == "llama_cpp.server":
                    import llama_cpp.llama
                    _lectern_pin_prefix(llama_cpp.llama.Llama)
                runpy.run_module(_target, run_name="__main__", alter_sys=True)
            else:
                runpy.run_path(_target, run_name="__main__")
            """

    /// The full argument vector for `port`.
    func argumentVector(port: Int) -> [String] {
        let entry: [String]
        switch command.entry {
        case .module(let name): entry = ["module", name]
        case .script(let file): entry = ["script", file.path]
        }
        return [command.python.path, "-c", Self.watchdogBootstrap] + entry + command.arguments
            + ["--host", "127.0.0.1", "--port", String(port)]
    }

    private func spawn(port: Int) throws -> Running {
        guard FileManager.default.isExecutableFile(atPath: command.python.path) else {
            throw LLMError(
                .invalidRequest,
                "cannot start the local model server (\(displayName)): \(command.python.path) is missing or not "
                    + "executable. Run 'lectern models install' (or scripts/install-local-model.sh).")
        }
        try? FileManager.default.createDirectory(
            at: options.logFile.deletingLastPathComponent(), withIntermediateDirectories: true)

        let (readEnd, writeEnd) = try Self.makeLifelinePipe()
        defer { close(readEnd) }  // the child has its own copy as fd 0

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, readEnd, 0)
        posix_spawn_file_actions_addopen(&actions, 1, options.logFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        Self.closeInheritedDescriptors(&actions)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Own process group; default dispositions and an empty mask, whatever Lectern set up
        // for its own Ctrl-C handling.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        posix_spawnattr_setpgroup(&attributes, 0)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)

        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONUNBUFFERED"] = "1"
        for (key, value) in command.environment { environment[key] = value }

        let argv = argumentVector(port: port).map { strdup($0) }
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") }
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = (argv + [nil]).withUnsafeBufferPointer { argvBuffer in
            (envp + [nil]).withUnsafeBufferPointer { envpBuffer in
                guard let argvBase = argvBuffer.baseAddress, let envpBase = envpBuffer.baseAddress else { return EINVAL }
                return posix_spawn(&pid, command.python.path, &actions, &attributes, argvBase, envpBase)
            }
        }
        guard result == 0 else {
            close(writeEnd)
            throw LLMError(
                .unavailable,
                "cannot start the local model server (\(displayName)) with \(command.python.path): "
                    + "\(String(cString: strerror(result))). Reinstall with 'lectern models install'.")
        }
        return Running(pid: pid, port: port, lifeline: writeEnd)
    }

    /// Reaps `pid` if it has exited; returns how it ended, or `nil` while it runs.
    private static func reap(_ pid: pid_t) -> String? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == 0 { return nil }
        if result < 0 { return errno == ECHILD ? "is gone" : nil }
        let signal = status & 0x7f
        return signal == 0 ? "exited with status \((status >> 8) & 0xff)" : "was killed by signal \(signal)"
    }

    private static func terminate(_ running: Running) {
        close(running.lifeline)
        kill(-running.pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(running.pid, &status, 0)
    }

    /// Makes the child close every descriptor above standard error: it lives as long as the run,
    /// and a copy of a socket or file Lectern had open at the spawn (an HTTP connection, the
    /// exchange cache, a bundle being written) would otherwise stay open in it, so that, for
    /// one, a connection Lectern closed would not end for its peer.
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        if withUnsafeMutablePointer(to: &actions, { lectern_spawn_close_from($0, 3) }) == 0 { return }
        // No closefrom action (glibc before 2.34): close what is open now. The child ignores a
        // descriptor closed meanwhile; one opened meanwhile without close-on-exec may leak.
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap({ Int32($0) }) where fd > 2 {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
    }

    /// A connected pair of Unix sockets (a pipe, for this purpose) whose ends close on exec,
    /// created atomically so that no other child of Lectern can inherit the write end (which
    /// would keep the server alive after Lectern died). `pipe2` would do, but Swift's Glibc
    /// module does not export it; `SOCK_CLOEXEC` it does.
    private static func makeLifelinePipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        #if os(Linux)
            let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
            let type = SOCK_STREAM
        #endif
        guard socketpair(AF_UNIX, type, 0, &fds) == 0 else { throw posixFailure("cannot create the server's watchdog pipe") }
        #if !os(Linux)
            _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        #endif
        return (fds[0], fds[1])
    }
}

/// The start-up wait's rule, apart from processes and sockets: probe, pause (from 50 ms, doubling
/// to 500 ms), and give up only when a probe asked at or after the deadline failed.
///
/// The waiting task can be kept from a thread for minutes on a busy machine (in the test suite,
/// long synchronous tests held both threads of a 2-core machine's pool for ten minutes), during a
/// pause or while a probe's answer waits to be read. A refusal asked before the deadline and read
/// after it says nothing of the server now, so the server is asked again: a server that came up
/// meanwhile is found, and one that did not is given up on after one more probe.
struct StartupProbing {
    struct GaveUp: Error {
        /// Probes asked, the time since the first, and what the last one got.
        var probes: Int
        var waited: Duration
        var last: String
    }

    var timeout: Duration
    var now: @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }

    /// `step` runs before each probe (it may throw to stop the wait); `probe` returns nil when the
    /// server answered, else what it got; `pause` waits between probes. Throws ``GaveUp``.
    func run(step: () throws -> Void, probe: () async -> String?, pause: (Duration) async throws -> Void) async throws {
        let started = now()
        let deadline = started + timeout
        var delay = Duration.milliseconds(50)
        var probes = 0
        while true {
            try step()
            let asked = now()
            probes += 1
            guard let failure = await probe() else { return }
            if asked >= deadline { throw GaveUp(probes: probes, waited: now() - started, last: failure) }
            try await pause(delay)
            delay = min(delay * 2, .milliseconds(500))
        }
    }
}

/// Binding a socket to 127.0.0.1 on a port the system picks.
enum LoopbackSocket {
    /// Binds `fd` to 127.0.0.1, port 0, and reads the port it got; on failure, the step that
    /// failed (errno is left as it set it).
    static func bindEphemeral(_ fd: Int32) -> Result<Int, BindStep> {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { return .failure(.bind) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { return .failure(.name) }
        return .success(Int(UInt16(bigEndian: address.sin_port)))
    }

    enum BindStep: Error, CustomStringConvertible {
        case bind, name
        var description: String { self == .bind ? "bind 127.0.0.1" : "read the port bound on 127.0.0.1" }
    }
}
