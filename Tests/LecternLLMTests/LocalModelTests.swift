import Foundation
import Synchronization
import Testing

@testable import LecternLLM

#if canImport(Glibc)
    import Glibc
#endif

/// The local provider's catalog, and the server lifecycle against a fake llama.cpp server (a
/// small Python script written to a temporary directory). No real model is needed; the one
/// test that uses it runs only with `LECTERN_REAL_MODEL=1`.
@Suite("Local model")
struct LocalModelTests {
    // MARK: Catalog

    @Test("the root follows LECTERN_HOME, then XDG_CACHE_HOME, then HOME")
    func rootDirectory() {
        #expect(LocalModelCatalog(environment: ["LECTERN_HOME": "/a", "XDG_CACHE_HOME": "/b", "HOME": "/c"]).root.path == "/a/local-model")
        #expect(LocalModelCatalog(environment: ["LECTERN_HOME": "", "XDG_CACHE_HOME": "/b", "HOME": "/c"]).root.path == "/b/lectern/local-model")
        #expect(LocalModelCatalog(environment: ["HOME": "/c"]).root.path == "/c/.cache/lectern/local-model")
        let catalog = LocalModelCatalog(root: URL(fileURLWithPath: "/r"))
        #expect(catalog.python.path == "/r/venv/bin/python")
        #expect(catalog.modelFile(for: .qwenCoder).path == "/r/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
        #expect(LocalModelCatalog.defaultModelName == "qwen2.5-coder-1.5b-instruct")
        #expect(LocalModelCatalog.knownModels.map(\.name) == ["qwen2.5-coder-1.5b-instruct", "smollm2-135m-instruct"])
    }

    @Test("status: nothing, a venv without the model, a short file, then a complete install")
    func status() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let model = LocalModel(name: "tiny", fileName: "tiny.gguf", byteCount: 8, sha256: "", firstInstallMinutes: 1, summary: "")
        let catalog = LocalModelCatalog(root: root, models: [model])

        var status = catalog.status(of: model)
        #expect(!status.isInstalled)
        #expect(status.problem == "the llama.cpp server is not installed")

        try FileManager.default.createDirectory(at: catalog.python.deletingLastPathComponent(), withIntermediateDirectories: true)
        // A link to `true`, not a written script: executing a file just written can fail with
        // ETXTBSY while a concurrent test's spawn briefly holds the write descriptor.
        try FileManager.default.createSymbolicLink(at: catalog.python, withDestinationURL: URL(fileURLWithPath: "/bin/true"))
        status = catalog.status(of: model)
        #expect(status.serverEnvironmentPresent)
        #expect(status.modelFileBytes == nil)
        #expect(status.problem?.contains("tiny.gguf is missing") == true)

        try FileManager.default.createDirectory(at: catalog.modelsDirectory, withIntermediateDirectories: true)
        try Data("1234".utf8).write(to: catalog.modelFile(for: model))
        status = catalog.status(of: model)
        #expect(status.problem?.contains("has 4 bytes, expected 8") == true)
        #expect(throws: LLMError.self) { try catalog.installedModel(named: "tiny") }

