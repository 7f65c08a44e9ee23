/// An accent or over/under decoration: the character, whether it stretches to the base's width,
/// whether it goes under, and whether it is an accent (tight) or a limit-like brace.
struct AccentInfo: Sendable {
    var text: String
    var stretchy: Bool
    var under: Bool
    var accent: Bool
}

extension Converter {
    static let accents: [String: AccentInfo] = [
        "hat": AccentInfo(text: "^", stretchy: false, under: false, accent: true),
        "widehat": AccentInfo(text: "^", stretchy: true, under: false, accent: true),
        "check": AccentInfo(text: "ˇ", stretchy: false, under: false, accent: true),
        "widecheck": AccentInfo(text: "ˇ", stretchy: true, under: false, accent: true),
        "tilde": AccentInfo(text: "~", stretchy: false, under: false, accent: true),
        "widetilde": AccentInfo(text: "~", stretchy: true, under: false, accent: true),
        "bar": AccentInfo(text: "¯", stretchy: false, under: false, accent: true),
        "overline": AccentInfo(text: "‾", stretchy: true, under: false, accent: true),
        "vec": AccentInfo(text: "→", stretchy: false, under: false, accent: true),
        "overrightarrow": AccentInfo(text: "→", stretchy: true, under: false, accent: true),
        "overleftarrow": AccentInfo(text: "←", stretchy: true, under: false, accent: true),
        "overleftrightarrow": AccentInfo(text: "↔", stretchy: true, under: false, accent: true),
        "overrightharpoon": AccentInfo(text: "⇀", stretchy: true, under: false, accent: true),
        "overleftharpoon": AccentInfo(text: "↼", stretchy: true, under: false, accent: true),
        "Overrightarrow": AccentInfo(text: "⇒", stretchy: true, under: false, accent: true),
        "dot": AccentInfo(text: "˙", stretchy: false, under: false, accent: true),
        "ddot": AccentInfo(text: "¨", stretchy: false, under: false, accent: true),
        "dddot": AccentInfo(text: "\u{20DB}", stretchy: false, under: false, accent: true),
        "ddddot": AccentInfo(text: "\u{20DC}", stretchy: false, under: false, accent: true),
        "acute": AccentInfo(text: "´", stretchy: false, under: false, accent: true),
        "grave": AccentInfo(text: "`", stretchy: false, under: false, accent: true),
        "breve": AccentInfo(text: "˘", stretchy: false, under: false, accent: true),
        "mathring": AccentInfo(text: "˚", stretchy: false, under: false, accent: true),
        "underline": AccentInfo(text: "_", stretchy: true, under: true, accent: true),
        "underbar": AccentInfo(text: "_", stretchy: true, under: true, accent: true),
        "underrightarrow": AccentInfo(text: "→", stretchy: true, under: true, accent: true),
        "underleftarrow": AccentInfo(text: "←", stretchy: true, under: true, accent: true),
        "underleftrightarrow": AccentInfo(text: "↔", stretchy: true, under: true, accent: true),
        "utilde": AccentInfo(text: "~", stretchy: true, under: true, accent: true),
        "overbrace": AccentInfo(text: "⏞", stretchy: true, under: false, accent: false),
        "underbrace": AccentInfo(text: "⏟", stretchy: true, under: true, accent: false),
        "overparen": AccentInfo(text: "⏜", stretchy: true, under: false, accent: false),
        "underparen": AccentInfo(text: "⏝", stretchy: true, under: true, accent: false),
        "overbracket": AccentInfo(text: "⎴", stretchy: true, under: false, accent: false),
        "underbracket": AccentInfo(text: "⎵", stretchy: true, under: true, accent: false),
        "overgroup": AccentInfo(text: "⏠", stretchy: true, under: false, accent: false),
        "undergroup": AccentInfo(text: "⏡", stretchy: true, under: true, accent: false),
    ]

    /// Text-mode accents (`\"o`, `\'e` …) as combining characters.
    static let textAccents: [String: String] = [
        "\"": "\u{308}", "'": "\u{301}", "`": "\u{300}", "^": "\u{302}", "~": "\u{303}", "=": "\u{304}",
        ".": "\u{307}", "u": "\u{306}", "v": "\u{30C}", "H": "\u{30B}", "c": "\u{327}", "r": "\u{30A}",
        "k": "\u{328}", "d": "\u{323}", "b": "\u{331}", "t": "\u{361}",
    ]

