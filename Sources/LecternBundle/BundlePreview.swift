import Foundation
import LecternCore

/// `lectern preview BUNDLE`: a static site of a bundle to read as its users will. The bundle's
/// own documents and assets are copied as they are; the index and the pages beside it are its
/// kind's (`BundleKind.preview`): a course's outline with each topic's questions and flashcards
/// (feedback behind a click, `<details>`, no script), an exam's forms and passages, a quote
/// database's page per emotion, a deck's card set. Right to left for right-to-left languages.
/// Every page is reachable from `index.xhtml`. `PreviewServer` serves it on loopback.
public enum BundlePreview {
    public struct Site: Sendable {
        public var index: URL
        public var pages: Int
    }

    public static func write(bundle: URL, to output: URL, kinds: BundleKinds = .builtIn) throws -> Site {
        let opened = try OpenBundle.verified(bundle)
        let kind = try kinds.reader(for: opened.manifest)
        return try write(kind, opened, to: output)
    }

    static func write<Kind: BundleKind>(_ kind: Kind.Type, _ bundle: OpenBundle, to output: URL) throws -> Site {
        let manifest = bundle.manifest
        // Read before anything is written: a bundle its kind cannot read leaves no half a site.
        let content = try Kind.read(bundle)
        let fm = FileManager.default
        if fm.fileExists(atPath: output.path) {
            guard fm.fileExists(atPath: output.appendingPathComponent(".lectern-preview").path) else {
                throw PackageError("\(output.path) exists and is not a Lectern preview; choose an empty or new folder")
            }
            try fm.removeItem(at: output)
        }
        try fm.createDirectory(at: output, withIntermediateDirectories: true)
        try Data("a folder `lectern preview` wrote; it is replaced on the next preview\n".utf8).write(to: output.appendingPathComponent(".lectern-preview"))
        // The bundle's own documents and assets, as they are.
        for path in manifest.files.keys where !path.hasSuffix(".json") && !path.hasSuffix(".md") {
            let destination = output.appendingPathComponent(path)
            try fm.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            try fm.copyItem(at: bundle.url.appendingPathComponent(path), to: destination)
        }
        let rtl = LanguageDirection.isRightToLeft(manifest.language)
        let page = Page(language: manifest.language, direction: rtl ? "rtl" : "ltr", label: BundleContent.Labels(language: manifest.language))
        var site = PreviewSite(output: output, manifest: manifest, page: page)
        let body = "<h1>\(escape(manifest.title))</h1>\n" + (try Kind.preview(content, site: &site))
        let index = output.appendingPathComponent("index.xhtml")
        try Data(page.document(title: manifest.title, stylesheet: "lectern.css", body: body).utf8).write(to: index)
        return Site(index: index, pages: 1 + site.pages + manifest.files.keys.filter { $0.hasSuffix(".xhtml") }.count)
    }

    /// A page of the site: its language, direction and words.
    public struct Page: Sendable {
        public var language: String
        public var direction: String
        /// `page.label("Forms", "النماذج")`: the page's words in its language.
        public var label: BundleContent.Labels

        public func document(title: String, stylesheet: String, body: String) -> String {
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE html>
            <html xmlns="http://www.w3.org/1999/xhtml" lang="\(escape(language))" xml:lang="\(escape(language))" dir="\(direction)">
            <head>
            <meta charset="utf-8"/>
            <title>\(escape(title))</title>
            <link rel="stylesheet" href="\(stylesheet)"/>
            </head>
            <body>
            \(body)
            </body>
            </html>

            """
        }
    }

    /// One question: its rendered prompt, each option with its feedback behind a click, and the
    /// explanation; all of it rendered as the lectures are (Markdown, formulas as MathML).
    public static func questionHTML(_ q: BundleQuestion, page: Page) -> String {
        func rendered(_ text: String?) -> String { BundleContent.fragment(text ?? "", language: page.language) }
        var html = "<section class=\"lectern-question\">\n<h2>\(escape(page.label(q.heading)))</h2>\n"
        html += BundleContent.prompt(q, language: page.language)
        if !q.options.isEmpty {
            html += "\n<ol type=\"A\">\n"
            for option in q.options {
                let verdict = option.correct ? page.label("✓ Right", "✓ صحيحة") : page.label("✗ Not right", "✗ غير صحيحة")
                html += "<li><details><summary>\(BundleContent.inline(rendered(option.text)))</summary><p><strong>\(verdict).</strong></p>\(rendered(option.feedback))</details></li>\n"
            }
            html += "</ol>\n"
        }
        if let reference = q.referenceAnswer, !reference.isEmpty {
            html += "<details><summary>\(page.label("Reference answer", "الإجابة النموذجية"))</summary>\(rendered(reference))</details>\n"
        }
        if !q.explanation.isEmpty {
            html += "<details><summary>\(page.label("Explanation", "الشرح"))</summary>\(rendered(q.explanation))</details>\n"
        }
        return html + "</section>"
    }

    static func title(ofDocument url: URL) -> String? {
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        let text = String(decoding: data.prefix(4_096), as: UTF8.self)
        guard let start = text.range(of: "<title>"), let end = text.range(of: "</title>", range: start.upperBound..<text.endIndex) else { return nil }
        return String(text[start.upperBound..<end.lowerBound]).replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">")
    }

    static func escape(_ text: String) -> String { BundleContent.xmlEscaped(text) }
}
