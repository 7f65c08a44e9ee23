import Foundation
import TeXMath
import Testing

/// One fixture: TeX in, properties of the MathML out (Fixtures/cases.jsonl).
struct FixtureCase: Decodable, CustomTestStringConvertible, Sendable {
    var id: String
    var tex: String
    var display: Bool?
    /// true: no warnings; false: at least one warning.
    var clean: Bool?
    /// Substrings the presentation markup (before the annotation) must contain.
    var contains: [String]?
    /// Substrings the presentation markup must not contain.
    var absent: [String]?
    /// A substring one of the warnings must contain.
    var warning: String?

    var testDescription: String { id }

    static func all() throws -> [FixtureCase] {
        guard let url = Bundle.module.url(forResource: "Fixtures/cases", withExtension: "jsonl") else { return [] }
        return try loadJSONL(url, as: FixtureCase.self)
    }
}

@Suite("Fixtures")
struct FixtureTests {
    @Test("fixture", arguments: try FixtureCase.all())
    func fixture(_ item: FixtureCase) throws {
        let result = TeXMath.convert(item.tex, display: item.display ?? false)
        let presentation = result.mathML.components(separatedBy: "<annotation").first ?? ""
        for expected in item.contains ?? [] {
            #expect(presentation.contains(expected), "missing \(expected) in \(presentation)")
        }
        for forbidden in item.absent ?? [] {
            #expect(!presentation.contains(forbidden), "unexpected \(forbidden) in \(presentation)")
        }
        if let clean = item.clean {
            #expect(result.warnings.isEmpty == clean, "warnings: \(result.warnings)")
        }
        if let warning = item.warning {
            #expect(result.warnings.contains { $0.contains(warning) }, "warnings: \(result.warnings)")
        }
        #expect(MathMLChecker.isWellFormed(result.mathML), "\(result.mathML)")
        let checker = try #require(MathMLChecker(schemaPath: Paths.schema.path))
        #expect(checker.coreErrors(result.mathML) == nil, "\(checker.coreErrors(result.mathML) ?? "")")
        #expect(MathMLChecker.undocumentedMarkup(result.mathML).isEmpty)
    }

    @Test("fixtures are present")
    func fixturesLoad() throws {
        #expect(try FixtureCase.all().count >= 50)
    }
}

@Suite("Converter behaviour")
struct BehaviourTests {
    @Test("the source is kept, escaped, in the annotation")
    func annotation() {
        let result = TeXMath.convert("a<b & \"c\"", display: false)
        #expect(result.mathML.hasSuffix("<annotation encoding=\"application/x-tex\">a&lt;b &amp; \"c\"</annotation></semantics></math>"))
    }

    @Test("documented markup excludes everything a sanitizer must never allow")
    func documentedMarkup() {
        for forbidden in ["maction", "mglyph", "annotation-xml", "a", "menclose", "script"] {
            #expect(!TeXMath.emittedElements.contains(forbidden))
        }
        for forbidden in ["href", "xlink:href", "class", "id", "src", "onclick"] {
            #expect(!TeXMath.emittedAttributes.contains(forbidden))
        }
        #expect(!TeXMath.emittedAttributes.contains { $0.hasPrefix("on") })
        #expect(!TeXMath.emittedStyleValues.contains { $0.contains("url") || $0.contains("(") })
    }

    @Test("same input, same output")
    func deterministic() {
        let tex = #"\sum_{i=1}^n \frac{\alpha_i}{\sqrt{i}} \begin{pmatrix}a&b\end{pmatrix}"#
        #expect(TeXMath.convert(tex, display: true) == TeXMath.convert(tex, display: true))
    }

    /// Deep input must end in an error node, not a stack overflow, even on a secondary thread
    /// with a small stack (the renderer may run on any thread).
    @Test("deep nesting stays within a 512 KiB stack")
    func deepNestingOnSmallStack() async {
        let inputs = [
            String(repeating: "{", count: 5000) + "x" + String(repeating: "}", count: 5000),
            String(repeating: #"\frac{"#, count: 2000) + "1" + String(repeating: "}{2}", count: 2000),
            String(repeating: #"\left("#, count: 2000) + String(repeating: #"\right)"#, count: 2000),
            String(repeating: #"\sqrt["#, count: 2000) + "x",
            String(repeating: #"\hat"#, count: 5000) + "x",
            String(repeating: "x^{", count: 3000),
            String(repeating: #"\text{"#, count: 3000),
            String(repeating: #"\begin{pmatrix}"#, count: 1000),
            String(repeating: #"\textcolor{red}{"#, count: 2000),
            String(repeating: "x^", count: 5000) + "y",
        ]
        let finished = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let thread = Thread {
                var ok = true
                for input in inputs {
                    for display in [false, true] {
                        let result = TeXMath.convert(input, display: display)
                        ok = ok && result.mathML.hasSuffix("</math>") && !result.warnings.isEmpty
                    }
                }
                continuation.resume(returning: ok)
            }
            thread.stackSize = 512 * 1024
            thread.start()
        }
        #expect(finished)
    }

    @Test("long hostile input converts in linear time")
    func throughput() {
        let chunk = #"\frac{a}{b} + \sqrt[3]{x^2_i} \def\q#1{#1#1} \q{\q{y}} \left( \begin{pmatrix} 1 & 2 \end{pmatrix} \right) "#
        let input = String(repeating: chunk, count: 400)
        let clock = ContinuousClock()
        let elapsed = clock.measure { _ = TeXMath.convert(input, display: true) }
        #expect(elapsed < .seconds(10))
    }
}
