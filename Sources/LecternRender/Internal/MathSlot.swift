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
    static func index(in attributes: SAXAttributes) -> Int? {
        for attribute in attributes {
            guard strcmp(UnsafeRawPointer(attribute.localName).assumingMemoryBound(to: CChar.self), "n") == 0 else { continue }
            return attribute.withValue { Int(String(decoding: $0, as: UTF8.self)) }
        }
        return nil
    }

    /// XML's end-of-line rule, which a parse would have applied: CR LF and CR become LF.
    static func normalizingLineEnds(_ markup: [UInt8]) -> [UInt8] {
        let hasReturn = markup.withUnsafeBufferPointer { $0.count > 0 && memchr($0.baseAddress!, 0x0D, $0.count) != nil }
        guard hasReturn else { return markup }
        var normalized: [UInt8] = []
        normalized.reserveCapacity(markup.count)
        var i = 0
        while i < markup.count {
            if markup[i] == 0x0D {
                normalized.append(0x0A)
                if i + 1 < markup.count, markup[i + 1] == 0x0A { i += 1 }
            } else {
                normalized.append(markup[i])
            }
            i += 1
        }
        return normalized
    }
}

/// One formula converted: its MathML as UTF-8 and the converter's warnings.
struct FormulaConversion: Sendable {
    var mathML: [UInt8]
    var warnings: [String]
}

/// Formulas converted once per process: lectures, questions and flashcards repeat their formulas,
/// and a formula beyond the common kind (tables, fonts, macros, text) costs tens of microseconds
/// to convert. The common ones (`x`, `\frac{1}{2}`, `\sum_{i=1}^n i`) are written in one pass
/// in about the time a lookup takes, so they are not kept. Bounded: a formula longer than 2,000
/// bytes is not kept, and at 20,000 entries or 32 MB of MathML the cache starts again empty.
final class FormulaCache: @unchecked Sendable {
    static let shared = FormulaCache()

    private struct Key: Hashable {
        var tex: String
        var display: Bool
    }

    private let lock = NSLock()
    private var entries: [Key: FormulaConversion] = [:]
    private var bytes = 0
    private static let capacity = 20_000
    private static let maximumBytes = 32 << 20
    private static let maximumFormulaBytes = 2_000

    func convert(_ tex: String, display: Bool) -> FormulaConversion {
        // A common formula is written in one pass, in about the time a lookup takes: not kept.
        if let mathML = TeXMath.convertCommonToUTF8(tex, display: display) { return FormulaConversion(mathML: mathML, warnings: []) }
        guard tex.utf8.count <= Self.maximumFormulaBytes else { return Self.conversion(tex, display: display) }
        let key = Key(tex: tex, display: display)
        lock.lock()
        let cached = entries[key]
        lock.unlock()
        if let cached { return cached }
        let conversion = Self.conversion(tex, display: display)
        let size = conversion.mathML.count + tex.utf8.count
        lock.lock()
        if entries.count >= Self.capacity || bytes + size > Self.maximumBytes {
            entries.removeAll(keepingCapacity: true)
            bytes = 0
        }
        if entries.updateValue(conversion, forKey: key) == nil { bytes += size }
        lock.unlock()
        return conversion
    }

    private static func conversion(_ tex: String, display: Bool) -> FormulaConversion {
        let result = TeXMath.convertToUTF8(tex, display: display)
        return FormulaConversion(mathML: result.mathML, warnings: result.warnings)
    }
}
