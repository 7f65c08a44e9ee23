internal import CCmarkGFM
internal import LecternLanguage
internal import TeXMath

/// A lecture as text to be spoken: sections (the lecture's start and each `#`/`##` heading),
/// each a run of sentences a speech synthesizer reads well.
public struct SpeechScript: Sendable, Equatable {
    public struct Section: Sendable, Equatable {
        /// The heading that starts the section (the lecture's title for the first).
        public var title: String
        /// What is read: sentences separated by single spaces, paragraphs by a blank line.
        public var text: String

        public init(title: String, text: String) {
            self.title = title
            self.text = text
        }
    }

    public var sections: [Section]

    /// Words in every section (white-space separated), for timing checks and reading estimates.
    public var wordCount: Int {
        sections.reduce(0) { $0 + $1.text.split(whereSeparator: { $0 == " " || $0 == "\n" }).count }
    }
}

/// Markdown → `SpeechScript`: what a listener needs and nothing read symbol by symbol.
/// - headings become sentences, and `#`/`##` start a section (their start times go into the
///   bundle); lists become one sentence per item ("Step 2: …" for numbered ones);
/// - code blocks are summarized ("A code example in Python, 6 lines, defines greet.") and inline
///   code is read when it is a short name, else called "a piece of code";
/// - math is read from its structure (`TeXMath.speech`: "x squared plus 1");
/// - tables are announced with their size and header; images by their description; links by
///   their text; raw HTML is left out.
public enum MarkdownSpeech {
    public static func script(_ markdown: String, title: String, language: String = "en") -> SpeechScript {
        let protected = MathDelimiterScanner.protect(markdown)
        guard let document = CMarkParser.parse(protected.bytes) else {
            return SpeechScript(sections: [.init(title: title, text: title + ".")])
        }
        defer { cmark_node_free(document) }
        var walker = SpeechWalker(formulas: protected.formulas, language: language, title: title)
        walker.blocks(of: document)
        return walker.finish()
    }
}

private struct SpeechWalker {
    let formulas: [MathFormula]
    let language: String
    let registry = CMarkParser.registry
    let arabic: Bool
    var sections: [SpeechScript.Section] = []
    var title: String
    var paragraphs: [String] = []
    var previousWasDisplayMath = false

    init(formulas: [MathFormula], language: String, title: String) {
        self.formulas = formulas
        self.language = language
        self.arabic = LanguageSubtag.is(language, "ar")
        self.title = title
        paragraphs = [Self.sentence(title)]
    }

    mutating func finish() -> SpeechScript {
        closeSection()
        return SpeechScript(sections: sections)
    }

    mutating func closeSection() {
        let text = paragraphs.filter { !$0.isEmpty }.map(Self.sentence).joined(separator: "\n\n")
        if !text.isEmpty { sections.append(.init(title: title, text: text)) }
        paragraphs = []
    }

    /// Ends `text` as a sentence (a full stop unless it ends with punctuation already).
    static func sentence(_ text: String) -> String {
        let trimmed = squeeze(text)
        guard let last = trimmed.last else { return "" }
        return ".!?:;؟".contains(last) ? trimmed : trimmed + "."
    }

    /// Single spaces, no space before punctuation, no ends.
    static func squeeze(_ text: String) -> String {
        var out = ""
        for c in text {
            if c == " " || c == "\n" || c == "\t" {
                if !out.isEmpty && out.last != " " { out.append(" ") }
            } else {
                if ",.;:!?،؟".contains(c) && out.last == " " { out.removeLast() }
                out.append(c)
            }
        }
        while out.last == " " { out.removeLast() }
        return out
    }

    func children(_ node: OpaquePointer) -> [OpaquePointer] {
        var out: [OpaquePointer] = []
        var child = cmark_node_first_child(node)
        while let c = child {
            out.append(c)
            child = cmark_node_next(c)
        }
        return out
    }

    func literal(_ node: OpaquePointer) -> [UInt8] {
        guard let c = cmark_node_get_literal(node) else { return [] }
        return Array(UnsafeBufferPointer.cString(c))
    }

    // MARK: Blocks

