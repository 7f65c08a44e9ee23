import Foundation

/// Finds JSON in a model's free text, for servers that cannot constrain output to a schema and
/// for models that wrap their JSON in prose or Markdown code fences.
public enum JSONExtraction {
    /// The first complete JSON object or array in `text`.
    ///
    /// A text that is one JSON object or array as a whole is that value: its strings may hold
    /// code fences of their own (a question quoting a ```` ```python ```` block), which must not
    /// be taken for a wrapper. Otherwise code-fenced blocks (```` ```json … ``` ```` or plain
    /// ```` ``` ````) are tried first, in order; then the text itself, scanning from each `{` or
    /// `[` for its balanced end (strings and escapes respected) and keeping the first candidate
    /// that parses. Returns `nil` when there is none.
    public static func firstJSONValue(in text: String) -> JSONValue? {
        let whole = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if whole.hasPrefix("{") || whole.hasPrefix("["), let value = parse(whole) { return value }
        for block in fencedBlocks(in: text) {
            if let value = firstBalancedValue(in: block) { return value }
        }
        return firstBalancedValue(in: text)
    }

    /// The contents of Markdown code fences, in order.
    static func fencedBlocks(in text: String) -> [Substring] {
        var blocks: [Substring] = []
        var rest = text[...]
        while let open = rest.range(of: "```") {
            // Skip the info string (e.g. `json`) up to the end of the fence line.
            let afterFence = rest[open.upperBound...]
            let contentStart = afterFence.firstIndex(of: "\n").map { afterFence.index(after: $0) } ?? afterFence.startIndex
            guard let close = rest[contentStart...].range(of: "```") else {
                blocks.append(rest[contentStart...])  // an unclosed fence: take the rest
                break
            }
            blocks.append(rest[contentStart..<close.lowerBound])
            rest = rest[close.upperBound...]
        }
        return blocks
    }

    /// Scans for `{` / `[`, finds the balanced end and parses; the first success wins.
    static func firstBalancedValue<S: StringProtocol>(in text: S) -> JSONValue? {
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            guard let open = bytes[start...].firstIndex(where: { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "[") })
            else { return nil }
            if let end = balancedEnd(bytes, from: open), let value = parse(String(decoding: bytes[open...end], as: UTF8.self)) {
                return value
            }
            start = open + 1
        }
        return nil
    }

    /// `text` parsed as JSON; failing that, with the control characters written raw inside its
    /// strings escaped (a line break typed into a string is invalid JSON, and small models type
    /// them: it can only mean a line break, so reading it as one changes nothing else).
    static func parse(_ text: String) -> JSONValue? {
        if let value = try? JSONValue.parse(text) { return value }
        guard let escaped = escapingRawControlCharacters(text) else { return nil }
        return try? JSONValue.parse(escaped)
    }

    /// `text` with every control character inside a string literal written as its escape;
    /// nil when there is none.
    static func escapingRawControlCharacters(_ text: String) -> String? {
        var out: [UInt8] = []
        var changed = false
        var scanner = StringScanner()
        for byte in text.utf8 {
            if scanner.isContent(byte) && byte < 0x20 {
                changed = true
                switch byte {
                case 0x0A: out += Array("\\n".utf8)
                case 0x0D: out += Array("\\r".utf8)
                case 0x09: out += Array("\\t".utf8)
                default: out += Array(String(format: "\\u%04x", byte).utf8)
                }
            } else {
                out.append(byte)
            }
        }
        return changed ? String(decoding: out, as: UTF8.self) : nil
    }

    /// Where a byte-by-byte scan of JSON text stands with respect to string literals.
    struct StringScanner {
        private(set) var inString = false
        private var escaped = false

        /// Moves past `byte`: true when it is part of a string's content (its quotes are not).
        mutating func isContent(_ byte: UInt8) -> Bool {
            guard inString else {
                if byte == UInt8(ascii: "\"") { inString = true }
                return false
            }
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
                return false
            }
            return true
        }
    }

    /// The index of the bracket closing the one at `open`, or nil when it never closes.
    private static func balancedEnd(_ bytes: [UInt8], from open: Int) -> Int? {
        var depth = 0
        var scanner = StringScanner()
        var index = open
        while index < bytes.count {
            let byte = bytes[index]
            let inside = scanner.isContent(byte) || scanner.inString
            // Structure only outside strings; a quote opens or closes one.
            if !inside && byte != UInt8(ascii: "\"") {
                switch byte {
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index }
                    if depth < 0 { return nil }
                default: break
                }
            }
            index += 1
        }
        return nil
    }
}
