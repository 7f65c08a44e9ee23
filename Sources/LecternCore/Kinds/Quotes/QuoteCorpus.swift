import Foundation
import Synchronization

/// A quotation as a corpus file gives it, before any cleaning.
public struct QuoteRecord: Sendable, Hashable {
    /// The text as written (lines joined by spaces for fortune records).
    public var rawText: String
    /// The attribution as written (fortune: the `--` line; CSV/JSONL: the author field).
    public var rawAuthor: String
    /// The work, when the source names one.
    public var rawSource: String
    /// The spec's `corpus` entry it came from.
    public var sourceIndex: Int
    /// The line its record starts on (1-based).
    public var line: Int
    /// Whether the record is laid out as a dialogue (two or more `Name:` lines).
    public var dialogue: Bool = false
    /// Whether the record holds more than one attribution line (several quotations).
    public var several: Bool = false
}

/// A quote that passed the deterministic cleaning and goes to the model to be tagged.
public struct QuoteCandidate: Codable, Sendable, Hashable {
    /// Stable across runs: from the normalized text and author (`QuoteCorpus.id`).
    public var id: String
    public var text: String
    public var author: String
    public var source: String
    public var sourceIndex: Int
    public var line: Int
}

/// Why the cleaning left a record out. Every reason is deterministic and costs no model call.
public enum QuoteDropReason: String, Codable, Sendable, Hashable, CaseIterable, Comparable {
    /// A CSV row or JSON line without the fields a quote needs.
    case malformed
    /// No author, or an attribution that names none ("Anonymous", "Proverb", "Bumper sticker").
    case noAuthor = "no-author"
    /// Laid out as a conversation between speakers, not one quotation.
    case dialogue
    /// A fortune record with more than one attribution line: several quotations run together.
    case several = "several-quotations"
    /// Markup, code or symbols left after sanitizing (`*`, `#`, `|`, `{` …; QM-003).
    case oddCharacters = "odd-characters"
    case tooShort = "too-short"
    case tooLong = "too-long"
    /// The same text (after normalization) as an earlier quote.
    case duplicate
    /// The same saying in other words, punctuation or attribution spelling as an earlier quote.
    case nearDuplicate = "near-duplicate"

    public static func < (a: QuoteDropReason, b: QuoteDropReason) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// What cleaning did to the corpus: in the run summary, the manifest and `curation.json`.
public struct QuoteCorpusReport: Codable, Sendable, Hashable {
    public struct Source: Codable, Sendable, Hashable {
        public var path: String
        public var read: Int
        public var kept: Int
    }

    /// A record left out, for the report's examples.
    public struct Drop: Codable, Sendable, Hashable {
        public var path: String
        public var line: Int
        public var reason: QuoteDropReason
        /// The kept quote it repeats, for duplicates.
        public var duplicateOf: String?

        enum CodingKeys: String, CodingKey { case path, line, reason, duplicateOf = "duplicate_of" }
    }

    public var read: Int
    public var kept: Int
    public var dropped: [QuoteDropReason: Int]
    public var sources: [Source]
    /// Every record left out, in corpus order.
    public var drops: [Drop]

    enum CodingKeys: String, CodingKey { case read, kept, dropped, sources, drops }

    public init(read: Int, kept: Int, dropped: [QuoteDropReason: Int], sources: [Source], drops: [Drop]) {
        self.read = read
        self.kept = kept
        self.dropped = dropped
        self.sources = sources
        self.drops = drops
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        read = try c.decode(Int.self, forKey: .read)
        kept = try c.decode(Int.self, forKey: .kept)
        let counts = try c.decode([String: Int].self, forKey: .dropped)
        dropped = Dictionary(uniqueKeysWithValues: counts.compactMap { key, value in QuoteDropReason(rawValue: key).map { ($0, value) } })
        sources = try c.decode([Source].self, forKey: .sources)
        drops = try c.decode([Drop].self, forKey: .drops)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(read, forKey: .read)
        try c.encode(kept, forKey: .kept)
        try c.encode(Dictionary(uniqueKeysWithValues: dropped.map { ($0.key.rawValue, $0.value) }), forKey: .dropped)
        try c.encode(sources, forKey: .sources)
        try c.encode(drops, forKey: .drops)
    }
}

/// The quote collections of a spec, read as untrusted data and cleaned deterministically
/// (docs/quotes.md): sanitized (QM-003), attributed (QM-004), 50–200 characters, exact and near
/// duplicates dropped. What is left goes to the model to be tagged; nothing the model says ever
/// changes a quote's text.
public struct QuoteCorpus: Sendable {
    public var candidates: [QuoteCandidate]
    public var report: QuoteCorpusReport