    mutating func blocks(of node: OpaquePointer) {
        for child in children(node) { block(child) }
    }

    mutating func block(_ node: OpaquePointer) {
        let type = cmark_node_get_type(node)
        // Only a paragraph right after a display formula may continue its sentence.
        if type != CMARK_NODE_PARAGRAPH { previousWasDisplayMath = false }
        if type == registry.table {
            table(node)
            return
        }
        switch type {
        case CMARK_NODE_HEADING:
            let text = inlines(of: node)
            if cmark_node_get_heading_level(node) <= 2 {
                // A lecture that opens with its own title as a heading says it once; a heading
                // right after the title stays in the first section (the lecture's chapter).
                let onlyTitle = paragraphs == [Self.sentence(title)]
                if onlyTitle && Self.squeeze(text).lowercased() == Self.squeeze(title).lowercased() { return }
                if !onlyTitle {
                    closeSection()
                    title = text
                }
            }
            paragraphs.append(Self.sentence(text))
        case CMARK_NODE_PARAGRAPH:
            speakParagraph(node)
        case CMARK_NODE_LIST:
            let ordered = cmark_node_get_list_type(node) == CMARK_ORDERED_LIST
            var number = Int(cmark_node_get_list_start(node))
            for item in children(node) {
                let text = children(item).map { child -> String in
                    cmark_node_get_type(child) == CMARK_NODE_PARAGRAPH ? Self.sentence(inlines(of: child)) : ""
                }.filter { !$0.isEmpty }.joined(separator: " ")
                if !text.isEmpty { paragraphs.append(ordered ? "\(arabic ? "الخطوة" : "Step") \(number): " + text : text) }
                // Nested lists and other blocks inside an item are read after it.
                for child in children(item) where cmark_node_get_type(child) != CMARK_NODE_PARAGRAPH { block(child) }
                number += 1
            }
        case CMARK_NODE_BLOCK_QUOTE:
            paragraphs.append(arabic ? "اقتباس:" : "Quote:")
            blocks(of: node)
            paragraphs.append(arabic ? "نهاية الاقتباس." : "End of quote.")
        case CMARK_NODE_CODE_BLOCK:
            paragraphs.append(codeSummary(node))
        case CMARK_NODE_THEMATIC_BREAK, CMARK_NODE_HTML_BLOCK:
            break
        default:
            blocks(of: node)
        }
    }

    /// A paragraph. One that goes on a sentence the previous paragraph left open (a display
    /// formula between "…, and" and "is the mean …") joins it, so no full stop cuts the sentence.
    mutating func speakParagraph(_ node: OpaquePointer) {
        let text = inlines(of: node)
        guard !text.isEmpty else { return }
        if let previous = paragraphs.last, let end = previous.last, !".!?:;؟".contains(end),
            Self.isDisplayMathOnly(node, formulas: formulas) || text.first.map({ $0.isLowercase }) == true
                || previousWasDisplayMath
        {
            paragraphs[paragraphs.count - 1] = previous + " " + text
        } else {
            paragraphs.append(text)
        }
        previousWasDisplayMath = Self.isDisplayMathOnly(node, formulas: formulas)
    }

    static func isDisplayMathOnly(_ node: OpaquePointer, formulas: [MathFormula]) -> Bool {
        guard let child = cmark_node_first_child(node), cmark_node_next(child) == nil, cmark_node_get_type(child) == CMARK_NODE_TEXT,
            let c = cmark_node_get_literal(child)
        else { return false }
        var pieces: [MathToken.Piece] = []
        MathToken.forEachPiece(in: UnsafeBufferPointer.cString(c)) { pieces.append($0) }
        let formulasIn = pieces.compactMap { piece -> Int? in if case .formula(let i) = piece { return i } else { return nil } }
        return formulasIn.count == 1 && formulas.indices.contains(formulasIn[0]) && formulas[formulasIn[0]].display
    }

