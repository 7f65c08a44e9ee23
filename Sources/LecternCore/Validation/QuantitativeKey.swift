import Foundation

// Answer keys that are computed, not believed: a quantitative item comes with its solution as an
// expression, Lectern evaluates it exactly, and the keyed option must be the only option equal to
// it. The syntax is documented in docs/spec.md ("Quantitative items").

extension ArithmeticNode {
    /// The numbers written as operands: not exponents, root degrees or a binomial's arguments.
    func operandLiterals() -> [NumberLiteral] {
        switch self {
        case .number(let literal): [literal]
        case .pi: []
        case .negate(let inner), .percent(let inner), .factorial(let inner): inner.operandLiterals()
        case .chain(let first, let steps): first.operandLiterals() + steps.flatMap { $0.operand.operandLiterals() }
        case .power(let base, _): base.operandLiterals()
        case .root(let radicand, _): radicand.operandLiterals()
        case .binomial(let n, let k): n.operandLiterals() + k.operandLiterals()
        }
    }

    /// The exact value in `AlgebraicValue`'s form.
    func algebraic() throws -> AlgebraicValue {
        switch self {
        case .number(let literal):
            return AlgebraicValue(literal.value)
        case .pi:
            return .pi
        case .negate(let inner):
            return try inner.algebraic().negated
        case .percent(let inner):
            return try inner.algebraic().divided(by: AlgebraicValue(100))
        case .chain(let first, let steps):
            var result = try first.algebraic()
            for step in steps {
                let operand = try step.operand.algebraic()
                switch step.operation {
                case .add: result = try result.adding(operand)
                case .subtract: result = try result.subtracting(operand)
                case .multiply: result = try result.multiplied(by: operand)
                case .divide: result = try result.divided(by: operand)
                }
            }
            return result
        case .power(let base, let exponent):
            guard let power = try exponent.algebraic().rational else {
                throw AlgebraicError.unsupported("an exponent that is not a rational number")
            }
            let value = try base.algebraic()
            if value.isZero, power.isNegative { throw AlgebraicError.divisionByZero }
            if value.isZero, power.isZero { throw AlgebraicError.unsupported("0 to the power 0") }
            return try value.power(power)
        case .root(let radicand, let degree):
            guard let n = try degree.algebraic().rational?.intValue, n >= 1 else {
                throw AlgebraicError.unsupported("a root whose degree is not a whole number")
            }
            return try radicand.algebraic().root(n)
        case .factorial(let inner):
            guard let whole = try inner.algebraic().rational, let value = whole.factorial() else {
                throw AlgebraicError.unsupported("a factorial of something other than a whole number up to 450")
            }
            return AlgebraicValue(value)
        case .binomial(let n, let k):
            guard let a = try n.algebraic().rational, let b = try k.algebraic().rational, let value = ExactRational.binomial(a, b) else {
                throw AlgebraicError.unsupported("a binomial coefficient of something other than whole numbers")
            }
            return AlgebraicValue(value)
        }
    }
}

public enum QuantitativeExpression {
    /// The exact value of a solution: "(180 - 175)/8", "sqrt(12) + 2^-2", "pi * 3^2",
    /// "\frac{1}{\sqrt{3} - 1}", with Western or Eastern Arabic digits.
    public static func evaluate(_ expression: String) throws -> AlgebraicValue {
        guard let node = ArithmeticClaims.parse(expression) else { throw AlgebraicError.unreadable }
        return try node.algebraic()
    }

    /// The expression of a solution written as a calculation with its result ("(15 + 3) / 2 = 9")
    /// or with a name ("x = 3 * 4"): the side to evaluate, and the other side when it is a stated
    /// result to hold it to. A solution without "=" is itself.
    public static func solutionParts(_ solution: String) -> (expression: String, stated: [String]) {
        let text = solution.trimmingCharacters(in: .whitespacesAndNewlines)
        // A unit after a side ("12 cm") is the question's, not the calculation's.
        let sides = text.split(separator: "=", omittingEmptySubsequences: false).map { strippingUnit(String($0)) }
        guard sides.count >= 2, sides.allSatisfy({ !$0.isEmpty }) else { return (sides.count == 1 ? sides[0] : text, []) }
        // "(4 * 3) / 2 = 6 = 6": the calculation, then results; "x = 3 * 4": a name, then the calculation.
        guard let first = sides.firstIndex(where: { (try? evaluate($0)) != nil }) else { return (text, []) }
        return (sides[first], Array(sides[(first + 1)...]))
    }

