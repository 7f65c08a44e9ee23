#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Escaping for XML text and attribute values, on UTF-8 bytes.
enum XMLBytes {
    private static let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]  // U+FFFD

    /// Appends `bytes` escaped for XML character data; characters XML 1.0 forbids become U+FFFD.
    @inline(__always)
    static func appendText<C: Collection>(_ bytes: C, to out: inout [UInt8], attribute: Bool = false)
    where C.Element == UInt8, C.Index == Int {
        var i = bytes.startIndex
        let end = bytes.endIndex
        while i < end {
            let b = bytes[i]
            switch b {
            case 0x26: out += [0x26, 0x61, 0x6D, 0x70, 0x3B]  // &amp;
            case 0x3C: out += [0x26, 0x6C, 0x74, 0x3B]  // &lt;
            case 0x3E: out += [0x26, 0x67, 0x74, 0x3B]  // &gt;
            case 0x22 where attribute: out += [0x26, 0x71, 0x75, 0x6F, 0x74, 0x3B]  // &quot;
            case 0x09, 0x0A, 0x0D:
                if attribute {
                    out += [0x26, 0x23, 0x78, b < 0x0A ? 0x39 : (b == 0x0A ? 0x41 : 0x44), 0x3B]  // &#x9; &#xA; &#xD;
                } else {
                    out.append(b)
                }
            case 0x00..<0x20: out += replacement
            case 0xEF:
                // U+FFFE and U+FFFF are not XML characters.
                if i + 2 < end, bytes[i + 1] == 0xBF, bytes[i + 2] == 0xBE || bytes[i + 2] == 0xBF {
                    out += replacement
                    i += 3
                    continue
                }
                out.append(b)
            default: out.append(b)
            }
            i += 1
        }
    }

    static func appendText(_ s: String, to out: inout [UInt8], attribute: Bool = false) {
        var copy = s
        copy.withUTF8 { appendText($0, to: &out, attribute: attribute) }
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