    static let argumentFonts: [String: MathFont?] = [
        "mathbb": .doubleStruck, "Bbb": .doubleStruck, "bbFont": .doubleStruck, "mathbf": .bold, "bold": .bold,
        "mathit": .italic, "mathrm": .roman, "mathup": .roman, "mathsf": .sansSerif, "mathsfup": .sansSerif,
        "mathtt": .monospace, "mathcal": .script, "mathscr": .script, "mathfrak": .fraktur, "frak": .fraktur,
        "boldsymbol": .boldSymbol, "bm": .boldSymbol, "pmb": .boldSymbol, "mathbfit": .boldItalic,
        "mathsfit": .sansSerifItalic, "mathbfup": .bold, "mathbfsfup": .sansSerifBold, "mathbfsf": .sansSerifBold,
        "mathbfsfit": .sansSerifBoldItalic, "mathbfscr": .boldScript, "mathbffrak": .boldFraktur,
        "mathbfcal": .boldScript, "mathnormal": nil,
    ]

    static let textFonts: [String: MathFont?] = [
        "textbf": .bold, "textit": .italic, "textsf": .sansSerif, "texttt": .monospace, "textsl": .italic,
        "emph": .italic, "textrm": nil, "textnormal": nil, "textup": nil, "textmd": nil, "textsc": nil,
    ]

    static let spaces: [String: String] = [
        ",": "0.1667em", "thinspace": "0.1667em", ":": "0.2222em", ">": "0.2222em", "medspace": "0.2222em",
        ";": "0.2778em", "thickspace": "0.2778em", "!": "-0.1667em", "negthinspace": "-0.1667em",
        "negmedspace": "-0.2222em", "negthickspace": "-0.2778em", "quad": "1em", "qquad": "2em",
        "enspace": "0.5em", "enskip": "0.5em",
    ]

    static let bigSizes: [String: String] = [
        "big": "1.2em", "Big": "1.623em", "bigg": "2.047em", "Bigg": "2.470em",
    ]

    static let extensibleArrows: [String: String] = [
        "xrightarrow": "→", "xleftarrow": "←", "xleftrightarrow": "↔", "xRightarrow": "⇒", "xLeftarrow": "⇐",
        "xLeftrightarrow": "⇔", "xhookleftarrow": "↩", "xhookrightarrow": "↪", "xmapsto": "↦",
        "xrightharpoonup": "⇀", "xrightharpoondown": "⇁", "xleftharpoonup": "↼", "xleftharpoondown": "↽",
        "xrightleftharpoons": "⇌", "xleftrightharpoons": "⇋", "xtwoheadrightarrow": "↠",
        "xtwoheadleftarrow": "↞", "xlongequal": "=", "xtofrom": "⇄", "xrightleftarrows": "⇄",
        "xrightequilibrium": "⇌", "xleftequilibrium": "⇋",
    ]

    /// Commands that would carry a URL, class, style or id: only their content is rendered.
    static let contentOnlyWithOneDroppedArgument: Set<String> = [
        "href", "class", "cssId", "style", "htmlClass", "htmlId", "htmlStyle", "htmlData", "texttip", "tooltip",
    ]

    /// Commands that render nothing (labels, numbering, line-breaking hints, rules we cannot draw).
    static let ignoredCommands: Set<String> = [
        "nonumber", "notag", "hline", "hdashline", "relax", "displaybreak", "allowbreak", "nobreak",
        "nolinebreak", "protect", "hfil", "hfill", "hfilll", "/", "-", "noindent", "nulldelimiterspace",
        "centering", "raggedright", "raggedleft", "mathstrut_", "limits", "nolimits", "displaylimits",
        "nonscript", "scriptspace", "strut_",
    ]

    /// Commands whose single argument is consumed and dropped.
    static let ignoredWithArgument: Set<String> = ["label", "leftroot", "uproot", "cline", "eqref_", "hdashline_"]

    // MARK: Dispatch

