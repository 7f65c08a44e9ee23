import Foundation
import LecternBundle
import LecternCore
import LecternLLM
import Testing

@testable import LecternPipeline

/// The `flashcards` kind (issue 15): an imported set enriched and never rewritten, a written
/// deck, the study modes' derivations, and the import's reports, through the real runner with a
/// scripted model.
struct DeckRunTests {
    /// An Anki-style export: comment lines, a header, good rows, and malformed ones.
    static let tsv = """
        #separator:tab
        #html:false
        term\tdefinition
        H\tHydrogen, the lightest element
        He\tHelium, a noble gas used in balloons
        O\tOxygen, the gas we breathe to live
        C\tCarbon, the element at the heart of organic chemistry
        Na\tSodium, a soft metal that reacts with water
        Fe\tIron, the metal of steel and blood

        Atomic number of carbon\t6
        just a term with no tab
        N\t
        H\tHydrogen again
        Cl\tChlorine, a green gas used to clean pools

        """

    static func spec(_ body: String, in ws: Workspace) throws -> JobSpec {
        let yaml = """
            kind: flashcards
            id: chemistry-symbols
            description: Element symbols for beginners in chemistry.
            \(body)
            model: { provider: scripted, script: unused.json }
            """
        return try SpecLoader(presets: try Workspace.presets()).load(YAMLSource(file: "deck.yaml", data: Data(yaml.utf8)), baseDirectory: ws.root)
    }

