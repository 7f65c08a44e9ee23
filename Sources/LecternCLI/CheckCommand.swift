import ArgumentParser
import Foundation
import LecternCore
import LecternLLM
import LecternPipeline

/// `lectern check FILE`: lint a question bank with the deterministic validators, no model call;
/// with `--model`, also put its multiple-choice questions to a blind solver.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract:
            "Lint a question bank (exam.json, course.json or JSON Lines), a quote database (quotes.json) or a flashcard deck (deck.json) with Lectern's validators; no model call unless --model.",
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
            twice (in JSON Lines, a stem that reads its options — "Which of the following …" — \
            only with the same key or the same options; docs/check.md); in course.json also two options that are one answer written twice (articles, \
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

            With --model SPEC_OR_NAME every multiple-choice question (exactly one option keyed, \
            two or more options) is also put to a blind solver, as a run puts each accepted \
            answer: the stem, a reading question's passage and the options in an order of their \
            own, no key and no feedback, temperature 0. A question whose solver chose another \
            option than the key is flagged (check answer-key), and the summary says how many it \
            answered with the key. SPEC_OR_NAME is a job spec (its model: section, and its \
            review.model when it names one) or a local model's name (lectern models). Answers go \
            through the exchange cache as a run's do (--cache, --cache-dir, --cassette), so \
            checking again asks only what changed. With --plan nothing is asked: it prints the \
            calls, an estimate of the tokens and, from the price table, of the cost. With \
            --rubric the same model also judges each of them against the rubric (the key right \
            and alone, every feedback agreeing with it and the passage, statements true, the \
            passage supporting the key and no distractor, on topic): a criterion it finds broken \
            is flagged (check rubric) only when it copies the question's words that break it; a \
            verdict quoting nothing of the question is counted and disregarded.

            Exit codes: 0 nothing flagged; 1 some question flagged; 2 the file cannot be read as \
            a bank (missing, not JSON, a JSON Lines line that is not an item: every such line is \
            named as FILE:LINE), or --model names neither a spec nor a local model; 3 the solver's \
            provider failed (after its retries), or --cache replay or offline found no answer; 5 \
            the exchange cache could not be written.
            """)

    @Argument(help: ArgumentHelp("The bank: a bundle's directory, or exam.json, course.json, quotes.json, deck.json or a JSON Lines file; '-' reads standard input.", valueName: "FILE"))
    var file: String

    @Flag(help: "Print {\"items\": N, \"flagged\": [{\"id\": \"…\", \"problems\": [\"…\"]}]} instead of text (a course.json's also gives \"lectures\": N).")
    var json = false

    @Option(
        help: ArgumentHelp(
            "Language of the questions, e.g. en or ar: decides how texts are compared (default: the file's 'language', else en).",
            valueName: "TAG"))
    var language: String?

    @Option(
        help: ArgumentHelp(
            "Also solve every multiple-choice question blind with this model: a job spec (its model: section; review.model when set) or a local model's name.",
            valueName: "SPEC_OR_NAME"))
    var model: String?

    @Flag(help: "With --model: print the calls and the estimated tokens and cost, and ask nothing.")
    var plan = false

    @Flag(
        help: ArgumentHelp(
            "With --model: also judge every multiple-choice question against the rubric (the key right and alone, feedback agreeing with it, statements true, the passage supporting the key, on topic); a broken criterion is flagged only when the judge quotes the question's words that break it (docs/spec.md#review)."
        ))
    var rubric = false

    @Option(
        help: ArgumentHelp(
            "With --model: record (default) answers from the exchange cache and asks the solver on a miss, keeping its answer; replay and offline answer from the cache and --cassette only (offline starts no provider); off neither reads nor writes the cache.",
            valueName: "MODE"))
    var cache: CacheMode = .record

    /// How --model's spec is read (its presets and corpus roots), as `run` reads it.
    @OptionGroup var specOptions: SpecOptions
    @OptionGroup var cacheOptions: CacheOptions

    func validate() throws {
        if plan && model == nil { throw ValidationError("--plan estimates a blind solve: give --model SPEC_OR_NAME with it") }
        if rubric && model == nil { throw ValidationError("--rubric needs a judge: give --model SPEC_OR_NAME with it") }
    }

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

    /// The files a bundle directory holds its bank in, by kind.
    static let bankFiles = ["exam.json", "course.json", "deck.json", "quotes.json"]

    /// `file`, or the bank file in it when it is a bundle's directory (`lectern check
    /// output/python-basics/1.0.0`); nil for a directory holding none.
    static func bankFile(_ file: String) -> String? {
        var isDirectory: ObjCBool = false
        guard file != "-", FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), isDirectory.boolValue else { return file }
        let directory = URL(fileURLWithPath: file)
        return bankFiles.map { directory.appendingPathComponent($0).path }.first { FileManager.default.fileExists(atPath: $0) }
    }

    func run() async throws {
        guard let file = Self.bankFile(self.file) else {
            Console.error(
                "\(self.file): error: a directory with no bank in it (none of \(Self.bankFiles.joined(separator: ", ")))\n"
                    + "  hint: name a bundle's directory (output/<id>/<version>), or its exam.json, course.json, deck.json or quotes.json, or a JSON Lines file")
            throw LecternExit.usage
        }
        let data: Data
        do {
            data = file == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            let reason = FileManager.default.fileExists(atPath: file) ? "cannot be read (\(error.localizedDescription))" : "does not exist"
            Console.error("\(file): error: \(reason)\n  hint: name an exam.json, course.json or JSON Lines file")
            throw LecternExit.usage
        }
        let name = file == "-" ? "<stdin>" : file
        var report: BankReport
        let questions: [BankQuestion]
        do {
            report = try BankLint.check(data: data, file: name, language: language, lecture: file == "-" ? nil : Self.lectureReader(beside: file))
            questions = model == nil ? [] : try BankLint.multipleChoiceQuestions(data: data, file: name).questions
        } catch {
            Console.error(error.description)
            throw LecternExit.usage
        }
        if let model {
            let solver = try SolverSetup.make(model, specOptions: specOptions)
            if plan {
                solver.printPlan(questions: questions.count, json: json, judged: rubric)
                return
            }
            let store = try cacheOptions.open(ProcessInfo.processInfo.environment)
            report = try await solver.solve(questions, into: report, file: name, cache: store, mode: cache)
            if rubric { report = try await solver.judge(questions, into: report, file: name, cache: store, mode: cache) }
        }
        if json {
            FileHandle.standardOutput.write(Data(report.jsonText.utf8))
        } else {
            FileHandle.standardOutput.write(Data(report.text.utf8))
            let flagged = report.flagged.count
            let noun = report.format == .quotes ? "quote" : report.format == .deck ? "card" : "question"
            let lectures = report.lectures == 0 ? "" : " and \(report.lectures) lecture\(report.lectures == 1 ? "" : "s")"
            Console.error("\(name): \(report.items) \(noun)\(report.items == 1 ? "" : "s")\(lectures) (\(report.format.rawValue)), \(flagged) flagged")
            if let solved = report.solved {
                let cost = solved.costUSD.map { String(format: ", $%.4f", $0) } ?? ""
                let cached = solved.cached == 0 ? "" : "; \(solved.cached) answered from the cache"
                Console.error(
                    "blind solver \(solved.provider)/\(solved.model): \(solved.asked) asked, \(solved.agreed) answered with the key, "
                        + "\(solved.asked - solved.agreed - solved.unanswered) with another option, \(solved.unanswered) with none (\(solved.tokens) tokens\(cost)\(cached))")
            }
            if let judged = report.judged {
                let cost = judged.costUSD.map { String(format: ", $%.4f", $0) } ?? ""
                let broken = judged.broken.keys.sorted().map { "\($0) \(judged.broken[$0]!)" }.joined(separator: ", ")
                Console.error(
                    "rubric judge \(judged.provider)/\(judged.model): \(judged.judged) judged, \(judged.passed) passed"
                        + (broken.isEmpty ? "" : "; broken, quoting the question: \(broken)")
                        + "; \(judged.unquoted) broken verdicts quoting nothing of the question disregarded, \(judged.unanswered) answers no judgement (\(judged.tokens) tokens\(cost))")
            }
        }
        if !report.flagged.isEmpty { throw LecternExit.itemsFailed }
    }
}
