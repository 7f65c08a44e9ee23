import Foundation
import LecternRandom
import Testing

@testable import TeXMath

/// The one-pass writer (`OnePass`) must write what the converter writes, byte for byte, for every
/// formula it takes, and hand back every formula it cannot take.
@Suite("One-pass formulas")
struct OnePassTests {
    /// Every formula the project has: the TeX corpora and fixtures, KaTeX's test suite, the
    /// extracted documents, the fuzz corpus, and the formulas of the recorded examples.
    static func corpusFormulas() throws -> [String] {
        var formulas: [String] = []
        let root = Paths.packageRoot
        var files = try FileManager.default.contentsOfDirectory(atPath: Paths.corpora.path)
            .filter { $0.hasSuffix(".jsonl") }.map { Paths.corpora.appendingPathComponent($0) }
        files.append(root.appendingPathComponent("Tests/TeXMathTests/Fixtures/cases.jsonl"))
        let suites = root.appendingPathComponent("benchmarks/tex-suites")
        files += try FileManager.default.contentsOfDirectory(atPath: suites.path).filter { $0.hasSuffix(".jsonl") }
            .map { suites.appendingPathComponent($0) }
        struct Line: Decodable { var tex: String }
        for file in files { formulas += try loadJSONL(file, as: Line.self).map(\.tex) }
        let fuzz = root.appendingPathComponent("fuzz/corpus-texmath")
        for name in try FileManager.default.contentsOfDirectory(atPath: fuzz.path) where name.hasSuffix(".tex") {
            formulas.append(try String(contentsOf: fuzz.appendingPathComponent(name), encoding: .utf8))
        }
        // The recorded examples' lectures and questions: what Lectern renders in practice.
        let cassettes = root.appendingPathComponent("pipelines/cassettes")
        for name in try FileManager.default.contentsOfDirectory(atPath: cassettes.path) where name.hasSuffix(".jsonl") {
            let text = try String(contentsOf: cassettes.appendingPathComponent(name), encoding: .utf8)
            formulas += Self.dollarFormulas(in: text)
        }
        return formulas
    }

    /// `$…$` spans of JSON-escaped text, unescaped (good enough to collect test input).
    static func dollarFormulas(in text: String) -> [String] {
        var found: [String] = []
        for line in text.split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let response = object["response"] as? [String: Any], let content = response["content"] as? String
            else { continue }
            let pieces = content.split(separator: "$", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() where index % 2 == 1 && !piece.isEmpty && piece.count < 200 {
                found.append(String(piece))
            }
        }
        return found
    }

    static func compare(_ tex: String, display: Bool) -> (taken: Bool, same: Bool) {
        guard let fast = OnePass.convert(tex, display: display) else { return (false, true) }
        let tree = TeXMath.convertWithTree(tex, display: display)
        return (true, tree.warnings.isEmpty && tree.mathML == fast)
    }

    @Test("Every corpus formula it takes is written as the converter writes it")
    func corpora() throws {
        let formulas = try Self.corpusFormulas()
        #expect(formulas.count > 5_000)
        var taken = 0
        var differing: [String] = []
        for tex in formulas {
            for display in [false, true] {
                let result = Self.compare(tex, display: display)
                if result.taken { taken += 1 }
                if !result.same { differing.append(tex) }
            }
        }
        #expect(differing.isEmpty, "\(differing.count) differ, e.g. \(differing.prefix(8))")
        // It takes a good share of real formulas (the corpora are mostly edge cases).
        #expect(taken > 2_000, "took \(taken) of \(formulas.count * 2)")
    }

