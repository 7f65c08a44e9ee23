import LecternMarkdown
import TeXMath

// Models write TeX inside JSON strings without doubling the backslash: `"\frac{1}{2}"`. JSON
// decoding reads `\f` as a form feed, so the learner sees "rac{1}{2}". `\t` (tab) eats \times,
// \theta, \text; `\b` (backspace) eats \beta, \binom, \bar; `\n` (line feed) eats \neq, \nu,
// \nabla; `\r` (carriage return) eats \rho, \right, \rangle. Other TeX escapes (`\d`, `\s`, `\l` …)
// make the JSON invalid, so only these five letters can vanish silently.
//
// A control character followed by the rest of a command the converter knows is put back as that
// command inside math, where nothing else could be meant, and an answer field's formulas written
// without delimiters are read as math where their extent is clear (`inspectField`). Everywhere
// else it is reported, and the model is asked again: outside math the TeX would not render
// anyway. Line feeds are ordinary text except inside math, and tabs are ordinary in code.

/// What ``TextIntegrity/inspect(_:)`` found in one decoded text.
public struct TextIntegrityResult: Sendable, Equatable {
    /// The text with every unambiguous recovery applied: equal to the input when there was none.
    public var repaired: String
    /// What was recovered, one line per kind with its count, e.g.
    /// `form feed + "rac{" inside math read as \frac (2 times)`.
    public var recoveries: [String]
    /// What could not be recovered, as sentences fit for a repair prompt (what is wrong, where, what
    /// to write instead); empty when `repaired` can be used.
    public var problems: [String]

    /// Wraps a finished inspection.
    public init(repaired: String, recoveries: [String], problems: [String]) {
        self.repaired = repaired
        self.recoveries = recoveries
        self.problems = problems
    }

    /// Whether `repaired` can be used as it is (recoveries allowed, no problem left).
    public var isValid: Bool { problems.isEmpty }
}

/// Finds control characters and TeX commands that lost their backslash in decoded model text
/// (Markdown with `$…$`, `$$…$$`, `\(…\)`, `\[…\]` math), and puts back what is unambiguous.
///
/// Rules, in the order they apply:
/// - Inside math, a form feed, backspace, tab or carriage return (and a line feed, see below)
///   directly followed by letters that complete a command TeXMath knows (`rac` → `\frac`, `imes` →
///   `\times`) is recovered: the character becomes `\` and its escape letter.
/// - A line feed is a recovered `\n` only inside math, when `n` plus the letters after it is a known
///   command: one letter or more in inline math (`$a ⏎eq b$`), two or more in display math, where a
///   line may start with a lone variable (`e`, `i`, `u`). Outside math and code, a line feed that
///   breaks a sentence before such letters ("The mean ⏎u (mu)", not `e`, `i`, `exists` …:
///   `eatenLineFeedTail`) is reported. Elsewhere a line feed is a line break.
/// - A tab is legitimate in code blocks and code spans, and anywhere it is not followed by the rest
///   of a `\t` command. Outside math, a tab followed by such a rest (`au`, `heta`, `ext{` — not the
///   English-looking `an`, `op`, `ag` or a single letter) is reported.
/// - A carriage return directly before a line feed is a line ending. Every other control character
///   (C0, DEL, C1) that was not recovered is reported.
/// - Inside math (outside `\text{…}`, `\mathrm{…}`, `\operatorname{…}` and the like), a run of two
///   letters or more directly before `{` that is a known command, or becomes one with f, b, t, n or r
///   in front (`frac{`, `rac{`, `ar{`), is reported; so is a standalone run of three letters or more
///   that names a symbol (`times`, `leq`, `infty`, `alpha`, `imes`, `heta`), except English-looking
///   words (`star`, `top`, `angle` …). Single letters are variables; operator names (`sin`, `log`,
///   `max`, `mod` …) read the same without a backslash and are never reported.
/// - Outside math and code, a run of three letters or more directly before `{` that is a known
///   command or one with its escape letter lost (`frac{`, `rac{`) is reported.
///
/// Pure and linear in the text's length; never traps, whatever the input.
public enum TextIntegrity {
    /// The inline code spans and math contents the inspector reads in `text`, as scalar ranges.
    static func inlineZones(_ text: String) -> (codeSpans: [Range<Int>], math: [Range<Int>]) {
        var inspector = Inspector(Array(text.unicodeScalars))
        return inspector.inlineZones(original: text)
    }

    /// Inspects one decoded string (a JSON string value after decoding, or a Markdown answer).
    public static func inspect(_ text: String) -> TextIntegrityResult {
        let scalars = Array(text.unicodeScalars)
        guard scalars.contains(where: needsScan) || scalars.indices.contains(where: { eatenLineFeedTail(scalars, at: $0) != nil }) else {
            return TextIntegrityResult(repaired: text, recoveries: [], problems: [])
        }
        var inspector = Inspector(scalars)
        return inspector.run(original: text)
    }

    /// The rest of a `\n` command after a line feed at `i` that breaks a sentence off mid-way
    /// ("The mean ⏎u (mu) of …", the model's "\nu" read as the JSON escape): the letters after it,
    /// when `n` plus them is a command the converter knows and they are no English word or
    /// abbreviation a line could start with (`e`, `i`, `eg` before "e.g.", `exists`, `less`,
    /// `mid`, `parallel`). Only after a letter, digit, space, comma or parenthesis: a line feed that ends a
    /// sentence, a heading or a list item is a line break, whatever follows.
    static func eatenLineFeedTail(_ s: [Unicode.Scalar], at i: Int) -> String? {
        guard i > 0, i + 1 < s.count, s[i] == "\n" else { return nil }
        let before = s[i - 1]
        guard isLetter(before) || (before.value >= 0x30 && before.value <= 0x39) || " ,()".unicodeScalars.contains(before) else { return nil }
        var j = i + 1
        while j < s.count, isLetter(s[j]) { j += 1 }
        guard j > i + 1, j - i - 1 <= 24, j == s.count || (s[j] != "." && s[j] != "'") else { return nil }
        let tail = String(String.UnicodeScalarView(s[i + 1..<j]))
        guard !lineFeedWordTails.contains(tail), commands.contains("n" + tail) else { return nil }
        return tail
    }

