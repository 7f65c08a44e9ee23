// What is code, what is math and what is prose in a Markdown text: the one reading the renderer
// and every check share, so that a check never reads as prose what the learner sees as code, or
// as math what renders as words.
//
// The block structure is a simplified CommonMark block parser (block quotes, list items, fenced
// and indented code, HTML blocks, headings, tables); inline, it finds code spans (backtick runs
// of equal length, paired as cmark-gfm 0.29, the renderer's library, pairs them) and TeX math by
// pandoc's `tex_math_dollars` and `tex_math_single_backslash` rules (see `InlineScanner`).
// `MarkdownLayoutTests` (LecternRenderTests) and `MarkdownAgreementTests` (LecternPipelineTests,
// every cassette text, fixture and corpus file rendered) hold it to what the renderer shows.

/// The code blocks, code spans and formulas of one Markdown text, as UTF-8 byte ranges of it.
public struct MarkdownLayout: Sendable {
    /// A formula: where it is and how it was written.
    public struct Formula: Sendable, Equatable {
        /// How the formula was delimited in the source.
        public enum Delimiter: Sendable, Equatable {
            case dollar, doubleDollar, parenthesis, bracket
        }
        /// The TeX between the delimiters (container prefixes such as `> ` removed).
        public var tex: String
        /// Display (block) math rather than inline.
        public var display: Bool
        public var delimiter: Delimiter
        /// 1-based line and column (in Unicode scalars) of the opening delimiter.
        public var line: Int
        public var column: Int
        /// The exact source text, delimiters included.
        public var source: String
        /// `source`'s UTF-8 byte range in the text.
        public var range: Range<Int>

        /// The byte range between the delimiters (container prefixes of a formula over several
        /// lines included, unlike `tex`).
        public var contentRange: Range<Int> {
            let width = delimiter == .dollar ? 1 : 2
            return (range.lowerBound + width)..<max(range.lowerBound + width, range.upperBound - width)
        }
    }

    /// A fenced or indented code block.
    public struct CodeBlock: Sendable, Equatable {
        /// Written between fences (``` or ~~~) rather than indented.
        public var fenced: Bool
        /// The info string after the opening fence, trimmed ("" for an indented block).
        public var info: String
        /// The content lines, without container prefixes and without the fence's indentation
        /// (or the four columns of an indented block).
        public var lines: [String]
        /// 1-based lines of the block: from the opening fence (or first code line) to the closing
        /// fence (or last code line) inclusive.
        public var lineRange: ClosedRange<Int>
        /// Whether a closing fence ends it (an unclosed fence runs to the end of its container).
        public var closed: Bool

        /// The first word of the info string: the language a fenced block is labelled with.
        public var label: String {
            String(info.prefix(while: { !$0.isWhitespace && $0 != "{" }))
        }
        /// A ```` ```math ```` block, which the renderer shows as display math, not code.
        public var isMath: Bool { fenced && label.lowercased() == "math" }
        /// The 1-based line of the first content line.
        public var firstContentLine: Int { fenced ? lineRange.lowerBound + 1 : lineRange.lowerBound }
    }

    /// The text read.
    public let source: String
    public internal(set) var codeBlocks: [CodeBlock] = []
    /// Inline code spans (backticks included), in order.
    public internal(set) var codeSpans: [Range<Int>] = []
    /// Formulas outside code, in order.
    public internal(set) var formulas: [Formula] = []
    /// 1-based lines inside HTML blocks (raw HTML the renderer sanitizes, never Markdown).
    public internal(set) var htmlLines: [Int] = []
    /// The paragraph-like runs where code spans and formulas are looked for (a paragraph's
    /// lines, a heading, a table row), from the first line's content to the last line's end.
    public internal(set) var runs: [Range<Int>] = []
    /// The byte offset where each line starts (a line ends at LF, CR LF or a lone CR).
    public internal(set) var lineStarts: [Int] = []

    /// Reads `markdown`.
    public init(_ markdown: String) {
        source = markdown
        let bytes = Array(markdown.utf8)
        let found = bytes.withUnsafeBufferPointer { buffer in
            var scanner = BlockScanner(source: buffer, collectsCode: true)
            scanner.run()
            return scanner
        }
        codeBlocks = found.codeBlocks
        codeSpans = found.codeSpans
        formulas = found.formulas
        htmlLines = found.htmlLines
        runs = found.runs
        lineStarts = found.lineStarts
    }

