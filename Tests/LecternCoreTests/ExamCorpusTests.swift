import Foundation
import Testing

@testable import LecternCore

/// The exam corpus: reading the `corpus:` entries, chunks and passages, grounding quotes, near
/// duplicates, and the source plan that checks the blueprint against the corpus.
/// Fixtures/exam-corpus stands for a spec's directory; error cases write their own temporary one.
struct ExamCorpusTests {
    static let fixtures = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/exam-corpus")

    /// A fresh directory with `files` (path → bytes) in it.
    static func directory(_ files: [String: Data] = [:]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("exam-corpus-\(UUID().uuidString)")
        for (path, data) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
        }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        return root
    }

    static func text(_ files: [String: String]) throws -> URL {
        try directory(files.mapValues { Data($0.utf8) })
    }

    static func issues(_ body: () throws -> ExamCorpus) -> [CorpusIssue] {
        do {
            _ = try body()
            return []
        } catch let error as CorpusError {
            return error.issues
        } catch {
            return [CorpusIssue(path: "?", message: "unexpected \(error)")]
        }
    }

    /// A prose paragraph of about `sentences` × 90 characters, different for each `seed`.
    static func paragraph(_ seed: Int, sentences: Int = 4) -> String {
        let nouns = ["river", "teacher", "engine", "market", "village", "library", "harvest", "bridge", "letter", "garden", "storm", "clock"]
        let verbs = ["carried", "changed", "measured", "described", "protected", "followed", "opened", "crossed", "repaired", "counted"]
        var words: [String] = []
        for s in 0..<sentences {
            let n = seed &* 31 &+ s &* 7
            words.append(
                "The \(nouns[n % nouns.count]) \(verbs[(n / 3) % verbs.count]) the old \(nouns[(n / 5 + 3) % nouns.count]) near the "
                    + "\(nouns[(n / 7 + 5) % nouns.count]) in the year \(1200 + (n % 700)), as the records of part \(seed) show.")
        }
        return words.joined(separator: " ")
    }

    static func spec(_ corpus: [CorpusSource], _ sections: [ExamSection]) -> ExamSpec {
        ExamSpec(corpus: corpus, preset: nil, sections: sections, optionCount: 4, forms: [])
    }

    static func standard(_ id: String, _ counts: DifficultyCounts) -> ExamCategory {
        ExamCategory(id: id, title: id, format: .standard, instructions: "", seconds: 60, counts: counts)
    }

    static func reading(_ id: String, _ counts: DifficultyCounts, perPassage: SizeRange? = nil) -> ExamCategory {
        ExamCategory(id: id, title: id, format: .reading, instructions: "", seconds: 90, counts: counts, questionsPerPassage: perPassage)
    }

    // MARK: Loading

    @Test func loadsFilesDirectoriesAndCourseBundles() throws {
        let corpus = try ExamCorpus.load(
            [CorpusSource(path: "./notes/"), CorpusSource(path: "plain.txt"), CorpusSource(path: "course", sections: ["verbal"])],
            relativeTo: Self.fixtures)
        #expect(
            corpus.documents.map(\.id) == [
                "notes/arabic/water-cycle.md", "notes/printing-press.md", "plain.txt", "course/lectures/01-01-values.md",
            ])
        let lecture = try #require(corpus.document("course/lectures/01-01-values.md"))
        #expect(lecture.serves(section: "verbal", category: "analogies"))
        #expect(!lecture.serves(section: "quantitative", category: "analogies"))
        #expect(lecture.sources == [CorpusSource(path: "course", sections: ["verbal"])])
        let press = try #require(corpus.document("notes/printing-press.md"))
        #expect(press.isMarkdown)
        #expect(press.sha256 == SHA256Digest.hex(try Data(contentsOf: Self.fixtures.appendingPathComponent("notes/printing-press.md"))))
        #expect(corpus.documentInfos.map(\.id) == corpus.documents.map(\.id))
        // Front matter is not in any chunk; the code block is one chunk's end, whole.
        #expect(!press.chunks.contains { press.text($0.range).contains("source: written") })
        #expect(press.chunks.contains { press.text($0.range).hasSuffix("It is not prose for a passage.\n```") })
        #expect(!press.passages.contains { press.text($0.range).contains("```") })
        let plain = try #require(corpus.document("plain.txt"))
        #expect(!plain.isMarkdown)
        #expect(plain.chunks.count == 1)
    }

    @Test func overlappingEntriesGiveOneDocumentServingBoth() throws {
        let corpus = try ExamCorpus.load(
            [CorpusSource(path: "notes", categories: ["analogies"]), CorpusSource(path: "notes/printing-press.md", categories: ["reading"])],
            relativeTo: Self.fixtures)
        #expect(corpus.documents.count == 2)
        let press = try #require(corpus.document("notes/printing-press.md"))
        #expect(press.serves(section: "verbal", category: "reading") && press.serves(section: "verbal", category: "analogies"))
        #expect(corpus.documents(servingSection: "verbal", category: "reading").map(\.id) == ["notes/printing-press.md"])
    }

    @Test func aMissingPathIsNamedAsWrittenWithAHint() throws {
        let issues = Self.issues {
            try ExamCorpus.load([CorpusSource(path: "notes/printing-pres.md"), CorpusSource(path: "nowhere/")], relativeTo: Self.fixtures)
        }
        #expect(issues.count == 2)
        #expect(issues[0].path == "notes/printing-pres.md")
        #expect(issues[0].message.contains("corpus entry 'notes/printing-pres.md' does not exist"))
        #expect(issues[0].hint?.contains("did you mean 'printing-press.md'?") == true)
        #expect(issues[0].hint?.contains("relative to the spec's directory") == true)
        #expect(issues[1].path == "nowhere/")
        // No entries is an empty corpus (a blueprint of computed-key categories needs none).
        #expect(try ExamCorpus.load([], relativeTo: Self.fixtures).documentInfos.isEmpty)
    }

    @Test func invalidUTF8NULAndOtherFilesAreRefusedByName() throws {
        var latin1 = Data("caf".utf8)
        latin1.append(0xE9)  // é in Latin-1
        latin1.append(contentsOf: Data(" au lait, with more words after it.\n".utf8))
        let root = try Self.directory([
            "corpus/latin1.md": latin1, "corpus/binary.txt": Data([0x41, 0x42, 0x00, 0x43]), "corpus/ok.md": Data("Fine.\n".utf8),
            "notes.pdf": Data("%PDF".utf8),
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let issues = Self.issues { try ExamCorpus.load([CorpusSource(path: "corpus"), CorpusSource(path: "notes.pdf")], relativeTo: root) }
        #expect(issues.map(\.message) == ["corpus entry 'notes.pdf' is not a Markdown or plain-text file"])
        // Files are read only when every entry resolves.
        let fileIssues = Self.issues { try ExamCorpus.load([CorpusSource(path: "corpus")], relativeTo: root) }.map(\.message)
        #expect(fileIssues.contains("corpus/latin1.md is not valid UTF-8 text (at byte 3)"))
        #expect(fileIssues.contains("corpus/binary.txt holds a NUL byte (at byte 2): it is a binary file, not text"))
    }

    @Test func cleaningStripsTheBOMJoinsLineEndsAndDropsControls() throws {
        let root = try Self.directory(["a.md": Data([0xEF, 0xBB, 0xBF] + Array("One\r\ntwo\rthree\u{07}\u{1B}four\u{0C}five\u{85}six\n".utf8))])
        defer { try? FileManager.default.removeItem(at: root) }
        let corpus = try ExamCorpus.load([CorpusSource(path: "a.md")], relativeTo: root)
        #expect(corpus.documents[0].text == "One\ntwo\nthreefour\nfivesix\n")
        #expect(corpus.documents[0].characters == corpus.documents[0].text.unicodeScalars.count)
    }

    @Test func oversizedDocumentsAndCorporaAreErrorsNotCrashes() throws {
        let root = try Self.text(["big.md": String(repeating: "word ", count: 400), "small.md": "Short.\n", "other.md": "Also short.\n"])
        defer { try? FileManager.default.removeItem(at: root) }
        let one = Self.issues {
            try ExamCorpus.load([CorpusSource(path: "big.md")], relativeTo: root, limits: CorpusLimits(maximumDocumentBytes: 1_000))
        }
        #expect(one.count == 1)
        #expect(one.first?.message.contains("big.md is 2 KB, over the 1000 bytes limit for one corpus document") == true)
        let all = Self.issues {
            try ExamCorpus.load(
                [CorpusSource(path: ".")], relativeTo: root, limits: CorpusLimits(maximumDocumentBytes: 4_000, maximumTotalBytes: 2_010))
        }
        #expect(all.count == 1)
        #expect(all.first?.message.contains("the corpus is over") == true)
        let many = Self.issues { try ExamCorpus.load([CorpusSource(path: ".")], relativeTo: root, limits: CorpusLimits(maximumDocuments: 2)) }
        #expect(many.first?.message == "the corpus has 3 documents, over the limit of 2")
    }

    @Test func directoriesSkipHiddenFilesAndLinksOutOfTheTree() throws {
        let root = try Self.text([
            "corpus/a.md": "A.\n", "corpus/.hidden.md": "hidden\n", "corpus/.git/b.md": "hidden\n", "corpus/sub/c.txt": "C.\n",
            "outside.md": "secret\n",
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("corpus/leak.md").path, withDestinationPath: "../outside.md")
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("corpus/alias.md").path, withDestinationPath: "a.md")
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("corpus/loop").path, withDestinationPath: ".")
        let corpus = try ExamCorpus.load([CorpusSource(path: "corpus")], relativeTo: root)
        #expect(corpus.documents.map(\.id) == ["corpus/a.md", "corpus/alias.md", "corpus/sub/c.txt"])
        #expect(
            corpus.skipped == [
                "corpus/leak.md: a symbolic link out of its corpus directory, not read", "corpus/loop: a symbolic link to a directory, not followed",
            ])

        let empty = try Self.text(["corpus/readme.json": "{}"])
        defer { try? FileManager.default.removeItem(at: empty) }
        let issues = Self.issues { try ExamCorpus.load([CorpusSource(path: "corpus")], relativeTo: empty) }
        #expect(issues.map(\.message) == ["corpus entry 'corpus' holds no .md, .markdown or .txt files"])
    }

    // MARK: Chunks and passages

    @Test func chunkingIsDeterministicBoundedAndFollowsHeadings() throws {
        var markdown = "# Part one\n\n"
        for p in 0..<12 { markdown += Self.paragraph(p) + "\n\n" }
        markdown += "## Part two\n\n" + Self.paragraph(100) + "\n\n"
        markdown += String(repeating: Self.paragraph(200, sentences: 1) + " ", count: 40) + "\n\n"  // one huge paragraph
        markdown +=
            "الجملة الأولى طويلة بما يكفي لتكون جملة كاملة في هذا الاختبار؟ " + String(repeating: "وهذه جملة عربية أخرى تتكرر هنا؟ ", count: 80)
        let a = try ExamCorpus(texts: [("doc.md", markdown)])
        let b = try ExamCorpus(texts: [("doc.md", markdown)])
        let document = a.documents[0]
        #expect(document.chunks == b.documents[0].chunks)
        #expect(document.passages == b.documents[0].passages)
        #expect(document.chunks.map(\.id).prefix(2) == ["doc.md#1", "doc.md#2"])
        for chunk in document.chunks {
            #expect(chunk.characters <= CorpusIndex.chunkMaximum + 20, "\(chunk.id) has \(chunk.characters) characters")
            #expect(chunk.characters == document.text(chunk.range).unicodeScalars.count)
        }
        #expect(document.chunks.allSatisfy { $0.isGroundable })
        // "## Part two" begins a chunk; the huge paragraphs are cut after sentence ends (`.` and `؟`).
        #expect(document.chunks.contains { document.text($0.range).hasPrefix("## Part two") })
        let cuts = document.chunks.map { document.text($0.range) }.filter { !$0.hasPrefix("#") }
        #expect(cuts.allSatisfy { $0.hasSuffix(".") || $0.hasSuffix("؟") })
        #expect(cuts.contains { $0.hasSuffix("؟") })
        for passage in document.passages {
            let text = document.text(passage.range)
            #expect((CorpusIndex.passageMinimum...CorpusIndex.passageMaximum).contains(passage.characters))
            #expect(passage.sentences >= 3)
            #expect(!text.contains("#"))
        }
        for (x, y) in zip(document.passages, document.passages.dropFirst()) { #expect(x.range.upperBound <= y.range.lowerBound) }
    }

    @Test func fixtureDocumentsHavePassagesInBothLanguages() throws {
        let corpus = try ExamCorpus.load([CorpusSource(path: "notes")], relativeTo: Self.fixtures)
        for document in corpus.documents {
            #expect(!document.passages.isEmpty, "\(document.id) has no passage")
            #expect(!document.groundableChunks.isEmpty, "\(document.id)")
        }
        #expect(corpus.document("notes/printing-press.md")?.groundableChunks.count == 2)
    }

    @Test func aTextWithoutPassageLengthProseHasNoPassage() throws {
        let corpus = try ExamCorpus(texts: [("list.md", (1...60).map { "- item \($0)" }.joined(separator: "\n")), ("short.txt", "One. Two. Three.")])
        #expect(corpus.documents.allSatisfy { $0.passages.isEmpty })
    }

    // MARK: The index cache

    @Test func theIndexCacheIsUsedAndNeverTrustedWhenCorrupt() throws {
        var text = "# Cached\n\n"
        for p in 0..<10 { text += Self.paragraph(p) + "\n\n" }
        let root = try Self.text(["doc.md": text])
        defer { try? FileManager.default.removeItem(at: root) }
        let cache = root.appendingPathComponent("index-cache")
        let fresh = try ExamCorpus.load([CorpusSource(path: "doc.md")], relativeTo: root, indexCache: cache).documents[0]
        let file = cache.appendingPathComponent("\(fresh.sha256).md.json")
        #expect(FileManager.default.fileExists(atPath: file.path))
        #expect(fresh.chunks.count >= 3)

        // A hit: an index whose valid ranges differ from what chunking would give is what is used.
        let first = fresh.chunks[0].range
        let planted =
            #"{"bytes":\#(fresh.utf8.count),"chunks":[[\#(first.lowerBound),\#(first.upperBound)]],"markdown":true,"passages":[],"rules":"\#(CorpusIndex.rules)"}"#
        try Data(planted.utf8).write(to: file)
        let hit = try ExamCorpus.load([CorpusSource(path: "doc.md")], relativeTo: root, indexCache: cache).documents[0]
        #expect(hit.chunks.count == 1 && hit.passages.isEmpty)

        // Corrupt files fall back to indexing afresh, and the file is rewritten.
        let corrupt = [
            "{not json", #"{"bytes":\#(fresh.utf8.count),"chunks":[[0,999999999]],"markdown":true,"passages":[],"rules":"\#(CorpusIndex.rules)"}"#,
            #"{"bytes":\#(fresh.utf8.count),"chunks":[[5,3]],"markdown":true,"passages":[],"rules":"\#(CorpusIndex.rules)"}"#,
            #"{"bytes":\#(fresh.utf8.count),"chunks":[],"markdown":true,"passages":[[0,10]],"rules":"\#(CorpusIndex.rules)"}"#,
            #"{"bytes":\#(fresh.utf8.count),"chunks":[[0,10]],"markdown":true,"passages":[],"rules":"v0"}"#,
            #"{"bytes":1,"chunks":[[0,1]],"markdown":true,"passages":[],"rules":"\#(CorpusIndex.rules)"}"#,
        ]
        for content in corrupt {
            try Data(content.utf8).write(to: file)
            let again = try ExamCorpus.load([CorpusSource(path: "doc.md")], relativeTo: root, indexCache: cache).documents[0]
            #expect(again.chunks == fresh.chunks && again.passages == fresh.passages, "\(content)")
        }
        #expect(try Data(contentsOf: file) != Data(corrupt.last!.utf8))

        // A cache directory that cannot be written is no error.
        let blocked = root.appendingPathComponent("doc.md/cache")
        #expect(try ExamCorpus.load([CorpusSource(path: "doc.md")], relativeTo: root, indexCache: blocked).documents[0].chunks == fresh.chunks)
    }

    // MARK: Grounding

    @Test func arabicQuotesMatchWithoutHarakatTatweelOrAlefForms() throws {
        let corpus = try ExamCorpus.load([CorpusSource(path: "notes")], relativeTo: Self.fixtures)
        let id = "notes/arabic/water-cycle.md"
        // The document has تُسخِّنُ أشعةُ الشمسِ with harakat and hamza on the alef.
        #expect(corpus.contains(quote: "تسخن اشعة الشمس مياه البحار والمحيطات", inDocument: id) == .found)
        // بخـــارُ has tatweel in the document; إلى is typed الي here; ة typed ه.
        #expect(corpus.contains(quote: "وهناك يبرد بخار الماء ويتكاثف", inDocument: id) == .found)
        #expect(corpus.contains(quote: "ويصعد الي طبقات الجو العليا", inDocument: id) == .found)
        #expect(corpus.contains(quote: "تعد دوره الماء من اهم العمليات الطبيعيه", inDocument: id) == .found)
        // With harakat of its own, and Arabic punctuation the document has.
        #expect(corpus.contains(quote: "فَهَلْ نَسْتَطِيعُ أَنْ نُحَافِظَ عَلَى هَذَا التَّوَازُنِ الدَّقِيقِ؟", inDocument: id) == .found)
        // A different sentence is not there.
        #expect(corpus.contains(quote: "تبدأ الدورة عندما تسخن أشعة القمر مياه البحار", inDocument: id) == .notFound)
        #expect(corpus.contains(quote: "تسخن اشعة الشمس مياه البحار", inDocument: "notes/water-cycle.md") == .documentNotFound)
        #expect(corpus.contains(quote: "دورة الماء", inDocument: id) == .tooShort(words: 2, characters: 10))
    }

    @Test func englishQuotesMatchAcrossQuoteMarksDashesCaseAndMarkdown() throws {
        let corpus = try ExamCorpus.load([CorpusSource(path: "notes")], relativeTo: Self.fixtures)
        let id = "notes/printing-press.md"
        #expect(corpus.contains(quote: "What nobody disputes is that \"the speed of copying\" changed for good.", inDocument: id) == .found)
        #expect(corpus.contains(quote: "he mixed an oil based ink that stuck to metal type", inDocument: id) == .found)
        #expect(corpus.contains(quote: "AROUND 1450, JOHANNES GUTENBERG COMBINED", inDocument: id) == .found)
        #expect(corpus.contains(quote: "around 1460, johannes gutenberg combined", inDocument: id) == .notFound)
        #expect(corpus.contains(quote: "every book in Europe was printed by hand", inDocument: id) == .notFound)
        #expect(corpus.contains(quote: "Gutenberg", inDocument: id) == .tooShort(words: 1, characters: 9))
        #expect(QuoteCheck.notFound.problem(document: id)?.contains("does not occur in notes/printing-press.md") == true)
        #expect(QuoteCheck.found.problem(document: id) == nil)
    }

    @Test func aLeadInBeforeAQuoteIsFramingAndTheClosestSentenceIsTheOneMostOfItsWordsComeFrom() {
        #expect(GroundingText.withoutLeadIn("The passage states that 'rivers have shaped where people live.'") == "rivers have shaped where people live.")
        #expect(GroundingText.withoutLeadIn("According to the passage, the floods left rich soil") == "the floods left rich soil")
        #expect(GroundingText.withoutLeadIn("THE TEXT SAYS: “Wetlands slow the water down”") == "Wetlands slow the water down")
        #expect(
            GroundingText.withoutLeadIn("It stated that following World War II, however, the continent experienced an upsurge")
                == "following World War II, however, the continent experienced an upsurge")
        // No lead-in, or nothing after it.
        #expect(GroundingText.withoutLeadIn("Rivers have shaped where people live.") == nil)
        #expect(GroundingText.withoutLeadIn("The passage states that") == nil)
        let sentences = [
            "Small streams join as the water flows downhill, and each stream that joins a larger river is called a tributary.",
            "Early farming towns grew along the Nile, the Tigris and the Euphrates because the floods left rich soil on the fields every year.",
            "Following World War II, the continent experienced an upsurge in scientific research.",
        ]
        // Re-typed from memory: a word changed, case lost, a clause added.
        #expect(
            GroundingText.closestSentence(to: "following World war ii, the continent saw an upsurge in scientific research by many countries", among: sentences)
                == sentences[2])
        #expect(GroundingText.closestSentence(to: "Farming towns grew along the Nile because of the floods", among: sentences) == sentences[1])
        // Made up: fewer than half of its words are in any sentence.
        #expect(GroundingText.closestSentence(to: "In 1925, the United States established the Amundsen Station in Antarctica.", among: sentences) == nil)
        #expect(GroundingText.closestSentence(to: "the the the", among: sentences) == nil)

        // Copied with one word wrong (the local model's passage-1 quote), one left out, one added:
        // the sentence is what was meant. Two words wrong in a short quote, a part of a sentence,
        // or a short quote are not.
        let firsts = "Several exploration \"firsts\" were achieved in the early 20th century, but the area saw little human activity."
        #expect(
            GroundingText.misTypedSentence(
                "Several exploration expeditions were achieved in the early 20th century, but the area saw little human activity.",
                among: sentences + [firsts]) == firsts)
        #expect(GroundingText.misTypedSentence("Following World War II the continent experienced an upsurge in research.", among: sentences) == sentences[2])
        #expect(
            GroundingText.misTypedSentence("Following World War II, the whole continent experienced an upsurge in scientific research", among: sentences)
                == sentences[2])
        #expect(GroundingText.misTypedSentence("Following World War I, the continent experienced a boom in scientific research.", among: sentences) == nil)
        #expect(GroundingText.misTypedSentence("the continent experienced an upsurge in scientific research", among: sentences) == nil)
        #expect(GroundingText.misTypedSentence("Following World War II, the continent", among: sentences) == nil)
        // Sixteen words or more: two may be wrong, not three.
        #expect(
            GroundingText.misTypedSentence(
                "Early farming towns grew along the Nile, the Tigris and the Jordan because the floods left good soil on the fields every year.",
                among: sentences) == sentences[1])
        #expect(
            GroundingText.misTypedSentence(
                "Early farming cities grew along the Nile, the Tigris and the Jordan because the floods left good soil on the fields every year.",
                among: sentences) == nil)
    }

    /// The local model's feedback named a year and a station the passage never names, and a
    /// length of time no sentence gives: numbers a candidate reads after answering come from the
    /// source or the item, and the key's numbers and names from the source or the stem.
    @Test func numbersInFeedbackAndExplanationComeFromTheSourceOrTheItem() {
        let passage =
            "Several exploration \"firsts\" were achieved in the early 20th century. An Antarctic Treaty was signed in 1959 and entered into force in 1961. A desert gets about 1,250 mm less rain."
        let options = [
            Choice(text: "Several exploration firsts", correct: true, feedback: "The passage states that in 1925, the United States established a station."),
            Choice(text: "No exploration", correct: false, feedback: "The passage names firsts in the early 20th century."),
            Choice(text: "Only one expedition, in 1901", correct: false, feedback: "The passage does not name 1901 or a single expedition."),
            Choice(text: "A treaty of 1959", correct: false, feedback: "It was signed in 1959 and in force from 1961; 1250 mm is the rain."),
        ]
        let messages = ExamRules.unsourcedNumberIssues(
            explanation: "The 20th century saw the firsts; the age was about 400 years.", prompt: "What happened in Antarctica?", options: options,
            source: passage
        ).map(\.message)
        #expect(
            messages == [
                "the explanation names 400, which neither the source text nor the question has: say only what the text says, in its words and numbers",
                "the feedback of 'Several exploration firsts' names 1925, which neither the source text nor the question has: say only what the text says, in its words and numbers",
            ])
        // A key naming a year or a country the passage does not (the local model's "1925" and
        // "China"); wrong options may, and the key's words in other letter case are the text's.
        func key(_ text: String) -> [Choice] {
            [Choice(text: text, correct: true, feedback: ""), Choice(text: "1930, in Australia", correct: false, feedback: "")]
        }
        let asked = "What was signed in Antarctica?"
        #expect(
            ExamRules.unsourcedKeyIssues(prompt: asked, options: key("1925"), source: passage).map(\.message)
                == [
                    "the correct option ('1925') names '1925', which neither the source text nor the question has: the answer to a question on a text is what the text says; ask about something it states"
                ])
        #expect(ExamRules.unsourcedKeyIssues(prompt: asked, options: key("China"), source: passage).count == 1)
        #expect(ExamRules.unsourcedKeyIssues(prompt: asked, options: key("An Antarctic Treaty, in 1959"), source: passage).isEmpty)
        // A number the item works out from the text's numbers in its feedback is the text's:
        // world-geography-exam's edited reading question, 38°C by day and -4°C by night.
        let desert = "During the day, desert temperatures rise to an average of 38°C (100°F). At night, desert temperatures fall to an average of -4°C (about 25°F)."
        let fall = "By about how much does the average desert temperature fall from day to night?"
        func keyed(_ text: String, feedback: String) -> [Choice] {
            [Choice(text: text, correct: true, feedback: feedback), Choice(text: "by about 34°C", correct: false, feedback: "No.")]
        }
        #expect(ExamRules.unsourcedKeyIssues(prompt: fall, options: keyed("by about 42°C", feedback: "It falls 38 + 4 = 42 degrees."), source: desert).isEmpty)
        #expect(ExamRules.unsourcedKeyIssues(prompt: fall, options: keyed("by about 42°C", feedback: "It falls by 42 degrees."), source: desert).count == 1)
        #expect(ExamRules.unsourcedKeyIssues(prompt: fall, options: keyed("by about 42°C", feedback: "It falls 38 + 5 = 42 degrees."), source: desert).count == 1, "wrong working")
        #expect(ExamRules.unsourcedKeyIssues(prompt: fall, options: keyed("by about 42°C", feedback: "It falls 40 + 2 = 42 degrees."), source: desert).count == 1, "numbers not the text's")
        #expect(ExamRules.unsourcedKeyIssues(prompt: asked, options: key("Several Exploration firsts"), source: passage).isEmpty)
        #expect(ExamRules.unsourcedKeyIssues(prompt: asked, options: key("They signed the Treaty"), source: passage).isEmpty)
        #expect(ExamRules.unsourcedKeyIssues(prompt: asked, options: key("Explorers of the 20th century"), source: passage).isEmpty)
        #expect(ExamRules.unsourcedKeyIssues(prompt: "Which treaty did Chile sign?", options: key("The one Chile signed"), source: passage).isEmpty)

        // Arabic-Indic digits are digits.
        #expect(ExamRules.numbers(in: "وُقّعت عام ١٩٥٩، ودخلت حيز التنفيذ عام 1961") == ["1959", "1961"])
        #expect(ExamRules.numbers(in: "1,250 mm, 2.5 m and the 20th century") == ["1250", "2", "5", "20"])
    }

    @Test func normalizationFoldsWhatRetypingChanges() {
        #expect(GroundingText.normalize("  “Don’t”—say **it**,  _now_!  ") == "don t say it now")
        #expect(GroundingText.normalize("Café ＡＢＣ ﬁne x²") == "cafe abc fine x2")
        #expect(GroundingText.normalize("see [the docs](https://example.com/a_b) here") == "see the docs here")
        #expect(GroundingText.normalize("2+3=5 and 2 + 3 = 5") == "2 + 3 = 5 and 2 + 3 = 5")
        #expect(GroundingText.normalize("> quoted\n> lines") == "quoted lines")
        #expect(GroundingText.normalize("zero\u{200B}width \u{200F}bidi\u{00AD}hyphen") == "zerowidth bidihyphen")
        #expect(GroundingText.normalize("أَإِآٱ ى ة ـ ١٢٣ ۴ ک ی") == "اااا ي ه 123 4 ك ي")
        #expect(GroundingText.normalize("مُـــحَمَّدٌ، «قال»؛") == "محمد قال")
        // Word boundaries: "he cat" is not inside "the cat".
        #expect(!GroundingText.contains("he cat sat", in: "the cat sat down"))
        #expect(GroundingText.contains("the cat sat", in: "Then the cat sat down"))
    }

    // MARK: Near duplicates

    @Test func nearDuplicateStemsInEnglishAndArabic() {
        #expect(NearDuplicate.areDuplicates("What is the capital of France?", "What's the capital city of France?"))
        #expect(
            NearDuplicate.areDuplicates(
                "Which word does not belong: apple, banana, cherry, car?", "Which word does NOT belong? Apple, banana, car, cherry"))
        #expect(
            !NearDuplicate.areDuplicates(
                "Which word is the odd one out: apple, banana, cherry, car?", "Which word is the odd one out: red, blue, green, chair?"))
        #expect(!NearDuplicate.areDuplicates("Why did the author move to Cairo?", "When did the author move to Cairo?"))
        #expect(!NearDuplicate.areDuplicates("Which of these is a mammal?", "Which of these is not a mammal?"))
        #expect(!NearDuplicate.areDuplicates("What is 12 + 30?", "What is 12 + 31?"))
        #expect(NearDuplicate.areDuplicates("ما عاصمة فرنسا؟", "ما هي عاصمةُ دولة فرنسا؟"))
        #expect(NearDuplicate.areDuplicates("ما مرادف كلمة «الشجاعة»؟", "ما مُرادِفُ كلمةِ الشجاعه؟"))
        #expect(!NearDuplicate.areDuplicates("ما الكلمة الشاذة: تفاحة، موز، كرز، سيارة؟", "ما الكلمة الشاذة: أحمر، أزرق، أخضر، كرسي؟"))
        #expect(!NearDuplicate.areDuplicates("لماذا انتقل الكاتب إلى القاهرة؟", "متى انتقل الكاتب إلى القاهرة؟"))
        #expect(NearDuplicate.similarity("What is it?", "what is it") == 1)
    }

    @Test func optionsThatAreOneAnswerWrittenTwice() {
        #expect(QuestionRules.restates("The rivers", "a river.", language: "en"))
        #expect(QuestionRules.restates("Water expands when it freezes", "water expands, when it freezes", language: "en"))
        #expect(QuestionRules.restates("الشجاعة", "الشَّجاعةُ", language: "ar"))
        #expect(!QuestionRules.restates("Paris", "The city of Paris", language: "en"))
        #expect(!QuestionRules.restates("All of the above", "None of the above", language: "en"))
        #expect(!QuestionRules.restates("Answer A", "Answer D", language: "en"))
        #expect(!QuestionRules.restates("P(A|B) = P(A ∪ B) / P(B)", "P(A|B) = P(A ∩ B) / P(B)", language: "en"))
        // Real distractors (US amateur radio pools): one word changed, or two swapped.
        #expect(!QuestionRules.restates("4:1", "1:4", language: "en"))
        #expect(!QuestionRules.restates("At least 3 kHz above the edge of the segment", "At least 3 kHz below the edge of the segment", language: "en"))
        #expect(!QuestionRules.restates("An \"AND\" gate", "An \"OR\" gate", language: "en"))
        #expect(!QuestionRules.restates("0.23 volts", "-0.23 volts", language: "en"))
        #expect(!QuestionRules.restates("From dawn to shortly after sunset", "From shortly after sunset to dawn", language: "en"))
        // A negation in code (the local model's engagement question: the key and a wrong option).
        #expect(!QuestionRules.restates("if is_broken:", "if !is_broken", language: "en"))
        #expect(!QuestionRules.restates("x != 5", "x = 5", language: "en"))
        #expect(QuestionRules.restates("Hello!", "hello", language: "en"))
    }

    @Test func theIndexFindsTheFirstDuplicateAmongThousands() {
        var index = NearDuplicateIndex()
        let nouns = ["river", "teacher", "engine", "market", "village", "library", "harvest", "bridge", "letter", "garden", "storm", "clock"]
        var inserted = 0
        for i in 0..<3_000 {
            let stem = "Which word is the odd one out: \(nouns[i % 12])\(i), \(nouns[(i / 12) % 12])x\(i / 7), \(nouns[(i / 144) % 12])y\(i)?"
            if let duplicate = index.insertUnlessDuplicate(id: "s\(i)", text: stem) {
                Issue.record("s\(i) reported as a duplicate of \(duplicate)")
            } else {
                inserted += 1
            }
        }
        #expect(index.count == inserted && inserted == 3_000)
        #expect(index.firstDuplicate(of: "which word is the odd one out — river0, riverx0, rivery0") == "s0")
        #expect(index.firstDuplicate(of: "Which word is the odd one out: river0, riverx0, rivery0?", scope: "p02") == nil)
        index.insert(id: "q1", text: "What is the capital of France?", scope: "p02")
        index.insert(id: "q2", text: "What's the capital city of France?", scope: "p02")
        #expect(index.firstDuplicate(of: "What is the capital city of France?", scope: "p02") == "q1")
    }

    @Test func theFrameOfATemplatedCategoryDoesNotCount() {
        var index = NearDuplicateIndex()
        let words = (0..<400).map { "w\($0)" }
        func stem(_ w: [String]) -> String { "Which word is the odd one out: \(w.joined(separator: ", "))?" }
        for i in 0..<100 { index.insert(id: "s\(i)", text: stem(Array(words[(4 * i)..<(4 * i + 4)]))) }
        let twoShared = stem(["w0", "w1", "new1", "new2"])
        let threeShared = stem(["w2", "w0", "w1", "new1"])
        // Alone, two stems on one frame that share half their words look alike; in the bank they do not.
        #expect(NearDuplicate.areDuplicates(stem(["w0", "w1", "w2", "w3"]), twoShared))
        #expect(index.firstDuplicate(of: twoShared) == nil)
        #expect(index.firstDuplicate(of: threeShared) == "s0")
        #expect(index.firstDuplicate(of: "Which word is the odd one out?") == nil)
    }

    // MARK: The source plan

    static func pressAndWater() -> [CorpusSource] {
        [CorpusSource(path: "notes/printing-press.md"), CorpusSource(path: "notes/arabic", sections: ["verbal"])]
    }

    @Test func planIdsDifficultiesAndGrounding() throws {
        let corpus = try ExamCorpus.load(Self.pressAndWater(), relativeTo: Self.fixtures)
        let spec = Self.spec(
            Self.pressAndWater(),
            [
                ExamSection(
                    id: "verbal", title: "Verbal",
                    categories: [
                        Self.standard("analogies", DifficultyCounts(easy: 2, medium: 1, hard: 1)),
                        Self.reading("reading-comprehension", DifficultyCounts(easy: 3, medium: 2, hard: 2)),
                    ])
            ])
        let plan = try ExamSourcePlan.make(spec: spec, corpus: corpus).get()
        #expect(
            plan.items.map(\.id) == [
                "verbal/analogies/easy-01", "verbal/analogies/easy-02", "verbal/analogies/medium-01", "verbal/analogies/hard-01",
                "verbal/reading-comprehension/p01-q1", "verbal/reading-comprehension/p01-q2", "verbal/reading-comprehension/p01-q3",
                "verbal/reading-comprehension/p01-q4", "verbal/reading-comprehension/p02-q1", "verbal/reading-comprehension/p02-q2",
                "verbal/reading-comprehension/p02-q3",
            ])
        #expect(plan.items.map(\.difficulty) == [.easy, .easy, .medium, .hard, .easy, .easy, .easy, .medium, .medium, .hard, .hard])
        #expect(plan.passages.map(\.id) == ["p01", "p02"])
        #expect(plan.passages.map(\.difficulties) == [[.easy, .easy, .easy, .medium], [.medium, .hard, .hard]])
        #expect(Set(plan.passages.map(\.source)).count == 2)
        for item in plan.items {
            let document = try #require(corpus.document(item.document))
            #expect(item.groundingSHA256 == SHA256Digest.hex(item.groundingText))
            if let chunkID = item.chunk {
                let chunk = try #require(document.chunks.first { $0.id == chunkID })
                #expect(chunk.isGroundable && document.text(chunk.range) == item.groundingText)
            } else {
                let passage = try #require(plan.passages.first { $0.id == item.passage })
                #expect(passage.text == item.groundingText && passage.items.contains(item.id))
            }
        }
        // The items of a cell spread over chunks.
        let analogies = plan.items.filter { $0.category == "analogies" }
        #expect(Set(analogies.compactMap(\.chunk)).count >= 2)
        #expect(try ExamSourcePlan.make(spec: spec, corpus: corpus).get() == plan)
    }

    @Test func cellsTheCorpusCannotServeAreNamed() throws {
        let sources = [
            CorpusSource(path: "notes/printing-press.md", sections: ["verbal"]), CorpusSource(path: "plain.txt", sections: ["quantitative"]),
        ]
        let corpus = try ExamCorpus.load(sources, relativeTo: Self.fixtures)
        let spec = Self.spec(
            sources,
            [
                ExamSection(
                    id: "verbal", title: "Verbal",
                    categories: [
                        Self.standard("analogies", DifficultyCounts(easy: 5)),  // fine
                        Self.standard("completion", DifficultyCounts(easy: 10, medium: 10)),  // too little text
                        Self.reading("reading", DifficultyCounts(medium: 30)),  // too few passages
                        Self.reading("odd", DifficultyCounts(hard: 1)),  // one question cannot make a passage of 2–5
                        Self.reading("tight", DifficultyCounts(easy: 7), perPassage: SizeRange(min: 4, max: 5)),
                    ]),
                ExamSection(
                    id: "quantitative", title: "Quantitative",
                    categories: [Self.standard("algebra", DifficultyCounts(easy: 1)), Self.standard("empty", DifficultyCounts())]),
                ExamSection(id: "spatial", title: "Spatial", categories: [Self.standard("shapes", DifficultyCounts(medium: 2))]),
            ])
        guard case .failure(let error) = ExamSourcePlan.make(spec: spec, corpus: corpus) else {
            Issue.record("the plan should fail")
            return
        }
        #expect(
            error.problems.map(\.cell) == [
                "verbal/completion", "verbal/reading", "verbal/odd", "verbal/tight", "quantitative/algebra", "spatial/shapes",
            ])
        let byCell = Dictionary(uniqueKeysWithValues: error.problems.map { ($0.cell, $0) })
        #expect(byCell["verbal/completion"]?.message.contains("asks for 20 items but the corpus has") == true)
        #expect(byCell["verbal/completion"]?.message.contains("(notes/printing-press.md)") == true)
        #expect(byCell["verbal/completion"]?.hint.contains("lower the count to") == true)
        #expect(byCell["verbal/reading"]?.message.contains("asks for 6 passages (30 questions, 2–5 per passage) but the corpus has") == true)
        #expect(
            byCell["verbal/odd"]?.message
                == "blueprint cell verbal/odd asks for 1 question, which cannot be split into passages of 2–5 questions each")
        #expect(byCell["verbal/odd"]?.hint == "ask for 2 questions, or change questions_per_passage")
        #expect(byCell["verbal/tight"]?.hint == "ask for 5 or 8 questions, or change questions_per_passage")
        #expect(byCell["quantitative/algebra"]?.message.contains("no document serving it has a chunk of at least 200 characters (plain.txt)") == true)
        #expect(byCell["spatial/shapes"]?.message == "blueprint cell spatial/shapes (2 items) has no corpus entry serving it")
        #expect(error.diagnostics(file: "exam.yaml").first?.description.hasPrefix("exam.yaml: error: blueprint cell verbal/completion") == true)
    }

    @Test func aPassageIsUsedOnceInTheBank() throws {
        let corpus = try ExamCorpus.load([CorpusSource(path: "notes")], relativeTo: Self.fixtures)
        let available = corpus.documents.reduce(0) { $0 + $1.passages.count }
        let one = Self.reading("reading-a", DifficultyCounts(easy: 2 * available), perPassage: SizeRange(min: 2, max: 2))  // every passage
        let spec = Self.spec(
            [CorpusSource(path: "notes")],
            [ExamSection(id: "verbal", title: "Verbal", categories: [one, Self.reading("reading-b", DifficultyCounts(easy: 2))])])
        guard case .failure(let error) = ExamSourcePlan.make(spec: spec, corpus: corpus) else {
            Issue.record("the second cell should find no passage left")
            return
        }
        #expect(error.problems.map(\.cell) == ["verbal/reading-b"])
        #expect(error.problems[0].message.contains("the others are used by verbal/reading-a or repeat a text (a passage is used once in the bank)"))
        let fits = Self.spec([CorpusSource(path: "notes")], [ExamSection(id: "verbal", title: "Verbal", categories: [one])])
        let plan = try ExamSourcePlan.make(spec: fits, corpus: corpus).get()
        #expect(Set(plan.passages.map(\.source)).count == available)
    }

    @Test func aPassageTextFoundTwiceIsOnePassage() throws {
        let text = "# Copy\n\n" + Self.paragraph(1) + "\n\n" + Self.paragraph(2) + "\n\n" + Self.paragraph(3) + "\n"
        let corpus = try ExamCorpus(texts: [("a.md", text), ("b.md", text)])
        #expect(corpus.documents.map(\.passages.count) == [1, 1])
        let reading = Self.reading("reading", DifficultyCounts(easy: 4), perPassage: SizeRange(min: 2, max: 2))
        let spec = Self.spec([CorpusSource(path: ".")], [ExamSection(id: "verbal", title: "Verbal", categories: [reading])])
        guard case .failure(let error) = ExamSourcePlan.make(spec: spec, corpus: corpus) else {
            Issue.record("one passage text cannot serve two passages")
            return
        }
        #expect(
            error.problems.map(\.message) == [
                "blueprint cell verbal/reading asks for 2 passages (4 questions, 2 per passage) but only 1 of the 2 passages serving it is left: "
                    + "the others repeat the text of one of them (a passage is used once in the bank)"
            ])
    }

    /// A corpus of `count` documents of a few chunks each; `edited` gets a changed paragraph.
    static func manyDocuments(_ count: Int, edited: Int? = nil, longer: Int? = nil) -> [(id: String, text: String)] {
        (0..<count).map { d in
            var text = "# Document \(d)\n\n"
            for p in 0..<(8 + d % 7) {
                let seed = d * 100 + p
                text += (d == edited && p == 1 ? Self.paragraph(seed + 55_555) : Self.paragraph(seed)) + "\n\n"
            }
            if d == longer { for p in 0..<40 { text += Self.paragraph(d * 100 + 50 + p) + "\n\n" } }
            return (String(format: "docs/d%03d.md", d), text)
        }
    }

    @Test func editingOneDocumentMovesOnlyItemsDrawnFromIt() throws {
        let sections = [
            ExamSection(
                id: "verbal", title: "Verbal",
                categories: [
                    Self.standard("analogies", DifficultyCounts(easy: 20, medium: 20, hard: 20)),
                    Self.standard("completion", DifficultyCounts(easy: 15, medium: 15, hard: 10)),
                    Self.reading("reading", DifficultyCounts(easy: 10, medium: 10, hard: 10)),
                ])
        ]
        let spec = Self.spec([CorpusSource(path: ".")], sections)
        let before = try ExamSourcePlan.make(spec: spec, corpus: ExamCorpus(texts: Self.manyDocuments(40))).get()
        var movedInAll = 0
        for (edited, longer) in [(7, nil), (nil, 12), (3, 3)] as [(Int?, Int?)] {
            let changed = try ExamSourcePlan.make(spec: spec, corpus: ExamCorpus(texts: Self.manyDocuments(40, edited: edited, longer: longer))).get()
            let touched = Set([edited, longer].compactMap { $0 }.map { String(format: "docs/d%03d.md", $0) })
            let old = Dictionary(uniqueKeysWithValues: before.items.map { ($0.id, $0) })
            var moved = 0
            for item in changed.items {
                let previous = try #require(old[item.id])
                if previous.groundingSHA256 != item.groundingSHA256 || previous.document != item.document {
                    moved += 1
                    #expect(
                        touched.contains(previous.document) || touched.contains(item.document),
                        "\(item.id) moved from \(previous.document) to \(item.document)")
                }
            }
            #expect(moved < changed.items.count / 4, "\(moved) items moved")
            movedInAll += moved
        }
        #expect(movedInAll > 0)
        // Items spread over the documents and, within one, over its chunks.
        let documents = Set(before.items.filter { $0.passage == nil }.map(\.document))
        #expect(documents.count >= 20)
        let perChunk = Dictionary(grouping: before.items.filter { $0.category == "analogies" }, by: { $0.chunk ?? "" }).values.map(\.count)
        #expect(perChunk.max() ?? 0 <= ExamSourcePlan.itemsPerChunk)
    }
}