    /// A file larger than this is refused (a quote collection is text, not a dump).
    public static let maxFileBytes = 64 << 20

    /// Corpora read in this process, by their sources, length bounds and the files' sizes and
    /// modification times: reading the spec and starting the job read the same files once.
    private static let memo = Mutex<[String: QuoteCorpus]>([:])

    /// Reads and cleans every source, in spec order (once per process while the files are
    /// unchanged).
    /// Files outside `roots` (nil: the project of `base`; ``FileRoots``) are refused.
    public static func load(_ sources: [QuoteSource], relativeTo base: URL, length: SizeRange, roots: FileRoots? = nil) throws -> QuoteCorpus {
        let roots = roots ?? FileRoots(specDirectory: base)
        var key = "\(length.min)-\(length.max)\u{1F}\(roots.directories.joined(separator: "\u{1E}"))"
        for source in sources {
            let url = (source.path.hasPrefix("/") ? URL(fileURLWithPath: source.path) : base.appendingPathComponent(source.path)).standardizedFileURL
            var info = stat()
            guard stat(url.path, &info) == 0 else { return try read(sources, relativeTo: base, length: length, roots: roots) }
            key += "\u{1F}\(url.path)\u{1E}\(source.format.rawValue)\u{1E}\(info.st_size)\u{1E}\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        }
        if let known = memo.withLock({ $0[key] }) { return known }
        let corpus = try read(sources, relativeTo: base, length: length, roots: roots)
        memo.withLock {
            if $0.count >= 8 { $0.removeAll() }
            $0[key] = corpus
        }
        return corpus
    }

    static func read(_ sources: [QuoteSource], relativeTo base: URL, length: SizeRange, roots: FileRoots) throws -> QuoteCorpus {
        var records: [QuoteRecord] = []
        var malformed: [(Int, Int)] = []
        var issues: [CorpusIssue] = []
        for (index, source) in sources.enumerated() {
            let url = (source.path.hasPrefix("/") ? URL(fileURLWithPath: source.path) : base.appendingPathComponent(source.path)).standardizedFileURL
            if let refusal = roots.refusal(url, written: source.path) {
                issues.append(CorpusIssue(path: source.path, message: refusal, hint: FileRoots.hint))
                continue
            }
            let text: String
            do {
                text = try readText(url, path: source.path)
            } catch let issue as CorpusIssue {
                issues.append(issue)
                continue
            }
            let parsed = parse(text, format: source.format, sourceIndex: index)
            switch parsed {
            case .success(let result):
                records += result.records
                malformed += result.malformedLines.map { (index, $0) }
            case .failure(let issue):
                issues.append(CorpusIssue(path: source.path, message: issue.message, hint: issue.hint))
            }
        }
        guard issues.isEmpty else { throw CorpusError(issues: issues) }
        return clean(records, malformed: malformed, sources: sources, length: length)
    }

    /// The file's text: at most `maxFileBytes`, UTF-8 (an error names the first bad byte), no NUL;
    /// overstruck characters (`_\bX`, `X\bX`, the old way to underline or embolden) become the
    /// character; other control characters go (`CorpusText`).
    static func readText(_ url: URL, path: String) throws -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw CorpusIssue(path: path, message: "the quote collection '\(path)' does not exist", hint: "check the path; it is relative to the spec's directory")
        }
        guard !isDirectory.boolValue else {
            throw CorpusIssue(path: path, message: "'\(path)' is a directory", hint: "name each quote collection file in 'corpus'")
        }
        let size = (try? url.resourceValues(forKeys: [.fileSizeKey]))?.fileSize ?? 0
        guard size <= maxFileBytes else {
            throw CorpusIssue(path: path, message: "'\(path)' has \(size) bytes; at most \(maxFileBytes)", hint: "split the collection")
        }
        guard var data = try? Data(contentsOf: url) else {
            throw CorpusIssue(path: path, message: "'\(path)' could not be read", hint: "check its permissions")
        }
        data = removeOverstrikes(data)
        do {
            let cleaned = try CorpusText.clean(data)
            return String(decoding: cleaned.bytes, as: UTF8.self)
        } catch .invalidUTF8(let offset) {
            throw CorpusIssue(path: path, message: "'\(path)' is not valid UTF-8 at byte \(offset)", hint: "convert it to UTF-8 (iconv -f latin1 -t utf-8)")
        } catch .nul(let offset) {
            throw CorpusIssue(path: path, message: "'\(path)' holds a NUL byte at \(offset): it is binary, not text", hint: "name the text file, not an index (.dat)")
        }
    }

