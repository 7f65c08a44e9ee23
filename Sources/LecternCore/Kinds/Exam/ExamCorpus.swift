import Foundation
import Synchronization

/// The source material of an exam: every document the spec's `corpus:` entries name, read, cleaned
/// and cut into chunks and passages (`CorpusIndex` says how). Corpus files are untrusted data:
/// they are checked as UTF-8 and bounded in size, never interpreted as anything but text.
public final class ExamCorpus: Sendable {
    /// Every document, in the order of the `corpus:` entries, each directory's files sorted by path.
    public let documents: [CorpusDocument]
    /// Files a directory entry holds but that were not read, with the reason (a symbolic link
    /// leading out of the directory, or to a directory).
    public let skipped: [String]
    private let positions: [String: Int]
    /// Each document's normalized text (`GroundingText`) padded with a space on each side, made
    /// the first time a quote cites it.
    private let normalized = Mutex<[Int: [UInt8]]>([:])

    init(documents: [CorpusDocument], skipped: [String]) {
        self.documents = documents
        self.skipped = skipped
        var positions: [String: Int] = [:]
        for (position, document) in documents.enumerated() { positions[document.id] = position }
        self.positions = positions
    }

    /// A corpus of texts held in memory (tests, tools): each document's id and text, all from
    /// `source`. The text is cleaned and indexed as a file's would be; Markdown when the id ends
    /// in `.md` or `.markdown`.
    public convenience init(texts: [(id: String, text: String)], source: CorpusSource = CorpusSource(path: ".")) throws {
        var documents: [CorpusDocument] = []
        var issues: [CorpusIssue] = []
        for (id, text) in texts {
            do {
                documents.append(
                    try CorpusLoader.document(id: id, data: Data(text.utf8), sources: [source], markdown: CorpusLoader.isMarkdown(id), cache: nil))
            } catch {
                issues.append(error)
            }
        }
        if !issues.isEmpty { throw CorpusError(issues: issues) }
        self.init(documents: documents, skipped: [])
    }

    /// Reads every document `sources` names.
    /// - Parameters:
    ///   - sources: the spec's `corpus:` entries; each path is a Markdown or plain-text file
    ///     (`.md`, `.markdown`, `.txt`), a directory (its such files at any depth, sorted; hidden
    ///     files and folders skipped; a symbolic link followed only to a file inside the directory),
    ///     or a Lectern course bundle (a directory holding `manifest.json` and `course.json`: its
    ///     `lectures/*.md`, also when met inside a directory entry).
    ///   - specDirectory: the directory the paths are relative to; a document's id is its path
    ///     relative to it, with forward slashes (`corpus/verbal/roots.md`).
    ///   - indexCache: a directory for the chunk and passage index of each document, one JSON file
    ///     per document named by the SHA-256 of its bytes; nil: index everything afresh.
    ///   - limits: the largest document and corpus read.
    ///   - roots: where files may be read from (links resolved); nil: the project of `specDirectory`.
    /// - Throws: `CorpusError` with every problem found (a missing path, a file outside the roots, a
    ///   file that is not text or not UTF-8, one over a size limit, a directory with no documents).
    public static func load(
        _ sources: [CorpusSource], relativeTo specDirectory: URL, indexCache: URL? = nil, limits: CorpusLimits = CorpusLimits(),
        roots: FileRoots? = nil
    ) throws -> ExamCorpus {
        var loader = CorpusLoader(
            specDirectory: specDirectory, indexCache: indexCache, limits: limits, roots: roots ?? FileRoots(specDirectory: specDirectory))
        return try loader.load(sources)
    }

    /// The document with this id.
    public func document(_ id: String) -> CorpusDocument? {
        positions[id].map { documents[$0] }
    }

    /// The documents that may ground items of `category` in `section`.
    public func documents(servingSection section: String, category: String) -> [CorpusDocument] {
        documents.filter { $0.serves(section: section, category: category) }
    }

    /// Provenance of every document, for the bank's `documents`.
    public var documentInfos: [CorpusDocumentInfo] { documents.map(\.info) }

