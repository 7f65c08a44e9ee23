import Foundation
import Testing

@testable import LecternCore

/// The quote corpus: fortune, CSV and JSON Lines readers, the sanitizer, attribution parsing,
/// the deterministic drops and duplicate detection, and the example corpus.
struct QuoteCorpusTests {
    static let repository = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func load(_ files: [String: String], _ sources: [QuoteSource], length: SizeRange = SizeRange(min: 10, max: 200)) throws -> QuoteCorpus {
        let root = try ExamCorpusTests.text(files)
        defer { try? FileManager.default.removeItem(at: root) }
        return try QuoteCorpus.load(sources, relativeTo: root, length: length)
    }

    static func issues(_ files: [String: Data], _ sources: [QuoteSource]) -> [CorpusIssue] {
        do {
            let root = try ExamCorpusTests.directory(files)
            defer { try? FileManager.default.removeItem(at: root) }
            _ = try QuoteCorpus.load(sources, relativeTo: root, length: SizeRange(min: 10, max: 200))
            return []
        } catch let error as CorpusError {
            return error.issues
        } catch {
            return [CorpusIssue(path: "?", message: "unexpected \(error)")]
        }
    }

    @Test func fortuneRecordsAttributionsAndWorks() throws {
        let fortune = """
            The impediment to action advances action. What stands in the way
            becomes the way.
            \t\t-- Marcus Aurelius, "Meditations"
            %
            Well begun is half done.
            \t\t-- Aristotle (384-322 BC)
            %
            Q: What do you call a fish with no eyes?
            A: A fsh.
            \t\t-- Old joke, Anonymous
            %
            There is no author here, only a sentence that is long enough.
            %
            Courage is grace under pressure, as they say in the papers.
            \t\t-- Ernest Hemingway, 1926
            %
            Kirk: Spock, are you there?
            Spock: I am always here, Captain, as you know.
            \t\t-- Star Trek
            %
            You must do the thing you think you cannot do.
            \t\t-- Anonymous
            %
            _\u{8}U_\u{8}n_\u{8}d_\u{8}e_\u{8}r_\u{8}l_\u{8}i_\u{8}n_\u{8}e_\u{8}d words are kept as plain letters here.
            \t\t-- Jane Doe
            """
        let corpus = try Self.load(["q/fortunes": fortune], [QuoteSource(path: "q/fortunes")])
        #expect(corpus.candidates.map(\.author) == ["Marcus Aurelius", "Aristotle", "Ernest Hemingway", "Jane Doe"])
        #expect(corpus.candidates[0].text == "The impediment to action advances action. What stands in the way becomes the way.")
        #expect(corpus.candidates[0].source == "Meditations")
        #expect(corpus.candidates[1].source == "")
        #expect(corpus.candidates[2].source == "", "a year alone is no work")
        #expect(corpus.candidates[3].text == "Underlined words are kept as plain letters here.")
        #expect(corpus.candidates[0].line == 1 && corpus.candidates[1].line == 5)
        #expect(corpus.report.read == 8)
        #expect(corpus.report.dropped[.noAuthor] == 3, "Anonymous, no attribution, and a joke attributed to Anonymous")
        #expect(corpus.report.dropped[.dialogue] == 1)
        #expect(corpus.report.drops.first { $0.reason == .dialogue }?.line == 17)
    }