    func command(_ name: String) -> MathNode? {
        if let info = Symbols.table[name] { return symbolNode(info) }
        if let width = Self.spaces[name] { return .space(width) }
        if let accent = Self.accents[name] { return accentNode(accent) }
        if let entry = Self.argumentFonts[name] { return withFont(entry) }
        if let entry = Self.textFonts[name] { return textCommand(font: entry) }
        if let arrow = Self.extensibleArrows[name] { return extensibleArrow(arrow) }
        if let size = Self.bigSizes[name] { return bigDelimiter(size, role: .ordinary) }
        if name.count > 1, let size = Self.bigSizes[String(name.dropLast())], let suffix = name.last, "lrm".contains(suffix) {
            return bigDelimiter(size, role: suffix == "l" ? .opening : suffix == "r" ? .closing : .operatorSymbol)
        }
        if Self.ignoredCommands.contains(name) { return nil }
        if Self.ignoredWithArgument.contains(name) {
            _ = readRawArgumentTokens()
            return nil
        }
        if Self.contentOnlyWithOneDroppedArgument.contains(name) {
            // The URL/class/style/id argument is dropped unread; only the content is rendered.
            _ = readRawArgumentTokens()
            return parseArgument()
        }
        if Self.textAccents[name] != nil { return textAccentInMath(name) }
        switch name {
        case "frac", "dfrac", "tfrac", "cfrac", "sfrac", "nicefrac", "dbinom", "tbinom", "binom", "genfrac":
            return fraction(name)
        case "sqrt": return squareRoot()
        case "left": return leftRight()
        case "overset", "underset", "stackrel", "stackbin":
            let script = withStyle(style.scriptChild) { parseArgument() }
            var base = parseArgument()
            let role = base.role
            if base.tag == .mrow, base.children.count == 1 { base = base.children[0] }
            var node = MathNode(name == "underset" ? .munder : .mover, [base, script])
            node.role = role == .ordinary ? .ordinary : role
            return node
        case "substack": return substack()
        case "sideset": return sideset()
        case "prescript":
            let sup = withStyle(style.scriptChild) { parseArgument() }
            let sub = withStyle(style.scriptChild) { parseArgument() }
            let base = parseArgument()
            return MathNode(.mmultiscripts, [base, MathNode(.mprescripts), sub, sup])
        case "not": return negation()
        case "operatorname", "operatornamewithlimits": return operatorName(withLimits: name == "operatornamewithlimits")
        case "mathop", "mathbin", "mathrel", "mathord", "mathopen", "mathclose", "mathpunct", "mathinner":
            return mathClass(name)
        case "text", "mbox", "hbox", "textnormal", "vbox":
            return textCommand(font: textFont)
        case " ", "space", "nobreakspace": return .mtext("\u{A0}")
        case "hspace", "hskip", "kern", "mkern", "mskip", "mspace", "hspace*":
            if stream.peek() == .char("*") { _ = stream.next() }
            guard let width = readDimension() else { return nil }
            return .space(width)
        case "phantom":
            return MathNode(.mphantom, parseArgumentNodes())
        case "hphantom":
            return MathNode(.mpadded, [MathNode(.mphantom, parseArgumentNodes())], attributes: [(.height, "0"), (.depth, "0")])
        case "vphantom":
            return MathNode(.mpadded, [MathNode(.mphantom, parseArgumentNodes())], attributes: [(.width, "0")])
        case "smash":
            let which = stream.readOptionalRaw().map(Self.text(of:)) ?? "tb"
            var attributes: [(MathAttribute, String)] = []
            if which.contains("t") { attributes.append((.height, "0")) }
            if which.contains("b") { attributes.append((.depth, "0")) }
            return MathNode(.mpadded, parseArgumentNodes(), attributes: attributes)
        case "mathstrut":
            return MathNode(.mpadded, [MathNode(.mphantom, [.mo("(")])], attributes: [(.width, "0")])
        case "strut":
            return MathNode(.mspace, attributes: [(.width, "0"), (.height, "0.7em"), (.depth, "0.3em")])
        case "color":
            // Reached only where a whole list is not being parsed (e.g. a bare script): no effect.
            _ = readColorArgument()
            return nil
        case "textcolor":
            let color = readColorArgument()
            let content = parseArgumentNodes()
            guard let color else { return .row(content) }
            return MathNode(.mstyle, content, attributes: [(.mathcolor, color)])
        case "colorbox":
            let color = readColorArgument()
            let content = textArgument(font: textFont)
            guard let color else { return .row(content) }
            return MathNode(.mstyle, content, attributes: [(.mathbackground, color)])
        case "fcolorbox":
            let frame = readColorArgument()
            let background = readColorArgument()
            let content = textArgument(font: textFont)
            var attributes: [(MathAttribute, String)] = [(.style, FixedStyle.frame.rawValue)]
            if let background { attributes.append((.mathbackground, background)) }
            _ = frame
            return MathNode(.mrow, content, attributes: attributes)
        case "boxed":
            return MathNode(.mrow, parseArgumentNodes(), attributes: [(.style, FixedStyle.frame.rawValue)])
        case "fbox", "framebox":
            while stream.readOptionalRaw() != nil {}
            return MathNode(.mrow, textArgument(font: textFont), attributes: [(.style, FixedStyle.frame.rawValue)])
        case "cancel", "bcancel", "xcancel", "sout", "cancelto":
            if name == "cancelto" { _ = parseArgument() }
            return MathNode(.mrow, parseArgumentNodes(), attributes: [(.style, FixedStyle.strike.rawValue)])
        case "bmod":
            return .mo("mod", [(.lspace, "0.2222em"), (.rspace, "0.2222em")])
        case "pmod", "pod", "mod":
            let argument = parseArgumentNodes()
            var children: [MathNode] = [.space(name == "mod" ? "0.6667em" : "1em")]
            if name != "mod" { children.append(.mo("(", [(.stretchy, "false")], role: .opening)) }
            if name != "pod" { children.append(.mo("mod", [(.lspace, "0"), (.rspace, "0.3333em")])) }
            children += argument
            if name != "mod" { children.append(.mo(")", [(.stretchy, "false")], role: .closing)) }
            return MathNode(.mrow, children)
        case "LaTeX": return .mtext("LaTeX")
        case "TeX": return .mtext("TeX")
        case "unicode": return unicodeCommand()
        case "tag":
            let starred = stream.peek() == .char("*")
            if starred { _ = stream.next() }
            let content = textArgument(font: textFont)
            let label: [MathNode] = starred ? content : [.mtext("(")] + content + [.mtext(")")]
            return MathNode(.mrow, [.space("2em")] + label)
        case "ensuremath", "vcenter", "shoveleft", "shoveright", "displaystyle_", "mathpalette_":
            return .row(parseArgumentNodes())
        case "raise", "lower", "raisebox", "moveleft", "moveright":
            let dimension = readDimension()
            let content = name == "raisebox" ? textArgument(font: textFont) : parseArgumentNodes()
            guard let dimension else { return .row(content) }
            switch name {
            case "lower": return MathNode(.mpadded, content, attributes: [(.voffset, negate(dimension))])
            case "moveleft": return MathNode(.mpadded, content, attributes: [(.lspace, negate(dimension))])
            case "moveright": return MathNode(.mpadded, content, attributes: [(.lspace, dimension)])
            default: return MathNode(.mpadded, content, attributes: [(.voffset, dimension)])
            }
        case "llap", "rlap", "clap":
            return MathNode(.mpadded, textArgument(font: textFont), attributes: [(.width, "0")])
        case "mathllap", "mathrlap", "mathclap":
            return MathNode(.mpadded, parseArgumentNodes(), attributes: [(.width, "0")])
        case "mathchoice":
            let choices = (0..<4).map { _ in parseArgument() }
            switch style {
            case .display: return choices[0]
            case .text: return choices[1]
            case .script: return choices[2]
            case .scriptScript: return choices[3]
            }
        case "skew":
            _ = readRawArgumentTokens()
            return parseArgument()
        case "url":
            return .mtext(Self.text(of: readRawArgumentTokens()))
        case "bra", "ket", "braket", "Bra", "Ket", "Braket":
            let content = parseArgumentNodes()
            let lower = name.lowercased()
            let open = lower == "ket" ? "|" : "⟨"
            let close = lower == "bra" ? "|" : "⟩"
            if name.first == "B" {
                var row = MathNode(.mrow, [stretchyFence(open, role: .opening)] + content + [stretchyFence(close, role: .closing)])
                row.role = .opening
                return row
            }
            return MathNode(
                .mrow,
                [.mo(open, [(.stretchy, "false")], role: .opening)] + content + [.mo(close, [(.stretchy, "false")], role: .closing)])
        case "begin": return environment()
        case "matrix", "pmatrix", "bmatrix", "Bmatrix", "vmatrix", "Vmatrix", "cases", "displaylines", "eqalign",
            "eqalignno", "atopfrac_":
            return plainTableCommand(name)
        case "newcommand", "renewcommand", "providecommand", "def", "gdef", "edef", "xdef", "let",
            "DeclareMathOperator", "newenvironment", "renewenvironment", "DeclareRobustCommand":
            defineMacro(name)
            return nil
        case "(", ")", "[", "]":
            // Math delimiters inside math: nothing to do.
            return nil
        case "":
            warn("Lone backslash at the end of the formula")
            return .error("\\")
        default:
            return unknownCommand(name)
        }
    }

