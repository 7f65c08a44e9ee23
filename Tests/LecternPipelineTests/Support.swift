import Foundation
import LecternBundle
import LecternCore
import LecternLLM
import Synchronization

@testable import LecternPipeline

/// A scripted provider that records every request it answers.
final class RecordingProvider: LLMProvider {
    let kind = "scripted"
    let maxConcurrency: Int
    let inner: ScriptedProvider
    let delay: Duration
    private let log = Mutex<[(RequestContext, LLMRequest)]>([])
    private let inFlight = Mutex<(now: Int, peak: Int)>((0, 0))

    init(script: URL, maxConcurrency: Int = 4, delay: Duration = .zero) throws {
        self.inner = try ScriptedProvider(scriptAt: script, maxConcurrency: maxConcurrency)
        self.maxConcurrency = maxConcurrency
        self.delay = delay
    }

    func complete(_ request: LLMRequest, context: RequestContext) async throws -> LLMResponse {
        log.withLock { $0.append((context, request)) }
        inFlight.withLock {
            $0.now += 1
            $0.peak = max($0.peak, $0.now)
        }
        defer { inFlight.withLock { $0.now -= 1 } }
        if delay > .zero { try await Task.sleep(for: delay) }
        return try await inner.complete(request, context: context)
    }

    var calls: [RequestContext] { log.withLock { $0.map(\.0) } }
    var requests: [(RequestContext, LLMRequest)] { log.withLock { $0 } }
    var calledItems: [String] { calls.map(\.itemID) }
    var peakConcurrency: Int { inFlight.withLock { $0.peak } }
}

/// A temporary workspace: cache, output and scripts, removed at deinit.
final class Workspace {
    let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-test-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    var cacheRoot: URL { root.appendingPathComponent("cache") }
    var output: URL { root.appendingPathComponent("output") }

    static let fixtures = Bundle.module.resourceURL!.appendingPathComponent("Fixtures")
    static let repository = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The standard course script, with `extra` answers added (more specific ones win).
    func script(extra: [JSONValue] = [], delayMilliseconds: Int = 0, name: String = "script.json") throws -> URL {
        let base = try JSONValue.parse(String(contentsOf: Self.fixtures.appendingPathComponent("course-script.json"), encoding: .utf8))
        var answers = base["answers"]?.arrayValue ?? []
        answers.append(contentsOf: extra)
        let script: JSONValue = ["delay_ms": .number(Double(delayMilliseconds)), "answers": .array(answers)]
        let url = root.appendingPathComponent(name)
        try script.canonicalText.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    static func presets() throws -> PresetLibrary {
        try PresetLibrary(directories: [repository.appendingPathComponent("pipelines/presets")])
    }

    static func spec(_ yaml: String) throws -> JobSpec {
        try SpecLoader(presets: try presets()).load(YAMLSource(file: "test.yaml", data: Data(yaml.utf8)))
    }

    func runner(
        _ spec: JobSpec, provider: (any LLMProvider)?, mode: CacheMode = .record, events: any EngineEventSink = SilentEventSink(),
        cost: @escaping CostFunction = { _, _, _ in 0 }, renderer: (any DocumentRenderer)? = nil
    ) throws -> JobRunner {
        let cache = try ExchangeCache(root: cacheRoot)
        let exchanger = Exchanger(providerKind: "scripted", provider: provider, cache: cache, mode: mode)
        return JobRunner(spec: spec, presets: try Self.presets(), exchanger: exchanger, renderer: renderer, events: events, cost: cost)
    }

    func run(
        _ spec: JobSpec, provider: (any LLMProvider)?, mode: CacheMode = .record, allowPartial: Bool = false, output: URL? = nil,
        cost: @escaping CostFunction = { _, _, _ in 0 }, renderer: (any DocumentRenderer)? = nil
    ) async throws -> JobRunner.Result {
        try await runner(spec, provider: provider, mode: mode, cost: cost, renderer: renderer).run(
            options: JobRunner.Options(outputRoot: output ?? self.output, allowPartial: allowPartial))
    }

    /// Validates the JSON file at `file` against `docs/schemas/<schema>` with Python's
    /// `jsonschema` (Draft 2020-12); the validator's complaint, or nil when it is valid.
    static func schemaProblems(_ file: URL, schema: String) throws -> String? {
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        check.arguments = [
            "-c", "import json, sys, jsonschema; jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))",
            repository.appendingPathComponent("docs/schemas/\(schema)").path, file.path,
        ]
        let errors = Pipe()
        check.standardError = errors
        try check.run()
        let complaint = errors.fileHandleForReading.readAllRetryingInterrupts()
        check.waitUntilExit()
        return check.terminationStatus == 0 ? nil : String(decoding: complaint, as: UTF8.self)
    }

    /// Every file of a bundle directory, by relative path.
    static func files(_ directory: URL) -> [String: Data] {
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
}

/// Specs used across the tests.
enum Specs {
    static let python = """
        kind: course
        id: python-basics
        version: 1.0.0
        description: An introduction to programming with Python for people who have never written code.
        curriculum:
          preset: basic-to-advanced
          subjects: { min: 2, max: 2 }
          topics_per_subject: { min: 2, max: 3 }
        tone:
          presets: [eli5]
          text: friendly, with everyday analogies
        addons: { reinforcement: true }
        model: { provider: scripted, script: unused.json, max_concurrency: 4 }
        """

    static let pinned = """
        kind: course
        id: pinned-course
        description: A course with a pinned outline.
        outline:
          title: Pinned Python
          subjects:
            - title: Basics
              topics:
                - { title: Variables and values, objective: Store values with names. }
                - { title: Loops, objective: Repeat work with loops. }
                - { title: Conditions, objective: Choose between paths. }
            - title: Functions
              topics:
                - { title: Defining functions, objective: Write functions. }
                - { title: Return values, objective: Return results. }
        tone: { presets: [eli5] }
        model: { provider: scripted, script: unused.json }
        """
}
