/// The common formula in one pass: MathML written as the source is read, with no tokens and no
/// tree.
///
/// Most formulas in lectures are letters, numbers, operators, Greek, scripts, fractions and roots
/// (`E = mc^2`, `\frac{n(n+1)}{2}`, `\sum_{i=1}^n i`, `\sin x`). Building the converter's tree for
/// them costs far more than the markup they become, so this writer takes them directly and hands
/// everything else back (`nil`): anything non-ASCII, any command other than a symbol, a space,
/// `\frac` or `\sqrt` without its optional index, user macros, environments, fonts, style
/// switches, `\left…\right`, primes with a superscript, anything the converter would warn about.
/// What it writes is the converter's output byte for byte — the same symbol table, the same
/// scripts, limits and function spacing; `OnePassTests` compares the two over every corpus
/// formula and over generated ones.
struct OnePass {
    /// Deeper nesting is left to the converter (which bounds it at 60).
    private static let maximumDepth = 24

    private let source: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var depth = 0
    private(set) var out: [UInt8] = []
    /// Reused when scripts come superscript first.
    private var scratch: [UInt8] = []

    /// What the converter's list keeps about one item (`ScriptedItem` built into a node).
    private struct Item {
        /// Where its markup starts in `out`.
        var start: Int
        var role: AtomRole
        /// For a bare `<mo>` whose limits go under and over it in display style and beside it
        /// inline (∑, lim): where its attributes end in `out`, for `movablelimits`. Nil for every
        /// other atom, whose scripts go beside it.
        var movableLimitsAt: Int? = nil
    }

    private struct Decline: Error {}

    /// The MathML for `tex`, or nil when the formula is not one this writer takes.
    static func convert(_ tex: String, display: Bool) -> [UInt8]? {
        var tex = tex
        return tex.withUTF8 { bytes -> [UInt8]? in
            guard bytes.count <= 512 else { return nil }
            var writer = OnePass(source: bytes)
            writer.out.reserveCapacity(160 + 12 * bytes.count)
            writer.out.append(contentsOf: "<math xmlns=\"http://www.w3.org/1998/Math/MathML\"".utf8)
            if display { writer.out.append(contentsOf: " display=\"block\"".utf8) }
            writer.out.append(contentsOf: "><semantics>".utf8)
            do {
                let contentStart = writer.out.count
                let count = try writer.list(inGroup: false).count
                guard writer.position == bytes.count else { return nil }
                if count == 0 {
                    writer.out.append(contentsOf: "<mrow/>".utf8)
                } else {
                    writer.out.insert(contentsOf: "<mrow>".utf8, at: contentStart)
                    writer.out.append(contentsOf: "</mrow>".utf8)
                }
            } catch {
                return nil
            }
            writer.out.append(contentsOf: "<annotation encoding=\"application/x-tex\">".utf8)
            XML.appendEscaped(UnsafeBufferPointer(start: bytes.baseAddress, count: bytes.count), to: &writer.out, inAttribute: false)
            writer.out.append(contentsOf: "</annotation></semantics></math>".utf8)
            return writer.out
        }
    }

    private init(source: UnsafeBufferPointer<UInt8>) {
        self.source = source
    }

    // MARK: Reading

    private var current: UInt8? { position < source.count ? source[position] : nil }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
    private static func isLetter(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }
    private static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    private mutating func skipSpaces() {
        while let b = current, Self.isSpace(b) { position += 1 }
    }

    /// A control sequence's name after its backslash (spaces after a control word skipped, as
    /// the lexer does).
    private mutating func commandName() throws -> String {
        position += 1
        guard let first = current else { throw Decline() }
        if Self.isLetter(first) {
            let start = position
            while let b = current, Self.isLetter(b) { position += 1 }
            let name = String(decoding: UnsafeBufferPointer(rebasing: source[start..<position]), as: UTF8.self)
            skipSpaces()
            return name
        }
        guard first >= 0x20, first < 0x7F else { throw Decline() }
        position += 1
        return first == 0x20 ? " " : String(UnicodeScalar(first))
    }

