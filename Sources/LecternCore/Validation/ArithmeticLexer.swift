import Foundation

// Reading arithmetic out of model text, step one: tokens. Everything here is internal;
// `ArithmeticClaims` is the public surface. Anything the lexer is not sure of becomes an `opaque`
// token, which makes the expression it is in unevaluable: a claim that is skipped costs nothing,
// a claim misread costs a re-ask.

/// A number as written: its exact value and how precisely it was stated.
struct NumberLiteral: Hashable, Sendable {
    var value: ExactRational
    /// Digits after the decimal point ("0.250" has 3); 0 for whole numbers.
    var decimals: Int
    /// Whether it was written with a decimal point.
    var hasPoint: Bool
    /// Digits from the first non-zero one: 17 for Python's "0.30000000000000004".
    var significantDigits: Int
    /// The digits as written when they are a plain run of ASCII digits (no point, no separators):
    /// TeX reads `\frac12` as 1/2 and `2^10` as 2¹·0, so a single-token argument takes one digit.
    var plainDigits: String?
}

enum TokenKind: Hashable, Sendable {
    case number(NumberLiteral)
    case plus, minus, times, divide, power
    case factorial, percent
    /// A Unicode superscript exponent: ² ³ ⁻¹.
    case superscript(Int)
    case open(Bracket), close(Bracket)
    case relation(ClaimRelation)
    /// An argument separator inside brackets: C(5,3).
    case comma
    /// `\frac`, `\dfrac`, `\tfrac`, `\cfrac`.
    case fraction
    /// `\binom`, `\dbinom`, `\tbinom`.
    case binomial
    /// `\sqrt` (an optional `[n]` degree follows).
    case texRoot
    /// `√`, `∛`, `∜`, with their degree.
    case radical(Int)
    /// `C(` (n, k) and `sqrt(` (x) written as functions.
    case binomialFunction, rootFunction
    /// `P(` (n, k): the permutations of k of n things, n! / (n − k)!. Only before two whole numbers
    /// ("P(5, 3)"); P(A) and P(X = 5) are probabilities and stay opaque.
    case permutationFunction
    /// `cbrt(` (x) and `root(` (x, n), read outside prose only (the solution syntax).
    case cubeRootFunction, nthRootFunction
    /// π: `π` and `\pi`, and `pi` outside prose. Read outside prose only: in running text a
    /// claim with π is left alone (3.14 and 22/7 stand for it there).
    case pi
    /// `choose` in "(20 choose 10)" and `\choose`.
    case choose
    /// Something that is not arithmetic: a variable, an unknown command, a symbol.
    case opaque
    /// `…`, `...`, `\dots`: the values around it are not all written out.
    case ellipsis
    /// Ends a run of mathematics: a prose word, sentence punctuation, `\quad`, `\text{…}`. Carries
    /// the words when there are some (a dash carries "—").
    case boundary(String?)
    /// TeX's `\\` line break.
    case lineBreak
}

/// How a relation between two sides reads; only `=` and `≈` are checked.
enum ClaimRelation: Hashable, Sendable {
    case equal, approximately, other
}

enum Bracket: Hashable, Sendable {
    /// ( ) and \left( \right).
    case round
    /// [ ].
    case square
    /// TeX's invisible group { }.
    case group
    /// Visible braces \{ \} (a set, usually).
    case curly
}

struct Token: Hashable, Sendable {
    var kind: TokenKind
    /// Unicode-scalar offsets in the text.
    var range: Range<Int>
    /// Whether white space (or TeX spacing) precedes it.
    var spaced: Bool
}

/// Turns a region of text into tokens. `prose` selects the rules for running text outside math
/// delimiters: words end a run, a glued hyphen between numbers is a range, `*` may be emphasis.
struct ArithmeticLexer {
    let text: [Unicode.Scalar]
    let range: Range<Int>
    let prose: Bool
    private var position: Int
    private var tokens: [Token] = []
    private var spaced = true
    private var depth = 0
    /// A `\not` waits for its relation.
    private var negateNextRelation = false
    /// Where a `\left` or `\bigl` before the next token started, so that it belongs to the claim's text.
    private var pendingStart: Int?

