// Finds TeX math in Markdown source before cmark-gfm sees it.
//
// cmark-gfm knows nothing about math: it would read `_` and `*` inside `$a_1 * b_2$` as emphasis
// and eat the backslashes of `\{`. So each formula is cut out of the source first and replaced by
// a placeholder token that cmark passes through untouched; the writer puts MathML in its place
// afterwards (or, inside code, puts the original source back).
//
// The rules are pandoc's `tex_math_dollars` (+ `tex_math_single_backslash`):
// - `$…$`: no whitespace after the opening `$`, none before the closing one, and the closing `$`
//   is not followed by a digit; `\$` is a literal dollar; backslash pairs inside are skipped.
// - `$$…$$`, `\[…\]`: display math, no blank line inside.
// - `\(…\)`: inline math.
// - never inside code spans, fenced or indented code blocks, HTML blocks or autolinks.
//
// The formulas are found by `MarkdownLayout` (LecternMarkdown), the reading every check shares,
// a simplified CommonMark block parser (containers, fences, indented code, tables, headings).
// Where it could disagree with cmark the damage is bounded: a formula is only ever found inside
// one paragraph-like run, and a token that cmark ends up treating as code is restored to the
// exact source text.

import LecternMarkdown

/// Where a formula came from and how it was written.
typealias MathFormula = MarkdownLayout.Formula

/// The pre-pass: `protect(_:)` is a pure function from Markdown to protected Markdown.
enum MathDelimiterScanner {
    static func protect(_ markdown: String) -> ProtectedMarkdown {
        let bytes = Array(markdown.utf8)
        // Nothing that could open a formula or look like a token: nothing to do.
        if !bytes.contains(where: { $0 == 0x24 || $0 == 0x5C || $0 == 0xEE }) {
            return ProtectedMarkdown(bytes: bytes, formulas: [], lineShifts: [])
        }
        return bytes.withUnsafeBufferPointer { src in
            protect(src, found: MarkdownLayout.formulas(in: src))
        }
    }

    /// `src` with each formula of `found` replaced by its token (one index per distinct source
    /// text) and each U+E000 already there escaped.
    static func protect(_ src: UnsafeBufferPointer<UInt8>, found: [MathFormula]) -> ProtectedMarkdown {
        let lf: UInt8 = 0x0A
        let cr: UInt8 = 0x0D
        var out: [UInt8] = []
        out.reserveCapacity(src.count + found.count * 8)
        var formulas: [MathFormula] = []
        var indexBySource: [String: Int] = [:]
        var lineShifts: [(protectedLine: Int, removed: Int)] = []
        var removed = 0
        var protectedLine = 1

        func copy(_ from: Int, _ to: Int, _ out: inout [UInt8], _ protectedLine: inout Int) {
            var i = from
            var runStart = from
            while i < to {
                let b = src[i]
                if b == 0xEE, i + 2 < src.count, src[i + 1] == 0x80, src[i + 2] == 0x80 {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: src[runStart..<i]))
                    out += MathToken.open
                    out += MathToken.close
                    i += 3
                    runStart = i
                    continue
                }
                if b == lf || (b == cr && !(i + 1 < to && src[i + 1] == lf)) {
                    protectedLine += 1
                }
                i += 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: src[runStart..<to]))
        }

        var cursor = 0
        for formula in found {
            copy(cursor, formula.range.lowerBound, &out, &protectedLine)
            let index: Int
            if let existing = indexBySource[formula.source] {
                index = existing
            } else {
                index = formulas.count
                formulas.append(formula)
                indexBySource[formula.source] = index
            }
            out += MathToken.open
            out.append(contentsOf: String(index).utf8)
            out += MathToken.close
            var newlines = 0
            var i = formula.range.lowerBound
            while i < formula.range.upperBound {
                let b = src[i]
                if b == lf || (b == cr && !(i + 1 < formula.range.upperBound && src[i + 1] == lf)) {
                    newlines += 1
                }
                i += 1
            }
            if newlines > 0 {
                removed += newlines
                lineShifts.append((protectedLine + 1, removed))
            }
            cursor = formula.range.upperBound
        }
        copy(cursor, src.count, &out, &protectedLine)
        return ProtectedMarkdown(bytes: out, formulas: formulas, lineShifts: lineShifts)
    }
}

