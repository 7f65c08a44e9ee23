import Foundation
import LecternCore

/// The read side of `kind: flashcards`: deck.json as `Deck`, a preview page of the card set (each
/// card's back, quiz and cloze behind a click, the matching rounds), a diff unit per card, and
/// exports as an Anki deck and as TSV or CSV sets.
public enum DeckBundle: BundleKind {
    public static let kind = JobKind.flashcards
    public static let document = "deck.json"

    public static func read(_ bundle: OpenBundle) throws -> Deck {
        try bundle.decode(Deck.self, document)
    }

    static let cardsPage = "cards.xhtml"

    /// A card's written distractors (`distractors/c016`): the card, and its quiz as it ships.
    public static func reviewContext(_ deck: Deck, item: String, answer: String) -> ReviewContext? {
        guard item.hasPrefix("distractors/"), let card = deck.cards.first(where: { $0.id == item.dropFirst("distractors/".count) }) else { return nil }
        let letters = Array("ABCDEFGHIJ")
        let quiz = card.quiz.options.enumerated().map { index, option in
            "\(index < letters.count ? String(letters[index]) : String(index + 1)). \(option)\(index == card.quiz.answer ? "  ✓ (the card's back)" : "")"
        }
        return ReviewContext(
            [.init("The card", "\(card.front)\n\(card.back)"), .init("Its quiz as it ships", quiz.joined(separator: "\n"))],
            preview: "\(cardsPage)#\(BundleContent.identifier(card.id))")
    }

    /// The index (the deck's description, where an imported set came from, what it left out)
    /// and the card set's page.
    public static func preview(_ deck: Deck, site: inout PreviewSite) throws -> String {
        let label = site.label
        let language = site.page.language
        func rendered(_ text: String) -> String { BundleContent.fragment(text, language: language) }
        var body = "<p>\(escape(deck.description))</p>\n"
        if let source = deck.source {
            body += "<p>\(label("Imported from", "مستورد من")) \(escape(source.path)): \(source.imported) \(label("of", "من")) \(source.rows) \(label("rows", "صفًا"))</p>\n"
            if !source.problems.isEmpty {
                body += "<details><summary>\(label("Rows left out", "صفوف لم تُستورد")) (\(source.problems.count))</summary><ul>\n"
                body += source.problems.map { "<li>\(escape($0.description))</li>\n" }.joined() + "</ul></details>\n"
            }
        }
        var html = "<h1>\(escape(deck.title))</h1>\n<ol class=\"lectern-flashcards\">\n"
        for card in deck.cards {
            html += "<li id=\"\(BundleContent.identifier(card.id))\"><details><summary>\(BundleContent.inline(rendered(card.front)))</summary>"
            html += rendered(card.back)
            html += "<p>\(label("Quiz", "اختبار")):</p><ol type=\"A\">"
            for (index, option) in card.quiz.options.enumerated() {
                html += "<li>\(BundleContent.inline(rendered(option)))\(index == card.quiz.answer ? " ✓" : "")</li>"
            }
            html += "</ol>"
            if let cloze = card.cloze { html += "<p>\(label("Cloze", "أكمل الفراغ")): \(escape(cloze.text)) (\(escape(cloze.answer)))</p>" }
            html += "</details></li>\n"
        }
        html += "</ol>\n"
        if !deck.matching.isEmpty {
            let fronts = Dictionary(deck.cards.map { ($0.id, $0.front) }, uniquingKeysWith: { first, _ in first })
            html += "<h2>\(label("Matching rounds", "جولات المطابقة"))</h2>\n<ol>\n"
            for round in deck.matching { html += "<li>" + round.cards.map { escape(fronts[$0] ?? $0) }.joined(separator: " · ") + "</li>\n" }
            html += "</ol>\n"
        }
        try site.write(cardsPage, title: deck.title, body: html)
        body += "<p><a href=\"\(cardsPage)\">\(label("The cards", "البطاقات")) (\(deck.cards.count))</a></p>\n"
        return body
    }

    /// `card/<id>`, the matching rounds as one unit (`matching`), and an import's report (`source`).
    public static func diffUnits(_ deck: Deck, bundle: OpenBundle) -> DiffUnits {
        struct Matching: Encodable {
            var matching: [MatchingRound]
            var unmatched: [String]
        }
        var units = DiffUnits()
        units.covered.insert(document)
        for card in deck.cards { units.add("card/" + card.id, card) }
        units.add("matching", Matching(matching: deck.matching, unmatched: deck.unmatched))
        if let source = deck.source { units.add("source", source) }
        return units
    }

    /// Counts of cards and matching rounds; free samples are card ids.
    public static func listing(_ deck: Deck) -> ListingFacts {
        let contents = Listing.Contents(kind: kind.rawValue, counts: ["cards": deck.cards.count, "matching_rounds": deck.matching.count], totalMinutes: 0)
        return ListingFacts(contents: contents, samples: Set(deck.cards.map(\.id)), samplesAre: "cards")
    }

    static func cards(_ deck: Deck) -> [(front: String, back: String)] { deck.cards.map { ($0.front, $0.back) } }

    public static let exporters: [KindExporter<Deck>] = [
        KindExporter(AnkiExporter.self) { deck, bundle in try AnkiExporter.exportDeck(cards: cards(deck), bundle: bundle) },
        KindExporter(CSVExporter.self) { deck, _ in CardsCSVExporter.write(cards(deck)) },
        KindExporter(TSVExporter.self) { deck, _ in CardsTSVExporter.write(cards(deck)) },
        KindExporter(CardsTSVExporter.self) { deck, _ in CardsTSVExporter.write(cards(deck)) },
        KindExporter(CardsCSVExporter.self) { deck, _ in CardsCSVExporter.write(cards(deck)) },
    ]

    static func escape(_ text: String) -> String { BundleContent.xmlEscaped(text) }
}
