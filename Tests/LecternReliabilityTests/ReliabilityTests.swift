import Foundation
import LecternCore
import LecternLLM
import LecternMockLLM
import LecternPipeline
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The reliability suite: injected faults, a revoked key and SIGKILLs, against the mock LLM
/// server. CI runs the small size; `benchmarks/run-reliability.sh --size large` the large one.
@Suite("Reliability: faults, a revoked key, SIGKILL and resume", .serialized)
struct ReliabilityTests {
    static let faultSeed: UInt64 = 20_261_122

    @Test(
        "20% injected faults: no item fails, retries are bounded, and the bundle equals a fault-free run's",
        arguments: ["openai", "anthropic"], [false, true])
    func injectedFaults(_ kind: String, streaming: Bool) async throws {
        let course = SuiteSize.current.faultCourse
        let scratch = try Scratch()
        let answers = try await Course.recordedAnswers(course, in: scratch)

        let clean = try MockLLMServer(answers: answers, configuration: MockConfiguration(latency: .uniform(minimum: 2, maximum: 10)))
        let reference = try await Self.runInProcess(kind, server: clean, course: course, scratch: scratch, name: "reference")
        clean.stop()
        #expect(reference.status == .complete)

        let faults = FaultRates.spread(0.2)
        let server = try MockLLMServer(
            answers: answers,
            configuration: MockConfiguration(
                latency: .uniform(minimum: 5, maximum: 30), faults: faults, retryAfterSeconds: 1, hangSeconds: 20, seed: Self.faultSeed))
        defer { server.stop() }
        let sink = CountingSink()
        let started = Date()
        let result = try await Self.runInProcess(kind, server: server, course: course, scratch: scratch, name: "faulty", sink: sink, streaming: streaming)
        let seconds = Date().timeIntervalSince(started)
        let stats = server.stats

        let extra = stats.requests - course.modelCalls
        print(
            "reliability[\(kind)\(streaming ? " streaming" : ""), \(SuiteSize.current.rawValue)]: \(course.modelCalls) calls, \(stats.requests) requests (\(extra) extra), "
                + "faults \(stats.faults.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")) (\(stats.totalFaults) total), "
                + "provider retries/events \(sink.providerEvents), repairs \(sink.repairs), failed items \(result.failures.count), "
                + String(format: "%.1f s", seconds))

        #expect(result.status == .complete, "\(result.failures.map(\.description))")
        #expect(result.failures.isEmpty)
        for fault in FaultKind.allCases where streaming || fault != .cutStream {
            #expect(stats.faults[fault.rawValue, default: 0] > 0, "a \(fault.rawValue) fault was injected")
        }
        // Bounded: each fault costs at most one extra request.
        #expect(stats.requests == course.modelCalls + stats.totalFaults)
        #expect(extra <= course.modelCalls / 2, "retries stay bounded: \(extra) extra requests for \(course.modelCalls) calls")
        // Every item was paid for once, plus once for each bad answer the mock billed it.
        for (item, counts) in stats.items {
            let billedFaults = [FaultKind.truncated, .invalidJSON, .wrongContent, .cutStream].reduce(0) { $0 + counts.faults[$1.rawValue, default: 0] }
            #expect(counts.answered == 1 + billedFaults, "\(item): \(counts)")
        }
        // No wrong, cut or broken answer reached the bundle. (Its quality report, which counts
        // the repairs the wrong answers caused, differs by design; it reports no failure.)
        let expected = files(reference.bundle).filter { $0.key != "manifest.json" && $0.key != "quality.json" }
        let actual = files(result.bundle).filter { $0.key != "manifest.json" && $0.key != "quality.json" }
        #expect(result.quality?.items.failed == 0 && result.quality?.items.blindSolve.asked == 3 * course.topics)
        #expect(!expected.isEmpty)
        #expect(actual == expected)
    }

    @Test("a repair that gets the same wrong answer twice asks the model again instead of replaying it from the cache")
    func repeatedWrongAnswerIsAskedAgain() async throws {
        // Two lectures: a lecture's "other topic" is then always the same one, so the first two
        // asks of lecture/s01-t01 get the identical wrong answer; the third ask gets the right one.
        let course = SyntheticCourse(id: "repeat-course", subjects: 1, topicsPerSubject: 2)
        let scratch = try Scratch()
        let answers = try await Course.recordedAnswers(course, in: scratch)
        let server = try MockLLMServer(
            answers: answers, configuration: MockConfiguration(scriptedFaults: ["lecture/s01-t01": [.wrongContent, .wrongContent]]))
        defer { server.stop() }
        let result = try await Self.runInProcess("openai", server: server, course: course, scratch: scratch, name: "repeat")
        let requests = server.stats.items["lecture/s01-t01"]?.requests ?? 0
        print("reliability[repeat]: lecture/s01-t01 asked \(requests) times over 3 attempts; status \(result.status)")
        // Each repair names its attempt, so attempt 3 is a new request even when the model
        // repeated the same wrong answer: it is asked again, not answered from the cache.
        #expect(requests == 3)
        #expect(result.status == .complete)
    }

    @Test("a key revoked mid-run: exit 3 within seconds with a clear message; finished work is kept and not paid again")
    func revokedKey() async throws {
        let course = SuiteSize.small.course
        let scratch = try Scratch()
        let answers = try await Course.recordedAnswers(course, in: scratch)
        let server = try MockLLMServer(answers: answers, configuration: MockConfiguration(latency: .fixed(milliseconds: 20), auth: .revokeAfter(8)))
        defer { server.stop() }
        let spec = try scratch.write(
            course.yaml(model: SyntheticCourse.openAIModel(baseURL: server.baseURL, concurrency: 2, keyVariable: "MOCK_LLM_KEY")), to: "job.yaml")
        let arguments = LecternProcess.runArguments(spec: spec, cache: scratch.url("cache"), output: scratch.url("output"))
        let environment = ["MOCK_LLM_KEY": "sk-mock-revoked"]

        let failed = try await LecternProcess.run(arguments, in: scratch.root, environment: environment)
        print(
            String(
                format: "reliability[401]: exit %d after %.2f s; %d answered before the revocation", failed.status, failed.seconds,
                server.stats.answered))
        #expect(failed.status == 3)
        #expect(failed.seconds < 30, "a permanent 401 ends the run within seconds")
        #expect(
            failed.stderr.contains("401") && failed.stderr.contains("MOCK_LLM_KEY") && failed.stderr.contains("refused"),
            "\(failed.stderr.suffix(2000))")
        #expect(failed.stderr.contains("finished items are cached"))
        #expect(!failed.stderr.contains("sk-mock-revoked"), "the key never appears in messages")
        #expect(!FileManager.default.fileExists(atPath: scratch.url("output/\(course.id)").path))
        let kept = cachedItems(scratch.url("cache"))
        #expect(!kept.isEmpty)
        #expect(kept.count == server.stats.answered, "every answer received before the failure is kept")

        server.reconfigure(MockConfiguration(latency: .fixed(milliseconds: 20)))
        let resumed = try await LecternProcess.run(arguments, in: scratch.root, environment: environment)
        #expect(resumed.status == 0, "\(resumed.stderr.suffix(2000))")
        let stats = server.stats
        #expect(stats.answered == course.modelCalls)
        #expect(stats.repeatedAnswers == 0, "nothing paid twice: \(stats.itemsAnsweredMoreThanOnce)")
    }

    @Test("SIGKILLs, each followed by a resume: byte-identical bundle; only requests in flight at a kill are paid again")
    func killAndResume() async throws {
        let size = SuiteSize.current
        let course = size.course
        let concurrency = 4
        let scratch = try Scratch()
        let answers = try await Course.recordedAnswers(course, in: scratch)
        let server = try MockLLMServer(answers: answers, configuration: MockConfiguration(latency: .uniform(minimum: 20, maximum: 60), seed: 3))
        defer { server.stop() }
        let spec = try scratch.write(
            course.yaml(model: SyntheticCourse.openAIModel(baseURL: server.baseURL, concurrency: concurrency)), to: "job.yaml")
        let bundlePath = "\(course.id)/1.0.0"

        // The uninterrupted run to compare with.
        let reference = try await LecternProcess.run(
            LecternProcess.runArguments(spec: spec, cache: scratch.url("reference-cache"), output: scratch.url("reference-output")), in: scratch.root)
        #expect(reference.status == 0, "\(reference.stderr.suffix(2000))")
        let expected = files(scratch.url("reference-output/\(bundlePath)"))
        #expect(expected.count > course.topics)
        server.resetStats()

        let arguments = LecternProcess.runArguments(spec: spec, cache: scratch.url("cache"), output: scratch.url("output"))
        var random = SystemRandomNumberGenerator()
        var lostAtKills: [Int] = []
        var unstoredSoFar = 0
        for kill in 1...size.kills {
            let answered = server.stats.answered
            let remaining = course.modelCalls - answered
            let step = max(1, remaining / (size.kills - kill + 2))
            let target = min(course.modelCalls - 1, answered + step + Int.random(in: 0...max(0, step / 2), using: &random))
            let killed = try await Self.runAndKill(arguments, in: scratch.root, server: server, whenAnswered: target)
            #expect(killed, "kill \(kill) caught the run mid-way")
            // Answers the mock sent that never reached the cache: the requests in flight at the kill.
            let stored = Set(cachedItems(scratch.url("cache")))
            let unstored = server.stats.items.reduce(0) { total, entry in
                total + entry.value.answered - (stored.contains(entry.key) ? 1 : 0)
            }
            lostAtKills.append(unstored - unstoredSoFar)
            unstoredSoFar = unstored
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.url("output/\(bundlePath)").path))

        let resumed = try await LecternProcess.run(arguments, in: scratch.root)
        #expect(resumed.status == 0, "\(resumed.stderr.suffix(2000))")
        let stats = server.stats
        print(
            "reliability[kill, \(size.rawValue)]: \(size.kills) SIGKILLs; \(course.modelCalls) calls, \(stats.answered) answers, "
                + "\(stats.repeatedAnswers) repeated (in flight at a kill, per kill: \(lostAtKills)), bound \(concurrency) per kill")
        #expect(files(scratch.url("output/\(bundlePath)")) == expected, "byte-identical to the uninterrupted run")
        #expect(stats.answered == course.modelCalls + stats.repeatedAnswers)
        #expect(stats.repeatedAnswers == lostAtKills.reduce(0, +), "only answers lost at a kill are asked again")
        for lost in lostAtKills { #expect(lost <= concurrency, "at most the requests in flight are lost at a kill") }
    }

    // MARK: Helpers

    struct InProcessRun {
        var status: JobRunner.Result.Status
        var failures: [ItemFailure]
        var bundle: URL
        var quality: QualityReport?
    }

    /// Runs the course in-process through a real HTTP provider (short timeouts, so a hung
    /// request costs seconds, not the default ten minutes).
    static func runInProcess(
        _ kind: String, server: MockLLMServer, course: SyntheticCourse, scratch: Scratch, name: String, sink: CountingSink = CountingSink(),
        streaming: Bool = false
    ) async throws -> InProcessRun {
        let model =
            kind == "anthropic"
            ? SyntheticCourse.anthropicModel(baseURL: server.baseURL, concurrency: 4, keyVariable: "MOCK_LLM_KEY")
            : SyntheticCourse.openAIModel(baseURL: server.baseURL, concurrency: 4)
        let spec = try Course.spec(course.yaml(model: model))
        let configuration = ProviderConfiguration(
            kind: kind, model: spec.model.name, baseURL: server.baseURL.appendingPathComponent("v1"),
            apiKeyEnvironmentVariable: kind == "anthropic" ? "MOCK_LLM_KEY" : nil, maxConcurrency: 4, connectTimeoutSeconds: 2,
            requestTimeoutSeconds: 2, maxRetries: 3, maxTokensCeiling: 8_192, defaultMaxTokens: spec.model.maxTokens, stream: streaming)
        let provider = try ProviderFactory.make(configuration, environment: ["MOCK_LLM_KEY": "sk-mock"]) { event in
            sink.emit(.provider(id: event.itemID ?? "-", message: event.message))
        }
        let exchanger = Exchanger(providerKind: kind, provider: provider, cache: try ExchangeCache(root: scratch.url("\(name)-cache")), mode: .record)
        let runner = JobRunner(spec: spec, presets: try Course.presets(), exchanger: exchanger, renderer: nil, events: sink)
        let output = scratch.url("\(name)-output")
        let result = try await runner.run(options: JobRunner.Options(outputRoot: output))
        return InProcessRun(
            status: result.status, failures: result.failures, bundle: output.appendingPathComponent("\(course.id)/1.0.0"), quality: result.quality)
    }

    /// Starts `lectern`, SIGKILLs it once the mock has answered `target` requests in total, and
    /// reports whether it was killed (rather than finishing first).
    static func runAndKill(_ arguments: [String], in directory: URL, server: MockLLMServer, whenAnswered target: Int) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result {
                        let (process, _, _) = LecternProcess.start(arguments, in: directory, environment: [:], capture: false)
                        try process.run()
                        let deadline = Date().addingTimeInterval(60)
                        while process.isRunning && server.stats.answered < target && Date() < deadline { usleep(1_000) }
                        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                        process.waitUntilExit()
                        return process.terminationReason == .uncaughtSignal
                    })
            }
        }
    }
}
