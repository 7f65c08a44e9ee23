/// Roots and powers written inline in right-to-left text, made to read as they are meant.
///
/// In an Arabic sentence the Unicode bidirectional algorithm lays out `٢√٣` as "٣√٢" and `√١٢` as
/// "١٢√": a neutral sign between two numbers takes the sentence's direction, and the radical sign
/// does not mirror, so the candidate reads 3√2 where the key is 2√3. This holds for Western digits
/// in Arabic text as well, and for Arabic-Indic digits even in a left-to-right isolate. A root or
/// power term is therefore wrapped in a left-to-right isolate (U+2066 … U+2069, which every browser
/// and mobile text stack honours), with a left-to-right mark (U+200E) after each run of digits
/// that a sign follows inside it. The rest of the expression (`+`, `−`, `×`) keeps the sentence's
/// direction, as Arabic arithmetic is read.
///
/// The marks are invisible and zero-width. The arithmetic lexer skips them, and option values,
/// duplicate detection and grounding read through them. Bidi controls the model wrote itself are
/// removed first (untrusted text must not reorder what a candidate sees).
public enum BidiMath {
    static let leftToRightIsolate: Unicode.Scalar = "\u{2066}"
    static let popDirectionalIsolate: Unicode.Scalar = "\u{2069}"
    static let leftToRightMark: Unicode.Scalar = "\u{200E}"

    /// The directional formatting characters: marks, embeddings, overrides and isolates.
    public static func isControl(_ c: Unicode.Scalar) -> Bool {
        switch c.value {
        case 0x200E, 0x200F, 0x061C, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// `text` without directional formatting characters.
    public static func removingControls(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: text.unicodeScalars.lazy.filter { !isControl($0) })
        return String(out)
    }

    /// `text` with its own directional controls removed and each root or power term
    /// (`٢√٣`, `√١٢`, `3√(2/3)`, `∛٨`, `٢^٣`) isolated left to right, when `language` is written
    /// right to left; `text` unchanged otherwise.
    public static func isolatingTerms(_ text: String, language: String) -> String {
        guard LanguageDirection.isRightToLeft(language) else { return text }
        let scalars = Array(removingControls(text).unicodeScalars)
        var out = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            if let end = termEnd(scalars, from: index) {
                out.append(leftToRightIsolate)
                for offset in index..<end {
                    out.append(scalars[offset])
                    if isDigit(scalars[offset]), offset + 1 < end, !isDigit(scalars[offset + 1]),
                        !(isDecimalSeparator(scalars[offset + 1]) && offset + 2 < end && isDigit(scalars[offset + 2]))
                    {
                        out.append(leftToRightMark)
                    }
                }
                out.append(popDirectionalIsolate)
                index = end
            } else {
                out.append(scalars[index])
                index += 1
            }
        }
        return String(out)
    }

    // MARK: Reading a term

    private static func isDigit(_ c: Unicode.Scalar) -> Bool { ArithmeticLexer.digitValue(c) != nil }
    private static func isDecimalSeparator(_ c: Unicode.Scalar) -> Bool { c == "." || c == "\u{066B}" }
    private static func isRadical(_ c: Unicode.Scalar) -> Bool { c == "√" || c == "∛" || c == "∜" }

    /// The end of a number (digits, one decimal part) starting at `index`, or nil.
    private static func numberEnd(_ s: [Unicode.Scalar], from index: Int) -> Int? {
        var end = index
        while end < s.count, isDigit(s[end]) { end += 1 }
        guard end > index else { return nil }
        if end + 1 < s.count, isDecimalSeparator(s[end]), isDigit(s[end + 1]) {
            end += 1
            while end < s.count, isDigit(s[end]) { end += 1 }
        }
        return end
    }

    /// The end of a radicand or exponent: a number, or a parenthesised group on one line.
    private static func operandEnd(_ s: [Unicode.Scalar], from index: Int) -> Int? {
        guard index < s.count else { return nil }
        if s[index] == "(" {
            var end = index + 1
            var depth = 1
            while end < s.count, s[end] != "\n", end - index < 80 {
                if s[end] == "(" { depth += 1 }
                if s[end] == ")" {
                    depth -= 1
                    if depth == 0 { return end + 1 }
                }
                end += 1
            }
            return nil
        }
        return numberEnd(s, from: index)
    }

    /// The end of a root or power term starting at `index` (not in the middle of a number or a
    /// word), or nil when none starts there.
    private static func termEnd(_ s: [Unicode.Scalar], from index: Int) -> Int? {
        if index > 0, isDigit(s[index - 1]) || isDecimalSeparator(s[index - 1]) { return nil }
        // Glued to a word, a term is part of it ("س٢√٣"); an Arabic one-letter proclitic glued to
        // it (و، ف، ب، ل، ك: "و٢√٣", "and 2√3") is a word of its own.
        if index > 0, s[index - 1].properties.isAlphabetic {
            guard "وفبلك".unicodeScalars.contains(s[index - 1]), index == 1 || !s[index - 2].properties.isAlphabetic else { return nil }
        }
        var position = index
        if let end = numberEnd(s, from: position) {
            position = end
            // A power: 2^3, 2^-2, 2^(1/2).
            if position < s.count, s[position] == "^" {
                var exponent = position + 1
                if exponent < s.count, s[exponent] == "-" || s[exponent] == "−" { exponent += 1 }
                return operandEnd(s, from: exponent)
            }
            if position < s.count, s[position] == " ", position + 1 < s.count, isRadical(s[position + 1]) { position += 1 }
        }
        guard position < s.count, isRadical(s[position]) else { return nil }
        return operandEnd(s, from: position + 1)
    }
}