    @Test func csvAndJSONLinesWithMalformedRowsByLine() throws {
        let csv = """
            text,author,source
            "Whatever you are, be a good one, and say it with ""grace"".",Abraham Lincoln,
            "A line break
            inside quotes is one field of one row.",Grace Hopper,Interview
            only one field
            """
        let jsonl = """
            {"text": "The best way out is always through, as the poem says.", "author": "Robert Frost", "source": "A Servant to Servants"}
            not json
            {"text": "No author field in this object at all, sadly."}

            {"quote": "Quote key works as well as the text key does.", "author": "Ada Lovelace"}
            """
        let corpus = try Self.load(
            ["a.csv": csv, "b.jsonl": jsonl], [QuoteSource(path: "a.csv"), QuoteSource(path: "b.jsonl")])
        #expect(corpus.candidates.map(\.author) == ["Abraham Lincoln", "Grace Hopper", "Robert Frost", "Ada Lovelace"])
        #expect(corpus.candidates[0].text == "Whatever you are, be a good one, and say it with \"grace\".")
        #expect(corpus.candidates[1].text == "A line break inside quotes is one field of one row.")
        #expect(corpus.candidates[1].source == "Interview" && corpus.candidates[1].line == 3)
        let malformed = corpus.report.drops.filter { $0.reason == .malformed }.map { "\($0.path):\($0.line)" }
        #expect(malformed == ["a.csv:5", "b.jsonl:2", "b.jsonl:3"])
        #expect(corpus.report.sources.map(\.kept) == [2, 2])
    }

    @Test func aCSVWhoseQuoteIsNeverClosedIsRefusedWhole() {
        // The open quote at line 2 runs on to line 3's quote: read leniently, Molecule's row would vanish.
        let csv = "text,author\n\"Atom is the smallest unit of an element,Democritus\nMolecule,\"Two or more atoms held together by bonds\"\n"
        let issues = Self.issues(["q.csv": Data(csv.utf8)], [QuoteSource(path: "q.csv")])
        #expect(issues.map(\.path) == ["q.csv"])
        #expect(issues.first?.message.contains("the quote opened at line 2 is never closed") == true, "\(issues)")
        #expect(issues.first?.message.contains("nothing of it is read") == true)
    }

    @Test func csvWithoutHeaderColumnsIsAnErrorNamingTheFile() {
        let issues = Self.issues(["x.csv": Data("quote;who\nA;B\n".utf8)], [QuoteSource(path: "x.csv")])
        #expect(issues.count == 1)
        #expect(issues.first?.path == "x.csv")
        #expect(issues.first?.message.contains("no 'text' and 'author' columns") == true)
    }

    @Test func unreadableFilesAreLocatedErrors() {
        let bad = Self.issues(
            ["latin.txt": Data([0x43, 0x61, 0x66, 0xE9, 0x0A]), "bin.dat": Data([0x41, 0x00, 0x42])],
            [QuoteSource(path: "latin.txt"), QuoteSource(path: "bin.dat"), QuoteSource(path: "missing.txt"), QuoteSource(path: ".")])
        #expect(bad.map(\.path) == ["latin.txt", "bin.dat", "missing.txt", "."])
        #expect(bad[0].message.contains("not valid UTF-8 at byte 3"))
        #expect(bad[1].message.contains("NUL byte at 1"))
        #expect(bad[2].message.contains("does not exist"))
        #expect(bad[3].message.contains("is a directory"))
    }

    @Test func sanitizerRemovesMarkupAndControlsOnly() {
        #expect(QuoteText.sanitize("  <i>Know</i> thyself.<br/>Then &amp; only then &#8212; act.\u{7}  ") == "Know thyself. Then & only then — act.")
        #expect(QuoteText.sanitize("\u{201C}Simplicity is the ultimate sophistication.\u{201D}") == "Simplicity is the ultimate sophistication.")
        #expect(QuoteText.sanitize("\"He said \"no\" twice.\"") == "\"He said \"no\" twice.\"", "inner quotes keep the outer pair")
        #expect(QuoteText.sanitize("Cafe\u{301} au\u{00A0}lait\u{200B}") == "Café au lait", "NFC; a no-break space is a space; zero-width characters go")
        #expect(QuoteText.hasOddCharacters("Use *bold* here"))
        #expect(QuoteText.hasOddCharacters("x = y + 1"))
        #expect(QuoteText.hasOddCharacters("I love it 😀"))
        #expect(!QuoteText.hasOddCharacters("Well — it's 50% done, isn't it? (Yes.)"))
        #expect(!QuoteText.hasOddCharacters("الصبر مفتاح الفرج، أليس كذلك؟"))
    }

