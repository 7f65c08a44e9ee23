/// The MathML elements this converter can produce. Keeping them in an enum means nothing outside
/// this list can reach the output, and `TeXMath.emittedElements` is derived from it.
enum MathTag: String, CaseIterable, Sendable {
    case math, semantics, annotation
    case mrow, mi, mn, mo, mtext, mspace
    case mfrac, msqrt, mroot, mstyle, merror, mpadded, mphantom
    case msub, msup, msubsup, munder, mover, munderover, mmultiscripts, mprescripts, none
    case mtable, mtr, mtd

    /// Token elements hold text, the others hold children.
    var holdsText: Bool {
        switch self {
        case .mi, .mn, .mo, .mtext, .annotation: return true
        default: return false
        }
    }
}

/// The attributes this converter can produce (all MathML Core; see `TeXMath.emittedAttributes`).
enum MathAttribute: String, CaseIterable, Sendable {
    case xmlns, display, encoding
    case displaystyle, scriptlevel, mathvariant, mathcolor, mathbackground, mathsize
    case form, lspace, rspace, stretchy, symmetric, minsize, maxsize, largeop, movablelimits
    case accent, accentunder, linethickness
    case width, height, depth, voffset
    case style
}

/// Fixed CSS declarations for the few layouts MathML Core has no attribute for (column alignment,
/// frames, strike-through). Values never come from the input.
enum FixedStyle: String, CaseIterable, Sendable {
    case alignLeft = "text-align: left"
    case alignRight = "text-align: right"
    case alignRightTight = "text-align: right; padding-right: 0"
    case alignLeftTight = "text-align: left; padding-left: 0"
    case frame = "padding: 0.2em; border: 0.06em solid"
    case strike = "text-decoration: line-through"
}

/// Where scripts go on a base (TeX's \limits / \nolimits, and big operators' defaults).
enum ScriptPlacement: Sendable {
    /// msub / msup / msubsup.
    case sides
    /// Under/over in display style, beside otherwise (`movablelimits`).
    case movable
    /// Always under/over.
    case stacked
}

/// What the parser knows about an atom beyond its markup; used for spacing and scripts.
enum AtomRole: Sendable {
    case ordinary
    case largeOperator
    case function
    case namedOperator
    case opening
    case closing
    case operatorSymbol
    case space
}

/// One node of the output tree.
struct MathNode: Sendable {
    var tag: MathTag
    var attributes: [(MathAttribute, String)] = []
    var text: String = ""
    var children: [MathNode] = []
    var role: AtomRole = .ordinary
    var placement: ScriptPlacement = .sides
    /// Set on `<mi>` made from letters under a font command, so neighbours can merge into one word.
    var mergeable = false

    init(_ tag: MathTag, _ children: [MathNode] = [], attributes: [(MathAttribute, String)] = []) {
        self.tag = tag
        self.children = children
        self.attributes = attributes
    }

    init(token tag: MathTag, _ text: String, attributes: [(MathAttribute, String)] = [], role: AtomRole = .ordinary) {
        self.tag = tag
        self.text = text
        self.attributes = attributes
        self.role = role
    }

    static func mi(_ text: String, upright: Bool = false) -> MathNode {
        MathNode(token: .mi, text, attributes: upright ? [(.mathvariant, "normal")] : [])
    }

    static func mo(_ text: String, _ attributes: [(MathAttribute, String)] = [], role: AtomRole = .operatorSymbol) -> MathNode {
        MathNode(token: .mo, text, attributes: attributes, role: role)
    }

    static func mn(_ text: String) -> MathNode { MathNode(token: .mn, text) }

    static func mtext(_ text: String) -> MathNode { MathNode(token: .mtext, text) }

    static func space(_ width: String) -> MathNode {
        var node = MathNode(.mspace, attributes: [(.width, width)])
        node.role = .space
        return node
    }

    static func error(_ text: String) -> MathNode {
        MathNode(.merror, [.mtext(text)])
    }

    /// `children` as one node: the child itself when there is exactly one, else an `<mrow>`.
    static func row(_ children: [MathNode]) -> MathNode {
        if children.count == 1 { return children[0] }
        return MathNode(.mrow, children)
    }

