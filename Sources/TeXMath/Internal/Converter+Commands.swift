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
        // unicode-math's alphabets (\symbf is bold upright, as unicode-math's default `bold-style=TeX` sets Latin).
        "symbf": .bold, "symbfup": .bold, "symbfit": .boldItalic, "symbb": .doubleStruck, "symbbit": .doubleStruck,
        "symcal": .script, "symscr": .script, "symbfcal": .boldScript, "symbfscr": .boldScript, "symfrak": .fraktur,
        "symbffrak": .boldFraktur, "symsf": .sansSerif, "symsfup": .sansSerif, "symsfit": .sansSerifItalic,
        "symbfsf": .sansSerifBold, "symbfsfup": .sansSerifBold, "symbfsfit": .sansSerifBoldItalic, "symtt": .monospace,
        "symup": .roman, "symit": .italic, "symnormal": nil, "symliteral": nil,
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
        "centering", "raggedright", "raggedleft", "limits", "nolimits", "displaylimits",
        "nonscript", "scriptspace", "*", "long", "noexpand", "protected", "begingroup", "endgroup",
    ]

    /// Commands whose single argument is consumed and dropped.
    static let ignoredWithArgument: Set<String> = ["label", "leftroot", "uproot", "cline", "message", "errmessage"]

    // MARK: Dispatch

    /// How a command is handled; found without recursion so `command` keeps a small frame.
    enum CommandKind {
        case symbol(SymbolInfo)
        case space(String)
        case accent(AccentInfo)
        case mathFont(MathFont?)
        case textFont(MathFont?)
        case arrow(String)
        case big(String, AtomRole)
        case ignored
        case ignoredWithArgument
        case contentOnly
        case textAccent
        case handler(Handler)
        case unknown
    }

    func commandKind(_ name: String) -> CommandKind {
        Self.commandKinds[name] ?? .unknown
    }

    /// Every command name with how it is handled, in one table so that a command costs one
    /// lookup. Where two tables name a command, the first of this order wins: symbols, spaces,
    /// accents, math fonts, text fonts, extensible arrows, \big sizes, \bigl/\bigr/\bigm,
    /// ignored, ignored with an argument, content only, text accents, handlers, text symbols.
    static let commandKinds: [String: CommandKind] = {
        var kinds: [String: CommandKind] = [:]
        // Lowest precedence first: each later table overwrites.
        for (name, text) in Symbols.textTable { kinds[name] = .symbol(SymbolInfo(text: text, symbolClass: .identifier)) }
        for (name, handler) in handlers { kinds[name] = .handler(handler) }
        for name in textAccents.keys { kinds[name] = .textAccent }
        for name in contentOnlyWithOneDroppedArgument { kinds[name] = .contentOnly }
        for name in ignoredWithArgument { kinds[name] = .ignoredWithArgument }
        for name in ignoredCommands { kinds[name] = .ignored }
        for (name, size) in bigSizes {
            kinds[name + "l"] = .big(size, .opening)
            kinds[name + "r"] = .big(size, .closing)
            kinds[name + "m"] = .big(size, .operatorSymbol)
        }
        for (name, size) in bigSizes { kinds[name] = .big(size, .ordinary) }
        for (name, arrow) in extensibleArrows { kinds[name] = .arrow(arrow) }
        for (name, font) in textFonts { kinds[name] = .textFont(font) }
        for (name, font) in argumentFonts { kinds[name] = .mathFont(font) }
        for (name, accent) in accents { kinds[name] = .accent(accent) }
        for (name, width) in spaces { kinds[name] = .space(width) }
        for (name, info) in Symbols.table { kinds[name] = .symbol(info) }
        return kinds
    }()

    func command(_ name: String) -> MathNode? {
        let kind = commandKind(name)
        if case .handler(let handler) = kind { return handler(self, name) }
        return otherCommand(kind, name)
    }

    private func otherCommand(_ kind: CommandKind, _ name: String) -> MathNode? {
        switch kind {
        case .symbol(let info): return symbolNode(info)
        case .space(let width): return .space(width)
        case .accent(let accent): return accentNode(accent)
        case .mathFont(let entry): return withFont(entry)
        case .textFont(let entry): return textCommand(font: entry)
        case .arrow(let arrow): return extensibleArrow(arrow)
        case .big(let size, let role): return bigDelimiter(size, role: role)
        case .ignored: return nil
        case .ignoredWithArgument:
            _ = readRawArgumentTokens()
            return nil
        case .contentOnly:
            // The URL/class/style/id argument is dropped unread; only the content is rendered.
            _ = readRawArgumentTokens()
            return parseArgument()
        case .textAccent: return textAccentInMath(name)
        case .handler(let handler): return handler(self, name)
        case .unknown: return unknownCommand(name)
        }
    }

    /// Structural commands. A table of small methods rather than one large `switch`: every
    /// nesting level passes through this dispatch, and a big switch makes debug-build stack
    /// frames large enough to matter on 512 KiB threads.
    typealias Handler = @Sendable (Converter, String) -> MathNode?

    static let handlers: [String: Handler] = [
        "frac": { $0.handleFrac($1) },
        "dfrac": { $0.handleFrac($1) },
        "tfrac": { $0.handleFrac($1) },
        "cfrac": { $0.handleFrac($1) },
        "sfrac": { $0.handleFrac($1) },
        "nicefrac": { $0.handleFrac($1) },
        "dbinom": { $0.handleFrac($1) },
        "tbinom": { $0.handleFrac($1) },
        "binom": { $0.handleFrac($1) },
        "genfrac": { $0.handleFrac($1) },
        "sqrt": { $0.handleSqrt($1) },
        "left": { $0.handleLeft($1) },
        "overset": { $0.handleOverset($1) },
        "underset": { $0.handleOverset($1) },
        "stackrel": { $0.handleOverset($1) },
        "stackbin": { $0.handleOverset($1) },
        "substack": { $0.handleSubstack($1) },
        "sideset": { $0.handleSideset($1) },
        "prescript": { $0.handlePrescript($1) },
        "not": { $0.handleNot($1) },
        "operatorname": { $0.handleOperatorname($1) },
        "operatornamewithlimits": { $0.handleOperatorname($1) },
        "mathop": { $0.handleMathop($1) },
        "mathbin": { $0.handleMathop($1) },
        "mathrel": { $0.handleMathop($1) },
        "mathord": { $0.handleMathop($1) },
        "mathopen": { $0.handleMathop($1) },
        "mathclose": { $0.handleMathop($1) },
        "mathpunct": { $0.handleMathop($1) },
        "mathinner": { $0.handleMathop($1) },
        "text": { $0.handleText($1) },
        "mbox": { $0.handleText($1) },
        "hbox": { $0.handleBox($1) },
        "textnormal": { $0.handleText($1) },
        "vbox": { $0.handleBox($1) },
        "vtop": { $0.handleBox($1) },
        "makebox": { $0.handleMakebox($1) },
        "parbox": { $0.handleMakebox($1) },
        "buildrel": { $0.handleBuildrel($1) },
        "root": { $0.handleRoot($1) },
        "overunderset": { $0.handleOverunderset($1) },
        "underoverset": { $0.handleOverunderset($1) },
        "newcolumntype": { $0.handleNewcolumntype($1) },
        " ": { $0.handleControlSpace($1) },
        "space": { $0.handleControlSpace($1) },
        "nobreakspace": { $0.handleControlSpace($1) },
        "hspace": { $0.handleHspace($1) },
        "hskip": { $0.handleHspace($1) },
        "kern": { $0.handleHspace($1) },
        "mkern": { $0.handleHspace($1) },
        "mskip": { $0.handleHspace($1) },
        "mspace": { $0.handleHspace($1) },
        "hspace*": { $0.handleHspace($1) },
        "phantom": { $0.handlePhantom($1) },
        "hphantom": { $0.handleHphantom($1) },
        "vphantom": { $0.handleVphantom($1) },
        "smash": { $0.handleSmash($1) },
        "mathstrut": { $0.handleMathstrut($1) },
        "strut": { $0.handleStrut($1) },
        "color": { $0.handleColor($1) },
        "textcolor": { $0.handleTextcolor($1) },
        "colorbox": { $0.handleColorbox($1) },
        "fcolorbox": { $0.handleFcolorbox($1) },
        "boxed": { $0.handleBoxed($1) },
        "fbox": { $0.handleFbox($1) },
        "framebox": { $0.handleFbox($1) },
        "cancel": { $0.handleCancel($1) },
        "bcancel": { $0.handleCancel($1) },
        "xcancel": { $0.handleCancel($1) },
        "sout": { $0.handleCancel($1) },
        "cancelto": { $0.handleCancel($1) },
        "bmod": { $0.handleBmod($1) },
        "pmod": { $0.handlePmod($1) },
        "pod": { $0.handlePmod($1) },
        "mod": { $0.handlePmod($1) },
        "smallint": { $0.handleSmallint($1) },
        "idotsint": { $0.handleIdotsint($1) },
        "varinjlim": { $0.handleVarinjlim($1) },
        "varprojlim": { $0.handleVarinjlim($1) },
        "varliminf": { $0.handleVarinjlim($1) },
        "varlimsup": { $0.handleVarinjlim($1) },
        "rule": { $0.handleRule($1) },
        "LaTeX": { $0.handleLaTeX($1) },
        "KaTeX": { $0.handleLaTeX($1) },
        "dots": { $0.handleDots($1) },
        "set": { $0.handleSet($1) },
        "Set": { $0.handleSet($1) },
        "char": { $0.handleChar($1) },
        "TextOrMath": { $0.handleTextOrMath($1) },
        "intertext": { $0.handleText($1) },
        "shortintertext": { $0.handleText($1) },
        "ref": { $0.handleRef($1) },
        "eqref": { $0.handleRef($1) },
        "TeX": { $0.handleTeX($1) },
        "unicode": { $0.handleUnicode($1) },
        "tag": { $0.handleTag($1) },
        "ensuremath": { $0.handleEnsuremath($1) },
        "vcenter": { $0.handleEnsuremath($1) },
        "shoveleft": { $0.handleEnsuremath($1) },
        "shoveright": { $0.handleEnsuremath($1) },
        "raise": { $0.handleRaise($1) },
        "lower": { $0.handleRaise($1) },
        "raisebox": { $0.handleRaise($1) },
        "moveleft": { $0.handleRaise($1) },
        "moveright": { $0.handleRaise($1) },
        "llap": { $0.handleLlap($1) },
        "rlap": { $0.handleLlap($1) },
        "clap": { $0.handleLlap($1) },
        "mathllap": { $0.handleMathllap($1) },
        "mathrlap": { $0.handleMathllap($1) },
        "mathclap": { $0.handleMathllap($1) },
        "mathchoice": { $0.handleMathchoice($1) },
        "skew": { $0.handleSkew($1) },
        "url": { $0.handleUrl($1) },
        "bra": { $0.handleBra($1) },
        "ket": { $0.handleBra($1) },
        "braket": { $0.handleBra($1) },
        "Bra": { $0.handleBra($1) },
        "Ket": { $0.handleBra($1) },
        "Braket": { $0.handleBra($1) },
        "begin": { $0.handleBegin($1) },
        "matrix": { $0.handleMatrix($1) },
        "pmatrix": { $0.handleMatrix($1) },
        "bmatrix": { $0.handleMatrix($1) },
        "Bmatrix": { $0.handleMatrix($1) },
        "vmatrix": { $0.handleMatrix($1) },
        "Vmatrix": { $0.handleMatrix($1) },
        "cases": { $0.handleMatrix($1) },
        "displaylines": { $0.handleMatrix($1) },
        "eqalign": { $0.handleMatrix($1) },
        "eqalignno": { $0.handleMatrix($1) },
        "global": { $0.handleGlobal($1) },
        "newcommand": { $0.handleNewcommand($1) },
        "renewcommand": { $0.handleNewcommand($1) },
        "providecommand": { $0.handleNewcommand($1) },
        "def": { $0.handleNewcommand($1) },
        "gdef": { $0.handleNewcommand($1) },
        "edef": { $0.handleNewcommand($1) },
        "xdef": { $0.handleNewcommand($1) },
        "let": { $0.handleNewcommand($1) },
        "DeclareMathOperator": { $0.handleNewcommand($1) },
        "newenvironment": { $0.handleNewcommand($1) },
        "renewenvironment": { $0.handleNewcommand($1) },
        "DeclareRobustCommand": { $0.handleNewcommand($1) },
        "(": { $0.handleMathDelimiters($1) },
        ")": { $0.handleMathDelimiters($1) },
        "[": { $0.handleMathDelimiters($1) },
        "]": { $0.handleMathDelimiters($1) },
        "": { $0.handleLoneBackslash($1) },
    ]

    fileprivate func handleFrac(_ name: String) -> MathNode? {
        return fraction(name)
    }

    fileprivate func handleSqrt(_ name: String) -> MathNode? {
        return squareRoot()
    }

    fileprivate func handleLeft(_ name: String) -> MathNode? {
        return leftRight()
    }

    fileprivate func handleOverset(_ name: String) -> MathNode? {
        let script = withStyle(style.scriptChild) { parseArgument() }
        var base = parseArgument()
        let role = base.role
        if base.tag == .mrow, base.children.count == 1 { base = base.children[0] }
        var node = MathNode(name == "underset" ? .munder : .mover, [base, script])
        node.role = role == .ordinary ? .ordinary : role
        return node
    }

    fileprivate func handleSubstack(_ name: String) -> MathNode? {
        return substack()
    }

    fileprivate func handleSideset(_ name: String) -> MathNode? {
        return sideset()
    }

    fileprivate func handlePrescript(_ name: String) -> MathNode? {
        let sup = withStyle(style.scriptChild) { parseArgument() }
        let sub = withStyle(style.scriptChild) { parseArgument() }
        let base = parseArgument()
        return MathNode(.mmultiscripts, [base, MathNode(.mprescripts), sub, sup])
    }

    fileprivate func handleNot(_ name: String) -> MathNode? {
        return negation()
    }

    fileprivate func handleOperatorname(_ name: String) -> MathNode? {
        return operatorName(withLimits: name == "operatornamewithlimits")
    }

    fileprivate func handleMathop(_ name: String) -> MathNode? {
        return mathClass(name)
    }

    fileprivate func handleText(_ name: String) -> MathNode? {
        return textCommand(font: textFont)
    }

    /// `\hbox{…}`, `\vbox{…}`, `\vtop{…}`, also with plain TeX's `to <dimension>` or
    /// `spread <dimension>` before the group: the box's text, at its natural width.
    fileprivate func handleBox(_ name: String) -> MathNode? {
        var skipped: [Token] = []
        while stream.peek() == .space { skipped.append(stream.next()!) }
        for keyword in ["to", "spread"] {
            let letters = keyword.unicodeScalars.map { Token.char($0) }
            var read: [Token] = []
            while read.count < letters.count, let token = stream.peek(), token == letters[read.count] { read.append(stream.next()!) }
            if read.count == letters.count {
                _ = readDimension()
                return textCommand(font: textFont)
            }
            stream.pushFront(read)
        }
        stream.pushFront(skipped)
        return textCommand(font: textFont)
    }

    /// `\makebox[width][position]{text}` and `\parbox[position][height][inner]{width}{text}`: the
    /// text, in a box whose size we do not draw.
    fileprivate func handleMakebox(_ name: String) -> MathNode? {
        for _ in 0..<3 where stream.readOptionalRaw() != nil {}
        if name == "parbox" { _ = stream.readArgumentRaw() }
        return textCommand(font: textFont)
    }

    /// Plain TeX's `\buildrel top \over base`: `top` set over `base` (a relation, like \stackrel).
    fileprivate func handleBuildrel(_ name: String) -> MathNode? {
        guard let top = readTokens(upTo: "over") else {
            warn("\\buildrel needs \\over before its base")
            return nil
        }
        stream.pushFront([.beginGroup] + top + [.endGroup])
        let script = withStyle(style.scriptChild) { parseArgument() }
        var base = parseArgument()
        if base.tag == .mrow, base.children.count == 1 { base = base.children[0] }
        let role = base.role
        var node = MathNode(.mover, [base, script])
        node.role = role
        return node
    }

    /// Plain TeX's `\root n \of x`: the n-th root of x.
    fileprivate func handleRoot(_ name: String) -> MathNode? {
        guard let index = readTokens(upTo: "of") else {
            warn("\\root needs \\of before its radicand")
            return nil
        }
        stream.pushFront([.beginGroup] + index + [.endGroup])
        let degree = withStyle(.scriptScript) { parseArgument() }
        return MathNode(.mroot, [.row(parseArgumentNodes()), degree])
    }

    /// `\overunderset{over}{under}{base}` and `\underoverset{under}{over}{base}`.
    fileprivate func handleOverunderset(_ name: String) -> MathNode? {
        let first = withStyle(style.scriptChild) { parseArgument() }
        let second = withStyle(style.scriptChild) { parseArgument() }
        var base = parseArgument()
        let role = base.role
        if base.tag == .mrow, base.children.count == 1 { base = base.children[0] }
        let (over, under) = name == "overunderset" ? (first, second) : (second, first)
        var node = MathNode(.munderover, [base, under, over])
        node.role = role
        return node
    }

    /// `\newcolumntype{C}{spec}`: `C` in a later column specification stands for `spec`.
    fileprivate func handleNewcolumntype(_ name: String) -> MathNode? {
        let letter = stream.readArgumentRaw().filter { $0 != .space }
        _ = stream.readOptionalRaw()  // a parameter count: parameters are not supported, the body is used as is
        let body = stream.readArgumentRaw()
        guard letter.count == 1, case .char(let c) = letter[0], !"lcrpmbX@!<>*|".unicodeScalars.contains(c) else {
            warn("\\newcolumntype takes one letter that is not a built-in column type")
            return nil
        }
        if columnTypes.count < 64, body.count < 400 { columnTypes[c] = body }
        return nil
    }

    /// The tokens before `\name` at brace depth 0 in the rest of the group, with `\name` consumed;
    /// nil, with nothing consumed, when the group ends first.
    private func readTokens(upTo name: String) -> [Token]? {
        var tokens: [Token] = []
        var depth = 0
        while let token = stream.peek(), tokens.count < 10_000 {
            if depth == 0, token == .command(name) {
                _ = stream.next()
                return tokens
            }
            if token == .endGroup {
                if depth == 0 { break }
                depth -= 1
            }
            if token == .beginGroup { depth += 1 }
            tokens.append(token)
            _ = stream.next()
        }
        stream.pushFront(tokens)
        return nil
    }

    fileprivate func handleControlSpace(_ name: String) -> MathNode? {
        return .mtext("\u{A0}")
    }

    fileprivate func handleHspace(_ name: String) -> MathNode? {
        if stream.peek() == .char("*") { _ = stream.next() }
        guard let width = readDimension() else { return nil }
        if name == "hskip" || name == "mskip" { skipGlueStretch() }
        return .space(width)
    }

    fileprivate func handlePhantom(_ name: String) -> MathNode? {
        return MathNode(.mphantom, parseArgumentNodes())
    }

    fileprivate func handleHphantom(_ name: String) -> MathNode? {
        return MathNode(.mpadded, [MathNode(.mphantom, parseArgumentNodes())], attributes: [(.height, "0"), (.depth, "0")])
    }

    fileprivate func handleVphantom(_ name: String) -> MathNode? {
        return MathNode(.mpadded, [MathNode(.mphantom, parseArgumentNodes())], attributes: [(.width, "0")])
    }

    fileprivate func handleSmash(_ name: String) -> MathNode? {
        let which = stream.readOptionalRaw().map(Self.text(of:)) ?? "tb"
        var attributes: [(MathAttribute, String)] = []
        if which.contains("t") { attributes.append((.height, "0")) }
        if which.contains("b") { attributes.append((.depth, "0")) }
        return MathNode(.mpadded, parseArgumentNodes(), attributes: attributes)
    }

    fileprivate func handleMathstrut(_ name: String) -> MathNode? {
        return MathNode(.mpadded, [MathNode(.mphantom, [.mo("(")])], attributes: [(.width, "0")])
    }

    fileprivate func handleStrut(_ name: String) -> MathNode? {
        return MathNode(.mspace, attributes: [(.width, "0"), (.height, "0.7em"), (.depth, "0.3em")])
    }

    fileprivate func handleColor(_ name: String) -> MathNode? {
        // Reached only where a whole list is not being parsed (e.g. a bare script): no effect.
        _ = readColorArgument()
        return nil
    }

    fileprivate func handleTextcolor(_ name: String) -> MathNode? {
        let color = readColorArgument()
        let content = parseArgumentNodes()
        guard let color else { return .row(content) }
        return MathNode(.mstyle, content, attributes: [(.mathcolor, color)])
    }

    fileprivate func handleColorbox(_ name: String) -> MathNode? {
        let color = readColorArgument()
        let content = textArgument(font: textFont)
        guard let color else { return .row(content) }
        return MathNode(.mstyle, content, attributes: [(.mathbackground, color)])
    }

    fileprivate func handleFcolorbox(_ name: String) -> MathNode? {
        let frame = readColorArgument()
        let background = readColorArgument()
        let content = textArgument(font: textFont)
        var attributes: [(MathAttribute, String)] = [(.style, FixedStyle.frame.rawValue)]
        if let background { attributes.append((.mathbackground, background)) }
        _ = frame
        return MathNode(.mrow, content, attributes: attributes)
    }

    fileprivate func handleBoxed(_ name: String) -> MathNode? {
        return MathNode(.mrow, parseArgumentNodes(), attributes: [(.style, FixedStyle.frame.rawValue)])
    }

    fileprivate func handleFbox(_ name: String) -> MathNode? {
        while stream.readOptionalRaw() != nil {}
        return MathNode(.mrow, textArgument(font: textFont), attributes: [(.style, FixedStyle.frame.rawValue)])
    }

    fileprivate func handleCancel(_ name: String) -> MathNode? {
        if name == "cancelto" { _ = parseArgument() }
        return MathNode(.mrow, parseArgumentNodes(), attributes: [(.style, FixedStyle.strike.rawValue)])
    }

    fileprivate func handleBmod(_ name: String) -> MathNode? {
        return .mo("mod", [(.lspace, "0.2222em"), (.rspace, "0.2222em")])
    }

    fileprivate func handlePmod(_ name: String) -> MathNode? {
        let argument = parseArgumentNodes()
        var children: [MathNode] = [.space(name == "mod" ? "0.6667em" : "1em")]
        if name != "mod" { children.append(.mo("(", [(.stretchy, "false")], role: .opening)) }
        if name != "pod" { children.append(.mo("mod", [(.lspace, "0"), (.rspace, "0.3333em")])) }
        children += argument
        if name != "mod" { children.append(.mo(")", [(.stretchy, "false")], role: .closing)) }
        return MathNode(.mrow, children)
    }

    fileprivate func handleSmallint(_ name: String) -> MathNode? {
        return .mo("∫", [(.largeop, "false")], role: .largeOperator)
    }

    fileprivate func handleIdotsint(_ name: String) -> MathNode? {
        var node = MathNode(.mrow, [.mo("∫"), .mo("⋯"), .mo("∫")])
        node.role = .largeOperator
        return node
    }

    fileprivate func handleVarinjlim(_ name: String) -> MathNode? {
        let lim = MathNode.mo("lim", [(.lspace, "0"), (.rspace, "0")])
        let mark: MathNode
        switch name {
        case "varinjlim": mark = .mo("→", [(.stretchy, "true")])
        case "varprojlim": mark = .mo("←", [(.stretchy, "true")])
        case "varliminf": mark = .mo("_", [(.stretchy, "true")])
        default: mark = .mo("‾", [(.stretchy, "true")])
        }
        var node = MathNode(name == "varlimsup" ? .mover : .munder, [lim, mark])
        node.setAttribute(name == "varlimsup" ? .accent : .accentunder, "true")
        node.role = .namedOperator
        node.placement = .movable
        return node
    }

    fileprivate func handleRule(_ name: String) -> MathNode? {
        let raise = stream.readOptionalRaw().flatMap { Units.length(Self.text(of: $0)) }
        let width = readDimension() ?? "0"
        let height = readDimension() ?? "0"
        var node = MathNode(.mspace, attributes: [(.width, width), (.height, height), (.mathbackground, "currentcolor")])
        if let raise { node = MathNode(.mpadded, [node], attributes: [(.voffset, raise)]) }
        return node
    }

    fileprivate func handleRef(_ name: String) -> MathNode? {
        let label = Self.text(of: readRawArgumentTokens())
        return .mtext(name == "eqref" ? "(" + label + ")" : label)
    }

    fileprivate func handleLaTeX(_ name: String) -> MathNode? {
        return .mtext(name)
    }

    /// amsmath's `\dots`: centred (⋯) before a binary operator, a relation or an integral
    /// (`\dotsb`, `\dotsi`), on the baseline (…) otherwise.
    fileprivate func handleDots(_ name: String) -> MathNode? {
        var skipped: [Token] = []
        while stream.peek() == .space { skipped.append(stream.next()!) }
        var centred = false
        switch stream.peek() {
        case .char(let c)?: centred = "+-=<>*".unicodeScalars.contains(c)
        case .command(let next)?:
            if let info = Symbols.table[next] {
                centred = info.symbolClass == .integral || (info.symbolClass == .operatorSymbol && ![",", ";", ":", "."].contains(info.text))
            }
        default: break
        }
        stream.pushFront(skipped)
        return .mo(centred ? "⋯" : "…")
    }

    /// braket's `\set{x | x > 0}` and `\Set{…}` (braces that grow): the first `|` at the top
    /// level is the separator.
    fileprivate func handleSet(_ name: String) -> MathNode? {
        var tokens = stream.readArgumentRaw()
        var depth = 0
        for (index, token) in tokens.enumerated() {
            if token == .beginGroup { depth += 1 }
            if token == .endGroup { depth -= 1 }
            if depth == 0, token == .char("|") {
                // `||` is the double bar.
                if index + 1 < tokens.count, tokens[index + 1] == .char("|") {
                    tokens.replaceSubrange(index...(index + 1), with: [.command("Vert")])
                } else {
                    tokens[index] = .command("mid")
                }
                break
            }
        }
        stream.pushFront([.beginGroup] + tokens + [.endGroup])
        return bracketed(parseArgumentNodes(), open: "{", close: "}", growing: name == "Set")
    }

    /// `\char` with a number: decimal `\char65`, hexadecimal `\char"41`, octal `\char'101`, or a
    /// character constant ``\char`a``.
    fileprivate func handleChar(_ name: String) -> MathNode? {
        while stream.peek() == .space { _ = stream.next() }
        var radix = 10
        switch stream.peek() {
        case .char("\""): radix = 16; _ = stream.next()
        case .char("'"): radix = 8; _ = stream.next()
        case .char("`"):
            _ = stream.next()
            switch stream.next() {
            case .char(let c)?: return charAtom(c, single: true)
            case .command(let n)? where n.unicodeScalars.count == 1: return charAtom(n.unicodeScalars.first!, single: true)
            default:
                warn("\\char` needs a character")
                return nil
            }
        default: break
        }
        var digits = ""
        while case .char(let c)? = stream.peek(), digits.count < 8, Int(String(c), radix: radix) != nil {
            digits.unicodeScalars.append(c)
            _ = stream.next()
        }
        guard let code = UInt32(digits, radix: radix), let scalar = Unicode.Scalar(code), code >= 0x20, code != 0x7F else {
            warn("\\char needs a character code")
            return nil
        }
        return charAtom(scalar, single: true) ?? .mo(String(scalar))
    }

    /// `\TextOrMath{text}{math}`: the math branch.
    fileprivate func handleTextOrMath(_ name: String) -> MathNode? {
        _ = stream.readArgumentRaw()
        return .row(parseArgumentNodes())
    }

    fileprivate func handleTeX(_ name: String) -> MathNode? {
        return .mtext("TeX")
    }

    fileprivate func handleUnicode(_ name: String) -> MathNode? {
        return unicodeCommand()
    }

    fileprivate func handleTag(_ name: String) -> MathNode? {
        let starred = stream.peek() == .char("*")
        if starred { _ = stream.next() }
        let content = textArgument(font: textFont)
        let label: [MathNode] = starred ? content : [.mtext("(")] + content + [.mtext(")")]
        let tag = MathNode(.mrow, [.space("2em")] + label)
        // Outside a table the tag goes at the end of the formula, wherever it was written.
        guard tableDepth > 0 || pendingTag != nil else {
            pendingTag = tag
            return nil
        }
        if tableDepth == 0 { warn("Multiple \\tag") }
        return tableDepth > 0 ? tag : nil
    }

    fileprivate func handleGlobal(_ name: String) -> MathNode? {
        nextDefinitionIsGlobal = true
        return nil
    }

    fileprivate func handleEnsuremath(_ name: String) -> MathNode? {
        return .row(parseArgumentNodes())
    }

    fileprivate func handleRaise(_ name: String) -> MathNode? {
        let dimension = readDimension()
        let content = name == "raisebox" ? textArgument(font: textFont) : parseArgumentNodes()
        guard let dimension else { return .row(content) }
        switch name {
        case "lower": return MathNode(.mpadded, content, attributes: [(.voffset, negate(dimension))])
        case "moveleft": return MathNode(.mpadded, content, attributes: [(.lspace, negate(dimension))])
        case "moveright": return MathNode(.mpadded, content, attributes: [(.lspace, dimension)])
        default: return MathNode(.mpadded, content, attributes: [(.voffset, dimension)])
        }
    }

    fileprivate func handleLlap(_ name: String) -> MathNode? {
        return MathNode(.mpadded, textArgument(font: textFont), attributes: [(.width, "0")])
    }

    fileprivate func handleMathllap(_ name: String) -> MathNode? {
        return MathNode(.mpadded, parseArgumentNodes(), attributes: [(.width, "0")])
    }

    fileprivate func handleMathchoice(_ name: String) -> MathNode? {
        let choices = (0..<4).map { _ in parseArgument() }
        switch style {
        case .display: return choices[0]
        case .text: return choices[1]
        case .script: return choices[2]
        case .scriptScript: return choices[3]
        }
    }

    fileprivate func handleSkew(_ name: String) -> MathNode? {
        _ = readRawArgumentTokens()
        return parseArgument()
    }

    fileprivate func handleUrl(_ name: String) -> MathNode? {
        return .mtext(Self.text(of: readRawArgumentTokens()))
    }

    fileprivate func handleBra(_ name: String) -> MathNode? {
        let content = parseArgumentNodes()
        let lower = name.lowercased()
        return bracketed(content, open: lower == "ket" ? "|" : "⟨", close: lower == "bra" ? "|" : "⟩", growing: name.first == "B")
    }

    /// `content` between `open` and `close`: fences that grow with it (braket's capitalised
    /// forms), or fixed ones.
    private func bracketed(_ content: [MathNode], open: String, close: String, growing: Bool) -> MathNode {
        if growing {
            var row = MathNode(.mrow, [stretchyFence(open, role: .opening)] + content + [stretchyFence(close, role: .closing)])
            row.role = .opening
            return row
        }
        return MathNode(
            .mrow,
            [.mo(open, [(.stretchy, "false")], role: .opening)] + content + [.mo(close, [(.stretchy, "false")], role: .closing)])
    }

    fileprivate func handleBegin(_ name: String) -> MathNode? {
        return environment()
    }

    fileprivate func handleMatrix(_ name: String) -> MathNode? {
        return plainTableCommand(name)
    }

    fileprivate func handleNewcommand(_ name: String) -> MathNode? {
        defineMacro(name)
        return nil
    }

    fileprivate func handleMathDelimiters(_ name: String) -> MathNode? {
        // Math delimiters inside math: nothing to do.
        return nil
    }

    fileprivate func handleLoneBackslash(_ name: String) -> MathNode? {
        warn("Lone backslash at the end of the formula")
        return .error("\\")
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
        // Words merge inside one font argument, never across two (\mathbb{R}\mathrm{d}).
        node.mergeable = false
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
        let saved = style
        style = outer.fractionChild
        var numerator = parseArgument()
        var denominator = parseArgument()
        style = saved
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
        return table(kind: .substack(columns: []), terminator: .group)
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
        var nodes = parseArgumentNodes().filter { !($0.tag == .mrow && $0.children.isEmpty) }
        font = saved
        // In an operator name, `-` is a hyphen and `*` an asterisk (amsmath sets them as text).
        for index in nodes.indices where nodes[index].tag == .mo && nodes[index].children.isEmpty {
            if nodes[index].text == "−" { nodes[index] = .mo("-") } else if nodes[index].text == "∗" { nodes[index] = .mo("*") }
        }
        var flat = ""
        var flattenable = true
        for node in nodes {
            if node.tag == .mspace {
                // `\operatorname{arg\,max}`: a small space stays inside the one operator name.
                if node.attribute(.width)?.hasPrefix("-") == false { flat += "\u{2006}" }
                continue
            }
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
