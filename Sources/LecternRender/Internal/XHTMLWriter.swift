internal import CCmarkGFM
internal import TeXMath

/// Walks cmark-gfm's tree and writes the XHTML body (not yet sanitized), putting MathML where the
/// placeholder tokens are and the original source back where a token landed inside code.
///
/// Writing XHTML from the tree, rather than parsing `cmark_render_html`'s HTML, keeps node types in
/// view: tokens are substituted in text only, the Lectern containers and table `style`s are
/// written directly, and everything is escaped for XML by construction.
struct XHTMLWriter {
    /// The body so far, inside the XHTML wrapper element the sanitizer parses
    /// (`<div xmlns="…xhtml">`; `finish()` closes it).
    private(set) var out: [UInt8] = []
    /// Problems worth telling the author about, with source lines.
    private(set) var warnings: [String] = []
    /// Plain text of the first heading (a title when the caller gives none).
    private(set) var firstHeading: String?
    /// Indices of formulas whose MathML went into the body.
    private(set) var usedFormulas: [Int] = []

    /// The MathML of each slot written into the body, in order (`trustsMathML`).
    private(set) var trustedMathML: [[UInt8]] = []

    private let protected: ProtectedMarkdown
    private let registry = CMarkParser.registry
    private var mathML: [[UInt8]?]
    /// Whether formulas go into the body as slots that the sanitizer fills with the converter's
    /// MathML as it is (see `MathSlot`), or as markup it parses and re-checks.
    private let trustsMathML: Bool

    /// Deeper container nesting is flattened: libxml2 refuses documents nested over 256 levels and
    /// MathML needs room of its own.
    private static let maximumBlockNesting = 32
    private static let maximumInlineNesting = 16

    // Walk state.
    private var blockDepth = 0
    private var inlineDepth = 0
    private var listTight: [Bool] = []
    private var paragraph: Paragraph?
    private var blockLine = 1
    private var headingCapture: [UInt8]?
    private var altDepth = 0
    private var alt: [UInt8] = []
    private var imageURL = ""
    private var imageTitle = ""
    private var inlineContainerOnly = 0  // > 0 inside headings and table cells
    private var tableAlignments: [UInt8] = []
    private var tableBodyOpen = false
    private var rowIsHeader = false
    private var cellIndex = 0

    private struct Paragraph {
        var wrapped: Bool
        var open = false
        var pendingSoftbreak = false
    }

    init(protected: ProtectedMarkdown, trustsMathML: Bool = true) {
        self.protected = protected
        self.trustsMathML = trustsMathML
        self.mathML = Array(repeating: nil, count: protected.formulas.count)
        out.reserveCapacity(protected.bytes.count * 2 + 256)
        XMLBytes.append(Self.wrapperStart, to: &out)
    }

    static let wrapperStart: StaticString = "<div xmlns=\"http://www.w3.org/1999/xhtml\">"

    /// Closes the wrapper: `out` is then the document the sanitizer parses.
    mutating func finish() {
        XMLBytes.append("</div>", to: &out)
    }

    // MARK: Walk

    mutating func write(document: OpaquePointer) {
        guard let iter = cmark_iter_new(document) else { return }
        defer { cmark_iter_free(iter) }
        while true {
            let event = cmark_iter_next(iter)
            if event == CMARK_EVENT_DONE { break }
            guard let node = cmark_iter_get_node(iter) else { continue }
            visit(node, entering: event == CMARK_EVENT_ENTER)
        }
    }

