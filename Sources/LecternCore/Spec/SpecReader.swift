import Foundation
import Yams

/// Walks a YAML node tree into typed values, collecting every problem with its file, line and
/// column instead of stopping at the first. Each value has a bounded size, and the walk has a
/// budget of nodes, so aliases cannot make it expensive.
public final class SpecReader {
    /// Nodes one file may expand to when walked (aliases counted each time they are used).
    public static let nodeBudget = 100_000

    public let file: String
    public private(set) var diagnostics: [SpecDiagnostic] = []
    private var remainingNodes: Int
    private let budget: Int
    private var budgetReported = false

    public init(file: String, nodeBudget: Int = SpecReader.nodeBudget) {
        self.file = file
        self.remainingNodes = nodeBudget
        self.budget = nodeBudget
    }

    /// Records a problem at `node`'s place (or the file's start).
    public func report(_ message: String, at node: Node?, hint: String? = nil) {
        diagnostics.append(SpecDiagnostic(file: file, line: node?.mark?.line, column: node?.mark?.column, message: message, hint: hint))
    }

    /// Throws the collected problems, if any.
    public func throwIfErrors() throws {
        // In file order, so the first error on screen is the first one in the file.
        let ordered = diagnostics.enumerated().sorted { a, b in
            ((a.element.line ?? 0), (a.element.column ?? 0), a.offset) < ((b.element.line ?? 0), (b.element.column ?? 0), b.offset)
        }.map(\.element)
        if !ordered.isEmpty { throw SpecError(ordered) }
    }

    /// Takes one node from the budget; false (and one report) once it is spent.
    func spend(_ node: Node) -> Bool {
        remainingNodes -= 1
        if remainingNodes >= 0 { return true }
        if !budgetReported {
            budgetReported = true
            report(
                "the document expands to more than \(budget) YAML nodes (aliases count each time they are used); refused",
                at: node, hint: "a spec is small; write it without deeply nested aliases")
        }
        return false
    }

    /// A reader for a mapping node, or nil (with a report) when `node` is not a mapping.
    public func mapping(_ node: Node, path: String, known: [String]) -> MappingReader? {
        guard spend(node) else { return nil }
        guard case .mapping(let mapping) = node else {
            report(
                "\(path.isEmpty ? "the document" : "'\(path)'") must be a mapping of keys to values, not \(Self.describe(node))", at: node,
                hint: path.isEmpty ? "a spec starts with 'kind: course' and other 'key: value' lines" : nil)
            return nil
        }
        return MappingReader(reader: self, mapping: mapping, node: node, path: path, known: known)
    }

    static func describe(_ node: Node) -> String {
        switch node {
        case .scalar(let scalar):
            if node.null != nil { return "an empty value" }
            let text = scalar.string.count > 40 ? String(scalar.string.prefix(40)) + "…" : scalar.string
            return "the value '\(text)'"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        }
    }
}

/// Reads the keys of one mapping. Declare the keys it may hold up front; `finish()` reports the
/// others as unknown, with a did-you-mean.
public final class MappingReader {
    let reader: SpecReader
    let mapping: Node.Mapping
    /// The mapping node itself, for reports about missing keys.
    public let node: Node
    /// Dotted path of this mapping in the document, e.g. `curriculum.subjects`.
    public let path: String
    let known: [String]

    init(reader: SpecReader, mapping: Node.Mapping, node: Node, path: String, known: [String]) {
        self.reader = reader
        self.mapping = mapping
        self.node = node
        self.path = path
        self.known = known
    }

