import Foundation

/// A non-negative integer of any size, as little-endian 32-bit limbs with no high zero limb
/// (zero has none). Only what exact rational arithmetic needs; callers keep sizes bounded.
struct BigUInt: Hashable, Sendable, Comparable {
    private(set) var limbs: [UInt32]

    static let zero = BigUInt(limbs: [])
    static let one = BigUInt(1)

    private init(limbs: [UInt32]) {
        self.limbs = limbs
        normalize()
    }

    init(_ value: UInt64) {
        self.init(limbs: [UInt32(truncatingIfNeeded: value), UInt32(truncatingIfNeeded: value >> 32)])
    }

    /// The value of a string of ASCII decimal digits; nil for anything else.
    init?(decimalDigits: some StringProtocol) {
        var result = BigUInt.zero
        var chunk: UInt64 = 0
        var chunkScale: UInt64 = 1
        for byte in decimalDigits.utf8 {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            chunk = chunk * 10 + UInt64(byte - 0x30)
            chunkScale *= 10
            if chunkScale == 1_000_000_000 {
                result = result.multipliedAdding(UInt32(chunkScale), UInt32(chunk))
                chunk = 0
                chunkScale = 1
            }
        }
        if chunkScale > 1 { result = result.multipliedAdding(UInt32(chunkScale), UInt32(chunk)) }
        self = result
    }

    private mutating func normalize() {
        while let last = limbs.last, last == 0 { limbs.removeLast() }
    }

    var isZero: Bool { limbs.isEmpty }
    var isOne: Bool { limbs.count == 1 && limbs[0] == 1 }
    var isEven: Bool { limbs.first.map { $0 & 1 == 0 } ?? true }

    /// The number of significant bits (0 for zero).
    var bitWidth: Int {
        guard let last = limbs.last else { return 0 }
        return limbs.count * 32 - last.leadingZeroBitCount
    }

    /// The value if it fits in 64 bits.
    var uint64: UInt64? {
        switch limbs.count {
        case 0: return 0
        case 1: return UInt64(limbs[0])
        case 2: return UInt64(limbs[0]) | UInt64(limbs[1]) << 32
        default: return nil
        }
    }

    var trailingZeroBitCount: Int {
        for (index, limb) in limbs.enumerated() where limb != 0 { return index * 32 + limb.trailingZeroBitCount }
        return 0
    }

    static func < (lhs: BigUInt, rhs: BigUInt) -> Bool {
        if lhs.limbs.count != rhs.limbs.count { return lhs.limbs.count < rhs.limbs.count }
        for index in stride(from: lhs.limbs.count - 1, through: 0, by: -1) where lhs.limbs[index] != rhs.limbs[index] {
            return lhs.limbs[index] < rhs.limbs[index]
        }
        return false
    }

    static func + (lhs: BigUInt, rhs: BigUInt) -> BigUInt {
        var result = [UInt32]()
        result.reserveCapacity(max(lhs.limbs.count, rhs.limbs.count) + 1)
        var carry: UInt64 = 0
        for index in 0..<max(lhs.limbs.count, rhs.limbs.count) {
            let sum = UInt64(lhs.limb(index)) + UInt64(rhs.limb(index)) + carry
            result.append(UInt32(truncatingIfNeeded: sum))
            carry = sum >> 32
        }
        result.append(UInt32(carry))
        return BigUInt(limbs: result)
    }

    /// `lhs - rhs`; the caller guarantees `lhs >= rhs`.
    static func - (lhs: BigUInt, rhs: BigUInt) -> BigUInt {
        var result = lhs.limbs
        var borrow: Int64 = 0
        for index in 0..<result.count {
            var difference = Int64(result[index]) - Int64(rhs.limb(index)) - borrow
            borrow = 0
            if difference < 0 {
                difference += 1 << 32
                borrow = 1
            }
            result[index] = UInt32(difference)
        }
        return BigUInt(limbs: result)
    }

    static func * (lhs: BigUInt, rhs: BigUInt) -> BigUInt {
        if lhs.isZero || rhs.isZero { return .zero }
        var result = [UInt32](repeating: 0, count: lhs.limbs.count + rhs.limbs.count)
        for (i, a) in lhs.limbs.enumerated() {
            var carry: UInt64 = 0
            for (j, b) in rhs.limbs.enumerated() {
                let product = UInt64(a) * UInt64(b) + UInt64(result[i + j]) + carry
                result[i + j] = UInt32(truncatingIfNeeded: product)
                carry = product >> 32
            }
            result[i + rhs.limbs.count] = UInt32(carry)
        }
        return BigUInt(limbs: result)
    }

