/// The result of converting one TeX formula to MathML.
public struct MathMLConversion: Sendable, Equatable {
    /// A complete `<math>` element in the MathML namespace (MathML Core), with the TeX source in
    /// `<annotation encoding="application/x-tex">`.
    public var mathML: String
    /// Problems found on the way (unknown commands, unbalanced groups …). Each also shows as an
    /// `<merror>` in `mathML`; an empty list means the conversion was clean.
    public var warnings: [String]

    /// Wraps a finished conversion.
    public init(mathML: String, warnings: [String]) {
        self.mathML = mathML
        self.warnings = warnings
    }
}

/// TeX → MathML Core, in pure Swift with no dependencies.
///
/// The output is always one well-formed `<math xmlns="http://www.w3.org/1998/Math/MathML">`
/// element (with `display="block"` in display mode) shaped as
/// `<semantics><mrow>…</mrow><annotation encoding="application/x-tex">source</annotation></semantics>`.
///
/// What it can emit — sanitizers should allow exactly this:
/// - elements: ``emittedElements`` (MathML Core presentation elements only; never `maction`,
///   `mglyph`, `annotation-xml`, `a`, `menclose`);
/// - attributes: ``emittedAttributes``. Values are generated, never copied from the input:
///   lengths are `<number><CSS unit>`, colours match MathML Core's colour grammar (`red`, `#f00`,
///   `#ff0000`), booleans are `true`/`false`, `mathvariant` is only `normal`, and `style` is only
///   one of ``emittedStyleValues`` (column alignment, \boxed frames, strike-through) — never a URL.
/// - never `href`, `xlink:href`, `on…` handlers, `class` or `id`: \href, \url, \class, \style,
///   \cssId, \htmlId, \htmlClass, \htmlStyle and \htmlData render only their content as math/text.
///
/// Unknown commands render as `<merror><mtext>\foo</mtext></merror>` with a warning. Macro
/// expansion (\newcommand, \def …) and nesting depth are bounded, so hostile input ends with an
/// error node rather than a hang or a crash.
public enum TeXMath {
    /// Converts `tex` (the text between the delimiters, without them) to MathML. `display` selects
    /// `display="block"`. Never throws and never traps: bad input yields `merror` and warnings.
    public static func convert(_ tex: String, display: Bool) -> MathMLConversion {
        let result = convertToUTF8(tex, display: display)
        return MathMLConversion(mathML: String(decoding: result.mathML, as: UTF8.self), warnings: result.warnings)
    }

    /// `convert` with the MathML as UTF-8 bytes (for a caller that writes bytes: no string is
    /// made and validated for it).
    public static func convertToUTF8(_ tex: String, display: Bool) -> (mathML: [UInt8], warnings: [String]) {
        if let mathML = OnePass.convert(tex, display: display) { return (mathML, []) }
        return convertWithTree(tex, display: display)
    }

    /// The MathML of a formula of the common kind (letters, numbers, operators, Greek, scripts,
    /// fractions, roots, `\\left…\\right`), written in one pass; nil for any other formula, which
    /// `convertToUTF8` hands to the full converter. A caller that caches conversions can skip the
    /// cache for these: converting one costs about as much as looking it up.
    public static func convertCommonToUTF8(_ tex: String, display: Bool) -> [UInt8]? {
        OnePass.convert(tex, display: display)
    }

    /// The full converter, for every formula (`convert` takes the common ones in one pass).
    static func convertWithTree(_ tex: String, display: Bool) -> (mathML: [UInt8], warnings: [String]) {
        let converter = Converter(source: tex, display: display)
        var content = converter.parseTop()
        if let tag = converter.pendingTag { content.append(tag) }
        if converter.stream.limitExceeded {
            converter.warn("Macro expansion limit exceeded (recursive definition?); the rest is not rendered")
            content.append(.error("macro expansion limit exceeded"))
        }
        var out: [UInt8] = []
        out.reserveCapacity(256 + 8 * tex.utf8.count)
        out.append(contentsOf: "<math xmlns=\"http://www.w3.org/1998/Math/MathML\"".utf8)
        if display { out.append(contentsOf: " display=\"block\"".utf8) }
        out.append(contentsOf: "><semantics>".utf8)
        MathNode(.mrow, content).write(to: &out)
        out.append(contentsOf: "<annotation encoding=\"application/x-tex\">".utf8)
        XML.appendEscaped(tex, to: &out, inAttribute: false)
        out.append(contentsOf: "</annotation></semantics></math>".utf8)
        return (out, converter.warnings)
    }

    /// Every element name `convert` can produce.
    public static let emittedElements: Set<String> = Set(MathTag.allCases.map(\.rawValue))

    /// Every attribute name `convert` can produce (on any emitted element).
    public static let emittedAttributes: Set<String> = Set(MathAttribute.allCases.map(\.rawValue))

    /// The only values the `style` attribute ever has: fixed declarations for layouts MathML Core
    /// has no attribute for. A sanitizer can compare against this set verbatim.
    public static let emittedStyleValues: Set<String> = Set(FixedStyle.allCases.map(\.rawValue))
}
