import Foundation
import Testing

/// `lectern export --format anki`, imported headless by the `anki` PyPI package (Anki's own
/// import code; `make test-tools` installs it, pinned): every question a note and a card in its
/// topic's deck, the key and its feedback on the answer side, math as MathJax, stable guids.
struct AnkiExportTests {
    typealias Directory = CheckCommandTests.Directory

    /// The venv `make test-tools` fills (the Makefile exports its path; the default is the same).
    static var python: URL {
        let tools =
            ProcessInfo.processInfo.environment["LECTERN_TEST_TOOLS"]
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/lectern/test-tools").path
        return URL(fileURLWithPath: tools).appendingPathComponent("bin/python")
    }

    static func toolsInstalled() -> Bool {
        FileManager.default.isExecutableFile(atPath: python.path)
    }

    /// Imports each package into one new collection, in order, and prints what Anki made of it.
    static let importer = """
        import json, os, re, sys, tempfile
        from anki.collection import Collection, ImportAnkiPackageRequest, ImportAnkiPackageOptions
        col = Collection(os.path.join(tempfile.mkdtemp(), 'collection.anki2'))
        for path in sys.argv[1:]:
            log = col.import_anki_package(ImportAnkiPackageRequest(package_path=path, options=ImportAnkiPackageOptions())).log
            print('import', log.found_notes, len(log.new), len(log.updated) + len(log.duplicate))
        notes = [col.get_note(n) for n in col.find_notes('')]
        print('notes', col.note_count(), 'cards', col.card_count())
        print('types', sorted({n.note_type()['name'] for n in notes}))
        print('fields', list(notes[0].keys()))
        decks = {col.decks.name(col.get_card(c).did) for c in col.find_cards('')}
        print('decks', len(decks), sorted(decks)[0])
        fields = [dict(n.items()) for n in notes]
        print('tags', sorted({t for n in notes for t in n.tags if not t.startswith('lectern::topic::')}))
        print('math', sum(f.count('\\\\(') + f.count('\\\\[') for n in fields for f in n.values()), sum(f.count('<math') for n in fields for f in n.values()))
        print('answers', sum(1 for n in fields if n['Options'] and re.match(r'<p><b>[A-F]\\.</b> ', n['Answer'])), sum(1 for n in fields if n['Options']))
        by_id = {n['ID']: n for n in fields}
        print('json', json.dumps(by_id, sort_keys=True))
        """

    struct Imported {
        var lines: [String: String]
        var notes: [String: [String: String]]
    }

