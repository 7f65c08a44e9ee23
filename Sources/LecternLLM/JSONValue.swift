import Foundation

/// A JSON value: schemas, model answers before they are decoded, canonical cache keys.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// A number that is a whole number in `Int`'s range.
    public var intValue: Int? {
        guard case .number(let n) = self, n == n.rounded(), abs(n) < 9e15 else { return nil }
        return Int(n)
    }

    /// Parses JSON text. Throws `DecodingError` with the reason when it is not JSON.
    public static func parse(_ text: String) throws -> JSONValue {
        // Objects and arrays through the byte-level reader; anything it does not take (scalars
        // at the top, malformed text) through JSONDecoder, for its rules and its error message.
        if let value = FastJSON.parse(text) { return value }
        return try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    /// An object or array of strictly RFC 8259 JSON read by the byte-level reader, or nil for
    /// anything it does not take — a scalar at the top, malformed text, a key given twice (which
    /// `JSONDecoder` reads as its first value and `JSONSerialization` as its last): for a caller
    /// that must agree with Foundation's reading wherever the two could differ.
    public static func parseStrict(_ text: String) -> JSONValue? {
        FastJSON.parse(text)
    }

    /// Canonical text: object keys sorted, no insignificant white space, integers without a
    /// fraction. Two equal values always give the same bytes, which is what cache keys need.
    public var canonicalText: String {
        var out: [UInt8] = []
        Self.writeCanonical(self, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Canonical text, except that a JSON Schema's `properties` are written in the order of its
    /// `required` list (other keys after them, sorted). Constrained decoders (llama.cpp's grammar,
    /// OpenAI's structured output) make the model write keys in the order of `properties`, and
    /// that order matters to what a model writes: the question before its answers, not after.
    /// Used for request bodies and for schemas shown in prompts; still deterministic.
    public var schemaOrderedText: String {
        var out: [UInt8] = []
        Self.writeCanonical(self, into: &out, schemaOrder: true)
        return String(decoding: out, as: UTF8.self)
    }

    private static func sortedKeys(_ object: [String: JSONValue]) -> [String] {
        // Sort by UTF-8 bytes so the order does not depend on locale or Unicode collation.
        object.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    }

    /// Written as UTF-8 bytes: every request's canonical text (its cache key) passes here, and
    /// appending to a String scalar by scalar made it a twentieth of a large run's CPU.
    private static func writeCanonical(_ value: JSONValue, into out: inout [UInt8], schemaOrder: Bool = false, keyOrder: [String]? = nil) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: formatNumber(n).utf8)
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                writeCanonical(item, into: &out, schemaOrder: schemaOrder)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            var keys = sortedKeys(object)
            if let keyOrder {
                let first = keyOrder.filter { object[$0] != nil }
                keys = first + keys.filter { !first.contains($0) }
            }
            // The order of a schema's properties: its required list.
            var propertyOrder: [String]?
            if schemaOrder, case .object? = object["properties"], let required = object["required"]?.arrayValue {
                propertyOrder = required.compactMap(\.stringValue)
            }
            for (i, key) in keys.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                writeCanonical(object[key] ?? .null, into: &out, schemaOrder: schemaOrder, keyOrder: key == "properties" ? propertyOrder : nil)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func formatNumber(_ n: Double) -> String {
        guard n.isFinite else { return "null" }
        if n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
        return "\(n)"
    }

    /// A JSON string: `"`, `\` and the control characters escaped (`\n`, `\r`, `\t`, else
    /// `\u00XX`), every other byte as it is. The bytes that need escaping are ASCII, so they
    /// never fall inside a multi-byte character.
    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            var runStart = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                runStart = index + 1
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
                case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
                case UInt8(ascii: "\n"): out.append(contentsOf: "\\n".utf8)
                case UInt8(ascii: "\r"): out.append(contentsOf: "\\r".utf8)
                case UInt8(ascii: "\t"): out.append(contentsOf: "\\t".utf8)
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: "\\u00".utf8)
                    out.append(hex[Int(byte >> 4)])
                    out.append(hex[Int(byte & 0xF)])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension JSONValue: Codable {
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let b = try? container.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? container.decode(Double.self) {
            self = .number(n)
        } else if let s = try? container.decode(String.self) {
            self = .string(s)
        } else if let a = try? container.decode([JSONValue].self) {
            self = .array(a)
        } else if let o = try? container.decode([String: JSONValue].self) {
            self = .object(o)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let b): try container.encode(b)
        case .number(let n):
            if n == n.rounded(), abs(n) < 1e15 { try container.encode(Int64(n)) } else { try container.encode(n) }
        case .string(let s): try container.encode(s)
        case .array(let a): try container.encode(a)
        case .object(let o): try container.encode(o)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
