import Foundation
import LecternCore

/// The questions of a course or an exam bank (`BundleQuestion`s) as one table a spreadsheet, an LMS import or a
/// script reads: one row a question, with its options, the correct one's letter, a reference
/// answer for free-text questions, the explanation and per-option feedback.
///
/// CSV follows RFC 4180 (CRLF rows, fields with a comma, quote or line break quoted, quotes
/// doubled) and starts with a UTF-8 byte-order mark, which spreadsheet programs need to read
/// Arabic and other non-Latin text as UTF-8. TSV has no quoting: a tab or line break inside a
/// field becomes a space.
enum QuestionTable {
    static let columns = [
        "id", "kind", "topic", "format", "difficulty", "prompt", "option_a", "option_b", "option_c", "option_d", "option_e", "option_f", "correct",
        "reference_answer", "explanation", "feedback_a", "feedback_b", "feedback_c", "feedback_d", "feedback_e", "feedback_f",
    ]

    static func rows(_ questions: [BundleQuestion]) -> [[String]] {
        let letters = ["A", "B", "C", "D", "E", "F"]
        return questions.map { q in
            let options = q.options
            var fields = [q.id, q.role, q.topic, q.format, q.difficulty, q.prompt]
            for index in 0..<6 { fields.append(index < options.count ? options[index].text : "") }
            fields.append(options.indices.filter { options[$0].correct }.map { letters[min($0, 5)] }.joined(separator: ","))
            fields.append(q.referenceAnswer ?? "")
            fields.append(q.explanation)
            for index in 0..<6 { fields.append(index < options.count ? options[index].feedback : "") }
            return fields.map(Exporters.textCharacters)
        }
    }

    static func csv(_ rows: [[String]], columns: [String] = columns) -> Data {
        func field(_ text: String) -> String {
            guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
            return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        var text = "\u{FEFF}"
        for row in [columns] + rows { text += row.map(field).joined(separator: ",") + "\r\n" }
        return Data(text.utf8)
    }

    static func tsv(_ rows: [[String]]) -> Data {
        func field(_ text: String) -> String {
            String(text.map { $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" ? " " : $0 })
        }
        var text = ""
        for row in [columns] + rows { text += row.map(field).joined(separator: "\t") + "\n" }
        return Data(text.utf8)
    }
}

/// A course's or a deck's flashcards as a TSV set (`cards-tsv`): a row a card, term (front) then
/// definition (back), no header — what the flashcard app, Anki and Quizlet import; a course's in
/// course order (a cloze with its blank on the front and the whole sentence on the back).
public enum CardsTSVExporter: BundleExporter {
    public static let format = "cards-tsv"
    public static let fileExtension = "cards.tsv"
    public static let summary = "the flashcards of a course or a deck as a TSV set, front and back a row (what Anki and Quizlet import)"
    static func write(_ cards: [(front: String, back: String)]) -> Data { DeckImport.write(cleaned(cards), format: .tsv) }

    /// The cards with the characters a text file cannot hold replaced.
    static func cleaned(_ cards: [(front: String, back: String)]) -> [(front: String, back: String)] {
        cards.map { (Exporters.textCharacters($0.front), Exporters.textCharacters($0.back)) }
    }
}

/// A course's or a deck's flashcards as a CSV set (`cards-csv`).
public enum CardsCSVExporter: BundleExporter {
    public static let format = "cards-csv"
    public static let fileExtension = "cards.csv"
    public static let summary = "the same set as CSV (RFC 4180)"
    static func write(_ cards: [(front: String, back: String)]) -> Data { DeckImport.write(CardsTSVExporter.cleaned(cards), format: .csv) }
}

/// `csv`: a course's or an exam bank's questions (`QuestionTable`), a deck's cards, a quote database's quotes.
public enum CSVExporter: BundleExporter {
    public static let format = "csv"
    public static let fileExtension = "csv"
    public static let summary =
        "every question of a course or exam bank, one row each (RFC 4180, UTF-8 with a byte-order mark); a deck's cards, term and definition; a quote database's quotes"
}

public enum TSVExporter: BundleExporter {
    public static let format = "tsv"
    public static let fileExtension = "tsv"
    public static let summary = "the same table tab-separated (tabs and line breaks inside a field become spaces); a deck's cards, term and definition"
}

/// A quote database as a table: a row a quote, its emotion tags joined by `;` (RFC 4180, UTF-8
/// with a byte-order mark, as the question table).
enum QuoteTable {
    static let columns = ["id", "text", "author", "source", "emotion_tags", "category"]

    static func csv(_ database: QuoteDatabase) -> Data {
        let rows = database.quotes.map { q in
            [q.id, q.text, q.author, q.source, q.emotionTags.joined(separator: ";"), q.category].map(Exporters.textCharacters)
        }
        return QuestionTable.csv(rows, columns: columns)
    }
}

/// A quote database as the app loads it: quotes.json in Echo's schema (docs/quotes.md), key order and all.
public enum QuotesJSONExporter: BundleExporter {
    public static let format = "json"
    public static let fileExtension = "quotes.json"
    public static let summary = "a quote database as Echo loads it: quotes.json in the app's schema"
}
