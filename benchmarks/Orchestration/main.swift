import Foundation
import LecternMockLLM

#if canImport(Glibc)
    import Glibc
#endif

/// `lectern-bench-orchestration`: runs the `lectern` binary against the in-process mock LLM
/// server and prints every figure next to its bound or peer.
///
///     lectern-bench-orchestration --lectern .build-x/release/lectern --script FILE --presets DIR
///         [--python benchmarks/.venv/bin/python --peer benchmarks/orchestration_peer.py]
///         [--subjects 6 --topics-per-subject 5 --latency-ms 300 --concurrency 16]
///         [--scale-subjects 50 --scale-topics-per-subject 20 --scale-latency-ms 50] [--skip-scale] [--shards 4] [--batch-seconds 5]
///         [--work DIR] [--json FILE]
///
/// Phases: record cassettes with the scripted provider; orchestration (cold run); rebuild
/// (unchanged re-run); one-topic edit; the Python peer replaying the cold run's requests; scale.
@main
struct OrchestrationBench {
    static func main() {
        do {
            try run(Options(Array(CommandLine.arguments.dropFirst())))
        } catch {
            FileHandle.standardError.write(Data("lectern-bench-orchestration: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run(_ options: Options) throws {
        let work = options.work
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        var report = Report()
        report.machine = Machine.describe()
        report.loadBefore = Machine.loadAverage()
        say("machine: \(report.machine); load average \(report.loadBefore)")
        let selfCPUStart = Machine.selfCPUSeconds()

        // 1. Record the cassettes with the scripted provider (answers are valid for every item).
        let course = SyntheticCourse(id: "bench-course", subjects: options.subjects, topicsPerSubject: options.topicsPerSubject)
        let editPosition = SyntheticCourse.TopicPosition(subject: options.subjects / 2, topic: options.topicsPerSubject / 2)
        let edited = course.editing(editPosition)
        let cassette = try record(course, name: "course", options: options)
        let editedCassette = try record(edited, name: "edited", options: options)

        // 2. Orchestration: a cold run against the mock at the fixed latency.
        let latency = Double(options.latencyMS)
        let server = try MockLLMServer(
            answers: try MockAnswerBook(cassettes: [cassette]),
            configuration: MockConfiguration(latency: .fixed(milliseconds: latency), recordRequests: true))
        defer { server.stop() }
        let spec = work.appendingPathComponent("course.yaml")
        try course.yaml(model: SyntheticCourse.openAIModel(baseURL: server.baseURL, concurrency: options.concurrency))
            .write(to: spec, atomically: true, encoding: .utf8)
        let cache = work.appendingPathComponent("cache")
        let output = work.appendingPathComponent("output")
        for stale in ["cache", "output", "output-edited", "scale-cache", "scale-output"] {
            try? FileManager.default.removeItem(at: work.appendingPathComponent(stale))
        }
        let runArguments = { (spec: URL, cache: URL, output: URL) -> [String] in
            [
                "run", spec.path, "--cache-dir", cache.path, "--output", output.path, "--log-format", "json",
                "--max-concurrency", String(options.concurrency), "--presets", options.presets.path,
            ]
        }
        let coldStart = server.uptime
        let cold = try Child.run(options.lectern, runArguments(spec, cache, output), log: work.appendingPathComponent("cold.log"))
        let coldEnd = server.uptime
        guard cold.status == 0 else { throw BenchError("the cold run failed (exit \(cold.status)); see \(work.path)/cold.log") }
        let coldStats = server.stats
        // Where the time went: process start to first request, first request to last answer,
        // last answer to exit (validation, rendering, bundle).
        let startup = (coldStats.firstRequestAt ?? coldStart) - coldStart
        let span = (coldStats.lastAnswerAt ?? coldEnd) - (coldStats.firstRequestAt ?? coldStart)
        let tail = coldEnd - (coldStats.lastAnswerAt ?? coldEnd)
        let calls = coldStats.answered
        let callBound = Double(calls) / Double(options.concurrency) * latency / 1000
        let pathBound = Double(SyntheticCourse.criticalPathCalls) * latency / 1000
        let bound = max(callBound, pathBound)
        let rounds = (Double(calls) / Double(options.concurrency)).rounded(.up) * latency / 1000
        report.add(
            "orchestration",
            [
                "topics": .int(course.topics), "calls": .int(calls), "expected_calls": .int(course.modelCalls),
                "concurrency": .int(options.concurrency), "latency_ms": .int(options.latencyMS),
                "wall_s": .double(cold.wall), "cpu_s": .double(cold.cpu), "peak_rss_mb": .double(cold.maxRSSMB),
                "bound_s": .double(bound), "critical_path_s": .double(pathBound), "calls_bound_s": .double(callBound),
                "whole_rounds_s": .double(rounds), "ratio": .double(cold.wall / bound),
                "ratio_to_whole_rounds": .double(cold.wall / rounds), "mock_peak_in_flight": .int(coldStats.peakInFlight),
                "startup_s": .double(startup), "request_span_s": .double(span), "tail_s": .double(tail),
            ])
        say(
            String(
                format:
                    "orchestration: %d topics, %d calls (expected %d), concurrency %d, %d ms: wall %.3f s vs bound %.3f s (max(critical path %.2f s, calls/concurrency×latency %.3f s)) = %.3f×; whole rounds %.2f s: %.3f× (goal ≤ 1.05×, issue 49); CPU %.2f s; peak RSS %.1f MB; mock peak in flight %d",
                course.topics, calls, course.modelCalls, options.concurrency, options.latencyMS, cold.wall, bound, pathBound, callBound,
                cold.wall / bound, rounds, cold.wall / rounds, cold.cpu, cold.maxRSSMB, coldStats.peakInFlight))
        say(
            String(
                format: "  breakdown: start → first request %.3f s; first request → last answer %.3f s (%.3f× the bound); last answer → exit %.3f s",
                startup, span, span / bound, tail))
        let requests = server.recordedRequests
        server.reconfigure(MockConfiguration(latency: .fixed(milliseconds: latency)))

        // 3. Rebuild: the unchanged job again.
        server.resetStats()
        let rebuild = try Child.run(options.lectern, runArguments(spec, cache, output), log: work.appendingPathComponent("rebuild.log"))
        guard rebuild.status == 0 else { throw BenchError("the rebuild failed (exit \(rebuild.status)); see \(work.path)/rebuild.log") }
        let rebuildCalls = server.stats.requests
        report.add("rebuild", ["wall_s": .double(rebuild.wall), "cpu_s": .double(rebuild.cpu), "calls": .int(rebuildCalls)])
        say(String(format: "rebuild (unchanged): wall %.3f s (goal < 0.5 s), %d calls (goal 0), CPU %.2f s", rebuild.wall, rebuildCalls, rebuild.cpu))

        // 4. One-topic edit of the pinned outline: only what depends on that topic is asked.
        server.replaceAnswers(try MockAnswerBook(cassettes: [editedCassette]))
        server.resetStats()
        let editedSpec = work.appendingPathComponent("course-edited.yaml")
        try edited.yaml(model: SyntheticCourse.openAIModel(baseURL: server.baseURL, concurrency: options.concurrency))
            .write(to: editedSpec, atomically: true, encoding: .utf8)
        let edit = try Child.run(
            options.lectern, runArguments(editedSpec, cache, work.appendingPathComponent("output-edited")),
            log: work.appendingPathComponent("edit.log"))
        guard edit.status == 0 else { throw BenchError("the edit run failed (exit \(edit.status)); see \(work.path)/edit.log") }
        let editedItems = server.stats.items.filter { $0.value.answered > 0 }.keys.sorted()
        let topicID = String(format: "s%02d-t%02d", editPosition.subject + 1, editPosition.topic + 1)
        report.add(
            "edit",
            [
                "wall_s": .double(edit.wall), "cpu_s": .double(edit.cpu), "calls": .int(editedItems.count),
                "edited_topic": .string(topicID), "items": .strings(editedItems),
            ])
        say(
            String(
                format: "one-topic edit (%@ renamed): wall %.3f s, %d calls: %@", topicID, edit.wall, editedItems.count,
                editedItems.joined(separator: ", ")))
        server.replaceAnswers(try MockAnswerBook(cassettes: [cassette]))

        // 5. The peer: the cold run's requests through the `openai` SDK at the same concurrency.
        if let python = options.python, let peer = options.peer {
            let requestFile = work.appendingPathComponent("requests.jsonl")
            var lines = Data()
            for request in requests where request.attempt == 1 {
                let object: [String: Any] = [
                    "item": request.itemID, "path": request.path, "body": String(decoding: request.body, as: UTF8.self),
                    "received_at": request.receivedAt - coldStart,
                ]
                lines.append(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
                lines.append(0x0A)
            }
            try lines.write(to: requestFile)
            server.resetStats()
            let peerRun = try Child.run(
                python,
                [
                    peer.path, "--base-url", server.baseURL.absoluteString, "--requests", requestFile.path, "--concurrency",
                    String(options.concurrency),
                ],
                log: work.appendingPathComponent("peer.log"))
            guard peerRun.status == 0 else { throw BenchError("the peer failed (exit \(peerRun.status)); see \(work.path)/peer.log") }
            let peerCalls = server.stats.answered
            // The peer's own timing of its calls (interpreter start and `import openai` excluded):
            // the floor, compared with Lectern's whole process.
            let peerLine = (try? String(contentsOf: work.appendingPathComponent("peer.log"), encoding: .utf8))?
                .split(separator: "\n").last { $0.hasPrefix("{") }
            let peerJSON = peerLine.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            let peerSeconds = (peerJSON?["seconds"] as? Double) ?? peerRun.wall
            let peerCPU = (peerJSON?["cpu_seconds"] as? Double) ?? peerRun.cpu
            report.add(
                "peer",
                [
                    "seconds": .double(peerSeconds), "cpu_s": .double(peerCPU), "process_wall_s": .double(peerRun.wall),
                    "process_cpu_s": .double(peerRun.cpu), "calls": .int(peerCalls), "bound_s": .double(bound),
                    "ratio_lectern_to_peer": .double(cold.wall / peerSeconds), "peer_ratio_to_bound": .double(peerSeconds / bound),
                ])
            say(
                String(
                    format:
                        "peer (openai-python AsyncOpenAI, the same %d calls, concurrency %d, dependencies kept): %.3f s (%.3f× the bound), CPU %.2f s (whole process incl. interpreter and import: %.2f s wall, %.2f s CPU); lectern whole run / peer calls = %.3f×",
                    peerCalls, options.concurrency, peerSeconds, peerSeconds / bound, peerCPU, peerRun.wall, peerRun.cpu, cold.wall / peerSeconds))
        }

        // 6. Scale: a large course at a short latency.
        if !options.skipScale {
            let large = SyntheticCourse(id: "scale-course", subjects: options.scaleSubjects, topicsPerSubject: options.scaleTopicsPerSubject)
            let largeCassette = try record(large, name: "scale", options: options)
            let scaleLatency = Double(options.scaleLatencyMS)
            server.replaceAnswers(try MockAnswerBook(cassettes: [largeCassette]))
            server.reconfigure(MockConfiguration(latency: .fixed(milliseconds: scaleLatency)))
            server.resetStats()
            let largeSpec = work.appendingPathComponent("scale.yaml")
            try large.yaml(model: SyntheticCourse.openAIModel(baseURL: server.baseURL, concurrency: options.concurrency))
                .write(to: largeSpec, atomically: true, encoding: .utf8)
            let largeCache = work.appendingPathComponent("scale-cache")
            let largeOutput = work.appendingPathComponent("scale-output")
            try? FileManager.default.removeItem(at: largeCache)
            try? FileManager.default.removeItem(at: largeOutput)
            let scale = try Child.run(
                options.lectern, runArguments(largeSpec, largeCache, largeOutput), log: work.appendingPathComponent("scale.log"))
            guard scale.status == 0 else { throw BenchError("the scale run failed (exit \(scale.status)); see \(work.path)/scale.log") }
            let scaleCalls = server.stats.answered
            let scaleBound = max(Double(scaleCalls) / Double(options.concurrency) * scaleLatency / 1000, 3 * scaleLatency / 1000)
            let cacheSize = DiskUsage.of(largeCache)
            let bundleSize = DiskUsage.of(largeOutput)
            report.add(
                "scale",
                [
                    "topics": .int(large.topics), "calls": .int(scaleCalls), "latency_ms": .int(options.scaleLatencyMS),
                    "wall_s": .double(scale.wall), "cpu_s": .double(scale.cpu), "peak_rss_mb": .double(scale.maxRSSMB),
                    "bound_s": .double(scaleBound), "ratio": .double(scale.wall / scaleBound),
                    "cache_entries": .int(cacheSize.files), "cache_bytes": .int(cacheSize.bytes), "cache_disk_bytes": .int(cacheSize.diskBytes),
                    "bundle_files": .int(bundleSize.files), "bundle_bytes": .int(bundleSize.bytes),
                ])
            say(
                String(
                    format:
                        "scale: %d topics, %d calls at %d ms: wall %.2f s vs bound %.2f s (%.3f×; goal ≤ 1.2×), CPU %.2f s (goal < 30 s), peak RSS %.1f MB (goal < 150 MB; issue 49); cache %d files, %.1f MB (%.1f MB on disk); bundle %d files, %.1f MB",
                    large.topics, scaleCalls, options.scaleLatencyMS, scale.wall, scaleBound, scale.wall / scaleBound, scale.cpu, scale.maxRSSMB,
                    cacheSize.files, Double(cacheSize.bytes) / 1e6, Double(cacheSize.diskBytes) / 1e6, bundleSize.files,
                    Double(bundleSize.bytes) / 1e6))
        }

        // 7. The scale course in local shards: a planning run, N shards at once (each with its own
        //    cache and the same concurrency), the caches merged, the bundle assembled offline.
        if !options.skipScale {
            let n = options.shards
            let largeSpec = work.appendingPathComponent("scale.yaml")
            let base = work.appendingPathComponent("shards")
            try? FileManager.default.removeItem(at: base)
            try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
            server.resetStats()
            func cache(_ name: String) -> URL { base.appendingPathComponent("\(name)-cache") }
            let unused = base.appendingPathComponent("unused")
            let planning = try Child.run(
                options.lectern, runArguments(largeSpec, cache("plan"), unused) + ["--shard", "0/\(n)"], log: base.appendingPathComponent("plan.log"))
            guard planning.status == 0 else { throw BenchError("the planning shard failed; see \(base.path)/plan.log") }
            let plan = base.appendingPathComponent("plan.jsonl")
            _ = try Child.run(options.lectern, ["cache", "export", plan.path, "--cache-dir", cache("plan").path], log: base.appendingPathComponent("merge.log"))
            final class Results: @unchecked Sendable {
                let lock = NSLock()
                var runs: [Int: Child] = [:]
                func set(_ k: Int, _ child: Child?) { lock.lock(); runs[k] = child; lock.unlock() }
            }
            let results = Results()
            var counts = [Int](repeating: 0, count: n + 1)
            let done = DispatchSemaphore(value: 0)
            let started = Machine.monotonic()
            let lectern = options.lectern
            for k in 1...n {
                let directory = cache("shard-\(k)")
                let log = base.appendingPathComponent("shard-\(k).log")
                let importArguments = ["cache", "import", plan.path, "--cache-dir", directory.path]
                let shardArguments = runArguments(largeSpec, directory, unused) + ["--shard", "\(k)/\(n)"]
                Thread.detachNewThread {
                    let child = try? { () throws -> Child in
                        _ = try Child.run(lectern, importArguments, log: log)
                        return try Child.run(lectern, shardArguments, log: log)
                    }()
                    results.set(k, child)
                    done.signal()
                }
            }
            for _ in 1...n { done.wait() }
            let shardsWall = Machine.monotonic() - started
            for k in 1...n {
                guard let run = results.runs[k], run.status == 0 else { throw BenchError("shard \(k) failed; see \(base.path)/shard-\(k).log") }
                counts[k] = DiskUsage.of(cache("shard-\(k)").appendingPathComponent("exchanges")).files
            }
            let shardCalls = server.stats.answered
            let repeated = server.stats.repeatedAnswers
            let mergeStart = Machine.monotonic()
            for k in 1...n {
                let file = base.appendingPathComponent("shard-\(k).jsonl")
                _ = try Child.run(options.lectern, ["cache", "export", file.path, "--cache-dir", cache("shard-\(k)").path], log: base.appendingPathComponent("merge.log"))
                _ = try Child.run(options.lectern, ["cache", "import", file.path, "--cache-dir", cache("merged").path], log: base.appendingPathComponent("merge.log"))
            }
            let mergeWall = Machine.monotonic() - mergeStart
            let assembly = try Child.run(
                options.lectern, runArguments(largeSpec, cache("merged"), base.appendingPathComponent("output")) + ["--cache", "offline"],
                log: base.appendingPathComponent("assemble.log"))
            guard assembly.status == 0 else { throw BenchError("the assembling run failed; see \(base.path)/assemble.log") }
            let single = work.appendingPathComponent("scale-output")
            let identical = Machine.sameTree(single, base.appendingPathComponent("output"))
            let perShard = (1...n).map { counts[$0] }
            report.add(
                "shards",
                [
                    "shards": .int(n), "calls": .int(shardCalls), "repeated": .int(repeated), "shards_wall_s": .double(shardsWall),
                    "merge_s": .double(mergeWall), "assembly_s": .double(assembly.wall), "identical": .int(identical ? 1 : 0),
                ])
            say(
                String(
                    format:
                        "shards: %d local shards of the scale course: %d calls (%d repeated), cache entries per shard %@; all shards %.2f s wall; merge (export + import ×%d) %.2f s; assembly (offline, 0 calls) %.2f s wall, peak RSS %.1f MB; bundle %@ the single run's",
                    n, shardCalls, repeated, perShard.map(String.init).joined(separator: "/"), shardsWall, n, mergeWall, assembly.wall, assembly.maxRSSMB,
                    identical ? "byte-identical to" : "DIFFERENT from"))
        }

        // 8. The scale course through the mock's OpenAI Batch API: rounds of batches (each ending
        //    `--batch-seconds` after it is submitted), polled every 0.1 s.
        if !options.skipScale {
            let largeSpec = work.appendingPathComponent("scale.yaml")
            let base = work.appendingPathComponent("batch")
            try? FileManager.default.removeItem(at: base)
            try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
            let seconds = Double(options.batchSeconds)
            server.reconfigure(MockConfiguration(latency: .fixed(milliseconds: Double(options.scaleLatencyMS)), batch: MockBatchConfiguration(seconds: seconds)))
            server.resetStats()
            setenv("LECTERN_BATCH_POLL_SECONDS", "0.1", 1)
            setenv("LECTERN_BATCH_QUIET_MS", "200", 1)
            let batched = try Child.run(
                options.lectern, runArguments(largeSpec, base.appendingPathComponent("cache"), base.appendingPathComponent("output")) + ["--batch"],
                log: base.appendingPathComponent("batch.log"))
            unsetenv("LECTERN_BATCH_POLL_SECONDS")
            unsetenv("LECTERN_BATCH_QUIET_MS")
            guard batched.status == 0 else { throw BenchError("the batch run failed (exit \(batched.status)); see \(base.path)/batch.log") }
            let log = (try? String(contentsOf: base.appendingPathComponent("batch.log"), encoding: .utf8)) ?? ""
            let rounds = log.components(separatedBy: "submitted batch").count - 1
            let stats = server.stats
            let identical = Machine.sameTree(work.appendingPathComponent("scale-output"), base.appendingPathComponent("output"))
            // The floor: one batch per dependency level (lecture → engagement question → bonus question).
            let bound = 3 * seconds
            report.add(
                "batch",
                [
                    "rounds": .int(rounds), "requests": .int(stats.requests), "answered": .int(stats.answered), "repeated": .int(stats.repeatedAnswers),
                    "batch_seconds": .double(seconds), "wall_s": .double(batched.wall), "bound_s": .double(bound), "cpu_s": .double(batched.cpu),
                    "peak_rss_mb": .double(batched.maxRSSMB), "identical": .int(identical ? 1 : 0),
                ])
            say(
                String(
                    format:
                        "batch: the scale course through the mock Batch API (%.0f s a batch): %d rounds, %d requests, %d answered (%d repeated); wall %.2f s vs %.2f s (3 dependency levels × %.0f s) = %.3f×; CPU %.2f s, peak RSS %.1f MB; bundle %@ the single run's",
                    seconds, rounds, stats.requests, stats.answered, stats.repeatedAnswers, batched.wall, bound, seconds, batched.wall / bound, batched.cpu,
                    batched.maxRSSMB, identical ? "byte-identical to" : "DIFFERENT from"))
        }

        report.loadAfter = Machine.loadAverage()
        let benchCPU = Machine.selfCPUSeconds() - selfCPUStart
        say(String(format: "load average after: %@; this driver + mock server CPU: %.2f s", report.loadAfter, benchCPU))
        if let json = options.json {
            try report.json().write(to: json)
            say("figures written to \(json.path)")
        }
    }

    /// Records `course`'s exchanges with the scripted provider into a cassette.
    static func record(_ course: SyntheticCourse, name: String, options: Options) throws -> URL {
        let directory = options.work.appendingPathComponent("record-\(name)")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let spec = directory.appendingPathComponent("spec.yaml")
        try course.yaml(model: SyntheticCourse.scriptedModel(script: options.script.path, concurrency: 16)).write(
            to: spec, atomically: true, encoding: .utf8)
        let cassette = options.work.appendingPathComponent("\(name).jsonl")
        let result = try Child.run(
            options.lectern,
            [
                "run", spec.path, "--cache-dir", directory.appendingPathComponent("cache").path, "--output",
                directory.appendingPathComponent("output").path,
                "--record-cassette", cassette.path, "--log-format", "json", "--presets", options.presets.path,
            ],
            log: directory.appendingPathComponent("run.log"))
        guard result.status == 0 else { throw BenchError("recording \(name) failed (exit \(result.status)); see \(directory.path)/run.log") }
        say(String(format: "recorded %@: %d topics in %.2f s", cassette.lastPathComponent, course.topics, result.wall))
        return cassette
    }

    static func say(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}

/// Command-line options.
struct Options {
    var lectern: URL
    var script: URL
    var presets: URL
    var python: URL?
    var peer: URL?
    var subjects = 6
    var topicsPerSubject = 5
    var latencyMS = 300
    var concurrency = 16
    var scaleSubjects = 50
    var scaleTopicsPerSubject = 20
    var scaleLatencyMS = 50
    var skipScale = false
    /// The scale course again in this many local shards (`run --shard`), merged and assembled.
    var shards = 4
    /// Seconds the mock takes to finish a batch in the batch phase.
    var batchSeconds = 5
    var work: URL
    var json: URL?

    init(_ arguments: [String]) throws {
        var values: [String: String] = [:]
        var flags: Set<String> = []
        var index = 0
        while index < arguments.count {
            let name = arguments[index]
            guard name.hasPrefix("--") else { throw BenchError("unexpected argument '\(name)'") }
            if name == "--skip-scale" {
                flags.insert(name)
                index += 1
                continue
            }
            guard index + 1 < arguments.count else { throw BenchError("\(name) needs a value") }
            values[String(name.dropFirst(2))] = arguments[index + 1]
            index += 2
        }
        func url(_ key: String) -> URL? { values[key].map { URL(fileURLWithPath: $0) } }
        func int(_ key: String, _ fallback: Int) throws -> Int {
            guard let text = values[key] else { return fallback }
            guard let value = Int(text), value > 0 else { throw BenchError("--\(key) must be a positive integer") }
            return value
        }
        guard let lectern = url("lectern"), let script = url("script"), let presets = url("presets") else {
            throw BenchError("--lectern BINARY, --script course-script.json and --presets DIR are required")
        }
        self.lectern = lectern
        self.script = script
        self.presets = presets
        python = url("python")
        peer = url("peer")
        subjects = try int("subjects", subjects)
        topicsPerSubject = try int("topics-per-subject", topicsPerSubject)
        latencyMS = try int("latency-ms", latencyMS)
        concurrency = try int("concurrency", concurrency)
        scaleSubjects = try int("scale-subjects", scaleSubjects)
        scaleTopicsPerSubject = try int("scale-topics-per-subject", scaleTopicsPerSubject)
        scaleLatencyMS = try int("scale-latency-ms", scaleLatencyMS)
        shards = try int("shards", shards)
        batchSeconds = try int("batch-seconds", batchSeconds)
        skipScale = flags.contains("--skip-scale")
        work = url("work") ?? FileManager.default.temporaryDirectory.appendingPathComponent("lectern-orchestration-\(getpid())")
        json = url("json")
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A finished child process: exit status, wall time, CPU time and peak RSS from `wait4`.
struct Child {
    var status: Int32
    var wall: Double
    var cpu: Double
    var maxRSSMB: Double

    /// Runs `executable` with its standard output and error appended to `log`.
    static func run(_ executable: URL, _ arguments: [String], log: URL) throws -> Child {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log.path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let start = Machine.monotonic()
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw BenchError("cannot start \(executable.path): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchError("wait4 failed: \(String(cString: strerror(errno)))") }
        }
        let wall = Machine.monotonic() - start
        let cpu =
            Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec)
            / 1e6
        let exited = (status & 0x7F) == 0
        return Child(status: exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F), wall: wall, cpu: cpu, maxRSSMB: Double(usage.ru_maxrss) / 1024)
    }
}

/// Files, bytes and allocated bytes under a directory.
struct DiskUsage {
    var files = 0
    var bytes = 0
    var diskBytes = 0

    static func of(_ directory: URL) -> DiskUsage {
        var total = DiskUsage()
        guard let walker = FileManager.default.enumerator(atPath: directory.path) else { return total }
        while let relative = walker.nextObject() as? String {
            var info = stat()
            guard lstat(directory.appendingPathComponent(relative).path, &info) == 0 else { continue }
            total.diskBytes += Int(info.st_blocks) * 512
            if (info.st_mode & S_IFMT) == S_IFREG {
                total.files += 1
                total.bytes += Int(info.st_size)
            }
        }
        return total
    }
}

enum Machine {
    static func monotonic() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    static func selfCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec)
            / 1e6
    }

    /// Whether two directory trees hold the same files with the same bytes.
    static func sameTree(_ a: URL, _ b: URL) -> Bool {
        func files(_ root: URL) -> [String: Data] {
            var out: [String: Data] = [:]
            let base = root.standardizedFileURL.path
            for case let url as URL in FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) ?? FileManager.DirectoryEnumerator() {
                var directory: ObjCBool = false
                if FileManager.default.fileExists(atPath: url.path, isDirectory: &directory), !directory.boolValue {
                    out[String(url.standardizedFileURL.path.dropFirst(base.count))] = FileManager.default.contents(atPath: url.path)
                }
            }
            return out
        }
        let left = files(a)
        return !left.isEmpty && left == files(b)
    }

    static func loadAverage() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    static func describe() -> String {
        var name = utsname()
        uname(&name)
        let machine = withUnsafeBytes(of: &name.machine) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        let memory = ProcessInfo.processInfo.physicalMemory / (1 << 30)
        return
            "\(ProcessInfo.processInfo.activeProcessorCount) cores \(machine), \(memory) GiB, \(ProcessInfo.processInfo.operatingSystemVersionString)"
    }
}

/// The figures, for `--json`.
struct Report {
    enum Value {
        case int(Int), double(Double), string(String), strings([String])

        var json: Any {
            switch self {
            case .int(let v): return v
            case .double(let v): return (v * 1000).rounded() / 1000
            case .string(let v): return v
            case .strings(let v): return v
            }
        }
    }

    var machine = ""
    var loadBefore = ""
    var loadAfter = ""
    var phases: [(String, [String: Value])] = []

    mutating func add(_ phase: String, _ values: [String: Value]) { phases.append((phase, values)) }

    func json() throws -> Data {
        var object: [String: Any] = ["machine": machine, "load_before": loadBefore, "load_after": loadAfter]
        for (phase, values) in phases { object[phase] = values.mapValues(\.json) }
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted])
    }
}
