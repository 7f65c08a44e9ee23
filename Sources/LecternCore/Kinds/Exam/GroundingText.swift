import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The form in which a source quote is compared with the corpus: "after Unicode normalization".
///
/// A quote is grounded when its normalized words occur, in order and on word boundaries, in the
/// normalized text of the cited document. Normalization is lenient with what a model changes when
/// it re-types a sentence — letter case, accents and Arabic harakat, quote marks, dashes and other
/// punctuation, Markdown markup, white space — and keeps what makes a sentence a different one: its
/// letters, digits and symbols, in order.
///
/// The steps, in order:
/// 1. NFKD (compatibility decomposition: ligatures, full-width and Arabic presentation forms to their
///    base letters; accented letters and أ إ آ ؤ ئ to a base letter plus a mark);
/// 2. lower case (`ß` → `ss`);
/// 3. removed: combining marks (accents, harakat U+064B–U+065F, superscript alef U+0670, hamza
///    marks, Quranic signs), format characters (zero-width joiners and spaces, bidi controls, soft
///    hyphen, BOM) and tatweel U+0640;
/// 4. Arabic letters unified: alef forms أ إ آ ٱ → ا (by steps 1 and 3, and ٱ explicitly), ى and
///    Persian ی → ي, ة → ه, Persian ک → ك; Arabic-Indic and Persian digits → 0–9;
/// 5. every punctuation mark (quotes, apostrophes, dashes, `* _ # [ ] ( )`, Arabic ، ؛ ؟), control
///    and space character becomes a word break, as do `` ` $ | ~ > `` (Markdown and TeX markup: a
///    blockquote's `>` must not stand between two quoted lines); a Markdown link's target `](…)`
///    is dropped;
/// 6. other symbols (`+ = < ^ × ÷ ° €` …) stay, each as a word of its own, so `2+3` equals `2 + 3`;
/// 7. words are joined by one space, with none at either end.
public enum GroundingText {
    /// A quote shorter than this many words proves nothing.
    public static let minimumQuoteWords = 3
    /// Nor does one shorter than this many characters (normalized, spaces included).
    public static let minimumQuoteCharacters = 20

    /// The normalized form of `text` (see the type's documentation).
    public static func normalize(_ text: String) -> String {
        String(decoding: normalizedUTF8(text), as: UTF8.self)
    }

    /// Whether `quote`, normalized, occurs on word boundaries in `text`, normalized. No minimum
    /// length: use `ExamCorpus.contains(quote:inDocument:)` to check a source quote.
    public static func contains(_ quote: String, in text: String) -> Bool {
        let needle = normalizedUTF8(quote)
        guard !needle.isEmpty else { return false }
        return occurs(needle, inPadded: padded(normalizedUTF8(text)))
    }

    /// The words a model puts before a quote to introduce it ("The passage states that …", "It
    /// stated that …", "According to the text, …"), at the start of the quote, in any letter case.
    nonisolated(unsafe) static let leadIn =
        /(?i)^\s*((the (passage|text|article|author|source)|it) (states?|stated|says|said|mentions?|mentioned|explains?|explained|notes?|noted|reads)\b( that\b)?|according to the (passage|text|article|source)|as (the passage|the text|it) (says|states|puts it))\s*[,:;–-]?\s*/

    /// `quote` without a lead-in and the quote marks around what follows it ("The passage states
    /// that 'X'" → "X"), or nil when it has no lead-in. Only the framing goes: what remains must
    /// still be found in the source for the quote to count.
    public static func withoutLeadIn(_ quote: String) -> String? {
        guard let match = quote.firstMatch(of: Self.leadIn) else { return nil }
        var rest = quote[match.range.upperBound...]
        let marks = CharacterSet(charactersIn: "\"'“”‘’«» \n\t")
        while let first = rest.unicodeScalars.first, marks.contains(first) { rest = rest.dropFirst() }
        while let last = rest.unicodeScalars.last, marks.contains(last) { rest = rest.dropLast() }
        return rest.isEmpty ? nil : String(rest)
    }

    /// The sentence of `sentences` that shares the most words with `quote`, when it holds at least
    /// half of the quote's distinct words (normalized; words of three letters or more, and numbers)
    /// and at least three of them: what a model that re-typed a sentence from memory most likely
    /// meant, for a repair message to point at. Nil when no sentence is that close.
    public static func closestSentence(to quote: String, among sentences: [String]) -> String? {
        func words(_ text: String) -> Set<Substring> {
            Set(normalize(text).split(separator: " ").filter { $0.count >= 3 || $0.allSatisfy(\.isNumber) })
        }
        let wanted = words(quote)
        guard !wanted.isEmpty else { return nil }
        var best: (sentence: String, shared: Int)?
        for sentence in sentences {
            let shared = wanted.intersection(words(sentence)).count
            if shared > (best?.shared ?? 0) { best = (sentence, shared) }
        }
        guard let best, best.shared >= 3, best.shared * 2 >= wanted.count else { return nil }
        return best.sentence
    }

