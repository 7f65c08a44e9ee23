import Foundation
import LecternCore
import Testing

@testable import LecternBundle

struct BundleTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-bundle-\(UUID().uuidString)")

    func base(version: String = "1.0.0") -> Manifest {
        Manifest(
            kind: .course, id: "demo", version: version, title: "Demo", language: "en", generator: "test",
            specHash: String(repeating: "a", count: 64),
            models: ["scripted/x"], promptTemplates: ["lecture@1"], usage: .init(promptTokens: 1, completionTokens: 2, cachedTokens: 0, calls: 1),
            costUSD: 0.1 + 0.2, incompleteItems: [], files: [:])
    }

    let files: [String: Data] = ["course.json": Data("{}\n".utf8), "lectures/01-01-a.md": Data("# A\n".utf8)]

    @Test func writesAtomicallyWithAManifestOfChecksums() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let result = try BundleWriter(outputRoot: root).write(files: files, manifest: base())
        let dir = root.appendingPathComponent("demo/1.0.0")
        #expect(result == .written(dir))
        let report = try BundleVerifier.verify(dir)
        #expect(report.problems.isEmpty && report.checkedFiles == 2)
        #expect(report.manifest.files["lectures/01-01-a.md"]?.sha256 == SHA256Digest.hex(Data("# A\n".utf8)))
        #expect(report.manifest.costUSD == 0.3, "rounded so summation order cannot change bytes")
        // No temporary directories are left beside it.
        let siblings = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("demo").path)
        #expect(siblings == ["1.0.0"])
    }

    @Test func identicalContentIsANoOpAndDifferentContentAnError() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let writer = BundleWriter(outputRoot: root)
        _ = try writer.write(files: files, manifest: base())
        #expect(try writer.write(files: files, manifest: base()) == .unchanged(root.appendingPathComponent("demo/1.0.0")))
        var changed = files
        changed["course.json"] = Data("{\"x\":1}\n".utf8)
        #expect {
            try writer.write(files: changed, manifest: base())
        } throws: { error in
            (error as? BundleError)?.kind == .versionExists && "\(error)".contains("bump 'version'")
        }
        #expect(try writer.write(files: changed, manifest: base(version: "1.0.1")) == .written(root.appendingPathComponent("demo/1.0.1")))
    }

    @Test func manifestBytesAreDeterministic() throws {
        let a = try CanonicalJSON.encode(BundleWriter.manifest(for: files, base: base()), pretty: true)
        let b = try CanonicalJSON.encode(BundleWriter.manifest(for: Dictionary(uniqueKeysWithValues: files.reversed()), base: base()), pretty: true)
        #expect(a == b)
    }

    @Test func verifyDetectsAFlippedByteAMissingFileAndAnExtraFile() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        _ = try BundleWriter(outputRoot: root).write(files: files, manifest: base())
        let dir = root.appendingPathComponent("demo/1.0.0")
        let lecture = dir.appendingPathComponent("lectures/01-01-a.md")
        var bytes = try Data(contentsOf: lecture)
        bytes[0] ^= 0x01
        try bytes.write(to: lecture)
        #expect(try BundleVerifier.verify(dir).problems == ["lectures/01-01-a.md: content differs from the manifest (SHA-256 mismatch)"])
        try FileManager.default.removeItem(at: dir.appendingPathComponent("course.json"))
        try Data("x".utf8).write(to: dir.appendingPathComponent("extra.txt"))
        let problems = try BundleVerifier.verify(dir).problems
        #expect(problems.contains("course.json: missing"))
        #expect(problems.contains("extra.txt: not listed in the manifest"))
    }

    @Test func verifyExplainsADirectoryThatIsNotABundle() throws {
        #expect {
            try BundleVerifier.verify(FileManager.default.temporaryDirectory)
        } throws: { error in
            "\(error)".contains("has no manifest.json")
        }
    }

    @Test func unsafePathsAndIdsAreRefused() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let writer = BundleWriter(outputRoot: root)
        for path in ["../escape.md", "/abs.md", "a/../../b.md", ".hidden", "manifest.json", "a//b"] {
            #expect(throws: BundleError.self, "\(path)") { try writer.write(files: [path: Data()], manifest: base()) }
        }
        var bad = base()
        bad.id = "../etc"
        #expect(throws: BundleError.self) { try writer.write(files: files, manifest: bad) }
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("etc").path))
    }

    // MARK: References between a bundle's files

    static func xhtml(head: String = "", body: String) -> Data {
        Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE html>
            <html xmlns="http://www.w3.org/1999/xhtml" lang="en" xml:lang="en" dir="ltr">
            <head>
            <meta charset="utf-8"/>
            <title>T</title>
            \(head)
            </head>
            <body>
            \(body)
            </body>
            </html>

            """.utf8)
    }

    @Test func aReferenceIsWrittenAndResolvedRelativeToItsDocumentsFolder() {
        #expect(BundleReferences.reference(to: "lectern.css", from: "lectures/01-01-a.xhtml") == "../lectern.css")
        #expect(BundleReferences.reference(to: "lectern.css", from: "tone-preview.xhtml") == "lectern.css")
        #expect(BundleReferences.reference(to: "lectures/b.xhtml", from: "lectures/a.xhtml") == "b.xhtml")
        #expect(BundleReferences.reference(to: "images/x.png", from: "lectures/deep/a.xhtml") == "../../images/x.png")
        #expect(BundleReferences.resolve("../lectern.css", from: "lectures/01-01-a.xhtml") == "lectern.css")
        // The bug this guards against: a lecture in lectures/ linking "lectern.css".
        #expect(BundleReferences.resolve("lectern.css", from: "lectures/01-01-a.xhtml") == "lectures/lectern.css")
        #expect(BundleReferences.resolve("./b.xhtml#part-2", from: "lectures/a.xhtml") == "lectures/b.xhtml")
        #expect(BundleReferences.resolve("my%20notes.md?x=1", from: "a.xhtml") == "my notes.md")
        #expect(BundleReferences.resolve("../../etc/passwd", from: "lectures/a.xhtml") == nil, "outside the bundle")
        #expect(BundleReferences.resolve("/lectern.css", from: "a.xhtml") == nil, "absolute: outside the bundle")
        for remote in [
            "https://example.com/x.css", "HTTP://example.com", "mailto:a@b.c", "data:image/png;base64,AA", "//cdn.example/x.js", "#top", "",
        ] {
            #expect(!LocalReference.isLocal(remote), "\(remote)")
        }
        for local in ["lectern.css", "../lectern.css", "img/a:b.png", "./x"] {
            #expect(LocalReference.isLocal(local), "\(local)")
        }
    }

    @Test func everyLocalReferenceOfEveryXHTMLDocumentMustNameAFileOfTheBundle() throws {
        let good = Self.xhtml(
            head: #"<link rel="stylesheet" href="../lectern.css"/>"#,
            body:
                ##"<p><a href="https://docs.python.org/3/">docs</a> <a href="#top">top</a> <a href="02-b.xhtml#s">next</a> <a href="mailto:x@y.z">mail</a></p>"##
        )
        var bundle: [String: Data] = [
            "lectern.css": Data("body {}\n".utf8), "lectures/01-a.xhtml": good, "lectures/02-b.xhtml": Self.xhtml(body: "<p>b</p>"),
            "course.json": Data("{}\n".utf8),
        ]
        #expect(try BundleReferences.localReferences(inXHTML: good) == ["../lectern.css", "02-b.xhtml#s"])
        #expect(BundleReferences.problems(in: bundle).isEmpty)

        bundle["tone-preview.xhtml"] = Self.xhtml(
            head: #"<link rel="stylesheet" href="lectern.css"/>"#, body: #"<p><img src="diagram.png" alt="d"/></p>"#)
        bundle["lectures/03-c.xhtml"] = Self.xhtml(head: #"<link rel="stylesheet" href="lectern.css"/>"#, body: "<p>c</p>")
        bundle["lectures/04-d.xhtml"] = Data("<html><p>unclosed</html>".utf8)
        let problems = BundleReferences.problems(in: bundle)
        #expect(problems.count == 3, "\(problems)")
        #expect(problems.contains("lectures/03-c.xhtml: refers to lectern.css (lectures/lectern.css), which the bundle does not have"))
        #expect(problems.contains("tone-preview.xhtml: refers to diagram.png (diagram.png), which the bundle does not have"))
        #expect(problems.contains { $0.hasPrefix("lectures/04-d.xhtml: not well-formed XML") })
    }

    @Test func verifyReportsReferencesToFilesTheBundleDoesNotHave() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let bundle: [String: Data] = [
            "lectern.css": Data("body {}\n".utf8),
            "lectures/01-01-a.xhtml": Self.xhtml(head: #"<link rel="stylesheet" href="lectern.css"/>"#, body: "<p>a</p>"),
            "lectures/01-02-b.xhtml": Self.xhtml(head: #"<link rel="stylesheet" href="../lectern.css"/>"#, body: "<p>b</p>"),
        ]
        _ = try BundleWriter(outputRoot: root).write(files: bundle, manifest: base())
        let report = try BundleVerifier.verify(root.appendingPathComponent("demo/1.0.0"))
        #expect(report.checkedFiles == 3)
        #expect(report.problems == ["lectures/01-01-a.xhtml: refers to lectern.css (lectures/lectern.css), which the bundle does not have"])
    }
}
