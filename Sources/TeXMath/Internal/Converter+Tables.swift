enum ColumnAlign: Sendable {
    case left, center, right
}

/// The layouts the table environments share.
enum TableKind {
    case matrix(open: String?, close: String?, align: ColumnAlign)
    case smallMatrix(open: String?, close: String?)
    case array(columns: [ColumnAlign])
    case cases(display: Bool, right: Bool)
    /// align, aligned, split …: columns alternate right/left around the alignment points.
    case aligned
    /// gather, gathered, multline …: one centred column.
    case gathered
    case substack(columns: [ColumnAlign])
}

enum TableTerminator: Equatable {
    case end(String)
    case group
    case input
}

extension Converter {
    // MARK: Top level

    /// The whole formula. Top-level `\\` or `&` (common in display math written for MathJax)
    /// become a gathered or aligned table instead of an error.
    func parseTop() -> [MathNode] {
        let rows = parseRows(terminator: .input, cellStyle: style)
        if rows.count == 1, rows[0].count == 1 { return rows[0][0] }
        let kind: TableKind = rows.contains(where: { $0.count > 1 }) ? .aligned : .gathered
        return [buildTable(rows, kind: kind)]
    }

    // MARK: Environments

    /// What `\begin{name}` starts; its options are read here, before any recursion.
    enum EnvironmentAction {
        case table(TableKind)
        case equation
        case user
        case unknown
    }

    func environment() -> MathNode? {
        let name = readRawText()
        switch environmentAction(name) {
        case .table(let kind): return table(kind: kind, terminator: .end(name))
        case .equation:
            let nodes = parseList(.end)
            finishEnvironment(name)
            return .row(nodes)
        case .user: return nil
        case .unknown:
            let body = table(kind: .matrix(open: nil, close: nil, align: .center), terminator: .end(name))
            return MathNode(.mrow, [.error("\\begin{\(name)}"), body])
        }
    }

    private func environmentAction(_ name: String) -> EnvironmentAction {
        switch name {
        case "matrix", "matrix*", "pmatrix", "pmatrix*", "bmatrix", "bmatrix*", "Bmatrix", "Bmatrix*", "vmatrix",
            "vmatrix*", "Vmatrix", "Vmatrix*":
            var align = ColumnAlign.center
            if name.hasSuffix("*"), let option = stream.readOptionalRaw() {
                align = Self.text(of: option) == "l" ? .left : Self.text(of: option) == "r" ? .right : .center
            }
            let (open, close) = Self.matrixFences[String(name.prefix(while: { $0 != "*" }))] ?? (nil, nil)
            return .table(.matrix(open: open, close: close, align: align))
        case "smallmatrix", "psmallmatrix", "bsmallmatrix", "Bsmallmatrix", "vsmallmatrix", "Vsmallmatrix":
            let (open, close) = Self.smallMatrixFences[name] ?? (nil, nil)
            return .table(.smallMatrix(open: open, close: close))
        case "array", "darray":
            _ = stream.readOptionalRaw()
            let columns = columnSpec(readRawArgumentTokens())
            return .table(.array(columns: columns))
        case "subarray":
            let columns = columnSpec(readRawArgumentTokens())
            return .table(.substack(columns: columns))
        case "cases", "dcases", "rcases", "drcases", "cases*", "dcases*":
            return .table(.cases(display: name.hasPrefix("d"), right: name == "rcases" || name == "drcases"))
        case "aligned", "align", "align*", "split", "flalign", "flalign*", "eqnarray", "eqnarray*", "alignat",
            "alignat*", "alignedat", "xalignat", "xxalignat", "darray*":
            if name.hasPrefix("alignat") || name == "alignedat" || name.hasSuffix("xalignat") { _ = readRawArgumentTokens() }
            return .table(.aligned)
        case "gathered", "gather", "gather*", "multline", "multline*", "center":
            return .table(.gathered)
        case "equation", "equation*", "math", "displaymath":
            return .equation
        default:
            if let definition = stream.environments[name] {
                var arguments: [[Token]] = []
                var remaining = definition.parameterCount
                if let fallback = definition.optionalDefault, remaining > 0 {
                    arguments.append(stream.readOptionalRaw() ?? fallback)
                    remaining -= 1
                }
                while remaining > 0 {
                    arguments.append(stream.readArgumentRaw())
                    remaining -= 1
                }
                stream.pushExpansion([.beginGroup] + TokenStream.substitute(definition.begin, arguments))
                return .user
            }
            warn("Unknown environment \(name)")
            return .unknown
        }
    }

