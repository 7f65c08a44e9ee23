/// `{{name}}` substitution for prompt templates and scripted answers. A byte-level scan: it
/// runs once per prompt, and Foundation's string searching costs more than the rest of an item.
public enum Placeholders {
    /// `text` with every `{{name}}` replaced by `values[name]`; unknown names are left as they are.
    public static func fill(_ text: String, _ values: [String: String]) -> String {
        let bytes = Array(text.utf8)
        guard bytes.count >= 4 else { return text }
        var out = [UInt8]()
        out.reserveCapacity(bytes.count + 256)
        var i = 0
        let open = UInt8(ascii: "{"), close = UInt8(ascii: "}")
        while i < bytes.count {
            if bytes[i] == open, i + 1 < bytes.count, bytes[i + 1] == open {
                var j = i + 2
                while j + 1 < bytes.count, !(bytes[j] == close && bytes[j + 1] == close), bytes[j] != open { j += 1 }
                if j + 1 < bytes.count, bytes[j] == close, bytes[j + 1] == close,
                    let value = values[String(decoding: bytes[(i + 2)..<j], as: UTF8.self)]
                {
                    out.append(contentsOf: value.utf8)
                    i = j + 2
                    continue
                }
            }
            out.append(bytes[i])
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
