import Foundation
import LecternMockLLM

#if canImport(Glibc)
    import Glibc
#endif

/// `lectern-mock-llm`: the mock LLM server as a process, for benchmarks, peers and manual tests.
/// Serves until SIGINT or SIGTERM, then writes its counters (the `GET /__stats` JSON) to
/// `--stats-file` and a summary to standard error.
let usage = """
    usage: lectern-mock-llm --cassette FILE [--cassette FILE …] [--port N] [--port-file PATH]
             [--latency fixed:MS | uniform:MIN-MAX | lognormal:MEDIAN,SIGMA]   (default fixed:0)
             [--error-latency DIST]    latency of 429/500/503/reset answers (default fixed:5)
             [--faults all=P | KIND=P,…] kinds: 429 500 503 reset hang truncated invalid_json wrong_content cut_stream (streamed requests)
             [--retry-after SECONDS] [--hang-seconds SECONDS] [--seed N]
             [--require-key-env VAR]   answer 401 unless the client sends the key in $VAR
             [--revoke-after N]        answer 401 to every model request after the first N
             [--record-requests FILE]  write every model request as JSONL at exit (for peers)
             [--stats-file PATH]
    Listens on 127.0.0.1 only. Endpoints: POST …/chat/completions (OpenAI), POST …/messages
    (Anthropic), GET /__stats, GET /__health.

    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("lectern-mock-llm: \(message)\n".utf8))
    exit(2)
}

var cassettes: [URL] = []
var port = 0
var portFile: String?
var statsFile: String?
var requestsFile: String?
var configuration = MockConfiguration()
var arguments = Array(CommandLine.arguments.dropFirst())
while !arguments.isEmpty {
    let name = arguments.removeFirst()
    if name == "--help" || name == "-h" {
        print(usage, terminator: "")
        exit(0)
    }
    guard !arguments.isEmpty else { fail("\(name) needs a value\n\(usage)") }
    let value = arguments.removeFirst()
    do {
        switch name {
        case "--cassette": cassettes.append(URL(fileURLWithPath: value))
        case "--port":
            guard let n = Int(value), (0...65535).contains(n) else { fail("--port must be 0–65535") }
            port = n
        case "--port-file": portFile = value
        case "--stats-file": statsFile = value
        case "--record-requests":
            requestsFile = value
            configuration.recordRequests = true
        case "--latency": configuration.latency = try LatencyDistribution(parsing: value)
        case "--error-latency": configuration.errorLatency = try LatencyDistribution(parsing: value)
        case "--faults": configuration.faults = try FaultRates(parsing: value)
        case "--retry-after":
            guard let n = Int(value), n >= 0 else { fail("--retry-after must be a whole number of seconds") }
            configuration.retryAfterSeconds = n
        case "--hang-seconds":
            guard let n = Double(value), n >= 0 else { fail("--hang-seconds must be a number ≥ 0") }
            configuration.hangSeconds = n
        case "--seed":
            guard let n = UInt64(value) else { fail("--seed must be a non-negative integer") }
            configuration.seed = n
        case "--require-key-env":
            guard let key = ProcessInfo.processInfo.environment[value], !key.isEmpty else { fail("$\(value) is not set") }
            configuration.auth = .requireKey(key)
        case "--revoke-after":
            guard let n = Int(value), n >= 0 else { fail("--revoke-after must be a whole number ≥ 0") }
            configuration.auth = .revokeAfter(n)
        default: fail("unknown option \(name)\n\(usage)")
        }
    } catch {
        fail("\(name): \(error)")
    }
}
guard !cassettes.isEmpty else { fail("--cassette FILE is required\n\(usage)") }

let answers: MockAnswerBook
let server: MockLLMServer
do {
    answers = try MockAnswerBook(cassettes: cassettes)
    server = try MockLLMServer(answers: answers, configuration: configuration, port: port)
} catch {
    fail("\(error)")
}
if let portFile {
    // Written whole, then renamed, so a waiting script never reads half a number.
    try? String(server.port).write(toFile: portFile + ".tmp", atomically: true, encoding: .utf8)
    rename(portFile + ".tmp", portFile)
}
FileHandle.standardError.write(
    Data(
        "lectern-mock-llm: \(answers.count) recorded answers; serving on \(server.baseURL.absoluteString) (latency \(configuration.latency), faults \(configuration.faults), seed \(configuration.seed))\n"
            .utf8))

@MainActor func finish() -> Never {
    server.stop()
    let stats = server.stats
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    if let statsFile, let data = try? encoder.encode(stats) {
        try? data.write(to: URL(fileURLWithPath: statsFile))
    }
    if let requestsFile {
        var lines = Data()
        for request in server.recordedRequests {
            let object: [String: Any] = [
                "item": request.itemID, "attempt": request.attempt, "path": request.path,
                "body": String(decoding: request.body, as: UTF8.self),
            ]
            if let line = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) {
                lines.append(line)
                lines.append(0x0A)
            }
        }
        try? lines.write(to: URL(fileURLWithPath: requestsFile))
    }
    FileHandle.standardError.write(
        Data(
            "lectern-mock-llm: \(stats.requests) requests, \(stats.answered) answered, \(stats.totalFaults) faults, \(stats.repeatedAnswers) repeated answers, peak \(stats.peakInFlight) in flight\n"
                .utf8))
    exit(0)
}

var sources: [DispatchSourceSignal] = []
for sig in [SIGINT, SIGTERM] {
    signal(sig, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: sig, queue: .main)
    source.setEventHandler {
        MainActor.assumeIsolated { () -> Void in finish() }
    }
    source.resume()
    sources.append(source)
}
dispatchMain()