    /// Whether `quote` is a source quote of `document`: at least `GroundingText.minimumQuoteWords`
    /// words and `minimumQuoteCharacters` characters that occur in the document after
    /// normalization (`GroundingText`). Each document is normalized once, the first time it is cited.
    public func contains(quote: String, inDocument documentID: String) -> QuoteCheck {
        let needle = GroundingText.normalizedUTF8(quote)
        let (words, characters) = GroundingText.measure(needle)
        guard words >= GroundingText.minimumQuoteWords, characters >= GroundingText.minimumQuoteCharacters else {
            return .tooShort(words: words, characters: characters)
        }
        guard let position = positions[documentID] else { return .documentNotFound }
        return GroundingText.occurs(needle, inPadded: normalizedText(position)) ? .found : .notFound
    }

    /// The words the document has between `left` and `right`, after normalization
    /// (`GroundingText`): for each place where `left`, then one to `maxGap` words, then `right`
    /// occur, those words. Either side may be empty (the gap is then one word). A wrong-word item
    /// is checked with it: its sentence, the key word taken out, must be the source's sentence
    /// with some other word in that place.
    public func gaps(between left: String, and right: String, maxGap: Int = 3, inDocument documentID: String) -> [String] {
        guard let position = positions[documentID] else { return [] }
        let text = String(decoding: normalizedText(position), as: UTF8.self)
        let l = GroundingText.normalize(left)
        let r = GroundingText.normalize(right)
        guard !(l.isEmpty && r.isEmpty) else { return [] }
        var found: [String] = []
        if l.isEmpty {
            for range in text.ranges(of: " " + r + " ") {
                if let word = text[..<range.lowerBound].split(separator: " ").last { found.append(String(word)) }
            }
            return found
        }
        for range in text.ranges(of: " " + l + " ") {
            let after = text[range.upperBound...].split(separator: " ", maxSplits: maxGap + r.split(separator: " ").count, omittingEmptySubsequences: true)
            for gap in 1...max(1, maxGap) where gap <= after.count {
                let rest = after.dropFirst(gap)
                if r.isEmpty ? gap == 1 : rest.prefix(r.split(separator: " ").count).joined(separator: " ") == r {
                    found.append(after.prefix(gap).joined(separator: " "))
                }
            }
        }
        return found
    }

    /// The document's normalized text, padded with a space on each side, made once.
    private func normalizedText(_ position: Int) -> [UInt8] {
        if let cached = normalized.withLock({ $0[position] }) { return cached }
        // Normalized outside the lock; two threads may both do it, and store the same bytes.
        let haystack = GroundingText.padded(GroundingText.normalizedUTF8(documents[position].text))
        normalized.withLock { $0[position] = haystack }
        return haystack
    }
}

/// Whether a source quote is grounded in the document it cites.
public enum QuoteCheck: Sendable, Hashable {
    case found
    /// No document of the corpus has the cited id.
    case documentNotFound
    /// The document does not contain the quote, even after normalization.
    case notFound
    /// Too short to prove anything (normalized words and characters).
    case tooShort(words: Int, characters: Int)

    public var isFound: Bool { self == .found }

    /// What is wrong with the quote, for a validator's message; nil when it is found.
    public func problem(document: String) -> String? {
        switch self {
        case .found:
            return nil
        case .documentNotFound:
            return "the source document '\(document)' is not in the corpus"
        case .notFound:
            return "the quote does not occur in \(document): quote the document word for word"
        case .tooShort(let words, let characters):
            return "the quote is too short to check (\(words) words, \(characters) characters): quote at least "
                + "\(GroundingText.minimumQuoteWords) words and \(GroundingText.minimumQuoteCharacters) characters of \(document) word for word"
        }
    }
}

/// One document of the corpus.
public struct CorpusDocument: Sendable {
    /// Its path relative to the spec's directory, with forward slashes.
    public let id: String
    /// The `corpus:` entries it was found through (one, unless entries overlap), in spec order.
    public let sources: [CorpusSource]
    /// SHA-256 of the file's bytes as read (what `sha256sum` prints).
    public let sha256: String
    /// Unicode scalars of the cleaned text.
    public let characters: Int
    /// Read as Markdown (headings, code fences, front matter) rather than plain text.
    public let isMarkdown: Bool
    public let chunks: [CorpusChunk]
    public let passages: [CorpusPassage]
    /// The cleaned text (see `CorpusText`) as UTF-8; ranges are offsets into it.
    let utf8: [UInt8]

