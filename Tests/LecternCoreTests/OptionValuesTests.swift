import Testing

@testable import LecternCore

/// A second option that answers the question as the key does, shown by computing (issue 48: more
/// than one correct option).
struct OptionValuesTests {
    static func choices(_ texts: [String], key: Int = 0) -> [Choice] {
        texts.enumerated().map { Choice(text: $1, correct: $0 == key, feedback: "Because of what \($1) is.") }
    }

    static func issues(_ prompt: String, _ texts: [String], key: Int = 0, language: String = "en") -> [ValidationIssue] {
        OptionValues.issues(prompt: prompt, options: choices(texts, key: key), labels: texts.indices.map { "option \($0 + 1)" }, language: language)
    }

    @Test(arguments: [
        // The labelled set's hand-written items h-mc-06, h-mc-07 and h-mc-05.
        ("Quelle expression vaut 10 ?", ["5 * 2", "20 / 2", "5 + 2", "5 - 2"], "fr", "option 2 ('20 / 2') is equal to 10 too"),
        ("أي الأعداد الآتية عدد زوجي؟", ["٨", "١٤", "٧", "٩"], "ar", "option 2 ('١٤') is an even number too"),
        ("Which of these values is a string in Python?", ["'abc'", "\"hello\"", "42", "4.2"], "en", "option 2 ('\"hello\"') is a string too"),
        ("Which expression equals 12?", ["`3 * 4`", "`2 * 6`", "`3 + 4`", "`12 / 2`"], "en", "option 2 ('`2 * 6`') is equal to 12 too"),
        ("Which of these numbers is prime?", ["7", "11", "9", "15"], "en", "option 2 ('11') is a prime number too"),
        ("Which value is a list?", ["[1, 2]", "[]", "(1, 2)", "{1: 2}"], "en", "option 2 ('[]') is a list too"),
    ])
    func aSecondOptionOfTheKindAskedIsFound(_ prompt: String, _ texts: [String], _ language: String, _ expected: String) throws {
        let issue = try #require(Self.issues(prompt, texts, language: language).first, "\(prompt)")
        #expect(issue.check == .answerKey)
        #expect(issue.message.contains(expected), "\(issue.message)")
    }

    @Test func aKeyOfAnotherKindIsAWrongKey() throws {
        let issue = try #require(Self.issues("Which of these numbers is odd?", ["8", "7", "4", "10"]).first)
        #expect(issue.message.hasPrefix("the answer key is wrong: the keyed option 1 ('8') is not an odd number, but option 2 ('7') is"), "\(issue.message)")
        let type = try #require(Self.issues("Which of these is a string?", ["42", "'42'", "4.2", "True"]).first)
        #expect(type.message.contains("is not a string, but option 2 (''42'') is"), "\(type.message)")
    }

    @Test(arguments: [
        // One right answer.
        ("Quelle expression vaut 10 ?", ["5 * 2", "20 / 4", "5 + 2", "5 - 2"], "fr"),
        ("Which of these numbers is even?", ["8", "7", "9", "11"], "en"),
        ("Which value is falsy in Python?", ["''", "'0'", "[0]", "1"], "en"),
        // The probability of a 6 is not a question about the value 6 (labelled h-ta-02).
        ("Quelle est la probabilité d'obtenir un 6 avec un dé ?", ["1/6", "1/2", "6", "1/36"], "fr"),
        // A negation turns the question round: the rule stands aside.
        ("Which of these numbers is not even?", ["7", "8", "10", "12"], "en"),
        ("Which of these values is not a string?", ["42", "'a'", "\"b\"", "'c'"], "en"),
        // Options that are not all values of the kind the rule reads.
        ("Which of these is even?", ["8", "a dozen", "10", "7"], "en"),
        ("Which line makes a list?", ["xs = [1, 2]", "xs = (1, 2)", "xs = {1, 2}", "xs = '1, 2'"], "en"),
        ("Which expression equals 10?", ["10", "12", "8", "9"], "en"),
        // Two numbers in the stem: which one the options are to equal is not known.
        ("Which expression equals 2 + 8 and is written with 2 terms?", ["5 * 2", "20 / 2", "5 + 5", "6 + 4"], "en"),
        // An option that is not a literal ("(1)" is a number in parentheses): the rule stands aside.
        ("Which value is a tuple?", ["(1, 2)", "(1)", "[1]", "'(1, 2)'"], "en"),
    ])
    func oneRightAnswerPasses(_ prompt: String, _ texts: [String], _ language: String) {
        #expect(Self.issues(prompt, texts, language: language).isEmpty, "\(prompt)")
    }

    @Test func pythonLiteralsAreTyped() {
        #expect(OptionValues.pythonType(of: "'abc'") == .string)
        #expect(OptionValues.pythonType(of: "\"a\"b\"") == nil)
        #expect(OptionValues.pythonType(of: "-12") == .integer)
        #expect(OptionValues.pythonType(of: "1_000") == .integer)
        #expect(OptionValues.pythonType(of: "4.2") == .float)
        #expect(OptionValues.pythonType(of: "1e3") == .float)
        #expect(OptionValues.pythonType(of: "True") == .boolean)
        #expect(OptionValues.pythonType(of: "None") == OptionValues.PythonType.none)
        #expect(OptionValues.pythonType(of: "{}") == .dictionary)
        #expect(OptionValues.pythonType(of: "{1, 2}") == .set)
        #expect(OptionValues.pythonType(of: "(1,)") == .tuple)
        #expect(OptionValues.pythonType(of: "(1)") == nil)
        #expect(OptionValues.pythonType(of: "()") == .tuple)
        #expect(OptionValues.pythonType(of: "x") == nil)
        #expect(OptionValues.pythonType(of: "len(xs)") == nil)
    }
}