    init(text: [Unicode.Scalar], range: Range<Int>, prose: Bool) {
        self.text = text
        self.range = range
        self.prose = prose
        self.position = range.lowerBound
    }

    static func tokens(_ text: [Unicode.Scalar], in range: Range<Int>, prose: Bool) -> [Token] {
        var lexer = ArithmeticLexer(text: text, range: range, prose: prose)
        lexer.run()
        return lexer.tokens
    }

    // MARK: Character access

    private func char(_ offset: Int) -> Unicode.Scalar? {
        offset >= range.lowerBound && offset < range.upperBound ? text[offset] : nil
    }

    private var current: Unicode.Scalar? { char(position) }
    private func peek(_ distance: Int = 1) -> Unicode.Scalar? { char(position + distance) }

    private static func isSpace(_ c: Unicode.Scalar?) -> Bool {
        guard let c else { return false }
        return c == " " || c == "\t" || c == "\r" || c == "\u{A0}" || c == "\u{202F}" || c == "\u{2009}" || c == "\u{200A}"
            || c == "\u{2006}" || c == "\u{2005}" || c == "\u{2007}" || c == "\u{FEFF}" || c == "\u{200B}" || c == "\u{0C}"
    }

    static func digitValue(_ c: Unicode.Scalar?) -> UInt8? {
        guard let c else { return nil }
        switch c.value {
        case 0x30...0x39: return UInt8(c.value - 0x30)
        case 0x660...0x669: return UInt8(c.value - 0x660)  // Arabic-Indic
        case 0x6F0...0x6F9: return UInt8(c.value - 0x6F0)  // Extended Arabic-Indic (Persian, Urdu)
        default: return nil
        }
    }

    private static func isDigit(_ c: Unicode.Scalar?) -> Bool { digitValue(c) != nil }

    static func isLetter(_ c: Unicode.Scalar?) -> Bool {
        guard let c else { return false }
        return c.properties.isAlphabetic && digitValue(c) == nil
    }

    private mutating func emit(_ kind: TokenKind, from start: Int) {
        tokens.append(Token(kind: kind, range: min(start, pendingStart ?? start)..<position, spaced: spaced))
        pendingStart = nil
        spaced = false
        switch kind {
        case .open: depth += 1
        case .close: depth = max(0, depth - 1)
        case .boundary, .lineBreak: depth = 0
        default: break
        }
    }

    private mutating func emitBoundary(_ word: String? = nil, from start: Int) {
        emit(.boundary(word), from: start)
        spaced = true
    }

    // MARK: Main loop

    private mutating func run() {
        var lineStart = prose && (range.lowerBound == 0 || text[range.lowerBound - 1] == "\n")
        while let c = current {
            let start = position
            if lineStart {
                lineStart = false
                skipLineStartMarkers()
                continue
            }
            if c == "\n" {
                position += 1
                if prose {
                    emitBoundary(from: start)
                    lineStart = true
                } else {
                    spaced = true
                }
                continue
            }
            if Self.isSpace(c) {
                position += 1
                spaced = true
                continue
            }
            // Directional marks and isolates (BidiMath) are invisible: "٢\u{200E}√٣" is ٢√٣.
            if BidiMath.isControl(c) {
                position += 1
                continue
            }
            if Self.isDigit(c) || (c == "." && Self.isDigit(peek()) && !Self.isDigit(char(position - 1))) {
                lexNumber()
                continue
            }
            if Self.isLetter(c) {
                lexWord()
                continue
            }
            lexSymbol(c)
        }
    }

    /// Markdown block markers at a line start: list bullets and numbers, quote marks, headings.
    private mutating func skipLineStartMarkers() {
        var offset = position
        while Self.isSpace(char(offset)) { offset += 1 }
        if offset > position { spaced = true }
        position = offset
        let start = offset
        guard let c = char(offset) else { return }
        if (c == "-" || c == "*" || c == "+" || c == "•") && (Self.isSpace(char(offset + 1)) || char(offset + 1) == "\n") {
            position = offset + 1
        } else if c == ">" || c == "#" {
            while char(offset) == c || char(offset) == ">" { offset += 1 }
            position = offset
        } else if Self.isDigit(c) {
            var end = offset
            while Self.isDigit(char(end)) { end += 1 }
            if end - offset <= 3, char(end) == "." || char(end) == ")", Self.isSpace(char(end + 1)) { position = end + 1 } else { return }
        } else {
            return
        }
        emitBoundary(from: start)
    }

