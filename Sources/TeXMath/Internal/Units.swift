/// TeX dimensions and colours, turned into values MathML Core's attribute grammar accepts.
/// Nothing from the input reaches an attribute without passing through here.
enum Units {
    /// A length as `<number><unit>` in a unit CSS knows; nil when `text` is not a TeX length.
    static func length(_ text: String) -> String? {
        var scanner = ScalarScanner(text)
        guard let (value, unit) = scanner.scanLength(), scanner.atEnd else { return nil }
        return format(value: value, unit: unit)
    }

    /// Converts TeX-only units to CSS ones and prints the number the way the schema's pattern wants
    /// (no exponent, at most four decimals).
    static func format(value: Double, unit: String) -> String? {
        var v = value
        var u = unit
        switch unit {
        case "em", "ex", "pt", "pc", "in", "cm", "mm", "px": break
        case "mu": v /= 18; u = "em"
        case "bp": v *= 72.27 / 72; u = "pt"
        case "dd": v *= 1238.0 / 1157.0; u = "pt"
        case "cc": v *= 12 * 1238.0 / 1157.0; u = "pt"
        case "sp": v /= 65536; u = "pt"
        default: return nil
        }
        // TeX's largest dimension is about 16384pt; clamp so the number stays printable.
        v = Swift.max(-16384, Swift.min(16384, v))
        return formatNumber(v) + u
    }

    static func formatNumber(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let scaled = roundToInt(abs(value) * 10_000)
        let whole = scaled / 10_000
        var fraction = scaled % 10_000
        var text = (value < 0 && scaled != 0 ? "-" : "") + String(whole)
        if fraction != 0 {
            var digits = 4
            while fraction % 10 == 0 {
                fraction /= 10
                digits -= 1
            }
            let f = String(fraction)
            text += "." + String(repeating: "0", count: digits - f.count) + f
        }
        return text
    }

    /// A colour as the schema's `color` pattern accepts it, or nil. `model` is xcolor's optional
    /// `[rgb]`, `[RGB]`, `[HTML]`, `[gray]`.
    static func color(_ spec: String, model: String?) -> String? {
        let trimmed = trim(spec)
        guard !trimmed.isEmpty else { return nil }
        switch model.map(trim) {
        case nil, "named"?:
            let scalars = Array(trimmed.unicodeScalars)
            if scalars.allSatisfy(Lexer.isLetter) { return trimmed }
            if scalars.first == "#", scalars.count == 4 || scalars.count == 7, scalars.dropFirst().allSatisfy(isHex) {
                return trimmed
            }
            return nil
        case "HTML"?:
            let scalars = Array(trimmed.unicodeScalars)
            guard scalars.count == 6, scalars.allSatisfy(isHex) else { return nil }
            return "#" + trimmed
        case "rgb"?:
            let parts = numbers(trimmed)
            guard parts.count == 3, parts.allSatisfy({ $0 >= 0 && $0 <= 1 }) else { return nil }
            return "#" + parts.map { hexByte(roundToInt($0 * 255)) }.joined()
        case "RGB"?:
            let parts = numbers(trimmed)
            guard parts.count == 3, parts.allSatisfy({ $0 >= 0 && $0 <= 255 }) else { return nil }
            return "#" + parts.map { hexByte(roundToInt($0)) }.joined()
        case "gray"?:
            let parts = numbers(trimmed)
            guard parts.count == 1, parts[0] >= 0, parts[0] <= 1 else { return nil }
            let byte = hexByte(roundToInt(parts[0] * 255))
            return "#" + byte + byte + byte
        default:
            return nil
        }
    }

    /// Rounds half up without libm (the module links nothing but the standard library).
    static func roundToInt(_ value: Double) -> Int {
        guard value.isFinite else { return 0 }
        let clamped = Swift.max(-1e15, Swift.min(1e15, value))
        return clamped >= 0 ? Int(clamped + 0.5) : -Int(-clamped + 0.5)
    }

    private static func isHex(_ s: Unicode.Scalar) -> Bool {
        (s.value >= 0x30 && s.value <= 0x39) || (s.value >= 0x41 && s.value <= 0x46) || (s.value >= 0x61 && s.value <= 0x66)
    }

    private static func hexByte(_ value: Int) -> String {
        let digits = Array("0123456789abcdef")
        let v = Swift.max(0, Swift.min(255, value))
        return String(digits[v / 16]) + String(digits[v % 16])
    }

    private static func numbers(_ text: String) -> [Double] {
        text.split(separator: ",").compactMap { part -> Double? in
            var scanner = ScalarScanner(String(part))
            scanner.skipSpaces()
            guard let value = scanner.scanNumber() else { return nil }
            scanner.skipSpaces()
            return scanner.atEnd ? value : nil
        }
    }

    static func trim(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var start = 0
        var end = scalars.count
        while start < end, Lexer.isSpace(scalars[start]) { start += 1 }
        while end > start, Lexer.isSpace(scalars[end - 1]) { end -= 1 }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars[start..<end])
        return String(out)
    }
}

/// A tiny cursor over the scalars of a raw argument.
struct ScalarScanner {
    private let scalars: [Unicode.Scalar]
    private var index = 0

    init(_ text: String) { scalars = Array(text.unicodeScalars) }

    var atEnd: Bool {
        mutating get {
            skipSpaces()
            return index >= scalars.count
        }
    }

    mutating func skipSpaces() {
        while index < scalars.count, Lexer.isSpace(scalars[index]) { index += 1 }
    }

    /// An optionally signed decimal (`-1.5`, `.5`, `3`, `1,5` with TeX's decimal comma).
    mutating func scanNumber() -> Double? {
        skipSpaces()
        var negative = false
        while index < scalars.count, scalars[index] == "-" || scalars[index] == "+" {
            if scalars[index] == "-" { negative.toggle() }
            index += 1
            skipSpaces()
        }
        var value = 0.0
        var sawDigit = false
        while index < scalars.count, let d = digit(scalars[index]) {
            // Beyond TeX's range the value is clamped later; stop growing to stay finite.
            if value < 1e9 { value = value * 10 + Double(d) }
            sawDigit = true
            index += 1
        }
        if index < scalars.count, scalars[index] == "." || scalars[index] == "," {
            index += 1
            var scale = 0.1
            while index < scalars.count, let d = digit(scalars[index]) {
                value += Double(d) * scale
                scale /= 10
                sawDigit = true
                index += 1
            }
        }
        guard sawDigit else { return nil }
        return negative ? -value : value
    }

    /// A number followed by a two-letter TeX unit (`true` and `plus/minus` glue parts are skipped).
    mutating func scanLength() -> (Double, String)? {
        guard let value = scanNumber() else { return nil }
        skipSpaces()
        var unit = String.UnicodeScalarView()
        while index < scalars.count, Lexer.isLetter(scalars[index]), unit.count < 2 {
            unit.append(scalars[index])
            index += 1
        }
        var name = String(unit)
        if name == "tr" {
            // "true" prefix: \hskip 1truein
            index += 2
            unit = String.UnicodeScalarView()
            while index < scalars.count, Lexer.isLetter(scalars[index]), unit.count < 2 {
                unit.append(scalars[index])
                index += 1
            }
            name = String(unit)
        }
        guard name.unicodeScalars.count == 2 else { return nil }
        return (value, name)
    }

    private func digit(_ s: Unicode.Scalar) -> Int? {
        s.value >= 0x30 && s.value <= 0x39 ? Int(s.value - 0x30) : nil
    }
}
