import Foundation
import LecternBundle
import LecternCore

/// The read side: glossary.json typed, a preview page of the terms, a diff unit a term, listing
/// facts for a package; no export formats.
enum GlossaryBundle: BundleKind {
    static let kind = JobKind.glossary
    static let document = "glossary.json"

    static func read(_ bundle: OpenBundle) throws -> Glossary { try bundle.decode(Glossary.self, document) }

    static func preview(_ glossary: Glossary, site: inout PreviewSite) throws -> String {
        let html =
            "<h1>\(BundleContent.xmlEscaped(glossary.title))</h1>\n<dl>\n"
            + glossary.entries.map { "<dt>\(BundleContent.xmlEscaped($0.term))</dt><dd>\(BundleContent.fragment($0.definition, language: site.page.language))</dd>\n" }
            .joined() + "</dl>\n"
        try site.write("terms.xhtml", title: glossary.title, body: html)
        return "<p><a href=\"terms.xhtml\">\(glossary.entries.count) terms</a></p>\n"
    }

    static func diffUnits(_ glossary: Glossary, bundle: OpenBundle) -> DiffUnits {
        var units = DiffUnits()
        units.covered.insert(document)
        for entry in glossary.entries { units.add(GlossaryItems.definition(entry.term).rawValue, entry) }
        return units
    }

    static func listing(_ glossary: Glossary) -> ListingFacts {
        ListingFacts(
            contents: Listing.Contents(kind: kind.rawValue, counts: ["terms": glossary.entries.count], totalMinutes: 0),
            samples: Set(glossary.entries.map { Slug.make($0.term) }), samplesAre: "terms")
    }

    static let exporters: [KindExporter<Glossary>] = []
}
