import Foundation
import LecternBundle
import LecternCore
import LecternLLM
import Testing

@testable import LecternPipeline

/// Whole exam runs through the real runner, engine, cache and bundle writer, answered by a
/// scripted provider: grounding repaired, a duplicate re-asked, passages and forms assembled.
struct ExamRunTests {
    static let spec = """
        kind: exam
        id: rivers-exam
        description: A short exam on rivers.
        corpus: [exam-corpus/rivers.md]
        blueprint:
          - section: verbal
            title: Reading
            categories:
              - category: facts
                instructions: A question about a fact stated in the text.
                easy: 2
                medium: 1
              - category: reading
                format: reading
                instructions: Questions on the passage.
                medium: 2
                questions_per_passage: { min: 2, max: 2 }
        forms:
          - { id: form-a, title: Form A, duration_minutes: 10, sections: [{ section: verbal, count: 4 }] }
        model: { provider: scripted, script: unused.json }
        """

    static func load(_ yaml: String, language: String? = nil) throws -> JobSpec {
        var text = yaml
        if let language { text = "language: \(language)\n" + text }
        return try SpecLoader(presets: try Workspace.presets()).load(
            YAMLSource(file: "exam.yaml", data: Data(text.utf8)), baseDirectory: Workspace.fixtures)
    }

    static func question(_ prompt: String, _ correct: String, _ wrong: [String], quote: String) -> JSONValue {
        [
            "prompt": .string(prompt), "correct_answer": ["text": .string(correct), "feedback": "Yes: the text says so."],
            "wrong_answers": .array(wrong.map { ["text": .string($0), "feedback": "No: the text says otherwise."] }),
            "explanation": "Find the sentence of the text that names it, and match its words to an option.", "source_quote": .string(quote),
        ]
    }

    static let tributary = question(
        "What is a stream that joins a larger river called?", "A tributary", ["A delta", "A meander", "A basin"],
        quote: "each stream that joins a larger river is called a tributary")

    static func answer(_ item: String, attempt: Int? = nil, _ json: JSONValue) -> JSONValue {
        var object: [String: JSONValue] = ["item": .string(item), "json": json]
        if let attempt { object["attempt"] = .number(Double(attempt)) }
        return .object(object)
    }

    /// Runs `yaml` through the real runner with `answers` as the scripted provider's script; the
    /// workspace is returned so that its files outlive the call.
    static func runScripted(_ yaml: String, answers: [JSONValue]) async throws -> (JobRunner.Result, RecordingProvider, Workspace) {
        let ws = try Workspace()
        let script = ws.root.appendingPathComponent("script.json")
        try JSONValue.object(["answers": .array(answers)]).canonicalText.write(to: script, atomically: true, encoding: .utf8)
        let provider = try RecordingProvider(script: script)
        let runner = JobRunner(
            spec: try load(yaml), presets: try Workspace.presets(),
            exchanger: Exchanger(providerKind: "scripted", provider: provider, cache: try ExchangeCache(root: ws.cacheRoot), mode: .record),
            renderer: MarkdownDocumentRenderer(), events: SilentEventSink())
        return (try await runner.run(options: JobRunner.Options(outputRoot: ws.output)), provider, ws)
    }

    /// The text of every request the provider received, in order.
    static func sentTexts(_ provider: RecordingProvider) -> [String] {
        provider.requests.map { $0.1.messages.map(\.content).joined(separator: "\n") }
    }