    /// "A code example in Python, 6 lines, defines greet and area." — never the code itself.
    func codeSummary(_ node: OpaquePointer) -> String {
        let info = cmark_node_get_fence_info(node).map { String(cString: $0) } ?? ""
        let languageName = info.split(separator: " ").first.map(String.init) ?? ""
        let code = String(decoding: literal(node), as: UTF8.self)
        let lines = code.split(separator: "\n", omittingEmptySubsequences: true).count
        let names = Self.definedNames(in: code)
        let shown = Self.displayName(languageName)
        // One short, plain line is read: `my_ball = "red"` is "In code: my ball equals red."
        if lines == 1, let line = code.split(separator: "\n").first, let words = Self.codeWords(String(line), arabic: arabic) {
            return (arabic ? "بالشيفرة: " : "In code: ") + words + "."
        }
        if arabic {
            var text = "مثال برمجي" + (shown.isEmpty ? "" : " بلغة \(shown)") + "، \(lines) أسطر، في نص الدرس"
            if !names.isEmpty { text += "، يعرّف " + names.joined(separator: " و") }
            return text + "."
        }
        var text = "A code example" + (shown.isEmpty ? "" : " in \(shown)") + ", \(lines) line\(lines == 1 ? "" : "s"), is in the written lecture"
        if !names.isEmpty { text += "; it defines " + Self.list(names) }
        return text + "."
    }

    static func displayName(_ info: String) -> String {
        let known = [
            "python": "Python", "py": "Python", "js": "JavaScript", "javascript": "JavaScript", "ts": "TypeScript", "swift": "Swift",
            "sql": "SQL", "bash": "the shell", "sh": "the shell", "shell": "the shell", "console": "the shell", "c": "C", "cpp": "C plus plus",
            "java": "Java", "go": "Go", "rust": "Rust", "ruby": "Ruby", "html": "HTML", "css": "CSS", "json": "JSON", "yaml": "YAML",
            "r": "R", "kotlin": "Kotlin",
        ]
        return known[info.lowercased()] ?? (info.allSatisfy { $0.isLetter } ? info : "")
    }