/// The blank of a sentence-completion stem and the words around it.
struct CompletionFragmentTests {
    @Test func theFragmentLeavesOutLeadInsAndQuoteMarks() {
        #expect(
            ExamRules.completedFragment(stem: "Complete the sentence: \"The Nile floods ____ year, leaving rich soil.\"", filler: "every")
                == "The Nile floods every year, leaving rich soil.")
        #expect(ExamRules.completedFragment(stem: "____ is the longest river in Africa.", filler: "The Nile") == "The Nile is the longest river in Africa.")
        // The whole sentence, however far from the blank.
        #expect(
            ExamRules.completedFragment(stem: "one two three four five six seven ____ a b c d e f g", filler: "X") == "one two three four five six seven X a b c d e f g")
        // A blank attached to a prefix keeps it; Arabic blanks written "……" count.
        #expect(ExamRules.completedFragment(stem: "يدور القمر حول ال…… مرة كل شهر", filler: "أرض") == "يدور القمر حول الأرض مرة كل شهر")
        #expect(ExamRules.completedFragment(stem: "No blank here.", filler: "x") == nil)
        #expect(ExamRules.blanks(in: "Two ____ blanks ...").count == 2)
    }

    /// The recorded example once had a stem whose words near the blank were the source's and whose
    /// start merged two sentences: the whole filled sentence is what must be found.
    @Test func aStemChangedFarFromItsBlankIsNotTheSource() throws {
        let corpus = try ExamCorpus(texts: [
            ("a.md", "The Lighthouse of Alexandria was completed around 275 B.C. Standing on Pharos Island at the entrance to the port, it lasted for about 1,600 years.")
        ])
        let merged = "The Lighthouse of Alexandria was completed around 275 B.C., the lighthouse stood on Pharos Island at the ____ to the port."
        let faithful = "Standing on Pharos Island at the ____ to the port, it lasted for about 1,600 years."
        #expect(corpus.contains(quote: try #require(ExamRules.completedFragment(stem: merged, filler: "entrance")), inDocument: "a.md") == .notFound)
        #expect(corpus.contains(quote: try #require(ExamRules.completedFragment(stem: faithful, filler: "entrance")), inDocument: "a.md") == .found)
    }

    @Test func aStemWrittenWithoutItsBlankGetsOneWhereTheKeyIsOnce() {
        #expect(ExamRules.blankingKey("The Nile floods every year.", key: "every") == "The Nile floods ____ year.")
        #expect(ExamRules.blankingKey("The Nile floods Every year.", key: "every") == "The Nile floods ____ year.")
        // Twice, or only inside a word, or a blank already there: unchanged.
        #expect(ExamRules.blankingKey("Every year the Nile floods every field.", key: "every") == "Every year the Nile floods every field.")
        #expect(ExamRules.blankingKey("Everything floods.", key: "every") == "Everything floods.")
        #expect(ExamRules.blankingKey("The Nile floods ____ year, every time.", key: "every") == "The Nile floods ____ year, every time.")
        #expect(ExamRules.blankingKey("يفيض النيل كل عام.", key: "كل") == "يفيض النيل ____ عام.")
    }

    @Test func aCompletionStemNeedsExactlyOneBlank() {
        func item(_ prompt: String) -> ExamItem {
            ExamItem(
                id: "v/c/easy-01", section: "v", category: "c", difficulty: .easy, difficultyLabel: "easy", prompt: prompt,
                options: ["source", "mouth", "delta", "bank"].enumerated().map { Choice(text: $1, correct: $0 == 0, feedback: "Because the text says so: \($1).") },
                explanation: "Read the sentence and find the word the text uses.", seconds: 30,
                sources: [SourceQuote(document: "d.md", quote: "A river begins at its source")], passage: nil,
                generation: GenerationInfo(attempts: 1, model: "m", prompt: "exam-item@2"))
        }
        let messages = { (prompt: String) in
            ExamRules.check(item(prompt), optionCount: 4, language: "en", format: .completion).map(\.message)
        }
        #expect(messages("A river begins at its ____, often a spring.").isEmpty)
        #expect(messages("Where does a river begin?").contains { $0.contains("the stem has no blank") })
        #expect(messages("A ____ begins at its ____.").contains { $0.contains("2 blanks") })
        #expect(ExamRules.check(item("Where does a river begin?"), optionCount: 4, language: "en").isEmpty)
        // Two sentences, the first ending in an abbreviation inside parentheses (the local model's stem).
        #expect(
            ExamRules.sourcelessIssues(
                prompt: "It ushered in what is today called the Hellenistic ____ (323-31 B.C.). Sightseers compiled guidebooks to Persia and Egypt.",
                format: .completion, language: "en"
            ).map(\.message) == ["the stem holds 2 sentences; a sentence-completion stem is the one sentence with the blank"])
    }

    @Test func anExplanationAboutTheItemInsteadOfToTheCandidateIsRefused() {
        var item = ExamItem(
            id: "v/v/medium-01", section: "v", category: "v", difficulty: .medium, difficultyLabel: "medium", prompt: "Where does a river begin?",
            options: ["At its source", "At its mouth", "At the delta", "At the bank"].enumerated().map {
                Choice(text: $1, correct: $0 == 0, feedback: "The text places the beginning \($1.lowercased()).")
            },
            explanation: "This question tests the learner's ability to find where a river begins.", seconds: 30,
            sources: [SourceQuote(document: "d.md", quote: "A river begins at its source")], passage: nil,
            generation: GenerationInfo(attempts: 1, model: "m", prompt: "exam-item@2"))
        #expect(
            ExamRules.check(item, optionCount: 4, language: "en").map(\.message) == [
                "'explanation' speaks about the question instead of to the learner ('the learner's'): the learner reads it; write to them about the subject, not about the question, its parts or its audience"
            ])
        item.explanation = "The first sentence says where a river begins: at its source, often a spring."
        #expect(ExamRules.check(item, optionCount: 4, language: "en").isEmpty)
    }

    @Test func aStemOpeningWithTheSourcesFieldLabelIsRefused() {
        let source = "Location: Africa, the second-largest continent.\nClimate: a wide equatorial band of hot and humid tropical climates is bordered north and south by subtropical temperate zones"
        let stem = "Climate: a wide equatorial band of hot and humid ____ climates is bordered north and south by subtropical temperate zones"
        #expect(
            ExamRules.copiedLabelIssues(prompt: stem, source: source).map(\.message) == [
                "the stem begins with 'Climate:', a label of the source text, not part of a sentence: write the question, or the sentence with the blank, without it"
            ])
        #expect(ExamRules.copiedLabelIssues(prompt: "Complete the sentence:\nClimate: a wide ____ band", source: source).count == 1)
        // An instruction before a colon is not the text's label; the sentence alone is fine.
        #expect(ExamRules.copiedLabelIssues(prompt: "Complete the sentence: a wide equatorial band of hot and humid ____ climates", source: source).isEmpty)
        #expect(ExamRules.copiedLabelIssues(prompt: "A wide equatorial band of hot and humid ____ climates is bordered north and south.", source: source).isEmpty)
        #expect(ExamRules.copiedLabelIssues(prompt: "Which continent is the second-largest?", source: source).isEmpty)
    }

    @Test func aKeyMuchLongerThanItsDistractorsIsRefusedInAnExamAndOnlyFlaggedInACourse() {
        // The recorded exam's vocabulary item: the key is the one long, careful option.
        let texts = ["A large land area with a climate, plants and animals of its own", "A type of plant", "A river", "A city"]
        var item = ExamItem(
            id: "v/v/easy-01", section: "v", category: "v", difficulty: .easy, difficultyLabel: "easy",
            prompt: "In the text, what does the word 'continent' mean?",
            options: texts.enumerated().map { Choice(text: $1, correct: $0 == 0, feedback: "The text describes '\($1.lowercased())'.") },
            explanation: "The text names Africa as one of the seven continents, a large land area.", seconds: 30,
            sources: [SourceQuote(document: "d.md", quote: "Africa is one of the seven continents")], passage: nil,
            generation: GenerationInfo(attempts: 1, model: "m", prompt: "exam-item@2"))
        let issues = ExamRules.check(item, optionCount: 4, language: "en")
        #expect(issues.warnings.isEmpty)
        #expect(
            issues.errors.map(\.message) == [
                "the correct option is much longer than the others (63 vs about 9 characters): its length alone may give it away; in an exam write every wrong option as long and as specific as the correct one, or shorten the correct one"
            ])
        #expect(issues.first?.kind == issues.first?.message)
        // The same options in a course question: a warning, counted by kind.
        #expect(QuestionRules.checkMultipleChoice(prompt: item.prompt, options: item.options).map(\.severity) == [.warning])
        item.options = ["A large land area", "A type of plant", "A wide river", "A city"].enumerated().map {
            Choice(text: $1, correct: $0 == 0, feedback: "The text describes '\($1.lowercased())'.")
        }
        #expect(ExamRules.check(item, optionCount: 4, language: "en").isEmpty)
    }
}