    /// Rests of `\n` commands that are English words or start abbreviations (`e.g.`, `i.e.`).
    static let lineFeedWordTails: Set<String> = ["e", "i", "eg", "exists", "less", "mid", "parallel"]

    private static func needsScan(_ c: Unicode.Scalar) -> Bool {
        let v = c.value
        return (v < 0x20 && v != 0x0A) || (v >= 0x7F && v <= 0x9F) || c == "$" || c == "\\" || c == "{"
    }

    // MARK: Command names (from TeXMath)

    /// Control words (letters only) the converter knows.
    static let commands: Set<String> = TeXMath.knownCommands.filter(isWord)

    /// Names that read the same without a backslash: upright function and operator names.
    static let operatorNames: Set<String> = TeXMath.operatorNames.filter(isWord).union(["mod", "bmod", "pmod", "pod"])

    /// Symbol names that are also English words or common identifiers: written bare inside math
    /// they may be meant as the word (`P(star)`), so a missing backslash is not assumed.
    static let wordLike: Set<String> = [
        "top", "bot", "angle", "triangle", "square", "star", "diamond", "flat", "natural", "sharp", "degree",
        "copyright", "pounds", "yen", "euro", "prime", "cap", "cup", "wedge", "vee", "land", "lor", "bullet", "mid",
        "models", "between", "therefore", "because", "implies", "impliedby", "iff", "gets", "smile", "frown", "colon",
        "slash", "owns", "isin", "dots", "sum", "prod", "int", "ell", "eth", "circ", "ast", "div", "sim", "perp",
        "lozenge", "checkmark", "maltese", "complement", "surd", "neg", "lnot", "dag", "ddag", "amalg", "Box",
        "Diamond", "Game", "Join", "And", "Cap", "Cup", "Colon", "lat", "race", "less", "ceil", "floor", "group",
        "vert", "backslash", "centerdot", "restriction", "measuredangle", "sphericalangle",
    ]

    /// What a bare word inside math may stand for without being followed by `{`: symbols and the
    /// few structural commands that are never English.
    static let standaloneCommands: Set<String> = TeXMath.symbolCommands.filter { isWord($0) && $0.unicodeScalars.count >= 3 }
        .subtracting(wordLike).subtracting(operatorNames)
        .union(["frac", "dfrac", "tfrac", "cfrac", "binom", "dbinom", "tbinom", "sqrt", "cdot", "cdots", "ldots"])

    /// `left`, `right` and their big forms: reported bare only before a delimiter.
    static let delimiterCommands: Set<String> = ["left", "right", "bigl", "bigr", "Bigl", "Bigr", "biggl", "biggr", "Biggl", "Biggr"]

    /// Commands whose arguments are text, names or lengths, not math: their letters are not checked.
    static let textArgumentCommands: Set<String> = TeXMath.knownCommands.filter {
        $0.hasPrefix("text") && !$0.hasSuffix("style")
    }.union([
        "text", "mbox", "hbox", "vbox", "emph", "mathrm", "mathup", "mathit", "mathsf", "mathtt", "mathbf", "mathnormal",
        "operatorname", "operatornamewithlimits", "label", "ref", "eqref", "tag", "begin", "end", "color", "textcolor",
        "colorbox", "fcolorbox", "href", "url", "unicode", "hspace", "hskip", "kern", "mkern", "mskip", "mspace",
        "vspace", "raisebox", "DeclareMathOperator", "newcommand", "renewcommand", "providecommand", "newenvironment",
        "renewenvironment", "def", "verb",
        "class", "cssId", "style", "htmlClass", "htmlId", "htmlStyle", "htmlData",
    ])

    /// The math environments `\begin{…}` opens outside `$…$` too.
    static let environments: Set<String> = TeXMath.knownEnvironments.subtracting(["center"])

    static func isWord(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy(isLetter)
    }

    @inline(__always) static func isLetter(_ c: Unicode.Scalar) -> Bool {
        (c.value >= 0x41 && c.value <= 0x5A) || (c.value >= 0x61 && c.value <= 0x7A)
    }

    /// The JSON escape letter a control character stands for, if it is one of the five.
    static func escapeLetter(_ c: Unicode.Scalar) -> Unicode.Scalar? {
        switch c.value {
        case 0x0C: return "f"
        case 0x08: return "b"
        case 0x09: return "t"
        case 0x0A: return "n"
        case 0x0D: return "r"
        default: return nil
        }
    }

    /// Known commands that `run` completes with one of f, b, t, n, r in front.
    static func prefixedCommands(_ run: String) -> [String] {
        ["f", "b", "t", "n", "r"].map { $0 + run }.filter { commands.contains($0) }
    }

    /// The commands a bare `run` may stand for: itself when it is one (and a Greek letter it is the
    /// rest of: `eta` may be \beta), else the commands it completes with a lost escape letter.
    static func likelyCommands(_ run: String, fitting fits: (String) -> Bool) -> [String] {
        let prefixed = prefixedCommands(run).filter(fits)
        guard fits(run) else { return prefixed }
        return [run] + prefixed.filter { ["beta", "theta", "tau", "nu", "rho"].contains($0) }
    }