    init(id: String, sources: [CorpusSource], sha256: String, characters: Int, isMarkdown: Bool, utf8: [UInt8], index: CorpusIndex) {
        self.id = id
        self.sources = sources
        self.sha256 = sha256
        self.characters = characters
        self.isMarkdown = isMarkdown
        self.utf8 = utf8
        self.chunks = index.chunks.enumerated().map {
            CorpusChunk(document: id, index: $0.offset + 1, range: $0.element.range, characters: $0.element.characters)
        }
        self.passages = index.passages.enumerated().map {
            CorpusPassage(
                document: id, index: $0.offset + 1, range: $0.element.range, characters: $0.element.characters, sentences: $0.element.sentences)
        }
    }

    /// The cleaned text: UTF-8 without a BOM, LF line ends, no control characters but tab and LF.
    public var text: String { String(decoding: utf8, as: UTF8.self) }

    /// The text of a range of UTF-8 offsets (a chunk's or passage's `range`).
    public func text(_ range: Range<Int>) -> String {
        let clamped = range.clamped(to: 0..<utf8.count)
        return String(decoding: utf8[clamped], as: UTF8.self)
    }

    /// Whether any of its entries may ground items of `category` in `section`.
    public func serves(section: String, category: String) -> Bool {
        sources.contains { $0.serves(section: section, category: category) }
    }

    /// The chunks long enough to ground an item.
    public var groundableChunks: [CorpusChunk] { chunks.filter(\.isGroundable) }

    public var info: CorpusDocumentInfo { CorpusDocumentInfo(id: id, sha256: sha256, characters: characters) }
}

/// A run of paragraphs of one document that a standard item is grounded in.
public struct CorpusChunk: Sendable, Hashable {
    /// The document's id.
    public let document: String
    /// 1-based position in the document.
    public let index: Int
    /// UTF-8 offsets into the document's text.
    public let range: Range<Int>
    /// Unicode scalars in the range.
    public let characters: Int

    /// `<document>#<index>`, e.g. `corpus/roots.md#3`.
    public var id: String { "\(document)#\(index)" }

    /// Long enough to ground an item (a heading alone is not).
    public var isGroundable: Bool { characters >= CorpusIndex.groundableMinimum }
}

/// A passage-length run of prose paragraphs of one document: what a reading-comprehension set is
/// asked about (600–2,500 characters, at least 3 sentences).
public struct CorpusPassage: Sendable, Hashable {
    public let document: String
    /// 1-based position among the document's passages.
    public let index: Int
    /// UTF-8 offsets into the document's text.
    public let range: Range<Int>
    public let characters: Int
    public let sentences: Int

    /// `<document>@<index>`, e.g. `corpus/history.md@2`.
    public var id: String { "\(document)@\(index)" }
}

/// The largest corpus `ExamCorpus.load` reads: larger files are errors, never crashes or swapping.
public struct CorpusLimits: Sendable, Hashable {
    /// One document (default 20 MiB).
    public var maximumDocumentBytes: Int
    /// All documents together (default 256 MiB).
    public var maximumTotalBytes: Int
    /// Documents in all (default 100,000).
    public var maximumDocuments: Int

    public init(maximumDocumentBytes: Int = 20 << 20, maximumTotalBytes: Int = 256 << 20, maximumDocuments: Int = 100_000) {
        self.maximumDocumentBytes = maximumDocumentBytes
        self.maximumTotalBytes = maximumTotalBytes
        self.maximumDocuments = maximumDocuments
    }
}

/// One problem with a `corpus:` entry or a file it names.
public struct CorpusIssue: Error, Sendable, Hashable, CustomStringConvertible {
    /// The entry's path as written in the spec.
    public var path: String
    public var message: String
    /// What to do about it.
    public var hint: String?

    public init(path: String, message: String, hint: String? = nil) {
        self.path = path
        self.message = message
        self.hint = hint
    }

    public var description: String {
        hint.map { "\(message)\n  hint: \($0)" } ?? message
    }
}

/// A corpus that cannot be read, with every problem found.
public struct CorpusError: Error, Sendable, CustomStringConvertible {
    public var issues: [CorpusIssue]

    public init(issues: [CorpusIssue]) {
        self.issues = issues
    }

    public var description: String { issues.map(\.description).joined(separator: "\n") }

    /// The problems as diagnostics of the spec file `file` (the corpus entries are in it).
    public func diagnostics(file: String) -> [SpecDiagnostic] {
        issues.map { SpecDiagnostic(file: file, message: $0.message, hint: $0.hint) }
    }
}