    private mutating func visit(_ node: OpaquePointer, entering: Bool) {
        let type = cmark_node_get_type(node)
        if altDepth > 0 {
            collectAlt(node, type: type, entering: entering)
            return
        }
        if type == registry.table {
            table(node, entering: entering)
            return
        }
        if type == registry.tableRow {
            tableRow(node, entering: entering)
            return
        }
        if type == registry.tableCell {
            tableCell(entering: entering)
            return
        }
        if type == registry.strikethrough {
            inlineElement("del", entering: entering)
            return
        }
        switch type {
        case CMARK_NODE_DOCUMENT:
            break
        case CMARK_NODE_BLOCK_QUOTE:
            container(node, entering: entering, open: "<blockquote class=\"lectern-quote\">\n", close: "</blockquote>\n")
        case CMARK_NODE_LIST:
            list(node, entering: entering)
        case CMARK_NODE_ITEM:
            container(node, entering: entering, open: "<li>", close: "</li>\n")
        case CMARK_NODE_CODE_BLOCK:
            codeBlock(node)
        case CMARK_NODE_HTML_BLOCK:
            noteBlockLine(node)
            warn("line \(blockLine): raw HTML omitted (only Markdown is rendered)")
        case CMARK_NODE_PARAGRAPH:
            paragraph(node, entering: entering)
        case CMARK_NODE_HEADING:
            heading(node, entering: entering)
        case CMARK_NODE_THEMATIC_BREAK:
            XMLBytes.append("<hr/>\n", to: &out)
        case CMARK_NODE_TEXT:
            text(UnsafeBufferPointer.cString(cmark_node_get_literal(node)))
        case CMARK_NODE_SOFTBREAK:
            softbreak()
        case CMARK_NODE_LINEBREAK:
            openInline()
            XMLBytes.append("<br/>\n", to: &out)
        case CMARK_NODE_CODE:
            openInline()
            XMLBytes.append("<code>", to: &out)
            appendRestored(UnsafeBufferPointer.cString(cmark_node_get_literal(node)))
            XMLBytes.append("</code>", to: &out)
            capture(UnsafeBufferPointer.cString(cmark_node_get_literal(node)))
        case CMARK_NODE_HTML_INLINE:
            warn("line \(blockLine): inline HTML omitted (only Markdown is rendered)")
        case CMARK_NODE_EMPH:
            inlineElement("em", entering: entering)
        case CMARK_NODE_STRONG:
            inlineElement("strong", entering: entering)
        case CMARK_NODE_LINK:
            link(node, entering: entering)
        case CMARK_NODE_IMAGE:
            if entering {
                altDepth = 1
                alt.removeAll(keepingCapacity: true)
                imageURL = restored(cmark_node_get_url(node))
                imageTitle = restored(cmark_node_get_title(node))
            }
        default:
            // Custom blocks and inlines (never produced by parsing) and footnotes (not enabled):
            // their children are still visited.
            break
        }
    }

    // MARK: Blocks

    private mutating func noteBlockLine(_ node: OpaquePointer) {
        let line = Int(cmark_node_get_start_line(node))
        if line > 0 { blockLine = protected.originalLine(line) }
    }

    private mutating func container(_ node: OpaquePointer, entering: Bool, open: StaticString, close: StaticString) {
        if entering {
            noteBlockLine(node)
            blockDepth += 1
            if blockDepth <= Self.maximumBlockNesting { XMLBytes.append(open, to: &out) }
        } else {
            if blockDepth <= Self.maximumBlockNesting { XMLBytes.append(close, to: &out) }
            blockDepth -= 1
        }
    }

    private mutating func list(_ node: OpaquePointer, entering: Bool) {
        let ordered = cmark_node_get_list_type(node) == CMARK_ORDERED_LIST
        if entering {
            noteBlockLine(node)
            listTight.append(cmark_node_get_list_tight(node) != 0)
            blockDepth += 1
            guard blockDepth <= Self.maximumBlockNesting else { return }
            if ordered {
                let start = cmark_node_get_list_start(node)
                if start != 1 {
                    XMLBytes.append("<ol start=\"", to: &out)
                    out += Array(String(start).utf8)
                    XMLBytes.append("\">\n", to: &out)
                } else {
                    XMLBytes.append("<ol>\n", to: &out)
                }
            } else {
                XMLBytes.append("<ul>\n", to: &out)
            }
        } else {
            if blockDepth <= Self.maximumBlockNesting {
                XMLBytes.append(ordered ? "</ol>\n" : "</ul>\n", to: &out)
            }
            blockDepth -= 1
            _ = listTight.popLast()
        }
    }

    private mutating func paragraph(_ node: OpaquePointer, entering: Bool) {
        if entering {
            noteBlockLine(node)
            var tight = false
            if let parent = cmark_node_parent(node), cmark_node_get_type(parent) == CMARK_NODE_ITEM {
                tight = listTight.last ?? false
            }
            paragraph = Paragraph(wrapped: !tight)
        } else {
            if let p = paragraph, p.open, p.wrapped { XMLBytes.append("</p>\n", to: &out) }
            paragraph = nil
        }
    }

