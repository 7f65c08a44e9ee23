import Foundation
import LecternRender

/// The pipeline's renderer: LecternRender's Markdown + TeX → sanitized XHTML + MathML.
public struct MarkdownDocumentRenderer: DocumentRenderer {
    let renderer = MarkdownRenderer()

    public init() {}

    public func renderDocument(
        _ markdown: String, language: String, title: String, stylesheet: String?
    ) throws -> (
        document: String, warnings: [String]
    ) {
        let rendered = try renderer.render(markdown, language: language, title: title, stylesheet: stylesheet)
        return (rendered.xhtml, rendered.warnings)
    }

    public func renderFragment(_ markdown: String, language: String) throws -> String {
        try renderer.render(markdown, language: language, title: nil).body
    }

    public func fragmentWarnings(_ markdown: String, language: String) -> [String] {
        do {
            return try renderer.render(markdown, language: language, title: nil).warnings
        } catch {
            return ["\(error)"]
        }
    }

    public var stylesheet: String { LecternStylesheet.contents }
}
