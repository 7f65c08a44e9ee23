import Foundation
import LecternCore
import Testing

/// `lectern check` as users run it: output, `--json` and exit codes 0, 1 and 2.
struct CheckCommandTests {
    static let banks = CLITests.repository.appendingPathComponent("Tests/LecternCoreTests/Fixtures/banks")

    final class Directory {
        let root: URL
        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-check-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: root) }

        func write(_ name: String, _ text: String) throws -> String {
            try text.write(to: root.appendingPathComponent(name), atomically: true, encoding: .utf8)
            return name
        }
    }

    @Test func aRealPoolPassesWithExitZero() async throws {
        let dir = try Directory()
        let pool = Self.banks.appendingPathComponent("hamexam-technician.jsonl").path
        let text = try await CLITests.lectern(["check", pool], in: dir.root)
        #expect(text.status == 0 && text.stdout.isEmpty, "\(text)")
        #expect(text.stderr.contains("423 questions (JSON Lines), 0 flagged"))
        let json = try await CLITests.lectern(["check", pool, "--json"], in: dir.root)
        #expect(json.status == 0 && json.stdout == "{\"items\": 423, \"flagged\": []}\n")
    }

    @Test func flaggedQuestionsArePrintedOneALineWithExitOne() async throws {
        let dir = try Directory()
        let bank = try dir.write(
            "bank.jsonl",
            """
            {"id": "q1", "question": "Capital of France?", "options": ["Paris", "paris ", "Rome"], "answer": 0}
            {"id": "q2", "question": "Capital of Italy?", "options": ["Paris", "Rome"], "answer": 2}
            {"id": "q3", "question": "Capital of Spain?", "options": ["Madrid", "Rome"], "answer": 0}
            """)
        let text = try await CLITests.lectern(["check", bank], in: dir.root)
        #expect(text.status == 1, "\(text)")
        #expect(
            text.stdout == """
                q1: options[0] and options[1] are the same ('paris '); every option must differ
                q2: the answer 2 is not an option: the options are numbered 0 to 1

                """)
        #expect(text.stderr.contains("bank.jsonl: 3 questions (JSON Lines), 2 flagged"))
        let json = try await CLITests.lectern(["check", "--json", bank], in: dir.root)
        #expect(json.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["items"] as? Int == 3)
        let flagged = try #require(object["flagged"] as? [[String: Any]])
        #expect(flagged.map { $0["id"] as? String } == ["q1", "q2"])
        #expect((flagged[1]["problems"] as? [String]) == ["the answer 2 is not an option: the options are numbered 0 to 1"])
    }

    /// A quantitative bank: the key is computed again from each item's solution, and a figure is
    /// held to its coordinates, whatever the file says; the corrected bank passes and follows the
    /// exam schema.
    @Test func quantitativeKeysAndFiguresAreRecomputed() async throws {
        let dir = try Directory()
        func bank(key: Int, bc: Int) -> String {
            let options = ["56", "54", "15", "64"].enumerated().map { "{\"text\": \"\($0.element)\", \"correct\": \($0.offset == key), \"feedback\": \"Compare \($0.element) with the product.\"}" }
            return """
                {"format_version": 1, "id": "q", "version": "1.0.0", "language": "en", "title": "Q", "description": "Q", "audience": "adults",
                 "sections": [{"id": "quantitative", "title": "Quantitative", "categories": [
                   {"id": "basic-operations", "title": "Basic operations", "format": "quantitative"},
                   {"id": "geometry", "title": "Geometry", "format": "geometry"}]}],
                 "passages": [], "forms": [], "documents": [],
                 "items": [
                  {"id": "quantitative/basic-operations/easy-01", "section": "quantitative", "category": "basic-operations", "difficulty": "easy",
                   "difficulty_label": "easy", "prompt": "A box holds 7 rows of 8 eggs. How many eggs does it hold?",
                   "options": [\(options.joined(separator: ", "))], "explanation": "Multiply the rows by the eggs in each row.", "seconds": 45,
                   "sources": [], "solution": {"expression": "7 * 8", "value": "56"},
                   "generation": {"attempts": 1, "model": "m", "prompt": "quantitative-item@1"}},
                  {"id": "quantitative/geometry/easy-01", "section": "quantitative", "category": "geometry", "difficulty": "easy",
                   "difficulty_label": "easy", "prompt": "In the right triangle ABC, AB = 4 and BC = \(bc). What is AC?",
                   "options": [{"text": "5", "correct": true, "feedback": "Pythagoras."}, {"text": "7", "correct": false, "feedback": "Not a sum."},
                     {"text": "6", "correct": false, "feedback": "No."}, {"text": "√7", "correct": false, "feedback": "No."}],
                   "explanation": "Use the Pythagorean theorem on the two legs.", "seconds": 67, "sources": [],
                   "solution": {"expression": "sqrt(4^2 + 3^2)", "value": "5"},
                   "figure": {"path": "figures/quantitative-geometry-easy-01.svg",
                     "alt": "Right triangle ABC with the right angle at B; AB is 4 and BC is \(bc).",
                     "geometry": {"points": [{"label": "A", "x": 0, "y": 0}, {"label": "B", "x": 4, "y": 0}, {"label": "C", "x": 4, "y": 3}],
                       "segments": [], "polygons": [["A", "B", "C"]], "circles": [], "arcs": [], "right_angles": [["A", "B", "C"]], "angles": [],
                       "lengths": [{"from": "A", "to": "B", "value": 4}, {"from": "B", "to": "C", "value": \(bc)}], "not_to_scale": false}},
                   "generation": {"attempts": 1, "model": "m", "prompt": "quantitative-item@1"}}]}
                """
        }
        let wrong = try dir.write("exam.json", bank(key: 1, bc: 5))
        let flagged = try await CLITests.lectern(["check", wrong], in: dir.root)
        #expect(flagged.status == 1, "\(flagged)")
        #expect(flagged.stdout.contains("quantitative/basic-operations/easy-01: the answer key is wrong: the solution 7 * 8 equals 56, which is options[0]"))
        #expect(flagged.stdout.contains("figure: BC is given as 5, but the coordinates make it 3"))
        let right = try dir.write("right.json", bank(key: 0, bc: 3))
        let passed = try await CLITests.lectern(["check", right], in: dir.root)
        #expect(passed.status == 0, "\(passed)")
        // In an Arabic bank, a computed item written in English is refused, as the pipeline refuses it.
        let arabic = try dir.write("arabic.json", bank(key: 0, bc: 3).replacingOccurrences(of: "\"language\": \"en\"", with: "\"language\": \"ar\""))
        let english = try await CLITests.lectern(["check", arabic], in: dir.root)
        #expect(english.status == 1, "\(english)")
        #expect(english.stdout.contains("quantitative/basic-operations/easy-01: the stem is not in Arabic"), "\(english.stdout)")
        let validated = try CLITests.schemaCheck(dir.root.appendingPathComponent(right).path, schema: "exam.schema.json")
        #expect(validated.status == 0, "\(validated.stderr)")
    }

    @Test func anUnreadableBankExitsWithTwoNamingFileAndLine() async throws {
        let dir = try Directory()
        let bank = try dir.write(
            "bank.jsonl",
            """
            {"id": "q1", "question": "Capital of France?", "options": ["Paris", "Rome"], "answer": 0}
            {"id": "q2", "question": "Capital of Italy?", "options": ["Paris", "Rome"]}
            """)
        let broken = try await CLITests.lectern(["check", bank], in: dir.root)
        #expect(broken.status == 2 && broken.stdout.isEmpty, "\(broken)")
        #expect(broken.stderr.contains("bank.jsonl:2: error: lacks 'answer'\n  hint: each line is {\"id\""))
        let missing = try await CLITests.lectern(["check", "nowhere.json"], in: dir.root)
        #expect(missing.status == 2 && missing.stderr.contains("nowhere.json: error: does not exist"))
        let usage = try await CLITests.lectern(["check"], in: dir.root)
        #expect(usage.status == 2)
    }

    @Test func theGoldenCourseIsCheckedWithItsStagesRules() async throws {
        let dir = try Directory()
        let course = CLITests.fixtures.appendingPathComponent("golden/python-basics/1.0.0/course.json").path
        let result = try await CLITests.lectern(["check", course], in: dir.root)
        // Recorded under the trust checks: nothing its questions or lectures were refused for is
        // left (its lectures are read from beside course.json; from standard input they are not).
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.isEmpty && result.stderr.contains("24 questions and 4 lectures (course.json), 0 flagged"), "\(result)")
        let json = try await CLITests.lectern(["check", course, "--json"], in: dir.root)
        #expect(json.status == 0 && json.stdout == "{\"items\": 24, \"lectures\": 4, \"flagged\": []}\n", "\(json.stdout.prefix(200))")
        let piped = try await CLITests.external(
            ["-c", "\"$0\" check - < \"$1\"", CLITests.binary.path, course], in: dir.root, executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(piped.status == 0 && piped.stderr.contains("24 questions (course.json), 0 flagged"), "\(piped.stderr)")
        // The bundle's directory, as `lectern run` names it: its course.json, lectures and all.
        let bundle = CLITests.fixtures.appendingPathComponent("golden/python-basics/1.0.0").path
        let whole = try await CLITests.lectern(["check", bundle], in: dir.root)
        #expect(whole.status == 0 && whole.stderr.contains("24 questions and 4 lectures (course.json), 0 flagged"), "\(whole)")
        let empty = try await CLITests.lectern(["check", dir.root.path], in: dir.root)
        #expect(empty.status == 2 && empty.stderr.contains("error: a directory with no bank in it (none of exam.json"), "\(empty)")
    }

    @Test func helpDescribesFormatsAndExitCodes() async throws {
        let dir = try Directory()
        let help = try await CLITests.lectern(["check", "--help"], in: dir.root)
        #expect(help.status == 0)
        for text in [
            "exam.json", "course.json", "quotes.json", "deck.json", "JSON Lines", "Exit codes: 0 nothing flagged; 1", "--json", "--language", "--model <SPEC_OR_NAME>", "--plan", "3 the solver's",
        ] {
            #expect(help.stdout.contains(text), "\(text)")
        }
        // Every format it reads, named and counted.
        for format in BankFormat.allCases { #expect(help.stdout.contains(format.rawValue), "\(format)") }
        #expect(BankFormat.allCases.count == 5 && help.stdout.contains("Five formats, told apart by their content"), "\(help.stdout)")
        let top = try await CLITests.lectern(["--help"], in: dir.root)
        #expect(top.stdout.contains("check"))
    }

    // MARK: --model: a blind solver

    /// A bank and a spec whose scripted provider solves it: q1 with the key (`{{key}}` is the
    /// keyed letter), q2 with a wrong option's text, q3 cut off (no option), q4 — flagged by the
    /// lint for a repeated option — with another wrong option; q5's key is no option: it is not asked.
    static func solverWorkspace() throws -> (Directory, bank: String) {
        let dir = try Directory()
        let bank = try dir.write(
            "bank.jsonl",
            """
            {"id": "q1", "question": "What is the capital of France?", "options": ["Paris", "Rome", "Madrid"], "answer": 0}
            {"id": "q2", "question": "What is 2 + 2?", "options": ["3", "4", "5"], "answer": 1}
            {"id": "q3", "question": "Which planet is largest?", "options": ["Mars", "Jupiter"], "answer": 1}
            {"id": "q4", "question": "Which metal is liquid at room temperature?", "options": ["Mercury", "Iron", "iron "], "answer": 0}
            {"id": "q5", "question": "Which number is even?", "options": ["2", "3"], "answer": 5}
            """)
        _ = try dir.write(
            "solver.json",
            """
            {"call_log": "calls.log", "answers": [
              {"item": "q1/blind-solve", "json": {"work": "France's capital.", "answer": "{{key}}"}, "usage": {"prompt_tokens": 300, "completion_tokens": 20}},
              {"item": "q2/blind-solve", "json": {"work": "Two and two.", "answer": "5"}, "usage": {"prompt_tokens": 300, "completion_tokens": 20}},
              {"item": "q3/blind-solve", "content": "{\\"work\\": \\"The largest planet is", "finish_reason": "length", "usage": {"prompt_tokens": 300, "completion_tokens": 400}},
              {"item": "q4/blind-solve", "json": {"work": "Iron.", "answer": "Iron"}, "usage": {"prompt_tokens": 300, "completion_tokens": 20}}
            ]}
            """)
        _ = try dir.write(
            "solver.yaml",
            CLITests.Workspace.spec.replacingOccurrences(
                of: "model: { provider: scripted, script: script.json, max_concurrency: 2 }",
                with: "model: { provider: scripted, script: solver.json, max_concurrency: 2 }\nreview: { model: solver-model }"))
        return (dir, bank)
    }

    @Test func aBlindSolverThatChoosesAnotherOptionFlagsTheQuestion() async throws {
        let (dir, bank) = try Self.solverWorkspace()
        let presets = ["--presets", CLITests.repository.appendingPathComponent("pipelines/presets").path, "--cache-dir", dir.root.appendingPathComponent("cache").path]
        let text = try await CLITests.lectern(["check", bank, "--model", "solver.yaml"] + presets, in: dir.root)
        #expect(text.status == 1, "\(text)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.map { $0.prefix(3) } == ["q2:", "q4:", "q5:"], "\(text.stdout)")
        #expect(
            lines[0] == "q2: a blind solver (solver-model) chose '5', not the keyed '4': the key may be wrong, another option may also be right, or the question may not give all it takes to answer it"
        )
        #expect(lines[1].hasPrefix("q4: options[1] and options[2] are the same"))
        #expect(
            lines[1].hasSuffix(
                "; a blind solver (solver-model) chose 'Iron', not the keyed 'Mercury': the key may be wrong, another option may also be right, or the question may not give all it takes to answer it")
        )
        #expect(!lines[2].contains("blind solver"))
        #expect(text.stderr.contains("solving 4 multiple-choice questions blind with scripted/solver-model"), "\(text.stderr)")
        #expect(text.stderr.contains("blind solver scripted/solver-model: 4 asked, 1 answered with the key, 2 with another option, 1 with none (1660 tokens, $0.0000)"), "\(text.stderr)")
        // Each question asked once, under its own id, with the review model's name.
        let calls = (try? String(contentsOf: dir.root.appendingPathComponent("calls.log"), encoding: .utf8)) ?? ""
        #expect(calls.split(separator: "\n").count == 4, "\(calls)")
        #expect(["q1", "q2", "q3", "q4"].allSatisfy { calls.contains("\($0)/blind-solve") } && !calls.contains("q5"), "\(calls)")

        // Again: every answer comes from the exchange cache (the cut-off one too, as a run keeps it).
        let json = try await CLITests.lectern(["check", bank, "--model", "solver.yaml", "--json"] + presets, in: dir.root)
        #expect(json.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let solved = try #require(object["solved"] as? [String: Any])
        #expect(solved["asked"] as? Int == 4 && solved["agreed"] as? Int == 1 && solved["unanswered"] as? Int == 1)
        #expect(solved["model"] as? String == "solver-model" && solved["provider"] as? String == "scripted")
        #expect(solved["cached"] as? Int == 4 && solved["tokens"] as? Int == 0, "\(solved)")
        func callCount() -> Int {
            ((try? String(contentsOf: dir.root.appendingPathComponent("calls.log"), encoding: .utf8)) ?? "").split(separator: "\n").count
        }
        #expect(callCount() == 4)
        // An edited stem is a new question: offline it is a miss (exit 3, named), recorded it is asked once.
        let edited = try String(contentsOf: dir.root.appendingPathComponent(bank), encoding: .utf8)
            .replacingOccurrences(of: "What is 2 + 2?", with: "What is two plus two?")
        try edited.write(to: dir.root.appendingPathComponent(bank), atomically: true, encoding: .utf8)
        let offline = try await CLITests.lectern(["check", bank, "--model", "solver.yaml", "--cache", "offline"] + presets, in: dir.root)
        #expect(offline.status == 3 && offline.stderr.contains("no recorded answer for q2/blind-solve"), "\(offline)")
        let recorded = try await CLITests.lectern(["check", bank, "--model", "solver.yaml"] + presets, in: dir.root)
        #expect(recorded.status == 1 && recorded.stderr.contains("(320 tokens, $0.0000; 3 answered from the cache)"), "\(recorded.stderr)")
        #expect(callCount() == 5)
        let flagged = try #require(object["flagged"] as? [[String: Any]])
        #expect((flagged[0]["checks"] as? [String]) == ["answer-key"])
    }

    /// `--rubric`: each multiple-choice question judged against the rubric by the same model; a
    /// broken criterion quoting the question flags it, one quoting nothing of it is disregarded.
    @Test func theRubricJudgeFlagsWhatItQuotes() async throws {
        let (dir, bank) = try Self.solverWorkspace()
        func judged(_ broken: String?, quote: String) -> String {
            let verdicts = ["key_correct", "only_key", "feedback_agrees", "statements_true", "source_supports", "on_topic"].map { c in
                "\"\(c)\": {\"holds\": \(c != broken), \"quote\": \"\(c == broken ? quote : "")\", \"reason\": \"\(c == broken ? "Rome was a capital too, of Italy." : "")\"}"
            }
            return "{" + verdicts.joined(separator: ", ") + "}"
        }
        let script = try String(contentsOf: dir.root.appendingPathComponent("solver.json"), encoding: .utf8)
        let rubric = [
            "{\"item\": \"q1/rubric\", \"json\": \(judged("only_key", quote: "the capital of France")), \"usage\": {\"prompt_tokens\": 900, \"completion_tokens\": 200}}",
            "{\"item\": \"q2/rubric\", \"json\": \(judged("statements_true", quote: "two and two make five")), \"usage\": {\"prompt_tokens\": 900, \"completion_tokens\": 200}}",
            "{\"item\": \"q3/rubric\", \"content\": \"It looks fine to me.\"}",
            "{\"item\": \"q4/rubric\", \"json\": \(judged(nil, quote: ""))}",
        ]
        let closing = try #require(script.range(of: "]}", options: .backwards))
        try (script[..<closing.lowerBound] + ",\n" + rubric.joined(separator: ",\n") + "\n]}\n").write(
            to: dir.root.appendingPathComponent("solver.json"), atomically: true, encoding: .utf8)
        let presets = ["--presets", CLITests.repository.appendingPathComponent("pipelines/presets").path, "--cache-dir", dir.root.appendingPathComponent("cache").path]
        let plan = try await CLITests.lectern(["check", bank, "--model", "solver.yaml", "--rubric", "--plan"] + presets, in: dir.root)
        #expect(plan.stdout.hasPrefix("blind solve and rubric with scripted/solver-model: 8 calls (two a multiple-choice question)"), "\(plan)")
        let text = try await CLITests.lectern(["check", bank, "--model", "solver.yaml", "--rubric"] + presets, in: dir.root)
        #expect(text.status == 1, "\(text)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.map { $0.prefix(3) } == ["q1:", "q2:", "q4:", "q5:"], "\(text.stdout)")
        #expect(
            lines[0]
                == "q1: a reviewing model judged that another option is also right: “the capital of France” — Rome was a capital too, of Italy.; make sure the key is right and alone, and every feedback and explanation true and in agreement with it",
            "\(lines[0])")
        #expect(!lines[1].contains("reviewing model"), "q2's verdict quoted nothing of it")
        #expect(
            text.stderr.contains(
                "rubric judge scripted/solver-model: 3 judged, 2 passed; broken, quoting the question: only_key 1; 1 broken verdicts quoting nothing of the question disregarded, 1 answers no judgement (2600 tokens, $0.0000)"
            ), "\(text.stderr)")
        // The judge read the question with its key marked, at temperature 0, under its own id.
        let calls = (try? String(contentsOf: dir.root.appendingPathComponent("calls.log"), encoding: .utf8)) ?? ""
        #expect(["q1", "q2", "q3", "q4"].allSatisfy { calls.contains("\($0)/rubric") } && !calls.contains("q5/rubric"), "\(calls)")
        let json = try await CLITests.lectern(["check", bank, "--model", "solver.yaml", "--rubric", "--json"] + presets, in: dir.root)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let summary = try #require(object["judged"] as? [String: Any])
        #expect(summary["judged"] as? Int == 3 && summary["cached"] as? Int == 4 && (summary["broken"] as? [String: Int]) == ["only_key": 1], "\(summary)")
        let first = try #require((object["flagged"] as? [[String: Any]])?.first)
        #expect(first["id"] as? String == "q1" && (first["checks"] as? [String]) == ["rubric"])
        let usage = try await CLITests.lectern(["check", bank, "--rubric"], in: dir.root)
        #expect(usage.status == 2 && usage.stderr.contains("--rubric needs a judge"), "\(usage)")
    }

    @Test func planAsksNothingAndEstimates() async throws {
        let (dir, bank) = try Self.solverWorkspace()
        let presets = ["--presets", CLITests.repository.appendingPathComponent("pipelines/presets").path, "--cache-dir", dir.root.appendingPathComponent("cache").path]
        let plan = try await CLITests.lectern(["check", bank, "--model", "solver.yaml", "--plan"] + presets, in: dir.root)
        #expect(plan.status == 0, "\(plan)")
        #expect(plan.stdout.hasPrefix("blind solve with scripted/solver-model: 4 calls (one a multiple-choice question), about 2800 tokens"), "\(plan.stdout)")
        #expect(plan.stdout.contains("(700 a call), estimated cost $0.0000; nothing was asked"))  // a scripted provider costs nothing
        #expect(!FileManager.default.fileExists(atPath: dir.root.appendingPathComponent("calls.log").path))
        let json = try await CLITests.lectern(["check", bank, "--model", "solver.yaml", "--plan", "--json"] + presets, in: dir.root)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["calls"] as? Int == 4 && object["estimated_tokens"] as? Int == 2800)
        #expect(object["estimated_cost_usd"] as? Double == 0)
    }

    @Test func aModelThatIsNeitherASpecNorALocalModelIsAUsageError() async throws {
        let (dir, bank) = try Self.solverWorkspace()
        let unknown = try await CLITests.lectern(["check", bank, "--model", "gpt-9"], in: dir.root)
        #expect(unknown.status == 2, "\(unknown)")
        #expect(unknown.stderr.contains("--model gpt-9 names neither a job spec nor a local model"))
        #expect(unknown.stderr.contains("qwen2.5-coder-1.5b-instruct"))
        let missing = try await CLITests.lectern(["check", bank, "--model", "nowhere.yaml"], in: dir.root)
        #expect(missing.status == 2 && missing.stderr.contains("the spec does not exist"), "\(missing)")
        let planAlone = try await CLITests.lectern(["check", bank, "--plan"], in: dir.root)
        #expect(planAlone.status == 2 && planAlone.stderr.contains("--plan estimates a blind solve"), "\(planAlone)")
    }

    /// A provider that fails (here: a script with no answer for the question) stops the check with
    /// exit 3 and says which solver failed.
    @Test func aSolverThatFailsExitsThree() async throws {
        let (dir, bank) = try Self.solverWorkspace()
        _ = try dir.write("solver.json", #"{"answers": []}"#)
        let presets = ["--presets", CLITests.repository.appendingPathComponent("pipelines/presets").path, "--cache-dir", dir.root.appendingPathComponent("cache").path]
        let failed = try await CLITests.lectern(["check", bank, "--model", "solver.yaml"] + presets, in: dir.root)
        #expect(failed.status == 3, "\(failed)")
        #expect(failed.stderr.contains("bank.jsonl: error: the blind solver scripted/solver-model failed"), "\(failed.stderr)")
    }

    /// A bank of 20: a line at each tenth (at least every 10 answers), and nothing flagged when the
    /// solver answers every question with its key.
    @Test func aLongSolveSaysHowFarItIs() async throws {
        let (dir, _) = try Self.solverWorkspace()
        let lines = (1...20).map { #"{"id": "n\#($0)", "question": "What is \#($0) + 1?", "options": ["\#($0 + 1)", "\#($0 + 2)"], "answer": 0}"# }
        let bank = try dir.write("twenty.jsonl", lines.joined(separator: "\n") + "\n")
        _ = try dir.write("solver.json", #"{"answers": [{"json": {"work": "Add one.", "answer": "{{key}}"}}]}"#)
        let presets = ["--presets", CLITests.repository.appendingPathComponent("pipelines/presets").path, "--cache-dir", dir.root.appendingPathComponent("cache").path]
        let solved = try await CLITests.lectern(["check", bank, "--model", "solver.yaml"] + presets, in: dir.root)
        #expect(solved.status == 0, "\(solved)")
        #expect(solved.stderr.contains("  10 of 20 answered\n") && !solved.stderr.contains("20 of 20"), "\(solved.stderr)")
        #expect(solved.stderr.contains("20 asked, 20 answered with the key, 0 with another option, 0 with none"), "\(solved.stderr)")
    }
}
