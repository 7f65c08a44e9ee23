import Foundation
import LecternMarkdown

/// One arithmetic claim found in text: two sides joined by `=` or `≈`, both fully computable,
/// as in `\frac{180 - 175}{8} = 2.5` or the last link of `P(X=5) = 252/1024 = 0.246`.
public struct ArithmeticClaim: Sendable, Hashable, CustomStringConvertible {
    public enum Relation: String, Sendable, Hashable {
        case equal = "="
        case approximatelyEqual = "≈"
    }

    /// One side as written and its exact value (every written number taken as exact).
    public struct Side: Sendable, Hashable {
        public var text: String
        public var value: ExactValue
    }

    /// The claim as written: from the start of the left side to the end of the right one.
    public var text: String
    /// Where `text` is in the checked string.
    public var range: Range<String.Index>
    public var relation: Relation
    public var left: Side
    public var right: Side
    /// Whether it is true, allowing for rounding. A side written as a plain number is taken as
    /// rounded to its last place (1/3 = 0.33 holds, 1/3 = 0.34 does not); with `≈`, ±1 in that
    /// place as well (1/3 ≈ 0.34 holds). A computation carries the rounding of the decimals it
    /// starts from when they look rounded (0.167 × 6 = 1 holds; a coin's 0.5 is exact). A whole
    /// number given for a quotient above 2 may be rounded either way (100 / 6 = 16 books), and a
    /// whole percentage to the nearest percent (0.0625 × 100% = 6%). A root that is not a perfect
    /// power is compared in Double.
    public var holds: Bool
    /// For a repair prompt: `"\frac{180 - 175}{8} = 2.5" is false: \frac{180 - 175}{8} is 0.625`.
    public var message: String

    public var description: String { message }
}

/// A deterministic checker of the arithmetic in model output (lectures, explanations, feedback,
/// reference answers) and an exact evaluator for computed answer keys.
///
/// Reads Markdown with TeX math (`$…$`, `$$…$$`, `\(…\)`, `\[…\]`, math environments) and
/// arithmetic in running text; code (fenced blocks, backtick spans, `<code>`, `<pre>`) is
/// skipped. A chain `a = b ≈ c` is checked link by link, and a link only when both of its sides
/// are numbers and operations it can read whole: anything with a variable, a word, a unit, an
/// ellipsis or an ambiguous form (a date, a range, a ratio, `1/2(3)`, `2^10` in TeX) is skipped,
/// and so is a sentence that shows arithmetic without asserting it ("a common mistake is …",
/// "in binary"), because a claim misread costs a re-ask while a claim skipped costs nothing.
/// Distractors of a multiple-choice item are false on purpose: check stems, explanations and
/// answers, not wrong options.
///
/// Pure and deterministic; safe on any input (sizes are capped, scanning is linear).
public enum ArithmeticClaims {
    /// The false claims in `text`, in order: what a validator reports.
    public static func check(_ text: String) -> [ArithmeticClaim] {
        claims(in: text).filter { !$0.holds }
    }

    /// Every claim read in `text`, true and false, in order.
    public static func claims(in text: String) -> [ArithmeticClaim] {
        let scalars = Array(text.unicodeScalars)
        var found: [ArithmeticClaim] = []
        var locator = IndexLocator(text: text)
        for region in MarkdownMath.regions(scalars, text: text) {
            for link in ClaimReader(text: scalars, region: region).links()
            where !SentenceContext.setsAside(scalars, link.leftRange.lowerBound..<link.rightRange.upperBound) {
                found.append(link.claim(in: scalars, locator: &locator))
            }
        }
        return found
    }

    /// The exact value of one expression in plain text or TeX, with or without math delimiters:
    /// "C(20,10) * 0.5^20", "\frac{5!}{3!\,2!}", "(1/2)^10", "25%", "\sqrt[3]{27}". Nil when
    /// it is not wholly arithmetic (a variable, a word, a relation) or not computable (division
    /// by zero, a factorial of a fraction, a number past about 1,200 digits).
    public static func evaluate(_ expression: String) -> ExactValue? {
        parse(expression)?.estimate(rounding: false)?.value
    }

    /// `text` trimmed, without the math delimiters around it (`$…$`, `$$…$$`, `\(…\)`, `\[…\]`),
    /// and whether it had them.
    static func withoutMathDelimiters(_ text: String) -> (body: String, delimited: Bool) {
        let body = text.trimmingCharacters(in: .whitespacesAndNewlines)
        for (open, close) in [("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]")]
        where body.count >= open.count + close.count && body.hasPrefix(open) && body.hasSuffix(close) {
            return (String(body.dropFirst(open.count).dropLast(close.count)), true)
        }
        return (body, false)
    }

