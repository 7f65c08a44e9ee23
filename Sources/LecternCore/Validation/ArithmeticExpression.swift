import Foundation

// Reading arithmetic out of model text, step two: the expression tree of one side, and its exact
// value with the uncertainty that rounded decimals leave in it.

/// One side of a claim, read. Sums and products are flat lists, so that a long sum does not
/// make a deep tree (evaluation recurses only as deep as the brackets nest).
indirect enum ArithmeticNode: Hashable, Sendable {
    enum Operation: Hashable, Sendable { case add, subtract, multiply, divide }

    /// One operation of a chain and its right operand.
    struct Step: Hashable, Sendable {
        var operation: Operation
        var operand: ArithmeticNode
    }

    case number(NumberLiteral)
    case negate(ArithmeticNode)
    /// `first`, then each step from left to right: 1 + 2 − 3, or 2 × 3 ÷ 4.
    case chain(ArithmeticNode, [Step])
    case power(ArithmeticNode, ArithmeticNode)
    case factorial(ArithmeticNode)
    case percent(ArithmeticNode)
    case root(ArithmeticNode, degree: ArithmeticNode)
    case binomial(ArithmeticNode, ArithmeticNode)
    /// π, read only outside prose (see `TokenKind.pi`).
    case pi

    /// A number as written rather than computed: perhaps signed, a percentage, or in scientific
    /// notation (2.5 × 10^8, 10^3). Its last written digit counts in units of `scale`.
    struct StatedNumber {
        var literal: NumberLiteral
        var scale: ExactRational
        var isPercentage: Bool
    }

    var statedNumber: StatedNumber? {
        switch self {
        case .number(let literal):
            return StatedNumber(literal: literal, scale: .one, isPercentage: false)
        case .negate(let inner):
            return inner.statedNumber
        case .percent(.number(let literal)):
            return StatedNumber(literal: literal, scale: ExactRational(1, 100) ?? .one, isPercentage: true)
        case .power(.number(let base), let exponent):
            guard let scale = Self.powerOfTen(base, exponent) else { return nil }
            let one = NumberLiteral(value: .one, decimals: 0, hasPoint: false, significantDigits: 1, plainDigits: "1")
            return StatedNumber(literal: one, scale: scale, isPercentage: false)
        case .chain(.number(let mantissa), let steps):
            guard steps.count == 1, steps[0].operation == .multiply, case .power(.number(let base), let exponent) = steps[0].operand,
                let scale = Self.powerOfTen(base, exponent)
            else { return nil }
            return StatedNumber(literal: mantissa, scale: scale, isPercentage: false)
        default:
            return nil
        }
    }

    /// 10 to a whole power written as a number (10^3, 10^{-3}, 10⁸).
    private static func powerOfTen(_ base: NumberLiteral, _ exponent: ArithmeticNode) -> ExactRational? {
        guard !base.hasPoint, base.value == ExactRational(10) else { return nil }
        let power: ExactRational
        switch exponent {
        case .number(let literal): power = literal.value
        case .negate(.number(let literal)): power = literal.value.negated
        default: return nil
        }
        guard let n = power.intValue, n.magnitude <= 1000 else { return nil }
        return ExactRational(10).power(n)
    }

    /// A bare number (signed or not): "5 = 5" is no claim. A percentage is a conversion, and is one.
    var isBareNumber: Bool {
        switch self {
        case .number: true
        case .negate(let inner): inner.isBareNumber
        default: false
        }
    }

    /// The quotient of two parts: `\frac{a}{b}`, a/b.
    static func quotient(_ top: ArithmeticNode, _ bottom: ArithmeticNode) -> ArithmeticNode {
        .chain(top, [Step(operation: .divide, operand: bottom)])
    }

    /// Whether a division appears anywhere in it.
    var divides: Bool {
        switch self {
        case .number, .pi: false
        case .chain(let first, let steps): first.divides || steps.contains { $0.operation == .divide || $0.operand.divides }
        case .negate(let inner), .factorial(let inner), .percent(let inner): inner.divides
        case .power(let a, let b), .binomial(let a, let b): a.divides || b.divides
        case .root(let a, let degree): a.divides || degree.divides
        }
    }

    /// Whether a percentage appears anywhere in it.
    var containsPercentage: Bool {
        switch self {
        case .number, .pi: false
        case .percent: true
        case .chain(let first, let steps): first.containsPercentage || steps.contains { $0.operand.containsPercentage }
        case .negate(let inner), .factorial(let inner): inner.containsPercentage
        case .power(let a, let b), .binomial(let a, let b): a.containsPercentage || b.containsPercentage
        case .root(let a, let degree): a.containsPercentage || degree.containsPercentage
        }
    }

    /// Only percentages: 20%, 100% + 20%.
    var isPurePercentage: Bool {
        switch self {
        case .percent: true
        case .negate(let inner): inner.isPurePercentage
        case .chain(let first, let steps):
            first.isPurePercentage
                && steps.allSatisfy { ($0.operation == .add || $0.operation == .subtract) && $0.operand.isPurePercentage }
        default: false
        }
    }

    var isPercentage: Bool {
        switch self {
        case .percent: true
        case .negate(let inner): inner.isPercentage
        default: false
        }
    }
}

