/// The writing direction of a document's language.
public enum TextDirection: String, Sendable, Equatable {
    /// Left to right (`dir="ltr"`).
    case leftToRight = "ltr"
    /// Right to left (`dir="rtl"`): Arabic, Hebrew, Persian, Urdu …
    case rightToLeft = "rtl"
}

/// One rendered Markdown document.
public struct RenderedDocument: Sendable, Equatable {
    /// The complete XHTML5 document: XML declaration, `<html>` with `lang`, `xml:lang` and `dir`,
    /// a head with `<meta charset>`, `<title>` and a link to the stylesheet the caller named
    /// (``LecternStylesheet/fileName`` unless told otherwise).
    public var xhtml: String
    /// The sanitized body content alone, for embedding (a question's text, for example).
    public var body: String
    /// Things the author may want to fix (TeX the converter did not understand, links that were
    /// removed, raw HTML that was dropped), each with its source line.
    public var warnings: [String]
    /// The BCP 47 language code the document was rendered for.
    public var language: String
    /// The writing direction of `language`.
    public var direction: TextDirection
    /// The document title: the caller's, else the first heading's text, else "Untitled".
    public var title: String

    /// Creates a rendered document.
    public init(
        xhtml: String, body: String, warnings: [String], language: String, direction: TextDirection,
        title: String
    ) {
        self.xhtml = xhtml
        self.body = body
        self.warnings = warnings
        self.language = language
        self.direction = direction
        self.title = title
    }
}
