#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Escaping for XML text and attribute values, on UTF-8 bytes. Runs of plain bytes are copied in
/// bulk; only `& < > "`, control characters and U+FFFE/U+FFFF need attention.
enum XMLBytes {
    /// Per byte: 1 when it needs attention in text, 2 in an attribute value (`& < >`, control
    /// characters, the first byte of U+FFFE/U+FFFF, and `"` in attributes).
    private static let attention: [UInt8] = (0...255).map { b in
        if b < 0x20 || b == 0x26 || b == 0x3C || b == 0x3E || b == 0xEF { return 3 }
        return b == 0x22 ? 2 : 0
    }

    /// Appends `bytes` escaped for XML character data; characters XML 1.0 forbids become U+FFFD.
    static func appendText(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8], attribute: Bool = false) {
        let n = bytes.count
        var runStart = 0
        var i = 0
        let mask: UInt8 = attribute ? 2 : 1
        while i < n {
            let b = bytes[i]
            guard attention[Int(b)] & mask != 0 else {
                i += 1
                continue
            }
            if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
            var width = 1
            switch b {
            case 0x26: append("&amp;", to: &out)
            case 0x3C: append("&lt;", to: &out)
            case 0x3E: append("&gt;", to: &out)
            case 0x22: append("&quot;", to: &out)
            case 0x09: if attribute { append("&#x9;", to: &out) } else { out.append(b) }
            case 0x0A: if attribute { append("&#xA;", to: &out) } else { out.append(b) }
            case 0x0D: if attribute { append("&#xD;", to: &out) } else { out.append(b) }
            case 0xEF:
                // U+FFFE and U+FFFF are not XML characters.
                if i + 2 < n, bytes[i + 1] == 0xBF, bytes[i + 2] == 0xBE || bytes[i + 2] == 0xBF {
                    append("\u{FFFD}", to: &out)
                    width = 3
                } else {
                    out.append(b)
                }
            default: append("\u{FFFD}", to: &out)  // other C0 controls
            }
            i += width
            runStart = i
        }
        if runStart < n { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<n])) }
    }

    static func appendText(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, to out: inout [UInt8], attribute: Bool = false) {
        appendText(UnsafeBufferPointer(rebasing: bytes), to: &out, attribute: attribute)
    }

    static func appendText(_ bytes: [UInt8], to out: inout [UInt8], attribute: Bool = false) {
        bytes.withUnsafeBufferPointer { appendText($0, to: &out, attribute: attribute) }
    }

    static func appendText(_ s: String, to out: inout [UInt8], attribute: Bool = false) {
        var copy = s
        copy.withUTF8 { appendText($0, to: &out, attribute: attribute) }
    }

    /// Appends markup from elsewhere (the TeX converter's MathML) unescaped, except that characters
    /// XML 1.0 forbids become U+FFFD: a stray control character must not fail the whole document.
    static func appendMarkup(_ markup: [UInt8], to out: inout [UInt8]) {
        markup.withUnsafeBufferPointer { bytes in
            let n = bytes.count
            var runStart = 0
            var i = 0
            while i < n {
                let b = bytes[i]
                let forbidden =
                    (b < 0x20 && b != 0x09 && b != 0x0A && b != 0x0D)
                    || (b == 0xEF && i + 2 < n && bytes[i + 1] == 0xBF && (bytes[i + 2] == 0xBE || bytes[i + 2] == 0xBF))
                guard forbidden else {
                    i += 1
                    continue
                }
                if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
                append("\u{FFFD}", to: &out)
                i += b == 0xEF ? 3 : 1
                runStart = i
            }
            if runStart < n { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<n])) }
        }
    }

    @inline(__always)
    static func append(_ s: StaticString, to out: inout [UInt8]) {
        s.withUTF8Buffer { out.append(contentsOf: $0) }
    }
}

extension UnsafeBufferPointer where Element == UInt8 {
    /// The bytes of a NUL-terminated C string (empty for nil).
    static func cString(_ p: UnsafePointer<CChar>?) -> UnsafeBufferPointer<UInt8> {
        guard let p else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: strlen(p))
    }
}