/// What a document has between two runs of words (wrong-word items).
struct CorpusGapTests {
    @Test func theWordsBetweenTwoRunsAreFoundAfterNormalization() throws {
        let corpus = try ExamCorpus(texts: [
            ("a.md", "Near the source the water moves *fast* and cuts deep, narrow valleys. The river is very wide here and there."),
            ("b.txt", "تدور الأرض حول الشمس مرة كل عام."),
        ])
        #expect(corpus.gaps(between: "near the source the water moves", and: "and cuts deep", inDocument: "a.md") == ["fast"])
        #expect(corpus.gaps(between: "The river is", and: "here", inDocument: "a.md") == ["very wide"])
        #expect(corpus.gaps(between: "", and: "the source the water", inDocument: "a.md") == ["near"])
        #expect(corpus.gaps(between: "narrow valleys the river", and: "", inDocument: "a.md") == ["is"])
        #expect(corpus.gaps(between: "the water runs", and: "and cuts", inDocument: "a.md").isEmpty)
        #expect(corpus.gaps(between: "تدور الأرض حول", and: "مرة كل عام", inDocument: "b.txt") == [GroundingText.normalize("الشمس")])
        #expect(corpus.gaps(between: "x", and: "y", inDocument: "missing.md").isEmpty)
    }

