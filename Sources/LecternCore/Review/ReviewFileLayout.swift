import Foundation
import Synchronization

/// Reads a review file laid out exactly as ``ReviewFile/text()`` writes it, without YAML's
/// general machinery.
///
/// A run reads its review file once, and `lectern review` after each decision; at 10,000
/// decisions Yams composing 14 MB of YAML into nodes took most of a run's review cost (issue 47,
/// docs/BENCHMARKS.md). The layout `text()` writes is narrow: a comment, `format: 1`,
/// `decisions:`, then per item a double-quoted id at indent 2 and its keys at indent 4, each value
/// a hash or name, a double-quoted string with JSON's escapes, or a literal block (`|` or `|-`);
/// `fields:` holds quoted paths at indent 6. This reader takes that layout only, and only when
/// every decision in it is valid: anything else — another layout written by hand, a comment in
/// the middle, a value the general reader would refuse — returns nil, and ``ReviewFile/parse(_:)``
/// reads the file with Yams, which reports every problem at its line and column. So both readers
/// give the same decisions, with the same lines and columns, for every file this one accepts
/// (`ReviewFileTests` holds them to it on written files and on mutations of them).
enum ReviewFileLayout {
    /// The decisions of `text`, or nil when `text` is not in the written layout or holds anything
    /// the general reader would report.
    static func read(_ text: String, nodeBudget: Int) -> [ReviewFile.Decision]? {
        var copy = text
        return copy.withUTF8 { bytes -> [ReviewFile.Decision]? in
            guard bytes.last == UInt8(ascii: "\n"), !hasOtherBreaks(bytes) else { return nil }
            var reader = Reader(bytes: bytes)
            return reader.document(nodeBudget: nodeBudget)
        }
    }

    /// Whether `bytes` hold a character YAML reads as a line break or refuses, other than `\n`:
    /// a carriage return, other control characters (a tab aside), NEL and the C1 controls, the
    /// line and paragraph separators, a byte order mark. The writer escapes them all.
    static func hasOtherBreaks(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b < 0x20 {
                if b != UInt8(ascii: "\n") && b != UInt8(ascii: "\t") { return true }
            } else if b == 0x7F {
                return true
            } else if b == 0xC2, i + 1 < n, (0x80...0x9F).contains(bytes[i + 1]) {
                return true
            } else if b == 0xE2, i + 2 < n, bytes[i + 1] == 0x80, bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9 {
                return true
            } else if b == 0xEF, i + 2 < n, bytes[i + 1] == 0xBB, bytes[i + 2] == 0xBF {
                return true
            }
            i += 1
        }
        return false
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        /// Start of the current line.
        var position = 0
        /// 1-based number of the current line.
        var line = 1

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        static let space = UInt8(ascii: " ")
        static let newline = UInt8(ascii: "\n")
        static let quote = UInt8(ascii: "\"")
        static let colon = UInt8(ascii: ":")

        var atEnd: Bool { position >= bytes.count }

        /// The current line's bytes (without its newline).
        func currentLine() -> Range<Int> {
            var end = position
            while end < bytes.count, bytes[end] != Self.newline { end += 1 }
            return position..<end
        }

        mutating func advance(past range: Range<Int>) {
            position = range.upperBound + 1
            line += 1
        }

        func indent(of range: Range<Int>) -> Int {
            var i = range.lowerBound
            while i < range.upperBound, bytes[i] == Self.space { i += 1 }
            return i - range.lowerBound
        }

        func equals(_ range: Range<Int>, _ text: StaticString) -> Bool {
            guard range.count == text.utf8CodeUnitCount else { return false }
            let p = text.utf8Start
            for (k, i) in range.enumerated() where bytes[i] != p[k] { return false }
            return true
        }

