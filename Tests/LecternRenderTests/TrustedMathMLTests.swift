import Testing

@testable import LecternRender

/// The converter's MathML goes into documents without a second parse (`MathSlot`). That is safe
/// only if it is exactly what the sanitizer would have made of it: every document of the test
/// fixtures, the Markdown math corpora, the fuzz seeds and each TeX fuzz-corpus formula (inline and
/// display) renders to the same bytes and warnings both ways, and passes the safety check.
@Suite("Trusted MathML")
struct TrustedMathMLTests {
    static func documents() -> [(name: String, markdown: String)] {
        var found: [(String, String)] = []
        let folders = [
            TestFiles.fixtures + "/documents", TestFiles.fixtures + "/hostile", TestFiles.fixtures + "/delimiters",
            TestFiles.corpora, TestFiles.packageRoot + "/fuzz/RenderFuzz/seeds",
        ]
        for folder in folders {
            for name in TestFiles.list(folder, suffix: ".md") {
                if let text = TestFiles.read(folder + "/" + name) { found.append((name, text)) }
            }
        }
        let formulas = TestFiles.packageRoot + "/fuzz/corpus-texmath"
        for name in TestFiles.list(formulas, suffix: ".tex") {
            guard let tex = TestFiles.read(formulas + "/" + name) else { continue }
            found.append((name, "Inline $" + tex + "$ and display:\n\n$$\n" + tex + "\n$$\n\n```math\n" + tex + "\n```\n"))
        }
        return found
    }

    @Test("There are documents with math")
    func documentsExist() {
        let documents = Self.documents()
        #expect(documents.count >= 80)
        #expect(documents.filter { $0.markdown.contains("$") }.count >= 50)
    }

    @Test("Trusted and re-parsed MathML give the same document")
    func sameBytesBothWays() throws {
        var compared = 0
        for (name, markdown) in Self.documents() {
            for language in ["en", "ar"] {
                let trusted = try? MarkdownRenderer().render(markdown, language: language, title: nil)
                let parsed = try? MarkdownRenderer(trustsMathML: false).render(markdown, language: language, title: nil)
                #expect(trusted?.xhtml == parsed?.xhtml, "\(name) (\(language))")
                #expect(trusted?.warnings == parsed?.warnings, "\(name) (\(language))")
                if let trusted {
                    #expect(SafetyCheck.problems(in: trusted.xhtml).isEmpty, "\(name): \(SafetyCheck.problems(in: trusted.xhtml))")
                    compared += 1
                }
            }
        }
        #expect(compared >= 160)
    }

    @Test("A formula repeated across documents is converted once and renders the same")
    func repeatedFormulas() throws {
        let markdown = "Let $\\frac{1}{2}$ be $x$, and $$\\sum_{i=1}^n i$$ again $\\frac{1}{2}$."
        let first = try MarkdownRenderer().render(markdown, language: "en", title: nil)
        let second = try MarkdownRenderer().render(markdown, language: "en", title: nil)
        #expect(first.xhtml == second.xhtml)
        #expect(first.xhtml.components("<math").count == 5, "four formulas")
        #expect(first.xhtml == (try MarkdownRenderer(trustsMathML: false).render(markdown, language: "en", title: nil)).xhtml)
    }
}

extension String {
    /// `self` split on `separator` (without Foundation).
    fileprivate func components(_ separator: String) -> [Substring] {
        var parts: [Substring] = []
        var rest = self[...]
        while let range = rest.range(of: separator) {
            parts.append(rest[..<range.lowerBound])
            rest = rest[range.upperBound...]
        }
        parts.append(rest)
        return parts
    }
}
