import Foundation
import Testing

@testable import LecternCore

/// The scanners that replaced the question checks' Swift Regex paths (`ProseScan`) give what the
/// patterns gave — on every text of every answer recorded in the committed cassettes (refused
/// answers included), and on edge cases the cassettes may lack — and so do the checks built on
/// them: `askedQuestions`, `checkOneQuestion`, `prose`, `checkAsksSomething`, `checkQuestionLast`.
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

    static var texts: [String] { corpus + edgeCases }

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
            #expect(ProseScan.replacingCodeSpans(text) { "<\($0.count)>" } == text.replacing(/`[^`\n]*`/) { "<\($0.output.count)>" }, "\(text.debugDescription)")
            #expect(ProseScan.replacingDollarMath(text) { "<\($0.count)>" } == text.replacing(/\$\$?[^$]*\$\$?/) { "<\($0.output.count)>" }, "\(text.debugDescription)")
            #expect(ProseScan.removingMarksBeforeQuotes(text) == text.replacing(/[?؟!.]+(?=["'”’»])/, with: ""), "\(text.debugDescription)")
            #expect(ProseScan.unmarked(Substring(text)) == String(text).replacing(/[?؟!.\n]/, with: "·"), "\(text.debugDescription)")
        }
    }

    @Test func theChecksGiveTheVerdictsTheyGaveWithThePatterns() async {
        var questions = 0
        for (index, text) in Self.texts.enumerated() {
            if index % Self.yieldEvery == 0 { await Task.yield() }
            let asked = QuestionRules.askedQuestions(text)
            let before = Regexed.askedQuestions(text)
            #expect(asked.map(\.question) == before.map(\.question) && asked.map { String($0.after) } == before.map { String($0.after) }, "\(text.debugDescription)")
            questions += asked.count
            #expect(QuestionRules.prose(text) == Regexed.prose(text), "\(text.debugDescription)")
            #expect(QuestionRules.checkOneQuestion("prompt", text) == Regexed.checkOneQuestion("prompt", text), "\(text.debugDescription)")
        }
        #expect(questions > 100, "the corpus asks questions")
    }

    /// The question checks as they were written with regex literals, before `ProseScan`.
    enum Regexed {
        static func prose(_ text: String) -> String {
            TextIntegrity.outsideFencedCode(text).replacing(/`[^`\n]*`/, with: " ")
        }

        static func askedQuestions(_ text: String) -> [(question: String, after: Substring)] {
            let unmarked: (Substring) -> String = { String($0).replacing(/[?؟!.\n]/, with: "·") }
            let prose = TextIntegrity.outsideFencedCode(text)
                .replacing(/`[^`\n]*`/) { unmarked($0.output) }
                .replacing(/\$\$?[^$]*\$\$?/) { unmarked($0.output) }
                .replacing(/[?؟!.]+(?=["'”’»])/, with: "")
            return prose.matches(of: /[^.!?؟\n]*[?؟]+/).compactMap { match in
                let sentence = String(match.output).trimmed
                let start = match.range.lowerBound
                let exclaimed = start > prose.startIndex && prose[prose.index(before: start)] == "!"
                guard sentence.count > 1, !exclaimed, sentence.firstMatch(of: QuestionRules.rhetorical) == nil else { return nil }
                return (sentence, prose[match.range.upperBound...])
            }
        }

        static func checkOneQuestion(_ field: String, _ text: String) -> [ValidationIssue] {
            let prose = prose(text).replacing(/\$\$?[^$]*\$\$?/, with: " ")
                .replacing(/[?؟!.]+(?=["'”’»])/, with: "")
            let questions = prose.matches(of: /[^.!?؟\n]*[?؟]/).map { String($0.output).trimmed }.filter { !$0.isEmpty && $0 != "?" && $0 != "؟" }
            guard questions.count > 1 else { return [] }
            let quoted = questions.prefix(3).map { "'\($0.count > 80 ? $0.prefix(77) + "…" : Substring($0))'" }.joined(separator: ", ")
            return [
                .error(
                    "'\(field)' asks \(questions.count) questions (\(quoted)\(questions.count > 3 ? ", …" : "")): a multiple-choice question asks one question, which its options answer — keep one of them as the stem's only question mark, turn the rest into statements or drop them, and make every option answer that one",
                    check: .questionForm)
            ]
        }
    }
}
