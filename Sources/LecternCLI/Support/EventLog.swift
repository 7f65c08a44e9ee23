import Foundation
import LecternCore
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

/// The words of an event as a line of text, for the text log and the terminal alike.
enum EventLine {
    /// "repair ID (attempt N):" and each error on a line of its own.
    static func repair(_ id: String, attempt: Int, errors: [String]) -> String {
        "repair \(id) (attempt \(attempt)):" + errors.map { "\n  - " + $0 }.joined()
    }

    static func mendGivenUp(_ id: String, attempt: Int, reason: String) -> String {
        "mend   \(id) (attempt \(attempt)) given up: \(reason)"
    }

    static func retry(_ id: String, message: String) -> String { "retry  \(id): \(message)" }

    static func warning(_ warning: ItemWarning) -> String { "warn   \(warning.itemID): \(warning.message)" }
}

/// Plain lines: one per finished, repaired or failed item; with `verbose`, every error of a
/// repair in full.
final class TextEventSink: EngineEventSink {
    private let verbose: Bool

    init(verbose: Bool = false) {
        self.verbose = verbose
    }

    func emit(_ event: EngineEvent) {
        switch event {
        case .itemFinished(let r):
            Console.error("done   \(r.id)\(r.cached ? " (cached)" : "")  attempts \(r.attempts)  tokens \(r.usage.totalTokens)")
        case .itemRepairing(let id, _, let attempt, let errors):
            Console.error(verbose ? EventLine.repair(id, attempt: attempt, errors: errors) : "repair \(id) (attempt \(attempt)): \(errors.first ?? "")")
        case .mendGivenUp(let id, _, let attempt, let reason):
            Console.error(EventLine.mendGivenUp(id, attempt: attempt, reason: reason))
        case .itemFailed(let failure):
            Console.error("FAILED \(failure)")
        case .provider(let id, let message):
            Console.error(EventLine.retry(id, message: message))
        case .warning(let warning):
            Console.error(EventLine.warning(warning))
        case .planned, .itemStarted, .receiving:
            break
        }
    }
}

/// The progress of a run on a terminal: a table at the bottom, one line a stage (done/total,
/// tokens, cost, ETA) and a total, redrawn in place at most ten times a second; above it, one
/// line for each repair, failure and provider retry as it happens — the item, the attempt and
/// the check that refused it, cut to the terminal's width — or, with `verbose`, every message in
/// full. The event log keeps the full messages either way.
///
/// The table is the only thing ever drawn over: each redraw moves up over the table's rows
/// (none wider than the terminal, so each is one row), clears from there to the end of the
/// screen, prints the new messages (which may wrap: they scroll up and are never drawn over)
/// and the table again.
final class TerminalProgressSink: EngineEventSink {
    /// Where the sink draws: the terminal's width in columns, and the text to write.
    struct Terminal: Sendable {
        var columns: @Sendable () -> Int
        var write: @Sendable (String) -> Void

