import Foundation
import Synchronization

/// `run --batch` (`model.batch: true`): the items' requests go through the provider's batch API
/// instead of one HTTP request each — the same prompts, validation, cache and cassettes; the
/// provider's batch price.
///
/// The engine starts every ready item at once (this provider's concurrency is unbounded). Their
/// requests collect here; when no new one has arrived for a moment, they go out as one batch (a
/// round). Answers come back to the items, which validate and store them as usual: a repair is a
/// new request and joins the next round, and so do the items a round unlocked (a lecture's
/// questions). Lines that failed, expired, were cancelled or are missing from the results go
/// again in the next round, up to `maxRounds` times; nothing that succeeded is asked again.
///
/// Resumable: a batch's id and its requests' ids are written to the journal (the cache's
/// `batches/` folder, fsynced) as soon as the provider accepts it. A killed or interrupted run,
/// started again, finds its requests in the journal and waits for those batches instead of
/// submitting them again; a journal entry is removed once its answers went to their items.
public final class BatchProvider: LLMProvider, @unchecked Sendable {
    public struct Options: Sendable {
        /// The first wait between status checks; it grows by half up to `maxPollInterval`.
        public var pollInterval: Duration = .seconds(5)
        public var maxPollInterval: Duration = .seconds(60)
        /// A round goes out when no request arrived for this long.
        public var quietPeriod: Duration = .milliseconds(300)
        /// The most lines in one batch (OpenAI allows 50,000; Anthropic 100,000).
        public var maxLines = 50_000
        /// How many rounds a request may take part in before its item fails.
        public var maxRounds = 4

        public init() {}
    }

    public let kind: String
    public var maxConcurrency: Int { 1_000_000 }
    let backend: any BatchBackend
    let journal: BatchJournal?
    let options: Options
    let model: String
    let events: ProviderEventSink
    let sleeper: any Sleeper

    struct Waiter {
        var token: UInt64
        var continuation: CheckedContinuation<LLMResponse, any Error>
    }

    struct Pending {
        var line: BatchLine
        var waiters: [Waiter]
        var rounds: Int
    }

    struct State {
        var pending: [String: Pending] = [:]
        var order: [String] = []
        var running = false
        var lastArrival = ContinuousClock.now
        var nextToken: UInt64 = 0
        /// Lines in a round that is out, so a cancelled waiter is found there too.
        var outstanding: [String: Pending] = [:]
    }

    private let state = Mutex(State())

    init(kind: String, model: String, backend: any BatchBackend, journal: BatchJournal?, options: Options, runtime: ProviderRuntime) {
        self.kind = kind
        self.model = model
        self.backend = backend
        self.journal = journal
        self.options = options
        self.events = runtime.events
        self.sleeper = runtime.sleeper
    }

    /// The batch form of `provider` (OpenAI or Anthropic); nil for a provider without a batch API.
    public static func wrapping(
        _ provider: any LLMProvider, journalDirectory: URL?, options: Options = Options(), runtime: ProviderRuntime = ProviderRuntime()
    ) -> BatchProvider? {
        let journal = journalDirectory.map { BatchJournal(directory: $0, provider: provider.kind) }
        if let openai = provider as? OpenAICompatibleProvider {
            return BatchProvider(
                kind: openai.kind, model: openai.configuration.model, backend: OpenAIBatchBackend(provider: openai, runtime: runtime),
                journal: journal, options: options, runtime: runtime)
        }
        if let anthropic = provider as? AnthropicProvider {
            return BatchProvider(
                kind: anthropic.kind, model: anthropic.configuration.model, backend: AnthropicBatchBackend(provider: anthropic, runtime: runtime),
                journal: journal, options: options, runtime: runtime)
        }
        return nil
    }

