import Foundation
import LecternMockLLM
import LecternPipeline
import Testing

/// `lectern run --shard K/N` against the mock server, the way docs/scale.md runs it on a
/// scheduler: the planning run (shard 0) seeds every shard's cache; the shards run in parallel,
/// each into its own cache; the caches are merged with `cache export`/`import` (and, when a shard
/// waits for other shards' answers — an exam's bank check —, imported into every shard for a
/// second round); a run without --shard assembles the bundle with `--cache offline`: no model,
/// no network.
struct ShardTests {
    /// `lectern run …` again while it exits 1 (items failed), at most `runs` times: how a run
    /// gives failed items another round of attempts, finished ones read from its cache. A
    /// recording made over several runs (the examples' cassettes) is replayed so.
    static func runAgainWhileItemsFail(_ arguments: [String], in directory: URL, runs: Int = 12) async throws -> (LecternProcess.Output, runs: Int) {
        var output = try await LecternProcess.run(arguments, in: directory)
        var count = 1
        while output.status == 1 && count < runs {
            output = try await LecternProcess.run(arguments, in: directory)
            count += 1
        }
        return (output, count)
    }

    /// What the steps of docs/scale.md did.
    struct ShardedRun {
        /// Rounds of shards until none waited for another's answers.
        var rounds = 0
        /// Calls the mock answered from the planning run to the last round, and those items.
        var calls = 0
        var callsByItem: [String: Int] = [:]
        /// Cache entries each shard wrote in its first round.
        var entries: [Int] = []
        var assembly: LecternProcess.Output
        /// Calls the mock answered during the assembling run.
        var assemblyCalls: Int
    }

    /// docs/scale.md's steps for `spec` in `count` shards through the `lectern` binary; the bundle
    /// is assembled into `output`.
    static func sharded(_ spec: URL, count: Int, server: MockLLMServer, scratch: Scratch, output: URL, maxRounds: Int = 3) async throws -> ShardedRun {
        let root = scratch.root
        func lectern(_ arguments: [String]) async throws -> LecternProcess.Output {
            let output = try await LecternProcess.run(arguments, in: root)
            #expect(output.status == 0, "lectern \(arguments.prefix(4).joined(separator: " ")): \(output.stderr.suffix(1500))")
            return output
        }
        func export(_ cache: String, to file: String) async throws {
            _ = try await lectern(["cache", "export", scratch.url(file).path, "--cache-dir", scratch.url(cache).path])
        }
        func importing(_ file: String, into cache: String) async throws {
            _ = try await lectern(["cache", "import", scratch.url(file).path, "--cache-dir", scratch.url(cache).path])
        }
        server.resetStats()
        let unused = scratch.url("unused")
        // The planning run: the shared stages only.
        let planning = try await lectern(
            LecternProcess.runArguments(spec: spec, cache: scratch.url("plan-cache"), output: unused) + ["--shard", "0/\(count)"])
        #expect(planning.stderr.contains("no bundle written"), "\(planning.stderr.suffix(500))")
        try await export("plan-cache", to: "plan.jsonl")
        var seed = "plan.jsonl"
        var run = ShardedRun(assembly: LecternProcess.Output(status: -1, stdout: "", stderr: "", seconds: 0), assemblyCalls: 0)
        while run.rounds < maxRounds {
            run.rounds += 1
            // The shards in parallel, each seeded with the plan or the last merge, each into its own cache.
            let seedPath = scratch.url(seed).path
            let shards = try await withThrowingTaskGroup(of: (Int, LecternProcess.Output).self) { group in
                for k in 1...count {
                    let cache = scratch.url("shard-\(k)-cache")
                    group.addTask {
                        let seeded = try await LecternProcess.run(["cache", "import", seedPath, "--cache-dir", cache.path], in: root)
                        guard seeded.status == 0 else { return (k, seeded) }
                        return (
                            k,
                            try await runAgainWhileItemsFail(
                                LecternProcess.runArguments(spec: spec, cache: cache, output: unused) + ["--shard", "\(k)/\(count)"], in: root
                            ).0
                        )
                    }
                }
                var out: [Int: LecternProcess.Output] = [:]
                for try await (k, output) in group { out[k] = output }
                return out
            }
            var waiting = false
            for k in 1...count {
                let output = try #require(shards[k])
                #expect(output.status == 0, "round \(run.rounds), shard \(k): \(output.stderr.suffix(1500))")
                #expect(!output.stderr.contains("left to the assembling run, which will call the model"), "\(output.stderr.suffix(800))")
                if output.stderr.contains("for other shards' answers") { waiting = true }
                if run.rounds == 1 { run.entries.append(cachedItems(scratch.url("shard-\(k)-cache")).count) }
            }
            // Merge: every shard's cache into one, exported to seed the next round.
            for k in 1...count {
                try await export("shard-\(k)-cache", to: "shard-\(k).jsonl")
                try await importing("shard-\(k).jsonl", into: "merged-cache")
            }
            try await export("merged-cache", to: "merged-\(run.rounds).jsonl")
            seed = "merged-\(run.rounds).jsonl"
            if !waiting { break }
        }
        let stats = server.stats
        run.calls = stats.answered
        run.callsByItem = stats.items.compactMapValues { $0.answered > 0 ? $0.answered : nil }
        run.assembly = try await LecternProcess.run(
            LecternProcess.runArguments(spec: spec, cache: scratch.url("merged-cache"), output: output) + ["--cache", "offline"], in: root)
        run.assemblyCalls = server.stats.answered - stats.answered
        return run
    }

