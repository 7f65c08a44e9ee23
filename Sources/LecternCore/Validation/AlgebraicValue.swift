import Foundation

// Exact values for quantitative exam items: the numbers that roots, powers and π make, kept exact
// so that an answer key is computed rather than believed, and so that 2√3 and √12 are seen to be
// the same number.

/// An exact real number written as a sum of terms `c · r · πᵏ`: `c` rational, `r` a product of
/// primes each raised to a proper fraction (√12 is 2 · 3^(1/2), ∛16 is 2 · 2^(1/3)), `k` whole.
///
/// The form is canonical: products of prime powers with distinct fractional exponents are
/// linearly independent over the rationals (Besicovitch), and π is transcendental, so two values
/// are equal exactly when their terms are. `==` is exact equality.
public struct AlgebraicValue: Hashable, Sendable, CustomStringConvertible {
    /// A prime raised to a proper fraction `numerator/denominator` (0 < it < 1).
    struct RadicalFactor: Hashable, Sendable, Comparable {
        var prime: UInt64
        var numerator: Int
        var denominator: Int

        static func < (a: RadicalFactor, b: RadicalFactor) -> Bool {
            (a.prime, a.numerator, a.denominator) < (b.prime, b.numerator, b.denominator)
        }
    }

    /// What a term's coefficient multiplies: a radical (factors sorted by prime, primes distinct)
    /// and a power of π.
    struct Basis: Hashable, Sendable, Comparable {
        var radical: [RadicalFactor]
        var piPower: Int

        static let one = Basis(radical: [], piPower: 0)

        static func < (a: Basis, b: Basis) -> Bool {
            if a.piPower != b.piPower { return a.piPower < b.piPower }
            if a.radical.count != b.radical.count { return a.radical.count < b.radical.count }
            for (x, y) in zip(a.radical, b.radical) where x != y { return x < y }
            return false
        }
    }

    /// Non-zero coefficients by basis.
    private(set) var terms: [Basis: ExactRational]

    static let maxTerms = 64

    init(terms: [Basis: ExactRational]) {
        self.terms = terms.filter { !$0.value.isZero }
    }

    public init(_ value: ExactRational) {
        self.init(terms: [.one: value])
    }

    public init(_ value: Int) {
        self.init(ExactRational(value))
    }

    public static let zero = AlgebraicValue(terms: [:])
    public static let pi = AlgebraicValue(terms: [Basis(radical: [], piPower: 1): .one])

    public var isZero: Bool { terms.isEmpty }

    /// The value when it is rational.
    public var rational: ExactRational? {
        if terms.isEmpty { return .zero }
        guard terms.count == 1, let value = terms[.one] else { return nil }
        return value
    }

    /// A floating-point approximation, for ordering and for display next to the exact form.
    public var doubleValue: Double {
        terms.reduce(0) { sum, term in
            var product = term.value.doubleValue * pow(Double.pi, Double(term.key.piPower))
            for factor in term.key.radical {
                product *= pow(Double(factor.prime), Double(factor.numerator) / Double(factor.denominator))
            }
            return sum + product
        }
    }

    // MARK: Arithmetic

    public var negated: AlgebraicValue {
        AlgebraicValue(terms: terms.mapValues { $0.negated })
    }

    public func adding(_ other: AlgebraicValue) throws -> AlgebraicValue {
        var result = terms
        for (basis, coefficient) in other.terms {
            if let existing = result[basis] {
                guard let sum = existing.adding(coefficient) else { throw AlgebraicError.tooLarge }
                result[basis] = sum
            } else {
                result[basis] = coefficient
            }
        }
        let value = AlgebraicValue(terms: result)
        guard value.terms.count <= Self.maxTerms else { throw AlgebraicError.tooLarge }
        return value
    }

    public func subtracting(_ other: AlgebraicValue) throws -> AlgebraicValue {
        try adding(other.negated)
    }

    public func multiplied(by other: AlgebraicValue) throws -> AlgebraicValue {
        var result = AlgebraicValue.zero
        for (a, x) in terms {
            for (b, y) in other.terms {
                let (basis, factor) = try Self.multiply(a, b)
                guard let product = x.multiplied(by: y), let coefficient = product.multiplied(by: factor) else {
                    throw AlgebraicError.tooLarge
                }
                result = try result.adding(AlgebraicValue(terms: [basis: coefficient]))
            }
        }
        return result
    }

