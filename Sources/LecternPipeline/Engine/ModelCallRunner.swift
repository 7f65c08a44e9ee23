import Foundation
import LecternCore
import LecternLLM
import Synchronization

/// Parsing of one answer: the value (with warnings) or the errors to send back to the model.
public enum AnswerCheck<Output: Sendable>: Sendable {
    case valid(Output, warnings: [ValidationIssue])
    case invalid([Refusal])

    /// The ending every stage's check shares: invalid with the errors (each with its check) when
    /// `issues` holds an error, otherwise valid with its warnings.
    public static func judged(_ value: Output, by issues: [ValidationIssue]) -> AnswerCheck {
        let errors = issues.errors
        return errors.isEmpty ? .valid(value, warnings: issues.warnings) : .invalid(errors.map(\.refusal))
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
    /// The multiple-choice questions of a checked answer, for the blind solver (`ReviewSpec`);
    /// nil for answers without any.
    public var blindSolve: (@Sendable (Output) -> [BlindSolveItem])?
    /// Told the errors of each refused attempt (the stage's, the inspector's and the blind
    /// solver's), before the next: a call whose `check` keeps what passed in earlier attempts (a
    /// reading set's questions) forgets what the errors name. Nil: nothing to tell.
    public var rejected: (@Sendable ([Refusal]) -> Void)?
    /// The answer as the item ships, when the stage changes it after `check` passed it: a reading
    /// set's questions kept from earlier attempts put in, a completion's key blanked in its stem.
    /// Given the text `check` just judged valid; nil (or no function): the answer as written, its
    /// JSON strings as the checks read them (`ShippedAnswer.mended`). What a reviewer reads,
    /// judges and edits is this text, never one the bundle does not hold.
    public var shipped: (@Sendable (String) -> String?)?

    /// The answer a reviewer sees for `text`, which `check` judged valid: `shipped`'s, else the
    /// JSON answer with the repairs the checks made to its strings, else `text`.
    func shippedAnswer(_ text: String) -> String {
        if let shipped, let changed = shipped(text) { return changed }
        return schema == nil ? text : ShippedAnswer.mended(text) ?? text
    }

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
    /// The checks every kind's answers get after their stage's own (`ContentInspector`): run on
    /// an answer whose value is `LearnerVisible`. Nil: none.
    public var inspector: ContentInspector?
    /// Puts each multiple-choice answer to a solver without its key; nil: no blind solving.
    public var solver: BlindSolver?
    /// Judges each answer the solver is given against the rubric (`review: { rubric: true }`); nil: no rubric.
    public var judge: RubricJudge?
    /// Judges each option of each answer the solver is given on its own (`review: { judge_options: true }`); nil: not.
    public var optionJudge: OptionJudge?
    /// What becomes of an answer the solver or the judge still disputes after the last attempt
    /// (`review.disputed`): it fails the item, or it is kept with a warning.
    public var disputed: ReviewSpec.Disputed = .fail
    /// Writes a wrong option's feedback anew when an answer is refused only for its wrong options'
    /// feedback (`FeedbackMending`); nil: such answers go to the usual repair.
    public var mending: FeedbackMending?
    /// A person's decisions on the items (approve, reject, edit), applied to each call, and the
    /// record of what each item became; nil: no review (nothing recorded).
    public var review: ReviewBook?

    public init(
        exchanger: Exchanger, model: String, temperature: Double, maxTokens: Int, seed: Int?, variant: String?, maxAttempts: Int,
        budgetUSD: Double?, ledger: Ledger, cost: @escaping CostFunction, events: any EngineEventSink, inspector: ContentInspector? = nil,
        solver: BlindSolver? = nil
    ) {
        self.inspector = inspector
        self.solver = solver
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
        let fresh = Self.freshStart(attempt: attempt, maxAttempts: maxAttempts)
        return LLMRequest(
            model: model, messages: messages, temperature: Self.repairTemperature(temperature, attempt: attempt - (fresh?.first ?? 1) + 1),
            maxTokens: maxTokens, responseSchema: schema, seed: seed.map { ($0 + (fresh?.round ?? 0)) % (Int(Int32.max) + 1) }, frequencyPenalty: frequencyPenalty)
    }

    /// Where an attempt's conversation starts. Rounds one and two (the first `2 × maxAttempts`
    /// attempts, over one run or two) repair one conversation, each attempt told every error so
    /// far. From the third round on, each round starts afresh: the first request again, with no
    /// errors listed, at the spec's temperature and with the seed moved on by the round's number
    /// past two, and repairs within the round only. After two rounds of repairs the list of
    /// errors is long and the model's answers are stuck on one pattern: the local model's level-1
    /// pool question on `if` statements was refused 21 times, almost every time for options that
    /// are the key again and wrong options sharing one feedback. Nil for attempts of the first two
    /// rounds; else the round's first attempt and its number past two (1 for the third round).
    static func freshStart(attempt: Int, maxAttempts: Int) -> (first: Int, round: Int)? {
        let round = (attempt - 1) / maxAttempts + 1
        guard round >= 3 else { return nil }
        return ((round - 1) * maxAttempts + 1, round - 2)
    }

    /// The sampling temperature of `attempt`: the spec's for the first, then 0.2 more per repair,
    /// up to 1.0 (never lower than the spec's).
    static func repairTemperature(_ temperature: Double, attempt: Int) -> Double {
        guard attempt > 1 else { return temperature }
        return max(temperature, min(1.0, temperature + 0.2 * Double(attempt - 1)))
    }

    /// The messages of attempt `next` after an invalid `answer` with `errors`; `seen` holds every
    /// error so far (of this conversation), in order. `first` is the attempt the conversation
    /// started with (`freshStart`): the one after it repairs in conversation.
    static func repairMessages(
        base: [ChatMessage], answer: String, errors: [String], seen: [String], next: Int, of maxAttempts: Int, schema: Bool, first: Int = 1
    ) -> [ChatMessage] {
        let rules = schema ? Self.repairSchemaRule : "."
        if next == first + 1 {
            let previous = answer.count > 12_000 ? String(answer.prefix(12_000)) + "\n[…cut…]" : answer
            // The attempt number keeps each repair request distinct: a model that repeats the
            // same wrong answer must be asked again, not answered from the cache.
            return base + [
                .assistant(previous),
                .user(
                    "Attempt \(next) of \(maxAttempts). \(Self.repairProblems):\n" + errors.map { "- \($0)" }.joined(separator: "\n")
                        + "\n\n\(Self.repairAgain)" + rules),
            ]
        }
        var messages = base
        let note =
            "\n\n(Attempt \(next) of \(maxAttempts).) \(Self.repairEarlier):\n"
            + seen.map { "- \($0)" }.joined(separator: "\n")
        if let last = messages.indices.last, messages[last].role == .user {
            messages[last].content += note
        } else {
            messages.append(.user(note.trimmed))
        }
        return messages
    }

    /// The words of a repair request (`repairMessages`), Lectern's own: an answer that gives them
    /// back is refused (`InstructionEcho`).
    static let repairProblems = "Your answer above has these problems"
    static let repairAgain = "Reply again with the complete corrected answer, following the same instructions"
    static let repairSchemaRule = " and the same JSON schema. Answer with JSON only."
    static let repairEarlier = "Earlier answers to this request were rejected for these problems; make sure yours has none of them"
    static let repairWording = [repairProblems, repairAgain + repairSchemaRule, repairEarlier]
    /// How a reviewer's rejection opens, before the reviewer's note.
    static let reviewerRejection = "a reviewer rejected this answer: "

    /// `check` with the inspector's checks added to a valid answer's.
    func inspected<Output>(_ check: AnswerCheck<Output>) -> AnswerCheck<Output> {
        guard let inspector, case .valid(let value, let warnings) = check, let visible = value as? any LearnerVisible else { return check }
        return .judged(value, by: warnings + inspector.issues(visible.learnerTexts))
    }

    /// The first request of a call, for planning (cache hits) without calling anything.
    public func firstRequest<Output>(_ call: ModelCall<Output>) -> LLMRequest {
        request(call.template.messages(call.variables), schema: call.schema)
    }

    public func run<Output>(_ call: ModelCall<Output>) async throws -> (Output, ItemReport) {
        let clock = ContinuousClock()
        let start = clock.now
        // A reviewer's decision on this item: an approved or edited answer is kept without a call
        // while what it was built from holds; a rejected one is refused with the note.
        let decision = review?.file[call.itemID]
        let basis = ReviewFile.basisHash(call.variables)
        var stale: String?
        if let review, let decision, decision.kind != .reject {
            // The kept answer is judged first, as written: a check with state of its own (a
            // reading set keeps each question that passed in an earlier attempt and puts it in
            // for one that fails) must not answer for the reviewer's text with the model's.
            let kept = try keptAnswer(call, decision: decision, basis: basis, review: review)
            // The model's own answer as the cache holds it, when it is the one judged: the item's
            // history of refusals stays in quality.json. Otherwise (a prompt, the model or the
            // tone changed) the kept answer stands alone, with no call.
            var history: ItemReport?
            if case .kept = kept, decision.basis == basis,
                let (_, report, answered) = try? await Exchanger.$cacheOnly.withValue(true, operation: { try await answer(call, basis: basis, record: false) }),
                ReviewFile.contentHash(answered) == decision.content
            {
                history = report
            }
            switch kept {
            case .kept(let value, let text, let warnings):
                review.record(
                    ReviewBook.Record(
                        item: call.itemID, stage: call.stage, state: decision.kind == .edit ? .edited : .approved, answer: text,
                        // The approved answer's hash was checked when the review file was read.
                        content: decision.kind == .approve && text == decision.answer ? decision.content : ReviewFile.contentHash(text), basis: basis,
                        by: decision.by, at: decision.at))
                // Without its history, no attempt: a person's answer, not the model's.
                let kept = warnings.map { ItemWarning(itemID: call.itemID, kind: $0.kind, message: $0.message, check: $0.check) }
                var report =
                    history
                    ?? ItemReport(
                        id: call.itemID, stage: call.stage, attempts: 0, usage: TokenUsage(), paidUsage: TokenUsage(), costUSD: 0, cached: true,
                        latency: start.duration(to: clock.now), warnings: kept)
                if decision.kind == .edit, history != nil {
                    // The model's attempts stay (what they cost, what was refused); what was judged of
                    // its answer (a blind solver's pick, a warning) is not said of the reviewer's text.
                    report.warnings = kept
                    report.blindSolve = BlindSolveTally()
                    report.rubric = RubricTally()
                }
                return (value, report)
            case .stale(let reason):
                stale = reason
            }
        }
        do {
            let (value, report, _) = try await answer(call, basis: basis, stale: stale)
            return (value, report)
        } catch let failure as ItemFailureError where failure.reason == .invalid && failure.lastAnswer != nil {
            // No answer passed: the last one is sealed as failed, for a person to write the item
            // from (`lectern review`'s Edit; the edit is checked like any answer at the next run).
            if let review, let last = failure.lastAnswer {
                review.record(
                    ReviewBook.Record(
                        item: call.itemID, stage: call.stage, state: .failed, answer: last, content: ReviewFile.contentHash(last), basis: basis,
                        rejected: decision?.kind == .reject ? decision?.note : nil, stale: stale, problems: failure.errors))
            }
            throw failure
        }
    }

    /// Asks the model (or the cache) and checks, repairing until an answer passes: the value, its
    /// report and the answer as it ships (`ModelCall.shippedAnswer`, mends and repairs included).
    /// `record`: the outcome goes to the review book.
    func answer<Output>(_ call: ModelCall<Output>, basis: String, stale: String? = nil, record: Bool = true) async throws -> (Output, ItemReport, String) {
        let clock = ContinuousClock()
        let start = clock.now
        var stale = stale
        let decision = review?.file[call.itemID]
        let rejection = decision?.kind == .reject ? decision : nil
        // Whether the answer the present rejection names came back (else the rejection is stale),
        // and the note of the last rejected answer refused.
        var rejectedAnswer = false
        var rejectedNote: String?
        let base = call.template.messages(call.variables)
        var messages = base
        var usage = TokenUsage()
        var paid = TokenUsage()
        var spent = 0.0
        var allCached = true
        var lastErrors: [Refusal] = []
        var seenErrors: [String] = []
        var rejections: [[Refusal]] = []
        var roundEnd = maxAttempts
        var roundCached = true
        var attempt = 0
        // Lectern's own words, which no learner text may give back; grows with each repair.
        var echo = Self.instructionEcho(for: call)
        // A reviewer's notes, given back whole (a run of `noteRunLength` words).
        var noteEcho = echo.emptied(length: Self.noteRunLength)
        var answersSoFar: [String] = []
        /// One exchange of this item (an attempt, or a blind solve of one): the budget checked
        /// before a paid call, failures mapped to the item's, usage and cost counted.
        func ask(
            _ request: LLMRequest, template: String, itemID: String, stage: String, variables: [String: String], model: String
        ) async throws -> LLMResponse {
            // Checked only when a call would be paid for: stored answers stay free.
            let ledger = self.ledger
            var budgetCheck: (@Sendable () throws -> Void)?
            if let budgetUSD {
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
            // A paid answer is counted while its call still holds the provider's slot, so a call
            // waiting for that slot checks the budget with this one's cost in it.
            let cost = self.cost
            let modelName = "\(exchanger.providerKind)/\(model)"
            let providerKind = exchanger.providerKind
            let countPaid: @Sendable (LLMResponse) -> Void = { response in
                ledger.record(
                    usage: response.usage, cost: cost(providerKind, model, response.usage) ?? 0, cached: false, model: modelName, template: template)
            }
            let outcome: ExchangeOutcome
            do {
                outcome = try await exchanger.exchange(
                    request, template: template, variant: variant,
                    context: RequestContext(itemID: itemID, stage: stage, attempt: attempt, variables: variables), beforeCall: budgetCheck,
                    afterCall: countPaid)
            } catch let error as LLMError {
                if error.kind == .cancelled { throw CancellationError() }
                // Truncation and a missing scripted answer are this item's problem; the rest
                // (auth, network, rate limits after retries, a body that is not the API's
                // answer, or one too large for any answer) are the provider's, and would fail
                // every item alike.
                let reason: ItemFailure.Reason = (error.kind == .truncated || error.kind == .noScriptedAnswer) ? .invalid : .provider
                throw ItemFailureError(
                    reason: reason, attempts: attempt, errors: [error.message], rejections: rejections,
                    refusals: [Refusal(error.kind == .truncated ? .wellFormed : .stageRules, error.message)])
            } catch let closed as RequestSlots.Closed {
                // Started beside the provider's slots, never asked: as an item not started.
                throw ItemFailureError(reason: .provider, attempts: 0, errors: ["not started: \(closed.reason)"], rejections: rejections)
            } catch let error as CacheWriteError {
                throw ItemFailureError(reason: .internal, attempts: attempt, errors: [error.message], rejections: rejections)
            } catch let error as CacheError {
                // A replay past the end of a failed chain: the recorded failure stands. (A solve
                // or a mend comes after an answer, so a missing one is always a miss.)
                if attempt > maxAttempts && stage == call.stage {
                    throw ItemFailureError(
                        reason: .invalid, attempts: attempt - 1, errors: lastErrors.messages, rejections: rejections, refusals: lastErrors,
                        lastAnswer: answersSoFar.last)
                }
                throw ItemFailureError(reason: .cacheMiss, attempts: attempt, errors: [error.message], rejections: rejections)
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
            if outcome.cached {
                ledger.record(usage: response.usage, cost: price, cached: true, model: modelName, template: template)
            }
            return response
        }

        while attempt < roundEnd {
            attempt += 1
            try Task.checkCancellation()
            if Self.freshStart(attempt: attempt, maxAttempts: maxAttempts)?.first == attempt {
                messages = base
                seenErrors = []
            }
            let response = try await ask(
                request(messages, schema: call.schema, attempt: attempt), template: call.template.identifier, itemID: call.itemID,
                stage: call.stage, variables: call.variables, model: model)
            let errors: [Refusal]
            // The answer a repair quotes: the model's, or its mend that failed only the blind solve.
            var answered = response.content
            if response.finishReason == .loop {
                errors = [Refusal(.wellFormed, AnswerLoop.refusal(response.content))]
            } else if response.finishReason != .stop {
                errors = [
                    Refusal(.wellFormed, "the answer was cut off (\(response.finishReason.rawValue)) before it was complete; write a shorter, complete answer")
                ]
            } else {
                var judged = inspected(call.check(response.content))
                var mended: [Refusal]?
                if case .invalid(let problems) = judged {
                    switch try await mend(call, answer: response.content, errors: problems, attempt: attempt, ask: ask) {
                    case .mended(let text, let again):
                        judged = again
                        answered = text
                        mended = problems
                    case .cutRefused(let refusals):
                        // What Lectern's own mend (a stem ended with its question) still left refused.
                        judged = .invalid(problems + refusals.map { Refusal($0.check, "with the words after its question left out, " + $0.message) })
                    case .notMended:
                        break
                    }
                }
                judged = echoChecked(judged, echo, notes: noteEcho, itemID: call.itemID)
                if Self.echoReport != nil, case .invalid = judged { reportEchoes(inRefused: answered, echo, itemID: call.itemID) }
                // The answer as it ships (what a reviewer judged), once the checks passed it.
                var shipped = answered
                if case .valid = judged { shipped = call.shippedAnswer(answered) }
                // An answer a reviewer rejected (this decision's, or one before it) is refused
                // with the note, whatever the checks said.
                if let decision, case .valid = judged, let note = decision.rejectionNote(for: ReviewFile.contentHash(shipped)) {
                    // Counted under the stage's rules: review.json, not the checks, counts what reviewers decided.
                    judged = .invalid([Refusal(.stageRules, Self.reviewerRejection + note)])
                    if rejection != nil, ReviewFile.contentHash(shipped) == decision.content { rejectedAnswer = true }
                    rejectedNote = note
                }
                switch judged {
                case .valid(let value, var warnings):
                    var tally = BlindSolveTally()
                    var disagreements: [Refusal] = []
                    // The answer's multiple-choice questions (none for free text), as the solver
                    // and the judges read them.
                    let questions = call.blindSolve?(value) ?? []
                    /// One exchange of a reviewing check (solve, rubric, option): its answer, or
                    /// nil when it ran past its budget, was cut off or was no answer — which says
                    /// nothing about the item, and fails nothing.
                    func reviewing(
                        _ request: LLMRequest, template: PromptTemplate, stage: String, itemID: String, variables: [String: String]
                    )
                        async throws -> LLMResponse?
                    {
                        do {
                            let answer = try await ask(request, template: template.identifier, itemID: itemID, stage: stage, variables: variables, model: request.model)
                            return answer.finishReason == .stop ? answer : nil
                        } catch let failure as ItemFailureError where failure.reason == .invalid {
                            return nil
                        }
                    }
                    if let solver {
                        for question in questions {
                            let (request, variables) = try solver.request(question, fallbackModel: model, seed: seed)
                            // A solver that names no option says nothing about the key.
                            guard
                                let answer = try await reviewing(
                                    request, template: solver.template, stage: BlindSolver.stage, itemID: BlindSolver.itemID(of: call.itemID), variables: variables),
                                let chosen = question.chosen(answer.content)
                            else { continue }
                            tally.asked += 1
                            if chosen == question.key {
                                tally.agreed += 1
                            } else {
                                disagreements.append(Refusal(.answerKey, BlindSolver.disagreement(question, chosen: chosen)))
                            }
                        }
                    }
                    // The rubric, on a multiple-choice answer whose key the solver did not dispute
                    // (a free-text level or bonus question lists no question to solve: not judged).
                    var rubric = RubricTally()
                    if let judge, disagreements.isEmpty, !questions.isEmpty {
                        let (request, variables) = judge.request(shipped: shipped, variables: call.variables, fallbackModel: model, seed: seed)
                        // A judgement not in the rubric's shape says nothing either.
                        if let verdict = try await reviewing(
                            request, template: judge.template, stage: RubricJudge.stage, itemID: RubricJudge.itemID(of: call.itemID), variables: variables),
                            let (judged, refusals) = RubricJudge.verdicts(verdict.content, shipped: shipped)
                        {
                            rubric = judged
                            disagreements += refusals
                        }
                    }
                    // Each option on its own, once the solver has not disputed the key.
                    if let optionJudge, disagreements.isEmpty, !questions.isEmpty {
                        var judged = RubricTally(judged: 1)
                        var found: [Refusal] = []
                        for question in questions {
                            let context = OptionJudge.context(question, variables: call.variables)
                            for index in question.options.indices {
                                let (request, variables) = optionJudge.request(question, option: index, variables: call.variables, fallbackModel: model, seed: seed)
                                guard
                                    let verdict = try await reviewing(
                                        request, template: optionJudge.template, stage: OptionJudge.stage, itemID: OptionJudge.itemID(of: call.itemID),
                                        variables: variables),
                                    let judgement = OptionJudge.verdict(verdict.content, question: question, option: index, context: context),
                                    let criterion = judgement.broken
                                else { continue }
                                if let refusal = judgement.refusal {
                                    judged.broken[criterion.rawValue, default: 0] += 1
                                    found.append(refusal)
                                } else {
                                    judged.unquoted += 1
                                }
                            }
                        }
                        judged.passed = found.isEmpty ? 1 : 0
                        // With the rubric on too, one judged answer: passed when both passed it.
                        rubric = rubric.judged > 0 ? rubric.sameAnswer(judged) : judged
                        disagreements += found
                    }
                    // A mended answer was refused as the model wrote it.
                    if let mended { rejections.append(mended) }
                    if disagreements.isEmpty || (attempt >= roundEnd && disputed == .warn) {
                        // With `disputed: warn`, a disagreement after the last attempt is kept and
                        // reported; by default it is refused like any problem, and the item fails.
                        warnings += disagreements.map {
                            .warning($0.message, kind: $0.check == .rubric ? RubricJudge.warningKind : BlindSolver.warningKind, check: $0.check)
                        }
                        var report = ItemReport(
                            id: call.itemID, stage: call.stage, attempts: attempt, usage: usage, paidUsage: paid, costUSD: spent,
                            cached: allCached, latency: start.duration(to: clock.now),
                            warnings: warnings.map { ItemWarning(itemID: call.itemID, kind: $0.kind, message: $0.message, check: $0.check) },
                            rejections: rejections)
                        report.blindSolve = tally
                        report.rubric = rubric
                        if let rejection, !rejectedAnswer {
                            stale = "the answer rejected (\(rejection.content.prefix(12))…) is no longer the item's"
                        }
                        if record {
                            review?.record(
                                ReviewBook.Record(
                                    item: call.itemID, stage: call.stage, state: .pending, answer: shipped, content: ReviewFile.contentHash(shipped),
                                    basis: basis, rejected: rejectedNote, stale: stale))
                        }
                        return (value, report, shipped)
                    }
                    errors = disagreements
                case .invalid(let problems):
                    errors = problems
                }
            }
            lastErrors = errors
            answersSoFar.append(answered)
            echo = Self.echo(echo, afterRefusing: errors, answers: answersSoFar)
            noteEcho = Self.noteEcho(noteEcho, afterRefusing: errors, answers: answersSoFar)
            rejections.append(errors)
            call.rejected?(errors)
            for error in errors.messages where !seenErrors.contains(error) { seenErrors.append(error) }
            // Every answer of this round came from the cache: the item failed so in an earlier run.
            if attempt == roundEnd && roundCached { roundEnd += maxAttempts }
            if attempt < roundEnd {
                events.emit(.itemRepairing(id: call.itemID, stage: call.stage, attempt: attempt + 1, errors: errors))
                messages = Self.repairMessages(
                    base: base, answer: response.finishReason == .loop ? AnswerLoop.beforeLoop(response.content) : answered, errors: errors.messages, seen: seenErrors, next: attempt + 1, of: roundEnd,
                    schema: call.schema != nil, first: Self.freshStart(attempt: attempt, maxAttempts: maxAttempts)?.first ?? 1)
            }
        }
        throw ItemFailureError(
            reason: .invalid, attempts: roundEnd, errors: lastErrors.messages, rejections: rejections, refusals: lastErrors, lastAnswer: answersSoFar.last)
    }

    /// What an approval or an edit gives for a call.
    enum Kept<Output> {
        /// The kept answer (edited, for an edit), its text and its warnings: no call.
        case kept(Output, String, [ValidationIssue])
        /// Not applied, and why: the item is asked as if undecided.
        case stale(String)
    }

    /// The answer an approval or an edit keeps, checked like any answer (the stage's checks and
    /// the inspector's). An edit that fails throws a spec error at the decision.
    func keptAnswer<Output>(_ call: ModelCall<Output>, decision: ReviewFile.Decision, basis: String, review: ReviewBook) throws -> Kept<Output> {
        let verb = decision.kind == .edit ? "edited" : "approved"
        guard let answer = decision.answer, decision.basis == basis else {
            return .stale("what the answer was built from (its topic, lecture, passage …) changed since it was \(verb)")
        }
        var text = answer
        if decision.kind == .edit {
            do {
                text = try AnswerFields.apply(decision.fields, to: answer)
            } catch {
                throw ReviewEditError(error: review.editError(decision, problems: [error.description]))
            }
        }
        switch inspected(call.check(text)) {
        case .valid(let value, let warnings):
            return .kept(value, call.shippedAnswer(text), warnings)
        case .invalid(let problems):
            if decision.kind == .edit { throw ReviewEditError(error: review.editError(decision, problems: problems.messages)) }
            return .stale("the approved answer no longer passes the checks: " + problems.messages.joined(separator: "; "))
        }
    }

    /// What `mend` made of a refused answer.
    enum MendOutcome<Output> {
        /// The mended answer, which passes every check.
        case mended(String, AnswerCheck<Output>)
        /// Every site was Lectern's own (`Site.settled`: stems ended with their question) and the
        /// mended answer was refused for these errors besides the answer's own: the repair needs
        /// them, since the model, told only that its stem goes on after its question, was then
        /// refused for what that question asks ("What is a variable in programming?" again, five
        /// attempts running).
        case cutRefused([Refusal])
        /// No mend, or one given up: the answer goes to the usual repair.
        case notMended
    }

    /// `answer`, refused for `errors`, with each wrong option whose feedback is unfit given its own
    /// (`FeedbackMending`), and its check — when the errors are all of that kind and the mended
    /// answer passes every check. A mend tried and given up is reported
    /// (`EngineEvent.mendGivenUp`, with why). `ask` makes one exchange of the item.
    func mend<Output>(
        _ call: ModelCall<Output>, answer: String, errors: [Refusal], attempt: Int,
        ask: (LLMRequest, String, String, String, [String: String], String) async throws -> LLMResponse
    ) async throws -> MendOutcome<Output> {
        guard let mending, FeedbackMending.mends(errors.messages), let (root, sites) = mending.sites(in: answer, variables: call.variables) else {
            return .notMended
        }
        func givenUp(_ reason: String, cutRefused: [Refusal] = []) -> MendOutcome<Output> {
            events.emit(.mendGivenUp(id: call.itemID, stage: call.stage, attempt: attempt, reason: reason))
            return cutRefused.isEmpty ? .notMended : .cutRefused(cutRefused)
        }
        var written: [String: String] = [:]
        for site in sites {
            if let settled = site.settled {
                written[site.key] = settled
                continue
            }
            let response: LLMResponse
            do {
                response = try await ask(
                    mending.request(site, model: model, temperature: temperature, seed: seed), mending.template(of: site).identifier,
                    FeedbackMending.itemID(of: call.itemID, stage: site.stage), site.stage, site.variables, model)
            } catch let failure as ItemFailureError where failure.reason == .invalid {
                // Not an answer: the mend is given up, nothing fails.
                return givenUp("the \(site.label), asked for alone, was no answer: \(failure.errors.first ?? "")")
            }
            guard let text = FeedbackMending.text(in: response, field: site.field) else {
                return givenUp("the \(site.label), asked for alone, was cut off or held none (finish: \(response.finishReason.rawValue))")
            }
            written[site.key] = text
        }
        let text = FeedbackMending.applying(written, to: root)
        let again = inspected(call.check(text))
        switch again {
        case .valid: return .mended(text, again)
        case .invalid(let problems):
            let cutRefused = sites.allSatisfy({ $0.settled != nil }) ? problems.filter { !errors.contains($0) } : []
            return givenUp("the mended answer was refused: " + problems.messages.joined(separator: "; "), cutRefused: cutRefused)
        }
    }
}

/// The blind solver of `ReviewSpec`: asks a model to answer a multiple-choice question from its
/// stem and options alone (their order its own, no key, no feedback), and words a disagreement
/// with the key for a repair prompt.
public struct BlindSolver: Sendable {
    public static let stage = "blind-solve"
    /// The id a solve's exchanges are filed under: its item's, with `/blind-solve` (so a cassette,
    /// a call log or a provider's tracing header tells a solve from its item's answer).
    public static func itemID(of item: String) -> String { item + "/" + stage }
    public static let warningKind = "a blind solver chose another option than the key"
    /// Tokens a solve typically takes (the question, its options and the instructions; a short
    /// answer): `plan`'s estimate.
    public static let typicalTokens = 700
    /// The solver's model; nil: the job's.
    public var model: String?
    public let template: PromptTemplate

    public init(model: String? = nil) throws {
        self.model = model
        template = try PromptLibrary.template("review/blind-solve")
    }

    static func schema(optionCount: Int) -> ResponseSchema {
        ResponseSchema(
            name: "blind_solve",
            schema: SchemaParts.object(
                [
                    "work": SchemaParts.string,
                    "answer": ["type": "string", "enum": .array((0..<optionCount).map { .string(BlindSolveItem.letter($0)) })],
                ], required: ["work", "answer"]))
    }

    /// The request for `question`, and its variables (with `key`, the keyed letter, which is in no
    /// message: a scripted provider's script may answer with it).
    func request(_ question: BlindSolveItem, fallbackModel: String, seed: Int?) throws -> (LLMRequest, [String: String]) {
        let schema = Self.schema(optionCount: question.options.count)
        let variables = [
            "context": question.context.map { "Read this passage:\n\n\($0)\n\n" } ?? "", "prompt": question.prompt,
            "options": question.optionLines, "schema": AnswerParsing.schemaText(schema),
        ]
        let request = LLMRequest(
            model: model ?? fallbackModel, messages: template.messages(variables), temperature: 0, maxTokens: 400, responseSchema: schema,
            seed: seed)
        return (request, variables.merging(["key": BlindSolveItem.letter(question.key)]) { a, _ in a })
    }

    /// The repair message for a solver that chose `chosen`.
    static func disagreement(_ question: BlindSolveItem, chosen: Int) -> String {
        "\(question.label): a solver who saw the question and its options without the key chose '\(question.options[chosen].prefix(120))', not the keyed '\(question.options[question.key].prefix(120))'; make sure the key is right, that no other option is also right, and that the question gives all it takes to answer it"
    }
}
