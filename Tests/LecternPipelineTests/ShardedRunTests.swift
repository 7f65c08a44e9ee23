import Foundation
import LecternBundle
import LecternCore
import LecternLLM
import Testing

@testable import LecternPipeline

/// `run --shard K/N` through the real runner, engine and cache, answered by a scripted provider
/// (one per shard, as on separate machines): the shards' caches merged after each round, the
/// bundle assembled with `--cache offline` — no provider at all — and compared byte for byte
/// with a single run's. The reliability suite does the same through the `lectern` binary and the
/// mock server.
struct ShardedRunTests {
    /// What a sharded run did.
    struct Sharded {
        /// Rounds of shards until none waited for another's answers.
        var rounds: Int
        /// The calls each shard's provider received, by round, then shard: round 0 is the
        /// planning run's, then shard K of round R at `calls[R][K − 1]`.
        var calls: [[[RequestContext]]]
        var outcomes: [[JobRunner.ShardOutcome]]
        var assembly: JobRunner.Result
        var files: [String: Data]
        var allCalls: [RequestContext] { Array(calls.joined().joined()) }
    }

    static func copy(_ from: ExchangeCache, into to: ExchangeCache) throws {
        for key in from.allKeys() {
            if let record = from.lookup(key) { try to.store(record) }
        }
    }