    public func divided(by other: AlgebraicValue) throws -> AlgebraicValue {
        try multiplied(by: other.inverse())
    }

    /// `self` to a whole power.
    public func power(_ exponent: Int) throws -> AlgebraicValue {
        if exponent == 0 {
            guard !isZero else { throw AlgebraicError.unsupported("0 to the power 0") }
            return AlgebraicValue(1)
        }
        if exponent < 0 { return try inverse().power(-exponent) }
        if let (coefficient, basis) = monomial {
            return try Self.monomialPower(coefficient, basis, numerator: exponent, denominator: 1)
        }
        guard exponent <= 64 else { throw AlgebraicError.tooLarge }
        var result = AlgebraicValue(1)
        var base = self
        var remaining = exponent
        while remaining > 0 {
            if remaining & 1 == 1 { result = try result.multiplied(by: base) }
            remaining >>= 1
            if remaining > 0 { base = try base.multiplied(by: base) }
        }
        return result
    }

    /// `self` to a rational power `p/q`: the real `q`-th root raised to `p`.
    public func power(_ exponent: ExactRational) throws -> AlgebraicValue {
        guard let p = exponent.numeratorValue, let q = exponent.denominatorValue else { throw AlgebraicError.tooLarge }
        if q == 1 { return try power(p) }
        return try root(q).power(p)
    }

    /// The real `degree`-th root. Exact for a single term (√12 = 2√3, ∛(8π³) = 2π); a root of a
    /// sum is not in the form and is refused, as is an even root of a negative number.
    public func root(_ degree: Int) throws -> AlgebraicValue {
        guard degree >= 1, degree <= 64 else { throw AlgebraicError.tooLarge }
        if degree == 1 || isZero { return self }
        guard let (coefficient, basis) = monomial else {
            // A sum can still be a perfect power of a rational: not in this form, so refused.
            throw AlgebraicError.unsupported("a root of a sum of unlike terms")
        }
        return try Self.monomialPower(coefficient, basis, numerator: 1, denominator: degree)
    }

    /// `1 / self`. Exact for a single term, and for a sum of rational multiples of square roots
    /// (times one power of π), by multiplying by conjugates: 1/(√3 − 1) = (√3 + 1)/2.
    public func inverse() throws -> AlgebraicValue {
        if isZero { throw AlgebraicError.divisionByZero }
        if let (coefficient, basis) = monomial {
            return try Self.monomialPower(coefficient, basis, numerator: -1, denominator: 1)
        }
        let piPowers = Set(terms.keys.map(\.piPower))
        guard piPowers.count == 1, let piPower = piPowers.first else {
            throw AlgebraicError.unsupported("division by a sum in which π appears in some terms only")
        }
        guard terms.keys.allSatisfy({ $0.radical.allSatisfy { $0.denominator == 2 } }) else {
            throw AlgebraicError.unsupported("division by a sum of roots other than square roots")
        }
        // Take π out, then rationalise one square root at a time: x = a + b√p, and
        // (a + b√p)(a − b√p) = a² − p·b² has no √p.
        let withoutPi = AlgebraicValue(terms: Dictionary(uniqueKeysWithValues: terms.map { (Basis(radical: $0.key.radical, piPower: 0), $0.value) }))
        guard let prime = withoutPi.terms.keys.flatMap(\.radical).map(\.prime).min() else {
            throw AlgebraicError.unsupported("division by this sum")  // unreachable: a sum of rationals is one term
        }
        var conjugateTerms = [Basis: ExactRational]()
        for (basis, coefficient) in withoutPi.terms {
            conjugateTerms[basis] = basis.radical.contains { $0.prime == prime } ? coefficient.negated : coefficient
        }
        let conjugate = AlgebraicValue(terms: conjugateTerms)
        let norm = try withoutPi.multiplied(by: conjugate)
        let reciprocal = try conjugate.multiplied(by: norm.inverse())
        return try reciprocal.multiplied(by: AlgebraicValue(terms: [Basis(radical: [], piPower: -piPower): .one]))
    }

    // MARK: Terms

    private var monomial: (ExactRational, Basis)? {
        guard terms.count == 1, let (basis, coefficient) = terms.first else { return nil }
        return (coefficient, basis)
    }

