import Foundation
import LecternCore
import LecternLLM
import Synchronization

/// One unit of work: an LLM call (with its validation and repairs) or a local step (render).
/// The engine knows nothing about courses: items name their dependencies and may spawn more.
public struct WorkItem: Sendable {
    public var id: String
    public var stage: String
    /// Human context for messages, e.g. "subject 1 'Basics', topic 2 'Loops'".
    public var context: String
    public var dependencies: [String]
    /// Items this one waits for without needing them: it starts once each has finished or
    /// failed, and reads the values of those that finished (`ResultStore.optionalValue`). A
    /// reinforcement level waits for its topic's engagement question so as not to repeat it, but
    /// is still written when that question failed.
    public var after: [String]
    /// Model items count against the provider's concurrency limit; local ones against the cores.
    public var usesModel: Bool
    /// Items with the same key run in the same shard of a sharded run (`Shard`); nil: the item's
    /// id. Only an item with nothing to follow outside the shared stages is placed by it: the
    /// others go where the items they need go.
    public var shardKey: String?
    public var body: @Sendable (WorkContext) async throws -> WorkOutput

    public init(
        id: String, stage: String, context: String, dependencies: [String] = [], after: [String] = [], usesModel: Bool = true,
        shardKey: String? = nil, body: @escaping @Sendable (WorkContext) async throws -> WorkOutput
    ) {
        self.id = id
        self.stage = stage
        self.context = context
        self.dependencies = dependencies
        self.after = after
        self.usesModel = usesModel
        self.shardKey = shardKey
        self.body = body
    }
}

/// What an item produced.
public struct WorkOutput: Sendable {
    public var value: any Sendable
    public var report: ItemReport?
    /// Items this one's result made possible (a curriculum spawns the lectures).
    public var spawn: [WorkItem]

    public init(value: any Sendable, report: ItemReport? = nil, spawn: [WorkItem] = []) {
        self.value = value
        self.report = report
        self.spawn = spawn
    }
}

/// Finished items' values, readable by the items that depend on them.
public final class ResultStore: Sendable {
    private let values = Mutex<[String: any Sendable]>([:])

    public init() {}

    func set(_ id: String, _ value: any Sendable) { values.withLock { $0[id] = value } }

    /// The value of finished item `id` as `T`; throws when it is missing or of another type,
    /// which is a planning bug (an undeclared dependency), never a user error.
    public func value<T: Sendable>(_ id: String, as type: T.Type = T.self) throws -> T {
        guard let value = values.withLock({ $0[id] }) as? T else {
            throw PipelineError("internal: item '\(id)' has no result of type \(T.self); is it declared as a dependency?")
        }
        return value
    }

    public func optionalValue<T: Sendable>(_ id: String, as type: T.Type = T.self) -> T? {
        values.withLock { $0[id] } as? T
    }
}

/// What an item's body sees.
public struct WorkContext: Sendable {
    public var itemID: String
    public var results: ResultStore
}

/// Thrown by an item body to fail with a classified reason.
public struct ItemFailureError: Error, Sendable {
    public var reason: ItemFailure.Reason
    public var attempts: Int
    public var errors: [String]
    /// The errors of every refused attempt, in order.
    public var rejections: [[Refusal]]
    /// The last attempt's refusals with their checks, when the item failed for its answer
    /// (`errors` holds their messages).
    public var refusals: [Refusal]
    /// The last answer refused, as the model wrote it (mended where Lectern mended it), when the
    /// item failed for its answers: what a reviewer may write the item from.
    public var lastAnswer: String?

    public init(
        reason: ItemFailure.Reason, attempts: Int, errors: [String], rejections: [[Refusal]] = [], refusals: [Refusal] = [], lastAnswer: String? = nil
    ) {
        self.reason = reason
        self.attempts = attempts
        self.errors = errors
        self.rejections = rejections
        self.refusals = refusals
        self.lastAnswer = lastAnswer
    }
}

/// How a run of the engine ended.
public struct EngineOutcome: Sendable {
    public var completed: [String]
    public var failures: [ItemFailure]
    public var reports: [String: ItemReport]
    /// The budget stopped scheduling.
    public var budgetExceeded: Bool
    /// A provider failure that would fail every call (401, unreachable) stopped scheduling.
    public var providerStopped: Bool
    public var cancelled: Bool
    /// With a shard: the items left to other shards, and those left to the assembling run (of
    /// which `modelItemsLeftForAssembly` would call the model there: none for the built-in kinds).
    public var otherShards: Int = 0
    public var leftForAssembly: Int = 0
    public var modelItemsLeftForAssembly: Int = 0
    /// With a shard: this shard's items that need answers of other shards its cache does not
    /// hold yet (a gathering stage's, and what follows them): run the shard again once the
    /// shards' caches are merged into its own.
    public var waitingForOtherShards: Int = 0
}