    @Test func aWrongWordItemsOptionsAreWordsOfItsSentence() {
        let options = ["slowly", "water", "deep", "rivers"].enumerated().map { Choice(text: $1, correct: $0 == 0, feedback: "See the sentence: \($1).") }
        let item = ExamItem(
            id: "v/e/medium-01", section: "v", category: "e", difficulty: .medium, difficultyLabel: "medium",
            prompt: "Which word is wrong in context: \"Near the source the water moves slowly and cuts deep, narrow valleys.\"",
            options: options, explanation: "Find the word that contradicts the rest of the sentence.", seconds: 45,
            sources: [SourceQuote(document: "a.md", quote: "Near the source the water moves fast")], passage: nil,
            generation: GenerationInfo(attempts: 1, model: "m", prompt: "exam-item@2"))
        let messages = ExamRules.check(item, optionCount: 4, language: "en", format: .wrongWord).map(\.message)
        #expect(messages == ["option 4 ('rivers') is not a word of the stem's sentence; every option of a wrong-word item is a word of the sentence, exactly as written there"])
        #expect(ExamRules.stemSentence(item.prompt) == "Near the source the water moves slowly and cuts deep, narrow valleys.")
    }
}

/// A fact question's key must be what its quote says.
struct StatedFactTests {
    @Test func anAnswerIsStatedWhenItsNumbersAndMostOfItsWordsAreQuoted() {
        let libya = "Northern Africa, bordering the Mediterranean Sea, between Libya and the Gaza Strip"
        #expect(ExamRules.unstated("Tripoli", in: libya) == "tripoli")
        let colosseum = "The Roman Emperor Vespasian began construction on the Colosseum in A.D. 72, and his son Titus completed it in A.D. 80."
        #expect(ExamRules.unstated("72", in: colosseum) == nil)
        #expect(ExamRules.unstated("A.D. 74", in: colosseum) == "74")
        #expect(ExamRules.unstated("It was completed by his son", in: colosseum) == nil)
        #expect(ExamRules.unstated("Its completion by Titus", in: colosseum) == nil, "completion ~ completed")
        #expect(ExamRules.unstated("seven", in: "Depending on the convention used, the number of continents can vary from five to seven.") == nil)
        #expect(ExamRules.unstated("القاهرة", in: "عاصمة مصر هي القاهرة، وهي أكبر مدنها.") == nil)
        #expect(ExamRules.unstated("الإسكندرية", in: "عاصمة مصر هي القاهرة، وهي أكبر مدنها.") != nil)
        #expect(ExamRules.unstated("the", in: libya) == nil, "no content word: nothing to check")
    }

