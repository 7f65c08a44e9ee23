import Crypto
import Foundation
import LecternLLM

/// SHA-256 helpers used for spec hashes, cache keys and manifests.
public enum SHA256Digest {
    public static func hex(_ data: Data) -> String {
        HexText.lowercase(SHA256.hash(data: data))
    }

    public static func hex(_ text: String) -> String {
        hex(Data(text.utf8))
    }
}

/// JSON encoding with stable bytes: sorted keys, no escaped slashes, pretty-printed for humans
/// where asked. Used for every file Lectern writes, so identical content gives identical bytes.
public enum CanonicalJSON {
    public static func encode<T: Encodable>(_ value: T, pretty: Bool = false) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(value)
        if pretty { data.append(0x0A) }
        return data
    }

    public static func string<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try encode(value), as: UTF8.self)
    }
}
