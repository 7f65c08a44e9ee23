// MARK: - Bytes

enum ASCII {
    static let tab: UInt8 = 0x09, lf: UInt8 = 0x0A, cr: UInt8 = 0x0D, space: UInt8 = 0x20
    static let dollar: UInt8 = 0x24, backslash: UInt8 = 0x5C, backtick: UInt8 = 0x60
    static let lparen: UInt8 = 0x28, rparen: UInt8 = 0x29, lbracket: UInt8 = 0x5B, rbracket: UInt8 = 0x5D
    static let lbrace: UInt8 = 0x7B, rbrace: UInt8 = 0x7D, lt: UInt8 = 0x3C, gt: UInt8 = 0x3E
    static let hash: UInt8 = 0x23, tilde: UInt8 = 0x7E, pipe: UInt8 = 0x7C, colon: UInt8 = 0x3A
    static let minus: UInt8 = 0x2D, plus: UInt8 = 0x2B, star: UInt8 = 0x2A, underscore: UInt8 = 0x5F
    static let equals: UInt8 = 0x3D, dot: UInt8 = 0x2E, at: UInt8 = 0x40

    @inline(__always) static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    @inline(__always) static func isAlpha(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
    @inline(__always) static func isAlnum(_ b: UInt8) -> Bool { isAlpha(b) || isDigit(b) }
    @inline(__always) static func isLineSpace(_ b: UInt8) -> Bool { b == space || b == tab }
    /// Whitespace inside a formula run (runs join lines with LF).
    @inline(__always) static func isMathSpace(_ b: UInt8) -> Bool { b == space || b == tab || b == lf }
    static func lower(_ b: UInt8) -> UInt8 { isAlpha(b) ? b | 0x20 : b }
}

// MARK: - Block structure

/// A line's content range inside the source, after its container prefix.
struct Segment {
    var start: Int
    var end: Int
}

struct BlockScanner {
    enum Container: Equatable {
        case blockQuote
        case listItem(contentColumn: Int)
    }

    enum Leaf: Equatable {
        case none
        case paragraph
        case table
        case fencedCode(fence: UInt8, length: Int)
        case indentedCode
        case htmlUntil([UInt8])  // types 1–5: until a line containing the marker
        case htmlUntilBlank  // type 6
    }

    let src: UnsafeBufferPointer<UInt8>
    var containers: [Container] = []
    var leaf: Leaf = .none
    var paragraph: [Segment] = []
    /// Formulas found so far, in source order.
    var formulas: [MarkdownLayout.Formula] = []
    /// Whether code blocks, code spans and HTML lines are collected (the renderer needs only
    /// the formulas).
    let collectsCode: Bool
    var codeBlocks: [MarkdownLayout.CodeBlock] = []
    var codeSpans: [Range<Int>] = []
    var htmlLines: [Int] = []
    var runs: [Range<Int>] = []
    /// The code block being read.
    var openBlock: MarkdownLayout.CodeBlock?
    /// Trailing blank lines of an indented block, held until a code line follows them.
    var pendingBlankLines: [String] = []
    /// The indentation of the open fence.
    var fenceIndent = 0
    /// Byte offsets of line starts, for positions in messages.
    var lineStarts: [Int] = []
    var lastPosition: (offset: Int, line: Int, column: Int)?

    init(source: UnsafeBufferPointer<UInt8>, collectsCode: Bool) {
        self.src = source
        self.collectsCode = collectsCode
    }

    // A cursor over one line: byte position plus column (tabs stop every 4 columns).
    struct Cursor {
        var pos: Int
        var col: Int
        let end: Int
    }

    mutating func run() {
        var lineStart = 0
        let n = src.count
        while lineStart < n || (lineStart == n && lineStarts.isEmpty) {
            var end = lineStart
            while end < n, src[end] != ASCII.lf, src[end] != ASCII.cr { end += 1 }
            var next = end
            if next < n {
                next += (src[next] == ASCII.cr && next + 1 < n && src[next + 1] == ASCII.lf) ? 2 : 1
            }
            lineStarts.append(lineStart)
            processLine(start: lineStart, end: end)
            if next == lineStart { break }
            lineStart = next
        }
        closeLeaf()
    }

    // MARK: Line helpers

    func indentOf(_ c: Cursor) -> (columns: Int, pos: Int, col: Int) {
        var p = c.pos
        var col = c.col
        while p < c.end {
            if src[p] == ASCII.space {
                col += 1
            } else if src[p] == ASCII.tab {
                col += 4 - (col % 4)
            } else {
                break
            }
            p += 1
        }
        return (col - c.col, p, col)
    }

