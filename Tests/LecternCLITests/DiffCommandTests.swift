import Foundation
import Testing

/// `lectern diff OLD NEW` on the golden bundle and edited copies of it.
struct DiffCommandTests {
    typealias Directory = CheckCommandTests.Directory
    static let golden = CLITests.repository.appendingPathComponent("Tests/LecternCLITests/Fixtures/golden/python-basics/1.0.0")

    /// A copy of the golden bundle with `edit` applied to its files, the manifest rewritten to match.
    static func editedCopy(in dir: Directory, _ edit: String, manifest manifestEdit: String = "") async throws -> String {
        let copy = dir.root.appendingPathComponent("new")
        try FileManager.default.copyItem(at: golden, to: copy)
        let script = """
            import hashlib, json, sys
            b = sys.argv[1]
            def text(path): return open(b + '/' + path).read()
            def write(path, data): open(b + '/' + path, 'w').write(data)
            course = json.load(open(b + '/course.json'))
            \(edit)
            json.dump(course, open(b + '/course.json', 'w'), indent=2, sort_keys=True)
            m = json.load(open(b + '/manifest.json'))
            \(manifestEdit)
            for f in list(m['files']):
                d = open(b + '/' + f, 'rb').read(); m['files'][f] = {'sha256': hashlib.sha256(d).hexdigest(), 'bytes': len(d)}
            json.dump(m, open(b + '/manifest.json', 'w'), indent=2, sort_keys=True)
            """
        let result = try await CLITests.external(["-c", script, copy.path], in: dir.root, environment: [:], executable: URL(fileURLWithPath: "/usr/bin/python3"))
        #expect(result.status == 0, "\(result.stderr)")
        return copy.path
    }

    @Test func equalBundlesExitZeroAndChangesAreListedByItem() async throws {
        let dir = try Directory()
        let same = try await CLITests.lectern(["diff", Self.golden.path, Self.golden.path], in: dir.root)
        #expect(same.status == 0 && same.stdout == "equal: 0 changed, 0 added, 0 removed, 74 unchanged\n", "\(same)")

        let new = try await Self.editedCopy(
            in: dir,
            """
            write('lectures/01-01-understanding-values.md', text('lectures/01-01-understanding-values.md').replace('toy box', 'treasure chest', 1))
            course['subjects'][0]['topics'][0]['reinforcement'][0]['prompt'] += ' (edited)'
            del course['subjects'][1]['topics'][0]['reinforcement'][3]
            """)
        let changed = try await CLITests.lectern(["diff", Self.golden.path, new], in: dir.root)
        #expect(changed.status == 1, "\(changed)")
        #expect(changed.stdout.contains("changed  lecture/s01-t01\n    @@ -1,7 +1,7 @@\n     # Understanding Values\n"), "\(changed.stdout)")
        #expect(changed.stdout.contains("\n    -Imagine you have a toy box. In this toy box,"))
        #expect(changed.stdout.contains("\n    +Imagine you have a treasure chest. In this toy box,"))
        // A structured item says which field changed, the texts shown from where they part.
        #expect(changed.stdout.contains("changed  reinforcement/s01-t01/level-1\n    prompt: \"…"), "\(changed.stdout)")
        #expect(changed.stdout.contains(" (edited)\"\n"), "\(changed.stdout)")
        #expect(changed.stdout.contains("removed  reinforcement/s02-t01/level-4\n"))
        #expect(changed.stdout.hasSuffix("2 changed, 0 added, 1 removed, 71 unchanged\n"))
        // Reversed, what was removed is added.
        let reversed = try await CLITests.lectern(["diff", new, Self.golden.path, "--brief"], in: dir.root)
        #expect(reversed.status == 1 && reversed.stdout.contains("added    reinforcement/s02-t01/level-4") && !reversed.stdout.contains("@@"))

        let json = try await CLITests.lectern(["diff", Self.golden.path, new, "--json"], in: dir.root)
        #expect(json.status == 1)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(report["equal"] as? Bool == false)
        #expect(report["removed"] as? [String] == ["reinforcement/s02-t01/level-4"])
        #expect((report["changed"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["lecture/s01-t01", "reinforcement/s01-t01/level-1"])
        #expect(report["unchanged"] as? Int == 71)
    }

    /// A bundle regenerated as 1.1.0 with nothing else changed: the manifest and the course say
    /// which field changed, old → new, in text and in --json.
    @Test func aVersionOnlyChangeNamesTheFieldWithItsOldAndNewValue() async throws {
        let dir = try Directory()
        let new = try await Self.editedCopy(in: dir, "course['version'] = '1.1.0'", manifest: "m['version'] = '1.1.0'")
        let text = try await CLITests.lectern(["diff", Self.golden.path, new], in: dir.root)
        #expect(text.status == 1, "\(text)")
        #expect(
            text.stdout == """
                changed  manifest
                    version: "1.0.0" → "1.1.0"
                changed  course
                    version: "1.0.0" → "1.1.0"
                2 changed, 0 added, 0 removed, 72 unchanged

                """, "\(text.stdout)")
        let json = try await CLITests.lectern(["diff", Self.golden.path, new, "--json", "--brief"], in: dir.root)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let changes = try #require(report["changed"] as? [[String: Any]])
        #expect(changes.compactMap { $0["id"] as? String } == ["manifest", "course"])
        for change in changes {
            let fields = change["fields"] as? [[String: String]]
            #expect(fields == [["field": "version", "old": "1.0.0", "new": "1.1.0"]], "\(change)")
        }
    }

    @Test func bundlesThatCannotBeComparedExitTwo() async throws {
        let dir = try Directory()
        let broken = dir.root.appendingPathComponent("broken")
        try FileManager.default.copyItem(at: Self.golden, to: broken)
        try Data("changed".utf8).write(to: broken.appendingPathComponent("course.json"))
        let refused = try await CLITests.lectern(["diff", Self.golden.path, broken.path], in: dir.root)
        #expect(refused.status == 2 && refused.stderr.contains("does not verify") && refused.stderr.contains("course.json"), "\(refused)")
        let missing = try await CLITests.lectern(["diff", Self.golden.path, dir.root.path], in: dir.root)
        #expect(missing.status == 2 && missing.stderr.contains("has no manifest.json"), "\(missing)")
        // As in the tour, before a 1.1.0 exists: no such directory, and the versions that do.
        let output = dir.root.appendingPathComponent("output/python-basics")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.golden, to: output.appendingPathComponent("1.0.0"))
        let absent = try await CLITests.lectern(["diff", "output/python-basics/1.0.0", "output/python-basics/1.1.0"], in: dir.root)
        #expect(absent.status == 2, "\(absent)")
        #expect(
            absent.stderr.contains("output/python-basics/1.1.0: no such directory (") && absent.stderr.contains("python-basics holds 1.0.0)")
                && !absent.stderr.contains("not a Lectern bundle"), "\(absent)")
    }
}
