/// A checked BCP 47 language code and its writing direction.
struct LanguageTag: Equatable {
    let code: String
    let direction: TextDirection

    /// Languages written right to left by default.
    static let rightToLeftLanguages: Set<String> = [
        "ar", "arc", "azb", "bal", "ckb", "dv", "fa", "glk", "he", "iw", "ji", "khw", "ks", "lrc", "mzn", "nqo",
        "pnb", "prs", "ps", "sd", "skr", "syr", "ug", "ur", "yi",
    ]
    /// Scripts written right to left; a script subtag decides over the language (`az-Arab`, `ks-Deva`).
    static let rightToLeftScripts: Set<String> = [
        "arab", "hebr", "syrc", "thaa", "nkoo", "adlm", "rohg", "mand", "samr", "mend", "yezi",
    ]

    /// Accepts `language` (for example "ar", "en-GB", "az-Arab"); `nil` if it is not a BCP 47 tag.
    init?(_ language: String) {
        let subtags = language.split(separator: "-", omittingEmptySubsequences: false)
        guard let primary = subtags.first, (2...8).contains(primary.utf8.count),
            primary.utf8.allSatisfy({ ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A })
        else { return nil }
        for subtag in subtags.dropFirst() {
            guard (1...8).contains(subtag.utf8.count),
                subtag.utf8.allSatisfy({ (($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) })
            else { return nil }
        }
        code = language
        let script = subtags.dropFirst().first { $0.utf8.count == 4 && $0.utf8.allSatisfy { $0 > 0x39 } }
        if let script {
            direction = Self.rightToLeftScripts.contains(script.lowercased()) ? .rightToLeft : .leftToRight
        } else {
            direction = Self.rightToLeftLanguages.contains(primary.lowercased()) ? .rightToLeft : .leftToRight
        }
    }
}
