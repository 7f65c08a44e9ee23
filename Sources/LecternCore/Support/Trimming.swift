extension StringProtocol {
    /// The text without leading and trailing white space and newlines (Unicode's White_Space,
    /// the set Foundation's `.whitespacesAndNewlines` names). Native and fast: Foundation's
    /// `trimmingCharacters(in:)` bridges through NSString on Linux.
    public var trimmed: String {
        // Most texts start and end with a printable ASCII character: nothing to trim.
        if let first = unicodeScalars.first?.value, let last = unicodeScalars.last?.value, (0x21..<0x7F).contains(first), (0x21..<0x7F).contains(last) { return String(self) }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[first...last])
        return String(view)
    }

    /// The text without leading and trailing spaces and tabs: Foundation's
    /// `trimmingCharacters(in: .whitespaces)` (a space separator or a tab; line breaks stay),
    /// natively. The checks trim every line and sentence of every answer this way.
    public var trimmedSpaces: String {
        if let first = unicodeScalars.first?.value, let last = unicodeScalars.last?.value, (0x21..<0x7F).contains(first), (0x21..<0x7F).contains(last) { return String(self) }
        let isSpace = { (scalar: Unicode.Scalar) in scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
            let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[first...last])
        return String(view)
    }
}
