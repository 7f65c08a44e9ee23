import Foundation
import Synchronization
import Testing

@testable import LecternLLM

/// The provider's connection slots (`RequestSlots`): a call to the provider holds one while it is
/// in flight and no longer, so what a caller does with an answer (checking it) never keeps the
/// next request waiting; a failure that would fail every call closes them.
struct RequestSlotsTests {
    /// Answers after `delay`, counting the requests it has in flight at once.
    final class CountingProvider: LLMProvider {
        let kind = "scripted"
        let maxConcurrency = 64
        let delay: Duration
        let failing: Set<String>
        private let state = Mutex((now: 0, most: 0, asked: [String]()))

        init(delay: Duration, failing: Set<String> = []) {
            self.delay = delay
            self.failing = failing
        }

        var most: Int { state.withLock { $0.most } }
        var asked: [String] { state.withLock { $0.asked } }

        func complete(_ request: LLMRequest, context: RequestContext) async throws -> LLMResponse {
            state.withLock {
                $0.now += 1
                $0.most = max($0.most, $0.now)
                $0.asked.append(context.itemID)
            }
            defer { state.withLock { $0.now -= 1 } }
            try await Task.sleep(for: delay)
            if failing.contains(context.itemID) { throw LLMError(.authentication, "401 for \(context.itemID)") }
            return LLMResponse(content: "{\"item\": \"\(context.itemID)\"}")
        }
    }

    static func exchanger(_ provider: CountingProvider) throws -> Exchanger {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-slots-\(UUID().uuidString)")
        return Exchanger(providerKind: "scripted", provider: provider, cache: try ExchangeCache(root: root), mode: .off)
    }

    static func request(_ item: String) -> LLMRequest {
        LLMRequest(model: "m", messages: [.user("answer \(item)")], temperature: 0, maxTokens: 10, responseSchema: nil)
    }

    @Test func noMoreRequestsThanSlotsAreInFlight() async throws {
        let provider = CountingProvider(delay: .milliseconds(20))
        let exchanger = try Self.exchanger(provider)
        let slots = RequestSlots(limit: 2)
        try await Exchanger.$requestSlots.withValue(slots) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<6 {
                    group.addTask {
                        let item = "item-\(index)"
                        _ = try await exchanger.exchange(Self.request(item), template: "t@1", variant: nil, context: RequestContext(itemID: item, stage: "s"))
                    }
                }
                try await group.waitForAll()
            }
        }
        #expect(provider.most == 2)
        #expect(provider.asked.count == 6)
        #expect(slots.inUse == 0)
    }

    /// With one slot, the first caller goes on "checking" its answer until the second caller's
    /// request has reached the provider: had the first kept its slot, the second could never
    /// be asked (the wait gives up after 10 s and the expectation fails).
    @Test func aCallerCheckingItsAnswerHoldsNoSlot() async throws {
        let provider = CountingProvider(delay: .milliseconds(5))
        let exchanger = try Self.exchanger(provider)
        let slots = RequestSlots(limit: 1)
        let seenWhileChecking = try await Exchanger.$requestSlots.withValue(slots) {
            try await withThrowingTaskGroup(of: Bool?.self) { group in
                group.addTask {
                    _ = try await exchanger.exchange(Self.request("first"), template: "t@1", variant: nil, context: RequestContext(itemID: "first", stage: "s"))
                    for _ in 0..<1_000 where !provider.asked.contains("second") { try await Task.sleep(for: .milliseconds(10)) }
                    return provider.asked.contains("second")
                }
                group.addTask {
                    while !provider.asked.contains("first") { try await Task.sleep(for: .milliseconds(1)) }
                    _ = try await exchanger.exchange(Self.request("second"), template: "t@1", variant: nil, context: RequestContext(itemID: "second", stage: "s"))
                    return nil
                }
                return try await group.reduce(into: [Bool]()) { if let seen = $1 { $0.append(seen) } }
            }
        }
        #expect(seenWhileChecking == [true])
    }

    @Test func aFailureThatFailsEveryCallClosesTheSlotsForThoseWaiting() async throws {
        let provider = CountingProvider(delay: .milliseconds(20), failing: ["item-0"])
        let exchanger = try Self.exchanger(provider)
        let slots = RequestSlots(limit: 1)
        let outcomes = try await Exchanger.$requestSlots.withValue(slots) {
            try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<4 {
                    group.addTask {
                        let item = "item-\(index)"
                        // The first asks first; the others wait for its slot.
                        if index > 0 { try await Task.sleep(for: .milliseconds(5)) }
                        do {
                            _ = try await exchanger.exchange(Self.request(item), template: "t@1", variant: nil, context: RequestContext(itemID: item, stage: "s"))
                            return "answered"
                        } catch is RequestSlots.Closed {
                            return "closed"
                        } catch let error as LLMError {
                            return error.kind.rawValue
                        }
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
        }
        #expect(outcomes.sorted() == ["authentication", "closed", "closed", "closed"])
        #expect(provider.asked == ["item-0"], "nobody asked after the 401")
    }
}
