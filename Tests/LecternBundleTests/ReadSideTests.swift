import Foundation
import LecternCore
import Testing

@testable import LecternBundle

/// The read side of each kind (`BundleKind`) on small bundles written here: what diff, preview,
/// export and package make of a course with a practice set, a quote database and a deck.
struct ReadSideTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-readside-\(UUID().uuidString)")

    func write(_ kind: JobKind, _ files: [String: Data], version: String = "1.0.0") throws -> URL {
        let manifest = Manifest(
            kind: kind, id: "demo", version: version, title: "Demo", language: "en", generator: "test", specHash: String(repeating: "a", count: 64),
            models: [], promptTemplates: [], usage: .init(promptTokens: 0, completionTokens: 0, cachedTokens: 0, calls: 0), costUSD: 0,
            incompleteItems: [], files: [:])
        guard case .written(let dir) = try BundleWriter(outputRoot: root).write(files: files, manifest: manifest) else {
            throw BundleReadError("not written")
        }
        return dir
    }

    static func json(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(value)
    }

    static func course(practicePrompt: String) -> Course {
        var topic = Topic(id: "s01-t01", title: "Loops", objective: "Repeat work with a loop.")
        topic.engagementQuestion = Question(
            topicID: "s01-t01", format: .freeText, prompt: "Why would you use a loop?", options: nil, referenceAnswer: "To repeat work.",
            explanation: "A loop repeats.")
        topic.practice = [
            PracticeQuestion(
                id: "s01-t01-p01", topicID: "s01-t01", format: .trueFalse, difficulty: .easy, prompt: practicePrompt,
                options: [Choice(text: "True", correct: true, feedback: "Yes."), Choice(text: "False", correct: false, feedback: "No.")],
                explanation: "A for loop visits each item."),
            PracticeQuestion(
                id: "s01-t01-p02", topicID: "s01-t01", format: .trueFalse, difficulty: .hard, prompt: "A while loop always ends.",
                options: [Choice(text: "True", correct: false, feedback: "No."), Choice(text: "False", correct: true, feedback: "Right.")],
                explanation: "It ends when its condition is false."),
        ]
        return Course(
            id: "demo", version: "1.0.0", language: "en", title: "Demo", description: "A demo course.", audience: "anyone",
            tone: Tone(presets: [], text: nil, instruction: "plain"), subjects: [Subject(id: "s01", title: "Basics", topics: [topic], project: nil)],
            tonePreview: nil)
    }

    /// The topic's record holds none of its questions, so an edited practice question is one change.
    @Test func anEditedPracticeQuestionIsOneChange() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let old = try write(.course, ["course.json": try Self.json(Self.course(practicePrompt: "A for loop visits each item once."))])
        let new = try write(
            .course, ["course.json": try Self.json(Self.course(practicePrompt: "A for loop visits each item of a list once."))], version: "1.0.1")
        let report = try BundleDiff.compare(old, new)
        #expect(report.changed.map(\.id) == ["manifest", "practice/s01-t01/q-01"], "\(report.changed.map(\.id))")
        #expect(report.changed.last?.fields?.map(\.field) == ["prompt"])
        #expect(report.added.isEmpty && report.removed.isEmpty)
        // Every question is a unit of its own, named by CourseItems, and the topic's record is one more.
        #expect(report.unchanged == 5, "course, subject, topic, engagement question, the other practice question")
        let questions = CourseBundle.questions(in: Self.course(practicePrompt: "x"))
        #expect(questions.map(\.id) == [CourseItems.engagementQuestion("s01-t01"), CourseItems.practice("s01-t01", number: 1), CourseItems.practice("s01-t01", number: 2)].map(\.rawValue))
        #expect(questions.last?.heading == Wording("Practice question, hard", "سؤال تدريبي, صعب"))
    }

    static let database = QuoteDatabase(quotes: [
        .init(id: "q1", text: "Small steps every day add up to a long road walked.", author: "A. Writer", source: "", emotionTags: ["Motivation", "Hope"], category: "Growth"),
        .init(id: "q2", text: "Rest is part of the work, not a pause from it, \"friend\".", author: "B. Poet", source: "Songs", emotionTags: ["Comfort"], category: "Rest"),
    ])

    @Test func aQuoteDatabaseIsPreviewedByEmotionExportedDiffedAndListed() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let bank = TemplateBank(emotions: [("Motivation", ["Keep going, {name}."]), ("Comfort", ["Breathe."]), ("Hope", ["Tomorrow is open."])])
        let dir = try write(.quotes, ["quotes.json": Self.database.json(), "templates.json": bank.json()])
        // The template bank's order is read back from the file.
        #expect(try TemplateBank.read(bank.json()) == bank)
        let site = try BundlePreview.write(bundle: dir, to: root.appendingPathComponent("site"))
        let index = try String(contentsOf: site.index, encoding: .utf8)
        let pages = ["Motivation", "Comfort", "Hope"].map { "<a href=\"emotions/\($0).xhtml\">\($0)</a>" }
        #expect(pages.allSatisfy(index.contains), "\(index)")
        #expect(index.range(of: pages[0])!.lowerBound < index.range(of: pages[1])!.lowerBound, "the spec's order")
        let comfort = try String(contentsOf: root.appendingPathComponent("site/emotions/Comfort.xhtml"), encoding: .utf8)
        #expect(comfort.contains("Rest is part of the work, not a pause from it, &quot;friend&quot;.") && comfort.contains("<cite>Songs</cite>"))
        #expect(comfort.contains("<li>Breathe.</li>") && !comfort.contains("Small steps"))
        #expect(site.pages == 4)

        let csv = String(decoding: try Exporters.export(dir, format: "csv").data, as: UTF8.self)
        #expect(csv.hasPrefix("\u{FEFF}id,text,author,source,emotion_tags,category\r\n"))
        #expect(csv.contains("q1,Small steps every day add up to a long road walked.,A. Writer,,Motivation;Hope,Growth\r\n"), "\(csv)")
        #expect(csv.contains("\"Rest is part of the work, not a pause from it, \"\"friend\"\".\",B. Poet,Songs,Comfort,Rest\r\n"))
        let json = try Exporters.export(dir, format: "json")
        #expect(json.fileName == "demo-1.0.0.quotes.json" && json.data == Self.database.json())
        do {
            _ = try Exporters.export(dir, format: "epub")
            Issue.record("a quote database exported as EPUB")
        } catch {
            #expect("\(error)" == "a bundle of kind quotes does not export as epub; it exports as csv, json")
        }

        let facts = try MarketplacePackage.facts(of: OpenBundle(url: dir, manifest: try BundleVerifier.verify(dir).manifest), kinds: .builtIn)
        #expect(facts.samples == ["Motivation", "Comfort", "Hope"] && facts.samplesAre == "emotions")
        #expect(facts.contents.counts == ["quotes": 2, "emotions": 3, "categories": 2, "templates": 3])

        var edited = Self.database
        edited.quotes[1].category = "Calm"
        let new = try write(.quotes, ["quotes.json": edited.json(), "templates.json": bank.json()], version: "1.0.1")
        let report = try BundleDiff.compare(dir, new)
        #expect(report.changed.map(\.id) == ["manifest", "quote/q2"] && report.changed.last?.fields?.map(\.field) == ["category"], "\(report)")
        #expect(report.unchanged == 4, "quote/q1 and the three emotions' templates")
    }

    @Test func aDeckIsPreviewedAsOneCardSet() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let card = DeckCard(
            id: "c001", line: nil, front: "H", back: "Hydrogen, the lightest element", quiz: .init(options: ["Helium", "Hydrogen, the lightest element"], answer: 1, distractors: .deck),
            cloze: .init(text: "____, the lightest element", answer: "Hydrogen"))
        let deck = Deck(id: "demo", version: "1.0.0", language: "en", title: "Elements", description: "Symbols.", source: nil, cards: [card], matching: [], unmatched: ["c001"])
        let dir = try write(.flashcards, ["deck.json": try Self.json(deck)])
        let site = try BundlePreview.write(bundle: dir, to: root.appendingPathComponent("site"))
        let index = try String(contentsOf: site.index, encoding: .utf8)
        #expect(index.contains("<a href=\"cards.xhtml\">The cards (1)</a>"), "\(index)")
        let cards = try String(contentsOf: root.appendingPathComponent("site/cards.xhtml"), encoding: .utf8)
        #expect(cards.contains("<summary>H</summary>") && cards.contains("Hydrogen, the lightest element ✓") && cards.contains("____, the lightest element"))
        #expect(String(decoding: try Exporters.export(dir, format: "cards-csv").data, as: UTF8.self) == "H,\"Hydrogen, the lightest element\"\r\n")
        #expect(try MarketplacePackage.facts(of: OpenBundle(url: dir, manifest: try BundleVerifier.verify(dir).manifest), kinds: .builtIn).samples == ["c001"])
    }

    /// A document that is not its kind's is refused with its name and the field at fault.
    @Test func aBrokenDocumentIsAClearError() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let dir = try write(.flashcards, ["deck.json": Data("{\"cards\": 3}".utf8)])
        do {
            _ = try BundlePreview.write(bundle: dir, to: root.appendingPathComponent("site"))
            Issue.record("a broken deck was previewed")
        } catch {
            #expect("\(error)".hasPrefix("the bundle's deck.json is not a flashcards document: "), "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("site").path), "nothing written")
    }

    /// A tagging answer's page shows each answer beside the quote it counted for: by the call's
    /// numbering when curation.json lists what each call asked (a shipped quote, a rejected one
    /// in full, an untagged one; an opening that begins another quote, a number past the list and
    /// a second answer for one quotation said not to count), else by the opening's words among
    /// the batch's quotes, curly and straight apostrophes alike, a later round looking in its
    /// batch.
    @Test func aTaggingAnswerIsShownBesideTheQuotesItCountedFor() throws {
        let kept = QuoteDatabase.Quote(
            id: "q10000000000a", text: "I didn't fail the test. I just found 100 ways to do it wrong.", author: "Benjamin Franklin", source: "",
            emotionTags: ["Reflection"], category: "Psychology")
        let other = QuoteDatabase.Quote(
            id: "q10000000000c", text: "Life is what we make it, always has been, always will be.", author: "Grandma Moses", source: "",
            emotionTags: ["Hope"], category: "Psychology")
        let content = QuotesBundle.Content(database: QuoteDatabase(quotes: [kept, other]), templates: nil)
        let rejected = QuoteTagging.Rejection(id: "q10000000000b", reason: "not-encouraging", text: "A poorly implemented feature hurts more than not having it.", author: "Noah Everett")
        let answer =
            #"{"quotes":[{"n":1,"opening":"I didn’t fail the"},{"n":2,"opening":"A poorly implemented"},{"n":3,"opening":"A poorly implemented"},"#
            + #"{"n":9,"opening":"Nothing here"},{"n":1,"opening":"I didn't fail"}]}"#
        let round2 = #"{"quotes":[{"n":1,"opening":"Life is what we make"}]}"#
        let items = [("tag/b10000000000a", answer), ("tag/b10000000000a/round-2", round2)]
        func shown(_ tagging: QuoteTagging) -> [String: String] {
            QuotesBundle.reviewContexts(content, items: items, tagging: tagging).mapValues { $0.parts.map(\.text).joined() }
        }
        let numbered = shown(
            QuoteTagging(
                rejections: [rejected], untagged: ["q10000000000d": ["no answer"]],
                asked: ["tag/b10000000000a": ["q10000000000a", "q10000000000b", "q10000000000d"], "tag/b10000000000a/round-2": ["q10000000000c"]]))
        let first = try #require(numbered["tag/b10000000000a"])
        #expect(first.contains("1. “I didn't fail the test. I just found 100 ways to do it wrong.” — Benjamin Franklin\n   ships tagged Reflection · Psychology"), "\(first)")
        #expect(first.contains("2. “A poorly implemented feature hurts more than not having it.” — Noah Everett\n   left out: rejected (not-encouraging)"), "\(first)")
        #expect(first.contains("3. quote q10000000000d\n   left out: untagged after every round (no answer)"), "\(first)")
        #expect(first.contains("9. “Nothing here …” — names no quotation of this call: not taken"), "\(first)")
        #expect(first.contains("1. a second answer for this quotation (“I didn't fail …”): not taken"), "\(first)")
        #expect(numbered["tag/b10000000000a/round-2"]?.contains("1. “Life is what we make it, always has been, always will be.” — Grandma Moses") == true)

        // A bundle written before curation.json listed the calls: found by opening words.
        let byOpening = shown(QuoteTagging(rejections: [rejected]))
        let old = try #require(byOpening["tag/b10000000000a"])
        #expect(old.contains("1. “I didn't fail the test."), "\(old)")
        #expect(old.contains("2. “A poorly implemented feature") && old.contains("left out: rejected (not-encouraging)"), "\(old)")
        #expect(old.contains("9. “Nothing here …” — not in the database (left out)"), "\(old)")
        #expect(byOpening["tag/b10000000000a/round-2"]?.contains("— Grandma Moses") == true, "a later round looks in its own batch")
    }
}