    /// The formulas only, for the renderer: nothing is collected about code, and a text with no
    /// `$` or backslash is not scanned at all.
    public static func formulas(in bytes: UnsafeBufferPointer<UInt8>) -> [Formula] {
        if !bytes.contains(where: { $0 == ASCII.dollar || $0 == ASCII.backslash }) { return [] }
        var scanner = BlockScanner(source: bytes, collectsCode: false)
        scanner.run()
        return scanner.formulas
    }

    /// What a code block's lines become in `prose(…)`.
    public enum CodeBlockText: Sendable {
        /// Each line of the block (fences included) left empty, so line numbers stand.
        case emptyLines
        /// Kept as written.
        case kept
    }

    /// The text with code blocks, code spans and formulas replaced: what a check reads as prose.
    /// `codeSpan` and `formula` get the exact source of the span (delimiters included) and
    /// return its replacement; nil keeps spans (or formulas) as written.
    public func prose(
        codeBlocks blockText: CodeBlockText = .emptyLines, codeSpan: ((Substring) -> String)? = nil,
        formula: ((Substring) -> String)? = nil
    ) -> String {
        var spans: [(range: Range<Int>, replace: (Substring) -> String)] = []
        if let codeSpan { spans += codeSpans.map { ($0, codeSpan) } }
        if let formula { spans += formulas.map { ($0.range, formula) } }
        let emptied = blockText == .emptyLines && !codeBlocks.isEmpty
        if spans.isEmpty && !emptied { return source }
        spans.sort { $0.range.lowerBound < $1.range.lowerBound }
        var emptyLines = Set<Int>()
        if emptied { for block in codeBlocks { emptyLines.formUnion(block.lineRange) } }

        let utf8 = Array(source.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        var line = 1
        var i = 0
        var next = 0
        while i < utf8.count {
            if next < spans.count, spans[next].range.lowerBound == i {
                let span = spans[next]
                let text = String(decoding: utf8[span.range], as: UTF8.self)
                out += spans[next].replace(Substring(text)).utf8
                for k in span.range where utf8[k] == ASCII.lf || (utf8[k] == ASCII.cr && !(k + 1 < utf8.count && utf8[k + 1] == ASCII.lf)) {
                    line += 1
                }
                i = span.range.upperBound
                next += 1
                while next < spans.count, spans[next].range.lowerBound < i { next += 1 }
                continue
            }
            let b = utf8[i]
            // Lines end as the scanner ends them: at LF, CR LF or a lone CR.
            if b == ASCII.lf || (b == ASCII.cr && !(i + 1 < utf8.count && utf8[i + 1] == ASCII.lf)) {
                line += 1
                out.append(b)
            } else if !emptyLines.contains(line) || b == ASCII.cr {
                out.append(b)
            }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A code block's bytes: from the start of its first line to the end of its last, line
    /// break included.
    public func byteRange(of block: CodeBlock) -> Range<Int> {
        let start = lineStarts[min(block.lineRange.lowerBound, lineStarts.count) - 1]
        let end = block.lineRange.upperBound < lineStarts.count ? lineStarts[block.lineRange.upperBound] : source.utf8.count
        return start..<end
    }

    /// For each UTF-8 offset of the text that starts a scalar (and for its end), the scalar's
    /// index: how checks that read `unicodeScalars` place what the layout found.
    public func scalarIndexes() -> [Int] {
        var table = [Int](repeating: 0, count: source.utf8.count + 1)
        var offset = 0
        var index = 0
        for scalar in source.unicodeScalars {
            table[offset] = index
            offset += UTF8.width(scalar)
            index += 1
        }
        table[offset] = index
        return table
    }

    /// Whether line `line` (1-based) is part of a code block.
    public func isCodeLine(_ line: Int) -> Bool {
        // The blocks are in order and do not overlap: the last one starting at or before `line`.
        var lo = 0
        var hi = codeBlocks.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if codeBlocks[mid].lineRange.lowerBound <= line { lo = mid + 1 } else { hi = mid }
        }
        return lo > 0 && codeBlocks[lo - 1].lineRange.contains(line)
    }
}
