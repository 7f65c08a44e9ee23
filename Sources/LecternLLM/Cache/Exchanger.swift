import Foundation
import Synchronization

/// The outcome of one exchange: the stored record and whether it came from the cache.
public struct ExchangeOutcome: Sendable {
    public var record: ExchangeRecord
    /// True when no model was called for it in this run.
    public var cached: Bool
}

/// Answers requests from the cache or the provider, according to the cache mode, and remembers
/// every exchange the run used (for `--record-cassette`).
public final class Exchanger: Sendable {
    public let providerKind: String
    public let mode: CacheMode
    public let cache: ExchangeCache
    private let provider: (any LLMProvider)?
    private let used = Mutex<[String: ExchangeRecord]>([:])
    /// Why the cache could not be written, once it could not: from then on no provider call
    /// starts (its answer could not be kept), so a full disk does not keep spending.
    private let storeFailure = Mutex<String?>(nil)
    private let clock = ContinuousClock()

    /// True while a sharded run reads another shard's item (`Engine`, a gathering stage): the
    /// answer must come from the cache, whatever the run's mode, so no shard pays for an item
    /// that is another's; a miss is a `CacheError` and the item waits for the shard's next round.
    @TaskLocal public static var cacheOnly = false

    /// The provider's connection slots for the run (`RequestSlots`): a call to the provider holds
    /// one, a cache hit none. Nil: no bound here (the engine's own bounds the calls).
    @TaskLocal public static var requestSlots: RequestSlots?

    /// `provider` may be nil in replay and offline modes.
    public init(providerKind: String, provider: (any LLMProvider)?, cache: ExchangeCache, mode: CacheMode) {
        self.providerKind = providerKind
        self.provider = provider
        self.cache = cache
        self.mode = mode
    }

    /// How many requests may be in flight: the provider's limit.
    public var maxConcurrency: Int { provider?.maxConcurrency ?? 64 }

    /// The key a request would be stored under.
    public func key(for request: LLMRequest, template: String, variant: String?) -> String {
        ExchangeKeyMaterial(provider: providerKind, request: request, promptTemplate: template, variant: variant).key
    }

    /// One exchange. Failed exchanges (errors, truncated answers) are never stored; a complete
    /// answer and one that looped (`FinishReason.loop`, refused by its stage) are.
    /// `beforeCall` runs only when the provider is about to be paid (a cache miss in record or
    /// off mode), so a budget check costs no second key computation or cache read. `afterCall`
    /// runs with the paid answer while its slot is still held, so the next call's `beforeCall`
    /// sees what this one cost.
    public func exchange(
        _ request: LLMRequest, template: String, variant: String?, context: RequestContext,
        beforeCall: (@Sendable () throws -> Void)? = nil, afterCall: (@Sendable (LLMResponse) -> Void)? = nil
    ) async throws -> ExchangeOutcome {
        let key = key(for: request, template: template, variant: variant)
        if mode != .off, let record = cache.lookup(key) {
            used.withLock { $0[key] = record }
            return ExchangeOutcome(record: record, cached: true)
        }
        if Self.cacheOnly {
            throw CacheError(
                "no answer for \(context.itemID) (stage \(context.stage), attempt \(context.attempt)) in this shard's cache yet: it is another shard's item, read from the cache only"
            )
        }
        if mode == .replay || mode == .offline {
            throw CacheError(
                "no recorded answer for \(context.itemID) (stage \(context.stage), attempt \(context.attempt), key \(key.prefix(12))…) in the cache or cassettes; the spec or a prompt changed since recording — run with '--cache record' to call the model, or re-record the cassette"
            )
        }
        guard let provider else {
            throw CacheError("no model provider is configured for \(context.itemID)")
        }
        if mode == .record, let failure = storeFailure.withLock({ $0 }) {
            throw CacheWriteError("not asked: \(failure)")
        }
        guard mode == .record else { return try await call(request, key: key, template: template, provider: provider, context: context, beforeCall: beforeCall, afterCall: afterCall) }
        // Another run on this cache may be asking for the same answer: wait for it and take it.
        return try await cache.withEntryLock(key) {
            if let record = cache.lookup(key) {
                used.withLock { $0[key] = record }
                return ExchangeOutcome(record: record, cached: true)
            }
            return try await call(request, key: key, template: template, provider: provider, context: context, beforeCall: beforeCall, afterCall: afterCall)
        }
    }

    /// Asks the provider and stores the answer (in record mode).
    private func call(
        _ request: LLMRequest, key: String, template: String, provider: any LLMProvider, context: RequestContext,
        beforeCall: (@Sendable () throws -> Void)?, afterCall: (@Sendable (LLMResponse) -> Void)?
    ) async throws -> ExchangeOutcome {
        var start = clock.now
        let response: LLMResponse
        if let slots = Self.requestSlots {
            // The budget is checked holding the slot: a call that waited for one is paid for
            // only if the budget still allows it.
            response = try await slots.withSlot {
                // What was true before waiting for the slot is checked again: the disk may have
                // failed meanwhile (no answer could be kept), or the budget been spent.
                if mode == .record, let failure = storeFailure.withLock({ $0 }) { throw CacheWriteError("not asked: \(failure)") }
                try beforeCall?()
                start = clock.now
                do {
                    let response = try await provider.complete(request, context: context)
                    afterCall?(response)
                    return response
                } catch let error as LLMError where ![.truncated, .noScriptedAnswer, .cancelled].contains(error.kind) {
                    // A failure that would fail every call (the engine stops the run for it):
                    // closed before this slot is given on, so no waiting item asks.
                    slots.close(throwing: RequestSlots.Closed("the provider failed for an earlier item"))
                    throw error
                }
            }
        } else {
            try beforeCall?()
            response = try await provider.complete(request, context: context)
            afterCall?(response)
        }
        let elapsed = start.duration(to: clock.now)
        let milliseconds = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        let record = ExchangeRecord(
            key: key, itemID: context.itemID, stage: context.stage, promptTemplate: template, provider: providerKind,
            model: request.model, response: response, elapsedMilliseconds: milliseconds)
        if mode == .record && response.finishReason.isStored {
            do {
                try cache.store(record)
            } catch {
                let reason = "the exchange cache could not be written (\(error)); free disk space or choose another --cache-dir, then re-run"
                storeFailure.withLock { if $0 == nil { $0 = reason } }
                throw CacheWriteError("the answer for \(context.itemID) was paid for but not stored: \(reason)")
            }
        }
        used.withLock { $0[key] = record }
        return ExchangeOutcome(record: record, cached: false)
    }

    /// Makes the cache's new entries durable (call at the end of a run).
    public func flush() { cache.flush() }

    /// The exchanges this run used, for writing a cassette.
    public func usedRecords() -> [ExchangeRecord] {
        used.withLock { Array($0.values) }.filter { $0.response.finishReason.isStored }
    }
}