        try Data("12345678".utf8).write(to: catalog.modelFile(for: model))
        status = catalog.status(of: model, checkServerImport: true)  // the fake python (`true`) exits 0
        #expect(status.isInstalled)
        #expect(status.problem == nil)
        #expect(try catalog.installedModel(named: "tiny") == model)
    }

    @Test("a missing install or an unknown name is an error that says what to run")
    func missingInstall() throws {
        let home = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = ["LECTERN_HOME": home.path]
        do {
            _ = try LocalProviderFactory.make(
                model: "qwen2.5-coder-1.5b-instruct", maxConcurrency: 2, maxTokens: 1024, environment: environment,
                events: { _ in })
            Issue.record("expected an error")
        } catch let error as LLMError {
            #expect(error.kind == .invalidRequest)
            #expect(error.message.contains("the local model qwen2.5-coder-1.5b-instruct is not installed"))
            #expect(error.message.contains("lectern models install qwen2.5-coder-1.5b-instruct"))
            #expect(error.message.contains("scripts/install-local-model.sh"))
            #expect(error.message.contains("minutes the first time"))
        }
        do {
            _ = try LocalProviderFactory.make(
                model: "gpt-2", maxConcurrency: 1, maxTokens: 1024, environment: environment, events: { _ in })
            Issue.record("expected an error")
        } catch let error as LLMError {
            #expect(error.message.contains("unknown local model 'gpt-2'"))
            #expect(error.message.contains("smollm2-135m-instruct"))
        }
    }

    @Test("the context grows with the answer budget, within 8192…32768")
    func contextLength() {
        #expect(LocalProviderFactory.contextLength(maxTokens: 1024) == 8192)
        #expect(LocalProviderFactory.contextLength(maxTokens: 4096) == 12288)
        #expect(LocalProviderFactory.contextLength(maxTokens: 100_000) == 32768)
        let configuration = LocalProviderFactory.configuration(
            model: "m", maxConcurrency: 2, maxTokens: 2048, contextLength: 8192)
        #expect(configuration.schemaMode == .jsonObjectWithSchema)
        #expect(configuration.maxTokensCeiling == 6144)
        #expect(configuration.defaultMaxTokens == 2048)
        #expect(LocalProviderFactory.threadCount(environment: ["LECTERN_LOCAL_THREADS": "1"]) == 1)
        #expect(LocalProviderFactory.threadCount(environment: ["LECTERN_LOCAL_THREADS": "zero"]) >= 1)
    }

    // MARK: Server lifecycle (fake server)

    @Test(
        "starts on a free port, answers through the provider with the schema, stops on shutdown",
        FakeServer.needsPython)
    func lifecycle() async throws {
        let fake = try FakeServer()
        defer { fake.remove() }
        let server = fake.server()
        let lines = StatusLines()
        let provider = LocalModelProvider(
            modelName: "fake", server: server,
            configuration: LocalProviderFactory.configuration(model: "fake", maxConcurrency: 2, maxTokens: 64, contextLength: 8192),
            runtime: ProviderRuntime(), status: { lines.add($0) })
        #expect(server.processID == nil)  // nothing runs before the first request
        #expect(provider.kind == "local")
        #expect(provider.maxConcurrency == 2)

        let schema = ResponseSchema(name: "answer", schema: ["type": "object", "properties": ["text": ["type": "string"]]])
        async let first = provider.complete(
            LLMRequest(model: "fake", messages: [.user("one")], responseSchema: schema), context: RequestContext(itemID: "a", stage: "t"))
        async let second = provider.complete(
            LLMRequest(model: "fake", messages: [.user("two")]), context: RequestContext(itemID: "b", stage: "t"))
        let answers = try await [first, second]
        let pid = try #require(server.processID)
        #expect(isAlive(pid))
        #expect(lines.all.count == 2)  // one start for two concurrent requests
        let echoed = try JSONValue.parse(answers[0].content)
        #expect(echoed["said"] == "one")
        #expect(echoed["format"] == ["type": "json_object", "schema": schema.schema])
        #expect(echoed["max_tokens"] == 64)
        #expect(echoed["authorization"] == .null)  // no key is sent to the local server
        #expect(try JSONValue.parse(answers[1].content)["said"] == "two")
        #expect(answers[0].usage.completionTokens == 7)
        let base = try #require(server.baseURL)
        #expect(base.host == "127.0.0.1")

        await provider.shutdown()
        #expect(!isAlive(pid))
        #expect(server.processID == nil)
        await provider.shutdown()  // twice is fine
        await #expect(throws: LLMError.self) {
            try await provider.complete(LLMRequest(model: "fake", messages: [.user("late")]), context: RequestContext(itemID: "c", stage: "t"))
        }
    }

    @Test(
        "a server that exits during start-up fails with its log's tail; later requests fail at once",
        FakeServer.needsPython)
    func earlyExit() async throws {
        let fake = try FakeServer(environment: ["FAKE_MODE": "crash"])
        defer { fake.remove() }
        let server = fake.server()
        let provider = LocalModelProvider(
            modelName: "fake", server: server,
            configuration: LocalProviderFactory.configuration(model: "fake", maxConcurrency: 1, maxTokens: 64, contextLength: 8192),
            runtime: ProviderRuntime())
        let request = LLMRequest(model: "fake", messages: [.user("x")])
        do {
            _ = try await provider.complete(request, context: RequestContext(itemID: "a", stage: "t"))
            Issue.record("expected an error")
        } catch let error as LLMError {
            #expect(error.kind == .unavailable)
            #expect(error.message.contains("exited with status 3 before it was ready"))
            #expect(error.message.contains("cannot load model: boom"))
        }
        // At once: the failure is remembered, the server is not started again.
        let again = await #expect(throws: LLMError.self) { try await provider.complete(request, context: RequestContext(itemID: "b", stage: "t")) }
        #expect(again?.message.contains("exited with status 3 before it was ready") == true)
        #expect(fake.starts == 1)
    }

    @Test(
        "a server that never answers fails after the start-up timeout and is stopped",
        FakeServer.needsPython)
    func startupTimeout() async throws {
        let fake = try FakeServer(environment: ["FAKE_MODE": "silent"])
        defer { fake.remove() }
        let server = fake.server(startupTimeout: .milliseconds(600))
        let pid = PIDBox()
        let watcher = Task { while !Task.isCancelled { if let p = server.processID { pid.set(p) }; try? await Task.sleep(for: .milliseconds(20)) } }
        defer { watcher.cancel() }
        do {
            _ = try await server.start()
            Issue.record("expected an error")
        } catch let error as LLMError {
            #expect(error.kind == .unavailable)
            #expect(error.message.contains("did not answer"))
            #expect(error.message.contains("; the last: "), "\(error.message)")
        }
        let seen = try #require(pid.value)
        #expect(!isAlive(seen))
    }

    /// The start-up wait with a scripted clock and probe: a refusal asked before the deadline and
    /// read ten minutes later (a busy machine kept the task from a thread) is asked again, and a
    /// server that answers then is found; a failed probe asked after the deadline ends the wait.
    @Test("the start-up wait gives up only on a probe asked at or after its deadline")
    func startupProbing() async throws {
        let clock = ScriptedClock()
        var answers: [String?] = ["refused", nil]
        var pauses: [Duration] = []
        let probing = StartupProbing(timeout: .seconds(600), now: { clock.now })
        try await probing.run(
            step: {},
            probe: {
                let answer = answers.removeFirst()
                clock.advance(.seconds(700))  // read long after it was asked
                return answer
            },
            pause: { pauses.append($0) })
        #expect(answers.isEmpty)
        #expect(pauses == [.milliseconds(50)])

        answers = ["refused", "refused", "refused"]
        pauses = []
        do {
            try await probing.run(
                step: {}, probe: { answers.removeFirst() },
                pause: {
                    pauses.append($0)
                    clock.advance(.seconds(400))  // two pauses pass the deadline
                })
            Issue.record("expected the wait to give up")
        } catch let gaveUp as StartupProbing.GaveUp {
            #expect(gaveUp.probes == 3)  // the third was asked 800 s in
            #expect(gaveUp.waited == .seconds(800))
            #expect(gaveUp.last == "refused")
        }
        #expect(pauses == [.milliseconds(50), .milliseconds(100)])
    }

    @Test("cancelling the start stops the half-started server", FakeServer.needsPython)
    func cancelledStart() async throws {
        let fake = try FakeServer(environment: ["FAKE_STARTUP_DELAY": "3600"])
        defer { fake.remove() }
        let server = fake.server()
        let start = Task { try await server.start() }
        let pid = try await waitForProcess(server)
        #expect(isAlive(pid))
        start.cancel()
        let result = await start.result
        #expect(throws: LLMError.self) { try result.get() }
        if case .failure(let error as LLMError) = result { #expect(error.kind == .cancelled) }
        #expect(!isAlive(pid))
    }

    @Test("stop escalates to SIGKILL when SIGTERM is ignored", FakeServer.needsPython)
    func stopEscalates() async throws {
        let fake = try FakeServer(environment: ["FAKE_MODE": "ignore-term"])
        defer { fake.remove() }
        let server = fake.server(grace: .milliseconds(300))
        _ = try await server.start()
        let pid = try #require(server.processID)
        let clock = ContinuousClock()
        let began = clock.now
        await server.stop()
        #expect(clock.now - began >= .milliseconds(300))
        #expect(!isAlive(pid))
    }

    @Test(
        "when the owner dies (its end of the lifeline pipe closes) the server kills itself",
        FakeServer.needsPython)
    func ownerDeath() async throws {
        let fake = try FakeServer(environment: ["FAKE_MODE": "ignore-term"])
        defer { fake.remove() }
        let server = fake.server()
        _ = try await server.start()
        let pid = try #require(server.simulateOwnerDeathForTesting())
        // We are still its parent, so reap it here; the kernel does that for a dead owner.
        let deadline = ContinuousClock.now + .seconds(30)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            try #require(ContinuousClock.now < deadline, "the server outlived its owner")
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(status & 0x7f == SIGKILL)
        await server.stop()  // nothing left to do
    }

    @Test("a server dropped without stop() is killed by deinit", FakeServer.needsPython)
    func deinitKills() async throws {
        let fake = try FakeServer()
        defer { fake.remove() }
        var server: LocalModelServer? = fake.server()
        _ = try await server?.start()
        let pid = try #require(server?.processID)
        #expect(isAlive(pid))
        server = nil
        #expect(!isAlive(pid))
    }

    @Test("the server inherits none of Lectern's open files or sockets", FakeServer.needsPython)
    func noInheritedDescriptors() async throws {
        let fake = try FakeServer()
        defer { fake.remove() }
        // Open without close-on-exec, as libcurl's sockets and many libraries' files are.
        let marker = fake.directory.appendingPathComponent("held-open.txt")
        FileManager.default.createFile(atPath: marker.path, contents: Data("x".utf8))
        let file = open(marker.path, O_RDONLY)
        try #require(file >= 0)
        defer { close(file) }
        let socket = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        let server = fake.server()
        _ = try await server.start()  // dropped on a failure below: its deinit kills it
        let pid = try #require(server.processID)
        let targets = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")
        }
        #expect(!targets.isEmpty)
        #expect(!targets.contains(marker.path), "\(targets)")
        let ours = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(socket)")
        #expect(!targets.contains(ours), "\(targets)")
        await server.stop()
    }

    @Test("the argument vector runs the module behind the watchdog, on loopback")
    func argumentVector() {
        let server = LocalModelServer(
            command: LocalModelCatalog(root: URL(fileURLWithPath: "/r")).serverCommand(for: .qwenCoder, contextLength: 8192, threads: 2),
            displayName: "q", options: .init(logFile: URL(fileURLWithPath: "/tmp/x.log")), httpClient: CurlHTTPClient())
        let argv = server.argumentVector(port: 4242)
        #expect(argv.prefix(2) == ["/r/venv/bin/python", "-c"])
        #expect(argv[2].contains("os.killpg"))
        #expect(
            Array(argv[3...]) == [
                "module", "llama_cpp.server", "--model", "/r/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
                "--model_alias", "qwen2.5-coder-1.5b-instruct", "--n_ctx", "8192", "--n_threads", "2", "--n_threads_batch", "2",
                "--logits_all", "false", "--n_batch", "128", "--host", "127.0.0.1", "--port", "4242",
            ])
        // The real server gets the prefix pinning before it starts; a test double does not.
        #expect(argv[2].contains("_lectern_pin_prefix(llama_cpp.llama.Llama)"))
    }

    /// The patch's own Python, run against a stand-in for llama-cpp-python's `Llama` whose
    /// `generate` records how many kept tokens it was left to reuse (`n_tokens` on entry) and then
    /// keeps the prompt plus a few answer tokens, as the real one does.
    @Test("a request reuses only whole batches from token 0 of a prompt evaluated that way", FakeServer.needsPython)
    func prefixPinning() throws {
        let python = try #require(FakeServer.python)
        let driver = """

            class Llama:
                n_batch = 256
                def __init__(self):
                    self.n_tokens = 0
                    self.input_ids = [0] * 8192
                    self.seen = []
                def generate(self, tokens, *args, **kwargs):
                    "The stand-in's docstring."
                    self.seen.append(self.n_tokens)
                    answer = [9000 + i for i in range(7)]
                    kept = list(tokens) + answer
                    self.input_ids[:len(kept)] = kept
                    self.n_tokens = len(kept)
                    return iter(answer)

            _lectern_pin_prefix(Llama)
            llm = Llama()
            lecture = list(range(1, 701))
            for prompt in (
                lecture + [1001],           # first request: nothing to reuse
                lecture + [1002],           # shares 700 tokens: two whole batches (512)
                lecture[:600] + [1003],     # shares 600 tokens, the previous prompt's whole part is 512
                lecture[:600] + [1003],     # the same prompt again: its own whole part, 512
                lecture[:300] + [1004],     # shares 300 tokens: one batch
                [5] + lecture,              # shares nothing
                lecture[:200] + [1005],     # the previous prompt's whole batches did not start with these
            ):
                assert list(llm.generate(prompt, temp=0.2)) == [9000 + i for i in range(7)]
            print(llm.seen, Llama.generate.__doc__)
            """
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", LocalModelServer.prefixPinning + driver]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readAllRetryingInterrupts(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == "[0, 512, 512, 512, 256, 0, 0] The stand-in's docstring.")
    }

    // MARK: The real model (manual)

    /// `LECTERN_REAL_MODEL=1 [LECTERN_REAL_MODEL_NAME=qwen2.5-coder-1.5b-instruct] swift test --filter realModel`
    /// after `scripts/install-local-model.sh`: a schema-constrained answer and the speed, read
    /// from the server's log.
    @Test(
        "the installed real model answers with schema-valid JSON",
        .enabled(
            if: ProcessInfo.processInfo.environment["LECTERN_REAL_MODEL"] == "1",
            "needs the installed 1.1 GB local model (make model) and minutes of CPU; run with LECTERN_REAL_MODEL=1"))
    func realModel() async throws {
        let environment = ProcessInfo.processInfo.environment
        let name = environment["LECTERN_REAL_MODEL_NAME"] ?? LocalModel.smolLM2.name
        let provider = try LocalProviderFactory.make(
            model: name, maxConcurrency: 1, maxTokens: 400, environment: environment, events: { _ in },
            status: { print($0) })
        let schema = ResponseSchema(
            name: "lesson",
            schema: [
                "type": "object",
                "properties": [
                    "title": ["type": "string"], "minutes": ["type": "integer"],
                    "steps": ["type": "array", "items": ["type": "string"], "minItems": 3],
                ],
                "required": ["title", "minutes", "steps"],
            ])
        let request = LLMRequest(
            model: name,
            messages: [
                .system("You write short lesson plans for beginners as JSON."),
                .user("A lesson plan that teaches Python for loops: a title, the minutes it takes, and three steps of one short sentence each."),
            ], temperature: 0.2, maxTokens: 400, responseSchema: schema, seed: 1)
        do {
            try await provider.warmUp()
            let clock = ContinuousClock()
            let began = clock.now
            let response = try await provider.complete(request, context: RequestContext(itemID: "real", stage: "manual"))
            let elapsed = clock.now - began
            let log = (try? String(contentsOf: provider.server.options.logFile, encoding: .utf8)) ?? ""
            print("answer:", response.content)
            print("usage:", response.usage, "finish:", response.finishReason, "wall:", elapsed)
            for line in log.split(separator: "\n") where line.contains("eval time") || line.contains("load time") {
                print("server:", line)
            }
            let value = try JSONValue.parse(response.content)
            #expect(value["title"]?.stringValue != nil)
            #expect((value["steps"]?.arrayValue?.count ?? 0) >= 3)
        } catch {
            await provider.shutdown()
            throw error
        }
        let pid = provider.server.processID
        await provider.shutdown()
        if let pid { #expect(!isAlive(pid)) }
    }

    // MARK: Helpers

    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-local-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The spawned server's pid. The bound is generous: it only has to outlast a busy machine
    /// (the whole suite runs in parallel on 2 cores, and a starved task waited more than 60 s;
    /// see `FakeServer.server`).
    private func waitForProcess(_ server: LocalModelServer) async throws -> pid_t {
        // Generous: with the whole suite beside it on 2 cores, the starting task can wait many
        // minutes for a thread; looked at once more after the deadline for the same reason.
        let deadline = ContinuousClock.now + .seconds(3_600)
        while ContinuousClock.now < deadline {
            if let pid = server.processID { return pid }
            try await Task.sleep(for: .milliseconds(10))
        }
        if let pid = server.processID { return pid }
        throw LLMError(.unavailable, "the server did not spawn")
    }
}