    /// `c BS c'` → `c'`: a backspace and the ASCII character before it go.
    static func removeOverstrikes(_ data: Data) -> Data {
        guard data.contains(0x08) else { return data }
        var output = [UInt8]()
        output.reserveCapacity(data.count)
        for byte in data {
            if byte == 0x08, let last = output.last, last < 0x80, last != 0x0A {
                output.removeLast()
            } else {
                output.append(byte)
            }
        }
        return Data(output)
    }

    struct Parsed {
        var records: [QuoteRecord]
        var malformedLines: [Int]
    }

    struct ParseIssue: Error {
        var message: String
        var hint: String?
    }

    static func parse(_ text: String, format: QuoteSource.Format, sourceIndex: Int) -> Result<Parsed, ParseIssue> {
        switch format {
        case .fortune: return .success(parseFortune(text, sourceIndex: sourceIndex))
        case .csv: return parseCSV(text, sourceIndex: sourceIndex)
        case .jsonl: return .success(parseJSONLines(text, sourceIndex: sourceIndex))
        }
    }

    // MARK: fortune

    /// fortune(6) data: records between lines holding only `%`; the attribution is the last line
    /// that starts (after white space) with `--`, `—` or `―`, with any lines after it.
    static func parseFortune(_ text: String, sourceIndex: Int) -> Parsed {
        var records: [QuoteRecord] = []
        var lines: [Substring] = []
        var start = 1
        var number = 0
        func flush() {
            defer { lines.removeAll() }
            while let first = lines.first, first.trimmingCharacters(in: .whitespaces).isEmpty {
                lines.removeFirst()
                start += 1
            }
            while let last = lines.last, last.trimmingCharacters(in: .whitespaces).isEmpty { lines.removeLast() }
            guard !lines.isEmpty else { return }
            var textLines = lines
            var attribution = ""
            if let at = lines.lastIndex(where: { isAttributionLine($0) }), at > 0 {
                textLines = Array(lines[..<at])
                attribution = lines[at...].map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
                attribution = String(attribution.drop { "-—― \t".contains($0) })
            }
            let speakers = textLines.filter { isSpeakerLine($0) }.count
            let (author, work) = splitAttribution(attribution)
            records.append(
                QuoteRecord(
                    rawText: textLines.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " "), rawAuthor: author, rawSource: work,
                    sourceIndex: sourceIndex, line: start, dialogue: speakers >= 2, several: textLines.contains { isAttributionLine($0) }))
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            if line == "%" || line == "%%" {
                flush()
                start = number + 1
            } else {
                lines.append(line)
            }
        }
        flush()
        return Parsed(records: records, malformedLines: [])
    }

    static func isAttributionLine(_ line: Substring) -> Bool {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        return trimmed.hasPrefix("--") || trimmed.hasPrefix("—") || trimmed.hasPrefix("―")
    }

    /// `Kirk: …`, `Q: …`: a line that gives a speaker.
    static func isSpeakerLine(_ line: Substring) -> Bool {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        guard let colon = trimmed.firstIndex(of: ":") else { return false }
        let name = trimmed[..<colon]
        guard !name.isEmpty, name.count <= 24, let first = name.first, first.isUppercase else { return false }
        guard trimmed[colon...].dropFirst().first == " " else { return false }
        return name.allSatisfy { $0.isLetter || $0 == " " || $0 == "." || $0 == "'" }
    }

    /// `Mark Twain, "Pudd'nhead Wilson's Calendar"` → author and work. The author ends at the
    /// first comma outside quotes and parentheses; a work that is only a date or page is dropped.
    static func splitAttribution(_ text: String) -> (author: String, source: String) {
        var depth = 0
        var quoted = false
        var cut: String.Index?
        for index in text.indices {
            switch text[index] {
            case "(", "[": depth += 1
            case ")", "]": depth = max(0, depth - 1)
            case "\"", "“", "”": quoted.toggle()
            case "," where depth == 0 && !quoted:
                cut = index
            default: break
            }
            if cut != nil { break }
        }
        guard let cut else { return (text, "") }
        return (String(text[..<cut]), String(text[text.index(after: cut)...]))
    }

    // MARK: CSV

    /// RFC 4180: a header row naming `text` (or `quote`), `author` and optionally `source`;
    /// quoted fields with `""` escapes and line breaks. A row without text or author is
    /// malformed and reported by line.
    static func parseCSV(_ text: String, sourceIndex: Int) -> Result<Parsed, ParseIssue> {
        let rows: [CSVRows.Row]
        do {
            rows = try CSVRows.parse(text)
        } catch {
            return .failure(ParseIssue(message: "the CSV file does not parse, so nothing of it is read: \(error)", hint: "fix the file at that line"))
        }
        guard let header = rows.first else { return .failure(ParseIssue(message: "the CSV file is empty", hint: "give a header row: text,author,source")) }
        let names = header.fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard let textColumn = names.firstIndex(of: "text") ?? names.firstIndex(of: "quote"), let authorColumn = names.firstIndex(of: "author") else {
            return .failure(
                ParseIssue(
                    message: "the CSV header (line 1) has no 'text' and 'author' columns: \(names.joined(separator: ","))",
                    hint: "start the file with the header row text,author,source"))
        }
        let sourceColumn = names.firstIndex(of: "source")
        var parsed = Parsed(records: [], malformedLines: [])
        for row in rows.dropFirst() {
            if row.fields.count == 1 && row.fields[0].isEmpty { continue }
            guard row.fields.count > max(textColumn, authorColumn) else {
                parsed.malformedLines.append(row.line)
                continue
            }
            parsed.records.append(
                QuoteRecord(
                    rawText: row.fields[textColumn], rawAuthor: row.fields[authorColumn],
                    rawSource: sourceColumn.flatMap { $0 < row.fields.count ? row.fields[$0] : nil } ?? "", sourceIndex: sourceIndex, line: row.line))
        }
        return .success(parsed)
    }

    // MARK: JSON Lines

    /// One object per line with string `text` (or `quote`) and `author`, optionally `source`.
    static func parseJSONLines(_ text: String, sourceIndex: Int) -> Parsed {
        var parsed = Parsed(records: [], malformedLines: [])
        var number = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
                let body = (object["text"] ?? object["quote"]) as? String, let author = object["author"] as? String
            else {
                parsed.malformedLines.append(number)
                continue
            }
            parsed.records.append(
                QuoteRecord(rawText: body, rawAuthor: author, rawSource: object["source"] as? String ?? "", sourceIndex: sourceIndex, line: number))
        }
        return parsed
    }

    // MARK: cleaning

    /// Sanitizes every record and drops what cannot be a quote of the database, then exact and
    /// near duplicates (the first in corpus order is kept).
    static func clean(_ records: [QuoteRecord], malformed: [(Int, Int)], sources: [QuoteSource], length: SizeRange) -> QuoteCorpus {
        var drops: [QuoteCorpusReport.Drop] = malformed.map { .init(path: sources[$0.0].path, line: $0.1, reason: .malformed) }
        var candidates: [QuoteCandidate] = []
        var exact: [String: String] = [:]
        var index = QuoteDuplicateIndex()
        for record in records {
            func drop(_ reason: QuoteDropReason, of other: String? = nil) {
                drops.append(.init(path: sources[record.sourceIndex].path, line: record.line, reason: reason, duplicateOf: other))
            }
            let text = QuoteText.sanitize(record.rawText)
            let author = QuoteText.author(record.rawAuthor)
            guard let author else {
                drop(.noAuthor)
                continue
            }
            if record.dialogue {
                drop(.dialogue)
                continue
            }
            if record.several {
                drop(.several)
                continue
            }
            if QuoteText.hasOddCharacters(text) {
                drop(.oddCharacters)
                continue
            }
            let count = text.count
            if count < length.min {
                drop(.tooShort)
                continue
            }
            if count > length.max {
                drop(.tooLong)
                continue
            }
            // The fingerprint holds the normalized text: the exact key and the id reuse it.
            let print = NearDuplicate.Fingerprint(text)
            let key = print.normalized
            let id = Self.id(normalizedText: key, author: author)
            if let other = exact[key] {
                drop(.duplicate, of: other)
                continue
            }
            if let other = index.duplicate(of: print) {
                drop(.nearDuplicate, of: other)
                continue
            }
            exact[key] = id
            index.insert(id: id, print: print)
            candidates.append(
                QuoteCandidate(
                    id: id, text: text, author: author, source: QuoteText.work(record.rawSource), sourceIndex: record.sourceIndex, line: record.line))
        }
        var dropped: [QuoteDropReason: Int] = [:]
        for d in drops { dropped[d.reason, default: 0] += 1 }
        let perSource = sources.enumerated().map { i, source in
            QuoteCorpusReport.Source(
                path: source.path, read: records.filter { $0.sourceIndex == i }.count + malformed.filter { $0.0 == i }.count,
                kept: candidates.filter { $0.sourceIndex == i }.count)
        }
        let report = QuoteCorpusReport(read: records.count + malformed.count, kept: candidates.count, dropped: dropped, sources: perSource, drops: drops)
        return QuoteCorpus(candidates: candidates, report: report)
    }

    /// A quote's id: `q` and 12 hex digits of SHA-256 of its normalized text and author, so the
    /// same quote keeps its id across runs and corpus edits.
    public static func id(text: String, author: String) -> String {
        id(normalizedText: GroundingText.normalize(text), author: author)
    }

    static func id(normalizedText: String, author: String) -> String {
        "q" + SHA256Digest.hex(normalizedText + "\n" + GroundingText.normalize(author)).prefix(12)
    }
}

