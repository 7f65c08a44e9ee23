import Foundation
import LecternCore
import LecternRender

/// What the exporters, the preview and the package read from a verified bundle: its content
/// document (course.json or exam.json) and its questions in pipeline order, named by the
/// pipeline's item ids. One place, so that a new kind or add-on is taught to all of them at once.
enum BundleContent {
    /// One question of the bundle.
    struct Question {
        /// The pipeline's item id: `engagement-question/s01-t02`, `reinforcement/s01-t02/level-3`, an exam item's id.
        var id: String
        /// `engagement`, `bonus`, `reinforcement`, `practice` or `exam-item`.
        var kind: String
        /// A course topic's id and title; an exam's `section/category` for both.
        var topicID: String
        var topic: String
        /// The course subject's title; empty for an exam.
        var subject: String
        /// Reinforcement level; nil otherwise.
        var level: Int?
        var fields: [String: Any]
    }

    /// A course's subject, its topics in order.
    struct Subject {
        var index: Int
        var title: String
        var topics: [Topic]
    }

    struct Topic {
        var id: String
        var title: String
        /// The lecture's XHTML, bundle-relative, when it was rendered.
        var lecturePath: String?
    }

    /// course.json's outline: subjects and topics in course order.
    static func outline(of course: [String: Any]) -> [Subject] {
        (course["subjects"] as? [[String: Any]] ?? []).enumerated().map { index, subject in
            Subject(
                index: index, title: subject["title"] as? String ?? "",
                topics: (subject["topics"] as? [[String: Any]] ?? []).map { topic in
                    let id = topic["id"] as? String ?? ""
                    return Topic(id: id, title: topic["title"] as? String ?? id, lecturePath: (topic["lecture"] as? [String: Any])?["xhtml_path"] as? String)
                })
        }
    }

    /// What an exporter of a course's lectures reads: course.json, its outline, its questions by
    /// topic, the language and its direction and labels. Other kinds are refused with the reason.
    struct CourseExport {
        var course: [String: Any]
        var outline: [Subject]
        var questions: [String: [Question]]
        var language: String
        var rtl: Bool
        var label: Labels

        init(bundle: URL, manifest: Manifest, exporter: String) throws {
            course = try BundleContent.course(of: bundle, manifest: manifest, exporter: exporter)
            outline = BundleContent.outline(of: course)
            questions = Dictionary(grouping: BundleContent.questions(in: course, kind: "course"), by: \.topicID)
            language = manifest.language
            rtl = LanguageDirection.isRightToLeft(language)
            label = Labels(language: language)
        }
    }

    /// course.json of a course bundle; an exporter that needs lectures refuses other kinds.
    static func course(of bundle: URL, manifest: Manifest, exporter: String) throws -> [String: Any] {
        guard manifest.kind == "course" else { throw PackageError("the \(exporter) exporter takes a course bundle; this one is \(manifest.kind)") }
        return try document(of: bundle, manifest: manifest)
    }

    /// The few words a generated page or item writes itself, in English or Arabic.
    struct Labels {
        var arabic: Bool
        init(language: String) { arabic = language.hasPrefix("ar") }
        func callAsFunction(_ english: String, _ arabicText: String) -> String { arabic ? arabicText : english }

        /// A question's heading by its kind.
        func title(of q: Question) -> String {
            switch q.kind {
            case "engagement": return self("Engagement question", "سؤال التفاعل")
            case "bonus": return self("Bonus question", "سؤال إضافي")
            case "reinforcement": return self("Practice, level", "تدريب، المستوى") + " \(q.level ?? 0)"
            case "practice":
                let levels = ["easy": ("easy", "سهل"), "medium": ("medium", "متوسط"), "hard": ("hard", "صعب")]
                let level = (q.fields["difficulty"] as? String).flatMap { levels[$0] }.map { self($0.0, $0.1) }
                return self("Practice question", "سؤال تدريبي") + (level.map { ", \($0)" } ?? "")
            default: return q.id
            }
        }

        func verdict(_ correct: Bool) -> String { correct ? self("Right.", "صحيحة.") : self("Not right.", "غير صحيحة.") }
    }