    /// One expression read whole (math delimiters around it allowed), or nil.
    static func parse(_ expression: String) -> ArithmeticNode? {
        let (body, delimited) = withoutMathDelimiters(expression)
        let scalars = Array(body.unicodeScalars)
        // TeX reads `2^10` as 2¹·0; plain text as 2¹⁰.
        let tex = delimited || scalars.contains("\\") || scalars.contains("{")
        let tokens = ArithmeticLexer.tokens(scalars, in: 0..<scalars.count, prose: false)
        let adjusted =
            tex
            ? tokens
            : tokens.map { token in
                var token = token
                if case .number(var literal) = token.kind {
                    literal.plainDigits = nil  // no TeX single-digit arguments in plain text
                    token.kind = .number(literal)
                }
                return token
            }
        return ArithmeticParser.parse(adjusted[...], prose: !tex)
    }
}

// MARK: - Sentences that set their arithmetic aside

/// A sentence can show arithmetic that it does not assert: a mistake it warns about ("a common
/// mistake is 1/2 + 1/3 = 2/5"), a distractor it explains, a sum in another base ("1 + 1 = 10
/// in binary") or a clock. Claims in such a sentence are not read.
///
/// A negation sets aside only the claim's own clause, or a sentence that it judges ("…, but that
/// is not right"): "if you do not pick a blue ball, the chance is C(5,1)/C(8,2) = 5/7" still
/// asserts its arithmetic.
enum SentenceContext {
    static let settingAsideWords: Set<String> = [
        // Mistakes shown as mistakes.
        "wrong", "wrongly", "incorrect", "incorrectly", "mistake", "mistakes", "mistaken", "mistakenly", "erroneous", "erroneously",
        "false", "falsely", "instead", "rather", "misconception", "misconceptions", "pitfall", "trap", "typo", "fallacy", "misleading",
        "invalid", "flawed", "faulty", "suppose", "supposing", "hypothetically", "claims", "claimed", "thinks", "believes", "pretend",
        "distractor", "distractors", "incorrectness", "nonsense", "absurd", "contradiction",
        // Other arithmetics.
        "binary", "base", "hexadecimal", "hex", "octal", "mod", "modulo", "modular", "clock", "o'clock", "xor", "bitwise",
        "overflow", "overflows", "wraps",
        // The same in Arabic: mistake, wrong, other than.
        "خطأ", "خاطئ", "خاطئة", "أخطاء", "غير",
    ]
    /// Negations (every profile's `negations`): they set aside the clause they stand in, or the
    /// sentence when a verdict follows.
    static let negations: Set<String> = Set(LanguageProfile.all.flatMap(\.negations))
    /// Words after a negation that make it a verdict on the sentence ("that is not correct").
    static let verdicts: Set<String> = [
        "correct", "right", "true", "valid", "accurate", "equal", "exact", "exactly", "so", "possible", "allowed", "how", "what", "quite",
        "صحيح", "صحيحة",
    ]
    /// How far to look each way for the sentence's ends.
    private static let reach = 400

    static func setsAside(_ s: [Unicode.Scalar], _ range: Range<Int>) -> Bool {
        var start = range.lowerBound
        while start > 0 && range.lowerBound - start < reach && !endsSentence(s, before: start) { start -= 1 }
        var end = range.upperBound
        while end < s.count && end - range.upperBound < reach && !endsSentence(s, before: end + 1) { end += 1 }
        var clauseStart = range.lowerBound
        while clauseStart > start && !endsClause(s, at: clauseStart - 1) { clauseStart -= 1 }
        var clauseEnd = range.upperBound
        while clauseEnd < end && !endsClause(s, at: clauseEnd) { clauseEnd += 1 }
        let words = words(s, start..<min(end + 1, s.count))
        for (index, word) in words.enumerated() {
            if settingAsideWords.contains(word.text) { return true }
            guard negations.contains(word.text) else { continue }
            if word.start >= clauseStart && word.start <= clauseEnd { return true }
            if index + 1 < words.count, verdicts.contains(words[index + 1].text) { return true }
        }
        return false
    }

