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
    }

    @Test func helpDescribesFormatsAndExitCodes() async throws {
        let dir = try Directory()
        let help = try await CLITests.lectern(["check", "--help"], in: dir.root)
        #expect(help.status == 0)
        for text in ["exam.json", "course.json", "quotes.json", "deck.json", "JSON Lines", "Exit codes: 0 nothing flagged; 1", "--json", "--language"] {
            #expect(help.stdout.contains(text), "\(text)")
        }
        // Every format it reads, named and counted.
        for format in BankFormat.allCases { #expect(help.stdout.contains(format.rawValue), "\(format)") }
        #expect(BankFormat.allCases.count == 5 && help.stdout.contains("Five formats, told apart by their content"), "\(help.stdout)")
        let top = try await CLITests.lectern(["--help"], in: dir.root)
        #expect(top.stdout.contains("check"))
    }
}