    @Test(
        "a course in 4 shards: a subject's topics and its project in one shard, no item asked twice, the offline assembly asks nothing and writes a single run's bytes"
    )
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

        let run = try await Self.sharded(spec, count: 4, server: server, scratch: scratch, output: scratch.url("assembled"))
        #expect(run.rounds == 1, "a course needs one round of shards")
        // The synthetic course pins its outline, so the planning run asked nothing; every item,
        // the projects included, was asked once, in a shard.
        #expect(run.callsByItem.values.allSatisfy { $0 == 1 }, "no item asked twice: \(run.callsByItem.filter { $0.value > 1 })")
        #expect(run.calls == course.modelCalls, "every item once, across the shards")
        #expect(run.entries.reduce(0, +) == course.modelCalls && run.entries.filter { $0 > 0 }.count >= 2, "\(run.entries)")
        #expect(run.assembly.status == 0, "\(run.assembly.stderr.suffix(2000))")
        #expect(run.assemblyCalls == 0, "the assembling run asks nothing")
        #expect(files(scratch.url("assembled/\(bundlePath)")) == expected, "byte-identical to the single run")
        print("shards[4]: \(course.modelCalls) calls; per shard \(run.entries)")
    }

    /// An example spec with its model pointed at the mock server, written where its relative
    /// paths (the exam's corpus) still resolve. Not streamed: a streamed answer that runs into a
    /// loop is stopped where the client sees the loop, which depends on how the bytes arrived, and
    /// the recorded loop's usage (in the manifest) with it.
    static func example(_ name: String, server: MockLLMServer, scratch: Scratch) throws -> URL {
        let text = try String(contentsOf: Paths.repository.appendingPathComponent("pipelines/examples/\(name).yaml"), encoding: .utf8)
        let pointed = text.replacingOccurrences(
            of: "  provider: local\n", with: "  provider: openai\n  base_url: \(server.baseURL.absoluteString)/v1\n  stream: false\n"
        )
        .replacingOccurrences(of: "  max_concurrency: 2\n", with: "  max_concurrency: 4\n")
        #expect(pointed != text && pointed.contains("max_concurrency: 4"), "the example's model block changed: update this test")
        try FileManager.default.createDirectory(at: scratch.url("pipelines/examples"), withIntermediateDirectories: true)
        // The scratch folder is the spec's project (a spec reads files only inside its project,
        // links resolved): the corpus is copied in, not linked.
        if !FileManager.default.fileExists(atPath: scratch.url("corpus").path) {
            try FileManager.default.createDirectory(at: scratch.url(".git"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Paths.repository.appendingPathComponent("corpus"), to: scratch.url("corpus"))
        }
        // The example's review decisions are part of it (an edited item is the reviewer's, and
        // a key the solver disputed in the model's text is no longer the item's).
        let review = Paths.repository.appendingPathComponent("pipelines/examples/\(name).review.yaml")
        if FileManager.default.fileExists(atPath: review.path) {
            try scratch.write(try String(contentsOf: review, encoding: .utf8), to: "pipelines/examples/\(name).review.yaml")
        }
        return try scratch.write(pointed, to: "pipelines/examples/\(name).yaml")
    }

    @Test(
        "an example, whole and in 4 shards against the mock answering from its committed cassette: the offline assembly asks nothing and writes the whole run's bytes",
        arguments: ["python-basics", "world-geography-exam"])
    func anExampleAssemblesOfflineWithoutCalls(name: String) async throws {
        let scratch = try Scratch()
        let cassette = Paths.repository.appendingPathComponent("pipelines/cassettes/\(name).jsonl")
        let server = try MockLLMServer(answers: try MockAnswerBook(cassettes: [cassette]), configuration: MockConfiguration(seed: 3))
        defer { server.stop() }
        let spec = try Self.example(name, server: server, scratch: scratch)
        let bundlePath = "\(name)/1.0.0"

        // The cassette was recorded over several runs, each giving failed items another round of
        // attempts: the whole run and each shard are run so too.
        let (whole, wholeRuns) = try await Self.runAgainWhileItemsFail(
            LecternProcess.runArguments(spec: spec, cache: scratch.url("whole-cache"), output: scratch.url("whole-output")), in: scratch.root)
        #expect(whole.status == 0, "\(whole.stderr.suffix(2000))")
        let wholeStats = server.stats
        let expected = files(scratch.url("whole-output/\(bundlePath)"))
        #expect(expected["manifest.json"] != nil)

        let run = try await Self.sharded(spec, count: 4, server: server, scratch: scratch, output: scratch.url("assembled"))
        #expect(run.assembly.status == 0, "\(run.assembly.stderr.suffix(2000))")
        #expect(run.assemblyCalls == 0, "the assembling run asks nothing")
        #expect(run.assembly.stderr.contains(" 0 model calls"), "\(run.assembly.stderr.suffix(800))")
        #expect(run.calls <= wholeStats.answered, "no more calls in the shards (\(run.calls)) than in the whole run (\(wholeStats.answered))")
        let wholeByItem = wholeStats.items.compactMapValues { $0.answered > 0 ? $0.answered : nil }
        #expect(run.callsByItem == wholeByItem, "each item asked as often as in the whole run")
        let assembled = files(scratch.url("assembled/\(bundlePath)"))
        let differing = Set(assembled.keys).union(expected.keys).filter { assembled[$0] != expected[$0] }.sorted()
        #expect(differing.isEmpty, "byte-identical to the whole run; differ: \(differing)")
        if let name = differing.first(where: { $0.hasSuffix(".json") }), let a = assembled[name], let b = expected[name] {
            let lines = (String(decoding: a, as: UTF8.self).split(separator: "\n"), String(decoding: b, as: UTF8.self).split(separator: "\n"))
            for (x, y) in zip(lines.0, lines.1) where x != y { print("\(name): assembled \(x)\n  whole \(y)") }
        }
        print(
            "\(name) in 4 shards: \(run.rounds) round(s), \(run.calls) calls (whole run \(wholeStats.answered) in \(wholeRuns) runs); "
                + "cache entries per shard \(run.entries)")
    }

    @Test(
        "the partition: shared stages everywhere, a chain in one shard by its key, a gathering stage in every shard, the rest of cross-shard work left to assembly"
    )
    func thePartitionKeepsChainsTogether() {
        let shard = Shard(index: 2, count: 4)
        let shared: Set<String> = ["curriculum"]
        let gathering: Set<String> = ["bank-check"]
        func place(_ key: String, _ stage: String, _ dependencies: [Shard.Assignment]) -> Shard.Assignment {
            shard.assignment(key: key, stage: stage, dependencies: dependencies, sharedStages: shared, gatheringStages: gathering)
        }
        #expect(place("curriculum", "curriculum", []) == .shared)
        // A lecture is placed by its key (a course gives its subject's id), its questions follow it.
        let lecture = place("s01", "lecture", [.shared])
        guard case .shard(let home) = lecture else {
            Issue.record("a lecture has a shard")
            return
        }
        #expect(home == shard.home(of: "s01") && (1...4).contains(home))
        #expect(place("s01", "lecture", [.shared]) == place("s01", "other-lecture", [.shared]), "one key, one shard")
        #expect(place("engagement-question/s01-t01", "engagement-question", [lecture]) == lecture)
        // A project waiting for its subject's lectures, all in one shard, runs there.
        #expect(place("s01", "ending-project", [.shared, lecture, lecture]) == lecture)
        // Inputs in several shards: a gathering stage runs in every shard (from the cache), anything else is the assembly's.
        #expect(place("bank-check", "bank-check", [.shard(1), .shard(3)]) == .gathering)
        #expect(place("bank-check", "bank-check", []) == .gathering)
        #expect(place("bank", "bank", [.shard(1), .shard(3)]) == .assembly)
        #expect(place("forms", "forms", [.assembly]) == .assembly)
        // What a gathering item spawns goes by its own key, as if its spawner were shared.
        #expect(place("exam-item-retry/x", "exam-item-retry", [.gathering]) == .shard(shard.home(of: "exam-item-retry/x")))
        // A shared stage after partitioned work is not shared.
        #expect(place("curriculum", "curriculum", [.shard(3)]) == .shard(3))
        #expect(shard.runs(.gathering) && shard.runs(.shared) && !shard.runs(.assembly) && !Shard(index: 0, count: 4).runs(.gathering))
        // Spread: 4,000 keys over 4 shards, each within 10 % of a quarter.
        var counts = [0, 0, 0, 0]
        for n in 0..<4_000 { counts[shard.home(of: "lecture/s\(n)") - 1] += 1 }
        #expect(counts.allSatisfy { abs($0 - 1_000) < 100 }, "\(counts)")
        #expect(
            Shard(parsing: "0/4") == Shard(index: 0, count: 4) && Shard(parsing: "5/4") == nil && Shard(parsing: "1/0") == nil
                && Shard(parsing: "x") == nil)
    }
}