    /// The sentence of `sentences` that `quote` copies with one word wrong (two in a quote of 16
    /// words or more): the same words in the same order but for one changed, added or left out,
    /// over the whole sentence. The local model's passage-1 reading set cited "Several exploration
    /// expeditions were achieved in the early 20th century, but the area saw little human
    /// activity." for the passage's 'Several exploration "firsts" were achieved …' in three
    /// attempts in a row, each time shown the sentence to copy. A quote of fewer than 8 words, or
    /// one that differs more, is nil: it is asked again.
    public static func misTypedSentence(_ quote: String, among sentences: [String]) -> String? {
        let wanted = normalize(quote).split(separator: " ")
        guard wanted.count >= 8 else { return nil }
        let allowed = wanted.count >= 16 ? 2 : 1
        for sentence in sentences {
            let words = normalize(sentence).split(separator: " ")
            guard abs(words.count - wanted.count) <= allowed, wordDistance(wanted, words, limit: allowed) <= allowed else { continue }
            return sentence
        }
        return nil
    }

    /// The word-level edit distance of `a` and `b` (changes, additions, deletions), or `limit + 1`
    /// once it is certain to exceed `limit`.
    static func wordDistance(_ a: [Substring], _ b: [Substring], limit: Int) -> Int {
        var previous = Array(0...b.count)
        for (i, word) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for j in b.indices {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (word == b[j] ? 0 : 1))
            }
            if current.min()! > limit { return limit + 1 }
            previous = current
        }
        return previous[b.count]
    }

    /// The normalized text as UTF-8 bytes.
    static func normalizedUTF8(_ text: String) -> [UInt8] {
        var output = Normalizer()
        output.bytes.reserveCapacity(text.utf8.count)
        // NFKD scalar by scalar: the marks it would reorder are all dropped, so decomposing each
        // scalar alone gives the same result. ASCII and the Arabic letters and harakat have no
        // decomposition; any other scalar is decomposed by Foundation once per text.
        var decompositions: [UInt32: [Unicode.Scalar]] = [:]
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value < 0x80 || (0x0600...0x0621).contains(value) || (0x0627...0x0674).contains(value) || (0x0679...0x06BF).contains(value) {
                output.take(scalar)
            } else if let known = decompositions[value] {
                for part in known { output.take(part) }
            } else {
                let parts = Array(String(Character(scalar)).decomposedStringWithCompatibilityMapping.unicodeScalars)
                decompositions[value] = parts
                for part in parts { output.take(part) }
            }
        }
        return output.bytes
    }

    /// `bytes` with one space on each side, so a match can be checked for word boundaries by
    /// searching for the needle with a space on each side.
    static func padded(_ bytes: [UInt8]) -> [UInt8] {
        var result = [UInt8]()
        result.reserveCapacity(bytes.count + 2)
        result.append(0x20)
        result.append(contentsOf: bytes)
        result.append(0x20)
        return result
    }

    /// Whether the normalized `needle` occurs as whole words in `haystack` (built by `padded`).
    static func occurs(_ needle: [UInt8], inPadded haystack: [UInt8]) -> Bool {
        let pattern = padded(needle)
        let m = pattern.count
        let n = haystack.count
        guard m >= 3, m <= n else { return false }
        return haystack.withUnsafeBytes { hay in
            pattern.withUnsafeBytes { pat in
                guard let h = hay.baseAddress, let p = pat.baseAddress else { return false }
                // Find the needle's first byte with memchr, then compare the whole padded pattern.
                let first = Int32(pat[1])
                var i = 1
                while i + m - 1 <= n {
                    guard let found = memchr(h + i, first, n - i - (m - 2)) else { return false }
                    let j = h.distance(to: UnsafeRawPointer(found))
                    if memcmp(h + j - 1, p, m) == 0 { return true }
                    i = j + 1
                }
                return false
            }
        }
    }

    /// Words and characters of a normalized text.
    static func measure(_ normalized: [UInt8]) -> (words: Int, characters: Int) {
        guard !normalized.isEmpty else { return (0, 0) }
        var words = 1
        var characters = 0
        for byte in normalized {
            if byte == 0x20 { words += 1 }
            if byte & 0xC0 != 0x80 { characters += 1 }
        }
        return (words, characters)
    }
}

