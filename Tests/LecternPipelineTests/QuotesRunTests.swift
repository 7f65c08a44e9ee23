import Foundation
import LecternBundle
import LecternCore
import LecternLLM
import Synchronization
import Testing

@testable import LecternPipeline

/// A model stand-in for the quotes kind: it reads the numbered quotations out of each tagging
/// request, as a model would, and answers them; markers in a quote's text make it misbehave.
/// - "joke": rejected as not a quotation;
/// - "Flaky": tagged with an emotion that does not exist in the first round;
/// - "Skipped": left out of the first round's answer;
/// - "Hopeless": always answered with a wrong opening (never tagged);
/// - the first answer of every batch also answers a quotation number the batch does not have.
/// Templates: 14 candidates, one too long; for Joy, the first round's answer has too few usable
/// ones (four), and the second repeats them.
final class QuoteClassifier: LLMProvider {
    let kind = "scripted"
    let maxConcurrency = 4
    /// Answer every re-ask (round 2 on) with text that is not JSON.
    let garbleReasks: Bool
    /// Answer Comfort's first template round with lines none of which is usable.
    let uselessFirstComfort: Bool
    /// Answer every template judgement with text that is not JSON.
    let garbleJudge: Bool
    private let log = Mutex<[(RequestContext, LLMRequest)]>([])

    var requests: [(RequestContext, LLMRequest)] { log.withLock { $0 } }

    init(garbleReasks: Bool = false, uselessFirstComfort: Bool = false, garbleJudge: Bool = false) {
        self.garbleReasks = garbleReasks
        self.uselessFirstComfort = uselessFirstComfort
        self.garbleJudge = garbleJudge
    }

    static let emotions = ["Achievement", "Comfort", "Motivation", "Gratitude", "Struggle", "Joy", "Reflection", "Hope"]

    func complete(_ request: LLMRequest, context: RequestContext) async throws -> LLMResponse {
        log.withLock { $0.append((context, request)) }
        if context.stage == "templates" && context.itemID.contains("/judge-") && garbleJudge {
            return LLMResponse(content: "All of these lines are lovely.", usage: TokenUsage(promptTokens: 300, completionTokens: 10))
        }
        if context.stage == "templates" && context.itemID.contains("/judge-") {
            return LLMResponse(content: try judge(request), usage: TokenUsage(promptTokens: 300, completionTokens: 100))
        }
        if context.stage == "templates" { return LLMResponse(content: templates(context), usage: TokenUsage(promptTokens: 300, completionTokens: 200)) }
        let prompt = try #require(request.messages.first { $0.content.contains("The quotations:\n") }).content
        let round = context.itemID.contains("/round-") ? Int(context.itemID.split(separator: "-").last!)! : 1
        if garbleReasks && round > 1 { return LLMResponse(content: "Sorry, I cannot help with that.") }
        var answers: [JSONValue] = []
        for line in prompt.components(separatedBy: "The quotations:\n")[1].split(separator: "\n") {
            guard let dot = line.firstIndex(of: "."), let n = Int(line[..<dot]), let open = line.firstIndex(of: "\"") else { continue }
            let rest = line[line.index(after: open)...]
            let text = String(rest[..<rest.range(of: "\" (", options: .backwards)!.lowerBound])
            if text.contains("Skipped") && round == 1 { continue }
            let opening = text.contains("Hopeless") ? "Something else entirely" : text.split(separator: " ").prefix(3).joined(separator: " ")
            if text.contains("joke") {
                answers.append(["n": .number(Double(n)), "opening": .string(opening), "verdict": "reject", "reason": "not-a-quotation", "emotions": [], "category": ""])
                continue
            }
            var tags = [Self.emotions[text.count % 8], text.contains("think") ? "Reflection" : Self.emotions[(text.count / 8) % 8]]
            // The numbered quotes go round the emotions, so that each has some.
            if let r = text.range(of: "Quote number "), let k = Int(text[r.upperBound...].prefix { $0.isNumber }) { tags[0] = Self.emotions[k % 8] }
            if text.contains("Flaky") && round == 1 { tags = ["Sadness"] }
            answers.append(
                [
                    "n": .number(Double(n)), "opening": .string(opening), "verdict": "keep", "reason": "", "emotions": .array(tags.map { .string($0) }),
                    "category": "philosophy",
                ])
        }
        if round == 1 && context.attempt == 1 {
            answers.append(["n": 99, "opening": "Not a quote", "verdict": "keep", "reason": "", "emotions": ["Joy"], "category": "Science"])
        }
        return LLMResponse(content: JSONValue.object(["quotes": .array(answers)]).canonicalText, usage: TokenUsage(promptTokens: 900, completionTokens: 400))
    }