    /// The value of an option as an exam writes it: a number or exact expression, perhaps in math
    /// delimiters, perhaps after "x =" and before a unit ("12 cm²", "٣٫٥ سم", "30°", "25%"). The
    /// unit is the option's, not part of the value: a percentage option is compared as the number
    /// before its sign, so the solution gives the value in the options' unit.
    public static func optionValue(_ option: String) throws -> AlgebraicValue {
        try evaluate(strippingUnit(option))
    }

    /// The option's number or expression without a leading "x =" and a trailing unit.
    static func strippingUnit(_ option: String) -> String {
        // Math delimiters around the whole option.
        var scalars = Array(ArithmeticClaims.withoutMathDelimiters(BidiMath.removingControls(option)).body.unicodeScalars)
        // A currency sign before the number ("$20", "€3.50") is a unit.
        while let first = scalars.first, "$€£¥".unicodeScalars.contains(first), scalars.count > 1,
            ArithmeticLexer.digitValue(scalars[1]) != nil
        {
            scalars.removeFirst()
        }
        // "x = 5", "س = ٥": a single-letter name and an equals sign.
        if let equals = scalars.firstIndex(of: "="), equals <= 4,
            scalars[..<equals].allSatisfy({ ArithmeticLexer.isLetter($0) || $0 == " " }),
            scalars[..<equals].contains(where: ArithmeticLexer.isLetter)
        {
            scalars = Array(scalars[(equals + 1)...])
        }
        // A trailing unit: words (any script, with ² ³ or ^2 after them), a degree, percent or
        // per-mille sign, TeX's \text{…}, \% and ^\circ.
        var text2 = String(String.UnicodeScalarView(scalars)).trimmingCharacters(in: .whitespaces)
        let unitPatterns = [
            #"\s*\\(text|mathrm)\{[^{}]*\}\s*(\^?\{?[23٢٣]\}?|[²³])?$"#,
            #"\s*\^\{?\\circ\}?$"#,
            #"\s*\\%$"#,
            #"\s*[%٪‰°]$"#,
            #"(\s+|(?<=[0-9٠-٩)}]))[\p{L}][\p{L}\p{M}.]*(\s*[²³]|\^\{?[23٢٣]\}?)?$"#,
        ]
        var changed = true
        while changed {
            changed = false
            for pattern in unitPatterns {
                guard let range = text2.range(of: pattern, options: .regularExpression), range.lowerBound > text2.startIndex else { continue }
                let unit = String(text2[range]).trimmingCharacters(in: .whitespaces)
                // π is a value, not a unit.
                if ["π", "pi", "\\pi"].contains(unit) { continue }
                text2 = String(text2[..<range.lowerBound]).trimmingCharacters(in: .whitespaces)
                changed = true
            }
        }
        return text2
    }
}

/// What the exact key check found wrong with one item.
public enum QuantitativeKeyCheck {
    /// Numbers a calculation may use that a question need not state: halves (a triangle's area),
    /// 100 (a percentage), 180 and 360 (angles), and 1 and 2.
    static let conventionalNumbers = Set([1, 2, 100, 180, 360].map { AlgebraicValue($0) })

    /// Whether the solution is a calculation from the question: not a bare number (that is the
    /// key restated, taken on trust), and using only numbers the stem (or the figure) gives, apart
    /// from exponents, root degrees and `conventionalNumbers`. A solution that brings its own
    /// numbers computes something other than what the question asks ("20% of 100" solved as
    /// (2/5) × 100).
    public static func groundingProblems(solution: String, stem: String, given: [Double] = []) -> [String] {
        let expression = QuantitativeExpression.solutionParts(solution).expression
        guard let node = ArithmeticClaims.parse(expression) else { return [] }
        if node.isBareNumber {
            return [
                "the solution '\(solution)' is only a number: write the calculation that gets the answer from the question's numbers, "
                    + "such as 20 / 100 * 150"
            ]
        }
        var stated = Set<AlgebraicValue>()
        let scalars = Array(stem.unicodeScalars)
        for token in ArithmeticLexer.tokens(scalars, in: 0..<scalars.count, prose: true) {
            if case .number(let literal) = token.kind { stated.insert(AlgebraicValue(literal.value)) }
        }
        for value in given {
            if let exact = ExactRational(decimal: GeometryFigure.number(value)) { stated.insert(AlgebraicValue(exact)) }
        }
        var foreign: [String] = []
        for literal in node.operandLiterals() {
            let value = AlgebraicValue(literal.value)
            guard !stated.contains(value), !conventionalNumbers.contains(value) else { continue }
            // 0.2 for "20%" and 20 for "0.2" say the same number.
            if stated.contains(where: { (try? $0.multiplied(by: AlgebraicValue(100))) == value || (try? value.multiplied(by: AlgebraicValue(100))) == $0 }) {
                continue
            }
            let text = literal.value.description
            if !foreign.contains(text) { foreign.append(text) }
        }
        guard !foreign.isEmpty else { return [] }
        return [
            "the solution '\(solution)' uses \(foreign.joined(separator: ", ")), which the question does not give: write the calculation "
                + "from the numbers the question states, so that it computes what the question asks"
        ]
    }