    /// The product of two bases, and the whole factor that comes out of the radical (√2 · √2 = 2).
    private static func multiply(_ a: Basis, _ b: Basis) throws -> (Basis, ExactRational) {
        var exponents = [UInt64: (Int, Int)]()
        for factor in a.radical + b.radical {
            let (n, d) = exponents[factor.prime] ?? (0, 1)
            exponents[factor.prime] = try addFractions(n, d, factor.numerator, factor.denominator)
        }
        var radical = [RadicalFactor]()
        var coefficient = ExactRational.one
        for (prime, (n, d)) in exponents {
            let whole = n / d
            let rest = n % d
            if whole > 0 {
                guard let factor = ExactRational(Int(prime)).power(whole), let product = coefficient.multiplied(by: factor) else {
                    throw AlgebraicError.tooLarge
                }
                coefficient = product
            }
            if rest != 0 { radical.append(RadicalFactor(prime: prime, numerator: rest, denominator: d)) }
        }
        let (piPower, overflow) = a.piPower.addingReportingOverflow(b.piPower)
        guard !overflow, abs(piPower) <= 64 else { throw AlgebraicError.tooLarge }
        return (Basis(radical: radical.sorted(), piPower: piPower), coefficient)
    }

    /// `(c · r · πᵏ)^(p/q)` for one term: every prime's exponent (whole from `c`, fractional from
    /// `r`) is scaled, and splits again into a whole part and a proper fraction.
    private static func monomialPower(
        _ coefficient: ExactRational, _ basis: Basis, numerator p: Int, denominator q: Int
    ) throws
        -> AlgebraicValue
    {
        guard !coefficient.isZero else {
            if p < 0 { throw AlgebraicError.divisionByZero }
            return .zero
        }
        var negative = false
        if coefficient.isNegative {
            guard q % 2 == 1 else { throw AlgebraicError.notReal }
            negative = p % 2 != 0
        }
        let (scaledPi, piOverflow) = basis.piPower.multipliedReportingOverflow(by: p)
        guard !piOverflow, scaledPi % q == 0 else { throw AlgebraicError.unsupported("a root of π") }
        guard abs(scaledPi / q) <= 64 else { throw AlgebraicError.tooLarge }
        // Exponent of each prime, as a fraction.
        var exponents = [UInt64: (Int, Int)]()
        for (prime, count) in try factorize(coefficient.numerator) { exponents[prime] = (count, 1) }
        for (prime, count) in try factorize(coefficient.denominator) { exponents[prime] = (-count, 1) }
        for factor in basis.radical {
            let (n, d) = exponents[factor.prime] ?? (0, 1)
            exponents[factor.prime] = try addFractions(n, d, factor.numerator, factor.denominator)
        }
        var top = ExactRational.one
        var bottom = ExactRational.one
        var radical = [RadicalFactor]()
        for (prime, (n, d)) in exponents {
            let (scaledN, overflowN) = n.multipliedReportingOverflow(by: p)
            let (scaledD, overflowD) = d.multipliedReportingOverflow(by: q)
            guard !overflowN, !overflowD, scaledD <= 4096 else { throw AlgebraicError.tooLarge }
            let divisor = gcd(abs(scaledN), scaledD)
            let (en, ed) = (scaledN / divisor, scaledD / divisor)
            // floor(en / ed) and the remainder in [0, ed).
            var whole = en / ed
            var rest = en % ed
            if rest < 0 {
                whole -= 1
                rest += ed
            }
            guard abs(whole) <= 4096, let power = ExactRational(Int(prime)).power(abs(whole)) else { throw AlgebraicError.tooLarge }
            if whole > 0 {
                guard let product = top.multiplied(by: power) else { throw AlgebraicError.tooLarge }
                top = product
            } else if whole < 0 {
                guard let product = bottom.multiplied(by: power) else { throw AlgebraicError.tooLarge }
                bottom = product
            }
            if rest != 0 { radical.append(RadicalFactor(prime: prime, numerator: rest, denominator: ed)) }
        }
        guard var value = top.divided(by: bottom) else { throw AlgebraicError.tooLarge }
        if negative { value = value.negated }
        return AlgebraicValue(terms: [Basis(radical: radical.sorted(), piPower: scaledPi / q): value])
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return max(x, 1)
    }