/// Near-duplicate quotes: the same saying when their content words (`NearDuplicate`'s
/// fingerprint: normalized, stop words out, lightly stemmed; negation and numbers must match)
/// are the same set, or, with four or more each, overlap by 70% (Jaccard): "begins with one step"
/// and "must begin with a single step" are one saying.
struct QuoteDuplicateIndex {
    private var fingerprints: [(id: String, print: NearDuplicate.Fingerprint)] = []
    private var postings: [String: [Int]] = [:]
    /// Scratch for a lookup: tokens shared with each earlier quote, and which ones are non-zero
    /// (reset after each lookup, so a lookup costs the postings it reads, not the index's size).
    private var shared: [Int32] = []
    private var touched: [Int] = []

    mutating func duplicate(of text: String) -> String? { duplicate(of: NearDuplicate.Fingerprint(text)) }

    /// The earliest inserted quote that `print` duplicates.
    mutating func duplicate(of print: NearDuplicate.Fingerprint) -> String? {
        touched.removeAll(keepingCapacity: true)
        for token in print.tokens {
            guard let list = postings[token] else { continue }
            for k in list {
                if shared[k] == 0 { touched.append(k) }
                shared[k] += 1
            }
        }
        var earliest = Int.max
        for k in touched {
            let n = Int(shared[k])
            shared[k] = 0
            guard k < earliest else { continue }
            let other = fingerprints[k].print
            guard other.gate == print.gate else { continue }
            if other.tokens == print.tokens {
                earliest = k
                continue
            }
            let jaccard = Double(n) / Double(other.tokens.count + print.tokens.count - n)
            if min(other.tokens.count, print.tokens.count) >= 4 && jaccard >= 0.7 - 1e-9 { earliest = k }
        }
        return earliest == Int.max ? nil : fingerprints[earliest].id
    }