/// Markdown with every formula replaced by a placeholder token.
struct ProtectedMarkdown: Sendable {
    /// What cmark-gfm parses (UTF-8).
    var bytes: [UInt8]
    /// `bytes` as a string.
    var text: String { String(decoding: bytes, as: UTF8.self) }
    /// Formulas, indexed by the number inside their token.
    var formulas: [MathFormula]
    /// (first protected line after a multi-line formula, lines removed so far), ascending.
    var lineShifts: [(protectedLine: Int, removed: Int)]

    /// The line in the original source for a line reported by cmark on `text`.
    func originalLine(_ protectedLine: Int) -> Int {
        var removed = 0
        for shift in lineShifts {
            if shift.protectedLine > protectedLine { break }
            removed = shift.removed
        }
        return protectedLine + removed
    }
}

/// Placeholder tokens: U+E000, decimal formula index, U+E001. A U+E000 already present in the
/// input is written as U+E000 U+E001 (no digits) so that tokens stay unambiguous.
enum MathToken {
    static let open: [UInt8] = [0xEE, 0x80, 0x80]  // U+E000
    static let close: [UInt8] = [0xEE, 0x80, 0x81]  // U+E001

    /// A piece of text that came back from cmark.
    enum Piece: Equatable {
        /// Plain bytes `range` of the input.
        case text(Range<Int>)
        /// The formula with this index.
        case formula(Int)
        /// An escaped U+E000 of the original input.
        case literalOpen
    }

    /// Splits `bytes` into text, formula references and escaped U+E000, calling `body` for each.
    static func forEachPiece(in bytes: UnsafeBufferPointer<UInt8>, _ body: (Piece) -> Void) {
        let n = bytes.count
        var textStart = 0
        var i = 0
        while i < n {
            if bytes[i] == 0xEE, let (piece, end) = token(at: i, in: bytes) {
                if textStart < i { body(.text(textStart..<i)) }
                body(piece)
                i = end
                textStart = end
            } else {
                i += 1
            }
        }
        if textStart < n { body(.text(textStart..<n)) }
    }

    private static func token(at start: Int, in u: UnsafeBufferPointer<UInt8>) -> (Piece, Int)? {
        let n = u.count
        guard start + 6 <= n, u[start + 1] == 0x80, u[start + 2] == 0x80 else { return nil }
        var i = start + 3
        var index = 0
        var digits = 0
        while i < n, u[i] >= 0x30, u[i] <= 0x39, digits < 9 {
            index = index * 10 + Int(u[i] - 0x30)
            digits += 1
            i += 1
        }
        guard i + 3 <= n, u[i] == 0xEE, u[i + 1] == 0x80, u[i + 2] == 0x81 else { return nil }
        return (digits == 0 ? .literalOpen : .formula(index), i + 3)
    }

    /// `bytes` with every token replaced by the source it stands for.
    static func restore(_ bytes: UnsafeBufferPointer<UInt8>, formulas: [MathFormula], into out: inout [UInt8]) {
        forEachPiece(in: bytes) { piece in
            switch piece {
            case .text(let r): out.append(contentsOf: bytes[r])
            case .literalOpen: out += open
            case .formula(let i):
                if formulas.indices.contains(i) { out.append(contentsOf: formulas[i].source.utf8) }
            }
        }
    }

    /// `s` with every token replaced by the source it stands for.
    static func restore(_ s: String, formulas: [MathFormula]) -> String {
        guard s.utf8.contains(0xEE) else { return s }
        var out: [UInt8] = []
        var copy = s
        copy.withUTF8 { restore($0, formulas: formulas, into: &out) }
        return String(decoding: out, as: UTF8.self)
    }
}
