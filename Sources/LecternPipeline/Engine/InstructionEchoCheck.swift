import Foundation
import LecternCore
import LecternLLM
import Synchronization

/// The check that no learner text of an answer gives back Lectern's own instructions
/// (`InstructionEcho`): what a call's template says in its own words, the rules the stage inserts
/// into it, and the messages of the repairs sent so far.
extension ModelCallRunner {
    /// The variables whose values are Lectern's rules rather than content: the schema, the tone
    /// (a preset's wording and the author's), the answer's shape, a level's or a format's
    /// instruction, a quote stage's reasons and examples. Every other variable is content (a
    /// lecture, a passage, a title, earlier questions), and a run found in it is no echo.
    static let instructionVariables: Set<String> = [
        "schema", "tone", "answer_shape", "level_instruction", "format_note", "format_instruction", "format_rule",
        "figure_rule", "difficulty_instruction", "preset_instructions", "reasons", "examples",
    ]

    /// Set `LECTERN_ECHO_REPORT=FILE` to append each echo found (item, field, run) to FILE as a
    /// JSON line instead of refusing the answer: how the rule was measured on the recorded
    /// answers, whose replays a new refusal would change.
    static let echoReport: String? = ProcessInfo.processInfo.environment["LECTERN_ECHO_REPORT"].flatMap { $0.isEmpty ? nil : $0 }

    /// The variables that are the same for every call of a stage (the schema, the tone): with the
    /// template's own text, their runs are kept per template; the other rules (a level's
    /// instruction, which may name the lecture's sentence) are short and read per call.
    static let stageWideVariables: Set<String> = ["schema", "tone"]

    private static let templateEchoes = RecentMemo<InstructionEcho>(limit: 64)

    /// The runs of a call's first request that are Lectern's: the template's text between its
    /// placeholders and the instruction variables; a run also in a content variable is no echo.
    /// What the instructions quote is wording offered to the model (an example, the shape of a
    /// stem, the source's sentence): only their own words count.
    static func instructionEcho<Output>(for call: ModelCall<Output>) -> InstructionEcho {
        var stageWide: [String] = []
        var perCall: [String] = []
        var content: [String] = []
        for (name, value) in call.variables.sorted(by: { $0.key < $1.key }) {
            if stageWideVariables.contains(name) {
                stageWide.append(value)
            } else if instructionVariables.contains(name) {
                perCall.append(value)
            } else {
                content.append(value)
            }
        }
        let key = ([call.template.identifier] + stageWide).joined(separator: "\u{0}")
        let template = templateEchoes.value(key) { InstructionEcho(instructions: (call.template.literalTexts + stageWide).flatMap(unquoted)) }
        return template.adding(instructions: perCall.flatMap(unquoted), except: []).with(content: content)
    }

    /// `echo` with a repair's wording and its refusals' messages added: their own words only,
    /// not what they quote ('…': the answer refused, the source, or words suggested to use),
    /// and no run of the answers refused. A reviewer's note is a person's and may suggest words
    /// to use: it is not added here, but given back whole it is refused (`noteEcho`).
    static func echo(_ echo: InstructionEcho, afterRefusing errors: [Refusal], answers: [String]) -> InstructionEcho {
        let messages = errors.map(\.message).filter { !$0.hasPrefix(reviewerRejection) }.flatMap(unquoted)
        return echo.adding(instructions: repairWording + messages, except: answers.flatMap(answerStrings))
    }

    /// Words in a row that make a reviewer's note given back: a mended answer may say what a note
    /// says is true, in its words, for a clause ("holds only for independent events"); ten in a
    /// row outside the note's quotations is the note's sentence pasted in ("has nothing to do
    /// with the question; … needs neither", the local model's tone preview of intro-probability).
    static let noteRunLength = 10

    /// `notes` with the reviewer's notes among `errors` added: their own words (not what they
    /// quote: the answer refused, or wording they suggest), less any run of the answers refused.
    static func noteEcho(_ notes: InstructionEcho, afterRefusing errors: [Refusal], answers: [String]) -> InstructionEcho {
        let added = errors.map(\.message).filter { $0.hasPrefix(reviewerRejection) }.map { String($0.dropFirst(reviewerRejection.count)) }
        guard !added.isEmpty else { return notes }
        return notes.adding(instructions: added.flatMap(unquoted), except: answers.flatMap(answerStrings))
    }

