import Foundation
import LecternRandom
import Testing

@testable import LecternBundle

/// The package archive: written deterministically, read back whole, and hostile archives refused
/// with a reason and never a crash.
struct StoredZipTests {
    static let entries: [String: Data] = [
        "bundle/manifest.json": Data("{}".utf8), "bundle/lectures/a.md": Data("# A\n".utf8), "listing.json": Data(), "signature.json": Data([0, 1, 2]),
    ]

    @Test func roundTripsAndIsDeterministic() throws {
        let archive = StoredZip.write(Self.entries)
        #expect(archive == StoredZip.write(Self.entries))
        #expect(try StoredZip.read(archive) == Self.entries)
    }

    static func python(_ script: String) throws -> Data {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("zip-\(UUID().uuidString).zip")
        defer { try? FileManager.default.removeItem(at: out) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1], 'w')\n" + script + "\nz.close()", out.path]
        try process.run()
        process.waitUntilExit()
        return try Data(contentsOf: out)
    }

    @Test func archivesItDoesNotWriteAreRefusedWithAReason() throws {
        let cases: [(String, String)] = [
            ("z.writestr(zipfile.ZipInfo('a.md'), b'x' * 100, compress_type=zipfile.ZIP_DEFLATED)", "compressed entries are not supported"),
            ("z.writestr('../escape.md', b'x')", "not a safe relative file name"),
            ("z.writestr('/abs.md', b'x')", "not a safe relative file name"),
            ("z.writestr('a.md', b'x')\nz.writestr('a.md', b'y')", "appears twice"),
            ("z.writestr('dir/', b'')", "not a safe relative file name"),
        ]
        for (script, reason) in cases {
            let archive = try Self.python(script)
            #expect(throws: StoredZip.Failure.self) { try StoredZip.read(archive) }
            do {
                _ = try StoredZip.read(archive)
            } catch {
                #expect("\(error)".contains(reason), "\(script): \(error)")
            }
        }
        // What Python writes stored and plain is read like our own.
        #expect(try StoredZip.read(try Self.python("z.writestr('a/b.md', b'hello')")) == ["a/b.md": Data("hello".utf8)])
    }

    @Test func damagedArchivesNeverCrash() {
        let archive = StoredZip.write(Self.entries)
        #expect(throws: StoredZip.Failure.self) { try StoredZip.read(Data()) }
        #expect(throws: StoredZip.Failure.self) { try StoredZip.read(archive.prefix(archive.count - 5)) }
        var rng = SplitMix64(state: 17)
        var refused = 0
        for _ in 0..<2_000 {
            var damaged = archive
            for _ in 0..<(1 + Int(rng.next() % 4)) {
                let index = Int(rng.next() % UInt64(damaged.count))
                damaged[index] = UInt8(truncatingIfNeeded: rng.next())
            }
            if (try? StoredZip.read(damaged)) == nil { refused += 1 }
        }
        // Every damage is either refused or (a byte of a header field nobody reads) harmless.
        #expect(refused > 1_500)
    }

    /// Exports hold the model's text: control characters (a JSON escape that ate a TeX backslash)
    /// become U+FFFD, and a `]]>` inside Moodle's CDATA is split, so the XML stays well-formed.
    @Test func exportedTextIsAlwaysWellFormed() {
        #expect(Exporters.textCharacters("$\u{08}inom{n}{k}$ \u{0C}rac12 \t ok\n") == "$\u{FFFD}inom{n}{k}$ \u{FFFD}rac12 \t ok\n")
        #expect(Exporters.textCharacters("plain") == "plain")
        #expect(MoodleXMLExporter.cdata("a ]]> b\u{01}") == "<![CDATA[a ]]]]><![CDATA[> b\u{FFFD}]]>")
        #expect(BundleContent.xmlEscaped("x < y & \"q\" \u{0B}") == "x &lt; y &amp; &quot;q&quot; \u{FFFD}")
    }
}