    // MARK: Numbers

    private mutating func lexNumber() {
        let start = position
        var digits = ""
        var plain = true
        while let d = Self.digitValue(current) {
            digits.append(Character(Unicode.Scalar(d + 0x30)))
            position += 1
        }
        // Thousands separators where they cannot be an argument separator: 1,024 and 1{,}024
        // and 1\,024 at the top level, each group exactly three digits.
        if depth == 0 && digits.count <= 3 && !digits.isEmpty {
            while true {
                let separatorLength: Int
                if current == "," || current == "\u{066C}" {
                    separatorLength = 1
                } else if !prose, current == "{", peek() == ",", peek(2) == "}" {
                    separatorLength = 3
                } else if !prose, current == "\\", peek() == "," {
                    separatorLength = 2
                } else {
                    break
                }
                let groupStart = position + separatorLength
                guard (0..<3).allSatisfy({ Self.isDigit(char(groupStart + $0)) }), !Self.isDigit(char(groupStart + 3)) else { break }
                for offset in 0..<3 { digits.append(Character(Unicode.Scalar((Self.digitValue(char(groupStart + offset)) ?? 0) + 0x30))) }
                position = groupStart + 3
                plain = false
            }
        }
        var fraction = ""
        var hasPoint = false
        if (current == "." || current == "\u{066B}") && Self.isDigit(peek()) {
            hasPoint = true
            plain = false
            position += 1
            while let d = Self.digitValue(current) {
                fraction.append(Character(Unicode.Scalar(d + 0x30)))
                position += 1
            }
        }
        // "0.\overline{3}", "5.x": a point glued to something other than digits.
        if current == "." || current == "\u{066B}", let after = peek(), !Self.isSpace(after), after != "\n", !Self.isDigit(after),
            !"\"')]}$*_,;:!?".unicodeScalars.contains(after)
        {
            position += 1
            emit(.opaque, from: start)
            return
        }
        // 1.2.3 (a version or an address), 2,5 (a decimal comma, or a list), 3:2 (a ratio or a
        // time) are not arithmetic.
        func joinsAnother(_ c: Unicode.Scalar?) -> Bool { c == "." || c == ":" || (c == "," && depth == 0) }
        if joinsAnother(current) && Self.isDigit(peek()) {
            while Self.isDigit(current) || (joinsAnother(current) && Self.isDigit(peek())) { position += 1 }
            emit(.opaque, from: start)
            return
        }
        if prose, let end = dateOrRangeEnd() {
            position = end
            emit(.opaque, from: start)
            return
        }
        let text = (digits.isEmpty ? "0" : digits) + (hasPoint ? "." + fraction : "")
        guard digits.count + fraction.count <= 400, let value = ExactRational(decimal: text) else {
            emit(.opaque, from: start)
            return
        }
        let significant = (digits + fraction).drop(while: { $0 == "0" }).count
        let literal = NumberLiteral(
            value: value, decimals: fraction.count, hasPoint: hasPoint, significantDigits: significant,
            plainDigits: plain && !digits.isEmpty ? digits : nil)
        emit(.number(literal), from: start)
    }

    /// In running text, a number glued by hyphens or slashes to others is a date, a range, a
    /// phone number or a score (2017-2018, 12/25/2020, 555-1234, 10-20), not a subtraction or a
    /// division — except a short difference inside brackets, as in C(5,3) = 5!/(3!(5-3)!).
    /// Returns where such a run ends.
    private func dateOrRangeEnd() -> Int? {
        var offset = position
        var hyphens = 0
        var slashes = 0
        var first = position
        while Self.isDigit(char(first - 1)) { first -= 1 }
        var longest = position - first
        while let c = char(offset), c == "-" || c == "/" || c == "\u{2013}", Self.isDigit(char(offset + 1)) {
            if c == "/" { slashes += 1 } else { hyphens += 1 }
            offset += 1
            let numberStart = offset
            while Self.isDigit(char(offset)) { offset += 1 }
            longest = max(longest, offset - numberStart)
        }
        if hyphens == 0 && slashes == 0 { return nil }
        if hyphens + slashes >= 2 { return offset }
        if slashes == 1 { return nil }
        // One glued hyphen: a subtraction only inside brackets and between short numbers.
        if depth > 0 && longest <= 3 && char(offset) != "." && char(offset) != "," { return nil }
        return offset
    }