    @Test func aFactItemWhoseKeyIsNotQuotedIsAnError() {
        let item = ExamItem(
            id: "f/s/easy-01", section: "f", category: "s", difficulty: .easy, difficultyLabel: "easy", prompt: "What is the capital of Libya?",
            options: ["Tripoli", "Sanaa", "Casablanca", "Kabul"].enumerated().map { Choice(text: $1, correct: $0 == 0, feedback: "See the text: \($1).") },
            explanation: "Find the sentence that names the capital.", seconds: 30,
            sources: [SourceQuote(document: "a.md", quote: "Northern Africa, bordering the Mediterranean Sea, between Libya and the Gaza Strip")],
            passage: nil, generation: GenerationInfo(attempts: 1, model: "m", prompt: "exam-item@2"))
        let messages = ExamRules.check(item, optionCount: 4, language: "en", format: .fact).map(\.message)
        #expect(messages.count == 1 && messages[0].hasPrefix("the correct option ('Tripoli') is not what the source quote says"))
        #expect(ExamRules.check(item, optionCount: 4, language: "en", format: .standard).isEmpty)
    }
}

/// A vocabulary item names a word of its quote, in quotation marks, and asks for its meaning.
struct VocabularyItemTests {
    static func item(_ prompt: String, key: String) -> ExamItem {
        ExamItem(
            id: "v/v/medium-01", section: "v", category: "v", difficulty: .medium, difficultyLabel: "medium", prompt: prompt,
            options: [key, "very cold", "high", "crowded"].enumerated().map { Choice(text: $1, correct: $0 == 0, feedback: "See the sentence: \($1).") },
            explanation: "Replace the word with each option and keep the one that fits the sentence.", seconds: 45,
            sources: [SourceQuote(document: "a.md", quote: "Most of the region is arid, with little rain.")], passage: nil,
            generation: GenerationInfo(attempts: 1, model: "m", prompt: "exam-item@2"))
    }

