import Testing

@testable import LecternRender

/// One case of a markdown-it style fixture file: title, input, expected HTML, each ended by ".".
struct MarkdownItCase: CustomStringConvertible {
    var title: String
    var input: String
    var expectedHTML: String
    var description: String { title.split(separator: "\n").joined(separator: " ") }

    /// Parses the format used by mdit-py-plugins' fixtures (and our pandoc-generated cases).
    static func parse(_ text: String) -> [MarkdownItCase] {
        var cases: [MarkdownItCase] = []
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)[...]
        while !lines.isEmpty {
            while let first = lines.first, first.isEmpty { lines.removeFirst() }
            guard !lines.isEmpty else { break }
            var parts: [[String]] = [[], [], []]
            for part in 0..<3 {
                while let line = lines.first, line != "." {
                    parts[part].append(line)
                    lines.removeFirst()
                }
                if !lines.isEmpty { lines.removeFirst() }  // the "."
            }
            cases.append(
                MarkdownItCase(
                    title: parts[0].joined(separator: "\n"), input: parts[1].joined(separator: "\n") + "\n",
                    expectedHTML: parts[2].joined(separator: "\n")))
        }
        return cases
    }
}

/// A formula as the fixtures describe it: display or inline, and its TeX with whitespace squeezed.
struct MathSpan: Equatable, CustomStringConvertible {
    var display: Bool
    var tex: String
    var description: String { (display ? "D[" : "I[") + tex + "]" }