    private mutating func heading(_ node: OpaquePointer, entering: Bool) {
        let level = max(1, min(6, Int(cmark_node_get_heading_level(node))))
        if entering {
            noteBlockLine(node)
            out += [0x3C, 0x68, UInt8(0x30 + level), 0x3E]  // <hN>
            inlineContainerOnly += 1
            if firstHeading == nil { headingCapture = [] }
        } else {
            out += [0x3C, 0x2F, 0x68, UInt8(0x30 + level), 0x3E, 0x0A]  // </hN>
            inlineContainerOnly -= 1
            if let captured = headingCapture {
                firstHeading = String(decoding: captured, as: UTF8.self)
                headingCapture = nil
            }
        }
    }

    private mutating func codeBlock(_ node: OpaquePointer) {
        noteBlockLine(node)
        let info = restored(cmark_node_get_fence_info(node))
        let language = Self.languageName(info)
        var literal: [UInt8] = []
        MathToken.restore(
            UnsafeBufferPointer.cString(cmark_node_get_literal(node)), formulas: protected.formulas, into: &literal)
        if language.lowercased() == "math" {
            let tex = String(decoding: literal, as: UTF8.self)
            let conversion = FormulaCache.shared.convert(tex, display: true)
            for w in conversion.warnings { warn("line \(blockLine + 1): ```math block: \(w)") }
            XMLBytes.append("<div class=\"lectern-math\" dir=\"ltr\">", to: &out)
            appendMath(conversion.mathML)
            XMLBytes.append("</div>\n", to: &out)
            return
        }
        XMLBytes.append("<div class=\"lectern-code\" dir=\"ltr\"><pre><code", to: &out)
        if !language.isEmpty {
            XMLBytes.append(" class=\"language-", to: &out)
            out.append(contentsOf: language.utf8)
            out.append(0x22)
        }
        out.append(0x3E)
        XMLBytes.appendText(literal, to: &out)
        XMLBytes.append("</code></pre></div>\n", to: &out)
    }

    /// The first word of a fence's info string, keeping only characters safe in a class name.
    static func languageName(_ info: String) -> String {
        var name = ""
        for ch in info.unicodeScalars {
            if ch == " " || ch == "\t" || ch == "{" {
                if name.isEmpty { continue } else { break }
            }
            let v = ch.value
            let allowed =
                (v >= 0x30 && v <= 0x39) || (v >= 0x41 && v <= 0x5A) || (v >= 0x61 && v <= 0x7A) || ch == "_"
                || ch == "-" || ch == "+" || ch == "#" || ch == "."
            if allowed { name.unicodeScalars.append(ch) }
            if name.utf8.count >= 40 { break }
        }
        return name
    }

    // MARK: Tables

    private mutating func table(_ node: OpaquePointer, entering: Bool) {
        if entering {
            noteBlockLine(node)
            let columns = Int(cmark_gfm_extensions_get_table_columns(node))
            tableAlignments = []
            if let alignments = cmark_gfm_extensions_get_table_alignments(node), columns > 0 {
                tableAlignments = Array(UnsafeBufferPointer(start: alignments, count: columns))
            }
            tableBodyOpen = false
            XMLBytes.append("<table>\n", to: &out)
        } else {
            if tableBodyOpen { XMLBytes.append("</tbody>\n", to: &out) }
            XMLBytes.append("</table>\n", to: &out)
        }
    }

    private mutating func tableRow(_ node: OpaquePointer, entering: Bool) {
        if entering {
            rowIsHeader = cmark_gfm_extensions_get_table_row_is_header(node) != 0
            cellIndex = 0
            if rowIsHeader {
                XMLBytes.append("<thead>\n<tr>\n", to: &out)
            } else {
                if !tableBodyOpen {
                    XMLBytes.append("<tbody>\n", to: &out)
                    tableBodyOpen = true
                }
                XMLBytes.append("<tr>\n", to: &out)
            }
        } else {
            XMLBytes.append(rowIsHeader ? "</tr>\n</thead>\n" : "</tr>\n", to: &out)
        }
    }

    private mutating func tableCell(entering: Bool) {
        if entering {
            XMLBytes.append(rowIsHeader ? "<th" : "<td", to: &out)
            let alignment = cellIndex < tableAlignments.count ? tableAlignments[cellIndex] : 0
            switch alignment {
            case UInt8(ascii: "l"): XMLBytes.append(" style=\"text-align: left\"", to: &out)
            case UInt8(ascii: "c"): XMLBytes.append(" style=\"text-align: center\"", to: &out)
            case UInt8(ascii: "r"): XMLBytes.append(" style=\"text-align: right\"", to: &out)
            default: break
            }
            out.append(0x3E)
            cellIndex += 1
            inlineContainerOnly += 1
        } else {
            XMLBytes.append(rowIsHeader ? "</th>\n" : "</td>\n", to: &out)
            inlineContainerOnly -= 1
        }
    }

