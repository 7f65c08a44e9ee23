import Foundation
import LecternLLM
import Testing

@testable import LecternCore

/// The review file (issue 47): written deterministically and read back as written, whatever the
/// text holds; every bad entry refused at its line and column; and the fields of an answer that
/// a reviewer edits, for JSON and Markdown answers alike.
struct ReviewFileTests {
    static let lecture = "# Loops\n\n## Why\n\nRepeat work.\n\n```python\n# not a heading\nfor i in range(3):\n    print(i)\n```\n\n## How\n\nWith for."
    static let question =
        #"{"prompt":"What does print(\"a\\b\") show?","correct_answer":{"text":"a\\b","feedback":"Right."},"wrong_answers":[{"text":"ab","feedback":"No."}]}"#

    static func decision(_ item: String, _ kind: ReviewFile.Kind, answer: String, fields: [(String, String)] = [], note: String? = nil) -> ReviewFile.Decision {
        ReviewFile.Decision(
            item: item, kind: kind, content: ReviewFile.contentHash(answer), basis: kind == .reject ? nil : String(repeating: "e", count: 64),
            answer: kind == .reject ? nil : answer, fields: fields.map { (path: $0.0, text: $0.1) }, note: note, by: "Ada \"the Countess\" Lovelace",
            at: "2026-11-28T10:12:00Z")
    }

    @Test func writtenAndReadBackAsWritten() throws {
        let tricky = [
            "plain", "", "  leading spaces", "trailing space ", "tab\there", "line one\nline two\n\nafter a blank", "ends with a newline\n",
            "two newlines\n\n", "--- a document marker", "# a comment?", "key: value", "- a list item", "\"quoted\" and \\backslash\\", "العربية ٣٢",
            "emoji 🎓 and \u{2028} separator", "{not: json", "null", "yes", "0x1F", "C:\\path\\to",
        ]
        var file = ReviewFile(file: "t.review.yaml")
        for (index, text) in tricky.enumerated() {
            file.record(Self.decision("lecture/s01-t\(String(format: "%02d", index + 1))", .edit, answer: Self.lecture, fields: [("section[1]", text)], note: text))
        }
        file.record(Self.decision("engagement-question/s01-t01", .approve, answer: Self.question))
        file.record(Self.decision("bonus-question/s01-t01", .reject, answer: Self.question, note: "Too easy:\nthe stem gives the key away."))
        let text = file.text()
        #expect(text == file.text(), "the same decisions give the same bytes")
        let read = try ReviewFile.parse(YAMLSource(file: "t.review.yaml", data: Data(text.utf8), maxBytes: ReviewFile.maxBytes))
        // Every decision as written; a JSON answer laid out anew, the same answer (its hash).
        func plain(_ decisions: [String: ReviewFile.Decision]) -> [String: ReviewFile.Decision] {
            decisions.mapValues { d in
                var d = d
                d.answer = d.answer.map(ReviewFile.contentHash)
                return d
            }
        }
        #expect(plain(read.decisions) == plain(file.decisions))
        #expect(read["lecture/s01-t06"]?.answer == Self.lecture, "Markdown answers are kept byte for byte")
        // A JSON answer is laid out a key a line (readable diffs), with the same hash.
        #expect(text.contains("    answer: |-\n      {\n        \"correct_answer\" : {"), "\(text.prefix(2_000))")
        #expect(read["engagement-question/s01-t01"]?.content == ReviewFile.contentHash(Self.question))
    }

    static func problems(_ yaml: String) -> [String] {
        do {
            _ = try ReviewFile.parse(YAMLSource(file: "r.yaml", data: Data(yaml.utf8)))
            return []
        } catch let error as SpecError {
            return error.diagnostics.map { "\($0.line ?? 0):\($0.column ?? 0) \($0.message)" }
        } catch {
            return ["\(error)"]
        }
    }