    /// The template judge: a line telling the reader to rest does not fit; every other does.
    func judge(_ request: LLMRequest) throws -> String {
        let prompt = try #require(request.messages.last?.content)
        let lines = prompt.components(separatedBy: "The lines:\n")[1].split(separator: "\n")
        let verdicts: [JSONValue] = lines.enumerated().map { i, line in
            // And for Joy, the second of the numbered lines (so that Joy's next round is told why).
            let rest = line.contains("allowed to rest") || (prompt.contains("tagged Joy:") && line.contains("number 2."))
            return ["n": .number(Double(i + 1)), "fits": .bool(!rest), "reason": .string(rest ? "it does not speak to the feeling" : "it speaks to the feeling")]
        }
        return JSONValue.object(["lines": .array(verdicts)]).canonicalText
    }

    func templates(_ context: RequestContext) -> String {
        let emotion = context.itemID.split(separator: "/")[1]
        var lines = (1...10).map { "Day \($0) of {keyword} shows a \(emotion) side of you, number \($0)." }
        lines += ["You are allowed to rest before the \(emotion) returns.", "Keep going; \(emotion) finds those who wait.", "Look how far your \(emotion) has come."]
        lines.append("This template is far too long to fit in the bank because it keeps going on {keyword} and on and on and on.")
        if emotion == "joy" && !context.itemID.contains("/round-") { lines = Array(lines.prefix(4)) + lines.suffix(1) }
        if emotion == "comfort" && uselessFirstComfort && !context.itemID.contains("/round-") {
            // What the local model wrote for Comfort: {keyword} taken for an activity, first.
            lines = (1...16).map { "{keyword} is a great way number \($0) to relax and unwind." }
        }
        if context.itemID.contains("/round-") {
            // Later rounds answer the two kinds apart, as their schema asks.
            return JSONValue.object([
                "with_keyword": .array(lines.filter { $0.contains("{keyword}") }.map { .string($0) }),
                "without_placeholder": .array(lines.filter { !$0.contains("{keyword}") }.map { .string($0) }),
            ]).canonicalText
        }
        return JSONValue.object(["templates": .array(lines.map { .string($0) })]).canonicalText
    }
}

struct QuotesRunTests {
    static let fortune = """
        What you think, you become, as the old saying goes.
        \t\t-- Buddha
        %
        The best time to plant a tree was twenty years ago. The second best is now.
        \t\t-- Confucius
        %
        A joke that goes on too long is not a joke at all, just a sermon.
        \t\t-- Mark Twain
        %
        Flaky quote that the model mislabels once before it gets it right in the end.
        \t\t-- Ada Lovelace
        %
        Skipped once: the model forgets this one in the first answer it sends.
        \t\t-- Grace Hopper
        %
        Hopeless case: the model never copies the opening of this quote correctly.
        \t\t-- Alan Turing
        %
        Not signed by anyone, so it never reaches the model at all, which is right.
        %
        You miss one hundred percent of the shots you don't take, or so they say.
        \t\t-- Wayne Gretzky
        """

