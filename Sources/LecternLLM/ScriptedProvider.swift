import Foundation
import Synchronization

/// A provider that answers from a script file instead of a model: for tests, demos and CI runs
/// that must not depend on a model. Answers are matched by item, stage and attempt; `{{name}}`
/// in an answer is replaced by the request's prompt variable `name` (e.g. `topic_title`).
///
/// Script format (JSON):
/// ```json
/// { "delay_ms": 0, "call_log": "calls.log",
///   "answers": [ {"stage": "lecture", "item": "lecture/s01-t01", "attempt": 1,
///                 "content": "# {{topic_title}} …", "finish_reason": "stop",
///                 "usage": {"prompt_tokens": 10, "completion_tokens": 20}} ] }
/// ```
/// An answer may give `json` (any JSON value, sent as its canonical text) instead of `content`,
/// or `error` ("unavailable", "authentication", …) to fail. `times` limits how often it is used.
/// `"hold_after": N` answers N requests and holds every later one until the run is cancelled or
/// killed (tests that must stop a run mid-way, whatever the machine's load).
public final class ScriptedProvider: LLMProvider {
    public let kind = "scripted"
    public let maxConcurrency: Int

    struct Answer: Sendable {
        var stage: String?
        var item: String?
        var attempt: Int?
        var content: String
        var finishReason: FinishReason
        var usage: TokenUsage
        var error: LLMError.Kind?
        var times: Int?
    }

    private let answers: [Answer]
    private let delay: Duration
    private let callLog: URL?
    private let uses = Mutex<[Int: Int]>([:])
    private let calls = Mutex<Int>(0)
    private let holdAfter: Int?

    public init(scriptAt url: URL, maxConcurrency: Int) throws {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw LLMError(.invalidRequest, "cannot read the provider script \(url.path); check model.script in the spec")
        }
        let root: JSONValue
        do {
            root = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw LLMError(.invalidRequest, "the provider script \(url.path) is not valid JSON: \(error.localizedDescription)")
        }
        self.maxConcurrency = maxConcurrency
        if case .number(let ms)? = root["delay_ms"] { delay = .milliseconds(Int(ms)) } else { delay = .zero }
        if case .number(let n)? = root["hold_after"] { holdAfter = Int(n) } else { holdAfter = nil }
        if let log = root["call_log"]?.stringValue {
            callLog = log.hasPrefix("/") ? URL(fileURLWithPath: log) : url.deletingLastPathComponent().appendingPathComponent(log)
        } else {
            callLog = nil
        }
        var answers: [Answer] = []
        for (index, entry) in (root["answers"]?.arrayValue ?? []).enumerated() {
            var content = entry["content"]?.stringValue
            if content == nil, let json = entry["json"] { content = json.canonicalText }
            let error = entry["error"]?.stringValue.flatMap(LLMError.Kind.init(rawValue:))
            guard content != nil || error != nil else {
                throw LLMError(.invalidRequest, "\(url.path): answers[\(index)] has neither 'content', 'json' nor 'error'")
            }
            var usage = TokenUsage(promptTokens: 100, completionTokens: 100)
            if let u = entry["usage"] {
                if case .number(let p)? = u["prompt_tokens"] { usage.promptTokens = Int(p) }
                if case .number(let c)? = u["completion_tokens"] { usage.completionTokens = Int(c) }
            }
            var attempt: Int?
            if case .number(let a)? = entry["attempt"] { attempt = Int(a) }
            var times: Int?
            if case .number(let t)? = entry["times"] { times = Int(t) }
            answers.append(
                Answer(
                    stage: entry["stage"]?.stringValue, item: entry["item"]?.stringValue, attempt: attempt,
                    content: content ?? "", finishReason: entry["finish_reason"]?.stringValue.flatMap(FinishReason.init(rawValue:)) ?? .stop,
                    usage: usage, error: error, times: times))
        }
        self.answers = answers
    }

    /// How many requests this provider has answered (or failed) so far.
    public var callCount: Int { calls.withLock { $0 } }

    public func complete(_ request: LLMRequest, context: RequestContext) async throws -> LLMResponse {
        let number = calls.withLock {
            $0 += 1
            return $0
        }
        if let callLog {
            let line = "\(context.itemID)\t\(context.stage)\t\(context.attempt)\n"
            let fd = open(callLog.path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            if fd >= 0 {
                _ = line.withCString { Foundation.write(fd, $0, strlen($0)) }
                close(fd)
            }
        }
        if delay > .zero { try await Task.sleep(for: delay) }
        if let holdAfter, number > holdAfter { try await Task.sleep(for: .seconds(3_600)) }
        guard let index = pick(context) else {
            throw LLMError(.noScriptedAnswer, "the provider script has no answer for \(context.itemID) (stage \(context.stage), attempt \(context.attempt))")
        }
        let answer = answers[index]
        if let error = answer.error {
            throw LLMError(error, "scripted \(error.rawValue) failure for \(context.itemID)")
        }
        let text = Placeholders.fill(answer.content, context.variables)
        return LLMResponse(content: text, finishReason: answer.finishReason, usage: answer.usage, model: request.model)
    }

    /// The most specific unused answer: item+attempt, item, stage+attempt, stage.
    private func pick(_ context: RequestContext) -> Int? {
        uses.withLock { uses in
            func score(_ a: Answer) -> Int? {
                if let item = a.item, item != context.itemID { return nil }
                if let stage = a.stage, stage != context.stage { return nil }
                if let attempt = a.attempt, attempt != context.attempt { return nil }
                return (a.item != nil ? 4 : 0) + (a.attempt != nil ? 2 : 0) + (a.stage != nil ? 1 : 0)
            }
            var best: (Int, Int)?
            for (i, answer) in answers.enumerated() {
                if let times = answer.times, uses[i, default: 0] >= times { continue }
                guard let s = score(answer) else { continue }
                if best == nil || s > best!.1 { best = (i, s) }
            }
            if let (i, _) = best { uses[i, default: 0] += 1 }
            return best?.0
        }
    }
}
