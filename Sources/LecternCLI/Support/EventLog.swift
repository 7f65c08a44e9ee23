import Foundation
import LecternLLM
import LecternPipeline
import Synchronization

/// How run events are shown.
public enum LogFormat: String, CaseIterable, Sendable {
    /// Live progress lines on a terminal, JSON lines otherwise.
    case auto
    /// Plain text lines (one per finished or failed item).
    case text
    /// One JSON object per event per line.
    case json
}

/// One JSON object per event on standard error: item started / finished / repairing / failed,
/// with latency, attempts and tokens. Nothing secret is ever in an event.
final class JSONLinesEventSink: EngineEventSink {
    private let lock = Mutex(())
    private let write: @Sendable (String) -> Void

    init(write: @escaping @Sendable (String) -> Void = { Console.error($0) }) {
        self.write = write
    }

    func emit(_ event: EngineEvent) {
        var object: [String: JSONValue] = [:]
        switch event {
        case .planned(let totals):
            object = ["event": "planned", "items": .object(totals.mapValues { .number(Double($0)) })]
        case .itemStarted(let id, let stage):
            object = ["event": "item_started", "item": .string(id), "stage": .string(stage)]
        case .itemFinished(let r):
            object = [
                "event": "item_finished", "item": .string(r.id), "stage": .string(r.stage), "attempts": .number(Double(r.attempts)),
                "cached": .bool(r.cached), "latency_ms": .number(Double(Self.milliseconds(r.latency))),
                "prompt_tokens": .number(Double(r.usage.promptTokens)), "completion_tokens": .number(Double(r.usage.completionTokens)),
                "paid_tokens": .number(Double(r.paidUsage.totalTokens)), "cost_usd": .number(r.costUSD),
            ]
        case .itemRepairing(let id, let stage, let attempt, let errors):
            object = [
                "event": "item_retried", "item": .string(id), "stage": .string(stage), "attempt": .number(Double(attempt)),
                "errors": .array(errors.map { .string($0) }),
            ]
        case .mendGivenUp(let id, let stage, let attempt, let reason):
            object = [
                "event": "mend_given_up", "item": .string(id), "stage": .string(stage), "attempt": .number(Double(attempt)),
                "reason": .string(reason),
            ]
        case .itemFailed(let f):
            object = [
                "event": "item_failed", "item": .string(f.id), "stage": .string(f.stage), "context": .string(f.context),
                "attempts": .number(Double(f.attempts)), "reason": .string(f.reason.rawValue), "errors": .array(f.errors.map { .string($0) }),
            ]
        case .provider(let id, let message):
            object = ["event": "provider", "item": .string(id), "message": .string(message)]
        case .receiving(let id, let tokens):
            object = ["event": "item_receiving", "item": .string(id), "tokens": .number(Double(tokens))]
        case .warning(let warning):
            object = ["event": "warning", "item": .string(warning.itemID), "kind": .string(warning.kind), "message": .string(warning.message)]
        }
        let line = JSONValue.object(object).canonicalText
        lock.withLock { _ in write(line) }
    }

    static func milliseconds(_ d: Duration) -> Int {
        Int(d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000)
    }
}

/// Plain lines: one per finished, repaired or failed item.
final class TextEventSink: EngineEventSink {
    func emit(_ event: EngineEvent) {
        switch event {
        case .itemFinished(let r):
            Console.error("done   \(r.id)\(r.cached ? " (cached)" : "")  attempts \(r.attempts)  tokens \(r.usage.totalTokens)")
        case .itemRepairing(let id, _, let attempt, let errors):
            Console.error("repair \(id) (attempt \(attempt)): \(errors.first ?? "")")
        case .mendGivenUp(let id, _, let attempt, let reason):
            Console.error("mend   \(id) (attempt \(attempt)) given up: \(reason)")
        case .itemFailed(let failure):
            Console.error("FAILED \(failure)")
        case .provider(let id, let message):
            Console.error("retry  \(id): \(message)")
        case .warning(let warning):
            Console.error("warn   \(warning.itemID): \(warning.message)")
        case .planned, .itemStarted, .receiving:
            break
        }
    }
}

/// A live line per stage on a terminal: done/total, tokens, cost, ETA; redrawn at most ten
/// times a second.
final class TerminalProgressSink: EngineEventSink {
    struct StageLine {
        var total = 0
        var done = 0
        var failed = 0
        var running = 0
        var tokens = 0
        var cost = 0.0
        var cached = 0
    }

    struct State {
        var order: [String] = []
        var stages: [String: StageLine] = [:]
        /// Items whose streamed answer is arriving: their stage and the tokens so far.
        var arriving: [String: (stage: String, tokens: Int)] = [:]
        var stageOfItem: [String: String] = [:]
        var drawnLines = 0
        var lastDraw = ContinuousClock.now - .seconds(1)
        var messages: [String] = []
    }

    private let state = Mutex(State())
    private let start = ContinuousClock.now
    /// Stages in the order the pipeline reaches them: the job kind's (`useStageOrder`).
    private let stageOrder = Mutex<[String]>([])