    // MARK: Words

    private mutating func lexWord() {
        let start = position
        while Self.isLetter(current) || (current == "'" && Self.isLetter(peek())) || current == "\u{2019}" && Self.isLetter(peek()) {
            position += 1
        }
        let word = String(String.UnicodeScalarView(text[start..<position]))
        if word == "C" && current == "(" {
            emit(.binomialFunction, from: start)
            return
        }
        if word == "P" && current == "(" && wholeNumberPair(from: position) {
            emit(.permutationFunction, from: start)
            return
        }
        if word.lowercased() == "sqrt" && current == "(" {
            emit(.rootFunction, from: start)
            return
        }
        if word == "choose" {
            emit(.choose, from: start)
            return
        }
        guard prose else {
            switch word.lowercased() {
            case "π", "pi": emit(.pi, from: start)
            case "cbrt" where current == "(": emit(.cubeRootFunction, from: start)
            case "root" where current == "(": emit(.nthRootFunction, from: start)
            default: emit(.opaque, from: start)
            }
            return
        }
        // A single letter is a variable; a word glued to a number or a bracket (5th, 3x, Var(X))
        // belongs to it; any other word ends the run.
        let before = char(start - 1)
        let glued = Self.isDigit(before) || before == ")" || before == "]" || Self.isDigit(current) || current == "(" || current == "_"
        if word.unicodeScalars.count == 1 || glued {
            emit(.opaque, from: start)
        } else {
            emitBoundary(word, from: start)
        }
    }

    /// Whether the text at `offset` reads "(n, k)" with whole numbers n and k.
    private func wholeNumberPair(from offset: Int) -> Bool {
        var at = offset
        guard char(at) == "(" else { return false }
        at += 1
        for closing in [",", ")"] as [Unicode.Scalar] {
            while let c = char(at), Self.isSpace(c) { at += 1 }
            let digits = at
            while Self.isDigit(char(at)) { at += 1 }
            guard at > digits else { return false }
            while let c = char(at), Self.isSpace(c) { at += 1 }
            guard char(at) == closing else { return false }
            at += 1
        }
        return true
    }

    // MARK: Symbols

