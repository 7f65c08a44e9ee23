import Testing

@testable import LecternRender

/// Hostile input must never yield anything that can run script, judged on the parsed tree.
@Suite("Sanitizer")
struct SanitizerTests {
    static let hostile = TestFiles.list(TestFiles.fixtures + "/hostile", suffix: ".md")
    static let smuggled = TestFiles.list(TestFiles.fixtures + "/sanitizer", suffix: ".xml")

    @Test("Hostile Markdown renders to a safe tree", arguments: hostile)
    func hostileMarkdown(name: String) throws {
        let markdown = try #require(TestFiles.read(TestFiles.fixtures + "/hostile/" + name))
        let start = ContinuousClock.now
        let document = try MarkdownRenderer().render(markdown, language: "en", title: nil)
        // No amplification: a few KB of input stays a bounded document, rendered promptly.
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(document.xhtml.utf8.count < 2_000_000)
        let problems = SafetyCheck.problems(in: document.xhtml)
        #expect(problems.isEmpty, "\(problems)")
        let parsed = ParsedXML(document.xhtml)
        #expect(!parsed.elements.contains { ["script", "iframe", "svg", "style", "object", "embed", "form"].contains($0.name) })
        #expect(!parsed.elements.contains { $0.name == "maction" || $0.name == "mglyph" || $0.name == "annotation-xml" })
        // Body-fragment safety as well (it is embedded on its own).
        #expect(SafetyCheck.problems(in: "<div xmlns=\"http://www.w3.org/1999/xhtml\">\(document.body)</div>").isEmpty)
    }

    @Test("TeX commands that could link or restyle produce neither href nor id, class or free style")
    func texInjection() throws {
        let markdown = try #require(TestFiles.read(TestFiles.fixtures + "/hostile/tex-injection.md"))
        let document = try MarkdownRenderer().render(markdown, language: "en", title: nil)
        let parsed = ParsedXML(document.xhtml)
        let math = parsed.elements.filter { $0.namespace == SafetyCheck.mathML }
        #expect(math.count > 50)
        #expect(!math.contains { $0.attributes.contains { ["href", "id", "class", "src"].contains($0.name) || !$0.namespace.isEmpty } })
        #expect(parsed.elements.filter { $0.name == "math" }.count >= 20)
    }

    @Test("A lecture with many kinds of formulas keeps all of the converter's markup")
    func converterMarkupKept() throws {
        let tex = [
            "\\frac{a}{b}", "\\sqrt[3]{x}", "\\sum_{i=1}^n i^2", "\\int_0^\\infty e^{-x}\\,dx", "\\boxed{x}", "\\cancel{y}",
            "\\begin{array}{lcr} a & b & c \\\\ d & e & f \\end{array}", "\\color{red}{z}", "\\mathbf{v} \\cdot \\vec{w}",
            "\\overbrace{a+b}^{n}", "\\left( \\frac{1}{2} \\right)", "{}^{14}_{6}C", "\\text{speed} = \\frac{d}{t}",
            "\\hat{x} \\tilde{y} \\bar{z}", "\\lim_{x \\to 0}", "\\begin{pmatrix} 1 & 0 \\\\ 0 & 1 \\end{pmatrix}",
        ]
        let markdown = tex.map { "Inline $\($0)$ and display:\n\n$$\($0)$$\n" }.joined(separator: "\n")
        let document = try MarkdownRenderer().render(markdown, language: "en", title: nil)
        #expect(!document.warnings.contains { $0.hasPrefix("removed") }, "\(document.warnings)")
        #expect(SafetyCheck.problems(in: document.xhtml).isEmpty, "\(SafetyCheck.problems(in: document.xhtml))")
    }

    @Test("Every javascript: spelling loses its href; safe links keep theirs")
    func linkSpellings() throws {
        let markdown = try #require(TestFiles.read(TestFiles.fixtures + "/hostile/javascript-links.md"))
        let document = try MarkdownRenderer().render(markdown, language: "en", title: nil)
        let parsed = ParsedXML(document.xhtml)
        let hrefs = parsed.elements.filter { $0.name == "a" }.compactMap { $0.attributes.first { $0.name == "href" }?.value }
        #expect(hrefs == ["https://example.com/a?b=c#d", "../notes.md", "mailto:a@example.com", "#top"])
        #expect(!parsed.elements.contains { $0.name == "img" })
        #expect(document.warnings.contains { $0.hasPrefix("line 1: link target “javascript:alert(1)” removed") })
    }

    @Test("Raw HTML is dropped, with a warning")
    func rawHTML() throws {
        let markdown = try #require(TestFiles.read(TestFiles.fixtures + "/hostile/raw-html.md"))
        let document = try MarkdownRenderer().render(markdown, language: "en", title: nil)
        #expect(!document.body.contains("<script") && !document.body.contains("onerror"))
        // Text between dropped inline tags stays as (escaped) text, like any other text.
        #expect(document.body.contains("<p>Inline alert(2) and  and .</p>"))
        #expect(document.warnings.contains("line 1: raw HTML omitted (only Markdown is rendered)"))
    }

