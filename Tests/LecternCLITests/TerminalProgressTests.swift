import Foundation
import LecternCore
import LecternLLM
import Synchronization
import Testing

@testable import LecternCLI
@testable import LecternPipeline

/// What `lectern run` draws on a terminal, through the real `TerminalProgressSink` with a fake
/// terminal (a width and the text written) and a clock the test moves: the progress table stays
/// at the bottom, each repair is one line above it cut to the width (or in full with --verbose),
/// and no redraw leaves a fragment of an earlier line on the screen.
struct TerminalProgressTests {
    /// The fake terminal: what was written, each write separately, and the time since the start.
    final class Recorder: Sendable {
        let writes = Mutex<[String]>([])
        let now = Mutex<Duration>(.seconds(2))
        let columns: Int

        init(columns: Int) { self.columns = columns }

        var terminal: TerminalProgressSink.Terminal {
            TerminalProgressSink.Terminal(columns: { [columns] in columns }, write: { text in self.writes.withLock { $0.append(text) } })
        }

        func sink(verbose: Bool = false) -> TerminalProgressSink {
            let sink = TerminalProgressSink(verbose: verbose, terminal: terminal, elapsed: { self.now.withLock { $0 } })
            sink.useStageOrder(["tone-preview", "lecture"])
            return sink
        }

        func advance(_ duration: Duration) { now.withLock { $0 += duration } }
    }

    /// A terminal screen that knows what `TerminalProgressSink` writes: text that wraps at the
    /// width, line feeds, ESC[nF (to the start of the line n up) and ESC[J (clear to the end of
    /// the screen). Unbounded below, as scrollback is.
    struct Screen {
        let columns: Int
        var rows: [[Character]] = [[]]
        var row = 0
        var column = 0

        mutating func play(_ text: String) {
            var characters = Array(text)[...]
            while let c = characters.popFirst() {
                if c == "\u{1B}" {
                    // CSI: ESC [ digits final
                    #expect(characters.popFirst() == "[")
                    var digits = ""
                    while let d = characters.first, d.isNumber { digits.append(d); characters.removeFirst() }
                    let final = characters.popFirst()
                    let n = Int(digits) ?? 1
                    switch final {
                    case "F": row = max(0, row - n); column = 0
                    case "J":
                        rows[row] = Array(rows[row].prefix(column))
                        rows.removeSubrange((row + 1)...)
                    default: Issue.record("unexpected escape \(String(describing: final))")
                    }
                } else if c == "\n" {
                    row += 1
                    column = 0
                    if row == rows.count { rows.append([]) }
                } else {
                    if column == columns {
                        row += 1
                        column = 0
                        if row == rows.count { rows.append([]) }
                    }
                    while rows[row].count <= column { rows[row].append(" ") }
                    rows[row][column] = c
                    column += 1
                }
            }
        }

        /// The screen's lines, trailing spaces and the empty last line left out.
        var lines: [String] {
            var lines = rows.map { String($0).replacingOccurrences(of: #"\s+$"#, with: "", options: .regularExpression) }
            while lines.last == "" { lines.removeLast() }
            return lines
        }
    }

    static let question =
        "'prompt' asks 3 questions ('What is a value?', 'Why?', 'How?'): a multiple-choice question asks one question, which its options answer — keep one of them as the stem's only question mark"

    static func finished(_ id: String, stage: String, tokens: Int) -> EngineEvent {
        .itemFinished(
            ItemReport(
                id: id, stage: stage, attempts: 1, usage: TokenUsage(promptTokens: tokens - 100, completionTokens: 100), paidUsage: TokenUsage(),
                costUSD: 0, cached: true, latency: .milliseconds(5)))
    }

    /// A sequence of events, and the exact text written for it: the table first; a repair as
    /// one line above the redrawn table, its first error's check and first clause, cut to the
    /// width; a finished item folded into the next redraw.
    @Test func aRepairIsOneLineAboveTheTableCutToTheWidth() {
        let terminal = Recorder(columns: 80)
        let sink = terminal.sink()
        sink.emit(.planned(totals: ["lecture": 2, "tone-preview": 1]))
        sink.emit(.itemStarted(id: "lecture/s01-t01", stage: "lecture"))
        terminal.advance(.milliseconds(50))
        sink.emit(.itemRepairing(id: "lecture/s01-t01", stage: "lecture", attempt: 2, errors: [Refusal(.questionForm, Self.question), Refusal(.stageRules, "a second problem")]))
        terminal.advance(.milliseconds(50))
        sink.emit(Self.finished("lecture/s01-t01", stage: "lecture", tokens: 1234))
        sink.finish()
        let writes = terminal.writes.withLock { $0 }
        #expect(writes.count == 3, "the plan, the repair, the end; the finished item waited for the next redraw: \(writes)")
        let table = { (lecture: String, total: String, elapsed: String) in
            [
                "tone-preview         0/1                0 tok  $0.0000",
                "lecture              \(lecture)",
                "total                \(total)  \(elapsed)s elapsed",
            ].map { $0 + "\n" }.joined()
        }
        #expect(writes[0] == "\u{1B}[J" + table("0/2                0 tok  $0.0000", "0/3                0 tok  $0.0000", "2"), "\(writes[0])")
        #expect(
            writes[1] == "\u{1B}[3F\u{1B}[J" + "repair lecture/s01-t01 (attempt 2): question-form: 'prompt' asks 3 questions (…\n"
                + table("0/2                0 tok  $0.0000", "0/3                0 tok  $0.0000", "2"), "\(writes[1])")
        #expect(
            writes[2] == "\u{1B}[3F\u{1B}[J" + table("1/2             1234 tok  $0.0000", "1/3             1234 tok  $0.0000", "2"), "\(writes[2])")
        // Every row fits the width with a column to spare, so none wraps.
        for line in writes.joined().split(separator: "\n") {
            #expect(line.replacingOccurrences(of: "\u{1B}[3F", with: "").replacingOccurrences(of: "\u{1B}[J", with: "").count <= 79)
        }
    }