    func isBlank(_ c: Cursor) -> Bool {
        var p = c.pos
        while p < c.end {
            if !ASCII.isLineSpace(src[p]) { return false }
            p += 1
        }
        return true
    }

    /// Advances `c` by `columns` columns of indentation (a tab is consumed whole).
    func consumeColumns(_ c: inout Cursor, _ columns: Int) {
        let target = c.col + columns
        while c.pos < c.end, c.col < target {
            if src[c.pos] == ASCII.space {
                c.col += 1
            } else if src[c.pos] == ASCII.tab {
                c.col += 4 - (c.col % 4)
            } else {
                break
            }
            c.pos += 1
        }
    }

    // MARK: Leaf starts

    /// An opening code fence at `p`: (fence char, length) if present.
    func fenceOpening(at p: Int, end: Int) -> (UInt8, Int)? {
        guard p < end, src[p] == ASCII.backtick || src[p] == ASCII.tilde else { return nil }
        let ch = src[p]
        var q = p
        while q < end, src[q] == ch { q += 1 }
        let length = q - p
        guard length >= 3 else { return nil }
        if ch == ASCII.backtick {
            while q < end {
                if src[q] == ASCII.backtick { return nil }
                q += 1
            }
        }
        return (ch, length)
    }

    func isClosingFence(at p: Int, end: Int, fence: UInt8, length: Int) -> Bool {
        var q = p
        while q < end, src[q] == fence { q += 1 }
        guard q - p >= length else { return false }
        while q < end {
            if !ASCII.isLineSpace(src[q]) { return false }
            q += 1
        }
        return true
    }

    /// `#`…`######` followed by space or end of line: returns where the heading text starts.
    func atxHeadingContent(at p: Int, end: Int) -> Int? {
        var q = p
        while q < end, src[q] == ASCII.hash { q += 1 }
        let level = q - p
        guard level >= 1, level <= 6 else { return nil }
        if q == end { return q }
        return ASCII.isLineSpace(src[q]) ? q : nil
    }

    func isThematicBreak(at p: Int, end: Int) -> Bool {
        guard p < end else { return false }
        let ch = src[p]
        guard ch == ASCII.star || ch == ASCII.minus || ch == ASCII.underscore else { return false }
        var count = 0
        var q = p
        while q < end {
            if src[q] == ch {
                count += 1
            } else if !ASCII.isLineSpace(src[q]) {
                return false
            }
            q += 1
        }
        return count >= 3
    }

    func isSetextUnderline(at p: Int, end: Int) -> Bool {
        guard p < end, src[p] == ASCII.equals || src[p] == ASCII.minus else { return false }
        let ch = src[p]
        var q = p
        while q < end, src[q] == ch { q += 1 }
        while q < end {
            if !ASCII.isLineSpace(src[q]) { return false }
            q += 1
        }
        return true
    }

    /// A list marker at `p`: (marker width, is ordered, ordered start is 1).
    func listMarker(at p: Int, end: Int) -> (width: Int, ordered: Bool, startsAtOne: Bool)? {
        guard p < end else { return nil }
        let b = src[p]
        var q = p
        var ordered = false
        var startsAtOne = false
        if b == ASCII.minus || b == ASCII.plus || b == ASCII.star {
            q += 1
        } else if ASCII.isDigit(b) {
            var value = 0
            while q < end, ASCII.isDigit(src[q]), q - p < 9 {
                value = value * 10 + Int(src[q] - 0x30)
                q += 1
            }
            guard q < end, src[q] == ASCII.dot || src[q] == ASCII.rparen else { return nil }
            q += 1
            ordered = true
            startsAtOne = value == 1
        } else {
            return nil
        }
        guard q == end || ASCII.isLineSpace(src[q]) else { return nil }
        return (q - p, ordered, startsAtOne)
    }

    static let htmlType1: [[UInt8]] = ["script", "pre", "style", "textarea"].map { Array($0.utf8) }
    static let htmlType6: Set<[UInt8]> = Set(
        [
            "address", "article", "aside", "base", "basefont", "blockquote", "body", "caption", "center",
            "col", "colgroup", "dd", "details", "dialog", "dir", "div", "dl", "dt", "fieldset",
            "figcaption", "figure", "footer", "form", "frame", "frameset", "h1", "h2", "h3", "h4", "h5",
            "h6", "head", "header", "hr", "html", "iframe", "legend", "li", "link", "main", "menu",
            "menuitem", "nav", "noframes", "ol", "optgroup", "option", "p", "param", "section", "source",
            "summary", "table", "tbody", "td", "tfoot", "th", "thead", "title", "tr", "track", "ul",
        ].map { Array($0.utf8) })