    static func script(_ ws: Workspace) throws -> URL {
        let answers: [JSONValue] = [
            // First try: a quote that is not in the text (grounding fails); second try: grounded.
            answer(
                "exam-item/verbal/facts/easy-01", attempt: 1,
                question(
                    "What is a stream that joins a larger river called?", "A tributary", ["A delta", "A meander", "A basin"],
                    quote: "tributaries always flow uphill at night")),
            answer("exam-item/verbal/facts/easy-01", attempt: 2, tributary),
            answer(
                "exam-item/verbal/facts/easy-02",
                question(
                    "What does a river build where it meets the sea?", "A delta", ["A glacier", "A spring", "A tributary"],
                    quote: "Where the river meets the sea it slows down and drops the sand and mud it carried, building a delta")),
            // The same question again: valid alone, re-asked by the bank check.
            answer("exam-item/verbal/facts/medium-01", tributary),
            answer(
                "exam-item-retry/exam-item/verbal/facts/medium-01",
                question(
                    "Why did early farming towns grow along the Nile?", "The floods left rich soil on the fields",
                    ["The river was frozen in winter", "There were no floods", "The hills were higher there"],
                    quote: "the floods left rich soil on the fields every year")),
            answer(
                "reading-set/p01",
                [
                    "questions": [
                        question(
                            "According to the passage, what do wetlands and forests do in a flood?", "They slow the water down",
                            ["They make the water rise", "They drain the basin", "They build deltas"],
                            quote: "Wetlands and forests slow the water down"),
                        question(
                            "What is the main idea of the passage?", "Rivers shape the land and the lives of people near them",
                            ["Rivers always flood cities", "Deltas are made of ice", "Only the Nile has tributaries"],
                            quote: "Rivers have shaped where people live"),
                    ]
                ]),
        ]
        let url = ws.root.appendingPathComponent("exam-script.json")
        try JSONValue.object(["answers": .array(answers)]).canonicalText.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test func anExamBankWithGroundingRepairedADuplicateReaskedAndAForm() async throws {
        let ws = try Workspace()
        let spec = try Self.load(Self.spec)
        let provider = try RecordingProvider(script: Self.script(ws))
        let cache = try ExchangeCache(root: ws.cacheRoot)
        let runner = JobRunner(
            spec: spec, presets: try Workspace.presets(), exchanger: Exchanger(providerKind: "scripted", provider: provider, cache: cache, mode: .record),
            renderer: MarkdownDocumentRenderer(), events: SilentEventSink())
        let result = try await runner.run(options: JobRunner.Options(outputRoot: ws.output))
        #expect(result.status == .complete, "\(result.failures)")
        guard case .written(let dir)? = result.bundle else {
            Issue.record("no bundle: \(result.failures)")
            return
        }
        let files = Workspace.files(dir)
        let exam = try JSONDecoder().decode(ExamBank.self, from: try #require(files["exam.json"]))
        #expect(exam.items.map(\.id) == [
            "verbal/facts/easy-01", "verbal/facts/easy-02", "verbal/facts/medium-01", "verbal/reading/p01-q1", "verbal/reading/p01-q2",
        ])
        let byID = Dictionary(uniqueKeysWithValues: exam.items.map { ($0.id, $0) })
        // Grounding: the first answer's quote was not in the text, so it was asked again.
        #expect(byID["verbal/facts/easy-01"]?.generation.attempts == 2)
        #expect(byID["verbal/facts/easy-01"]?.sources == [SourceQuote(document: "exam-corpus/rivers.md", quote: "each stream that joins a larger river is called a tributary")])
        // The duplicate was replaced by the re-asked item.
        #expect(byID["verbal/facts/medium-01"]?.prompt == "Why did early farming towns grow along the Nile?")
        #expect(provider.calledItems.contains("exam-item-retry/exam-item/verbal/facts/medium-01"))
        #expect(exam.items.allSatisfy { $0.options.count == 4 && $0.options.filter(\.correct).count == 1 && $0.promptXHTML != nil })
        #expect(exam.items.allSatisfy { $0.generation.prompt.hasPrefix("exam-item@") || $0.generation.prompt.hasPrefix("reading-set@") })
        // The passage is stored once and referenced.
        #expect(exam.passages.map(\.id) == ["p01"])
        #expect(byID["verbal/reading/p01-q1"]?.passage == "p01")
        #expect(exam.passages.first?.xhtmlPath == "passages/p01.xhtml" && files["passages/p01.xhtml"] != nil)
        // The form takes four items, keeps the passage's questions together, and has its answer key.
        let form = try #require(exam.forms.first)
        #expect(form.sections.first?.items.count == 4)
        let paper = String(decoding: try #require(files["forms/form-a.md"]), as: UTF8.self)
        #expect(paper.contains("## Answer key") && paper.contains("Read the passage"))
        #expect(files["forms/form-a.xhtml"] != nil && files["lectern.css"] != nil)
        #expect(exam.documents.map(\.id) == ["exam-corpus/rivers.md"])
        let report = try BundleVerifier.verify(dir)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.manifest.kind == "exam")
        #expect(result.entryDocument == "forms/form-a.xhtml")
    }