    static let matrixFences: [String: (String?, String?)] = [
        "matrix": (nil, nil), "pmatrix": ("(", ")"), "bmatrix": ("[", "]"), "Bmatrix": ("{", "}"),
        "vmatrix": ("|", "|"), "Vmatrix": ("‖", "‖"),
    ]

    static let smallMatrixFences: [String: (String?, String?)] = [
        "smallmatrix": (nil, nil), "psmallmatrix": ("(", ")"), "bsmallmatrix": ("[", "]"),
        "Bsmallmatrix": ("{", "}"), "vsmallmatrix": ("|", "|"), "Vsmallmatrix": ("‖", "‖"),
    ]

    private func finishEnvironment(_ name: String) {
        guard stream.peek() == .command("end") else {
            warn("Missing \\end{\(name)}")
            return
        }
        _ = stream.next()
        let closing = readRawText()
        if closing != name { warn("\\begin{\(name)} ended by \\end{\(closing)}") }
    }

    /// Plain-TeX forms that take the body as a braced argument: `\matrix{a & b \cr c & d}`.
    func plainTableCommand(_ name: String) -> MathNode {
        while stream.peek() == .space { _ = stream.next() }
        guard stream.peek() == .beginGroup else {
            warn("\\\(name) needs a {…} body")
            return .error("\\" + name)
        }
        _ = stream.next()
        let kind: TableKind
        switch name {
        case "pmatrix": kind = .matrix(open: "(", close: ")", align: .center)
        case "bmatrix": kind = .matrix(open: "[", close: "]", align: .center)
        case "Bmatrix": kind = .matrix(open: "{", close: "}", align: .center)
        case "vmatrix": kind = .matrix(open: "|", close: "|", align: .center)
        case "Vmatrix": kind = .matrix(open: "‖", close: "‖", align: .center)
        case "cases": kind = .cases(display: false, right: false)
        case "displaylines": kind = .gathered
        case "eqalign", "eqalignno": kind = .aligned
        default: kind = .matrix(open: nil, close: nil, align: .center)
        }
        return table(kind: kind, terminator: .group)
    }

    // MARK: Rows and cells

    func table(kind: TableKind, terminator: TableTerminator) -> MathNode {
        let cellStyle: MathStyle
        switch kind {
        case .aligned, .gathered: cellStyle = .display
        case .cases(let display, _): cellStyle = display ? .display : .text
        case .smallMatrix, .substack: cellStyle = style.scriptChild
        case .matrix, .array: cellStyle = .text
        }
        tableDepth += 1
        let rows = parseRows(terminator: terminator, cellStyle: cellStyle)
        tableDepth -= 1
        return buildTable(rows, kind: kind)
    }

    /// Cells separated by `&`, rows by `\\` or `\cr`, up to the terminator (consumed).
    func parseRows(terminator: TableTerminator, cellStyle: MathStyle) -> [[[MathNode]]] {
        var stops = Stops.tableCell
        switch terminator {
        case .end: stops.insert(.end)
        case .group: stops.insert(.endGroup)
        case .input: break
        }
        guard enterNesting() else {
            skipToStop(terminator == .group ? .endGroup : .end)
            consumeTerminator(terminator)
            return [[[.error("…")]]]
        }
        defer { depth -= 1 }
        var rows: [[[MathNode]]] = []
        var row: [[MathNode]] = []
        var cellCount = 0
        rowLoop: while true {
            let cell = withStyle(cellStyle) { parseList(stops) }
            row.append(cell)
            cellCount += 1
            guard let token = stream.peek() else {
                if terminator != .input { warn("Missing end of table") }
                rows.append(row)
                break
            }
            switch token {
            case .alignment:
                _ = stream.next()
            case .command(let name) where name == "\\" || name == "cr" || name == "newline" || name == "tabularnewline":
                _ = stream.next()
                if stream.peek() == .char("*") { _ = stream.next() }
                // `\\[2pt]`: extra row spacing; MathML Core has no per-row gap, so it is dropped.
                // `\cr` and `\newline` take no such argument: `\cr[c]` starts a row with "[c]".
                if name == "\\" || name == "tabularnewline", stream.peek() == .char("[") { _ = stream.readOptionalRaw() }
                rows.append(row)
                row = []
            default:
                consumeTerminator(terminator)
                rows.append(row)
                break rowLoop
            }
        }
        // A trailing \\ does not make an empty last row.
        if rows.count > 1, let last = rows.last, last.count == 1, last[0].isEmpty { rows.removeLast() }
        return rows
    }

