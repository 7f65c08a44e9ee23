import Foundation
import LecternMarkdown
import LecternRender
import Testing

/// The checks and the renderer read a text the same way: what `MarkdownLayout` (the reading
/// every check shares) calls a code block, a code span or a formula is what the real renderer
/// (cmark-gfm behind the math pre-pass) shows as `<pre>`, `<code>` and `<math>` — on every text
/// of every answer in the committed cassettes (refused attempts included), every Markdown
/// fixture of the test targets and every Markdown corpus file the examples read.
struct MarkdownAgreementTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized

    /// (where, text): each string of each cassette answer (a lecture's Markdown whole), and each
    /// `.md` file under Tests/*/Fixtures, pipelines/ and corpus/ (the examples' source documents).
    static let corpus: [(String, String)] = {
        var texts: [(String, String)] = []
        func strings(_ value: Any, _ place: String) {
            if let text = value as? String {
                texts.append((place, text))
            } else if let array = value as? [Any] {
                for (i, element) in array.enumerated() { strings(element, "\(place)[\(i)]") }
            } else if let object = value as? [String: Any] {
                for key in object.keys.sorted() { strings(object[key]!, "\(place).\(key)") }
            }
        }
        let cassettes = root.appendingPathComponent("pipelines/cassettes")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: cassettes.path)) ?? []
        for file in files.sorted() where file.hasSuffix(".jsonl") {
            guard let data = FileManager.default.contents(atPath: cassettes.appendingPathComponent(file).path) else { continue }
            for (number, line) in data.split(separator: UInt8(ascii: "\n")).enumerated() {
                guard let record = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                    let content = (record["response"] as? [String: Any])?["content"] as? String
                else { continue }
                if let answer = try? JSONSerialization.jsonObject(with: Data(content.utf8)) {
                    strings(answer, "\(file):\(number + 1)")
                } else {
                    texts.append(("\(file):\(number + 1)", content))
                }
            }
        }
        for folder in ["Tests", "pipelines", "corpus"] {
            let base = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(atPath: base.path) else { continue }
            for case let path as String in walker where path.hasSuffix(".md") && (folder != "Tests" || path.contains("/Fixtures/")) {
                if let text = try? String(contentsOf: base.appendingPathComponent(path), encoding: .utf8) { texts.append(("\(folder)/\(path)", text)) }
            }
        }
        return texts
    }()

    static func occurrences(_ needle: String, in haystack: String) -> Int {
        haystack.components(separatedBy: needle).count - 1
    }

    /// What the page shows: code blocks, inline code and formulas (a ```math block is a formula).
    static func shown(_ xhtml: String) -> (blocks: Int, spans: Int, formulas: Int) {
        let blocks = occurrences("<pre>", in: xhtml)
        return (blocks, occurrences("<code", in: xhtml) - occurrences("<pre><code", in: xhtml), occurrences("<math", in: xhtml))
    }

    /// What the checks read. A formula in an image's description (`![the curve $y$](plot.svg)`)
    /// is shown as its TeX in the image's alt text, which holds no markup: not counted.
    static func read(_ layout: MarkdownLayout) -> (blocks: Int, spans: Int, formulas: Int) {
        let mathBlocks = layout.codeBlocks.filter(\.isMath).count
        let bytes = Array(layout.source.utf8)
        let inAlt = layout.formulas.filter { formula in
            // On its line, an opening "![" before it with no "]" between.
            var i = formula.range.lowerBound - 1
            while i > 0, bytes[i] != UInt8(ascii: "\n"), bytes[i] != UInt8(ascii: "]") {
                if bytes[i] == UInt8(ascii: "["), bytes[i - 1] == UInt8(ascii: "!") { return true }
                i -= 1
            }
            return false
        }.count
        return (layout.codeBlocks.count - mathBlocks, layout.codeSpans.count, layout.formulas.count - inAlt + mathBlocks)
    }

    @Test func theRendererShowsWhatTheChecksRead() async throws {
        #expect(Self.corpus.count > 5_000, "\(Self.corpus.count) texts: every recorded answer's strings and every Markdown file (6,069 on 2026-11-30)")
        let renderer = MarkdownRenderer()
        var disagreements: [String] = []
        var totals = (blocks: 0, spans: 0, formulas: 0)
        for (index, (place, text)) in Self.corpus.enumerated() {
            if index % 20 == 0 { await Task.yield() }
            let layout = MarkdownLayout(text)
            let read = Self.read(layout)
            let page = try renderer.render(text, language: "en", title: nil)
            let shown = Self.shown(page.xhtml)
            totals = (totals.blocks + read.blocks, totals.spans + read.spans, totals.formulas + read.formulas)
            if read != shown {
                disagreements.append("\(place): the checks read \(read), the page shows \(shown): \(text.prefix(200).debugDescription)")
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) texts:\n\(disagreements.prefix(15).joined(separator: "\n"))")
        // The corpus exercises all three.
        #expect(totals.blocks > 50 && totals.spans > 500 && totals.formulas > 500, "\(totals)")
        print("MarkdownAgreementTests: \(Self.corpus.count) texts, \(totals.blocks) code blocks, \(totals.spans) code spans, \(totals.formulas) formulas")
    }
}
