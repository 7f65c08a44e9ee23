/// TeX's four math styles; the parser tracks them to place limits on non-operator bases the way
/// TeX would, and to pick \mathchoice branches.
enum MathStyle: Sendable {
    case display, text, script, scriptScript

    var fractionChild: MathStyle {
        switch self {
        case .display: return .text
        case .text: return .script
        case .script, .scriptScript: return .scriptScript
        }
    }

    var scriptChild: MathStyle {
        switch self {
        case .display, .text: return .script
        case .script, .scriptScript: return .scriptScript
        }
    }

    /// `displaystyle` / `scriptlevel` for an `<mstyle>` that switches to this style.
    var attributes: [(MathAttribute, String)] {
        switch self {
        case .display: return [(.displaystyle, "true"), (.scriptlevel, "0")]
        case .text: return [(.displaystyle, "false"), (.scriptlevel, "0")]
        case .script: return [(.displaystyle, "false"), (.scriptlevel, "1")]
        case .scriptScript: return [(.displaystyle, "false"), (.scriptlevel, "2")]
        }
    }
}

/// Tokens at which `parseList` stops without consuming them.
struct Stops: OptionSet {
    let rawValue: Int
    static let endGroup = Stops(rawValue: 1 << 0)
    static let alignment = Stops(rawValue: 1 << 1)
    static let rowEnd = Stops(rawValue: 1 << 2)
    static let end = Stops(rawValue: 1 << 3)
    static let right = Stops(rawValue: 1 << 4)
    static let closeBracket = Stops(rawValue: 1 << 5)
    static let mathShift = Stops(rawValue: 1 << 6)
    static let closeParenMath = Stops(rawValue: 1 << 7)

    static let tableCell: Stops = [.alignment, .rowEnd]
}

/// The style switches seen so far in one list (`\displaystyle`, `\color`, `\large` …). Each switch
/// starts a new sibling `<mstyle>` carrying the whole state, instead of nesting, so a long run of
/// switches cannot build a deep tree.
struct SegmentStyle: Equatable {
    var mathStyle: MathStyle?
    var color: String?
    var size: String?

    var attributes: [(MathAttribute, String)] {
        var result = mathStyle?.attributes ?? []
        if let color { result.append((.mathcolor, color)) }
        if let size { result.append((.mathsize, size)) }
        return result
    }
}

/// One atom of a math list with the scripts attached to it so far.
struct ScriptedItem {
    var base: MathNode?
    var sub: MathNode?
    var sup: MathNode?
    var primes = 0
    var placementOverride: ScriptPlacement?

    var hasScripts: Bool { sub != nil || sup != nil || primes > 0 }
}

enum ListEntry {
    case item(ScriptedItem)
    case styleChange(SegmentStyle)
}

/// Generalized fractions written infix (`a \over b`).
struct InfixFraction {
    var index: Int
    var thickness: String?
    var open: String?
    var close: String?
}

/// One conversion. A class so the recursive-descent methods share the token stream and
/// warnings without inout plumbing; it never escapes `TeXMath.convert`.
final class Converter {
    /// Nesting (groups, arguments, environments, \left…\right) beyond this yields an error node.
    /// TeX itself stops at 255 groups; formulas in the wild stay far below 60. The bound keeps
    /// the recursion (and the serializer's) well inside a 512 KiB thread stack.
    static let maxDepth = 60
    static let maxWarnings = 50

    /// A class held by a constant: reading tokens is then no exclusive access to the converter
    /// (a mutating call on a struct property was a runtime exclusivity check per token).
    let stream: TokenStream
    var warnings: [String] = []
    var depth = 0
    var font: MathFont?
    var style: MathStyle
    /// Current text font inside \text…, inherited by nested text commands.
    var textFont: MathFont?
    /// Column types defined by `\newcolumntype{C}{spec}` earlier in the formula.
    var columnTypes: [Unicode.Scalar: [Token]] = [:]
    /// Tables being parsed (a `\tag` outside them goes to the end of the formula).
    var tableDepth = 0
    /// A `\tag` outside a table: written at the end of the formula, where amsmath puts it.
    var pendingTag: MathNode?
    /// Macros defined with `\gdef`, `\xdef` or `\global`: they outlive the group they are defined in.
    var globalMacros: [String: MacroDefinition] = [:]
    /// `\global` was read: the next definition is global.
    var nextDefinitionIsGlobal = false