    /// The words of `s[range]`, lowercased, with where each starts.
    private static func words(_ s: [Unicode.Scalar], _ range: Range<Int>) -> [(text: String, start: Int)] {
        var words: [(text: String, start: Int)] = []
        var word = ""
        var wordStart = range.lowerBound
        for i in range {
            let c = s[i]
            if c.properties.isAlphabetic || (c == "'" || c == "\u{2019}") && !word.isEmpty {
                if word.isEmpty { wordStart = i }
                word.unicodeScalars.append(c == "\u{2019}" ? "'" : c)
                continue
            }
            if !word.isEmpty { words.append((word.lowercased(), wordStart)) }
            word = ""
        }
        if !word.isEmpty { words.append((word.lowercased(), wordStart)) }
        return words
    }

    /// A clause ends at ",", ";" or ":" followed by a space or a line end (not "1,000" nor "3:2"),
    /// at a dash set apart by spaces, or at the Arabic comma and semicolon.
    private static func endsClause(_ s: [Unicode.Scalar], at index: Int) -> Bool {
        let c = s[index]
        if c == "\u{060C}" || c == "\u{061B}" { return true }
        let next = index + 1 < s.count ? s[index + 1] : " "
        let spaced = next == " " || next == "\n"
        if c == "," || c == ";" || c == ":" { return spaced }
        if c == "\u{2014}" || c == "\u{2013}" { return spaced && index > 0 && s[index - 1] == " " }
        return false
    }

    /// A sentence ends before `index` after ". ", "! ", "? " (not a decimal point) or a blank line.
    private static func endsSentence(_ s: [Unicode.Scalar], before index: Int) -> Bool {
        guard index > 0, index <= s.count else { return true }
        guard index >= 2 else { return false }  // the text's first character begins its first word
        let mark = s[index - 2]
        let after = s[index - 1]
        if mark == "\n" && after == "\n" { return true }
        return (mark == "." || mark == "!" || mark == "?") && (after == " " || after == "\n")
    }
}

// MARK: - Markdown regions

/// A stretch of the text read one way: math (inside delimiters) or running text.
struct TextRegion: Sendable {
    var range: Range<Int>
    var isMath: Bool
    /// Running text cut where code or math was taken out: the run touching the cut is not read,
    /// since "`x` − 3 × 2 = 1" would read as −3 × 2 = 1.
    var cutBefore = false
    var cutAfter = false
}

/// Splits Markdown into math and running text and drops code. Code blocks, code spans and
/// formulas are `MarkdownLayout`'s (what the renderer shows); in the running text between them
/// it also reads a math environment written without delimiters (`\begin{align} … \end{align}`,
/// which shows as TeX but still states its equalities) as math, and drops HTML code elements
/// and comments. Linear in the text's length: searches remember where they failed.
struct MarkdownMath {
    static let mathEnvironments: Set<String> = [
        "equation", "equation*", "align", "align*", "aligned", "gather", "gather*", "gathered", "multline", "multline*", "eqnarray",
        "eqnarray*", "split", "displaymath", "math", "flalign", "flalign*", "alignat", "alignat*",
    ]
    private static let codeTags = ["code", "pre", "kbd", "samp", "tt", "script", "style", "math"]

    private let s: [Unicode.Scalar]
    private var regions: [TextRegion] = []
    private var proseStart = 0
    private var cutBefore = false
    private var index = 0
    /// For each needle searched for, a position from which it is known not to occur.
    private var absentFrom: [[Unicode.Scalar]: Int] = [:]

    static func regions(_ s: [Unicode.Scalar], text: String) -> [TextRegion] {
        var scanner = MarkdownMath(s: s)
        scanner.scan(MarkdownLayout(text))
        return scanner.regions
    }

    private init(s: [Unicode.Scalar]) { self.s = s }

    private mutating func cut(_ range: Range<Int>, math: Range<Int>?, inline: Bool = true) {
        if proseStart < range.lowerBound {
            regions.append(TextRegion(range: proseStart..<range.lowerBound, isMath: false, cutBefore: cutBefore, cutAfter: inline))
        }
        if let math, !math.isEmpty { regions.append(TextRegion(range: math, isMath: true)) }
        proseStart = range.upperBound
        cutBefore = inline
        index = range.upperBound
    }

