import Foundation
import LecternMarkdown

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How a document is cut into chunks (what a standard item is grounded in) and passages (what a
/// reading-comprehension set is asked about). A pure function of the document's text, so editing
/// one document changes only its own chunks and passages.
///
/// Blocks: blank lines separate paragraphs. In Markdown (`.md`, `.markdown`) an ATX heading line
/// (`#` … `######`) is a block of its own, a code block (fenced or indented, as `MarkdownLayout`
/// and so the renderer read it) is one block whatever blank lines it holds, and YAML front matter
/// (`---` … `---` at the very start) is left out.
/// Plain text (`.txt`) has paragraphs only.
///
/// Chunks: consecutive blocks packed up to `chunkMaximum` characters; a heading starts a new chunk
/// once the current one has `chunkMinimum` characters; a block longer than `chunkMaximum` is cut at
/// sentence ends (`.` `!` `?` `؟` `۔` `…` `。` followed by a space), else at a line break, else at a
/// space, else anywhere. A last chunk under `chunkMinimum` joins the one before when it fits.
///
/// Passages: runs of consecutive prose paragraphs (a heading or code block ends a run) of
/// `passageMinimum`–`passageMaximum` characters and at least `passageMinimumSentences` sentences,
/// closed as soon as they reach `passageTarget`; they never overlap.
///
/// Characters are Unicode scalars; ranges are UTF-8 byte offsets into the cleaned text.
struct CorpusIndex: Sendable, Hashable {
    static let chunkMinimum = 400
    static let chunkMaximum = 1_500
    /// A chunk shorter than this grounds no item (a heading alone, a one-line section).
    static let groundableMinimum = 200
    static let passageMinimum = 600
    static let passageTarget = 1_200
    static let passageMaximum = 2_500
    static let passageMinimumSentences = 3
    /// Written into cache files: a change of the rules above invalidates them.
    static let rules =
        "v2 chunks \(chunkMinimum)-\(chunkMaximum) groundable \(groundableMinimum) passages \(passageMinimum)/\(passageTarget)/\(passageMaximum) sentences \(passageMinimumSentences)"

    struct Span: Sendable, Hashable {
        var range: Range<Int>
        var characters: Int
        var sentences: Int
    }

    var chunks: [Span]
    var passages: [Span]

    // MARK: Building

    private enum BlockKind { case prose, heading, code }

    private struct Block {
        var range: Range<Int>
        var kind: BlockKind
        var characters: Int
        var sentences: Int
    }

    static func build(_ text: [UInt8], markdown: Bool) -> CorpusIndex {
        text.withUnsafeBufferPointer { buffer in
            let units = blocks(buffer, markdown: markdown).flatMap { split($0, buffer) }
            return CorpusIndex(chunks: packChunks(units, buffer), passages: packPassages(units, buffer))
        }
    }

    private static func blocks(_ b: UnsafeBufferPointer<UInt8>, markdown: Bool) -> [Block] {
        let n = b.count
        var blocks: [Block] = []
        var paragraph: Range<Int>?
        func append(_ range: Range<Int>, _ kind: BlockKind) {
            let trimmed = trimTrailingWhitespace(b, range)
            guard !trimmed.isEmpty else { return }
            blocks.append(Block(range: trimmed, kind: kind, characters: characters(b, trimmed), sentences: sentences(b, trimmed)))
        }
        func flushParagraph() {
            if let range = paragraph { append(range, .prose) }
            paragraph = nil
        }
        var i = markdown ? frontMatterEnd(b) : 0
        // The code blocks after the front matter, as byte ranges of `b`, in order.
        var code: [Range<Int>] = []
        if markdown {
            let layout = MarkdownLayout(String(decoding: UnsafeBufferPointer(rebasing: b[i...]), as: UTF8.self))
            code = layout.codeBlocks.map { block in
                let range = layout.byteRange(of: block)
                return (range.lowerBound + i)..<(range.upperBound + i)
            }
        }
        var nextCode = 0
        while i < n {
            if nextCode < code.count, code[nextCode].lowerBound <= i {
                flushParagraph()
                append(code[nextCode].lowerBound..<code[nextCode].upperBound, .code)
                i = max(i + 1, code[nextCode].upperBound)
                nextCode += 1
                continue
            }
            var lineEnd = i
            while lineEnd < n && b[lineEnd] != 0x0A { lineEnd += 1 }
            if isBlank(b, i..<lineEnd) {
                flushParagraph()
            } else if markdown, isHeading(b, i..<lineEnd) {
                flushParagraph()
                append(i..<lineEnd, .heading)
            } else {
                paragraph = (paragraph?.lowerBound ?? i)..<lineEnd
            }
            i = lineEnd + 1
        }
        flushParagraph()
        return blocks
    }

    /// A block longer than `chunkMaximum` cut into pieces that are not.
    private static func split(_ block: Block, _ b: UnsafeBufferPointer<UInt8>) -> [Block] {
        guard block.characters > chunkMaximum else { return [block] }
        var pieces: [Block] = []
        var start = block.range.lowerBound
        let end = block.range.upperBound
        while start < end {
            var position = start
            var count = 0
            var sentenceCut: Int?
            var lineCut: Int?
            var spaceCut: Int?
            while position < end && count < chunkMaximum {
                if let after = sentenceEnd(b, position, end) {
                    sentenceCut = after
                } else if b[position] == 0x0A {
                    lineCut = position
                } else if b[position] == 0x20 || b[position] == 0x09 {
                    spaceCut = position
                }
                position += 1
                while position < end && b[position] & 0xC0 == 0x80 { position += 1 }
                count += 1
            }
            var cut = position
            if position < end {
                // Prefer a sentence end, then a line break, then a space, in the second half of the piece.
                let floor = start + (position - start) / 2
                if let c = sentenceCut, c > floor {
                    cut = c
                } else if let c = lineCut, c > floor {
                    cut = c
                } else if let c = spaceCut, c > floor {
                    cut = c
                }
            }
            let range = trimTrailingWhitespace(b, start..<cut)
            if !range.isEmpty {
                pieces.append(Block(range: range, kind: block.kind, characters: characters(b, range), sentences: sentences(b, range)))
            }
            start = cut
            while start < end && isWhitespace(b[start]) { start += 1 }
        }
        return pieces
    }

    private static func packChunks(_ units: [Block], _ b: UnsafeBufferPointer<UInt8>) -> [Span] {
        var chunks: [Span] = []
        var current: (range: Range<Int>, characters: Int, hasBody: Bool)?
        func emit() {
            if let c = current { chunks.append(Span(range: c.range, characters: characters(b, c.range), sentences: sentences(b, c.range))) }
            current = nil
        }
        for unit in units {
            if let c = current {
                if unit.kind == .heading && c.characters >= chunkMinimum {
                    emit()
                } else if c.hasBody && c.characters + unit.characters > chunkMaximum {
                    emit()
                }
            }
            if let c = current {
                current = (c.range.lowerBound..<unit.range.upperBound, c.characters + unit.characters, c.hasBody || unit.kind != .heading)
            } else {
                current = (unit.range, unit.characters, unit.kind != .heading)
            }
        }
        emit()
        if chunks.count >= 2, let last = chunks.last, last.characters < chunkMinimum,
            chunks[chunks.count - 2].characters + last.characters <= chunkMaximum
        {
            let previous = chunks[chunks.count - 2]
            let merged = previous.range.lowerBound..<last.range.upperBound
            chunks.removeLast(2)
            chunks.append(Span(range: merged, characters: characters(b, merged), sentences: sentences(b, merged)))
        }
        return chunks
    }

    private static func packPassages(_ units: [Block], _ b: UnsafeBufferPointer<UInt8>) -> [Span] {
        var passages: [Span] = []
        var window: Span?
        func close() {
            if let w = window, isPassage(w) { passages.append(w) }
            window = nil
        }
        for unit in units {
            guard unit.kind == .prose else {
                close()
                continue
            }
            if let w = window {
                let gap = characters(b, w.range.upperBound..<unit.range.lowerBound)
                if w.characters + gap + unit.characters > passageMaximum {
                    close()
                } else {
                    window = Span(
                        range: w.range.lowerBound..<unit.range.upperBound, characters: w.characters + gap + unit.characters,
                        sentences: w.sentences + unit.sentences)
                }
            }
            if window == nil {
                window = Span(range: unit.range, characters: unit.characters, sentences: unit.sentences)
            }
            if let w = window, w.characters >= passageTarget { close() }
        }
        close()
        return passages
    }

    static func isPassage(_ span: Span) -> Bool {
        span.characters >= passageMinimum && span.characters <= passageMaximum && span.sentences >= passageMinimumSentences
    }

    // MARK: Lines and sentences

    private static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A }

    private static func isBlank(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        for i in range where b[i] != 0x20 && b[i] != 0x09 { return false }
        return true
    }

    private static func trimTrailingWhitespace(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int> {
        var start = range.lowerBound
        var end = range.upperBound
        while start < end && isWhitespace(b[start]) { start += 1 }
        while end > start && isWhitespace(b[end - 1]) { end -= 1 }
        return start..<end
    }

    /// Up to three spaces of indent.
    private static func indent(_ b: UnsafeBufferPointer<UInt8>, _ line: Range<Int>) -> Int? {
        var k = 0
        while line.lowerBound + k < line.upperBound && b[line.lowerBound + k] == 0x20 {
            k += 1
            if k > 3 { return nil }
        }
        return k
    }

    private static func isHeading(_ b: UnsafeBufferPointer<UInt8>, _ line: Range<Int>) -> Bool {
        guard let k = indent(b, line) else { return false }
        var i = line.lowerBound + k
        var hashes = 0
        while i < line.upperBound && b[i] == UInt8(ascii: "#") {
            hashes += 1
            i += 1
        }
        return (1...6).contains(hashes) && (i == line.upperBound || b[i] == 0x20 || b[i] == 0x09)
    }

    /// Where YAML front matter ends (after its closing line), or 0 when there is none.
    private static func frontMatterEnd(_ b: UnsafeBufferPointer<UInt8>) -> Int {
        let n = b.count
        guard n >= 4, b[0] == UInt8(ascii: "-"), b[1] == UInt8(ascii: "-"), b[2] == UInt8(ascii: "-") else { return 0 }
        var i = 3
        while i < n && (b[i] == 0x20 || b[i] == 0x09) { i += 1 }
        guard i < n, b[i] == 0x0A else { return 0 }
        i += 1
        let limit = min(n, 65_536)
        while i < limit {
            var lineEnd = i
            while lineEnd < n && b[lineEnd] != 0x0A { lineEnd += 1 }
            let line = trimTrailingWhitespace(b, i..<lineEnd)
            if line.count == 3 && (b[line.lowerBound] == UInt8(ascii: "-") || b[line.lowerBound] == UInt8(ascii: "."))
                && b[line.lowerBound] == b[line.lowerBound + 1] && b[line.lowerBound] == b[line.lowerBound + 2]
            {
                return min(n, lineEnd + 1)
            }
            i = lineEnd + 1
        }
        return 0
    }

    /// When a sentence ends at `p` (`.` `!` `?` `؟` `۔` `…`, then optionally closing quotes or
    /// brackets, then white space or the end; or `。`), the position just after its mark.
    private static func sentenceEnd(_ b: UnsafeBufferPointer<UInt8>, _ p: Int, _ end: Int) -> Int? {
        var after: Int
        switch b[p] {
        case UInt8(ascii: "."), UInt8(ascii: "!"), UInt8(ascii: "?"):
            after = p + 1
        case 0xD8 where p + 1 < end && b[p + 1] == 0x9F:  // ؟
            after = p + 2
        case 0xDB where p + 1 < end && b[p + 1] == 0x94:  // ۔
            after = p + 2
        case 0xE2 where p + 2 < end && b[p + 1] == 0x80 && b[p + 2] == 0xA6:  // …
            after = p + 3
        case 0xE3 where p + 2 < end && b[p + 1] == 0x80 && b[p + 2] == 0x82:  // 。
            return p + 3
        default:
            return nil
        }
        var q = after
        while q < end {
            let byte = b[q]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || byte == UInt8(ascii: ")") || byte == UInt8(ascii: "*") {
                q += 1
            } else if byte == 0xE2, q + 2 < end, b[q + 1] == 0x80, b[q + 2] == 0x9D || b[q + 2] == 0x99 {  // ” ’
                q += 3
            } else if byte == 0xC2, q + 1 < end, b[q + 1] == 0xBB {  // »
                q += 2
            } else {
                break
            }
        }
        return q == end || isWhitespace(b[q]) ? after : nil
    }

    private static func sentences(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int {
        var n = 0
        var i = range.lowerBound
        while i < range.upperBound {
            if let after = sentenceEnd(b, i, range.upperBound) {
                n += 1
                i = after
            } else {
                i += 1
            }
        }
        return n
    }

    private static func characters(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int {
        var n = 0
        for i in range where b[i] & 0xC0 != 0x80 { n += 1 }
        return n
    }

    // MARK: The cache

    /// A cached index: only the ranges, so a file is small and each range can be checked.
    private struct CacheFile: Codable {
        var rules: String
        var bytes: Int
        var markdown: Bool
        var chunks: [[Int]]
        var passages: [[Int]]
    }

    /// The cache file for a document whose file bytes hash to `sha256`.
    static func cacheURL(in directory: URL, sha256: String, markdown: Bool) -> URL {
        directory.appendingPathComponent("\(sha256).\(markdown ? "md" : "txt").json")
    }

    /// The cached index of `text`, or nil when there is none or it does not describe this text
    /// under these rules (a corrupt, truncated, edited or stale file is never trusted).
    static func cached(at url: URL, text: [UInt8], markdown: Bool) -> CorpusIndex? {
        guard let data = try? Data(contentsOf: url), let file = try? JSONDecoder().decode(CacheFile.self, from: data),
            file.rules == rules, file.bytes == text.count, file.markdown == markdown
        else { return nil }
        return text.withUnsafeBufferPointer { b -> CorpusIndex? in
            func spans(_ pairs: [[Int]]) -> [Span]? {
                var spans: [Span] = []
                spans.reserveCapacity(pairs.count)
                var previousEnd = 0
                for pair in pairs {
                    guard pair.count == 2, pair[0] >= previousEnd, pair[0] < pair[1], pair[1] <= b.count,
                        b[pair[0]] & 0xC0 != 0x80, pair[1] == b.count || b[pair[1]] & 0xC0 != 0x80
                    else { return nil }
                    let range = pair[0]..<pair[1]
                    spans.append(Span(range: range, characters: characters(b, range), sentences: sentences(b, range)))
                    previousEnd = pair[1]
                }
                return spans
            }
            guard let chunks = spans(file.chunks), let passages = spans(file.passages), passages.allSatisfy(isPassage) else { return nil }
            return CorpusIndex(chunks: chunks, passages: passages)
        }
    }

    /// Stores the index; best effort (a cache that cannot be written is recomputed next time).
    func store(at url: URL, text: [UInt8], markdown: Bool) {
        let file = CacheFile(
            rules: Self.rules, bytes: text.count, markdown: markdown, chunks: chunks.map { [$0.range.lowerBound, $0.range.upperBound] },
            passages: passages.map { [$0.range.lowerBound, $0.range.upperBound] })
        guard let data = try? CanonicalJSON.encode(file) else { return }
        let directory = url.deletingLastPathComponent()
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let temporary = directory.appendingPathComponent(".tmp-\(UUID().uuidString)")
        do {
            try data.write(to: temporary)
            if rename(temporary.path, url.path) != 0 { try? FileManager.default.removeItem(at: temporary) }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
        }
    }
}
