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
            "wrong_answers": .array(wrong.map { ["text": .string($0), "feedback": .string("No: the text does not say \($0).")] }),
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
        // The blind solver answers with the key unless a test scripts it otherwise.
        try JSONValue.object(["answers": .array(answers + [Self.solvedWithTheKey])]).canonicalText.write(to: script, atomically: true, encoding: .utf8)
        let provider = try RecordingProvider(script: script)
        let runner = JobRunner(
            spec: try load(yaml), presets: try Workspace.presets(),
            exchanger: Exchanger(providerKind: "scripted", provider: provider, cache: try ExchangeCache(root: ws.cacheRoot), mode: .record),
            renderer: MarkdownDocumentRenderer(), events: SilentEventSink())
        return (try await runner.run(options: JobRunner.Options(outputRoot: ws.output)), provider, ws)
    }

    /// The text of every request the provider received, in order.
    /// A blind solver that picks the keyed option (`{{key}}`, a variable only scripts see).
    static let solvedWithTheKey: JSONValue = ["stage": "blind-solve", "json": ["work": "The text says so.", "answer": "{{key}}"]]

    /// The texts of the requests for items (blind solves left out).
    static func sentTexts(_ provider: RecordingProvider) -> [String] {
        provider.requests.filter { $0.0.stage != BlindSolver.stage }.map { $0.1.messages.map(\.content).joined(separator: "\n") }
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
                            [
                                "Rivers always flood the cities built beside them", "Deltas are made of ice carried down from the hills",
                                "Only the Nile has tributaries that join it",
                            ],
                            quote: "Rivers have shaped where people live"),
                    ]
                ]),
        ]
        let url = ws.root.appendingPathComponent("exam-script.json")
        try JSONValue.object(["answers": .array(answers + [Self.solvedWithTheKey])]).canonicalText.write(to: url, atomically: true, encoding: .utf8)
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
        #expect(
            exam.items.map(\.id) == [
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
        #expect(report.manifest.kind == .exam)
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

    /// The exam above without its facts category and its form: one passage's reading set.
    static let readingOnly =
        spec
        .replacingOccurrences(
            of: "      - category: facts\n        instructions: A question about a fact stated in the text.\n        easy: 2\n        medium: 1\n", with: ""
        )
        .replacingOccurrences(
            of: "forms:\n  - { id: form-a, title: Form A, duration_minutes: 10, sections: [{ section: verbal, count: 4 }] }\n", with: "")

    /// A source quote with a lead-in ("The passage states that …") keeps the source's words; one
    /// re-typed from memory is refused, and the repair names the passage's sentence closest to it;
    /// a sentence copied with one word wrong cites the sentence as the passage has it, unless the
    /// item was built on the wrong word.
    @Test func aQuoteLeadInIsDroppedAndARetypedQuoteIsPointedAtItsSentence() async throws {
        let spec = Self.readingOnly
        #expect(!spec.contains("facts") && !spec.contains("forms"))
        let wetlands = Self.question(
            "According to the passage, what do wetlands and forests do in a flood?", "They slow the water down",
            ["They make the water rise", "They drain the basin", "They build deltas"],
            quote: "The passage states that \"Wetlands and forests slow the water down\"")
        func towns(_ quote: String) -> JSONValue {
            Self.question(
                "Why did early farming towns grow along the Nile?", "The floods left rich soil on the fields",
                ["The river was frozen in winter", "There were no floods", "The hills were higher there"], quote: quote)
        }
        let (result, provider, ws) = try await Self.runScripted(
            spec,
            answers: [
                Self.answer("reading-set/p01", attempt: 1, ["questions": [wetlands, towns("Early farming towns grew along the Nile because floods left good soil")]]),
                Self.answer("reading-set/p01", attempt: 2, ["questions": [wetlands, towns("the floods left rich soil on the fields every year")]]),
            ])
        defer { _ = ws }
        #expect(result.status == .complete, "\(result.failures)")
        let repair = try #require(Self.sentTexts(provider).dropFirst().first)
        #expect(
            repair.contains(
                "does not occur in the source text; copy it character for character from the text you were given. Its closest sentence is "
                    + "'Early farming towns grew along the Nile, the Tigris and the Euphrates because the floods left rich soil on the fields every year.'"))
        // The first question passed on the first attempt: its lead-in is not an error.
        #expect(!repair.contains("questions[1]"))
        // A whole sentence of the passage copied with one word wrong cites the sentence itself,
        // unless the wrong word is in the question or its options: the first answer keyed it.
        let misTyped = "Early farming towns grew along the Nile, the Tigris and the Euphrates because the floods left good soil on the fields every year."
        let misread = Self.question(
            "Why did early farming towns grow along the Nile?", "The floods left good soil on the fields",
            ["The river was frozen in winter", "There were no floods", "The hills were higher there"], quote: misTyped)
        let (copied, copiedProvider, copiedWS) = try await Self.runScripted(
            spec,
            answers: [
                Self.answer("reading-set/p01", attempt: 1, ["questions": [wetlands, misread]]),
                Self.answer("reading-set/p01", attempt: 2, ["questions": [wetlands, towns(misTyped)]]),
            ])
        defer { _ = copiedWS }
        #expect(copied.status == .complete, "\(copied.failures)")
        let refused = try #require(Self.sentTexts(copiedProvider).dropFirst().first)
        #expect(refused.contains("questions[2]: 'source_quote' ('Early farming towns grew along the Nile, the Tigris and the Euphrates because the floods left good soil"))
        if case .written(let dir)? = copied.bundle {
            let bank = try JSONDecoder().decode(ExamBank.self, from: try #require(Workspace.files(dir)["exam.json"]))
            #expect(
                bank.items.last?.sources.map(\.quote)
                    == ["Early farming towns grew along the Nile, the Tigris and the Euphrates because the floods left rich soil on the fields every year."])
        }
        guard case .written(let dir)? = result.bundle else { return }
        let exam = try JSONDecoder().decode(ExamBank.self, from: try #require(Workspace.files(dir)["exam.json"]))
        #expect(exam.items.first?.sources.map(\.quote) == ["Wetlands and forests slow the water down"])
        #expect(exam.items.first?.generation.attempts == 2)
    }

    /// A reading set keeps each question that passed: an answer whose other question fails has
    /// the kept one put in its place, and a kept question a later error names (here the blind
    /// solver's) is forgotten.
    @Test func aReadingSetKeepsTheQuestionsThatPassedAcrossAttempts() async throws {
        let spec = Self.readingOnly + "\nrepair: { max_attempts: 4 }\n"
        func wetlands(_ prompt: String, quote: String = "Wetlands and forests slow the water down") -> JSONValue {
            Self.question(prompt, "They slow the water down", ["They make the water rise", "They drain the basin", "They build deltas"], quote: quote)
        }
        func towns(_ quote: String) -> JSONValue {
            Self.question(
                "Why did early farming towns grow along the Nile?", "The floods left rich soil on the fields",
                ["The river was frozen in winter", "There were no floods", "The hills were higher there"], quote: quote)
        }
        let retyped = "Wetlands are good for rivers in floods"
        let good = "the floods left rich soil on the fields every year"
        let bad = "Farming towns liked the Nile"
        let item = "reading-set/p01"
        let (result, provider, ws) = try await Self.runScripted(
            spec,
            answers: [
                Self.answer(item, attempt: 1, ["questions": [wetlands("What do wetlands do in a flood, according to the passage?"), towns(bad)]]),
                // Its first question fails: the first attempt's is put in, and the solver disputes it.
                Self.answer(item, attempt: 2, ["questions": [wetlands("What do wetlands do?", quote: retyped), towns(good)]]),
                [
                    "stage": .string(BlindSolver.stage), "item": .string(BlindSolver.itemID(of: item)), "attempt": 2, "times": 1,
                    "json": ["work": "Guess.", "answer": "They make the water rise"],
                ],
                // Both fail: the disputed question is not put in again; the second is.
                Self.answer(item, attempt: 3, ["questions": [wetlands("What do wetlands do?", quote: retyped), towns(bad)]]),
                Self.answer(item, attempt: 4, ["questions": [wetlands("In a flood, what do the wetlands and forests do?"), towns(bad)]]),
            ])
        defer { _ = ws }
        #expect(result.status == .complete, "\(result.failures)")
        let asked = provider.requests.filter { $0.0.stage == "reading-set" }
        #expect(asked.map(\.0.attempt) == [1, 2, 3, 4])
        let third = try #require(asked.first { $0.0.attempt == 3 }?.1.messages.last?.content)
        #expect(third.contains("questions[1]: a solver who saw the question and its options without the key chose 'They make the water rise'"), "\(third)")
        // The third answer's second question was refused, and the kept one stood in for it.
        let rejections = try #require(result.reports[item]?.rejections)
        #expect(rejections.count == 3 && rejections[2].count == 1 && rejections[2][0].message.hasPrefix("questions[1]: 'source_quote'"), "\(rejections)")
        guard case .written(let dir)? = result.bundle else { Issue.record("no bundle"); return }
        let exam = try JSONDecoder().decode(ExamBank.self, from: try #require(Workspace.files(dir)["exam.json"]))
        #expect(exam.items.map(\.prompt) == ["In a flood, what do the wetlands and forests do?", "Why did early farming towns grow along the Nile?"])
        #expect(exam.items.last?.sources.map(\.quote) == [good])
        // A reviewer reads the set as it ships: the kept second question, not the last answer's.
        let seal = try ReviewSeal.read(try #require(Workspace.files(dir)[ReviewSeal.fileName]))
        let reviewed = AnswerFields.fields(of: try #require(seal.items.first { $0.id == item }?.answer))
        #expect(reviewed.filter { $0.path.hasSuffix("].prompt") }.map(\.text) == exam.items.map(\.prompt), "\(reviewed)")
        #expect(reviewed.first { $0.path == "questions[1].source_quote" }?.text == good)
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
        // A reviewer reads the stem the candidate does, its key blanked; the answer reads back to the same item.
        let seal = try ReviewSeal.read(try #require(Workspace.files(dir)[ReviewSeal.fileName]))
        let reviewed = try #require(seal.items.first { $0.id == id }?.answer)
        #expect(AnswerFields.fields(of: reviewed).first { $0.path == "prompt" }?.text == item.prompt, "\(reviewed)")
        #expect(ReviewFile.contentHash(reviewed) == seal.items.first { $0.id == id }?.content)
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
    /// A vocabulary item's prompt names the word to ask about (`ExamRules.vocabularyWord`), or
    /// leaves it to the model when the sentence has none.
    @Test func theVocabularyRuleNamesTheWordToAskAbout() {
        let sentence = "Depending on the convention used, the number of continents can vary from five to seven."
        let rule = ExamItemStage.formatRule(.vocabulary, language: "en", focus: sentence)
        #expect(rule.contains("The prompt is: In the sentence \"\(sentence)\", what does 'convention' mean?"))
        #expect(ExamItemStage.formatRule(.vocabulary, language: "en", focus: "It is 72 km long.").contains("what does '<one word of it>' mean?"))
    }

    /// A completion item's prompt gives the stem, its blank where Lectern chose the word.
    @Test func theCompletionRuleGivesTheBlankedStem() throws {
        let sentence = "a wide equatorial band of hot and humid tropical climates is bordered north and south by subtropical temperate zones"
        let rule = ExamItemStage.formatRule(.completion, language: "en", focus: sentence)
        #expect(rule.contains("\"a wide equatorial band of hot and humid tropical climates is bordered north and south by ____ temperate zones\""))
        #expect(rule.contains("The correct answer is \"subtropical\""))
        // The whole word, not a part of a longer one.
        let parts = try #require(ExamItemStage.blanked("The Bigcontinent team crossed the continent.", language: "en"))
        #expect(parts.word == "continent" && parts.stem == "The Bigcontinent team crossed the ____.")
        #expect(ExamItemStage.blanked("It is 72 km long.", language: "en") == nil)
        #expect(ExamItemStage.formatRule(.completion, language: "en", focus: "It is 72 km long.").contains("Copy that sentence into"))
    }

    @Test func focusSentencesSplitAtSentenceEndsAndClausesNotAbbreviations() {
        let text = """
            # Heading that is long enough to be a sentence if headings counted
            The conquests of Alexander the Great (r. 336-323 B.C.) fostered the spread of Greek culture. Short one.
            They ushered in what is today referred to as the Hellenistic Period (323-31 B.C.). Sightseers came.
            Katabatic (gravity-driven) winds blow coastward from the high interior; frequent blizzards form near the foot of the plateau
            """
        #expect(
            ExamRules.sentences(text) == [
                "The conquests of Alexander the Great (r. 336-323 B.C.) fostered the spread of Greek culture.",
                "They ushered in what is today referred to as the Hellenistic Period (323-31 B.C.).",
                "Katabatic (gravity-driven) winds blow coastward from the high interior;",
                "frequent blizzards form near the foot of the plateau",
            ])
        // A sentence an item is built on leaves out the source's field label (the prompt asks for
        // it word for word, and a stem opening with the label is refused).
        let labelled = "Climate: a wide equatorial band of hot and humid tropical climates is bordered north and south"
        #expect(ExamRules.withoutFieldLabel(labelled) == "a wide equatorial band of hot and humid tropical climates is bordered north and south")
        #expect(ExamRules.withoutFieldLabel("Climate:") == "Climate:")
        #expect(ExamRules.withoutFieldLabel("The Nile is long.") == "The Nile is long.")
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

/// The stems a re-asked item may not repeat: what the bank kept, and what a reading set's own
/// earlier questions add.
struct AvoidedStemsTests {
    @Test func aStemInOtherWordsIsFoundAndNamedAsTheBankHasIt() {
        var avoided = ExamWork.AvoidedStems(["What is the capital of France? Paris Lyon Nice Lille", "Which river is the longest? Nile Amazon Yangtze Volga"])
        #expect(avoided.repeated(by: "What's the capital city of France? Paris Lyon Nice Lille") == "What is the capital of France? Paris Lyon Nice Lille")
        #expect(avoided.repeated(by: "Why do rivers meander? Slope Erosion Rain Wind") == nil)
        avoided.insert("Why do rivers meander? Slope Erosion Rain Wind")
        #expect(avoided.repeated(by: "Why do rivers meander? Slope Erosion Rain Wind") == "Why do rivers meander? Slope Erosion Rain Wind")
        #expect(ExamWork.AvoidedStems().repeated(by: "anything at all") == nil)
    }
}
