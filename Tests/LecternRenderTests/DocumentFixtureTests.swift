import LecternRender
import Testing

/// Fixtures/documents/NAME[.LANG].md → NAME[.LANG].xhtml: the full document, with each formula's
/// MathML reduced to its TeX (see `normalizingMath`) so the fixtures check structure, containers,
/// escaping and sanitizing independently of the TeX converter's markup.
/// `LECTERN_UPDATE_FIXTURES=1 swift test` rewrites the expected files (review the diff).
@Suite("Document fixtures")
struct DocumentFixtureTests {
    static let directory = TestFiles.fixtures + "/documents"
    static let names = TestFiles.list(directory, suffix: ".md").map { String($0.dropLast(3)) }

    /// "arabic-lecture.ar" → "ar"; no language part → "en".
    static func language(of name: String) -> String {
        let parts = name.split(separator: ".")
        return parts.count > 1 ? String(parts[parts.count - 1]) : "en"
    }

    @Test("There are fixtures")
    func fixturesExist() {
        #expect(Self.names.count >= 5)
    }

    @Test("Rendered document matches the expected file", arguments: names)
    func matchesExpected(name: String) throws {
        let markdown = try #require(TestFiles.read("\(Self.directory)/\(name).md"))
        let document = try MarkdownRenderer().render(markdown, language: Self.language(of: name), title: nil)
        #expect(SafetyCheck.problems(in: document.xhtml).isEmpty, "\(SafetyCheck.problems(in: document.xhtml))")
        // The converter's own markup passes the sanitizer untouched.
        #expect(!document.warnings.contains { $0.hasPrefix("removed") }, "\(document.warnings)")
        let actual = normalizingMath(document.xhtml)
        let expectedPath = "\(Self.directory)/\(name).xhtml"
        if TestFiles.updateFixtures {
            TestFiles.write(expectedPath, actual)
            return
        }
        let expected = try #require(TestFiles.read(expectedPath), "missing \(expectedPath): run with LECTERN_UPDATE_FIXTURES=1")
        #expect(actual == expected)
    }
}
