/// The result of converting one TeX formula to MathML.
public struct MathMLConversion: Sendable, Equatable {
    /// A complete `<math>` element in the MathML namespace (MathML Core), with the TeX source in
    /// `<annotation encoding="application/x-tex">`.
    public var mathML: String
    /// Problems found on the way (unknown commands, unbalanced groups …). Each also shows as an
    /// `<merror>` in `mathML`; an empty list means the conversion was clean.
    public var warnings: [String]

    public init(mathML: String, warnings: [String]) {
        self.mathML = mathML
        self.warnings = warnings
    }
}

/// TeX → MathML Core.
public enum TeXMath {
    /// Converts `tex` (the text between the delimiters, without them) to MathML. `display` selects
    /// `display="block"`. Never throws and never traps: bad input yields `merror` and warnings.
    public static func convert(_ tex: String, display: Bool) -> MathMLConversion {
        // Placeholder until the converter lands: shows the source in an merror.
        let escaped = tex.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
        return MathMLConversion(
            mathML: "<math xmlns=\"http://www.w3.org/1998/Math/MathML\"\(display ? " display=\"block\"" : "")><merror><mtext>\(escaped)</mtext></merror></math>",
            warnings: ["TeX converter not implemented"])
    }
}