    static func csv(extra: Int = 0) -> String {
        var rows = ["text,author,source"]
        for i in 0..<(24 + extra) {
            rows.append("\"Quote number \(i): patience and courage \(["think", "build", "rest", "give"][i % 4]) a life worth living, step by step.\",Author \(i),Book \(i)")
        }
        return rows.joined(separator: "\n") + "\n"
    }

    static func yaml(batch: Int = 6, templates: Bool = true, target: Int = 20, minPerEmotion: Int = 1) -> String {
        """
        kind: quotes
        id: test-quotes
        description: Encouraging quotes.
        corpus:
          - path: q/fortunes
            licence: BSD-3-Clause
            origin: test fixture
          - { path: q/quotes.csv, licence: CC0-1.0, attribution: verified }
        target: \(target)
        batch: \(batch)
        min_per_emotion: \(minPerEmotion)
        templates: \(templates)
        model: { provider: scripted, script: unused.json }
        repair: { max_attempts: 3 }
        """
    }

    static func workspace(extra: Int = 0) throws -> Workspace {
        let ws = try Workspace()
        let dir = ws.root.appendingPathComponent("q")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try fortune.write(to: dir.appendingPathComponent("fortunes"), atomically: true, encoding: .utf8)
        try csv(extra: extra).write(to: dir.appendingPathComponent("quotes.csv"), atomically: true, encoding: .utf8)
        return ws
    }

    static func spec(_ ws: Workspace, yaml: String = yaml()) throws -> JobSpec {
        try SpecLoader(presets: try Workspace.presets()).load(YAMLSource(file: "quotes.yaml", data: Data(yaml.utf8)), baseDirectory: ws.root)
    }

    struct Output: Decodable {
        struct Quote: Decodable {
            var id: String
            var text: String
            var author: String
            var source: String
            var emotionTags: [String]
            var category: String
        }

        var quotes: [Quote]
    }

