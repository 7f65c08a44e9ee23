extension Converter {
    // MARK: Text mode

    func textCommand(font: MathFont?) -> MathNode {
        let nodes = textArgument(font: font)
        return nodes.isEmpty ? .mtext("") : .row(nodes)
    }

    /// A text-mode argument (`\text{…}`): characters become `<mtext>`, `$…$` inside is math again.
    func textArgument(font: MathFont?) -> [MathNode] {
        let saved = textFont
        textFont = font
        defer { textFont = saved }
        while stream.peek() == .space { _ = stream.next() }
        guard let token = stream.peek() else {
            warn("Missing argument at the end of the formula")
            return []
        }
        if token == .beginGroup {
            _ = stream.next()
            return finishText(parseTextGroup())
        }
        // A single token: `\text x`, `\mbox\alpha`.
        return finishText(parseTextTokens(limit: 1))
    }

    private func parseTextGroup() -> [MathNode] {
        guard enterNesting() else {
            skipToStop(.endGroup)
            expectEndGroup()
            return [.error("…")]
        }
        defer { depth -= 1 }
        return parseTextTokens(limit: nil)
    }

    /// What the text loop does after one token; the recursive cases run in the (small) loop.
    enum TextAction {
        case next
        case endGroup
        case group
        case math(Stops)
        case text(MathFont?)
        case textColor(String?)
        case colorRest(String?)
        case fontRest(MathFont?)
        case node(MathNode)
    }

    /// Reads text tokens until the group's `}` (consumed) or, with `limit`, that many tokens.
    private func parseTextTokens(limit: Int?) -> [MathNode] {
        var nodes: [MathNode] = []
        var buffer = String.UnicodeScalarView()
        var consumed = 0
        func flush() {
            if !buffer.isEmpty {
                nodes.append(.mtext(String(buffer)))
                buffer = String.UnicodeScalarView()
            }
        }
        while let token = stream.next() {
            consumed += 1
            switch textStep(token, &buffer, topLevel: limit == nil) {
            case .next: break
            case .endGroup:
                flush()
                return nodes
            case .group:
                flush()
                nodes += parseTextGroup()
            case .math(let stop):
                flush()
                nodes += inlineMath(stop)
            case .text(let font):
                flush()
                nodes += textArgument(font: font)
            case .textColor(let color):
                flush()
                let content = textArgument(font: textFont)
                if let color { nodes.append(MathNode(.mstyle, content, attributes: [(.mathcolor, color)])) } else { nodes += content }
            case .colorRest(let color):
                // The colour applies to the rest of this text group.
                flush()
                let rest = parseTextTokens(limit: nil)
                if let color, !rest.isEmpty { nodes.append(MathNode(.mstyle, rest, attributes: [(.mathcolor, color)])) } else { nodes += rest }
                return nodes
            case .fontRest(let font):
                // `\it`, `\bfseries` …: the font applies to the rest of this text group.
                flush()
                let saved = textFont
                textFont = font
                nodes += parseTextTokens(limit: nil)
                textFont = saved
                return nodes
            case .node(let node):
                flush()
                nodes.append(node)
            }
            if let limit, consumed >= limit { break }
        }
        if limit == nil { warn("Missing } in text") }
        flush()
        return nodes
    }

    /// Handles one text token that needs no recursion, appending to `buffer`.
    private func textStep(_ token: Token, _ buffer: inout String.UnicodeScalarView, topLevel: Bool) -> TextAction {
        func append(_ scalar: Unicode.Scalar) {
            buffer.append(textFont?.map(scalar) ?? scalar)
        }
        func append(_ text: String) {
            for scalar in text.unicodeScalars { append(scalar) }
        }
        switch token {
        case .endGroup:
            if topLevel { return .endGroup }
            warn("Unmatched }")
        case .beginGroup:
            return .group
        case .char(let c):
            switch c {
            case "-" where textFont == .monospace, "`" where textFont == .monospace, "'" where textFont == .monospace:
                // Typewriter text has no ligatures: ``, '' and -- stay as typed.
                append(c)
            case "-" where stream.peek() == .char("-"):
                _ = stream.next()
                if stream.peek() == .char("-") {
                    _ = stream.next()
                    append("—")
                } else {
                    append("–")
                }
            case "`":
                if stream.peek() == .char("`") {
                    _ = stream.next()
                    append("“")
                } else {
                    append("‘")
                }
            case "'":
                if stream.peek() == .char("'") {
                    _ = stream.next()
                    append("”")
                } else {
                    append("’")
                }
            default:
                if XML.isAllowed(c) { append(c) }
            }
        case .space: buffer.append(" ")
        case .active: buffer.append("\u{A0}")
        case .superscript: append("^")
        case .subscript: append("_")
        case .alignment: append("&")
        case .parameter(let n): append("#\(n)")
        case .verbatim(let text): buffer.append(contentsOf: text.unicodeScalars)
        case .mathShift: return .math(.mathShift)
        case .command(let name):
            if let text = Symbols.textTable[name] {
                append(text)
            } else if let mark = Self.textAccents[name] {
                append(textAccent(mark))
            } else if let entry = Self.textFonts[name] {
                return .text(entry)
            } else {
                return textCommandStep(name, &buffer, topLevel: topLevel)
            }
        }
        return .next
    }

    private func textCommandStep(_ name: String, _ buffer: inout String.UnicodeScalarView, topLevel: Bool) -> TextAction {
        switch name {
        case "text", "mbox", "hbox", "textnormal": return .text(textFont)
        case " ": buffer.append(" ")
        case ",", "thinspace": buffer.append("\u{2009}")
        case ":", ";", ">", "medspace", "thickspace": buffer.append("\u{2005}")
        case "enspace", "enskip": buffer.append("\u{2002}")
        case "quad": buffer.append("\u{2003}")
        case "qquad": buffer.append(contentsOf: "\u{2003}\u{2003}".unicodeScalars)
        case "nobreakspace": buffer.append("\u{A0}")
        case "!", "/", "-", "\\", "newline", "relax", "protect", "par", "noindent": break
        case "(": return .math(.closeParenMath)
        case "LaTeX": buffer.append(contentsOf: "LaTeX".unicodeScalars)
        case "TeX": buffer.append(contentsOf: "TeX".unicodeScalars)
        case "hspace", "hskip", "kern":
            if stream.peek() == .char("*") { _ = stream.next() }
            if let width = readDimension() { return .node(.space(width)) }
        case "textcolor": return .textColor(readColorArgument())
        case "color" where topLevel: return .colorRest(readColorArgument())
        case "rm", "up", "md", "sc", "normalfont", "rmfamily", "upshape", "mdseries", "scshape":
            if topLevel { return .fontRest(nil) }
        case "it", "sl", "em", "itshape", "slshape": if topLevel { return .fontRest(.italic) }
        case "bf", "bfseries": if topLevel { return .fontRest(.bold) }
        case "sf", "sffamily": if topLevel { return .fontRest(.sansSerif) }
        case "tt", "ttfamily": if topLevel { return .fontRest(.monospace) }
        case "href", "class", "cssId", "style", "htmlClass", "htmlId", "htmlStyle", "htmlData":
            _ = readRawArgumentTokens()
            return .text(textFont)
        case "url":
            buffer.append(contentsOf: Self.text(of: readRawArgumentTokens()).unicodeScalars)
        case "unicode":
            let code = readRawText()
            let value = code.hasPrefix("x") ? UInt32(code.dropFirst(), radix: 16) : UInt32(code)
            if let value, let scalar = Unicode.Scalar(value), XML.isAllowed(scalar), value != 0 {
                buffer.append(scalar)
            } else {
                warn("Invalid \\unicode code point \"\(code)\"")
            }
        case "label", "message", "errmessage":
            _ = readRawArgumentTokens()
        case "KaTeX": buffer.append(contentsOf: "KaTeX".unicodeScalars)
        case "textdollar": buffer.append("$")
        case "TextOrMath":
            // The text branch, read as this text's next argument.
            let text = readRawArgumentTokens()
            _ = readRawArgumentTokens()
            stream.pushFront([.beginGroup] + text + [.endGroup])
            return .text(textFont)
        case "underline", "llap", "rlap", "clap", "fbox":
            return .text(textFont)
        case "phantom", "hphantom":
            return .node(MathNode(.mphantom, textArgument(font: textFont)))
        case "tiny", "Tiny", "scriptsize", "footnotesize", "small", "normalsize", "large", "Large", "LARGE", "huge", "Huge":
            break  // sizes are not drawn in text
        default:
            if let info = Symbols.table[name], info.symbolClass != .function, info.symbolClass != .namedOperator {
                // A math symbol in text (`\text{\alpha}`): its character is the best reading.
                buffer.append(contentsOf: info.text.unicodeScalars)
            } else {
                return .node(unknownCommand(name))
            }
        }
        return .next
    }

    /// `$…$` or `\(…\)` inside text: math again, in text style.
    private func inlineMath(_ stop: Stops) -> [MathNode] {
        let savedFont = font
        font = nil
        defer { font = savedFont }
        let nodes = withStyle(.text) { parseList(stop) }
        if let token = stream.peek(), isStop(token, stop) {
            _ = stream.next()
        } else {
            warn("Unterminated math inside text")
        }
        return nodes.isEmpty ? [] : [.row(nodes)]
    }

    /// The accented character for `\"o`, `\'{e}`, `\c c` in text.
    private func textAccent(_ mark: String) -> String {
        let argument = stream.readArgumentRaw()
        var base = ""
        for token in argument {
            switch token {
            case .char(let c): base.unicodeScalars.append(c)
            case .command(let name): base += Symbols.textTable[name] ?? ""
            default: break
            }
        }
        if base.isEmpty { base = "\u{A0}" }
        var scalars = Array(base.unicodeScalars)
        let markScalars = Array(mark.unicodeScalars)
        // The mark goes after the first character; the rest follows unchanged.
        var out = String.UnicodeScalarView()
        out.append(scalars.removeFirst())
        out.append(contentsOf: markScalars)
        out.append(contentsOf: scalars)
        return String(out)
    }

    /// Merges neighbouring `<mtext>` and keeps edge spaces visible (MathML trims them).
    private func finishText(_ nodes: [MathNode]) -> [MathNode] {
        var merged: [MathNode] = []
        for node in nodes {
            if node.tag == .mtext, node.attributes.isEmpty, let last = merged.last, last.tag == .mtext, last.attributes.isEmpty {
                merged[merged.count - 1].text += node.text
            } else {
                merged.append(node)
            }
        }
        for index in merged.indices where merged[index].tag == .mtext {
            merged[index].text = Self.protectEdgeSpaces(merged[index].text)
        }
        return merged
    }

    static func protectEdgeSpaces(_ text: String) -> String {
        var scalars = Array(text.unicodeScalars)
        guard !scalars.isEmpty else { return text }
        if scalars[0] == " " { scalars[0] = "\u{A0}" }
        if scalars[scalars.count - 1] == " " { scalars[scalars.count - 1] = "\u{A0}" }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars)
        return String(out)
    }

    // MARK: Macros

    /// \newcommand, \renewcommand, \providecommand, \def, \let, \DeclareMathOperator,
    /// \newenvironment. Definitions are local to one formula.
    func defineMacro(_ kind: String) {
        defer { nextDefinitionIsGlobal = false }
        switch kind {
        case "newcommand", "renewcommand", "providecommand", "DeclareRobustCommand":
            if stream.peekRaw() == .char("*") { _ = stream.nextRaw() }
            guard let name = readMacroName() else {
                warn("\\\(kind) needs a command name")
                return
            }
            guard let (count, fallback) = readParameterSpec(kind) else { return }
            let body = stream.readArgumentRaw()
            if kind == "providecommand", stream.macros[name] != nil || Symbols.table[name] != nil { return }
            stream.macros[name] = MacroDefinition(parameterCount: count, optionalDefault: fallback, body: body)
        case "def", "gdef", "edef", "xdef":
            stream.skipRawSpaces()
            guard case .command(let name)? = stream.nextRaw() else {
                warn("\\\(kind) needs a command name")
                return
            }
            var count = 0
            var delimited = false
            while let token = stream.peekRaw(), token != .beginGroup {
                _ = stream.nextRaw()
                if case .parameter(let n) = token, n == count + 1 {
                    count = n
                } else if token != .space {
                    delimited = true
                }
            }
            guard stream.nextRaw() == .beginGroup else {
                warn("\\\(kind)\\\(name) has no body")
                return
            }
            let body = stream.readBalancedRaw()
            if delimited { warn("Delimited parameters of \\\(name) are not supported") }
            let definition = MacroDefinition(parameterCount: count, optionalDefault: nil, body: body)
            stream.macros[name] = definition
            if kind == "gdef" || kind == "xdef" || nextDefinitionIsGlobal { globalMacros[name] = definition }
        case "let":
            stream.skipRawSpaces()
            guard case .command(let name)? = stream.nextRaw() else {
                warn("\\let needs a command name")
                return
            }
            stream.skipRawSpaces()
            if stream.peekRaw() == .char("=") { _ = stream.nextRaw() }
            stream.skipRawSpaces()
            guard let target = stream.nextRaw() else { return }
            if case .command(let targetName) = target, let definition = stream.macros[targetName] {
                stream.macros[name] = definition
            } else {
                stream.macros[name] = MacroDefinition(parameterCount: 0, optionalDefault: nil, body: [target])
            }
        case "DeclareMathOperator":
            let star = stream.peekRaw() == .char("*")
            if star { _ = stream.nextRaw() }
            guard let name = readMacroName() else {
                warn("\\DeclareMathOperator needs a command name")
                return
            }
            let body = stream.readArgumentRaw()
            stream.macros[name] = MacroDefinition(
                parameterCount: 0, optionalDefault: nil,
                body: [.command(star ? "operatornamewithlimits" : "operatorname"), .beginGroup] + body + [.endGroup])
        case "newenvironment", "renewenvironment":
            let name = readRawText()
            guard let (count, fallback) = readParameterSpec(kind) else { return }
            let begin = stream.readArgumentRaw()
            let end = stream.readArgumentRaw()
            guard !name.isEmpty else { return }
            stream.environments[name] = EnvironmentDefinition(parameterCount: count, optionalDefault: fallback, begin: begin, end: end)
        default:
            break
        }
    }

    private func readMacroName() -> String? {
        let tokens = stream.readArgumentRaw()
        for token in tokens where token != .space {
            if case .command(let name) = token { return name }
            return nil
        }
        return nil
    }

    /// `[n][default]` after a macro name; nil (with a warning) when n is not 0…9.
    private func readParameterSpec(_ kind: String) -> (Int, [Token]?)? {
        var count = 0
        if let countTokens = stream.readOptionalRaw() {
            guard let n = Int(Self.text(of: countTokens)), (0...9).contains(n) else {
                warn("\\\(kind): the number of parameters must be 0 to 9")
                return nil
            }
            count = n
        }
        var fallback: [Token]?
        if count > 0, let optional = stream.readOptionalRaw() { fallback = optional }
        return (count, fallback)
    }
}