    static func importInto(_ packages: [URL], in dir: URL) async throws -> Imported {
        let out = try await CLITests.external(["-c", importer] + packages.map(\.path), in: dir, executable: python)
        #expect(out.status == 0, "\(out.stderr)")
        var lines: [String: String] = [:]
        var notes: [String: [String: String]] = [:]
        for line in out.stdout.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            if parts[0] == "json" {
                notes = (try? JSONDecoder().decode([String: [String: String]].self, from: Data(parts[1].utf8))) ?? [:]
            } else if parts[0] == "import" {
                lines["import", default: ""] += (lines["import"] == nil ? "" : "; ") + parts[1]
            } else {
                lines[parts[0]] = parts[1]
            }
        }
        return Imported(lines: lines, notes: notes)
    }

    @Test func aCourseImportsIntoAnkiAsOneNoteAQuestion() async throws {
        #expect(Self.toolsInstalled(), "the anki package is installed by `make test-tools` into \(Self.python.path)")
        let dir = try Directory()
        let golden = ExportCommandTests.golden
        let exported = try await CLITests.lectern(["export", golden.path, "--format", "anki"], in: dir.root)
        #expect(exported.status == 0, "\(exported)")
        let deck = dir.root.appendingPathComponent("python-basics-1.0.0.apkg")
        // The same bundle, the same bytes.
        _ = try await CLITests.lectern(["export", golden.path, "--format", "anki", "--output", "again.apkg"], in: dir.root)
        #expect(try Data(contentsOf: deck) == Data(contentsOf: dir.root.appendingPathComponent("again.apkg")))

        // Imported twice into one collection: the second import finds the same notes (stable
        // guids) instead of adding copies.
        let imported = try await Self.importInto([deck, deck], in: dir.root)
        #expect(imported.lines["import"] == "24 24 0; 24 0 24", "\(imported.lines)")
        #expect(imported.lines["notes"] == "24 cards 24")
        #expect(imported.lines["types"] == "['Lectern question']")
        #expect(imported.lines["fields"] == "['Prompt', 'Options', 'Answer', 'Explanation', 'Source', 'ID']")
        // Four topics, each its deck under its subject under the course.
        #expect(imported.lines["decks"] == "4 Introduction to Programming with Python::Making Decisions::Else and elif Statements", "\(imported.lines)")
        #expect(
            imported.lines["tags"] == "['lectern::bonus', 'lectern::engagement', 'lectern::level-1', 'lectern::level-2', 'lectern::level-3', 'lectern::level-4', 'lectern::reinforcement']",
            "\(imported.lines)")
        #expect(imported.lines["answers"] == "12 12", "every multiple-choice note names its key: \(imported.lines)")

        // Each note against course.json: the key's text on the answer side, a free-text
        // question's reference answer, the prompt as the bundle renders it.
        let course = try JSONSerialization.jsonObject(with: Data(contentsOf: golden.appendingPathComponent("course.json"))) as! [String: Any]
        var checked = 0
        for subject in course["subjects"] as! [[String: Any]] {
            for topic in subject["topics"] as! [[String: Any]] {
                let id = topic["id"] as! String
                for (noteID, question) in [("engagement-question/\(id)", topic["engagement_question"]), ("bonus-question/\(id)", topic["bonus_question"])] {
                    guard let q = question as? [String: Any], let note = imported.notes[noteID] else {
                        Issue.record("no note \(noteID)")
                        continue
                    }
                    #expect(note["Prompt"] == (q["prompt_xhtml"] as! String).trimmingCharacters(in: .whitespacesAndNewlines))
                    #expect(note["Source"] == "\(subject["title"] as! String) › \(topic["title"] as! String)")
                    if let options = q["options"] as? [[String: Any]], !options.isEmpty {
                        let key = options.firstIndex { $0["correct"] as? Bool == true }!
                        #expect(note["Answer"]!.hasPrefix("<p><b>\(["A", "B", "C", "D", "E", "F"][key]).</b> "), "\(noteID): \(note["Answer"]!)")
                        #expect(note["Options"]!.components(separatedBy: "<li>").count - 1 == options.count)
                    } else {
                        let reference = q["reference_answer"] as! String
                        #expect(
                            note["Answer"]!.contains(String(reference.prefix(20)).replacingOccurrences(of: "'", with: "&#39;")) || note["Answer"]!.contains(String(reference.prefix(12))), "\(noteID)")
                    }
                    checked += 1
                }
            }
        }
        #expect(checked == 8)
    }

    /// A math course: every formula reaches Anki as MathJax (`\(…\)`), none as MathML; an Arabic
    /// copy gets the right-to-left note type; two courses share one collection without clashing.
    @Test func mathBecomesMathJaxAndArabicIsRightToLeft() async throws {
        let dir = try Directory()
        let bundle = try await ExportCommandTests.replayed("intro-probability", spec: "pipelines/examples/intro-probability.yaml", in: dir.root)
        let deck = dir.root.appendingPathComponent("probability.apkg")
        #expect(try await CLITests.lectern(["export", bundle.path, "--format", "anki", "--output", deck.path], in: dir.root).status == 0)
        let imported = try await Self.importInto([deck], in: dir.root)
        #expect(imported.lines["notes"] == "14 cards 14", "\(imported.lines)")
        let math = imported.lines["math"]?.split(separator: " ").compactMap { Int($0) } ?? []
        #expect(math.count == 2 && math[0] > 10 && math[1] == 0, "formulas as MathJax, no MathML left: \(imported.lines)")

        let arabic = dir.root.appendingPathComponent("arabic")
        try FileManager.default.copyItem(at: bundle, to: arabic)
        let manifestURL = arabic.appendingPathComponent("manifest.json")
        var manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as! [String: Any]
        manifest["language"] = "ar"
        manifest["id"] = "intro-probability-ar"
        try JSONSerialization.data(withJSONObject: manifest).write(to: manifestURL)
        let rtl = dir.root.appendingPathComponent("arabic.apkg")
        #expect(try await CLITests.lectern(["export", arabic.path, "--format", "anki", "--output", rtl.path], in: dir.root).status == 0)
        let both = try await Self.importInto([deck, rtl], in: dir.root)
        #expect(both.lines["import"] == "14 14 0; 14 14 0", "another bundle's notes are new notes: \(both.lines)")
        #expect(both.lines["notes"] == "28 cards 28")
        #expect(both.lines["types"] == "['Lectern question', 'Lectern question (right to left)']", "\(both.lines)")
    }
}
