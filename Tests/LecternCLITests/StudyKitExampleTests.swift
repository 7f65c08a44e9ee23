import Foundation
import LecternBundle
import LecternCore
import LecternLLM
import Testing

/// The study-kit example (pipelines/examples/python-collections.yaml: flashcards, practice sets
/// and narration, recorded on the local model): its cassette replays offline twice to the same
/// bytes, course.json follows its schema, the cards and sets pass their rules again as read from
/// the bundle, the narration is audio of the lecture's length, and the Anki package carries the
/// cards as Anki's own import code reads them.
struct StudyKitExampleTests {
    @Test func pythonCollectionsReplaysOfflineWithItsStudyKit() async throws {
        let repo = CLITests.repository
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-studykit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let (bundle, bundles, _) = try await CLITests.replayExampleTwice("python-collections", in: work)
        #expect(bundles[0] == bundles[1], "the same cassette gives the same bytes, audio included")
        let files = bundles[0]
        let validated = try CLITests.schemaCheck(bundle.appendingPathComponent("course.json").path, schema: "course.schema.json")
        #expect(validated.status == 0, "course.json against course.schema.json: \(validated.stderr)")

        let course = try JSONDecoder().decode(Course.self, from: try #require(files["course.json"]))
        let topics = course.subjects.flatMap(\.topics)
        #expect(topics.count == 2)
        var fronts = Set<String>()
        for topic in topics {
            let lecture = try #require(topic.lecture)
            let markdown = String(decoding: try #require(files[lecture.path]), as: UTF8.self)
            // Cards: 4 terms, a question and a cloze (6 a topic), each passing its rules again.
            let cards = try #require(topic.flashcards)
            #expect(Dictionary(grouping: cards, by: \.kind).mapValues(\.count) == [.term: 4, .question: 1, .cloze: 1])
            let drafts = cards.map { FlashcardRules.Draft(label: $0.id, card: $0) }
            #expect(FlashcardRules.check(drafts, lecture: markdown).isEmpty, "\(FlashcardRules.check(drafts, lecture: markdown))")
            #expect(cards.allSatisfy { fronts.insert(FlashcardRules.frontKey($0)).inserted }, "no card asks what another asks")
            // The practice set: easy, medium, medium, hard; MC, MC, true/false, MC.
            let set = try #require(topic.practice)
            #expect(set.map(\.difficulty) == [.easy, .medium, .medium, .hard])
            #expect(set.map(\.format) == [.multipleChoice, .multipleChoice, .trueFalse, .multipleChoice])
            // Passing its rules again: no error (a warning, such as a long key, is allowed in a course).
            #expect(set.allSatisfy { PracticeRules.check($0).errors.isEmpty }, "\(set.map { PracticeRules.check($0).map(\.message) })")
            let asked = [topic.engagementQuestion?.prompt, topic.bonusQuestion?.prompt].compactMap { $0 }
            for (index, question) in set.enumerated() {
                #expect(PracticeRules.repeated(question.prompt, in: asked + set[..<index].map(\.prompt)) == nil, "\(question.id) repeats")
            }
            // Narration: the file's length, which the lesson's duration starts from.
            let audio = try #require(lecture.audio)
            let audioData = try #require(files[audio.path])
            let seconds = try #require(OggOpus.duration(audioData))
            #expect(abs(seconds - audio.seconds) < 0.01 && seconds > Double(lecture.wordCount) / 400 * 60)
            let practiceSeconds = set.reduce(0) { $0 + ($1.format == .trueFalse ? 30 : 60) }
            #expect(topic.durationSeconds == Int(audio.seconds.rounded(.up)) + 2 * 60 + practiceSeconds)
        }

        // The preview shows each topic's cards and labels practice questions with their difficulty.
        let site = work.appendingPathComponent("site")
        #expect(try await CLITests.lectern(["preview", bundle.path, "--output", site.path], in: repo).status == 0)
        let crawl = try PreviewCommandTests.crawl(site)
        #expect(crawl.broken.isEmpty && crawl.reachable == crawl.pages, "\(crawl)")
        #expect(crawl.pages.isSuperset(of: ["flashcards/s01-t01.xhtml", "flashcards/s01-t02.xhtml", "questions/s01-t01.xhtml"]), "\(crawl.pages.sorted())")
        let cardsPage = try String(contentsOf: site.appendingPathComponent("flashcards/s01-t01.xhtml"), encoding: .utf8)
        #expect(cardsPage.components(separatedBy: "<details><summary>").count - 1 == 6)
        let questionsPage = try String(contentsOf: site.appendingPathComponent("questions/s01-t01.xhtml"), encoding: .utf8)
        #expect(questionsPage.contains("Practice question, easy") && questionsPage.contains("Practice question, hard"))

        // The course's cards as a set the flashcard app imports.
        let set = work.appendingPathComponent("cards.tsv")
        #expect(try await CLITests.lectern(["export", bundle.path, "--format", "cards-tsv", "--output", set.path], in: repo).status == 0)
        let rows = try DeckImport.parse(try Data(contentsOf: set), format: .tsv).rows
        let cards = topics.flatMap { $0.flashcards ?? [] }
        #expect(rows.map(\.term) == cards.map(\.front) && rows.map(\.definition) == cards.map(\.back))

        // The cards in Anki, read by Anki's own import code.
        let apkg = work.appendingPathComponent("python-collections.apkg")
        let export = try await CLITests.lectern(["export", bundle.path, "--format", "anki", "--output", apkg.path], in: repo)
        #expect(export.status == 0, "\(export.stderr)")
        guard AnkiExportTests.toolsInstalled() else {
            Issue.record("the anki package is not installed: run 'make test-tools' (make test runs it)")
            return
        }
        let script = """
            import os, sys, tempfile
            from anki.collection import Collection, ImportAnkiPackageRequest, ImportAnkiPackageOptions
            col = Collection(os.path.join(tempfile.mkdtemp(), 'collection.anki2'))
            col.import_anki_package(ImportAnkiPackageRequest(package_path=sys.argv[1], options=ImportAnkiPackageOptions()))
            by_type = {}
            for nid in col.find_notes(''):
                note = col.get_note(nid)
                by_type.setdefault(note.note_type()['name'], []).append(note)
            print('types', sorted((name, len(notes)) for name, notes in by_type.items()))
            for card_id in col.find_cards('note:"Lectern cloze"'):
                card = col.get_card(card_id)
                q, a = card.question(), card.answer()
                print('cloze', '[...]' in q, 'cloze' in a)
            for card_id in col.find_cards('note:"Lectern flashcard"'):
                card = col.get_card(card_id)
                print('card', bool(card.note()['Front']), card.note()['Front'] in card.question(), card.note()['Back'] in card.answer())
            print('decks', sorted({col.decks.name(col.get_card(c).did).split('::')[-1] for c in col.find_cards('tag:lectern::flashcard')}))
            """
        let out = try await CLITests.external(["-c", script, apkg.path], in: work, executable: AnkiExportTests.python)
        #expect(out.status == 0, "\(out.stderr)")
        let questions = topics.reduce(0) { $0 + 2 + ($1.practice?.count ?? 0) }
        let clozes = topics.reduce(0) { $0 + ($1.flashcards ?? []).filter { $0.kind == .cloze }.count }
        let plain = topics.reduce(0) { $0 + ($1.flashcards ?? []).count } - clozes
        #expect(out.stdout.contains("types [('Lectern cloze', \(clozes)), ('Lectern flashcard', \(plain)), ('Lectern question', \(questions))]"), "\(out.stdout)")
        let lines = out.stdout.split(separator: "\n")
        #expect(lines.filter { $0 == "cloze True True" }.count == clozes, "each cloze card hides its span: \(out.stdout)")
        #expect(lines.filter { $0 == "card True True True" }.count == plain, "\(out.stdout)")
        #expect(out.stdout.contains("decks ['Dictionaries', 'Lists']"), "\(out.stdout)")
    }
}

/// The imported-deck example (pipelines/examples/chemistry-deck.yaml with its TSV): the cassette
/// replays offline to the same bytes, deck.json follows its schema, the set is imported as written
/// with its bad rows reported by line, every quiz holds its card's back once, the TSV export is
/// the set again, and Anki's import code reads the package.
struct DeckExampleTests {
    @Test func chemistryDeckReplaysOfflineAndExportsItsSetBack() async throws {
        let repo = CLITests.repository
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-deck-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let (bundle, bundles, summary) = try await CLITests.replayExampleTwice("chemistry-deck", in: work)
        #expect(bundles[0] == bundles[1])
        #expect(summary.contains("left out: chemistry-deck.tsv:20: the definition of 'Mole' is empty"), "\(summary)")
        #expect(summary.contains("left out: chemistry-deck.tsv:21: the term 'Ion' is already on line 11"), "\(summary)")
        let validated = try CLITests.schemaCheck(bundle.appendingPathComponent("deck.json").path, schema: "deck.schema.json")
        #expect(validated.status == 0, "deck.json against deck.schema.json: \(validated.stderr)")
        // Its review file (pipelines/examples/chemistry-deck.review.yaml) decides every model item:
        // three written distractor sets approved, Avogadro's edited; none pending or stale.
        let seal = try ReviewSeal.read(try #require(bundles[0][ReviewSeal.fileName]))
        #expect(seal.counts.approved == 3 && seal.counts.edited == 1 && seal.counts.pending == 0 && seal.counts.stale == 0, "\(seal.counts)")

        let deck = try JSONDecoder().decode(Deck.self, from: try #require(bundles[0]["deck.json"]))
        let tsv = try Data(contentsOf: repo.appendingPathComponent("pipelines/examples/chemistry-deck.tsv"))
        let imported = try DeckImport.parse(tsv, format: .tsv)
        #expect(deck.cards.map(\.front) == imported.rows.map(\.term) && deck.cards.map(\.back) == imported.rows.map(\.definition), "never rewritten")
        #expect(deck.source?.problems.map(\.line) == [20, 21])
        for card in deck.cards {
            #expect(card.quiz.options.count == 4 && card.quiz.options[card.quiz.answer] == card.back, "\(card.id)")
            #expect(card.quiz.options.filter { $0 == card.back }.count == 1, "\(card.id)")
            let wrong = card.quiz.options.filter { $0 != card.back }
            #expect(DeckRules.checkDistractors(wrong, answer: card.back, term: card.front).isEmpty, "\(card.id): \(wrong)")
        }
        // The atomic numbers get numbers: two from the deck, the rest written and checked.
        let numbers = deck.cards.filter { DeckRules.isNumeric($0.back) }
        #expect(numbers.count == 3 && numbers.allSatisfy { $0.quiz.distractors == .generated && $0.quiz.options.allSatisfy(DeckRules.isNumeric) })
        #expect(deck.matching.allSatisfy { (4...6).contains($0.cards.count) })
        #expect(Set(deck.matching.flatMap(\.cards) + deck.unmatched).count == deck.cards.count)
        for round in deck.matching {
            let cards = round.cards.compactMap { id in deck.cards.first { $0.id == id } }
            for (i, a) in cards.enumerated() {
                for b in cards[(i + 1)...] { #expect(!DeckRules.couldSwap((a.front, a.back), (b.front, b.back)), "round \(round.round): \(a.id) and \(b.id)") }
            }
        }

        // The set back out, and into Anki.
        for format in ["tsv", "csv"] {
            let file = work.appendingPathComponent("deck.\(format)")
            let export = try await CLITests.lectern(["export", bundle.path, "--format", format, "--output", file.path], in: repo)
            #expect(export.status == 0, "\(export.stderr)")
            let again = try DeckImport.parse(try Data(contentsOf: file), format: format == "csv" ? .csv : .tsv)
            #expect(again.rows.map(\.term) == imported.rows.map(\.term) && again.rows.map(\.definition) == imported.rows.map(\.definition))
        }
        let apkg = work.appendingPathComponent("deck.apkg")
        #expect(try await CLITests.lectern(["export", bundle.path, "--format", "anki", "--output", apkg.path], in: repo).status == 0)
        guard AnkiExportTests.toolsInstalled() else {
            Issue.record("the anki package is not installed: run 'make test-tools' (make test runs it)")
            return
        }
        let script = """
            import os, sys, tempfile
            from anki.collection import Collection, ImportAnkiPackageRequest, ImportAnkiPackageOptions
            col = Collection(os.path.join(tempfile.mkdtemp(), 'collection.anki2'))
            for _ in range(2):
                log = col.import_anki_package(ImportAnkiPackageRequest(package_path=sys.argv[1], options=ImportAnkiPackageOptions())).log
                print('import', len(log.new))
            notes = [col.get_note(n) for n in col.find_notes('')]
            print('notes', len(notes), sorted({n.note_type()['name'] for n in notes}))
            print('fronts', '|'.join(n['Front'] for n in sorted(notes, key=lambda n: n['ID'])))
            """
        let out = try await CLITests.external(["-c", script, apkg.path], in: work, executable: AnkiExportTests.python)
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stdout.contains("import \(deck.cards.count)\nimport 0\n"), "a second import adds nothing: \(out.stdout)")
        #expect(out.stdout.contains("notes \(deck.cards.count) ['Lectern flashcard']"), "\(out.stdout)")
        #expect(
            out.stdout.contains("fronts " + deck.cards.map(\.front).map { $0.replacingOccurrences(of: "'", with: "&#39;") }.joined(separator: "|"))
                || out.stdout.contains("fronts " + deck.cards.map(\.front).joined(separator: "|")), "\(out.stdout)")
    }
}
