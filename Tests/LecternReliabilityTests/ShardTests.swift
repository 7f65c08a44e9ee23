import Foundation
import LecternMockLLM
import LecternPipeline
import Testing

/// `lectern run --shard K/N` against the mock server, the way docs/scale.md runs it on a
/// scheduler: the planning run (shard 0) seeds every shard's cache; four shards run in parallel,
/// each into its own cache; the caches are merged with `cache export`/`import`; a run without
/// --shard assembles the bundle offline.
struct ShardTests {
    @Test("a course in 4 shards: no item asked twice, the assembled bundle byte-identical to a single run's")
    func fourShardsAssembleTheSameBundle() async throws {
        let course = SyntheticCourse(id: "shard-course", subjects: 3, topicsPerSubject: 4)
        let scratch = try Scratch()
        let answers = try await Course.recordedAnswers(course, in: scratch)
        let server = try MockLLMServer(answers: answers, configuration: MockConfiguration(latency: .uniform(minimum: 2, maximum: 8), seed: 5))
        defer { server.stop() }
        let spec = try scratch.write(course.yaml(model: SyntheticCourse.openAIModel(baseURL: server.baseURL, concurrency: 4)), to: "job.yaml")
        let bundlePath = "\(course.id)/1.0.0"

        let single = try await LecternProcess.run(
            LecternProcess.runArguments(spec: spec, cache: scratch.url("single-cache"), output: scratch.url("single-output")), in: scratch.root)
        #expect(single.status == 0, "\(single.stderr.suffix(2000))")
        let expected = files(scratch.url("single-output/\(bundlePath)"))
        #expect(expected.count > course.topics)
        server.resetStats()

        func lectern(_ arguments: [String]) async throws -> LecternProcess.Output {
            try await LecternProcess.run(arguments, in: scratch.root)
        }
        // The planning run: the curriculum only.
        let planning = try await lectern(LecternProcess.runArguments(spec: spec, cache: scratch.url("plan-cache"), output: scratch.url("unused")) + ["--shard", "0/4"])
        #expect(planning.status == 0, "\(planning.stderr.suffix(1000))")
        // The synthetic course pins its outline, so its shared stage (the curriculum) asks nothing.
        #expect(server.stats.answered == 0, "shard 0 runs the shared stages only")
        #expect(planning.stderr.contains("no bundle written"), "\(planning.stderr.suffix(500))")
        #expect(try await lectern(["cache", "export", scratch.url("plan.jsonl").path, "--cache-dir", scratch.url("plan-cache").path]).status == 0)

        // Four shards in parallel, each seeded with the plan, each into its own cache.
        let answeredBefore = server.stats.answered
        let root = scratch.root
        let plan = scratch.url("plan.jsonl").path
        let unused = scratch.url("unused")
        let shards = try await withThrowingTaskGroup(of: (Int, LecternProcess.Output).self) { group in
            for k in 1...4 {
                let cache = scratch.url("shard-\(k)-cache")
                group.addTask {
                    let seeded = try await LecternProcess.run(["cache", "import", plan, "--cache-dir", cache.path], in: root)
                    guard seeded.status == 0 else { return (k, seeded) }
                    return (k, try await LecternProcess.run(
                        LecternProcess.runArguments(spec: spec, cache: cache, output: unused) + ["--shard", "\(k)/4"], in: root))
                }
            }
            var out: [Int: LecternProcess.Output] = [:]
            for try await (k, output) in group { out[k] = output }
            return out
        }
        var perShard: [Int] = []
        for k in 1...4 {
            let output = try #require(shards[k])
            #expect(output.status == 0, "shard \(k): \(output.stderr.suffix(1000))")
            let stored = Set(cachedItems(scratch.url("shard-\(k)-cache")))
            perShard.append(stored.count)
        }
        let stats = server.stats
        // A subject's ending project waits for the subject's lectures, which are spread over the
        // shards here: each project is the assembling run's.
        let projects = course.subjects
        #expect(stats.repeatedAnswers == 0, "no item asked twice: \(stats.itemsAnsweredMoreThanOnce)")
        #expect(stats.answered - answeredBefore == course.modelCalls - projects, "every item but the projects once, across the shards")
        #expect(perShard.reduce(0, +) == course.modelCalls - projects && perShard.allSatisfy { $0 > 0 }, "\(perShard)")

        // Merge, then assemble: the projects' calls only.
        for k in 1...4 {
            let shardFile = scratch.url("shard-\(k).jsonl").path
            #expect(try await lectern(["cache", "export", shardFile, "--cache-dir", scratch.url("shard-\(k)-cache").path]).status == 0)
            #expect(try await lectern(["cache", "import", shardFile, "--cache-dir", scratch.url("merged-cache").path]).status == 0)
        }
        let answeredBeforeAssembly = server.stats.answered
        let assembled = try await lectern(
            LecternProcess.runArguments(spec: spec, cache: scratch.url("merged-cache"), output: scratch.url("assembled")))
        #expect(assembled.status == 0, "\(assembled.stderr.suffix(2000))")
        #expect(server.stats.answered - answeredBeforeAssembly == projects, "the assembling run writes the projects and nothing else")
        #expect(server.stats.repeatedAnswers == 0, "\(server.stats.itemsAnsweredMoreThanOnce)")
        #expect(files(scratch.url("assembled/\(bundlePath)")) == expected, "byte-identical to the single run")
        print("shards[4]: \(course.modelCalls) calls; per shard \(perShard)")
    }

    @Test("the partition: shared stages everywhere, a topic's chain in one shard, cross-shard work left to assembly")
    func thePartitionKeepsChainsTogether() {
        let shard = Shard(index: 2, count: 4)
        let shared: Set<String> = ["curriculum"]
        #expect(shard.assignment(id: "curriculum", stage: "curriculum", dependencies: [], sharedStages: shared) == .shared)
        let lecture = shard.assignment(id: "lecture/s01-t01", stage: "lecture", dependencies: [.shared], sharedStages: shared)
        guard case .shard(let home) = lecture else {
            Issue.record("a lecture has a shard")
            return
        }
        #expect(home == shard.home(of: "lecture/s01-t01") && (1...4).contains(home))
        #expect(shard.assignment(id: "engagement-question/s01-t01", stage: "engagement-question", dependencies: [lecture], sharedStages: shared) == lecture)
        #expect(shard.assignment(id: "bank", stage: "bank", dependencies: [.shard(1), .shard(3)], sharedStages: shared) == .assembly)
        #expect(shard.assignment(id: "forms", stage: "forms", dependencies: [.assembly], sharedStages: shared) == .assembly)
        // A shared stage after partitioned work is not shared.
        #expect(shard.assignment(id: "curriculum", stage: "curriculum", dependencies: [.shard(3)], sharedStages: shared) == .shard(3))
        // Spread: 4,000 ids over 4 shards, each within 10 % of a quarter.
        var counts = [0, 0, 0, 0]
        for n in 0..<4_000 { counts[shard.home(of: "lecture/s\(n)") - 1] += 1 }
        #expect(counts.allSatisfy { abs($0 - 1_000) < 100 }, "\(counts)")
        #expect(Shard(parsing: "0/4") == Shard(index: 0, count: 4) && Shard(parsing: "5/4") == nil && Shard(parsing: "1/0") == nil && Shard(parsing: "x") == nil)
    }
}