    /// Orders the progress lines by the stages of the job about to run.
    func useStageOrder(_ order: [StageName]) {
        stageOrder.withLock { $0 = order.map(\.rawValue) }
    }

    func emit(_ event: EngineEvent) {
        state.withLock { s in
            switch event {
            case .planned(let totals):
                for (stage, total) in totals {
                    if s.stages[stage] == nil { s.order.append(stage) }
                    s.stages[stage, default: StageLine()].total = total
                }
                let order = stageOrder.withLock { $0 }
                s.order.sort { (order.firstIndex(of: $0) ?? order.count, $0) < (order.firstIndex(of: $1) ?? order.count, $1) }
            case .itemStarted(let id, let stage):
                s.stages[stage, default: StageLine()].running += 1
                s.stageOfItem[id] = stage
            case .receiving(let id, let tokens):
                if let stage = s.stageOfItem[id] { s.arriving[id] = (stage, tokens) }
            case .itemFinished(let r):
                s.arriving[r.id] = nil
                s.stageOfItem[r.id] = nil
                s.stages[r.stage, default: StageLine()].running -= 1
                s.stages[r.stage, default: StageLine()].done += 1
                s.stages[r.stage, default: StageLine()].tokens += r.usage.totalTokens
                s.stages[r.stage, default: StageLine()].cost += r.costUSD
                if r.cached { s.stages[r.stage, default: StageLine()].cached += 1 }
            case .itemFailed(let f):
                s.arriving[f.id] = nil
                s.stageOfItem[f.id] = nil
                if f.attempts > 0 { s.stages[f.stage, default: StageLine()].running -= 1 }
                s.stages[f.stage, default: StageLine()].failed += 1
                s.messages.append("FAILED \(f)")
            case .itemRepairing(let id, _, let attempt, let errors):
                s.messages.append("repairing \(id) (attempt \(attempt)): \(errors.first ?? "")")
            case .provider(let id, let message):
                s.messages.append("\(id): \(message)")
            case .warning, .mendGivenUp:
                break
            }
            let now = ContinuousClock.now
            let finishedEvent: Bool
            if case .itemFailed = event { finishedEvent = true } else { finishedEvent = false }
            if now - s.lastDraw >= .milliseconds(100) || finishedEvent || !s.messages.isEmpty {
                draw(&s, now: now)
            }
        }
    }

    /// Draws the final state.
    func finish() {
        state.withLock { s in draw(&s, now: .now) }
    }

    private func draw(_ s: inout State, now: ContinuousClock.Instant) {
        s.lastDraw = now
        var out = ""
        if s.drawnLines > 0 { out += "\u{1B}[\(s.drawnLines)F" }  // up to the first progress line
        for message in s.messages { out += "\u{1B}[2K" + message + "\n" }
        s.messages.removeAll()
        let elapsed = Double((now - start).components.seconds) + Double((now - start).components.attoseconds) / 1e18
        for stage in s.order {
            guard let line = s.stages[stage] else { continue }
            let finished = line.done + line.failed
            var eta = ""
            if finished > 0 && finished < line.total && line.done > line.cached {
                let remaining = elapsed / Double(finished) * Double(line.total - finished)
                eta = String(format: "  ETA %.0fs", remaining)
            }
            let failed = line.failed > 0 ? "  \(line.failed) failed" : ""
            // Tokens of answers still streaming in count as they arrive.
            let arriving = s.arriving.values.reduce(0) { $0 + ($1.stage == stage ? $1.tokens : 0) }
            let counts = "\(line.done)/\(line.total)".padding(toLength: 11, withPad: " ", startingAt: 0)
            let text =
                stage.padding(toLength: 20, withPad: " ", startingAt: 0) + " " + counts
                + String(format: "%9d tok  $%.4f", line.tokens + arriving, line.cost) + failed + eta
            out += "\u{1B}[2K" + text + "\n"
        }
        let all = s.stages.values
        let done = all.reduce(0) { $0 + $1.done }
        let total = all.reduce(0) { $0 + $1.total }
        let tokens = all.reduce(0) { $0 + $1.tokens } + s.arriving.values.reduce(0) { $0 + $1.tokens }
        let cost = all.reduce(0) { $0 + $1.cost }
        let totalCounts = "\(done)/\(total)".padding(toLength: 11, withPad: " ", startingAt: 0)
        out +=
            "\u{1B}[2K" + "total".padding(toLength: 20, withPad: " ", startingAt: 0) + " " + totalCounts
            + String(format: "%9d tok  $%.4f  %.0fs elapsed", tokens, cost, elapsed) + "\n"
        s.drawnLines = s.order.count + 1
        FileHandle.standardError.write(Data(out.utf8))
    }
}

/// Fans events out to several sinks.
struct FanOutEventSink: EngineEventSink {
    var sinks: [any EngineEventSink]
    func emit(_ event: EngineEvent) { for sink in sinks { sink.emit(event) } }
}