    /// A readable name for a control character, with its code point.
    static func describe(_ c: Unicode.Scalar) -> String {
        let hex = String(c.value, radix: 16, uppercase: true)
        let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        switch c.value {
        case 0x00: return "a NUL character (\(code))"
        case 0x08: return "a backspace (\(code))"
        case 0x09: return "a tab (\(code))"
        case 0x0A: return "a line feed (\(code))"
        case 0x0B: return "a vertical tab (\(code))"
        case 0x0C: return "a form feed (\(code))"
        case 0x0D: return "a carriage return (\(code))"
        case 0x1B: return "an escape character (\(code))"
        case 0x7F: return "a delete character (\(code))"
        case 0x80...0x9F: return "the C1 control character \(code)"
        default: return "the control character \(code)"
        }
    }

    /// The short name used in recoveries: "form feed".
    static func shortName(_ c: Unicode.Scalar) -> String {
        switch c.value {
        case 0x08: return "backspace"
        case 0x09: return "tab"
        case 0x0A: return "line feed"
        case 0x0C: return "form feed"
        case 0x0D: return "carriage return"
        default: return "control character"
        }
    }
}

// MARK: - The scan

/// Where a scalar is, for the rules above.
private enum Zone: UInt8 {
    case text, fencedCode, indentedCode, codeSpan, inlineMath, displayMath

    var isMath: Bool { self == .inlineMath || self == .displayMath }
}

/// Problems or recoveries counted by kind: one line per kind, the count after its `head`.
private struct Tally {
    var order: [String] = []
    var entries: [String: (head: String, tail: String, count: Int)] = [:]

    mutating func add(key: String, head: @autoclosure () -> String, tail: @autoclosure () -> String) {
        if let entry = entries[key] {
            entries[key] = (entry.head, entry.tail, entry.count + 1)
        } else {
            order.append(key)
            entries[key] = (head(), tail(), 1)
        }
    }

    func lines(unit: String, limit: Int) -> [String] {
        var lines: [String] = []
        for key in order.prefix(limit) {
            guard let entry = entries[key] else { continue }
            lines.append(entry.head + (entry.count > 1 ? " (\(entry.count) \(unit))" : "") + entry.tail)
        }
        if order.count > limit {
            lines.append("and \(order.count - limit) more kinds of problem like these")
        }
        return lines
    }
}

private struct Inspector {
    let s: [Unicode.Scalar]
    let n: Int
    var zone: [Zone]
    /// Math content ranges, in order.
    var mathSpans: [Range<Int>] = []
    /// Positions of control characters read (or reported) as a lost command escape: the lost-backslash
    /// scan treats them as a backslash.
    var commandStart: [Bool]
    var recoveries = Tally()
    var problems = Tally()
    /// Bounds the work spent on delimiter attempts that fail, so hostile text stays linear.
    var budget = 0
    /// The code spans `MarkdownLayout` found: where each starts → where it ends (scalars).
    var codeSpanEnd: [Int: Int] = [:]

    /// The longest letter run looked up as a command (the longest known name is far shorter).
    static let maxCommandLength = 40
    static let problemLimit = 12

    init(_ scalars: [Unicode.Scalar]) {
        s = scalars
        n = scalars.count
        zone = [Zone](repeating: .text, count: scalars.count)
        commandStart = [Bool](repeating: false, count: scalars.count)
    }

    /// The inline code and math content it reads (scalar ranges): for the test that holds it to
    /// `MarkdownLayout` where no escape was eaten.
    mutating func inlineZones(original: String) -> (codeSpans: [Range<Int>], math: [Range<Int>]) {
        for run in markBlocks(original) { scanRun(run) }
        var spans: [Range<Int>] = []
        var i = 0
        while i < n {
            guard zone[i] == .codeSpan else {
                i += 1
                continue
            }
            var j = i
            while j < n, zone[j] == .codeSpan { j += 1 }
            spans.append(i..<j)
            i = j
        }
        return (spans, mathSpans)
    }

    mutating func run(original: String) -> TextIntegrityResult {
        for run in markBlocks(original) { scanRun(run) }
        let repaired = repairControls()
        for span in mathSpans { checkMath(span) }
        checkTextBraces()
        let recoveryLines = recoveries.lines(unit: "times", limit: Int.max)
        let problemLines = problems.lines(unit: "places", limit: Self.problemLimit)
        return TextIntegrityResult(repaired: recoveries.order.isEmpty ? original : repaired, recoveries: recoveryLines, problems: problemLines)
    }

    // MARK: Helpers

    func letterRunEnd(from i: Int) -> Int {
        var j = i
        while j < n, TextIntegrity.isLetter(s[j]) { j += 1 }
        return j
    }