    static func messages(_ prompt: String, key: String = "very dry") -> [String] {
        ExamRules.check(item(prompt, key: key), optionCount: 4, language: "en", format: .vocabulary).map(\.message)
    }

    @Test func theWordAskedAboutIsQuotedFromTheSourceSentence() {
        #expect(Self.messages("In the sentence \"Most of the region is arid, with little rain.\", what does 'arid' mean?").isEmpty)
        #expect(Self.messages("What does “arid” mean in the text?").isEmpty)
        #expect(Self.messages("What is the capital of Libya?").first?.hasPrefix("the stem does not name, in quotation marks, a word of the source quote") == true)
        // An apostrophe is not a quotation mark; a quoted word not in the quote does not count.
        #expect(Self.messages("What does the region's 'climate' mean?").count == 1)
        #expect(Self.messages("What does 'arid' mean?", key: "arid").first?.hasPrefix("the correct option is the word asked about ('arid'); the options are meanings of the word") == true)
        #expect(Self.messages("What does 'regions' mean here?").isEmpty, "another form of the sentence's word")
        #expect(Self.messages("What does 'regions' mean?", key: "region").count == 1)
        #expect(ExamRules.quotedSpans(in: "the world's 'arid' lands, «قاحلة» and \"dry\"").sorted() == ["arid", "dry", "قاحلة"])
    }
}

