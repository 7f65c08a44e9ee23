/// Turns titles into file-name-safe slugs.
public enum Slug {
    /// Whether `text` is a valid job id: `[a-z0-9]` words joined by single hyphens, 1–64 characters.
    /// Such an id can never name a path outside `output/`.
    public static func isValidID(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 64 else { return false }
        var previousWasHyphen = true
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                previousWasHyphen = false
            case UInt8(ascii: "-"):
                if previousWasHyphen { return false }
                previousWasHyphen = true
            default:
                return false
            }
        }
        return !previousWasHyphen
    }

    /// A slug for a title: lowercase ASCII letters and digits joined by hyphens, at most `maxLength`
    /// characters; "topic" when nothing is left (e.g. an Arabic title).
    public static func make(_ title: String, maxLength: Int = 48) -> String {
        var out = ""
        var pendingHyphen = false
        for scalar in title.lowercased().unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                if pendingHyphen, !out.isEmpty { out.append("-") }
                pendingHyphen = false
                out.unicodeScalars.append(scalar)
                if out.count >= maxLength { break }
            } else {
                pendingHyphen = true
            }
        }
        while out.hasSuffix("-") { out.removeLast() }
        return out.isEmpty ? "topic" : out
    }

    /// Whether `text` is a semantic version (`1.0.0`, `2.1.0-beta.1`): path-safe by construction.
    public static func isValidVersion(_ text: String) -> Bool {
        guard text.utf8.count <= 64 else { return false }
        let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        let core = parts[0].split(separator: ".", omittingEmptySubsequences: false)
        guard core.count == 3, core.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }) else {
            return false
        }
        if parts.count == 2 {
            let pre = parts[1]
            guard !pre.isEmpty else { return false }
            return pre.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { id in
                !id.isEmpty && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
            }
        }
        return true
    }
}