    func string(_ range: Range<Int>) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: s[range])
        return String(view)
    }

    /// The command a control character at `i` stands for, if its escape letter and the letters after
    /// it make one the converter knows: (name, end of the letters).
    func eatenCommand(at i: Int) -> (name: String, end: Int)? {
        guard i < n, let letter = TextIntegrity.escapeLetter(s[i]) else { return nil }
        let end = letterRunEnd(from: i + 1)
        guard end > i + 1, end - i - 1 <= Self.maxCommandLength else { return nil }
        let name = String(letter) + string(i + 1..<end)
        return TextIntegrity.commands.contains(name) ? (name, end) : nil
    }

    /// What follows position `i` for a message: up to 16 characters, to the next space.
    func snippet(after i: Int) -> String {
        var view = String.UnicodeScalarView()
        var j = i + 1
        while j < n, j <= i + 16 {
            let c = s[j]
            if c.value <= 0x20 || (c.value >= 0x7F && c.value <= 0x9F) { break }
            view.append(c)
            j += 1
        }
        return String(view)
    }

    // MARK: Blocks

    /// Marks code blocks as `MarkdownLayout` reads them (the reading the renderer and every check
    /// share); returns its runs (paragraphs, headings, table rows), where inline code and math are
    /// looked for, as scalar ranges.
    mutating func markBlocks(_ original: String) -> [Range<Int>] {
        let layout = MarkdownLayout(original)
        let scalarAt = layout.scalarIndexes()
        for block in layout.codeBlocks {
            let bytes = layout.byteRange(of: block)
            // The block's lines, without the break that ends its last one (which is text).
            let start = scalarAt[bytes.lowerBound]
            var end = scalarAt[bytes.upperBound]
            if block.lineRange.upperBound < layout.lineStarts.count { end -= 1 }
            if start < end { markCode(start..<end, block.fenced ? .fencedCode : .indentedCode) }
        }
        for span in layout.codeSpans { codeSpanEnd[scalarAt[span.lowerBound]] = scalarAt[span.upperBound] }
        return layout.runs.map { scalarAt[$0.lowerBound]..<scalarAt[$0.upperBound] }
    }

    mutating func markCode(_ range: Range<Int>, _ kind: Zone) {
        for i in range { zone[i] = kind }
    }

    // MARK: Inline code and math

    /// Finds code spans and formulas in one run, with the renderer's rules (pandoc's
    /// `tex_math_dollars`), reading a control character that stands for a lost command escape as
    /// the backslash it was: `$<tab>imes$` is a formula.
    mutating func scanRun(_ run: Range<Int>) {
        budget = run.count * 8 + 4096
        var hopelessDisplayDollar = Int.max
        var hopelessBracket = Int.max
        var hopelessEnvironments: Set<String> = []
        let end = run.upperBound
        var i = run.lowerBound
        while i < end {
            let c = s[i]
            // A backspace before `egin{` is a `\begin` whose backslash went to the JSON escape.
            if c == "\\" || (c == "\u{8}" && eatenCommand(at: i)?.name == "begin") {
                guard i + 1 < end else { break }
                let next = s[i + 1]
                if c == "\\", next == "(", let m = inlineMath(from: i + 2, end: end, dollar: false) {
                    markMath(i + 2..<m.contentEnd, .inlineMath)
                    i = m.end
                    continue
                }
                if c == "\\", next == "[", i + 2 < hopelessBracket {
                    if let m = displayMath(from: i + 2, end: end, closer: ("\\", "]")) {
                        markMath(i + 2..<m.contentEnd, .displayMath)
                        i = m.end
                        continue
                    }
                    hopelessBracket = i + 2
                }
                if TextIntegrity.isLetter(next) {
                    let wordEnd = letterRunEnd(from: i + 1)
                    let word = (c == "\\" ? "" : "b") + string(i + 1..<wordEnd)
                    if word == "begin", let environmentEnd = environment(from: wordEnd, end: end, hopeless: &hopelessEnvironments) {
                        markMath(i..<environmentEnd, .displayMath)
                        i = environmentEnd
                        continue
                    }
                    i = wordEnd
                    continue
                }
                i += 2
            } else if c == "`" {
                // Code spans are the layout's (cmark's pairing of backtick runs).
                if let close = codeSpanEnd[i] {
                    for p in i..<close { zone[p] = .codeSpan }
                    i = close
                } else {
                    while i < end, s[i] == "`" { i += 1 }
                }
            } else if c == "$" {
                if i + 1 < end, s[i + 1] == "$" {
                    if i + 2 < hopelessDisplayDollar {
                        if let m = displayMath(from: i + 2, end: end, closer: ("$", "$")) {
                            markMath(i + 2..<m.contentEnd, .displayMath)
                            i = m.end
                            continue
                        }
                        hopelessDisplayDollar = i + 2
                    }
                    i += 2
                    continue
                }
                if let m = inlineMath(from: i + 1, end: end, dollar: true) {
                    markMath(i + 1..<m.contentEnd, .inlineMath)
                    i = m.end
                    continue
                }
                i += 1
            } else {
                i += 1
            }
        }
    }

    mutating func markMath(_ range: Range<Int>, _ kind: Zone) {
        guard !range.isEmpty else { return }
        for p in range { zone[p] = kind }
        mathSpans.append(range)
    }

    /// Space that may not open or close `$…$`; a control character standing for a lost escape is
    /// not space.
    func isMathSpace(_ j: Int) -> Bool {
        let c = s[j]
        guard c == " " || c == "\t" || c == "\n" || c == "\r" else { return false }
        return eatenCommand(at: j) == nil
    }

    /// `$…$` (`dollar`) or `\(…\)` from `start` (just after the opener).
    mutating func inlineMath(from start: Int, end: Int, dollar: Bool) -> (contentEnd: Int, end: Int)? {
        guard budget > 0, start < end else { return nil }
        if dollar {
            let first = s[start]
            if first == "$" || first == "\u{B}" || first == "\u{A0}" || isMathSpace(start) { return nil }
            if first == "\u{C}", eatenCommand(at: start) == nil { return nil }
        }
        var j = start
        var firstStep = true
        while j < end {
            budget -= 1
            if budget <= 0 { return nil }
            let c = s[j]
            if dollar, c == "$" {
                if firstStep || (j + 1 < end && isDigit(s[j + 1])) { return nil }
                return (j, j + 1)
            }
            if !dollar, c == "\\", j + 1 < end, s[j + 1] == ")" {
                if firstStep || (j + 2 < end && isDigit(s[j + 2])) { return nil }
                return (j, j + 2)
            }
            firstStep = false
            if c == "\\" || eatenCommand(at: j)?.name == "text" {
                guard j + 1 < end else { return nil }
                if let after = textGroupEnd(at: j, end: end) {
                    j = after
                    continue
                }
                j += c == "\\" ? 2 : 1
                continue
            }
            if isMathSpace(j) {
                while j < end, isMathSpace(j) { j += 1 }
                if j >= end || s[j] == "$" { return nil }
                continue
            }
            j += 1
        }
        return nil
    }

    func isDigit(_ c: Unicode.Scalar) -> Bool { c.value >= 0x30 && c.value <= 0x39 }

    /// `\text{…}` (or a tab standing for `\t` before `ext{`) with balanced braces, so a `$` inside
    /// does not close the formula: the index after it.
    mutating func textGroupEnd(at j: Int, end: Int) -> Int? {
        let brace: Int
        if s[j] == "\\" {
            guard j + 5 < end, s[j + 1..<j + 5].elementsEqual("text".unicodeScalars) else { return nil }
            brace = j + 5
        } else {
            guard j + 4 < end, s[j + 1..<j + 4].elementsEqual("ext".unicodeScalars) else { return nil }
            brace = j + 4
        }
        guard s[brace] == "{" else { return nil }
        var q = brace
        var depth = 0
        while q < end {
            budget -= 1
            if budget <= 0 { return nil }
            switch s[q] {
            case "{": depth += 1
            case "}":
                depth -= 1
                if depth == 0 { return q + 1 }
            case "\\": q += 1
            default: break
            }
            q += 1
        }
        return nil
    }

    /// `$$…$$` or `\[…\]` from `start`: at least one character, up to the first closer.
    mutating func displayMath(from start: Int, end: Int, closer: (Unicode.Scalar, Unicode.Scalar)) -> (contentEnd: Int, end: Int)? {
        guard start < end else { return nil }
        if start + 1 < end, s[start] == closer.0, s[start + 1] == closer.1 { return nil }
        var j = start + 1
        while j + 1 < end {
            if s[j] == closer.0, s[j + 1] == closer.1 { return (j, j + 2) }
            j += 1
        }
        return nil
    }

    /// After `\begin`: `{name}` of a math environment and its `\end{name}` in the run; the index after
    /// the `\end{name}`.
    mutating func environment(from p: Int, end: Int, hopeless: inout Set<String>) -> Int? {
        guard p < end, s[p] == "{" else { return nil }
        var q = p + 1
        while q < end, q - p <= Self.maxCommandLength, s[q] != "}" { q += 1 }
        guard q < end, s[q] == "}" else { return nil }
        let name = string(p + 1..<q)
        guard TextIntegrity.environments.contains(name), !hopeless.contains(name) else { return nil }
        let closer = Array(("\\end{" + name + "}").unicodeScalars)
        var j = q + 1
        while j + closer.count <= end {
            if s[j] == "\\", s[j..<j + closer.count].elementsEqual(closer) { return j + closer.count }
            j += 1
        }
        hopeless.insert(name)
        return nil
    }

    // MARK: Control characters

    /// Recovers or reports every control character; returns the repaired text.
    mutating func repairControls() -> String {
        var out = String.UnicodeScalarView()
        var i = 0
        while i < n {
            let c = s[i]
            let v = c.value
            if v >= 0x20, v < 0x7F || v > 0x9F {
                out.append(c)
                i += 1
                continue
            }
            if let name = recoverable(at: i) {
                out.append("\\")
                if let letter = TextIntegrity.escapeLetter(c) { out.append(letter) }
                commandStart[i] = true
                let rest = string(i + 1..<min(n, i + name.unicodeScalars.count))
                let shown = rest + (i + name.unicodeScalars.count < n && s[i + name.unicodeScalars.count] == "{" ? "{" : "")
                recoveries.add(
                    key: "\(v) \(shown)", head: "\(TextIntegrity.shortName(c)) + \"\(shown)\" inside math read as \\\(name)", tail: "")
            } else {
                report(at: i)
                out.append(c)
            }
            i += 1
        }
        return String(out)
    }

    /// The command a control character at `i` is recovered as, when that is unambiguous.
    func recoverable(at i: Int) -> String? {
        guard zone[i].isMath, let eaten = eatenCommand(at: i) else { return nil }
        if s[i] == "\n", zone[i] == .displayMath, eaten.end - i - 1 < 2 { return nil }
        return eaten.name
    }

    /// Reports the control character at `i` unless it is legitimate where it is.
    mutating func report(at i: Int) {
        let c = s[i]
        let eaten = eatenCommand(at: i)
        switch c.value {
        case 0x0A:
            // A line break, unless it breaks a sentence before the rest of a `\n` command outside
            // math and code (inside math it was recovered or is a line of the formula).
            guard TextIntegrity.eatenLineFeedTail(s, at: i) != nil, zone[i] == .text, zone[i + 1] == .text else { return }
        case 0x09:
            guard let eaten, isDistinctiveTabTail(eaten) else { return }
            // A tab starting an indented code block may be an eaten \t at the start of a line
            // ("\theta = 0.5" as a whole answer); any other tab in code is the code's own.
            switch zone[i] {
            case .codeSpan, .fencedCode, .inlineMath, .displayMath: return
            case .indentedCode: if i > 0, s[i - 1] != "\n" { return }
            case .text: break
            }
        case 0x0D:
            if i + 1 < n, s[i + 1] == "\n", recoverable(at: i + 1) == nil { return }
        default:
            break
        }
        commandStart[i] = eaten != nil || (TextIntegrity.escapeLetter(c) != nil && i + 1 < n && TextIntegrity.isLetter(s[i + 1]))
        let what = TextIntegrity.describe(c)
        let after = snippet(after: i)
        let before = after.isEmpty ? "" : " before \"\(after)\""
        let place: String
        switch zone[i] {
        case .text: place = "outside math"
        case .indentedCode where i == 0 || s[i - 1] == "\n": place = "at the start of a line"
        case .fencedCode, .indentedCode, .codeSpan: place = "in code"
        case .inlineMath, .displayMath: place = "inside math"
        }
        let head = "contains \(what)\(before) \(place)"
        if let eaten, let letter = TextIntegrity.escapeLetter(c) {
            let formulas = zone[i].isMath || place == "in code" ? "" : " and put formulas between $…$"
            problems.add(
                key: "eaten \(c.value) \(eaten.name) \(place)", head: head,
                tail:
                    ": the JSON escape \"\\\(letter)\" took the backslash of \\\(eaten.name) — write TeX backslashes doubled inside JSON strings (\"\\\\\(eaten.name)\")\(formulas)"
            )
        } else if let letter = TextIntegrity.escapeLetter(c), i + 1 < n, TextIntegrity.isLetter(s[i + 1]) {
            problems.add(
                key: "escape \(c.value) \(after) \(place)", head: head,
                tail:
                    ": a backslash was probably read as the JSON escape \"\\\(letter)\" — write backslashes doubled inside JSON strings (\"\\\\\(letter)…\"), or remove the character"
            )
        } else {
            problems.add(key: "control \(c.value) \(place)", head: head, tail: " — remove it: text may not carry control characters")
        }
    }

    /// A tab before the rest of a `\t` command that is not an English-looking start (`an`, `op`).
    func isDistinctiveTabTail(_ eaten: (name: String, end: Int)) -> Bool {
        let tail = eaten.name.dropFirst()
        return tail.count >= 2 && !["an", "op", "ag"].contains(tail)
    }

    // MARK: Lost backslashes

    /// Looks for command names written without their backslash in one formula.
    mutating func checkMath(_ span: Range<Int>) {
        let end = span.upperBound
        var i = span.lowerBound
        while i < end {
            let c = s[i]
            if c == "\\" || commandStart[i] {
                let nameStart = i + 1
                guard nameStart < end, TextIntegrity.isLetter(s[nameStart]) else {
                    i += 2
                    continue
                }
                let nameEnd = min(letterRunEnd(from: nameStart), end)
                var name = string(nameStart..<nameEnd)
                if c != "\\", let letter = TextIntegrity.escapeLetter(c) { name = String(letter) + name }
                i = TextIntegrity.textArgumentCommands.contains(name) ? skipArguments(of: name, from: nameEnd, end: end) : nameEnd
                continue
            }
            if TextIntegrity.isLetter(c) {
                let runEnd = min(letterRunEnd(from: i), end)
                checkRun(i..<runEnd, end: end)
                i = runEnd
                continue
            }
            i += 1
        }
    }

    /// After a text-argument command: skips `*`, `[…]` and its braced arguments (two for
    /// `\fcolorbox` and `\begin{array}{…}`, one otherwise).
    func skipArguments(of name: String, from start: Int, end: Int) -> Int {
        var i = start
        if i < end, s[i] == "*" { i += 1 }
        var groups = name == "fcolorbox" ? 2 : 1
        var first = true
        while groups > 0 {
            while i < end, s[i] == " " { i += 1 }
            if i < end, s[i] == "[" {
                while i < end, s[i] != "]" { i += 1 }
                i = min(i + 1, end)
                continue
            }
            guard i < end, s[i] == "{" else { return i }
            let open = i
            var depth = 0
            while i < end {
                let c = s[i]
                i += c == "\\" ? 2 : 1
                if c == "{" { depth += 1 }
                if c == "}" {
                    depth -= 1
                    if depth == 0 { break }
                }
            }
            i = min(i, end)
            if first, name == "begin", Self.environmentsWithColumns.contains(string(open + 1..<max(open + 1, i - 1))) {
                groups += 1
            }
            first = false
            groups -= 1
        }
        return i
    }

    /// Environments whose second argument is a column specification (`{lll}`), not math.
    static let environmentsWithColumns: Set<String> = ["array", "darray", "subarray", "alignat", "alignat*", "alignedat"]

    /// One run of letters inside math, not part of a command name.
    mutating func checkRun(_ run: Range<Int>, end: Int) {
        guard run.count >= 2, run.count <= Self.maxCommandLength else { return }
        let word = string(run)
        if TextIntegrity.operatorNames.contains(word) { return }
        let next = run.upperBound < end ? s[run.upperBound] : nil
        if next == "{" {
            let candidates = TextIntegrity.likelyCommands(word) { TextIntegrity.commands.contains($0) }
            guard !candidates.isEmpty else { return }
            lostBackslash(word + "{", candidates, inMath: true)
            return
        }
        guard run.count >= 3, !TextIntegrity.wordLike.contains(word) else { return }
        let beforeDelimiter = isBeforeDelimiter(run.upperBound, end: end)
        func fits(_ name: String) -> Bool {
            TextIntegrity.standaloneCommands.contains(name) || (beforeDelimiter && TextIntegrity.delimiterCommands.contains(name))
        }
        let candidates = TextIntegrity.likelyCommands(word, fitting: fits)
        guard !candidates.isEmpty else { return }
        lostBackslash(word, candidates, inMath: true)
    }

    func isBeforeDelimiter(_ p: Int, end: Int) -> Bool {
        var q = p
        while q < end, s[q] == " " { q += 1 }
        guard q < end else { return false }
        return "()[]|.<>\\".unicodeScalars.contains(s[q])
    }

    mutating func lostBackslash(_ written: String, _ candidates: [String], inMath: Bool) {
        guard let first = candidates.first else { return }
        let place = inMath ? "inside math" : "outside math"
        let names = candidates.map { "\\" + $0 }.joined(separator: " or ")
        let json = "(\"\\\\\(first)\" inside a JSON string)"
        let formulas = inMath ? "" : ", between $…$"
        let head = "writes \"\(written)\" \(place)"
        if candidates.count == 1, written.hasPrefix(first) {
            problems.add(key: "lost \(written) \(place)", head: head, tail: " without its backslash — write \\\(first)\(formulas) \(json)")
        } else {
            problems.add(
                key: "lost \(written) \(place)", head: head,
                tail: ": probably \(names) that lost its backslash — write the command with it\(formulas) \(json)")
        }
    }

    /// Outside math and code: a known command name (or one missing its escape letter) directly
    /// before `{`, not part of a longer word or a command.
    mutating func checkTextBraces() {
        var i = 0
        while i < n {
            defer { i += 1 }
            guard s[i] == "{", zone[i] == .text, i > 0, TextIntegrity.isLetter(s[i - 1]) else { continue }
            var k = i - 1
            while k > 0, TextIntegrity.isLetter(s[k - 1]), i - k <= Self.maxCommandLength { k -= 1 }
            guard i - k >= 3, i - k <= Self.maxCommandLength else { continue }
            if k > 0 {
                let before = s[k - 1]
                if before == "\\" || before == "_" || before == "." || commandStart[k - 1] || isDigit(before)
                    || before.properties.isAlphabetic
                {
                    continue
                }
            }
            let word = string(k..<i)
            if TextIntegrity.operatorNames.contains(word) { continue }
            let candidates = TextIntegrity.likelyCommands(word) { TextIntegrity.commands.contains($0) }
            guard !candidates.isEmpty else { continue }
            lostBackslash(word + "{", candidates, inMath: false)
        }
    }
}

