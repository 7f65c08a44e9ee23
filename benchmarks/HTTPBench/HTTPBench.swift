import Foundation
import LecternLLM
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `lectern-bench-http`: the loopback server and the Lectern side of the HTTP benchmark.
///
///     lectern-bench-http serve [--port N] [--port-file PATH]
///     lectern-bench-http run --base-url http://127.0.0.1:PORT [--concurrency 64] [--duration 10]
///         [--latency-requests 1000] [--latency-concurrency 32] [--latency-ms 200]
///
/// `run` prints one JSON object per phase on standard output.
@main
struct HTTPBench {
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        guard let command = arguments.first else {
            printUsage()
            exit(2)
        }
        arguments.removeFirst()
        do {
            let options = try Options(arguments)
            switch command {
            case "serve": try serve(options)
            case "run": try await runClient(options)
            default:
                printUsage()
                exit(2)
            }
        } catch {
            FileHandle.standardError.write(Data("lectern-bench-http: \(error)\n".utf8))
            exit(1)
        }
    }

    static func printUsage() {
        FileHandle.standardError.write(
            Data(
                """
                usage: lectern-bench-http serve [--port N] [--port-file PATH]
                       lectern-bench-http run --base-url URL [--concurrency 64] [--duration 10]
                                              [--latency-requests 1000] [--latency-concurrency 32] [--latency-ms 200]

                """.utf8))
    }

    // MARK: Server

    static func serve(_ options: Options) throws {
        let server = try LoopbackHTTPServer(port: options.int("port", default: 0))
        if let path = options.string("port-file") {
            try String(server.port).write(toFile: path + ".tmp", atomically: true, encoding: .utf8)
            rename(path + ".tmp", path)
        }
        FileHandle.standardError.write(Data("serving on 127.0.0.1:\(server.port)\n".utf8))
        server.run(until: { false })  // ends when the process is signalled
    }

    // MARK: Client

    static func runClient(_ options: Options) async throws {
        guard let base = options.string("base-url").flatMap(URL.init(string:)) else {
            throw BenchError("--base-url http://127.0.0.1:PORT is required")
        }
        let concurrency = options.int("concurrency", default: 64)
        let duration = Double(options.int("duration", default: 10))
        let latencyRequests = options.int("latency-requests", default: 1000)
        let latencyConcurrency = options.int("latency-concurrency", default: 32)
        let latencyMilliseconds = options.int("latency-ms", default: 200)

        let client = CurlHTTPClient()
        let provider = try OpenAICompatibleProvider(
            configuration: ProviderConfiguration(
                kind: "openai", model: "bench-model", baseURL: base.appendingPathComponent("v1"),
                maxConcurrency: max(concurrency, latencyConcurrency)),
            environment: [:], runtime: ProviderRuntime(httpClient: client))
        let slowProvider = try OpenAICompatibleProvider(
            configuration: ProviderConfiguration(
                kind: "openai", model: "bench-model",
                baseURL: base.appendingPathComponent("delay/\(latencyMilliseconds)/v1"),
                maxConcurrency: max(concurrency, latencyConcurrency)),
            environment: [:], runtime: ProviderRuntime(httpClient: client))
        let request = benchRequest
        let context = RequestContext(itemID: "bench", stage: "bench")

        // Warm-up: connections, code paths.
        _ = try await measure(concurrency: concurrency, requests: 500) {
            _ = try await provider.complete(request, context: context)
        }

        let viaProvider = try await measure(concurrency: concurrency, seconds: duration) {
            let answer = try await provider.complete(request, context: context)
            guard answer.finishReason == .stop else { throw BenchError("unexpected answer") }
        }
        report("provider_throughput", concurrency: concurrency, viaProvider)

        // The same bytes the provider sends, straight through the HTTP client.
        let rawRequest = HTTPRequest(
            method: "POST", url: base.appendingPathComponent("v1/chat/completions"),
            headers: ["Content-Type": "application/json", "Accept": "application/json"],
            body: Data(
                JSONValue.object([
                    "model": "bench-model", "temperature": 0.2, "max_tokens": 64,
                    "messages": .array(request.messages.map { ["role": .string($0.role.rawValue), "content": .string($0.content)] }),
                ]).canonicalText.utf8))
        let viaHTTP = try await measure(concurrency: concurrency, seconds: duration) {
            let response = try await client.send(rawRequest)
            guard response.status == 200 else { throw BenchError("status \(response.status)") }
        }
        report("http_throughput", concurrency: concurrency, viaHTTP)

        let latency = try await measure(concurrency: latencyConcurrency, requests: latencyRequests) {
            _ = try await slowProvider.complete(request, context: context)
        }
        let ideal = Double(latencyRequests) / Double(latencyConcurrency) * Double(latencyMilliseconds) / 1000
        report(
            "latency_bound", concurrency: latencyConcurrency, latency,
            extra: ["ideal_seconds": ideal, "ratio_to_ideal": latency.seconds / ideal])
    }

    static let benchRequest = LLMRequest(
        model: "bench-model",
        messages: [
            .system("You are a patient teacher who writes short, friendly answers for beginners."),
            .user("Explain in two sentences what a variable is in Python, with an everyday analogy."),
        ],
        temperature: 0.2, maxTokens: 64)

    struct Measurement {
        var requests: Int
        var seconds: Double
        var cpuSeconds: Double
    }

    /// Runs `body` from `concurrency` tasks for `seconds`, or until `requests` calls are done.
    static func measure(
        concurrency: Int, seconds: Double? = nil, requests: Int? = nil,
        _ body: @escaping @Sendable () async throws -> Void
    ) async throws -> Measurement {
        let remaining = Counter(requests ?? Int.max)
        let start = ContinuousClock.now
        let deadline = seconds.map { start + .milliseconds(Int64($0 * 1000)) }
        let cpuBefore = cpuSeconds()
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var done = 0
                    while remaining.take() {
                        if let deadline, ContinuousClock.now >= deadline { break }
                        try await body()
                        done += 1
                    }
                    return done
                }
            }
            return try await group.reduce(0, +)
        }
        let elapsed = ContinuousClock.now - start
        return Measurement(
            requests: total, seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            cpuSeconds: cpuSeconds() - cpuBefore)
    }

    static func report(_ phase: String, concurrency: Int, _ m: Measurement, extra: [String: Double] = [:]) {
        var object: [String: JSONValue] = [
            "client": "lectern", "phase": .string(phase), "concurrency": .number(Double(concurrency)),
            "requests": .number(Double(m.requests)), "seconds": .number(round3(m.seconds)),
            "rps": .number(round3(Double(m.requests) / m.seconds)), "cpu_seconds": .number(round3(m.cpuSeconds)),
            "cpu_ms_per_request": .number(round3(m.cpuSeconds * 1000 / Double(max(1, m.requests)))),
        ]
        for (key, value) in extra { object[key] = .number(round3(value)) }
        FileHandle.standardOutput.write(Data((JSONValue.object(object).canonicalText + "\n").utf8))
    }

    static func round3(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
    }
}

/// Hands out a fixed number of turns to many tasks.
final class Counter: Sendable {
    private let value: Mutex<Int>
    init(_ value: Int) { self.value = Mutex(value) }

    func take() -> Bool {
        value.withLock { value in
            guard value > 0 else { return false }
            value -= 1
            return true
        }
    }
}

/// `--name value` pairs.
struct Options {
    private var values: [String: String] = [:]

    init(_ arguments: [String]) throws {
        var index = 0
        while index < arguments.count {
            let name = arguments[index]
            guard name.hasPrefix("--"), index + 1 < arguments.count else {
                throw BenchError("expected --name value, got '\(name)'")
            }
            values[String(name.dropFirst(2))] = arguments[index + 1]
            index += 2
        }
    }

    func string(_ name: String) -> String? { values[name] }

    func int(_ name: String, default fallback: Int) -> Int { values[name].flatMap(Int.init) ?? fallback }
}