    func withStyle<T>(_ newStyle: MathStyle, _ body: () -> T) -> T {
        let saved = style
        style = newStyle
        defer { style = saved }
        return body()
    }

    private func negate(_ dimension: String) -> String {
        if dimension.hasPrefix("-") { return String(dimension.dropFirst()) }
        if dimension == "0" { return dimension }
        return "-" + dimension
    }

    private func withFont(_ entry: MathFont?) -> MathNode {
        let saved = font
        font = entry
        defer { font = saved }
        var node = parseArgument()
        node.role = node.role == .function ? .function : .ordinary
        return node
    }

    // MARK: Fractions and roots

    private func fraction(_ name: String) -> MathNode {
        var open: String?
        var close: String?
        var thickness: String?
        var forcedStyle: MathStyle?
        switch name {
        case "dfrac": forcedStyle = .display
        case "tfrac": forcedStyle = .text
        case "cfrac": _ = stream.readOptionalRaw(); forcedStyle = .display
        case "binom": open = "("; close = ")"; thickness = "0"
        case "dbinom": open = "("; close = ")"; thickness = "0"; forcedStyle = .display
        case "tbinom": open = "("; close = ")"; thickness = "0"; forcedStyle = .text
        case "genfrac":
            open = delimiterText(readRawArgumentTokens())
            close = delimiterText(readRawArgumentTokens())
            let thicknessText = readRawText()
            if !thicknessText.isEmpty {
                if let length = Units.length(thicknessText) { thickness = length } else { warn("Invalid dimension \"\(thicknessText)\"") }
            }
            switch readRawText() {
            case "0": forcedStyle = .display
            case "1": forcedStyle = .text
            case "2": forcedStyle = .script
            case "3": forcedStyle = .scriptScript
            default: break
            }
        default: break
        }
        let outer = forcedStyle ?? style
        var numerator = withStyle(outer.fractionChild) { parseArgument() }
        var denominator = withStyle(outer.fractionChild) { parseArgument() }
        if name == "cfrac" {
            numerator = MathNode(.mstyle, [numerator], attributes: MathStyle.display.attributes)
            denominator = MathNode(.mstyle, [denominator], attributes: MathStyle.display.attributes)
        }
        var node = MathNode(.mfrac, [numerator, denominator])
        if let thickness { node.setAttribute(.linethickness, thickness) }
        node = wrapFenced(node, open: open, close: close)
        node.role = .ordinary
        if let forcedStyle {
            node = MathNode(.mstyle, [node], attributes: forcedStyle.attributes)
        }
        return node
    }

