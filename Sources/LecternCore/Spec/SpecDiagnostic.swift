import Foundation

/// One problem found in a spec or preset file: what is wrong, where, and what to do.
public struct SpecDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// The file as the user named it.
    public var file: String
    /// 1-based line and column, when the problem has a place in the file.
    public var line: Int?
    public var column: Int?
    public var message: String
    /// What to do about it.
    public var hint: String?

    public init(file: String, line: Int? = nil, column: Int? = nil, message: String, hint: String? = nil) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
        self.hint = hint
    }

    public var description: String {
        var place = file
        if let line {
            place += ":\(line)"
            if let column { place += ":\(column)" }
        }
        var text = "\(place): error: \(message)"
        if let hint { text += "\n  hint: \(hint)" }
        return text
    }
}

/// A spec or preset that cannot be used, with every problem found in it.
public struct SpecError: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [SpecDiagnostic]

    public init(_ diagnostics: [SpecDiagnostic]) {
        self.diagnostics = diagnostics
    }

    public init(_ diagnostic: SpecDiagnostic) {
        self.diagnostics = [diagnostic]
    }

    public var description: String {
        diagnostics.map(\.description).joined(separator: "\n")
    }
}