    /// Formulas built from the one-pass writer's pieces and a few that it must refuse.
    static func generated(_ rng: inout SplitMix64, depth: Int = 0) -> String {
        let atoms = [
            "x", "y", "n", "ab", "12", "3.14", ".5", "1.", "+", "-", "=", "<", ">", ",", ";", ":", "!", "?", "*", "/",
            "(", ")", "[", "]", "|", ".", "\\alpha", "\\Omega", "\\pm", "\\times", "\\cdot", "\\le", "\\to",
            "\\infty", "\\{", "\\}", "\\|", "\\langle", "\\sum", "\\prod", "\\int", "\\oint", "\\lim", "\\max", "\\sin",
            "\\log", "\\ln", "\\det", "\\,", "\\;", "\\quad", "\\!", "\\ ", "\\cap", "\\in", "\\ldots", "\\partial",
            "\\nabla", "\\&", "\\%", "\\#", "\\_", "'", "''", "x'", "f''", " ", "  ",
            // Outside the subset: the converter's alone.
            "\\mathbf{x}", "\\left(", "\\right)", "\\text{a b}", "\\sqrt[3]{x}", "\\over", "\\limits", "\\nolimits", "&",
            "\\\\", "~", "é", "\\hat{x}", "\\color{red}", "\\displaystyle", "\\bf", "#", "%c\n", "\\frac12",
        ]
        var out = ""
        for _ in 0..<(1 + Int(rng.next() % 5)) {
            let pick = Int(rng.next() % 100)
            if depth < 3, pick < 10 {
                out += "{" + generated(&rng, depth: depth + 1) + "}"
            } else if depth < 3, pick < 16 {
                out += "\\frac{" + generated(&rng, depth: depth + 1) + "}{" + generated(&rng, depth: depth + 1) + "}"
            } else if depth < 3, pick < 20 {
                out += "\\sqrt{" + generated(&rng, depth: depth + 1) + "}"
            } else if depth < 3, pick < 24 {
                let fences = ["(", ")", "[", "]", "|", ".", "/", "\\{", "\\}", "\\langle", "\\rangle", "\\|", "<", "\\lt", "x", ""]
                out +=
                    "\\left" + fences[Int(rng.next() % UInt64(fences.count))] + generated(&rng, depth: depth + 1) + "\\right"
                    + fences[Int(rng.next() % UInt64(fences.count))]
            } else if depth < 3, pick < 30 {
                let script = rng.next() % 2 == 0 ? "x" : "{" + generated(&rng, depth: depth + 1) + "}"
                out += (rng.next() % 2 == 0 ? "^" : "_") + script
            } else {
                out += atoms[Int(rng.next() % UInt64(atoms.count))]
            }
            if rng.next() % 4 == 0 { out += " " }
        }
        return out
    }

    @Test("Generated formulas: taken ones written as the converter writes them")
    func generatedFormulas() {
        var rng = SplitMix64(state: 2026_11_29)
        var taken = 0
        var differing: [String] = []
        for _ in 0..<20_000 {
            let tex = Self.generated(&rng)
            let result = Self.compare(tex, display: rng.next() % 2 == 0)
            if result.taken { taken += 1 }
            if !result.same { differing.append(tex) }
        }
        #expect(differing.isEmpty, "\(differing.count) differ, e.g. \(differing.prefix(8))")
        #expect(taken > 2_000 && taken < 19_000, "took \(taken) of 20,000")
    }

    @Test("What it takes and what it hands back")
    func subset() {
        for tex in [
            "E = mc^2", "\\frac{n(n+1)}{2}", "\\sum_{i=1}^n i", "n \\log n", "\\lim_{x \\to 0} \\frac{\\sin x}{x}", "f'(x)", "", "\\left(1 + \\frac{1}{n}\\right)^n", "\\left.\\right.",
            "\\left/ x \\right\\|", "\\sin\\left( x \\right)",
        ] {
            let result = Self.compare(tex, display: false)
            #expect(result.taken && result.same, "\(tex)")
        }
        for tex in ["x^2^3", "\\mathbf{x}", "\\sqrt[3]{x}", "a & b", "\\left( x \\middle| y \\right)", "\\left( x", "{x", "x}", "é", "\\newcommand{\\a}{b}\\a", "^2"] {
            #expect(OnePass.convert(tex, display: false) == nil, "\(tex)")
        }
        // Through the public entry point, one formula each way gives the converter's bytes.
        let tree = TeXMath.convertWithTree("\\sum_{i=1}^n i", display: true)
        #expect(TeXMath.convert("\\sum_{i=1}^n i", display: true) == MathMLConversion(mathML: String(decoding: tree.mathML, as: UTF8.self), warnings: tree.warnings))
    }
}
