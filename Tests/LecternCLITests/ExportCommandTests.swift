import Foundation
import LecternBundle
import Testing

/// `lectern export --format epub`, checked by epubcheck (Debian's, installed by `make test`): the
/// golden course, the math course replayed from its cassette, and an Arabic copy.
struct ExportCommandTests {
    typealias Directory = CheckCommandTests.Directory
    static let golden = CLITests.repository.appendingPathComponent("Tests/LecternCLITests/Fixtures/golden/python-basics/1.0.0")
    static let epubcheck = "/usr/share/java/epubcheck.jar"

    static func epubcheck(_ file: URL, in dir: URL) async throws -> CLITests.Output {
        try await CLITests.external(["-jar", epubcheck, file.path], in: dir, environment: [:], executable: URL(fileURLWithPath: "/usr/bin/java"))
    }

    static func entry(_ name: String, of epub: URL, in dir: URL) async throws -> String {
        try await CLITests.external(
            ["-c", "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(z.namelist()[0]); print(z.read(sys.argv[2]).decode())", epub.path, name],
            in: dir, environment: [:], executable: URL(fileURLWithPath: "/usr/bin/python3")
        ).stdout
    }

    /// An example's bundle replayed offline from its cassette into `dir`: its path.
    static func replayed(_ id: String, spec: String, in dir: URL) async throws -> URL {
        let repo = CLITests.repository
        let run = try await CLITests.lectern(
            [
                "run", spec, "--cache", "offline", "--cassette", repo.appendingPathComponent("pipelines/cassettes/\(id).jsonl").path,
                "--cache-dir", dir.appendingPathComponent("cache-\(id)").path, "--output", dir.appendingPathComponent("out").path,
            ], in: repo)
        #expect(run.status == 0, "\(run.stderr)")
        return dir.appendingPathComponent("out/\(id)/1.0.0")
    }

    @Test func aCourseExportsToAnEPUBThatEpubcheckAccepts() async throws {
        #expect(FileManager.default.fileExists(atPath: Self.epubcheck), "epubcheck is installed by make test (make test-deps: apt-get install epubcheck)")
        let dir = try Directory()
        let exported = try await CLITests.lectern(["export", Self.golden.path, "--format", "epub"], in: dir.root)
        #expect(exported.status == 0, "\(exported)")
        let epub = dir.root.appendingPathComponent("python-basics-1.0.0.epub")
        let check = try await Self.epubcheck(epub, in: dir.root)
        #expect(check.status == 0 && check.stdout.contains("No errors or warnings detected"), "\(check.stdout)\(check.stderr)")
        let opf = try await Self.entry("OEBPS/content.opf", of: epub, in: dir.root)
        #expect(opf.hasPrefix("mimetype\n"), "mimetype is the first entry")
        #expect(opf.contains("<dc:title>Introduction to Programming with Python</dc:title>"), "\(opf)")
        #expect(opf.components(separatedBy: "<itemref idref=\"l").count - 1 == 4, "the four lectures in the spine")
        #expect(!opf.contains("page-progression-direction"))
        // The same bundle, the same bytes.
        _ = try await CLITests.lectern(["export", Self.golden.path, "--format", "epub", "--output", "again.epub"], in: dir.root)
        #expect(try Data(contentsOf: epub) == Data(contentsOf: dir.root.appendingPathComponent("again.epub")))
        let unknown = try await CLITests.lectern(["export", Self.golden.path, "--format", "pdf"], in: dir.root)
        #expect(unknown.status == 2 && unknown.stderr.contains("there is no 'pdf' exporter; formats: epub, anki, qti, cc, scorm, csv, tsv, cards-tsv, cards-csv, moodle, json"), "\(unknown)")
    }