    /// `body` in a TeX group: definitions made inside it end with it, unless global.
    func scoped<T>(_ body: () -> T) -> T {
        let saved = stream.macros
        let result = body()
        stream.macros = saved
        for (name, definition) in globalMacros { stream.macros[name] = definition }
        return result
    }

    init(source: String, display: Bool) {
        stream = TokenStream(tokens: Lexer.tokenize(source))
        style = display ? .display : .text
    }

    func warn(_ message: String) {
        guard warnings.count < Self.maxWarnings, !warnings.contains(message) else { return }
        warnings.append(message)
    }

    func unknownCommand(_ name: String) -> MathNode {
        warn("Unknown command \\\(name)")
        return .error("\\" + name)
    }

    // MARK: Nesting guard

    /// Enters one nesting level; false (with a warning) when the limit is reached.
    func enterNesting() -> Bool {
        guard depth < Self.maxDepth else {
            warn("Nesting deeper than \(Self.maxDepth) levels; the rest of the group is not rendered")
            return false
        }
        depth += 1
        return true
    }

    /// Drops raw tokens up to (not including) the next stop at the current level, counting braces,
    /// \left/\right and \begin/\end iteratively so arbitrarily deep input costs no stack.
    func skipToStop(_ stops: Stops) {
        var braces = 0
        var lefts = 0
        var environments = 0
        while let token = stream.peekRaw() {
            let atLevel = braces == 0 && lefts == 0 && environments == 0
            switch token {
            case .beginGroup: braces += 1
            case .endGroup:
                if braces == 0 { if stops.contains(.endGroup) { return } } else { braces -= 1 }
            case .alignment where atLevel && stops.contains(.alignment): return
            case .char("]") where atLevel && stops.contains(.closeBracket): return
            case .mathShift where atLevel && stops.contains(.mathShift): return
            case .command(let name):
                switch name {
                case "left": lefts += 1
                case "right":
                    if lefts == 0 { if braces == 0 && stops.contains(.right) { return } } else { lefts -= 1 }
                case "middle" where atLevel && stops.contains(.right): return
                case "begin": environments += 1
                case "end":
                    if environments == 0 { if braces == 0 && stops.contains(.end) { return } } else { environments -= 1 }
                case "\\", "cr", "newline", "tabularnewline":
                    if atLevel && stops.contains(.rowEnd) { return }
                case ")" where atLevel && stops.contains(.closeParenMath): return
                default: break
                }
            default: break
            }
            _ = stream.nextRaw()
        }
    }

    // MARK: Stops

    func isStop(_ token: Token, _ stops: Stops) -> Bool {
        switch token {
        case .endGroup: return stops.contains(.endGroup)
        case .alignment: return stops.contains(.alignment)
        case .mathShift: return stops.contains(.mathShift)
        case .char("]"): return stops.contains(.closeBracket)
        case .command(let name):
            switch name {
            case "\\", "cr", "newline", "tabularnewline": return stops.contains(.rowEnd)
            case "end": return stops.contains(.end)
            case "right", "middle": return stops.contains(.right)
            case ")": return stops.contains(.closeParenMath)
            default: return false
            }
        default: return false
        }
    }

    // MARK: Lists

    /// What the list loop does with the token at the head of the input.
    enum ListAction {
        case stop
        case handled
        case atom
        case script(superscript: Bool)
    }

    /// The state of one math list while it is parsed.
    struct ListState {
        var entries: [ListEntry] = []
        var segment = SegmentStyle()
        var infix: InfixFraction?

        var lastItemIndex: Int? {
            if case .item = entries.last { return entries.count - 1 }
            return nil
        }

