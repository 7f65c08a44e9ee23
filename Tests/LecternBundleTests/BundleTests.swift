import Foundation
import LecternCore
import Testing

@testable import LecternBundle

struct BundleTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-bundle-\(UUID().uuidString)")

    func base(version: String = "1.0.0") -> Manifest {
        Manifest(
            kind: "course", id: "demo", version: version, title: "Demo", language: "en", generator: "test",
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
}
