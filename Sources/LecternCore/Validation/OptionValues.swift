import Foundation

/// Options a check can work out, and a second option that answers the question as the key does:
/// more than one correct option, shown by computing.
///
/// - **Calculations.** A stem holding one number ("Quelle expression vaut 10 ?", "Which expression
///   equals 12?") whose options are calculations, keyed by one that equals that number: another
///   calculation equal to it ("20 / 2" beside the keyed "5 * 2") is right too. Any language.
/// - **Kinds of whole number.** A stem asking for an even, odd or prime number (the language's
///   words, `LanguageProfile.numberKinds`; none when a negation is in it, nor when the stem has
///   numbers of its own to work with: "the smallest prime whose digits sum to 19") whose options are whole
///   numbers: every option of that kind is right ("١٤" beside the keyed "٨" for "أي الأعداد الآتية
///   عدد زوجي؟").
/// - **Python values.** An English stem asking which value is a string, an integer, a float, a
///   list, a dictionary, a tuple, a set or a Boolean, whose options are all Python literals: every
///   option of that type is right (`"hello"` beside the keyed `'abc'`).
///
/// A key that is not of the kind asked (an odd number for "even", `42` for "a string"), beside an
/// option that is, is reported as a wrong key; a calculation is judged only when the key equals
/// the stem's number. Filed under `answer-key`, in a run and in `lectern check`.
public enum OptionValues {
    public static func issues(prompt: String, options: [Choice], labels: [String], language: String) -> [ValidationIssue] {
        guard options.count >= 2, options.filter(\.correct).count == 1, let key = options.firstIndex(where: \.correct) else { return [] }
        let labels = labels.count == options.count ? labels : options.indices.map { "option \($0 + 1)" }
        let answers: [Bool]
        let asked: String
        if let (flags, what) = calculations(prompt: prompt, options: options.map(\.text)) {
            // Only a keyed calculation equal to the stem's number says the question asks for that
            // value: "the probability of a 6" keyed 1/6 beside an option 6 asks something else.
            guard flags[key] else { return [] }
            (answers, asked) = (flags, what)
        } else if let (flags, what) = wholeNumbers(prompt: prompt, options: options.map(\.text), language: language) {
            (answers, asked) = (flags, what)
        } else if let (flags, what) = pythonValues(prompt: prompt, options: options.map(\.text), language: language) {
            (answers, asked) = (flags, what)
        } else {
            return []
        }
        let others = options.indices.filter { $0 != key && answers[$0] }
        guard !others.isEmpty else { return [] }
        let names = others.map { "\(labels[$0]) ('\(options[$0].text.trimmed.prefix(60))')" }.joined(separator: " and ")
        if answers[key] {
            return [
                .error(
                    "\(names) \(others.count == 1 ? "is" : "are") \(asked) too, like the keyed \(labels[key]) ('\(options[key].text.trimmed.prefix(60))'): "
                        + "a second correct answer; change \(others.count == 1 ? "it" : "them") so that only the key answers the question",
                    check: .answerKey)
            ]
        }
        return [
            .error(
                "the answer key is wrong: the keyed \(labels[key]) ('\(options[key].text.trimmed.prefix(60))') is not \(asked), but \(names) \(others.count == 1 ? "is" : "are"); "
                    + "key the option that answers the question", check: .answerKey)
        ]
    }

    // MARK: Calculations

    /// Which options equal the stem's one number, when every option is a number or a calculation
    /// and at least two are calculations; nil when the rule does not apply.
    static func calculations(prompt: String, options: [String]) -> ([Bool], String)? {
        let numbers = Set(numberRuns(in: prompt))
        guard numbers.count == 1, let target = numbers.first.flatMap({ ArithmeticClaims.evaluate($0) }) else { return nil }
        var values: [ExactValue] = []
        var calculations = 0
        for option in options {
            let text = unquoted(option)
            guard text.contains(where: \.isNumber), !text.contains(where: \.isLetter), let value = ArithmeticClaims.evaluate(text) else { return nil }
            // An operator after the first character: "-4" is a number, "20 / 2" a calculation.
            if text.dropFirst().contains(where: { "+-*/×÷^−·".contains($0) }) { calculations += 1 }
            values.append(value)
        }
        guard calculations >= 2 else { return nil }
        return (values.map { same($0, target) }, "equal to \(numbers.first ?? "")")
    }

