import Foundation
import LecternBundle
import LecternLLM
import LecternRender
import Testing

/// The `lectern` executable as users and CI run it: real processes, real exit codes, real
/// signals.
struct CLITests {
    /// The built `lectern` binary, beside this test bundle's executable.
    static let binary: URL = {
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var dir = me.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("lectern")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return me.deletingLastPathComponent().appendingPathComponent("lectern")
    }()

    static let repository = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let fixtures = Bundle.module.resourceURL!.appendingPathComponent("Fixtures")

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// A workspace with a scripted spec (pinned outline, 5 topics) and its own cache.
    final class Workspace {
        let root: URL
        init(delayMilliseconds: Int = 0) throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-cli-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            var script = try String(contentsOf: CLITests.fixtures.appendingPathComponent("course-script.json"), encoding: .utf8)
            script = script.replacingOccurrences(of: "\"delay_ms\": 0", with: "\"delay_ms\": \(delayMilliseconds), \"call_log\": \"calls.log\"")
            try script.write(to: root.appendingPathComponent("script.json"), atomically: true, encoding: .utf8)
            try Self.spec.write(to: root.appendingPathComponent("job.yaml"), atomically: true, encoding: .utf8)
        }
        deinit { try? FileManager.default.removeItem(at: root) }

        static let spec = """
            kind: course
            id: cli-course
            description: A course for command-line tests.
            outline:
              title: CLI Course
              subjects:
                - title: Basics
                  topics:
                    - { title: Variables and values, objective: Store values with names. }
                    - { title: Loops, objective: Repeat work with loops. }
                    - { title: Conditions, objective: Choose between paths. }
                - title: Functions
                  topics:
                    - { title: Defining functions, objective: Write functions. }
                    - { title: Return values, objective: Return results. }
            tone: { presets: [eli5] }
            addons: { reinforcement: true }
            model: { provider: scripted, script: script.json, max_concurrency: 2 }
            """