    /// The stretches of `text` outside its quotations ('…', "…", ‘…’, “…”), each on its own so that
    /// no run spans a quotation. An apostrophe between letters ("isn't") neither opens nor
    /// closes one.
    static func unquoted(_ text: String) -> [String] {
        var stretches: [String] = []
        var current = String.UnicodeScalarView()
        var closing: Unicode.Scalar?
        let scalars = Array(text.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            let letterBefore = index > 0 && InstructionEcho.isWordScalar(scalars[index - 1])
            let letterAfter = index + 1 < scalars.count && InstructionEcho.isWordScalar(scalars[index + 1])
            if let close = closing {
                if scalar == close, !(scalar == "'" && letterBefore && letterAfter) { closing = nil }
                continue
            }
            switch scalar {
            case "'" where !letterBefore: closing = "'"
            case "\"": closing = "\""
            case "\u{2018}": closing = "\u{2019}"
            case "\u{201C}": closing = "\u{201D}"
            default:
                current.append(scalar)
                continue
            }
            stretches.append(String(current))
            current = String.UnicodeScalarView()
        }
        stretches.append(String(current))
        return stretches.filter { !$0.isEmpty }
    }

    /// An answer's text and, when it is JSON, each of its strings as the checks read them (a
    /// refusal quotes those, with their escapes undone).
    static func answerStrings(_ answer: String) -> [String] {
        var strings = [answer]
        func collect(_ value: JSONValue) {
            switch value {
            case .string(let text): strings.append(text)
            case .array(let items): items.forEach(collect)
            case .object(let fields): fields.values.forEach(collect)
            default: break
            }
        }
        if let value = try? JSONValue.parse(answer) { collect(value) }
        return strings
    }

    /// `judged` refused when one of its learner texts holds a run of `echo`, or of `notes` (a
    /// reviewer's note given back).
    func echoChecked<Output>(
        _ judged: AnswerCheck<Output>, _ echo: InstructionEcho, notes: InstructionEcho? = nil, itemID: String
    ) -> AnswerCheck<Output> {
        guard inspector != nil, !echo.isEmpty || notes?.isEmpty == false, case .valid(let value, let warnings) = judged,
            let visible = value as? any LearnerVisible
        else {
            return judged
        }
        var refusals: [Refusal] = []
        for text in visible.learnerTexts {
            let fromNote: Bool
            let found: Substring
            if let run = echo.firstEcho(in: text.markdown) {
                (fromNote, found) = (false, run)
            } else if let run = notes?.firstEcho(in: text.markdown) {
                (fromNote, found) = (true, run)
            } else {
                continue
            }
            if let report = Self.echoReport {
                Self.appendReport(report, item: itemID, field: (fromNote ? "note: " : "") + text.field, run: String(found), text: text.markdown)
                continue
            }
            refusals.append(
                Refusal(
                    .stageRules,
                    fromNote
                        ? "'\(text.field)' gives back the reviewer's note ('\(found)'): the learner reads it; do what the note asks, and write to them about the subject in your own words"
                        : "'\(text.field)' repeats the instructions it was given ('\(found)'): the learner reads it; write to them about the subject, in your own words"))
        }
        return refusals.isEmpty ? .valid(value, warnings: warnings) : .invalid(refusals)
    }

    /// Report mode: the echoes in an answer refused for other reasons (each of its strings).
    func reportEchoes(inRefused answer: String, _ echo: InstructionEcho, itemID: String) {
        guard let report = Self.echoReport else { return }
        for text in Self.answerStrings(answer).dropFirst() {
            guard let run = echo.firstEcho(in: text) else { continue }
            Self.appendReport(report, item: itemID + " (refused attempt)", field: "", run: String(run), text: text)
        }
    }

    private static let reportLock = Mutex(())

    private static func appendReport(_ path: String, item: String, field: String, run: String, text: String) {
        let line: [String: String] = ["item": item, "field": field, "run": run, "text": text]
        guard var data = try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]) else { return }
        data.append(0x0A)
        reportLock.withLock { _ in
            if let handle = FileHandle(forWritingAtPath: path) {
                handle.seekToEndOfFile()
                handle.write(data)
                handle.closeFile()
            } else {
                _ = FileManager.default.createFile(atPath: path, contents: data)
            }
        }
    }
}

extension PromptTemplate {
    /// The template's own words: each stretch of its text between placeholders, on its own (a run
    /// across a placeholder is not the template's).
    var literalTexts: [String] {
        [system, user].flatMap { text in
            text.components(separatedBy: "{{").enumerated().map { index, part in
                index == 0 ? part : part.components(separatedBy: "}}").dropFirst().joined(separator: "}}")
            }
        }
    }
}
