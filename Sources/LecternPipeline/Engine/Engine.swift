import Foundation
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
    /// Model items count against the provider's concurrency limit; local ones against the cores.
    public var usesModel: Bool
    public var body: @Sendable (WorkContext) async throws -> WorkOutput

    public init(
        id: String, stage: String, context: String, dependencies: [String] = [], usesModel: Bool = true,
        body: @escaping @Sendable (WorkContext) async throws -> WorkOutput
    ) {
        self.id = id
        self.stage = stage
        self.context = context
        self.dependencies = dependencies
        self.usesModel = usesModel
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

    public init(reason: ItemFailure.Reason, attempts: Int, errors: [String]) {
        self.reason = reason
        self.attempts = attempts
        self.errors = errors
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
}

/// Runs work items as their dependencies finish, concurrently up to the limits, with structured
/// concurrency. Durability lives in the exchange cache: every answer is stored before its item
/// completes, so a resumed run replays finished items without calling the model.
public struct Engine: Sendable {
    public var modelConcurrency: Int
    public var localConcurrency: Int
    public var events: any EngineEventSink

    public init(modelConcurrency: Int, localConcurrency: Int = max(1, ProcessInfo.processInfo.activeProcessorCount), events: any EngineEventSink) {
        self.modelConcurrency = max(1, modelConcurrency)
        self.localConcurrency = max(1, localConcurrency)
        self.events = events
    }

    public func run(_ initial: [WorkItem], results: ResultStore) async -> EngineOutcome {
        var pending: [WorkItem] = []
        var known = Set<String>()
        var done = Set<String>()
        var failed: [String: ItemFailure] = [:]
        var failureOrder: [String] = []
        var completed: [String] = []
        var reports: [String: ItemReport] = [:]
        var totals: [String: Int] = [:]
        var itemsByID: [String: WorkItem] = [:]
        var budgetExceeded = false
        var providerStopped = false

        func add(_ items: [WorkItem]) {
            var grew = false
            for item in items where !known.contains(item.id) {
                known.insert(item.id)
                pending.append(item)
                itemsByID[item.id] = item
                totals[item.stage, default: 0] += 1
                grew = true
            }
            if grew { events.emit(.planned(totals: totals)) }
        }

        func fail(_ item: WorkItem, reason: ItemFailure.Reason, attempts: Int, errors: [String]) {
            let failure = ItemFailure(id: item.id, stage: item.stage, context: item.context, attempts: attempts, reason: reason, errors: errors)
            failed[item.id] = failure
            failureOrder.append(item.id)
            events.emit(.itemFailed(failure))
        }

        add(initial)

        await withTaskGroup(of: (String, Result<WorkOutput, any Error>).self) { group in
            var runningModel = 0
            var runningLocal = 0

            func schedule() {
                var index = 0
                var progress = true
                // Loop until no item changes state: failures cascade to dependents in one pass.
                while progress {
                    progress = false
                    index = 0
                    while index < pending.count {
                        let item = pending[index]
                        if let dead = item.dependencies.first(where: { failed[$0] != nil }) {
                            pending.remove(at: index)
                            fail(item, reason: .dependency, attempts: 0, errors: ["\(dead) failed"])
                            progress = true
                            continue
                        }
                        let stopped = Task.isCancelled || (item.usesModel && (budgetExceeded || providerStopped))
                        if stopped {
                            pending.remove(at: index)
                            let reason: ItemFailure.Reason = Task.isCancelled ? .cancelled : budgetExceeded ? .budget : .provider
                            fail(item, reason: reason, attempts: 0, errors: ["not started: \(reason == .budget ? "the budget was reached" : reason == .cancelled ? "the run was interrupted" : "the provider failed for an earlier item")"])
                            progress = true
                            continue
                        }
                        let ready = item.dependencies.allSatisfy { done.contains($0) }
                        let hasRoom = item.usesModel ? runningModel < modelConcurrency : runningLocal < localConcurrency
                        if ready && hasRoom {
                            pending.remove(at: index)
                            if item.usesModel { runningModel += 1 } else { runningLocal += 1 }
                            events.emit(.itemStarted(id: item.id, stage: item.stage))
                            let context = WorkContext(itemID: item.id, results: results)
                            group.addTask {
                                do {
                                    return (item.id, .success(try await item.body(context)))
                                } catch {
                                    return (item.id, .failure(error))
                                }
                            }
                            continue
                        }
                        index += 1
                    }
                }
            }

            schedule()
            while let (id, result) = await group.next() {
                guard let item = itemsByID[id] else { continue }
                if item.usesModel { runningModel -= 1 } else { runningLocal -= 1 }
                switch result {
                case .success(let output):
                    results.set(id, output.value)
                    done.insert(id)
                    completed.append(id)
                    if let report = output.report {
                        reports[id] = report
                        events.emit(.itemFinished(report))
                    } else {
                        events.emit(.itemFinished(ItemReport(id: id, stage: item.stage, attempts: 0, usage: TokenUsage(), paidUsage: TokenUsage(), costUSD: 0, cached: true, latency: .zero)))
                    }
                    add(output.spawn)
                case .failure(let error):
                    if let failure = error as? ItemFailureError {
                        if failure.reason == .budget { budgetExceeded = true }
                        if failure.reason == .provider { providerStopped = true }
                        fail(item, reason: failure.reason, attempts: failure.attempts, errors: failure.errors)
                    } else if error is CancellationError {
                        fail(item, reason: .cancelled, attempts: 0, errors: ["the run was interrupted"])
                    } else {
                        fail(item, reason: .invalid, attempts: 0, errors: [String(describing: error)])
                    }
                }
                schedule()
            }
            // Anything still pending could not start (a dependency never finished).
            for item in pending where failed[item.id] == nil && !done.contains(item.id) {
                fail(item, reason: Task.isCancelled ? .cancelled : .dependency, attempts: 0, errors: ["never became ready"])
            }
        }
        return EngineOutcome(
            completed: completed, failures: failureOrder.compactMap { failed[$0] }, reports: reports,
            budgetExceeded: budgetExceeded, providerStopped: providerStopped, cancelled: Task.isCancelled)
    }
}