    /// Played on a screen: repairs, a failure and a provider retry end up above the table, one
    /// line each, and the table is all that is redrawn — no fragment of an overwritten line.
    @Test func theScreenKeepsOneLineAMessageAndTheTableAtTheBottom() {
        let terminal = Recorder(columns: 50)
        let sink = terminal.sink()
        var screen = Screen(columns: 50)
        sink.emit(.planned(totals: ["lecture": 2, "tone-preview": 1]))
        for attempt in 2...3 {
            terminal.advance(.seconds(1))
            sink.emit(.itemRepairing(id: "lecture/s01-t02", stage: "lecture", attempt: attempt, errors: [Refusal(.questionForm, Self.question)]))
        }
        terminal.advance(.seconds(1))
        sink.emit(.provider(id: "tone-preview", message: "HTTP 429 Too Many Requests; retrying in 2.0 s (attempt 1 of 5)"))
        terminal.advance(.seconds(1))
        sink.emit(Self.finished("tone-preview", stage: "tone-preview", tokens: 500))
        sink.emit(
            .itemFailed(
                ItemFailure(
                    id: "lecture/s01-t02", stage: "lecture", context: "subject 1, topic 2", attempts: 4, reason: .invalid,
                    errors: ["the answer was cut off (length) before it was complete; write a shorter, complete answer"],
                    refusals: [Refusal(.wellFormed, "the answer was cut off (length) before it was complete; write a shorter, complete answer")])))
        sink.finish()
        for write in terminal.writes.withLock({ $0 }) { screen.play(write) }
        #expect(
            screen.lines == [
                "repair lecture/s01-t02 (attempt 2): question-for…",
                "repair lecture/s01-t02 (attempt 3): question-for…",
                "retry  tone-preview: HTTP 429 Too Many Requests;…",
                "FAILED lecture/s01-t02 after 4 attempts: well-fo…",
                "tone-preview         1/1              500 tok  $…",
                "lecture              0/2                0 tok  $…",
                "total                1/3              500 tok  $…",
            ], "\(screen.lines.joined(separator: "\n"))")
    }

    /// With --verbose every error is written in full (wrapping as the terminal wraps it), and
    /// the redraws still leave nothing of the table behind in the wrapped lines.
    @Test func verboseMessagesWrapAboveTheTableWithoutFragments() {
        let terminal = Recorder(columns: 40)
        let sink = terminal.sink(verbose: true)
        var screen = Screen(columns: 40)
        sink.emit(.planned(totals: ["lecture": 2, "tone-preview": 1]))
        terminal.advance(.seconds(1))
        sink.emit(.itemRepairing(id: "lecture/s01-t01", stage: "lecture", attempt: 2, errors: [Refusal(.questionForm, Self.question)]))
        terminal.advance(.seconds(1))
        sink.emit(Self.finished("lecture/s01-t01", stage: "lecture", tokens: 1234))
        sink.finish()
        for write in terminal.writes.withLock({ $0 }) { screen.play(write) }
        let message = "repair lecture/s01-t01 (attempt 2):\n  - " + Self.question
        // The message as the terminal wraps it at 40 columns, then the three rows of the table.
        var wrapped: [String] = []
        for line in message.split(separator: "\n") {
            var rest = Substring(line)
            repeat {
                wrapped.append(String(rest.prefix(40)).replacingOccurrences(of: #"\s+$"#, with: "", options: .regularExpression))
                rest = rest.dropFirst(40)
            } while !rest.isEmpty
        }
        #expect(
            screen.lines == wrapped + ["tone-preview         0/1              …", "lecture              1/2             1…", "total                1/3             1…"],
            "\(screen.lines.joined(separator: "\n"))")
    }

    @Test func aLabelIsTheCheckAndTheFirstClause() {
        #expect(TerminalProgressSink.label([Refusal(.questionForm, Self.question)]) == "question-form: 'prompt' asks 3 questions")
        #expect(
            TerminalProgressSink.label([Refusal(.wellFormed, "the answer was cut off (length) before it was complete; write a shorter, complete answer"), Refusal(.stageRules, "x")])
                == "well-formed: the answer was cut off before it was complete (+1 more)")
        #expect(
            TerminalProgressSink.label([
                Refusal(.stageRules, "the correct option is much longer than the others (86 vs about 20 characters): its length alone may give it away")
            ]) == "stage-rules: the correct option is much longer than the others")
        #expect(
            TerminalProgressSink.label([
                Refusal(
                    .projectScope,
                    "requirements[1] ('Understand the concept (a binomial one)') needs 'Binomial Distribution', which subject s03 teaches after this one; require only what this subject's topics teach"
                )
            ]) == "project-scope: requirements[1] needs 'Binomial Distribution', which subject s03 teaches after this one")
        #expect(
            TerminalProgressSink.label([Refusal(.arithmetic, "the text states false arithmetic: \"6.25 + 2.25 = 18.75\" is false: 6.25 + 2.25 is 8.5; compute it again")])
                == "arithmetic: the text states false arithmetic")
        #expect(TerminalProgressSink.fitted(String(repeating: "x", count: 100), columns: 20) == String(repeating: "x", count: 18) + "…")
    }
}