    private static func addFractions(_ a: Int, _ b: Int, _ c: Int, _ d: Int) throws -> (Int, Int) {
        let (ad, o1) = a.multipliedReportingOverflow(by: d)
        let (cb, o2) = c.multipliedReportingOverflow(by: b)
        let (bd, o3) = b.multipliedReportingOverflow(by: d)
        let (sum, o4) = ad.addingReportingOverflow(cb)
        guard !o1, !o2, !o3, !o4 else { throw AlgebraicError.tooLarge }
        let divisor = gcd(abs(sum), bd)
        return (sum / divisor, bd / divisor)
    }

    /// The prime factors of a whole number, by trial division up to 10⁵. What is left after that is
    /// prime when it is below 10¹⁰; anything larger is refused rather than guessed at.
    static func factorize(_ number: BigUInt) throws -> [UInt64: Int] {
        var factors = [UInt64: Int]()
        var rest = number
        if rest.isZero { return [:] }
        var divisor: UInt32 = 2
        while !rest.isOne {
            if let small = rest.uint64, UInt64(divisor) * UInt64(divisor) > small {
                factors[small, default: 0] += 1
                return factors
            }
            guard divisor <= 100_000 else {
                guard let small = rest.uint64, small < 10_000_000_000 else { throw AlgebraicError.tooLarge }
                factors[small, default: 0] += 1
                return factors
            }
            let (quotient, remainder) = rest.divided(bySmall: divisor)
            if remainder == 0 {
                factors[UInt64(divisor), default: 0] += 1
                rest = quotient
            } else {
                divisor += divisor == 2 ? 1 : 2
            }
        }
        return factors
    }

    // MARK: Display

    /// The exact form, as a reader writes it: `2√3`, `3 + 2√2`, `9π`, `√2/2`, `1/4`.
    public var description: String {
        if terms.isEmpty { return "0" }
        let ordered = terms.sorted { $0.key < $1.key }
        var text = ""
        for (index, (basis, coefficient)) in ordered.enumerated() {
            let term = Self.termText(coefficient.magnitude, basis)
            if index == 0 {
                text = (coefficient.isNegative ? "−" : "") + term
            } else {
                text += (coefficient.isNegative ? " − " : " + ") + term
            }
        }
        return text
    }

    private static func termText(_ magnitude: ExactRational, _ basis: Basis) -> String {
        var top = ""
        let radical = radicalText(basis.radical)
        let pi = basis.piPower > 0 ? (basis.piPower == 1 ? "π" : "π^\(basis.piPower)") : ""
        let numerator = magnitude.numerator.decimalString
        if numerator != "1" || (radical.isEmpty && pi.isEmpty) { top = numerator }
        top += radical + pi
        var bottomParts = [String]()
        if !magnitude.isInteger { bottomParts.append(magnitude.denominator.decimalString) }
        if basis.piPower < 0 { bottomParts.append(basis.piPower == -1 ? "π" : "π^\(-basis.piPower)") }
        return bottomParts.isEmpty ? top : top + "/" + bottomParts.joined()
    }

    private static func radicalText(_ factors: [RadicalFactor]) -> String {
        guard !factors.isEmpty else { return "" }
        let degree = factors.reduce(1) { lcm, factor in lcm / gcd(lcm, factor.denominator) * factor.denominator }
        var radicand = BigUInt.one
        for factor in factors {
            let count = factor.numerator * (degree / factor.denominator)
            radicand = radicand * (BigUInt(factor.prime).power(count, maxBits: 1 << 16) ?? .one)
        }
        let digits = radicand.decimalString
        switch degree {
        case 2: return "√" + digits
        case 3: return "∛" + digits
        case 4: return "∜" + digits
        default: return "\(digits)^(1/\(degree))"
        }
    }
}

/// Why an expression has no exact value in `AlgebraicValue`'s form.
public enum AlgebraicError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not an expression in the documented syntax.
    case unreadable
    case divisionByZero
    /// An even root of a negative number.
    case notReal
    /// Something real but outside the form (a root of a sum, π under a root).
    case unsupported(String)
    /// Past the size caps (numbers of thousands of digits, huge powers, unfactorable radicands).
    case tooLarge

    public var description: String {
        switch self {
        case .unreadable: "it is not an expression in the solution syntax"
        case .divisionByZero: "it divides by zero"
        case .notReal: "it takes an even root of a negative number"
        case .unsupported(let what): "it has \(what), which Lectern cannot evaluate exactly"
        case .tooLarge: "its numbers are too large to evaluate exactly"
        }
    }
}
