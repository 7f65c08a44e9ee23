import Foundation
import LecternMockLLM
import Testing

/// `lectern run --batch` through the mock server's batch APIs (OpenAI's Batch API, Anthropic's
/// Message Batches), with their faults: the first batch expires half done, some lines fail, some
/// are missing from the results. The run must end with every item, no request answered twice,
/// and the bundle of a run without --batch.
struct BatchTests {
    static let fastPolling = ["LECTERN_BATCH_POLL_SECONDS": "0.05", "LECTERN_BATCH_QUIET_MS": "50", "MOCK_LLM_KEY": "sk-mock"]

    @Test(
        "a batch run through each provider's batch API, with expired, failed and lost lines: the bundle of a normal run, nothing paid twice",
        arguments: ["openai", "anthropic"])
    func batchRunMatchesANormalRun(_ provider: String) async throws {
        let course = SyntheticCourse(id: "batch-course", subjects: 2, topicsPerSubject: 3)
        let scratch = try Scratch()
        let answers = try await Course.recordedAnswers(course, in: scratch)
        let faults = MockBatchConfiguration(seconds: 0.1, expireFirstBatch: true, failEveryNthLine: 7, dropEveryNthLine: 11)
        let server = try MockLLMServer(answers: answers, configuration: MockConfiguration(batch: faults))
        defer { server.stop() }
        let model =
            provider == "anthropic"
            ? SyntheticCourse.anthropicModel(baseURL: server.baseURL, concurrency: 4, keyVariable: "MOCK_LLM_KEY")
            : SyntheticCourse.openAIModel(baseURL: server.baseURL, concurrency: 4)
        let spec = try scratch.write(course.yaml(model: model), to: "job.yaml")
        let bundlePath = "\(course.id)/1.0.0"

        let normal = try await LecternProcess.run(
            LecternProcess.runArguments(spec: spec, cache: scratch.url("normal-cache"), output: scratch.url("normal")), in: scratch.root,
            environment: Self.fastPolling)
        #expect(normal.status == 0, "\(normal.stderr.suffix(1500))")
        server.resetStats()

        let batched = try await LecternProcess.run(
            LecternProcess.runArguments(spec: spec, cache: scratch.url("batch-cache"), output: scratch.url("batch")) + ["--batch"], in: scratch.root,
            environment: Self.fastPolling)
        #expect(batched.status == 0, "\(batched.stderr.suffix(3000))")
        let stats = server.stats
        #expect(stats.answered == course.modelCalls, "every call answered once: \(stats.answered) of \(course.modelCalls)")
        #expect(stats.repeatedAnswers == 0, "nothing paid twice: \(stats.itemsAnsweredMoreThanOnce)")
        #expect(files(scratch.url("batch/\(bundlePath)")) == files(scratch.url("normal/\(bundlePath)")), "the bundle of a normal run")
        // The status lines went to the log: submitted, ended, asked again.
        #expect(batched.stderr.contains("submitted batch"), "\(batched.stderr.suffix(1000))")
        // The faults happened and were recovered from: lines asked again in a later round.
        let askedAgain = batched.stderr.matches(of: /(\d+) to ask again/).compactMap { Int($0.1) }
        #expect(askedAgain.count >= 3 && askedAgain.contains { $0 > 0 }, "\(askedAgain)")
        #expect(batched.stderr.contains(provider == "openai" ? " expired: " : "msgbatch_1 ended: "), "the first batch expired half done")
        // The journal is empty once every answer went to its item.
        let journal = (try? FileManager.default.contentsOfDirectory(atPath: scratch.url("batch-cache/batches").path)) ?? []
        #expect(journal.filter { $0.hasSuffix(".json") }.isEmpty, "\(journal)")
    }

    @Test("a batch run killed while its batch is out: the run again finds the batch in its journal and submits nothing twice")
    func aKilledBatchRunResumesItsBatch() async throws {
        let course = SyntheticCourse(id: "batch-resume", subjects: 1, topicsPerSubject: 3)
        let scratch = try Scratch()
        let answers = try await Course.recordedAnswers(course, in: scratch)
        // Batches take 1.5 s: long enough to kill the run while the first one is out.
        let server = try MockLLMServer(answers: answers, configuration: MockConfiguration(batch: MockBatchConfiguration(seconds: 1.5)))
        defer { server.stop() }
        let spec = try scratch.write(course.yaml(model: SyntheticCourse.openAIModel(baseURL: server.baseURL, concurrency: 4)), to: "job.yaml")
        let arguments = LecternProcess.runArguments(spec: spec, cache: scratch.url("cache"), output: scratch.url("out")) + ["--batch"]
        let journal = scratch.url("cache/batches")

        let root = scratch.root
        let killed = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Bool, any Error>) in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result {
                        let (process, _, _) = LecternProcess.start(arguments, in: root, environment: Self.fastPolling, capture: false)
                        try process.run()
                        let deadline = Date().addingTimeInterval(30)
                        while process.isRunning && Date() < deadline {
                            let entries = (try? FileManager.default.contentsOfDirectory(atPath: journal.path)) ?? []
                            if entries.contains(where: { $0.hasSuffix(".json") }) { break }
                            usleep(2_000)
                        }
                        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                        process.waitUntilExit()
                        return process.terminationReason == .uncaughtSignal
                    })
            }
        }
        #expect(killed, "killed with a batch out")
        let submittedBeforeKill = server.stats.requests
        #expect(submittedBeforeKill > 0)

        let resumed = try await LecternProcess.run(arguments, in: scratch.root, environment: Self.fastPolling)
        #expect(resumed.status == 0, "\(resumed.stderr.suffix(2000))")
        #expect(resumed.stderr.contains("resuming batch"), "\(resumed.stderr.suffix(1000))")
        let stats = server.stats
        #expect(stats.requests == course.modelCalls, "each request submitted once, across the kill: \(stats.requests) of \(course.modelCalls)")
        #expect(stats.repeatedAnswers == 0, "\(stats.itemsAnsweredMoreThanOnce)")
        #expect(stats.answered == course.modelCalls)
    }
}
