import Foundation

/// A ZIP archive of stored (uncompressed) entries, written deterministically and read
/// defensively: what `lectern package` writes and `lectern verify` reads.
///
/// Deterministic: entries sorted by name, every date 1980-01-01 00:00, permissions 0644, no extra
/// fields, so the same files give the same bytes. Stored rather than deflated: the bundle's
/// documents are small and the marketplace compresses transfers; any unzip reads it.
/// The reader takes untrusted archives: it walks the central directory with bounds checks,
/// refuses compression, encryption, ZIP64, data descriptors, duplicate or unsafe names, and
/// checks every entry's CRC-32 and its local header against the central one.
public enum StoredZip {
    public static let maxEntries = 100_000
    public static let maxArchiveBytes = 2 << 30

    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    // MARK: Writing

    /// The archive of `entries` (name → bytes), names sorted.
    public static func write(_ entries: [String: Data]) -> Data {
        write(ordered: entries.keys.sorted().map { ($0, entries[$0]!) })
    }

    /// The archive of `entries` in the order given (EPUB's `mimetype` must come first).
    public static func write(ordered entries: [(name: String, data: Data)]) -> Data {
        var out = Data()
        var central = Data()
        let names = entries.map(\.name)
        for (name, data) in entries {
            let nameBytes = Data(name.utf8)
            let crc = CRC32.checksum(data)
            let offset = UInt32(out.count)
            // Local file header.
            out.appendLE(UInt32(0x0403_4b50))
            out.appendLE(UInt16(20))  // version needed
            out.appendLE(UInt16(0x0800))  // flags: UTF-8 names
            out.appendLE(UInt16(0))  // stored
            out.appendLE(UInt16(0))  // time 00:00
            out.appendLE(UInt16(0x0021))  // date 1980-01-01
            out.appendLE(crc)
            out.appendLE(UInt32(data.count))
            out.appendLE(UInt32(data.count))
            out.appendLE(UInt16(nameBytes.count))
            out.appendLE(UInt16(0))
            out.append(nameBytes)
            out.append(data)
            // Central directory header.
            central.appendLE(UInt32(0x0201_4b50))
            central.appendLE(UInt16(0x0314))  // made by: Unix, 2.0
            central.appendLE(UInt16(20))
            central.appendLE(UInt16(0x0800))
            central.appendLE(UInt16(0))
            central.appendLE(UInt16(0))
            central.appendLE(UInt16(0x0021))
            central.appendLE(crc)
            central.appendLE(UInt32(data.count))
            central.appendLE(UInt32(data.count))
            central.appendLE(UInt16(nameBytes.count))
            central.appendLE(UInt16(0))  // extra
            central.appendLE(UInt16(0))  // comment
            central.appendLE(UInt16(0))  // disk
            central.appendLE(UInt16(0))  // internal attributes
            central.appendLE(UInt32(0o100644) << 16)  // regular file, rw-r--r--
            central.appendLE(offset)
            central.append(nameBytes)
        }
        let centralOffset = UInt32(out.count)
        out.append(central)
        out.appendLE(UInt32(0x0605_4b50))
        out.appendLE(UInt16(0))
        out.appendLE(UInt16(0))
        out.appendLE(UInt16(names.count))
        out.appendLE(UInt16(names.count))
        out.appendLE(UInt32(central.count))
        out.appendLE(centralOffset)
        out.appendLE(UInt16(0))
        return out
    }

    // MARK: Reading