    public func complete(_ request: LLMRequest, context: RequestContext) async throws -> LLMResponse {
        let line = BatchLine(customID: BatchIDs.customID(for: request, context: context), request: request, context: context)
        let token = state.withLock { state -> UInt64 in
            state.nextToken += 1
            return state.nextToken
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // Cancelled before it was queued: the cancellation handler found nothing to cancel.
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                let start = state.withLock { state -> Bool in
                    if state.pending[line.customID] == nil {
                        state.pending[line.customID] = Pending(line: line, waiters: [], rounds: 0)
                        state.order.append(line.customID)
                    }
                    state.pending[line.customID]!.waiters.append(Waiter(token: token, continuation: continuation))
                    state.lastArrival = .now
                    if state.running { return false }
                    state.running = true
                    return true
                }
                if start { Task.detached { await self.loop() } }
            }
        } onCancel: {
            let removed = state.withLock { state -> Waiter? in
                for key in [line.customID] {
                    if let index = state.pending[key]?.waiters.firstIndex(where: { $0.token == token }) {
                        return state.pending[key]!.waiters.remove(at: index)
                    }
                    if let index = state.outstanding[key]?.waiters.firstIndex(where: { $0.token == token }) {
                        return state.outstanding[key]!.waiters.remove(at: index)
                    }
                }
                return nil
            }
            removed?.continuation.resume(throwing: CancellationError())
        }
    }

    // MARK: Rounds

    private func loop() async {
        while true {
            // Wait for a quiet moment, so that everything the last answers unlocked joins this round.
            while true {
                let quietFor = state.withLock { ContinuousClock.now - $0.lastArrival }
                if quietFor >= options.quietPeriod { break }
                try? await Task.sleep(for: options.quietPeriod - quietFor)
            }
            let round = state.withLock { state -> [Pending]? in
                let keys = Array(state.order.prefix(options.maxLines))
                guard !keys.isEmpty else {
                    state.running = false
                    return nil
                }
                state.order.removeFirst(keys.count)
                let taken = keys.compactMap { state.pending.removeValue(forKey: $0) }.filter { !$0.waiters.isEmpty }
                for entry in taken { state.outstanding[entry.line.customID] = entry }
                return taken
            }
            guard let round else { return }
            if round.isEmpty { continue }
            await run(round)
        }
    }

    /// One round: reattach to journaled batches, submit the rest, wait, hand out the answers,
    /// requeue what did not come back.
    private func run(_ round: [Pending]) async {
        var lines: [String: BatchLine] = [:]
        for entry in round { lines[entry.line.customID] = entry.line }
        var batches: [(id: String, customIDs: Set<String>)] = []
        var unsent = Set(lines.keys)
        for (id, journaled) in journal?.batches(containing: unsent) ?? [] {
            let mine = journaled.intersection(unsent)
            unsent.subtract(mine)
            batches.append((id, mine))
            emit("resuming batch \(id): \(mine.count) request(s) of this round were submitted before the run stopped")
        }
        if !unsent.isEmpty {
            let ordered = round.map(\.line).filter { unsent.contains($0.customID) }
            do {
                let id = try await backend.submit(ordered, label: "lectern \(round.first?.line.context.stage ?? "")")
                // Before anything else: a run killed from here on finds this batch again.
                journal?.record(id: id, customIDs: unsent)
                batches.append((id, unsent))
                emit("submitted batch \(id) (\(backend.name)): \(unsent.count) request(s)")
            } catch {
                finish(unsent, with: .failure(error))
                unsent.removeAll()
            }
        }
        for batch in batches {
            await collect(batch.id, customIDs: batch.customIDs, lines: lines)
        }
    }

    /// Waits for a batch to stop running, then hands out its results.
    private func collect(_ id: String, customIDs: Set<String>, lines: [String: BatchLine]) async {
        var wait = options.pollInterval
        var last = ""
        var status: BatchStatus
        while true {
            do {
                status = try await backend.status(of: id)
            } catch {
                finish(customIDs, with: .failure(error))
                return
            }
            if status.phase != .running { break }
            let line = "batch \(id): \(status.providerState), \(status.succeeded + status.failed)/\(status.total) done, \(status.failed) failed"
            if line != last { emit(line) }
            last = line
            do {
                try await sleeper.sleep(for: wait)
            } catch {
                finish(customIDs, with: .failure(CancellationError()))
                return
            }
            wait = min(options.maxPollInterval, wait * 1.5)
        }
        var results: [String: BatchLineResult] = [:]
        if status.phase != .failed {
            do {
                results = try await backend.results(of: id, lines: lines.filter { customIDs.contains($0.key) })
            } catch {
                finish(customIDs, with: .failure(error))
                return
            }
        }
        var answered = 0
        var again: [String: String] = [:]
        for customID in customIDs {
            switch results[customID] {
            case .answer(let response)?:
                finish([customID], with: .success(response))
                answered += 1
            case .failed(let reason)?:
                again[customID] = reason
            case nil:
                again[customID] = status.phase == .ended ? "missing from the results" : "the batch \(status.providerState)"
            }
        }
        journal?.handedOut(customIDs, of: id)
        emit("batch \(id) \(status.providerState): \(answered) answered, \(again.count) to ask again")
        requeue(again)
    }

    /// Puts failed lines back for the next round, or fails their items after `maxRounds`.
    private func requeue(_ reasons: [String: String]) {
        guard !reasons.isEmpty else { return }
        var exhausted: [(Pending, String)] = []
        state.withLock { state in
            for (customID, reason) in reasons.sorted(by: { $0.key < $1.key }) {
                guard var entry = state.outstanding.removeValue(forKey: customID) else { continue }
                entry.rounds += 1
                if entry.rounds >= options.maxRounds {
                    exhausted.append((entry, reason))
                } else if entry.waiters.isEmpty {
                    continue
                } else if state.pending[customID] != nil {
                    state.pending[customID]!.waiters += entry.waiters
                } else {
                    state.pending[customID] = entry
                    state.order.append(customID)
                }
            }
            state.lastArrival = .now
        }
        for (entry, reason) in exhausted {
            let error = LLMError(
                .unavailable,
                "item \(entry.line.context.itemID) got no answer from the \(backend.name) in \(entry.rounds) batches (last: \(reason)); re-run to try again")
            for waiter in entry.waiters { waiter.continuation.resume(throwing: error) }
        }
    }

    private func finish(_ customIDs: Set<String>, with result: Result<LLMResponse, any Error>) {
        let waiters = state.withLock { state in customIDs.flatMap { state.outstanding.removeValue(forKey: $0)?.waiters ?? [] } }
        for waiter in waiters { waiter.continuation.resume(with: result) }
    }

    private func emit(_ message: String) {
        events(ProviderEvent(kind: .batch, provider: kind, model: model, message: message))
    }
}