        mutating func switchSegment(_ update: (inout SegmentStyle) -> Void) {
            update(&segment)
            entries.append(.styleChange(segment))
        }
    }

    /// Parses atoms until a stop token (left unconsumed) or the end of input. Font and style
    /// switches made inside are undone on return, as TeX groups do.
    ///
    /// This function is on every recursion path, so it stays small: the token analysis lives in
    /// `listAction`, which returns before any recursive call is made (debug-build frames of big
    /// functions are large, and deep input must fit a 512 KiB stack).
    func parseList(_ stops: Stops) -> [MathNode] {
        guard enterNesting() else {
            skipToStop(stops)
            return [.error("…")]
        }
        let savedFont = font
        let savedStyle = style
        defer {
            depth -= 1
            font = savedFont
            style = savedStyle
        }
        var state = ListState()
        // Most lists hold a few atoms: one allocation instead of growing 1, 2, 4.
        state.entries.reserveCapacity(4)
        loop: while true {
            switch listAction(stops, &state) {
            case .stop: break loop
            case .handled: continue
            case .atom:
                if let node = parseAtom() { append(node, to: &state.entries) }
            case .script(let isSup):
                let script = parseScriptArgument()
                attach(script, superscript: isSup, &state)
            }
        }
        return finishList(state)
    }

    private func finishList(_ state: ListState) -> [MathNode] {
        if let fraction = state.infix {
            let split = min(fraction.index, state.entries.count)
            let numerator = materialize(Array(state.entries[..<split]))
            let denominator = materialize(Array(state.entries[split...]))
            return [buildInfix(fraction, numerator: numerator, denominator: denominator)]
        }
        return materialize(state.entries)
    }

    private func attach(_ script: MathNode, superscript isSup: Bool, _ state: inout ListState) {
        if let index = state.lastItemIndex, case .item(var item) = state.entries[index],
            isSup ? item.sup == nil : item.sub == nil
        {
            if isSup { item.sup = script } else { item.sub = script }
            state.entries[index] = .item(item)
        } else {
            if state.lastItemIndex != nil { warn(isSup ? "Double superscript" : "Double subscript") }
            state.entries.append(.item(ScriptedItem(base: nil, sub: isSup ? nil : script, sup: isSup ? script : nil)))
        }
    }

    /// Consumes what the list loop handles itself (spaces, primes, switches, stray closers) and
    /// says what to do next. Never recurses into parsing.
    private func listAction(_ stops: Stops, _ state: inout ListState) -> ListAction {
        guard let token = stream.peek() else { return .stop }
        if isStop(token, stops) {
            // A user environment's \end is not a stop for the enclosing table.
            if case .command("end") = token, stops.contains(.end), endsUserEnvironment() { return .handled }
            return .stop
        }
        switch token {
        case .space:
            _ = stream.next()
        case .superscript, .subscript:
            _ = stream.next()
            return .script(superscript: token == .superscript)
        case .char("'"):
            var count = 0
            while stream.peek() == .char("'") {
                _ = stream.next()
                count += 1
            }
            if let index = state.lastItemIndex, case .item(var item) = state.entries[index], item.sup == nil {
                item.primes += count
                state.entries[index] = .item(item)
            } else {
                state.entries.append(.item(ScriptedItem(base: nil, primes: count)))
            }
        case .endGroup:
            _ = stream.next()
            warn("Unmatched }")
        case .alignment:
            _ = stream.next()
            warn("Misplaced & outside a table")
            state.entries.append(.item(ScriptedItem(base: .space("1em"))))
        case .mathShift:
            _ = stream.next()
        case .char(let c) where isCombiningMark(c):
            _ = stream.next()
            if let index = state.lastItemIndex, case .item(var item) = state.entries[index], !item.hasScripts,
                var base = item.base, base.tag.holdsText
            {
                base.text.unicodeScalars.append(c)
                item.base = base
                state.entries[index] = .item(item)
            } else {
                state.entries.append(.item(ScriptedItem(base: .mi(String(c)))))
            }
        case .command(let name):
            return listCommand(name, stops, &state)
        default:
            return .atom
        }
        return .handled
    }

