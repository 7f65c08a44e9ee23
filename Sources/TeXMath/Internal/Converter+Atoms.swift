/// A delimiter after \left, \right, \big …: a character, TeX's null delimiter `.`, or nothing usable.
enum Delimiter {
    case symbol(String)
    case null
    case invalid

    var text: String? {
        if case .symbol(let s) = self { return s }
        return nil
    }
}

extension Converter {
    // MARK: Arguments

    /// One argument: a `{…}` group or a single atom (`\frac12` takes `1` and `2`).
    func parseArgument() -> MathNode {
        .row(parseArgumentNodes())
    }

    enum ArgumentStart {
        case group, atom, missing
    }

    /// Like `parseArgument` but returns the group's nodes unwrapped. Kept small: it is on the
    /// recursion path of every argument.
    func parseArgumentNodes() -> [MathNode] {
        switch argumentStart() {
        case .group:
            let nodes = scoped { parseList(.endGroup) }
            expectEndGroup()
            return nodes.isEmpty ? [MathNode(.mrow)] : nodes
        case .atom:
            guard enterNesting() else { return [.error("…")] }
            defer { depth -= 1 }
            return [parseAtom(single: true) ?? MathNode(.mrow)]
        case .missing:
            return [MathNode(.mrow)]
        }
    }

    /// Skips spaces and classifies what starts an argument (consuming a `{`).
    private func argumentStart() -> ArgumentStart {
        while stream.peek() == .space { _ = stream.next() }
        guard let token = stream.peek() else {
            warn("Missing argument at the end of the formula")
            return .missing
        }
        switch token {
        case .beginGroup:
            _ = stream.next()
            return .group
        case .endGroup, .alignment, .superscript, .subscript, .mathShift:
            warn("Missing argument")
            return .missing
        case .command("\\"), .command("cr"), .command("end"), .command("right"), .command("middle"):
            if case .command(let name) = token { warn("Missing argument before \\\(name)") }
            return .missing
        default:
            return .atom
        }
    }

    func expectEndGroup() {
        if stream.peek() == .endGroup {
            _ = stream.next()
        } else {
            warn("Missing } at the end of the formula")
        }
    }

    /// `[…]` parsed as math, or nil when no bracket follows.
    func parseOptionalMath() -> [MathNode]? {
        while stream.peek() == .space { _ = stream.next() }
        guard stream.peek() == .char("[") else { return nil }
        _ = stream.next()
        let nodes = parseList(.closeBracket)
        if stream.peek() == .char("]") { _ = stream.next() } else { warn("Missing ] after an optional argument") }
        return nodes
    }

    // MARK: Atoms

    /// Parses one atom. `single` limits numbers and words to one character (arguments).
    func parseAtom(single: Bool = false) -> MathNode? {
        guard let token = stream.next() else { return nil }
        if token == .beginGroup { return finishGroup(scoped { parseList(.endGroup) }) }
        if case .command(let name) = token { return command(name) }
        return simpleAtom(token, single: single)
    }

    private func simpleAtom(_ token: Token, single: Bool) -> MathNode? {
        switch token {
        case .char(let c): return charAtom(c, single: single)
        case .active: return .mtext("\u{A0}")
        case .verbatim(let text): return .mtext(text)
        case .parameter(let n): return .mi("#\(n)")
        default: return nil
        }
    }

    /// A `{…}` group as one ordinary atom (TeX makes `{\sum}` an ordinary symbol).
    private func finishGroup(_ nodes: [MathNode]) -> MathNode {
        expectEndGroup()
        guard nodes.count == 1 else { return MathNode(.mrow, nodes) }
        var node = nodes[0]
        node.role = node.role == .largeOperator || node.role == .namedOperator ? .ordinary : node.role
        node.placement = .sides
        node.mergeable = false
        return node
    }

    static func isDigit(_ c: Unicode.Scalar) -> Bool { c.value >= 0x30 && c.value <= 0x39 }

