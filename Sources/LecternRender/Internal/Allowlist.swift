internal import TeXMath

/// What the sanitizer lets through, per namespace.
///
/// XHTML follows the `WHITELIST` of GitHub's html-pipeline `SanitizationFilter` (elements,
/// per-element and global attributes, URL protocols, the list-item and table-part transformers),
/// with Lectern's own additions: `span`, a `class` limited to Lectern's container classes and
/// `language-*`, `style` limited to the `text-align` the writer puts on table cells, and no
/// `github-windows` / `github-mac` link schemes. MathML is limited to what the TeX converter emits
/// (`TeXMath.emittedElements` / `emittedAttributes`), minus anything that can link or script, and
/// `style` only with one of the converter's fixed values.
enum Allowlist {
    static let xhtmlNamespace = "http://www.w3.org/1999/xhtml"
    static let mathMLNamespace = "http://www.w3.org/1998/Math/MathML"

    static let xhtmlElements: Set<String> = [
        "h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "br", "b", "i", "strong", "em", "a", "pre", "code",
        "img", "tt", "div", "ins", "del", "sup", "sub", "p", "ol", "ul", "table", "thead", "tbody", "tfoot",
        "blockquote", "dl", "dt", "dd", "kbd", "q", "samp", "var", "hr", "ruby", "rt", "rp", "li", "tr", "td",
        "th", "s", "strike", "summary", "details",
        // Lectern: display formulas inside headings and table cells.
        "span",
    ]

    /// Elements written `<x/>`.
    static let voidElements: Set<String> = ["br", "hr", "img"]

    /// Disallowed elements dropped with their content (others are unwrapped, keeping the content).
    static let removeContents: Set<String> = [
        "script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "template", "noscript",
        "noembed", "noframes", "textarea", "title", "xmp", "plaintext", "select", "option", "head", "base",
        "link", "meta", "math", "svg", "form", "button", "input", "audio", "video", "source", "track",
        "canvas", "param",
    ]

    static let globalAttributes: Set<String> = [
        "abbr", "accept", "accept-charset", "accesskey", "action", "align", "alt", "axis", "border",
        "cellpadding", "cellspacing", "char", "charoff", "charset", "checked", "clear", "cols", "colspan",
        "color", "compact", "coords", "datetime", "dir", "disabled", "enctype", "for", "frame", "headers",
        "height", "hreflang", "hspace", "ismap", "label", "lang", "maxlength", "media", "method", "multiple",
        "name", "nohref", "noshade", "nowrap", "open", "prompt", "readonly", "rel", "rev", "rows", "rowspan",
        "rules", "scope", "selected", "shape", "size", "span", "start", "summary", "tabindex", "target",
        "title", "type", "usemap", "valign", "value", "vspace", "width", "itemprop",
    ]

    static let elementAttributes: [String: Set<String>] = [
        "a": ["href"],
        "img": ["src", "longdesc"],
        "div": ["itemscope", "itemtype"],
        "blockquote": ["cite"],
        "del": ["cite"],
        "ins": ["cite"],
        "q": ["cite"],
    ]

    /// URL-valued attributes and their allowed schemes (relative URLs are always allowed).
    static func urlSchemes(element: String, attribute: String) -> Set<String>? {
        switch (element, attribute) {
        case ("a", "href"): return URLPolicy.linkSchemes
        case ("img", "src"), ("img", "longdesc"): return URLPolicy.imageSchemes
        case ("blockquote", "cite"), ("del", "cite"), ("ins", "cite"), ("q", "cite"): return URLPolicy.citeSchemes
        default: return nil
        }
    }

    /// Elements that may carry a (restricted) `class`.
    static let classElements: Set<String> = ["div", "span", "code", "blockquote", "pre"]

    /// `class` values the writer produces: Lectern containers and `language-<name>`.
    static func isAllowedClass(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        var start = 0
        while start < value.count {
            var end = start
            while end < value.count, value[end] != 0x20 { end += 1 }
            if end > start, !isAllowedClassToken(UnsafeBufferPointer(rebasing: value[start..<end])) { return false }
            start = end + 1
        }
        return true
    }

    private static let knownClasses: [[UInt8]] = ["lectern-code", "lectern-math", "lectern-math-display", "lectern-quote"].map {
        Array($0.utf8)
    }
    private static let languagePrefix = Array("language-".utf8)

    private static func isAllowedClassToken(_ token: UnsafeBufferPointer<UInt8>) -> Bool {
        if knownClasses.contains(where: { $0.elementsEqual(token) }) { return true }
        guard token.count > 9, token.count <= 49, token.prefix(9).elementsEqual(languagePrefix) else { return false }
        for b in token.dropFirst(9) {
            let ok =
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F
                || b == 0x2D || b == 0x2B || b == 0x23 || b == 0x2E
            if !ok { return false }
        }
        return true
    }

    /// The only `style` values allowed: table-cell alignment, on `th` and `td`.
    static let allowedStyles: Set<String> = ["text-align: left", "text-align: center", "text-align: right"]

    // MARK: MathML

    /// Never kept, whatever the converter says: they can link, script, restyle the page or clobber
    /// the DOM, or (`annotation-xml`, `maction`, `mglyph`) carry the known parser-differential tricks.
    static let mathMLDroppedElements: Set<String> = ["annotation-xml", "maction", "mglyph", "math"]
    static let mathMLDeniedAttributes: Set<String> = [
        "href", "src", "style", "id", "class", "xlink:href", "actiontype", "xmlns",
    ]

    /// MathML elements kept inside a formula (`math` itself is kept only as a formula's root).
    static let mathMLElements: Set<String> = TeXMath.emittedElements.subtracting(mathMLDroppedElements)
    /// MathML attributes kept (`style` is handled apart: see `mathMLStyles`).
    static let mathMLAttributes: Set<String> = TeXMath.emittedAttributes.subtracting(mathMLDeniedAttributes)
    /// The converter's fixed `style` declarations (array column alignment, `\boxed` frames,
    /// strike-through): generated, never copied from the input, and compared verbatim. Any other
    /// `style` on MathML is removed.
    static let mathMLStyles: Set<String> = TeXMath.emittedStyleValues
}