    @Test func arabicLabelsAndRightToLeftDocuments() async throws {
        let ws = try Workspace()
        let spec = try Self.load(Self.spec, language: "ar")
        let provider = try RecordingProvider(script: Self.script(ws))
        let cache = try ExchangeCache(root: ws.cacheRoot)
        let runner = JobRunner(
            spec: spec, presets: try Workspace.presets(), exchanger: Exchanger(providerKind: "scripted", provider: provider, cache: cache, mode: .record),
            renderer: MarkdownDocumentRenderer(), events: SilentEventSink())
        let result = try await runner.run(options: JobRunner.Options(outputRoot: ws.output))
        guard case .written(let dir)? = result.bundle else {
            Issue.record("no bundle: \(result.failures)")
            return
        }
        let files = Workspace.files(dir)
        let exam = try JSONDecoder().decode(ExamBank.self, from: try #require(files["exam.json"]))
        #expect(Set(exam.items.map(\.difficultyLabel)) == ["سهل", "متوسط"])
        let paper = String(decoding: try #require(files["forms/form-a.xhtml"]), as: UTF8.self)
        #expect(paper.contains("dir=\"rtl\"") && paper.contains("مفتاح الإجابات"))
    }

    @Test func aBlueprintTheCorpusCannotServeIsASpecErrorNamingTheCell() throws {
        let yaml = Self.spec.replacingOccurrences(of: "medium: 2\n        questions_per_passage", with: "medium: 10\n        questions_per_passage")
        #expect {
            _ = try Self.load(yaml)
        } throws: { error in
            let text = "\(error)"
            return text.contains("verbal/reading") && text.contains("exam.yaml:")
        }
        let missing = Self.spec.replacingOccurrences(of: "exam-corpus/rivers.md", with: "exam-corpus/nowhere.md")
        #expect {
            _ = try Self.load(missing)
        } throws: { error in "\(error)".contains("nowhere.md") }
    }

    /// A spec of one item of one category over the rivers corpus, with a one-item form.
    static func oneItemSpec(id: String, section: String, category: String, format: String, difficulty: String, instructions: String) -> String {
        """
        kind: exam
        id: \(id)
        description: A short exam on rivers.
        corpus: [exam-corpus/rivers.md]
        blueprint:
          - section: \(section)
            categories:
              - category: \(category)
                format: \(format)
                instructions: \(instructions)
                \(difficulty): 1
        forms:
          - { id: form-a, title: Form A, duration_minutes: 5, sections: [{ section: \(section), count: 1 }] }
        model: { provider: scripted, script: unused.json }
        """
    }

