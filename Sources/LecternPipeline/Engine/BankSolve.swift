import Foundation
import LecternCore
import LecternLLM

/// `lectern check --model`: every multiple-choice question of a bank put to a blind solver, as a
/// run puts each accepted answer (`BlindSolver`: the stem and options in an order of their own, no
/// key, temperature 0), and a disagreement with the key reported as a problem of the question.
public enum BankSolve {
    /// What the solver made of one question.
    public struct Verdict: Sendable, Hashable {
        /// The option the solver chose, in the solver's order (`question.solve.options`); nil when
        /// its answer named none or was cut off.
        public var chosen: Int?
        public var question: BankQuestion
        public var id: String { question.id }
        /// What the answer cost when it was asked; an answer from the cache was paid before.
        public var usage: TokenUsage
        /// The answer came from the exchange cache (or a cassette): nothing was asked.
        public var cached: Bool

        /// The disagreement as `lectern check` prints it, nil when the solver chose the key or none.
        public func problem(model: String) -> String? {
            guard let chosen, chosen != question.solve.key else { return nil }
            let options = question.solve.options
            return "a blind solver (\(model)) chose '\(options[chosen].prefix(120))', not the keyed '\(options[question.solve.key].prefix(120))': "
                + "the key may be wrong, another option may also be right, or the question may not give all it takes to answer it"
        }
    }

    /// Tokens a solve typically takes, for `--plan`.
    public static var typicalTokens: Int { BlindSolver.typicalTokens }

    /// The usage `--plan` expects for `count` solves (three fifths of it prompt, as `plan` splits it).
    public static func estimatedUsage(count: Int) -> TokenUsage {
        let tokens = count * typicalTokens
        return TokenUsage(promptTokens: tokens * 3 / 5, completionTokens: tokens * 2 / 5)
    }

    /// Solves every question through `exchanger` (its cache first, as a run asks), at most the
    /// provider's `maxConcurrency` at once; the verdicts in the questions' order. `progress` is
    /// called after each answer with the number answered so far. A provider failure (after its
    /// own retries) ends the whole solve: it throws ``LLMError``, a miss in replay or offline mode
    /// `CacheError`, an answer that could not be stored `CacheWriteError`.
    public static func solve(
        _ questions: [BankQuestion], exchanger: Exchanger, model: String, seed: Int? = nil,
        progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws -> [Verdict] {
        let solver = try BlindSolver(model: model)
        return try await inOrder(questions.count, width: exchanger.maxConcurrency, progress: progress) { index in
            let question = questions[index]
            let (request, variables) = try solver.request(question.solve, fallbackModel: model, seed: seed)
            return {
                let outcome = try await exchanger.exchange(
                    request, template: solver.template.identifier, variant: nil,
                    context: RequestContext(itemID: BlindSolver.itemID(of: question.id), stage: BlindSolver.stage, variables: variables))
                let answer = outcome.record.response
                let chosen = answer.finishReason == .stop ? question.solve.chosen(answer.content) : nil
                return Verdict(chosen: chosen, question: question, usage: outcome.cached ? TokenUsage() : answer.usage, cached: outcome.cached)
            }
        }
    }

    /// `count` exchanges, at most `width` at once, each made by `make(index)` (which may throw
    /// before anything is asked); the results in index order, `progress` called after each.
    static func inOrder<T: Sendable>(
        _ count: Int, width: Int, progress: @escaping @Sendable (Int) -> Void, _ make: (Int) throws -> @Sendable () async throws -> T
    ) async throws -> [T] {
        var results = [T?](repeating: nil, count: count)
        try await withThrowingTaskGroup(of: (Int, T).self) { group in
            var next = 0
            func start() throws {
                let index = next
                let ask = try make(index)
                next += 1
                group.addTask { (index, try await ask()) }
            }
            while next < count && next < max(1, width) { try start() }
            var answered = 0
            while let (index, result) = try await group.next() {
                results[index] = result
                answered += 1
                progress(answered)
                if next < count { try start() }
            }
        }
        return results.compactMap { $0 }
    }

    /// What the rubric judge made of one question.
    public struct Judgement: Sendable {
        public var question: BankQuestion
        /// Nil when the answer was cut off or no judgement.
        public var tally: RubricTally?
        /// A problem for each broken criterion that quoted the question.
        public var refusals: [Refusal]
        public var usage: TokenUsage
        public var cached: Bool
    }

    /// Judges every question against the rubric (`RubricJudge`) through `exchanger`, as `solve`
    /// asks, at most the provider's `maxConcurrency` at once; the judgements in the questions' order.
    public static func judge(
        _ questions: [BankQuestion], exchanger: Exchanger, model: String, seed: Int? = nil,
        progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws -> [Judgement] {
        let judge = try RubricJudge(model: model)
        return try await inOrder(questions.count, width: exchanger.maxConcurrency, progress: progress) { index in
            let question = questions[index]
            let (request, variables) = judge.request(shipped: question.judged, variables: question.context, fallbackModel: model, seed: seed)
            return {
                let outcome = try await exchanger.exchange(
                    request, template: judge.template.identifier, variant: nil,
                    context: RequestContext(itemID: RubricJudge.itemID(of: question.id), stage: RubricJudge.stage, variables: variables))
                let answer = outcome.record.response
                let verdict = answer.finishReason == .stop ? RubricJudge.verdicts(answer.content, shipped: question.judged) : nil
                return Judgement(
                    question: question, tally: verdict?.tally, refusals: verdict?.refusals ?? [], usage: outcome.cached ? TokenUsage() : answer.usage,
                    cached: outcome.cached)
            }
        }
    }
}