    private static func same(_ a: ExactValue, _ b: ExactValue) -> Bool {
        if let x = a.rational, let y = b.rational { return x == y }
        return abs(a.doubleValue - b.doubleValue) <= 1e-9 * max(1, abs(b.doubleValue))
    }

    /// The numbers a stem writes in digits (Western or Eastern Arabic), as Western digits; none
    /// inside code spans.
    static func numberRuns(in text: String) -> [String] {
        var out: [String] = []
        var current = ""
        var inCode = false
        for character in text {
            if character == "`" { inCode.toggle() }
            if !inCode, let digit = westernDigit(character) {
                current.append(digit)
            } else if character == ".", !current.isEmpty, !current.contains(".") {
                current.append(".")
            } else {
                if !current.isEmpty { out.append(current.hasSuffix(".") ? String(current.dropLast()) : current) }
                current = ""
            }
        }
        if !current.isEmpty { out.append(current.hasSuffix(".") ? String(current.dropLast()) : current) }
        return out
    }

    /// `character` as a Western digit, when it is a digit of either system (`ArithmeticLexer.digitValue`).
    private static func westernDigit(_ character: Character) -> Character? {
        guard character.unicodeScalars.count == 1, let value = ArithmeticLexer.digitValue(character.unicodeScalars.first) else { return nil }
        return Character(UnicodeScalar(UInt8(ascii: "0") + value))
    }

    /// An option without its code or math marks and its closing full stop.
    private static func unquoted(_ option: String) -> String {
        var text = option.trimmed
        if text.hasSuffix("."), !text.hasSuffix("..") { text.removeLast() }
        if text.count >= 2, text.first == "`", text.last == "`" { text = String(text.dropFirst().dropLast()).trimmed }
        return text
    }

    // MARK: Kinds of whole number

    /// Which options are of the kind of whole number the stem asks for; nil when the rule does
    /// not apply (no such word, a negation, an option that is not a whole number).
    static func wholeNumbers(prompt: String, options: [String], language: String) -> ([Bool], String)? {
        // A stem with numbers of its own asks to work something out from them, and the kind is a
        // condition of the working, not the option asked for: "the smallest prime whose digits
        // sum to 19" (199, beside 5, 11 and 17), "how many odd perfect squares are between 5 and
        // 211" (a count, 6).
        guard numberRuns(in: prompt).isEmpty, let profile = LanguageProfile.for(language), !profile.numberKinds.isEmpty else { return nil }
        let words = prompt.lowercased().split(whereSeparator: { !$0.isLetter && $0 != "'" && $0 != "’" }).map { profile.fold(String($0)) }
        guard !words.contains(where: { profile.negations.contains($0) || $0.hasSuffix("n't") }) else { return nil }
        let kinds = Set(
            words.compactMap { word -> LanguageProfile.NumberKind? in
                profile.numberKinds[word] ?? (word.hasPrefix("ال") ? profile.numberKinds[String(word.dropFirst(2))] : nil)
            })
        guard kinds.count == 1, let kind = kinds.first else { return nil }
        var flags: [Bool] = []
        for option in options {
            let text = unquoted(option)
            guard !text.isEmpty, text.count <= 12, let value = Int(String(text.compactMap(westernDigit))), text.allSatisfy({ westernDigit($0) != nil }) else {
                return nil
            }
            let isOfKind =
                switch kind {
                case .even: value % 2 == 0
                case .odd: value % 2 != 0
                case .prime: isPrime(value)
                }
            flags.append(isOfKind)
        }
        return (flags, "\(kind == .even ? "an even" : kind == .odd ? "an odd" : "a prime") number")
    }

