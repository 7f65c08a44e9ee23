import ArgumentParser
import Foundation
import LecternCore

/// `lectern check FILE`: lint a question bank with the deterministic validators, no model call.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Lint a question bank (exam.json, course.json or JSON Lines), a quote database (quotes.json) or a flashcard deck (deck.json) with Lectern's validators; no model call.",
        discussion: """
            Five formats, told apart by their content: exam.json (an object with "format_version" \
            and "items", as an exam bundle has it), course.json (an object with "subjects": its \
            engagement and bonus questions and reinforcement pools are checked with the rules \
            their generation used), quotes.json (an object with "quotes", Echo's quote database: \
            docs/quotes.md), deck.json (an object with "cards", a flashcards bundle's deck), and \
            JSON Lines (a .jsonl file, or one whose first line is an object): one question a line, \
            {"id": "q1", "question": "…", "options": ["…", "…"], "answer": 0}, where answer is the \
            0-based index of the correct option and a question has 2 to 6 options.

            Flagged: an option repeated (also up to case and white space), an empty option, the \
            answer index out of range or not exactly one correct option, the correct option's text \
            stated in the question (when it is 12 characters or more), an option that is a \
            question, an option count outside 2–6, an id used twice, the same question asked \
            twice; in course.json also two options that are one answer written twice (articles, \
            case, punctuation and plurals aside), wrong options sharing one feedback or feedback \
            that contradicts the key, a multiple-choice stem asking two questions, and a question \
            asked again in other words, Python code that would not run in an explanation, a \
            feedback or a reference answer, and each lecture course.json names (read from beside \
            it; not from standard input) by its stage's rules and for Python code that would not \
            run (an elif or else with no if before it, a header without its colon or body, an \
            indent nothing opens); in exam.json also an unknown difficulty, passage, section \
            or category, and an item that cites no source. Each flagged question is printed as ID: problem; problem. \
            Warnings of generation (a correct option much longer than the others) are not \
            reported. In quotes.json: a text outside 50–200 characters, not in its normalized form \
            or holding markup or symbols, an author that names nobody, other than 1–3 distinct \
            emotion tags of Echo's eight or a category of Echo's six, an id or text used twice, the \
            same saying in other words, a file over 2 MB, and no quote tagged Reflection. In deck.json: \
            a quiz that does not hold the card's back once, at its answer, beside distractors that \
            fit; a cloze that is not the back with its answer blanked; a term twice; a matching \
            round of other than 4–6 pairs or with two cards that could swap definitions.

            Exit codes: 0 nothing flagged; 1 some question flagged; 2 the file cannot be read as \
            a bank (missing, not JSON, a JSON Lines line that is not an item: every such line is \
            named as FILE:LINE).
            """)

    @Argument(help: ArgumentHelp("The bank: exam.json, course.json, quotes.json, deck.json or a JSON Lines file; '-' reads standard input.", valueName: "FILE"))
    var file: String

    @Flag(help: "Print {\"items\": N, \"flagged\": [{\"id\": \"…\", \"problems\": [\"…\"]}]} instead of text (a course.json's also gives \"lectures\": N).")
    var json = false

    @Option(
        help: ArgumentHelp(
            "Language of the questions, e.g. en or ar: decides how texts are compared (default: the file's 'language', else en).",
            valueName: "TAG"))
    var language: String?

    /// Reads a lecture a course.json names, from the bundle the course.json is in: a relative path
    /// inside that directory only (the file is untrusted; "../" and absolute paths read nothing).
    static func lectureReader(beside file: String) -> (String) -> String? {
        let bundle = URL(fileURLWithPath: file).deletingLastPathComponent().standardizedFileURL
        return { path in
            guard !path.hasPrefix("/"), !path.split(separator: "/").contains(".."), !path.contains("\\") else { return nil }
            let url = bundle.appendingPathComponent(path).standardizedFileURL
            guard url.path.hasPrefix(bundle.path + "/"), let data = try? Data(contentsOf: url) else { return nil }
            return String(data: data, encoding: .utf8)
        }
    }

    func run() throws {
        let data: Data
        do {
            data = file == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            let reason = FileManager.default.fileExists(atPath: file) ? "cannot be read (\(error.localizedDescription))" : "does not exist"
            Console.error("\(file): error: \(reason)\n  hint: name an exam.json, course.json or JSON Lines file")
            throw LecternExit.usage
        }
        let name = file == "-" ? "<stdin>" : file
        let report: BankReport
        do {
            report = try BankLint.check(data: data, file: name, language: language, lecture: file == "-" ? nil : Self.lectureReader(beside: file))
        } catch {
            Console.error(error.description)
            throw LecternExit.usage
        }
        if json {
            FileHandle.standardOutput.write(Data(report.jsonText.utf8))
        } else {
            FileHandle.standardOutput.write(Data(report.text.utf8))
            let flagged = report.flagged.count
            let noun = report.format == .quotes ? "quote" : report.format == .deck ? "card" : "question"
            let lectures = report.lectures == 0 ? "" : " and \(report.lectures) lecture\(report.lectures == 1 ? "" : "s")"
            Console.error("\(name): \(report.items) \(noun)\(report.items == 1 ? "" : "s")\(lectures) (\(report.format.rawValue)), \(flagged) flagged")
        }
        if !report.flagged.isEmpty { throw LecternExit.itemsFailed }
    }
}