        func string(_ range: Range<Int>) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }

        // MARK: The document

        mutating func document(nodeBudget: Int) -> [ReviewFile.Decision]? {
            // Comments (whole lines) before `format: 1`; nothing else.
            while !atEnd {
                let range = currentLine()
                guard range.first.map({ bytes[$0] == UInt8(ascii: "#") }) == true else { break }
                advance(past: range)
            }
            guard !atEnd, equals(currentLine(), "format: 1") else { return nil }
            advance(past: currentLine())
            guard !atEnd else { return nil }
            let head = currentLine()
            if equals(head, "decisions: {}") {
                advance(past: head)
                return atEnd ? [] : nil
            }
            guard equals(head, "decisions:") else { return nil }
            advance(past: head)
            var decisions: [ReviewFile.Decision] = []
            var seen = Set<String>()
            // What the general reader spends: the document, `format`, `decisions`.
            var nodes = 3
            while !atEnd {
                guard let (decision, spent) = entry(), seen.insert(decision.item).inserted else { return nil }
                nodes += spent
                guard nodes <= nodeBudget else { return nil }
                decisions.append(decision)
            }
            guard !decisions.isEmpty, Self.answersMatch(decisions) else { return nil }
            return decisions
        }

        /// Whether every kept answer is the one its `content` hash names, checked on every core (a
        /// hash a decision; at 10,000 decisions most of what reading the file costs).
        static func answersMatch(_ decisions: [ReviewFile.Decision]) -> Bool {
            let chunks = min(decisions.count, 4 * max(1, ProcessInfo.processInfo.activeProcessorCount))
            let size = (decisions.count + chunks - 1) / chunks
            let mismatches = Atomic<Int>(0)
            DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                for decision in decisions[min(decisions.count, chunk * size)..<min(decisions.count, (chunk + 1) * size)] {
                    if let answer = decision.answer, ReviewFile.contentHash(answer) != decision.content {
                        mismatches.add(1, ordering: .relaxed)
                        return
                    }
                }
            }
            return mismatches.load(ordering: .relaxed) == 0
        }

        /// `  "item":` and its keys.
        mutating func entry() -> (ReviewFile.Decision, Int)? {
            let head = currentLine()
            guard indent(of: head) == 2, head.count > 4, bytes[head.upperBound - 1] == Self.colon,
                let item = quoted(head.lowerBound + 2..<head.upperBound - 1), ReviewFile.isItemID(item)
            else { return nil }
            let itemLine = line
            advance(past: head)
            var values: [String: String] = [:]
            var fields: [(path: String, text: String)] = []
            var hasFields = false
            while !atEnd {
                let range = currentLine()
                guard indent(of: range) == 4 else { break }
                guard let colon = keyEnd(range) else { return nil }
                let key = string(range.lowerBound + 4..<colon)
                guard ReviewFile.decisionKeys.contains(key), values[key] == nil, !(key == "fields" && hasFields) else { return nil }
                if key == "fields" {
                    guard colon + 1 == range.upperBound else { return nil }
                    hasFields = true
                    advance(past: range)
                    while !atEnd {
                        let fieldLine = currentLine()
                        guard indent(of: fieldLine) == 6 else { break }
                        guard let (pathRange, valueStart) = quotedKey(fieldLine), let path = quoted(pathRange), AnswerFields.isPath(path),
                            !fields.contains(where: { $0.path == path })
                        else { return nil }
                        guard let text = value(from: valueStart, line: fieldLine, blockIndent: 8, maxLength: ReviewFile.fieldMaxLength) else { return nil }
                        fields.append((path, text))
                    }
                    guard !fields.isEmpty else { return nil }
                    continue
                }
                guard colon + 2 < range.upperBound, bytes[colon + 1] == Self.space else { return nil }
                let limit = ReviewFile.maxLength[key] ?? 2_000
                guard let text = value(from: colon + 2, line: range, blockIndent: 6, maxLength: limit) else { return nil }
                values[key] = text
            }
            guard let decision = Self.decision(item: item, line: itemLine, values: values, fields: fields) else { return nil }
            // The general reader spends the entry's mapping, each string read, `fields` and each field.
            return (decision, 1 + values.count + (hasFields ? 1 + fields.count : 0))
        }

        /// The index of the `:` ending a plain key of letters at indent 4, or nil.
        func keyEnd(_ range: Range<Int>) -> Int? {
            var i = range.lowerBound + 4
            while i < range.upperBound, bytes[i] >= UInt8(ascii: "a"), bytes[i] <= UInt8(ascii: "z") { i += 1 }
            return i > range.lowerBound + 4 && i < range.upperBound && bytes[i] == Self.colon ? i : nil
        }

        /// `"path": ` at indent 6: the quoted key's range (quotes included) and where the value starts.
        func quotedKey(_ range: Range<Int>) -> (Range<Int>, Int)? {
            let start = range.lowerBound + 6
            guard start < range.upperBound, bytes[start] == Self.quote else { return nil }
            var i = start + 1
            while i < range.upperBound {
                if bytes[i] == UInt8(ascii: "\\") {
                    i += 2
                    continue
                }
                if bytes[i] == Self.quote { break }
                i += 1
            }
            guard i + 3 < range.upperBound, bytes[i + 1] == Self.colon, bytes[i + 2] == Self.space else { return nil }
            return (start..<i + 1, i + 3)
        }

        /// The value starting at `start` on `line` (the line is consumed, and a block's lines): a
        /// hash or name, a double-quoted string, or a literal block indented by `blockIndent`.
        mutating func value(from start: Int, line range: Range<Int>, blockIndent: Int, maxLength: Int) -> String? {
            let first = bytes[start]
            if first == Self.quote {
                guard let text = quoted(start..<range.upperBound) else { return nil }
                advance(past: range)
                return Self.fits(text, maxLength) ? text : nil
            }
            if first == UInt8(ascii: "|") {
                let header = start..<range.upperBound
                let keep: Bool
                if header.count == 1 {
                    keep = true
                } else if header.count == 2, bytes[start + 1] == UInt8(ascii: "-") {
                    keep = false
                } else {
                    return nil
                }
                advance(past: range)
                guard let text = block(indent: blockIndent, keepFinalNewline: keep) else { return nil }
                return Self.fits(text, maxLength) ? text : nil
            }
            // A plain scalar: letters, digits, `-` and `_` only (hashes, decision names), and not
            // one YAML would read as something other than text.
            for i in start..<range.upperBound {
                let b = bytes[i]
                let ok =
                    (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
                    || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "-") || b == UInt8(ascii: "_")
                guard ok else { return nil }
            }
            let text = string(start..<range.upperBound)
            guard text.utf8.count > 5 || !Self.specialPlain.contains(text.lowercased()), text.first.map({ $0 != "-" }) ?? false else { return nil }
            advance(past: range)
            return Self.fits(text, maxLength) ? text : nil
        }

        /// Plain words a YAML reader may take for null or a boolean.
        static let specialPlain: Set<String> = ["null", "true", "false", "yes", "no", "on", "off", "y", "n"]

        static func fits(_ text: String, _ maxLength: Int) -> Bool {
            text.utf8.count <= maxLength || text.count <= maxLength
        }

        /// A literal block's lines: the first at exactly `indent` spaces, then lines at `indent` or
        /// more, or empty; it ends at the first line indented less.
        mutating func block(indent: Int, keepFinalNewline: Bool) -> String? {
            var out: [UInt8] = []
            var pendingEmpty = 0
            var lines = 0
            while !atEnd {
                let range = currentLine()
                if range.isEmpty {
                    pendingEmpty += 1
                    advance(past: range)
                    continue
                }
                let spaces = self.indent(of: range)
                if spaces < indent {
                    // The general reader reads a line of spaces only, or a tab, otherwise.
                    guard spaces < range.count, bytes[range.lowerBound + spaces] != UInt8(ascii: "\t") else { return nil }
                    break
                }
                if spaces == range.count { return nil }
                // Empty lines before the first are the block's too; the writer writes none.
                if lines == 0 && (spaces != indent || pendingEmpty > 0) { return nil }
                if lines > 0 {
                    out.append(Self.newline)
                    for _ in 0..<pendingEmpty { out.append(Self.newline) }
                }
                pendingEmpty = 0
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[(range.lowerBound + indent)..<range.upperBound]))
                lines += 1
                advance(past: range)
            }
            // Empty lines at the end belong to the block's chomping; the writer writes none, and a
            // block at the very end of the file is read as the general reader does.
            guard lines > 0, pendingEmpty == 0 else { return nil }
            if keepFinalNewline { out.append(Self.newline) }
            guard let text = String(validating: out, as: UTF8.self) else { return nil }
            return text
        }

        /// A double-quoted scalar filling `range` exactly, with the escapes ``ReviewFile/quoted(_:)``
        /// writes (`\"`, `\\`, `\n`, `\t`, `\r`, `\uXXXX` outside the surrogates); nil otherwise.
        func quoted(_ range: Range<Int>) -> String? {
            guard range.count >= 2, bytes[range.lowerBound] == Self.quote, bytes[range.upperBound - 1] == Self.quote else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(range.count)
            var i = range.lowerBound + 1
            let end = range.upperBound - 1
            while i < end {
                let b = bytes[i]
                if b == Self.quote { return nil }
                // Control characters are written escaped; the general reader refuses or folds them.
                if b < 0x20 || b == 0x7F { return nil }
                guard b == UInt8(ascii: "\\") else {
                    out.append(b)
                    i += 1
                    continue
                }
                guard i + 1 < end else { return nil }
                switch bytes[i + 1] {
                case UInt8(ascii: "\""): out.append(Self.quote)
                case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "n"): out.append(Self.newline)
                case UInt8(ascii: "t"): out.append(UInt8(ascii: "\t"))
                case UInt8(ascii: "r"): out.append(UInt8(ascii: "\r"))
                case UInt8(ascii: "u"):
                    guard i + 5 < end, let value = hex(i + 2..<i + 6), !(0xD800...0xDFFF).contains(value), let scalar = Unicode.Scalar(value) else {
                        return nil
                    }
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                    i += 6
                    continue
                default: return nil
                }
                i += 2
            }
            return String(validating: out, as: UTF8.self)
        }

        func hex(_ range: Range<Int>) -> UInt32? {
            var value: UInt32 = 0
            for i in range {
                let b = bytes[i]
                let digit: UInt8
                switch b {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value * 16 + UInt32(digit)
            }
            return value
        }

        /// The decision, when the general reader would report nothing about it.
        static func decision(item: String, line: Int, values: [String: String], fields: [(path: String, text: String)]) -> ReviewFile.Decision? {
            guard let kindName = values["decision"], let kind = ReviewFile.Kind(rawValue: kindName), let content = values["content"],
                ReviewFile.isHash(content), let by = values["by"], !by.trimmed.isEmpty, let at = values["at"], !at.trimmed.isEmpty,
                ReviewFile.isTime(at)
            else { return nil }
            let basis = values["basis"]
            if let basis, !ReviewFile.isHash(basis) { return nil }
            let answer = values["answer"]
            let note = values["note"]
            switch kind {
            case .reject:
                guard !(note?.trimmed.isEmpty ?? true), fields.isEmpty else { return nil }
            case .approve:
                guard fields.isEmpty else { return nil }
            case .edit:
                guard !fields.isEmpty else { return nil }
            }
            if kind != .reject && (answer == nil || basis == nil) { return nil }
            // Whether `answer` is the one `content` names is checked for all decisions at once (answersMatch).
            return ReviewFile.Decision(
                item: item, kind: kind, content: content, basis: basis, answer: answer, fields: fields, note: note, by: by, at: at, line: line, column: 3)
        }
    }
}
