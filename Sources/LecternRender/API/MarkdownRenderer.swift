internal import CCmarkGFM

/// Markdown with TeX math → a sanitized XHTML5 document with MathML.
///
/// ```swift
/// let page = try MarkdownRenderer().render(markdown, language: "ar", title: "الدرس الأول")
/// try page.xhtml.write(to: lectureURL)   // links to lectern.css: ship LecternStylesheet.contents
/// // A document in a subfolder links to the stylesheet where it is:
/// let lecture = try MarkdownRenderer().render(markdown, language: "en", title: nil, stylesheet: "../lectern.css")
/// ```
///
/// The pipeline: math delimiters (`$…$`, `$$…$$`, `\(…\)`, `\[…\]`, ```` ```math ````) are cut out
/// of the source and replaced by placeholders; cmark-gfm parses the rest (GFM tables,
/// strikethrough, autolinks, tag filter; raw HTML omitted); the tree is written as XHTML with code,
/// math and quotes in their own containers and each formula converted by `TeXMath`; libxml2
/// parses the result and only allowlisted elements, attributes and URL schemes are written out.
/// A renderer holds no state: call it from as many tasks as you like.
public struct MarkdownRenderer: Sendable {
    /// Inputs larger than this (in UTF-8 bytes) are refused with ``RenderError/Kind/inputTooLarge``.
    public static let maximumInputBytes = 16 * 1024 * 1024

    /// Whether the TeX converter's MathML goes into the document without being parsed and checked
    /// again (the converter emits only allowlisted, well-formed markup by construction; the tests
    /// prove it over the corpora and the fuzz corpus). `false` re-parses it, as a check.
    let trustsMathML: Bool

    /// Creates a renderer.
    public init() { trustsMathML = true }

    /// A renderer that parses and checks the converter's MathML too (for tests that compare).
    init(trustsMathML: Bool) { self.trustsMathML = trustsMathML }

    /// Renders `markdown` to a complete XHTML document.
    ///
    /// - Parameters:
    ///   - markdown: the lecture (or question) text.
    ///   - language: its BCP 47 code; sets `lang`/`xml:lang`, and `dir="rtl"` for right-to-left
    ///     languages and scripts (ar, he, fa, ur …).
    ///   - title: the `<title>`; `nil` uses the first heading.
    ///   - stylesheet: the `href` of the stylesheet link, relative to where the document will be
    ///     read from (`../lectern.css` for a document one folder below the stylesheet); `nil`
    ///     writes no link.
    /// - Throws: ``RenderError`` when the language code is invalid, the input too large, or the
    ///   result would not be well-formed XML.
    public func render(
        _ markdown: String, language: String, title: String?, stylesheet: String? = LecternStylesheet.fileName
    ) throws -> RenderedDocument {
        guard let tag = LanguageTag(language) else {
            throw RenderError(
                kind: .invalidLanguage,
                message: "language code \(XHTMLWriter.quoted(language)) is not a BCP 47 tag; use one such as “en” or “ar”")
        }
        guard markdown.utf8.count <= Self.maximumInputBytes else {
            throw RenderError(
                kind: .inputTooLarge,
                message: "the Markdown is \(markdown.utf8.count) bytes; split it below \(Self.maximumInputBytes) bytes")
        }

        let protected = MathDelimiterScanner.protect(markdown)
        guard let tree = CMarkParser.parse(protected.bytes) else {
            throw RenderError(kind: .malformedOutput, message: "cmark-gfm could not parse the document (out of memory?)")
        }
        var writer = XHTMLWriter(protected: protected, trustsMathML: trustsMathML)
        writer.write(document: tree)
        cmark_node_free(tree)
        writer.finish()

        // The document is written once: its head, the sanitized body, its end.
        let documentTitle = title ?? writer.firstHeading.flatMap { $0.isEmpty ? nil : $0 } ?? "Untitled"
        var document: [UInt8] = []
        document.reserveCapacity(writer.out.count + writer.trustedMathML.reduce(0) { $0 + $1.count } + 512)
        XMLBytes.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n", to: &document)
        XMLBytes.append("<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"", to: &document)
        XMLBytes.appendText(tag.code, to: &document, attribute: true)
        XMLBytes.append("\" xml:lang=\"", to: &document)
        XMLBytes.appendText(tag.code, to: &document, attribute: true)
        XMLBytes.append("\" dir=\"", to: &document)
        document.append(contentsOf: tag.direction.rawValue.utf8)
        XMLBytes.append("\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>", to: &document)
        XMLBytes.appendText(documentTitle, to: &document)
        XMLBytes.append("</title>\n", to: &document)
        if let stylesheet {
            XMLBytes.append("<link rel=\"stylesheet\" href=\"", to: &document)
            XMLBytes.appendText(stylesheet, to: &document, attribute: true)
            XMLBytes.append("\"/>\n", to: &document)
        }
        XMLBytes.append("</head>\n<body>\n", to: &document)
        let bodyStart = document.count

        let sanitizerWarnings: [String]
        do {
            sanitizerWarnings = try XMLSanitizer.sanitize(wrapped: writer.out, trusted: writer.trustedMathML, into: &document)
        } catch let failure as LibXML.Failure {
            throw Self.diagnose(failure, writer: writer, protected: protected)
        }
        let bodyEnd = document.count
        XMLBytes.append("</body>\n</html>\n", to: &document)

        // What leaves here parses as XML: libxml2 has parsed everything the body is made of, and
        // the sanitizer writes names from its allowlists and escapes all text and attribute values.
        // (Re-parsing each document would cost a second XML parse; the tests and the fuzzer do it.)

        let xhtml = String(decoding: document, as: UTF8.self)
        // The body is a slice of the same (already validated) UTF-8: copy it, do not decode it again.
        let utf8 = xhtml.utf8
        let body = String(xhtml[utf8.index(utf8.startIndex, offsetBy: bodyStart)..<utf8.index(utf8.startIndex, offsetBy: bodyEnd)])
        return RenderedDocument(
            xhtml: xhtml,
            body: body,
            warnings: writer.warnings + sanitizerWarnings,
            language: tag.code,
            direction: tag.direction,
            title: documentTitle)
    }

    /// Names the formula whose MathML broke the document, if one did.
    private static func diagnose(
        _ failure: LibXML.Failure, writer: XHTMLWriter, protected: ProtectedMarkdown
    )
        -> RenderError
    {
        for index in writer.usedFormulas {
            guard let markup = writer.writtenMathML(index) else { continue }
            if let formulaFailure = LibXML.check(Array(markup.utf8)) {
                let f = protected.formulas[index]
                return RenderError(
                    kind: .malformedOutput,
                    message: "the MathML for \(XHTMLWriter.quoted(f.source)) is not well-formed XML (libxml2: \(formulaFailure.message)); simplify the formula or report it as a TeX converter bug",
                    line: f.line, column: f.column)
            }
        }
        return RenderError(
            kind: .malformedOutput,
            message: "the rendered XHTML is not well-formed XML (libxml2: \(failure.message) at line \(failure.line), column \(failure.column)); too deeply nested content is the usual cause")
    }
}