    /// HTML block start (CommonMark types 1–6) at `p`.
    func htmlBlockStart(at p: Int, end: Int) -> Leaf? {
        guard p < end, src[p] == ASCII.lt else { return nil }
        func hasPrefix(_ s: String, at i: Int) -> Bool {
            var k = i
            for b in s.utf8 {
                guard k < end, ASCII.lower(src[k]) == ASCII.lower(b) else { return false }
                k += 1
            }
            return true
        }
        if hasPrefix("<!--", at: p) { return .htmlUntil(Array("-->".utf8)) }
        if hasPrefix("<?", at: p) { return .htmlUntil(Array("?>".utf8)) }
        if hasPrefix("<![CDATA[", at: p) { return .htmlUntil(Array("]]>".utf8)) }
        if hasPrefix("<!", at: p), p + 2 < end, ASCII.isAlpha(src[p + 2]) { return .htmlUntil([ASCII.gt]) }
        var q = p + 1
        let closing = q < end && src[q] == 0x2F
        if closing { q += 1 }
        let nameStart = q
        while q < end, ASCII.isAlnum(src[q]) { q += 1 }
        guard q > nameStart else { return nil }
        let name = src[nameStart..<q].map(ASCII.lower)
        let after = q < end ? src[q] : ASCII.space
        let delimited = ASCII.isLineSpace(after) || after == ASCII.gt || q == end
        if !closing, delimited, Self.htmlType1.contains(name) {
            return .htmlUntil(Array("</".utf8) + name + [ASCII.gt])
        }
        let selfClosing = after == 0x2F && q + 1 < end && src[q + 1] == ASCII.gt
        if Self.htmlType6.contains(name), delimited || selfClosing { return .htmlUntilBlank }
        return nil
    }

    func lineContains(_ marker: [UInt8], from p: Int, to end: Int) -> Bool {
        guard !marker.isEmpty, end - p >= marker.count else { return false }
        var i = p
        while i + marker.count <= end {
            var k = 0
            while k < marker.count, ASCII.lower(src[i + k]) == marker[k] { k += 1 }
            if k == marker.count { return true }
            i += 1
        }
        return false
    }

    // MARK: The line