/// Runs work items as their dependencies finish, concurrently up to the limits, with structured
/// concurrency. Durability lives in the exchange cache: every answer is stored before its item
/// completes, so a resumed run replays finished items without calling the model.
public struct Engine: Sendable {
    public var modelConcurrency: Int
    public var localConcurrency: Int
    public var events: any EngineEventSink
    /// Runs only this shard's items (and the shared and gathering ones, reading the other shards' items
    /// a gathering item needs from the cache); nil runs everything.
    public var shard: ShardFilter?

    public init(
        modelConcurrency: Int, localConcurrency: Int = max(1, ProcessInfo.processInfo.activeProcessorCount), events: any EngineEventSink,
        shard: ShardFilter? = nil
    ) {
        self.modelConcurrency = max(1, modelConcurrency)
        self.localConcurrency = max(1, localConcurrency)
        self.events = events
        self.shard = shard
    }

    public func run(_ initial: [WorkItem], results: ResultStore) async -> EngineOutcome {
        var state = SchedulerState()
        var budgetExceeded = false
        var providerStopped = false
        // A fault of this machine (the cache cannot be written): no new model call starts, since
        // its answer could not be kept; what is in flight finishes.
        var machineStopped = false

        func fail(
            _ item: WorkItem, reason: ItemFailure.Reason, attempts: Int, errors: [String], rejections: [[Refusal]] = [], refusals: [Refusal] = []
        ) {
            let failure = ItemFailure(
                id: item.id, stage: item.stage, context: item.context, attempts: attempts, reason: reason, errors: errors, rejections: rejections,
                refusals: refusals)
            state.failed[item.id] = failure
            state.failureOrder.append(item.id)
            events.emit(.itemFailed(failure))
            // Everything needing it, transitively, can never run; what only waited for it may.
            var released = state.followers.removeValue(forKey: item.id) ?? []
            var stack = state.dependents.removeValue(forKey: item.id) ?? []
            while let next = stack.popLast() {
                guard state.waiting.removeValue(forKey: next) != nil, let dependent = state.items[next] else { continue }
                let cascade = ItemFailure(
                    id: dependent.id, stage: dependent.stage, context: dependent.context, attempts: 0, reason: .dependency,
                    errors: ["\(item.id) failed"])
                state.failed[dependent.id] = cascade
                state.failureOrder.append(dependent.id)
                events.emit(.itemFailed(cascade))
                stack += state.dependents.removeValue(forKey: dependent.id) ?? []
                released += state.followers.removeValue(forKey: dependent.id) ?? []
            }
            for follower in released { state.resolve(follower) }
        }

        /// An item's shard assignment, from its dependencies', the items it waits for (those of
        /// the same batch first) and its spawner's (`origin`): an exam's final bank, reading items
        /// of several shards, is the assembling run's.
        func assignment(
            of item: WorkItem, batch: [String: WorkItem], filter: ShardFilter, origin: Shard.Assignment?, visiting: inout Set<String>
        ) -> Shard.Assignment {
            if let known = state.assignments[item.id] { return known }
            visiting.insert(item.id)
            var dependencies = (item.dependencies + item.after).map { id -> Shard.Assignment in
                if let known = state.assignments[id] { return known }
                if let pending = batch[id], !visiting.contains(id) {
                    return assignment(of: pending, batch: batch, filter: filter, origin: origin, visiting: &visiting)
                }
                return .assembly  // unknown here: only a run with every item can have it
            }
            if let origin { dependencies.append(origin) }
            let result = filter.shard.assignment(
                key: item.shardKey ?? item.id, stage: item.stage, dependencies: dependencies, sharedStages: filter.sharedStages,
                gatheringStages: filter.gatheringStages)
            state.assignments[item.id] = result
            return result
        }

        /// This item can never finish here: an item it needs or waits for belongs to another
        /// shard whose answer this cache does not hold yet. It and everything after it are left
        /// for a later round (without failing: the other shard's answer will come).
        func leave(_ id: String) {
            var stack = [id]
            while let next = stack.popLast() {
                guard state.left.insert(next).inserted else { continue }
                state.waiting.removeValue(forKey: next)
                if !state.cacheOnly.contains(next) { state.waitingForOtherShards += 1 }
                stack += state.dependents.removeValue(forKey: next) ?? []
                stack += state.followers.removeValue(forKey: next) ?? []
            }
        }

        func insert(_ item: WorkItem) {
            state.items[item.id] = item
            state.totals[item.stage, default: 0] += 1
            if let dead = item.dependencies.first(where: { state.failed[$0] != nil }) {
                fail(item, reason: .dependency, attempts: 0, errors: ["\(dead) failed"])
                return
            }
            if (item.dependencies + item.after).contains(where: { state.left.contains($0) }) {
                leave(item.id)
                return
            }
            let unresolved = Set(item.dependencies.filter { !state.done.contains($0) })
            let awaited = Set(item.after.filter { !state.done.contains($0) && state.failed[$0] == nil }).subtracting(unresolved)
            if unresolved.isEmpty && awaited.isEmpty {
                state.enqueue(item)
            } else {
                state.waiting[item.id] = unresolved.count + awaited.count
                for dependency in unresolved { state.dependents[dependency, default: []].append(item.id) }
                for predecessor in awaited { state.followers[predecessor, default: []].append(item.id) }
            }
        }

        /// A gathering item reads items of other shards: they join this run, answered only from
        /// the cache (`Exchanger.cacheOnly`), with the items they need in turn.
        func pullInputs(of item: WorkItem) {
            for id in item.dependencies + item.after where state.items[id] == nil {
                guard let input = state.foreign[id] else { continue }
                state.cacheOnly.insert(id)
                state.items[id] = input  // marks it pulled before its own inputs, against cycles
                pullInputs(of: input)
                state.items[id] = nil
                insert(input)
            }
        }

        func add(_ newItems: [WorkItem], spawnedBy spawner: String? = nil) {
            var accepted = newItems
            if let shard {
                accepted = []
                let batch = Dictionary(newItems.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
                let origin = spawner.flatMap { state.assignments[$0] }
                for item in newItems where state.items[item.id] == nil && state.foreign[item.id] == nil {
                    var visiting = Set<String>()
                    let place = assignment(of: item, batch: batch, filter: shard, origin: origin, visiting: &visiting)
                    if shard.shard.runs(place) {
                        accepted.append(item)
                        continue
                    }
                    state.foreign[item.id] = item
                    if place == .assembly {
                        state.leftForAssembly += 1
                        if item.usesModel { state.modelItemsLeftForAssembly += 1 }
                    } else {
                        state.otherShards += 1
                    }
                }
            }
            var grew = false
            for item in accepted where state.items[item.id] == nil {
                if state.assignments[item.id] == .gathering { pullInputs(of: item) }
                insert(item)
                grew = true
            }
            if grew { events.emit(.planned(totals: state.totals)) }
        }

        add(initial)

        await withTaskGroup(of: (String, Result<WorkOutput, any Error>).self) { group in
            var runningModel = 0
            var runningLocal = 0

            func start(_ item: WorkItem) {
                events.emit(.itemStarted(id: item.id, stage: item.stage))
                let context = WorkContext(itemID: item.id, results: results)
                let cacheOnly = state.cacheOnly.contains(item.id)
                group.addTask {
                    do {
                        let output = try await Exchanger.$cacheOnly.withValue(cacheOnly) { try await item.body(context) }
                        return (item.id, .success(output))
                    } catch {
                        return (item.id, .failure(error))
                    }
                }
            }

            func schedule() {
                while runningLocal < localConcurrency, let item = state.readyLocal.popFirst() {
                    if Task.isCancelled {
                        fail(item, reason: .cancelled, attempts: 0, errors: ["not started: the run was interrupted"])
                        continue
                    }
                    runningLocal += 1
                    start(item)
                }
                while runningModel < modelConcurrency || Task.isCancelled || budgetExceeded || providerStopped || machineStopped,
                    let item = state.readyModel.popFirst()
                {
                    if Task.isCancelled || budgetExceeded || providerStopped || machineStopped {
                        let reason: ItemFailure.Reason =
                            Task.isCancelled ? .cancelled : budgetExceeded ? .budget : machineStopped ? .internal : .provider
                        let why =
                            switch reason {
                            case .budget: "the budget was reached"
                            case .cancelled: "the run was interrupted"
                            case .internal: "this machine failed for an earlier item (see its error)"
                            default: "the provider failed for an earlier item"
                            }
                        fail(item, reason: reason, attempts: 0, errors: ["not started: \(why)"])
                        continue
                    }
                    runningModel += 1
                    start(item)
                }
            }

            schedule()
            while let (id, result) = await group.next() {
                guard let item = state.items[id] else { continue }
                if item.usesModel { runningModel -= 1 } else { runningLocal -= 1 }
                switch result {
                case .success(let output):
                    results.set(id, output.value)
                    state.done.insert(id)
                    state.completed.append(id)
                    if let report = output.report {
                        state.reports[id] = report
                        for warning in report.warnings { events.emit(.warning(warning)) }
                        events.emit(.itemFinished(report))
                    } else {
                        events.emit(
                            .itemFinished(
                                ItemReport(
                                    id: id, stage: item.stage, attempts: 0, usage: TokenUsage(), paidUsage: TokenUsage(), costUSD: 0, cached: true,
                                    latency: .zero)))
                    }
                    for dependent in (state.dependents.removeValue(forKey: id) ?? []) + (state.followers.removeValue(forKey: id) ?? []) {
                        state.resolve(dependent)
                    }
                    add(output.spawn, spawnedBy: id)
                case .failure(let error):
                    if state.cacheOnly.contains(id), let failure = error as? ItemFailureError, failure.reason == .cacheMiss {
                        // Another shard's item whose answer this cache does not hold yet.
                        leave(id)
                    } else if let failure = error as? ItemFailureError {
                        if failure.reason == .budget { budgetExceeded = true }
                        if failure.reason == .provider { providerStopped = true }
                        if failure.reason == .internal { machineStopped = true }
                        fail(item, reason: failure.reason, attempts: failure.attempts, errors: failure.errors, rejections: failure.rejections, refusals: failure.refusals)
                    } else if error is CancellationError {
                        fail(item, reason: .cancelled, attempts: 0, errors: ["the run was interrupted"])
                    } else if error is CocoaError || error is POSIXError {
                        // A file the item had to read or write: the machine's fault, not the content's.
                        fail(item, reason: .internal, attempts: 0, errors: [String(describing: error)])
                    } else {
                        fail(item, reason: .invalid, attempts: 0, errors: [String(describing: error)])
                    }
                }
                schedule()
            }
            // Anything still waiting could not start (a dependency never appeared).
            for id in state.waiting.keys.sorted() {
                if let item = state.items[id] {
                    state.waiting.removeValue(forKey: id)
                    fail(item, reason: Task.isCancelled ? .cancelled : .dependency, attempts: 0, errors: ["never became ready"])
                }
            }
        }
        return EngineOutcome(
            completed: state.completed, failures: state.failureOrder.compactMap { state.failed[$0] }, reports: state.reports,
            budgetExceeded: budgetExceeded, providerStopped: providerStopped, cancelled: Task.isCancelled, otherShards: state.otherShards,
            leftForAssembly: state.leftForAssembly, modelItemsLeftForAssembly: state.modelItemsLeftForAssembly,
            waitingForOtherShards: state.waitingForOtherShards)
    }
}

/// The engine's bookkeeping: dependency counts and ready queues, so each completion costs time
/// proportional to its dependents, not to the whole graph.
struct SchedulerState {
    var items: [String: WorkItem] = [:]
    var totals: [String: Int] = [:]
    var done = Set<String>()
    var completed: [String] = []
    var failed: [String: ItemFailure] = [:]
    var failureOrder: [String] = []
    var reports: [String: ItemReport] = [:]
    /// Unfinished dependencies per waiting item.
    var waiting: [String: Int] = [:]
    /// Items needing each id (they fail with it).
    var dependents: [String: [String]] = [:]
    /// Items only waiting for each id (`WorkItem.after`: they run whether it finishes or fails).
    var followers: [String: [String]] = [:]
    var readyModel = FIFO<WorkItem>()
    var readyLocal = FIFO<WorkItem>()
    /// With a shard: each item's assignment; the items this process leaves to others (kept, so
    /// that a gathering item can read them from the cache); those it reads so (`cacheOnly`); and
    /// those it cannot finish for want of another shard's answer.
    var assignments: [String: Shard.Assignment] = [:]
    var foreign: [String: WorkItem] = [:]
    var cacheOnly = Set<String>()
    var left = Set<String>()
    var otherShards = 0
    var leftForAssembly = 0
    var modelItemsLeftForAssembly = 0
    var waitingForOtherShards = 0

    /// One of `id`'s awaited items has finished (or, for `after`, failed): it is ready when none is left.
    mutating func resolve(_ id: String) {
        guard let remaining = waiting[id] else { return }
        if remaining <= 1 {
            waiting.removeValue(forKey: id)
            if let item = items[id] { enqueue(item) }
        } else {
            waiting[id] = remaining - 1
        }
    }

    mutating func enqueue(_ item: WorkItem) {
        if item.usesModel { readyModel.append(item) } else { readyLocal.append(item) }
    }
}

/// A first-in first-out queue with O(1) pops (ready items start in the order they were planned).
struct FIFO<Element> {
    private var storage: [Element] = []
    private var head = 0

    mutating func append(_ element: Element) { storage.append(element) }

    mutating func popFirst() -> Element? {
        guard head < storage.count else { return nil }
        let element = storage[head]
        head += 1
        if head > 1_024 && head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }
}