/// Where the last factor read ends, which decides whether a juxtaposed factor multiplies it:
/// 2(3+4) and 3!2! and (0.5)^6(0.5)^4 do; 2\frac{1}{2} (a mixed number) and 2 3 do not.
private enum FactorEnd { case number, group, factorial, power, command, percent }

/// A recursive-descent reader of one side. Fails (nil) on anything it cannot read whole.
struct ArithmeticParser {
    private var tokens: [Token]
    private var index = 0
    private let prose: Bool
    private var nesting = 0
    private var end = FactorEnd.number
    private static let maxNesting = 32
    private static let maxTokens = 400

    static func parse(_ tokens: ArraySlice<Token>, prose: Bool) -> ArithmeticNode? {
        guard !tokens.isEmpty, tokens.count <= maxTokens else { return nil }
        var parser = ArithmeticParser(tokens: Array(tokens), prose: prose)
        guard let node = parser.expression(), parser.index == parser.tokens.count else { return nil }
        return node
    }

    private init(tokens: [Token], prose: Bool) {
        self.tokens = tokens
        self.prose = prose
    }

    private var next: TokenKind? { index < tokens.count ? tokens[index].kind : nil }

    private mutating func expect(_ kind: TokenKind) -> Bool {
        guard next == kind else { return false }
        index += 1
        return true
    }

    private mutating func expression() -> ArithmeticNode? {
        nesting += 1
        defer { nesting -= 1 }
        guard nesting <= Self.maxNesting, let first = term() else { return nil }
        var steps: [ArithmeticNode.Step] = []
        var percentages = first.isPercentage ? 1 : 0
        while let kind = next, kind == .plus || kind == .minus {
            index += 1
            guard let right = term() else { return nil }
            if right.isPercentage { percentages += 1 }
            steps.append(.init(operation: kind == .plus ? .add : .subtract, operand: right))
        }
        // "100 + 10%" means 110 to most writers and 100.1 to arithmetic: not read.
        if percentages > 0 && percentages < steps.count + 1 { return nil }
        return steps.isEmpty ? first : .chain(first, steps)
    }

    private mutating func term() -> ArithmeticNode? {
        guard let first = unary() else { return nil }
        var steps: [ArithmeticNode.Step] = []
        var divided = false
        while let kind = next {
            if kind == .times || kind == .divide {
                index += 1
                // "25 / 1/3" and "14 / 1 / 4" mean 25 ÷ ⅓ and 14 ÷ ¼ to their writers: two
                // divisions in one term are not read.
                if kind == .divide && divided { return nil }
                guard let right = unary() else { return nil }
                if kind == .divide { divided = true }
                steps.append(.init(operation: kind == .times ? .multiply : .divide, operand: right))
                continue
            }
            guard startsJuxtaposedFactor() else { break }
            // 1/2(3) is read both ways by people: not read.
            if divided { return nil }
            guard let right = unary() else { return nil }
            steps.append(.init(operation: .multiply, operand: right))
        }
        return steps.isEmpty ? first : .chain(first, steps)
    }