    @Test func badEntriesAreRefusedAtTheirLine() {
        let hash = ReviewFile.contentHash("x")
        let cases: [(String, String)] = [
            (
                "format: 1\ndecisions:\n  lecture/s01-t01:\n    decision: aprove\n    content: \(hash)\n    by: A\n    at: 2026-11-28T10:12:00Z\n",
                "4:15 'decisions.lecture/s01-t01.decision' is 'aprove'"
            ),
            ("decisions:\n  lecture/s01-t01:\n    decision: reject\n    content: \(hash)\n    by: A\n    at: 2026-11-28T10:12:00Z\n", "3:5 a rejection needs a 'note'"),
            ("decisions:\n  ../etc/passwd:\n    decision: reject\n    note: n\n    content: \(hash)\n    by: A\n    at: 2026-11-28T10:12:00Z\n", "2:3 '../etc/passwd' is not an item id"),
            ("decisions:\n  lecture/s01-t01:\n    decision: approve\n    content: \(hash)\n    by: A\n    at: yesterday\n", "6:9 'decisions.lecture/s01-t01.at' is 'yesterday'"),
            ("decisions:\n  lecture/s01-t01:\n    decision: approve\n    content: nothex\n    by: A\n    at: 2026-11-28T10:12:00Z\n", "4:14 'decisions.lecture/s01-t01.content' is not a SHA-256"),
            (
                "decisions:\n  lecture/s01-t01:\n    decision: edit\n    content: \(hash)\n    basis: \(hash)\n    answer: y\n    fields: { \"a..b\": z }\n    by: A\n    at: 2026-11-28T10:12:00Z\n",
                "'a..b' is not a field of an answer"
            ),
            (
                "decisions:\n  lecture/s01-t01:\n    decision: approve\n    content: \(hash)\n    basis: \(hash)\n    answer: not x\n    by: A\n    at: 2026-11-28T10:12:00Z\n",
                "is not the answer its 'content' hash names"
            ),
            (
                "decisions:\n  lecture/s01-t01:\n    decision: approve\n    verdict: ok\n    content: \(hash)\n    basis: \(hash)\n    answer: x\n    by: A\n    at: 2026-11-28T10:12:00Z\n",
                "4:5 unknown key 'verdict'"
            ),
            ("decisions: [\n", "invalid YAML"),
        ]
        for (yaml, expected) in cases {
            let found = Self.problems(yaml)
            #expect(found.contains { $0.contains(expected) } || (expected == "invalid YAML" && !found.isEmpty), "\(expected): \(found)")
        }
        // The same item twice is a YAML duplicate key, reported at the second.
        let twice =
            "decisions:\n  lecture/s01-t01: { decision: reject, note: a, content: \(hash), by: A, at: '2026-11-28T10:12:00Z' }\n"
            + "  lecture/s01-t01: { decision: reject, note: b, content: \(hash), by: A, at: '2026-11-28T10:12:00Z' }\n"
        #expect(Self.problems(twice).contains { $0.hasPrefix("3:") }, "\(Self.problems(twice))")
    }

    /// A rejection of the answer that replaced a rejected one keeps the first (`earlier`): both
    /// answers stay refused, each with its note; the file writes and reads them back; an approval
    /// after them keeps them too; a bad earlier entry is refused at its line.
    @Test func rejectionsOfEarlierAnswersAccumulate() throws {
        let first = Self.decision("engagement-question/s01-t01", .reject, answer: "A", note: "The key is wrong.")
        let second = Self.decision("engagement-question/s01-t01", .reject, answer: "B", note: "Two options are right.").replacing(first)
        #expect(second.earlier == [ReviewFile.Rejection(content: ReviewFile.contentHash("A"), note: "The key is wrong.")])
        #expect(second.rejectionNote(for: ReviewFile.contentHash("A")) == "The key is wrong.")
        #expect(second.rejectionNote(for: ReviewFile.contentHash("B")) == "Two options are right.")
        #expect(second.rejectionNote(for: ReviewFile.contentHash("C")) == nil)
        // The same answer rejected again with another note: one entry, the new note.
        let again = Self.decision("engagement-question/s01-t01", .reject, answer: "B", note: "Say why.").replacing(second)
        #expect(again.earlier == second.earlier && again.rejectionNote(for: ReviewFile.contentHash("B")) == "Say why.")
        let third = Self.decision("engagement-question/s01-t01", .reject, answer: "C", note: "Still wrong:\nsee the lecture.").replacing(again)
        #expect(third.earlier.map(\.note) == ["The key is wrong.", "Say why."])
        let approved = Self.decision("engagement-question/s01-t01", .approve, answer: "D").replacing(third)
        #expect(approved.earlier.count == 3 && approved.rejectionNote(for: ReviewFile.contentHash("C")) == "Still wrong:\nsee the lecture.")

        // At most the 100 most recent are kept, so that the file stays readable.
        var many = third
        for round in 0..<105 { many = Self.decision(many.item, .reject, answer: "answer \(round)", note: "round \(round)").replacing(many) }
        #expect(many.earlier.count == 100 && many.earlier.last?.note == "round 103" && !many.earlier.contains { $0.note == "The key is wrong." })

        var file = ReviewFile(file: "t.review.yaml")
        file.record(third)
        let text = file.text()
        #expect(text.contains("    earlier:\n      - content: \(ReviewFile.contentHash("A"))\n        note: \"The key is wrong.\"\n"), "\(text)")
        let read = try ReviewFile.parse(YAMLSource(file: "t.review.yaml", data: Data(text.utf8), maxBytes: ReviewFile.maxBytes))
        #expect(read["engagement-question/s01-t01"] == third)

        let hash = ReviewFile.contentHash("x")
        let bad =
            "decisions:\n  lecture/s01-t01:\n    decision: reject\n    note: n\n    content: \(hash)\n    by: A\n    at: 2026-11-28T10:12:00Z\n"
            + "    earlier:\n      - content: nothex\n        note: old\n      - content: \(hash)\n"
        let found = Self.problems(bad)
        #expect(found.contains { $0.hasPrefix("9:18 'decisions.lecture/s01-t01.earlier[1].content' is not a SHA-256") }, "\(found)")
        #expect(found.contains { $0.contains("note") && $0.hasPrefix("11:") }, "\(found)")
    }