    func charAtom(_ c: Unicode.Scalar, single: Bool) -> MathNode? {
        if Lexer.isLetter(c) { return letter(c) }
        if Self.isDigit(c) || (c == "." && !single && Self.isDigit(peekChar() ?? " ")) {
            var text = String(c)
            if !single {
                var seenPoint = c == "."
                while let next = peekChar() {
                    if Self.isDigit(next) {
                        text.unicodeScalars.append(next)
                    } else if next == ".", !seenPoint, let after = peekSecondChar(), Self.isDigit(after) {
                        seenPoint = true
                        text.unicodeScalars.append(next)
                    } else {
                        break
                    }
                    _ = stream.next()
                }
            }
            if let font, font != .roman { return .mn(font.apply(text)) }
            return .mn(text)
        }
        switch c {
        case "+": return .mo("+")
        case "-": return .mo("−")
        case "*": return .mo("∗")
        case "/": return .mo("/", role: .ordinary)
        case "=", "<", ">", ",", ";", ":", "!", "?": return .mo(String(c))
        case "(", "[": return .mo(String(c), [(.stretchy, "false")], role: .opening)
        case ")", "]": return .mo(String(c), [(.stretchy, "false")], role: .closing)
        case "|": return .mo("|", [(.stretchy, "false")], role: .ordinary)
        case "'": return .mo("′", role: .ordinary)
        case "`": return .mo("‘", role: .ordinary)
        case ".", "@", "\"", "#": return .mi(String(c))
        default: return unicodeAtom(c)
        }
    }

    private func peekChar() -> Unicode.Scalar? {
        if case .char(let c)? = stream.peek() { return c }
        return nil
    }

    /// The character after the next one, without expanding macros (digits never are macros).
    private func peekSecondChar() -> Unicode.Scalar? {
        guard let first = stream.nextRaw() else { return nil }
        defer { stream.pushFront([first]) }
        if case .char(let c)? = stream.peekRaw() { return c }
        return nil
    }

    func letter(_ c: Unicode.Scalar) -> MathNode {
        guard let font else { return .mi(String(c)) }
        var node: MathNode
        if let mapped = font.map(c) {
            node = .mi(String(mapped))
        } else {
            node = .mi(String(c), upright: font == .roman)
        }
        node.mergeable = font.formsWords
        return node
    }