    private func listCommand(_ name: String, _ stops: Stops, _ state: inout ListState) -> ListAction {
        guard Self.listCommands.contains(name) else { return .atom }
        // Every name a case here handles is in `listCommands` (the guard above skips the rest).
        switch name {
        case "limits", "nolimits", "displaylimits":
            _ = stream.next()
            if let index = state.lastItemIndex, case .item(var item) = state.entries[index] {
                item.placementOverride = name == "limits" ? .stacked : name == "nolimits" ? .sides : .movable
                state.entries[index] = .item(item)
            } else {
                warn("\\\(name) is allowed only on operators")
            }
        case "over", "atop", "choose", "brace", "brack", "above", "abovewithdelims", "atopwithdelims",
            "overwithdelims":
            _ = stream.next()
            let fraction = readInfixFraction(name, at: state.entries.count)
            if state.infix == nil {
                state.infix = fraction
            } else {
                warn("Ambiguous: more than one \\\(name)-like fraction in a group; add braces")
            }
        case "displaystyle", "textstyle", "scriptstyle", "scriptscriptstyle":
            _ = stream.next()
            let newStyle: MathStyle =
                name == "displaystyle" ? .display : name == "textstyle" ? .text : name == "scriptstyle" ? .script : .scriptScript
            style = newStyle
            state.switchSegment { $0.mathStyle = newStyle }
        case "color":
            _ = stream.next()
            if let color = readColorArgument() {
                state.switchSegment { $0.color = color }
            }
        case "tiny", "Tiny", "scriptsize", "footnotesize", "small", "normalsize", "large", "Large", "LARGE",
            "huge", "Huge":
            _ = stream.next()
            let size = Self.sizes[name] ?? "100%"
            state.switchSegment { $0.size = size }
        case _ where Self.switchFonts[name] != nil:
            _ = stream.next()
            font = Self.switchFonts[name] ?? nil
        case "end" where !stops.contains(.end):
            if !endsUserEnvironment() {
                _ = stream.next()
                let environment = readRawText()
                warn("\\end{\(environment)} without matching \\begin")
            }
        case "right", "middle":
            _ = stream.next()
            _ = readDelimiter()
            warn("\\\(name) without matching \\left")
        case "\\", "cr", "newline", "tabularnewline":
            // A row break outside a table: TeX would complain; there is nothing to break.
            _ = stream.next()
            if name == "\\" { _ = stream.readOptionalRaw() }
        default:
            return .atom
        }
        return .handled
    }

    private func append(_ node: MathNode, to entries: inout [ListEntry]) {
        if node.mergeable, case .item(var item)? = entries.last, !item.hasScripts, var base = item.base,
            base.mergeable, item.placementOverride == nil
        {
            base.text += node.text
            base.removeAttribute(.mathvariant)
            item.base = base
            entries[entries.count - 1] = .item(item)
            return
        }
        entries.append(.item(ScriptedItem(base: node)))
    }

    /// `\X` at the head of the input, when X is a user environment: splices its end code.
    private func endsUserEnvironment() -> Bool {
        guard stream.peek() == .command("end") else { return false }
        _ = stream.next()
        let nameTokens = readRawArgumentTokens()
        let name = Self.text(of: nameTokens)
        if let environment = stream.environments[name] {
            stream.pushExpansion(environment.end + [.endGroup])
            return true
        }
        stream.pushFront([.command("end"), .beginGroup] + nameTokens + [.endGroup])
        return false
    }

