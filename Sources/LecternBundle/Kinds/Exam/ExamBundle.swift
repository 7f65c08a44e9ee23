import Foundation
import LecternCore

/// The read side of `kind: exam`: exam.json as `ExamBank`, its items by their own ids, a preview
/// index of its forms and passages, a diff unit per item, passage and form, and the question
/// exporters (an exam has no lectures for EPUB, Common Cartridge or SCORM).
public enum ExamBundle: BundleKind {
    public static let kind = JobKind.exam
    public static let document = "exam.json"
    public static let lintedInQualityReport = true

    public static func read(_ bundle: OpenBundle) throws -> ExamBank {
        try bundle.decode(ExamBank.self, document)
    }

    /// Every item in bank order, filed under its `section/category`.
    public static func questions(in exam: ExamBank) -> [BundleQuestion] {
        exam.items.map { item in
            let path = item.section + "/" + item.category
            return BundleQuestion(
                id: item.id, role: "exam-item", heading: Wording(verbatim: item.id), titledWithTopic: false, topicID: path, topic: path, subject: "",
                format: item.options.isEmpty ? "free_text" : "multiple_choice", difficulty: item.difficulty.rawValue, prompt: item.prompt,
                promptXHTML: item.promptXHTML, options: item.options, referenceAnswer: nil, explanation: item.explanation, passage: item.passage,
                figure: item.figure)
        }
    }

    /// A reading set (`reading-set/p01`): its passage. An item (`exam-item/<section>/<category>/…`):
    /// its section and category, with the category's format.
    public static func reviewContext(_ exam: ExamBank, item: String, answer: String) -> ReviewContext? {
        if item.hasPrefix("reading-set/"), let passage = exam.passages.first(where: { $0.id == item.dropFirst("reading-set/".count) }) {
            return ReviewContext([.init("The passage (\(passage.id), from \(passage.document))", passage.text)], preview: passage.xhtmlPath)
        }
        guard item.hasPrefix("exam-item/"), let found = exam.items.first(where: { $0.id == item.dropFirst("exam-item/".count) }) else { return nil }
        let section = exam.sections.first { $0.id == found.section }
        let category = section?.categories.first { $0.id == found.category }
        let place = [section?.title ?? found.section, category?.title ?? found.category].joined(separator: " › ")
        let cited = found.sources.map(\.document).joined(separator: ", ")
        return ReviewContext(
            [.init("Where it stands", "\(place) (\(category.map { $0.format.rawValue } ?? "?"), \(found.difficultyLabel))" + (cited.isEmpty ? "" : "; cites \(cited)"))])
    }

    /// The forms and passages (the bundle's own XHTML) and the bank's size.
    public static func preview(_ exam: ExamBank, site: inout PreviewSite) throws -> String {
        let label = site.label
        let files = site.manifest.files
        func link(_ path: String) -> String {
            "<li><a href=\"\(escape(path))\">\(escape(site.title(ofDocument: path) ?? path))</a></li>\n"
        }
        var body = "<p>\(escape(exam.description))</p>\n"
        body += "<h2>\(label("Forms", "النماذج"))</h2>\n<ul>\n"
        for path in exam.forms.compactMap(\.xhtmlPath).filter({ files[$0] != nil }).sorted() { body += link(path) }
        body += "</ul>\n"
        let passages = exam.passages.compactMap(\.xhtmlPath).filter { files[$0] != nil }.sorted()
        if !passages.isEmpty {
            body += "<h2>\(label("Passages", "النصوص"))</h2>\n<ul>\n"
            for path in passages { body += link(path) }
            body += "</ul>\n"
        }
        body += "<p>\(label("Items in the bank", "أسئلة البنك")): \(exam.items.count)</p>\n"
        return body
    }

    /// `item/<id>`, `passage/<id>` (its text, diffed by line), `form/<id>`, and `exam` (the
    /// rest: title, description, sections, documents).
    public static func diffUnits(_ exam: ExamBank, bundle: OpenBundle) -> DiffUnits {
        var units = DiffUnits()
        units.covered.insert(document)
        units.leading.insert("exam")
        for item in exam.items { units.add("item/" + item.id, item) }
        for passage in exam.passages { units.add("passage/" + passage.id, text: passage.text) }
        for form in exam.forms { units.add("form/" + form.id, form) }
        var whole = exam
        whole.items = []
        whole.passages = []
        whole.forms = []
        units.add("exam", whole)
        return units
    }

    /// Counts of sections, items and forms, the forms' minutes; free samples are form ids.
    public static func listing(_ exam: ExamBank) -> ListingFacts {
        let contents = Listing.Contents(
            kind: kind.rawValue, counts: ["sections": exam.sections.count, "items": exam.items.count, "forms": exam.forms.count],
            totalMinutes: exam.forms.map(\.durationMinutes).reduce(0, +))
        return ListingFacts(contents: contents, samples: Set(exam.forms.map(\.id)), samplesAre: "forms")
    }

    public static let exporters: [KindExporter<ExamBank>] = [
        KindExporter(AnkiExporter.self) { exam, bundle in try AnkiExporter.export(questions: questions(in: exam), flashcards: [], bundle: bundle) },
        KindExporter(QTIExporter.self) { exam, bundle in try QTIExporter.export(questions: questions(in: exam), passages: exam.passages, bundle: bundle) },
        KindExporter(CSVExporter.self) { exam, _ in QuestionTable.csv(QuestionTable.rows(questions(in: exam))) },
        KindExporter(TSVExporter.self) { exam, _ in QuestionTable.tsv(QuestionTable.rows(questions(in: exam))) },
        KindExporter(MoodleXMLExporter.self) { exam, bundle in try MoodleXMLExporter.export(questions: questions(in: exam), bundle: bundle) },
    ]

    static func escape(_ text: String) -> String { BundleContent.xmlEscaped(text) }
}