    mutating func processLine(start: Int, end: Int) {
        var c = Cursor(pos: start, col: 0, end: end)

        // 1. Continue open containers.
        var matched = 0
        for container in containers {
            let ind = indentOf(c)
            switch container {
            case .blockQuote:
                guard ind.columns <= 3, ind.pos < end, src[ind.pos] == ASCII.gt else { break }
                c.pos = ind.pos + 1
                c.col = ind.col + 1
                if c.pos < end, ASCII.isLineSpace(src[c.pos]) { consumeColumns(&c, 1) }
                matched += 1
                continue
            case .listItem(let contentColumn):
                if isBlank(c) {
                    matched += 1
                    continue
                }
                let need = contentColumn - c.col
                guard ind.columns >= need else { break }
                consumeColumns(&c, need)
                matched += 1
                continue
            }
            break
        }
        let allMatched = matched == containers.count

        // 2. Lines inside code and HTML blocks.
        switch leaf {
        case .fencedCode(let fence, let length):
            if allMatched {
                let ind = indentOf(c)
                if ind.columns <= 3, isClosingFence(at: ind.pos, end: end, fence: fence, length: length) {
                    leaf = .none
                    closeCode(closed: true, lastLine: lineStarts.count)
                } else if collectsCode {
                    var content = c
                    consumeSpaces(&content, fenceIndent)
                    addCodeLine(content)
                }
                return
            }
            leaf = .none
            closeCode(closed: false)
        case .indentedCode:
            if allMatched, isBlank(c) || indentOf(c).columns >= 4 {
                if collectsCode {
                    var content = c
                    consumeColumns(&content, 4)
                    addCodeLine(content)
                }
                return
            }
            if allMatched {
                leaf = .none
                closeCode(closed: true)
            }
        case .htmlUntil(let marker):
            if allMatched {
                if collectsCode { htmlLines.append(lineStarts.count) }
                if lineContains(marker, from: c.pos, to: end) { leaf = .none }
                return
            }
            leaf = .none
        case .htmlUntilBlank:
            if allMatched {
                if isBlank(c) {
                    leaf = .none
                } else if collectsCode {
                    htmlLines.append(lineStarts.count)
                }
                return
            }
            leaf = .none
        case .none, .paragraph, .table:
            break
        }

        // 3. New containers.
        var startedNew = false
        func closeUnmatched(_ s: inout BlockScanner) {
            if !startedNew, matched < s.containers.count {
                s.closeLeaf()
                s.containers.removeLast(s.containers.count - matched)
            }
            startedNew = true
        }
        while true {
            let ind = indentOf(c)
            if ind.columns >= 4 { break }
            let p = ind.pos
            guard p < end else { break }
            if src[p] == ASCII.gt {
                closeUnmatched(&self)
                closeLeaf()
                c.pos = p + 1
                c.col = ind.col + 1
                if c.pos < end, ASCII.isLineSpace(src[c.pos]) { consumeColumns(&c, 1) }
                containers.append(.blockQuote)
                matched = containers.count
                continue
            }
            let paragraphTip = allMatched && !startedNew && (leaf == .paragraph || leaf == .table)
            if paragraphTip, leaf == .paragraph, isSetextUnderline(at: p, end: end) { break }
            if isThematicBreak(at: p, end: end) { break }
            if let marker = listMarker(at: p, end: end) {
                var after = Cursor(pos: p + marker.width, col: ind.col + marker.width, end: end)
                let blankItem = isBlank(after)
                if paragraphTip, blankItem || (marker.ordered && !marker.startsAtOne) { break }
                let spaces = indentOf(after)
                let contentColumn: Int
                if blankItem || spaces.columns >= 5 {
                    contentColumn = ind.col + marker.width + 1
                    if !blankItem { consumeColumns(&after, 1) }
                } else {
                    contentColumn = ind.col + marker.width + spaces.columns
                    after.pos = spaces.pos
                    after.col = spaces.col
                }
                closeUnmatched(&self)
                closeLeaf()
                containers.append(.listItem(contentColumn: contentColumn))
                matched = containers.count
                c = after
                continue
            }
            break
        }

        // 4. Lazy continuation or closing what did not match.
        let ind = indentOf(c)
        let p = ind.pos
        if !startedNew, !allMatched {
            let lazy =
                leaf == .paragraph && !isBlank(c)
                && (ind.columns >= 4
                    || (fenceOpening(at: p, end: end) == nil && atxHeadingContent(at: p, end: end) == nil
                        && !isThematicBreak(at: p, end: end) && htmlBlockStart(at: p, end: end) == nil))
            if lazy {
                paragraph.append(Segment(start: c.pos, end: end))
                return
            }
            closeLeaf()
            containers.removeLast(containers.count - matched)
        }

        // 5. The leaf.
        if isBlank(c) {
            closeLeaf()
            return
        }
        let inParagraph = leaf == .paragraph
        if ind.columns >= 4 {
            if inParagraph {
                paragraph.append(Segment(start: c.pos, end: end))
            } else if leaf == .table {
                scanRun([Segment(start: c.pos, end: end)])
            } else {
                closeLeaf()
                leaf = .indentedCode
                if collectsCode {
                    openBlock = MarkdownLayout.CodeBlock(
                        fenced: false, info: "", lines: [], lineRange: lineStarts.count...lineStarts.count, closed: true)
                    var content = c
                    consumeColumns(&content, 4)
                    addCodeLine(content)
                }
            }
            return
        }
        if let (fence, length) = fenceOpening(at: p, end: end) {
            closeLeaf()
            leaf = .fencedCode(fence: fence, length: length)
            fenceIndent = ind.columns
            if collectsCode {
                var info = String(decoding: UnsafeBufferPointer(rebasing: src[(p + length)..<end]), as: UTF8.self)
                info = String(info.drop(while: { $0 == " " || $0 == "\t" }))
                while let last = info.last, last == " " || last == "\t" { info.removeLast() }
                openBlock = MarkdownLayout.CodeBlock(
                    fenced: true, info: info, lines: [], lineRange: lineStarts.count...lineStarts.count, closed: false)
            }
            return
        }
        if let content = atxHeadingContent(at: p, end: end) {
            closeLeaf()
            scanRun([Segment(start: content, end: end)])
            return
        }
        if inParagraph, isSetextUnderline(at: p, end: end) {
            closeLeaf()
            return
        }
        if isThematicBreak(at: p, end: end) {
            closeLeaf()
            return
        }
        if let html = htmlBlockStart(at: p, end: end) {
            closeLeaf()
            if collectsCode { htmlLines.append(lineStarts.count) }
            leaf = html
            if case .htmlUntil(let marker) = html, lineContains(marker, from: p + 1, to: end) { leaf = .none }
            return
        }
        switch leaf {
        case .paragraph:
            if isTableDelimiterRow(at: p, end: end), let header = paragraph.last,
                lineContains([ASCII.pipe], from: p, to: end)
                    || lineContains([ASCII.pipe], from: header.start, to: header.end),
                tableCells(header) == delimiterCells(at: p, end: end)
            {
                paragraph.removeLast()
                closeLeaf()
                scanRun([header])
                leaf = .table
                return
            }
            paragraph.append(Segment(start: c.pos, end: end))
        case .table:
            scanRun([Segment(start: c.pos, end: end)])
        default:
            closeLeaf()
            leaf = .paragraph
            paragraph = [Segment(start: c.pos, end: end)]
        }
    }

