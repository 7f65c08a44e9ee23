import Foundation
import LecternMarkdown

/// Inline math whose delimiters do not pair: `\( H(10) = 5 feet, … then \( H \)` opens math twice
/// and renders the words between as math; `$x.` opens math that never closes. Sure in every
/// language, because it reads only the delimiters: which ones pair is what the renderer pairs
/// (`MarkdownLayout`'s formulas), and of the rest a `$` before an amount (`$5`, `$1,200.`) is
/// money; code (blocks and spans) is left out.
public enum MathDelimiters {
    /// The first delimiter of `markdown` that opens inline math and never closes it within its
    /// paragraph, opens it again before closing it, or closes math nothing opened: a short quote
    /// from there and what is wrong, or nil when every delimiter pairs.
    public static func firstUnbalanced(_ markdown: String) -> String? {
        guard markdown.contains("$") || markdown.contains("\\(") || markdown.contains("\\)") else { return nil }
        // What the renderer pairs is `MarkdownLayout`'s formulas: the check reads what is left.
        // The prose it quotes has code spans blanked and each formula marked where it starts.
        // A mark already in the text (model output is untrusted) would be read as a formula's.
        let text = markdown.contains(Self.formulaMark) ? markdown.replacingOccurrences(of: String(Self.formulaMark), with: "\u{FFFD}") : markdown
        let layout = MarkdownLayout(text)
        let marked = layout.prose(codeSpan: { _ in " " }, formula: { String(Self.formulaMark) + $0 })
        var next = 0
        for paragraph in marked.components(separatedBy: "\n\n") {
            var c: [Character] = []
            var formulas: [Int: (end: Int, formula: MarkdownLayout.Formula)] = [:]
            var pending: MarkdownLayout.Formula?
            for character in paragraph {
                if character == Self.formulaMark, next < layout.formulas.count {
                    pending = layout.formulas[next]
                    next += 1
                    continue
                }
                if let formula = pending {
                    formulas[c.count] = (c.count + formula.source.count, formula)
                    pending = nil
                }
                c.append(character)
            }
            if let problem = firstUnbalanced(inParagraph: c, formulas: formulas) { return problem }
        }
        return nil
    }

    /// Where a formula starts in the quoted prose (a private-use character no text holds there).
    static let formulaMark: Character = "\u{E002}"

    static func firstUnbalanced(inParagraph c: [Character], formulas: [Int: (end: Int, formula: MarkdownLayout.Formula)]) -> String? {
        func quote(_ from: Int) -> String {
            let text = String(c[from..<min(c.count, from + 40)]).replacingOccurrences(of: "\n", with: " ")
            return "'\(text)\(from + 40 < c.count ? "…" : "")'"
        }
        var i = 0
        while i < c.count {
            if let found = formulas[i] {
                // `\( H(10) = 5 feet, … then \( H \)`: the renderer closed the first \( at the
                // second one's end, and the words between render as math.
                if found.formula.delimiter == .parenthesis, opensInlineMath(found.formula.tex) {
                    return "\(quote(i)) opens inline math again before closing it (a \\( or $ with no end, so the words after it render as math)"
                }
                i = max(i + 1, found.end)
                continue
            }
            let next: Character? = i + 1 < c.count ? c[i + 1] : nil
            if c[i] == "\\", let next {
                if next == "(" { return "\(quote(i)) opens inline math and never closes it (no \\) in its paragraph)" }
                if next == ")" { return "\(quote(i)) closes inline math that nothing opened (a \\) with no \\( before it)" }
                // An escaped character (`\$`, `\\`) is never a delimiter.
                i += 2
                continue
            }
            if c[i] == "$" {
                // Display delimiters left unpaired are no inline math.
                if next == "$" {
                    i += 2
                    continue
                }
                // No $ closes it: money when an amount follows, else math left open.
                if let next, !next.isWhitespace, !isAmount(c, from: i + 1) {
                    return "\(quote(i)) opens inline math and never closes it (no closing $ in its paragraph)"
                }
            }
            i += 1
        }
        return nil
    }

    /// Whether TeX holds an unescaped `\(`.
    static func opensInlineMath(_ tex: String) -> Bool {
        var previous: Character?
        for character in tex {
            if previous == "\\" {
                if character == "(" { return true }
                previous = nil
                continue
            }
            previous = character
        }
        return false
    }

    /// Whether the text at `start` is an amount after a dollar sign: digits (with , and ., or
    /// cents alone: `.47`) that end the text or are followed by a space or punctuation, not by more math (`$3^2`, `$5$`).
    static func isAmount(_ c: [Character], from start: Int) -> Bool {
        var j = start
        // Cents alone: "$.47/lb".
        if j + 1 < c.count, c[j] == ".", c[j + 1].isASCII, c[j + 1].isNumber { j += 1 }
        guard j < c.count, c[j].isASCII, c[j].isNumber else { return false }
        while j < c.count, (c[j].isASCII && c[j].isNumber) || c[j] == "," || c[j] == "." { j += 1 }
        guard j < c.count else { return true }
        // An amount ending its clause with no space after the mark: "$100,000.The developer".
        if c[j - 1] == "," || c[j - 1] == "." { return true }
        // A range or a rate ends an amount too: $5–10, $5-$10, $3/hour, $2'000.
        return c[j].isWhitespace || ",;:!?)]-–/%'\"’”".contains(c[j]) || (c[j].isLetter && ["k", "m", "b"].contains(c[j].lowercased()))
    }
}
