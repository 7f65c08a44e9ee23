import Foundation

/// Request-tracing metadata sent with every provider request: which work item asks and which
/// attempt of it this is. Harmless to real APIs (unknown headers are ignored) and useful in proxy
/// logs; the mock LLM server uses them to answer per item and to count calls per item.
public enum TracingHeaders {
    /// The work item's identifier, e.g. `lecture/s01-t02`, percent-encoded outside `[A-Za-z0-9/_.:-]`.
    public static let item = "X-Lectern-Item"
    /// The item's attempt: 1 for the first ask, 2… for repairs.
    public static let attempt = "X-Lectern-Attempt"

    /// Adds the item and attempt headers for `context`.
    public static func add(_ context: RequestContext, to headers: inout HTTPHeaders) {
        headers.add(name: item, value: encode(context.itemID))
        headers.add(name: attempt, value: String(context.attempt))
    }

    private static let plain = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/_.:-")

    /// An item id as a header value: no CR, LF or other byte that could break the header line.
    public static func encode(_ itemID: String) -> String {
        itemID.addingPercentEncoding(withAllowedCharacters: plain) ?? "invalid-item-id"
    }

    /// The item id from a header value written by ``encode(_:)``.
    public static func decode(_ value: String) -> String {
        value.removingPercentEncoding ?? value
    }
}
