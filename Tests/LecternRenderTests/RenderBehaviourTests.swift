import Testing

@testable import LecternRender

@Suite("Rendering behaviour")
struct RenderBehaviourTests {
    let renderer = MarkdownRenderer()

    @Test("Document shell: XML declaration, namespaces, lang, xml:lang, dir, charset, title, stylesheet")
    func shell() throws {
        let d = try renderer.render("Hello", language: "en-GB", title: "A <title> & more")
        #expect(d.xhtml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n"))
        #expect(d.xhtml.contains("<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en-GB\" xml:lang=\"en-GB\" dir=\"ltr\">"))
        #expect(d.xhtml.contains("<meta charset=\"utf-8\"/>"))
        #expect(d.xhtml.contains("<title>A &lt;title&gt; &amp; more</title>"))
        #expect(d.xhtml.contains("<link rel=\"stylesheet\" href=\"lectern.css\"/>"))
        #expect(d.body == "<p>Hello</p>\n")
        #expect(d.title == "A <title> & more")
        #expect(ParsedXML(d.xhtml).error == nil)
    }

    @Test(
        "Right-to-left languages and scripts",
        arguments: [
            ("ar", TextDirection.rightToLeft), ("ar-EG", .rightToLeft), ("he", .rightToLeft), ("fa", .rightToLeft),
            ("ur", .rightToLeft), ("yi", .rightToLeft), ("ckb", .rightToLeft), ("az-Arab", .rightToLeft),
            ("ug-Latn", .leftToRight), ("en", .leftToRight), ("fr-CA", .leftToRight), ("zh-Hant-TW", .leftToRight),
        ])
    func direction(language: String, direction: TextDirection) throws {
        let d = try renderer.render("نص $x$", language: language, title: nil)
        #expect(d.direction == direction)
        #expect(d.xhtml.contains("lang=\"\(language)\" xml:lang=\"\(language)\" dir=\"\(direction.rawValue)\""))
    }

    @Test("Invalid language codes are errors that say what to do", arguments: ["", "e", "english!", "en_US", "ar-", "x-toolongsubtag"])
    func invalidLanguage(language: String) {
        let error = #expect(throws: RenderError.self) { try renderer.render("x", language: language, title: nil) }
        #expect(error?.kind == .invalidLanguage)
        #expect(error?.description.contains("BCP 47") == true)
    }

    @Test("Title falls back to the first heading, then Untitled")
    func titles() throws {
        #expect(try renderer.render("intro\n\n## Second *level* `code` $x$\n\n# First", language: "en", title: nil).title == "Second level code x")
        #expect(try renderer.render("no heading", language: "en", title: nil).title == "Untitled")
    }

    @Test("Containers: code, display math, quotes; inline math stays inline")
    func containers() throws {
        let d = try renderer.render("> said $x$\n\n```c\nint $a$;\n```\n\n$$y$$\n", language: "en", title: nil)
        let parsed = ParsedXML(d.xhtml)
        let quote = try #require(parsed.elements.first { $0.name == "blockquote" })
        #expect(quote.attributes.contains { $0.name == "class" && $0.value == "lectern-quote" })
        let inlineMath = try #require(parsed.elements.first { $0.name == "math" })
        #expect(inlineMath.ancestors.suffix(2) == ["blockquote", "p"])
        let code = try #require(parsed.elements.first { $0.name == "code" })
        #expect(code.ancestors.suffix(2) == ["div", "pre"])
        #expect(code.attributes.map(\.value) == ["language-c"])
        #expect(d.body.contains("<div class=\"lectern-code\" dir=\"ltr\"><pre><code class=\"language-c\">int $a$;\n</code></pre></div>"))
        let display = try #require(parsed.elements.last { $0.name == "math" })
        #expect(display.ancestors.last == "div")
        #expect(d.body.contains("<div class=\"lectern-math\" dir=\"ltr\"><math"))
    }

