import Foundation
import LecternCore
import LecternLLM
import LecternMockLLM
import LecternPipeline
import LecternRandom

#if canImport(Glibc)
    import Glibc
#endif

/// The quotes kind against the mock LLM server: N synthetic quotes (distinct sayings by distinct
/// authors, in a CSV), tagged in batches at concurrency C with a fixed latency, plus the
/// template bank, by the real `lectern` binary. The mock answers each batch with valid tags for
/// exactly its quotes (the batches are cut here the way the job cuts them). The bound is
/// calls ÷ concurrency × latency: no schedule of these calls can finish sooner.
///
///   lectern-bench-quotes --lectern PATH [--quotes 2000] [--batch 20] [--concurrency 16]
///       [--latency-ms 300] [--work DIR] [--json FILE]
@main
struct QuotesBench {
    static func main() {
        do {
            try run()
        } catch {
            FileHandle.standardError.write(Data("lectern-bench-quotes: \(error)\n".utf8))
            exit(1)
        }
    }

    static func value(_ name: String, _ fallback: String?) -> String? {
        let args = CommandLine.arguments
        guard let i = args.firstIndex(of: name), i + 1 < args.count else { return fallback }
        return args[i + 1]
    }

    static func run() throws {
        guard let lectern = value("--lectern", nil) else { throw PipelineError("--lectern PATH is required") }
        let count = Int(value("--quotes", "2000")!)!
        let batch = Int(value("--batch", "20")!)!
        let concurrency = Int(value("--concurrency", "16")!)!
        let latency = Double(value("--latency-ms", "300")!)!
        let work = URL(fileURLWithPath: value("--work", nil) ?? NSTemporaryDirectory() + "lectern-bench-quotes-\(getpid())")
        try? FileManager.default.removeItem(at: work)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)

        // Synthetic sayings: four words drawn from four lists, so that no two are near duplicates.
        var rng = SplitMix64(state: 42)
        let subjects = ["courage", "patience", "kindness", "curiosity", "honesty", "effort", "gratitude", "hope", "wonder", "calm", "grace", "humour"]
        let verbs = ["builds", "opens", "carries", "teaches", "lights", "shapes", "mends", "guards", "feeds", "frees", "steadies", "widens"]
        let objects = ["bridges", "doors", "rivers", "gardens", "roads", "windows", "harbours", "mountains", "lanterns", "orchards", "letters", "fields"]
        let places = ["at dawn", "in winter", "after rain", "before dusk", "in silence", "at sea", "in exile", "at home", "in spring", "at noon"]
        var seen = Set<String>()
        var rows = ["text,author,source"]
        while rows.count <= count {
            let s = subjects[Int(rng.next() % 12)], v = verbs[Int(rng.next() % 12)], o = objects[Int(rng.next() % 12)], p = places[Int(rng.next() % 10)]
            let n = Int(rng.next() % 1_000_000)
            let text = "\(s.capitalized) \(v) \(o) \(p), and the \(n) small steps of a life are how it is done."
            guard seen.insert("\(s)\(v)\(o)\(p)\(n)").inserted else { continue }
            rows.append("\"\(text)\",Author \(rows.count),Collected Sayings")
        }
        try (rows.joined(separator: "\n") + "\n").write(to: work.appendingPathComponent("quotes.csv"), atomically: true, encoding: .utf8)

