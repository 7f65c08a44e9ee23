extension StringProtocol {
    /// The text without leading and trailing white space and newlines. Native and fast:
    /// Foundation's `trimmingCharacters(in:)` bridges through NSString on Linux.
    public var trimmed: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[first...last])
        return String(view)
    }
}