    /// A delimiter written as a raw argument (`\genfrac{(}{]}…`); empty means none.
    private func delimiterText(_ tokens: [Token]) -> String? {
        let meaningful = tokens.filter { $0 != .space }
        guard let first = meaningful.first else { return nil }
        stream.pushFront([first])
        let delimiter = readDelimiter()
        return delimiter.text
    }

    private func squareRoot() -> MathNode {
        let index = withStyle(.scriptScript) { parseOptionalMath() }
        let radicand = parseArgumentNodes()
        if let index, !index.isEmpty {
            return MathNode(.mroot, [.row(radicand), .row(index)])
        }
        return MathNode(.msqrt, radicand)
    }

    // MARK: Delimiters

    private func leftRight() -> MathNode {
        var children: [MathNode] = []
        switch readDelimiter() {
        case .symbol(let text): children.append(stretchyFence(text, role: .opening))
        case .null, .invalid: break
        }
        while true {
            children += parseList(.right)
            guard case .command(let name)? = stream.peek() else {
                warn("Missing \\right after \\left")
                break
            }
            _ = stream.next()
            if name == "middle" {
                if case .symbol(let text) = readDelimiter() {
                    var fence = stretchyFence(text, role: .operatorSymbol)
                    fence.setAttribute(.lspace, "0.05em")
                    fence.setAttribute(.rspace, "0.05em")
                    children.append(fence)
                }
                continue
            }
            if case .symbol(let text) = readDelimiter() { children.append(stretchyFence(text, role: .closing)) }
            break
        }
        var row = MathNode(.mrow, children)
        row.role = .opening
        return row
    }