    // MARK: Inlines

    /// Before inline content: opens a pending paragraph and writes a pending soft break.
    private mutating func openInline() {
        guard var p = paragraph else { return }
        if !p.open {
            if p.wrapped { XMLBytes.append("<p>", to: &out) }
            p.open = true
        }
        if p.pendingSoftbreak {
            out.append(0x0A)
            p.pendingSoftbreak = false
        }
        paragraph = p
    }

    private mutating func softbreak() {
        capture([0x20])
        if paragraph != nil, inlineDepth == 0 {
            // Held back so that a display formula right after it does not leave "\n" behind.
            if paragraph?.open == true { paragraph?.pendingSoftbreak = true }
            return
        }
        out.append(0x0A)
    }

    private mutating func inlineElement(_ name: StaticString, entering: Bool) {
        if entering {
            openInline()
            inlineDepth += 1
            guard inlineDepth <= Self.maximumInlineNesting else { return }
            out.append(0x3C)
            XMLBytes.append(name, to: &out)
            out.append(0x3E)
        } else {
            if inlineDepth <= Self.maximumInlineNesting {
                out += [0x3C, 0x2F]
                XMLBytes.append(name, to: &out)
                out.append(0x3E)
            }
            inlineDepth -= 1
        }
    }

    private mutating func link(_ node: OpaquePointer, entering: Bool) {
        if entering {
            openInline()
            inlineDepth += 1
            guard inlineDepth <= Self.maximumInlineNesting else { return }
            let url = restored(cmark_node_get_url(node))
            let title = restored(cmark_node_get_title(node))
            XMLBytes.append("<a", to: &out)
            if URLPolicy.isAllowed(url, schemes: URLPolicy.linkSchemes) {
                XMLBytes.append(" href=\"", to: &out)
                XMLBytes.appendText(url, to: &out, attribute: true)
                out.append(0x22)
            } else {
                warn("line \(blockLine): link target \(Self.quoted(url)) removed (only http, https, mailto and relative links are allowed)")
            }
            if !title.isEmpty {
                XMLBytes.append(" title=\"", to: &out)
                XMLBytes.appendText(title, to: &out, attribute: true)
                out.append(0x22)
            }
            out.append(0x3E)
        } else {
            if inlineDepth <= Self.maximumInlineNesting { XMLBytes.append("</a>", to: &out) }
            inlineDepth -= 1
        }
    }

    private mutating func collectAlt(_ node: OpaquePointer, type: cmark_node_type, entering: Bool) {
        switch type {
        case CMARK_NODE_IMAGE:
            if entering {
                altDepth += 1
                return
            }
            altDepth -= 1
            if altDepth == 0 { image() }
        case CMARK_NODE_TEXT, CMARK_NODE_CODE:
            let bytes = UnsafeBufferPointer.cString(cmark_node_get_literal(node))
            MathToken.forEachPiece(in: bytes) { piece in
                switch piece {
                case .text(let r): alt.append(contentsOf: bytes[r])
                case .literalOpen: alt += MathToken.open
                case .formula(let i):
                    if protected.formulas.indices.contains(i) { alt.append(contentsOf: protected.formulas[i].tex.utf8) }
                }
            }
        case CMARK_NODE_SOFTBREAK, CMARK_NODE_LINEBREAK:
            alt.append(0x20)
        default:
            break
        }
    }

    private mutating func image() {
        openInline()
        capture(alt)
        if URLPolicy.isAllowed(imageURL, schemes: URLPolicy.imageSchemes), !imageURL.isEmpty {
            XMLBytes.append("<img src=\"", to: &out)
            XMLBytes.appendText(imageURL, to: &out, attribute: true)
            XMLBytes.append("\" alt=\"", to: &out)
            XMLBytes.appendText(alt, to: &out, attribute: true)
            out.append(0x22)
            if !imageTitle.isEmpty {
                XMLBytes.append(" title=\"", to: &out)
                XMLBytes.appendText(imageTitle, to: &out, attribute: true)
                out.append(0x22)
            }
            XMLBytes.append("/>", to: &out)
        } else {
            warn("line \(blockLine): image source \(Self.quoted(imageURL)) removed (only http, https and relative images are allowed)")
            XMLBytes.appendText(alt, to: &out)
        }
    }