    private func startsJuxtaposedFactor() -> Bool {
        guard index < tokens.count else { return false }
        let token = tokens[index]
        if prose && token.spaced { return false }
        switch token.kind {
        case .open(.round), .open(.square), .texRoot, .radical, .binomial, .binomialFunction, .permutationFunction, .rootFunction, .cubeRootFunction,
            .nthRootFunction, .pi:
            return end != .percent
        case .fraction:
            return end != .number && end != .percent
        case .number:
            return end == .factorial
        default:
            return false
        }
    }

    private mutating func unary() -> ArithmeticNode? {
        nesting += 1
        defer { nesting -= 1 }
        guard nesting <= Self.maxNesting else { return nil }
        if expect(.minus) { return unary().map { .negate($0) } }
        if expect(.plus) { return unary() }
        return power()
    }

    private mutating func power() -> ArithmeticNode? {
        guard let base = postfix() else { return nil }
        guard expect(.power) else { return base }
        guard let exponent = prose ? unary() : argument() else { return nil }
        end = .power
        return .power(base, exponent)
    }

    private mutating func postfix() -> ArithmeticNode? {
        guard var node = primary() else { return nil }
        while let kind = next {
            switch kind {
            case .factorial:
                node = .factorial(node)
                end = .factorial
            case .percent:
                node = .percent(node)
                end = .percent
            case .superscript(let exponent):
                node = .power(node, .number(Self.literal(exponent)))
                end = .power
            default:
                return node
            }
            index += 1
        }
        return node
    }

    private static func literal(_ value: Int) -> NumberLiteral {
        NumberLiteral(value: ExactRational(value), decimals: 0, hasPoint: false, significantDigits: 1, plainDigits: nil)
    }

    private mutating func primary() -> ArithmeticNode? {
        guard let kind = next else { return nil }
        switch kind {
        case .number(let literal):
            index += 1
            end = .number
            return .number(literal)
        case .open(let bracket) where bracket != .curly:
            index += 1
            guard let inner = expression() else { return nil }
            var node = inner
            if expect(.choose) {
                guard let k = expression() else { return nil }
                node = .binomial(inner, k)
            }
            guard expect(.close(bracket)) else { return nil }
            end = .group
            return node
        case .fraction, .binomial:
            index += 1
            guard let top = argument(), let bottom = argument() else { return nil }
            end = .command
            return kind == .fraction ? .quotient(top, bottom) : .binomial(top, bottom)
        case .texRoot:
            index += 1
            var degree = ArithmeticNode.number(Self.literal(2))
            if expect(.open(.square)) {
                guard let written = expression(), expect(.close(.square)) else { return nil }
                degree = written
            }
            guard let radicand = argument() else { return nil }
            end = .command
            return .root(radicand, degree: degree)
        case .radical(let degree):
            index += 1
            let radicand: ArithmeticNode
            switch next {
            case .number(let literal):
                index += 1
                radicand = .number(literal)
            case .open(.round):
                guard let group = primary() else { return nil }
                radicand = group
            default:
                return nil
            }
            end = .command
            return .root(radicand, degree: .number(Self.literal(degree)))
        case .binomialFunction:
            index += 1
            guard expect(.open(.round)), let n = expression(), expect(.comma), let k = expression(), expect(.close(.round)) else { return nil }
            end = .group
            return .binomial(n, k)
        case .permutationFunction:
            // P(n, k) = C(n, k) × k!.
            index += 1
            guard expect(.open(.round)), let n = expression(), expect(.comma), let k = expression(), expect(.close(.round)) else { return nil }
            end = .group
            return ArithmeticNode.chain(.binomial(n, k), [ArithmeticNode.Step(operation: .multiply, operand: .factorial(k))])
        case .rootFunction:
            index += 1
            guard expect(.open(.round)), let radicand = expression(), expect(.close(.round)) else { return nil }
            end = .group
            return .root(radicand, degree: .number(Self.literal(2)))
        case .cubeRootFunction:
            index += 1
            guard expect(.open(.round)), let radicand = expression(), expect(.close(.round)) else { return nil }
            end = .group
            return .root(radicand, degree: .number(Self.literal(3)))
        case .nthRootFunction:
            index += 1
            guard expect(.open(.round)), let radicand = expression(), expect(.comma), let degree = expression(), expect(.close(.round))
            else { return nil }
            end = .group
            return .root(radicand, degree: degree)
        case .pi:
            index += 1
            end = .command
            return .pi
        default:
            return nil
        }
    }

