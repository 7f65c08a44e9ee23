/// Telling a reference to a file beside a document (`images/a.png`, `../lectern.css`) from a web
/// address (`https://…`, `mailto:…`) or a place in the same document (`#section`).
public enum LocalReference {
    /// Whether `reference` names a file relative to its document: not a URL with a scheme
    /// (`https:`, `mailto:`, `data:` …), not network-path (`//host/…`), not empty, not only a
    /// fragment or query.
    public static func isLocal(_ reference: String) -> Bool {
        let trimmed = reference.trimmed
        if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix("?") || trimmed.hasPrefix("//") { return false }
        // RFC 3986: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), before any "/", "?" or "#".
        if let colon = trimmed.firstIndex(of: ":") {
            let scheme = trimmed[..<colon]
            if let first = scheme.first, first.isASCII, first.isLetter,
                scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") })
            {
                return false
            }
        }
        return true
    }
}