    /// `self * factor + addend`.
    func multipliedAdding(_ factor: UInt32, _ addend: UInt32) -> BigUInt {
        var result = [UInt32]()
        result.reserveCapacity(limbs.count + 1)
        var carry = UInt64(addend)
        for limb in limbs {
            let product = UInt64(limb) * UInt64(factor) + carry
            result.append(UInt32(truncatingIfNeeded: product))
            carry = product >> 32
        }
        result.append(UInt32(carry))
        return BigUInt(limbs: result)
    }

    /// Quotient and remainder by a non-zero single limb.
    func divided(bySmall divisor: UInt32) -> (quotient: BigUInt, remainder: UInt32) {
        var result = [UInt32](repeating: 0, count: limbs.count)
        var remainder: UInt64 = 0
        for index in stride(from: limbs.count - 1, through: 0, by: -1) {
            let current = remainder << 32 | UInt64(limbs[index])
            result[index] = UInt32(current / UInt64(divisor))
            remainder = current % UInt64(divisor)
        }
        return (BigUInt(limbs: result), UInt32(remainder))
    }

    /// Quotient and remainder; nil when dividing by zero.
    func quotientAndRemainder(dividingBy divisor: BigUInt) -> (quotient: BigUInt, remainder: BigUInt)? {
        if divisor.isZero { return nil }
        if self < divisor { return (.zero, self) }
        if let small = divisor.uint64, small <= UInt64(UInt32.max) {
            let (quotient, remainder) = divided(bySmall: UInt32(small))
            return (quotient, BigUInt(UInt64(remainder)))
        }
        if let a = uint64, let b = divisor.uint64 { return (BigUInt(a / b), BigUInt(a % b)) }
        // Shift-and-subtract: sizes are capped, so the simple method is fast enough.
        var quotient = [UInt32](repeating: 0, count: limbs.count)
        var remainder = BigUInt.zero
        for bit in stride(from: bitWidth - 1, through: 0, by: -1) {
            remainder = remainder.shiftedLeft(1)
            if limbs[bit / 32] >> UInt32(bit % 32) & 1 == 1 {
                if remainder.limbs.isEmpty { remainder.limbs = [1] } else { remainder.limbs[0] |= 1 }
            }
            if !(remainder < divisor) {
                remainder = remainder - divisor
                quotient[bit / 32] |= 1 << UInt32(bit % 32)
            }
        }
        return (BigUInt(limbs: quotient), remainder)
    }

    func shiftedLeft(_ count: Int) -> BigUInt {
        guard !isZero, count > 0 else { return self }
        let limbShift = count / 32
        let bitShift = UInt32(count % 32)
        var result = [UInt32](repeating: 0, count: limbs.count + limbShift + 1)
        for (index, limb) in limbs.enumerated() {
            let wide = UInt64(limb) << UInt64(bitShift)
            result[index + limbShift] |= UInt32(truncatingIfNeeded: wide)
            result[index + limbShift + 1] |= UInt32(truncatingIfNeeded: wide >> 32)
        }
        return BigUInt(limbs: result)
    }

    func shiftedRight(_ count: Int) -> BigUInt {
        guard count > 0 else { return self }
        let limbShift = count / 32
        guard limbShift < limbs.count else { return .zero }
        let bitShift = UInt64(count % 32)
        var result = [UInt32](repeating: 0, count: limbs.count - limbShift)
        for index in 0..<result.count {
            let wide = UInt64(limbs[index + limbShift]) | UInt64(limb(index + limbShift + 1)) << 32
            result[index] = UInt32(truncatingIfNeeded: wide >> bitShift)
        }
        return BigUInt(limbs: result)
    }

    private func limb(_ index: Int) -> UInt32 { index < limbs.count ? limbs[index] : 0 }

    /// Greatest common divisor (binary method: no division needed).
    static func gcd(_ a: BigUInt, _ b: BigUInt) -> BigUInt {
        if a.isZero { return b }
        if b.isZero { return a }
        if let x = a.uint64, let y = b.uint64 {
            var (m, n) = (x, y)
            while n != 0 { (m, n) = (n, m % n) }
            return BigUInt(m)
        }
        let shift = min(a.trailingZeroBitCount, b.trailingZeroBitCount)
        var u = a.shiftedRight(a.trailingZeroBitCount)
        var v = b
        while !v.isZero {
            v = v.shiftedRight(v.trailingZeroBitCount)
            if v < u { swap(&u, &v) }
            v = v - u
        }
        return u.shiftedLeft(shift)
    }