/// The word a vocabulary item asks about is chosen by Lectern, in the sentence it is built on.
struct VocabularyWordTests {
    @Test func theLongestCommonWordOfTheSentenceIsAsked() {
        // The local model asked what 'seven' means here, and named 'continent' for "continents".
        #expect(ExamRules.vocabularyWord(in: "Depending on the convention used, the number of continents can vary from five to seven.", language: "en") == "convention")
        #expect(ExamRules.vocabularyWord(in: "The Roman Emperor Vespasian began construction on the Colosseum in A.D. 72.", language: "en") == "construction")
        #expect(ExamRules.vocabularyWord(in: "Antarctica's interior is among the driest places on Earth.", language: "en") == "interior", "names and function words are skipped")
        #expect(ExamRules.vocabularyWord(in: "It is 72 km long.", language: "en") == nil)
        #expect(ExamRules.vocabularyWord(in: "تتساقط الأمطار في فصل الشتاء.", language: "ar") == "الأمطار")
    }
}

/// Stems that cannot be answered as shown, and words with no meaning to ask for.
struct UnanswerableStemTests {
    @Test func aStemSpeakingOfTheUnseenSourceTextIsFound() {
        #expect(ExamRules.mentionsUnseenText("Which statement is true based on the information provided in the source text?", language: "en"))
        #expect(ExamRules.mentionsUnseenText("According to the text, what blows coastward?", language: "en"))
        #expect(ExamRules.mentionsUnseenText("What does the passage say about deserts?", language: "en"))
        #expect(!ExamRules.mentionsUnseenText("Which winds blow coastward from the high interior of Antarctica?", language: "en"))
        #expect(!ExamRules.mentionsUnseenText("In the sentence 'Most of the region is arid', what does 'arid' mean?", language: "en"))
        #expect(ExamRules.mentionsUnseenText("حسب النص، ما الذي يسبب الفيضان؟", language: "ar"))
        #expect(!ExamRules.mentionsUnseenText("ما الذي يسبب الفيضان؟", language: "ar"))
        // A table or figure that is not shown (the local model wrote this Arabic one).
        #expect(ExamRules.mentionsUnseenText("الجدول التالي يعطي مسافة التوقف بالأمتار. كم ستكون مسافة التوقف عند السرعة 160 km/h؟", language: "ar"))
        #expect(ExamRules.mentionsUnseenText("Using the table below, find the mean.", language: "en"))
        #expect(!ExamRules.mentionsUnseenText("A table has four legs; how many legs do three tables have?", language: "en"))
    }

