/// Lower-case hexadecimal text of bytes (digests, keys). `String(format: "%02x")` per byte goes
/// through Foundation's formatter and was a fifth of a quote corpus's start-up.
public enum HexText {
    static let digits = Array("0123456789abcdef".utf8)

    public static func lowercase(_ bytes: some Sequence<UInt8>, separator: String = "") -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * (2 + separator.utf8.count))
        for byte in bytes {
            if !out.isEmpty { out.append(contentsOf: separator.utf8) }
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
