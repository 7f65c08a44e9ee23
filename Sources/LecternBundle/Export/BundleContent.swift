import Foundation
import LecternCore
import LecternRender

/// What every reader of a bundle shares once its kind has read the content (`BundleKind`):
/// model text rendered to XHTML + MathML through LecternRender, MathML turned into MathJax TeX
/// for the tools that strip it, XML escaping and identifiers, and the few words a page writes
/// itself in the bundle's language.
public enum BundleContent {
    /// The few words a generated page or item writes itself, in English or Arabic.
    public struct Labels: Sendable {
        var arabic: Bool
        init(language: String) { arabic = LanguageProfile.isArabic(language) }
        public func callAsFunction(_ english: String, _ arabicText: String) -> String { arabic ? arabicText : english }
        public func callAsFunction(_ wording: Wording) -> String { arabic ? wording.arabic : wording.english }

        func verdict(_ correct: Bool) -> String { correct ? self("Right.", "صحيحة.") : self("Not right.", "غير صحيحة.") }
    }

    /// Model text (Markdown with TeX) as an XHTML fragment with MathML, rendered and sanitized
    /// as the bundle's lectures are; the escaped text in a paragraph if it does not render.
    public static func fragment(_ markdown: String, language: String) -> String {
        guard !markdown.isEmpty else { return "" }
        if let page = try? MarkdownRenderer().render(markdown, language: language, title: "", stylesheet: nil) {
            return page.body.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return "<p>" + xmlEscaped(markdown) + "</p>"
    }

    /// A rendered fragment that is one paragraph, without its `<p>`: option text in a list item.
    public static func inline(_ fragment: String) -> String {
        guard fragment.hasPrefix("<p>"), fragment.hasSuffix("</p>"), fragment.components(separatedBy: "<p>").count == 2 else { return fragment }
        return String(fragment.dropFirst(3).dropLast(4))
    }

    /// The content of an XHTML document's `<body>` (a bundle's lecture, for instance).
    public static func body(ofDocument data: Data) -> String {
        let text = String(decoding: data, as: UTF8.self)
        guard let open = text.range(of: "<body"), let start = text.range(of: ">", range: open.upperBound..<text.endIndex),
            let end = text.range(of: "</body>", options: .backwards)
        else { return text }
        return String(text[start.upperBound..<end.lowerBound]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A question's prompt as an XHTML fragment: the bundle's `prompt_xhtml`, or its prompt rendered.
    static func prompt(_ question: BundleQuestion, language: String) -> String {
        if let xhtml = question.promptXHTML, !xhtml.isEmpty {
            return Exporters.textCharacters(xhtml).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return fragment(question.prompt, language: language)
    }

    /// Each `<math>` element as MathJax's TeX delimiters (`\(…\)`, `\[…\]` for display math)
    /// around its TeX annotation, for tools that render TeX with MathJax (Anki, Canvas, Moodle);
    /// MathML without an annotation (Lectern's renderer writes none) is left as it is.
    public static func mathJax(_ html: String) -> String {
        guard html.contains("<math") else { return html }
        var out = ""
        var rest = html[...]
        while let start = rest.range(of: "<math"), let end = rest.range(of: "</math>", range: start.upperBound..<rest.endIndex) {
            out += rest[..<start.lowerBound]
            let element = rest[start.lowerBound..<end.upperBound]
            let openTag = element[..<(element.firstIndex(of: ">") ?? element.endIndex)]
            if let a = element.range(of: "<annotation encoding=\"application/x-tex\">"), let b = element.range(of: "</annotation>", range: a.upperBound..<element.endIndex) {
                let tex = element[a.upperBound..<b.lowerBound]
                out += openTag.contains("display=\"block\"") ? "\\[" + tex + "\\]" : "\\(" + tex + "\\)"
            } else {
                out += element
            }
            rest = rest[end.upperBound...]
        }
        return out + rest
    }

    /// An XML `ID` (an NCName, also a QTI identifier) from an item or topic id: ASCII letters,
    /// digits, `-`, `_` and `.`, anything else `_`; a letter first.
    public static func identifier(_ text: String) -> String {
        var out = String(
            text.unicodeScalars.map { scalar -> Character in
                let c = Character(scalar)
                return (c.isASCII && (c.isLetter || c.isNumber)) || c == "-" || c == "_" || c == "." ? c : "_"
            })
        if let first = out.first, !(first.isASCII && first.isLetter) { out = "t" + out }
        return out.isEmpty ? "t" : out
    }

    /// `text` escaped for XML text and attribute values, with the characters XML cannot hold
    /// (`Exporters.textCharacters`) replaced.
    public static func xmlEscaped(_ text: String) -> String {
        Exporters.textCharacters(text).replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
