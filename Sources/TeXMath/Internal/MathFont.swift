/// Math alphabets. Styled letters are written as Unicode Mathematical Alphanumeric Symbols
/// rather than `mathvariant`, because MathML Core only honours `mathvariant="normal"`.
enum MathFont: Sendable, Equatable {
    case roman, bold, italic, boldItalic, boldSymbol
    case script, boldScript, fraktur, boldFraktur, doubleStruck
    case sansSerif, sansSerifBold, sansSerifItalic, sansSerifBoldItalic, monospace

    /// First code points of A and a in the Mathematical Alphanumeric Symbols block.
    private var latinBase: (upper: UInt32, lower: UInt32)? {
        switch self {
        case .roman: return nil
        case .bold: return (0x1D400, 0x1D41A)
        case .italic: return (0x1D434, 0x1D44E)
        case .boldItalic, .boldSymbol: return (0x1D468, 0x1D482)
        case .script: return (0x1D49C, 0x1D4B6)
        case .boldScript: return (0x1D4D0, 0x1D4EA)
        case .fraktur: return (0x1D504, 0x1D51E)
        case .doubleStruck: return (0x1D538, 0x1D552)
        case .boldFraktur: return (0x1D56C, 0x1D586)
        case .sansSerif: return (0x1D5A0, 0x1D5BA)
        case .sansSerifBold: return (0x1D5D4, 0x1D5EE)
        case .sansSerifItalic: return (0x1D608, 0x1D622)
        case .sansSerifBoldItalic: return (0x1D63C, 0x1D656)
        case .monospace: return (0x1D670, 0x1D68A)
        }
    }

    private var digitBase: UInt32? {
        switch self {
        case .bold, .boldSymbol: return 0x1D7CE
        case .doubleStruck: return 0x1D7D8
        case .sansSerif: return 0x1D7E2
        case .sansSerifBold: return 0x1D7EC
        case .monospace: return 0x1D7F6
        default: return nil
        }
    }

    /// Letters that live in the Letterlike Symbols block instead of the reserved holes.
    private func latinException(_ v: UInt32) -> UInt32? {
        switch self {
        case .italic:
            return v == 0x68 ? 0x210E : nil
        case .script:
            switch v {
            case 0x42: return 0x212C
            case 0x45: return 0x2130
            case 0x46: return 0x2131
            case 0x48: return 0x210B
            case 0x49: return 0x2110
            case 0x4C: return 0x2112
            case 0x4D: return 0x2133
            case 0x52: return 0x211B
            case 0x65: return 0x212F
            case 0x67: return 0x210A
            case 0x6F: return 0x2134
            default: return nil
            }
        case .fraktur:
            switch v {
            case 0x43: return 0x212D
            case 0x48: return 0x210C
            case 0x49: return 0x2111
            case 0x52: return 0x211C
            case 0x5A: return 0x2128
            default: return nil
            }
        case .doubleStruck:
            switch v {
            case 0x43: return 0x2102
            case 0x48: return 0x210D
            case 0x4E: return 0x2115
            case 0x50: return 0x2119
            case 0x51: return 0x211A
            case 0x52: return 0x211D
            case 0x5A: return 0x2124
            default: return nil
            }
        default:
            return nil
        }
    }

    /// Position of a Greek letter (or ∇ ∂ and the variant forms) in the 58-letter Greek runs.
    private static func greekOffset(_ v: UInt32) -> UInt32? {
        switch v {
        case 0x391...0x3A1: return v - 0x391
        case 0x3F4: return 17
        case 0x3A3...0x3A9: return v - 0x3A3 + 18
        case 0x2207: return 25
        case 0x3B1...0x3C9: return v - 0x3B1 + 26
        case 0x2202: return 51
        case 0x3F5: return 52
        case 0x3D1: return 53
        case 0x3F0: return 54
        case 0x3D5: return 55
        case 0x3F1: return 56
        case 0x3D6: return 57
        default: return nil
        }
    }

    private func greekBase(uppercase: Bool) -> UInt32? {
        switch self {
        case .bold: return 0x1D6A8
        case .italic: return 0x1D6E2
        case .boldItalic: return 0x1D71C
        // \boldsymbol keeps capitals upright, as TeX does.
        case .boldSymbol: return uppercase ? 0x1D6A8 : 0x1D71C
        case .sansSerifBold: return 0x1D756
        case .sansSerifBoldItalic: return 0x1D790
        default: return nil
        }
    }

    /// The styled form of `scalar`, or nil when this alphabet has none.
    func map(_ scalar: Unicode.Scalar) -> Unicode.Scalar? {
        let v = scalar.value
        if (0x41...0x5A).contains(v) || (0x61...0x7A).contains(v) {
            if let special = latinException(v) { return Unicode.Scalar(special) }
            guard let base = latinBase else { return nil }
            return Unicode.Scalar(v <= 0x5A ? base.upper + (v - 0x41) : base.lower + (v - 0x61))
        }
        if (0x30...0x39).contains(v) {
            guard let base = digitBase else { return nil }
            return Unicode.Scalar(base + (v - 0x30))
        }
        if v == 0x131 || v == 0x237 {
            guard self == .italic else { return nil }
            return Unicode.Scalar(v == 0x131 ? 0x1D6A4 : 0x1D6A5)
        }
        if let offset = Self.greekOffset(v), let base = greekBase(uppercase: offset < 26) {
            return Unicode.Scalar(base + offset)
        }
        return nil
    }

    /// Maps every scalar it can and keeps the rest.
    func apply(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { out.append(map(scalar) ?? scalar) }
        return String(out)
    }

    /// Fonts whose letters render upright and so form words (`\mathrm{sin}` is one `<mi>`).
    var formsWords: Bool { self != .boldSymbol }
}