    /// Problems with a keyed item whose solution is `solution`: an expression that cannot be
    /// evaluated, an option that cannot be read, a key that is not the solution's value, a second
    /// option equal to it, two options with one value. Messages name the options by letter and
    /// give the exact values, so that a repair prompt can say what to fix.
    /// `names`: how the messages call each option (the answer's field names, so that the model
    /// knows which of its answers is meant); "option A", "option B" … by default.
    public static func problems(solution: String, options: [String], key: Int, names: [String]? = nil) -> [String] {
        let letters =
            names.flatMap { $0.count == options.count ? $0 : nil }
            ?? options.indices.map { "option " + String(UnicodeScalar(UInt8(65 + min($0, 25)))) }
        let value: AlgebraicValue
        let (expression, stated) = QuantitativeExpression.solutionParts(solution)
        do {
            value = try QuantitativeExpression.evaluate(expression)
        } catch let error as AlgebraicError {
            return [
                "the solution expression '\(solution)' cannot be evaluated: \(error). Write it with numbers, + - * / ^, "
                    + "sqrt(x), cbrt(x), root(x, n), pi and parentheses, e.g. (180 - 175) / 8 or 2 * sqrt(3)"
            ]
        } catch {
            return ["the solution expression '\(solution)' cannot be evaluated"]
        }
        var values = [AlgebraicValue?]()
        var problems = [String]()
        if let statedValue = stated.lazy.compactMap({ try? QuantitativeExpression.evaluate($0) }).first(where: { $0 != value }) {
            problems.append(
                "the solution '\(solution)' is false: \(expression) = \(value), not \(statedValue); write the calculation alone, and "
                    + "make the correct option its value")
        }
        for (index, option) in options.enumerated() {
            do {
                values.append(try QuantitativeExpression.optionValue(option))
            } catch {
                values.append(nil)
                problems.append(
                    "\(letters[index]) ('\(option)') is not a number or exact expression: write every option of a "
                        + "quantitative item as a number or expression (2√3, 3/4, 12 cm), not words")
            }
        }
        guard problems.isEmpty else { return problems }
        let equal = values.indices.filter { values[$0] == value }
        if key >= 0, key < values.count, values[key] != value {
            let keyed = values[key].map { "\($0)" } ?? "?"
            if let other = equal.first {
                problems.append(
                    "the answer key is wrong: the solution \(solution) equals \(value), which is \(letters[other]) "
                        + "('\(options[other])'), not the keyed \(letters[key]) (\(keyed)); key the option that equals the solution, "
                        + "or correct the solution")
            } else {
                problems.append(
                    "no option equals the solution: \(solution) = \(value), but the keyed \(letters[key]) is \(keyed); "
                        + "make the correct option equal the solution's value")
            }
        }
        let others = equal.filter { $0 != key }
        if values.indices.contains(key), values[key] == value, !others.isEmpty {
            let names = others.map { "\(letters[$0]) ('\(options[$0])')" }.joined(separator: " and ")
            problems.append(
                "\(names) also equals \(value), like the keyed \(letters[key]) ('\(options[key])'): an option "
                    + "equivalent to the key is a second correct answer; change it to a different value")
        }
        // Two wrong options with one value: the same distractor twice.
        var seen = [AlgebraicValue: Int]()
        for (index, candidate) in values.enumerated() {
            guard let candidate, candidate != value else { continue }
            if let first = seen[candidate] {
                problems.append(
                    "\(letters[first]) ('\(options[first])') and \(letters[index]) ('\(options[index])') have the same value "
                        + "\(candidate): each option must be a different number")
            } else {
                seen[candidate] = index
            }
        }
        return problems
    }
}
