import Foundation
import LecternBundle
import LecternCore
import LecternLLM
import LecternRender
import Testing

@testable import LecternPipeline

/// Quantitative and geometry items through the real runner, answered by a scripted provider: a
/// wrong key and a figure that contradicts itself are repaired, and the bank carries the computed
/// solution and the figure Lectern drew.
struct QuantitativeRunTests {
    static let spec = """
        kind: exam
        id: quantities
        description: A short quantitative exam.
        corpus: [exam-corpus/rivers.md]
        blueprint:
          - section: quantitative
            categories:
              - category: basic-operations
                format: quantitative
                instructions: An arithmetic problem whose options are numbers.
                easy: 1
              - category: geometry
                format: geometry
                instructions: A geometry problem about a figure.
                easy: 1
        forms:
          - { id: form-a, title: Form A, duration_minutes: 5, sections: [{ section: quantitative, count: 2 }] }
        model: { provider: scripted, script: unused.json }
        """

    static func item(_ prompt: String, _ correct: String, _ wrong: [String], solution: String, figure: JSONValue? = nil) -> JSONValue {
        var object: [String: JSONValue] = [
            "prompt": .string(prompt), "correct_answer": ["text": .string(correct), "feedback": "Right: that is the product."],
            "wrong_answers": .array(wrong.map { ["text": .string($0), "feedback": .string("\($0) is what a slip in the calculation gives; check it again.")] }),
            "explanation": "Multiply the two numbers, then compare the product with each option.", "solution": .string(solution),
        ]
        if let figure { object["figure"] = figure }
        return .object(object)
    }

    static func triangle(bc: Double) -> JSONValue {
        [
            "points": [["label": "A", "x": 0, "y": 0], ["label": "B", "x": 4, "y": 0], ["label": "C", "x": 4, "y": 3]],
            "polygons": [["A", "B", "C"]], "right_angles": [["A", "B", "C"]],
            "lengths": [
                ["from": "A", "to": "B", "value": 4, "label": "4 cm"], ["from": "B", "to": "C", "value": .number(bc), "label": .string("\(Int(bc)) cm")],
            ],
            "alt": .string("A right triangle ABC with the right angle at B; AB is 4 cm and BC is \(Int(bc)) cm; AC is the hypotenuse."),
        ]
    }