    /// A non-ASCII character typed directly: classified by its Unicode category.
    func unicodeAtom(_ c: Unicode.Scalar) -> MathNode? {
        if let font, let mapped = font.map(c) { return .mi(String(mapped)) }
        let properties = c.properties
        switch properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter:
            return .mi(String(c))
        case .decimalNumber, .letterNumber, .otherNumber:
            return .mn(String(c))
        case .mathSymbol, .dashPunctuation, .otherPunctuation, .connectorPunctuation, .format:
            return .mo(String(c))
        case .openPunctuation, .initialPunctuation:
            return .mo(String(c), [(.stretchy, "false")], role: .opening)
        case .closePunctuation, .finalPunctuation:
            return .mo(String(c), [(.stretchy, "false")], role: .closing)
        case .spaceSeparator:
            return c == "\u{A0}" ? .mtext("\u{A0}") : .mtext(String(c))
        case .lineSeparator, .paragraphSeparator:
            return nil
        case .control, .surrogate:
            warn("Unsupported control character U+\(String(c.value, radix: 16, uppercase: true))")
            return nil
        case .otherSymbol:
            // Arrows and geometric shapes typed directly behave like operators in TeX fonts.
            return properties.isMath ? .mo(String(c)) : .mi(String(c))
        default:
            return .mi(String(c))
        }
    }

    /// The node for a symbol-table entry, honouring the current math font.
    func symbolNode(_ info: SymbolInfo) -> MathNode {
        switch info.symbolClass {
        case .identifier, .uprightIdentifier:
            if let font, info.text.unicodeScalars.count == 1, let scalar = info.text.unicodeScalars.first,
                let mapped = font.map(scalar)
            {
                return .mi(String(mapped))
            }
            return .mi(info.text, upright: info.symbolClass == .uprightIdentifier || font == .roman)
        case .operatorSymbol:
            return .mo(info.text)
        case .opening:
            return .mo(info.text, [(.stretchy, "false")], role: .opening)
        case .closing:
            return .mo(info.text, [(.stretchy, "false")], role: .closing)
        case .fence:
            return .mo(info.text, [(.stretchy, "false")], role: .ordinary)
        case .largeOperator:
            var node = MathNode.mo(info.text, role: .largeOperator)
            node.placement = .movable
            return node
        case .integral:
            return .mo(info.text, role: .largeOperator)
        case .function:
            var node = MathNode.mi(info.text)
            node.role = .function
            return node
        case .namedOperator:
            var node = MathNode.mo(info.text, [(.lspace, "0"), (.rspace, "0")], role: .namedOperator)
            node.placement = .movable
            return node
        }
    }

    // MARK: Delimiters

    func readDelimiter() -> Delimiter {
        while stream.peek() == .space { _ = stream.next() }
        guard let token = stream.peek() else {
            warn("Missing delimiter")
            return .invalid
        }
        switch token {
        case .char(let c):
            _ = stream.next()
            switch c {
            case ".": return .null
            case "<": return .symbol("⟨")
            case ">": return .symbol("⟩")
            case "-": return .symbol("−")
            default:
                if Lexer.isLetter(c) || Self.isDigit(c) {
                    warn("\(c) is not a delimiter")
                    stream.pushFront([token])
                    return .invalid
                }
                return .symbol(String(c))
            }
        case .command(let name):
            if name == "lt" { _ = stream.next(); return .symbol("⟨") }
            if name == "gt" { _ = stream.next(); return .symbol("⟩") }
            if name == "backslash" { _ = stream.next(); return .symbol("\\") }
            if let info = Symbols.table[name] {
                switch info.symbolClass {
                case .opening, .closing, .fence, .operatorSymbol:
                    _ = stream.next()
                    return .symbol(info.text)
                default: break
                }
            }
            warn("\\\(name) is not a delimiter")
            return .invalid
        case .beginGroup:
            // `\left{(}` is not TeX, but `\big{(}` sometimes appears; read one token inside.
            _ = stream.next()
            let inner = readDelimiter()
            expectEndGroup()
            return inner
        default:
            warn("Missing delimiter")
            return .invalid
        }
    }

    // MARK: Dimensions and colours

    /// A dimension written raw after a primitive (`\kern-3mu`, `\hskip 1em`) or in braces.
    func readDimension() -> String? {
        stream.skipRawSpaces()
        var text = ""
        if stream.peekRaw() == .beginGroup {
            text = readRawText()
        } else {
            // A signed decimal, then a two-letter unit (optionally after "true").
            while case .char(let c)? = stream.peekRaw(), Self.isDigit(c) || c == "." || c == "," || c == "-" || c == "+" {
                text.unicodeScalars.append(c)
                _ = stream.nextRaw()
            }
            stream.skipRawSpaces()
            var unit = ""
            while case .char(let c)? = stream.peekRaw(), Lexer.isLetter(c),
                unit.unicodeScalars.count < 2 || (unit.hasPrefix("tr") && unit.unicodeScalars.count < 6)
            {
                unit.unicodeScalars.append(c)
                _ = stream.nextRaw()
            }
            text += unit
        }
        guard let length = Units.length(text) else {
            warn("Invalid dimension \"\(text)\"")
            return nil
        }
        return length
    }

    /// Skips TeX glue's stretch and shrink (`\hskip 1em plus 1fil minus 2pt`): MathML spaces
    /// do not stretch, and the keywords must not render as letters.
    func skipGlueStretch() {
        for keyword in ["plus", "minus"] {
            stream.skipRawSpaces()
            var consumed: [Token] = []
            for expected in keyword.unicodeScalars {
                guard let token = stream.peekRaw(), token == .char(expected) else { break }
                consumed.append(token)
                _ = stream.nextRaw()
            }
            guard consumed.count == keyword.unicodeScalars.count else {
                stream.pushFront(consumed)
                continue
            }
            stream.skipRawSpaces()
            var sawNumber = false
            while case .char(let c)? = stream.peekRaw(), Self.isDigit(c) || c == "." || c == "," || c == "-" || c == "+" {
                sawNumber = true
                _ = stream.nextRaw()
            }
            guard sawNumber else {
                // "plus" not followed by a dimension is ordinary text: put it back.
                stream.pushFront(consumed)
                return
            }
            stream.skipRawSpaces()
            while case .char(let c)? = stream.peekRaw(), Lexer.isLetter(c) { _ = stream.nextRaw() }
        }
    }

    /// `{spec}` or `[model]{spec}` as a validated colour; nil (with a warning) otherwise.
    func readColorArgument() -> String? {
        let model = stream.readOptionalRaw().map(Self.text(of:))
        let spec = readRawText()
        // `\color{}` is a no-op rather than an error (as in MathJax).
        if spec.isEmpty, model == nil { return nil }
        guard let color = Units.color(spec, model: model) else {
            warn("Unsupported colour \"\(spec)\"")
            return nil
        }
        return color
    }
}
