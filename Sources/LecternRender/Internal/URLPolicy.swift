/// Which URLs may appear in `href`, `src` and `cite`.
///
/// The check sees the value as a browser would: character references are already decoded (by
/// cmark for Markdown destinations, by libxml2 in the sanitizer), leading C0 controls and spaces are
/// stripped and tabs and newlines inside are ignored (WHATWG URL parsing), so `java&#x09;script:`,
/// ` JaVaScRiPt:` and `java\nscript:` are all seen as `javascript:`; this check goes further and
/// ignores every space and control character before the colon. A value with a colon before the
/// first `/`, `?` or `#` must name an allowed scheme (ASCII case-insensitive); anything else is
/// relative and allowed.
enum URLPolicy {
    static let linkSchemes: Set<String> = ["http", "https", "mailto"]
    static let imageSchemes: Set<String> = ["http", "https"]
    static let citeSchemes: Set<String> = ["http", "https"]

    static func isAllowed(_ url: String, schemes: Set<String>) -> Bool {
        isAllowed(Array(url.utf8), schemes: schemes)
    }

    /// Also checks the value with HTML character references decoded (`&#0000106avascript:`,
    /// `javascript&colon;`), in case the output ever reaches an HTML parser that decodes them again.
    static func isAllowed(_ bytes: [UInt8], schemes: Set<String>) -> Bool {
        guard isAllowedAsIs(bytes, schemes: schemes) else { return false }
        guard bytes.contains(UInt8(ascii: "&")) else { return true }
        return isAllowedAsIs(decodingCharacterReferences(bytes), schemes: schemes)
    }

    private static func isAllowedAsIs(_ bytes: [UInt8], schemes: Set<String>) -> Bool {
        var scheme: [UInt8] = []
        for b in bytes {
            // Spaces and controls anywhere before the colon are dropped, so that no spelling with
            // blanks in it (`java	script:`, ` javascript:`, `java script:`) escapes the check.
            if b <= 0x20 || b == 0x7F { continue }
            switch b {
            case UInt8(ascii: ":"):
                guard !scheme.isEmpty else { return false }
                return schemes.contains(String(decoding: scheme, as: UTF8.self))
            case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"):
                return true
            default:
                scheme.append(b >= 0x41 && b <= 0x5A ? b | 0x20 : b)
            }
        }
        return true
    }

    /// Numeric references (with or without `;`, any number of leading zeros) and the named ones
    /// that matter for schemes.
    static func decodingCharacterReferences(_ bytes: [UInt8]) -> [UInt8] {
        let named: [(String, UInt8)] = [("colon;", 0x3A), ("tab;", 0x09), ("newline;", 0x0A), ("nbsp;", 0x20)]
        var out: [UInt8] = []
        var i = 0
        let n = bytes.count
        while i < n {
            guard bytes[i] == UInt8(ascii: "&"), i + 1 < n else {
                out.append(bytes[i])
                i += 1
                continue
            }
            if bytes[i + 1] == UInt8(ascii: "#") {
                var j = i + 2
                let hex = j < n && (bytes[j] | 0x20) == UInt8(ascii: "x")
                if hex { j += 1 }
                var value: UInt32 = 0
                let digitsStart = j
                while j < n {
                    let b = bytes[j]
                    let digit: UInt32?
                    switch b {
                    case 0x30...0x39: digit = UInt32(b - 0x30)
                    case 0x61...0x66 where hex: digit = UInt32(b - 0x61 + 10)
                    case 0x41...0x46 where hex: digit = UInt32(b - 0x41 + 10)
                    default: digit = nil
                    }
                    guard let digit else { break }
                    value = min(value &* (hex ? 16 : 10) &+ digit, 0x11_0000)
                    j += 1
                }
                if j > digitsStart {
                    if j < n, bytes[j] == UInt8(ascii: ";") { j += 1 }
                    let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                    i = j
                    continue
                }
            } else {
                var matched = false
                for (name, byte) in named {
                    let candidate = bytes[(i + 1)...].prefix(name.utf8.count).map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
                    if candidate.elementsEqual(name.utf8) {
                        out.append(byte)
                        i += 1 + name.utf8.count
                        matched = true
                        break
                    }
                }
                if matched { continue }
            }
            out.append(bytes[i])
            i += 1
        }
        return out
    }
}