    /// course.json or exam.json, parsed.
    static func document(of bundle: URL, manifest: Manifest) throws -> [String: Any] {
        let name = manifest.kind == "exam" ? "exam.json" : "course.json"
        guard let data = FileManager.default.contents(atPath: bundle.appendingPathComponent(name).path),
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw PackageError("the bundle has no readable \(name): only course and exam bundles can be exported, packaged or previewed") }
        return object
    }

    /// Every question, in the order the pipeline makes them.
    static func questions(in document: [String: Any], kind: String) -> [Question] {
        var found: [Question] = []
        if kind == "exam" {
            for item in document["items"] as? [[String: Any]] ?? [] {
                let path = [item["section"] as? String, item["category"] as? String].compactMap { $0 }.joined(separator: "/")
                found.append(Question(id: item["id"] as? String ?? "", kind: "exam-item", topicID: path, topic: path, subject: "", level: nil, fields: item))
            }
            return found
        }
        for subject in document["subjects"] as? [[String: Any]] ?? [] {
            let subjectTitle = subject["title"] as? String ?? ""
            for topic in subject["topics"] as? [[String: Any]] ?? [] {
                let id = topic["id"] as? String ?? ""
                let title = topic["title"] as? String ?? id
                func add(_ itemID: String, _ kind: String, _ level: Int?, _ fields: [String: Any]) {
                    found.append(Question(id: itemID, kind: kind, topicID: id, topic: title, subject: subjectTitle, level: level, fields: fields))
                }
                if let q = topic["engagement_question"] as? [String: Any] { add("engagement-question/\(id)", "engagement", nil, q) }
                if let q = topic["bonus_question"] as? [String: Any] { add("bonus-question/\(id)", "bonus", nil, q) }
                for (index, q) in (topic["reinforcement"] as? [[String: Any]] ?? []).enumerated() {
                    let level = q["level"] as? Int ?? index + 1
                    add("reinforcement/\(id)/level-\(level)", "reinforcement", level, q)
                }
                for (index, q) in (topic["practice"] as? [[String: Any]] ?? []).enumerated() {
                    add("practice/\(id)/" + String(format: "q-%02d", index + 1), "practice", nil, q)
                }
            }
        }
        return found
    }

    /// Model text (Markdown with TeX) as an XHTML fragment with MathML, rendered and sanitized
    /// as the bundle's lectures are; the escaped text in a paragraph if it does not render.
    static func fragment(_ markdown: String, language: String) -> String {
        guard !markdown.isEmpty else { return "" }
        if let page = try? MarkdownRenderer().render(markdown, language: language, title: "", stylesheet: nil) {
            return page.body.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return "<p>" + xmlEscaped(markdown) + "</p>"
    }

    /// A rendered fragment that is one paragraph, without its `<p>`: option text in a list item.
    static func inline(_ fragment: String) -> String {
        guard fragment.hasPrefix("<p>"), fragment.hasSuffix("</p>"), fragment.components(separatedBy: "<p>").count == 2 else { return fragment }
        return String(fragment.dropFirst(3).dropLast(4))
    }

    /// The content of an XHTML document's `<body>` (a bundle's lecture, for instance).
    static func body(ofDocument data: Data) -> String {
        let text = String(decoding: data, as: UTF8.self)
        guard let open = text.range(of: "<body"), let start = text.range(of: ">", range: open.upperBound..<text.endIndex),
            let end = text.range(of: "</body>", options: .backwards)
        else { return text }
        return String(text[start.upperBound..<end.lowerBound]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A question's prompt as an XHTML fragment: the bundle's `prompt_xhtml`, or its prompt rendered.
    static func prompt(_ question: [String: Any], language: String) -> String {
        if let xhtml = question["prompt_xhtml"] as? String, !xhtml.isEmpty {
            return Exporters.textCharacters(xhtml).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return fragment(question["prompt"] as? String ?? "", language: language)
    }

    /// Each `<math>` element as MathJax's TeX delimiters (`\(…\)`, `\[…\]` for display math)
    /// around its TeX annotation, for tools that render TeX with MathJax (Anki, Canvas, Moodle);
    /// MathML without an annotation (Lectern's renderer writes none) is left as it is.
    static func mathJax(_ html: String) -> String {
        guard html.contains("<math") else { return html }
        var out = ""
        var rest = html[...]
        while let start = rest.range(of: "<math"), let end = rest.range(of: "</math>", range: start.upperBound..<rest.endIndex) {
            out += rest[..<start.lowerBound]
            let element = rest[start.lowerBound..<end.upperBound]
            let openTag = element[..<(element.firstIndex(of: ">") ?? element.endIndex)]
            if let a = element.range(of: "<annotation encoding=\"application/x-tex\">"), let b = element.range(of: "</annotation>", range: a.upperBound..<element.endIndex) {
                let tex = element[a.upperBound..<b.lowerBound]
                out += openTag.contains("display=\"block\"") ? "\\[" + tex + "\\]" : "\\(" + tex + "\\)"
            } else {
                out += element
            }
            rest = rest[end.upperBound...]
        }
        return out + rest
    }

    /// An XML `ID` (an NCName, also a QTI identifier) from an item or topic id: ASCII letters,
    /// digits, `-`, `_` and `.`, anything else `_`; a letter first.
    static func identifier(_ text: String) -> String {
        var out = String(text.unicodeScalars.map { scalar -> Character in
            let c = Character(scalar)
            return (c.isASCII && (c.isLetter || c.isNumber)) || c == "-" || c == "_" || c == "." ? c : "_"
        })
        if let first = out.first, !(first.isASCII && first.isLetter) { out = "t" + out }
        return out.isEmpty ? "t" : out
    }

    /// `text` escaped for XML text and attribute values, with the characters XML cannot hold
    /// (`Exporters.textCharacters`) replaced.
    static func xmlEscaped(_ text: String) -> String {
        Exporters.textCharacters(text).replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
