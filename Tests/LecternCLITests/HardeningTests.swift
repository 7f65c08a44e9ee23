import Foundation
import Testing

/// Issue 44, tried as a hostile user and an unlucky one would: keys only where they belong,
/// `validate` refusing what `run` refuses, files only from the spec's project, CSV that does not
/// parse refused whole. Each test drives the real `lectern` binary.
struct HardeningTests {
    typealias Workspace = CLITests.Workspace

    /// A real HTTP server on 127.0.0.1 (a Python script of the fixtures) that records what it
    /// receives and answers every request the same way.
    final class RecordingServer {
        let process = Process()
        let directory: URL
        let port: Int

        init(reply: String) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-server-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [
                CLITests.fixtures.appendingPathComponent("servers/record-server.py").path, directory.appendingPathComponent("port").path,
                directory.appendingPathComponent("log.jsonl").path, reply,
            ]
            try process.run()
            let portFile = directory.appendingPathComponent("port")
            let deadline = Date().addingTimeInterval(600)
            while !FileManager.default.fileExists(atPath: portFile.path) && Date() < deadline && process.isRunning { Thread.sleep(forTimeInterval: 0.05) }
            port = Int((try? String(contentsOf: portFile, encoding: .utf8)) ?? "") ?? 0
            if port == 0 { throw CocoaError(.fileReadNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "the recording server did not start"]) }
        }

        deinit {
            // SIGKILL: a child started from a dispatch thread inherits its blocked SIGTERM.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: directory)
        }

        var baseURL: String { "http://127.0.0.1:\(port)/v1" }

        /// Every request received, as the server logged it.
        var requests: [[String: Any]] {
            ((try? String(contentsOf: directory.appendingPathComponent("log.jsonl"), encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
    }

    static let canary = "sk-canary-4f1e9d0c"

    /// `lectern COMMAND …` with the workspace's presets, and its cache for the commands that take one.
    static func arguments(_ extra: [String], _ ws: Workspace) -> [String] {
        let all = ws.arguments(extra)
        guard extra.first == "validate" else { return all }
        var out: [String] = []
        var i = 0
        while i < all.count {
            if all[i] == "--cache-dir" { i += 2; continue }
            out.append(all[i])
            i += 1
        }
        return out
    }

    static func write(_ text: String, _ name: String, in ws: Workspace) throws {
        let url = ws.root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    /// The workspace's course spec with `extra` lines added (and `addons` replaced when given).
    static func courseSpec(_ extra: String, addons: String = "{ reinforcement: true }") -> String {
        Workspace.spec.replacingOccurrences(of: "addons: { reinforcement: true }", with: "addons: \(addons)") + "\n" + extra + "\n"
    }

    // MARK: 1. Speech keys

    @Test("the narration add-on sends no default key to a custom speech base_url")
    func speechKeyStaysHome() async throws {
        let server = try RecordingServer(reply: "wav")
        let ws = try Workspace()
        try Self.write(
            Self.courseSpec("speech: { provider: openai, base_url: \"\(server.baseURL)\" }", addons: "{ narration: true }"), "job.yaml", in: ws)
        let environment = ["OPENAI_API_KEY": Self.canary, "LECTERN_SPEECH_API_KEY": Self.canary]
        let run = try await CLITests.lectern(Self.arguments(["run", "job.yaml", "--log-format", "text"], ws), in: ws.root, environment: environment)
        let requests = server.requests
        #expect(!requests.isEmpty, "the speech endpoint was never asked: \(run.stderr.suffix(2_000))")
        for request in requests {
            let headers = (request["headers"] as? [String: String]) ?? [:]
            #expect(!headers.values.contains { $0.contains(Self.canary) }, "a default key went to \(server.baseURL): \(headers)")
            #expect(headers.keys.allSatisfy { $0.lowercased() != "authorization" })
        }
        // Named, the key goes there (loopback, so plain http is allowed).
        let named = try RecordingServer(reply: "wav")
        try Self.write(
            Self.courseSpec("speech: { provider: openai, base_url: \"\(named.baseURL)\", api_key_env: LOCAL_TTS_KEY }", addons: "{ narration: true }"),
            "job.yaml", in: ws)
        _ = try await CLITests.lectern(
            Self.arguments(["run", "job.yaml", "--log-format", "text", "--output", "out-named"], ws), in: ws.root, environment: ["LOCAL_TTS_KEY": "sk-local-tts"])
        let first = try #require(named.requests.first, "the named-key run never asked its speech endpoint")
        #expect((first["headers"] as? [String: String])?.first { $0.key.lowercased() == "authorization" }?.value == "Bearer sk-local-tts")
    }

    @Test("a speech key never goes over plain http to another machine: validate and run refuse, nothing connects")
    func speechKeyOverPlainHTTP() async throws {
        let ws = try Workspace()
        for speech in [
            "{ provider: openai, base_url: \"http://speech.example.invalid/v1\", api_key_env: TTS_KEY }",
            // The default variable, to OpenAI's own host name on another port, over http.
            "{ provider: openai, base_url: \"http://api.openai.com:18100/v1\" }",
        ] {
            try Self.write(Self.courseSpec("speech: \(speech)", addons: "{ narration: true }"), "job.yaml", in: ws)
            let environment = ["TTS_KEY": Self.canary, "OPENAI_API_KEY": Self.canary]
            let validate = try await CLITests.lectern(Self.arguments(["validate", "job.yaml"], ws), in: ws.root, environment: environment)
            #expect(validate.status == 2, "\(speech): \(validate.stdout)\(validate.stderr)")
            #expect(validate.stderr.contains("plain") && validate.stderr.contains("job.yaml:"), "\(validate.stderr)")
            #expect(!validate.stderr.contains(Self.canary))
            let run = try await CLITests.lectern(Self.arguments(["run", "job.yaml", "--log-format", "text"], ws), in: ws.root, environment: environment)
            #expect(run.status == 2, "\(speech): \(run.stderr)")
            #expect(ws.calls.isEmpty, "the model was asked before the refusal: \(ws.calls)")
        }
    }

    // MARK: 2. validate refuses what run refuses

    @Test("a default model key over http to the provider's own host on another port: validate 2, run 2")
    func modelKeyToOwnHostOverHTTP() async throws {
        let ws = try Workspace()
        try Self.write(
            Self.courseSpec("").replacingOccurrences(
                of: "model: { provider: scripted, script: script.json, max_concurrency: 2 }",
                with: "model: { provider: openai, name: gpt-4o-mini, base_url: \"http://api.openai.com:18100/v1\" }"), "job.yaml", in: ws)
        let environment = ["OPENAI_API_KEY": Self.canary]
        let validate = try await CLITests.lectern(Self.arguments(["validate", "job.yaml"], ws), in: ws.root, environment: environment)
        #expect(validate.status == 2, "\(validate.stdout)\(validate.stderr)")
        #expect(validate.stderr.contains("OPENAI_API_KEY") && validate.stderr.contains("plain http"), "\(validate.stderr)")
        let run = try await CLITests.lectern(Self.arguments(["run", "job.yaml"], ws), in: ws.root, environment: environment)
        #expect(run.status == 2, "\(run.stderr)")
        // A key not set is this machine's business, not the spec's: validate warns, run stops.
        try Self.write(
            Self.courseSpec("").replacingOccurrences(
                of: "model: { provider: scripted, script: script.json, max_concurrency: 2 }", with: "model: { provider: openai, name: gpt-4o-mini }"),
            "job.yaml", in: ws)
        let unset = ["OPENAI_API_KEY": ""]
        let warned = try await CLITests.lectern(Self.arguments(["validate", "job.yaml"], ws), in: ws.root, environment: unset)
        #expect(warned.status == 0 && warned.stderr.contains("warning") && warned.stderr.contains("OPENAI_API_KEY"), "\(warned.stderr)")
        let stopped = try await CLITests.lectern(Self.arguments(["run", "job.yaml"], ws), in: ws.root, environment: unset)
        #expect(stopped.status == 3 && stopped.stderr.contains("OPENAI_API_KEY"), "\(stopped.stderr)")
    }

    static func deckSpec(source: String) -> String {
        """
        kind: flashcards
        id: deck-test
        description: A deck for tests.
        source: \(source)
        model: { provider: scripted, script: script.json }
        """
    }

    @Test("a deck file that is not UTF-8, or has one usable row: validate, plan and run all exit 2")
    func deckRefusedAlike() async throws {
        let ws = try Workspace()
        let cases: [(String, Data, String)] = [
            ("latin1.tsv", Data("term\tdefinition\nCaf\u{E9}\tA place\nTh\u{E9}\tA drink\n".data(using: .isoLatin1)!), "not UTF-8"),
            ("one.tsv", Data("Atom\tThe smallest unit of an element\nMolecule\n".utf8), "1 usable row"),
        ]
        for (name, bytes, reason) in cases {
            try bytes.write(to: ws.root.appendingPathComponent(name))
            try Self.write(Self.deckSpec(source: name), "deck.yaml", in: ws)
            for command in ["validate", "plan", "run"] {
                let out = try await CLITests.lectern(Self.arguments([command, "deck.yaml"], ws), in: ws.root)
                #expect(out.status == 2, "\(command) \(name): \(out.status) \(out.stderr)")
                #expect(out.stderr.contains(reason) && out.stderr.contains("deck.yaml:"), "\(command) \(name): \(out.stderr)")
            }
        }
    }

    // MARK: 3. Bytes outside the signed archive

    /// `archive` with every offset (central directory entries' local offsets, the end record's
    /// directory offset) moved by `shift`: what putting `shift` bytes in front of it needs.
    static func shifted(_ archive: Data, by shift: Int) -> Data {
        var bytes = [UInt8](archive)
        func u16(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 }
        func u32(_ i: Int) -> Int { u16(i) | u16(i + 2) << 16 }
        func put32(_ i: Int, _ v: Int) { for k in 0..<4 { bytes[i + k] = UInt8((v >> (8 * k)) & 0xFF) } }
        let eocd = bytes.count - 22
        let count = u16(eocd + 10)
        var position = u32(eocd + 16)
        put32(eocd + 16, position + shift)
        for _ in 0..<count {
            put32(position + 42, u32(position + 42) + shift)
            position += 46 + u16(position + 28) + u16(position + 30) + u16(position + 32)
        }
        return Data(bytes)
    }

    @Test("a signed package with bytes appended or an unsigned archive prepended does not verify")
    func packageHoldsNothingUnsigned() async throws {
        let ws = try Workspace()
        let keys = ws.root.appendingPathComponent("keys")
        #expect(try await CLITests.lectern(["keys", "generate", "--output", keys.path, "--name", "p"], in: ws.root).status == 0)
        let packaged = try await CLITests.lectern(
            [
                "package", PackageCommandTests.bundle, "--listing", PackageCommandTests.listing, "--key", keys.appendingPathComponent("p.key").path,
                "--output", "signed.lectern",
            ], in: ws.root)
        #expect(packaged.status == 0, "\(packaged.stderr)")
        let signed = try Data(contentsOf: ws.root.appendingPathComponent("signed.lectern"))
        let ok = try await CLITests.lectern(["verify", "signed.lectern", "--trusted-keys", keys.path], in: ws.root)
        #expect(ok.status == 0, "\(ok.stderr)")
        // The evil archive's entries without its own directory: what a streaming reader meets first.
        let evilZip = ZipFixture.stored(["bundle/course.json": Data(#"{"evil": true}"#.utf8)])
        let evilEntries = evilZip.prefix(evilZip.count - 22 - ZipFixture.centralDirectorySize(evilZip))
        let cases: [(String, Data)] = [
            ("one byte appended", signed + Data([0x0A])),
            ("400 bytes appended", signed + Data(repeating: 0x41, count: 400)),
            ("a second copy appended", signed + signed),
            ("an unsigned archive prepended", evilEntries + Self.shifted(signed, by: evilEntries.count)),
        ]
        for (name, bytes) in cases {
            try bytes.write(to: ws.root.appendingPathComponent("bad.lectern"))
            let verify = try await CLITests.lectern(["verify", "bad.lectern", "--trusted-keys", keys.path], in: ws.root)
            #expect(verify.status == 1, "\(name): verified \(verify.stdout)")
            #expect(verify.stderr.contains("not a readable package"), "\(name): \(verify.stderr)")
        }
        // What unzip reads of the prepended one is the signed files: the two readers would disagree.
        let listing = try await CLITests.external(
            ["-c", "import sys, zipfile; print(sorted(zipfile.ZipFile(sys.argv[1]).namelist())[:2])", ws.root.appendingPathComponent("bad.lectern").path],
            in: ws.root, environment: [:], executable: URL(fileURLWithPath: "/usr/bin/python3"))
        #expect(listing.stdout.contains("bundle/"), "\(listing)")
    }

    // MARK: 4. Files only from the spec's project

    static func examSpec(corpus: String) -> String {
        """
        kind: exam
        id: exam-test
        description: An exam for tests.
        corpus: [\(corpus)]
        blueprint:
          - section: verbal
            categories:
              - { category: facts, format: fact, instructions: Ask about a fact the text states., medium: 1 }
        model: { provider: scripted, script: script.json }
        """
    }

    static let prose = (1...12).map {
        "Sentence number \($0) of the canary document says that the river carries water to the sea through a wide valley of farms."
    }.joined(separator: " ")

    @Test("a corpus entry that is a link out of the project, or a path up and out, is refused before any read")
    func corpusStaysInTheProject() async throws {
        let ws = try Workspace()
        // The spec's project: a directory holding .git, with the spec one level down.
        let project = ws.root.appendingPathComponent("project")
        try FileManager.default.createDirectory(at: project.appendingPathComponent(".git"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: project.appendingPathComponent("specs/texts"), withIntermediateDirectories: true)
        let outside = ws.root.appendingPathComponent("private")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try Self.prose.write(to: outside.appendingPathComponent("secret.md"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(
            at: project.appendingPathComponent("specs/texts/link.md"), withDestinationURL: outside.appendingPathComponent("secret.md"))
        try FileManager.default.createSymbolicLink(at: project.appendingPathComponent("specs/linked-dir"), withDestinationURL: outside)
        try Self.prose.write(to: project.appendingPathComponent("notes.md"), atomically: true, encoding: .utf8)
        let specs = project.appendingPathComponent("specs")
        try FileManager.default.copyItem(at: ws.root.appendingPathComponent("script.json"), to: specs.appendingPathComponent("script.json"))
        for (corpus, shows) in [
            ("texts/link.md", "secret.md"), ("linked-dir", "private"), ("../../private/secret.md", "private"),
            ("../../../../../../../../etc", "/etc"),
        ] {
            try Self.examSpec(corpus: corpus).write(to: specs.appendingPathComponent("exam.yaml"), atomically: true, encoding: .utf8)
            for command in ["validate", "plan"] {
                let out = try await CLITests.lectern(Self.arguments([command, "exam.yaml"], ws), in: specs)
                #expect(out.status == 2, "\(command) \(corpus): \(out.stdout)\(out.stderr)")
                #expect(out.stderr.contains("outside the spec's project") && out.stderr.contains(shows), "\(corpus): \(out.stderr)")
                #expect(out.stderr.contains("exam.yaml:4:"), "the error points at the corpus entry: \(out.stderr)")
                #expect(out.stderr.contains("--corpus-root"), "\(out.stderr)")
            }
        }
        // Inside the project (above the spec's own directory) is fine, as the examples' ../../corpus/ is.
        try Self.examSpec(corpus: "../notes.md").write(to: specs.appendingPathComponent("exam.yaml"), atomically: true, encoding: .utf8)
        let inside = try await CLITests.lectern(Self.arguments(["validate", "exam.yaml"], ws), in: specs)
        #expect(inside.status == 0, "\(inside.stderr)")
        // The command line may allow another root.
        try Self.examSpec(corpus: "../../private/secret.md").write(to: specs.appendingPathComponent("exam.yaml"), atomically: true, encoding: .utf8)
        let allowed = try await CLITests.lectern(Self.arguments(["validate", "exam.yaml", "--corpus-root", outside.path], ws), in: specs)
        #expect(allowed.status == 0, "\(allowed.stderr)")
    }

    @Test("a quotes corpus and a deck file are held to the same roots")
    func quotesAndDecksStayInTheProject() async throws {
        let ws = try Workspace()
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-outside-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: outside) }
        try "Atom\tThe smallest unit of an element\nIon\tAn atom with a charge\n".write(
            to: outside.appendingPathComponent("cards.tsv"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(at: ws.root.appendingPathComponent("cards.tsv"), withDestinationURL: outside.appendingPathComponent("cards.tsv"))
        try Self.write(Self.deckSpec(source: "cards.tsv"), "deck.yaml", in: ws)
        let deck = try await CLITests.lectern(Self.arguments(["validate", "deck.yaml"], ws), in: ws.root)
        #expect(deck.status == 2 && deck.stderr.contains("outside the spec's project"), "\(deck.stderr)")
        try "text,author\n\"A quote long enough to be kept by the cleaning rules, said well.\",Ada Lovelace\n".write(
            to: outside.appendingPathComponent("q.csv"), atomically: true, encoding: .utf8)
        try Self.write(
            """
            kind: quotes
            id: quotes-test
            description: Quotes for tests.
            corpus: [{ path: \(outside.appendingPathComponent("q.csv").path), licence: CC0-1.0 }]
            model: { provider: scripted, script: script.json }
            """, "quotes.yaml", in: ws)
        let quotes = try await CLITests.lectern(Self.arguments(["validate", "quotes.yaml"], ws), in: ws.root)
        #expect(quotes.status == 2 && quotes.stderr.contains("outside the spec's project"), "\(quotes.stderr)")
    }

    // MARK: 5. A full cache disk

    @Test("a full cache disk stops new calls at the first failed write, names the path and the reason, and exits 5")
    func fullCacheDiskStopsSpending() async throws {
        let ws = try Workspace()
        let cache = ws.root.appendingPathComponent("tiny-cache")
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        let presets = CLITests.repository.appendingPathComponent("pipelines/presets").path
        // A 64 KiB file system of the run's own (a private mount namespace), holding the cache; what
        // it stored is counted before the namespace goes.
        let script = """
            mount -t tmpfs -o size=64k tmpfs "$1" || exit 99
            "$2" run job.yaml --cache-dir "$1" --presets "$3" --log-format text --output out
            status=$?
            find "$1/exchanges" -name '*.json' | wc -l > stored.txt
            exit $status
            """
        let out = try await CLITests.external(
            ["--mount", "--map-root-user", "sh", "-c", script, "sh", cache.path, CLITests.binary.path, presets], in: ws.root,
            executable: URL(fileURLWithPath: "/usr/bin/unshare"))
        #expect(out.status != 99, "this machine cannot mount a small file system for the test: \(out.stderr)")
        #expect(out.status == 5, "\(out.status): \(out.stderr.suffix(3_000))")
        #expect(out.stderr.contains("No space left on device") && out.stderr.contains(cache.path), "\(out.stderr.suffix(3_000))")
        let stored = Int((try String(contentsOf: ws.root.appendingPathComponent("stored.txt"), encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        // Each paid answer is stored, or it was in flight when the first write failed (at most
        // max_concurrency, 2): none is asked after.
        #expect(stored > 0 && ws.calls.count <= stored + 2, "\(ws.calls.count) calls, \(stored) stored")
    }

    // MARK: 6. CSV that does not parse

    @Test("a CSV quote never closed is named, and nothing of the file is imported")
    func unclosedQuoteRefusesTheFile() async throws {
        let ws = try Workspace()
        try "term,definition\n\"Atom,The smallest unit of an element\nMolecule,\"Two or more atoms held together\"\nIon,An atom with a charge\n".write(
            to: ws.root.appendingPathComponent("cards.csv"), atomically: true, encoding: .utf8)
        try Self.write(Self.deckSpec(source: "cards.csv"), "deck.yaml", in: ws)
        for command in ["validate", "run"] {
            let out = try await CLITests.lectern(Self.arguments([command, "deck.yaml"], ws), in: ws.root)
            #expect(out.status == 2, "\(command): \(out.stderr)")
            #expect(out.stderr.contains("the quote opened at line 2 is never closed"), "\(command): \(out.stderr)")
            #expect(out.stderr.contains("nothing of it is imported"), "\(out.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: ws.root.appendingPathComponent("output/deck-test").path))
    }

    // MARK: 7. Two runs on one cache

    @Test("two runs of one spec on one cache at once: each answer is paid for once, and both runs succeed")
    func twoRunsShareOneCache() async throws {
        // Alone: how many calls the spec makes.
        let alone = try Workspace(delayMilliseconds: 150)
        let first = try await CLITests.lectern(Self.arguments(["run", "job.yaml", "--log-format", "text"], alone), in: alone.root)
        #expect(first.status == 0, "\(first.stderr.suffix(2_000))")
        let callsAlone = alone.calls.count
        #expect(callsAlone > 10)
        // Twice at once, on one cache (and one call log).
        let ws = try Workspace(delayMilliseconds: 150)
        let argumentsA = Self.arguments(["run", "job.yaml", "--log-format", "text", "--output", "out-a"], ws)
        let argumentsB = Self.arguments(["run", "job.yaml", "--log-format", "text", "--output", "out-b"], ws)
        let root = ws.root
        async let a = CLITests.lectern(argumentsA, in: root)
        async let b = CLITests.lectern(argumentsB, in: root)
        let (ra, rb) = try await (a, b)
        #expect(ra.status == 0 && rb.status == 0, "\(ra.stderr.suffix(1_000))\n\(rb.stderr.suffix(1_000))")
        #expect(ws.calls.count == callsAlone, "\(ws.calls.count) calls for two runs, \(callsAlone) for one")
        #expect(
            CLITests.files(ws.root.appendingPathComponent("out-a/cli-course/1.0.0")) == CLITests.files(ws.root.appendingPathComponent("out-b/cli-course/1.0.0")))
    }

    // MARK: 8 and 10. Answers that are not answers

    /// The workspace's course on an OpenAI-compatible server at `base` (no key: a custom host with
    /// none named gets none), retries off.
    static func remoteCourse(_ base: String) -> String {
        Workspace.spec.replacingOccurrences(
            of: "model: { provider: scripted, script: script.json, max_concurrency: 2 }",
            with: "model: { provider: openai, name: test-model, base_url: \"\(base)\", max_retries: 0, max_concurrency: 2 }")
    }

    @Test("an answer larger than its max_tokens can explain is refused, uncached, as a provider failure (exit 3)")
    func oversizedAnswersAreRefused() async throws {
        let server = try RecordingServer(reply: "big:20000000")
        let ws = try Workspace()
        try Self.write(Self.remoteCourse(server.baseURL), "job.yaml", in: ws)
        let run = try await CLITests.lectern(Self.arguments(["run", "job.yaml", "--log-format", "text"], ws), in: ws.root)
        #expect(run.status == 3, "\(run.status): \(run.stderr.suffix(2_000))")
        #expect(run.stderr.contains("was refused, not stored") && run.stderr.contains("max_tokens=2048"), "\(run.stderr.suffix(2_000))")
        let stored = FileManager.default.enumerator(atPath: ws.root.appendingPathComponent("cache/exchanges").path)?.allObjects.filter {
            ($0 as? String)?.hasSuffix(".json") == true
        }
        #expect((stored ?? []).isEmpty, "nothing of a refused answer is cached: \(stored ?? [])")
    }

    @Test("a 200 whose body is not a Chat Completions answer is a provider failure (exit 3), not failed items")
    func notAChatAnswerIsAProviderFailure() async throws {
        let server = try RecordingServer(reply: #"json:{"hello": "world"}"#)
        let ws = try Workspace()
        try Self.write(Self.remoteCourse(server.baseURL), "job.yaml", in: ws)
        let run = try await CLITests.lectern(Self.arguments(["run", "job.yaml", "--log-format", "text"], ws), in: ws.root)
        #expect(run.status == 3, "\(run.status): \(run.stderr.suffix(2_000))")
        #expect(run.stderr.contains("Unreadable answer from 127.0.0.1"), "\(run.stderr.suffix(2_000))")
        // Stopped at the first: the curriculum is pinned, so the first model calls are the tone
        // preview and the lectures; no more than the two in flight were asked.
        #expect(server.requests.count <= 2, "\(server.requests.count) requests")
    }

    // MARK: 9. The preview server

    @Test("preview --serve answers only loopback Host names with its port, and closes idle and trickling connections")
    func previewServesOnlyLoopbackAndClosesIdleConnections() async throws {
        let ws = try Workspace()
        let process = Process()
        process.executableURL = CLITests.binary
        process.arguments = ["preview", PreviewCommandTests.golden.path, "--output", ws.root.appendingPathComponent("site").path, "--serve", "--port", "0"]
        process.currentDirectoryURL = ws.root
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let line: String = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var bytes = Data()
                while !bytes.contains(10) {
                    let chunk = out.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    bytes += chunk
                }
                continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
            }
        }
        let port = try #require(line.firstMatch(of: /serving http:\/\/127\.0\.0\.1:(\d+)\//)?.1, "\(line)")
        let script = """
            import socket, sys, threading, time
            port = int(sys.argv[1])
            def ask(host):
                s = socket.create_connection(('127.0.0.1', port))
                s.sendall(('GET /index.xhtml HTTP/1.1\\r\\nHost: %s\\r\\n\\r\\n' % host).encode())
                data = b''
                while True:
                    chunk = s.recv(65536)
                    if not chunk: break
                    data += chunk
                return data.split(b'\\r\\n', 1)[0].decode()
            results = {}
            for host in ['127.0.0.1:%d' % port, 'localhost:%d' % port, '[::1]:%d' % port, 'attacker.example:%d' % port, '127.0.0.1:1', 'localhost']:
                results[host] = ask(host)
            def idle(name, trickle):
                s = socket.create_connection(('127.0.0.1', port))
                started = time.time()
                s.settimeout(60)
                try:
                    while True:
                        if trickle:
                            s.sendall(b'G')
                        try:
                            s.settimeout(2 if trickle else 60)
                            if not s.recv(1): break
                        except socket.timeout:
                            continue
                except (ConnectionResetError, BrokenPipeError):
                    pass
                results[name] = round(time.time() - started)
            threads = [threading.Thread(target=idle, args=('silent', False)), threading.Thread(target=idle, args=('trickling', True))]
            for t in threads: t.start()
            for t in threads: t.join()
            for k in sorted(results): print(k, '=', results[k])
            """
        let checked = try await CLITests.external(["-c", script, String(port)], in: ws.root, executable: URL(fileURLWithPath: "/usr/bin/python3"))
        #expect(checked.status == 0, "\(checked.stderr)")
        let results = Dictionary(
            uniqueKeysWithValues: checked.stdout.split(separator: "\n").compactMap { line -> (String, String)? in
                let parts = line.components(separatedBy: " = ")
                return parts.count == 2 ? (parts[0], parts[1]) : nil
            })
        for host in ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"] {
            #expect(results[host] == "HTTP/1.1 200 OK", "\(host): \(results[host] ?? "nothing")")
        }
        for host in ["attacker.example:\(port)", "127.0.0.1:1", "localhost"] {
            #expect(results[host] == "HTTP/1.1 421 Misdirected Request", "\(host): \(results[host] ?? "nothing")")
        }
        // Closed at the 10 s limit on the request head, whether silent or sending a byte at a time.
        for name in ["silent", "trickling"] {
            let seconds = Int(results[name] ?? "") ?? -1
            #expect((8...20).contains(seconds), "\(name) connection closed after \(seconds) s")
        }
    }
}

/// Stored ZIP archives written the way Python's zipfile writes them, for tampering tests.
enum ZipFixture {
    static func stored(_ entries: [String: Data]) -> Data {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("zip-\(UUID().uuidString).zip")
        defer { try? FileManager.default.removeItem(at: out) }
        let spec = FileManager.default.temporaryDirectory.appendingPathComponent("zip-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: spec) }
        try? JSONSerialization.data(withJSONObject: entries.mapValues { String(decoding: $0, as: UTF8.self) }).write(to: spec)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c", "import json, sys, zipfile\nz = zipfile.ZipFile(sys.argv[2], 'w')\nfor k, v in sorted(json.load(open(sys.argv[1])).items()): z.writestr(k, v)\nz.close()",
            spec.path, out.path,
        ]
        try? process.run()
        process.waitUntilExit()
        return (try? Data(contentsOf: out)) ?? Data()
    }

    /// The size of the central directory the end record announces.
    static func centralDirectorySize(_ archive: Data) -> Int {
        let bytes = [UInt8](archive.suffix(22))
        return Int(bytes[12]) | Int(bytes[13]) << 8 | Int(bytes[14]) << 16 | Int(bytes[15]) << 24
    }
}
