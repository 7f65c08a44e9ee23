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

    /// A tagging batch (`tag/b…`, and its later rounds `tag/b…/round-2` …): each quote its answer
    /// names, as the database holds it — text, author and source, and the tags it ships with — or
    /// with the rejection that left it out. A bundle's curation.json lists the quotes each call
    /// asked about in its numbering (`tagging.asked`), so an answer's `n` names its quote, and an
    /// answer whose opening does not begin that quote (the check refused it, and the quote was
    /// asked again) is said to be one. Without that list (a bundle written before it), quotes
    /// are found by the answer's opening words among the batch's: batches are cut from the
    /// candidates sorted by id (`QuoteBatches`), `b` and their first quote's id, so a batch's
    /// quotes are those from that id up to the next batch's first.
    public static func reviewContext(_ content: Content, item: String, answer: String) -> ReviewContext? {
        reviewContexts(content, items: [(item, answer)])[item]
    }

    public static func reviewContexts(_ bundle: OpenBundle, items: [(id: String, answer: String)]) throws -> [String: ReviewContext] {
        reviewContexts(try read(bundle), items: items, tagging: tagging(bundle))
    }

    /// `curation.json`'s tagging, or nil when the bundle has no readable one.
    static func tagging(_ bundle: OpenBundle) -> QuoteTagging? {
        struct Curation: Decodable { var tagging: QuoteTagging? }
        guard bundle.manifest.files["curation.json"] != nil, let data = bundle.data("curation.json") else { return nil }
        return (try? JSONDecoder().decode(Curation.self, from: data))?.tagging
    }

    /// One quote of a batch as the bundle has it: shipped, rejected or left untagged.
    enum Known {
        case shipped(QuoteDatabase.Quote)
        case rejected(QuoteTagging.Rejection)
        case untagged(id: String, problem: String)

        var text: String? {
            switch self {
            case .shipped(let quote): quote.text
            case .rejected(let rejection): rejection.text
            case .untagged: nil
            }
        }

        /// The quote in full and where it stands.
        func line(_ number: String) -> String {
            switch self {
            case .shipped(let quote):
                let source = quote.source.isEmpty ? "" : ", \(quote.source)"
                return "\(number). “\(quote.text)” — \(quote.author)\(source)\n   ships tagged \(quote.emotionTags.joined(separator: ", ")) · \(quote.category)"
            case .rejected(let rejection):
                return "\(number). “\(rejection.text)” — \(rejection.author)\n   left out: rejected (\(rejection.reason))"
            case .untagged(let id, let problem):
                return "\(number). quote \(id)\n   left out: untagged after every round (\(problem))"
            }
        }
    }

    static func reviewContexts(_ content: Content, items: [(id: String, answer: String)], tagging: QuoteTagging? = nil) -> [String: ReviewContext] {
        var known: [String: Known] = [:]
        for quote in content.database.quotes { known[quote.id] = .shipped(quote) }
        for rejection in tagging?.rejections ?? [] { known[rejection.id] = .rejected(rejection) }
        for (id, problems) in tagging?.untagged ?? [:] where known[id] == nil { known[id] = .untagged(id: id, problem: problems.first ?? "no answer") }
        let firsts = Set(items.compactMap { Self.batch(of: $0.id) }).sorted()
        // Each quote to its batch: the last first id at or before its own (a binary search).
        func firstOfBatch(_ id: String) -> String? {
            var low = 0
            var high = firsts.count
            while low < high {
                let middle = (low + high) / 2
                if firsts[middle] <= id { low = middle + 1 } else { high = middle }
            }
            return low > 0 ? firsts[low - 1] : nil
        }
        var batches: [String: [(id: String, known: Known)]] = [:]
        for (id, quote) in known.sorted(by: { $0.key < $1.key }) {
            if let first = firstOfBatch(id) { batches[first, default: []].append((id, quote)) }
        }
        var contexts: [String: ReviewContext] = [:]
        for item in items {
            guard let first = Self.batch(of: item.id) else { continue }
            let asked = tagging?.asked?[item.id].map { ids in ids.map { id in (id, known[id]) } }
            contexts[item.id] = batchContext(batches[first] ?? [], asked: asked, answer: item.answer)
        }
        return contexts
    }

    /// The id of the first quote of the batch a tagging item asks about (`tag/b0e761aab890a` and
    /// `tag/b0e761aab890a/round-2` both `q0e761aab890a`), or nil for another item.
    static func batch(of item: String) -> String? {
        guard item.hasPrefix("tag/b") else { return nil }
        return "q" + item.dropFirst("tag/b".count).prefix { $0 != "/" }
    }

    /// One call's answer beside its quotes: by number when the call's list is known (`asked`),
    /// else by opening words among the batch's quotes (`mine`).
    static func batchContext(_ mine: [(id: String, known: Known)], asked: [(id: String, known: Known?)]? = nil, answer: String) -> ReviewContext? {
        guard let data = answer.data(using: .utf8),
            let named = ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?["quotes"] as? [[String: Any]]
        else { return nil }
        var lines: [String] = []
        var answered: Set<Int> = []
        for entry in named {
            let n = entry["n"] as? Int
            let number = n.map(String.init) ?? "?"
            let opening = (entry["opening"] as? String ?? "").trimmingCharacters(in: .whitespaces)
            if let asked {
                // As the check reads it: the n-th quotation of the call, its first answer only,
                // its opening beginning that quotation.
                guard let n, (1...asked.count).contains(n) else {
                    lines.append("\(number). “\(opening) …” — names no quotation of this call: not taken")
                    continue
                }
                let (id, quote) = asked[n - 1]
                let shown = quote?.line(number) ?? "\(number). quote \(id)"
                if !answered.insert(n).inserted {
                    lines.append("\(number). a second answer for this quotation (“\(opening) …”): not taken")
                } else if let text = quote?.text, !QuoteRules.openingMatches(opening, text) {
                    lines.append(shown + "\n   this answer's opening, “\(opening)”, does not begin it: not taken (asked again in the next round)")
                } else {
                    lines.append(shown)
                }
                continue
            }
            // Compared as the tagging check compares an opening with its quote (GroundingText: case,
            // accents and quotation marks folded, so "didn’t" names "didn't"): the opening's words
            // starting the quote's, else the check's own looser match.
            let key = GroundingText.normalize(opening)
            let found =
                key.isEmpty
                ? nil
                : mine.first(where: { $0.known.text.map { GroundingText.normalize($0).hasPrefix(key) } ?? false })
                    ?? mine.first(where: { $0.known.text.map { QuoteRules.openingMatches(opening, $0) } ?? false })
            lines.append(found?.known.line(number) ?? "\(number). “\(opening) …” — not in the database (left out)")
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