    /// `self` raised to `exponent`, or nil when the result would exceed `maxBits`.
    func power(_ exponent: Int, maxBits: Int) -> BigUInt? {
        if exponent == 0 { return .one }
        if isZero || isOne { return self }
        let (lowest, overflow) = (bitWidth - 1).multipliedReportingOverflow(by: exponent)
        guard !overflow, lowest < maxBits else { return nil }
        var result = BigUInt.one
        var base = self
        var remaining = exponent
        while remaining > 0 {
            if remaining & 1 == 1 { result = result * base }
            remaining >>= 1
            if remaining > 0 { base = base * base }
        }
        return result.bitWidth <= maxBits ? result : nil
    }

    /// The largest integer whose `degree`-th power is at most `self` (Newton's method).
    func integerRoot(_ degree: Int) -> BigUInt {
        if isZero || isOne || degree == 1 { return self }
        var x = BigUInt.one.shiftedLeft((bitWidth + degree - 1) / degree)  // x >= the root
        while true {
            guard let xPower = x.power(degree - 1, maxBits: Int.max / 2), let (quotient, _) = quotientAndRemainder(dividingBy: xPower)
            else { return x }
            let next = (x.multipliedAdding(UInt32(degree - 1), 0) + quotient).divided(bySmall: UInt32(degree)).quotient
            if !(next < x) { return x }
            x = next
        }
    }

    /// Decimal digits, most significant first.
    var decimalString: String {
        if isZero { return "0" }
        var chunks: [UInt32] = []
        var rest = self
        while !rest.isZero {
            let (quotient, remainder) = rest.divided(bySmall: 1_000_000_000)
            chunks.append(remainder)
            rest = quotient
        }
        var text = String(chunks.removeLast())
        for chunk in chunks.reversed() {
            let digits = String(chunk)
            text += String(repeating: "0", count: 9 - digits.count) + digits
        }
        return text
    }

    /// The nearest Double (to about 64 bits before rounding); infinity when too large.
    var doubleValue: Double {
        if let small = uint64 { return Double(small) }
        let shift = bitWidth - 64
        guard let top = shiftedRight(shift).uint64 else { return .infinity }
        return Double(top) * pow(2, Double(shift))
    }
}

