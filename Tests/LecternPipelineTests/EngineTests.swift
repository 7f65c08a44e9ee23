import Foundation
import LecternBundle
import LecternCore
import LecternLLM
import Synchronization
import Testing

@testable import LecternPipeline

/// Collects engine events for assertions.
final class CollectingSink: EngineEventSink {
    private let events = Mutex<[EngineEvent]>([])
    func emit(_ event: EngineEvent) { events.withLock { $0.append(event) } }
    var all: [EngineEvent] { events.withLock { $0 } }
    var finished: [ItemReport] {
        all.compactMap { if case .itemFinished(let r) = $0 { return r } else { return nil } }
    }
}

struct EngineTests {
    @Test func dependenciesRunFirstAndSpawnedItemsJoinTheGraph() async {
        let order = Mutex<[String]>([])
        func item(_ id: String, deps: [String] = [], spawn: [WorkItem] = []) -> WorkItem {
            WorkItem(id: id, stage: "s", context: id, dependencies: deps, usesModel: false) { _ in
                order.withLock { $0.append(id) }
                return WorkOutput(value: id, spawn: spawn)
            }
        }
        let spawned = [item("c", deps: ["a"]), item("d", deps: ["c", "b"])]
        let outcome = await Engine(modelConcurrency: 4, events: SilentEventSink()).run(
            [item("a", spawn: spawned), item("b", deps: ["a"])], results: ResultStore())
        let seen = order.withLock { $0 }
        #expect(Set(seen) == ["a", "b", "c", "d"])
        #expect(seen.firstIndex(of: "a")! < seen.firstIndex(of: "c")!)
        #expect(seen.last == "d")
        #expect(outcome.failures.isEmpty)
    }