        var calls: [String] {
            ((try? String(contentsOf: root.appendingPathComponent("calls.log"), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        func arguments(_ extra: [String]) -> [String] {
            extra + [
                "--cache-dir", root.appendingPathComponent("cache").path, "--presets",
                CLITests.repository.appendingPathComponent("pipelines/presets").path,
            ]
        }
    }

    /// Runs `lectern` to completion on a dispatch thread, so waiting never blocks the
    /// cooperative pool that other tests' async work shares.
    @discardableResult
    static func lectern(_ arguments: [String], in directory: URL, environment: [String: String] = [:]) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try runBlocking(arguments, in: directory, environment: environment) })
            }
        }
    }

    /// Another program (python3, java, chromium), off the cooperative pool like `lectern`: a test
    /// that blocked a pool thread while epubcheck or a browser ran would starve the timing tests.
    static func external(_ arguments: [String], in directory: URL, environment: [String: String] = [:], executable: URL) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try runBlocking(arguments, in: directory, environment: environment, executable: executable) })
            }
        }
    }

    /// Runs `pipelines/examples/<id>.yaml` offline from its recorded cassette twice, each time
    /// with an empty cache into its own output under `work`, and verifies each bundle: the
    /// bundles' files (to compare the passes), the first bundle's directory, and the last run's
    /// summary.
    static func replayExampleTwice(_ id: String, in work: URL) async throws -> (bundle: URL, passes: [[String: Data]], summary: String) {
        var passes: [[String: Data]] = []
        var summary = ""
        for pass in 1...2 {
            let out = work.appendingPathComponent("out-\(pass)")
            let run = try await lectern(
                [
                    "run", "pipelines/examples/\(id).yaml", "--cache", "offline", "--cache-dir", work.appendingPathComponent("cache-\(pass)").path,
                    "--output", out.path, "--log-format", "text",
                ], in: repository)
            #expect(run.status == 0, "re-record with 'scripts/record-fixtures.sh pipelines/examples/\(id).yaml' if a prompt changed: \(run.stderr)")
            summary = run.stderr
            let bundle = out.appendingPathComponent("\(id)/1.0.0")
            let verify = try await lectern(["verify", bundle.path], in: repository)
            #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
            passes.append(files(bundle))
        }
        return (work.appendingPathComponent("out-1/\(id)/1.0.0"), passes, summary)
    }

    /// Validates the JSON file at `file` against `docs/schemas/<schema>` with Python's
    /// `jsonschema` (Draft 2020-12; /usr/bin/python3 with python3-jsonschema, which `make test-deps`
    /// installs).
    static func schemaCheck(_ file: String, schema: String) throws -> Output {
        try runBlocking(
            [
                "-c", "import json, sys, jsonschema; jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))",
                repository.appendingPathComponent("docs/schemas/\(schema)").path, file,
            ], in: repository, environment: [:], executable: URL(fileURLWithPath: "/usr/bin/python3"))
    }

    /// What a reader thread read, and its end.
    final class DataBox: @unchecked Sendable {
        var data = Data()
        let done = DispatchSemaphore(value: 0)
    }

    static func runBlocking(_ arguments: [String], in directory: URL, environment: [String: String], executable: URL = binary) throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes at once, before waiting: read one after the other, a child writing more
        // than a pipe holds (64 KiB) to the second blocks while the first is read to its end — a
        // replay of the re-recorded examples logged that much to stderr and never exited.
        let errBox = DataBox()
        let errRead = Thread {
            errBox.data = err.fileHandleForReading.readAllRetryingInterrupts(); errBox.done.signal()
        }
        errRead.start()
        let outData = out.fileHandleForReading.readAllRetryingInterrupts()
        errBox.done.wait()
        let errData = errBox.data
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
    }

    static func files(_ directory: URL) -> [String: Data] {
        var out: [String: Data] = [:]
        let base = directory.standardizedFileURL.path
        for case let url as URL in FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) ?? FileManager.DirectoryEnumerator() {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                out[String(url.standardizedFileURL.path.dropFirst(base.count + 1))] = FileManager.default.contents(atPath: url.path)
            }
        }
        return out
    }

    /// Every local reference (stylesheet, links, images) of every XHTML file of a bundle names a
    /// file of that bundle; and each document has at least its stylesheet link, so a scanner that
    /// found nothing could not pass.
    static func expectEveryLocalReferenceResolves(_ files: [String: Data], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let documents = files.keys.filter { $0.hasSuffix(".xhtml") }.sorted()
        #expect(!documents.isEmpty, sourceLocation: sourceLocation)
        for document in documents {
            let references = try BundleReferences.localReferences(inXHTML: try #require(files[document]))
            #expect(!references.isEmpty, "\(document) links nothing, not even its stylesheet", sourceLocation: sourceLocation)
            for reference in references {
                let target = BundleReferences.resolve(reference, from: document)
                #expect(
                    target.map { files[$0] != nil } == true, "\(document): \(reference) names no file of the bundle", sourceLocation: sourceLocation)
            }
        }
        #expect(BundleReferences.problems(in: files) == [], sourceLocation: sourceLocation)
    }

    @Test func validateExitCodesAndLocatedMessages() async throws {
        let ws = try Workspace()
        let presets = ["--presets", Self.repository.appendingPathComponent("pipelines/presets").path]
        #expect(try await Self.lectern(["validate", "job.yaml"] + presets, in: ws.root).status == 0)
        try "kind: course\nid: x\ndescripton: typo\n".write(to: ws.root.appendingPathComponent("bad.yaml"), atomically: true, encoding: .utf8)
        let bad = try await Self.lectern(["validate", "bad.yaml"] + presets, in: ws.root)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("bad.yaml:3:1: error: unknown key 'descripton'"))
        #expect(bad.stderr.contains("did you mean 'description'?"))
        let missing = try await Self.lectern(["validate", "nope.yaml"] + presets, in: ws.root)
        #expect(missing.status == 2 && missing.stderr.contains("nope.yaml"))
    }

    @Test func usageErrorsExitWithTwoAndHelpWithZero() async throws {
        let ws = try Workspace()
        let bogus = try await Self.lectern(["run", "job.yaml", "--cache", "bogus"], in: ws.root)
        #expect(bogus.status == 2 && bogus.stderr.contains("Please provide one of 'record', 'replay', 'offline' or 'off'"))
        #expect(!bogus.stderr.contains("Did you mean"))
        let typo = try await Self.lectern(["run", "job.yaml", "--log-format", "jsonn"], in: ws.root)
        #expect(typo.status == 2 && typo.stderr.contains("Did you mean 'json'?"))
        #expect(try await Self.lectern(["frobnicate"], in: ws.root).status == 2)
        let help = try await Self.lectern(["run", "--help"], in: ws.root)
        #expect(help.status == 0 && help.stdout.contains("--allow-partial") && help.stdout.contains("--record-cassette"))
        let top = try await Self.lectern(["--help"], in: ws.root)
        #expect(top.stdout.contains("Exit codes"))
    }

    @Test func runVerifyRerunAndTamper() async throws {
        let ws = try Workspace()
        let first = try await Self.lectern(ws.arguments(["run", "job.yaml", "--log-format", "json"]), in: ws.root)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("wrote "))
        // JSON lines on stderr, one event each.
        let events = first.stderr.split(separator: "\n").filter { $0.hasPrefix("{") }
        #expect(events.contains { $0.contains("\"event\":\"item_finished\"") && $0.contains("\"latency_ms\"") })
        let calls = ws.calls.count
        #expect(calls == 38 + 15, "38 answers and 15 blind solves of multiple-choice questions")

        let again = try await Self.lectern(ws.arguments(["run", "job.yaml"]), in: ws.root)
        #expect(again.status == 0 && again.stdout.contains("unchanged"))
        #expect(ws.calls.count == calls, "an unchanged job makes zero provider calls")

        let plan = try await Self.lectern(ws.arguments(["plan", "job.yaml", "--json"]), in: ws.root)
        #expect(
            plan.status == 0 && plan.stdout.contains("\"calls\":0") && plan.stdout.contains("\"cached\":45"),
            "38 stored answers, the pinned outline and 6 renders: \(plan.stdout)")

        let bundle = ws.root.appendingPathComponent("output/cli-course/1.0.0")
        let verified = try await Self.lectern(["verify", bundle.path], in: ws.root)
        #expect(verified.status == 0)
        #expect(verified.stdout.contains("quality: 38 model answers: 38 accepted first time, 0 repaired, 0 failed (38 attempts)"), "\(verified.stdout)")
        #expect(verified.stdout.contains("bank: "), "\(verified.stdout)")
        let lecture = bundle.appendingPathComponent("lectures/01-02-loops.md")
        var bytes = try Data(contentsOf: lecture)
        bytes[10] ^= 0x20
        try bytes.write(to: lecture)
        let flipped = try await Self.lectern(["verify", bundle.path], in: ws.root)
        #expect(flipped.status == 1 && flipped.stderr.contains("lectures/01-02-loops.md: content differs"))
        try FileManager.default.removeItem(at: bundle.appendingPathComponent("course.json"))
        #expect(try await Self.lectern(["verify", bundle.path], in: ws.root).stderr.contains("course.json: missing"))
    }

    @Test func aRunKilledMidwayResumesWithoutPayingTwiceAndGivesTheSameBundle() async throws {
        // Reference: an uninterrupted run.
        let reference = try Workspace(delayMilliseconds: 150)
        #expect(try await Self.lectern(reference.arguments(["run", "job.yaml"]), in: reference.root).status == 0)
        let expected = Self.files(reference.root.appendingPathComponent("output/cli-course/1.0.0"))
        #expect(expected.count > 5)

        // The provider holds every request after the 8th, so the run cannot finish before the
        // kill however loaded the machine is (timing alone was not enough: on a busy machine the
        // whole run once finished before this test's polling saw 8 calls).
        let ws = try Workspace(delayMilliseconds: 50)
        let scriptURL = ws.root.appendingPathComponent("script.json")
        let script = try String(contentsOf: scriptURL, encoding: .utf8)
        try script.replacingOccurrences(of: "\"call_log\"", with: "\"hold_after\": 8, \"call_log\"").write(to: scriptURL, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ws.arguments(["run", "job.yaml", "--log-format", "json"])
        process.currentDirectoryURL = ws.root
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Kill it once some items are done and others in flight.
        let deadline = Date().addingTimeInterval(120)
        while ws.calls.count < 10 && Date() < deadline && process.isRunning { try await Task.sleep(for: .milliseconds(5)) }
        // The 9th and 10th requests are held (concurrency 2); give the 8th answer time to be stored.
        try await Task.sleep(for: .milliseconds(300))
        kill(process.processIdentifier, SIGKILL)
        while process.isRunning { try await Task.sleep(for: .milliseconds(5)) }
        #expect(process.terminationReason == .uncaughtSignal, "the run was killed mid-way, not finished")
        #expect(!FileManager.default.fileExists(atPath: ws.root.appendingPathComponent("output/cli-course/1.0.0").path))

        // What the cache holds at the moment of the kill: finished exchanges, as item and stage (an
        // item's blind solve is an exchange of its own).
        let stored = Set(
            Self.files(ws.root.appendingPathComponent("cache")).compactMap { path, data -> String? in
                guard path.hasSuffix(".json"), !path.contains(".tmp-"),
                    let entry = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                    let item = entry["item_id"] as? String, let stage = entry["stage"] as? String
                else { return nil }
                return item + "\t" + stage
            })
        #expect(!stored.isEmpty)
        let callsBefore = ws.calls.count

        try script.write(to: scriptURL, atomically: true, encoding: .utf8)  // no more holding
        let resumed = try await Self.lectern(ws.arguments(["run", "job.yaml"]), in: ws.root)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let resumeCalls = ws.calls.dropFirst(callsBefore).map { $0.split(separator: "\t").prefix(2).joined(separator: "\t") }
        #expect(Set(resumeCalls).isDisjoint(with: stored), "no finished item is generated twice")
        #expect(Set(resumeCalls).count == resumeCalls.count)
        // Everything is asked once, apart from requests that were in flight at the kill (≤ concurrency).
        #expect(ws.calls.count - (38 + 15) <= 2, "38 answers and 15 blind solves")
        #expect(Self.files(ws.root.appendingPathComponent("output/cli-course/1.0.0")) == expected, "byte-identical to the uninterrupted run")
    }

    @Test func narrationThroughTheCommandLine() async throws {
        let ws = try Workspace()
        let spec = Workspace.spec.replacingOccurrences(of: "addons: { reinforcement: true }", with: "addons: { narration: true, engagement_questions: false }")
        try spec.write(to: ws.root.appendingPathComponent("job.yaml"), atomically: true, encoding: .utf8)
        let run = try await Self.lectern(ws.arguments(["run", "job.yaml"]), in: ws.root)
        #expect(run.status == 0, "\(run.stderr)")
        let bundle = ws.root.appendingPathComponent("output/cli-course/1.0.0")
        let audio = Self.files(bundle).keys.filter { $0.hasPrefix("audio/") && $0.hasSuffix(".opus") }
        #expect(audio.count == 5, "\(audio)")
        #expect(try await Self.lectern(["verify", bundle.path], in: ws.root).status == 0)

        // A voice espeak-ng does not have is a spec error, before any call.
        try (spec + "\nspeech: { voice: xx-nowhere }\n").write(to: ws.root.appendingPathComponent("bad.yaml"), atomically: true, encoding: .utf8)
        let bad = try await Self.lectern(ws.arguments(["run", "bad.yaml"]), in: ws.root)
        #expect(bad.status == 2 && bad.stderr.contains("espeak-ng has no voice 'xx-nowhere'"), "\(bad.stderr)")
    }

    @Test func renderPrintsSanitizedXHTMLWithMathML() async throws {
        let ws = try Workspace()
        let md = "# Areas\n\nThe area is $A = \\pi r^2$.\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1))\n"
        try md.write(to: ws.root.appendingPathComponent("lecture.md"), atomically: true, encoding: .utf8)
        let out = try await Self.lectern(["render", "lecture.md"], in: ws.root)
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stdout.hasPrefix("<?xml"))
        #expect(out.stdout.contains("<math") && out.stdout.contains("application/x-tex"))
        #expect(!out.stdout.contains("<script") && !out.stdout.lowercased().contains("javascript:"))
        let arabic = try await Self.lectern(["render", "lecture.md", "--language", "ar"], in: ws.root)
        #expect(arabic.stdout.contains("dir=\"rtl\""))
        #expect(try await Self.lectern(["render", "missing.md"], in: ws.root).status == 2)
    }

    /// `lectern render` draws the reference figures (the ones scripts/figure-gallery.sh shows):
    /// each passes its checks and the SVG allowlist; a figure whose given length contradicts its
    /// coordinates is refused with the reason and exit 1.
    @Test func renderDrawsGeometryFigures() async throws {
        let ws = try Workspace()
        let figures = Self.fixtures.appendingPathComponent("figures")
        let names = try FileManager.default.contentsOfDirectory(atPath: figures.path).filter { $0.hasSuffix(".figure.json") }.sorted()
        #expect(names.count == 10)
        let out = try await Self.lectern(["render", "--output-dir", "svg"] + names.map { figures.appendingPathComponent($0).path }, in: ws.root)
        #expect(out.status == 0, "\(out.stderr)")
        for name in names {
            let svg = try String(contentsOf: ws.root.appendingPathComponent("svg/" + name.replacingOccurrences(of: ".figure.json", with: ".svg")), encoding: .utf8)
            #expect(SVGSafety.problems(in: svg) == [], "\(name)")
            #expect(svg.contains("<title>"), "\(name)")
        }
        var broken = try String(contentsOf: figures.appendingPathComponent("01-right-triangle.figure.json"), encoding: .utf8)
        broken = broken.replacingOccurrences(of: "\"value\": 3", with: "\"value\": 5")
        try broken.write(to: ws.root.appendingPathComponent("broken.figure.json"), atomically: true, encoding: .utf8)
        let refused = try await Self.lectern(["render", "broken.figure.json"], in: ws.root)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("broken.figure.json: error: BC is given as 5, but the coordinates make it 3"))
        #expect(refused.stdout.isEmpty)
        try "{\"alt\": 3}".write(to: ws.root.appendingPathComponent("bad.figure.json"), atomically: true, encoding: .utf8)
        let bad = try await Self.lectern(["render", "bad.figure.json"], in: ws.root)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("bad.figure.json: error: not a figure: alt: expected text"))
    }

    @Test func bundlesCarryXHTMLRenditions() async throws {
        let ws = try Workspace()
        #expect(try await Self.lectern(ws.arguments(["run", "job.yaml"]), in: ws.root).status == 0)
        let files = Self.files(ws.root.appendingPathComponent("output/cli-course/1.0.0"))
        let xhtml = files.keys.filter { $0.hasSuffix(".xhtml") }.sorted()
        #expect(xhtml.count == 6, "5 lectures and the tone preview: \(xhtml)")
        #expect(files["lectern.css"] != nil)
        let loops = String(decoding: try #require(files["lectures/01-02-loops.xhtml"]), as: UTF8.self)
        #expect(loops.contains("<h1>Loops</h1>") && loops.contains("lectern-code") && loops.contains("<math"))
        // Each document links the stylesheet where the bundle keeps it: at its root.
        #expect(loops.contains(#"<link rel="stylesheet" href="../lectern.css"/>"#))
        let preview = String(decoding: try #require(files["tone-preview.xhtml"]), as: UTF8.self)
        #expect(preview.contains(#"<link rel="stylesheet" href="lectern.css"/>"#))
        try Self.expectEveryLocalReferenceResolves(files)
        let bundle = ws.root.appendingPathComponent("output/cli-course/1.0.0")
        #expect(try await Self.lectern(["verify", bundle.path], in: ws.root).status == 0)
        let course = String(decoding: try #require(files["course.json"]), as: UTF8.self)
        #expect(course.contains("\"xhtml_path\" : \"lectures/01-02-loops.xhtml\""))
        #expect(course.contains("\"prompt_xhtml\""))
    }

    /// `--batch` and `model.batch`: the plan at half the price; a provider without a batch API
    /// is refused with the reason, by `run --batch` and in the spec.
    @Test func batchPricesAndRefusals() async throws {
        let ws = try Workspace()
        let openai = Workspace.spec.replacingOccurrences(of: "model: { provider: scripted, script: script.json, max_concurrency: 2 }", with: "model: { provider: openai, name: gpt-4o-mini }")
        #expect(openai != Workspace.spec)
        try openai.write(to: ws.root.appendingPathComponent("openai.yaml"), atomically: true, encoding: .utf8)
        func cost(_ extra: [String]) async throws -> Double {
            let plan = try await Self.lectern(ws.arguments(["plan", "openai.yaml", "--json"] + extra), in: ws.root)
            #expect(plan.status == 0, "\(plan)")
            let json = try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any]
            return json?["estimated_cost_usd"] as? Double ?? -1
        }
        let standard = try await cost([])
        let batch = try await cost(["--batch"])
        #expect(standard > 0 && abs(batch - standard / 2) < 1e-9, "\(standard) \(batch)")
        let text = try await Self.lectern(ws.arguments(["plan", "openai.yaml", "--batch"]), in: ws.root)
        #expect(text.stdout.contains("at the batch price (half the standard)"), "\(text)")

        let refused = try await Self.lectern(ws.arguments(["run", "job.yaml", "--batch"]), in: ws.root)
        #expect(refused.status == 2 && refused.stderr.contains("--batch needs a provider with a batch API (openai, anthropic)"), "\(refused)")
        try Workspace.spec.replacingOccurrences(of: "model: { provider: scripted, script: script.json, max_concurrency: 2 }", with: "model: { provider: local, batch: true }")
            .write(to: ws.root.appendingPathComponent("local.yaml"), atomically: true, encoding: .utf8)
        let invalid = try await Self.lectern(["validate", "local.yaml", "--presets", CLITests.repository.appendingPathComponent("pipelines/presets").path], in: ws.root)
        #expect(invalid.status == 2 && invalid.stderr.contains("'model.batch' needs a provider with a batch API; local has none"), "\(invalid)")
    }

    @Test func aSentinelKeyNeverReachesFilesOrLogs() async throws {
        let ws = try Workspace()
        let sentinel = "sk-SENTINEL-\(UUID().uuidString)"
        let env = ["OPENAI_API_KEY": sentinel, "ANTHROPIC_API_KEY": sentinel, "LECTERN_TEST_SECRET": sentinel]
        let cassette = ws.root.appendingPathComponent("cassette.jsonl")
        let run = try await Self.lectern(
            ws.arguments(["run", "job.yaml", "--log-format", "json", "--record-cassette", cassette.path]), in: ws.root, environment: env)
        #expect(run.status == 0)
        let plan = try await Self.lectern(ws.arguments(["plan", "job.yaml"]), in: ws.root, environment: env)
        var everything = [run.stdout, run.stderr, plan.stdout, plan.stderr]
        for (_, data) in Self.files(ws.root) { everything.append(String(decoding: data, as: UTF8.self)) }
        #expect(FileManager.default.fileExists(atPath: cassette.path))
        #expect(!everything.contains { $0.contains(sentinel) })
    }

    @Test func offlineReplayFromACassetteNeedsNoProvider() async throws {
        let ws = try Workspace()
        let cassette = ws.root.appendingPathComponent("cassette.jsonl")
        #expect(try await Self.lectern(ws.arguments(["run", "job.yaml", "--record-cassette", cassette.path]), in: ws.root).status == 0)
        let original = Self.files(ws.root.appendingPathComponent("output/cli-course/1.0.0"))
        // A different spec directory with no script at all: offline must not need the provider.
        let other = ws.root.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try Workspace.spec.write(to: other.appendingPathComponent("job.yaml"), atomically: true, encoding: .utf8)
        let replay = try await Self.lectern(
            [
                "run", "job.yaml", "--cache", "offline", "--cassette", cassette.path, "--cache-dir", other.appendingPathComponent("empty-cache").path,
                "--presets", Self.repository.appendingPathComponent("pipelines/presets").path,
            ], in: other)
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(Self.files(other.appendingPathComponent("output/cli-course/1.0.0")) == original)
        // A spec the cassette does not cover fails with exit 3 and names the item.
        try Workspace.spec.replacingOccurrences(of: "title: Loops,", with: "title: Loops and more,").write(
            to: other.appendingPathComponent("job.yaml"), atomically: true, encoding: .utf8)
        let miss = try await Self.lectern(
            [
                "run", "job.yaml", "--cache", "offline", "--cassette", cassette.path, "--cache-dir", other.appendingPathComponent("empty-cache").path,
                "--output", "out2",
                "--presets", Self.repository.appendingPathComponent("pipelines/presets").path,
            ], in: other)
        #expect(miss.status == 3)
        #expect(miss.stderr.contains("no recorded answer for lecture/s01-t02"))
    }

    @Test func cacheStatsExportImportPrune() async throws {
        let ws = try Workspace()
        #expect(try await Self.lectern(ws.arguments(["run", "job.yaml"]), in: ws.root).status == 0)
        let stats = try await Self.lectern(
            ws.arguments(["cache", "stats"]).filter { $0 != "--presets" && !$0.hasSuffix("pipelines/presets") }, in: ws.root)
        #expect(stats.stdout.contains("entries: 53"), "38 answers and 15 blind solves")
        let cacheArgs = ["--cache-dir", ws.root.appendingPathComponent("cache").path]
        let export = ws.root.appendingPathComponent("all.jsonl")
        #expect(try await Self.lectern(["cache", "export", export.path] + cacheArgs, in: ws.root).status == 0)
        let pruned = try await Self.lectern(["cache", "prune", "--all"] + cacheArgs, in: ws.root)
        #expect(pruned.stdout.contains("removed 53"))
        let imported = try await Self.lectern(["cache", "import", export.path] + cacheArgs, in: ws.root)
        #expect(imported.stdout.contains("imported 53"))
        #expect(try await Self.lectern(["cache", "prune"] + cacheArgs, in: ws.root).status == 2, "prune without a criterion is a usage error")
    }

    // MARK: The closing summary

    /// Adds answers to the workspace's script (they win over the standard ones).
    static func addAnswers(_ answers: [[String: Any]], to ws: Workspace) throws {
        let url = ws.root.appendingPathComponent("script.json")
        var script = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        script["answers"] = ((script["answers"] as? [Any]) ?? []) + answers
        try JSONSerialization.data(withJSONObject: script).write(to: url)
    }

    static func question(topic: String, correct: String, wrong: [String]) -> [String: Any] {
        [
            "topic_id": topic, "prompt": "Which statement about this topic is true?", "explanation": "The lecture says so, in its second section.",
            "correct_answer": ["text": correct, "feedback": "Right."], "wrong_answers": wrong.map { ["text": $0, "feedback": "No."] },
        ]
    }

    @Test func theClosingSummarySaysHowItemsFaredWhatWasFlaggedAndWhatToOpen() async throws {
        let ws = try Workspace()
        let long = "A name that points at a value stored in the computer's memory, so it can be used again later"
        try Self.addAnswers(
            [
                // Repaired: two options alike in the first answer.
                [
                    "stage": "engagement-question", "item": "engagement-question/s01-t02", "attempt": 1,
                    "json": Self.question(topic: "s01-t02", correct: "It repeats steps", wrong: ["It repeats steps", "B", "C"]),
                ],
                // Flagged: valid, but the correct option is much longer than the others.
                [
                    "stage": "engagement-question", "item": "engagement-question/s01-t01",
                    "json": Self.question(topic: "s01-t01", correct: long, wrong: ["A loop", "A number", "A file"]),
                ],
                [
                    "stage": "engagement-question", "item": "engagement-question/s02-t01",
                    "json": Self.question(topic: "s02-t01", correct: long + " inside a function", wrong: ["A loop", "A number", "A file"]),
                ],
            ], to: ws)
        let run = try await Self.lectern(ws.arguments(["run", "job.yaml", "--log-format", "text"]), in: ws.root)
        #expect(run.status == 0, "\(run.stderr)")
        // 38 model items (1 tone preview, 5 lectures, 5 engagement and 5 bonus questions, 20 pool
        // questions, 2 projects): one repaired, the rest valid at once; and 15 blind solves (the
        // 5 engagement questions, the 10 multiple-choice pool levels).
        #expect(ws.calls.count == 39 + 15)
        #expect(run.stderr.contains("job.yaml: 45 items, 54 model calls (0 from cache)"), "\(run.stderr)")
        // In quality.json's words and counts (`lectern verify` prints the same line).
        #expect(run.stderr.contains("\n  38 model answers: 37 accepted first time, 1 repaired, 0 failed (39 attempts)\n"), "\(run.stderr)")
        #expect(run.stderr.contains("\n  blind solving, the key picked: engagement-question 5 of 5, reinforcement 10 of 10\n"), "\(run.stderr)")
        #expect(
            run.stderr.contains(
                "\n  warnings: 2, by kind:\n    2 × the correct option is much longer than the others (engagement-question/s01-t01, engagement-question/s02-t01)\n"
            ), "\(run.stderr)")
        // "812 ms", "4.2 s", or "1 min 32 s" when the suite around it slows the run past a minute.
        #expect(run.stderr.range(of: #"\n  wall time: (\d+(\.\d)? m?s|\d+ min \d\d s)\n"#, options: .regularExpression) != nil, "\(run.stderr)")
        let bundle = ws.root.appendingPathComponent("output/cli-course/1.0.0").standardizedFileURL.path
        let entry = bundle + "/lectures/01-01-variables-and-values.xhtml"
        #expect(run.stdout.contains("wrote \(bundle)\nopen first: \(entry)\n"), "\(run.stdout)")
        #expect(FileManager.default.fileExists(atPath: entry))

        // An unchanged re-run says the same of the same answers, from the cache.
        let again = try await Self.lectern(ws.arguments(["run", "job.yaml"]), in: ws.root)
        #expect(again.stderr.contains("54 model calls") == false && again.stderr.contains("0 model calls (54 from cache)"), "\(again.stderr)")
        #expect(again.stderr.contains("38 model answers: 37 accepted first time, 1 repaired, 0 failed (39 attempts)"))
        #expect(again.stderr.contains("2 × the correct option is much longer than the others"))
        #expect(again.stdout.contains("open first: \(entry)"))
    }

    /// --verbose prints each refusal in full; --event-log keeps every event, the full messages
    /// of a repair among them, as JSON lines in a file the summary names.
    @Test func verboseAndTheEventLogKeepTheFullMessages() async throws {
        let ws = try Workspace()
        try Self.addAnswers(
            [
                [
                    "stage": "engagement-question", "item": "engagement-question/s01-t02", "attempt": 1,
                    "json": Self.question(topic: "s01-t02", correct: "It repeats steps", wrong: ["It repeats steps", "B", "C"]),
                ]
            ], to: ws)
        let log = ws.root.appendingPathComponent("logs/events.jsonl")
        let run = try await Self.lectern(ws.arguments(["run", "job.yaml", "--log-format", "text", "--verbose", "--event-log", log.path]), in: ws.root)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("repair engagement-question/s01-t02 (attempt 2):\n  - "), "every error on a line of its own: \(run.stderr)")
        #expect(run.stderr.contains("\n  event log (every message in full): \(log.path)\n"), "\(run.stderr)")
        let events = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map { try JSONValue.parse(String($0)) }
        let retried = try #require(events.first { $0["event"]?.stringValue == "item_retried" })
        #expect(retried["item"]?.stringValue == "engagement-question/s01-t02" && retried["attempt"]?.intValue == 2)
        let errors = retried["errors"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(!errors.isEmpty && errors.allSatisfy { run.stderr.contains("  - " + $0) }, "the same messages, whole: \(errors)")
        #expect(events.filter { $0["event"]?.stringValue == "item_finished" }.count == 45, "every item's")
    }

    @Test func theSummaryCountsFailedItemsAndAWarningFreeRunSaysSo() async throws {
        let ws = try Workspace()
        try Self.addAnswers(
            [
                [
                    "stage": "engagement-question", "item": "engagement-question/s02-t02",
                    "json": Self.question(topic: "s02-t02", correct: "Same", wrong: ["Same", "B", "C"]),
                ]
            ], to: ws)
        let run = try await Self.lectern(ws.arguments(["run", "job.yaml", "--log-format", "text"]), in: ws.root)
        #expect(run.status == 1)
        #expect(run.stderr.contains("\n  37 model answers: 36 accepted first time, 0 repaired, 1 failed ("), "\(run.stderr)")
        #expect(run.stderr.contains("\n1 item failed (1 more not started because of them):\n"), "\(run.stderr)")
        #expect(run.stderr.contains("\n  warnings: none\n"))
        #expect(!run.stdout.contains("open first:"), "no bundle, nothing to open")
    }

    // MARK: plan and the recorded cassettes

    @Test func planCountsWhatTheSpecsRecordedCassetteAnswers() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-plan-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        for (example, items) in [("intro-probability", 34), ("python-basics", 37)] {
            let cassette = Self.repository.appendingPathComponent("pipelines/cassettes/\(example).jsonl").standardizedFileURL.path
            let empty = work.appendingPathComponent("cache-\(example)").path
            let json = try await Self.lectern(
                ["plan", "pipelines/examples/\(example).yaml", "--json", "--cache-dir", empty], in: Self.repository)
            #expect(json.status == 0, "\(json.stderr)")
            let plan = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(plan["calls"] as? Int == 0, "\(example): every item is answered by the committed cassette: \(json.stdout)")
            #expect(plan["cached"] as? Int == items && plan["items"] as? Int == items, "\(example): \(json.stdout)")
            #expect(plan["estimated"] as? Bool == false)
            #expect(plan["cassettes"] as? [String] == [cassette])

            let text = try await Self.lectern(["plan", "pipelines/examples/\(example).yaml", "--cache-dir", empty], in: Self.repository)
            #expect(text.stdout.contains("total                        \(items)       \(items)        0        0"), "\(text.stdout)")
            #expect(text.stdout.contains("and the spec's recorded cassette \(cassette)"), "\(text.stdout)")
            #expect(text.stdout.contains("a plain `run` (record mode) does not read it"))
        }
    }

    /// With nothing stored, `plan` says what its estimated counts wait for in the job kind's own
    /// words: a course's curriculum (upper bounds), an exam's bank and forms (counted from the spec).
    @Test func planSaysWhatItsEstimateWaitsForInTheKindsWords() async throws {
        let dir = try CheckCommandTests.Directory()
        let nothing = dir.root.appendingPathComponent(try dir.write("nothing.jsonl", "")).path
        // world-geography-exam without its review file (every one of its model items is edited,
        // so with it nothing waits): the spec and its corpus in a project of their own.
        let project = dir.root.appendingPathComponent("project")
        try FileManager.default.createDirectory(at: project.appendingPathComponent("pipelines/examples"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: project.appendingPathComponent(".git"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: project.appendingPathComponent("corpus"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Self.repository.appendingPathComponent("corpus/english-world-geography"), to: project.appendingPathComponent("corpus/english-world-geography"))
        for name in ["world-geography-exam.yaml"] {
            try FileManager.default.copyItem(
                at: Self.repository.appendingPathComponent("pipelines/examples/\(name)"), to: project.appendingPathComponent("pipelines/examples/\(name)"))
        }
        let presets = ["--presets", Self.repository.appendingPathComponent("pipelines/presets").path]
        for (example, note, directory) in [
            (
                "python-basics", "the curriculum is not stored yet, so the topics' items are counted at the spec's most subjects and topics per subject: upper bounds",
                Self.repository
            ),
            ("world-geography-exam", "the bank, its bank-wide check and the forms wait for items not stored yet", project),
        ] {
            let arguments =
                ["plan", "pipelines/examples/\(example).yaml", "--cache-dir", dir.root.appendingPathComponent("cache").path, "--cassette", nothing] + presets
            let text = try await Self.lectern(arguments, in: directory)
            #expect(text.status == 0 && text.stdout.contains(note), "\(example): \(text.stdout)\(text.stderr)")
            #expect(example == "python-basics" || !text.stdout.contains("course"), "\(example): \(text.stdout)")
            let json = try await Self.lectern(arguments + ["--json"], in: directory)
            let plan = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(plan["estimated"] as? Bool == true && (plan["estimate_note"] as? String)?.contains(note) == true, "\(json.stdout)")
        }
        // With its review file, the exam's edited items are kept without a call: nothing to ask.
        let reviewed = try await Self.lectern(
            ["plan", "pipelines/examples/world-geography-exam.yaml", "--cache-dir", dir.root.appendingPathComponent("cache").path, "--cassette", nothing],
            in: Self.repository)
        #expect(reviewed.stdout.contains("total                        13       13        0        0"), "\(reviewed.stdout)")
        #expect(reviewed.stdout.contains("and the review file world-geography-exam.review.yaml (its approved and edited items) answer"), "\(reviewed.stdout)")
    }

    @Test func planCountsAGivenCassetteAndOnlyThat() async throws {
        let ws = try Workspace()
        let cassette = ws.root.appendingPathComponent("cassette.jsonl")
        #expect(try await Self.lectern(ws.arguments(["run", "job.yaml", "--record-cassette", cassette.path]), in: ws.root).status == 0)
        let presets = ["--presets", Self.repository.appendingPathComponent("pipelines/presets").path]
        let empty = ["--cache-dir", ws.root.appendingPathComponent("empty").path]
        let without = try await Self.lectern(["plan", "job.yaml", "--json"] + empty + presets, in: ws.root)
        #expect(without.stdout.contains("\"cached\":1,") && without.stdout.contains("\"cassettes\":[]"), "only the pinned outline: \(without.stdout)")
        // The blind solves of the multiple-choice questions to write are counted and priced: the
        // 5 engagement questions and half the 20 pool levels.
        let planned = try JSONSerialization.jsonObject(with: Data(without.stdout.utf8)) as? [String: Any]
        let solves = (planned?["stages"] as? [String: Any])?["blind-solve"] as? [String: Any]
        #expect(solves?["calls"] as? Int == 15 && solves?["items"] as? Int == 0 && solves?["estimated_tokens"] as? Int == 15 * 700, "\(without.stdout)")
        #expect(planned?["calls"] as? Int == 38 + 15, "38 answers to write, 15 solves")
        // With the rubric on, each answer that is solved blind is also judged: 15 judgements more.
        let spec = try String(contentsOf: ws.root.appendingPathComponent("job.yaml"), encoding: .utf8)
        try (spec + "\nreview: { rubric: true }\n").write(to: ws.root.appendingPathComponent("judged.yaml"), atomically: true, encoding: .utf8)
        let judged = try await Self.lectern(["plan", "judged.yaml", "--json"] + empty + presets, in: ws.root)
        let judgedPlan = try JSONSerialization.jsonObject(with: Data(judged.stdout.utf8)) as? [String: Any]
        let judgements = (judgedPlan?["stages"] as? [String: Any])?["rubric"] as? [String: Any]
        #expect(judgements?["calls"] as? Int == 15 && judgements?["estimated_tokens"] as? Int == 15 * 2_200, "\(judged.stdout)\(judged.stderr)")
        #expect(judgedPlan?["calls"] as? Int == 38 + 15 + 15)
        let with = try await Self.lectern(["plan", "job.yaml", "--json", "--cassette", cassette.path] + empty + presets, in: ws.root)
        #expect(with.stdout.contains("\"calls\":0") && with.stdout.contains("\"cached\":45"), "\(with.stdout)")
        let text = try await Self.lectern(["plan", "job.yaml", "--cassette", cassette.path] + empty + presets, in: ws.root)
        #expect(text.stdout.contains("and --cassette \(cassette.path) answer"), "\(text.stdout)")
        #expect(!text.stdout.contains("recorded cassette"))
    }

    // MARK: presets

    /// A spec away from the repository, run with the build-tree binary (`.build/release/lectern`
    /// as the README offers it): the built-in presets beside the binary answer; a misspelt one is
    /// refused naming what was searched and `--presets DIR`.
    @Test func aSpecOutsideTheRepositoryFindsTheBuiltInPresetsBesideTheBinary() async throws {
        let dir = try CheckCommandTests.Directory()
        let spec = "kind: course\nid: my-course\ndescription: A course of my own.\ncurriculum: { preset: basic-to-advanced }\ntone: { presets: [eli5] }\n"
        _ = try dir.write("mine.yaml", spec)
        let found = try await Self.lectern(["validate", "mine.yaml"], in: dir.root)
        #expect(found.status == 0, "\(found)")
        _ = try dir.write("typo.yaml", spec.replacingOccurrences(of: "basic-to-advanced", with: "basic-to-advancd"))
        let typo = try await Self.lectern(["validate", "typo.yaml"], in: dir.root)
        #expect(typo.status == 2, "\(typo)")
        let builtIn = Self.repository.appendingPathComponent("pipelines/presets").standardizedFileURL.path
        for expected in ["typo.yaml:4:", "unknown curriculum preset 'basic-to-advancd'", "did you mean 'basic-to-advanced'?", "in \(builtIn)", "or pass --presets DIR"] {
            #expect(typo.stderr.contains(expected), "missing: \(expected)\n\(typo.stderr)")
        }
        // Presets of one's own beside the spec override the built-in ones and add to them.
        try FileManager.default.createDirectory(at: dir.root.appendingPathComponent("presets/tone"), withIntermediateDirectories: true)
        _ = try dir.write("presets/tone/eli5.yaml", "summary: Mine.\ninstructions: Explain it to a friend.\n")
        _ = try dir.write("presets/tone/calm.yaml", "summary: Calm.\ninstructions: Speak calmly.\n")
        _ = try dir.write("both.yaml", spec.replacingOccurrences(of: "[eli5]", with: "[eli5, calm]"))
        let both = try await Self.lectern(["validate", "both.yaml"], in: dir.root)
        #expect(both.status == 0, "\(both)")
        // --presets DIR is the only directory searched.
        let only = try await Self.lectern(["validate", "mine.yaml", "--presets", dir.root.appendingPathComponent("presets").path], in: dir.root)
        #expect(only.status == 2 && only.stderr.contains("no curriculum presets were found"), "\(only)")
    }

    // MARK: make install

    @Test func makeInstallGivesALecternThatRunsFromAnywhereAndUninstallRemovesIt() async throws {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-prefix-\(UUID().uuidString)")
        let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-elsewhere-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: prefix)
            try? FileManager.default.removeItem(at: elsewhere)
        }
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        // The install step of `make install`, from the binary these tests run (`make install`
        // builds the release binary first, which takes minutes).
        let binDir = Self.binary.deletingLastPathComponent().path
        let install = try Self.make(["install-files", "PREFIX=\(prefix.path)", "BIN_DIR=\(binDir)"])
        #expect(install.status == 0, "\(install.stdout)\(install.stderr)")
        let installed = prefix.appendingPathComponent("bin/lectern")
        #expect(FileManager.default.isExecutableFile(atPath: installed.path))

        func installedLectern(_ arguments: [String]) throws -> Output {
            try Self.runBlocking(arguments, in: elsewhere, environment: [:], executable: installed)
        }

        let version = try installedLectern(["--version"])
        #expect(version.status == 0 && version.stdout == "0.1.0\n", "\(version)")
        let example = Self.repository.appendingPathComponent("pipelines/examples/python-basics.yaml").path
        let validate = try installedLectern(["validate", example])
        #expect(validate.status == 0 && validate.stdout.contains("ok (course 'python-basics' 1.0.0)"), "\(validate)")

        // A spec of one's own, away from this repository, names a built-in preset: the installed
        // presets answer (and the build-tree binary's, the repository's beside it).
        try "kind: course\nid: my-course\ndescription: A course of my own.\ncurriculum: { preset: basic-to-advanced }\ntone: { presets: [eli5] }\n"
            .write(to: elsewhere.appendingPathComponent("mine.yaml"), atomically: true, encoding: .utf8)
        let mine = try installedLectern(["validate", "mine.yaml"])
        #expect(mine.status == 0, "\(mine.stderr)")
        #expect(try await Self.lectern(["validate", "mine.yaml"], in: elsewhere).status == 0)

        // The installed copy generates with its installed prompt templates: the golden bundle.
        let run = try installedLectern([
            "run", example, "--cache", "offline", "--cache-dir", elsewhere.appendingPathComponent("cache").path, "--output", "out",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let golden = Self.repository.appendingPathComponent("Tests/LecternCLITests/Fixtures/golden/python-basics/1.0.0")
        #expect(Self.files(elsewhere.appendingPathComponent("out/python-basics/1.0.0")) == Self.files(golden))
        // …and reads them from the installed resource bundle, not from the build tree.
        let prompt = prefix.appendingPathComponent("libexec/lectern/Lectern_LecternPipeline.resources/Prompts/course/lecture.prompt")
        try FileManager.default.removeItem(at: prompt)
        let broken = try installedLectern([
            "run", example, "--cache", "offline", "--cache-dir", elsewhere.appendingPathComponent("cache2").path, "--output", "out2",
        ])
        #expect(broken.status != 0 && broken.stderr.contains("the prompt template 'course/lecture' is missing"), "\(broken.stderr)")

        let uninstall = try Self.make(["uninstall", "PREFIX=\(prefix.path)"])
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        for path in ["bin/lectern", "libexec/lectern", "share/lectern"] {
            #expect(!FileManager.default.fileExists(atPath: prefix.appendingPathComponent(path).path), "\(path) is left")
        }
    }

    /// Runs `make` in the repository.
    static func make(_ arguments: [String]) throws -> Output {
        try runBlocking(
            ["make", "--no-print-directory"] + arguments, in: repository, environment: [:], executable: URL(fileURLWithPath: "/usr/bin/env"))
    }
}