        // The answers: the job's own batches, each answered with valid tags.
        let sources = [QuoteSource(path: "quotes.csv", licence: "CC0-1.0")]
        let corpus = try QuoteCorpus.load(sources, relativeTo: work, length: SizeRange(min: 50, max: 200))
        let batches = QuoteBatches.make(corpus.candidates, size: batch)
        let emotions = QuoteEmotion.echo.map(\.name)
        var records: [ExchangeRecord] = []
        for b in batches {
            let answers: [JSONValue] = b.quotes.enumerated().map { i, q in
                [
                    "n": .number(Double(i + 1)), "opening": .string(q.text.split(separator: " ").prefix(3).joined(separator: " ")), "verdict": "keep",
                    "reason": "", "emotions": [.string(emotions[i % 8]), .string(emotions[(i + 3) % 8])], "category": "Philosophy",
                ]
            }
            records.append(record("tag/\(b.id)", "tag", JSONValue.object(["quotes": .array(answers)]).canonicalText))
        }
        for e in emotions {
            let lines = (1...9).map { "Day \($0) of your {keyword} shows the \(e.lowercased()) in you." } + (1...5).map { "Every road of \(e.lowercased()) number \($0) is yours." }
            records.append(record("templates/\(e.lowercased())", "templates", JSONValue.object(["templates": .array(lines.map { .string($0) })]).canonicalText))
        }
        let server = try MockLLMServer(answers: MockAnswerBook(records: records), configuration: MockConfiguration(latency: .fixed(milliseconds: latency)))
        defer { server.stop() }
        let spec = """
            kind: quotes
            id: bench-quotes
            description: Synthetic quotes for the benchmark.
            corpus: [{ path: quotes.csv, licence: CC0-1.0 }]
            target: \(count)
            batch: \(batch)
            templates: true
            model: { provider: openai, base_url: \(server.baseURL.absoluteString)/v1, name: mock-model, max_concurrency: \(concurrency) }
            """
        try spec.write(to: work.appendingPathComponent("quotes.yaml"), atomically: true, encoding: .utf8)
        let start = server.uptime
        let child = try spawn(
            lectern,
            [
                "run", work.appendingPathComponent("quotes.yaml").path, "--cache-dir", work.appendingPathComponent("cache").path, "--output",
                work.appendingPathComponent("out").path, "--log-format", "json", "--max-concurrency", "\(concurrency)",
            ],
            log: work.appendingPathComponent("run.log"))
        let end = server.uptime
        guard child.status == 0 else { throw PipelineError("the run failed (exit \(child.status)); see \(work.path)/run.log") }
        let stats = server.stats
        let calls = stats.answered
        let bound = Double(calls) / Double(concurrency) * latency / 1000
        let rounds = (Double(calls) / Double(concurrency)).rounded(.up) * latency / 1000
        let first = (stats.firstRequestAt ?? start) - start
        let tail = end - (stats.lastAnswerAt ?? end)
        let database = try JSONSerialization.jsonObject(with: Data(contentsOf: work.appendingPathComponent("out/bench-quotes/1.0.0/quotes.json"))) as? [String: Any]
        let written = (database?["quotes"] as? [Any])?.count ?? 0
        let line = String(
            format:
                "quotes: %d quotes (%d written), %d batches, %d calls (%d expected), concurrency %d, %.0f ms: wall %.3f s vs bound %.3f s (calls/concurrency×latency) = %.3f× (goal ≤ 1.10×); whole rounds %.2f s = %.3f×; start → first request %.3f s, last answer → exit %.3f s; CPU %.2f s; peak RSS %.1f MB",
            count, written, batches.count, calls, records.count, concurrency, latency, child.wall, bound, child.wall / bound, rounds, child.wall / rounds,
            first, tail, child.cpu, child.maxRSSMB)
        print(line)
        if let json = value("--json", nil) {
            let object: [String: Any] = [
                "quotes": count, "written": written, "batches": batches.count, "calls": calls, "concurrency": concurrency, "latency_ms": latency,
                "wall_s": child.wall, "bound_s": bound, "ratio": child.wall / bound, "whole_rounds_s": rounds, "startup_s": first, "tail_s": tail,
                "cpu_s": child.cpu, "peak_rss_mb": child.maxRSSMB,
            ]
            try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]).write(to: URL(fileURLWithPath: json))
        }
    }

    static func record(_ item: String, _ stage: String, _ content: String) -> ExchangeRecord {
        ExchangeRecord(
            key: SHA256Digest.hex(item), itemID: item, stage: stage, promptTemplate: stage, provider: "openai", model: "mock-model",
            response: LLMResponse(content: content, usage: TokenUsage(promptTokens: 900, completionTokens: 400)), elapsedMilliseconds: 0)
    }

    struct Child {
        var status: Int32
        var wall: Double
        var cpu: Double
        var maxRSSMB: Double
    }

    static func monotonic() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// Runs `executable` with its output appended to `log`; wall time, CPU time and peak RSS.
    static func spawn(_ executable: String, _ arguments: [String], log: URL) throws -> Child {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log.path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let start = monotonic()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw PipelineError("cannot start \(executable): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw PipelineError("wait4 failed") }
        }
        let wall = monotonic() - start
        let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return Child(status: (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F), wall: wall, cpu: cpu, maxRSSMB: Double(usage.ru_maxrss) / 1024)
    }
}
