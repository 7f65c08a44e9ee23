import Foundation
import Testing

@testable import LecternCore

/// The exact evaluator behind computed answer keys: equivalent forms of roots, powers and π are
/// recognised as one number, and the key check finds wrong keys, second correct options and
/// repeated distractors.
struct QuantitativeKeyTests {
    static func value(_ text: String) throws -> AlgebraicValue { try QuantitativeExpression.evaluate(text) }

    @Test(arguments: [
        ("sqrt(12)", "2√3"),
        ("2^-2", "1/4"),
        ("(sqrt(2))^2", "2"),
        ("(180 - 175)/8", "5/8"),
        ("\\frac{1}{\\sqrt{3} - 1}", "1/2 + √3/2"),
        ("pi * 3^2", "9π"),
        ("2 * pi * 5 / (4 * pi)", "5/2"),
        ("cbrt(16)", "2∛2"),
        ("root(32, 5)", "2"),
        ("8^(2/3)", "4"),
        ("27^(-1/3)", "1/3"),
        ("sqrt(8) * sqrt(2)", "4"),
        ("sqrt(2) + sqrt(8)", "3√2"),
        ("(1 + sqrt(2))^2", "3 + 2√2"),
        ("√(1/2)", "√2/2"),
        ("cbrt(-27)", "−3"),
        ("sqrt(6) / sqrt(3)", "√2"),
        ("1 / (sqrt(2) + sqrt(3))", "−√2 + √3"),
        ("sqrt(pi^2)", "π"),
        ("sqrt(2) * cbrt(2)", "32^(1/6)"),
        ("25%", "1/4"),
        ("٣٫٥ × ٢", "7"),
        ("\\sqrt[3]{54}", "3∛2"),
        ("2^{10}", "1024"),
    ])
    func evaluatesExactly(_ expression: String, _ expected: String) throws {
        #expect(try Self.value(expression).description == expected)
    }

    @Test func equivalentFormsAreOneNumber() throws {
        #expect(try Self.value("sqrt(12)") == Self.value("2*sqrt(3)"))
        #expect(try Self.value("\\(2\\sqrt{3}\\)") == Self.value("√12"))
        #expect(try Self.value("2^(-2)") == Self.value("0.25"))
        #expect(try Self.value("(√2)²") == Self.value("2"))
        #expect(try Self.value("1/(√3 - 1)") == Self.value("(√3 + 1)/2"))
        #expect(try Self.value("4^(1/2)") == Self.value("2"))
        #expect(try Self.value("sqrt(2)") != Self.value("1.414"))
        #expect(try Self.value("pi") != Self.value("3.14"))
        #expect(try Self.value("pi") != Self.value("22/7"))
        #expect(try Self.value("sqrt(3)") != Self.value("cbrt(3)"))
    }

    @Test(arguments: [
        ("1/0", AlgebraicError.divisionByZero),
        ("sqrt(-4)", AlgebraicError.notReal),
        ("sqrt(2 + sqrt(3))", AlgebraicError.unsupported("a root of a sum of unlike terms")),
        ("sqrt(pi)", AlgebraicError.unsupported("a root of π")),
        ("x + 1", AlgebraicError.unreadable),
        ("2^(sqrt(2))", AlgebraicError.unsupported("an exponent that is not a rational number")),
        ("0^0", AlgebraicError.unsupported("0 to the power 0")),
        ("1 / (sqrt(2) - sqrt(2))", AlgebraicError.divisionByZero),
        ("1 / (1 + pi)", AlgebraicError.unsupported("division by a sum in which π appears in some terms only")),
        ("2^100000", AlgebraicError.tooLarge),
    ])
    func refusesWhatItCannotEvaluate(_ expression: String, _ error: AlgebraicError) {
        #expect(throws: error) { try Self.value(expression) }
    }

    @Test(arguments: [
        ("12 cm", "12"), ("٣٫٥ سم", "٣٫٥"), ("30°", "30"), ("25%", "25"), ("$2\\sqrt{3}$", "2\\sqrt{3}"),
        ("x = 5", "5"), ("9π cm²", "9π"), ("9π", "9π"), ("48 m^2", "48"), ("\\(4\\,\\text{cm}\\)", "4\\,"),
        ("س = ٤", "٤"), ("1/4", "1/4"), ("12 square units", "12"), ("١٢٥ cm^٢", "١٢٥"), ("٣٢ سم²", "٣٢"), ("$٢٠", "٢٠"), ("€3.50", "3.50"),
    ])
    func optionsLoseTheirUnit(_ option: String, _ expected: String) {
        #expect(QuantitativeExpression.strippingUnit(option) == expected)
    }

