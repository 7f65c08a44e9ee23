import Foundation
import LecternCore
import LecternLLM
import LecternMockLLM
import LecternPipeline
import Synchronization

/// The suite's size: `small` in CI (the default), `large` with `LECTERN_RELIABILITY_SIZE=large`
/// (benchmarks/run-reliability.sh --size large).
enum SuiteSize: String {
    case small, large

    static let current = SuiteSize(rawValue: ProcessInfo.processInfo.environment["LECTERN_RELIABILITY_SIZE"] ?? "") ?? .small

    /// 6 topics (27 model calls) in CI; 30 topics (126 calls) on demand.
    var course: SyntheticCourse {
        self == .small
            ? SyntheticCourse(id: "reliability-course", subjects: 2, topicsPerSubject: 3)
            : SyntheticCourse(id: "reliability-course", subjects: 6, topicsPerSubject: 5)
    }

    var kills: Int { self == .small ? 3 : 10 }

    /// The course of the fault suite: 30 topics (127 calls, so every fault kind shows up) in CI,
    /// 100 topics (411 calls) on demand.
    var faultCourse: SyntheticCourse {
        self == .small
            ? SyntheticCourse(id: "reliability-course", subjects: 6, topicsPerSubject: 5)
            : SyntheticCourse(id: "reliability-course", subjects: 10, topicsPerSubject: 10)
    }
}

enum Paths {
    static let repository = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let presets = repository.appendingPathComponent("pipelines/presets")
    /// The canned answers of a full course (shared with the pipeline tests).
    static let script = repository.appendingPathComponent("Tests/LecternPipelineTests/Fixtures/course-script.json")

    /// The built `lectern` binary, beside this test bundle's executable.
    static let lectern: URL = {
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = me.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("lectern")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return me.deletingLastPathComponent().appendingPathComponent("lectern")
    }()
}

/// A temporary directory, removed at deinit.
final class Scratch {
    let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-reliability-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    func url(_ name: String) -> URL { root.appendingPathComponent(name) }

    /// Writes `text` to `name` and returns its URL.
    func write(_ text: String, to name: String) throws -> URL {
        let url = url(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }
}

enum Course {
    static func presets() throws -> PresetLibrary { try PresetLibrary(directories: [Paths.presets]) }

    static func spec(_ yaml: String) throws -> JobSpec {
        try SpecLoader(presets: try presets()).load(YAMLSource(file: "reliability.yaml", data: Data(yaml.utf8)))
    }

    /// The answers of a clean scripted run of `course`: what the mock serves.
    static func recordedAnswers(_ course: SyntheticCourse, in scratch: Scratch) async throws -> MockAnswerBook {
        let spec = try spec(course.yaml(model: SyntheticCourse.scriptedModel(script: Paths.script.path, concurrency: 16)))
        let exchanger = Exchanger(
            providerKind: "scripted", provider: try ScriptedProvider(scriptAt: Paths.script, maxConcurrency: 16),
            cache: try ExchangeCache(root: scratch.url("record-cache")), mode: .record)
        let runner = JobRunner(spec: spec, presets: try presets(), exchanger: exchanger, renderer: nil, events: SilentEventSink())
        let result = try await runner.run(options: JobRunner.Options(outputRoot: scratch.url("record-output")))
        guard result.status == .complete else { throw TestFailure("recording the scripted course failed: \(result.failures)") }
        return MockAnswerBook(records: exchanger.usedRecords())
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Counts the engine's events: repairs, provider retries, failures.
final class CountingSink: EngineEventSink {
    private let counts = Mutex<(repairs: Int, providerEvents: Int, failed: Int, retryMessages: [String])>((0, 0, 0, []))

    func emit(_ event: EngineEvent) {
        counts.withLock { counts in
            switch event {
            case .itemRepairing: counts.repairs += 1
            case .provider(_, let message):
                counts.providerEvents += 1
                if counts.retryMessages.count < 200 { counts.retryMessages.append(message) }
            case .itemFailed: counts.failed += 1
            default: break
            }
        }
    }

    var repairs: Int { counts.withLock { $0.repairs } }
    var providerEvents: Int { counts.withLock { $0.providerEvents } }
    var failed: Int { counts.withLock { $0.failed } }
}

/// `lectern` as a child process.
enum LecternProcess {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
        var seconds: Double
    }

    /// Runs `lectern` to completion on a dispatch thread, so waiting never blocks the
    /// cooperative pool.
    static func run(_ arguments: [String], in directory: URL, environment: [String: String] = [:]) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try runBlocking(arguments, in: directory, environment: environment) })
            }
        }
    }

    /// Reads a pipe to its end on a thread of its own.
    final class ErrorPipeReader: @unchecked Sendable {
        private var data = Data()
        private let done = DispatchSemaphore(value: 0)
        init(_ pipe: Pipe?) {
            Thread { [self] in
                data = pipe?.fileHandleForReading.readAllRetryingInterrupts() ?? Data()
                done.signal()
            }.start()
        }
        func wait() -> Data {
            done.wait()
            return data
        }
    }

    static func runBlocking(_ arguments: [String], in directory: URL, environment: [String: String]) throws -> Output {
        let process = start(arguments, in: directory, environment: environment, capture: true)
        let started = Date()
        try process.process.run()
        // Both pipes at once: read one after the other, a child filling the second (64 KiB) blocks
        // while the first is read to its end (CLITests.runBlocking hung so on a replay's log).
        let errors = ErrorPipeReader(process.stderr)
        let out = process.stdout?.fileHandleForReading.readAllRetryingInterrupts() ?? Data()
        let err = errors.wait()
        process.process.waitUntilExit()
        return Output(
            status: process.process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self), seconds: Date().timeIntervalSince(started))
    }

    /// A configured, not yet started process; output captured in pipes or discarded.
    static func start(
        _ arguments: [String], in directory: URL, environment: [String: String], capture: Bool
    )
        -> (process: Process, stdout: Pipe?, stderr: Pipe?)
    {
        let process = Process()
        process.executableURL = Paths.lectern
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        if capture {
            let out = Pipe()
            let err = Pipe()
            process.standardOutput = out
            process.standardError = err
            return (process, out, err)
        }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        return (process, nil, nil)
    }

    /// The common `run` arguments.
    static func runArguments(spec: URL, cache: URL, output: URL) -> [String] {
        ["run", spec.path, "--cache-dir", cache.path, "--output", output.path, "--log-format", "json", "--presets", Paths.presets.path]
    }
}

/// Every file of a directory tree, by relative path.
func files(_ directory: URL) -> [String: Data] {
    var out: [String: Data] = [:]
    let base = directory.standardizedFileURL.path
    for case let url as URL in FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) ?? FileManager.DirectoryEnumerator() {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            out[String(url.standardizedFileURL.path.dropFirst(base.count + 1))] = FileManager.default.contents(atPath: url.path)
        }
    }
    return out
}

/// The item ids of the complete entries in a cache directory.
func cachedItems(_ cache: URL) -> [String] {
    files(cache.appendingPathComponent("exchanges")).compactMap { path, data -> String? in
        guard path.hasSuffix(".json"), !path.contains(".tmp-") else { return nil }
        return (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["item_id"] as? String
    }
}
