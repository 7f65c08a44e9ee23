import Foundation
import LecternCore
import LecternLLM
import Synchronization

/// Parsing of one answer: the value (with warnings) or the errors to send back to the model.
public enum AnswerCheck<Output: Sendable>: Sendable {
    case valid(Output, warnings: [ValidationIssue])
    case invalid([String])

    /// The ending every stage's check shares: invalid with the errors' messages when `issues`
    /// holds an error, otherwise valid with its warnings.
    public static func judged(_ value: Output, by issues: [ValidationIssue]) -> AnswerCheck {
        let errors = issues.errors
        return errors.isEmpty ? .valid(value, warnings: issues.warnings) : .invalid(errors.map(\.message))
    }
}

/// One model call as a stage describes it.
public struct ModelCall<Output: Sendable>: Sendable {
    public var itemID: String
    public var stage: String
    public var template: PromptTemplate
    public var variables: [String: String]
    public var schema: ResponseSchema?
    public var check: @Sendable (String) -> AnswerCheck<Output>

    public init(
        itemID: String, stage: StageName, template: PromptTemplate, variables: [String: String], schema: ResponseSchema?,
        check: @escaping @Sendable (String) -> AnswerCheck<Output>
    ) {
        self.itemID = itemID
        self.stage = stage.rawValue
        self.template = template
        self.variables = variables
        self.schema = schema
        self.check = check
    }
}

/// Running totals of a job: all usage (stored answers included, so resumed and uninterrupted
/// runs report the same) and what this run paid for.
public final class Ledger: Sendable {
    public struct Totals: Sendable {
        public var usage = TokenUsage()
        public var costUSD = 0.0
        public var paidUsage = TokenUsage()
        public var paidCostUSD = 0.0
        public var calls = 0
        public var cachedCalls = 0
        /// `provider/model` used, for the manifest.
        public var models = Set<String>()
        public var templates = Set<String>()
    }

    private let state = Mutex(Totals())

    public init() {}

    public var totals: Totals { state.withLock { $0 } }

    func record(usage: TokenUsage, cost: Double, cached: Bool, model: String, template: String) {
        state.withLock {
            $0.usage += usage
            $0.costUSD += cost
            $0.models.insert(model)
            $0.templates.insert(template)
            if cached {
                $0.cachedCalls += 1
            } else {
                $0.calls += 1
                $0.paidUsage += usage
                $0.paidCostUSD += cost
            }
        }
    }
}

/// Prices usage: `(provider kind, model, usage) -> USD`, nil when unknown (counted as 0).
public typealias CostFunction = @Sendable (String, String, TokenUsage) -> Double?

/// Asks the model, checks the answer, and re-asks with the errors until it is valid or the
/// attempts run out.
///
/// The second attempt is a repair in conversation: the invalid answer and its errors, so a repair
/// costs one answer's worth of tokens, not the whole history. Later attempts start afresh from the
/// original request with every error seen so far listed as things to avoid, because a small model
/// shown its own wrong answer tends to send it again. Each repair also samples a little hotter
/// (`repairTemperature`) so that a repeated ask can give a different answer.
///
/// Re-running a job gives a failed item another round: when every attempt of a round came from the
/// cache (the item failed the same way in an earlier run), the chain goes on with attempts
/// `maxAttempts + 1 … 2 × maxAttempts`, fresh requests listing every error seen. Asking the same
/// cached questions again could only fail again. Replays (`offline`, `replay`) follow a recorded
/// chain as far as it goes and otherwise report the earlier failure, not a cache miss.
public struct ModelCallRunner: Sendable {
    public var exchanger: Exchanger
    public var model: String
    public var temperature: Double
    public var maxTokens: Int
    public var seed: Int?
    public var frequencyPenalty: Double?
    public var variant: String?
    public var maxAttempts: Int
    public var budgetUSD: Double?
    public var ledger: Ledger
    public var cost: CostFunction
    public var events: any EngineEventSink

    public init(
        exchanger: Exchanger, model: String, temperature: Double, maxTokens: Int, seed: Int?, variant: String?, maxAttempts: Int,
        budgetUSD: Double?, ledger: Ledger, cost: @escaping CostFunction, events: any EngineEventSink
    ) {
        self.exchanger = exchanger
        self.model = model
        self.temperature = temperature
        self.maxTokens = maxTokens
        self.seed = seed
        self.variant = variant
        self.maxAttempts = max(1, maxAttempts)
        self.budgetUSD = budgetUSD
        self.ledger = ledger
        self.cost = cost
        self.events = events
    }

    func request(_ messages: [ChatMessage], schema: ResponseSchema?, attempt: Int = 1) -> LLMRequest {
        LLMRequest(
            model: model, messages: messages, temperature: Self.repairTemperature(temperature, attempt: attempt), maxTokens: maxTokens,
            responseSchema: schema, seed: seed, frequencyPenalty: frequencyPenalty)
    }

    /// The sampling temperature of `attempt`: the spec's for the first, then 0.2 more per repair,
    /// up to 1.0 (never lower than the spec's).
    static func repairTemperature(_ temperature: Double, attempt: Int) -> Double {
        guard attempt > 1 else { return temperature }
        return max(temperature, min(1.0, temperature + 0.2 * Double(attempt - 1)))
    }

