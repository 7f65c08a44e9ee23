import Foundation
import LecternLLM
import Synchronization
import Yams

/// A person's decisions on what a model drafted, kept beside the spec (`<spec>.review.yaml`, or
/// the spec's `review_file:`) and versioned with it (docs/review.md):
///
/// ```yaml
/// format: 1
/// decisions:
///   engagement-question/s01-t01:
///     decision: reject
///     note: Option 3's feedback says a value cannot change; it can.
///     content: 5f3c…        # SHA-256 of the answer judged
///     by: Ada Lovelace
///     at: 2026-11-28T10:12:00Z
///   lecture/s01-t02:
///     decision: approve
///     content: 9ab1…
///     basis: 77c2…          # SHA-256 of what the answer was built from
///     answer: |             # the answer approved, so it is kept when a prompt or the model changes
///       …
///     by: …
///     at: …
///   bonus-question/s01-t01:
///     decision: edit
///     content: …
///     basis: …
///     answer: |
///       …
///     fields:               # the reviewer's text for named fields of the answer
///       prompt: What does print(2 + 3) show?
///       wrong[1].feedback: …
/// ```
///
/// Decisions are keyed by item id (the ids the pipeline and the bundle's `review.json` use). An
/// entry whose `content` no longer matches the item's answer is stale, and never applied.
public struct ReviewFile: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable, Codable {
        case approve, reject, edit
    }

    /// One decision, with where it is written (for errors).
    public struct Decision: Sendable, Equatable {
        public var item: String
        public var kind: Kind
        /// SHA-256 of the answer judged (``ReviewFile/contentHash(_:)``).
        public var content: String
        /// SHA-256 of what the answer was built from (``ReviewFile/basisHash(_:)``); approvals and
        /// edits are kept while it holds.
        public var basis: String?
        /// The answer approved or edited (its text as the model wrote it, mends included).
        public var answer: String?
        /// The reviewer's text for named fields of `answer` (``AnswerFields``), in file order.
        public var fields: [(path: String, text: String)]
        /// Why it was rejected (a rejection's repair message), or a remark on another decision.
        public var note: String?
        public var by: String
        /// ISO 8601, UTC.
        public var at: String
        /// Rejections of other answers of this item made before this decision, oldest first: an
        /// answer a reviewer rejected stays rejected (a run that replays the item's chain from its
        /// first answer meets each of them again).
        public var earlier: [Rejection] = []
        /// Where the entry is written: line and column of its key (1-based).
        public var line: Int?
        public var column: Int?

        public init(
            item: String, kind: Kind, content: String, basis: String? = nil, answer: String? = nil, fields: [(path: String, text: String)] = [],
            note: String? = nil, by: String, at: String, line: Int? = nil, column: Int? = nil
        ) {
            self.item = item
            self.kind = kind
            self.content = content
            self.basis = basis
            self.answer = answer
            self.fields = fields
            self.note = note
            self.by = by
            self.at = at
            self.line = line
            self.column = column
        }

        public static func == (a: Decision, b: Decision) -> Bool {
            a.item == b.item && a.kind == b.kind && a.content == b.content && a.basis == b.basis && a.answer == b.answer
                && a.fields.map(\.path) == b.fields.map(\.path) && a.fields.map(\.text) == b.fields.map(\.text) && a.note == b.note && a.by == b.by
                && a.at == b.at && a.earlier == b.earlier
        }

        /// The note of a rejection of the answer whose hash is `content`: this decision's, if it
        /// rejects that answer, else an earlier one's; nil when no rejection names it.
        public func rejectionNote(for content: String) -> String? {
            if kind == .reject, self.content == content { return note ?? "" }
            return earlier.first(where: { $0.content == content })?.note
        }

        /// This decision, with the rejections `previous` (the item's decision it replaces) held:
        /// its earlier ones, and itself when it rejected another answer than this decision's.
        public func replacing(_ previous: Decision?) -> Decision {
            guard let previous else { return self }
            var decision = self
            var earlier = previous.earlier
            if previous.kind == .reject, previous.content != content, let note = previous.note {
                earlier.append(Rejection(content: previous.content, note: note))
            }
            // The most recent `maxEarlier`: the reader refuses a longer list.
            decision.earlier = Array(earlier.filter { $0.content != content || kind != .reject }.suffix(ReviewFile.maxEarlier))
            return decision
        }
    }

    /// An answer rejected before the item's present decision: its hash and the reviewer's note.
    public struct Rejection: Sendable, Equatable {
        public var content: String
        public var note: String

        public init(content: String, note: String) {
            self.content = content
            self.note = note
        }
    }

    /// The file's name as the user gave it, for messages.
    public var file: String
    /// The decisions, by item id.
    public private(set) var decisions: [String: Decision]

    public init(file: String, decisions: [Decision] = []) {
        self.file = file
        self.decisions = Dictionary(decisions.map { ($0.item, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// The decision on `item`, if any.
    public subscript(item: String) -> Decision? { decisions[item] }

    /// Records `decision`, replacing any earlier one on its item.
    public mutating func record(_ decision: Decision) {
        decisions[decision.item] = decision
    }

    /// Removes the decision on `item` (back to pending).
    public mutating func remove(_ item: String) {
        decisions[item] = nil
    }

    // MARK: Hashes

    /// The hash a decision holds of the answer it judged: SHA-256 of the answer's text, with a
    /// JSON answer canonicalized first (key order and spacing do not make another answer).
    public static func contentHash(_ answer: String) -> String {
        // The answers Lectern's stages get (objects of strings) through the byte-level reader and
        // writer; anything else through Foundation's, whose bytes define the hash.
        if answer.first == "{" || answer.first == "[", let value = JSONValue.parseStrict(answer) {
            var canonical: [UInt8] = []
            canonical.reserveCapacity(answer.utf8.count)
            if writeCanonical(value, into: &canonical) { return SHA256Digest.hex(Data(canonical)) }
        }
        if let data = answer.data(using: .utf8), let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
            let canonical = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        {
            return SHA256Digest.hex(canonical)
        }
        return SHA256Digest.hex(answer)
    }

    /// `value` as `JSONSerialization` writes it with sorted keys and unescaped slashes, byte for
    /// byte, for the values answers are made of: strings, null, arrays and objects whose keys are
    /// lowercase ASCII letters and `_` (where its locale-aware key order is the bytes' order).
    /// False, with `out` unspecified, for anything else (a number, a boolean, another key): the
    /// caller then asks `JSONSerialization` itself. The hash is the one every review file holds, so
    /// it must not change; `ReviewFileTests` holds the two writers to each other on every answer of
    /// every committed cassette. Foundation's reader and writer were most of what reading a review
    /// file cost (1.5 ms a decision).
    static func writeCanonical(_ value: JSONValue, into out: inout [UInt8]) -> Bool {
        switch value {
        case .string(let text):
            writeString(text, into: &out)
        case .null:
            out.append(contentsOf: Array("null".utf8))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            var first = true
            for key in object.keys.sorted() {
                guard !key.isEmpty, key.utf8.allSatisfy({ ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || $0 == UInt8(ascii: "_") }) else { return false }
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                guard writeCanonical(object[key]!, into: &out) else { return false }  // a key of the object
            }
            out.append(UInt8(ascii: "}"))
        case .array(let array):
            out.append(UInt8(ascii: "["))
            for (i, element) in array.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                guard writeCanonical(element, into: &out) else { return false }
            }
            out.append(UInt8(ascii: "]"))
        case .bool, .number:
            return false
        }
        return true
    }

    /// A JSON string as Foundation escapes it: `"` and `\\`, the five short escapes, other
    /// control characters as lowercase `\u00xx`; everything else (slashes, DEL, U+2028) as is.
    static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            // Runs of bytes written as they are, copied at once; the escapes one by one.
            var run = 0
            for i in 0..<bytes.count {
                let byte = bytes[i]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<i]))
                run = i + 1
                out.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(byte)
                case 0x08: out.append(UInt8(ascii: "b"))
                case 0x09: out.append(UInt8(ascii: "t"))
                case 0x0A: out.append(UInt8(ascii: "n"))
                case 0x0C: out.append(UInt8(ascii: "f"))
                case 0x0D: out.append(UInt8(ascii: "r"))
                default:
                    out.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 15)]])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The prompt values that say how, not what: a change of tone or of the answer's format is
    /// no reason to drop an approved answer.
    public static let styleVariables: Set<String> = ["tone", "schema"]

    /// The hash of what an answer was built from: its prompt's values (the topic, title, lecture,
    /// passage, what it must not repeat …), without the style ones. A prompt template, the model,
    /// the tone and the temperature are not in it.
    public static func basisHash(_ variables: [String: String]) -> String {
        let text = variables.filter { !styleVariables.contains($0.key) }.sorted { $0.key < $1.key }.map { "\($0.key)\u{1F}\($0.value)" }
            .joined(separator: "\u{1E}")
        return SHA256Digest.hex(text)
    }

    // MARK: Reading

    /// A review file is data about a spec's items: larger than a spec, still bounded.
    public static let maxBytes = 64 << 20
    /// Nodes a review file may hold (about 12 a decision).
    public static let nodeBudget = 2_000_000

    /// Reads the review file at `url`; a missing file is an empty one. Throws `SpecError` with
    /// every problem at its line and column.
    public static func read(_ url: URL, displayName: String? = nil) throws -> ReviewFile {
        let name = displayName ?? url.path
        guard FileManager.default.fileExists(atPath: url.path) else { return ReviewFile(file: name) }
        let source = try YAMLSource.read(url, displayName: name, maxBytes: maxBytes)
        return try parse(source)
    }

    /// Reads a review file from its text: in the layout ``text()`` writes by
    /// ``ReviewFileLayout`` (fast), else, or when anything in it would be reported, with Yams.
    /// `layout: false` reads with Yams only (the tests compare the two).
    public static func parse(_ source: YAMLSource, layout: Bool = true) throws -> ReviewFile {
        if layout, let decisions = ReviewFileLayout.read(source.text, nodeBudget: nodeBudget) {
            return ReviewFile(file: source.file, decisions: decisions)
        }
        let root = try source.compose(resolver: .basic)
        let reader = SpecReader(file: source.file, nodeBudget: nodeBudget)
        var decisions: [Decision] = []
        if let top = reader.mapping(root, path: "", known: ["format", "decisions"]) {
            top.finish()
            if let format = top.int("format", range: 1...1000), format != 1 {
                reader.report("review file format \(format) is newer than this Lectern reads (1)", at: top.node("format"), hint: "update Lectern")
            }
            if let node = top.node("decisions"), node.null == nil, let list = reader.mapping(node, path: "decisions", known: []) {
                for (key, keyNode, value) in list.entries {
                    if let decision = readDecision(item: key, keyNode: keyNode, value: value, reader: reader) { decisions.append(decision) }
                }
            }
        }
        try reader.throwIfErrors()
        return ReviewFile(file: source.file, decisions: decisions)
    }

    static let decisionKeys = ["decision", "content", "basis", "answer", "fields", "note", "by", "at", "earlier"]
    /// The most rejections one item keeps from before its present decision.
    static let maxEarlier = 100
    /// The longest text each key of a decision may hold (both readers refuse longer ones).
    static let maxLength: [String: Int] = [
        "decision": 20, "content": 64, "basis": 64, "answer": 1 << 20, "note": 4_000, "by": 200, "at": 40,
    ]
    /// The longest new text of one field of an edit.
    static let fieldMaxLength = 1 << 18

    static func readDecision(item: String, keyNode: Node, value: Node, reader: SpecReader) -> Decision? {
        guard isItemID(item) else {
            reader.report("'\(item.prefix(80))' is not an item id", at: keyNode, hint: "item ids look like engagement-question/s01-t01 (see the bundle's review.json)")
            return nil
        }
        guard let entry = reader.mapping(value, path: "decisions.\(item)", known: decisionKeys) else { return nil }
        entry.finish()
        let kindName = entry.string("decision", required: true, maxLength: maxLength["decision"]!, hint: "approve, reject or edit")
        let kind = kindName.flatMap(Kind.init(rawValue:))
        if let kindName, kind == nil {
            reader.report(
                "'decisions.\(item).decision' is '\(kindName)'", at: entry.node("decision"),
                hint: Suggestion.hint(for: kindName, among: Kind.allCases.map(\.rawValue)))
        }
        let content = entry.string("content", required: true, maxLength: maxLength["content"]!, hint: "the SHA-256 of the answer judged, as lectern review writes it")
        if let content, !isHash(content) {
            reader.report("'decisions.\(item).content' is not a SHA-256 (64 hexadecimal digits)", at: entry.node("content"))
        }
        let basis = entry.string("basis", maxLength: maxLength["basis"]!)
        if let basis, !isHash(basis) {
            reader.report("'decisions.\(item).basis' is not a SHA-256 (64 hexadecimal digits)", at: entry.node("basis"))
        }
        let answer = entry.string("answer", maxLength: maxLength["answer"]!)
        let note = entry.string("note", maxLength: maxLength["note"]!)
        let by = entry.string("by", required: true, maxLength: maxLength["by"]!, hint: "who decided") ?? ""
        let at = entry.string("at", required: true, maxLength: maxLength["at"]!, hint: "when, as 2026-11-28T10:12:00Z") ?? ""
        if !at.isEmpty, !isTime(at) {
            reader.report("'decisions.\(item).at' is '\(at)', not an ISO 8601 time", at: entry.node("at"), hint: "e.g. 2026-11-28T10:12:00Z")
        }
        var fields: [(String, String)] = []
        if let node = entry.node("fields"), let map = reader.mapping(node, path: "decisions.\(item).fields", known: []) {
            for (path, pathNode, text) in map.entries {
                guard AnswerFields.isPath(path) else {
                    reader.report(
                        "'\(path.prefix(80))' is not a field of an answer", at: pathNode,
                        hint: "a field is a name, or a path such as wrong[1].feedback or section[2]")
                    continue
                }
                // An empty text is a field's new text too (an explanation removed).
                guard case .scalar = text else {
                    _ = map.string(text, name: "decisions.\(item).fields.\(path)", required: true, maxLength: fieldMaxLength, hint: nil)
                    continue
                }
                fields.append((path, map.string(text, name: "decisions.\(item).fields.\(path)", required: false, maxLength: fieldMaxLength, hint: nil) ?? ""))
            }
        }
        var earlier: [Rejection] = []
        for (index, node) in (entry.sequence("earlier", maxCount: maxEarlier) ?? []).enumerated() {
            let path = "decisions.\(item).earlier[\(index + 1)]"
            guard let rejection = reader.mapping(node, path: path, known: ["content", "note"]) else { continue }
            rejection.finish()
            let hash = rejection.string("content", required: true, maxLength: maxLength["content"]!, hint: "the SHA-256 of the answer rejected")
            let text = rejection.string("note", required: true, maxLength: maxLength["note"]!, hint: "why it was rejected")
            if let hash, !isHash(hash) { reader.report("'\(path).content' is not a SHA-256 (64 hexadecimal digits)", at: rejection.node("content")) }
            if let hash, let text, isHash(hash), !text.trimmed.isEmpty { earlier.append(Rejection(content: hash, note: text)) }
        }
        guard let kind, let content else { return nil }
        switch kind {
        case .reject:
            if note?.trimmed.isEmpty ?? true {
                reader.report("a rejection needs a 'note': what is wrong, for the model to mend", at: entry.node, hint: "add 'note: …'")
            }
            if !fields.isEmpty { reader.report("'fields' belong to an edit, not a rejection", at: entry.node("fields")) }
        case .approve:
            if !fields.isEmpty { reader.report("'fields' belong to an edit, not an approval", at: entry.node("fields"), hint: "write 'decision: edit'") }
        case .edit:
            if fields.isEmpty { reader.report("an edit needs 'fields': the new text of each field it changes", at: entry.node) }
        }
        if kind != .reject && (answer == nil || basis == nil) {
            reader.report(
                "an \(kind == .approve ? "approval" : "edit") needs the 'answer' it kept and its 'basis'", at: entry.node,
                hint: "decide in `lectern review`, which writes them")
        }
        if let answer, let content = Optional(content), isHash(content), contentHash(answer) != content {
            reader.report(
                "'decisions.\(item).answer' is not the answer its 'content' hash names (was the answer edited by hand?)", at: entry.node("answer"),
                hint: "change the text through 'fields' (decision: edit), and leave 'answer' as it was")
        }
        var decision = Decision(
            item: item, kind: kind, content: content, basis: basis, answer: answer, fields: fields, note: note, by: by, at: at,
            line: keyNode.mark?.line, column: keyNode.mark?.column)
        decision.earlier = earlier
        return decision
    }

    /// Whether `text` is an ISO 8601 time (`2026-11-28T10:12:00Z`). One formatter for the file:
    /// making one per decision was a sixth of what reading 10,000 decisions cost.
    static func isTime(_ text: String) -> Bool {
        // What `lectern review` writes (`2026-11-28T10:12:00Z`) is checked by its digits; any other
        // form by the formatter, which costs a tenth of a millisecond a call.
        let b = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            var n = 0
            for i in range {
                guard b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") else { return nil }
                n = n * 10 + Int(b[i] - UInt8(ascii: "0"))
            }
            return n
        }
        if b.count == 20, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == UInt8(ascii: "T"), b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
            b[19] == UInt8(ascii: "Z"), let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19)
        {
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
            return year >= 1 && (1...12).contains(month) && (1...days[month - 1]).contains(day) && hour < 24 && minute < 60 && second < 60
        }
        return timeFormatter.withLock { $0.date(from: text) != nil }
    }

    private static let timeFormatter = Mutex(ISO8601DateFormatter())

    static func isHash(_ text: String) -> Bool {
        text.utf8.count == 64
            && text.utf8.allSatisfy { ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f")) }
    }

    /// An item id: path segments of letters, digits, `-` and `_`, joined by `/`.
    public static func isItemID(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 200
            && text.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { part in
                !part.isEmpty && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") } && part != "."
                    && part != ".."
            }
    }

    // MARK: Writing

    /// The file's text: decisions sorted by item id, every string quoted so that YAML reads it
    /// back as written; the same decisions always give the same bytes.
    public func text() -> String {
        var out = "# Review decisions (docs/review.md): written by `lectern review`; edit with care.\nformat: 1\n"
        guard !decisions.isEmpty else { return out + "decisions: {}\n" }
        out += "decisions:\n"
        for item in decisions.keys.sorted() {
            let d = decisions[item]!  // a key of the dictionary
            out += "  \(Self.quoted(item)):\n"
            out += "    decision: \(d.kind.rawValue)\n"
            if let note = d.note { out += "    note: \(Self.scalar(note, indent: 6))\n" }
            out += "    content: \(d.content)\n"
            if let basis = d.basis { out += "    basis: \(basis)\n" }
            if !d.fields.isEmpty {
                out += "    fields:\n"
                for field in d.fields { out += "      \(Self.quoted(field.path)): \(Self.scalar(field.text, indent: 8))\n" }
            }
            if let answer = d.answer { out += "    answer: \(Self.scalar(Self.readable(answer), indent: 6))\n" }
            out += "    by: \(Self.quoted(d.by))\n"
            out += "    at: \(Self.quoted(d.at))\n"
            if !d.earlier.isEmpty {
                out += "    earlier:\n"
                for rejection in d.earlier {
                    out += "      - content: \(rejection.content)\n"
                    out += "        note: \(Self.scalar(rejection.note, indent: 10))\n"
                }
            }
        }
        return out
    }

    /// Writes the file atomically (a temporary file beside it, renamed over it).
    public func write(to url: URL) throws {
        let data = Data(text().utf8)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).tmp-\(UUID().uuidString)")
        try data.write(to: temporary)
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot write \(url.path): \(reason)"])
        }
    }

    /// A JSON answer laid out a key a line (sorted, indented), so that a review file's diff shows
    /// what changed; its hash is the same (`contentHash` reads JSON canonically). Other text as is.
    static func readable(_ answer: String) -> String {
        guard let data = answer.data(using: .utf8), let value = try? JSONSerialization.jsonObject(with: data),
            let pretty = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        else { return answer }
        return String(decoding: pretty, as: UTF8.self)
    }

    /// `text` as a YAML literal block (`|-` or `|`, indented by `indent`) when it has several lines
    /// that a block holds exactly; else double-quoted.
    static func scalar(_ text: String, indent: Int) -> String {
        let body = text.hasSuffix("\n") ? String(text.dropLast()) : text
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        let blockable =
            lines.count > 1 && !body.hasSuffix("\n") && !text.contains("\r") && lines.first.map { !$0.hasPrefix(" ") && !$0.isEmpty } == true
            && lines.allSatisfy { line in
                !line.hasSuffix(" ") && !line.hasSuffix("\t")
                    && !line.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F || (0x80...0x9F).contains($0.value) || $0.value == 0xFEFF }
            }
        guard blockable else { return quoted(text) }
        let pad = String(repeating: " ", count: indent)
        return (text.hasSuffix("\n") ? "|" : "|-") + lines.map { $0.isEmpty ? "\n" : "\n" + pad + $0 }.joined()
    }

    /// `text` as a YAML double-quoted scalar (JSON's escapes are YAML's).
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
                    || scalar.value == 0xFEFF
                {
                    out += String(format: "\\u%04X", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