/// An exact rational number of arbitrary precision: the value of arithmetic written in model
/// output, so that `0.1 + 0.2 = 0.3` holds and `10!` is exact. Always in lowest terms with a
/// positive denominator. Arithmetic is internal and returns nil past a size cap rather than
/// growing without bound on hostile input.
public struct ExactRational: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Largest numerator or denominator kept, in bits (about 1,230 decimal digits; 450! fits).
    static let maxBits = 4096

    let isNegative: Bool
    let numerator: BigUInt
    let denominator: BigUInt

    /// A whole number.
    public init(_ value: Int) {
        self.init(negative: value < 0, numerator: BigUInt(UInt64(value.magnitude)), denominator: .one)
    }

    /// `numerator / denominator`; nil when the denominator is zero.
    public init?(_ numerator: Int, _ denominator: Int) {
        guard denominator != 0 else { return nil }
        self.init(
            negative: (numerator < 0) != (denominator < 0), numerator: BigUInt(UInt64(numerator.magnitude)),
            denominator: BigUInt(UInt64(denominator.magnitude)))
    }

    /// The value of a decimal literal such as "-12.50" (ASCII digits, optional sign and point).
    public init?(decimal text: String) {
        var body = Substring(text)
        let negative = body.first == "-"
        if negative || body.first == "+" { body = body.dropFirst() }
        let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !(whole.isEmpty && parts.count == 1) else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard !(whole.isEmpty && fraction.isEmpty), whole.count + fraction.count <= 400,
            let digits = BigUInt(decimalDigits: whole + fraction)
        else { return nil }
        guard let scale = BigUInt(10).power(fraction.count, maxBits: Self.maxBits) else { return nil }
        self.init(negative: negative, numerator: digits, denominator: scale)
    }

    init(negative: Bool, numerator: BigUInt, denominator: BigUInt) {
        let divisor = BigUInt.gcd(numerator, denominator)
        if divisor.isOne || divisor.isZero {
            self.numerator = numerator
            self.denominator = denominator
        } else {
            self.numerator = numerator.quotientAndRemainder(dividingBy: divisor)?.quotient ?? numerator
            self.denominator = denominator.quotientAndRemainder(dividingBy: divisor)?.quotient ?? denominator
        }
        self.isNegative = negative && !numerator.isZero
    }

    static let zero = ExactRational(0)
    static let one = ExactRational(1)

    public var isZero: Bool { numerator.isZero }
    public var isInteger: Bool { denominator.isOne }

    /// The value as a Swift integer, when it is a whole number that fits.
    public var intValue: Int? {
        guard isInteger, let magnitude = numerator.uint64, magnitude <= UInt64(Int.max) else { return nil }
        return isNegative ? -Int(magnitude) : Int(magnitude)
    }

    public var doubleValue: Double {
        let magnitude: Double
        if let n = numerator.uint64, let d = denominator.uint64, n < 1 << 53, d < 1 << 53 {
            magnitude = Double(n) / Double(d)
        } else {
            // Scale so the integer quotient keeps about 64 significant bits.
            let shift = 64 - (numerator.bitWidth - denominator.bitWidth)
            let scaled = shift > 0 ? numerator.shiftedLeft(shift) : numerator
            let quotient = scaled.quotientAndRemainder(dividingBy: denominator)?.quotient ?? .zero
            magnitude = quotient.doubleValue * pow(2, -Double(max(shift, 0)))
        }
        return isNegative ? -magnitude : magnitude
    }

    /// "7", "-7/3".
    public var description: String {
        let sign = isNegative ? "-" : ""
        return isInteger ? sign + numerator.decimalString : sign + numerator.decimalString + "/" + denominator.decimalString
    }

    /// Rounded to `places` decimal places, halves away from zero: "0.333" for 1/3 at 3 places.
    public func decimalString(places: Int) -> String {
        let places = max(0, min(places, 400))
        guard let scale = BigUInt(10).power(places, maxBits: Int.max / 2),
            let (quotient, remainder) = (numerator * scale).quotientAndRemainder(dividingBy: denominator)
        else { return description }
        let rounded = remainder.shiftedLeft(1) < denominator ? quotient : quotient + .one
        var digits = rounded.decimalString
        if places > 0 {
            if digits.count <= places { digits = String(repeating: "0", count: places - digits.count + 1) + digits }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -places))
        }
        return (isNegative && !rounded.isZero ? "-" : "") + digits
    }

    /// The exact decimal expansion when it ends within `maxPlaces` places ("0.625"), else nil.
    public func terminatingDecimal(maxPlaces: Int = 12) -> String? {
        var rest = denominator
        var twos = 0
        var fives = 0
        while rest.isEven && !rest.isZero {
            rest = rest.shiftedRight(1)
            twos += 1
        }
        while true {
            let (quotient, remainder) = rest.divided(bySmall: 5)
            guard remainder == 0, !rest.isZero else { break }
            rest = quotient
            fives += 1
        }
        guard rest.isOne, max(twos, fives) <= maxPlaces else { return nil }
        return decimalString(places: max(twos, fives))
    }

    public static func < (lhs: ExactRational, rhs: ExactRational) -> Bool {
        if lhs.isNegative != rhs.isNegative { return lhs.isNegative }
        let left = lhs.numerator * rhs.denominator
        let right = rhs.numerator * lhs.denominator
        return lhs.isNegative ? right < left : left < right
    }

    var magnitude: ExactRational { ExactRational(negative: false, numerator: numerator, denominator: denominator) }
    var negated: ExactRational { ExactRational(negative: !isNegative, numerator: numerator, denominator: denominator) }

    private static func capped(_ negative: Bool, _ numerator: BigUInt, _ denominator: BigUInt) -> ExactRational? {
        let value = ExactRational(negative: negative, numerator: numerator, denominator: denominator)
        return value.numerator.bitWidth <= maxBits && value.denominator.bitWidth <= maxBits ? value : nil
    }

    func adding(_ other: ExactRational) -> ExactRational? {
        let left = numerator * other.denominator
        let right = other.numerator * denominator
        let denominator = self.denominator * other.denominator
        if isNegative == other.isNegative { return Self.capped(isNegative, left + right, denominator) }
        return right < left ? Self.capped(isNegative, left - right, denominator) : Self.capped(other.isNegative, right - left, denominator)
    }

    func subtracting(_ other: ExactRational) -> ExactRational? { adding(other.negated) }

    func multiplied(by other: ExactRational) -> ExactRational? {
        Self.capped(isNegative != other.isNegative, numerator * other.numerator, denominator * other.denominator)
    }

    /// Nil when dividing by zero.
    func divided(by other: ExactRational) -> ExactRational? {
        guard !other.isZero else { return nil }
        return Self.capped(isNegative != other.isNegative, numerator * other.denominator, denominator * other.numerator)
    }

    /// An integer power; nil past the size cap or for 0 to a negative power.
    func power(_ exponent: Int) -> ExactRational? {
        guard exponent.magnitude <= 100_000 else { return nil }
        let count = Int(exponent.magnitude)
        guard let top = numerator.power(count, maxBits: Self.maxBits), let bottom = denominator.power(count, maxBits: Self.maxBits) else {
            return nil
        }
        let negative = isNegative && count % 2 == 1
        if exponent >= 0 { return Self.capped(negative, top, bottom) }
        guard !top.isZero else { return nil }
        return Self.capped(negative, bottom, top)
    }

    /// The exact `degree`-th root when numerator and denominator are perfect powers; nil otherwise
    /// (and for even roots of negatives).
    func exactRoot(_ degree: Int) -> ExactRational? {
        guard degree >= 1, degree <= 64, !(isNegative && degree % 2 == 0) else { return nil }
        let top = numerator.integerRoot(degree)
        let bottom = denominator.integerRoot(degree)
        guard top.power(degree, maxBits: Int.max / 2) == numerator, bottom.power(degree, maxBits: Int.max / 2) == denominator else {
            return nil
        }
        return ExactRational(negative: isNegative, numerator: top, denominator: bottom)
    }

    /// `self!` for a whole number from 0 to 450; nil otherwise.
    func factorial() -> ExactRational? {
        guard let n = intValue, n >= 0, n <= 450 else { return nil }
        var product = BigUInt.one
        for factor in stride(from: 2, through: n, by: 1) { product = product.multipliedAdding(UInt32(factor), 0) }
        return ExactRational(negative: false, numerator: product, denominator: .one)
    }

    /// The binomial coefficient C(n, k) for whole numbers; 0 when k > n; nil past the size cap.
    static func binomial(_ n: ExactRational, _ k: ExactRational) -> ExactRational? {
        guard let n = n.intValue, let k = k.intValue, n >= 0, k >= 0, n <= 1_000_000 else { return nil }
        if k > n { return .zero }
        let steps = min(k, n - k)
        guard steps <= 2000 else { return nil }
        var result = BigUInt.one
        for step in stride(from: 0, to: steps, by: 1) {
            // result * (n - step) / (step + 1) stays whole at every step.
            guard let next = result.multipliedAdding(UInt32(n - step), 0).quotientAndRemainder(dividingBy: BigUInt(UInt64(step + 1))) else {
                return nil
            }
            result = next.quotient
            if result.bitWidth > maxBits { return nil }
        }
        return ExactRational(negative: false, numerator: result, denominator: .one)
    }
}