    /// The messages of attempt `next` after an invalid `answer` with `errors`; `seen` holds every
    /// error so far, in order.
    static func repairMessages(base: [ChatMessage], answer: String, errors: [String], seen: [String], next: Int, of maxAttempts: Int, schema: Bool)
        -> [ChatMessage]
    {
        let rules = schema ? " and the same JSON schema. Answer with JSON only." : "."
        if next == 2 {
            let previous = answer.count > 12_000 ? String(answer.prefix(12_000)) + "\n[…cut…]" : answer
            // The attempt number keeps each repair request distinct: a model that repeats the
            // same wrong answer must be asked again, not answered from the cache.
            return base + [
                .assistant(previous),
                .user(
                    "Attempt \(next) of \(maxAttempts). Your answer above has these problems:\n" + errors.map { "- \($0)" }.joined(separator: "\n")
                        + "\n\nReply again with the complete corrected answer, following the same instructions" + rules),
            ]
        }
        var messages = base
        let note =
            "\n\n(Attempt \(next) of \(maxAttempts).) Earlier answers to this request were rejected for these problems; make sure yours has none of them:\n"
            + seen.map { "- \($0)" }.joined(separator: "\n")
        if let last = messages.indices.last, messages[last].role == .user {
            messages[last].content += note
        } else {
            messages.append(.user(note.trimmed))
        }
        return messages
    }

    /// The first request of a call, for planning (cache hits) without calling anything.
    public func firstRequest<Output>(_ call: ModelCall<Output>) -> LLMRequest {
        request(call.template.messages(call.variables), schema: call.schema)
    }

    public func run<Output>(_ call: ModelCall<Output>) async throws -> (Output, ItemReport) {
        let clock = ContinuousClock()
        let start = clock.now
        let base = call.template.messages(call.variables)
        var messages = base
        var usage = TokenUsage()
        var paid = TokenUsage()
        var spent = 0.0
        var allCached = true
        var lastErrors: [String] = []
        var seenErrors: [String] = []
        var roundEnd = maxAttempts
        var roundCached = true
        var attempt = 0
        while attempt < roundEnd {
            attempt += 1
            try Task.checkCancellation()
            let request = request(messages, schema: call.schema, attempt: attempt)
            // Checked only when a call would be paid for: stored answers stay free.
            var budgetCheck: (@Sendable () throws -> Void)?
            if let budgetUSD {
                let ledger = self.ledger
                let attemptsSoFar = attempt - 1
                budgetCheck = {
                    let paid = ledger.totals.paidCostUSD
                    guard paid < budgetUSD else {
                        throw ItemFailureError(
                            reason: .budget, attempts: attemptsSoFar,
                            errors: [String(format: "the budget of $%.2f is spent ($%.4f so far)", budgetUSD, paid)])
                    }
                }
            }
            let outcome: ExchangeOutcome
            do {
                outcome = try await exchanger.exchange(
                    request, template: call.template.identifier, variant: variant,
                    context: RequestContext(itemID: call.itemID, stage: call.stage, attempt: attempt, variables: call.variables),
                    beforeCall: budgetCheck)
            } catch let error as LLMError {
                if error.kind == .cancelled { throw CancellationError() }
                // Truncation and a missing scripted answer are this item's problem; the rest
                // (auth, network, rate limits after retries) would fail every item alike.
                let reason: ItemFailure.Reason =
                    (error.kind == .truncated || error.kind == .noScriptedAnswer || error.kind == .malformedResponse) ? .invalid : .provider
                throw ItemFailureError(reason: reason, attempts: attempt, errors: [error.message])
            } catch let error as CacheWriteError {
                throw ItemFailureError(reason: .internal, attempts: attempt, errors: [error.message])
            } catch let error as CacheError {
                // A replay past the end of a failed chain: the recorded failure stands.
                if attempt > maxAttempts { throw ItemFailureError(reason: .invalid, attempts: attempt - 1, errors: lastErrors) }
                throw ItemFailureError(reason: .cacheMiss, attempts: attempt, errors: [error.message])
            } catch is CancellationError {
                throw CancellationError()
            }
            let response = outcome.record.response
            let price = cost(exchanger.providerKind, model, response.usage) ?? 0
            usage += response.usage
            spent += price
            if !outcome.cached {
                allCached = false
                roundCached = false
                paid += response.usage
            }
            ledger.record(
                usage: response.usage, cost: price, cached: outcome.cached, model: "\(exchanger.providerKind)/\(model)",
                template: call.template.identifier)
            let errors: [String]
            if response.finishReason == .loop {
                errors = [AnswerLoop.refusal(response.content)]
            } else if response.finishReason != .stop {
                errors = ["the answer was cut off (\(response.finishReason.rawValue)) before it was complete; write a shorter, complete answer"]
            } else {
                switch call.check(response.content) {
                case .valid(let value, let warnings):
                    let report = ItemReport(
                        id: call.itemID, stage: call.stage, attempts: attempt, usage: usage, paidUsage: paid, costUSD: spent,
                        cached: allCached, latency: start.duration(to: clock.now),
                        warnings: warnings.map { ItemWarning(itemID: call.itemID, kind: $0.kind, message: $0.message) })
                    return (value, report)
                case .invalid(let problems):
                    errors = problems
                }
            }
            lastErrors = errors
            for error in errors where !seenErrors.contains(error) { seenErrors.append(error) }
            // Every answer of this round came from the cache: the item failed so in an earlier run.
            if attempt == roundEnd && roundCached { roundEnd += maxAttempts }
            if attempt < roundEnd {
                events.emit(.itemRepairing(id: call.itemID, stage: call.stage, attempt: attempt + 1, errors: errors))
                messages = Self.repairMessages(
                    base: base, answer: response.finishReason == .loop ? AnswerLoop.beforeLoop(response.content) : response.content, errors: errors, seen: seenErrors, next: attempt + 1, of: roundEnd,
                    schema: call.schema != nil)
            }
        }
        throw ItemFailureError(reason: .invalid, attempts: roundEnd, errors: lastErrors)
    }
}
