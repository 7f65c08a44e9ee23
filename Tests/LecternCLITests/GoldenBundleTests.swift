import Foundation
import LecternBundle
import Testing

/// CI regenerates the main example's bundle offline from its committed cassette (recorded on
/// the local model) and compares it byte for byte with the committed golden bundle. A change
/// that alters content shows up here; `make fixtures` re-records both when that is intended.
/// The python-basics run is the README's command as written: no `--cassette`, so `--cache
/// offline` must find `pipelines/cassettes/python-basics.jsonl` by itself.
struct GoldenBundleTests {
    @Test func pythonBasicsReplaysOfflineToTheGoldenBundle() async throws {
        let repo = CLITests.repository
        let cassette = repo.appendingPathComponent("pipelines/cassettes/python-basics.jsonl")
        let golden = repo.appendingPathComponent("Tests/LecternCLITests/Fixtures/golden/python-basics/1.0.0")
        #expect(FileManager.default.fileExists(atPath: cassette.path), "record it with 'make fixtures'")
        let expected = CLITests.files(golden)
        #expect(expected.count > 10)

        let work = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-golden-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let run = try await CLITests.lectern(
            [
                "run", "pipelines/examples/python-basics.yaml", "--cache", "offline",
                "--cache-dir", work.appendingPathComponent("cache").path, "--output", work.appendingPathComponent("out").path,
                "--log-format", "text",
            ], in: repo)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("answering from the recorded cassette \(cassette.standardizedFileURL.path)"), "\(run.stderr)")
        let actual = CLITests.files(work.appendingPathComponent("out/python-basics/1.0.0"))
        #expect(Set(actual.keys) == Set(expected.keys))
        for (path, data) in expected where actual[path] != data {
            Issue.record("\(path) differs from the golden bundle; if the change is intended, run 'make fixtures'")
        }
    }

    /// Opened in a browser, the golden lectures find their stylesheet, and every other local
    /// reference names a file of the bundle; `lectern verify` checks the same.
    @Test func theGoldenBundlesReferencesAllResolve() async throws {
        let golden = CLITests.repository.appendingPathComponent("Tests/LecternCLITests/Fixtures/golden/python-basics/1.0.0")
        let files = CLITests.files(golden)
        for (path, data) in files where path.hasPrefix("lectures/") && path.hasSuffix(".xhtml") {
            #expect(String(decoding: data, as: UTF8.self).contains(#"<link rel="stylesheet" href="../lectern.css"/>"#), "\(path)")
        }
        try CLITests.expectEveryLocalReferenceResolves(files)
        let verify = try await CLITests.lectern(["verify", golden.path], in: CLITests.repository)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }

    /// The second example has no golden bundle (its cassette is the fixture), but its cassette
    /// must still answer every item: a prompt change that forgets to re-record it fails here.
    @Test func introProbabilityReplaysOfflineFromItsCassette() async throws {
        let repo = CLITests.repository
        let cassette = repo.appendingPathComponent("pipelines/cassettes/intro-probability.jsonl")
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-golden-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let run = try await CLITests.lectern(
            [
                "run", "pipelines/examples/intro-probability.yaml", "--cache", "offline", "--cassette", cassette.path,
                "--cache-dir", work.appendingPathComponent("cache").path, "--output", work.appendingPathComponent("out").path,
                "--log-format", "text",
            ], in: repo)
        #expect(run.status == 0, "re-record with 'make fixtures' if a prompt changed: \(run.stderr)")
        let verify = try await CLITests.lectern(["verify", work.appendingPathComponent("out/intro-probability/1.0.0").path], in: repo)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        try CLITests.expectEveryLocalReferenceResolves(CLITests.files(work.appendingPathComponent("out/intro-probability/1.0.0")))
        let course = try JSONSerialization.jsonObject(with: Data(contentsOf: work.appendingPathComponent("out/intro-probability/1.0.0/course.json")))
        let subjects = (course as? [String: Any])?["subjects"] as? [[String: Any]] ?? []
        let topics = subjects.flatMap { $0["topics"] as? [[String: Any]] ?? [] }
        #expect(topics.count == 7 && topics.allSatisfy { $0["bonus_question"] != nil && $0["engagement_question"] != nil })
    }
}