    /// A TeX argument: a `{…}` group or a single token. TeX takes one digit from a run of digits
    /// (`\frac12` is ½), so a plain multi-digit number gives its first digit and keeps the rest.
    private mutating func argument() -> ArithmeticNode? {
        guard let kind = next else { return nil }
        switch kind {
        case .open(.group):
            index += 1
            guard let inner = expression(), expect(.close(.group)) else { return nil }
            return inner
        case .number(let literal):
            // 2^1.5, \frac1.5{2} or 2^1,000: TeX would split these oddly.
            guard let digits = literal.plainDigits else { return nil }
            guard digits.count > 1, let firstValue = Int(String(digits.prefix(1))), let rest = ExactRational(decimal: String(digits.dropFirst()))
            else {
                index += 1
                return .number(literal)
            }
            let remainder = String(digits.dropFirst())
            let token = tokens[index]
            tokens[index] = Token(
                kind: .number(
                    NumberLiteral(
                        value: rest, decimals: 0, hasPoint: false, significantDigits: remainder.drop(while: { $0 == "0" }).count,
                        plainDigits: remainder)),
                range: (token.range.lowerBound + 1)..<token.range.upperBound, spaced: false)
            return .number(Self.literal(firstValue))
        default:
            return nil
        }
    }
}

// MARK: - Values with their uncertainty

/// A value and how far it may be from the writer's exact quantity because the numbers it was
/// computed from were rounded when written (0.167 for 1/6). Claims hold within the sum of
/// both sides' uncertainty.
struct Estimate: Sendable {
    var value: ExactValue
    var error: ExactValue

    static func exact(_ value: ExactValue) -> Estimate { Estimate(value: value, error: .exact(.zero)) }
}

extension ExactValue {
    var isZeroValue: Bool {
        switch self {
        case .exact(let value): value.isZero
        case .approximate(let value): value == 0
        }
    }

    var absolute: ExactValue {
        switch self {
        case .exact(let value): .exact(value.magnitude)
        case .approximate(let value): .approximate(abs(value))
        }
    }

    private func combine(
        _ other: ExactValue, _ exact: (ExactRational, ExactRational) -> ExactRational?, _ double: (Double, Double) -> Double
    ) -> ExactValue? {
        if case .exact(let a) = self, case .exact(let b) = other { return exact(a, b).map { .exact($0) } }
        let result = double(doubleValue, other.doubleValue)
        return result.isFinite ? .approximate(result) : nil
    }

    func plus(_ other: ExactValue) -> ExactValue? { combine(other, { $0.adding($1) }, +) }
    func minus(_ other: ExactValue) -> ExactValue? { combine(other, { $0.subtracting($1) }, -) }
    func times(_ other: ExactValue) -> ExactValue? { combine(other, { $0.multiplied(by: $1) }, *) }
    func over(_ other: ExactValue) -> ExactValue? {
        guard !other.isZeroValue else { return nil }
        return combine(other, { $0.divided(by: $1) }, /)
    }

    /// `self <= other`.
    func atMost(_ other: ExactValue) -> Bool {
        if case .exact(let a) = self, case .exact(let b) = other { return !(b < a) }
        return doubleValue <= other.doubleValue
    }

    /// An integer power; nil past the size cap.
    func raised(to exponent: Int) -> ExactValue? {
        switch self {
        case .exact(let value): return value.power(exponent).map { .exact($0) }
        case .approximate(let value):
            let result = pow(value, Double(exponent))
            return result.isFinite ? .approximate(result) : nil
        }
    }

    /// The real `degree`-th root: exact when it is rational; nil for even roots of negatives.
    func root(_ degree: Int) -> ExactValue? {
        if case .exact(let value) = self, let exact = value.exactRoot(degree) { return .exact(exact) }
        let value = doubleValue
        if value < 0 && degree % 2 == 0 { return nil }
        let result = value < 0 ? -pow(-value, 1 / Double(degree)) : pow(value, 1 / Double(degree))
        return result.isFinite ? .approximate(result) : nil
    }
}

