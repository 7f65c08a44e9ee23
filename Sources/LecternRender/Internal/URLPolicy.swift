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

    static func isAllowed(_ bytes: [UInt8], schemes: Set<String>) -> Bool {
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
}