    private mutating func scan(_ layout: MarkdownLayout) {
        // What the layout found, in scalars and in order: (range, math content, inline).
        let scalar = layout.scalarIndexes()
        var cuts: [(range: Range<Int>, math: Range<Int>?, inline: Bool)] = layout.codeBlocks.map { block in
            let bytes = layout.byteRange(of: block)
            // A ```math block is display math; any other block is code.
            let math = block.isMath ? Self.mathBlockContent(block, layout: layout, scalar: scalar) : nil
            return (scalar[bytes.lowerBound]..<scalar[bytes.upperBound], math, false)
        }
        cuts += layout.codeSpans.map { (scalar[$0.lowerBound]..<scalar[$0.upperBound], nil, true) }
        cuts += layout.formulas.map { formula in
            (
                scalar[formula.range.lowerBound]..<scalar[formula.range.upperBound],
                scalar[formula.contentRange.lowerBound]..<scalar[formula.contentRange.upperBound], true
            )
        }
        cuts.sort { $0.range.lowerBound < $1.range.lowerBound }
        var next = 0
        while index < s.count {
            while next < cuts.count, cuts[next].range.lowerBound < index { next += 1 }
            if next < cuts.count, cuts[next].range.lowerBound == index {
                cut(cuts[next].range, math: cuts[next].math, inline: cuts[next].inline)
                next += 1
                continue
            }
            let limit = next < cuts.count ? cuts[next].range.lowerBound : s.count
            switch s[index] {
            case "\\":
                if let (environment, contentStart) = beginning(at: index), Self.mathEnvironments.contains(environment),
                    let close = find(Array("\\end{\(environment)}".unicodeScalars), from: contentStart), close < limit
                {
                    cut(index..<(close + environment.unicodeScalars.count + 6), math: contentStart..<close)
                } else {
                    index = min(index + 2, limit)
                }
            case "<":
                if let end = codeElementEnd(at: index) { cut(index..<end, math: nil) } else { index += 1 }
            default:
                index += 1
            }
        }
        if proseStart < s.count { regions.append(TextRegion(range: proseStart..<s.count, isMath: false, cutBefore: cutBefore)) }
    }

    /// The lines of a ```math block, as scalars: its content, without the fences.
    private static func mathBlockContent(_ block: MarkdownLayout.CodeBlock, layout: MarkdownLayout, scalar: [Int]) -> Range<Int> {
        let bytes = layout.byteRange(of: block)
        let firstContent = block.lineRange.lowerBound < layout.lineStarts.count ? layout.lineStarts[block.lineRange.lowerBound] : bytes.upperBound
        let lastContentEnd = block.closed ? layout.lineStarts[block.lineRange.upperBound - 1] : bytes.upperBound
        return scalar[min(firstContent, bytes.upperBound)]..<scalar[max(min(firstContent, bytes.upperBound), lastContentEnd)]
    }

    private mutating func find(_ needle: [Unicode.Scalar], from start: Int) -> Int? {
        if let absent = absentFrom[needle], start >= absent { return nil }
        guard let first = needle.first, start <= s.count - needle.count else { return nil }
        var offset = start
        while offset <= s.count - needle.count {
            if s[offset] == first && s[offset..<(offset + needle.count)].elementsEqual(needle) { return offset }
            offset += 1
        }
        absentFrom[needle] = start
        return nil
    }

    /// `\begin{name}`: the name and where the content starts.
    private func beginning(at index: Int) -> (String, Int)? {
        let prefix = Array("\\begin{".unicodeScalars)
        guard index + prefix.count < s.count, s[index..<(index + prefix.count)].elementsEqual(prefix) else { return nil }
        var offset = index + prefix.count
        var name = String.UnicodeScalarView()
        while offset < s.count && s[offset] != "}" && name.count < 20 {
            name.append(s[offset])
            offset += 1
        }
        guard offset < s.count, s[offset] == "}" else { return nil }
        return (String(name), offset + 1)
    }

    /// The end of `<code>…</code>` (and pre, kbd, samp, tt, script, style, math) or a comment.
    private mutating func codeElementEnd(at index: Int) -> Int? {
        if matches("<!--", at: index) {
            return find(Array("-->".unicodeScalars), from: index + 4).map { $0 + 3 } ?? s.count
        }
        for tag in Self.codeTags where matches("<" + tag, at: index) {
            let after = index + tag.count + 1
            guard after < s.count, s[after] == ">" || s[after] == " " || s[after] == "\n" else { continue }
            let closing = Array("</\(tag)".unicodeScalars)
            // Closing tags are written in lower case by every generator this reads.
            guard let close = find(closing, from: after) ?? find(Array("</\(tag.uppercased())".unicodeScalars), from: after) else {
                return s.count
            }
            var end = close
            while end < s.count && s[end] != ">" && end - close < 20 { end += 1 }
            return min(s.count, end + 1)
        }
        return nil
    }

    private func matches(_ word: String, at index: Int) -> Bool {
        let needle = Array(word.unicodeScalars)
        guard index + needle.count <= s.count else { return false }
        for (offset, c) in needle.enumerated() where s[index + offset].properties.lowercaseMapping != c.properties.lowercaseMapping {
            return false
        }
        return true
    }
}