extension ArithmeticNode {
    /// The exact value (literals read as exact) with, when `rounding` is on, the uncertainty
    /// left by decimals that may have been rounded. Nil when not computable: division by zero,
    /// a factorial of a fraction, a size past the cap.
    func estimate(rounding: Bool) -> Estimate? {
        switch self {
        case .number(let literal):
            return Estimate(value: .exact(literal.value), error: .exact(rounding ? Self.inputError(literal) : .zero))
        case .pi:
            return nil  // π is exact only in `AlgebraicValue`
        case .negate(let inner):
            guard let inner = inner.estimate(rounding: rounding), let negated = ExactValue.exact(.zero).minus(inner.value) else { return nil }
            return Estimate(value: negated, error: inner.error)
        case .percent(let inner):
            let hundred = ExactValue.exact(ExactRational(100))
            guard let inner = inner.estimate(rounding: rounding), let value = inner.value.over(hundred), let error = inner.error.over(hundred)
            else { return nil }
            return Estimate(value: value, error: error)
        case .chain(let first, let steps):
            guard var result = first.estimate(rounding: rounding) else { return nil }
            for step in steps {
                guard let operand = step.operand.estimate(rounding: rounding), let next = Self.combine(step.operation, result, operand) else {
                    return nil
                }
                result = next
            }
            return result
        case .power(let base, let exponent):
            guard let base = base.estimate(rounding: rounding), let exponent = exponent.estimate(rounding: rounding) else { return nil }
            return Self.power(base, exponent)
        case .root(let radicand, let degree):
            guard let radicand = radicand.estimate(rounding: rounding), let degree = degree.estimate(rounding: rounding),
                degree.error.isZeroValue, let n = degree.value.rational?.intValue, n >= 1, n <= 64
            else { return nil }
            return Self.root(radicand, n)
        case .factorial(let inner):
            guard let inner = inner.estimate(rounding: rounding), inner.error.isZeroValue, let value = inner.value.rational?.factorial() else {
                return nil
            }
            return .exact(.exact(value))
        case .binomial(let n, let k):
            guard let n = n.estimate(rounding: rounding), let k = k.estimate(rounding: rounding), n.error.isZeroValue, k.error.isZeroValue,
                let a = n.value.rational, let b = k.value.rational, let value = ExactRational.binomial(a, b)
            else { return nil }
            return .exact(.exact(value))
        }
    }

    /// Half a unit in the last written place (0.005 for 0.33); more for a figure with so many
    /// digits that it is a floating-point print-out (0.30000000000000004).
    static func roundingError(_ literal: NumberLiteral) -> ExactRational {
        guard literal.hasPoint, let unit = ExactRational(decimal: "0." + String(repeating: "0", count: literal.decimals) + "5") else {
            return .zero
        }
        if literal.significantDigits >= 15, let float = literal.value.magnitude.divided(by: ExactRational(1 << 50)), unit < float {
            return float
        }
        return unit
    }

    /// The uncertainty of a number a computation starts from. Whole numbers and short decimals
    /// (0.5, 0.25, 0.05) are taken as exact: a fair coin's 0.5 is not rounded, and treating it as
    /// such would let (0.5)^20 mean almost anything. A decimal with three significant digits or
    /// more (0.167, 0.9938) or one that rounds a repeating fraction (0.33, 0.17) may be rounded.
    static func inputError(_ literal: NumberLiteral) -> ExactRational {
        guard literal.hasPoint, literal.significantDigits >= 3 || roundsRepeatingFraction(literal) else { return .zero }
        return roundingError(literal)
    }

    /// Whether a decimal with two significant digits or more is within half a unit of a fraction
    /// with a small denominator whose decimals repeat (1/3, 1/6, 2/7, 5/12).
    private static func roundsRepeatingFraction(_ literal: NumberLiteral) -> Bool {
        guard literal.significantDigits >= 2, literal.decimals <= 12 else { return false }
        let value = abs(literal.value.doubleValue)
        let fraction = value - value.rounded(.down)
        let half = 0.5 * pow(10, -Double(literal.decimals))
        for denominator in [3, 6, 7, 9, 11, 12] {
            let numerator = (fraction * Double(denominator)).rounded()
            guard numerator > 0, numerator < Double(denominator) else { continue }
            var (p, q) = (Int(numerator), denominator)
            while q % 2 == 0 && p % 2 == 0 {
                p /= 2
                q /= 2
            }
            while q % 3 == 0 && p % 3 == 0 {
                p /= 3
                q /= 3
            }
            let repeats = q % 3 == 0 || q % 7 == 0 || q % 11 == 0
            if repeats && abs(fraction - Double(p) / Double(q)) <= half * (1 + 1e-9) { return true }
        }
        return false
    }

