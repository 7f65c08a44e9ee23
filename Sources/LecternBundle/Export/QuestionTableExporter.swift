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
        let name = manifest.kind == "exam" ? "exam.json" : "course.json"
        guard let data = FileManager.default.contents(atPath: bundle.appendingPathComponent(name).path),
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw PackageError("the bundle has no readable \(name): only course and exam bundles are exported as question tables") }
        var rows: [[String]] = []
        func row(id: String, kind: String, topic: String, difficulty: String, _ question: [String: Any]) {
            let options = question["options"] as? [[String: Any]] ?? []
            let letters = ["A", "B", "C", "D", "E", "F"]
            var fields = [id, kind, topic, question["format"] as? String ?? (options.isEmpty ? "free_text" : "multiple_choice"), difficulty]
            fields.append(question["prompt"] as? String ?? "")
            for index in 0..<6 { fields.append(index < options.count ? options[index]["text"] as? String ?? "" : "") }
            fields.append(options.indices.filter { options[$0]["correct"] as? Bool == true }.map { letters[min($0, 5)] }.joined(separator: ","))
            fields.append(question["reference_answer"] as? String ?? "")
            fields.append(question["explanation"] as? String ?? "")
            for index in 0..<6 { fields.append(index < options.count ? options[index]["feedback"] as? String ?? "" : "") }
            rows.append(fields.map(Exporters.textCharacters))
        }
        if manifest.kind == "exam" {
            for item in object["items"] as? [[String: Any]] ?? [] {
                let topic = [item["section"] as? String, item["category"] as? String].compactMap { $0 }.joined(separator: "/")
                row(id: item["id"] as? String ?? "", kind: "exam-item", topic: topic, difficulty: item["difficulty"] as? String ?? "", item)
            }
        } else {
            for subject in object["subjects"] as? [[String: Any]] ?? [] {
                for topic in subject["topics"] as? [[String: Any]] ?? [] {
                    let id = topic["id"] as? String ?? ""
                    let title = topic["title"] as? String ?? id
                    if let question = topic["engagement_question"] as? [String: Any] {
                        row(id: "engagement-question/\(id)", kind: "engagement", topic: title, difficulty: "", question)
                    }
                    if let question = topic["bonus_question"] as? [String: Any] {
                        row(id: "bonus-question/\(id)", kind: "bonus", topic: title, difficulty: "", question)
                    }
                    for (index, question) in (topic["reinforcement"] as? [[String: Any]] ?? []).enumerated() {
                        let level = question["level"] as? Int ?? index + 1
                        row(id: "reinforcement/\(id)/level-\(level)", kind: "reinforcement", topic: title, difficulty: question["difficulty"] as? String ?? "", question)
                    }
                }
            }
        }
        return rows
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

public enum CSVExporter: BundleExporter {
    public static let format = "csv"
    public static let fileExtension = "csv"
    public static let summary = "every question of a course or exam bank, one row each (RFC 4180, UTF-8 with a byte-order mark)"
    public static func export(bundle: URL, manifest: Manifest) throws -> Data { QuestionTable.csv(try QuestionTable.rows(bundle: bundle, manifest: manifest)) }
}

public enum TSVExporter: BundleExporter {
    public static let format = "tsv"
    public static let fileExtension = "tsv"
    public static let summary = "the same table tab-separated (tabs and line breaks inside a field become spaces)"
    public static func export(bundle: URL, manifest: Manifest) throws -> Data { QuestionTable.tsv(try QuestionTable.rows(bundle: bundle, manifest: manifest)) }
}