    func qualified(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The keys present, in file order, with their nodes.
    public var entries: [(key: String, keyNode: Node, value: Node)] {
        mapping.compactMap { pair in
            guard case .scalar(let scalar) = pair.key else { return nil }
            return (scalar.string, pair.key, pair.value)
        }
    }

    /// The raw node for `key`, or nil when absent.
    public func node(_ key: String) -> Node? {
        mapping[key]
    }

    public func has(_ key: String) -> Bool { mapping[key] != nil }

    /// Reports keys that are not in `known` (and non-string keys).
    public func finish() {
        for pair in mapping {
            guard case .scalar(let scalar) = pair.key, pair.key.null == nil else {
                reader.report("keys of '\(path.isEmpty ? "the document" : path)' must be plain names", at: pair.key)
                continue
            }
            let key = scalar.string
            if !known.contains(key) {
                let where_ = path.isEmpty ? "at the top level" : "in '\(path)'"
                reader.report(
                    "unknown key '\(key.count > 60 ? String(key.prefix(60)) + "…" : key)' \(where_)", at: pair.key,
                    hint: Suggestion.hint(for: key, among: known) + " (see docs/spec.md)")
            }
        }
    }

    private func missing(_ key: String, hint: String?) {
        reader.report("missing required key '\(qualified(key))'", at: node, hint: hint)
    }

    /// A string value. Numbers and booleans written without quotes are taken as their text.
    public func string(_ key: String, required: Bool = false, maxLength: Int = 2_000, hint: String? = nil) -> String? {
        guard let value = mapping[key] else {
            if required { missing(key, hint: hint) }
            return nil
        }
        return string(value, name: qualified(key), required: required, maxLength: maxLength, hint: hint)
    }

    /// The name of an environment variable (`OPENAI_API_KEY`: upper case letters, digits and
    /// `_`, not starting with a digit), for the `api_key_env` keys; reported otherwise, since a
    /// key itself must never be written in a spec.
    public func environmentVariableName(_ key: String) -> String? {
        guard let name = string(key, maxLength: 100) else { return nil }
        let valid =
            (name.first.map { $0 == "_" || ($0.isASCII && $0.isUppercase) } ?? false)
            && name.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isUppercase || $0.isNumber)) }
        guard valid else {
            reader.report(
                "'\(qualified(key))' must name an environment variable such as OPENAI_API_KEY, not '\(name.prefix(8))…'", at: node(key),
                hint: "never write the key itself in a spec; put it in the environment and name the variable here")
            return nil
        }
        return name
    }

    func string(_ value: Node, name: String, required: Bool, maxLength: Int, hint: String?) -> String? {
        guard reader.spend(value) else { return nil }
        guard case .scalar(let scalar) = value else {
            reader.report("'\(name)' must be text, not \(SpecReader.describe(value))", at: value, hint: hint)
            return nil
        }
        if value.null != nil {
            if required { reader.report("'\(name)' is empty", at: value, hint: hint ?? "give it a value") }
            return nil
        }
        let text = scalar.string
        if text.count > maxLength {
            reader.report("'\(name)' is \(text.count) characters long; the limit is \(maxLength)", at: value, hint: "shorten it")
            return nil
        }
        if required && text.trimmed.isEmpty {
            reader.report("'\(name)' is empty", at: value, hint: hint ?? "give it a value")
            return nil
        }
        return text
    }

    /// An integer within `range`.
    public func int(_ key: String, range: ClosedRange<Int>) -> Int? {
        guard let value = mapping[key], reader.spend(value) else { return nil }
        guard case .scalar = value, let number = value.int else {
            reader.report(
                "'\(qualified(key))' must be a whole number, not \(SpecReader.describe(value))", at: value,
                hint: "write a number such as \(range.lowerBound)")
            return nil
        }
        guard range.contains(number) else {
            let kind = number < 0 ? "negative" : "out of range"
            reader.report(
                "'\(qualified(key))' is \(number), which is \(kind); it must be between \(range.lowerBound) and \(range.upperBound)", at: value)
            return nil
        }
        return number
    }

    /// A number within `range`.
    public func double(_ key: String, range: ClosedRange<Double>) -> Double? {
        guard let value = mapping[key], reader.spend(value) else { return nil }
        guard case .scalar = value, let number = value.float ?? value.int.map(Double.init), number.isFinite else {
            reader.report("'\(qualified(key))' must be a number, not \(SpecReader.describe(value))", at: value)
            return nil
        }
        guard range.contains(number) else {
            let kind = number < 0 ? "negative" : "out of range"
            reader.report(
                "'\(qualified(key))' is \(JSONNumber.format(number)), which is \(kind); it must be between \(JSONNumber.format(range.lowerBound)) and \(JSONNumber.format(range.upperBound))",
                at: value)
            return nil
        }
        return number
    }

    /// `true` or `false`.
    public func bool(_ key: String) -> Bool? {
        guard let value = mapping[key], reader.spend(value) else { return nil }
        guard case .scalar(let scalar) = value, scalar.style == .plain, let flag = value.bool else {
            reader.report("'\(qualified(key))' must be true or false, not \(SpecReader.describe(value))", at: value)
            return nil
        }
        return flag
    }

    /// A list of strings; a single string is accepted as a list of one.
    public func stringList(_ key: String, maxCount: Int, maxLength: Int = 2_000) -> [String]? {
        guard let value = mapping[key], reader.spend(value) else { return nil }
        if case .scalar = value {
            if value.null != nil { return [] }
            return string(value, name: qualified(key), required: true, maxLength: maxLength, hint: nil).map { [$0] }
        }
        guard case .sequence(let sequence) = value else {
            reader.report("'\(qualified(key))' must be a list of text items, not \(SpecReader.describe(value))", at: value)
            return nil
        }
        if sequence.count > maxCount {
            reader.report("'\(qualified(key))' has \(sequence.count) items; the limit is \(maxCount)", at: value)
            return nil
        }
        var items: [String] = []
        for (index, item) in sequence.enumerated() {
            if let text = string(item, name: "\(qualified(key))[\(index)]", required: true, maxLength: maxLength, hint: nil) {
                items.append(text)
            }
        }
        return items
    }

    /// A nested mapping.
    public func mapping(_ key: String, known: [String]) -> MappingReader? {
        guard let value = mapping[key] else { return nil }
        if value.null != nil { return nil }
        return reader.mapping(value, path: qualified(key), known: known)
    }

    /// A list of nodes (for lists of mappings).
    public func sequence(_ key: String, maxCount: Int) -> [Node]? {
        guard let value = mapping[key], reader.spend(value) else { return nil }
        guard case .sequence(let sequence) = value else {
            reader.report("'\(qualified(key))' must be a list, not \(SpecReader.describe(value))", at: value)
            return nil
        }
        if sequence.count > maxCount {
            reader.report("'\(qualified(key))' has \(sequence.count) items; the limit is \(maxCount)", at: value)
            return nil
        }
        return Array(sequence)
    }
}

/// Number formatting for messages and canonical text.
public enum JSONNumber {
    public static func format(_ n: Double) -> String {
        if n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
        return "\(n)"
    }
}