    @Test func optionValuesReadBothDigitSystems() throws {
        #expect(try QuantitativeExpression.optionValue("٢√٣") == Self.value("sqrt(12)"))
        #expect(try QuantitativeExpression.optionValue("١٢ سم") == AlgebraicValue(12))
        #expect(try QuantitativeExpression.optionValue("٠٫٦٢٥") == Self.value("5/8"))
        #expect(try QuantitativeExpression.optionValue("\\(\\frac{5}{8}\\)") == Self.value("0.625"))
    }

    // MARK: The key check

    @Test func aCorrectItemHasNoProblems() {
        #expect(QuantitativeKeyCheck.problems(solution: "(180 - 175) / 8", options: ["0.625", "0.5", "5", "1.25"], key: 0).isEmpty)
        #expect(QuantitativeKeyCheck.problems(solution: "sqrt(12)", options: ["\\(3\\sqrt{2}\\)", "\\(2\\sqrt{3}\\)", "6", "4"], key: 1).isEmpty)
    }

    @Test func aWrongKeyNamesTheOptionThatIsRight() throws {
        let problems = QuantitativeKeyCheck.problems(solution: "2^-2", options: ["4", "1/4", "-4", "1/2"], key: 0)
        #expect(problems.count == 1)
        let message = try #require(problems.first)
        #expect(message.contains("the answer key is wrong"))
        #expect(message.contains("option B"))
        #expect(message.contains("1/4"))
    }

    @Test func noOptionEqualToTheSolutionIsRefused() throws {
        let problems = QuantitativeKeyCheck.problems(solution: "7 * 8", options: ["54", "58", "64", "48"], key: 0)
        #expect(problems.count == 1)
        #expect(try #require(problems.first).contains("no option equals the solution: 7 * 8 = 56"))
    }

    @Test func anOptionEquivalentToTheKeyIsASecondCorrectAnswer() throws {
        let problems = QuantitativeKeyCheck.problems(solution: "sqrt(12)", options: ["2√3", "√12", "3√2", "6"], key: 0)
        #expect(problems.count == 1)
        #expect(try #require(problems.first).contains("option B ('√12') also equals 2√3"))
    }

    @Test func theSameDistractorTwiceIsRefused() throws {
        let problems = QuantitativeKeyCheck.problems(solution: "3^2", options: ["9", "0.5", "1/2", "6"], key: 0)
        #expect(problems.count == 1)
        #expect(try #require(problems.first).contains("option B ('0.5') and option C ('1/2') have the same value 1/2"))
    }

    @Test func unreadableSolutionsAndOptionsAreRefusedWithTheSyntax() throws {
        let solution = QuantitativeKeyCheck.problems(solution: "the area is 12", options: ["12", "13", "14", "15"], key: 0)
        #expect(try #require(solution.first).contains("sqrt(x), cbrt(x), root(x, n), pi"))
        let option = QuantitativeKeyCheck.problems(solution: "12", options: ["12", "thirteen", "14", "15"], key: 0)
        #expect(try #require(option.first).contains("option B ('thirteen')"))
    }

    // MARK: Digits

    @Test func digitsAreWrittenInTheExamsSystem() {
        #expect(DigitSystem.eastern.apply(to: "3.5 cm, 1,250 and 2√3; \\frac{1}{2}. Done.") == "٣٫٥ cm, ١٬٢٥٠ and ٢√٣; \\frac{١}{٢}. Done.")
        #expect(DigitSystem.western.apply(to: "٣٫٥ سم و ١٬٢٥٠") == "3.5 سم و 1,250")
        #expect(DigitSystem.eastern.apply(to: "1, 2, 3") == "١, ٢, ٣", "a list's commas are not thousands separators")
        #expect(DigitSystem.default(language: "ar") == .eastern)
        #expect(DigitSystem.default(language: "en") == .western)
    }

    @Test func anEasternItemHasTheSameValues() throws {
        for option in ["3.5", "1,250", "2√3", "\\(\\frac{5}{8}\\)"] {
            #expect(try QuantitativeExpression.optionValue(DigitSystem.eastern.apply(to: option)) == QuantitativeExpression.optionValue(option))
        }
    }