    /// `spec` in `count` shards: the planning run (`--shard 0/N`, its cache the seed of every
    /// shard), a round of shards (each seeded with the merged cache of the rounds before), a
    /// merge, and again while a shard waits for other shards' answers (at most `maxRounds`); then
    /// the offline assembly on the merged cache. The planning run's calls count as round 0's.
    static func sharded(_ spec: JobSpec, script: URL, count: Int, in ws: Workspace, maxRounds: Int = 3) async throws -> Sharded {
        let merged = try ExchangeCache(root: ws.root.appendingPathComponent("merged"))
        var calls: [[[RequestContext]]] = []
        var outcomes: [[JobRunner.ShardOutcome]] = []
        var rounds = 0
        while rounds <= maxRounds {
            var roundCalls: [[RequestContext]] = []
            var roundOutcomes: [JobRunner.ShardOutcome] = []
            for k in (rounds == 0 ? 0...0 : 1...count) {
                let cache = try ExchangeCache(root: ws.root.appendingPathComponent("shard-\(k)"))
                try copy(merged, into: cache)
                let provider = try RecordingProvider(script: script)
                let runner = JobRunner(
                    spec: spec, presets: try Workspace.presets(),
                    exchanger: Exchanger(providerKind: "scripted", provider: provider, cache: cache, mode: .record),
                    renderer: MarkdownDocumentRenderer(), events: SilentEventSink())
                let result = try await runner.run(
                    options: JobRunner.Options(outputRoot: ws.root.appendingPathComponent("unused"), shard: Shard(index: k, count: count)))
                #expect(result.status == .complete, "round \(rounds), shard \(k): \(result.failures)")
                #expect(result.bundle == nil)
                roundCalls.append(provider.calls)
                roundOutcomes.append(try #require(result.shard))
            }
            calls.append(roundCalls)
            outcomes.append(roundOutcomes)
            for k in (rounds == 0 ? 0...0 : 1...count) {
                try copy(try ExchangeCache(root: ws.root.appendingPathComponent("shard-\(k)")), into: merged)
            }
            if rounds > 0 && roundOutcomes.allSatisfy({ $0.waitingForOtherShards == 0 }) { break }
            rounds += 1
        }
        let assembler = JobRunner(
            spec: spec, presets: try Workspace.presets(),
            exchanger: Exchanger(providerKind: "scripted", provider: nil, cache: merged, mode: .offline),
            renderer: MarkdownDocumentRenderer(), events: SilentEventSink())
        let output = ws.root.appendingPathComponent("assembled")
        let assembly = try await assembler.run(options: JobRunner.Options(outputRoot: output))
        let bundle = output.appendingPathComponent("\(spec.id)/\(spec.version)")
        return Sharded(rounds: rounds, calls: calls, outcomes: outcomes, assembly: assembly, files: Workspace.files(bundle))
    }

    /// A single run of `spec`: its bundle's files and the calls it made.
    static func single(_ spec: JobSpec, script: URL, in ws: Workspace) async throws -> (files: [String: Data], calls: [RequestContext]) {
        let provider = try RecordingProvider(script: script)
        let runner = JobRunner(
            spec: spec, presets: try Workspace.presets(),
            exchanger: Exchanger(
                providerKind: "scripted", provider: provider, cache: try ExchangeCache(root: ws.root.appendingPathComponent("single")), mode: .record),
            renderer: MarkdownDocumentRenderer(), events: SilentEventSink())
        let output = ws.root.appendingPathComponent("single-output")
        let result = try await runner.run(options: JobRunner.Options(outputRoot: output))
        #expect(result.status == .complete, "\(result.failures)")
        return (Workspace.files(output.appendingPathComponent("\(spec.id)/\(spec.version)")), provider.calls)
    }

    @Test("a course in 3 shards: a subject's topics and its project in one shard, one round, the offline assembly asks nothing")
    func aCourseAssemblesWithoutCalls() async throws {
        let ws = try Workspace()
        let spec = try Workspace.spec(Specs.python)
        let script = try ws.script()
        let whole = try await Self.single(spec, script: script, in: ws)
        #expect(whole.calls.contains { $0.stage == EndingProjectStage.name.rawValue })

        let sharded = try await Self.sharded(spec, script: script, count: 3, in: ws)
        #expect(sharded.rounds == 1, "a course needs no second round: \(sharded.outcomes)")
        #expect(sharded.outcomes.joined().allSatisfy { $0.leftForAssembly == 0 && $0.modelItemsLeftForAssembly == 0 })
        #expect(sharded.assembly.status == .complete, "\(sharded.assembly.failures)")
        #expect(sharded.assembly.totals.calls == 0, "the assembling run asks nothing")
        #expect(sharded.allCalls.count == whole.calls.count, "the shards ask what a single run asks, once")
        #expect(Set(sharded.allCalls.map(\.itemID)) == Set(whole.calls.map(\.itemID)))
        // Each project was asked in the shard that wrote its subject's lectures.
        for subject in ["s01", "s02"] {
            let asking = sharded.calls[1].filter { calls in calls.contains { $0.itemID == "ending-project/\(subject)" } }
            #expect(asking.count == 1 && asking[0].filter { $0.itemID.hasPrefix("lecture/\(subject)-") }.count >= 2, "\(subject)")
        }
        #expect(sharded.files == whole.files, "byte-identical to the single run: \(Set(sharded.files.keys).symmetricDifference(whole.files.keys))")
        #expect(!whole.files.isEmpty)
    }

    @Test("an exam in shards: the bank check in every shard's second round, the re-ask asked once, the offline assembly asks nothing")
    func anExamBankIsCheckedAcrossShards() async throws {
        let ws = try Workspace()
        let spec = try ExamRunTests.load(ExamRunTests.spec)
        let script = try ExamRunTests.script(ws)
        let whole = try await Self.single(spec, script: script, in: ws)
        let retry = "exam-item-retry/exam-item/verbal/facts/medium-01"
        #expect(whole.calls.filter { $0.itemID == retry }.count == 1, "the single run re-asks the repeated stem")

        // A shard count that puts the repeated item and the one it repeats in different shards,
        // so that only a bank-wide check can see the repeat.
        let count = try #require(
            (2...8).first { n in
                let shard = Shard(index: 1, count: n)
                return shard.home(of: "exam-item/verbal/facts/easy-01") != shard.home(of: "exam-item/verbal/facts/medium-01")
            })
        let sharded = try await Self.sharded(spec, script: script, count: count, in: ws)
        #expect(sharded.rounds == 2, "the bank check needs every shard's items: \(sharded.outcomes)")
        // Round 1: every shard's bank check waits for the others' items; round 2: none waits.
        #expect(sharded.outcomes[1].allSatisfy { $0.waitingForOtherShards == 1 }, "\(sharded.outcomes[1])")
        #expect(sharded.outcomes[2].allSatisfy { $0.waitingForOtherShards == 0 && $0.modelItemsLeftForAssembly == 0 })
        // The re-ask is asked once, in round 2, by the shard it falls to; round 1 asked every draft once.
        #expect(sharded.calls[1].joined().filter { $0.itemID == retry }.isEmpty)
        let retrying = sharded.calls[2].indices.filter { k in sharded.calls[2][k].contains { $0.itemID == retry } }
        #expect(retrying == [Shard(index: 1, count: count).home(of: retry) - 1], "asked once, by the shard it falls to")
        // The shards ask what the single run asks, but for one exchange: the repeated question's
        // blind solve is the very request of the question it repeats. Two shards each ask it; a
        // single run asks it under the id of whichever of the two reaches the provider first and
        // answers the other from its cache — or asks both, when the second is sent before the
        // first is answered.
        let solves = ["exam-item/verbal/facts/easy-01/blind-solve", "exam-item/verbal/facts/medium-01/blind-solve"]
        let askedInWhole = solves.filter { id in whole.calls.contains { $0.itemID == id } }
        #expect(!askedInWhole.isEmpty, "the single run asks the shared solve")
        var asked = sharded.allCalls.map(\.itemID)
        for id in solves where !askedInWhole.contains(id) {
            asked.remove(at: try #require(asked.firstIndex(of: id), "every shard asks its own solve"))
        }
        #expect(asked.sorted() == whole.calls.map(\.itemID).sorted(), "the shards ask what a single run asks, once")
        #expect(sharded.assembly.status == .complete, "\(sharded.assembly.failures)")
        #expect(sharded.assembly.totals.calls == 0, "the assembling run asks nothing")
        #expect(sharded.files == whole.files, "byte-identical to the single run: \(Set(sharded.files.keys).symmetricDifference(whole.files.keys))")
        let exam = try JSONDecoder().decode(ExamBank.self, from: try #require(sharded.files["exam.json"]))
        #expect(exam.items.first { $0.id == "verbal/facts/medium-01" }?.prompt == "Why did early farming towns grow along the Nile?")
    }
}