    /// Functions and classes a code block defines (`def f`, `function f`, `func f`, `fn f`,
    /// `class C`), at most three, in order.
    static func definedNames(in code: String) -> [String] {
        var names: [String] = []
        for line in code.split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "(" || $0 == ":" || $0 == "{" || $0 == "<" })
            for (i, word) in words.enumerated() where i + 1 < words.count && ["def", "function", "func", "fn", "class", "struct"].contains(word) {
                let name = String(words[i + 1])
                if name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }), !names.contains(name) { names.append(name) }
            }
        }
        return Array(names.prefix(3)).map { $0.replacingUnderscores() }
    }

    static func list(_ items: [String]) -> String {
        switch items.count {
        case 0: return ""
        case 1: return items[0]
        default: return items.dropLast().joined(separator: ", ") + " and " + items.last!
        }
    }

    mutating func table(_ node: OpaquePointer) {
        let rows = children(node)
        let header = rows.first.map { row in children(row).map { inlines(of: $0) }.filter { !$0.isEmpty } } ?? []
        let count = max(0, rows.count - 1)
        if arabic {
            paragraphs.append("جدول من \(count) صفوف في نص الدرس" + (header.isEmpty ? "." : "، أعمدته: " + header.joined(separator: "، ") + "."))
        } else {
            paragraphs.append(
                "A table of \(count) row\(count == 1 ? "" : "s") is in the written lecture" + (header.isEmpty ? "." : "; its columns are " + Self.list(header) + "."))
        }
    }

    // MARK: Inlines

    func inlines(of node: OpaquePointer) -> String {
        var out = ""
        for child in children(node) { inline(child, into: &out) }
        return Self.squeeze(out)
    }

    func inline(_ node: OpaquePointer, into out: inout String) {
        switch cmark_node_get_type(node) {
        case CMARK_NODE_TEXT:
            text(literal(node), into: &out)
        case CMARK_NODE_SOFTBREAK, CMARK_NODE_LINEBREAK:
            out += " "
        case CMARK_NODE_CODE:
            let code = MathToken.restore(String(decoding: literal(node), as: UTF8.self), formulas: formulas)
            out += Self.spokenCode(code, arabic: arabic)
        case CMARK_NODE_HTML_INLINE:
            break
        case CMARK_NODE_IMAGE:
            let description = inlines(of: node)
            out += description.isEmpty ? "" : (arabic ? " صورة: " : " An image: ") + description + ". "
        default:
            for child in children(node) { inline(child, into: &out) }
        }
    }

    func text(_ bytes: [UInt8], into out: inout String) {
        bytes.withUnsafeBufferPointer { buffer in
            MathToken.forEachPiece(in: buffer) { piece in
                switch piece {
                case .text(let r): out += String(decoding: buffer[r], as: UTF8.self)
                case .literalOpen: break
                case .formula(let i):
                    guard formulas.indices.contains(i) else { return }
                    let spoken = TeXMath.speech(formulas[i].tex, language: language)
                    out += " " + spoken + " "
                }
            }
        }
    }

    /// Inline code read as words when it is short: names (`max_value` is "max value",
    /// `if-elif-else` "if elif else"), calls (`greet("Ada")` is "greet with Ada") and simple
    /// expressions (`x >= 10` is "x greater than or equal to 10"); anything longer or full of
    /// symbols is "a piece of code" rather than spelled out.
    static func spokenCode(_ code: String, arabic: Bool) -> String {
        var name = Substring(code)
        if name.hasSuffix("()") { name = name.dropLast(2) }
        // A call with simple arguments: `greet("Ada")` is "greet with Ada".
        if name.hasSuffix(")"), let open = name.firstIndex(of: "("), code.count <= 32 {
            let function = name[..<open]
            let arguments = name[name.index(after: open)..<name.index(before: name.endIndex)].filter { $0 != "\"" && $0 != "'" }
            if !function.isEmpty, function.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }),
                arguments.allSatisfy({ $0.isLetter || $0.isNumber || $0 == " " || $0 == "," || $0 == "." || $0 == "_" })
            {
                return String(function).replacingUnderscores() + (arguments.isEmpty ? "" : (arabic ? " مع " : " with ") + String(arguments).replacingUnderscores())
            }
        }
        if let words = codeWords(String(name), arabic: arabic) { return words }
        return arabic ? "مقطع برمجي" : "a piece of code"
    }

    static let codeOperators: [String: (en: String, ar: String)] = [
        "==": ("is equal to", "يساوي"), "!=": ("is not equal to", "لا يساوي"), ">=": ("greater than or equal to", "أكبر من أو يساوي"),
        "<=": ("less than or equal to", "أصغر من أو يساوي"), "=": ("equals", "يساوي"), "+": ("plus", "زائد"), "*": ("times", "ضرب"),
        "/": ("divided by", "مقسوما على"), ">": ("greater than", "أكبر من"), "<": ("less than", "أصغر من"), "%": ("modulo", "باقي القسمة"),
        "+=": ("plus equals", "زائد يساوي"), "-=": ("minus equals", "ناقص يساوي"), "->": ("returns", "يعيد"),
    ]

    /// Short code as words, or nil when it is not short and plain enough to say.
    static func codeWords(_ code: String, arabic: Bool) -> String? {
        guard code.count <= 40 else { return nil }
        var words: [String] = []
        for token in code.split(separator: " ") {
            if let spoken = codeOperators[String(token)] {
                words.append(arabic ? spoken.ar : spoken.en)
            } else if token == "-" {
                words.append(arabic ? "ناقص" : "minus")
            } else if token.allSatisfy({ $0.isLetter || $0.isNumber || "_-.:,'\"".contains($0) }) {
                let plain = token.filter { !":,'\"".contains($0) }
                let spoken = String(plain.map { "_-.".contains($0) ? " " : $0 })
                if !spoken.allSatisfy({ $0 == " " }) { words.append(spoken) }
            } else {
                return nil
            }
        }
        let text = squeeze(words.joined(separator: " "))
        guard !text.isEmpty, text.split(separator: " ").count <= 8 else { return nil }
        return text
    }
}

extension String {
    /// `snake_case` and `a.b` read as words.
    fileprivate func replacingUnderscores() -> String {
        String(map { $0 == "_" || $0 == "." ? " " : $0 })
    }
}