extension TextIntegrity {
    /// Inspects one field of an answer (a JSON string value after decoding): as `inspect`, and
    /// formulas written without math delimiters are read between `$…$` where nothing but math can
    /// be meant — the local model's options "\u{C}rac{105}{512}" and feedback "Yes:
    /// \u{8}inom{10}{5} \u{9}imes (1/2)^{10} is the chance." A formula is a run of commands with
    /// their brace groups, numbers, single letters, operators and brackets that holds a command,
    /// stopping at a word of two letters or more and a line break, less the sentence's punctuation
    /// at its ends; the escapes JSON ate in it are then recovered as inside math. Used only when
    /// the text as written has a problem or TeX outside math, and the text so delimited has
    /// neither; a text that already has `$` or code, a formula glued to a word, brackets left
    /// unbalanced or a line break before a letter (an eaten `\n`?) are left to the repair prompt.
    public static func inspectField(_ text: String) -> TextIntegrityResult {
        let inspected = inspect(text)
        // Most strings hold neither a problem nor a backslash: no further scan on them.
        guard !inspected.problems.isEmpty || (inspected.repaired.contains("\\") && !commandsOutsideMath(inspected.repaired).isEmpty),
            let candidate = delimitingFormulas(text)
        else {
            return inspected
        }
        let delimited = inspect(candidate)
        guard delimited.problems.isEmpty, commandsOutsideMath(delimited.repaired).isEmpty else { return inspected }
        return TextIntegrityResult(
            repaired: delimited.repaired, recoveries: delimited.recoveries + ["formulas written without $…$ read as math"], problems: [])
    }