    mutating func closeLeaf() {
        if openBlock != nil {
            if case .fencedCode = leaf { closeCode(closed: false) } else { closeCode(closed: true) }
        }
        if leaf == .paragraph, !paragraph.isEmpty {
            scanRun(paragraph)
        }
        paragraph.removeAll(keepingCapacity: true)
        leaf = .none
    }

    // MARK: Code blocks

    /// Advances `c` over at most `count` spaces (a fenced block's content loses the fence's
    /// indentation, as CommonMark reads it).
    func consumeSpaces(_ c: inout Cursor, _ count: Int) {
        var removed = 0
        while removed < count, c.pos < c.end, src[c.pos] == ASCII.space {
            c.pos += 1
            c.col += 1
            removed += 1
        }
    }

    /// One line of the open code block, from `c` to the line's end. An indented block's blank
    /// lines are held until a code line follows them (trailing blank lines are not the block's).
    mutating func addCodeLine(_ c: Cursor) {
        guard openBlock != nil else { return }
        let text = String(decoding: UnsafeBufferPointer(rebasing: src[c.pos..<c.end]), as: UTF8.self)
        let line = lineStarts.count
        if openBlock?.fenced == false, isBlank(c) {
            pendingBlankLines.append(text)
            return
        }
        // Mutated in place: a copy of the block would copy its lines on every line added.
        openBlock?.lines += pendingBlankLines
        pendingBlankLines.removeAll()
        openBlock?.lines.append(text)
        if let first = openBlock?.lineRange.lowerBound { openBlock?.lineRange = first...line }
    }

    /// Ends the open code block; `lastLine` is its closing fence's line.
    mutating func closeCode(closed: Bool, lastLine: Int? = nil) {
        guard var block = openBlock else { return }
        block.closed = closed
        if let lastLine { block.lineRange = block.lineRange.lowerBound...lastLine }
        codeBlocks.append(block)
        openBlock = nil
        pendingBlankLines.removeAll()
    }

    // MARK: Tables

    func isTableDelimiterRow(at p: Int, end: Int) -> Bool {
        var sawDash = false
        var q = p
        while q < end {
            let b = src[q]
            if b == ASCII.minus {
                sawDash = true
            } else if b != ASCII.pipe, b != ASCII.colon, !ASCII.isLineSpace(b) {
                return false
            }
            q += 1
        }
        return sawDash
    }

    func delimiterCells(at p: Int, end: Int) -> Int {
        countCells(Array(src[p..<end]))
    }

    /// Cell count of a header row, ignoring `|` inside formulas (they become tokens) and escaped `\|`.
    func tableCells(_ segment: Segment) -> Int {
        var runSpans: [(Int, Int)] = []
        var probe = InlineScanner(buffer: UnsafeBufferPointer(rebasing: src[segment.start..<segment.end]))
        probe.scan { start, end, _, _, _ in runSpans.append((start, end)) }
        var bytes: [UInt8] = []
        var i = 0
        let local = Array(src[segment.start..<segment.end])
        for (s, e) in runSpans {
            bytes += local[i..<s]
            bytes.append(0x78)
            i = e
        }
        bytes += local[i...]
        return countCells(bytes)
    }

    func countCells(_ row: [UInt8]) -> Int {
        var start = 0
        var end = row.count
        while start < end, ASCII.isLineSpace(row[start]) { start += 1 }
        while end > start, ASCII.isLineSpace(row[end - 1]) { end -= 1 }
        if start < end, row[start] == ASCII.pipe { start += 1 }
        if end > start, row[end - 1] == ASCII.pipe, !(end - 2 >= start && row[end - 2] == ASCII.backslash) {
            end -= 1
        }
        var cells = 1
        var i = start
        while i < end {
            if row[i] == ASCII.backslash {
                i += 2
                continue
            }
            if row[i] == ASCII.pipe { cells += 1 }
            i += 1
        }
        return cells
    }