    /// A sentence-completion item is held to the source: its stem needs one blank, and the stem
    /// filled with the key must give the source's words (and filled with a wrong option must not).
    @Test func sentenceCompletionKeysAreCheckedAgainstTheSource() async throws {
        let yaml = Self.oneItemSpec(
            id: "rivers-completion", section: "verbal", category: "completion", format: "completion", difficulty: "easy",
            instructions: "A sentence of the text with one word blanked.")
        let quote = "A river begins at its source, often a spring or a melting glacier high in the hills."
        let id = "exam-item/verbal/completion/easy-01"
        let answers: [JSONValue] = [
            // No blank, and the key is not in the stem to be blanked.
            Self.answer(id, attempt: 1, Self.question("Where does a river begin, often a spring or a glacier?", "its source", ["mouth", "delta", "bank"], quote: quote)),
            // The key swapped: the sentence with "mouth" is not the text's, and "source" fits it.
            Self.answer(
                id, attempt: 2,
                Self.question("Complete the sentence: \"A river begins at its ____, often a spring or a melting glacier high in the hills.\"", "mouth", ["source", "delta", "bank"], quote: quote)),
            // The sentence copied without its blank: the key, found once in it, is blanked.
            Self.answer(
                id, attempt: 3,
                Self.question("Complete the sentence: \"A river begins at its source, often a spring or a melting glacier high in the hills.\"", "source", ["mouth", "delta", "bank"], quote: quote)),
        ]
        let (result, provider, ws) = try await Self.runScripted(yaml, answers: answers)
        defer { _ = ws }
        #expect(result.status == .complete, "\(result.failures)")
        guard case .written(let dir)? = result.bundle else { return }
        let exam = try JSONDecoder().decode(ExamBank.self, from: try #require(Workspace.files(dir)["exam.json"]))
        let item = try #require(exam.items.first)
        #expect(item.generation.attempts == 3)
        #expect(item.options.first(where: \.correct)?.text == "source")
        #expect(item.prompt == "Complete the sentence: \"A river begins at its ____, often a spring or a melting glacier high in the hills.\"")
        // The key was found in the sentence the item was built on, which becomes its source quote.
        #expect(item.sources == [SourceQuote(document: "exam-corpus/rivers.md", quote: quote)])
        let sent = Self.sentTexts(provider)
        #expect(sent.count == 3)
        #expect(sent.first?.contains("replaced by \"____\"") == true, "the prompt asks for the blank")
        #expect(sent.dropFirst().first?.contains("the stem has no blank") == true)
        let third = sent.dropFirst(2).first ?? ""
        #expect(third.contains("reads 'A river begins at its mouth, often a spring or a melting glacier high in the hills.'") && third.contains("is not what the source text says"))
        #expect(third.contains("('source') also completes the sentence"))
    }

    /// A wrong-word (contextual-error) item: its options are words of its sentence, and the
    /// sentence is the source's with exactly the key word changed.
    @Test func wrongWordKeysAreCheckedAgainstTheSource() async throws {
        let yaml = Self.oneItemSpec(
            id: "rivers-wrong-word", section: "verbal", category: "contextual-error", format: "wrong-word", difficulty: "medium",
            instructions: "A sentence of the text with one word changed; which word is wrong?")
        let quote = "Near the source the water moves fast and cuts deep, narrow valleys."
        let id = "exam-item/verbal/contextual-error/medium-01"
        let answers: [JSONValue] = [
            // The sentence unchanged: "fast" is not wrong in it.
            Self.answer(id, attempt: 1, Self.question("Which word is wrong in context: \(quote)", "fast", ["water", "deep", "valleys"], quote: quote)),
            // An option that is not a word of the sentence.
            Self.answer(
                id, attempt: 2,
                Self.question(
                    "Which word is wrong in context: Near the source the water moves slowly and cuts deep, narrow valleys.", "slowly",
                    ["water", "deep", "rivers"], quote: quote)),
            Self.answer(
                id, attempt: 3,
                Self.question(
                    "Which word is wrong in context: Near the source the water moves slowly and cuts deep, narrow valleys.", "slowly",
                    ["water", "deep", "valleys"], quote: quote)),
        ]
        let (result, provider, ws) = try await Self.runScripted(yaml, answers: answers)
        defer { _ = ws }
        #expect(result.status == .complete, "\(result.failures)")
        guard case .written(let dir)? = result.bundle else { return }
        let exam = try JSONDecoder().decode(ExamBank.self, from: try #require(Workspace.files(dir)["exam.json"]))
        #expect(exam.items.first?.generation.attempts == 3)
        let sent = Self.sentTexts(provider)
        #expect(sent.first?.contains("change exactly one of its words") == true)
        #expect(sent.dropFirst().first?.contains("the stem's sentence is the source's sentence unchanged, so 'fast' is not wrong in it") == true)
        #expect(sent.dropFirst(2).first?.contains("('rivers') is not a word of the stem's sentence") == true)
    }

    /// The sentences an item can be pointed at: abbreviations do not end one, semicolons do.
    @Test func focusSentencesSplitAtSentenceEndsAndClausesNotAbbreviations() {
        let text = """
            # Heading that is long enough to be a sentence if headings counted
            The conquests of Alexander the Great (r. 336-323 B.C.) fostered the spread of Greek culture. Short one.
            Katabatic (gravity-driven) winds blow coastward from the high interior; frequent blizzards form near the foot of the plateau
            """
        #expect(ExamRules.sentences(text) == [
            "The conquests of Alexander the Great (r. 336-323 B.C.) fostered the spread of Greek culture.",
            "Katabatic (gravity-driven) winds blow coastward from the high interior;",
            "frequent blizzards form near the foot of the plateau",
        ])
    }

    /// A fact item is shown without its source: a stem that speaks of "the text" is re-asked, and so
    /// is one whose wrong option the text states word for word (it would be true too).
    @Test func factItemsStandOnTheirOwnAndHaveOneTrueOption() async throws {
        let yaml = Self.oneItemSpec(
            id: "rivers-facts", section: "facts", category: "stated-facts", format: "fact", difficulty: "easy",
            instructions: "A fact stated in the text.")
        let quote = "each stream that joins a larger river is called a tributary"
        let id = "exam-item/facts/stated-facts/easy-01"
        let answers: [JSONValue] = [
            Self.answer(id, attempt: 1, Self.question("According to the text, what is a stream that joins a larger river called?", "A tributary", ["A delta", "A meander", "A basin"], quote: quote)),
            Self.answer(
                id, attempt: 2,
                Self.question("What is a stream that joins a larger river called?", "A tributary", ["A delta", "A meander", "the slope is gentler"], quote: quote)),
            Self.answer(id, attempt: 3, Self.tributary),
        ]
        let (result, provider, ws) = try await Self.runScripted(yaml, answers: answers)
        defer { _ = ws }
        #expect(result.status == .complete, "\(result.failures)")
        let sent = Self.sentTexts(provider)
        #expect(sent.count == 3)
        #expect(sent.dropFirst().first?.contains("the stem speaks of the source text, which the candidate does not see") == true)
        #expect(sent.dropFirst(2).first?.contains("('the slope is gentler') is stated in the source text word for word, so it is true too") == true)
    }
}