    /// `text` with each formula written in it without delimiters put between `$…$` (see
    /// `inspectField`), or nil when it has none, or has `$` or code already. Texts of up to 4,000
    /// scalars only: a brace group that never closes is scanned again from each command inside
    /// it, so hostile text costs quadratic time, bounded by that length.
    static func delimitingFormulas(_ text: String) -> String? {
        guard !text.contains("$"), !text.contains("`"), text.unicodeScalars.count <= 4_000 else { return nil }
        let s = Array(text.unicodeScalars)
        let n = s.count
        // A line break before a letter may be an eaten `\n` (`\nu`, `\neq`): not told apart here.
        if s.indices.contains(where: { s[$0] == "\n" && $0 + 1 < n && isLetter(s[$0 + 1]) }) { return nil }
        func letters(from i: Int) -> Int {
            var j = i
            while j < n, isLetter(s[j]) { j += 1 }
            return j
        }
        func isWordLetter(_ c: Unicode.Scalar) -> Bool { c.properties.isAlphabetic || c == "'" || c == "’" }
        // The end of a command token at `i` (a backslash or an eaten escape, then a known name, then
        // its brace groups), or nil.
        func command(at i: Int) -> Int? {
            let nameStart = i + 1
            var name: String
            if s[i] == "\\" {
                name = ""
            } else if let letter = escapeLetter(s[i]), s[i] != "\n" {
                name = String(Character(letter))
            } else {
                return nil
            }
            let end = letters(from: nameStart)
            guard end > nameStart || !name.isEmpty else { return nil }
            name += String(String.UnicodeScalarView(s[nameStart..<end]))
            guard commands.contains(name) else { return nil }
            var j = end
            while j < n, s[j] == "{" {
                var depth = 0
                var k = j
                while k < n {
                    if s[k] == "{" { depth += 1 } else if s[k] == "}" { depth -= 1; if depth == 0 { break } }
                    if s[k] == "\n" { return nil }
                    k += 1
                }
                guard k < n else { return nil }
                j = k + 1
            }
            return j
        }
        let operators: Set<Unicode.Scalar> = ["+", "-", "*", "/", "=", "<", ">", "^", "_", "(", ")", "[", "]", "{", "}", "|", "!", ",", ".", ";", ":", "×", "÷", "·", "−", "±", "≤", "≥", "≠"]
        var spans: [Range<Int>] = []
        var i = 0
        while i < n {
            // A span: tokens and the spaces between them, holding at least one command.
            var j = i
            var last = i
            var hasCommand = false
            while j < n {
                if let end = command(at: j) {
                    hasCommand = true
                    j = end
                    last = j
                } else if s[j].properties.numericType != nil {
                    j += 1
                    last = j
                } else if isWordLetter(s[j]) {
                    let before = j > 0 && isWordLetter(s[j - 1])
                    let after = j + 1 < n && isWordLetter(s[j + 1])
                    guard !before, !after else { break }
                    j += 1
                    last = j
                } else if operators.contains(s[j]) {
                    j += 1
                    last = j
                } else if s[j] == " " {
                    j += 1
                } else {
                    break
                }
            }
            if hasCommand {
                var start = i
                var end = last
                // The sentence's punctuation and spaces at the ends, and a bracket that opens or
                // closes outside; brackets left unbalanced are not told apart: asked again.
                let outer: Set<Unicode.Scalar> = [" ", ".", ",", "!", ";", ":"]
                while start < end, outer.contains(s[start]) { start += 1 }
                while end > start, outer.contains(s[end - 1]) { end -= 1 }
                var opened = s[start..<end].filter { $0 == "(" }.count
                var closed = s[start..<end].filter { $0 == ")" }.count
                if closed > opened, end > start, s[end - 1] == ")" { end -= 1; closed -= 1 }
                if opened > closed, start < end, s[start] == "(" { start += 1; opened -= 1 }
                if opened != closed { return nil }
                // A formula glued to a word ("learner's", "2nd") is not told apart from it: asked again.
                if start > 0, isWordLetter(s[start - 1]) { return nil }
                if end < n, isWordLetter(s[end]) { return nil }
                if start < end { spans.append(start..<end) }
            }
            i = max(j, last, i + 1)
            // Skip the rest of a word, so a span never starts inside one.
            while i < n, i > 0, isWordLetter(s[i - 1]), isWordLetter(s[i]) { i += 1 }
        }
        guard !spans.isEmpty else { return nil }
        var out = String.UnicodeScalarView()
        var p = 0
        for span in spans {
            out.append(contentsOf: s[p..<span.lowerBound])
            out.append("$")
            out.append(contentsOf: s[span])
            out.append("$")
            p = span.upperBound
        }
        out.append(contentsOf: s[p..<n])
        return String(out)
    }