    func isCombiningMark(_ c: Unicode.Scalar) -> Bool {
        // No combining mark comes before U+0300 (the Combining Diacritical Marks block).
        guard c.value >= 0x300 else { return false }
        switch c.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .spacingMark: return true
        default: return false
        }
    }

    /// Every command `listCommand` handles itself: the rest go to `parseAtom` after one lookup.
    static let listCommands: Set<String> = Set(switchFonts.keys).union([
        "limits", "nolimits", "displaylimits", "over", "atop", "choose", "brace", "brack", "above",
        "abovewithdelims", "atopwithdelims", "overwithdelims", "displaystyle", "textstyle", "scriptstyle",
        "scriptscriptstyle", "color", "end", "right", "middle", "\\", "cr", "newline", "tabularnewline",
    ]).union(sizes.keys)

    static let switchFonts: [String: MathFont?] = [
        "rm": .roman, "bf": .bold, "it": .italic, "sf": .sansSerif, "tt": .monospace, "cal": .script,
        "mit": .italic, "scr": .script, "oldstyle": .roman, "mathnormal": nil,
    ]

    static let sizes: [String: String] = [
        "tiny": "50%", "Tiny": "60%", "scriptsize": "70%", "footnotesize": "80%", "small": "90%",
        "normalsize": "100%", "large": "120%", "Large": "144%", "LARGE": "172.8%", "huge": "207.4%",
        "Huge": "248.8%",
    ]

    /// Turns list entries into nodes: builds scripts, wraps style segments, adds function spacing.
    func materialize(_ entries: [ListEntry]) -> [MathNode] {
        var result: [MathNode] = []
        var bucket: [MathNode] = []
        bucket.reserveCapacity(entries.count)
        var current: SegmentStyle?
        func flush() {
            let spaced = applyFunctionSpacing(bucket)
            if let current, !current.attributes.isEmpty {
                if !spaced.isEmpty { result.append(MathNode(.mstyle, spaced, attributes: current.attributes)) }
            } else if result.isEmpty {
                // The usual list (no style switch): its nodes as they are, not copied.
                result = spaced
            } else {
                result.append(contentsOf: spaced)
            }
            bucket = []
        }
        for entry in entries {
            switch entry {
            case .item(let item): bucket.append(buildScripts(item))
            case .styleChange(let segment):
                flush()
                current = segment
            }
        }
        flush()
        return result
    }

    /// TeX puts a thin space between an operator name and an ordinary operand (`\sin x`), none
    /// before a parenthesis (`\sin(x)`); `&#x2061;` marks function application for readers.
    func applyFunctionSpacing(_ nodes: [MathNode]) -> [MathNode] {
        guard nodes.contains(where: { $0.role == .function || $0.role == .namedOperator }) else { return nodes }
        var out: [MathNode] = []
        out.reserveCapacity(nodes.count + 4)
        for (i, node) in nodes.enumerated() {
            out.append(node)
            guard node.role == .function || node.role == .namedOperator, i + 1 < nodes.count else { continue }
            let next = nodes[i + 1].role
            let operand: Bool
            switch next {
            case .ordinary, .function, .namedOperator, .largeOperator: operand = true
            case .opening: operand = false
            default: continue
            }
            if node.role == .function { out.append(.mo("\u{2061}", role: .space)) }
            if operand { out.append(.space("0.1667em")) }
        }
        return out
    }

    /// Builds msub/msup/msubsup or munder/mover/munderover for an item, per its placement.
    func buildScripts(_ item: ScriptedItem) -> MathNode {
        var base = item.base ?? MathNode(.mrow)
        guard item.hasScripts else { return base }
        var sup = item.sup
        if item.primes > 0 {
            let prime = MathNode.mo(Self.primes(item.primes), role: .ordinary)
            if let existing = sup {
                sup = .row([prime] + (existing.tag == .mrow ? existing.children : [existing]))
            } else {
                sup = prime
            }
        }
        let sub = item.sub
        let placement = item.placementOverride ?? base.placement
        let stacked: Bool
        switch placement {
        case .sides: stacked = false
        case .stacked: stacked = true
        case .movable: stacked = base.isEmbellishedOperator || style == .display
        }
        let role = base.role
        if stacked, base.isEmbellishedOperator, base.role == .largeOperator || base.role == .namedOperator {
            base.setOnCoreOperator(.movablelimits, placement == .movable ? "true" : "false")
        }
        var node: MathNode
        switch (sub, sup) {
        case (let sub?, let sup?): node = MathNode(stacked ? .munderover : .msubsup, [base, sub, sup])
        case (let sub?, nil): node = MathNode(stacked ? .munder : .msub, [base, sub])
        case (nil, let sup?): node = MathNode(stacked ? .mover : .msup, [base, sup])
        case (nil, nil): return base
        }
        node.role = role
        return node
    }

    static func primes(_ count: Int) -> String {
        switch count {
        case 1: return "′"
        case 2: return "″"
        case 3: return "‴"
        case 4: return "⁗"
        default: return String(repeating: "′", count: min(count, 64))
        }
    }

    /// The argument of ^ or _, parsed in the script style.
    func parseScriptArgument() -> MathNode {
        let saved = style
        style = style.scriptChild
        defer { style = saved }
        return parseArgument()
    }

    // MARK: Infix fractions

    private func readInfixFraction(_ name: String, at index: Int) -> InfixFraction {
        var fraction = InfixFraction(index: index)
        switch name {
        case "atop": fraction.thickness = "0"
        case "choose": fraction.thickness = "0"; fraction.open = "("; fraction.close = ")"
        case "brace": fraction.thickness = "0"; fraction.open = "{"; fraction.close = "}"
        case "brack": fraction.thickness = "0"; fraction.open = "["; fraction.close = "]"
        case "above": fraction.thickness = readDimension()
        case "abovewithdelims", "atopwithdelims", "overwithdelims":
            fraction.open = readDelimiter().text
            fraction.close = readDelimiter().text
            if name == "abovewithdelims" { fraction.thickness = readDimension() }
            if name == "atopwithdelims" { fraction.thickness = "0" }
        default: break
        }
        return fraction
    }

    private func buildInfix(_ fraction: InfixFraction, numerator: [MathNode], denominator: [MathNode]) -> MathNode {
        var frac = MathNode(.mfrac, [.row(numerator.isEmpty ? [MathNode(.mrow)] : numerator), .row(denominator.isEmpty ? [MathNode(.mrow)] : denominator)])
        if let thickness = fraction.thickness { frac.setAttribute(.linethickness, thickness) }
        return wrapFenced(frac, open: fraction.open, close: fraction.close)
    }

    /// `open content close` in an `<mrow>` with fences that stretch to the content.
    func wrapFenced(_ content: MathNode, open: String?, close: String?) -> MathNode {
        guard open != nil || close != nil else { return content }
        var children: [MathNode] = []
        if let open { children.append(stretchyFence(open, role: .opening)) }
        children.append(content)
        if let close { children.append(stretchyFence(close, role: .closing)) }
        var row = MathNode(.mrow, children)
        row.role = .opening
        return row
    }

    /// A fence for \left, \right, \middle: explicit `stretchy` only where the operator dictionary
    /// does not already make it stretch.
    func stretchyFence(_ text: String, role: AtomRole) -> MathNode {
        Self.defaultStretchy.contains(text)
            ? .mo(text, role: role)
            : .mo(text, [(.stretchy, "true"), (.symmetric, "true")], role: role)
    }

    static let defaultStretchy: Set<String> = [
        "(", ")", "[", "]", "{", "}", "|", "‖", "⟨", "⟩", "⌊", "⌋", "⌈", "⌉", "⟦", "⟧", "⟮", "⟯",
    ]

    // MARK: Raw helpers

    static func text(of tokens: [Token]) -> String {
        var out = ""
        for token in tokens { out += token.sourceText }
        return Units.trim(out)
    }

    /// A raw `{…}` argument (or single token) as tokens, unexpanded.
    func readRawArgumentTokens() -> [Token] {
        stream.readArgumentRaw()
    }

    /// A raw argument as trimmed source text (environment names, colours, lengths).
    func readRawText() -> String {
        Self.text(of: stream.readArgumentRaw())
    }
}