    private mutating func text(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.contains(0xEE) else {
            openInline()
            XMLBytes.appendText(bytes, to: &out)
            capture(bytes)
            return
        }
        MathToken.forEachPiece(in: bytes) { piece in
            switch piece {
            case .text(var r):
                if let p = paragraph, !p.open, inlineDepth == 0 {
                    // Right after a display formula: no paragraph for the line break alone.
                    while r.lowerBound < r.upperBound, [0x20, 0x09, 0x0A].contains(bytes[r.lowerBound]) {
                        r = (r.lowerBound + 1)..<r.upperBound
                    }
                    if r.isEmpty { return }
                }
                openInline()
                XMLBytes.appendText(bytes[r], to: &out)
                capture(UnsafeBufferPointer(rebasing: bytes[r]))
            case .literalOpen:
                openInline()
                out += MathToken.open
                capture(MathToken.open)
            case .formula(let i):
                formula(i)
            }
        }
    }

    private mutating func formula(_ index: Int) {
        guard protected.formulas.indices.contains(index) else { return }
        let f = protected.formulas[index]
        capture(Array(f.tex.utf8))
        let markup = mathML(for: index)
        if f.display, paragraph != nil, inlineDepth == 0, inlineContainerOnly == 0 {
            // A display formula at the top of a paragraph: the paragraph splits around its block.
            if var p = paragraph, p.open {
                if p.wrapped { XMLBytes.append("</p>\n", to: &out) }
                p.open = false
                p.pendingSoftbreak = false
                paragraph = p
            }
            XMLBytes.append("<div class=\"lectern-math\" dir=\"ltr\">", to: &out)
            appendMath(markup)
            XMLBytes.append("</div>\n", to: &out)
            return
        }
        openInline()
        if f.display {
            XMLBytes.append("<span class=\"lectern-math lectern-math-display\" dir=\"ltr\">", to: &out)
            appendMath(markup)
            XMLBytes.append("</span>", to: &out)
        } else {
            appendMath(markup)
        }
    }

    /// One formula's MathML: a slot the sanitizer fills (`MathSlot`), or the markup itself.
    private mutating func appendMath(_ markup: [UInt8]) {
        guard trustsMathML else {
            XMLBytes.appendMarkup(markup, to: &out)
            return
        }
        MathSlot.append(index: trustedMathML.count, to: &out)
        trustedMathML.append(MathSlot.normalizingLineEnds(markup))
    }

    private mutating func mathML(for index: Int) -> [UInt8] {
        if let cached = mathML[index] { return cached }
        let f = protected.formulas[index]
        let conversion = FormulaCache.shared.convert(f.tex, display: f.display)
        for w in conversion.warnings {
            warn("line \(f.line), column \(f.column): \(Self.quoted(f.source)): \(w)")
        }
        mathML[index] = conversion.mathML
        usedFormulas.append(index)
        return conversion.mathML
    }

    /// The MathML written for formula `index` (after `write`).
    func writtenMathML(_ index: Int) -> String? { mathML[index].map { String(decoding: $0, as: UTF8.self) } }

    // MARK: Helpers

    private mutating func appendRestored(_ bytes: UnsafeBufferPointer<UInt8>) {
        if bytes.contains(0xEE) {
            var restoredBytes: [UInt8] = []
            MathToken.restore(bytes, formulas: protected.formulas, into: &restoredBytes)
            XMLBytes.appendText(restoredBytes, to: &out)
        } else {
            XMLBytes.appendText(bytes, to: &out)
        }
    }

    private func restored(_ p: UnsafePointer<CChar>?) -> String {
        let bytes = UnsafeBufferPointer.cString(p)
        var result: [UInt8] = []
        MathToken.restore(bytes, formulas: protected.formulas, into: &result)
        return String(decoding: result, as: UTF8.self)
    }

    private mutating func capture<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if headingCapture != nil { headingCapture?.append(contentsOf: bytes) }
    }

    private mutating func warn(_ message: String) {
        if warnings.count < 200 { warnings.append(message) }
    }

    static func quoted(_ s: String) -> String {
        var shown = String.UnicodeScalarView()
        var count = 0
        for scalar in s.unicodeScalars {
            if count == 60 {
                shown.append("…")
                break
            }
            shown.append(scalar.value < 0x20 ? " " : scalar)
            count += 1
        }
        return "“" + String(shown) + "”"
    }
}
