import Foundation
import LecternCore

/// The read side of `kind: quotes`: quotes.json and templates.json as `QuoteDatabase` and
/// `TemplateBank`, a preview page per emotion (its quotes and templates), a diff unit per quote
/// and per emotion's templates, and exports as a CSV table and as the app's JSON.
public enum QuotesBundle: BundleKind {
    public static let kind = JobKind.quotes
    public static let document = "quotes.json"
    public static let templatesDocument = "templates.json"

    public struct Content: Sendable {
        public var database: QuoteDatabase
        /// nil when the job wrote no template bank.
        public var templates: TemplateBank?

        /// The emotions in the order the job lists them: the template bank's, else Echo's, then
        /// any other tag by name.
        public var emotions: [String] {
            let tagged = Set(database.quotes.flatMap(\.emotionTags))
            var order = templates?.emotions.map(\.name) ?? []
            for name in QuoteEmotion.echo.map(\.name) where !order.contains(name) && tagged.contains(name) { order.append(name) }
            return order + tagged.subtracting(order).sorted()
        }
    }

    public static func read(_ bundle: OpenBundle) throws -> Content {
        let database = try bundle.decode(QuoteDatabase.self, document)
        guard bundle.manifest.files[templatesDocument] != nil else { return Content(database: database, templates: nil) }
        guard let data = bundle.data(templatesDocument) else { throw BundleReadError("the quotes bundle has no \(templatesDocument)") }
        do {
            return Content(database: database, templates: try TemplateBank.read(data))
        } catch {
            throw BundleReadError("the bundle's \(templatesDocument) is not a template bank: \(BankLint.describe(error))")
        }
    }

    /// A tagging batch (`tag/b…`): each quote its answer names by number and opening words, as
    /// the database holds it — text, author and source, and the tags it ships with — or left out.
    /// Batches are cut from the candidates sorted by id (`QuoteBatches`), `b` and their first
    /// quote's id, so a batch's kept quotes are the database's (sorted by id too) from that id up
    /// to the next batch's first; an opening is looked for among those only (many quotes open
    /// with "The difference between").
    public static func reviewContext(_ content: Content, item: String, answer: String) -> ReviewContext? {
        reviewContexts(content, items: [(item, answer)])[item]
    }

    public static func reviewContexts(_ bundle: OpenBundle, items: [(id: String, answer: String)]) throws -> [String: ReviewContext] {
        reviewContexts(try read(bundle), items: items)
    }

    static func reviewContexts(_ content: Content, items: [(id: String, answer: String)]) -> [String: ReviewContext] {
        let firsts = items.compactMap { $0.id.hasPrefix("tag/b") ? "q" + $0.id.dropFirst("tag/b".count) : nil }.sorted()
        // Each quote to its batch: the last first id at or before its own (a binary search).
        var batches: [String: [QuoteDatabase.Quote]] = [:]
        for quote in content.database.quotes {
            var low = 0
            var high = firsts.count
            while low < high {
                let middle = (low + high) / 2
                if firsts[middle] <= quote.id { low = middle + 1 } else { high = middle }
            }
            if low > 0 { batches[firsts[low - 1], default: []].append(quote) }
        }
        var contexts: [String: ReviewContext] = [:]
        for item in items where item.id.hasPrefix("tag/b") {
            contexts[item.id] = batchContext(batches["q" + item.id.dropFirst("tag/b".count)] ?? [], answer: item.answer)
        }
        return contexts
    }

    /// The quotes of one batch (`mine`, the database's) against its answer's numbered openings.
    static func batchContext(_ mine: [QuoteDatabase.Quote], answer: String) -> ReviewContext? {
        guard let data = answer.data(using: .utf8),
            let named = ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?["quotes"] as? [[String: Any]]
        else { return nil }
        let keys = mine.map { TextKey.normalize($0.text) }
        var lines: [String] = []
        for entry in named {
            let number = (entry["n"] as? Int).map(String.init) ?? "?"
            let opening = (entry["opening"] as? String ?? "").trimmingCharacters(in: .whitespaces)
            let key = TextKey.normalize(opening)
            if !key.isEmpty, let index = keys.firstIndex(where: { $0.hasPrefix(key) }) {
                let quote = mine[index]
                let source = quote.source.isEmpty ? "" : ", \(quote.source)"
                lines.append("\(number). “\(quote.text)” — \(quote.author)\(source)\n   ships tagged \(quote.emotionTags.joined(separator: ", ")) · \(quote.category)")
            } else {
                lines.append("\(number). “\(opening) …” — not in the database (left out)")
            }
        }
        return ReviewContext([.init("The quotes this batch tags, as the database holds them", lines.joined(separator: "\n"))])
    }

