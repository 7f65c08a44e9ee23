import Foundation

/// How a corpus file's bytes become its text. Corpus files are untrusted: the text is checked as
/// UTF-8 and cleaned, never interpreted.
///
/// - invalid UTF-8 (overlong forms, surrogates, truncated sequences) is an error naming the byte offset;
/// - a NUL byte is an error: the file is binary, not text;
/// - a leading byte-order mark is removed; CRLF and lone CR become LF; form feed and vertical tab
///   become LF (old page breaks);
/// - every other C0 control except tab and LF, DEL, and the C1 controls U+0080–U+009F are removed.
enum CorpusText {
    enum Failure: Error, Equatable {
        case invalidUTF8(offset: Int)
        case nul(offset: Int)
    }

    /// The cleaned text as UTF-8 bytes, and its length in Unicode scalars.
    static func clean(_ data: Data) throws(Failure) -> (bytes: [UInt8], characters: Int) {
        let result = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Result<(bytes: [UInt8], characters: Int), Failure> in
            Result { () throws(Failure) in try clean(raw.bindMemory(to: UInt8.self)) }
        }
        return try result.get()
    }

    static func clean(_ input: UnsafeBufferPointer<UInt8>) throws(Failure) -> (bytes: [UInt8], characters: Int) {
        var output = [UInt8]()
        output.reserveCapacity(input.count)
        var characters = 0
        let count = input.count
        var i = 0
        if count >= 3, input[0] == 0xEF, input[1] == 0xBB, input[2] == 0xBF { i = 3 }
        while i < count {
            let byte = input[i]
            if byte >= 0x20 && byte < 0x7F {
                output.append(byte)
                characters += 1
                i += 1
                continue
            }
            if byte < 0x80 {
                switch byte {
                case 0x0A, 0x09:
                    output.append(byte)
                    characters += 1
                case 0x0D:
                    output.append(0x0A)
                    characters += 1
                    if i + 1 < count, input[i + 1] == 0x0A { i += 1 }
                case 0x0B, 0x0C:
                    output.append(0x0A)
                    characters += 1
                case 0x00:
                    throw .nul(offset: i)
                default:
                    break  // other controls and DEL: removed
                }
                i += 1
                continue
            }
            let length = sequenceLength(input, at: i)
            guard length > 0 else { throw .invalidUTF8(offset: i) }
            // C1 controls are C2 80 … C2 9F.
            if !(byte == 0xC2 && input[i + 1] < 0xA0) {
                for k in 0..<length { output.append(input[i + k]) }
                characters += 1
            }
            i += length
        }
        return (output, characters)
    }

    /// The length of the valid UTF-8 sequence starting at `i` with a non-ASCII byte, or 0.
    private static func sequenceLength(_ input: UnsafeBufferPointer<UInt8>, at i: Int) -> Int {
        let count = input.count
        let lead = input[i]
        func continuation(_ k: Int) -> Bool { i + k < count && input[i + k] & 0xC0 == 0x80 }
        switch lead {
        case 0xC2...0xDF:
            return continuation(1) ? 2 : 0
        case 0xE0...0xEF:
            guard continuation(1), continuation(2) else { return 0 }
            let second = input[i + 1]
            if lead == 0xE0 && second < 0xA0 { return 0 }  // overlong
            if lead == 0xED && second >= 0xA0 { return 0 }  // surrogate
            return 3
        case 0xF0...0xF4:
            guard continuation(1), continuation(2), continuation(3) else { return 0 }
            let second = input[i + 1]
            if lead == 0xF0 && second < 0x90 { return 0 }  // overlong
            if lead == 0xF4 && second >= 0x90 { return 0 }  // beyond U+10FFFF
            return 4
        default:
            return 0
        }
    }

    /// Unicode scalars in `bytes[range]` (valid UTF-8).
    static func characters(_ bytes: [UInt8], _ range: Range<Int>) -> Int {
        var n = 0
        for i in range where bytes[i] & 0xC0 != 0x80 { n += 1 }
        return n
    }
}