    @Test("Table alignment is a style attribute, not align")
    func tableAlignment() throws {
        let d = try renderer.render("| a | b | c | d |\n|:-|:-:|-:|--|\n| 1 | 2 | 3 | 4 |\n", language: "en", title: nil)
        #expect(d.body.contains("<th style=\"text-align: left\">a</th>\n<th style=\"text-align: center\">b</th>\n<th style=\"text-align: right\">c</th>\n<th>d</th>"))
        #expect(d.body.contains("<td style=\"text-align: right\">3</td>"))
        #expect(!d.body.contains("align=\""))
    }

    @Test("Warnings carry source lines")
    func warnings() throws {
        let d = try renderer.render("a\n\n$$\nx\n$$\n\n<b>raw</b>\n\n[x](javascript:y)", language: "en", title: nil)
        #expect(d.warnings.contains("line 7: inline HTML omitted (only Markdown is rendered)"))
        #expect(d.warnings.contains { $0.hasPrefix("line 9: link target") })
    }

    @Test("Deep nesting is flattened, not an error")
    func deepNesting() throws {
        for markdown in [
            String(repeating: ">", count: 5000) + " deep $x$", String(repeating: "- ", count: 3000) + "x",
            String(repeating: "*", count: 2000) + "a" + String(repeating: "*", count: 2000),
            String(repeating: "[", count: 3000) + "a" + String(repeating: "](u)", count: 3000),
        ] {
            let d = try renderer.render(markdown, language: "en", title: nil)
            #expect(ParsedXML(d.xhtml).error == nil)
        }
    }

    @Test("Control characters inside formulas do not break the document (fuzz finding)")
    func controlCharactersInMath() throws {
        for markdown in ["$$x\u{0B}\u{0B}$$$$ )\n", "$a\u{1}b$", "\\(\u{FFFE}\\)"] {
            let d = try renderer.render(markdown, language: "en", title: nil)
            #expect(ParsedXML(d.xhtml).error == nil)
        }
    }

    @Test("Error descriptions say where")
    func errorDescription() {
        #expect(RenderError(kind: .malformedOutput, message: "m", line: 3, column: 5).description == "line 3, column 5: m")
        #expect(RenderError(kind: .malformedOutput, message: "m", line: 3).description == "line 3: m")
        #expect(RenderError(kind: .inputTooLarge, message: "m").description == "m")
    }

    @Test("Malformed markup reaching libxml2 is an error, not output")
    func malformed() {
        #expect(throws: LibXML.Failure.self) { try XMLSanitizer.sanitize(wrapped: Array("<div><math></div>".utf8)) }
        #expect(throws: LibXML.Failure.self) { try XMLSanitizer.sanitize(wrapped: Array("<div>&nbsp;</div>".utf8)) }
    }

    @Test("Too large input is refused")
    func tooLarge() {
        let big = String(repeating: "a", count: MarkdownRenderer.maximumInputBytes + 1)
        #expect(throws: RenderError.self) { try renderer.render(big, language: "en", title: nil) }
    }

    @Test("Concurrent rendering gives the same results as sequential")
    func concurrency() async throws {
        let inputs = (0..<64).map { i in
            "# T\(i)\n\n~~gone~~ $x_\(i)$ and | a |\n\n| a | b |\n|---|:-:|\n| ~~\(i)~~ | $y$ |\n\nwww.example.com/\(i) ~~s~~\n"
        }
        let expected = try inputs.map { try renderer.render($0, language: "en", title: "T0").xhtml }
        let shared = renderer
        let results = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for round in 0..<4 {
                for (i, input) in inputs.enumerated() {
                    group.addTask { (i, try shared.render(input, language: "en", title: "T\(round % 1)").xhtml) }
                }
            }
            var all: [(Int, String)] = []
            for try await r in group { all.append(r) }
            return all
        }
        #expect(results.count == 256)
        for (i, xhtml) in results { #expect(xhtml == expected[i]) }
    }

    @Test("The stylesheet styles every container")
    func stylesheet() {
        #expect(LecternStylesheet.fileName == "lectern.css")
        for selector in [".lectern-code", ".lectern-math", ".lectern-quote", "math"] {
            #expect(LecternStylesheet.contents.contains(selector + " {"))
        }
    }
}