    private mutating func lexSymbol(_ c: Unicode.Scalar) {
        let start = position
        position += 1
        switch c {
        case "+", "\u{FF0B}":
            emit(.plus, from: start)
        case "-":
            if prose && (current == "-" || current == ">") {
                while current == "-" || current == ">" { position += 1 }
                emitBoundary("—", from: start)
            } else if prose && (Self.isLetter(char(start - 1)) || Self.isLetter(current) && !Self.isSpace(char(start - 1)) && char(start - 1) != nil) {
                emit(.opaque, from: start)  // a hyphenated word: x-3, COVID-19, 3-fold
            } else {
                emit(.minus, from: start)
            }
        case "\u{2212}", "\u{FE63}", "\u{FF0D}":
            emit(.minus, from: start)
        case "\u{2013}", "\u{2014}", "\u{2015}":
            // A range when glued to numbers (10–20); spaced, a dash, or a minus written with a
            // dash, so the sides next to it are not read when numbers stand on both (see
            // `ClaimReader.separatingWords`).
            if Self.isDigit(char(start - 1)) && Self.isDigit(current) { emit(.opaque, from: start) } else { emitBoundary("—", from: start) }
        case "\u{2192}", "\u{21D2}", "\u{27F9}", "\u{21A6}", "\u{2190}", "\u{21D4}", "\u{2022}":
            emitBoundary(from: start)
        case "\u{00D7}", "\u{2715}", "\u{22C5}", "\u{00B7}", "\u{2219}", "\u{2217}":
            emit(.times, from: start)
        case "*":
            lexAsterisk(start)
        case "\u{00F7}", "\u{2215}", "\u{2044}":
            emit(.divide, from: start)
        case "/":
            if prose && current == "/" {
                while current == "/" { position += 1 }
                emitBoundary(from: start)
            } else if prose && (Self.isLetter(char(start - 1)) || Self.isLetter(current)) {
                emit(.opaque, from: start)  // and/or, km/h, x/3
            } else {
                emit(.divide, from: start)
            }
        case "^":
            // Spaced in running text it may be Python's exclusive or: 5 ^ 3 = 6.
            if prose && spaced && Self.isSpace(current) { emit(.opaque, from: start) } else { emit(.power, from: start) }
        case "!":
            lexExclamation(start)
        case "%":
            // 25% is a quarter; 7 % 3 is Python's remainder, and "%" before a word is prose.
            let tight = !spaced && !tokens.isEmpty
            if tight && !Self.isDigit(current) && !Self.isLetter(current) && current != "(" {
                emit(.percent, from: start)
            } else {
                emit(.opaque, from: start)
            }
        case "(", "\u{FF08}":
            emit(.open(.round), from: start)
        case ")", "\u{FF09}":
            emit(.close(.round), from: start)
        case "[":
            emit(prose ? .opaque : .open(.square), from: start)
        case "]":
            emit(prose ? .opaque : .close(.square), from: start)
        case "{":
            emit(prose ? .opaque : .open(.group), from: start)
        case "}":
            emit(prose ? .opaque : .close(.group), from: start)
        case "=":
            lexEquals(start)
        case "\u{2248}", "\u{2252}":
            emitRelation(.approximately, from: start)
        case "\u{2260}", "\u{2264}", "\u{2265}", "\u{2261}", "\u{223C}", "\u{221D}", "\u{226A}", "\u{226B}", "\u{2245}", "\u{2243}",
            "\u{2A7D}", "\u{2A7E}":
            emitRelation(.other, from: start)
        case "<", ">":
            lexAngle(c, start)
        case "~":
            if prose { emitBoundary(from: start) } else { spaced = true }
        case "\u{221A}":
            emit(.radical(2), from: start)
        case "\u{221B}":
            emit(.radical(3), from: start)
        case "\u{221C}":
            emit(.radical(4), from: start)
        case "\u{00B2}", "\u{00B3}", "\u{00B9}", "\u{2070}", "\u{2074}"..."\u{2079}", "\u{207B}":
            lexSuperscript(start)
        case ",":
            if depth > 0 {
                emit(.comma, from: start)
            } else {
                emitBoundary(from: start)
            }
        case "\u{060C}", ";", "\u{061B}", "?", "\u{061F}", "|", "\"", "\u{201C}", "\u{201D}", "\u{2018}", "\u{2019}", "#", "@":
            if c == "|" && !prose { emit(.opaque, from: start) } else { emitBoundary(from: start) }
        case ":":
            if current == "=" {
                position += 1
                emitRelation(.other, from: start)
            } else {
                emitBoundary(from: start)
            }
        case ".":
            if current == "." {
                while current == "." { position += 1 }
                emit(.ellipsis, from: start)
            } else {
                emitBoundary(from: start)
            }
        case "\u{2026}", "\u{22EF}", "\u{22EE}", "\u{22F1}":
            emit(.ellipsis, from: start)
        case "&":
            lexAmpersand(start)
        case "_":
            // Emphasis around a number (_0.5_) in prose; a subscript otherwise.
            let wordBefore = Self.isLetter(char(start - 1)) || Self.isDigit(char(start - 1))
            let wordAfter = Self.isLetter(current) || Self.isDigit(current)
            if prose && !(wordBefore && wordAfter) { spaced = true } else { emit(.opaque, from: start) }
        case "\\":
            lexCommand(start)
        case "'", "`":
            if prose { emitBoundary(from: start) } else { emit(.opaque, from: start) }
        default:
            emit(.opaque, from: start)
        }
    }

