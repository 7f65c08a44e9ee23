import Foundation
import LecternMarkdown

/// Python code in a text's fenced blocks that Python would refuse before running a line of it.
///
/// The local model wrote an `if-elif-else` lecture whose examples had an `elif` block with no
/// `if`, and an `elif` after an `else`: code a learner copies and cannot run, in a lecture that
/// passed every other check. This reads each block as Python's own tokenizer would for its
/// structure (statements, indentation, brackets, strings, comments) and reports what it refuses:
/// an `elif`, `else`, `except` or `finally` in the wrong place, a header without its colon or
/// without an indented body, and indentation that starts or ends a block nowhere. It does not
/// run the code, and reads only what a parser of the whole language would say the same about.
///
/// Blocks labeled `python`, `py` or `python3` are read; an unlabeled block only when one of its
/// lines is a Python header (`if …:`, `for …:`, `def …:`), so program output and other languages
/// are left alone, and so are interactive sessions (`>>> ` prompts).
///
/// Code shown as wrong on purpose is left alone too: a block whose lead-in (the prose just
/// before it) or own comments say it fails ("This gives a SyntaxError:", "# wrong: no colon").
public enum CodeStructure {
    /// One refusal: the line in the Markdown text (1-based) and what is wrong.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var message: String
        public var description: String { "line \(line): \(message)" }
    }

    static let pythonLabels: Set<String> = ["python", "py", "python3"]
    static let headers: Set<String> = ["if", "elif", "else", "for", "while", "try", "except", "finally", "with", "def", "class"]
    nonisolated(unsafe) static let pythonHeader =
        /^\s*(if|elif|for|while|def|class|with|except)\b[^\n]*:\s*(#[^\n]*)?$|^\s*(else|try|finally)\s*:\s*(#[^\n]*)?$/

    /// The problems of every Python block of `markdown`, in order.
    public static func pythonProblems(_ markdown: String) -> [Problem] {
        var problems: [Problem] = []
        for block in fencedBlocks(markdown) where !showsAsWrong(block) && !isSession(block) {
            let label = block.label.lowercased()
            if pythonLabels.contains(label) || (label.isEmpty && block.lines.contains { $0.wholeMatch(of: pythonHeader) != nil }) {
                problems += pythonProblems(block.lines, firstLine: block.firstLine)
            }
        }
        return problems
    }

    struct Block {
        var label: String
        var lines: [Substring]
        /// The Markdown line of `lines[0]`, 1-based.
        var firstLine: Int
        /// The prose just before the block: its last three non-blank lines.
        var leadIn: String = ""
    }

    /// Words by which the prose before a block says the code fails (English; lowercased).
    static let wrongOnPurpose = [
        "error", "wrong", "incorrect", "fail", "invalid", "mistake", "broken", "bug", "refuse", "won't work", "won’t work",
        "doesn't work", "doesn’t work", "does not work", "not valid", "cannot run", "can't run", "can’t run",
    ]

    /// How a comment in the block marks its line as wrong: it opens with one of `commentOpeners`
    /// or holds one of `commentMarks`. Narrower than the lead-in's words: real code's comments
    /// speak of errors and bugs all the time ("# All real errors are raised below").
    static let commentOpeners = ["error", "wrong", "mistake", "fails", "invalid", "broken", "bug", "not valid", "this fails", "this is wrong"]
    static let commentMarks = [
        "syntaxerror", "indentationerror", "invalid syntax", "wrong", "mistake", "doesn't work", "doesn’t work", "does not work",
        "won't work", "won’t work", "won't run", "doesn't run", "does not run",
    ]

    /// Whether `block` is an interactive session (it opens with a `>>> ` prompt; `... `
    /// continuations and output follow), which is not a program. A program's docstring may hold
    /// such lines (doctests): only the first line decides.
    static func isSession(_ block: Block) -> Bool {
        guard let first = block.lines.first(where: { !$0.allSatisfy(\.isWhitespace) }) else { return false }
        let text = first.drop(while: { $0 == " " })
        return text == ">>>" || text.hasPrefix(">>> ")
    }

    /// Whether `block` is shown as code that fails: its lead-in or a comment of its says so.
    static func showsAsWrong(_ block: Block) -> Bool {
        let leadIn = block.leadIn.lowercased()
        if wrongOnPurpose.contains(where: leadIn.contains) { return true }
        for line in block.lines {
            guard let hash = line.firstIndex(of: "#") else { continue }
            let comment = line[line.index(after: hash)...].trimmedSpaces.lowercased()
            if commentOpeners.contains(where: comment.hasPrefix) || commentMarks.contains(where: comment.contains) { return true }
        }
        return false
    }

    /// The code blocks of `markdown` as `MarkdownLayout` reads them (fenced, with the first word
    /// of each info string, and indented, unlabelled), each with the prose before it.
    static func fencedBlocks(_ markdown: String) -> [Block] {
        let layout = MarkdownLayout(markdown)
        guard !layout.codeBlocks.isEmpty else { return [] }
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false)
        var previousEnd = 0
        return layout.codeBlocks.map { block in
            // The lines between the previous block and this one (1-based previousEnd + 1 …).
            let between = lines[min(previousEnd, lines.count)..<max(previousEnd, min(block.lineRange.lowerBound - 1, lines.count))]
            let leadIn = between.filter { !$0.allSatisfy(\.isWhitespace) }.suffix(3).joined(separator: " ")
            previousEnd = block.lineRange.upperBound
            return Block(label: block.label, lines: block.lines.map { Substring($0) }, firstLine: block.firstContentLine, leadIn: leadIn)
        }
    }

    /// The fence a line (`rest`, its indentation `indent` removed) opens: three or more backticks
    /// or tildes, and the first word of the info string (which holds no backtick after backticks).
    static func opening(_ rest: Substring, indent: Int) -> (fence: Character, length: Int, label: String)? {
        guard indent <= 3, let fence = rest.first, fence == "`" || fence == "~" else { return nil }
        let length = rest.prefix(while: { $0 == fence }).count
        let info = rest.dropFirst(length).trimmedSpaces
        guard length >= 3, fence == "~" || !info.contains("`") else { return nil }
        return (fence, length, String(info.prefix(while: { !$0.isWhitespace && $0 != "{" })))
    }

    /// A statement's start: its indentation (tabs to the next multiple of 8), its first word and
    /// whether it ends its physical line (no open bracket, string or backslash carries it on).
    struct Statement {
        var line: Int
        var indent: Int
        var keyword: String?
        /// The statement is a header whose colon ends the line: a block must follow.
        var opensBlock: Bool
        /// The header has no colon at all.
        var missingColon: Bool
    }

    /// The statements of a block's lines (blank lines, comments, continuation lines and the
    /// inside of triple-quoted strings are not statements).
    static func statements(_ lines: [Substring], firstLine: Int) -> [Statement] {
        var statements: [Statement] = []
        var depth = 0
        var tripleQuote: String?
        var continued = false
        // The statement being read: started on an earlier line, its text so far.
        var pending: (start: Int, indent: Int, keyword: String?, text: String)?
        func finish() {
            guard let current = pending else { return }
            pending = nil
            let code = current.text.trimmedSpaces
            // Any statement whose colon ends it opens a block (`match x:` and `async def` too);
            // a known header with no colon at all is missing it.
            let colon = topLevelColon(code)
            let opensBlock = colon.map { code[code.index(after: $0)...].allSatisfy(\.isWhitespace) } ?? false
            let missingColon = colon == nil && current.keyword != nil
            statements.append(
                Statement(
                    line: current.start, indent: current.indent, keyword: current.keyword, opensBlock: opensBlock,
                    missingColon: missingColon))
        }
        for (offset, line) in lines.enumerated() {
            let startsStatement = depth == 0 && tripleQuote == nil && !continued
            var code = ""
            var index = line.startIndex
            var quote: Character?
            var escaped = false
            // Scan the line: strings, comments, brackets; `code` keeps what is outside strings.
            while index < line.endIndex {
                let character = line[index]
                if let triple = tripleQuote {
                    if line[index...].hasPrefix(triple) {
                        tripleQuote = nil
                        index = line.index(index, offsetBy: 3)
                        code += "\"\""
                        continue
                    }
                    if character == "\\" { index = line.index(after: index) }
                    if index < line.endIndex { index = line.index(after: index) }
                    continue
                }
                if let open = quote {
                    if escaped {
                        escaped = false
                    } else if character == "\\" {
                        escaped = true
                    } else if character == open {
                        quote = nil
                        code.append(character)
                    }
                    index = line.index(after: index)
                    continue
                }
                if character == "#" { break }
                if character == "\"" || character == "'" {
                    let triple = String(repeating: character, count: 3)
                    if line[index...].hasPrefix(triple) {
                        tripleQuote = triple
                        code += String(character)
                        index = line.index(index, offsetBy: 3)
                        continue
                    }
                    quote = character
                    code.append(character)
                    index = line.index(after: index)
                    continue
                }
                if "([{".contains(character) { depth += 1 }
                if ")]}".contains(character) { depth = max(0, depth - 1) }
                code.append(character)
                index = line.index(after: index)
            }
            // An unclosed one-line string is Python's error too, but leave it to others: the
            // string ends with its line here.
            continued = tripleQuote == nil && depth == 0 && code.trimmedSpaces.hasSuffix("\\")
            if startsStatement {
                let trimmed = code.trimmedSpaces
                if trimmed.isEmpty { continue }
                var indent = 0
                for character in line.prefix(while: { $0 == " " || $0 == "\t" }) {
                    indent = character == "\t" ? (indent / 8 + 1) * 8 : indent + 1
                }
                let word = trimmed.prefix(while: { $0.isLetter || $0 == "_" })
                let keyword = headers.contains(String(word)) ? String(word) : nil
                pending = (firstLine + offset, indent, keyword, trimmed)
            } else if pending != nil {
                pending?.text += " " + code
            }
            if depth == 0 && tripleQuote == nil && !continued { finish() }
        }
        finish()
        return statements
    }

    /// The first colon of a header outside brackets (a slice's or a dict's colon is inside them;
    /// a lambda's would be a false find, but a lambda in a header is rare enough).
    static func topLevelColon(_ code: String) -> String.Index? {
        var depth = 0
        for index in code.indices {
            switch code[index] {
            case "(", "[", "{": depth += 1
            case ")", "]", "}": depth = max(0, depth - 1)
            case ":" where depth == 0:
                // `:=` is an assignment expression, not the header's colon.
                if code.index(after: index) < code.endIndex, code[code.index(after: index)] == "=" { continue }
                return index
            default: break
            }
        }
        return nil
    }

    static func pythonProblems(_ lines: [Substring], firstLine: Int) -> [Problem] {
        let statements = statements(lines, firstLine: firstLine)
        guard !statements.isEmpty else { return [] }
        var problems: [Problem] = []
        // An excerpt indented as a whole (a loop's body shown alone) is read from its own margin.
        let margin = statements.map(\.indent).min() ?? 0
        var indents = [margin]
        // The last statement's keyword at each open indentation ("stmt" for any other statement).
        var last: [Int: String] = [:]
        var expectBody: Statement?
        for statement in statements {
            let indent = statement.indent
            if let header = expectBody {
                expectBody = nil
                if indent > indents.last! {
                    indents.append(indent)
                } else if !header.missingColon {
                    problems.append(Problem(line: header.line, message: Self.noBlock(header)))
                }
            } else if indent > indents.last! {
                problems.append(Problem(line: statement.line, message: "unexpected indent: nothing before this line opens a block"))
                indents.append(indent)
            }
            if indent < indents.last! {
                while let top = indents.last, top > indent { indents.removeLast() }
                if indents.last != indent {
                    problems.append(Problem(line: statement.line, message: "the indentation matches no enclosing block (unindent does not match)"))
                    indents.append(indent)
                }
            }
            for key in last.keys where key > indent { last[key] = nil }
            let previous = last[indent]
            let keyword = statement.keyword ?? "stmt"
            var recorded = keyword
            switch keyword {
            case "elif":
                if previous != "if" && previous != "elif" {
                    problems.append(Problem(line: statement.line, message: "'elif' \(Self.misplaced(previous, wants: "an 'if' or another 'elif'"))"))
                }
            case "else":
                switch previous {
                case "if", "elif": recorded = "else"
                case "for", "while": recorded = "loop-else"
                case "try", "except": recorded = "try-else"
                default:
                    problems.append(Problem(line: statement.line, message: "'else' \(Self.misplaced(previous, wants: "an 'if', 'elif', loop or 'except' block"))"))
                }
            case "except":
                if previous != "try" && previous != "except" {
                    problems.append(Problem(line: statement.line, message: "'except' \(Self.misplaced(previous, wants: "a 'try' block"))"))
                }
            case "finally":
                if previous != "try" && previous != "except" && previous != "try-else" {
                    problems.append(Problem(line: statement.line, message: "'finally' \(Self.misplaced(previous, wants: "a 'try' block"))"))
                }
            default:
                break
            }
            last[indent] = recorded
            if statement.missingColon {
                problems.append(Problem(line: statement.line, message: "the '\(keyword)' line has no colon at its end"))
            }
            // A header without its colon still heads the lines indented under it.
            if statement.opensBlock || statement.missingColon { expectBody = statement }
        }
        if let header = expectBody, !header.missingColon {
            problems.append(Problem(line: header.line, message: Self.noBlock(header)))
        }
        return problems
    }

    /// The repair message for `problem` in a text (`field`, when it is one field of an answer).
    public static func repairMessage(_ problem: Problem, field: String? = nil) -> String {
        "\(field.map { "\($0): " } ?? "")the Python code does not run as written (\(problem)): a learner copies it, so write whole "
            + "statements (an elif or else right after its if, each header with its colon and an indented block)"
    }

    static func noBlock(_ header: Statement) -> String {
        "\(header.keyword.map { "'\($0)'" } ?? "the line") has no indented block after its colon (expected an indented block)"
    }

    /// "comes after an 'else'", "has nothing before it": where a clause is and where it belongs.
    static func misplaced(_ previous: String?, wants: String) -> String {
        let place: String
        switch previous {
        case nil: place = "has no statement before it at its indentation"
        case "else", "loop-else", "try-else": place = "comes after an 'else'"
        case "stmt": place = "follows a plain statement"
        case let keyword?: place = "follows \("aeiou".contains(keyword.prefix(1)) ? "an" : "a") '\(keyword)' block"
        }
        return "\(place); it belongs right after \(wants)"
    }
}