/// `kill(pid, 0)` succeeds: the process exists (and is not yet reaped).
private func isAlive(_ pid: pid_t) -> Bool { kill(pid, 0) == 0 }

private final class StatusLines: Sendable {
    private let lines = MutexBox<[String]>([])
    func add(_ line: String) { lines.update { $0.append(line) } }
    var all: [String] { lines.value }
}

/// A clock a test moves by hand.
private final class ScriptedClock: Sendable {
    private let instant = MutexBox(ContinuousClock.now)
    var now: ContinuousClock.Instant { instant.value }
    func advance(_ duration: Duration) { instant.update { $0 += duration } }
}

private final class PIDBox: Sendable {
    private let box = MutexBox<pid_t?>(nil)
    func set(_ pid: pid_t) { box.update { $0 = pid } }
    var value: pid_t? { box.value }
}

private final class MutexBox<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func update(_ body: (inout Value) -> Void) { mutex.withLock { body(&$0) } }
    var value: Value { mutex.withLock { $0 } }
}

/// A stand-in for `python -m llama_cpp.server`: serves `/v1/models` and `/v1/chat/completions`
/// (echoing what it was asked) on the `--host` and `--port` it is given. `FAKE_MODE`: `crash`
/// (exit 3 at once with a message), `silent` (never listen), `ignore-term` (ignore SIGTERM);
/// `FAKE_STARTUP_DELAY` seconds before listening.
private struct FakeServer {
    /// The fake server is a Python script: without python3 these tests say why in the report
    /// instead of passing; in CI (CI set) they always run, so a missing python3 fails them.
    static let needsPython = Testing.ConditionTrait.enabled(
        if: python != nil || ProcessInfo.processInfo.environment["CI"] != nil,
        "needs python3 on the PATH for the fake llama.cpp server (make test installs python3-venv, which brings it)")