    @Test func keysAreComputedAndFiguresDrawn() async throws {
        let product = "exam-item/quantitative/basic-operations/easy-01"
        let geometry = "exam-item/quantitative/geometry/easy-01"
        let stem = "In the right triangle ABC, AB = 4 cm and BC = 3 cm. What is the length of AC?"
        let answers: [JSONValue] = [
            ExamRunTests.answer(product, attempt: 1, Self.item("A box holds 7 rows of 8 eggs. How many eggs does it hold?", "54", ["56", "15", "64"], solution: "7 * 8")),
            ExamRunTests.answer(product, attempt: 2, Self.item("A box holds 7 rows of 8 eggs. How many eggs does it hold?", "56", ["54", "15", "64"], solution: "7 * 8")),
            ExamRunTests.answer(geometry, attempt: 1, Self.item(stem, "5 cm", ["7 cm", "6 cm", "√7 cm"], solution: "sqrt(4^2 + 3^2)", figure: Self.triangle(bc: 5))),
            ExamRunTests.answer(geometry, attempt: 2, Self.item(stem, "5 cm", ["7 cm", "6 cm", "√7 cm"], solution: "sqrt(4^2 + 3^2)", figure: Self.triangle(bc: 3))),
        ]
        let (result, provider, ws) = try await ExamRunTests.runScripted(Self.spec, answers: answers)
        defer { _ = ws }
        #expect(result.status == .complete, "\(result.failures)")
        guard case .written(let dir)? = result.bundle else {
            Issue.record("no bundle")
            return
        }
        let files = Workspace.files(dir)
        let exam = try JSONDecoder().decode(ExamBank.self, from: try #require(files["exam.json"]))
        let eggs = try #require(exam.items.first { $0.category == "basic-operations" })
        #expect(eggs.generation.attempts == 2)
        #expect(eggs.solution == ItemSolution(expression: "7 * 8", value: "56"))
        #expect(eggs.options.first(where: \.correct)?.text == "56")
        #expect(eggs.figure == nil)

        let right = try #require(exam.items.first { $0.category == "geometry" })
        #expect(right.generation.attempts == 2)
        #expect(right.solution?.value == "5")
        let figure = try #require(right.figure)
        #expect(figure.path == "figures/quantitative-geometry-easy-01.svg")
        let svg = String(decoding: try #require(files[figure.path]), as: UTF8.self)
        #expect(SVGSafety.problems(in: svg) == [])
        #expect(svg.contains(">3 cm</text>") && svg.contains("<title>A right triangle ABC"))
        // The form shows the figure with its alt text.
        let form = String(decoding: try #require(files["forms/form-a.xhtml"]), as: UTF8.self)
        #expect(form.contains("src=\"../figures/quantitative-geometry-easy-01.svg\""))
        #expect(form.contains("alt=\"A right triangle ABC with the right angle at B; AB is 4 cm and BC is 3 cm; AC is the hypotenuse.\""))

        let sent = ExamRunTests.sentTexts(provider)
        #expect(sent.count == 4)
        #expect(sent.first?.contains("\"solution\" is the calculation that gives the correct answer") == true)
        let repairs = sent.filter { $0.contains("the answer key is wrong") }
        #expect(repairs.count == 1)
        #expect(repairs.first?.contains("the solution 7 * 8 equals 56, which is wrong_answers[1] ('56'), not the keyed correct_answer (54)") == true)
        #expect(sent.contains { $0.contains("BC is given as 5, but the coordinates make it 3") })
        #expect(sent.contains { $0.contains("\"figure\" describes the figure the question shows") })
    }

    @Test func aSecondOptionEqualToTheKeyIsRepaired() async throws {
        let id = "exam-item/quantitative/basic-operations/easy-01"
        let answers: [JSONValue] = [
            ExamRunTests.answer(id, attempt: 1, Self.item("Simplify the square root of 12.", "2√3", ["√12", "3√2", "6"], solution: "sqrt(12)")),
            ExamRunTests.answer(id, attempt: 2, Self.item("Simplify the square root of 12.", "2√3", ["4√3", "3√2", "6"], solution: "sqrt(12)")),
        ]
        let yaml = ExamRunTests.oneItemSpec(
            id: "roots", section: "quantitative", category: "basic-operations", format: "quantitative", difficulty: "easy",
            instructions: "A roots problem whose options are numbers.")
        let (result, provider, ws) = try await ExamRunTests.runScripted(yaml, answers: answers)
        defer { _ = ws }
        #expect(result.status == .complete, "\(result.failures)")
        let sent = ExamRunTests.sentTexts(provider)
        #expect(sent.count == 2, "\(sent.last?.suffix(1200) ?? "")")
        #expect(sent.last?.contains("wrong_answers[1] ('√12') also equals 2√3, like the keyed correct_answer ('2√3')") == true)
    }

    /// `digits: eastern`: what the candidate reads is in Arabic-Indic digits, whatever the model
    /// wrote; the solution stays as written and the key is computed from it all the same.
    @Test func digitsFollowTheSpec() async throws {
        let id = "exam-item/quantitative/basic-operations/easy-01"
        let answers: [JSONValue] = [
            ExamRunTests.answer(id, Self.item("A box holds 7 rows of 8 eggs. How many eggs does it hold?", "56", ["54", "1.5", "64"], solution: "7 * 8"))
        ]
        let yaml =
            "digits: eastern\n"
            + ExamRunTests.oneItemSpec(
                id: "eggs", section: "quantitative", category: "basic-operations", format: "quantitative", difficulty: "easy",
                instructions: "An arithmetic problem whose options are numbers.")
        let (result, _, ws) = try await ExamRunTests.runScripted(yaml, answers: answers)
        defer { _ = ws }
        #expect(result.status == .complete, "\(result.failures)")
        guard case .written(let dir)? = result.bundle else { return }
        let exam = try JSONDecoder().decode(ExamBank.self, from: try #require(Workspace.files(dir)["exam.json"]))
        let item = try #require(exam.items.first)
        #expect(item.prompt == "A box holds ٧ rows of ٨ eggs. How many eggs does it hold?")
        #expect(Set(item.options.map(\.text)) == ["٥٦", "٥٤", "١٫٥", "٦٤"])
        #expect(item.options.first(where: \.correct)?.text == "٥٦")
        #expect(item.solution == ItemSolution(expression: "7 * 8", value: "56"))
    }

    /// In an Arabic exam a root option is isolated left to right (BidiMath), so that it reads
    /// ٢√٣ and not ٣√٢; its value is still read, so a second option equal to the key is refused.
    @Test func rootsInArabicAreIsolatedAndStillChecked() async throws {
        let id = "exam-item/quantitative/basic-operations/easy-01"
        func item(_ wrong: [String]) -> JSONValue {
            let feedback = ["√12": "هذا هو العدد نفسه قبل التبسيط.", "4√3": "هذا يساوي √٤٨ لا √١٢.", "3√2": "هذا يساوي √١٨ لا √١٢.", "6": "هذا نصف العدد لا جذره."]
            return [
                "prompt": "ما أبسط صورة للجذر التربيعي للعدد ١٢؟", "correct_answer": ["text": "2√3", "feedback": "صحيح: ١٢ = ٤ × ٣."],
                "wrong_answers": .array(wrong.map { ["text": .string($0), "feedback": .string(feedback[$0] ?? "راجع الحساب.")] }),
                "explanation": "نحلل ١٢ إلى ٤ × ٣، وجذر ٤ هو ٢، فيكون الناتج ٢√٣.", "solution": "sqrt(12)",
            ]
        }
        let answers: [JSONValue] = [
            ExamRunTests.answer(id, attempt: 1, item(["√12", "3√2", "6"])), ExamRunTests.answer(id, attempt: 2, item(["4√3", "3√2", "6"])),
        ]
        let yaml =
            "language: ar\n"
            + ExamRunTests.oneItemSpec(
                id: "roots", section: "quantitative", category: "basic-operations", format: "quantitative", difficulty: "easy",
                instructions: "A roots problem whose options are numbers.")
        let (result, provider, ws) = try await ExamRunTests.runScripted(yaml, answers: answers)
        defer { _ = ws }
        #expect(result.status == .complete, "\(result.failures)")
        let sent = ExamRunTests.sentTexts(provider)
        #expect(sent.count == 2)
        #expect(sent.last?.contains("also equals") == true, "\(sent.last?.suffix(800) ?? "")")
        guard case .written(let dir)? = result.bundle else { return }
        let exam = try JSONDecoder().decode(ExamBank.self, from: try #require(Workspace.files(dir)["exam.json"]))
        let options = try #require(exam.items.first).options
        #expect(options.first(where: \.correct)?.text == "\u{2066}٢\u{200E}√٣\u{2069}")
        #expect(Set(options.map(\.text)) == ["\u{2066}٢\u{200E}√٣\u{2069}", "\u{2066}٤\u{200E}√٣\u{2069}", "\u{2066}٣\u{200E}√٢\u{2069}", "٦"])
        #expect(try #require(exam.items.first).explanation.contains("\u{2066}٢\u{200E}√٣\u{2069}"))
        // The form numbers its questions, its duration and its key in the exam's digits too.
        let form = String(decoding: try #require(Workspace.files(dir)["forms/form-a.xhtml"]), as: UTF8.self)
        #expect(form.contains("مدة الاختبار: ٥ دقائق"), "\(form.prefix(1500))")
        #expect(form.contains("السؤال ١ - "))
        #expect(form.contains("١. أ") || form.contains("١. ب") || form.contains("١. ج") || form.contains("١. د"))
    }

    @Test func anUnknownDigitSystemIsASpecError() throws {
        let yaml =
            "digits: roman\n"
            + ExamRunTests.oneItemSpec(
                id: "eggs", section: "quantitative", category: "basic-operations", format: "quantitative", difficulty: "easy",
                instructions: "An arithmetic problem.")
        #expect {
            _ = try ExamRunTests.load(yaml)
        } throws: { error in "\(error)".contains("unknown digits 'roman'") && "\(error)".contains("eastern") }
    }

    /// A blueprint of computed-key categories only needs no corpus, and each item of a category
    /// gets the next of its topics; a verbal category still needs one.
    @Test func quantitativeCellsNeedNoCorpusAndTakeTheirTopicsInTurn() async throws {
        let yaml = """
            kind: exam
            id: sums
            description: Sums.
            blueprint:
              - section: quantitative
                categories:
                  - category: basic-operations
                    format: quantitative
                    instructions: An arithmetic problem.
                    topics: [adding fractions, a percentage of an amount]
                    easy: 2
                    medium: 1
            model: { provider: scripted, script: unused.json }
            """
        let prefix = "exam-item/quantitative/basic-operations/"
        let answers: [JSONValue] = [
            ExamRunTests.answer(prefix + "easy-01", Self.item("What is 1/2 + 1/3?", "5/6", ["2/5", "1/6", "2/6"], solution: "1/2 + 1/3")),
            ExamRunTests.answer(prefix + "easy-02", Self.item("What is 20% of 50?", "10", ["20", "5", "25"], solution: "20 / 100 * 50")),
            ExamRunTests.answer(prefix + "medium-01", Self.item("What is 3/4 - 1/8?", "5/8", ["1/2", "1/4", "3/8"], solution: "3/4 - 1/8")),
        ]
        let (result, provider, ws) = try await ExamRunTests.runScripted(yaml, answers: answers)
        defer { _ = ws }
        #expect(result.status == .complete, "\(result.failures)")
        let sent = ExamRunTests.sentTexts(provider)
        #expect(sent.count == 3)
        #expect(sent.filter { $0.contains("This question is about: adding fractions.") }.count == 2)
        #expect(sent.filter { $0.contains("This question is about: a percentage of an amount.") }.count == 1)
        #expect(!sent.contains { $0.contains("---") }, "no corpus text in the prompt")
        #expect {
            _ = try ExamRunTests.load(
                yaml.replacingOccurrences(of: "format: quantitative", with: "format: standard")
                    .replacingOccurrences(of: "                    topics: [adding fractions, a percentage of an amount]\n", with: ""))
        } throws: { error in "\(error)".contains("missing required key 'corpus'") }
    }

    /// A figure's measures are drawn in the exam's digits, labelled or not.
    @Test func figureMeasuresAreWrittenInTheExamsDigits() throws {
        let json = """
            {"prompt": "p", "correct_answer": {"text": "5", "feedback": "f"}, "wrong_answers": [], "explanation": "e", "solution": "5",
             "figure": {"alt": "AB is 4", "points": [{"label": "A", "x": 0, "y": 0}, {"label": "B", "x": 4, "y": 0}],
                        "lengths": [{"from": "A", "to": "B", "value": 4}], "angles": [{"vertex": "A", "from": "B", "to": "B", "degrees": 30}]}}
            """
        let answer = try JSONDecoder().decode(ExamItemStage.ComputedAnswer.self, from: Data(json.utf8)).written(in: .eastern, language: "en")
        let figure = try #require(answer.figure)
        #expect(figure.geometry.lengths.map(\.label) == ["٤"])
        #expect(figure.geometry.angles.map(\.label) == ["٣٠°"])
        #expect(figure.alt == "AB is ٤")
        #expect(answer.solution == "5")
    }
}