    @Test func aWholeRunTagsChecksAndSelects() async throws {
        let ws = try Self.workspace()
        let spec = try Self.spec(ws)
        let provider = QuoteClassifier()
        let result = try await ws.run(spec, provider: provider)
        #expect(result.status == .complete, "\(result.failures)")
        guard case .written(let dir)? = result.bundle else { throw PipelineError("no bundle") }
        #expect(try BundleVerifier.verify(dir).problems.isEmpty)
        let files = Workspace.files(dir)
        #expect(Set(files.keys) == ["manifest.json", "quotes.json", "templates.json", "curation.json", "ATTRIBUTIONS.md", "quality.json", "review.json"])
        // quality.json counts the tagging and template answers like any kind's: none failed here.
        let qualityData = try #require(files["quality.json"])
        let quality = try #require(try JSONSerialization.jsonObject(with: qualityData) as? [String: Any])
        let items = try #require(quality["items"] as? [String: Any])
        #expect((items["checked"] as? Int ?? 0) > 0)
        #expect(items["failed"] as? Int == 0)

        // quotes.json: Echo's schema, its keys in the seed's order.
        let data = try #require(files["quotes.json"])
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Array(object.keys) == ["quotes"])
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#"{"id": "q"#) && text.contains(#", "emotionTags": ["#))
        let output = try JSONDecoder().decode(Output.self, from: data)
        #expect(output.quotes.count == 20, "the target")
        let corpus = try QuoteCorpus.load(try #require(spec.quotes).sources, relativeTo: ws.root, length: SizeRange(min: 50, max: 200))
        let byID = Dictionary(uniqueKeysWithValues: corpus.candidates.map { ($0.id, $0) })
        for quote in output.quotes {
            let source = try #require(byID[quote.id])
            #expect(quote.text == source.text && quote.author == source.author && quote.source == source.source)
            #expect((1...3).contains(quote.emotionTags.count) && quote.emotionTags.allSatisfy { QuoteClassifier.emotions.contains($0) })
            #expect(quote.category == "Philosophy", "the category is written as the spec names it")
        }
        #expect(!output.quotes.contains { $0.text.contains("joke") || $0.text.contains("Hopeless") || $0.text.contains("Not signed") })
        #expect(output.quotes.map(\.id) == output.quotes.map(\.id).sorted(), "in id order")

        // The repaired ones made it; the batch answers held strays.
        let curationData = try #require(files["curation.json"])
        let curation = try #require(try JSONSerialization.jsonObject(with: curationData) as? [String: Any])
        let tagging = try #require(curation["tagging"] as? [String: Any])
        #expect(tagging["tagged"] as? Int == 30, "\(String(decoding: curationData, as: UTF8.self))")
        #expect((tagging["rejected"] as? [String: Int]) == ["not-a-quotation": 1])
        let rejections = try #require(tagging["rejections"] as? [[String: String]])
        #expect(rejections.count == 1 && rejections[0]["reason"] == "not-a-quotation" && rejections[0]["author"] == "Mark Twain")
        let untagged = try #require(tagging["untagged"] as? [String: [String]])
        #expect(untagged.count == 1 && untagged.values.first?.first?.contains("copy its first three words") == true, "\(untagged)")
        #expect((tagging["stray_answers"] as? Int ?? 0) >= 1)
        #expect((tagging["by_round"] as? [String: Int])?["2"] == 2, "Flaky and Skipped, asked again on their own")
        let dropped = try #require((curation["corpus"] as? [String: Any])?["dropped"] as? [String: Int])
        #expect(dropped == ["no-author": 1])
        let repairs = provider.requests.filter { $0.0.itemID.hasPrefix("tag/") && $0.0.itemID.contains("/round-2") }
        #expect(!repairs.isEmpty)
        for (_, request) in repairs {
            let listing = request.messages.last!.content.components(separatedBy: "The quotations:\n")[1]
            #expect(!listing.contains("Buddha") && !listing.contains("Confucius"), "only the failed quotes are asked again")
        }

        // Templates: the bank's mix, the over-long one left out, Joy repaired.
        let bankData = try #require(files["templates.json"])
        let bank = try #require(try JSONSerialization.jsonObject(with: bankData) as? [String: [String: [String]]])
        let templates = try #require(bank["templates"])
        #expect(Set(templates.keys) == Set(QuoteClassifier.emotions))
        for (_, lines) in templates {
            #expect(lines.count == 10)
            #expect(lines.filter { !$0.contains("{keyword}") }.count >= 2 && lines.filter { $0.contains("{keyword}") }.count >= 6)
            #expect(lines.allSatisfy { $0.replacingOccurrences(of: "{keyword}", with: String(repeating: "x", count: 20)).count < 100 })
        }
        // Joy: the four usable templates of the first round are kept; the second round is shown
        // them and asked only for what is missing, and its repeats of them are left out.
        #expect(result.reports["templates/joy"]?.attempts == 2)
        let joy = try #require(templates["Joy"])
        #expect(joy.filter { $0.hasPrefix("Day ") }.count == Set(joy.filter { $0.hasPrefix("Day ") }).count)
        let second = try #require(provider.requests.first { $0.0.itemID == "templates/joy/round-2" }?.1.messages.last?.content)
        #expect(second.contains("already chosen:\n- Day 1 of {keyword} shows a joy side of you, number 1.\n"), "\(second)")
        #expect(second.contains("- Day 4 of") && !second.contains("- Day 5 of"))
        // Asked for what is missing (4 more with {keyword}, 2 without, and two spare of each), each
        // kind held to its pattern by the schema.
        let format = try #require(provider.requests.first { $0.0.itemID == "templates/joy/round-2" }?.1.responseSchema?.schema.canonicalText)
        #expect(format.contains(#""maxItems":6"#) && format.contains(#""maxItems":4"#) && format.contains(#""pattern":"^[^{}\"\\\\\\n]{1,99}$""#), "\(format)")
        #expect(second.contains("could not be used:\n- \"This template is far too long") && second.contains("characters with a 20-character keyword"), "the last answer's problems")
        #expect(provider.requests.filter { $0.0.itemID.hasPrefix("templates/") && $0.0.itemID.contains("/round-") }.count == 1, "only Joy needed a second round")

        // The manifest and the summary carry the coverage.
        let manifest = try JSONDecoder().decode(Manifest.self, from: try #require(files["manifest.json"]))
        #expect(manifest.kind == .quotes)
        #expect(manifest.contents?["emotions"]?.values.reduce(0, +) == output.quotes.reduce(0) { $0 + $1.emotionTags.count })
        #expect(manifest.contents?["quotes"]?["selected"] == 20)
        #expect(result.summary.contains { $0.contains("by emotion:") && $0.contains("Reflection") })
        let attributions = String(decoding: try #require(files["ATTRIBUTIONS.md"]), as: UTF8.self)
        #expect(attributions.contains("| q/quotes.csv |") && attributions.contains("verified against primary sources"))
    }

    @Test func addingAQuoteReasksOnlyItsBatch() async throws {
        let ws = try Self.workspace()
        let first = QuoteClassifier()
        _ = try await ws.run(try Self.spec(ws, yaml: Self.yaml(templates: false)), provider: first)
        try Self.csv(extra: 1).write(to: ws.root.appendingPathComponent("q/quotes.csv"), atomically: true, encoding: .utf8)
        let second = QuoteClassifier()
        let result = try await ws.run(try Self.spec(ws, yaml: Self.yaml(templates: false)), provider: second, output: ws.root.appendingPathComponent("out2"))
        #expect(result.status == .complete)
        let batches = Set(first.requests.map { $0.0.itemID.split(separator: "/").prefix(2).joined(separator: "/") })
        let again = Set(second.requests.map { $0.0.itemID.split(separator: "/").prefix(2).joined(separator: "/") })
        #expect(batches.count >= 5)
        #expect((1...2).contains(again.count), "\(again.sorted()) of \(batches.sorted()) batches")
        // `lectern diff` compares the two databases quote by quote.
        let diff = try BundleDiff.compare(ws.output.appendingPathComponent("test-quotes/1.0.0"), ws.root.appendingPathComponent("out2/test-quotes/1.0.0"))
        #expect(!diff.equal && diff.unchanged >= 15)
        let named = diff.added + diff.removed + diff.changed.map(\.id)
        // (A batch cut anew is a new item to review: review/tag/<batch>.)
        #expect(named.allSatisfy { $0.hasPrefix("quote/") || $0.hasPrefix("file/") || $0.hasPrefix("review/tag/") }, "\(named)")
        #expect(named.contains("file/curation.json"))
    }

    /// A re-ask that never gives a readable answer leaves its quotes untagged; the batch keeps the
    /// verdicts of its first answer and the run completes.
    @Test func aReaskWithoutAReadableAnswerKeepsTheBatch() async throws {
        let ws = try Self.workspace()
        let result = try await ws.run(try Self.spec(ws, yaml: Self.yaml(templates: false)), provider: QuoteClassifier(garbleReasks: true))
        #expect(result.status == .complete, "\(result.failures)")
        guard case .written(let dir)? = result.bundle else { throw PipelineError("no bundle") }
        let curation = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("curation.json"))) as? [String: Any])
        let tagging = try #require(curation["tagging"] as? [String: Any])
        let untagged = try #require(tagging["untagged"] as? [String: [String]])
        #expect(untagged.count == 3, "Flaky, Skipped and Hopeless: \(untagged)")
        #expect(untagged.values.contains { $0.contains { $0.contains("no JSON object") } })
        #expect(tagging["tagged"] as? Int == 28)
    }

    /// `min_per_emotion` is met or the run fails, naming each emotion and how many quotes fit
    /// it; the target is a ceiling: a database under it is written, and says so.
    @Test func anEmotionUnderItsMinimumFailsTheRunAndTheTargetIsACeiling() async throws {
        let ws = try Self.workspace()
        let short = try await ws.run(try Self.spec(ws, yaml: Self.yaml(templates: false, minPerEmotion: 30)), provider: QuoteClassifier())
        #expect(short.status == .itemsFailed)
        if case .written? = short.bundle { Issue.record("a database an emotion cannot use was written") }
        let failure = try #require(short.failures.first { $0.id == "select" })
        #expect(failure.errors.count == 8, "\(failure.errors)")
        for emotion in QuoteClassifier.emotions {
            #expect(failure.errors.contains { $0.hasPrefix("\(emotion): ") && $0.contains("quotes fit, and min_per_emotion is 30") }, "\(failure.errors)")
        }

        let ceiling = try await ws.run(
            try Self.spec(ws, yaml: Self.yaml(templates: false, target: 1000)), provider: QuoteClassifier(), output: ws.root.appendingPathComponent("out2"))
        #expect(ceiling.status == .complete, "\(ceiling.failures)")
        guard case .written(let dir)? = ceiling.bundle else { throw PipelineError("no bundle: \(ceiling.failures)") }
        let files = Workspace.files(dir)
        let quotesData = try #require(files["quotes.json"])
        let curationData = try #require(files["curation.json"])
        let output = try JSONDecoder().decode(Output.self, from: quotesData)
        let curation = try #require(try JSONSerialization.jsonObject(with: curationData) as? [String: Any])
        let selection = try #require(curation["selection"] as? [String: Any])
        #expect(output.quotes.count == 29 && selection["selected"] as? Int == 29, "every kept quote (24 numbered, 5 signed fortunes), none added to reach 1000")
        #expect((selection["shortfalls"] as? [String])?.first?.contains("under the target of 1000 (a ceiling)") == true)
        #expect(ceiling.reports["select"]?.warnings.isEmpty ?? true, "under the target is no warning")
    }

    /// `templates: { judge: true }`: the model judges each round's usable lines against their
    /// emotion; a line judged not to fit is left out and its reason is sent with the next round.
    @Test func theTemplateJudgeLeavesOutLinesThatDoNotFitTheirEmotion() async throws {
        let ws = try Self.workspace()
        let yaml = Self.yaml().replacingOccurrences(of: "templates: true", with: "templates: { judge: true }")
        let provider = QuoteClassifier()
        let result = try await ws.run(try Self.spec(ws, yaml: yaml), provider: provider)
        #expect(result.status == .complete, "\(result.failures)")
        guard case .written(let dir)? = result.bundle else { throw PipelineError("no bundle: \(result.failures)") }
        let bankData = try #require(Workspace.files(dir)["templates.json"])
        let bank = try #require(try JSONSerialization.jsonObject(with: bankData) as? [String: [String: [String]]])
        let templates = try #require(bank["templates"])
        #expect(templates.count == 8)
        for (emotion, lines) in templates {
            #expect(lines.count == 10 && !lines.contains { $0.contains("allowed to rest") }, "\(emotion): \(lines)")
        }
        // Each round's usable lines were judged, numbered, with the emotion's meaning.
        let judged = provider.requests.filter { $0.0.itemID.contains("/judge-") }
        #expect(judged.count == 9, "one a round: 8 first rounds and Joy's second")
        let comfort = try #require(judged.first { $0.0.itemID == "templates/comfort/judge-1" }?.1.messages.last?.content)
        #expect(comfort.contains("tagged Comfort: ") && comfort.contains("\n1. Day 1 of {keyword}"))
        // Joy's second round is told why the line was left out.
        let second = try #require(provider.requests.first { $0.0.itemID == "templates/joy/round-2" }?.1.messages.last?.content)
        #expect(second.contains("\"Day 2 of {keyword} shows a joy side of you, number 2.\" does not fit Joy: it does not speak to the feeling"), "\(second)")
        #expect(!(templates["Joy"] ?? []).contains { $0.contains("number 2.") })
        #expect(result.reports["templates/comfort"]?.attempts == 2, "a round's call and its judgement")
    }

    /// A judge that gives no readable verdicts after its repairs leaves the round's lines kept,
    /// with a warning that says so: the bank is not lost to the judge.
    @Test func aJudgeWithoutReadableVerdictsKeepsTheLinesWithAWarning() async throws {
        let ws = try Self.workspace()
        let yaml = Self.yaml().replacingOccurrences(of: "templates: true", with: "templates: { judge: true }")
        let provider = QuoteClassifier(garbleJudge: true)
        let result = try await ws.run(try Self.spec(ws, yaml: yaml), provider: provider)
        #expect(result.status == .complete, "\(result.failures)")
        let warnings = result.reports["templates/comfort"]?.warnings ?? []
        #expect(warnings.contains { $0.kind == "template lines not judged" && $0.message.hasPrefix("round 1: the judge gave no readable verdicts") }, "\(warnings)")
        #expect(provider.requests.filter { $0.0.itemID == "templates/comfort/judge-1" }.count == 3, "the judge's call repaired up to max_attempts")
        guard case .written(let dir)? = result.bundle else { throw PipelineError("no bundle: \(result.failures)") }
        let bankData = try #require(Workspace.files(dir)["templates.json"])
        let bank = try #require(try JSONSerialization.jsonObject(with: bankData) as? [String: [String: [String]]])
        #expect(bank["templates"]?["Comfort"]?.contains { $0.contains("allowed to rest") } == true, "kept unjudged")
    }

    /// A first template round with nothing usable is not the end: the next round asks again, told
    /// why, its lines held to their kind by the schema (the local model's first Comfort answer put
    /// {keyword} first in all sixteen lines).
    @Test func aFirstTemplateRoundWithNothingUsableGoesOnToTheNext() async throws {
        let ws = try Self.workspace()
        let provider = QuoteClassifier(uselessFirstComfort: true)
        let result = try await ws.run(try Self.spec(ws), provider: provider)
        #expect(result.status == .complete, "\(result.failures)")
        let second = try #require(provider.requests.first { $0.0.itemID == "templates/comfort/round-2" }?.1.messages.last?.content)
        #expect(second.contains("already chosen:\n- (none yet)\n"), "\(second)")
        #expect(second.contains("{keyword} opens the line"), "told why")
        guard case .written(let dir)? = result.bundle else { throw PipelineError("no bundle: \(result.failures)") }
        let bankData = try #require(Workspace.files(dir)["templates.json"])
        let bank = try #require(try JSONSerialization.jsonObject(with: bankData) as? [String: [String: [String]]])
        #expect(bank["templates"]?["Comfort"]?.count == 10)
        #expect(result.reports["templates/comfort"]?.attempts == 4, "three refused attempts of round 1, then round 2")
    }

    @Test func badSpecsAreLocated() throws {
        let ws = try Self.workspace()
        func problems(_ yaml: String) -> String {
            do {
                _ = try Self.spec(ws, yaml: yaml)
                return ""
            } catch {
                return "\(error)"
            }
        }
        let base = Self.yaml()
        #expect(problems(base.replacingOccurrences(of: "path: q/fortunes", with: "path: q/missing")).contains("quotes.yaml:5:"))
        #expect(problems(base + "\nfallback_emotion: Sadness").contains("the fallback emotion 'Sadness' is not one of the emotions"))
        #expect(problems(base.replacingOccurrences(of: "attribution: verified", with: "attribution: sure")).contains("unknown attribution status 'sure'"))
        #expect(problems(base.replacingOccurrences(of: "templates: true", with: "templates: {per_emotion: 4, min_without_placeholder: 2}")).contains("most templates must hold {keyword}"))
    }
}