    private func consumeTerminator(_ terminator: TableTerminator) {
        switch terminator {
        case .end(let name): finishEnvironment(name)
        case .group: expectEndGroup()
        case .input: break
        }
    }

    func buildTable(_ rows: [[[MathNode]]], kind: TableKind) -> MathNode {
        var tableRows: [MathNode] = []
        tableRows.reserveCapacity(rows.count)
        for row in rows {
            var cells: [MathNode] = []
            for (index, cell) in row.enumerated() {
                var content = cell
                var attributes: [(MathAttribute, String)] = []
                switch alignment(kind, column: index) {
                case .left: attributes.append((.style, FixedStyle.alignLeft.rawValue))
                case .right: attributes.append((.style, FixedStyle.alignRight.rawValue))
                case .center: break
                }
                if case .aligned = kind {
                    if index % 2 == 0 {
                        attributes = [(.style, FixedStyle.alignRightTight.rawValue)]
                    } else {
                        attributes = [(.style, FixedStyle.alignLeftTight.rawValue)]
                        // An empty atom before `=` keeps the relation's spacing, like amsmath's {}.
                        if !content.isEmpty { content.insert(MathNode(.mrow), at: 0) }
                    }
                }
                cells.append(MathNode(.mtd, content, attributes: attributes))
            }
            tableRows.append(MathNode(.mtr, cells))
        }
        var table = MathNode(.mtable, tableRows)
        switch kind {
        case .aligned, .gathered: table.attributes = [(.displaystyle, "true")]
        case .cases(let display, _): table.attributes = [(.displaystyle, display ? "true" : "false")]
        case .smallMatrix: table.attributes = [(.displaystyle, "false"), (.scriptlevel, "1")]
        case .matrix, .array, .substack: table.attributes = [(.displaystyle, "false")]
        }
        switch kind {
        case .matrix(let open, let close, _), .smallMatrix(let open, let close):
            return wrapFenced(table, open: open, close: close)
        case .cases(_, let right):
            return right ? wrapFenced(table, open: nil, close: "}") : wrapFenced(table, open: "{", close: nil)
        default:
            return table
        }
    }

    private func alignment(_ kind: TableKind, column: Int) -> ColumnAlign {
        switch kind {
        case .matrix(_, _, let align): return align
        case .array(let columns), .substack(let columns):
            return column < columns.count ? columns[column] : .center
        case .cases: return .left
        case .smallMatrix, .aligned, .gathered: return .center
        }
    }

    // MARK: Column specifications

    /// `{c|rl}`, `{l*{2}{rc}}`, `{@{}ll@{}}` … → alignments; rules and inter-column material are
    /// dropped (MathML Core has no column lines).
    func columnSpec(_ tokens: [Token], nesting: Int = 0) -> [ColumnAlign] {
        var result: [ColumnAlign] = []
        var i = 0
        func group(at index: Int) -> ([Token], Int) {
            guard index < tokens.count else { return ([], index) }
            guard tokens[index] == .beginGroup else { return ([tokens[index]], index + 1) }
            var depth = 1
            var j = index + 1
            var collected: [Token] = []
            while j < tokens.count {
                if tokens[j] == .beginGroup { depth += 1 }
                if tokens[j] == .endGroup {
                    depth -= 1
                    if depth == 0 { return (collected, j + 1) }
                }
                collected.append(tokens[j])
                j += 1
            }
            return (collected, j)
        }
        while i < tokens.count, result.count < 1000 {
            let token = tokens[i]
            i += 1
            guard case .char(let c) = token else { continue }
            if let defined = columnTypes[c] {
                if nesting < 4 { result += columnSpec(defined, nesting: nesting + 1) }
                continue
            }
            switch c {
            case "l": result.append(.left)
            case "c", "X": result.append(.center)
            case "r": result.append(.right)
            case "p", "m", "b":
                (_, i) = group(at: i)
                result.append(.left)
            case "@", "!", ">", "<":
                (_, i) = group(at: i)
            case "*":
                let (countTokens, afterCount) = group(at: i)
                let (repeated, afterSpec) = group(at: afterCount)
                i = afterSpec
                let count = min(Int(Self.text(of: countTokens)) ?? 0, 100)
                guard nesting < 4, count > 0 else { continue }
                let inner = columnSpec(repeated, nesting: nesting + 1)
                for _ in 0..<count where result.count < 1000 { result += inner }
            default: break
            }
        }
        return result
    }
}