    /// Whether `\name` (and not a longer control word) is next.
    private func isCommand(_ name: StaticString) -> Bool {
        let length = name.utf8CodeUnitCount
        guard position + length < source.count, source[position] == 0x5C else { return false }
        let matches = name.withUTF8Buffer { word in
            word.elementsEqual(UnsafeBufferPointer(rebasing: source[(position + 1)...(position + length)]))
        }
        guard matches else { return false }
        let after = position + 1 + length
        return after >= source.count || !Self.isLetter(source[after])
    }

    // MARK: Lists

    /// Items up to a `}` (in a group, left unread) or the end; returns how many nodes it wrote
    /// (function spacing included, as the converter's list counts them) and its item when it
    /// wrote exactly one.
    private mutating func list(inGroup: Bool, untilRight: Bool = false) throws -> (count: Int, only: Item?) {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw Decline() }
        var previous: Item?
        var written = 0
        while true {
            skipSpaces()
            guard let b = current else {
                if inGroup || untilRight { throw Decline() }  // a missing } or \right: the converter warns
                break
            }
            if untilRight, b == 0x5C, isCommand("right") { break }
            if b == 0x7D {  // }
                guard inGroup else { throw Decline() }
                break
            }
            if b == 0x5E || b == 0x5F {  // a script with no base
                throw Decline()
            }
            var item = try atom()
            try scripts(&item)
            if let previous {
                written += spaceAfter(previous, before: item)
            }
            previous = item
            written += 1
        }
        return (written, written == 1 ? previous : nil)
    }

    /// TeX's thin space after an operator name before an operand, and `&#x2061;` after a
    /// function (`Converter.applyFunctionSpacing`): inserted in front of `next`.
    private mutating func spaceAfter(_ previous: Item, before next: Item) -> Int {
        guard previous.role == .function || previous.role == .namedOperator else { return 0 }
        let operand: Bool
        switch next.role {
        case .ordinary, .function, .namedOperator, .largeOperator: operand = true
        case .opening: operand = false
        default: return 0
        }
        switch (previous.role == .function, operand) {
        case (true, true):
            out.insert(contentsOf: Self.functionApplicationAndSpace, at: next.start)
            return 2
        case (true, false):
            out.insert(contentsOf: Self.functionApplication, at: next.start)
            return 1
        case (false, true):
            out.insert(contentsOf: Self.thinSpace, at: next.start)
            return 1
        case (false, false):
            return 0
        }
    }

    private static let functionApplication = Array("<mo>\u{2061}</mo>".utf8)
    private static let thinSpace = Array("<mspace width=\"0.1667em\"/>".utf8)
    private static let functionApplicationAndSpace = functionApplication + thinSpace

    // MARK: Atoms

    private mutating func atom() throws -> Item {
        guard let b = current else { throw Decline() }
        let start = out.count
        if b == 0x7B {  // {
            position += 1
            let inner = try list(inGroup: true)
            position += 1  // the }
            return group(start: start, inner)
        }
        if b == 0x5C {  // \
            let name = try commandName()
            return try command(name, start: start)
        }
        return try character(single: false, start: start)
    }

    /// A `{…}` group as one ordinary atom (`Converter.finishGroup`): one node stands for itself,
    /// an operator becoming ordinary; more or none are an `<mrow>`.
    private mutating func group(start: Int, _ inner: (count: Int, only: Item?)) -> Item {
        guard let only = inner.only else {
            wrapRow(from: start, count: inner.count)
            return Item(start: start, role: .ordinary)
        }
        var role = only.role
        if role == .largeOperator || role == .namedOperator { role = .ordinary }
        return Item(start: start, role: role)
    }

    private mutating func character(single: Bool, start: Int) throws -> Item {
        guard let b = current else { throw Decline() }
        if Self.isLetter(b) {
            position += 1
            writeToken("mi", b)
            return Item(start: start, role: .ordinary)
        }
        if Self.isDigit(b) || (b == 0x2E && !single && position + 1 < source.count && Self.isDigit(source[position + 1])) {
            let numberStart = position
            position += 1
            if !single {
                var seenPoint = b == 0x2E
                while let next = current {
                    if Self.isDigit(next) {
                        position += 1
                    } else if next == 0x2E, !seenPoint, position + 1 < source.count, Self.isDigit(source[position + 1]) {
                        seenPoint = true
                        position += 1
                    } else {
                        break
                    }
                }
            }
            out.append(contentsOf: "<mn>".utf8)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: source[numberStart..<position]))
            out.append(contentsOf: "</mn>".utf8)
            return Item(start: start, role: .ordinary)
        }
        let role: AtomRole
        switch b {
        case 0x2B, 0x3D, 0x2C, 0x3B, 0x3A, 0x21, 0x3F:  // + = , ; : ! ?
            writeToken("mo", b)
            role = .operatorSymbol
        case 0x3C:
            out.append(contentsOf: "<mo>&lt;</mo>".utf8)
            role = .operatorSymbol
        case 0x3E:
            out.append(contentsOf: "<mo>&gt;</mo>".utf8)
            role = .operatorSymbol
        case 0x2D:
            out.append(contentsOf: "<mo>\u{2212}</mo>".utf8)
            role = .operatorSymbol
        case 0x2A:
            out.append(contentsOf: "<mo>\u{2217}</mo>".utf8)
            role = .operatorSymbol
        case 0x2F:
            out.append(contentsOf: "<mo>/</mo>".utf8)
            role = .ordinary
        case 0x28, 0x5B:  // ( [
            writeFence(b)
            role = .opening
        case 0x29, 0x5D:  // ) ]
            writeFence(b)
            role = .closing
        case 0x7C:  // |
            writeFence(b)
            role = .ordinary
        case 0x2E:  // .
            writeToken("mi", b)
            role = .ordinary
        default:
            throw Decline()
        }
        position += 1
        return Item(start: start, role: role)
    }

    private mutating func command(_ name: String, start: Int) throws -> Item {
        switch name {
        case "frac":
            out.append(contentsOf: "<mfrac>".utf8)
            try argumentRow()
            try argumentRow()
            out.append(contentsOf: "</mfrac>".utf8)
            return Item(start: start, role: .ordinary)
        case "sqrt":
            skipSpaces()
            guard current != 0x5B else { throw Decline() }  // an index: the converter's job
            out.append(contentsOf: "<msqrt>".utf8)
            let nodesStart = out.count
            if try argumentNodes() == 0 {
                out.removeSubrange(nodesStart...)
                out.append(contentsOf: "<mrow/>".utf8)
            }
            out.append(contentsOf: "</msqrt>".utf8)
            return Item(start: start, role: .ordinary)
        case "left":
            // `Converter.leftRight`: the fences stretch around what is between them, in one row.
            let open = try delimiter()
            out.append(contentsOf: "<mrow>".utf8)
            let contentStart = out.count
            if let open { writeStretchyFence(open) }
            _ = try list(inGroup: false, untilRight: true)
            _ = try commandName()  // \right
            if let close = try delimiter() { writeStretchyFence(close) }
            if out.count == contentStart {
                out.removeSubrange((contentStart - 6)...)
                out.append(contentsOf: "<mrow/>".utf8)
            } else {
                out.append(contentsOf: "</mrow>".utf8)
            }
            return Item(start: start, role: .opening)
        default:
            return try symbol(name, start: start)
        }
    }

    /// `Converter.readDelimiter` for the fences it takes: brackets, bars, `.` (none), and the
    /// symbol table's fences and operators; anything else declines.
    private mutating func delimiter() throws -> String? {
        skipSpaces()
        guard let b = current else { throw Decline() }
        switch b {
        case 0x2E:
            position += 1
            return nil
        case 0x28, 0x29, 0x5B, 0x5D, 0x7C, 0x2F:
            position += 1
            return String(UnicodeScalar(b))
        case 0x5C:
            let name = try commandName()
            guard name != "lt", name != "gt", name != "backslash", let info = Symbols.table[name] else { throw Decline() }
            switch info.symbolClass {
            case .opening, .closing, .fence, .operatorSymbol: return info.text
            default: throw Decline()
            }
        default:
            throw Decline()
        }
    }

    /// `Converter.stretchyFence`: explicit `stretchy` only where the operator dictionary does not
    /// already make the fence stretch.
    private mutating func writeStretchyFence(_ text: String) {
        if Converter.defaultStretchy.contains(text) {
            writeToken("mo", text)
        } else {
            writeToken("mo", text, attributes: " stretchy=\"true\" symmetric=\"true\"")
        }
    }

    /// A symbol or a space from the converter's own table; any other command declines.
    private mutating func symbol(_ name: String, start: Int) throws -> Item {
        guard let entry = Self.symbols[name] else { throw Decline() }
        out.append(contentsOf: entry.markup)
        return Item(start: start, role: entry.role, movableLimitsAt: entry.movableLimitsAt.map { start + $0 })
    }

    /// A symbol's or a space's markup and what its list needs to know, written once per process.
    private struct WrittenSymbol {
        var markup: [UInt8]
        var role: AtomRole
        var movableLimitsAt: Int?
    }

    /// Every symbol and space of the converter's command table, except the names its lists handle
    /// themselves or stop at: one lookup per command.
    private static let symbols: [String: WrittenSymbol] = {
        var table: [String: WrittenSymbol] = [:]
        let none = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
        for (name, kind) in Converter.commandKinds where !Converter.listCommands.contains(name) && !stops.contains(name) {
            var writer = OnePass(source: none)
            let item: Item
            switch kind {
            case .space(let width):
                writer.out.append(contentsOf: "<mspace width=\"".utf8)
                XML.appendEscaped(width, to: &writer.out, inAttribute: true)
                writer.out.append(contentsOf: "\"/>".utf8)
                item = Item(start: 0, role: .space)
            case .symbol(let info):
                item = writer.symbolItem(info, start: 0)
            default:
                continue
            }
            table[name] = WrittenSymbol(
                markup: writer.out, role: item.role, movableLimitsAt: item.movableLimitsAt)
        }
        return table
    }()

    /// Names at which the converter's lists stop or that it reads as row breaks.
    private static let stops: Set<String> = ["\\", "cr", "newline", "tabularnewline", "end", "right", "middle", ")", "", "verb"]

    /// `Converter.symbolNode` with no font.
    private mutating func symbolItem(_ info: SymbolInfo, start: Int) -> Item {
        switch info.symbolClass {
        case .identifier:
            writeToken("mi", info.text)
            return Item(start: start, role: .ordinary)
        case .uprightIdentifier:
            writeToken("mi", info.text, attributes: " mathvariant=\"normal\"")
            return Item(start: start, role: .ordinary)
        case .operatorSymbol:
            writeToken("mo", info.text)
            return Item(start: start, role: .operatorSymbol)
        case .opening:
            writeToken("mo", info.text, attributes: " stretchy=\"false\"")
            return Item(start: start, role: .opening)
        case .closing:
            writeToken("mo", info.text, attributes: " stretchy=\"false\"")
            return Item(start: start, role: .closing)
        case .fence:
            writeToken("mo", info.text, attributes: " stretchy=\"false\"")
            return Item(start: start, role: .ordinary)
        case .largeOperator:
            let attributesEnd = writeToken("mo", info.text)
            return Item(start: start, role: .largeOperator, movableLimitsAt: attributesEnd)
        case .integral:
            writeToken("mo", info.text)
            return Item(start: start, role: .largeOperator)
        case .function:
            writeToken("mi", info.text)
            return Item(start: start, role: .function)
        case .namedOperator:
            let attributesEnd = writeToken("mo", info.text, attributes: " lspace=\"0\" rspace=\"0\"")
            return Item(start: start, role: .namedOperator, movableLimitsAt: attributesEnd)
        }
    }

    // MARK: Arguments and scripts

    /// `Converter.parseArgumentNodes`: a group's nodes (an empty group: nothing written, 0) or one
    /// atom read as a single character.
    private mutating func argumentNodes() throws -> Int {
        skipSpaces()
        guard let b = current else { throw Decline() }
        switch b {
        case 0x7B:
            position += 1
            let count = try list(inGroup: true).count
            position += 1
            return count
        case 0x7D, 0x5E, 0x5F, 0x26, 0x24:  // } ^ _ & $: a missing argument
            throw Decline()
        case 0x5C:
            let start = out.count
            let name = try commandName()
            guard name != "frac", name != "sqrt" else { throw Decline() }
            _ = try symbol(name, start: start)
            return 1
        default:
            _ = try character(single: true, start: out.count)
            return 1
        }
    }

    /// `Converter.parseArgument`: the nodes as one (an `<mrow>` unless there is exactly one).
    private mutating func argumentRow() throws {
        let start = out.count
        let count = try argumentNodes()
        if count != 1 { wrapRow(from: start, count: count) }
    }

    /// `MathNode(.mrow, nodes)` around what was written from `start`.
    private mutating func wrapRow(from start: Int, count: Int) {
        if count == 0 {
            out.append(contentsOf: "<mrow/>".utf8)
        } else {
            out.insert(contentsOf: "<mrow>".utf8, at: start)
            out.append(contentsOf: "</mrow>".utf8)
        }
    }

    /// Subscript, superscript and primes after an atom (`Converter.buildScripts`).
    private mutating func scripts(_ item: inout Item) throws {
        var sub: Range<Int>?
        var sup: Range<Int>?
        var primes = 0
        while true {
            skipSpaces()
            guard let b = current else { break }
            if b == 0x5E || b == 0x5F {
                let isSup = b == 0x5E
                guard isSup ? (sup == nil && primes == 0) : sub == nil else { throw Decline() }  // a double script
                position += 1
                let start = out.count
                try argumentRow()
                if isSup { sup = start..<out.count } else { sub = start..<out.count }
            } else if b == 0x27 {  // '
                guard sup == nil else { throw Decline() }
                while current == 0x27 {
                    primes += 1
                    position += 1
                }
            } else {
                break
            }
        }
        guard sub != nil || sup != nil || primes > 0 else { return }
        guard primes <= 4 else { throw Decline() }
        if primes > 0 {
            let start = out.count
            out.append(contentsOf: "<mo>".utf8)
            out.append(contentsOf: Converter.primes(primes).utf8)
            out.append(contentsOf: "</mo>".utf8)
            sup = start..<out.count
        }
        // The scripts in the converter's order, subscript first, whatever order they came in.
        if let sub, let sup, sup.lowerBound < sub.lowerBound {
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: out[sub])
            scratch.append(contentsOf: out[sup])
            out.replaceSubrange(sup.lowerBound..<out.count, with: scratch)
        }
        let stacked = item.movableLimitsAt != nil
        let tag: (open: [UInt8], close: [UInt8])
        switch (sub != nil, sup != nil) {
        case (true, true): tag = stacked ? Self.munderover : Self.msubsup
        case (true, false): tag = stacked ? Self.munder : Self.msub
        default: tag = stacked ? Self.mover : Self.msup
        }
        if let attributesEnd = item.movableLimitsAt {
            // Limits under and over an operator that may move them beside it in inline style.
            out.insert(contentsOf: Self.movableLimits, at: attributesEnd)
        }
        out.insert(contentsOf: tag.open, at: item.start)
        out.append(contentsOf: tag.close)
        item.movableLimitsAt = nil
    }

    private static let movableLimits = Array(" movablelimits=\"true\"".utf8)
    private static func tags(_ name: String) -> (open: [UInt8], close: [UInt8]) { (Array("<\(name)>".utf8), Array("</\(name)>".utf8)) }
    private static let msub = tags("msub"), msup = tags("msup"), msubsup = tags("msubsup")
    private static let munder = tags("munder"), mover = tags("mover"), munderover = tags("munderover")

    // MARK: Writing

    private mutating func writeToken(_ tag: StaticString, _ byte: UInt8) {
        out.append(0x3C)
        tag.withUTF8Buffer { out.append(contentsOf: $0) }
        out.append(0x3E)
        out.append(byte)
        out.append(0x3C)
        out.append(0x2F)
        tag.withUTF8Buffer { out.append(contentsOf: $0) }
        out.append(0x3E)
    }

    /// Writes `<tag attributes>text</tag>`; returns where the attributes end in `out`.
    @discardableResult
    private mutating func writeToken(_ tag: StaticString, _ text: String, attributes: StaticString = "") -> Int {
        out.append(0x3C)
        tag.withUTF8Buffer { out.append(contentsOf: $0) }
        attributes.withUTF8Buffer { out.append(contentsOf: $0) }
        let attributesEnd = out.count
        out.append(0x3E)
        XML.appendEscaped(text, to: &out, inAttribute: false)
        out.append(0x3C)
        out.append(0x2F)
        tag.withUTF8Buffer { out.append(contentsOf: $0) }
        out.append(0x3E)
        return attributesEnd
    }

    private mutating func writeFence(_ byte: UInt8) {
        out.append(contentsOf: "<mo stretchy=\"false\">".utf8)
        out.append(byte)
        out.append(contentsOf: "</mo>".utf8)
    }
}