/// The value of an arithmetic expression: exact when it is rational, a Double when it involves a
/// root that is not a perfect power (√2).
public enum ExactValue: Sendable, Hashable, CustomStringConvertible {
    case exact(ExactRational)
    case approximate(Double)

    public var doubleValue: Double {
        switch self {
        case .exact(let value): value.doubleValue
        case .approximate(let value): value
        }
    }

    /// The exact value, when there is one.
    public var rational: ExactRational? {
        if case .exact(let value) = self { return value }
        return nil
    }

    public var isExact: Bool { rational != nil }

    /// Rounded to `places` decimal places: "0.246" for 252/1024 at 3 places. What an answer key shows.
    public func decimalString(places: Int) -> String {
        switch self {
        case .exact(let value): return value.decimalString(places: places)
        case .approximate(let value):
            let places = max(0, min(places, 17))
            let text = String(format: "%.\(places)f", value)
            return text.hasPrefix("-") && text.allSatisfy({ "-0.".contains($0) }) ? String(text.dropFirst()) : text
        }
    }

    /// For people and repair prompts: "20", "0.625", "10/3 ≈ 3.3333", "≈ 1.41421".
    public var description: String {
        switch self {
        case .exact(let value):
            if let decimal = value.terminatingDecimal() { return decimal }
            let fraction = value.description
            let approximate = ExactValue.approximate(value.doubleValue).description
            return fraction.count <= 24 ? "\(fraction) \(approximate)" : approximate
        case .approximate(let value):
            guard value.isFinite else { return "≈ \(value)" }
            // Six significant digits, more for small values, trailing zeros dropped.
            let magnitude = value == 0 ? 0 : Int(floor(log10(abs(value))))
            let places = max(4, min(17, 5 - magnitude))
            var text = String(format: "%.\(places)f", value)
            while text.contains("."), text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
            return "≈ " + text
        }
    }
}
