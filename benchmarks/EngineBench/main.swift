// Engine overhead with a provider that answers instantly: a pinned course expanding to about
// 2,000 model items (lecture, question, bonus question, reinforcement pool per topic), run in
// record mode against an empty cache (so every answer is fsynced to the cache), then re-run
// unchanged (everything from the cache). Prints per-item overhead, wall time and peak RSS.
import Foundation
import LecternCore
import LecternLLM
import LecternPipeline
import Synchronization

/// Answers every request at once with valid content for its stage.
final class InstantProvider: LLMProvider {
    let kind = "scripted"
    let maxConcurrency: Int
    let scripted: ScriptedProvider
    init(script: URL, concurrency: Int) throws {
        scripted = try ScriptedProvider(scriptAt: script, maxConcurrency: concurrency)
        maxConcurrency = concurrency
    }
    func complete(_ request: LLMRequest, context: RequestContext) async throws -> LLMResponse {
        try await scripted.complete(request, context: context)
    }
}

final class LatencySink: EngineEventSink {
    let latencies = Mutex<[Double]>([])
    func emit(_ event: EngineEvent) {
        if case .itemFinished(let r) = event, r.stage != "curriculum" {
            let seconds = Double(r.latency.components.seconds) + Double(r.latency.components.attoseconds) / 1e18
            latencies.withLock { $0.append(seconds * 1000) }
        }
    }
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(0), &usage)  // RUSAGE_SELF
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func peakRSSMegabytes() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(0), &usage)  // RUSAGE_SELF; Glibc imports the constant as an enum case
    return Double(usage.ru_maxrss) / 1024  // ru_maxrss is in KiB on Linux
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
}

let arguments = CommandLine.arguments
let topics = arguments.count > 1 ? Int(arguments[1]) ?? 500 : 500
let concurrency = arguments.count > 2 ? Int(arguments[2]) ?? 16 : 16
let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("lectern-bench-engine-\(getpid())")
try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: root) }

let repository = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
let script = repository.appendingPathComponent("Tests/LecternPipelineTests/Fixtures/course-script.json")
let subjects = max(1, topics / 25)
var yaml =
    "kind: course\nid: bench\ndescription: Engine benchmark.\naddons: { reinforcement: true, ending_projects: false }\nmodel: { provider: scripted, script: x.json, max_concurrency: \(concurrency) }\noutline:\n  title: Bench\n  subjects:\n"
for s in 0..<subjects {
    yaml += "    - title: Subject \(s + 1)\n      topics:\n"
    for t in 0..<(topics / subjects) { yaml += "        - { title: Topic \(s + 1) \(t + 1) loops, objective: Learn part \(t + 1). }\n" }
}
let presets = try PresetLibrary(directories: [repository.appendingPathComponent("pipelines/presets")])
let spec = try SpecLoader(presets: presets).load(YAMLSource(file: "bench.yaml", data: Data(yaml.utf8)))

func run(_ label: String, output: String) async throws -> Double {
    let cache = try ExchangeCache(root: root.appendingPathComponent("cache"))
    let provider = try InstantProvider(script: script, concurrency: concurrency)
    let sink = LatencySink()
    let exchanger = Exchanger(providerKind: "scripted", provider: provider, cache: cache, mode: .record)
    let runner = JobRunner(spec: spec, presets: presets, exchanger: exchanger, renderer: nil, events: sink)
    let clock = ContinuousClock()
    let cpuStart = cpuSeconds()
    let start = clock.now
    let result = try await runner.run(options: .init(outputRoot: root.appendingPathComponent(output)))
    let wall = start.duration(to: clock.now)
    let wallSeconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
    let cpu = cpuSeconds() - cpuStart
    let latencies = sink.latencies.withLock { $0 }
    print(
        String(
            format: "%@: %d items (%d model calls, %d from cache), status %@", label, result.itemCount, result.totals.calls,
            result.totals.cachedCalls, "\(result.status)"))
    print(
        String(
            format: "  wall %.3f s = %.3f ms per item at concurrency %d", wallSeconds, wallSeconds * 1000 / Double(max(1, result.itemCount)),
            concurrency))
    print(
        String(
            format: "  CPU %.3f s = %.3f ms of CPU per item (robust to other load on the machine)", cpu, cpu * 1000 / Double(max(1, result.itemCount))
        ))
    print(
        String(
            format: "  per-item latency (ready → done, incl. cache lookup/write, validation): median %.3f ms, p90 %.3f ms, p99 %.3f ms",
            percentile(latencies, 0.5), percentile(latencies, 0.9), percentile(latencies, 0.99)))
    return wallSeconds
}

print("lectern-bench-engine: \(topics) topics, concurrency \(concurrency), \(ProcessInfo.processInfo.activeProcessorCount) cores")
_ = try await run("cold (empty cache: every answer stored, group-committed with syncfs)", output: "out1")
_ = try await run("warm (unchanged re-run, all from cache)", output: "out1")
print(String(format: "peak RSS: %.1f MB", peakRSSMegabytes()))