    /// Exports of one bundle in several formats land side by side under names of their own, and
    /// an existing file is replaced only with --force.
    @Test func eachFormatHasItsOwnFileNameAndNothingIsReplacedWithoutForce() async throws {
        let dir = try Directory()
        let names = [
            "epub": "python-basics-1.0.0.epub", "anki": "python-basics-1.0.0.apkg", "qti": "python-basics-1.0.0.qti.zip",
            "cc": "python-basics-1.0.0.imscc", "scorm": "python-basics-1.0.0.scorm.zip", "csv": "python-basics-1.0.0.csv",
            "tsv": "python-basics-1.0.0.tsv", "moodle": "python-basics-1.0.0.xml",
        ]
        for (format, name) in names.sorted(by: { $0.key < $1.key }) {
            let exported = try await CLITests.lectern(["export", Self.golden.path, "--format", format], in: dir.root)
            #expect(exported.status == 0 && exported.stdout.hasPrefix("wrote \(dir.root.appendingPathComponent(name).path) ("), "\(format): \(exported)")
        }
        let written = try FileManager.default.contentsOfDirectory(atPath: dir.root.path).filter { $0.hasPrefix("python-basics-") }
        #expect(Set(written) == Set(names.values), "\(written)")
        // The flashcard sets' names differ from the question tables'.
        let extensions = Exporters.all.map { $0.fileExtension }
        #expect(Set(extensions).count == extensions.count, "\(extensions)")
        #expect(Exporters.exporter(for: "cards-tsv")?.fileExtension == "cards.tsv" && Exporters.exporter(for: "cards-csv")?.fileExtension == "cards.csv")

        // Again: refused, the file kept; with --force, replaced.
        let qti = dir.root.appendingPathComponent("python-basics-1.0.0.qti.zip")
        try Data("kept".utf8).write(to: qti)
        let refused = try await CLITests.lectern(["export", Self.golden.path, "--format", "qti"], in: dir.root)
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.stderr == "error: \(qti.path) exists and was not replaced; pass --force to replace it, or --output PATH to write elsewhere\n", "\(refused)")
        #expect(try Data(contentsOf: qti) == Data("kept".utf8))
        let explicit = try await CLITests.lectern(["export", Self.golden.path, "--format", "csv", "--output", "python-basics-1.0.0.qti.zip"], in: dir.root)
        #expect(explicit.status == 2 && explicit.stderr.contains("exists and was not replaced"), "an --output that exists too: \(explicit)")
        let forced = try await CLITests.lectern(["export", Self.golden.path, "--format", "qti", "--force"], in: dir.root)
        #expect(forced.status == 0, "\(forced)")
        #expect(try Data(contentsOf: qti).prefix(2) == Data("PK".utf8))
        let help = try await CLITests.lectern(["export", "--help"], in: dir.root)
        #expect(help.stdout.contains("--force") && help.stdout.contains("scorm.zip for scorm"), "\(help.stdout)")
    }

    /// The question table, read back with Python's csv module: every question once, the key letter
    /// the option course.json marks correct, the TSV with the same rows; an exam bank's items too.
    @Test func questionsExportAsCSVAndTSV() async throws {
        let dir = try Directory()
        #expect(try await CLITests.lectern(["export", Self.golden.path, "--format", "csv"], in: dir.root).status == 0)
        #expect(try await CLITests.lectern(["export", Self.golden.path, "--format", "tsv"], in: dir.root).status == 0)
        let script = """
            import csv, json, sys
            rows = list(csv.DictReader(open(sys.argv[1], encoding='utf-8-sig', newline='')))
            assert open(sys.argv[1], 'rb').read(3) == b'\\xef\\xbb\\xbf', 'BOM'
            course = json.load(open(sys.argv[3]))
            keys = {}
            for s in course['subjects']:
                for t in s['topics']:
                    for name, q in [('engagement-question/' + t['id'], t['engagement_question']), ('bonus-question/' + t['id'], t['bonus_question'])] + [
                            ('reinforcement/%s/level-%d' % (t['id'], r['level']), r) for r in t['reinforcement']]:
                        keys[name] = ''.join('ABCDEF'[i] for i, o in enumerate(q.get('options', [])) if o['correct'])
            assert len(rows) == len(keys) == len({r['id'] for r in rows}), (len(rows), len(keys))
            assert all(keys[r['id']] == r['correct'] for r in rows)
            assert all(r['reference_answer'] for r in rows if r['format'] == 'free_text')
            tsv = [line.split('\\t') for line in open(sys.argv[2], encoding='utf-8').read().split('\\n') if line]
            assert len(tsv) == len(rows) + 1 and all(len(f) == 21 for f in tsv)
            assert [f[0] for f in tsv[1:]] == [r['id'] for r in rows]
            print(len(rows), sum(1 for r in rows if r['format'] == 'multiple_choice'))
            """
        let checked = try await CLITests.external(
            [
                "-c", script, dir.root.appendingPathComponent("python-basics-1.0.0.csv").path, dir.root.appendingPathComponent("python-basics-1.0.0.tsv").path,
                Self.golden.appendingPathComponent("course.json").path,
            ], in: dir.root, environment: [:], executable: URL(fileURLWithPath: "/usr/bin/python3"))
        #expect(checked.status == 0 && checked.stdout == "24 12\n", "\(checked)")

        // An exam bank, replayed from its cassette: one row an item, its section/category as topic.
        let exam = try await Self.replayed("world-geography-exam", spec: "pipelines/examples/world-geography-exam.yaml", in: dir.root)
        #expect(try await CLITests.lectern(["export", exam.path, "--format", "csv", "--output", "exam.csv"], in: dir.root).status == 0)
        let items = try await CLITests.external(
            [
                "-c",
                "import csv, json, sys; rows = list(csv.DictReader(open(sys.argv[1], encoding='utf-8-sig', newline=''))); bank = json.load(open(sys.argv[2]));"
                    + " assert [r['id'] for r in rows] == [i['id'] for i in bank['items']]; assert all(r['kind'] == 'exam-item' and len(r['correct']) == 1 for r in rows);"
                    + " print(len(rows))",
                dir.root.appendingPathComponent("exam.csv").path, exam.appendingPathComponent("exam.json").path,
            ], in: dir.root, environment: [:], executable: URL(fileURLWithPath: "/usr/bin/python3"))
        #expect(items.status == 0 && items.stdout == "7\n", "\(items)")
    }

    @Test func mathLecturesAndArabicPassEpubcheck() async throws {
        let dir = try Directory()
        let bundle = try await Self.replayed("intro-probability", spec: "pipelines/examples/intro-probability.yaml", in: dir.root)
        let epub = dir.root.appendingPathComponent("probability.epub")
        #expect(try await CLITests.lectern(["export", bundle.path, "--format", "epub", "--output", epub.path], in: dir.root).status == 0)
        let check = try await Self.epubcheck(epub, in: dir.root)
        #expect(check.status == 0 && check.stdout.contains("No errors or warnings detected"), "\(check.stdout)\(check.stderr)")
        #expect(try await Self.entry("OEBPS/content.opf", of: epub, in: dir.root).contains("properties=\"mathml\""))

        // Moodle XML of the same course: well-formed (whatever control characters recorded answers
        // hold; StoredZipTests covers them); one category per topic; each
        // multiple-choice question with one answer at 100 %, each free-text one an essay with its
        // reference answer for the grader.
        let moodle = dir.root.appendingPathComponent("bank.xml")
        #expect(try await CLITests.lectern(["export", bundle.path, "--format", "moodle", "--output", moodle.path], in: dir.root).status == 0)
        let moodleCheck = """
            import json, sys, xml.etree.ElementTree as ET
            quiz = ET.parse(sys.argv[1]).getroot()
            course = json.load(open(sys.argv[2]))
            topics = [t for s in course['subjects'] for t in s['topics']]
            questions = [q for q in quiz if q.get('type') != 'category']
            assert quiz.tag == 'quiz' and len([q for q in quiz if q.get('type') == 'category']) == len(topics)
            expected = sum(2 + len(t.get('reinforcement', [])) for t in topics)
            assert len(questions) == expected, (len(questions), expected)
            for q in questions:
                assert q.find('name/text').text and q.find('questiontext').get('format') == 'html' and q.find('questiontext/text').text
                if q.get('type') == 'multichoice':
                    assert [a.get('fraction') for a in q.findall('answer')].count('100') == 1 and q.find('single').text == 'true'
                    assert all(a.find('feedback/text').text for a in q.findall('answer'))
                else:
                    assert q.get('type') == 'essay' and len(q.find('graderinfo/text').text) > 10
            text = open(sys.argv[1], encoding='utf-8').read()
            assert '<math' not in text and text.count('\\(') > 20, 'formulas as TeX for the MathJax filter'
            print(len(questions), sum(1 for q in questions if q.get('type') == 'multichoice'))
            """
        let parsed = try await CLITests.external(
            ["-c", moodleCheck, moodle.path, bundle.appendingPathComponent("course.json").path], in: dir.root, environment: [:],
            executable: URL(fileURLWithPath: "/usr/bin/python3"))
        #expect(parsed.status == 0 && parsed.stdout == "14 7\n", "seven topics: an engagement and a bonus question each: \(parsed)")

        // The same course marked Arabic: right-to-left page progression, and still valid.
        let arabic = dir.root.appendingPathComponent("arabic")
        try FileManager.default.copyItem(at: bundle, to: arabic)
        let script = """
            import hashlib, json, sys
            b = sys.argv[1]
            m = json.load(open(b + '/manifest.json')); m['language'] = 'ar'
            json.dump(m, open(b + '/manifest.json', 'w'))
            """
        _ = try await CLITests.external(["-c", script, arabic.path], in: dir.root, environment: [:], executable: URL(fileURLWithPath: "/usr/bin/python3"))
        let rtl = dir.root.appendingPathComponent("rtl.epub")
        #expect(try await CLITests.lectern(["export", arabic.path, "--format", "epub", "--output", rtl.path], in: dir.root).status == 0)
        let opf = try await Self.entry("OEBPS/content.opf", of: rtl, in: dir.root)
        #expect(opf.contains("page-progression-direction=\"rtl\"") && opf.contains("<dc:language>ar</dc:language>"), "\(opf)")
        let rtlCheck = try await Self.epubcheck(rtl, in: dir.root)
        #expect(rtlCheck.status == 0, "\(rtlCheck.stdout)\(rtlCheck.stderr)")
    }
}
