import Foundation
import LecternBundle
import LecternCore
import LecternLLM

/// Rendering documents, shared by every kind: one local work item per Markdown document,
/// producing its `.xhtml` beside it, and the stylesheet they all link to.
public enum DocumentRendering {
    /// Where the bundle keeps the stylesheet every XHTML document links to: its root, so each
    /// document links to it by a path relative to its own folder (`../lectern.css` from `lectures/`).
    public static let stylesheetPath = "lectern.css"

    /// The kind of every rendering warning (unknown TeX, omitted raw HTML, a removed link).
    public static let warningKind = "the Markdown did not render exactly as written"

    /// A local item `id` rendering the Markdown that `markdown` finds in `source`'s value to
    /// `<path>.xhtml`; its value is a `RenderedFile`, its warnings item warnings.
    public static func item(
        id: ItemID, path: String, source: ItemID, title: String, language: String, renderer: (any DocumentRenderer)?,
        markdown: @escaping @Sendable (any Sendable) -> String?
    ) -> WorkItem {
        let stylesheet = BundleReferences.reference(to: stylesheetPath, from: "\(path).xhtml")
        let itemID = id.rawValue
        return WorkItem(id: id, stage: .render, context: path, dependencies: [source], usesModel: false) { context in
            guard let renderer, let value = context.results.optionalValue(source, as: (any Sendable).self), let text = markdown(value) else {
                throw PipelineError("internal: nothing to render for \(path)")
            }
            do {
                let xhtml = try renderer.renderDocument(text, language: language, title: title, stylesheet: stylesheet)
                let warnings = xhtml.warnings.map {
                    ItemWarning(itemID: itemID, kind: warningKind, message: "\(path).md: \($0)", check: .rendering)
                }
                let report = ItemReport(
                    id: itemID, stage: StageName.render.rawValue, attempts: 0, usage: TokenUsage(), paidUsage: TokenUsage(), costUSD: 0,
                    cached: true, latency: .zero, warnings: warnings)
                return WorkOutput(value: RenderedFile(path: "\(path).xhtml", xhtml: xhtml.document, warnings: xhtml.warnings), report: report)
            } catch {
                throw ItemFailureError(reason: .invalid, attempts: 1, errors: ["rendering \(path).md failed: \(error)"])
            }
        }
    }

    /// The stylesheet's file when `files` holds an XHTML document.
    public static func addStylesheet(to files: inout [String: Data], renderer: (any DocumentRenderer)?) {
        if let renderer, files.keys.contains(where: { $0.hasSuffix(".xhtml") }) {
            files[stylesheetPath] = Data(renderer.stylesheet.utf8)
        }
    }
}

/// A render item's result.
public struct RenderedFile: Sendable {
    public var path: String
    public var xhtml: String
    public var warnings: [String]
}

/// The renderer seam: Markdown + math → sanitized XHTML. The CLI plugs in `LecternRender`.
public protocol DocumentRenderer: Sendable {
    /// A complete XHTML document, and warnings (e.g. unknown TeX commands). `stylesheet` is the
    /// `href` of its stylesheet link, relative to the document (nil: no link).
    func renderDocument(
        _ markdown: String, language: String, title: String, stylesheet: String?
    ) throws -> (
        document: String, warnings: [String]
    )
    /// A sanitized XHTML fragment for embedding (question prompts).
    func renderFragment(_ markdown: String, language: String) throws -> String
    /// What rendering `markdown` as a fragment warns about (an unknown TeX command, raw HTML left
    /// out); a text that cannot be rendered at all gives the reason as its one warning.
    func fragmentWarnings(_ markdown: String, language: String) -> [String]
    /// The stylesheet the XHTML files link to (the bundle keeps it at `DocumentRendering.stylesheetPath`).
    var stylesheet: String { get }
}
