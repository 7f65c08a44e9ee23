/// Why a Markdown document could not be rendered. The pipeline records the item as failed.
public struct RenderError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What kind of problem it is.
    public enum Kind: Sendable, Equatable {
        /// The language code is not a BCP 47 tag such as `en` or `ar-EG`.
        case invalidLanguage
        /// The input is larger than ``MarkdownRenderer/maximumInputBytes``.
        case inputTooLarge
        /// The rendered XHTML is not well-formed XML (for example, a formula's MathML is broken).
        case malformedOutput
    }

    /// What kind of problem it is.
    public var kind: Kind
    /// What was wrong and what to do, without the location.
    public var message: String
    /// 1-based line in the Markdown source, when the problem has one.
    public var line: Int?
    /// 1-based column in the Markdown source, when known.
    public var column: Int?

    /// Creates an error.
    public init(kind: Kind, message: String, line: Int? = nil, column: Int? = nil) {
        self.kind = kind
        self.message = message
        self.line = line
        self.column = column
    }

    /// "line 3, column 5: …" when the location is known.
    public var description: String {
        switch (line, column) {
        case (let line?, let column?): return "line \(line), column \(column): \(message)"
        case (let line?, nil): return "line \(line): \(message)"
        default: return message
        }
    }
}