    /// The entries of `archive` (name → bytes), or a failure saying what is wrong with it.
    ///
    /// Every byte must belong to the archive the central directory describes, laid out as
    /// `write` lays it out: the first local header at offset 0, each entry's header and data
    /// right after the one before (no gap, no overlap), the central directory right after the
    /// last entry, and the end record ending the file (no comment). Otherwise a reader that
    /// streams local headers (from the front) and one that reads the central directory (from
    /// the back) could see different files — an unsigned archive prepended to a signed one, or
    /// bytes appended after it, would verify while a streaming reader unpacked something else.
    public static func read(_ archive: Data) throws -> [String: Data] {
        let bytes = [UInt8](archive)
        guard bytes.count <= maxArchiveBytes else { throw Failure("the archive is larger than \(maxArchiveBytes >> 30) GiB") }
        guard bytes.count >= 22 else { throw Failure("it is not a ZIP archive (too short)") }
        // The end-of-central-directory record: the last 22 bytes, with no comment after it.
        let eocd = bytes.count - 22
        guard bytes.u32(eocd) == 0x0605_4b50 else {
            let found = (max(0, bytes.count - 22 - 65_535)...eocd).reversed().first { bytes.u32($0) == 0x0605_4b50 }
            throw Failure(
                found.map { "\(bytes.count - $0 - 22) bytes follow its end of central directory (a package ends with it)" }
                    ?? "it is not a ZIP archive (no end of central directory)")
        }
        let count = Int(bytes.u16(eocd + 10))
        let centralSize = Int(bytes.u32(eocd + 12))
        let centralOffset = Int(bytes.u32(eocd + 16))
        guard bytes.u16(eocd + 4) == 0, bytes.u16(eocd + 6) == 0, Int(bytes.u16(eocd + 8)) == count else {
            throw Failure("multi-part archives are not supported")
        }
        guard bytes.u16(eocd + 20) == 0 else { throw Failure("its end record announces a comment") }
        guard count <= maxEntries else { throw Failure("it has more than \(maxEntries) entries") }
        guard centralOffset <= eocd, centralSize <= eocd - centralOffset else { throw Failure("its central directory lies outside the archive") }
        guard centralOffset + centralSize == eocd else {
            throw Failure("\(eocd - centralOffset - centralSize) bytes lie between its central directory and its end record")
        }
        var entries: [String: Data] = [:]
        /// Where each entry's local header starts and its data ends, to check the layout.
        var spans: [(start: Int, end: Int, name: String)] = []
        var position = centralOffset
        for _ in 0..<count {
            guard position + 46 <= eocd, bytes.u32(position) == 0x0201_4b50 else { throw Failure("its central directory is damaged") }
            let flags = bytes.u16(position + 8)
            let method = bytes.u16(position + 10)
            let crc = bytes.u32(position + 16)
            let compressed = Int(bytes.u32(position + 20))
            let size = Int(bytes.u32(position + 24))
            let nameLength = Int(bytes.u16(position + 28))
            let extraLength = Int(bytes.u16(position + 30))
            let commentLength = Int(bytes.u16(position + 32))
            let localOffset = Int(bytes.u32(position + 42))
            let nameStart = position + 46
            guard nameStart + nameLength + extraLength + commentLength <= eocd else { throw Failure("its central directory is damaged") }
            guard let name = String(bytes: bytes[nameStart..<(nameStart + nameLength)], encoding: .utf8) else {
                throw Failure("an entry name is not UTF-8")
            }
            position = nameStart + nameLength + extraLength + commentLength
            guard flags & 0x0001 == 0 else { throw Failure("\(name): encrypted entries are not supported") }
            guard flags & 0x0008 == 0 else { throw Failure("\(name): data descriptors are not supported") }
            guard method == 0 else { throw Failure("\(name): compressed entries are not supported (Lectern packages store their files)") }
            guard compressed == size, size != 0xFFFF_FFFF, localOffset != 0xFFFF_FFFF else { throw Failure("\(name): ZIP64 entries are not supported") }
            guard !name.hasSuffix("/"), BundleWriter.isSafeRelativePath(name), !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw Failure("\(name): not a safe relative file name")
            }
            guard entries[name] == nil else { throw Failure("\(name) appears twice") }
            // The local header must agree with the central one, field by field.
            guard localOffset + 30 <= centralOffset, bytes.u32(localOffset) == 0x0403_4b50 else { throw Failure("\(name): its local header is missing") }
            let localNameLength = Int(bytes.u16(localOffset + 26))
            let localExtraLength = Int(bytes.u16(localOffset + 28))
            let dataStart = localOffset + 30 + localNameLength + localExtraLength
            guard bytes.u16(localOffset + 6) == flags, bytes.u16(localOffset + 8) == method, bytes.u32(localOffset + 14) == crc,
                Int(bytes.u32(localOffset + 18)) == compressed, Int(bytes.u32(localOffset + 22)) == size,
                localNameLength == nameLength, localOffset + 30 + nameLength <= bytes.count,
                bytes[(localOffset + 30)..<(localOffset + 30 + nameLength)].elementsEqual(bytes[nameStart..<(nameStart + nameLength)])
            else { throw Failure("\(name): its local header disagrees with the central directory") }
            guard dataStart + size <= centralOffset else { throw Failure("\(name): its data lies outside the archive") }
            let data = Data(bytes[dataStart..<(dataStart + size)])
            guard CRC32.checksum(data) == crc else { throw Failure("\(name): its CRC-32 does not match (the archive is damaged)") }
            entries[name] = data
            spans.append((localOffset, dataStart + size, name))
        }
        guard position == eocd else { throw Failure("its central directory holds more than its \(count) entries") }
        // Entries back to back from offset 0 to the central directory: no byte the central
        // directory does not account for.
        var expected = 0
        for span in spans.sorted(by: { $0.start < $1.start }) {
            guard span.start == expected else {
                throw Failure(
                    span.start > expected
                        ? "\(span.start - expected) bytes before \(span.name) belong to no entry (the first entry must start the file)"
                        : "\(span.name) overlaps the entry before it")
            }
            expected = span.end
        }
        guard expected == centralOffset else { throw Failure("\(centralOffset - expected) bytes before its central directory belong to no entry") }
        return entries
    }
}

/// CRC-32 (IEEE 802.3), as ZIP uses it.
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        data.withUnsafeBytes { raw in
            for byte in raw.bindMemory(to: UInt8.self) { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        return crc ^ 0xFFFF_FFFF
    }
}

extension Data {
    fileprivate mutating func appendLE(_ value: UInt16) { Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) } }
    fileprivate mutating func appendLE(_ value: UInt32) { Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) } }
}

extension Array where Element == UInt8 {
    fileprivate func u16(_ i: Int) -> UInt16 { i + 2 <= count ? UInt16(self[i]) | UInt16(self[i + 1]) << 8 : 0 }
    fileprivate func u32(_ i: Int) -> UInt32 { i + 4 <= count ? UInt32(u16(i)) | UInt32(u16(i + 2)) << 16 : 0 }
}
