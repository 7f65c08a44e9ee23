import Foundation
import Testing

/// `lectern keys generate`, `lectern package` and `lectern verify FILE.lectern` as a publisher and
/// a marketplace run them, on the golden python-basics bundle and the example listing.
struct PackageCommandTests {
    typealias Directory = CheckCommandTests.Directory
    static let bundle = CLITests.repository.appendingPathComponent("Tests/LecternCLITests/Fixtures/golden/python-basics/1.0.0").path
    static let listing = CLITests.repository.appendingPathComponent("pipelines/examples/python-basics-listing.yaml").path

    /// Rewrites a package's entries with Python's zipfile (stored, valid CRCs): tampering as a
    /// person with ordinary tools would do it. `edits`: a Python expression per entry name.
    static func tamper(_ package: URL, to output: URL, python: String, in dir: URL) async throws {
        let script = """
            import sys, zipfile
            src = zipfile.ZipFile(sys.argv[1]); out = zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_STORED)
            for name in src.namelist():
                data = src.read(name)
            \(python.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
                out.writestr(name, data)
            out.close()
            """
        let result = try await CLITests.external(
            ["-c", script, package.path, output.path], in: dir, environment: [:], executable: URL(fileURLWithPath: "/usr/bin/python3"))
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func aSignedPackageVerifiesAndEveryTamperingIsRefused() async throws {
        let dir = try Directory()
        let keys = dir.root.appendingPathComponent("keys")
        let generated = try await CLITests.lectern(["keys", "generate", "--output", keys.path, "--name", "publisher"], in: dir.root)
        #expect(generated.status == 0, "\(generated)")
        #expect(generated.stdout.contains("fingerprint: SHA256:"))
        let privateKey = keys.appendingPathComponent("publisher.key")
        let attributes = try FileManager.default.attributesOfItem(atPath: privateKey.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let again = try await CLITests.lectern(["keys", "generate", "--output", keys.path, "--name", "publisher"], in: dir.root)
        #expect(again.status == 2 && again.stderr.contains("already exists; keys are never overwritten"), "\(again)")
        _ = try await CLITests.lectern(["keys", "generate", "--output", keys.path, "--name", "other"], in: dir.root)

        // Package: deterministic, a ZIP any tool reads, the listing with the bundle's counts.
        let packaged = try await CLITests.lectern(
            ["package", Self.bundle, "--listing", Self.listing, "--key", privateKey.path], in: dir.root)
        #expect(packaged.status == 0, "\(packaged)")
        let package = dir.root.appendingPathComponent("python-basics-1.0.0.lectern")
        let first = try Data(contentsOf: package)
        let second = try await CLITests.lectern(
            ["package", Self.bundle, "--listing", Self.listing, "--key", privateKey.path, "--output", "again.lectern"], in: dir.root)
        #expect(second.status == 0)
        #expect(try Data(contentsOf: dir.root.appendingPathComponent("again.lectern")) == first, "same inputs, same bytes")
        #expect(!String(decoding: first, as: UTF8.self).contains(try String(contentsOf: privateKey, encoding: .utf8).split(separator: "\n")[1]))
        let listed = try await CLITests.external(
            [
                "-c",
                "import json, sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; l = json.loads(z.read('listing.json'));"
                    + " print(len(z.namelist()), l['contents']['counts']['lectures'], l['contents']['total_minutes'], l['price']['amount'], l['author']['avatar']['path'])",
                package.path,
            ], in: dir.root, environment: [:], executable: URL(fileURLWithPath: "/usr/bin/python3"))
        #expect(listed.stdout == "18 4 9 499 listing/avatar.png\n", "\(listed)")

        // Verify: the right key passes; a folder of trusted keys too.
        let ok = try await CLITests.lectern(["verify", package.path, "--public-key", keys.appendingPathComponent("publisher.pub").path], in: dir.root)
        #expect(ok.status == 0 && ok.stdout.contains("ok (18 files, python-basics 1.0.0"), "\(ok)")
        #expect(try await CLITests.lectern(["verify", package.path, "--trusted-keys", keys.path], in: dir.root).status == 0)
        let noKey = try await CLITests.lectern(["verify", package.path], in: dir.root)
        #expect(noKey.status == 2 && noKey.stderr.contains("give --public-key KEY.pub or --trusted-keys DIR"))
        let privateGiven = try await CLITests.lectern(["verify", package.path, "--public-key", privateKey.path], in: dir.root)
        #expect(privateGiven.status == 2 && privateGiven.stderr.contains("that is the private key"), "\(privateGiven)")

        // Another key: refused, naming the signer.
        let wrongKey = try await CLITests.lectern(["verify", package.path, "--public-key", keys.appendingPathComponent("other.pub").path], in: dir.root)
        #expect(wrongKey.status == 1 && wrongKey.stderr.contains("which is not a trusted key"), "\(wrongKey)")

        // A flipped byte in a lecture, as the archive's bytes (its CRC no longer matches).
        var flipped = first
        let lectureMarker = Data("Imagine".utf8)
        let at = try #require(flipped.range(of: lectureMarker)).lowerBound
        flipped[at] ^= 0x20
        try flipped.write(to: dir.root.appendingPathComponent("flipped.lectern"))
        let damaged = try await CLITests.lectern(["verify", "flipped.lectern", "--trusted-keys", keys.path], in: dir.root)
        #expect(damaged.status == 1 && damaged.stderr.contains("CRC-32 does not match"), "\(damaged)")

        // The same change re-zipped with valid CRCs: the signed manifest catches it.
        try await Self.tamper(
            package, to: dir.root.appendingPathComponent("edited.lectern"),
            python: "if name.endswith('01-01-understanding-values.md'): data = data.replace(b'value', b'Value', 1)", in: dir.root)
        let edited = try await CLITests.lectern(["verify", "edited.lectern", "--trusted-keys", keys.path], in: dir.root)
        #expect(
            edited.status == 1 && edited.stderr.contains("bundle/lectures/01-01-understanding-values.md: content differs from the signed manifest"),
            "\(edited)")

        // A swapped listing (a lower price), a file added, the avatar replaced.
        try await Self.tamper(
            package, to: dir.root.appendingPathComponent("listing.lectern"),
            python: "if name == 'listing.json': data = data.replace(b'499', b'99')", in: dir.root)
        let swapped = try await CLITests.lectern(["verify", "listing.lectern", "--trusted-keys", keys.path], in: dir.root)
        #expect(swapped.status == 1 && swapped.stderr.contains("listing.json was changed after signing"), "\(swapped)")
        try await Self.tamper(
            package, to: dir.root.appendingPathComponent("avatar.lectern"),
            python: "if name == 'listing/avatar.png': data = data[:-20] + bytes(20)", in: dir.root)
        let avatar = try await CLITests.lectern(["verify", "avatar.lectern", "--trusted-keys", keys.path], in: dir.root)
        #expect(avatar.status == 1 && avatar.stderr.contains("listing/avatar.png: differs from the avatar the listing was signed with"), "\(avatar)")

        // Re-signed with another key: valid signature, untrusted signer.
        let resigned = try await CLITests.lectern(
            ["package", Self.bundle, "--listing", Self.listing, "--key", keys.appendingPathComponent("other.key").path, "--output", "resigned.lectern"],
            in: dir.root)
        #expect(resigned.status == 0)
        let untrusted = try await CLITests.lectern(
            ["verify", "resigned.lectern", "--public-key", keys.appendingPathComponent("publisher.pub").path], in: dir.root)
        #expect(untrusted.status == 1 && untrusted.stderr.contains("re-signed by someone else"), "\(untrusted)")
    }

    @Test func aListingsErrorsAreLocatedAndTheBundleIsCheckedFirst() async throws {
        let dir = try Directory()
        _ = try await CLITests.lectern(["keys", "generate", "--output", dir.root.path, "--name", "k"], in: dir.root)
        let key = dir.root.appendingPathComponent("k.key").path
        let bad = try dir.write(
            "bad-listing.yaml",
            """
            title: Py
            description: Too short.
            language: english
            level: expert
            tags: [python, Python]
            author:
              name: Ada
              website: http://example.org
              avatar: missing.png
            licence: CC-BY-4.0
            price: {amount: -5, currency: usd}
            colour: blue

            """)
        let refused = try await CLITests.lectern(["package", Self.bundle, "--listing", bad, "--key", key], in: dir.root)
        #expect(refused.status == 2, "\(refused)")
        for expected in [
            "bad-listing.yaml:1:8: error: 'title' is too short", "bad-listing.yaml:2:14: error: 'description' is too short (10 characters; at least 40)",
            "bad-listing.yaml:3:11: error: 'language' must be a BCP 47 code", "bad-listing.yaml:4:8: error: 'level' must be one of",
            "the tag 'Python' is given twice", "bad-listing.yaml:8:12: error: 'author.website' must be an https:// address",
            "'author.avatar' names missing.png, which cannot be read", "bad-listing.yaml:11:",
            "'price.currency' must be an ISO 4217 code", "bad-listing.yaml:12:1: error: unknown key 'colour'",
        ] {
            #expect(refused.stderr.contains(expected), "missing: \(expected)\n\(refused.stderr)")
        }
        // A free sample the bundle does not have, and a bundle that does not verify.
        let samples = try dir.write(
            "samples.yaml",
            try String(contentsOfFile: Self.listing, encoding: .utf8).replacingOccurrences(of: "[s01-t01]", with: "[s09-t01]")
                .replacingOccurrences(of: "  avatar: python-basics-avatar.png\n", with: ""))
        let unknown = try await CLITests.lectern(["package", Self.bundle, "--listing", samples, "--key", key], in: dir.root)
        #expect(unknown.status == 2 && unknown.stderr.contains("samples.yaml:21:15: error: free_samples names 's09-t01', which the bundle does not have"), "\(unknown)")
        // Everything at once, each at its line: what the bundle contradicts and a price in major units.
        let all = try dir.write(
            "all.yaml",
            try String(contentsOf: dir.root.appendingPathComponent(samples), encoding: .utf8).replacingOccurrences(of: "language: en", with: "language: ar")
                .replacingOccurrences(of: "amount: 499 ", with: "amount: 4.99"))
        let several = try await CLITests.lectern(["package", Self.bundle, "--listing", all, "--key", key], in: dir.root)
        #expect(several.status == 2, "\(several)")
        for expected in [
            "all.yaml:10:11: error: 'language' is ar but the bundle is in en", "all.yaml:19:11: error: 'price.amount' is 4.99, but a price is a whole number of the currency's minor units",
            "write 499 for 4.99", "all.yaml:21:15: error: free_samples names 's09-t01', which the bundle does not have", "its lectures are s01-t01, s01-t02",
        ] {
            #expect(several.stderr.contains(expected), "missing: \(expected)\n\(several.stderr)")
        }
        #expect(!several.stderr.contains("write a number such as"), "\(several.stderr)")
        let copy = dir.root.appendingPathComponent("bundle")
        try FileManager.default.copyItem(atPath: Self.bundle, toPath: copy.path)
        try Data("changed".utf8).write(to: copy.appendingPathComponent("course.json"))
        let broken = try await CLITests.lectern(["package", copy.path, "--listing", samples, "--key", key], in: dir.root)
        #expect(broken.status == 2 && broken.stderr.contains("the bundle does not verify"), "\(broken)")
    }
}