// MARK: - Reading claims out of a region

/// One checked link of a chain, before it is turned into the public value.
struct ClaimLink {
    var relation: ArithmeticClaim.Relation
    var leftRange: Range<Int>
    var rightRange: Range<Int>
    var left: ExactValue
    var right: ExactValue
    /// Whether each side is a plain number, which the message then need not explain.
    var leftIsNumber: Bool
    var rightIsNumber: Bool
    var holds: Bool

    func claim(in scalars: [Unicode.Scalar], locator: inout IndexLocator) -> ArithmeticClaim {
        let whole = leftRange.lowerBound..<rightRange.upperBound
        let text = Self.string(scalars[whole])
        let leftText = Self.string(scalars[leftRange])
        let rightText = Self.string(scalars[rightRange])
        let range = locator.range(whole)
        return ArithmeticClaim(
            text: text, range: range, relation: relation, left: .init(text: leftText, value: left), right: .init(text: rightText, value: right),
            holds: holds, message: message(text: text, leftText: leftText, rightText: rightText))
    }

    private static func string(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        String(String.UnicodeScalarView(scalars))
    }

    /// White space collapsed, for one-line messages.
    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    private func message(text: String, leftText: String, rightText: String) -> String {
        let claim = Self.oneLine(text)
        let leftText = Self.oneLine(leftText)
        let rightText = Self.oneLine(rightText)
        let verdict = holds ? "holds" : "is false"
        let leftValue = "\(leftText) is \(Self.describe(left, as: leftText))"
        let rightValue = "\(rightText) is \(Self.describe(right, as: rightText))"
        if rightIsNumber { return "\"\(claim)\" \(verdict): \(leftValue)" }
        if leftIsNumber { return "\"\(claim)\" \(verdict): \(rightValue)" }
        return "\"\(claim)\" \(verdict): \(leftValue) and \(rightValue)"
    }

    /// "0.625"; "10/3 (about 3.33333)"; "about 1.41421".
    static func describe(_ value: ExactValue, as written: String) -> String {
        switch value {
        case .exact(let rational):
            if let decimal = rational.terminatingDecimal() { return decimal }
            let about = String(ExactValue.approximate(rational.doubleValue).description.dropFirst(2))
            let fraction = rational.description
            if fraction.count > 24 || written.filter({ !$0.isWhitespace }) == fraction { return "about \(about)" }
            return "\(fraction) (about \(about))"
        case .approximate:
            return "about " + String(value.description.dropFirst(2))
        }
    }
}

/// Maps scalar offsets to `String.Index` by moving from the last one (claims come in order, so
/// each move is short).
struct IndexLocator {
    let text: String
    private var offset = 0
    private var index: String.Index

    init(text: String) {
        self.text = text
        self.index = text.unicodeScalars.startIndex
    }

    mutating func index(at target: Int) -> String.Index {
        let scalars = text.unicodeScalars
        let limit = target >= offset ? scalars.endIndex : scalars.startIndex
        index = scalars.index(index, offsetBy: target - offset, limitedBy: limit) ?? limit
        offset = target
        return index
    }

    mutating func range(_ range: Range<Int>) -> Range<String.Index> {
        let lower = index(at: range.lowerBound)
        let upper = index(at: range.upperBound)
        return lower..<upper
    }
}

/// Finds the runs of mathematics in a region, splits them at relations and checks each `=`
/// or `≈` link whose two sides can both be read.
struct ClaimReader {
    let text: [Unicode.Scalar]
    let region: TextRegion

