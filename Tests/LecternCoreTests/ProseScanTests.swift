import Foundation
import Testing

@testable import LecternCore

/// The scanners that replaced the question checks' Swift Regex paths (`ProseScan`) give what the
/// patterns gave — on every text of every answer recorded in the committed cassettes (refused
/// answers included), and on edge cases the cassettes may lack. What is code and math in a text
/// is `MarkdownLayout`'s reading, held to the renderer by `MarkdownAgreementTests`.
struct ProseScanTests {
    /// Every string of every answer in pipelines/cassettes/*.jsonl, and each answer that is not
    /// JSON (a lecture) whole.
    static let corpus: [String] = {
        let cassettes = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../pipelines/cassettes").standardized
        var texts: [String] = []
        func strings(_ value: Any) {
            if let text = value as? String {
                texts.append(text)
            } else if let array = value as? [Any] {
                array.forEach(strings)
            } else if let object = value as? [String: Any] {
                object.keys.sorted().forEach { strings(object[$0]!) }
            }
        }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: cassettes.path)) ?? []
        for file in files.sorted() where file.hasSuffix(".jsonl") {
            guard let data = FileManager.default.contents(atPath: cassettes.appendingPathComponent(file).path) else { continue }
            for line in data.split(separator: UInt8(ascii: "\n")) {
                guard let record = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                    let content = (record["response"] as? [String: Any])?["content"] as? String
                else { continue }
                if let answer = try? JSONSerialization.jsonObject(with: Data(content.utf8)) {
                    strings(answer)
                } else {
                    texts.append(content)
                }
            }
        }
        return texts
    }()

    static let edgeCases = [
        "", "?", "??", "a?b?", "a.?", "What? Why?? How?!", "Is it `x?` or $y?$ here? Yes.", "unclosed `code? here\nnext? line",
        "$$ only", "$a$$b$ c?", "$$x$$$ y?", "one $ dollar?", "He asked 'Why?' and left. Then what?", "«Quoi?» Pourqoi ?", "ما هذا؟ لماذا؟",
        "Line one\r\nIs this CRLF?", "e\u{301}? combining", "?\u{301} mark with accent", "```python\nprint('a?')\n```\nWhat prints?",
        "`a` `b` `c?`", "``double?`` ticks", "Ready? Guess what? Isn't it fun how this works? Explain the loop.",
    ]

    /// A model's answer that loops: one "sentence" thousands of characters long, with no `.`, `!`,
    /// `?` or line break in it, where the patterns' leftmost search restarts at every character.
    static let loop = "{\"steps\":[\"" + String(repeating: "Create a program that generates samples, calculates the frequency of each sample\",\"", count: 36) + "Plot"

    /// The longest text the patterns are run on. The pattern `[^.!?؟\n]*[?؟]+` costs the square
    /// of a sentence's length when no question mark ends it, and Swift Regex in a debug build
    /// made that minutes: of the corpus's different texts, the two above this bound (intro-
    /// probability's project answers cut off in a loop, 11,556 and 34,653 characters of one
    /// sentence) were 97% of the patterns' work and 13 of the suite's minutes on one core.
    /// `loop` stands in for them.
    static let longestText = 10_000

    /// The corpus without its repeats (a refused answer's strings come back in its next
    /// attempts: 13,033 strings, 3,621 different) and the texts over `longestText`, and the edge
    /// cases: each pattern is run once per different text.
    static let texts: [String] = {
        var seen = Set<String>()
        return (corpus.filter { $0.utf8.count <= longestText } + edgeCases + [loop]).filter { seen.insert($0).inserted }
    }()

    @Test func theBoundLeavesOutOnlyTheLoopingAnswers() {
        let left = Set(Self.corpus.filter { $0.utf8.count > Self.longestText })
        #expect(left.count <= 2, "\(left.map(\.utf8.count)) characters: texts the patterns no longer read")
        #expect(Self.loop.utf8.count > 3_000 && !Self.loop.contains(where: { ".!?\n".contains($0) }))
    }

    @Test func theCorpusIsThere() {
        #expect(Self.corpus.count > 1_000, "\(Self.corpus.count) texts read from pipelines/cassettes")
    }

    /// Every `yieldEvery` texts the corpus tests give their thread back: Swift Regex in a debug
    /// build makes each of them minutes of CPU, and without a pause they held both threads of a
    /// 2-core machine's pool for ten minutes, so that every other test of the suite waited (the
    /// local-model start-up tests ran out their 600 s bound on a server that was up).
    static let yieldEvery = 20

    @Test func theScannersMatchTheirPatterns() async {
        for (index, text) in Self.texts.enumerated() {
            if index % Self.yieldEvery == 0 { await Task.yield() }
            #expect(
                ProseScan.questionSentences(text, repeated: true).map { text[$0] } == text.matches(of: /[^.!?؟\n]*[?؟]+/).map { text[$0.range] },
                "\(text.debugDescription)")
            #expect(
                ProseScan.questionSentences(text, repeated: false).map { text[$0] } == text.matches(of: /[^.!?؟\n]*[?؟]/).map { text[$0.range] },
                "\(text.debugDescription)")
            #expect(ProseScan.removingMarksBeforeQuotes(text) == text.replacing(/[?؟!.]+(?=["'”’»])/, with: ""), "\(text.debugDescription)")
            #expect(ProseScan.unmarked(Substring(text)) == String(text).replacing(/[?؟!.\n]/, with: "·"), "\(text.debugDescription)")
            #expect(ProseScan.sentences(text) == text.matches(of: /[^.!?]+[.!?]+/).map { text[$0.range] }, "\(text.debugDescription)")
        }
    }
}