    private static func combine(_ operation: Operation, _ a: Estimate, _ b: Estimate) -> Estimate? {
        switch operation {
        case .add, .subtract:
            guard let value = operation == .add ? a.value.plus(b.value) : a.value.minus(b.value), let error = a.error.plus(b.error) else {
                return nil
            }
            return Estimate(value: value, error: error)
        case .multiply:
            guard let value = a.value.times(b.value) else { return nil }
            if a.error.isZeroValue && b.error.isZeroValue { return .exact(value) }
            // |a|eb + |b|ea + ea·eb
            guard let first = a.value.absolute.times(b.error), let second = b.value.absolute.times(a.error), let third = a.error.times(b.error),
                let error = first.plus(second)?.plus(third)
            else { return nil }
            return Estimate(value: value, error: error)
        case .divide:
            guard let value = a.value.over(b.value) else { return nil }
            if a.error.isZeroValue && b.error.isZeroValue { return .exact(value) }
            // (|a|eb + |b|ea) / (|b|(|b| - eb)), only when b cannot be zero.
            let size = b.value.absolute
            guard !size.atMost(b.error), let first = a.value.absolute.times(b.error), let second = size.times(a.error),
                let numerator = first.plus(second), let margin = size.minus(b.error), let denominator = size.times(margin),
                let error = numerator.over(denominator)
            else { return nil }
            return Estimate(value: value, error: error)
        }
    }

    private static func power(_ base: Estimate, _ exponent: Estimate) -> Estimate? {
        guard exponent.error.isZeroValue, let exponent = exponent.value.rational else { return nil }
        if let n = exponent.intValue {
            guard n.magnitude <= 100_000, let value = base.value.raised(to: n) else { return nil }
            if base.error.isZeroValue || n == 0 { return .exact(value) }
            // (|b| + e)^|n| - |b|^|n| bounds the change; a negative power divides by it.
            let size = base.value.absolute
            guard let high = size.plus(base.error)?.raised(to: Int(n.magnitude)), let low = size.raised(to: Int(n.magnitude)),
                let spread = high.minus(low)
            else { return nil }
            if n > 0 { return Estimate(value: value, error: spread) }
            guard !low.atMost(spread), let margin = low.minus(spread), let denominator = low.times(margin), let error = spread.over(denominator)
            else {
                return nil
            }
            return Estimate(value: value, error: error)
        }
        // A fractional power p/q: the q-th root to the p-th power.
        guard let q = exponent.denominatorValue, q <= 64, let p = exponent.numeratorValue, p.magnitude <= 1000,
            let rooted = root(base, q), let value = rooted.value.raised(to: p)
        else { return nil }
        if rooted.error.isZeroValue { return .exact(value) }
        return power(rooted, .exact(.exact(ExactRational(p))))
    }

    private static func root(_ radicand: Estimate, _ degree: Int) -> Estimate? {
        guard let value = radicand.value.root(degree) else { return nil }
        if radicand.error.isZeroValue { return .exact(value) }
        let size = abs(radicand.value.doubleValue)
        let spread = radicand.error.doubleValue
        let nth = { (x: Double) in pow(max(0, x), 1 / Double(degree)) }
        let error = max(nth(size + spread) - nth(size), nth(size) - nth(size - spread))
        return error.isFinite ? Estimate(value: value, error: .approximate(error)) : nil
    }
}

extension ExactRational {
    var numeratorValue: Int? {
        guard let magnitude = numerator.uint64, magnitude <= UInt64(Int.max) else { return nil }
        return isNegative ? -Int(magnitude) : Int(magnitude)
    }

    var denominatorValue: Int? {
        guard let magnitude = denominator.uint64, magnitude <= UInt64(Int.max) else { return nil }
        return Int(magnitude)
    }
}