    func attribute(_ name: MathAttribute) -> String? {
        attributes.first(where: { $0.0 == name })?.1
    }

    mutating func setAttribute(_ name: MathAttribute, _ value: String) {
        if let index = attributes.firstIndex(where: { $0.0 == name }) {
            attributes[index].1 = value
        } else {
            attributes.append((name, value))
        }
    }

    mutating func removeAttribute(_ name: MathAttribute) {
        attributes.removeAll(where: { $0.0 == name })
    }

    /// True when this is an embellished operator in MathML's sense (its core is an `<mo>`), so
    /// attributes such as `movablelimits` on that `<mo>` take effect.
    var isEmbellishedOperator: Bool {
        switch tag {
        case .mo: return true
        case .msub, .msup, .msubsup, .munder, .mover, .munderover, .mmultiscripts, .mfrac:
            return children.first?.isEmbellishedOperator ?? false
        case .mrow, .mstyle, .mpadded, .mphantom:
            return children.count == 1 && children[0].isEmbellishedOperator
        default: return false
        }
    }

    /// Sets an attribute on the core `<mo>` of an embellished operator.
    mutating func setOnCoreOperator(_ name: MathAttribute, _ value: String) {
        if tag == .mo {
            setAttribute(name, value)
        } else if !children.isEmpty {
            children[0].setOnCoreOperator(name, value)
        }
    }
}

// MARK: - Serialization

extension MathNode {
    /// Writes the element as UTF-8. Bytes, not `String` appends: writing was an eighth of
    /// rendering a lecture whose formulas are new.
    func write(to out: inout [UInt8]) {
        out.append(0x3C)  // <
        out.append(contentsOf: tag.rawValue.utf8)
        for (name, value) in attributes {
            out.append(0x20)
            out.append(contentsOf: name.rawValue.utf8)
            out.append(0x3D)  // =
            out.append(0x22)  // "
            XML.appendEscaped(value, to: &out, inAttribute: true)
            out.append(0x22)
        }
        if tag.holdsText {
            out.append(0x3E)  // >
            XML.appendEscaped(text, to: &out, inAttribute: false)
        } else if children.isEmpty {
            out.append(0x2F)  // /
            out.append(0x3E)
            return
        } else {
            out.append(0x3E)
            for child in children { child.write(to: &out) }
        }
        out.append(0x3C)
        out.append(0x2F)
        out.append(contentsOf: tag.rawValue.utf8)
        out.append(0x3E)
    }
}

enum XML {
    /// Escapes markup characters and replaces what XML 1.0 cannot carry at all (C0 controls other
    /// than tab/newline/return, U+FFFE, U+FFFF) with U+FFFD, so the output is always well-formed.
    static func appendEscaped(_ text: String, to out: inout [UInt8], inAttribute: Bool) {
        var text = text
        text.withUTF8 { appendEscaped($0, to: &out, inAttribute: inAttribute) }
    }

    /// `appendEscaped` for UTF-8 bytes.
    static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8], inAttribute: Bool) {
        do {
            var i = 0
            let n = bytes.count
            while i < n {
                let byte = bytes[i]
                switch byte {
                case 0x26: out.append(contentsOf: "&amp;".utf8)
                case 0x3C: out.append(contentsOf: "&lt;".utf8)
                case 0x3E: out.append(contentsOf: "&gt;".utf8)
                case 0x22 where inAttribute: out.append(contentsOf: "&quot;".utf8)
                case 0x09, 0x0A, 0x0D:
                    if inAttribute {
                        out.append(contentsOf: "&#\(byte);".utf8)
                    } else {
                        out.append(byte)
                    }
                case ..<0x20:
                    out.append(contentsOf: replacement)
                case 0xEF where i + 2 < n && bytes[i + 1] == 0xBF && (bytes[i + 2] == 0xBE || bytes[i + 2] == 0xBF):
                    // U+FFFE, U+FFFF
                    out.append(contentsOf: replacement)
                    i += 2
                default:
                    out.append(byte)
                }
                i += 1
            }
        }
    }

    /// U+FFFD as UTF-8.
    private static let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]

    static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v < 0x20 { return v == 0x09 || v == 0x0A || v == 0x0D }
        return v != 0xFFFE && v != 0xFFFF
    }
}
