import Foundation
import LecternBundle
import LecternCore
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
        // The run's summary and `lectern verify` (from quality.json) count the model answers alike,
        // in the same words: a mended answer took one attempt but was refused as written.
        let verify = try await CLITests.lectern(["verify", work.appendingPathComponent("out/python-basics/1.0.0").path], in: repo)
        // 31: the item a reviewer edited (its model chain ends in a key the solver disputed) is a person's answer.
        let counts = "31 model answers: 17 accepted first time, 14 repaired, 0 failed ("
        #expect(run.stderr.contains("\n  " + counts), "\(run.stderr)")
        #expect(verify.stdout.contains("quality: " + counts), "\(verify.stdout)")
        #expect(verify.stdout.contains("review: 32 items: 0 approved, 1 edited, 31 pending"), "\(verify.stdout)")
        let line = { (text: String, prefix: String) in text.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { $0.dropFirst(prefix.count) } }
        #expect(line(run.stderr, "  31 model answers") != nil && line(run.stderr, "  31 model answers") == line(verify.stdout, "  quality: 31 model answers"))
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
        try Self.expectTrustworthy(bundle: golden)
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
        try Self.expectTrustworthy(bundle: work.appendingPathComponent("out/intro-probability/1.0.0"))
    }

    /// An exam example: its spec, and the bank it must give.
    struct ExamExample: Sendable, CustomStringConvertible {
        var spec: String
        var id: String
        var items: Int
        var passages: Int
        var description: String { id }
    }

    /// Every string in a JSON value, at any depth.
    static func strings(in value: Any) -> [String] {
        switch value {
        case let text as String: [text]
        case let list as [Any]: list.flatMap(strings)
        case let object as [String: Any]: object.values.flatMap(strings)
        default: []
        }
    }

    /// The recorded exam examples. (tafawoq-aptitude-exam and tafawoq-quantitative-exam are not
    /// recorded: the local 1.5B model's Arabic items failed their checks or were not what their
    /// category asks; docs/BENCHMARKS.md.)
    static let examExamples = [
        ExamExample(spec: "pipelines/examples/world-geography-exam.yaml", id: "world-geography-exam", items: 7, passages: 2)
    ]

    /// Each exam example replays offline from its recorded cassette, twice to the same bytes; its
    /// bank follows docs/schemas/exam.schema.json (checked by Python's `jsonschema`), passes
    /// `lectern check`, and every item's quote is in the document it cites.
    @Test(arguments: examExamples) func anExamExampleReplaysOfflineByteForByte(_ example: ExamExample) async throws {
        let repo = CLITests.repository
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-exam-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        var bundles: [[String: Data]] = []
        for pass in 1...2 {
            let run = try await CLITests.lectern(
                [
                    "run", example.spec, "--cache", "offline", "--cache-dir", work.appendingPathComponent("cache-\(pass)").path,
                    "--output", work.appendingPathComponent("out-\(pass)").path, "--log-format", "text",
                ], in: repo)
            #expect(run.status == 0, "re-record with 'scripts/record-fixtures.sh \(example.spec)' if a prompt changed: \(run.stderr)")
            let bundle = work.appendingPathComponent("out-\(pass)/\(example.id)/1.0.0")
            let verify = try await CLITests.lectern(["verify", bundle.path], in: repo)
            #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
            bundles.append(CLITests.files(bundle))
        }
        #expect(bundles[0] == bundles[1])
        let files = bundles[0]
        try CLITests.expectEveryLocalReferenceResolves(files)
        // A review file beside the spec (docs/review.md) decides every item: none is left pending
        // or stale, so the bank can be packaged with --require-review.
        let reviewFile = repo.appendingPathComponent(example.spec.replacingOccurrences(of: ".yaml", with: ".review.yaml"))
        if FileManager.default.fileExists(atPath: reviewFile.path) {
            let seal = try ReviewSeal.read(try #require(files[ReviewSeal.fileName]))
            #expect(seal.counts.pending == 0 && seal.counts.stale == 0 && seal.counts.rejected == 0, "\(example): \(seal.counts)")
            #expect(seal.items.allSatisfy { $0.state == .approved || $0.state == .edited }, "\(example)")
            // Every edited field ships as the reviewer wrote it: a reading set's check once put
            // a question kept from the model's earlier attempts in place of an edited one.
            let decisions = try ReviewFile.read(reviewFile)
            let shipped = Set(Self.strings(in: try JSONSerialization.jsonObject(with: try #require(files["exam.json"]))))
            for (id, decision) in decisions.decisions where decision.kind == .edit {
                for (field, text) in decision.fields where !shipped.contains(text) {
                    Issue.record("\(example): \(id) \(field) does not ship as edited: \(text.prefix(80))")
                }
            }
        }
        let exam = try JSONDecoder().decode(ExamBank.self, from: try #require(files["exam.json"]))
        #expect(exam.items.count == example.items && exam.passages.count == example.passages && exam.forms.count == 1)
        let presets = try PresetLibrary(directories: [repo.appendingPathComponent("pipelines/presets")])
        let spec = try SpecLoader(presets: presets).load(repo.appendingPathComponent(example.spec))
        guard case .exam(let examSpec) = spec.content else {
            Issue.record("\(example.spec) is not an exam spec")
            return
        }
        let corpus = try ExamCorpus.load(examSpec.corpus, relativeTo: repo.appendingPathComponent(example.spec).deletingLastPathComponent())
        let formats = Dictionary(
            exam.sections.flatMap { section in section.categories.map { ("\(section.id)/\($0.id)", $0.format) } }, uniquingKeysWith: { a, _ in a })
        for item in exam.items {
            if formats["\(item.section)/\(item.category)"]?.computesKey == true {
                // A computed key cites no quote; its solution and figure are what is checked.
                #expect(item.solution != nil, "\(item.id) has no solution")
                if let figure = item.figure { #expect(files[figure.path] != nil, "\(item.id): \(figure.path) is not in the bundle") }
                continue
            }
            #expect(!item.sources.isEmpty, "\(item.id) cites nothing")
            for source in item.sources {
                #expect(corpus.contains(quote: source.quote, inDocument: source.document) == .found, "\(item.id): \(source.quote)")
            }
        }
        let bankPath = work.appendingPathComponent("out-1/\(example.id)/1.0.0/exam.json").path
        let check = try await CLITests.lectern(["check", bankPath], in: repo)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let validated = try CLITests.schemaCheck(bankPath, schema: "exam.schema.json")
        #expect(validated.status == 0, "exam.json against its schema (/usr/bin/python3 with python3-jsonschema, which make test-deps installs): \(validated.stderr)")
        try Self.expectTrustworthy(bundle: work.appendingPathComponent("out-1/\(example.id)/1.0.0"))
    }

    /// What issue 17 asks of every example bundle, read from its files rather than from the run:
    /// its quality.json follows docs/schemas/quality.schema.json and reports no failed item and
    /// no question the bank lint flags (one asked twice); no text carries a control character or
    /// a TeX command without its backslash; nothing a learner is told states false arithmetic
    /// (options are left out: a distractor is false on purpose).
    static func expectTrustworthy(bundle: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let files = CLITests.files(bundle)
        let qualityData = try #require(files["quality.json"], "the bundle has no quality.json", sourceLocation: sourceLocation)
        let quality = try JSONSerialization.jsonObject(with: qualityData) as? [String: Any] ?? [:]
        #expect((quality["items"] as? [String: Any])?["failed"] as? Int == 0, sourceLocation: sourceLocation)
        let bank = quality["bank"] as? [String: Any]
        #expect((bank?["items"] as? Int ?? 0) > 0, "the bank lint ran", sourceLocation: sourceLocation)
        #expect((bank?["flagged"] as? [Any])?.isEmpty == true, "\(bank ?? [:])", sourceLocation: sourceLocation)
        let validated = try CLITests.runBlocking(
            [
                "-c",
                "import json, sys, jsonschema; jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))",
                CLITests.repository.appendingPathComponent("docs/schemas/quality.schema.json").path,
                bundle.appendingPathComponent("quality.json").path,
            ], in: CLITests.repository, environment: [:], executable: URL(fileURLWithPath: "/usr/bin/python3"))
        #expect(validated.status == 0, "quality.json against its schema: \(validated.stderr)", sourceLocation: sourceLocation)

        var texts: [(String, String)] = []
        func collect(_ value: Any, path: String) {
            if let text = value as? String {
                // review.json holds each item's answer as its text: a JSON answer's strings are
                // what a reader reads, not its JSON escapes ("\\frac").
                if path.hasPrefix("review.json"), path.hasSuffix(".answer"), text.hasPrefix("{"),
                    let answer = try? JSONSerialization.jsonObject(with: Data(text.utf8))
                {
                    collect(answer, path: path)
                    return
                }
                texts.append((path, text))
            } else if let array = value as? [Any] {
                for (index, element) in array.enumerated() { collect(element, path: "\(path)[\(index)]") }
            } else if let object = value as? [String: Any] {
                for (key, element) in object where key != "options" && key != "wrong_answers" { collect(element, path: "\(path).\(key)") }
            }
        }
        for (path, data) in files.sorted(by: { $0.key < $1.key }) where path != "quality.json" {
            if path.hasSuffix(".md") {
                texts.append((path, String(decoding: data, as: UTF8.self)))
            } else if path.hasSuffix(".json") {
                collect(try JSONSerialization.jsonObject(with: data), path: path)
            }
        }
        for (path, text) in texts {
            #expect(TextIntegrity.inspect(text).problems == [], "\(path)", sourceLocation: sourceLocation)
            #expect(ArithmeticClaims.check(text).map(\.message) == [], "\(path)", sourceLocation: sourceLocation)
        }
    }
}

/// The quotes example (pipelines/examples/echo-quotes.yaml): its recorded cassette replays offline
/// twice to the same bytes, the files follow their schemas, the database is what Echo asks for,
/// and no quote's text or author differs from its corpus file.
struct QuotesExampleTests {
    @Test func echoQuotesReplaysOfflineAndEveryQuoteIsVerbatim() async throws {
        let repo = CLITests.repository
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-quotes-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let (_, bundles, summary) = try await CLITests.replayExampleTwice("echo-quotes", in: work)
        #expect(bundles[0] == bundles[1])
        #expect(summary.contains("by emotion:") && summary.contains("by category:"), "\(summary)")
        // The quotes that fit, under the target (a ceiling), every emotion at its minimum at least.
        #expect(summary.contains("\n  database: 370 quotes (the ones that fit; the target of 1000 is a ceiling), each emotion at least min_per_emotion 10\n"), "\(summary)")
        // A person's review of every tagging answer, beside the spec, applied with no model call:
        // the database is the reviewer's, not the model's.
        #expect(summary.contains(", 0 model calls (59 from cache)"), "\(summary)")
        let seal = try ReviewSeal.read(try #require(bundles[0]["review.json"]))
        #expect(seal.counts.approved == 4 && seal.counts.edited == 55 && seal.counts.pending == 0 && seal.counts.stale == 0, "\(seal.counts)")
        #expect(!summary.contains("short of its target"), "\(summary)")
        let files = bundles[0]
        let quotesData = try #require(files["quotes.json"])
        #expect(quotesData.count < 2_000_000, "QM-005")

        // Both files against their schemas.
        for (name, schema) in [("quotes.json", "quotes.schema.json"), ("manifest.json", "manifest.schema.json")] {
            let validated = try CLITests.schemaCheck(work.appendingPathComponent("out-1/echo-quotes/1.0.0/\(name)").path, schema: schema)
            #expect(validated.status == 0, "\(name) against \(schema): \(validated.stderr)")
        }

        // What Echo asks of the database (§4.4, QM-002–004).
        let database = try JSONDecoder().decode(QuoteDatabase.self, from: quotesData)
        // At most the target (a ceiling: issue 48 keeps fewer quotes rather than unfit ones, so
        // Echo's "1,000 before launch" waits for more encouraging collections), and each emotion
        // with min_per_emotion at least.
        #expect(database.quotes.count <= 1_000, "\(database.quotes.count) quotes")
        let emotions = QuoteEmotion.echo.map(\.name)
        let minimum = try #require(
            try SpecLoader(presets: try PresetLibrary(directories: [repo.appendingPathComponent("pipelines/presets")])).load(
                repo.appendingPathComponent("pipelines/examples/echo-quotes.yaml")
            ).quotes
        ).minPerEmotion
        for emotion in emotions {
            #expect(database.quotes.filter { $0.emotionTags.contains(emotion) }.count >= minimum, "\(emotion)")
        }
        #expect(database.quotes.contains { $0.emotionTags.contains("Reflection") }, "QM-002's fallback is never empty")
        for quote in database.quotes {
            #expect((50...200).contains(quote.text.count) && !quote.author.isEmpty && !QuoteText.hasOddCharacters(quote.text), "\(quote.id)")
            #expect((1...3).contains(quote.emotionTags.count) && quote.emotionTags.allSatisfy(emotions.contains), "\(quote.id)")
            #expect(QuotesSpec.echoCategories.contains(quote.category), "\(quote.id)")
        }
        #expect(Set(database.quotes.map(\.id)).count == database.quotes.count)
        // What the reviewer changed, as it ships: a quip the model kept is out, a line the model
        // called mocking is in with the reviewer's tags, and a quote the model never managed to
        // name (left untagged after three rounds) is tagged by hand.
        func shipped(_ opening: String) -> QuoteDatabase.Quote? { database.quotes.first { $0.text.hasPrefix(opening) } }
        #expect(shipped("I may not agree with you, but I will defend to the death") == nil, "Oscar Wilde's quip")
        #expect(shipped("Beauty is in the eye of the beholder") == nil, "Jim Henson's black eye")
        let roosevelt = try #require(shipped("No one can make you feel inferior"), "Eleanor Roosevelt")
        #expect(roosevelt.author == "Eleanor Roosevelt" && roosevelt.emotionTags.contains("Comfort"), "\(roosevelt)")
        let bronte = try #require(shipped("I avoid looking forward or backward"), "Charlotte Brontë")
        #expect(bronte.emotionTags == ["Reflection", "Hope"] && bronte.category == "Literature", "\(bronte)")

        // Verbatim: every text and author occurs in a corpus file of the spec, read here on its
        // own — backspace overstrikes removed, JSON Lines decoded, white space collapsed — with
        // none of the pipeline's code.
        let presets = try PresetLibrary(directories: [repo.appendingPathComponent("pipelines/presets")])
        let spec = try SpecLoader(presets: presets).load(repo.appendingPathComponent("pipelines/examples/echo-quotes.yaml"))
        let base = repo.appendingPathComponent("pipelines/examples")
        var haystacks: [String] = []
        for source in try #require(spec.quotes).sources {
            let raw = try String(contentsOf: base.appendingPathComponent(source.path), encoding: .utf8)
            // A backspace erases the character before it (`____⌫⌫⌫⌫SOME` is SOME).
            var text = raw
            while text.contains("\u{8}") {
                let next = text.replacingOccurrences(of: "[^\u{8}\n]\u{8}", with: "", options: .regularExpression)
                if next == text { break }
                text = next
            }
            if source.format == .jsonl {
                text = raw.split(separator: "\n").compactMap { line in
                    (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]).map { "\($0["text"] ?? "") \($0["author"] ?? "")" }
                }.joined(separator: "\n")
            }
            haystacks.append(text.replacingOccurrences(of: #"\s+"#, with: " ", options: .regularExpression))
        }
        for quote in database.quotes {
            #expect(haystacks.contains { $0.contains(quote.text) && $0.contains(quote.author) }, "\(quote.id): \(quote.text) — \(quote.author)")
        }

        // The template bank is not recorded under the rule on where {keyword} goes (the example's
        // spec says why): the example builds the database only. The bank's checks run on scripted
        // answers (QuotesRunTests, KeywordSlotTests).
        #expect(files["templates.json"] == nil)
    }
}