/// The ids of submitted batches and their requests, one small file a batch under the cache's
/// `batches/`, written durably before the run waits on the batch.
final class BatchJournal: Sendable {
    let directory: URL
    let provider: String

    init(directory: URL, provider: String) {
        self.directory = directory
        self.provider = provider
    }

    private struct Entry: Codable {
        var provider: String
        var id: String
        var customIDs: [String]

        enum CodingKeys: String, CodingKey { case provider, id, customIDs = "custom_ids" }
    }

    func record(id: String, customIDs: Set<String>) {
        let entry = Entry(provider: provider, id: id, customIDs: customIDs.sorted())
        guard let data = try? JSONEncoder().encode(entry) else { return }
        try? DurableFile.write(data, to: file(id), directory: directory)
    }

    /// Takes `customIDs` off a batch's entry (their answers went to their items, or they go
    /// again in a new batch); the entry goes when none is left.
    func handedOut(_ customIDs: Set<String>, of id: String) {
        guard let data = FileManager.default.contents(atPath: file(id).path), var entry = try? JSONDecoder().decode(Entry.self, from: data) else { return }
        entry.customIDs.removeAll { customIDs.contains($0) }
        if entry.customIDs.isEmpty {
            try? FileManager.default.removeItem(at: file(id))
        } else if let data = try? JSONEncoder().encode(entry) {
            try? DurableFile.write(data, to: file(id), directory: directory)
        }
    }

    /// Journaled batches of this provider holding any of `customIDs`.
    func batches(containing customIDs: Set<String>) -> [(String, Set<String>)] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
        var found: [(String, Set<String>)] = []
        for name in names.sorted() where name.hasSuffix(".json") {
            guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path),
                let entry = try? JSONDecoder().decode(Entry.self, from: data), entry.provider == provider
            else { continue }
            let ids = Set(entry.customIDs)
            if !ids.isDisjoint(with: customIDs) { found.append((entry.id, ids)) }
        }
        return found
    }

    private func file(_ id: String) -> URL {
        let safe = String(id.unicodeScalars.map { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") ? Character($0) : "_" })
        return directory.appendingPathComponent(safe + ".json")
    }
}