    mutating func insert(id: String, text: String) { insert(id: id, print: NearDuplicate.Fingerprint(text)) }

    mutating func insert(id: String, print: NearDuplicate.Fingerprint) {
        fingerprints.append((id, print))
        shared.append(0)
        for token in print.tokens { postings[token, default: []].append(fingerprints.count - 1) }
    }
}

/// The documented normalization of a quote's text and attribution (docs/quotes.md). A quote in
/// the database is exactly `sanitize` of its corpus text.
public enum QuoteText {
    /// HTML tags removed (a `<br>` or `<p>` becomes a space), the five XML entities and numeric
    /// character references decoded, `&nbsp;` and other spaces made plain spaces, control and
    /// format characters removed, runs of white space made one space, the ends trimmed, a pair of
    /// quotation marks around the whole text removed, and the result in NFC.
    public static func sanitize(_ raw: String) -> String {
        // Most quotes are plain printable ASCII with no markup: nothing to decode, remove or
        // compose, only spaces to collapse and quotation marks to unwrap.
        if raw.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: "&") }) {
            return unwrapQuotes(raw.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " "))
        }
        var text = stripTags(raw)
        text = decodeEntities(text)
        var scalars = String.UnicodeScalarView()
        var space = false
        for scalar in text.unicodeScalars {
            let properties = scalar.properties
            if scalar.properties.isWhitespace || scalar == "\u{00A0}" {
                if !space && !scalars.isEmpty { scalars.append(" ") }
                space = true
                continue
            }
            if properties.generalCategory == .control || properties.generalCategory == .format { continue }
            scalars.append(scalar)
            space = false
        }
        text = String(scalars)
        while text.hasSuffix(" ") { text.removeLast() }
        text = unwrapQuotes(text)
        return text.precomposedStringWithCanonicalMapping
    }

    /// Whether the text holds characters a quote shown as plain text should not: markup and code
    /// (`* _ # @ | \ { } [ ] < > = + ~ ^` and the backtick), symbols and emoji.
    public static func hasOddCharacters(_ text: String) -> Bool {
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            return text.utf8.contains { !asciiAllowed[Int($0)] }
        }
        for scalar in text.unicodeScalars {
            if scalar.properties.isAlphabetic || scalar == " " { continue }
            switch scalar.properties.generalCategory {
            case .decimalNumber, .nonspacingMark, .spacingMark, .enclosingMark: continue
            default: break
            }
            if allowedPunctuation.contains(scalar) { continue }
            return true
        }
        return false
    }

    static let allowedPunctuation: Set<Unicode.Scalar> = Set(".,;:!?'\"‘’“”-–—()…&%$/«»،؛؟".unicodeScalars)

    /// `hasOddCharacters` for ASCII, as a table: letters, digits, the space and the allowed
    /// punctuation.
    static let asciiAllowed: [Bool] = (0..<128).map { byte in
        let scalar = Unicode.Scalar(UInt8(byte))
        return scalar.properties.isAlphabetic || (0x30...0x39).contains(byte) || byte == 0x20 || allowedPunctuation.contains(scalar)
    }

    /// The author from an attribution, or nil when it names none: dates in parentheses and a
    /// trailing period removed; anonymous, unknown, proverbs, sayings, signs, graffiti and bumper
    /// stickers are no author (QM-004), nor is a lowercase phrase ("seen on a wall").
    public static func author(_ raw: String) -> String? {
        var text = sanitize(raw)
        // Dates in parentheses go ("(1835-1910)", "(384-322 BC)", "(c. 1850)"); any other
        // parenthesis stays, and one that doubts the author ("Karl (maybe Groucho) Marx") makes
        // the attribution name nobody.
        if text.contains("(" as Character) {
            text = text.replacingOccurrences(of: #"\s*\((?:c\.|ca\.|circa|b\.|d\.|fl\.)?\s*[0-9][0-9 ?–\-/.,]*(?:\s*(?:BC|BCE|AD|CE|B\.C\.|A\.D\.))?\)"#, with: "", options: .regularExpression)
        }
        while let last = text.last, ".,;: ".contains(last) { text.removeLast() }
        text = unwrapQuotes(text)
        guard let first = text.unicodeScalars.first, text.count >= 2, text.count <= 80 else { return nil }
        if first.properties.isLowercase || !first.properties.isAlphabetic { return nil }
        let lower = text.lowercased()
        let words = Set(lower.split { !$0.isLetter }.map(String.init))
        if !words.isDisjoint(with: notAuthors) { return nil }
        if lower.hasSuffix("'s law") || lower.hasSuffix("’s law") || text.contains("?" as Character) { return nil }
        if hasOddCharacters(text) { return nil }
        return text
    }

    /// The person an author field names: an attribution that adds the person's role after a comma
    /// ("Henry Ford, founder of Ford Motor Company", "Thomas Edison, inventor", "Marc Benioff, CEO
    /// of Salesforce") is the name before the comma. The role is not part of a name Echo shows
    /// under a quotation. Name suffixes stay ("Martin Luther King, Jr."); a part after the comma
    /// that is neither a role nor a suffix is kept, since it may be part of the name.
    public static func personName(_ author: String) -> String {
        guard let comma = author.range(of: ", ") else { return author }
        let name = String(author[..<comma.lowerBound]).trimmingCharacters(in: .whitespaces)
        let rest = String(author[comma.upperBound...]).trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, let first = rest.unicodeScalars.first else { return author }
        let words = rest.lowercased().split { !$0.isLetter && $0 != "-" }.map(String.init)
        if let head = words.first, nameSuffixes.contains(head) || nameSuffixes.contains(rest.lowercased()) { return author }
        if first.properties.isLowercase || words.contains(where: roleWords.contains) { return name }
        // A short descriptor ending in an agent noun: "Australian yachtsman", "Entertainer".
        if words.count <= 3, let last = words.last, last.count > 4, ["man", "woman", "ist", "er", "or", "ian"].contains(where: last.hasSuffix) {
            return name
        }
        return author
    }

    /// Whether an author field names a work rather than a person: a title with an article ("The
    /// Blues Brothers", "The Hitchhiker's Guide to the Galaxy", "The Old Farmer's Almanac") — but
    /// not a person's title ("The Earl of Birkenhead", "The Dalai Lama") — or a scripture reference
    /// ("Job 16:3"). Echo shows the person who said a quotation (QM-004).
    public static func namesAWork(_ author: String) -> Bool {
        let words = author.split(separator: " ").map(String.init)
        if words.count >= 2, words[0] == "The", !personTitles.contains(words[1].lowercased()) { return true }
        return author.range(of: #"^([1-3] )?[A-Z][a-z]+ [0-9]+:[0-9]+"#, options: .regularExpression) != nil
    }

    /// Whether an attribution names a company or a brand, not a person: one word in the
    /// possessive ("Macy's", "Kellogg's"), or a name ending in a company's form ("Acme Inc.",
    /// "Ford Motor Company", "Pearson Ltd").
    public static func namesACompany(_ author: String) -> Bool {
        let words = author.split(separator: " ").map { $0.replacingOccurrences(of: "’", with: "'") }
        if words.count == 1, let only = words.first, only.count > 3, only.hasSuffix("'s") { return true }
        guard let last = words.last?.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: ".,")), words.count >= 2 else { return false }
        return companyForms.contains(last)
    }

    static let companyForms: Set<String> = [
        "inc", "incorporated", "ltd", "limited", "llc", "plc", "corp", "corporation", "company", "gmbh", "foundation", "magazine", "newspaper",
        "studios",
    ]

    static let personTitles: Set<String> = [
        "earl", "duke", "duchess", "count", "countess", "baron", "lord", "lady", "prince", "princess", "king", "queen", "rev", "rev.", "reverend",
        "venerable", "dalai", "buddha", "emperor", "empress", "pope", "marquis", "abbé", "abbot",
    ]

    static let nameSuffixes: Set<String> = ["jr", "sr", "ii", "iii", "iv", "phd", "ph", "md", "m.d.", "esq", "jr.", "sr."]
    static let roleWords: Set<String> = [
        "founder", "co-founder", "cofounder", "ceo", "cto", "chairman", "president", "inventor", "journalist", "investor", "capitalist", "speaker",
        "magnate", "entrepreneur", "author", "writer", "novelist", "poet", "playwright", "philosopher", "scientist", "physicist", "chemist",
        "economist", "businessman", "businesswoman", "executive", "coach", "actor", "actress", "singer", "musician", "composer", "painter",
        "artist", "politician", "statesman", "general", "senator", "professor", "teacher", "psychologist", "psychiatrist", "historian",
        "architect", "engineer", "designer", "director", "producer", "editor", "publisher", "banker", "industrialist", "educator", "activist",
        "theologian", "minister", "pastor", "priest", "monk", "emperor", "king", "queen", "prime", "mathematician", "astronomer", "biologist",
        "comedian", "humorist", "critic", "essayist", "lecturer", "manager", "consultant", "athlete", "player",
    ]

    /// Whether a quotation is a fragment cut from a longer text: it opens with an ellipsis or in
    /// the middle of a sentence (a lowercase letter), as "... the privileged being which we call
    /// human is distinguished …" does. Shown alone it reads as broken.
    public static func isFragment(_ text: String) -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespaces).drop { "\"“‘'(".contains($0) }
        if trimmed.hasPrefix("...") || trimmed.hasPrefix("…") { return true }
        return trimmed.unicodeScalars.first.map { $0.properties.isLowercase } ?? false
    }

    static let notAuthors: Set<String> = [
        "anonymous", "anon", "unknown", "proverb", "proverbs", "saying", "sayings", "adage", "motto", "graffiti", "graffito",
        "sticker", "sign", "seen", "overheard", "found", "fortune", "cookie", "unattributed", "various", "epitaph", "headline",
        "advertisement", "ad", "slogan", "from", "quoted", "attributed", "joke", "jokes", "maybe", "probably", "possibly", "perhaps",
        "allegedly", "apocryphal", "misattributed", "button", "poster", "t-shirt", "shirt", "usenet", "posting", "article", "wall",
    ]

    /// The work an attribution names, unquoted; a date, page or year alone is no work.
    public static func work(_ raw: String) -> String {
        var text = sanitize(raw)
        while let last = text.last, ".,;: ".contains(last) { text.removeLast() }
        text = unwrapQuotes(text)
        if text.unicodeScalars.allSatisfy({ !$0.properties.isAlphabetic }) { return "" }
        let whole = NSRange(text.startIndex..., in: text)
        if pagePattern.firstMatch(in: text, range: whole) != nil { return "" }
        if hasOddCharacters(text) || text.count > 200 { return "" }
        return text
    }

    static func unwrapQuotes(_ text: String) -> String {
        let pairs: [(Character, Character)] = [("\"", "\""), ("“", "”"), ("«", "»")]
        for (open, close) in pairs where text.count >= 2 && text.first == open && text.last == close {
            let inner = text.dropFirst().dropLast()
            if !inner.contains(open) && !inner.contains(close) { return inner.trimmingCharacters(in: .whitespaces) }
        }
        return text
    }

    static let inlineTags: Set<String> = ["i", "b", "em", "strong", "span", "a", "u", "small", "big", "cite", "q", "font", "sup", "sub"]

    /// A `source` that is only a page, volume or date ("p. 12", "XIV", "1851").
    static let pagePattern = try! NSRegularExpression(pattern: #"^(?i:c\.|ca\.|circa|p\.|pp\.|page|vol\.)?\s*[0-9IVXLC\-–/ ,.]+$"#)
    static let tagPattern = try! NSRegularExpression(pattern: #"</?([A-Za-z][A-Za-z0-9]*)\b[^<>]*>"#)
    static let entityPattern = try! NSRegularExpression(pattern: #"&(#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|amp|lt|gt|quot|apos|nbsp);"#)

    static func stripTags(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "<")) else { return text }
        return replacing(tagPattern, in: text) { inlineTags.contains($0.lowercased()) ? "" : " " }
    }

    static func decodeEntities(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
        return replacing(entityPattern, in: text) { name in
            switch name {
            case "amp": return "&"
            case "lt": return "<"
            case "gt": return ">"
            case "quot": return "\""
            case "apos": return "'"
            case "nbsp": return " "
            default:
                let digits = name.dropFirst()
                let value = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
                return value.flatMap(Unicode.Scalar.init).map { String(Character($0)) } ?? ""
            }
        }
    }

    /// `text` with each match of `pattern` replaced by `replacement` of its first group.
    static func replacing(_ pattern: NSRegularExpression, in text: String, with replacement: (String) -> String) -> String {
        let ns = text as NSString
        var result = ""
        var last = 0
        for match in pattern.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
            result += ns.substring(with: NSRange(location: last, length: match.range.location - last))
            result += replacement(ns.substring(with: match.range(at: 1)))
            last = match.range.location + match.range.length
        }
        return result + ns.substring(from: last)
    }
}