    // MARK: Inline runs

    /// Scans one paragraph-like run (lines of one paragraph, heading or table row) for formulas.
    mutating func scanRun(_ segments: [Segment]) {
        guard !segments.isEmpty else { return }
        if collectsCode { runs.append(segments[0].start..<segments[segments.count - 1].end) }
        // Fast path: nothing that could open a formula.
        var maybe = false
        for s in segments where !maybe {
            var i = s.start
            while i < s.end {
                let b = src[i]
                if b == ASCII.dollar || b == ASCII.backslash || (collectsCode && b == ASCII.backtick) {
                    maybe = true
                    break
                }
                i += 1
            }
        }
        guard maybe else { return }

        var buffer: [UInt8] = []
        var map: [(runStart: Int, srcStart: Int)] = []
        for (k, s) in segments.enumerated() {
            if k > 0 { buffer.append(ASCII.lf) }
            map.append((buffer.count, s.start))
            buffer.append(contentsOf: src[s.start..<s.end])
        }
        func toSource(_ offset: Int) -> Int {
            var lo = 0
            var hi = map.count - 1
            while lo < hi {
                let mid = (lo + hi + 1) / 2
                if map[mid].runStart <= offset { lo = mid } else { hi = mid - 1 }
            }
            return map[lo].srcStart + (offset - map[lo].runStart)
        }
        var found: [(Int, Int, Int, Int, MarkdownLayout.Formula.Delimiter)] = []
        var spansFound: [(Int, Int)] = []
        buffer.withUnsafeBufferPointer { buf in
            var inline = InlineScanner(buffer: buf)
            if collectsCode { inline.codeSpan = { spansFound.append(($0, $1)) } }
            inline.scan { found.append(($0, $1, $2, $3, $4)) }
        }
        for (start, end) in spansFound { codeSpans.append(toSource(start)..<(toSource(end - 1) + 1)) }
        for (start, end, contentStart, contentEnd, delimiter) in found {
            let srcStart = toSource(start)
            let srcEnd = toSource(end - 1) + 1
            let tex = buffer.withUnsafeBufferPointer {
                String(decoding: UnsafeBufferPointer(rebasing: $0[contentStart..<contentEnd]), as: UTF8.self)
            }
            let source = String(decoding: UnsafeBufferPointer(rebasing: src[srcStart..<srcEnd]), as: UTF8.self)
            let (line, column) = position(of: srcStart)
            let display = delimiter == .doubleDollar || delimiter == .bracket
            formulas.append(
                MarkdownLayout.Formula(
                    tex: tex, display: display, delimiter: delimiter, line: line, column: column, source: source,
                    range: srcStart..<srcEnd))
        }
    }

    /// Line and column of `offset`. Formulas come in source order, so counting resumes from the
    /// previous answer when it is on the same line (many formulas on one long line stay linear).
    mutating func position(of offset: Int) -> (line: Int, column: Int) {
        var lo = 0
        var hi = lineStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if lineStarts[mid] <= offset { lo = mid } else { hi = mid - 1 }
        }
        var column = 1
        var i = lineStarts[lo]
        if let last = lastPosition, last.line == lo + 1, last.offset <= offset {
            column = last.column
            i = last.offset
        }
        while i < offset {
            if src[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        lastPosition = (offset, lo + 1, column)
        return (lo + 1, column)
    }

}

// MARK: - Inline scanning

/// Scans one run (lines joined by LF) for formulas, left to right, skipping code spans, escapes
/// and autolinks. Every failed attempt costs from a budget proportional to the run's length, so
/// hostile input cannot make the scan quadratic.
struct InlineScanner {
    let buf: UnsafeBufferPointer<UInt8>
    private var budget: Int
    private var displayDollarHopelessFrom = Int.max
    private var displayBracketHopelessFrom = Int.max
    /// cmark's backtick memory (see `codeSpanCloser`): where a run of each length (index) was
    /// last seen, and whether a scan has reached the end without a closer.
    private var lastRunStart = [Int](repeating: 0, count: 81)
    private var scannedForBackticks = false
    /// Called with each code span's (start, end), backticks included, when set.
    var codeSpan: ((Int, Int) -> Void)?

    init(buffer: UnsafeBufferPointer<UInt8>) {
        self.buf = buffer
        self.budget = buffer.count * 8 + 4096
    }