    static let python: URL? = {
        for candidate in ["/usr/bin/python3", "/usr/local/bin/python3"]
        where FileManager.default.isExecutableFile(atPath: candidate) {
            return URL(fileURLWithPath: candidate)
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/python3"
            if FileManager.default.isExecutableFile(atPath: candidate) { return URL(fileURLWithPath: candidate) }
        }
        return nil
    }()

    static let script = #"""
        import json, os, signal, sys, time
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        args = sys.argv[1:]
        def option(name):
            return args[args.index(name) + 1]
        mode = os.environ.get("FAKE_MODE", "")
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "starts"), "a") as starts:
            starts.write("started\n")
        if mode == "crash":
            print("fake llama.cpp: cannot load model: boom", file=sys.stderr)
            sys.exit(3)
        if mode == "ignore-term":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if mode == "silent":
            while True:
                time.sleep(1)
        time.sleep(float(os.environ.get("FAKE_STARTUP_DELAY", "0")))

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def reply(self, status, value):
                body = json.dumps(value).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def do_GET(self):
                if self.path == "/v1/models":
                    self.reply(200, {"object": "list", "data": [{"id": "fake", "object": "model"}]})
                else:
                    self.reply(404, {"error": {"message": "not found"}})
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                echo = {
                    "said": body["messages"][-1]["content"],
                    "format": body.get("response_format"),
                    "max_tokens": body.get("max_tokens"),
                    "authorization": self.headers.get("Authorization"),
                }
                self.reply(200, {
                    "id": "x", "object": "chat.completion", "model": body.get("model"),
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": json.dumps(echo)}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12},
                })
            def log_message(self, format, *values):
                print("fake: %.3f" % time.time(), format % values, file=sys.stderr)

        server = ThreadingHTTPServer((option("--host"), int(option("--port"))), Handler)
        print("fake: %.3f listening" % time.time(), file=sys.stderr)
        server.serve_forever()
        """#

    let directory: URL
    let environment: [String: String]

    init(environment: [String: String] = [:]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-fake-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(Self.script.utf8).write(to: directory.appendingPathComponent("fake_server.py"))
        self.environment = environment
    }

    /// A server for the fake script. The start-up bound is long because the whole suite shares
    /// one process: its hundreds of tests run at once on a cooperative pool of one thread per
    /// core, and under that load (2 cores) no probe of the start reached the fake server within
    /// 60 s (its log stayed empty). A server that starts returns at once; only a
    /// failure waits the bound out (the start-up timeout itself is tested with 600 ms).
    func server(startupTimeout: Duration = .seconds(600), grace: Duration = .seconds(2)) -> LocalModelServer {
        LocalModelServer(
            command: LocalServerCommand(
                python: Self.python ?? URL(fileURLWithPath: "/usr/bin/python3"),
                entry: .script(directory.appendingPathComponent("fake_server.py")),
                arguments: ["--model", "/nonexistent.gguf"], environment: environment),
            displayName: "fake",
            options: .init(
                logFile: directory.appendingPathComponent("server.log"), startupTimeout: startupTimeout,
                stopGracePeriod: grace, removeLogAfterCleanStop: false),
            httpClient: CurlHTTPClient())
    }

    /// How many times the script was started.
    var starts: Int {
        let text = (try? String(contentsOf: directory.appendingPathComponent("starts"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").count
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}