    /// The page of one emotion.
    static func pagePath(_ emotion: String) -> String { "emotions/" + BundleContent.identifier(emotion) + ".xhtml" }

    /// An index of the emotions (quotes and templates of each) and categories; a page per
    /// emotion with its quotes (text, author, work, category) and its templates.
    public static func preview(_ content: Content, site: inout PreviewSite) throws -> String {
        let label = site.label
        let quotes = content.database.quotes
        var body = "<p>\(quotes.count) \(label("quotes", "اقتباسًا"))</p>\n<h2>\(label("Emotions", "المشاعر"))</h2>\n<ul>\n"
        for emotion in content.emotions {
            let tagged = quotes.filter { $0.emotionTags.contains(emotion) }
            let templates = content.templates?.emotions.first { $0.name == emotion }?.templates ?? []
            var html = "<h1>\(escape(emotion))</h1>\n<h2>\(label("Quotes", "الاقتباسات")) (\(tagged.count))</h2>\n"
            for quote in tagged {
                let work = quote.source.isEmpty ? "" : ", <cite>\(escape(quote.source))</cite>"
                html += "<blockquote id=\"\(BundleContent.identifier(quote.id))\"><p>\(escape(quote.text))</p>"
                html += "<p>— \(escape(quote.author))\(work) · \(escape(quote.category))</p></blockquote>\n"
            }
            if !templates.isEmpty {
                html += "<h2>\(label("Templates", "القوالب")) (\(templates.count))</h2>\n<ul>\n"
                html += templates.map { "<li>\(escape($0))</li>\n" }.joined() + "</ul>\n"
            }
            let path = pagePath(emotion)
            try site.write(path, title: emotion, body: html)
            let counts = [
                "\(tagged.count) \(label("quotes", "اقتباسًا"))", templates.isEmpty ? nil : "\(templates.count) \(label("templates", "قالبًا"))",
            ].compactMap { $0 }
            body += "<li><a href=\"\(escape(path))\">\(escape(emotion))</a> (\(counts.joined(separator: ", ")))</li>\n"
        }
        body += "</ul>\n<h2>\(label("Categories", "الفئات"))</h2>\n<ul>\n"
        for (category, count) in Dictionary(grouping: quotes, by: \.category).mapValues(\.count).sorted(by: { $0.key < $1.key }) {
            body += "<li>\(escape(category)): \(count)</li>\n"
        }
        return body + "</ul>\n"
    }

    /// `quote/<id>` (its id comes from its text and author) and `templates/<emotion>` (a line a template).
    public static func diffUnits(_ content: Content, bundle: OpenBundle) -> DiffUnits {
        var units = DiffUnits()
        units.covered.insert(document)
        for quote in content.database.quotes { units.add("quote/" + quote.id, quote) }
        if let bank = content.templates {
            units.covered.insert(templatesDocument)
            for emotion in bank.emotions { units.add("templates/" + emotion.name, text: emotion.templates.joined(separator: "\n") + "\n") }
        }
        return units
    }

    /// Counts of quotes, emotions, categories and templates; free samples are emotions (a
    /// buyer sees an emotion's page).
    public static func listing(_ content: Content) -> ListingFacts {
        let quotes = content.database.quotes
        let contents = Listing.Contents(
            kind: kind.rawValue,
            counts: [
                "quotes": quotes.count, "emotions": Set(quotes.flatMap(\.emotionTags)).count, "categories": Set(quotes.map(\.category)).count,
                "templates": content.templates?.emotions.map(\.templates.count).reduce(0, +) ?? 0,
            ],
            totalMinutes: 0)
        return ListingFacts(contents: contents, samples: Set(content.emotions), samplesAre: "emotions")
    }

    public static let exporters: [KindExporter<Content>] = [
        KindExporter(CSVExporter.self) { content, _ in QuoteTable.csv(content.database) },
        KindExporter(QuotesJSONExporter.self) { content, _ in content.database.json() },
    ]

    static func escape(_ text: String) -> String { BundleContent.xmlEscaped(text) }
}