    static func squeezed(_ s: some StringProtocol) -> String {
        let decoded = String(s).replacing("&lt;", with: "<").replacing("&gt;", with: ">")
            .replacing("&quot;", with: "\"").replacing("&#39;", with: "'").replacing("&amp;", with: "&")
        return decoded.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).joined(separator: " ")
    }

    /// The formulas in a fixture's expected HTML (mdit-py-plugins or pandoc `--mathjax` markup).
    static func expected(in html: String) -> [MathSpan] {
        var spans: [(String.Index, MathSpan)] = []
        let patterns: [(Regex<(Substring, Substring)>, Bool)] = [
            (/<span\s+class="math inline">(.*?)<\/span>/.dotMatchesNewlines(), false),
            (/<span\s+class="math display">(.*?)<\/span>/.dotMatchesNewlines(), true),
            (/<div\s+class="math inline">(.*?)<\/div>/.dotMatchesNewlines(), true),
            (/<div(?: id="[^"]*")? class="math block">\n(?:<a [^>]*>¶<\/a>\n)?(.*?)\n<\/div>/.dotMatchesNewlines(), true),
            (/<eq>(.*?)<\/eq>/.dotMatchesNewlines(), false),
            (/<eqn>(.*?)<\/eqn>/.dotMatchesNewlines(), true),
        ]
        for (pattern, display) in patterns {
            for match in html.matches(of: pattern) {
                var tex = Substring(match.output.1)
                // pandoc --mathjax wraps the TeX in \( \) or \[ \].
                if tex.hasPrefix("\\(") && tex.hasSuffix("\\)") || tex.hasPrefix("\\[") && tex.hasSuffix("\\]") {
                    tex = tex.dropFirst(2).dropLast(2)
                }
                spans.append((match.range.lowerBound, MathSpan(display: display, tex: squeezed(tex))))
            }
        }
        return spans.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// The formulas the scanner finds, in source order (a repeated formula counts each time).
    static func found(in markdown: String) -> [MathSpan] {
        let protected = MathDelimiterScanner.protect(markdown)
        var spans: [MathSpan] = []
        var text = protected.text
        text.withUTF8 { bytes in
            MathToken.forEachPiece(in: bytes) { piece in
                if case .formula(let i) = piece {
                    let f = protected.formulas[i]
                    spans.append(MathSpan(display: f.display, tex: squeezed(f.tex)))
                }
            }
        }
        return spans
    }
}

/// Runs every case of a fixture file; returns (passed, failures outside `knownDivergences`).
func runCorpus(_ text: String, knownDivergences: Set<String>) -> (total: Int, passed: Int, unexpected: [String], divergent: [String]) {
    let cases = MarkdownItCase.parse(text)
    var passed = 0
    var unexpected: [String] = []
    var divergent: [String] = []
    for c in cases {
        let expected = MathSpan.expected(in: c.expectedHTML)
        let found = MathSpan.found(in: c.input)
        if expected == found {
            passed += 1
        } else if knownDivergences.contains(c.description) {
            divergent.append(c.description)
        } else {
            unexpected.append("\(c.description): expected \(expected), found \(found)")
        }
    }
    return (cases.count, passed, unexpected, divergent)
}

@Suite("Math delimiters")
struct MathDelimiterTests {
    @Test("mdit-py-plugins dollar_math.md: every case")
    func mditDollarMath() throws {
        let text = try #require(TestFiles.read(TestFiles.corpora + "/mdit-dollar_math.md"), "the corpus mdit-dollar_math.md is missing")
        // Where markdown-it's dollarmath plugin and pandoc's rules (ours) disagree on purpose.
        let known: Set<String> = [
            // pandoc allows a digit before the opening `$` (`3$1+2$` is math there).
            "use of currency symbol, i.e. digits before/after opening/closing (valid=True)",
            // A markdown-it option that turns indented code off; CommonMark keeps it.
            "Indented by 4 spaces, DISABLE-CODEBLOCKS",
        ]
        let result = runCorpus(text, knownDivergences: known)
        print("mdit-dollar_math.md: \(result.passed)/\(result.total) cases agree; known divergences: \(result.divergent)")
        #expect(result.unexpected.isEmpty, "\(result.unexpected.joined(separator: "\n"))")
        #expect(result.total >= 50)
    }

    @Test("mdit-py-plugins texmath_dollar.md: every case")
    func mditTexmathDollar() throws {
        let text = try #require(TestFiles.read(TestFiles.corpora + "/mdit-texmath_dollar.md"), "the corpus mdit-texmath_dollar.md is missing")
        let known: Set<String> = [
            // texmath's plugin treats `\\$` as escaping the dollar; in Markdown (and pandoc) `\\` is an
            // escaped backslash, so the `$` still opens math (dollar_math.md agrees with us).
            "escaped dollars '\\\\$' are interpreted as dollar '$' characters. (valid=True)",
            // `\(2\)` is inline math with pandoc's tex_math_single_backslash, which Lectern enables.
            "Sum with equation number. (valid=True)",
            "Indented by 4 spaces, DISABLE-CODEBLOCKS",
        ]
        let result = runCorpus(text, knownDivergences: known)
        print("mdit-texmath_dollar.md: \(result.passed)/\(result.total) cases agree; known divergences: \(result.divergent)")
        #expect(result.unexpected.isEmpty, "\(result.unexpected.joined(separator: "\n"))")
        #expect(result.total >= 40)
    }

    @Test("pandoc-verified cases (Fixtures/delimiters/pandoc-cases.md)")
    func pandocCases() throws {
        let text = try #require(TestFiles.read(TestFiles.fixtures + "/delimiters/pandoc-cases.md"))
        let known: Set<String> = [
            // Block structure: pandoc's Markdown needs a blank line before `***` and before a list;
            // CommonMark (cmark) lets both interrupt a paragraph, which ends the formula's run.
            "thematic break between",
            "inline across lines",
            // pandoc writes an image's alt text as plain text, so its HTML shows no span for `$y$`;
            // the scanner does find it (Lectern puts the TeX in the alt text).
            "link text",
        ]
        let result = runCorpus(text, knownDivergences: known)
        print("pandoc-cases.md: \(result.passed)/\(result.total) cases agree with pandoc 2.17")
        #expect(result.unexpected.isEmpty, "\(result.unexpected.joined(separator: "\n"))")
        #expect(result.total >= 40)
    }

    @Test("Protecting then restoring gives back the exact source")
    func restorationIsExact() throws {
        var inputs: [String] = []
        for file in ["mdit-dollar_math.md", "mdit-texmath_dollar.md"] {
            let text = try #require(TestFiles.read(TestFiles.corpora + "/" + file), "the corpus \(file) is missing")
            inputs += MarkdownItCase.parse(text).map(\.input)
            inputs.append(text)
        }
        if let text = TestFiles.read(TestFiles.fixtures + "/delimiters/pandoc-cases.md") {
            inputs += MarkdownItCase.parse(text).map(\.input)
        }
        for name in TestFiles.list(TestFiles.fixtures + "/documents", suffix: ".md") {
            if let text = TestFiles.read(TestFiles.fixtures + "/documents/" + name) { inputs.append(text) }
        }
        inputs += ["", "\u{E000}", "a\u{E000}0\u{E001}b $x$ \u{E000}12\u{E001}", "$a$\r\n$$b\r\nc$$\rd $e$"]
        #expect(inputs.count > 100)
        for input in inputs {
            let protected = MathDelimiterScanner.protect(input)
            #expect(MathToken.restore(protected.text, formulas: protected.formulas) == input)
        }
    }

    @Test("Formula positions are source lines and columns")
    func positions() {
        let protected = MathDelimiterScanner.protect("intro\n\n> quote $a$ and\n> $$\n> b\n> $$\n\nج $c$\n")
        #expect(protected.formulas.map(\.line) == [3, 4, 8])
        #expect(protected.formulas.map(\.column) == [9, 3, 3])
        #expect(protected.formulas[1].tex == "\nb\n")  // container prefixes removed
        #expect(protected.originalLine(4) == 4)
        #expect(protected.originalLine(6) == 8)  // two newlines went with the display formula
    }

    @Test("Hostile delimiter input stays linear", .timeLimit(.minutes(10)))
    func linearTime() {
        let n = 200_000
        let inputs = [
            String(repeating: "$\\text{", count: n / 7), String(repeating: "\\(", count: n / 2),
            String(repeating: "`", count: n / 3) + String(repeating: "` ``", count: n / 4),
            String(repeating: "$$a ", count: n / 4), String(repeating: "$a $", count: n / 4),
            String(repeating: "\\[", count: n / 2), String(repeating: "> - ", count: n / 4) + "$x$",
        ]
        for input in inputs {
            let start = ContinuousClock.now
            _ = MathDelimiterScanner.protect(input)
            // Linear input takes well under a second alone; the bounds leave room for the suite
            // running beside it on 2 cores (6.1 s an input, over a minute for the seven, seen there),
            // while quadratic work on 200,000 characters takes hours.
            #expect(ContinuousClock.now - start < .seconds(120))
        }
    }
}