    /// Calls `found(spanStart, spanEnd, contentStart, contentEnd, delimiter)` for each formula.
    mutating func scan(_ found: (Int, Int, Int, Int, MarkdownLayout.Formula.Delimiter) -> Void) {
        let n = buf.count
        var i = 0
        while i < n {
            let b = buf[i]
            switch b {
            case ASCII.backslash:
                guard i + 1 < n else { return }
                let next = buf[i + 1]
                if next == ASCII.lparen, let m = inlineMath(contentStart: i + 2, closer: .parenthesis) {
                    found(i, m.end, i + 2, m.contentEnd, .parenthesis)
                    i = m.end
                    continue
                }
                if next == ASCII.lbracket,
                    let m = displayMath(contentStart: i + 2, c1: ASCII.backslash, c2: ASCII.rbracket)
                {
                    found(i, m.end, i + 2, m.contentEnd, .bracket)
                    i = m.end
                    continue
                }
                i += 2
            case ASCII.backtick:
                var j = i
                while j < n, buf[j] == ASCII.backtick { j += 1 }
                if let close = codeSpanCloser(after: j, length: j - i) {
                    codeSpan?(i, close)
                    i = close
                } else {
                    i = j
                }
            case ASCII.lt:
                i = autolinkEnd(from: i) ?? i + 1
            case ASCII.dollar:
                if i + 1 < n, buf[i + 1] == ASCII.dollar {
                    if let m = displayMath(contentStart: i + 2, c1: ASCII.dollar, c2: ASCII.dollar) {
                        found(i, m.end, i + 2, m.contentEnd, .doubleDollar)
                        i = m.end
                        continue
                    }
                    i += 1
                    continue
                }
                if let m = inlineMath(contentStart: i + 1, closer: .dollar) {
                    found(i, m.end, i + 1, m.contentEnd, .dollar)
                    i = m.end
                    continue
                }
                i += 1
            default:
                // Past the bytes that open nothing (most of a paragraph) in one tight loop.
                i += 1
                while i < n, !Self.opens[Int(buf[i])] { i += 1 }
            }
        }
    }

    /// The bytes `scan` acts on: `\`, a backtick, `<` and `$`.
    private static let opens: [Bool] = (0...255).map {
        $0 == Int(ASCII.backslash) || $0 == Int(ASCII.backtick) || $0 == Int(ASCII.lt) || $0 == Int(ASCII.dollar)
    }

    /// `$$…$$` or `\[…\]`: any characters (the run has no blank line), at least one, up to the
    /// first closer. No escapes (pandoc's `mathDisplayWith`).
    private mutating func displayMath(contentStart: Int, c1: UInt8, c2: UInt8) -> (contentEnd: Int, end: Int)? {
        let n = buf.count
        guard contentStart < n else { return nil }
        // pandoc's many1Till: the content may not begin with the closer.
        if contentStart + 1 < n, buf[contentStart] == c1, buf[contentStart + 1] == c2 { return nil }
        let from = contentStart + 1
        let isDollar = c1 == ASCII.dollar
        if from >= (isDollar ? displayDollarHopelessFrom : displayBracketHopelessFrom) { return nil }
        var j = from
        while j + 1 < n {
            if buf[j] == c1, buf[j + 1] == c2 { return (j, j + 2) }
            j += 1
        }
        if isDollar {
            displayDollarHopelessFrom = min(displayDollarHopelessFrom, from)
        } else {
            displayBracketHopelessFrom = min(displayBracketHopelessFrom, from)
        }
        return nil
    }

    /// `$…$` or `\(…\)` (pandoc's `mathInlineWith`).
    private mutating func inlineMath(
        contentStart s: Int, closer: MarkdownLayout.Formula.Delimiter
    ) -> (
        contentEnd: Int, end: Int
    )? {
        let n = buf.count
        guard budget > 0, s < n else { return nil }
        if closer == .dollar {
            let first = buf[s]
            if ASCII.isMathSpace(first) || first == ASCII.cr || first == 0x0C || first == 0x0B
                || first == ASCII.dollar
            {
                return nil
            }
            if first == 0xC2, s + 1 < n, buf[s + 1] == 0xA0 { return nil }  // no-break space
        }
        var j = s
        var firstStep = true
        while j < n {
            budget -= 1
            if budget <= 0 { return nil }
            let c = buf[j]
            // pandoc's many1Till: the content may not begin with the closer; after that the first
            // closer ends the formula, unless a digit follows it.
            if closer == .dollar, c == ASCII.dollar {
                if firstStep || (j + 1 < n && ASCII.isDigit(buf[j + 1])) { return nil }
                return (j, j + 1)
            }
            if closer == .parenthesis, c == ASCII.backslash, j + 1 < n, buf[j + 1] == ASCII.rparen {
                if firstStep || (j + 2 < n && ASCII.isDigit(buf[j + 2])) { return nil }
                return (j, j + 2)
            }
            firstStep = false
            if c == ASCII.backslash {
                guard j + 1 < n else { return nil }
                if let after = textGroupEnd(backslashAt: j) {
                    j = after
                    continue
                }
                j += 2
                continue
            }
            if ASCII.isMathSpace(c) {
                while j < n, ASCII.isMathSpace(buf[j]) { j += 1 }
                if j >= n || buf[j] == ASCII.dollar { return nil }
                continue
            }
            j += 1
        }
        return nil
    }

