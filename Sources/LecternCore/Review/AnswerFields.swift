import Foundation
import LecternLLM
import LecternMarkdown

/// The fields of an answer a reviewer can read and rewrite, named by path, whatever the kind:
/// every string of a JSON answer (`prompt`, `correct.feedback`, `wrong[1].text`, `cards[3].back`),
/// a list of tags as one field, its names joined by ", " (`quotes[0].emotions`: "Comfort, Hope",
/// so that a reviewer can add a tag or take one away, not only rename one), and of a Markdown
/// answer (a lecture) the whole text (`text`) and each section from one heading to the next
/// (`section[0]`, `section[1]` …). A tag of the list is still a field of its own when named
/// (`quotes[0].emotions[1]`).
public enum AnswerFields {
    /// The keys whose list of strings is a list of tags: one field, names joined by ", ".
    static let tagLists: Set<String> = ["emotions", "tags"]

    /// A list of tags written as one field: the names between commas, trimmed, empty ones out.
    static func tags(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }

    /// A field the reviewer may change.
    public struct Field: Sendable, Equatable {
        public var path: String
        public var text: String
    }

    /// Why an edit cannot be applied.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var message: String
        public var description: String { "'\(path)': \(message)" }
    }

    /// Whether `path` is written as a field path: names and `[n]` indices joined by dots.
    public static func isPath(_ path: String) -> Bool {
        (try? parse(path)) != nil
    }

    enum Step: Equatable {
        case key(String)
        case index(Int)
    }

    static func parse(_ path: String) throws(Failure) -> [Step] {
        var steps: [Step] = []
        var name = ""
        var chars = Array(path)[...]
        func flush() {
            if !name.isEmpty { steps.append(.key(name)) }
            name = ""
        }
        while let c = chars.popFirst() {
            switch c {
            case ".":
                guard !name.isEmpty || steps.last.map({ if case .index = $0 { return true } else { return false } }) == true else {
                    throw Failure(path: path, message: "an empty name")
                }
                flush()
            case "[":
                flush()
                var digits = ""
                while let d = chars.first, d.isASCII, d.isNumber {
                    digits.append(d)
                    chars.removeFirst()
                }
                guard chars.popFirst() == "]", let index = Int(digits), digits.count <= 6 else { throw Failure(path: path, message: "an index is written [n]") }
                steps.append(.index(index))
            default:
                guard c.isASCII, c.isLetter || c.isNumber || c == "_" || c == "-" else { throw Failure(path: path, message: "'\(c)' in a field name") }
                name.append(c)
            }
        }
        flush()
        guard !steps.isEmpty, case .key = steps[0], path.count <= 200 else { throw Failure(path: path, message: "a field path starts with a name") }
        return steps
    }

    // MARK: Listing

    /// Every field of `answer`, in reading order (`readingOrder`): the strings of a JSON object, or the whole
    /// text and the sections of Markdown.
    public static func fields(of answer: String) -> [Field] {
        if let value = json(answer) {
            var out: [Field] = []
            collect(value, path: "", key: nil, into: &out)
            return out
        }
        let sections = markdownSections(answer)
        return [Field(path: "text", text: answer)] + (sections.count > 1 ? sections.enumerated().map { Field(path: "section[\($0.offset)]", text: $0.element) } : [])
    }

    /// `key`: the name `value` has in its object (nil in a list, or at the top).
    static func collect(_ value: Any, path: String, key: String?, into out: inout [Field]) {
        switch value {
        case let string as String:
            out.append(Field(path: path, text: string))
        case let array as [Any] where key.map(tagLists.contains) == true && array.allSatisfy({ $0 is String }):
            out.append(Field(path: path, text: array.compactMap { $0 as? String }.joined(separator: ", ")))
        case let array as [Any]:
            for (index, element) in array.enumerated() { collect(element, path: "\(path)[\(index)]", key: nil, into: &out) }
        case let object as [String: Any]:
            for key in object.keys.sorted(by: readingOrder) {
                collect(object[key]!, path: path.isEmpty ? key : "\(path).\(key)", key: key, into: &out)
            }
        default:
            break
        }
    }

    /// The order a reader meets an answer's fields in: what is asked before its answers, the
    /// answers before what explains them (a review page listed `correct_answer` before `prompt`);
    /// other keys after these, by name.
    static func readingOrder(_ a: String, _ b: String) -> Bool {
        let (x, y) = (readingRank[a] ?? readingRank.count, readingRank[b] ?? readingRank.count)
        return x != y ? x < y : a < b
    }

    static let readingRank: [String: Int] = Dictionary(
        uniqueKeysWithValues: [
            "title", "topic_id", "subject_id", "passage", "term", "terms", "front", "question", "prompt", "text", "correct_answer", "wrong_answers",
            "answer", "back", "reference_answer", "feedback", "explanation", "solution", "source_quote",
        ].enumerated().map { ($1, $0) })

    /// A JSON object or array answer, or nil (Markdown, plain text).
    static func json(_ answer: String) -> Any? {
        let trimmed = answer.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("{") || trimmed.hasPrefix("["), let data = trimmed.data(using: .utf8) else { return nil }
        return try? JSONSerialization.jsonObject(with: data)
    }

    /// Markdown cut before each heading line (`#` to `######` and a space) outside code fences;
    /// joined, the sections give the text back.
    public static func markdownSections(_ text: String) -> [String] {
        var sections: [[Substring]] = []
        var current: [Substring] = []
        let layout = MarkdownLayout(text)
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if layout.isCodeLine(index + 1) {
                // Code: a `#` line is a comment, not a heading.
            } else if line.hasPrefix("#"), line.prefix(while: { $0 == "#" }).count <= 6, line.drop(while: { $0 == "#" }).first == " ", !current.isEmpty {
                sections.append(current)
                current = []
            }
            current.append(line)
        }
        sections.append(current)
        // Lines split and joined by "\n" give the text back, so the sections joined by "\n" do.
        return sections.map { $0.joined(separator: "\n") }
    }

    // MARK: Applying

    /// `answer` with each field set to the reviewer's text. A JSON answer comes back as JSON
    /// (keys sorted); Markdown with the section or whole text replaced.
    public static func apply(_ edits: [(path: String, text: String)], to answer: String) throws(Failure) -> String {
        if let edited = applyToStrings(edits, answer) { return edited }
        return try applyWithFoundation(edits, to: answer)
    }

    /// The edits applied through the byte-level JSON reader and writer (``ReviewFile/writeCanonical(_:into:)``,
    /// Foundation's bytes) when the answer is JSON of strings and every edit names a text field of
    /// it; nil otherwise, and ``applyWithFoundation(_:to:)`` does it or says what is wrong. Foundation's
    /// reader and writer were most of what applying 1,000 edits cost.
    static func applyToStrings(_ edits: [(path: String, text: String)], _ answer: String) -> String? {
        guard let first = answer.utf8.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
            var value = JSONValue.parseStrict(answer.trimmingCharacters(in: .whitespacesAndNewlines))
        else { return nil }
        for edit in edits {
            guard let steps = try? parse(edit.path), let changed = setText(edit.text, at: steps[...], in: value) else { return nil }
            value = changed
        }
        var out: [UInt8] = []
        out.reserveCapacity(answer.utf8.count + 64)
        guard ReviewFile.writeCanonical(value, into: &out) else { return nil }
        return String(decoding: out, as: UTF8.self)
    }

    /// The name of `tagLists` that `steps` are left with, if they are one step naming one.
    static func tagList(_ steps: ArraySlice<Step>) -> String? {
        guard steps.count == 1, case .key(let name) = steps.first, tagLists.contains(name) else { return nil }
        return name
    }

    /// `value` with the text field at `steps` replaced, or nil when there is none there.
    static func setText(_ text: String, at steps: ArraySlice<Step>, in value: JSONValue) -> JSONValue? {
        guard let step = steps.first else {
            guard case .string = value else { return nil }
            return .string(text)
        }
        if let name = tagList(steps), case .object(var object) = value, case .array(let list)? = object[name] {
            guard list.allSatisfy({ if case .string = $0 { return true } else { return false } }) else { return nil }
            object[name] = .array(tags(text).map { .string($0) })
            return .object(object)
        }
        switch step {
        case .key(let key):
            guard case .object(var object) = value, let child = object[key], let changed = setText(text, at: steps.dropFirst(), in: child) else { return nil }
            object[key] = changed
            return .object(object)
        case .index(let index):
            guard case .array(var array) = value, index < array.count, let changed = setText(text, at: steps.dropFirst(), in: array[index]) else { return nil }
            array[index] = changed
            return .array(array)
        }
    }

    /// The edits applied through Foundation's JSON reader and writer, or to a Markdown answer's
    /// sections; throws what is wrong with an edit.
    static func applyWithFoundation(_ edits: [(path: String, text: String)], to answer: String) throws(Failure) -> String {
        if var value = json(answer) {
            for edit in edits {
                let steps = try parse(edit.path)
                value = try set(edit.text, at: steps[...], in: value, path: edit.path)
            }
            guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes]) else {
                throw Failure(path: edits.first?.path ?? "", message: "the edited answer cannot be written as JSON")
            }
            return String(decoding: data, as: UTF8.self)
        }
        var sections = markdownSections(answer)
        var whole: String?
        for edit in edits {
            let steps = try parse(edit.path)
            if steps == [.key("text")] {
                whole = edit.text
            } else if steps.count == 2, steps[0] == .key("section"), case .index(let n) = steps[1] {
                guard n < sections.count else { throw Failure(path: edit.path, message: "the answer has \(sections.count) sections") }
                sections[n] = edit.text
            } else {
                throw Failure(path: edit.path, message: "a Markdown answer has the fields text and section[n]")
            }
        }
        return whole ?? sections.joined(separator: "\n")
    }

    static func set(_ text: String, at steps: ArraySlice<Step>, in value: Any, path: String) throws(Failure) -> Any {
        guard let step = steps.first else {
            guard value is String else { throw Failure(path: path, message: "is not a text field") }
            return text
        }
        if let name = tagList(steps), var object = value as? [String: Any], let list = object[name] as? [Any] {
            guard list.allSatisfy({ $0 is String }) else { throw Failure(path: path, message: "is not a list of tags") }
            object[name] = tags(text)
            return object
        }
        switch step {
        case .key(let key):
            guard var object = value as? [String: Any] else { throw Failure(path: path, message: "there is no object where '\(key)' is looked for") }
            guard let child = object[key] else {
                throw Failure(path: path, message: "the answer has no field '\(key)' there (it has \(object.keys.sorted().joined(separator: ", ")))")
            }
            object[key] = try set(text, at: steps.dropFirst(), in: child, path: path)
            return object
        case .index(let index):
            guard var array = value as? [Any] else { throw Failure(path: path, message: "there is no list where [\(index)] is looked for") }
            guard index < array.count else { throw Failure(path: path, message: "the list has \(array.count) elements") }
            array[index] = try set(text, at: steps.dropFirst(), in: array[index], path: path)
            return array
        }
    }
}