    @Test func failuresCascadeToDependentsOnlyAndOthersGoOn() async {
        let boom = WorkItem(id: "boom", stage: "x", context: "c") { _ in throw ItemFailureError(reason: .invalid, attempts: 3, errors: ["bad"]) }
        let child = WorkItem(id: "child", stage: "x", context: "c", dependencies: ["boom"]) { _ in WorkOutput(value: 1) }
        let grandchild = WorkItem(id: "grandchild", stage: "x", context: "c", dependencies: ["child"]) { _ in WorkOutput(value: 1) }
        let other = WorkItem(id: "other", stage: "x", context: "c") { _ in WorkOutput(value: 1) }
        let outcome = await Engine(modelConcurrency: 2, events: SilentEventSink()).run([boom, child, grandchild, other], results: ResultStore())
        #expect(outcome.completed == ["other"])
        #expect(
            Dictionary(uniqueKeysWithValues: outcome.failures.map { ($0.id, $0.reason) }) == [
                "boom": .invalid, "child": .dependency, "grandchild": .dependency,
            ])
    }

    @Test func anItemWaitsForWhatItFollowsAndRunsWhetherThatFinishesOrFails() async {
        let order = Mutex<[String]>([])
        func item(_ id: String, deps: [String] = [], after: [String] = [], fails: Bool = false, body: @escaping @Sendable (WorkContext) -> Void = { _ in }) -> WorkItem {
            WorkItem(id: id, stage: "s", context: id, dependencies: deps, after: after, usesModel: false) { context in
                body(context)
                order.withLock { $0.append(id) }
                if fails { throw ItemFailureError(reason: .invalid, attempts: 3, errors: ["bad"]) }
                return WorkOutput(value: id)
            }
        }
        let seenByLast = Mutex<[String?]>([])
        let items = [
            item("boom", fails: true), item("fine"), item("needsBoom", deps: ["boom"]),
            // Waits for a failing item, a finished one, and one that fails with its dependency.
            item("last", after: ["boom", "fine", "needsBoom"]) { context in
                seenByLast.withLock { seen in
                    seen = ["boom", "fine", "needsBoom"].map { context.results.optionalValue($0, as: String.self) }
                }
            },
        ]
        let outcome = await Engine(modelConcurrency: 1, localConcurrency: 1, events: SilentEventSink()).run(items, results: ResultStore())
        #expect(Set(outcome.completed) == ["fine", "last"])
        #expect(Dictionary(uniqueKeysWithValues: outcome.failures.map { ($0.id, $0.reason) }) == ["boom": .invalid, "needsBoom": .dependency])
        #expect(order.withLock { $0.last } == "last")
        #expect(seenByLast.withLock { $0 } == [nil, "fine", nil])
        // Added after its predecessor already failed, it runs at once.
        let results = ResultStore()
        let spawn = [item("spawned", after: ["gone"]), item("follower", after: ["boom"])]
        let late = await Engine(modelConcurrency: 1, events: SilentEventSink()).run(
            [WorkItem(id: "boom", stage: "s", context: "c", usesModel: false) { _ in WorkOutput(value: 0, spawn: spawn) }], results: results)
        #expect(Set(late.completed) == ["boom", "follower"])
        #expect(late.failures.map(\.id) == ["spawned"], "an item waiting for one that never appears is reported, not left hanging")
    }

    @Test func modelConcurrencyIsBoundedByTheLimit() async throws {
        let ws = try Workspace()
        let provider = try RecordingProvider(script: ws.script(), maxConcurrency: 3, delay: .milliseconds(20))
        var spec = try Workspace.spec(Specs.pinned)
        spec.model.maxConcurrency = 3
        let result = try await ws.run(spec, provider: provider)
        #expect(result.status == .complete)
        #expect(provider.peakConcurrency == 3, "reaches the limit and never passes it")
    }

    @Test func theBudgetStopsSchedulingAndKeepsFinishedWork() async throws {
        let ws = try Workspace()
        var spec = try Workspace.spec(Specs.pinned)
        spec.budget.maxCostUSD = 2.5
        spec.model.maxConcurrency = 1
        let dollarPerCall: CostFunction = { _, _, _ in 1.0 }
        let provider = try RecordingProvider(script: ws.script(), maxConcurrency: 1)
        let result = try await ws.run(spec, provider: provider, cost: dollarPerCall)
        #expect(result.status == .budgetExceeded)
        #expect(result.bundle == nil)
        #expect(provider.calls.count == 3, "$1 each: the third call crosses $2.50, the fourth is never made")
        // A higher budget resumes without paying again for the three.
        spec.budget.maxCostUSD = 100
        let resumed = try RecordingProvider(script: ws.script())
        let done = try await ws.run(spec, provider: resumed, cost: dollarPerCall)
        #expect(done.status == .complete)
        #expect(Set(resumed.calledItems).isDisjoint(with: provider.calledItems))
    }

    @Test func aPermanentProviderFailureStopsTheRunQuickly() async throws {
        let ws = try Workspace()
        let failing: JSONValue = ["stage": "lecture", "attempt": 1, "error": "authentication"]
        let provider = try RecordingProvider(script: ws.script(extra: [failing]), maxConcurrency: 2)
        var spec = try Workspace.spec(Specs.pinned)
        spec.model.maxConcurrency = 2
        let result = try await ws.run(spec, provider: provider)
        #expect(result.status == .providerFailed)
        #expect(provider.calledItems.filter { $0.hasPrefix("lecture/") }.count <= 2, "no new calls after the first 401")
        #expect(result.failures.contains { $0.reason == .provider && $0.errors.first?.contains("authentication") == true })
    }

    @Test func offlineModeNeedsNoProviderAndNamesTheMissingItem() async throws {
        let ws = try Workspace()
        let spec = try Workspace.spec(Specs.pinned)
        let result = try await ws.run(spec, provider: nil, mode: .offline)
        #expect(result.status == .providerFailed)
        let miss = try #require(result.failures.first { $0.reason == .cacheMiss })
        let message = miss.errors.first ?? ""
        let namesAnItem = ["lecture/", "tone-preview", "ending-project/"].contains { message.contains("no recorded answer for \($0)") }
        #expect(namesAnItem, "\(message)")
    }

    @Test func aRecordedCassetteReproducesTheBundleOfflineByteForByte() async throws {
        let ws = try Workspace()
        let spec = try Workspace.spec(Specs.python)
        let provider = try RecordingProvider(script: ws.script())
        let runner = try ws.runner(spec, provider: provider)
        let first = try await runner.run(options: .init(outputRoot: ws.output))
        guard case .written(let dir)? = first.bundle else { throw PipelineError("no bundle") }
        let cassette = ws.root.appendingPathComponent("python.jsonl")
        try ExchangeCache.writeCassette(runner.exchanger.usedRecords(), to: cassette)

        // A fresh cache that knows only the cassette, and no provider at all.
        let replayCache = try ExchangeCache(root: ws.root.appendingPathComponent("empty-cache"), cassettes: [cassette])
        let exchanger = Exchanger(providerKind: "scripted", provider: nil, cache: replayCache, mode: .offline)
        let replay = JobRunner(spec: spec, presets: try Workspace.presets(), exchanger: exchanger, renderer: nil, events: SilentEventSink())
        let second = try await replay.run(options: .init(outputRoot: ws.root.appendingPathComponent("output-2")))
        guard case .written(let dir2)? = second.bundle else { throw PipelineError("offline replay wrote nothing: \(second.failures)") }
        #expect(Workspace.files(dir) == Workspace.files(dir2))

        // The cassette is sorted JSONL with one entry per line.
        let lines = try String(contentsOf: cassette, encoding: .utf8).split(separator: "\n")
        let keys = try lines.map { try JSONValue.parse(String($0))["key"]?.stringValue ?? "" }
        #expect(keys == keys.sorted() && keys.count == provider.calls.count)
    }

    @Test func aVariantForcesFreshSamples() async throws {
        let ws = try Workspace()
        var spec = try Workspace.spec(Specs.pinned)
        _ = try await ws.run(spec, provider: try RecordingProvider(script: ws.script()))
        spec.variant = "second-take"
        spec.version = "2.0.0"
        let provider = try RecordingProvider(script: ws.script())
        _ = try await ws.run(spec, provider: provider)
        let modelItems = 18  // 5 lectures, 5 questions, 5 bonus questions, 2 projects, 1 tone preview
        #expect(provider.calls.count == modelItems + 5, "every model item is asked again, and each question solved again")
    }

    @Test func anExistingVersionWithOtherContentIsNeverOverwritten() async throws {
        let ws = try Workspace()
        _ = try await ws.run(try Workspace.spec(Specs.pinned), provider: try RecordingProvider(script: ws.script()))
        let changed = try Workspace.spec(Specs.pinned.replacingOccurrences(of: "title: Pinned Python", with: "title: Other"))
        await #expect {
            _ = try await ws.run(changed, provider: try RecordingProvider(script: ws.script()))
        } throws: { error in
            guard let e = error as? BundleError else { return false }
            return e.kind == .versionExists && e.message.contains("bump 'version'")
        }
    }
}