    @Test func anImportedSetIsEnrichedNeverRewrittenAndItsBadRowsAreReportedByLine() async throws {
        let ws = try Workspace()
        try Self.tsv.write(to: ws.root.appendingPathComponent("symbols.tsv"), atomically: true, encoding: .utf8)
        let spec = try Self.spec("source: symbols.tsv\noptions: 4\npairs: 4", in: ws)
        // Only the numeric card needs written distractors: no other back is a number.
        let answers: [JSONValue] = [
            ["stage": "distractors", "attempt": 1, "json": ["distractors": ["Six", "6", "8"]]],
            ["stage": "distractors", "json": ["distractors": ["8", "12", "4"]]],
        ]
        let provider = try RecordingProvider(script: ws.script(extra: answers))
        let result = try await ws.run(spec, provider: provider)
        #expect(result.status == .complete, "\(result.failures)")
        guard case .written(let dir)? = result.bundle else { throw PipelineError("no bundle: \(result.failures)") }
        let deck = try JSONDecoder().decode(Deck.self, from: try #require(Workspace.files(dir)["deck.json"]))
        #expect(deck.cards.map(\.front) == ["H", "He", "O", "C", "Na", "Fe", "Atomic number of carbon", "Cl"])
        #expect(deck.cards.map(\.line) == [4, 5, 6, 7, 8, 9, 11, 15])
        // Never rewritten: every back is the row's definition.
        #expect(deck.cards.first?.back == "Hydrogen, the lightest element")
        let source = try #require(deck.source)
        #expect(source.rows == 11 && source.imported == 8)
        #expect(source.problems.map(\.line) == [12, 13, 14])
        #expect(source.problems[0].message.contains("one column only") && source.problems[1].message.contains("is empty"))
        #expect(source.problems[2].message.contains("already on line 4"))
        // The quiz: the card's back among distractors; from the deck where they fit.
        for card in deck.cards {
            #expect(card.quiz.options.count == 4 && card.quiz.options[card.quiz.answer] == card.back)
            #expect(Set(card.quiz.options).count == 4)
        }
        let numeric = try #require(deck.cards.first { $0.back == "6" })
        #expect(numeric.quiz.distractors == .generated && Set(numeric.quiz.options) == ["6", "8", "12", "4"])
        #expect(deck.cards.filter { $0.quiz.distractors == .deck }.count == 7)
        // The first written answer restated the right one ("Six", "6"): refused and asked again.
        #expect(provider.calledItems.filter { $0.hasPrefix("distractors/") } == ["distractors/c007", "distractors/c007"])
        // Cloze variants blank a word of the back that the term does not hold.
        let iron = try #require(deck.cards.first { $0.front == "Fe" }?.cloze)
        #expect(iron.text.contains("____") && !iron.text.contains(iron.answer) && iron.answer.count >= 3)
        #expect(numeric.cloze == nil, "a bare number has no word to blank")
        // Matching rounds of 4–6 with no two cards that could swap; every card placed once.
        #expect(deck.matching.allSatisfy { (4...6).contains($0.cards.count) })
        let placed = deck.matching.flatMap(\.cards) + deck.unmatched
        #expect(placed.sorted() == deck.cards.map(\.id).sorted())
        #expect(deck.cards.allSatisfy { $0.review.intervalsDays == [1, 3, 7, 14, 30, 90] && $0.review.mastery == 0 })
        // `lectern check` holds the deck to the same rules: clean as written, a flipped key caught.
        #expect(BankLint.check(deck).flagged.isEmpty, "\(BankLint.check(deck).flagged)")
        var flipped = deck
        flipped.cards[0].quiz.answer = (flipped.cards[0].quiz.answer + 1) % flipped.cards[0].quiz.options.count
        #expect(BankLint.check(flipped).flagged.map(\.id) == [deck.cards[0].id])

        // deck.json against its schema; the export writes the set back, and it imports again.
        let schemaProblems = try Workspace.schemaProblems(dir.appendingPathComponent("deck.json"), schema: "deck.schema.json")
        #expect(schemaProblems == nil, "deck.json against deck.schema.json: \(schemaProblems ?? "")")
        for format in [DeckSpec.Format.tsv, .csv] {
            let exported = try Exporters.export(dir, format: format.rawValue)
            let again = try DeckImport.parse(exported.data, format: format)
            #expect(again.problems.isEmpty && again.rows.map(\.term) == deck.cards.map(\.front) && again.rows.map(\.definition) == deck.cards.map(\.back))
        }
    }

    @Test func twoVersionsOfADeckAreComparedCardByCard() async throws {
        let ws = try Workspace()
        let answers: [JSONValue] = [["stage": "distractors", "json": ["distractors": ["8", "12", "4"]]]]
        var dirs: [URL] = []
        for (version, tsv) in [("1.0.0", Self.tsv), ("1.1.0", Self.tsv.replacingOccurrences(of: "Iron, the metal of steel and blood", with: "Iron, a metal that rusts"))] {
            try tsv.write(to: ws.root.appendingPathComponent("symbols.tsv"), atomically: true, encoding: .utf8)
            let spec = try Self.spec("version: \(version)\nsource: symbols.tsv", in: ws)
            let result = try await ws.run(spec, provider: try RecordingProvider(script: ws.script(extra: answers)))
            guard case .written(let dir)? = result.bundle else { throw PipelineError("no bundle: \(result.failures)") }
            dirs.append(dir)
        }
        let report = try BundleDiff.compare(dirs[0], dirs[1])
        #expect(report.changed.map(\.id).contains("card/c006"), "\(report.summary)")
        #expect(report.added.isEmpty && report.removed.isEmpty)
    }

    @Test func aDeckWrittenFromTheDescriptionIsCheckedBatchByBatch() async throws {
        let ws = try Workspace()
        let spec = try Self.spec("title: Chemistry symbols\ncards: 12", in: ws)
        func cards(_ names: [String]) -> JSONValue {
            ["cards": .array(names.map { ["term": .string($0), "definition": .string("The element whose symbol is \($0), found in many compounds.")] })]
        }
        let first = (1...12).map { "E\($0)" }
        let answers: [JSONValue] = [
            ["item": "cards/batch-01", "json": cards(first)],
            // Batch 2 repeats two terms of batch 1 and writes a question: the spares cannot cover three.
            ["item": "cards/batch-02", "attempt": 1, "json": cards(["E1", "What is E14?", "E2", "E13"])],
            ["item": "cards/batch-02", "json": cards(["E13", "E14", "E1", "E15"])],
            ["stage": "distractors", "json": ["distractors": ["A metal", "A gas", "A salt"]]],
        ]
        let provider = try RecordingProvider(script: ws.script(extra: answers))
        let result = try await ws.run(spec, provider: provider)
        #expect(result.status == .complete, "\(result.failures)")
        guard case .written(let dir)? = result.bundle else { throw PipelineError("no bundle: \(result.failures)") }
        let deck = try JSONDecoder().decode(Deck.self, from: try #require(Workspace.files(dir)["deck.json"]))
        #expect(deck.title == "Chemistry symbols" && deck.source == nil)
        #expect(deck.cards.map(\.front) == first.prefix(10) + ["E13", "E14"])
        #expect(deck.cards.map(\.id) == (1...12).map { String(format: "c%03d", $0) })
        #expect(provider.calledItems.filter { $0 == "cards/batch-02" }.count == 2)
        let repair = provider.requests.filter { $0.0.itemID == "cards/batch-02" && $0.0.attempt == 2 }.flatMap { $0.1.messages.map(\.content) }.joined()
        #expect(repair.contains("the term 'E1' is already in the deck") && repair.contains("is a question"), "\(repair.suffix(600))")
        let batch2 = try #require(provider.requests.first { $0.0.itemID == "cards/batch-02" }?.1.messages.map(\.content).joined())
        #expect(batch2.contains("- E10"), "batch 2 is told the terms batch 1 wrote")
        // Definitions that restate one another cannot share a matching round.
        #expect(deck.matching.isEmpty && deck.unmatched.count == 12)
    }

    @Test func importRulesAndTheStudyModes() throws {
        // CSV with quotes, a line break inside a field, and a header.
        let csv = "front,back\r\n\"Photosynthesis\",\"How plants make sugar, using light\"\r\nOsmosis,\"Water moving across\na membrane\"\r\nIon\r\n"
        let parsed = try DeckImport.parse(Data(csv.utf8), format: .csv)
        #expect(parsed.rows.map(\.term) == ["Photosynthesis", "Osmosis"])
        #expect(parsed.rows.map(\.line) == [2, 3] && parsed.rows[1].definition == "Water moving across\na membrane")
        #expect(parsed.problems.map(\.line) == [5] && parsed.problems[0].message.contains("one column only"))
        // A quote left open swallows the rows after it: the file does not parse, and nothing of it is imported.
        for (text, line) in [(csv + "\"Open,never closed\r\n", 6), ("\"Atom,The smallest\nMolecule,\"Two or more atoms\"\nIon,A charged atom\n", 1)] {
            let error = try #require(throws: DeckImportError.self) { try DeckImport.parse(Data(text.utf8), format: .csv) }
            #expect(error.line == line && error.description.contains("the quote opened at line \(line) is never closed"), "\(error)")
        }
        #expect(throws: DeckImportError.self) { try DeckImport.parse(Data([0xFF, 0xFE, 0x41]), format: .tsv) }
        // The writer quotes for CSV and flattens for TSV.
        let written = DeckImport.write([("a,b", "say \"hi\""), ("tab\there", "x")], format: .csv)
        #expect(String(decoding: written, as: UTF8.self) == "\"a,b\",\"say \"\"hi\"\"\"\r\ntab\there,x\r\n")
        #expect(String(decoding: DeckImport.write([("tab\there", "line\nbreak")], format: .tsv), as: UTF8.self) == "tab here\tline break\n")
        let quoted = DeckImport.write([("\"Hola\" means", "hello, said as \"OH-la\"")], format: .tsv)
        #expect(try DeckImport.parse(quoted, format: .tsv).rows.map { [$0.term, $0.definition] } == [["\"Hola\" means", "hello, said as \"OH-la\""]])

        // Distractors fit: same shape, comparable length, not a restatement.
        #expect(DeckRules.fits("12", distractorOf: "6") && !DeckRules.fits("Carbon", distractorOf: "6") && !DeckRules.fits("1869", distractorOf: "6"))
        #expect(!DeckRules.fits("A soft metal", distractorOf: "Sodium is a soft metal that reacts with water, kept in oil"))
        #expect(!DeckRules.fits("Water expands when it freezes", distractorOf: "When it freezes, water expands"))
        // A quantity (a number with its unit) stands only beside quantities: among definitions it
        // is the one option that is a measurement (chemistry-deck's Avogadro's number, read as a learner).
        let avogadro = "6.022 × 10^23 particles per mole"
        #expect(DeckRules.shape(avogadro) == .quantity && DeckRules.shape("6") == .number && DeckRules.shape("A particle with no charge") == .words)
        #expect(!DeckRules.fits("A particle with no charge in the nucleus of an atom", distractorOf: avogadro))
        #expect(!DeckRules.fits(avogadro, distractorOf: "A negatively charged particle that moves around the nucleus"))
        #expect(!DeckRules.fits("23", distractorOf: avogadro))
        #expect(DeckRules.fits("6.022 × 10^22 particles per mole", distractorOf: avogadro) && DeckRules.fits("3.011 × 10^23 particles per mole", distractorOf: avogadro))
        let backs = DeckBacks(["The smallest unit of an element", "A particle with no charge in the nucleus of an atom", avogadro, "Atoms of one element"])
        #expect(backs.distractors(for: 2, count: 3).isEmpty, "no other quantity in the deck: the model writes them")
        #expect(!backs.distractors(for: 1, count: 3).contains(avogadro))
        let mixed = DeckRules.checkDistractors(["A particle in the nucleus of an atom"], answer: avogadro, term: "Avogadro's number")
        #expect(
            mixed.map(\.message) == [
                "distractors[1] ('A particle in the nucleus of an atom') is words, not a number, and the answer is a number with its unit; write a plausible wrong answer of the same kind"
            ])
        let issues = DeckRules.checkDistractors(["6", "Carbon", "A number bigger than five and smaller than seven"], answer: "6", term: "Atomic number of carbon")
        #expect(issues.count == 3, "\(issues)")
        // Matching: a definition naming another card's term, or saying the same, could swap.
        #expect(DeckRules.couldSwap(("ion", "An atom with a charge"), ("cation", "A positive ion")))
        #expect(!DeckRules.couldSwap(("H", "Hydrogen, the lightest element"), ("Fe", "Iron, the metal of steel")))
        #expect(DeckRules.couldSwap(("Atom", "The smallest unit of an element"), ("Isotope", "Atoms of one element with different numbers of neutrons")))
        // A cloze hides what, not how, when it can.
        let held = try #require(DeckRules.cloze(back: "Two or more atoms held together by chemical bonds", term: "Molecule", usage: [:]))
        #expect(held.answer != "together", "\(held)")
        let rounds = DeckRules.matchingRounds((1...11).map { ("c\($0)", "T\($0)", "Definition number \($0) about topic \($0 * 7)") }, pairs: 5)
        #expect(rounds.rounds.map(\.count) == [6, 5] || rounds.rounds.map(\.count) == [5, 6], "\(rounds)")
        // A cloze never blanks the term's own word.
        let cloze = try #require(DeckRules.cloze(back: "Carbon is the element of organic chemistry", term: "Carbon", usage: DeckBacks(["Carbon is the element of organic chemistry"]).usage))
        #expect(cloze.answer != "Carbon" && cloze.text.contains("____"))
    }

    @Test func deckSpecErrorsSayWhatAndWhere() async throws {
        let ws = try Workspace()
        do {
            _ = try Self.spec("source: missing.tsv\ncards: 10\noptions: 9\npairs: 3", in: ws)
            Issue.record("a bad deck spec was accepted")
        } catch {
            let text = "\(error)"
            #expect(text.contains("the deck file 'missing.tsv' cannot be read"), "\(text)")
            #expect(text.contains("'cards' sets how many cards to write, but the deck is imported"), "\(text)")
            #expect(text.contains("'options' is 9") && text.contains("'pairs' is 3"), "\(text)")
        }
        // A device outside the spec's project, or a directory, is refused before anything reads it.
        for (path, reason) in [("/dev/zero", "outside the spec's project"), (".", "is not a regular file")] {
            do {
                _ = try Self.spec("source: \(path)", in: ws)
                Issue.record("'source: \(path)' was accepted")
            } catch {
                #expect("\(error)".contains(reason), "\(error)")
            }
        }
        // A file with fewer than two usable rows is refused when the spec is read (so by
        // `validate` too), with its lines.
        try "only one\tcard\nbroken row\n".write(to: ws.root.appendingPathComponent("tiny.tsv"), atomically: true, encoding: .utf8)
        do {
            _ = try Self.spec("source: tiny.tsv", in: ws)
            Issue.record("a one-card deck was accepted")
        } catch {
            #expect(error is SpecError, "an unusable set is the author's to fix (exit 2): \(error)")
            #expect("\(error)".contains("1 usable row of 2") && "\(error)".contains("tiny.tsv:2: one column only"), "\(error)")
        }
    }
}
