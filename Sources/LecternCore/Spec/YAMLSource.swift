import Foundation
import Yams

/// A YAML file read with the guards untrusted input needs: a size limit, text only, one document,
/// no duplicate keys, and aliases that cannot expand without bound.
public struct YAMLSource: Sendable {
    /// Spec and preset files are small; anything past this is a mistake or an attack.
    public static let maxBytes = 1 << 20
    /// Aliases a file may use. Real specs use a handful; a "billion laughs" bomb needs many.
    public static let maxAliases = 64

    /// The file name as the user gave it, for messages.
    public let file: String
    public let text: String

    public init(file: String, text: String) {
        self.file = file
        self.text = text
    }

    /// Reads `url`, refusing empty, oversized, binary and non-UTF-8 files.
    public static func read(_ url: URL, displayName: String? = nil, maxBytes: Int = YAMLSource.maxBytes) throws -> YAMLSource {
        let name = displayName ?? url.path
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        } catch {
            throw SpecError(SpecDiagnostic(file: name, message: "cannot read the file: it does not exist or is not readable", hint: "check the path"))
        }
        if let type = attributes[.type] as? FileAttributeType, type == .typeDirectory {
            throw SpecError(SpecDiagnostic(file: name, message: "is a directory, not a YAML file", hint: "name a .yaml file"))
        }
        if let size = attributes[.size] as? Int, size > maxBytes {
            throw SpecError(
                SpecDiagnostic(
                    file: name, message: "the file is \(size) bytes; specs are limited to \(maxBytes) bytes",
                    hint: "a job spec is a short YAML file; move large material into corpus/ files the spec names"))
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw SpecError(SpecDiagnostic(file: name, message: "cannot read the file", hint: "check its permissions"))
        }
        return try YAMLSource(file: name, data: data, maxBytes: maxBytes)
    }

    /// Checks raw bytes: not empty, not binary, UTF-8.
    public init(file: String, data: Data, maxBytes: Int = YAMLSource.maxBytes) throws {
        if data.count > maxBytes {
            throw SpecError(
                SpecDiagnostic(
                    file: file, message: "the file is \(data.count) bytes; specs are limited to \(maxBytes) bytes", hint: "keep specs short"))
        }
        if data.isEmpty || data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            throw SpecError(
                SpecDiagnostic(
                    file: file, line: 1, column: 1, message: "the file is empty",
                    hint: "a spec needs at least 'kind', 'id', 'version' and 'description'; see docs/spec.md"))
        }
        // memchr: Data's own search goes byte by byte through its indexing (a tenth of reading a
        // 14 MB review file).
        let nulOffset = data.withUnsafeBytes { raw -> Int? in
            guard let base = raw.baseAddress, let found = memchr(base, 0, raw.count) else { return nil }
            return base.distance(to: UnsafeRawPointer(found))
        }
        if let nulOffset {
            let position = Self.position(ofByte: nulOffset, in: data)
            throw SpecError(
                SpecDiagnostic(
                    file: file, line: position.line, column: position.column, message: "the file contains a NUL byte: it is binary, not YAML",
                    hint: "name the YAML spec, not a binary file"))
        }
        guard let text = String(validatingUTF8Data: data) else {
            throw SpecError(SpecDiagnostic(file: file, message: "the file is not valid UTF-8", hint: "save it as UTF-8"))
        }
        self.init(file: file, text: text)
    }

    /// Parses the single YAML document into a node tree. `resolver`: how plain scalars get their
    /// tags; `.basic` (every one a string) where a file holds only text — what the readers ask of a
    /// node (`null`, `int`) reads its text, not its tag, and resolving tags by regular expression
    /// was a fifth of reading a review file.
    public func compose(resolver: Resolver = .default) throws -> Node {
        try guardAliases()
        let node: Node?
        do {
            node = try Parser(yaml: text, resolver: resolver).singleRoot()
        } catch let error as YamlError {
            throw SpecError(diagnostic(for: error))
        } catch {
            throw SpecError(SpecDiagnostic(file: file, message: "cannot parse YAML: \(error)"))
        }
        guard let node else {
            throw SpecError(
                SpecDiagnostic(
                    file: file, line: 1, column: 1, message: "the file holds no YAML document", hint: "see docs/spec.md for a minimal spec"))
        }
        return node
    }

    /// The characters `guardAliases` acts on: quotes, alias and key marks, comments, block scalars.
    private static let readByGuard: Set<UInt8> = Set("'\"*?#|>".utf8)

    /// A lexical pass before parsing: counts alias tokens and refuses aliases used as mapping
    /// keys and explicit `?` keys. Yams hashes keys while composing, so an aliased key could cost
    /// exponential time before any of our checks ran; aliased values are shared, so they cost
    /// nothing until walked (and `SpecReader` walks with a budget). Block scalars (`|`, `>`) are
    /// skipped, so Markdown emphasis in a description is not mistaken for aliases. Quote state
    /// resets at each line end: a multi-line quoted value can only make this check stricter.
    private func guardAliases() throws {
        var aliases = 0
        var blockIndent: Int?
        var lineNumber = 0
        for rawBytes in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            // Bytes first: a block scalar's lines (a review file's answers) and lines without a
            // character this check reads are passed over without making an array of characters.
            // A CRLF file's lines end in a carriage return, which is no part of what they hold:
            // `key: |` must open its block there too.
            let bytes = rawBytes.last == UInt8(ascii: "\r") ? rawBytes.dropLast() : rawBytes
            let indent = bytes.prefix(while: { $0 == UInt8(ascii: " ") }).count
            let isBlank = bytes.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }
            if let block = blockIndent {
                if isBlank || indent > block { continue }
                blockIndent = nil
            }
            if !bytes.contains(where: { Self.readByGuard.contains($0) }) { continue }
            let line = Array(Substring(bytes))
            var quote: Character?
            var previous: Character = " "
            var index = 0
            var codeEnd = line.count  // where a comment starts
            while index < line.count {
                let c = line[index]
                if let q = quote {
                    if c == q {
                        if q == "'" && index + 1 < line.count && line[index + 1] == "'" {
                            index += 2
                            continue
                        }
                        quote = nil
                    } else if q == "\"" && c == "\\" {
                        index += 1
                    }
                    previous = c
                    index += 1
                    continue
                }
                let atTokenStart = previous == " " || previous == "\t" || previous == "[" || previous == "{" || previous == ","
                if c == "#" && (previous == " " || previous == "\t" || index == 0) {
                    codeEnd = index
                    break
                } else if (c == "'" || c == "\"") && (atTokenStart || previous == ":" || previous == "-") {
                    quote = c
                } else if c == "*" && atTokenStart {
                    aliases += 1
                    var end = index + 1
                    while end < line.count, !" \t\r,[]{}".contains(line[end]) { end += 1 }
                    var after = end
                    while after < line.count, line[after] == " " || line[after] == "\t" { after += 1 }
                    if after < line.count, line[after] == ":" {
                        throw SpecError(
                            SpecDiagnostic(
                                file: file, line: lineNumber, column: index + 1,
                                message: "an alias is used as a mapping key",
                                hint: "keys must be plain names; aliases may only stand for values"))
                    }
                    if aliases > Self.maxAliases {
                        throw SpecError(
                            SpecDiagnostic(
                                file: file, line: lineNumber, column: index + 1,
                                message:
                                    "the file uses more than \(Self.maxAliases) YAML aliases; refused, because aliases can expand exponentially (a 'billion laughs' bomb)",
                                hint: "write the values out, or use fewer anchors"))
                    }
                } else if c == "?" && (index + 1 == line.count || line[index + 1] == " ")
                    && (line[..<index].allSatisfy { $0 == " " || $0 == "-" } || previous == "{" || previous == ",")
                {
                    // Only where a key can start (line start, after "- ", or in a flow mapping):
                    // "what is this ? a test" in a value is plain text.
                    // Explicit complex keys: never needed in a spec, and a way to smuggle an
                    // aliased key past the check above.
                    throw SpecError(
                        SpecDiagnostic(
                            file: file, line: lineNumber, column: index + 1,
                            message: "explicit '?' mapping keys are not supported in specs",
                            hint: "write 'key: value'"))
                }
                previous = c
                index += 1
            }
            // Does this line open a block scalar (`key: |`, `- >-`, `key: |2`)?
            let code = String(line[..<codeEnd]).trimmingCharacters(in: .whitespaces)
            if let last = code.split(separator: " ").last, let first = last.first, first == "|" || first == ">",
                last.dropFirst().allSatisfy({ $0 == "-" || $0 == "+" || $0.isNumber }),
                code == String(last) || code.hasSuffix(": " + last) || code.hasSuffix("- " + last)
            {
                blockIndent = indent
            }
        }
    }

    private func diagnostic(for error: YamlError) -> SpecDiagnostic {
        switch error {
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _), let .composer(context, problem, mark, _):
            // "while scanning a quoted scalar" marks where the construct began: that is where the
            // author must look, not the end of the file where the scanner gave up.
            if let context {
                return SpecDiagnostic(
                    file: file, line: context.mark.line, column: context.mark.column,
                    message: "YAML syntax error: \(problem) at \(mark.line):\(mark.column) (\(context.text))",
                    hint: "check the quotes, brackets and indentation that start here")
            }
            return SpecDiagnostic(
                file: file, line: mark.line, column: mark.column, message: "YAML syntax error: \(problem)",
                hint: "check indentation, colons and quotes near this place")
        case let .duplicatedKeysInMapping(duplicates, context):
            // Yams marks the key's first occurrence; the mistake is usually the repeat below it.
            let keys = duplicates.map { "'\($0)'" }.joined(separator: ", ")
            let first = (line: context.mark.line, column: context.mark.column)
            guard let key = duplicates.first, let repeated = repeatedKey(key, after: first) else {
                return SpecDiagnostic(
                    file: file, line: first.line, column: first.column, message: "duplicate key \(keys) in one mapping",
                    hint: "each key may appear once; remove or merge the repeated one")
            }
            return SpecDiagnostic(
                file: file, line: repeated.line, column: repeated.column, message: "duplicate key \(keys) in one mapping (first at line \(first.line))",
                hint: "each key may appear once; remove this one or merge it with the one at line \(first.line)")
        case let .reader(problem, offset, _, _):
            var line: Int?
            var column: Int?
            if let offset {
                let position = Self.position(ofByte: offset, in: Data(text.utf8))
                line = position.line
                column = position.column
            }
            return SpecDiagnostic(
                file: file, line: line, column: column, message: "cannot read YAML: \(problem)", hint: "save the file as UTF-8 text")
        default:
            return SpecDiagnostic(file: file, message: "cannot parse YAML: \(error)")
        }
    }

    /// Where `key`, first written at `first` (1-based line and column), is written again in the
    /// same mapping: later on the same line of a flow mapping (`{a: 1, a: 2}`), or on a later
    /// line at the same column before the mapping ends (a line that starts to its left). Nil
    /// when the text does not show it plainly (the caller then points at the first).
    func repeatedKey(_ key: String, after first: (line: Int, column: Int)) -> (line: Int, column: Int)? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0) }
        guard first.line >= 1, first.line <= lines.count, first.column >= 1 else { return nil }
        let keyCharacters = Array(key)
        /// Whether `key` (plain or quoted) starts at `index` of `line`, followed by a colon.
        func keyAt(_ line: [Character], _ index: Int) -> Bool {
            var i = index
            var quote: Character?
            if i < line.count, line[i] == "\"" || line[i] == "'" {
                quote = line[i]
                i += 1
            }
            guard i + keyCharacters.count <= line.count, Array(line[i..<(i + keyCharacters.count)]) == keyCharacters else { return false }
            i += keyCharacters.count
            if let quote {
                guard i < line.count, line[i] == quote else { return false }
                i += 1
            }
            while i < line.count, line[i] == " " { i += 1 }
            return i < line.count && line[i] == ":" && (i + 1 == line.count || line[i + 1] == " " || line[i + 1] == "," || line[i + 1] == "}")
        }
        let firstLine = lines[first.line - 1]
        // A flow mapping: the key again after a comma on the same line.
        var i = first.column - 1 + keyCharacters.count
        while i < firstLine.count {
            if firstLine[i] == "," {
                var j = i + 1
                while j < firstLine.count, firstLine[j] == " " { j += 1 }
                if keyAt(firstLine, j) { return (first.line, j + 1) }
            }
            i += 1
        }
        // A block mapping: a sibling key sits at the same column.
        let indent = first.column - 1
        for number in first.line..<lines.count {
            let line = lines[number]
            let leading = line.prefix { $0 == " " }.count
            if leading == line.count || line[leading] == "#" { continue }
            if leading < indent { return nil }
            if leading == indent, keyAt(line, leading) { return (number + 1, leading + 1) }
        }
        return nil
    }

    static func position(ofByte offset: Int, in data: Data) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for byte in data.prefix(offset) {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column)
    }
}

extension String {
    /// Strict UTF-8 decoding: nil on any invalid sequence (String(decoding:) would repair it).
    /// A leading byte order mark is dropped, as `String(data:encoding:)` drops it.
    init?(validatingUTF8Data data: Data) {
        let decoded = data.withUnsafeBytes { raw -> String? in
            let bytes = raw.bindMemory(to: UInt8.self)
            let bom = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
            return String(validating: UnsafeBufferPointer(rebasing: bytes[(bom ? 3 : 0)...]), as: UTF8.self)
        }
        guard let decoded else { return nil }
        self = decoded
    }
}