    private mutating func emitRelation(_ relation: ClaimRelation, from start: Int) {
        emit(.relation(negateNextRelation ? .other : relation), from: start)
        negateNextRelation = false
    }

    private mutating func lexEquals(_ start: Int) {
        var count = 1
        while current == "=" {
            position += 1
            count += 1
        }
        if current == ">" {
            position += 1
            emitBoundary(from: start)
        } else if count >= 3 {
            emitBoundary(from: start)  // a Markdown heading underline
        } else if count == 2 {
            emitRelation(.other, from: start)  // Python's comparison
        } else {
            emitRelation(.equal, from: start)
        }
    }

    private mutating func lexAngle(_ c: Unicode.Scalar, _ start: Int) {
        if prose && c == "<" && (Self.isLetter(current) || current == "/" || current == "!") {
            // An HTML tag: skip to its end on this line.
            var offset = position
            while let next = char(offset), next != ">", next != "\n", offset - position < 200 { offset += 1 }
            if char(offset) == ">" {
                position = offset + 1
                emitBoundary(from: start)
                return
            }
        }
        if current == c {
            // Python's shifts (5 << 1) and Markdown's << >> are no relations.
            while current == c { position += 1 }
            emit(.opaque, from: start)
            return
        }
        if current == "=" {
            position += 1
        } else if c == "<" && (current == "-" || current == "\u{2212}") {
            emitBoundary(from: start)
            return
        }
        emitRelation(.other, from: start)
    }

    private mutating func lexAsterisk(_ start: Int) {
        if current == "*" {
            // Markdown bold (or Python's power, which is not written in prose math): spacing.
            while current == "*" { position += 1 }
            spaced = true
            return
        }
        guard prose else {
            emit(.times, from: start)
            return
        }
        // Multiplication is spaced on both sides or on neither; emphasis hugs its text on one side.
        let before = char(start - 1)
        let after = current
        let spacedBefore = before == nil || Self.isSpace(before) || before == "\n"
        let spacedAfter = after == nil || Self.isSpace(after) || after == "\n"
        if spacedBefore == spacedAfter {
            emit(.times, from: start)
        } else {
            spaced = true
        }
    }

    private mutating func lexExclamation(_ start: Int) {
        if prose && current == "=" {
            position += 1
            emitRelation(.other, from: start)
            return
        }
        let afterOperand: Bool
        switch tokens.last?.kind {
        case .number, .close, .factorial: afterOperand = !spaced
        default: afterOperand = false
        }
        guard afterOperand else {
            if prose { emitBoundary(from: start) } else { emit(.opaque, from: start) }
            return
        }
        if current == "!" {
            // A double factorial, or emphasis: neither is read.
            while current == "!" { position += 1 }
            emit(.opaque, from: start)
            return
        }
        if prose {
            // "= 20!" at the end of a sentence may be an exclamation: only a factorial followed by
            // more mathematics is read as one.
            var offset = position
            while Self.isSpace(char(offset)) { offset += 1 }
            let next = char(offset)
            let continues: Bool
            if let next, Self.isDigit(next) || next == "(" {
                continues = offset == position
            } else if let next {
                continues = "+-\u{2212}\u{00D7}\u{22C5}\u{00B7}*/\u{00F7}^=\u{2248})<>\u{2260}\u{2264}\u{2265},".unicodeScalars.contains(next)
            } else {
                continues = false
            }
            if !continues {
                emit(.opaque, from: start)
                return
            }
        }
        emit(.factorial, from: start)
    }

    private mutating func lexSuperscript(_ start: Int) {
        position = start
        var negative = false
        var digits = ""
        if current == "\u{207B}" {
            negative = true
            position += 1
        }
        loop: while let c = current {
            switch c {
            case "\u{2070}": digits += "0"
            case "\u{00B9}": digits += "1"
            case "\u{00B2}": digits += "2"
            case "\u{00B3}": digits += "3"
            case "\u{2074}"..."\u{2079}": digits += String(c.value - 0x2074 + 4)
            default: break loop
            }
            position += 1
        }
        guard !digits.isEmpty, digits.count <= 6, let value = Int(digits) else {
            emit(.opaque, from: start)
            return
        }
        emit(.superscript(negative ? -value : value), from: start)
    }