    /// Words before a run that make its first side part of a longer phrase: "half of 10 = 5",
    /// "twice 3 + 1".
    static let wordsJoiningAfter: Set<String> = [
        "of", "times", "twice", "thrice", "half", "plus", "minus", "by", "over", "per", "than", "into", "root", "roots", "squared",
        "cubed", "sum", "product", "difference", "quotient", "average", "mean", "multiply", "multiplied", "divide", "divided", "add",
        "added", "subtract", "subtracted", "less", "more", "from", "power", "powers", "factorial", "square", "cube", "log", "ln",
        "exp", "sin", "cos", "tan", "mod", "modulo", "rem", "percent", "choose", "negative", "inverse", "reciprocal",
    ]
    /// Words after a run that make its last side part of a longer phrase: "= 5 million",
    /// "= 3 squared", "= 5 to 10".
    static let wordsJoiningBefore: Set<String> = [
        "million", "millions", "billion", "billions", "thousand", "thousands", "hundred", "hundreds", "trillion", "trillions",
        "lakh", "lakhs", "crore", "crores", "dozen", "dozens", "percent", "per", "squared", "cubed", "times", "factorial", "over",
        "divided", "multiplied", "plus", "minus", "to", "or", "of", "point", "thousandths", "hundredths", "tenths", "mod", "modulo",
        "choose", "raised", "power", "cent", "bn", "mn", "k", "remainder", "remainders", "r", "rem", "full", "whole", "complete",
        "leftover", "left",
    ]
    /// Nouns that number things: "Week 2 = 35 + 35" labels a week, it does not claim 2 = 70.
    static let labelWords: Set<String> = [
        "week", "weeks", "day", "days", "step", "steps", "part", "parts", "chapter", "level", "grade", "table", "figure", "fig",
        "example", "question", "problem", "page", "row", "column", "item", "round", "game", "year", "month", "hour", "minute",
        "remaining", "number", "no", "case", "option", "player", "team", "group", "class", "room", "box", "bag", "line",
        "exercise", "lesson", "unit", "section", "stage", "phase", "person", "student", "trial", "test", "sample", "equation",
        "eq", "rule", "term", "type", "version", "batch", "set", "bin", "slot", "lane", "floor", "house", "store", "shop",
    ]

    /// Words that may stand between two pieces of arithmetic without joining them: "2 + 3 = 5
    /// and 5 + 4 = 9". Any other single word there may be an operator ("3 times 4", a TeX
    /// `\times` that lost its backslash), so the sides next to it are not read.
    static let separatingWords: Set<String> = [
        "and", "but", "so", "then", "thus", "hence", "therefore", "while", "whereas", "since", "because", "which", "where", "when",
        "if", "as", "giving", "gives", "give", "yields", "yield", "is", "are", "was", "were", "be", "for", "with", "at", "in", "on",
        "we", "get", "gets", "has", "have", "means", "meaning", "also", "now", "next", "finally", "that", "this", "it", "whence",
    ]

    /// A stretch of tokens between boundaries, and whether its outer sides may be read.
    private struct Run {
        var tokens: ArraySlice<Token>
        var firstSideJoinsContext: Bool
        var lastSideJoinsContext: Bool
    }

    func links() -> [ClaimLink] {
        let tokens = ArithmeticLexer.tokens(text, in: region.range, prose: !region.isMath)
        return runs(tokens).flatMap(links(in:))
    }

    /// Splits at boundaries; TeX's `\\` ends a run unless the next line continues the chain
    /// (`&= …` in an aligned block).
    private func runs(_ tokens: [Token]) -> [Run] {
        var runs: [Run] = []
        var start = 0
        var index = 0
        while index <= tokens.count {
            let ends: Bool
            if index == tokens.count {
                ends = true
            } else if case .boundary = tokens[index].kind {
                ends = true
            } else if tokens[index].kind == .lineBreak {
                if index + 1 < tokens.count, case .relation = tokens[index + 1].kind { ends = false } else { ends = true }
            } else {
                ends = false
            }
            if ends {
                if start < index {
                    let slice = tokens[start..<index].filter { $0.kind != .lineBreak }[...]
                    runs.append(
                        Run(
                            tokens: slice,
                            firstSideJoinsContext: joinsBefore(tokens, runStart: start),
                            lastSideJoinsContext: joinsAfter(tokens, runEnd: index)))
                }
                start = index + 1
            }
            index += 1
        }
        return runs
    }

    /// Whether the run starting at `runStart` reads differently with what precedes it.
    private func joinsBefore(_ tokens: [Token], runStart: Int) -> Bool {
        if runStart == 0 { return region.cutBefore }
        let boundary = tokens[runStart - 1]
        let previous = runStart >= 2 ? tokens[runStart - 2].kind : nil
        // "… + . 84 + .82": a run cut after an operator.
        if let previous, Self.isOperator(previous) { return true }
        guard case .boundary(let words) = boundary.kind else { return false }
        // "14, 400 / 80": a thousands separator with a stray space.
        if words == nil, Self.isThousandsGroupSplit(previous, tokens[runStart].kind) { return true }
        guard let words else { return false }
        let list = words.split(separator: " ").map { $0.lowercased() }
        if let last = list.last, Self.wordsJoiningAfter.contains(last) { return true }
        // "score − 3 × 2": a sign right after a word may be a hyphen or a dash.
        if tokens[runStart].kind == .minus || tokens[runStart].kind == .plus { return true }
        if let previous, Self.endsOperand(previous), !list.contains(where: Self.separatingWords.contains) { return true }
        if list.last == "and", Self.isMixedNumber(tokens, whole: runStart - 2, fraction: runStart) { return true }  // "5 and 2/3"
        // "Week 2 = 35 + 35", "Remaining 10 = 62,300/10": a number naming a thing.
        if case .number = tokens[runStart].kind, let last = words.split(separator: " ").last,
            Self.labelWords.contains(last.lowercased()) || (last.first?.isUppercase == true && !Self.separatingWords.contains(last.lowercased()))
        {
            return true
        }
        return false
    }