    @Test func namesAndNumbersHaveNoMeaningToAskFor() {
        let quote = "The Roman Emperor Vespasian began construction on the Colosseum in A.D. 72."
        #expect(ExamRules.isNameOrNumber("Vespasian", in: quote))
        #expect(ExamRules.isNameOrNumber("72", in: quote))
        #expect(!ExamRules.isNameOrNumber("construction", in: quote))
        #expect(!ExamRules.isNameOrNumber("The", in: quote), "capital only at the sentence's start")
    }
}

/// An analogy gives a pair "A : B" of its quote's words; every option is a pair "C : D".
struct AnalogyItemTests {
    static let quote = "The Nile is the longest river in Africa."

    static func messages(_ prompt: String, options: [String], quote: String = AnalogyItemTests.quote, language: String = "en") -> [String] {
        let item = ExamItem(
            id: "v/a/medium-01", section: "v", category: "a", difficulty: .medium, difficultyLabel: "medium", prompt: prompt,
            options: options.enumerated().map { Choice(text: $1, correct: $0 == 0, feedback: "Compare the relations: \($1).") },
            explanation: "Name the relation of the first pair, then find the pair with the same one.", seconds: 45,
            sources: [SourceQuote(document: "a.md", quote: quote)], passage: nil, generation: GenerationInfo(attempts: 1, model: "m", prompt: "exam-item@3"))
        return ExamRules.check(item, optionCount: options.count, language: language, format: .analogy).map(\.message)
    }

    @Test func aWellFormedAnalogyPasses() {
        let options = ["Sahara : desert", "Africa : Nile", "mountain : Everest", "city : river"]
        #expect(Self.messages("Nile : river", options: options).isEmpty)
        #expect(Self.messages("Which pair has the same relation as Nile : river?", options: options).isEmpty)
        #expect(
            Self.messages(
                "النيل : نهر", options: ["الصحراء الكبرى : صحراء", "أفريقيا : النيل", "جبل : إيفرست", "مدينة : نهر"],
                quote: "النيل أطول نهر في أفريقيا.", language: "ar"
            ).isEmpty, "the article is not part of the word")
    }

    @Test func aStemWithoutAPairOrOptionsThatAreNotPairsAreErrors() {
        // What the local model wrote for التناظر اللفظي: a fact question with one-word options.
        let messages = Self.messages(
            "من الذي ينحدر التراث الفلكي للتونغان، مثل باقي التراثات النجمية للشعوب البولينيزية؟",
            options: ["البحرية", "الشعوب الفلكية", "العالم العربي", "العالم الإنجليزي"],
            quote: "ينحدر التراث الفلكي للتونغان، مثل باقي التراثات النجمية للشعوب البولينيزية، من التطبيق العملي للملاحة البحرية.", language: "ar")
        #expect(messages.first?.hasPrefix("the stem has no pair of words written 'A : B'") == true)
        #expect(messages.filter { $0.contains("is not a pair of words written 'C : D'") }.count == 4)
        // A lead-in colon is not a pair; a time is not a pair.
        #expect(ExamRules.analogyPair(in: "Choose the answer: which river is longest?") == nil)
        #expect(ExamRules.analogyPair("10:30") == nil)
        #expect(ExamRules.analogyPair(in: "as Nile:river?").map { [$0.0, $0.1] } == ["Nile", "river"])
    }

    @Test func thePairComesFromTheQuoteAndIsNotAnOption() {
        let outside = Self.messages("Amazon : river", options: ["Sahara : desert", "Africa : Nile", "mountain : Everest", "city : river"])
        #expect(outside == ["the stem's pair takes 'Amazon' from outside its source quote ('The Nile is the longest river in Africa.'): take both words of the pair from the quoted sentence"])
        let own = Self.messages("Nile : river", options: ["Sahara : desert", "Nile : river", "mountain : Everest", "city : river"])
        #expect(own.contains("option 2 ('Nile : river') is the stem's own pair; every option is another pair"))
    }
}

/// A standard or reading item's quote must be about its question: a quote sharing no word with the
/// stem and its key (a document's header line, a passage's opening words) supports nothing.
struct QuoteRelevanceTests {
    @Test func aQuoteThatSharesNoWordWithTheQuestionIsAnError() {
        func messages(prompt: String, key: String, quote: String, language: String, format: ExamCategory.Format = .standard) -> [String] {
            let item = ExamItem(
                id: "q/b/easy-01", section: "q", category: "b", difficulty: .easy, difficultyLabel: "easy", prompt: prompt,
                options: [key, "1", "3", "5"].enumerated().map { Choice(text: $1, correct: $0 == 0, feedback: "Work it out: \($1).") },
                explanation: "Compute step by step and compare.", seconds: 60,
                sources: [SourceQuote(document: "m.md", quote: quote)], passage: nil, generation: GenerationInfo(attempts: 1, model: "m", prompt: "exam-item@3"))
            return ExamRules.check(item, optionCount: 4, language: language, format: format).map(\.message)
        }
        // The local model's basic-operations item quoted the exam paper's header.
        let header = "ثانوية الدكتور أحمد عروة — السنة الدراسية: 2018-2017 — الشعبة: سنة ثالثة تسيير واقتصاد — المدة: ساعتان"
        let flagged = messages(prompt: "هل يمكن تأكد من أن المتتالية $(U_n)$ متناقصة؟", key: "نعم", quote: header, language: "ar")
        #expect(flagged.count == 1 && flagged[0].hasPrefix("the source quote ('ثانوية الدكتور"))
        #expect(messages(prompt: "ما الحد الأول للمتتالية الهندسية؟", key: "2", quote: "متتالية هندسية أساسها 1/4 وحدها الأول 2", language: "ar").isEmpty)
        #expect(messages(prompt: "How long is the river Nile, in km?", key: "6650", quote: "The Nile is 6,650 km long.", language: "en").isEmpty)
        // A reading question too: the local model quoted a passage's opening words for a question
        // on what the expeditions did.
        // (The helper's wrong options are numbers, so the key's length is flagged too.)
        let unsupported = { (messages: [String]) in messages.filter { $0.contains("shares no word with the question") } }
        let opening = messages(
            prompt: "What were the early British and American expeditions doing in Antarctica?",
            key: "exploring the Antarctic Peninsula region", quote: "Speculation over the existence of a", language: "en", format: .reading)
        #expect(unsupported(opening).count == 1 && opening.first?.hasPrefix("the source quote ('Speculation over the existence of a')") == true, "\(opening)")
        let grounded = messages(
            prompt: "What were the early expeditions doing?", key: "exploring the Antarctic Peninsula region",
            quote: "British and Russian national expeditions began exploring the Antarctic Peninsula region", language: "en", format: .reading)
        #expect(unsupported(grounded).isEmpty, "\(grounded)")
    }
}