    private mutating func lexAmpersand(_ start: Int) {
        guard prose else {
            spaced = true  // an alignment point
            return
        }
        var offset = position
        while Self.isLetter(char(offset)) { offset += 1 }
        guard char(offset) == ";", offset > position else {
            emitBoundary(from: start)
            return
        }
        let name = String(String.UnicodeScalarView(text[position..<offset]))
        position = offset + 1
        switch name {
        case "times", "middot", "sdot": emit(.times, from: start)
        case "divide": emit(.divide, from: start)
        case "minus": emit(.minus, from: start)
        case "asymp": emitRelation(.approximately, from: start)
        case "ne", "le", "ge", "lt", "gt", "equiv": emitRelation(.other, from: start)
        case "nbsp", "thinsp", "ensp", "emsp", "hairsp", "numsp": spaced = true
        default: emitBoundary(from: start)
        }
    }

    // MARK: TeX commands

    private static let ignoredCommands: Set<String> = [
        "left", "right", "bigl", "bigr", "Bigl", "Bigr", "biggl", "biggr", "Biggl", "Biggr", "big", "Big", "bigg", "Bigg",
        "displaystyle", "textstyle", "scriptstyle", "mathbf", "boldsymbol", "bm", "pmb", "boxed", "underline", "mathnormal",
        "limits", "nolimits", "nonumber", "notag", "enspace", "thinspace", "medspace", "thickspace", "negthinspace",
        "negmedspace", "negthickspace", "relax",
    ]
    private static let textCommands: Set<String> = [
        "text", "textrm", "textit", "textbf", "textsf", "texttt", "textnormal", "mathrm", "mathit", "mathsf", "mathtt", "mbox",
        "hbox", "operatorname", "mathtext", "textup", "emph",
    ]
    private static let relationCommands: [String: ClaimRelation] = [
        "approx": .approximately, "thickapprox": .approximately, "approxeq": .approximately,
        "neq": .other, "ne": .other, "leq": .other, "le": .other, "geq": .other, "ge": .other, "lt": .other, "gt": .other,
        "leqslant": .other, "geqslant": .other, "equiv": .other, "sim": .other, "simeq": .other, "cong": .other, "propto": .other,
        "ll": .other, "gg": .other, "doteq": .other, "coloneqq": .other, "eqqcolon": .other, "triangleq": .other, "in": .other,
        "notin": .other, "subset": .other, "subseteq": .other, "supset": .other, "supseteq": .other, "mid": .other,
        "leqq": .other, "geqq": .other, "lesssim": .other, "gtrsim": .other, "asymp": .other,
    ]
    private static let boundaryCommands: Set<String> = [
        "to", "rightarrow", "Rightarrow", "longrightarrow", "Longrightarrow", "implies", "iff", "Leftrightarrow", "leftrightarrow",
        "mapsto", "leftarrow", "Leftarrow", "gets", "impliedby", "therefore", "because", "hline", "newline", "cr", "item",
        "qquad", "quad",
    ]
    private static let ellipsisCommands: Set<String> = [
        "dots", "ldots", "cdots", "dotsc", "dotsb", "dotsm", "dotsi", "dotso", "vdots", "ddots", "mathellipsis",
    ]
    private static let groupSkippingCommands: Set<String> = [
        "label", "tag", "hspace", "vspace", "phantom", "hphantom", "vphantom", "color", "textcolor", "colorbox",
    ]

