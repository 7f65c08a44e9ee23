import Foundation
import LecternCore

/// The questions of a course or an exam bank as one table a spreadsheet, an LMS import or a
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

    static func rows(bundle: URL, manifest: Manifest) throws -> [[String]] {
        let document = try BundleContent.document(of: bundle, manifest: manifest)
        let letters = ["A", "B", "C", "D", "E", "F"]
        return BundleContent.questions(in: document, kind: manifest.kind).map { question in
            let q = question.fields
            let options = q["options"] as? [[String: Any]] ?? []
            var fields = [
                question.id, question.kind, question.topic, q["format"] as? String ?? (options.isEmpty ? "free_text" : "multiple_choice"),
                q["difficulty"] as? String ?? "", q["prompt"] as? String ?? "",
            ]
            for index in 0..<6 { fields.append(index < options.count ? options[index]["text"] as? String ?? "" : "") }
            fields.append(options.indices.filter { options[$0]["correct"] as? Bool == true }.map { letters[min($0, 5)] }.joined(separator: ","))
            fields.append(q["reference_answer"] as? String ?? "")
            fields.append(q["explanation"] as? String ?? "")
            for index in 0..<6 { fields.append(index < options.count ? options[index]["feedback"] as? String ?? "" : "") }
            return fields.map(Exporters.textCharacters)
        }
    }

    static func csv(_ rows: [[String]]) -> Data {
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

/// Card sets as the flashcard app imports them: a row a card, term (front) then definition
/// (back), no header — a deck's cards as it was imported, or a course's flashcards in course
/// order (a cloze with its blank on the front and the whole sentence on the back).
enum DeckTable {
    static func cards(bundle: URL, manifest: Manifest) throws -> [(front: String, back: String)] {
        var cards: [(front: String, back: String)] = []
        switch manifest.kind {
        case "flashcards":
            guard let data = FileManager.default.contents(atPath: bundle.appendingPathComponent("deck.json").path) else {
                throw PackageError("the flashcards bundle has no deck.json")
            }
            cards = try JSONDecoder().decode(Deck.self, from: data).cards.map { ($0.front, $0.back) }
        case "course":
            guard let data = FileManager.default.contents(atPath: bundle.appendingPathComponent("course.json").path) else {
                throw PackageError("the course bundle has no course.json")
            }
            let course = try JSONDecoder().decode(Course.self, from: data)
            cards = course.subjects.flatMap(\.topics).flatMap { $0.flashcards ?? [] }.map { ($0.front, $0.back) }
            guard !cards.isEmpty else { throw PackageError("the course has no flashcards: run it with 'flashcards: true' under 'addons'") }
        default:
            throw PackageError("a \(manifest.kind) bundle has no flashcards; card sets come from a flashcards bundle or a course with the flashcards add-on")
        }
        return cards.map { (Exporters.textCharacters($0.front), Exporters.textCharacters($0.back)) }
    }
}

/// A course's or a deck's flashcards as a TSV set (`cards-tsv`).
public enum CardsTSVExporter: BundleExporter {
    public static let format = "cards-tsv"
    public static let fileExtension = "cards.tsv"
    public static let summary = "the flashcards of a course or a deck as a TSV set, front and back a row (what Anki and Quizlet import)"
    public static func export(bundle: URL, manifest: Manifest) throws -> Data { DeckImport.write(try DeckTable.cards(bundle: bundle, manifest: manifest), format: .tsv) }
}

/// A course's or a deck's flashcards as a CSV set (`cards-csv`).
public enum CardsCSVExporter: BundleExporter {
    public static let format = "cards-csv"
    public static let fileExtension = "cards.csv"
    public static let summary = "the same set as CSV (RFC 4180)"
    public static func export(bundle: URL, manifest: Manifest) throws -> Data { DeckImport.write(try DeckTable.cards(bundle: bundle, manifest: manifest), format: .csv) }
}

public enum CSVExporter: BundleExporter {
    public static let format = "csv"
    public static let fileExtension = "csv"
    public static let summary = "every question of a course or exam bank, one row each (RFC 4180, UTF-8 with a byte-order mark); a deck's cards, term and definition"
    public static func export(bundle: URL, manifest: Manifest) throws -> Data {
        if manifest.kind == "flashcards" { return DeckImport.write(try DeckTable.cards(bundle: bundle, manifest: manifest), format: .csv) }
        return QuestionTable.csv(try QuestionTable.rows(bundle: bundle, manifest: manifest))
    }
}

public enum TSVExporter: BundleExporter {
    public static let format = "tsv"
    public static let fileExtension = "tsv"
    public static let summary = "the same table tab-separated (tabs and line breaks inside a field become spaces); a deck's cards, term and definition"
    public static func export(bundle: URL, manifest: Manifest) throws -> Data {
        if manifest.kind == "flashcards" { return DeckImport.write(try DeckTable.cards(bundle: bundle, manifest: manifest), format: .tsv) }
        return QuestionTable.tsv(try QuestionTable.rows(bundle: bundle, manifest: manifest))
    }
}