    @Test func authorsThatNameNobodyAreRefused() {
        #expect(QuoteText.author("Mark Twain.") == "Mark Twain")
        #expect(QuoteText.author("Albert Einstein (1879-1955)") == "Albert Einstein")
        #expect(QuoteText.author("Aristotle (384-322 BC)") == "Aristotle")
        #expect(QuoteText.author("Pliny (c. 61-113)") == "Pliny")
        #expect(QuoteText.author("Mark Twain (Samuel Clemens)") == "Mark Twain (Samuel Clemens)", "only a date is removed")
        for nobody in ["Karl (maybe Groucho) Marx", "Oscar Wilde?", "Anonymous", "Chinese proverb", "Unknown", "Bumper sticker", "seen on a wall", "Murphy's Law", "", "--", "Graffiti"] {
            #expect(QuoteText.author(nobody) == nil, "\(nobody)")
        }
    }

    @Test func worksThatAreOnlyDatesArePages() {
        #expect(QuoteText.work("1926") == "" && QuoteText.work("p. 12") == "" && QuoteText.work("XIV, 3") == "" && QuoteText.work("ca. 1850") == "")
        #expect(QuoteText.work("\"Civil\"") == "Civil", "a word of roman-numeral letters is a title")
        #expect(QuoteText.work("\"Meditations\", Book IV.") == "\"Meditations\", Book IV")
    }

    @Test func exactAndNearDuplicatesKeepTheFirst() throws {
        let csv = """
            text,author
            "The journey of a thousand miles begins with one step.",Lao Tzu
            "The journey of a thousand miles begins with one step!",Laozi
            "“The Journey of a Thousand Miles begins with a single step.”",Lao-tzu
            "A journey of a thousand miles must begin with a single step.",Lao Tse
            "The journey of a thousand miles does not begin with one step.",Somebody Else
            "Short.",Someone
            """
        let corpus = try Self.load(["d.csv": csv], [QuoteSource(path: "d.csv")])
        #expect(corpus.candidates.map(\.author) == ["Lao Tzu", "Somebody Else"], "a negation is another saying")
        #expect(corpus.report.dropped[.duplicate] == 1)
        #expect(corpus.report.dropped[.nearDuplicate] == 2)
        #expect(corpus.report.dropped[.tooShort] == 1)
        #expect(corpus.report.drops.filter { $0.reason == .nearDuplicate }.allSatisfy { $0.duplicateOf == corpus.candidates[0].id }, "\(corpus.report.drops)")
    }

    @Test func idsDependOnNormalizedTextAndAuthorOnly() {
        let a = QuoteCorpus.id(text: "Know thyself.", author: "Socrates")
        #expect(a == QuoteCorpus.id(text: "know  thyself", author: "socrates."))
        #expect(a != QuoteCorpus.id(text: "Know thyself.", author: "Plato"))
        #expect(a.count == 13 && a.hasPrefix("q"))
    }

    /// The example's corpus: what cleaning keeps and drops.
    @Test func exampleCorpus() throws {
        let spec = try SpecLoader(presets: PresetLibrary(directories: [Self.repository.appendingPathComponent("pipelines/presets")]))
            .load(Self.repository.appendingPathComponent("pipelines/examples/echo-quotes.yaml"))
        let quotes = try #require(spec.quotes)
        let corpus = try QuoteCorpus.load(quotes.sources, relativeTo: spec.baseDirectory!, length: quotes.length)
        if ProcessInfo.processInfo.environment["LECTERN_PRINT_QUOTES"] != nil {
            print("read \(corpus.report.read) kept \(corpus.report.kept)", corpus.report.dropped.sorted { $0.key < $1.key })
            for s in corpus.report.sources { print(s.path, s.read, s.kept) }
            for c in corpus.candidates.shuffled().prefix(40) { print("  \(c.text) — \(c.author) [\(c.source)]") }
        }
        #expect(corpus.candidates.count == 494, "883 read from the three collections (docs/BENCHMARKS.md, Echo rebuilt)")
        #expect(corpus.candidates.allSatisfy { (50...200).contains($0.text.count) && !QuoteText.hasOddCharacters($0.text) })
        #expect(Set(corpus.candidates.map(\.id)).count == corpus.candidates.count)
    }
}