    private func bigDelimiter(_ size: String, role: AtomRole) -> MathNode? {
        guard case .symbol(let text) = readDelimiter() else { return nil }
        var attributes: [(MathAttribute, String)] = [
            (.stretchy, "true"), (.symmetric, "true"), (.minsize, size), (.maxsize, size),
        ]
        if role == .operatorSymbol {
            attributes += [(.lspace, "0.2778em"), (.rspace, "0.2778em")]
        } else if role == .ordinary {
            attributes += [(.lspace, "0"), (.rspace, "0")]
        }
        return .mo(text, attributes, role: role)
    }

    // MARK: Accents and arrows

    private func accentNode(_ accent: AccentInfo) -> MathNode {
        let base = parseArgument()
        var mark = MathNode.mo(accent.text)
        if !accent.stretchy { mark.setAttribute(.stretchy, "false") }
        var node = MathNode(accent.under ? .munder : .mover, [base, mark])
        if accent.accent { node.setAttribute(accent.under ? .accentunder : .accent, "true") }
        if !accent.accent { node.placement = .stacked }
        return node
    }

    private func extensibleArrow(_ arrow: String) -> MathNode {
        let below = withStyle(.script) { parseOptionalMath() } ?? []
        let above = withStyle(.script) { parseArgumentNodes() }
        func padded(_ nodes: [MathNode]) -> MathNode {
            let content = nodes.filter { !($0.tag == .mrow && $0.children.isEmpty) }
            if content.isEmpty { return .space("1.5em") }
            return MathNode(.mrow, [.space("0.4em")] + content + [.space("0.4em")])
        }
        let mark = MathNode.mo(arrow, [(.stretchy, "true")])
        if below.isEmpty {
            return MathNode(.mover, [mark, padded(above)])
        }
        return MathNode(.munderover, [mark, padded(below), padded(above)])
    }

    // MARK: Scripts and stacks

    private func substack() -> MathNode {
        guard stream.peek() == .beginGroup else { return parseArgument() }
        _ = stream.next()
        return table(kind: .substack, terminator: .group)
    }

    private func sideset() -> MathNode {
        let pre = withStyle(style.scriptChild) { parseArgument() }
        let post = withStyle(style.scriptChild) { parseArgument() }
        let base = parseArgument()
        func scripts(_ node: MathNode) -> (MathNode, MathNode) {
            let none = MathNode(MathTag.none)
            switch node.tag {
            case .msub, .munder: return (node.children[1], none)
            case .msup, .mover: return (none, node.children[1])
            case .msubsup, .munderover: return (node.children[1], node.children[2])
            default: return (none, none)
            }
        }
        let (postSub, postSup) = scripts(post)
        let (preSub, preSup) = scripts(pre)
        var node = MathNode(.mmultiscripts, [base, postSub, postSup, MathNode(.mprescripts), preSub, preSup])
        node.role = .largeOperator
        node.placement = .movable
        return node
    }

    // MARK: \not

    private func negation() -> MathNode {
        while stream.peek() == .space { _ = stream.next() }
        switch stream.peek() {
        case .char(let c)?:
            if let negated = Symbols.negations[String(c)] {
                _ = stream.next()
                return .mo(negated)
            }
            if !Lexer.isLetter(c), !Self.isDigit(c), c != "{" {
                _ = stream.next()
                return .mo(String(c) + "\u{338}")
            }
        case .command(let name)?:
            if let negated = Symbols.negations[name] {
                _ = stream.next()
                return .mo(negated)
            }
            if let info = Symbols.table[name], info.text.unicodeScalars.count == 1 {
                _ = stream.next()
                var node = symbolNode(info)
                node.text += "\u{338}"
                node.removeAttribute(.stretchy)
                return node
            }
        default: break
        }
        // Anything else: a zero-width slash laid over what follows, as TeX's \not does.
        return MathNode(.mpadded, [.mo("⧸", [(.lspace, "0"), (.rspace, "0")])], attributes: [(.width, "0")])
    }

