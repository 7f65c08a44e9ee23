/// One TeX token. Control words keep their name without the backslash; everything else that is
/// not structural arrives as a single Unicode scalar, so the parser never sees raw bytes.
enum Token: Equatable, Sendable {
    case command(String)
    case char(Unicode.Scalar)
    case beginGroup
    case endGroup
    case superscript
    case `subscript`
    case alignment
    case parameter(Int)
    case space
    case active
    case mathShift
    case verbatim(String)

    /// The token written back as TeX source, for raw arguments (colour names, lengths, URLs).
    var sourceText: String {
        switch self {
        case .command(let name):
            // A control word needs a space after it to stay one word when re-read.
            if let first = name.unicodeScalars.first, Lexer.isLetter(first) { return "\\" + name + " " }
            return "\\" + name
        case .char(let scalar): return String(scalar)
        case .beginGroup: return "{"
        case .endGroup: return "}"
        case .superscript: return "^"
        case .subscript: return "_"
        case .alignment: return "&"
        case .parameter(let n): return "#\(n)"
        case .space: return " "
        case .active: return "~"
        case .mathShift: return "$"
        case .verbatim(let text): return text
        }
    }
}

/// Turns TeX source into tokens in one pass over its Unicode scalars (no regexes: the renderer
/// converts thousands of formulas, so this stays linear and allocation-light).
enum Lexer {
    static func isLetter(_ s: Unicode.Scalar) -> Bool {
        (s.value >= 0x41 && s.value <= 0x5A) || (s.value >= 0x61 && s.value <= 0x7A)
    }

    static func isSpace(_ s: Unicode.Scalar) -> Bool {
        s == " " || s == "\t" || s == "\n" || s == "\r"
    }

    static func tokenize(_ source: String) -> [Token] {
        var source = source
        // ASCII (most formulas): read the bytes in place instead of decoding them into an array.
        let ascii = source.withUTF8 { bytes in
            bytes.contains(where: { $0 >= 0x80 }) ? nil : tokenize(ASCIIScalars(bytes: bytes))
        }
        return ascii ?? tokenize(Array(source.unicodeScalars))
    }

    /// UTF-8 bytes below 0x80 seen as the scalars they are.
    private struct ASCIIScalars: ScalarSource {
        let bytes: UnsafeBufferPointer<UInt8>
        var startIndex: Int { 0 }
        var endIndex: Int { bytes.count }
        subscript(position: Int) -> Unicode.Scalar { Unicode.Scalar(bytes[position]) }
        func text(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
    }

    private static func tokenize<Scalars: ScalarSource>(_ scalars: Scalars) -> [Token] {
        var tokens: [Token] = []
        tokens.reserveCapacity(scalars.count)
        var i = 0
        let n = scalars.count
        while i < n {
            let c = scalars[i]
            switch c {
            case "\\":
                i += 1
                guard i < n else {
                    // A lone trailing backslash: keep it visible rather than dropping input.
                    tokens.append(.command(""))
                    break
                }
                if isLetter(scalars[i]) {
                    let start = i
                    while i < n, isLetter(scalars[i]) { i += 1 }
                    let word = scalars.text(start..<i)
                    // Spaces after a control word are not tokens (TeX's rule).
                    while i < n, isSpace(scalars[i]) { i += 1 }
                    if word == "verb" {
                        i = lexVerbatim(scalars, from: i, into: &tokens)
                    } else {
                        tokens.append(.command(word))
                    }
                } else {
                    let symbol = scalars[i]
                    i += 1
                    // "\ " followed by a newline is still one control space.
                    tokens.append(.command(isSpace(symbol) ? " " : String(symbol)))
                }
            case "{": tokens.append(.beginGroup); i += 1
            case "}": tokens.append(.endGroup); i += 1
            case "^": tokens.append(.superscript); i += 1
            case "_": tokens.append(.subscript); i += 1
            case "&": tokens.append(.alignment); i += 1
            case "~": tokens.append(.active); i += 1
            case "$": tokens.append(.mathShift); i += 1
            case "%":
                // A comment runs to the end of the line and swallows the line break.
                while i < n, scalars[i] != "\n" { i += 1 }
                i += 1
            case "#":
                if i + 1 < n, scalars[i + 1].value >= 0x31, scalars[i + 1].value <= 0x39 {
                    tokens.append(.parameter(Int(scalars[i + 1].value - 0x30)))
                    i += 2
                } else {
                    tokens.append(.char("#"))
                    i += 1
                }
            default:
                if isSpace(c) {
                    while i < n, isSpace(scalars[i]) { i += 1 }
                    if tokens.last != .space { tokens.append(.space) }
                } else {
                    tokens.append(.char(c))
                    i += 1
                }
            }
        }
        return tokens
    }

    /// `\verb|text|` (or `\verb*|text|`): everything up to the repeated delimiter is literal.
    private static func lexVerbatim<Scalars: ScalarSource>(_ scalars: Scalars, from start: Int, into tokens: inout [Token]) -> Int {
        var i = start
        let n = scalars.count
        if i < n, scalars[i] == "*" { i += 1 }
        guard i < n else {
            tokens.append(.command("verb"))
            return i
        }
        let delimiter = scalars[i]
        i += 1
        var text = String.UnicodeScalarView()
        while i < n, scalars[i] != delimiter {
            text.append(scalars[i])
            i += 1
        }
        i += 1
        tokens.append(.verbatim(String(text)))
        return i
    }
}

/// What the lexer reads: scalars by position, and a run of them as text.
private protocol ScalarSource: RandomAccessCollection where Element == Unicode.Scalar, Index == Int {
    func text(_ range: Range<Int>) -> String
}

extension Array: ScalarSource where Element == Unicode.Scalar {
    fileprivate func text(_ range: Range<Int>) -> String {
        var text = String.UnicodeScalarView()
        text.append(contentsOf: self[range])
        return String(text)
    }
}
