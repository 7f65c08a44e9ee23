internal import CLibXML2
import Foundation
internal import TeXMath

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a formula goes in the writer's body before sanitizing: `<slot n="3"/>` in a private
/// namespace, which the sanitizer replaces with the converter's MathML as it is.
///
/// Parsing that MathML again only to re-check it cost about a third of rendering. The converter
/// emits only elements and attributes of the sanitizer's allowlist, with generated values and
/// escaped text (`TeXMath` documents this; `TrustedMathMLTests` renders the corpora and the fuzz
/// corpus both ways and compares them byte for byte). Only the writer makes slots (it omits the
/// Markdown's raw HTML), and the sanitizer fills one only outside MathML and only with an index
/// the writer issued.
enum MathSlot {
    static let namespace = "urn:x-lectern:math-slot"

    static func append(index: Int, to out: inout [UInt8]) {
        out.append(contentsOf: "<slot xmlns=\"\(namespace)\" n=\"\(index)\"/>".utf8)
    }

    /// The slot number among a SAX2 element's attributes, if it has one.
    static func index(in attributes: Attributes) -> Int? {
        for attribute in attributes {
            guard strcmp(UnsafeRawPointer(attribute.localName).assumingMemoryBound(to: CChar.self), "n") == 0 else { continue }
            return attribute.withValue { Int(String(decoding: $0, as: UTF8.self)) }
        }
        return nil
    }

    /// XML's end-of-line rule, which a parse would have applied: CR LF and CR become LF.
    static func normalizingLineEnds(_ markup: String) -> String {
        var markup = markup
        let hasReturn = markup.withUTF8 { $0.count > 0 && memchr($0.baseAddress!, 0x0D, $0.count) != nil }
        guard hasReturn else { return markup }
        return markup.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
    }
}

/// Formulas converted once per process: lectures, questions and flashcards repeat their formulas
/// (`x`, `n`, `\frac{1}{2}`), and conversion is the larger part of rendering math. Bounded: a
/// formula longer than 2,000 bytes is not kept, and at 20,000 entries or 32 MB of MathML the
/// cache starts again empty.
final class FormulaCache: @unchecked Sendable {
    static let shared = FormulaCache()

    private struct Key: Hashable {
        var tex: String
        var display: Bool
    }

    private let lock = NSLock()
    private var entries: [Key: MathMLConversion] = [:]
    private var bytes = 0
    private static let capacity = 20_000
    private static let maximumBytes = 32 << 20
    private static let maximumFormulaBytes = 2_000

    func convert(_ tex: String, display: Bool) -> MathMLConversion {
        guard tex.utf8.count <= Self.maximumFormulaBytes else { return TeXMath.convert(tex, display: display) }
        let key = Key(tex: tex, display: display)
        lock.lock()
        let cached = entries[key]
        lock.unlock()
        if let cached { return cached }
        let conversion = TeXMath.convert(tex, display: display)
        let size = conversion.mathML.utf8.count + tex.utf8.count
        lock.lock()
        if entries.count >= Self.capacity || bytes + size > Self.maximumBytes {
            entries.removeAll(keepingCapacity: true)
            bytes = 0
        }
        if entries.updateValue(conversion, forKey: key) == nil { bytes += size }
        lock.unlock()
        return conversion
    }
}
