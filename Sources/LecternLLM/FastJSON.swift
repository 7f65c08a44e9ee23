/// A byte-level JSON reader for `JSONValue.parse`. Decoding `JSONValue` through `JSONDecoder`
/// tries each type in turn and throws on every miss; a streamed answer's hundreds of small
/// chunks spent most of a call's CPU there. This reader accepts exactly RFC 8259 objects and
/// arrays (the top level of everything Lectern parses) and returns nil for anything else — a
/// scalar at the top, a lone surrogate, a control character in a string, a number out of range,
/// nesting deeper than 512 — so the caller falls back to `JSONDecoder` and its error message.
enum FastJSON {
    static let maxDepth = 512

    static func parse(_ text: String) -> JSONValue? {
        var copy = text
        return copy.withUTF8 { bytes -> JSONValue? in
            var reader = Reader(bytes: bytes)
            reader.skipSpace()
            guard reader.position < bytes.count, bytes[reader.position] == UInt8(ascii: "{") || bytes[reader.position] == UInt8(ascii: "[") else {
                return nil
            }
            guard let value = reader.value(depth: 0) else { return nil }
            reader.skipSpace()
            return reader.position == bytes.count ? value : nil
        }
    }

    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        mutating func skipSpace() {
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x09, 0x0A, 0x0D: position += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) -> JSONValue? {
            guard depth < FastJSON.maxDepth, position < bytes.count else { return nil }
            switch bytes[position] {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string().map(JSONValue.string)
            case UInt8(ascii: "t"): return literal("true", .bool(true))
            case UInt8(ascii: "f"): return literal("false", .bool(false))
            case UInt8(ascii: "n"): return literal("null", .null)
            default: return number()
            }
        }

        mutating func literal(_ word: StaticString, _ value: JSONValue) -> JSONValue? {
            let count = word.utf8CodeUnitCount
            guard position + count <= bytes.count else { return nil }
            for i in 0..<count where bytes[position + i] != word.utf8Start[i] { return nil }
            position += count
            return value
        }

        mutating func object(depth: Int) -> JSONValue? {
            position += 1  // {
            var members: [String: JSONValue] = [:]
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\""), let key = string() else { return nil }
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return nil }
                position += 1
                skipSpace()
                // A key given twice: left to JSONDecoder, whose rule then applies.
                guard let member = value(depth: depth + 1), members.updateValue(member, forKey: key) == nil else { return nil }
                skipSpace()
                guard position < bytes.count else { return nil }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                    continue
                }
                guard bytes[position] == UInt8(ascii: "}") else { return nil }
                position += 1
                return .object(members)
            }
        }

        mutating func array(depth: Int) -> JSONValue? {
            position += 1  // [
            var elements: [JSONValue] = []
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(elements)
            }
            while true {
                skipSpace()
                guard let element = value(depth: depth + 1) else { return nil }
                elements.append(element)
                skipSpace()
                guard position < bytes.count else { return nil }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                    continue
                }
                guard bytes[position] == UInt8(ascii: "]") else { return nil }
                position += 1
                return .array(elements)
            }
        }

        /// A string literal at `position` (its opening quote), unescaped.
        mutating func string() -> String? {
            position += 1  // "
            let start = position
            // The common case: no escape, so the bytes are the string.
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                    position += 1
                    return text
                }
                if byte == UInt8(ascii: "\\") { break }
                if byte < 0x20 { return nil }
                position += 1
            }
            var out = Array(UnsafeBufferPointer(rebasing: bytes[start..<position]))
            while position < bytes.count {
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: "\""):
                    position += 1
                    return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    position += 1
                    guard position < bytes.count else { return nil }
                    let escape = bytes[position]
                    position += 1
                    switch escape {
                    case UInt8(ascii: "\""): out.append(0x22)
                    case UInt8(ascii: "\\"): out.append(0x5C)
                    case UInt8(ascii: "/"): out.append(0x2F)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        guard var scalar = hex4() else { return nil }
                        if (0xD800...0xDBFF).contains(scalar) {
                            // A high surrogate must be followed by an escaped low one.
                            guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else { return nil }
                            position += 2
                            guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00...0xDFFF).contains(scalar) {
                            return nil
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { return nil }
                        out.append(contentsOf: Array(String(Character(unicode)).utf8))
                    default: return nil
                    }
                default:
                    if byte < 0x20 { return nil }
                    out.append(byte)
                    position += 1
                }
            }
            return nil
        }

        mutating func hex4() -> UInt32? {
            guard position + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[position]
                let digit: UInt32
                switch byte {
                case 0x30...0x39: digit = UInt32(byte - 0x30)
                case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
                case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
                default: return nil
                }
                value = value << 4 | digit
                position += 1
            }
            return value
        }

        /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, as the nearest Double (finite only).
        mutating func number() -> JSONValue? {
            let start = position
            if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < bytes.count else { return nil }
            if bytes[position] == UInt8(ascii: "0") {
                position += 1
            } else if (0x31...0x39).contains(bytes[position]) {
                while position < bytes.count, (0x30...0x39).contains(bytes[position]) { position += 1 }
            } else {
                return nil
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                position += 1
                let digits = position
                while position < bytes.count, (0x30...0x39).contains(bytes[position]) { position += 1 }
                guard position > digits else { return nil }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
                let digits = position
                while position < bytes.count, (0x30...0x39).contains(bytes[position]) { position += 1 }
                guard position > digits else { return nil }
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            guard let number = Double(text), number.isFinite else { return nil }
            return .number(number)
        }
    }
}