    /// Small models write the result after the calculation ("(15 + 3) / 2 = 9") or name it first
    /// ("x = 3 * 4"): the calculation is evaluated, and a stated result must agree with it.
    @Test func aSolutionWithItsResultIsReadAndHeldToIt() throws {
        func parts(_ text: String) -> [String] {
            let (expression, stated) = QuantitativeExpression.solutionParts(text)
            return [expression] + stated
        }
        #expect(parts("(15 + 3) / 2 = 9") == ["(15 + 3) / 2", "9"])
        #expect(parts("(4 * 3)/2 = 6 = 6") == ["(4 * 3)/2", "6", "6"])
        #expect(parts("x = 3 * 4") == ["3 * 4"])
        #expect(parts("sqrt(12)") == ["sqrt(12)"])
        #expect(parts("12 سم") == ["12"])
        #expect(parts("4 * 3 = 12 cm") == ["4 * 3", "12"])
        #expect(QuantitativeKeyCheck.problems(solution: "(4 * 3)/2 = 6 = 6", options: ["6", "12", "7", "24"], key: 0).isEmpty)
        #expect(QuantitativeKeyCheck.problems(solution: "(15 + 3) / 2 = 9", options: ["9", "8", "18", "6"], key: 0).isEmpty)
        let false_ = QuantitativeKeyCheck.problems(solution: "3 - 1 = 3", options: ["2", "3", "4", "1"], key: 0)
        #expect(false_ == ["the solution '3 - 1 = 3' is false: 3 - 1 = 2, not 3; write the calculation alone, and make the correct option its value"])
    }

    // MARK: The solution computes what the stem asks

    /// Recorded on the local model: "20% of 100" keyed 40 with the solution (2/5) * 100, and
    /// "the value of √123" keyed 5 with the solution 5. Key and solution agree; neither is the
    /// question's calculation.
    @Test func aSolutionMustBeTheQuestionsOwnCalculation() {
        #expect(
            QuantitativeKeyCheck.groundingProblems(solution: "(2/5) * 100", stem: "إذا كان عدد 20% من 100 هو:") == [
                "the solution '(2/5) * 100' uses 5, which the question does not give: write the calculation from the numbers the question states, so that it computes what the question asks"
            ])
        #expect(QuantitativeKeyCheck.groundingProblems(solution: "5", stem: "أوجد قيمة √123").first?.contains("is only a number") == true)
        #expect(QuantitativeKeyCheck.groundingProblems(solution: "20 / 100 * 100", stem: "إذا كان عدد 20% من 100 هو:") == [])
        #expect(QuantitativeKeyCheck.groundingProblems(solution: "0.2 * 150", stem: "What is 20% of 150?") == [])
        #expect(QuantitativeKeyCheck.groundingProblems(solution: "1/2 * 6 * 4", stem: "A triangle has base ٦ cm and height ٤ cm. Its area?") == [])
        #expect(QuantitativeKeyCheck.groundingProblems(solution: "sqrt(4^2 + 3^2)", stem: "AB = 4, BC = 3. What is AC?") == [])
        #expect(QuantitativeKeyCheck.groundingProblems(solution: "pi * 5^2", stem: "The figure shows a circle.", given: [5]) == [])
    }

    @Test func arabicItemsAreInArabic() {
        func item(_ prompt: String) -> ExamItem {
            ExamItem(
                id: "q", section: "s", category: "c", difficulty: .easy, difficultyLabel: "سهل", prompt: prompt,
                options: [Choice(text: "6", correct: true, feedback: "صحيح")], explanation: "الجذر التربيعي للعدد ٣٦ هو ٦.", seconds: 60,
                sources: [], passage: nil, generation: GenerationInfo(attempts: 1, model: "m", prompt: "p@1"))
        }
        #expect(
            ExamRules.languageIssues(item("Calculate the value of √36."), language: "ar").map(\.message) == [
                "the stem is not in Arabic: write the question, its answers, feedback and explanation in Arabic"
            ])
        #expect(
            ExamRules.languageIssues(item("أوجد طول hypotenuse في المثلث"), language: "ar").map(\.message) == [
                "the stem mixes an English word ('hypotenuse') into Arabic: write it in Arabic"
            ])
        #expect(ExamRules.languageIssues(item("أوجد قيمة \\(\\sqrt{36}\\) بالسنتيمتر cm"), language: "ar").isEmpty)
        #expect(ExamRules.languageIssues(item("Calculate √36."), language: "en").isEmpty)
        #expect(ExamRules.languageIssues(item("في المثلث \\triangle ABC القائم"), language: "ar").isEmpty, "a TeX command is not an English word")
    }
}