    /// TeX commands written with their backslash outside math and code, each once in order:
    /// "f(x; \mu, \sigma) = \frac{1}{…}" in an option shows the learner "\frac{1}{…}" as typed.
    /// Only the converter's command names (`commands`) count, so a Windows path or a `\n` in prose
    /// is no formula.
    public static func commandsOutsideMath(_ markdown: String) -> [String] {
        // What the renderer shows as text: `$ x $` (a space inside the dollars) is no formula.
        let text = MarkdownLayout(markdown).prose(codeSpan: { _ in " " }, formula: { _ in " " }).replacing("\\$", with: " ")
        var found: [String] = []
        for match in text.matches(of: CompiledPatterns.commandName) {
            let name = String(match.output.1)
            if commands.contains(name), !found.contains(name) { found.append(name) }
        }
        return found
    }

    /// Straight double quotes outside code and math that close no quotation (`The mean of a normal
    /// distribution is η"), `, `… is $\frac{1}{6}$").`): pieces of the answer's JSON the
    /// model left in a text. A quote after a space, an opening bracket, a dash or a colon (or
    /// starting its paragraph) opens; one before a space or punctuation closes; any other toggles.
    /// Each stray quote as a snippet of up to 30 characters before it and 3 after.
    public static func strayQuotes(_ markdown: String) -> [String] {
        // Code and math stand as "…" (in snippets too): a quote right after a formula closes
        // (`… is $\frac{1}{6}$")`).
        let prose = MarkdownLayout(markdown).prose(codeSpan: { _ in "…" }, formula: { _ in "…" })
        var found: [String] = []
        for paragraph in prose.split(separator: CompiledPatterns.blankLine) {
            let chars = Array(paragraph)
            var open = false
            for (i, c) in chars.enumerated() where c == "\"" {
                let before: Character = i > 0 ? chars[i - 1] : " "
                let after: Character = i + 1 < chars.count ? chars[i + 1] : " "
                if before.isWhitespace || "([{/—–-:".contains(before) {
                    open = true
                } else if after.isWhitespace || ".,;:)]}!?".contains(after) {
                    if !open {
                        found.append(String(chars[max(0, i - 30)..<min(chars.count, i + 4)]).trimmingCharacters(in: .whitespacesAndNewlines))
                    }
                    open = false
                } else {
                    open.toggle()
                }
            }
        }
        return found
    }
}
