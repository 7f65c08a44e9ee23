import Foundation

/// Inline math whose delimiters do not pair: `\( H(10) = 5 feet, … then \( H \)` opens math twice
/// and renders the words between as math; `$x.` opens math that never closes. Sure in every
/// language, because it reads only the delimiters: a `$` before an amount (`$5`, `$1,200.`) is
/// money, and code (fenced blocks and code spans) is left out.
public enum MathDelimiters {
    /// The first delimiter of `markdown` that opens inline math and never closes it within its
    /// paragraph, opens it again before closing it, or closes math nothing opened: a short quote
    /// from there and what is wrong, or nil when every delimiter pairs.
    public static func firstUnbalanced(_ markdown: String) -> String? {
        guard markdown.contains("$") || markdown.contains("\\(") || markdown.contains("\\)") else { return nil }
        let prose = ProseScan.replacingCodeSpans(TextIntegrity.outsideFencedCode(markdown)) { _ in " " }
        for paragraph in prose.components(separatedBy: "\n\n") {
            if let problem = firstUnbalanced(inParagraph: Array(paragraph)) { return problem }
        }
        return nil
    }

    enum Opener { case paren, dollar }

    static func firstUnbalanced(inParagraph c: [Character]) -> String? {
        func quote(_ from: Int) -> String {
            let text = String(c[from..<min(c.count, from + 40)]).replacingOccurrences(of: "\n", with: " ")
            return "'\(text)\(from + 40 < c.count ? "…" : "")'"
        }
        var open: (kind: Opener, at: Int)?
        var display = false
        var i = 0
        while i < c.count {
            let next: Character? = i + 1 < c.count ? c[i + 1] : nil
            if c[i] == "\\", let next {
                switch next {
                case "(":
                    if let open, !display {
                        return "\(quote(open.at)) opens inline math again before closing it (a \\( or $ with no end, so the words after it render as math)"
                    }
                    if !display { open = (.paren, i) }
                case ")":
                    if !display {
                        guard let current = open, current.kind == .paren else {
                            return "\(quote(i)) closes inline math that nothing opened (a \\) with no \\( before it)"
                        }
                        open = nil
                    }
                default: break
                }
                // An escaped character (`\$`, `\\`) is never a delimiter.
                i += 2
                continue
            }
            if c[i] == "$" {
                if next == "$" {
                    if open == nil { display.toggle() }
                    i += 2
                    continue
                }
                if display || open != nil {
                    // A $ inside \( … \) is not a delimiter of its own.
                    i += 1
                    continue
                }
                if let next, !next.isWhitespace {
                    if let close = closingDollar(c, after: i) {
                        i = close + 1
                        continue
                    }
                    // No $ closes it: money when an amount follows, else math left open.
                    if !isAmount(c, from: i + 1) {
                        return "\(quote(i)) opens inline math and never closes it (no closing $ in its paragraph)"
                    }
                }
            }
            i += 1
        }
        if let open { return "\(quote(open.at)) opens inline math and never closes it (\(open.kind == .paren ? "no \\)" : "no closing $") in its paragraph)" }
        return nil
    }

    /// The `$` that closes inline math opened at `open`, as the renderer reads it: not escaped,
    /// after a character that is not a space, and not before a digit (`$5 and $10` is money).
    static func closingDollar(_ c: [Character], after open: Int) -> Int? {
        var k = open + 2
        while k < c.count {
            if c[k] == "$", !c[k - 1].isWhitespace, c[k - 1] != "\\", !(k + 1 < c.count && c[k + 1].isASCII && c[k + 1].isNumber) { return k }
            k += 1
        }
        return nil
    }

    /// Whether the text at `start` is an amount after a dollar sign: digits (with , and .) that
    /// end the text or are followed by a space or punctuation, not by more math (`$3^2`, `$5$`).
    static func isAmount(_ c: [Character], from start: Int) -> Bool {
        var j = start
        guard j < c.count, c[j].isASCII, c[j].isNumber else { return false }
        while j < c.count, (c[j].isASCII && c[j].isNumber) || c[j] == "," || c[j] == "." { j += 1 }
        guard j < c.count else { return true }
        // A range or a rate ends an amount too: $5–10, $5-$10, $3/hour, $2'000.
        return c[j].isWhitespace || ",;:!?)]-–/%'\"’”".contains(c[j]) || (c[j].isLetter && ["k", "m", "b"].contains(c[j].lowercased()))
    }
}