    @Test("Crafted XHTML and MathML reaching the sanitizer is cleaned", arguments: smuggled)
    func smuggledMarkup(name: String) throws {
        let xml = try #require(TestFiles.read(TestFiles.fixtures + "/sanitizer/" + name))
        let result = try XMLSanitizer.sanitize(wrapped: Array(xml.utf8))
        let body = String(decoding: result.body, as: UTF8.self)
        let wrapped = "<div xmlns=\"http://www.w3.org/1999/xhtml\">\(body)</div>"
        let problems = SafetyCheck.problems(in: wrapped)
        #expect(problems.isEmpty, "\(problems)")
        // Script text may survive only as escaped character data, never as markup or attributes.
        let parsed = ParsedXML(wrapped)
        #expect(!parsed.elements.contains { $0.attributes.contains { $0.value.contains("alert") } })
        #expect(!body.contains("<script"))
        #expect(!result.warnings.isEmpty)
    }

    @Test("What the sanitizer keeps from crafted XHTML")
    func keptXHTML() throws {
        let xml = try #require(TestFiles.read(TestFiles.fixtures + "/sanitizer/xhtml-smuggling.xml"))
        let body = String(decoding: try XMLSanitizer.sanitize(wrapped: Array(xml.utf8)).body, as: UTF8.self)
        #expect(body.contains("<p title=\"ok\">text</p>"))
        #expect(body.contains("<a href=\"https://ok.example/\">ok</a><a href=\"rel/path\">rel</a>"))
        #expect(body.contains("<a>tab</a><a>case</a><a>hex</a>"))
        #expect(body.contains("<ul><li>kept item</li></ul>"))
        #expect(body.contains("<td style=\"text-align: center\">kept</td><td>styled</td>"))
        #expect(body.contains("loose item") && !body.contains("<li>loose item"))
        #expect(body.contains("unwrapped text") && !body.contains("frame text") && !body.contains("foreign text"))
        #expect(body.contains("<code>c</code><code class=\"language-swift\">s</code>"))
        #expect(body.contains("<blockquote class=\"lectern-quote\">q</blockquote>"))
    }

    @Test("What the parser hands on is written as a tree walk would: empty MathML, comments, annotation text, references")
    func parserEvents() throws {
        let xhtml = "<div xmlns=\"http://www.w3.org/1999/xhtml\">"
        let math = "<math xmlns=\"http://www.w3.org/1998/Math/MathML\">"
        let mathML = try XMLSanitizer.sanitize(
            wrapped: Array(
                (xhtml + math + "<mi><!--c--></mi><mi/><mi></mi><mo><?pi x?></mo><semantics>"
                    + "<annotation encoding=\"a&amp;b\">a<b>c</b>d<![CDATA[<e>]]></annotation></semantics></math></div>").utf8))
        #expect(
            String(decoding: mathML.body, as: UTF8.self)
                == math + "<mi></mi><mi/><mi/><mo></mo><semantics><annotation encoding=\"a&amp;b\">ad&lt;e&gt;</annotation></semantics></math>")
        let text = try XMLSanitizer.sanitize(
            wrapped: Array(
                (xhtml + "<p title=\"a &amp; b &#38; &lt; &#x9; &#10; c\">t &amp; &#169; <![CDATA[ <x> & ]]></p>"
                    + "<br>inside</br><img src=\"x.png\"><b>z</b></img></div>").utf8))
        #expect(
            String(decoding: text.body, as: UTF8.self)
                == "<p title=\"a &amp; b &amp; &lt; &#x9; &#xA; c\">t &amp; \u{A9}  &lt;x&gt; &amp; </p><br/><img src=\"x.png\"/>")
        #expect(mathML.warnings.isEmpty && text.warnings.isEmpty)
    }

    @Test("What the sanitizer keeps from crafted MathML")
    func keptMathML() throws {
        let xml = try #require(TestFiles.read(TestFiles.fixtures + "/sanitizer/mathml-smuggling.xml"))
        let body = String(decoding: try XMLSanitizer.sanitize(wrapped: Array(xml.utf8)).body, as: UTF8.self)
        #expect(body.contains("<math xmlns=\"http://www.w3.org/1998/Math/MathML\" display=\"block\">"))
        #expect(body.contains("<mi>x</mi>"))
        #expect(body.contains("<mi mathcolor=\"red\">y</mi>"))
        #expect(body.contains("<annotation encoding=\"application/x-tex\">x</annotation>"))
        #expect(!body.contains("stray"))
        #expect(!body.contains("nested") && !body.contains("unknown"))
    }

    @Test(
        "URL policy",
        arguments: [
            ("https://example.com", true), ("http://x", true), ("mailto:a@b", true), ("../a", true), ("#x", true),
            ("a/b:c", true), ("?q=a:b", true), ("", true), ("javascript:alert(1)", false), ("JAVASCRIPT:x", false),
            (" javascript:x", false), ("java\tscript:x", false), ("java\nscript:x", false), ("\u{1}javascript:x", false),
            ("java script:x", false), ("&#0000106avascript:x", false), ("javascript&colon;x", false),
            ("&#x6A&#x61vascript:x", false), ("&amp;", true), ("a&b=c", true), ("vbscript:x", false), ("data:text/html,x", false), ("file:///etc", false),
            (":x", false), ("ｊavascript:x", false), ("\u{200B}javascript:x", false),
        ])
    func urlPolicy(url: String, allowed: Bool) {
        #expect(URLPolicy.isAllowed(url, schemes: URLPolicy.linkSchemes) == allowed)
        if !url.contains("&"), !url.hasPrefix("\u{200B}"), !url.hasPrefix("ｊ") {
            #expect(SafetyCheck.urlIsSafe(url, schemes: ["http", "https", "mailto"]) == allowed)
        }
    }
}