    /// Whether the run ending before `runEnd` reads differently with what follows it.
    private func joinsAfter(_ tokens: [Token], runEnd: Int) -> Bool {
        if runEnd == tokens.count { return region.cutAfter }
        let next = runEnd + 1 < tokens.count ? tokens[runEnd + 1].kind : nil
        if let next, Self.isOperator(next), next != .minus, next != .plus { return true }
        guard case .boundary(let words) = tokens[runEnd].kind else { return false }
        if words == nil, let last = tokens[runEnd - 1].kind as TokenKind?, let next, Self.isThousandsGroupSplit(last, next) { return true }
        guard let words else { return false }
        let list = words.split(separator: " ").map { $0.lowercased() }
        if let first = list.first, Self.wordsJoiningBefore.contains(first) { return true }
        if let next, Self.startsOperand(next), !list.contains(where: Self.separatingWords.contains) { return true }
        if list.first == "and", Self.isMixedNumber(tokens, whole: runEnd - 1, fraction: runEnd + 1) { return true }  // "= 5 and 2/3"
        return false
    }

    private static func isOperator(_ kind: TokenKind) -> Bool {
        switch kind {
        case .plus, .minus, .times, .divide, .power: true
        default: false
        }
    }

    /// "14, 400": one to three digits, a comma and space, then three digits.
    private static func isThousandsGroupSplit(_ before: TokenKind?, _ after: TokenKind) -> Bool {
        guard case .number(let head)? = before, case .number(let group) = after, let headDigits = head.plainDigits,
            let groupDigits = group.plainDigits
        else { return false }
        return headDigits.count <= 3 && groupDigits.count == 3
    }

    /// A whole number, "and", and a proper fraction (2/3 or (2/3)) read as a mixed number:
    /// `whole` is the token before "and", `index` where the fraction may start.
    private static func isMixedNumber(_ tokens: [Token], whole: Int, fraction index: Int) -> Bool {
        guard whole >= 0, case .number(let integer) = tokens[whole].kind, !integer.hasPoint else { return false }
        var offset = index
        if offset < tokens.count, tokens[offset].kind == .open(.round) { offset += 1 }
        guard offset + 2 < tokens.count, case .number(let top) = tokens[offset].kind, tokens[offset + 1].kind == .divide,
            case .number(let bottom) = tokens[offset + 2].kind
        else { return false }
        return top.value < bottom.value
    }

    private static func endsOperand(_ kind: TokenKind) -> Bool {
        switch kind {
        case .number, .close, .factorial, .percent, .superscript, .opaque, .pi: true
        default: false
        }
    }

    private static func startsOperand(_ kind: TokenKind) -> Bool {
        switch kind {
        case .number, .open, .fraction, .binomial, .texRoot, .radical, .binomialFunction, .permutationFunction, .rootFunction, .cubeRootFunction, .nthRootFunction, .opaque, .pi:
            true
        default: false
        }
    }