        /// Standard error, as wide as the terminal says (80 when it does not).
        static let standardError = Terminal(
            columns: {
                var size = winsize()
                guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
                return Int(size.ws_col)
            },
            write: { FileHandle.standardError.write(Data($0.utf8)) })
    }

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
        var lastDraw: Duration?
        var messages: [String] = []
    }

    private let state = Mutex(State())
    private let verbose: Bool
    private let terminal: Terminal
    /// Time since the run started.
    private let elapsed: @Sendable () -> Duration
    /// Stages in the order the pipeline reaches them: the job kind's (`useStageOrder`).
    private let stageOrder = Mutex<[String]>([])

    init(verbose: Bool = false, terminal: Terminal = .standardError, elapsed: (@Sendable () -> Duration)? = nil) {
        self.verbose = verbose
        self.terminal = terminal
        let start = ContinuousClock.now
        self.elapsed = elapsed ?? { ContinuousClock.now - start }
    }

    /// Orders the progress lines by the stages of the job about to run.
    func useStageOrder(_ order: [StageName]) {
        stageOrder.withLock { $0 = order.map(\.rawValue) }
    }

    func emit(_ event: EngineEvent) {
        state.withLock { s in
            var urgent = false
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
                // An item that only waited for a failed one says nothing new.
                if f.reason != .dependency || verbose {
                    s.messages.append(verbose ? "FAILED \(f)" : "FAILED \(f.id) after \(f.attempts) attempt\(f.attempts == 1 ? "" : "s"): " + Self.label(f))
                }
                urgent = true
            case .itemRepairing(let id, _, let attempt, let errors):
                s.messages.append(
                    verbose ? EventLine.repair(id, attempt: attempt, errors: errors) : "repair \(id) (attempt \(attempt)): " + Self.label(errors))
            case .provider(let id, let message):
                // "HTTP 429 …; retrying in 2.0 s (attempt 1 of 5)": short already, cut to the width.
                s.messages.append(EventLine.retry(id, message: message))
            case .mendGivenUp(let id, _, let attempt, let reason):
                if verbose { s.messages.append(EventLine.mendGivenUp(id, attempt: attempt, reason: reason)) }
            case .warning(let warning):
                if verbose { s.messages.append(EventLine.warning(warning)) }
            }
            let now = elapsed()
            if urgent || !s.messages.isEmpty || s.lastDraw.map({ now - $0 >= .milliseconds(100) }) ?? true {
                draw(&s, now: now)
            }
        }
    }

    /// Draws the final state.
    func finish() {
        state.withLock { s in draw(&s, now: elapsed()) }
    }

    /// What refused an answer, in a few words: the check its first error is filed under
    /// (`QualityCheck.classify`, as in quality.json) and that error's first clause.
    static func label(_ errors: [String]) -> String {
        guard let first = errors.first else { return "refused" }
        return "\(QualityCheck.classify(first).rawValue): \(firstClause(first))" + (errors.count > 1 ? " (+\(errors.count - 1) more)" : "")
    }

    static func label(_ failure: ItemFailure) -> String {
        switch failure.reason {
        case .invalid: return label(failure.errors)
        case .provider: return "the model provider failed: " + firstClause(failure.errors.first ?? "")
        case .budget: return "the budget was reached"
        case .cacheMiss: return "no recorded answer"
        case .dependency: return "an item it needs failed"
        case .cancelled: return "cancelled"
        case .internal: return "this machine failed it: " + firstClause(failure.errors.first ?? "")
        }
    }

    /// A message's first clause, without its particulars: parenthesised quotes and numbers left
    /// out, up to the first colon or semicolon ("requirements[1] ('Use loops') needs 'Loops', which
    /// subject s02 teaches after this one; require only …" → "requirements[1] needs 'Loops', which
    /// subject s02 teaches after this one").
    static func firstClause(_ message: String) -> String {
        var out = ""
        var depth = 0
        var characters = Array(message.replacingOccurrences(of: "\n", with: " "))[...]
        while let c = characters.popFirst() {
            if depth == 0, c == " ", characters.first == "(", characters.dropFirst().contains(")") {
                characters.removeFirst()
                depth = 1
            } else if depth > 0 {
                if c == "(" { depth += 1 } else if c == ")" { depth -= 1 }
            } else if (c == ":" || c == ";") && (characters.first == " " || characters.isEmpty) && out.count >= 12 {
                break
            } else {
                out.append(c)
            }
        }
        return out.trimmingCharacters(in: .whitespaces)
    }

    /// `text` cut to one row of `columns` (one column is left free, so that no terminal wraps it).
    static func fitted(_ text: String, columns: Int) -> String {
        let room = max(columns - 1, 10)
        return text.count <= room ? text : String(text.prefix(room - 1)) + "…"
    }

    private func draw(_ s: inout State, now: Duration) {
        s.lastDraw = now
        let columns = terminal.columns()
        var out = ""
        // Up over the table drawn last time, and clear it and everything below.
        if s.drawnLines > 0 { out += "\u{1B}[\(s.drawnLines)F" }
        out += "\u{1B}[J"
        for message in s.messages {
            out += (verbose ? message : Self.fitted(message, columns: columns)) + "\n"
        }
        s.messages.removeAll()
        let rows = table(s, elapsed: Double(now.components.seconds) + Double(now.components.attoseconds) / 1e18)
        for row in rows { out += Self.fitted(row, columns: columns) + "\n" }
        s.drawnLines = rows.count
        terminal.write(out)
    }

    /// The table's rows: a stage a row, then the total.
    private func table(_ s: State, elapsed: Double) -> [String] {
        var rows: [String] = []
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
            rows.append(
                stage.padding(toLength: 20, withPad: " ", startingAt: 0) + " " + counts
                    + String(format: "%9d tok  $%.4f", line.tokens + arriving, line.cost) + failed + eta)
        }
        let all = s.stages.values
        let done = all.reduce(0) { $0 + $1.done }
        let total = all.reduce(0) { $0 + $1.total }
        let tokens = all.reduce(0) { $0 + $1.tokens } + s.arriving.values.reduce(0) { $0 + $1.tokens }
        let cost = all.reduce(0) { $0 + $1.cost }
        let totalCounts = "\(done)/\(total)".padding(toLength: 11, withPad: " ", startingAt: 0)
        rows.append(
            "total".padding(toLength: 20, withPad: " ", startingAt: 0) + " " + totalCounts
                + String(format: "%9d tok  $%.4f  %.0fs elapsed", tokens, cost, elapsed))
        return rows
    }
}

/// Writes the JSON event log to a file beside a terminal's progress table (`run --event-log`):
/// every message in full, one event a line. A file that cannot be written is reported once, and
/// the run goes on without it.
final class EventLogFile: EngineEventSink {
    /// The open file, shared with the line writer.
    private final class Output: Sendable {
        let url: URL
        let file: Mutex<FileHandle?>

        init(url: URL, file: FileHandle) {
            self.url = url
            self.file = Mutex(file)
        }

        func write(_ line: String) {
            file.withLock { file in
                guard let open = file else { return }
                do {
                    try open.write(contentsOf: Data((line + "\n").utf8))
                } catch {
                    Console.error("warning: the event log \(url.path) cannot be written (\(error.localizedDescription)); the run goes on without it")
                    file = nil
                }
            }
        }
    }

    let url: URL
    private let output: Output
    private let lines: JSONLinesEventSink

    init?(_ url: URL) {
        self.url = url
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw CocoaError(.fileWriteNoPermission) }
            let output = Output(url: url, file: try FileHandle(forWritingTo: url))
            self.output = output
            lines = JSONLinesEventSink { output.write($0) }
        } catch {
            Console.error("warning: cannot write the event log to \(url.path) (\(error.localizedDescription)); the run goes on without it")
            return nil
        }
    }

    func emit(_ event: EngineEvent) { lines.emit(event) }

    /// Closes the file.
    func close() {
        output.file.withLock { file in
            try? file?.close()
            file = nil
        }
    }
}

/// Fans events out to several sinks.
struct FanOutEventSink: EngineEventSink {
    var sinks: [any EngineEventSink]
    func emit(_ event: EngineEvent) { for sink in sinks { sink.emit(event) } }
}