    @Test func theFieldsOfAnAnswer() throws {
        let fields = AnswerFields.fields(of: Self.question)
        // In reading order: the question, then each answer and why.
        #expect(fields.map(\.path) == ["prompt", "correct_answer.text", "correct_answer.feedback", "wrong_answers[0].text", "wrong_answers[0].feedback"])
        let edited = try AnswerFields.apply([("wrong_answers[0].feedback", "No: print shows a backslash too."), ("prompt", "What is shown?")], to: Self.question)
        let value = try #require(try JSONSerialization.jsonObject(with: Data(edited.utf8)) as? [String: Any])
        #expect(value["prompt"] as? String == "What is shown?")
        #expect(((value["wrong_answers"] as? [[String: Any]])?.first?["feedback"] as? String) == "No: print shows a backslash too.")
        #expect(((value["correct_answer"] as? [String: Any])?["text"] as? String) == "a\\b", "the rest as it was")
        #expect(throws: AnswerFields.Failure.self) { try AnswerFields.apply([("wrong_answers[3].text", "x")], to: Self.question) }
        #expect(throws: AnswerFields.Failure.self) { try AnswerFields.apply([("explanation", "x")], to: Self.question) }
        #expect(throws: AnswerFields.Failure.self) { try AnswerFields.apply([("correct_answer", "x")], to: Self.question) }

        // A list of tags is one field, so that a reviewer can add a tag or take one away: a quote
        // the model kept with one emotion gets two, one it rejected (no emotions) gets one, and
        // the byte-level path (strings only) and Foundation's agree.
        let batch =
            #"{"quotes":[{"n":1,"verdict":"keep","reason":"","emotions":["Motivation"],"category":"Psychology"},"#
            + #"{"n":2,"verdict":"reject","reason":"mocking","emotions":[],"category":"Humor"}]}"#
        let tagged = AnswerFields.fields(of: batch)
        #expect(tagged.first { $0.path == "quotes[0].emotions" }?.text == "Motivation", "\(tagged.map(\.path))")
        #expect(tagged.first { $0.path == "quotes[1].emotions" }?.text == "", "an empty list is a field too")
        #expect(!tagged.contains { $0.path.hasSuffix("emotions[0]") })
        let retagged: [(path: String, text: String)] = [
            ("quotes[0].emotions", "Comfort,  Hope ,"), ("quotes[1].verdict", "keep"), ("quotes[1].reason", ""), ("quotes[1].emotions", "Joy"),
        ]
        let applied = try AnswerFields.apply(retagged, to: batch)
        let numberless = batch.replacingOccurrences(of: #""n":1,"#, with: "").replacingOccurrences(of: #""n":2,"#, with: "")
        #expect(try #require(AnswerFields.applyToStrings(retagged, numberless)) == (try AnswerFields.applyWithFoundation(retagged, to: numberless)))
        let quotes = try #require((try JSONSerialization.jsonObject(with: Data(applied.utf8)) as? [String: Any])?["quotes"] as? [[String: Any]])
        #expect(quotes[0]["emotions"] as? [String] == ["Comfort", "Hope"] && quotes[1]["emotions"] as? [String] == ["Joy"], "\(quotes)")
        // One tag is still a field of its own when named; a list of other things is no tag list.
        let renamed = try AnswerFields.apply([("quotes[0].emotions[0]", "Struggle")], to: batch)
        #expect(renamed.contains(#""emotions":["Struggle"]"#), "\(renamed)")
        #expect(throws: AnswerFields.Failure.self) { try AnswerFields.apply([("quotes", "a, b")], to: batch) }

        // Markdown: the whole text and each section; a fenced `#` line is no heading.
        let sections = AnswerFields.markdownSections(Self.lecture)
        #expect(sections.count == 3 && sections[1].hasPrefix("## Why") && sections[1].contains("# not a heading"), "\(sections)")
        #expect(sections.joined(separator: "\n") == Self.lecture)
        #expect(AnswerFields.fields(of: Self.lecture).map(\.path) == ["text", "section[0]", "section[1]", "section[2]"])
        let rewritten = try AnswerFields.apply([("section[2]", "## How\n\nWith a for loop over a range.")], to: Self.lecture)
        #expect(rewritten.hasSuffix("## How\n\nWith a for loop over a range.") && rewritten.hasPrefix("# Loops\n\n## Why"))
        #expect(throws: AnswerFields.Failure.self) { try AnswerFields.apply([("section[9]", "x")], to: Self.lecture) }
    }

    /// Decisions of every kind, with texts that test the writer's quoting and blocks.
    static func writtenFile() -> ReviewFile {
        let tricky = [
            "plain", "", "  leading spaces", "trailing space ", "tab\there", "line one\nline two\n\nafter a blank", "ends with a newline\n",
            "two newlines\n\n", "--- a document marker", "# a comment?", "key: value", "- a list item", "\"quoted\" and \\backslash\\", "العربية ٣٢",
            "emoji 🎓 and \u{2028} separator, \u{85} NEL, \u{FEFF} BOM", "{not: json", "null", "yes", "0x1F", "C:\\path\\to", "several\nlines\n",
            "    indented\nfirst line", "tab at the end\t\nof a line",
        ]
        var file = ReviewFile(file: "t.review.yaml")
        for (index, text) in tricky.enumerated() {
            file.record(Self.decision("lecture/s01-t\(String(format: "%02d", index + 1))", .edit, answer: Self.lecture, fields: [("section[1]", text)], note: text))
        }
        file.record(Self.decision("engagement-question/s01-t01", .approve, answer: Self.question))
        file.record(Self.decision("bonus-question/s01-t01", .reject, answer: Self.question, note: "Too easy:\nthe stem gives the key away."))
        file.record(Self.decision("tone-preview", .approve, answer: "A friendly voice.\n\nWith two paragraphs.\n"))
        return file
    }

    /// What the general reader (Yams) makes of `text`: the decisions with their lines and columns,
    /// or its diagnostics.
    static func general(_ text: String) -> Result<[String: ReviewFile.Decision], SpecError> {
        do {
            return .success(try ReviewFile.parse(YAMLSource(file: "t.review.yaml", text: text), layout: false).decisions)
        } catch let error as SpecError {
            return .failure(error)
        } catch {
            return .failure(SpecError(SpecDiagnostic(file: "t", message: "\(error)")))
        }
    }

    static func sameWithPlaces(_ a: [String: ReviewFile.Decision], _ b: [String: ReviewFile.Decision]) -> Bool {
        a == b && a.allSatisfy { item, d in b[item].map { $0.line == d.line && $0.column == d.column } ?? false }
    }

    /// The items on which `a` and `b` differ, each side in a line.
    static func differences(_ a: [String: ReviewFile.Decision], _ b: [String: ReviewFile.Decision]) -> String {
        func show(_ d: ReviewFile.Decision?) -> String {
            guard let d else { return "none" }
            return "\(d.kind) \(d.line ?? 0):\(d.column ?? 0) note \(String(reflecting: d.note)) fields \(d.fields.map { "\($0.path)=\(String(reflecting: $0.text))" })"
        }
        return Set(a.keys).union(b.keys).sorted().filter { item in
            !(a[item] == b[item] && a[item]?.line == b[item]?.line && a[item]?.column == b[item]?.column)
        }.map { "\($0): fast \(show(a[$0])) | yams \(show(b[$0]))" }.joined(separator: "\n")
    }

    /// The fast reader of the written layout (ReviewFileLayout) takes what `text()` writes and gives
    /// what Yams gives, lines and columns included; on any change to that text it either gives
    /// what Yams gives or steps aside, so Yams reads (and reports) it.
    @Test func theWrittenLayoutIsReadAsYamsReadsIt() throws {
        let text = Self.writtenFile().text()
        let fast = try #require(ReviewFileLayout.read(text, nodeBudget: ReviewFile.nodeBudget), "the written layout is read fast")
        guard case .success(let slow) = Self.general(text) else {
            Issue.record("Yams refused the written file")
            return
        }
        #expect(Self.sameWithPlaces(ReviewFile(file: "t", decisions: fast).decisions, slow))
        #expect(slow.count == 26)
        #expect(ReviewFileLayout.read(ReviewFile(file: "e").text(), nodeBudget: 10) == [], "no decisions")

        // Every line changed in the ways a hand edit or a damaged file changes it, on a file of one
        // decision of each layout (quoted and block notes and fields, JSON and Markdown answers).
        var small = ReviewFile(file: "t.review.yaml")
        for item in ["lecture/s01-t02", "lecture/s01-t05", "lecture/s01-t06", "lecture/s01-t15", "lecture/s01-t21", "engagement-question/s01-t01", "bonus-question/s01-t01", "tone-preview"] {
            small.record(try #require(Self.writtenFile()[item]))
        }
        let smallText = small.text()
        let lines = smallText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var mutations: [String] = []
        for index in lines.indices where index < lines.count - 1 {
            func with(_ replacement: [String]) -> String { (lines[..<index] + replacement + lines[(index + 1)...]).joined(separator: "\n") }
            let line = lines[index]
            mutations += [
                with([]), with([line, line]), with([line + " "]), with([" " + line]), with([line, ""]), with([line, "# a comment"]),
                with([line.replacingOccurrences(of: "\"", with: "'")]), with([String(line.dropLast())]), with([line + " # note"]),
                with([line.replacingOccurrences(of: "e", with: "E")]), with([line.replacingOccurrences(of: ": ", with: ":  ")]),
                with([line.replacingOccurrences(of: "\\n", with: "\\x0A")]), with([line.replacingOccurrences(of: "|-", with: "|+")]),
                with([line, "\t"]), with([line.replacingOccurrences(of: "approve", with: "null")]),
            ]
            if let colon = line.firstIndex(of: ":") {
                mutations += [with([String(line[...colon]) + " \"\""]), with([String(line[...colon]) + " ~"]), with([String(line[...colon])])]
            }
        }
        mutations += [
            String(smallText.dropLast()), smallText + "\n", smallText.replacingOccurrences(of: "\n", with: "\r\n"), "\u{FEFF}" + smallText,
        ]
        var taken = 0
        for mutated in mutations {
            guard let fast = ReviewFileLayout.read(mutated, nodeBudget: ReviewFile.nodeBudget) else { continue }
            taken += 1
            switch Self.general(mutated) {
            case .success(let slow):
                let mine = ReviewFile(file: "t", decisions: fast).decisions
                #expect(Self.sameWithPlaces(mine, slow), "\(Self.differences(mine, slow))")
            case .failure(let error):
                let at = error.diagnostics.first?.line ?? 0
                let context = mutated.split(separator: "\n", omittingEmptySubsequences: false).enumerated().filter { abs($0.offset + 1 - at) <= 2 }
                    .map { "\($0.offset + 1): \(String(reflecting: String($0.element)))" }.joined(separator: "\n")
                Issue.record("the fast reader took a file Yams refuses (\(error.diagnostics.first.map { "\($0.line ?? 0):\($0.column ?? 0) \($0.message)" } ?? "")):\n\(context)")
            }
        }
        // Some changes keep the file valid and in the layout (e.g. a changed note); most do not.
        #expect(taken > 20 && taken < mutations.count / 2, "\(taken) of \(mutations.count)")
    }

    /// The hash every review file holds is Foundation's canonical JSON of the answer; the fast
    /// writer must give the same bytes, on every answer of every committed cassette (and its log of
    /// refused attempts) and on the characters that are escaped.
    @Test func theFastCanonicalAnswerIsFoundationsByteForByte() throws {
        let cassettes = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("pipelines/cassettes")
        var answers: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: cassettes.path).sorted() where name.hasSuffix(".jsonl") {
            let data = try Data(contentsOf: cassettes.appendingPathComponent(name))
            for line in data.split(separator: UInt8(ascii: "\n")) {
                guard let record = try? JSONSerialization.jsonObject(with: line) as? [String: Any], let response = record["response"] as? [String: Any],
                    let content = response["content"] as? String
                else { continue }
                answers.append(content)
                // The JSON inside an answer's prose (a fenced block), as the stages read it.
                if let start = content.firstIndex(of: "{"), let end = content.lastIndex(of: "}"), start < end { answers.append(String(content[start...end])) }
            }
        }
        answers += [#"{"b": "x", "a_b": "y", "ab": ["z", null, {"c": ""}], "a": {}}"#, #"{"prompt": "\u0000\u001f\b\f\n\r\t\"\\/"}"#, "\"a string\"", "null", "[]"]
        var fast = 0
        func compare(_ mine: JSONValue, _ foundation: Any) throws {
            var bytes: [UInt8] = []
            guard ReviewFile.writeCanonical(mine, into: &bytes) else { return }
            fast += 1
            let theirs = try JSONSerialization.data(withJSONObject: foundation, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
            #expect(Data(bytes) == theirs, "\(String(decoding: theirs.prefix(120), as: UTF8.self))")
        }
        for answer in answers {
            guard let mine = JSONValue.parseStrict(answer), let theirs = try? JSONSerialization.jsonObject(with: Data(answer.utf8), options: [.fragmentsAllowed]) else { continue }
            try compare(mine, theirs)
        }
        // Every ASCII character, raw, and some that Foundation leaves as they are.
        var characters = ""
        for i in 0..<0x80 { characters.unicodeScalars.append(Unicode.Scalar(UInt8(i))) }
        characters += "\u{2028}\u{FEFF}é😀 \\frac{1}{2} a/b"
        try compare(.object(["prompt": .string(characters)]), ["prompt": characters])
        #expect(fast > 300, "the fast writer took \(fast) of \(answers.count) answers")
        // An edit applied by the byte-level reader and writer gives Foundation's bytes: every text
        // field of every answer (its first, middle and last that a path can name), changed to a
        // text with the characters that are escaped.
        var edited = 0
        for answer in answers where AnswerFields.json(answer) != nil {
            let named = AnswerFields.fields(of: answer).filter { AnswerFields.isPath($0.path) }
            for field in Set([named.first, named.dropFirst(named.count / 2).first, named.last].compactMap { $0?.path }).sorted().map({ path in named.first { $0.path == path }! }) {
                let edit = [(path: field.path, text: "new \"text\" \\ with\na\tbreak, \u{1}, é and /")]
                let theirs = try AnswerFields.applyWithFoundation(edit, to: answer)
                if let mine = AnswerFields.applyToStrings(edit, answer) {
                    edited += 1
                    #expect(mine == theirs, "\(field.path) of \(answer.prefix(200))")
                }
                #expect(try AnswerFields.apply(edit, to: answer) == theirs)
            }
        }
        #expect(edited > 500, "the byte-level path applied \(edited) edits")
        #expect(AnswerFields.applyToStrings([(path: "level", text: "x")], #"{"level": 3}"#) == nil, "a number is not a text field")
        #expect(AnswerFields.applyToStrings([(path: "nothing", text: "x")], #"{"prompt": "p"}"#) == nil, "the general path says what is wrong")
        // What it does not take (numbers, booleans, other keys) goes to Foundation's writer.
        var out: [UInt8] = []
        #expect(!ReviewFile.writeCanonical(.object(["level": .number(3)]), into: &out))
        #expect(!ReviewFile.writeCanonical(.object(["Prompt": .string("x")]), into: &out))
        #expect(ReviewFile.isTime("2024-02-29T23:59:59Z") && !ReviewFile.isTime("2023-02-29T10:00:00Z") && !ReviewFile.isTime("2026-13-01T10:00:00Z"))
        #expect(ReviewFile.isTime("2026-11-28T10:12:00+01:00") && !ReviewFile.isTime("yesterday"))
        #expect(ReviewFile.contentHash(#"{"level": 3, "a": "b"}"#) == ReviewFile.contentHash(#"{"a":"b","level":3}"#))
        // A key given twice is read as Foundation reads it (its last value), not as JSONDecoder does.
        let twice = #"{"prompt": "first", "prompt": "second"}"#
        #expect(JSONValue.parseStrict(twice) == nil)
        #expect(ReviewFile.contentHash(twice) == ReviewFile.contentHash(#"{"prompt": "second"}"#))
    }
}