    private func links(in run: Run) -> [ClaimLink] {
        // Split at relations outside brackets.
        var sides: [ArraySlice<Token>] = []
        var relations: [ClaimRelation] = []
        var depth = 0
        var sideStart = run.tokens.startIndex
        for index in run.tokens.indices {
            switch run.tokens[index].kind {
            case .open: depth += 1
            case .close: depth = max(0, depth - 1)
            case .relation(let relation) where depth == 0:
                sides.append(run.tokens[sideStart..<index])
                relations.append(relation)
                sideStart = index + 1
            default: break
            }
        }
        guard !relations.isEmpty else { return [] }
        sides.append(run.tokens[sideStart..<run.tokens.endIndex])

        let prose = !region.isMath
        var nodes: [ArithmeticNode?] = sides.map { side in
            side.contains(where: { $0.kind == .ellipsis }) ? nil : ArithmeticParser.parse(side, prose: prose)
        }
        if run.firstSideJoinsContext { nodes[0] = nil }
        if run.lastSideJoinsContext { nodes[nodes.count - 1] = nil }

        var links: [ClaimLink] = []
        for (index, relation) in relations.enumerated() {
            guard relation != .other, let left = nodes[index], let right = nodes[index + 1] else { continue }
            guard !(left.isBareNumber && right.isBareNumber) else { continue }
            // "48 = 100% + 20%", "45 + 21 + 28 = 94%": a quantity set against a bare percentage
            // is a correspondence, not arithmetic. "25% × 80 = 20" applies one, and is read.
            if left.containsPercentage != right.containsPercentage && (left.isPurePercentage || right.isPurePercentage) { continue }
            let approximate = relation == .approximately
            guard let leftValue = left.estimate(rounding: false), let rightValue = right.estimate(rounding: false),
                let leftBound = Self.bound(left, approximate: approximate), let rightBound = Self.bound(right, approximate: approximate)
            else { continue }
            guard let leftSide = sides[index].first, let leftEnd = sides[index].last, let rightSide = sides[index + 1].first,
                let rightEnd = sides[index + 1].last
            else { continue }
            let holds = Self.agree(leftBound, rightBound) || Self.countsWhole(left, leftValue.value, right, rightValue.value)
            links.append(
                ClaimLink(
                    relation: approximate ? .approximatelyEqual : .equal,
                    leftRange: leftSide.range.lowerBound..<leftEnd.range.upperBound,
                    rightRange: rightSide.range.lowerBound..<rightEnd.range.upperBound,
                    left: leftValue.value, right: rightValue.value, leftIsNumber: left.isBareNumber, rightIsNumber: right.isBareNumber,
                    holds: holds))
        }
        return links
    }

    /// The side's value with its uncertainty. A side written as a plain number (or a percentage,
    /// or in scientific notation) is stated to its last place: half a unit; with `≈`, ±1.5 units,
    /// and a whole number ending in zeros may be rounded to them (so 1024 ≈ 10^3 holds). A
    /// computed side carries the rounding of the decimals it was computed from.
    static func bound(_ node: ArithmeticNode, approximate: Bool) -> Estimate? {
        guard var estimate = node.estimate(rounding: true) else { return nil }
        guard let stated = node.statedNumber else { return estimate }
        let literal = stated.literal
        var unit = ArithmeticNode.roundingError(literal)
        if approximate {
            if literal.hasPoint {
                unit = unit.multiplied(by: ExactRational(3)) ?? unit
            } else {
                unit = ExactRational(3, 2) ?? .one
                var rest = literal.value.magnitude
                var zeros = ExactRational(1, 2) ?? .one
                let ten = ExactRational(10)
                while !rest.isZero, let next = rest.divided(by: ten), next.isInteger {
                    rest = next
                    zeros = zeros.multiplied(by: ten) ?? zeros
                }
                if unit < zeros { unit = zeros }
            }
        }
        // A whole percentage is a rounded figure by custom: 6.25% is given as 6%.
        if stated.isPercentage && !literal.hasPoint && !approximate { unit = ExactRational(1, 2) ?? unit }
        estimate.error = .exact(unit.multiplied(by: stated.scale) ?? unit)
        return estimate
    }

    /// A whole number stated for a fraction that lies just above or below it: "100 / 6 = 16
    /// comic books", "17 / 3 = 6 trips". Counting rounds either way; this is not read as an error.
    static func countsWhole(_ left: ArithmeticNode, _ leftValue: ExactValue, _ right: ArithmeticNode, _ rightValue: ExactValue) -> Bool {
        func check(_ stated: ArithmeticNode, _ statedValue: ExactValue, _ computed: ExactValue) -> Bool {
            guard let number = stated.statedNumber, !number.literal.hasPoint, number.scale == .one, let whole = statedValue.rational,
                let exact = computed.rational, !exact.isInteger, ExactRational(2) < exact.magnitude,
                let below = exact.subtracting(.one), let above = exact.adding(.one)
            else { return false }
            return below < whole && whole < above
        }
        return check(right, rightValue, leftValue) && left.divides || check(left, leftValue, rightValue) && right.divides
    }

    /// |left − right| ≤ the sum of their uncertainties (with a hair more when a side is a Double).
    static func agree(_ left: Estimate, _ right: Estimate) -> Bool {
        guard let difference = left.value.minus(right.value)?.absolute, let allowed = left.error.plus(right.error) else { return true }
        if case .exact = difference, case .exact = allowed { return difference.atMost(allowed) }
        let scale = max(abs(left.value.doubleValue), abs(right.value.doubleValue), 1)
        return difference.doubleValue <= allowed.doubleValue + scale * 1e-9
    }
}
