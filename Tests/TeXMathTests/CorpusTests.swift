import Foundation
import TeXMath
import Testing

/// The external TeX corpora, vendored in Fixtures/corpora (see Fixtures/SOURCES.md): every formula is converted in
/// both modes; nothing may crash, every output must be well-formed XML using only documented
/// markup, and the clean / MathML Core-valid shares must not fall below the floors.
@Suite("Corpora")
struct CorpusTests {
    struct Floors {
        var clean: Double
        var coreValid: Double
    }

    /// Floors sit a little under the shares measured when they were set, so a regression fails.
    @Test(
        "corpus shares",
        arguments: [
            // Measured: 99.7% clean, 100% valid (n=322).
            ("latex2mathml.jsonl", Floors(clean: 0.97, coreValid: 0.99)),
            // Measured: 100% clean, 100% valid (n=57).
            ("texmath-reader-tex.jsonl", Floors(clean: 0.96, coreValid: 0.99)),
            // Measured: 100% clean, 100% valid (n=558).
            ("texmath-writer-pairs.jsonl", Floors(clean: 0.98, coreValid: 0.99)),
        ])
    func corpus(file: String, floors: Floors) throws {
        let url = Paths.corpora.appendingPathComponent(file)
        // A missing corpus fails the test: it must never pass by measuring nothing.
        try #require(FileManager.default.fileExists(atPath: url.path), "the corpus \(url.path) is missing")
        let cases = try loadJSONL(url, as: CorpusCase.self)
        try #require(cases.count >= 50, "the corpus \(file) has only \(cases.count) cases")
        let checker = try #require(MathMLChecker(schemaPath: Paths.schema.path))
        let verbose = ProcessInfo.processInfo.environment["TEXMATH_VERBOSE"] != nil
        var clean = 0
        var valid = 0
        var wellFormed = 0
        var undocumented: [String] = []
        for item in cases {
            let display = TeXMath.convert(item.tex, display: true)
            let inline = TeXMath.convert(item.tex, display: false)
            if display.warnings.isEmpty {
                clean += 1
            } else if verbose {
                print("UNCLEAN \(file) \(item.id): \(display.warnings.joined(separator: " | "))")
            }
            if MathMLChecker.isWellFormed(display.mathML) && MathMLChecker.isWellFormed(inline.mathML) {
                wellFormed += 1
            } else {
                print("NOT WELL-FORMED \(file) \(item.id): \(display.mathML)")
            }
            let errors = checker.coreErrors(display.mathML) ?? checker.coreErrors(inline.mathML)
            if let errors {
                if verbose { print("INVALID \(file) \(item.id): \(errors)\n  \(display.mathML.prefix(600))") }
            } else {
                valid += 1
            }
            for problem in MathMLChecker.undocumentedMarkup(display.mathML) + MathMLChecker.undocumentedMarkup(inline.mathML) {
                undocumented.append("\(item.id): \(problem)")
            }
        }
        let n = Double(cases.count)
        let cleanShare = Double(clean) / n
        let validShare = Double(valid) / n
        let name = file.replacingOccurrences(of: ".jsonl", with: "")
        print(String(format: "%@: %.1f%% clean, %.1f%% Core-valid, %.1f%% well-formed (n=%d)", name, cleanShare * 100, validShare * 100, Double(wellFormed) / n * 100, cases.count))
        #expect(wellFormed == cases.count)
        #expect(undocumented.isEmpty, "\(undocumented.prefix(10))")
        #expect(cleanShare >= floors.clean)
        #expect(validShare >= floors.coreValid)
    }
}