    private mutating func lexCommand(_ start: Int) {
        guard let first = current else {
            emit(.opaque, from: start)
            return
        }
        if !Self.isLetter(first) || first.value > 0x7F {
            position += 1
            switch first {
            case ",", ";", ":", ">", " ", "!", "\n", "\t": spaced = true
            case "%": emit(.percent, from: start)
            case "{": emit(prose ? .opaque : .open(.curly), from: start)
            case "}": emit(prose ? .opaque : .close(.curly), from: start)
            case "\\": if prose { emit(.opaque, from: start) } else { emit(.lineBreak, from: start); spaced = true }
            case "*": emit(.times, from: start)  // Markdown's escaped asterisk
            case "(", ")", "[", "]":
                // Markdown escapes of brackets in prose; math delimiters never reach here.
                let kind: TokenKind =
                    first == "(" ? .open(.round) : first == ")" ? .close(.round) : prose ? .opaque : first == "[" ? .open(.square) : .close(.square)
                emit(kind, from: start)
            default: emit(.opaque, from: start)
            }
            return
        }
        while let c = current, Self.isLetter(c), c.value <= 0x7F { position += 1 }
        let name = String(String.UnicodeScalarView(text[(start + 1)..<position]))
        if Self.ignoredCommands.contains(name) {
            spaced = true
            if name.hasPrefix("left") || name.hasPrefix("right") || name.hasPrefix("big") || name.hasPrefix("Big") {
                if name.hasPrefix("left") || name.hasSuffix("l") { pendingStart = start }
                skipSpaces()
                if current == "." { position += 1 }
            }
            return
        }
        if name == "not" {
            negateNextRelation = true
            return
        }
        if let relation = Self.relationCommands[name] {
            emitRelation(relation, from: start)
            return
        }
        if Self.boundaryCommands.contains(name) {
            emitBoundary(from: start)
            return
        }
        if Self.ellipsisCommands.contains(name) {
            emit(.ellipsis, from: start)
            return
        }
        if Self.textCommands.contains(name) {
            lexTextCommand(start)
            return
        }
        if Self.groupSkippingCommands.contains(name) {
            // The group is a colour (the coloured text that follows stays), a label or a space.
            skipSpaces()
            _ = skipGroup()
            if name == "label" || name == "tag" || name.hasSuffix("space") { emitBoundary(from: start) } else { spaced = true }
            return
        }
        if name == "begin" || name == "end" {
            skipSpaces()
            _ = skipGroup()
            emitBoundary(from: start)
            return
        }
        switch name {
        case "frac", "dfrac", "tfrac", "cfrac": emit(.fraction, from: start)
        case "binom", "dbinom", "tbinom": emit(.binomial, from: start)
        case "choose": emit(.choose, from: start)
        case "sqrt": emit(.texRoot, from: start)
        case "pi": emit(prose ? .opaque : .pi, from: start)
        case "cdot", "times", "ast", "centerdot": emit(.times, from: start)
        case "div": emit(.divide, from: start)
        case "lbrace": emit(.open(.curly), from: start)
        case "rbrace": emit(.close(.curly), from: start)
        case "lbrack": emit(.open(.square), from: start)
        case "rbrack": emit(.close(.square), from: start)
        case "lparen": emit(.open(.round), from: start)
        case "rparen": emit(.close(.round), from: start)
        default: emit(.opaque, from: start)
        }
    }

    private mutating func skipSpaces() {
        while Self.isSpace(current) || current == "\n" { position += 1 }
    }

    /// Skips a `{…}` group (nested braces included); returns its content range.
    private mutating func skipGroup() -> Range<Int>? {
        guard current == "{" else { return nil }
        var level = 0
        let open = position
        while let c = current {
            position += 1
            if c == "\\" {
                if current != nil { position += 1 }
                continue
            }
            if c == "{" { level += 1 }
            if c == "}" {
                level -= 1
                if level == 0 { return (open + 1)..<(position - 1) }
            }
        }
        return (open + 1)..<min(position, range.upperBound)
    }

    /// `\text{…}`: white space is spacing; words end the run, as in prose.
    private mutating func lexTextCommand(_ start: Int) {
        skipSpaces()
        guard let content = skipGroup() else {
            emit(.opaque, from: start)
            return
        }
        let scalars = text[content]
        if scalars.allSatisfy({ Self.isSpace($0) || $0 == "\n" }) {
            spaced = true
            return
        }
        let words = String(String.UnicodeScalarView(scalars)).split(whereSeparator: { !$0.isLetter })
        if words.isEmpty && scalars.contains(where: { Self.isDigit($0) }) {
            emit(.opaque, from: start)  // \text{20}: rare, and not worth reading
            return
        }
        // The words nearest each side are what context checks need.
        emitBoundary(words.isEmpty ? nil : words.map(String.init).joined(separator: " "), from: start)
    }
}