    // MARK: Operator names and classes

    private func operatorName(withLimits: Bool) -> MathNode {
        var limits = withLimits
        if stream.peekRaw() == .char("*") {
            _ = stream.nextRaw()
            limits = true
        }
        let saved = font
        font = .roman
        let nodes = parseArgumentNodes().filter { !($0.tag == .mrow && $0.children.isEmpty) }
        font = saved
        var flat = ""
        var flattenable = true
        for node in nodes {
            guard node.tag == .mi || node.tag == .mn || node.tag == .mo, node.children.isEmpty else {
                flattenable = false
                break
            }
            flat += node.text
        }
        var node: MathNode
        if flattenable {
            if limits {
                node = .mo(flat, [(.lspace, "0"), (.rspace, "0")])
            } else {
                node = .mi(flat, upright: flat.unicodeScalars.count == 1)
            }
        } else {
            node = .row(nodes)
        }
        node.role = limits ? .namedOperator : .function
        node.placement = limits ? .movable : .sides
        return node
    }

    private func mathClass(_ name: String) -> MathNode {
        var nodes = parseArgumentNodes()
        let single = nodes.count == 1 && nodes[0].tag == .mo
        switch name {
        case "mathop":
            var node = MathNode.row(nodes)
            if single { node.setAttribute(.lspace, "0.1667em"); node.setAttribute(.rspace, "0.1667em") }
            node.role = .largeOperator
            node.placement = .movable
            return node
        case "mathbin", "mathrel":
            let width = name == "mathbin" ? "0.2222em" : "0.2778em"
            if single {
                nodes[0].setAttribute(.lspace, width)
                nodes[0].setAttribute(.rspace, width)
                nodes[0].role = .operatorSymbol
                return nodes[0]
            }
            var node = MathNode(.mrow, [.space(width)] + nodes + [.space(width)])
            node.role = .operatorSymbol
            return node
        case "mathpunct":
            if single {
                nodes[0].setAttribute(.lspace, "0")
                nodes[0].setAttribute(.rspace, "0.1667em")
                return nodes[0]
            }
            return MathNode(.mrow, nodes + [.space("0.1667em")])
        default:
            if single {
                nodes[0].setAttribute(.lspace, "0")
                nodes[0].setAttribute(.rspace, "0")
                nodes[0].role = name == "mathopen" ? .opening : name == "mathclose" ? .closing : .ordinary
                return nodes[0]
            }
            var node = MathNode(.mrow, nodes)
            node.role = name == "mathopen" ? .opening : name == "mathclose" ? .closing : .ordinary
            return node
        }
    }

    // MARK: Misc

    private func unicodeCommand() -> MathNode? {
        let text = readRawText()
        var value: UInt32?
        if text.hasPrefix("x") || text.hasPrefix("X") {
            value = UInt32(text.dropFirst(), radix: 16)
        } else if text.hasPrefix("\"") {
            value = UInt32(text.dropFirst(), radix: 16)
        } else if text.hasPrefix("0x") {
            value = UInt32(text.dropFirst(2), radix: 16)
        } else {
            value = UInt32(text)
        }
        guard let value, let scalar = Unicode.Scalar(value), XML.isAllowed(scalar), value != 0 else {
            warn("Invalid \\unicode code point \"\(text)\"")
            return .error("\\unicode{\(text)}")
        }
        return unicodeAtom(scalar) ?? .mi(String(scalar))
    }

    /// `\"o` typed in math: the base letter with a combining accent.
    private func textAccentInMath(_ name: String) -> MathNode? {
        let mark = Self.textAccents[name] ?? ""
        let base = parseArgument()
        if base.tag.holdsText {
            var node = base
            node.text += mark
            return node
        }
        return MathNode(.mover, [base, .mo(mark)], attributes: [(.accent, "true")])
    }
}