    private static func isPrime(_ n: Int) -> Bool {
        guard n >= 2 else { return false }
        var d = 2
        while d * d <= n {
            if n % d == 0 { return false }
            d += 1
        }
        return true
    }

    // MARK: Python values

    /// A Python literal's type.
    enum PythonType: String, CaseIterable {
        case string = "a string", integer = "an integer", float = "a float", list = "a list", dictionary = "a dictionary", tuple = "a tuple",
            set = "a set", boolean = "a Boolean", none = "None"
    }

    /// The words an English stem names a type with.
    private static let typeWords: [String: PythonType] = [
        "string": .string, "str": .string, "integer": .integer, "int": .integer, "float": .float, "list": .list, "dictionary": .dictionary,
        "dict": .dictionary, "tuple": .tuple, "set": .set, "boolean": .boolean, "bool": .boolean,
    ]

    /// Which options are literals of the type the stem asks for ("Which of these values is a
    /// string?"); nil when the rule does not apply.
    static func pythonValues(prompt: String, options: [String], language: String) -> ([Bool], String)? {
        // Numbers of the stem's own (outside code) are worked with: "the least positive integer
        // n such that √(18·n·34) is an integer" asks for one value, not for the options' type.
        guard LanguageProfile.isEnglish(language) || language.isEmpty, numberRuns(in: prompt).isEmpty else { return nil }
        let lower = prompt.lowercased()
        let words = lower.split(whereSeparator: { !$0.isLetter && $0 != "'" }).map(String.init)
        guard words.contains(where: { ["which", "what"].contains($0) }), !words.contains(where: { LanguageProfile.english.negations.contains($0) }) else { return nil }
        // "is a string", "is an integer", "of type str": the type the value must be.
        var asked: PythonType?
        for (index, word) in words.enumerated() {
            guard let type = typeWords[word], index > 0 else { continue }
            let before = words[index - 1]
            guard ["a", "an", "type"].contains(before) else { continue }
            if asked != nil, asked != type { return nil }
            asked = type
        }
        guard let asked else { return nil }
        var flags: [Bool] = []
        for option in options {
            guard let type = pythonType(of: unquotedCode(option)) else { return nil }
            flags.append(type == asked)
        }
        return (flags, asked.rawValue)
    }

    /// An option without backticks around it.
    private static func unquotedCode(_ option: String) -> String {
        var text = option.trimmed
        if text.count >= 2, text.first == "`", text.last == "`" { text = String(text.dropFirst().dropLast()).trimmed }
        return text
    }

    /// The type of a Python literal; nil for anything else (a name, an expression, words).
    static func pythonType(of text: String) -> PythonType? {
        guard let first = text.first, let last = text.last else { return nil }
        if text.count >= 2, first == last, first == "'" || first == "\"" {
            // One string: no unescaped quote of its kind inside.
            let inner = text.dropFirst().dropLast()
            return inner.contains(first) ? nil : .string
        }
        if text == "True" || text == "False" { return .boolean }
        if text == "None" { return PythonType.none }
        let number = text.hasPrefix("-") || text.hasPrefix("+") ? String(text.dropFirst()) : text
        if !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "_") }), number.first?.isNumber == true { return .integer }
        if !number.isEmpty, Double(number.replacingOccurrences(of: "_", with: "")) != nil, number.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }),
            number.allSatisfy({ $0.isASCII && ($0.isNumber || ".eE+-_".contains($0)) })
        {
            return .float
        }
        let brackets: [Character: (Character, PythonType)] = ["[": ("]", .list), "(": (")", .tuple), "{": ("}", .dictionary)]
        if let (close, type) = brackets[first], last == close {
            let inner = text.dropFirst().dropLast().trimmed
            switch type {
            case .tuple:
                // "(1)" is a number in parentheses; "(1,)" and "(1, 2)" are tuples.
                return inner.isEmpty || inner.contains(",") ? .tuple : nil
            case .dictionary:
                return inner.isEmpty || inner.contains(":") ? .dictionary : .set
            default:
                return type
            }
        }
        return nil
    }
}