    /// `\text{…}` with balanced braces (so `$` may appear inside): the index after it, if balanced.
    private mutating func textGroupEnd(backslashAt j: Int) -> Int? {
        let n = buf.count
        let t: [UInt8] = [0x74, 0x65, 0x78, 0x74]  // "text"
        guard j + 5 < n else { return nil }
        for k in 0..<4 where buf[j + 1 + k] != t[k] { return nil }
        var q = j + 5
        if buf[q] != ASCII.lbrace { return q + 1 }  // pandoc consumes one character after `\text`
        var depth = 0
        while q < n {
            budget -= 1
            if budget <= 0 { return nil }
            switch buf[q] {
            case ASCII.lbrace: depth += 1
            case ASCII.rbrace:
                depth -= 1
                if depth == 0 { return q + 1 }
            case ASCII.backslash: q += 1
            default: break
            }
            q += 1
        }
        return nil
    }

    /// The end of the code span whose opening backtick run (of `length`) ends at `after`, found
    /// as cmark-gfm 0.29 (the renderer's library) finds it, so that what the checks call code is
    /// what the page shows as code. Its `scan_to_closing_backticks` remembers where it last saw a
    /// run of each length, also while finding a closer; once a scan has reached the end without
    /// one, an opener whose length was last seen before it has no closer. So in "a ``b` c` d `e`"
    /// only "` c`" is code: finding it moved the last single backtick seen to before `e`. Runs
    /// longer than 80 backticks open nothing.
    private mutating func codeSpanCloser(after: Int, length: Int) -> Int? {
        guard length <= 80 else { return nil }
        if scannedForBackticks, lastRunStart[length] <= after { return nil }
        let n = buf.count
        var p = after
        while p < n {
            budget -= 1
            if budget <= 0 { return nil }
            guard buf[p] == ASCII.backtick else {
                p += 1
                continue
            }
            var q = p
            while q < n, buf[q] == ASCII.backtick { q += 1 }
            let ticks = q - p
            if ticks <= 80 { lastRunStart[ticks] = p }
            if ticks == length { return q }
            p = q
        }
        scannedForBackticks = true
        return nil
    }

    /// CommonMark autolinks `<scheme:…>` and `<user@host>`: the index after `>`.
    private func autolinkEnd(from lt: Int) -> Int? {
        let n = buf.count
        var i = lt + 1
        // URI autolink.
        if i < n, ASCII.isAlpha(buf[i]) {
            var j = i + 1
            while j < n, ASCII.isAlnum(buf[j]) || buf[j] == ASCII.plus || buf[j] == ASCII.dot || buf[j] == ASCII.minus {
                j += 1
            }
            let schemeLength = j - i
            if schemeLength >= 2, schemeLength <= 32, j < n, buf[j] == ASCII.colon {
                j += 1
                while j < n {
                    let b = buf[j]
                    if b == ASCII.gt { return j + 1 }
                    if b <= 0x20 || b == ASCII.lt { break }
                    j += 1
                }
            }
        }
        // Email autolink.
        var j = i
        while j < n, isEmailLocal(buf[j]) { j += 1 }
        guard j > i, j < n, buf[j] == ASCII.at else { return nil }
        j += 1
        i = j
        while j < n, ASCII.isAlnum(buf[j]) || buf[j] == ASCII.minus || buf[j] == ASCII.dot { j += 1 }
        guard j > i, j < n, buf[j] == ASCII.gt else { return nil }
        return j + 1
    }

    private func isEmailLocal(_ b: UInt8) -> Bool {
        if ASCII.isAlnum(b) { return true }
        switch b {
        case 0x2E, 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2F, 0x3D, 0x3F, 0x5E, 0x5F, 0x60, 0x7B,
            0x7C, 0x7D, 0x7E, 0x2D:
            return true
        default: return false
        }
    }
}