/// RFC 4180 rows: fields separated by commas, quoted fields with `""` for a quote and any line
/// break inside; CRLF or LF between rows. Shared by every CSV a spec names. Strict: a file that
/// does not parse is refused whole (``Failure``), never read in part — a quote left open would
/// otherwise swallow the rows after it without a word.
public enum CSVRows {
    public struct Row: Sendable {
        public var fields: [String]
        /// The line the row starts on (1-based).
        public var line: Int
    }

    /// Why a file does not parse, at its line.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The line of the quote that opened the field that went wrong.
        public var line: Int
        public var message: String
        public var description: String { "line \(line): \(message)" }
    }

    /// The rows of `text`. Throws when a quoted field is never closed, or when its closing quote
    /// is followed by anything but the separator or the end of the line (`"Atom,The smallest…`
    /// on one line and `Molecule,"Two…"` on the next would otherwise read as one field).
    public static func parse(_ text: String, separator: Character = ",") throws(Failure) -> [Row] {
        var rows: [Row] = []
        var fields: [String] = []
        var field = ""
        var quoted = false
        var openedAt = 0
        var atFieldStart = true
        var line = 1
        var rowLine = 1
        var characters = Array(text)
        if characters.first == "\u{FEFF}" { characters.removeFirst() }
        let separatorName = separator == "," ? "a comma" : separator == "\t" ? "a tab" : "'\(separator)'"
        var i = 0
        while i < characters.count {
            let c = characters[i]
            if quoted {
                if c == "\"" {
                    if i + 1 < characters.count && characters[i + 1] == "\"" {
                        field.append("\"")
                        i += 1
                    } else {
                        let next = i + 1 < characters.count ? characters[i + 1] : nil
                        guard next == nil || next == separator || next == "\n" || next == "\r\n" || next == "\r" else {
                            let shown = String(characters[(i + 1)...].prefix { $0 != "\n" && $0 != "\r\n" }.prefix(20))
                            throw Failure(
                                line: openedAt,
                                message: openedAt == line
                                    ? "the quote opened here closes before '\(shown)', not at \(separatorName) or the end of the line; "
                                        + "write a quote inside a quoted field as two quotes (\"\")"
                                    : "the quote opened at line \(openedAt) is never closed (it runs on to the quote at line \(line)); "
                                        + "close it at the end of its field, or write a quote inside a field as two quotes (\"\")")
                        }
                        quoted = false
                    }
                } else {
                    if c == "\n" || c == "\r\n" || c == "\r" { line += 1 }
                    field.append(c)
                }
            } else if c == "\"" && atFieldStart {
                quoted = true
                openedAt = line
                atFieldStart = false
            } else if c == separator {
                fields.append(field)
                field = ""
                atFieldStart = true
            } else if c == "\n" || c == "\r\n" || c == "\r" {
                fields.append(field)
                rows.append(Row(fields: fields, line: rowLine))
                fields = []
                field = ""
                atFieldStart = true
                line += 1
                rowLine = line
            } else {
                field.append(c)
                atFieldStart = false
            }
            i += 1
        }
        if quoted {
            throw Failure(
                line: openedAt, message: "the quote opened at line \(openedAt) is never closed; close it at the end of its field")
        }
        if !field.isEmpty || !fields.isEmpty {
            fields.append(field)
            rows.append(Row(fields: fields, line: rowLine))
        }
        return rows
    }
}