/// The scalar-by-scalar part of `GroundingText.normalize`, over text already in NFKD.
private struct Normalizer {
    var bytes: [UInt8] = []
    /// A word break is due before the next character written.
    private var pendingSpace = false
    /// A `]` was just seen: a `(` now opens a link target to skip.
    private var afterBracket = false
    /// Inside a link target, which ends at `)`, a space or a line break. Bounded, so an unclosed
    /// `](` cannot swallow a document.
    private var linkTargetRemaining = 0

    mutating func take(_ scalar: Unicode.Scalar) {
        let value = scalar.value
        if linkTargetRemaining > 0 {
            linkTargetRemaining -= 1
            if value == 0x29 || value == 0x20 || value == 0x0A { linkTargetRemaining = 0 }
            return
        }
        if afterBracket {
            afterBracket = false
            if value == 0x28 {  // `](`: a Markdown link's target
                linkTargetRemaining = 2_048
                return
            }
        }
        if value < 0x80 {
            takeASCII(UInt8(truncatingIfNeeded: value))
        } else {
            takeNonASCII(scalar)
        }
    }

    private mutating func takeASCII(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            write(byte)
        case UInt8(ascii: "A")...UInt8(ascii: "Z"):
            write(byte | 0x20)
        case UInt8(ascii: "]"):
            afterBracket = true
            brk()
        case UInt8(ascii: "+"), UInt8(ascii: "="), UInt8(ascii: "<"), UInt8(ascii: "^"):
            brk()
            write(byte)
            brk()
        default:
            // Punctuation (`!"#%&'()*,-./:;?@[\_{}`), markup (`` ` $ | ~ ``, a blockquote's `>`),
            // white space and controls.
            brk()
        }
    }

    private mutating func takeNonASCII(_ scalar: Unicode.Scalar) {
        let value = scalar.value
        switch value {
        case 0x0640: return  // tatweel
        case 0x0671, 0x0672, 0x0673, 0x0675: return writeArabic(0x0627)  // alef wasla and wavy-hamza forms → alef
        case 0x0649, 0x06CC: return writeArabic(0x064A)  // alef maksura, Persian yeh → yeh
        case 0x0629: return writeArabic(0x0647)  // teh marbuta → heh
        case 0x06A9: return writeArabic(0x0643)  // Persian keheh → kaf
        case 0x0660...0x0669: return write(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value - 0x0660))
        case 0x06F0...0x06F9: return write(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value - 0x06F0))
        case 0x00DF: return write(contentsOf: "ss".utf8)  // ß
        case 0x2212: return brk()  // minus sign, as the hyphen-minus
        case 0x0621...0x063A, 0x0641...0x064A: return writeArabic(value)  // the Arabic letters: the common case, made fast
        case 0x064B...0x065F, 0x0670: return  // harakat, superscript alef
        default: break
        }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format:
            return
        case .uppercaseLetter, .titlecaseLetter:
            for lower in properties.lowercaseMapping.unicodeScalars where lower.properties.generalCategory != .nonspacingMark {
                write(contentsOf: lower.utf8)
            }
        case .lowercaseLetter, .modifierLetter, .otherLetter, .spacingMark, .decimalNumber, .letterNumber, .otherNumber:
            write(contentsOf: scalar.utf8)
        case .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
            brk()
            write(contentsOf: scalar.utf8)
            brk()
        default:
            // Punctuation, separators, controls, unassigned.
            brk()
        }
    }

    private mutating func brk() {
        if !bytes.isEmpty { pendingSpace = true }
    }

    private mutating func write(_ byte: UInt8) {
        if pendingSpace {
            bytes.append(0x20)
            pendingSpace = false
        }
        bytes.append(byte)
    }

    private mutating func write(contentsOf utf8: some Sequence<UInt8>) {
        if pendingSpace {
            bytes.append(0x20)
            pendingSpace = false
        }
        bytes.append(contentsOf: utf8)
    }

    /// A letter of U+0080–U+07FF (two UTF-8 bytes) by its scalar value.
    private mutating func writeArabic(_ value: UInt32) {
        if pendingSpace {
            bytes.append(0x20)
            pendingSpace = false
        }
        bytes.append(UInt8(truncatingIfNeeded: 0xC0 | (value >> 6)))
        bytes.append(UInt8(truncatingIfNeeded: 0x80 | (value & 0x3F)))
    }
}
