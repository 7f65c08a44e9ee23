import Foundation
import Yams

/// The `flashcards` job (docs/spec.md#flashcards): a deck from an imported set (TSV or CSV with
/// a term and a definition a row, as Anki and Quizlet export them) or written from the
/// description, enriched for the flashcard app's study modes: a multiple-choice quiz, cloze
/// (fill-in-the-blank) variants and matching rounds.
public struct DeckSpec: Codable, Sendable, Hashable {
    public enum Format: String, Codable, Sendable, Hashable, CaseIterable {
        case tsv, csv

        /// `.csv` is CSV; anything else (`.tsv`, `.txt`, Anki's and Quizlet's exports) tab-separated.
        public static func guess(_ path: String) -> Format { path.lowercased().hasSuffix(".csv") ? .csv : .tsv }
    }

    /// The deck's title; nil uses the spec id.
    public var title: String?
    /// The imported set, relative to the spec; nil writes the deck from the description.
    public var source: String?
    public var format: Format?
    /// SHA-256 of the imported file when the spec was read: a changed file is another job.
    public var sourceDigest: String?
    /// Cards to write when nothing is imported.
    public var cards: Int
    /// Options of a quiz question (the card's back and `options - 1` distractors).
    public var options: Int
    /// Pairs in a matching round.
    public var pairs: Int

    public init(
        title: String? = nil, source: String? = nil, format: Format? = nil, sourceDigest: String? = nil, cards: Int = 20, options: Int = 4, pairs: Int = 5
    ) {
        self.title = title
        self.source = source
        self.format = format
        self.sourceDigest = sourceDigest
        self.cards = cards
        self.options = options
        self.pairs = pairs
    }

    enum CodingKeys: String, CodingKey {
        case title, source, format, sourceDigest = "source_sha256", cards, options, pairs
    }

    /// Where `source` is: relative to the spec's directory, or as given when absolute.
    public static func resolve(_ source: String, base: URL) -> URL {
        (source.hasPrefix("/") ? URL(fileURLWithPath: source) : base.appendingPathComponent(source)).standardizedFileURL
    }
}

/// Reads the `flashcards` kind's part of a spec:
///
/// ```yaml
/// title: Chemistry basics
/// source: chemistry-basics.tsv   # TSV or CSV, term and definition; omit to write the deck
/// format: tsv                    # default from the extension
/// cards: 20                      # cards to write when nothing is imported (4–200)
/// options: 4                     # quiz options (3–6)
/// pairs: 5                       # pairs per matching round (4–6)
/// ```
public enum DeckSpecReader: JobKindSpecReader {
    public static let keys = ["title", "source", "format", "cards", "options", "pairs"]

    public static func read(_ context: SpecReadContext) -> JobContent? {
        let top = context.top
        let reader = context.reader
        var spec = DeckSpec()
        spec.title = top.string("title", maxLength: 300)
        if let name = top.string("format", maxLength: 10) {
            if let format = DeckSpec.Format(rawValue: name) {
                spec.format = format
            } else {
                reader.report("unknown deck format '\(name)'", at: top.node("format"), hint: "use tsv or csv")
            }
        }
        if let path = top.string("source", maxLength: 1_000) {
            spec.source = path
            let url = DeckSpec.resolve(path, base: context.resolvedBaseDirectory)
            // Read, parsed and checked here, by the code the job uses, so that `validate` refuses
            // what `run` would.
            do {
                spec.sourceDigest = SHA256Digest.hex(try DeckImport.load(url, format: spec.format ?? DeckSpec.Format.guess(path), roots: context.fileRoots).data)
            } catch {
                let rows = error.rowProblems.map { "\n    \(path):\($0.line): \($0.message)" }.joined()
                reader.report(
                    "the deck file '\(path)' \(error.reason)\(rows)", at: top.node("source"),
                    hint: error.hint ?? "give a TSV or CSV file with a term and a definition a row, relative to the spec")
            }
        } else if spec.format != nil {
            reader.report("'format' is set but no 'source' is imported", at: top.node("format"), hint: "add 'source: FILE' or remove 'format'")
        }
        spec.cards = top.int("cards", range: 4...200) ?? spec.cards
        if spec.source != nil && top.has("cards") {
            reader.report("'cards' sets how many cards to write, but the deck is imported from 'source'", at: top.node("cards"), hint: "remove 'cards'")
        }
        spec.options = top.int("options", range: 3...6) ?? spec.options
        spec.pairs = top.int("pairs", range: 4...6) ?? spec.pairs
        return .flashcards(spec)
    }
}
