import Foundation
import Testing

@testable import LecternCLI

/// Exit codes that mean what they say, through the real binary.
struct ExitCodeTests {
    typealias Workspace = CLITests.Workspace

    static func lectern(_ arguments: [String], in directory: URL) async throws -> CLITests.Output {
        try await CLITests.lectern(arguments, in: directory)
    }

    static let presets = ["--presets", CLITests.repository.appendingPathComponent("pipelines/presets").path]

    @Test func validateRefusesASpecThatWouldSendAKeyOverPlainHTTP() async throws {
        let ws = try Workspace()
        let spec = """
            kind: course
            id: shared
            description: d
            model: { provider: openai, base_url: "http://203.0.113.9/v1", api_key_env: TEAM_KEY }
            """
        try spec.write(to: ws.root.appendingPathComponent("shared.yaml"), atomically: true, encoding: .utf8)
        let out = try await Self.lectern(["validate", "shared.yaml"] + Self.presets, in: ws.root)
        #expect(out.status == 2)
        #expect(out.stderr.contains("shared.yaml:4:"))
        #expect(out.stderr.contains("TEAM_KEY") && out.stderr.contains("plain http") && out.stderr.contains("use an https:// base_url"))
        // run refuses it the same way, before any work.
        let run = try await Self.lectern(ws.arguments(["run", "shared.yaml"]), in: ws.root)
        #expect(run.status == 2)
    }

    @Test func anErrorInOneSpecDoesNotStopTheOthersAndTheWorstCodeWins() async throws {
        let ws = try Workspace()
        try "kind: course\nid: broken\ndescripton: typo\n".write(to: ws.root.appendingPathComponent("broken.yaml"), atomically: true, encoding: .utf8)
        let out = try await Self.lectern(ws.arguments(["run", "broken.yaml", "missing.yaml", "job.yaml", "--log-format", "text"]), in: ws.root)
        #expect(out.status == 2, "\(out.stderr)")
        #expect(out.stderr.contains("broken.yaml:3:1: error: unknown key 'descripton'"))
        #expect(out.stderr.contains("missing.yaml"))
        #expect(out.stdout.contains("wrote ") && out.stdout.contains("cli-course/1.0.0"))
        #expect(FileManager.default.fileExists(atPath: ws.root.appendingPathComponent("output/cli-course/1.0.0/manifest.json").path))
    }

    @Test func aCassetteThatCannotBeWrittenExitsFiveAndKeepsTheBundle() async throws {
        let ws = try Workspace()
        // The parent of the cassette path is a regular file.
        let out = try await Self.lectern(ws.arguments(["run", "job.yaml", "--record-cassette", "job.yaml/c.jsonl"]), in: ws.root)
        #expect(out.status == 5, "\(out.stderr)")
        #expect(out.stderr.contains("cannot write the cassette job.yaml/c.jsonl"))
        #expect(out.stdout.contains("wrote "))
        // The answers were cached: writing the cassette again costs no call.
        let calls = ws.calls.count
        let again = try await Self.lectern(ws.arguments(["run", "job.yaml", "--cache", "replay", "--record-cassette", "c.jsonl"]), in: ws.root)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(ws.calls.count == calls)
        #expect(FileManager.default.fileExists(atPath: ws.root.appendingPathComponent("c.jsonl").path))
    }

    @Test func aCacheThatCannotBeWrittenExitsFive() async throws {
        let ws = try Workspace()
        let file = ws.root.appendingPathComponent("not-a-directory")
        try "x".write(to: file, atomically: true, encoding: .utf8)
        let out = try await Self.lectern(
            ["run", "job.yaml", "--log-format", "text", "--cache-dir", file.path] + Self.presets, in: ws.root)
        #expect(out.status == 5, "\(out.stderr)")
        #expect(out.stderr.contains("the exchange cache could not be written") && out.stderr.contains("a file of that name is in the way"), "\(out.stderr)")
        #expect(out.stderr.contains("this machine failed"))
    }

    @Test func anOutputDirectoryThatCannotBeWrittenExitsFive() async throws {
        let ws = try Workspace()
        let out = try await Self.lectern(ws.arguments(["run", "job.yaml", "--output", "job.yaml"]), in: ws.root)
        #expect(out.status == 5, "\(out.stderr)")
        #expect(out.stderr.contains("finished items are cached"))
        // Nothing was lost: the next run into a real directory calls no model.
        let calls = ws.calls.count
        let again = try await Self.lectern(ws.arguments(["run", "job.yaml", "--output", "out"]), in: ws.root)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(ws.calls.count == calls)
    }

    @Test func renderTakesABatchIntoADirectory() async throws {
        let ws = try Workspace()
        for (name, text) in [("one", "# One\n\n$x^2$\n"), ("two", "# Two\n\n\\unknowncommand in $\\foo$\n")] {
            try text.write(to: ws.root.appendingPathComponent("\(name).md"), atomically: true, encoding: .utf8)
        }
        let out = try await Self.lectern(["render", "one.md", "two.md", "--output-dir", "site"], in: ws.root)
        #expect(out.status == 0, "\(out.stderr)")
        let one = try String(contentsOf: ws.root.appendingPathComponent("site/one.xhtml"), encoding: .utf8)
        #expect(one.hasPrefix("<?xml") && one.contains("<math"))
        #expect(FileManager.default.fileExists(atPath: ws.root.appendingPathComponent("site/two.xhtml").path))
        #expect(out.stderr.contains("two.md: warning:"))
        // A missing file is reported; the rest still render; the exit code says so.
        let partial = try await Self.lectern(["render", "missing.md", "one.md", "--output-dir", "again"], in: ws.root)
        #expect(partial.status == 2)
        #expect(partial.stderr.contains("missing.md: error: cannot read it"))
        #expect(FileManager.default.fileExists(atPath: ws.root.appendingPathComponent("again/one.xhtml").path))
        // Several files need a directory; two inputs may not write one output.
        #expect(try await Self.lectern(["render", "one.md", "two.md"], in: ws.root).status == 2)
        try FileManager.default.createDirectory(at: ws.root.appendingPathComponent("b"), withIntermediateDirectories: true)
        try "# B\n".write(to: ws.root.appendingPathComponent("b/one.md"), atomically: true, encoding: .utf8)
        let clash = try await Self.lectern(["render", "one.md", "b/one.md", "--output-dir", "site"], in: ws.root)
        #expect(clash.status == 2 && clash.stderr.contains("would both be written to site/one.xhtml"))
    }

    @Test func theWorstExitCodeWins() {
        #expect(LecternExit.worse(0, 1) == 1)
        #expect(LecternExit.worse(2, 1) == 2)
        #expect(LecternExit.worse(5, 3) == 5)
        #expect(LecternExit.worse(4, 3) == 3)
        #expect(LecternExit.worse(130, 5) == 130)
    }

    @Test func anInvalidEnumValueGetsASuggestion() {
        let message = "Error: The value 'ofline' is invalid for '--cache <MODE>'. Please provide one of 'record', 'replay', 'offline' or 'off'."
        #expect(LecternCommand.suggestion(forInvalidValueMessage: message) == "Did you mean 'offline'?")
        let far = "Error: The value 'zzzzzz' is invalid for '--cache <MODE>'. Please provide one of 'record', 'replay', 'offline' or 'off'."
        #expect(LecternCommand.suggestion(forInvalidValueMessage: far) == nil)
    }
}
