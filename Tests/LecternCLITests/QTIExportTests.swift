import Foundation
import Testing

/// `lectern export --format qti`. No registry package carries the QTI 3.0 schemas (1EdTech
/// publishes them on its site only), so the package is checked two ways: against the rules of
/// the schema and the 1EdTech examples, by a script that reads it as a test player would
/// (children in schema order, every reference resolving, the key as course.json or exam.json
/// has it); and by Citolab's qti-convert (PyPI, pinned in `make test-tools`), which reads the
/// whole package and converts it to QTI 2.1 with nothing lost but the attributes QTI 2.1 lacks.
struct QTIExportTests {
    typealias Directory = CheckCommandTests.Directory

    static let check = """
        import json, sys, zipfile, xml.etree.ElementTree as ET
        z = zipfile.ZipFile(sys.argv[1])
        names = set(z.namelist())
        content = json.load(open(sys.argv[2]))
        Q = '{http://www.imsglobal.org/xsd/imsqtiasi_v3p0}'
        CP = '{http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1}'
        M = '{http://www.w3.org/1998/Math/MathML}'
        manifest = ET.fromstring(z.read('imsmanifest.xml'))
        assert manifest.tag == CP + 'manifest'
        resources = {r.get('identifier'): r for r in manifest.find(CP + 'resources')}
        listed = set()
        for r in resources.values():
            files = [f.get('href') for f in r.findall(CP + 'file')]
            assert r.get('href') in files and all(f in names for f in files), files
            listed.update(files)
            assert all(d.get('identifierref') in resources for d in r.findall(CP + 'dependency'))
        assert names - listed == {'imsmanifest.xml'}, names - listed
        types = [r.get('type') for r in resources.values()]
        # The order of an item's children in the schema (imsqti_asiv3p0: AssessmentItem.Type).
        order = ['qti-context-declaration', 'qti-response-declaration', 'qti-outcome-declaration', 'qti-template-declaration',
                 'qti-template-processing', 'qti-assessment-stimulus-ref', 'qti-companion-materials-info', 'qti-stylesheet',
                 'qti-item-body', 'qti-response-processing', 'qti-modal-feedback']
        if 'subjects' in content:
            keys = {}
            for s in content['subjects']:
                for t in s['topics']:
                    for name, q in [('engagement-question_' + t['id'], t['engagement_question']), ('bonus-question_' + t['id'], t['bonus_question'])]:
                        keys[name] = q
                    for q in t.get('reinforcement') or []:
                        keys['reinforcement_%s_level-%d' % (t['id'], q['level'])] = q
                    for n, q in enumerate(t.get('practice') or []):
                        keys['practice_%s_q-%02d' % (t['id'], n + 1)] = q
        else:
            keys = {i['id'].replace('/', '_'): i for i in content['items']}
        items = math = stimuli = free = 0
        for ident, r in resources.items():
            root = ET.fromstring(z.read(r.get('href')))
            if r.get('type') == 'imsqti_stimulus_xmlv3p0':
                assert root.tag == Q + 'qti-assessment-stimulus' and root.find(Q + 'qti-stimulus-body') is not None
                stimuli += 1
                continue
            if r.get('type') == 'imsqti_test_xmlv3p0':
                refs = list(root.iter(Q + 'qti-assessment-item-ref'))
                assert [x.get('identifier') for x in refs] == [d.get('identifierref') for d in r.findall(CP + 'dependency')]
                assert all(ET.fromstring(z.read(x.get('href'))).get('identifier') == x.get('identifier') for x in refs)
                sections = len(list(root.iter(Q + 'qti-assessment-section')))
                continue
            assert r.get('type') == 'imsqti_item_xmlv3p0' and root.tag == Q + 'qti-assessment-item', r.get('type')
            assert root.get('identifier') == ident and root.get('title') and root.get('time-dependent') == 'false'
            children = [c.tag[len(Q):] for c in root]
            assert children == sorted(children, key=order.index), children
            for ref in root.findall(Q + 'qti-assessment-stimulus-ref'):
                target = r.get('href').rsplit('/', 1)[0] + '/' + ref.get('href')
                assert ref.get('identifier') in [d.get('identifierref') for d in r.findall(CP + 'dependency')]
                assert ET.fromstring(z.read(target.replace('items/../', ''))).get('identifier') == ref.get('identifier')
            body = root.find(Q + 'qti-item-body')
            math += len(list(body.iter(M + 'math')))
            source = keys[ident]
            options = source.get('options') or []
            choice = body.find('.//' + Q + 'qti-choice-interaction')
            if options:
                choices = [c.get('identifier') for c in choice.findall(Q + 'qti-simple-choice')]
                assert len(choices) == len(options)
                correct = [v.text for v in root.find(Q + 'qti-response-declaration').iter(Q + 'qti-value')]
                assert correct == [choices[i] for i, o in enumerate(options) if o['correct']], (ident, correct)
                assert [f.get('identifier') for f in root.findall(Q + 'qti-modal-feedback')] == choices
                assert all(f.find(Q + 'qti-content-body') is not None for f in root.findall(Q + 'qti-modal-feedback'))
                assert root.find(Q + 'qti-response-processing') is not None
            else:
                assert choice is None and body.find('.//' + Q + 'qti-extended-text-interaction') is not None
                rubric = body.find('.//' + Q + 'qti-rubric-block')
                assert rubric.get('view') == 'scorer' and rubric.find(Q + 'qti-content-body') is not None
                free += 1
            items += 1
        assert items == len(keys), (items, len(keys))
        print(items, free, stimuli, sections, math)
        """

    /// Citolab's converter reads the package and writes QTI 2.1: what it reports, and whether
    /// every key survived.
    static let convert = """
        import sys, xml.etree.ElementTree as ET
        from qti_convert import downgrade_package
        result = downgrade_package(sys.argv[1])
        Q = '{http://www.imsglobal.org/xsd/imsqti_v2p1}'
        items = [ET.fromstring(v) for k, v in result.files.items() if k.startswith('items/')]
        keys = sum(1 for i in items if i.find(Q + 'responseDeclaration/' + Q + 'correctResponse') is not None)
        codes = sorted({(w.code, w.message.split(' is ')[0]) for w in result.warnings})
        print(len(items), keys)
        for code in codes: print(*code)
        """

    static func checked(_ bundle: URL, document: String, in dir: URL) async throws -> (check: String, convert: [String]) {
        let package = dir.appendingPathComponent(bundle.deletingLastPathComponent().lastPathComponent + "-qti.zip")
        let exported = try await CLITests.lectern(["export", bundle.path, "--format", "qti", "--output", package.path], in: dir)
        #expect(exported.status == 0, "\(exported)")
        let check = try await CLITests.external(
            ["-c", Self.check, package.path, bundle.appendingPathComponent(document).path], in: dir, executable: URL(fileURLWithPath: "/usr/bin/python3"))
        #expect(check.status == 0, "\(check.stderr)")
        #expect(AnkiExportTests.toolsInstalled(), "qti-convert is installed by `make test-tools` into \(AnkiExportTests.python.path)")
        let convert = try await CLITests.external(["-c", Self.convert, package.path], in: dir, executable: AnkiExportTests.python)
        #expect(convert.status == 0, "\(convert.stderr)")
        return (check.stdout, convert.stdout.split(separator: "\n").map(String.init))
    }

    @Test func aCoursesQuestionsBecomeScoredItemsAndATest() async throws {
        let dir = try Directory()
        let bundle = try await ExportCommandTests.replayed("intro-probability", spec: "pipelines/examples/intro-probability.yaml", in: dir.root)
        let result = try await Self.checked(bundle, document: "course.json", in: dir.root)
        // 14 items (7 free text), no stimuli, a section a topic, the formulas as MathML (5 in the
        // questions recorded under the trust checks).
        let numbers = result.check.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(numbers.count == 5 && numbers[0] == 14 && numbers[1] == 7 && numbers[2] == 0 && numbers[3] == 7 && numbers[4] >= 5, "\(result.check)")
        // Converted whole; the only losses are QTI 3.0's human-scoring and rubric-use attributes.
        #expect(result.convert.first == "14 7", "\(result.convert)")
        #expect(
            Array(result.convert.dropFirst()) == [
                "removed-attribute Attribute \"external-scored\" on qti-outcome-declaration", "removed-attribute Attribute \"use\" on qti-rubric-block",
            ], "\(result.convert)")
        // The same bundle, the same bytes.
        let first = try Data(contentsOf: dir.root.appendingPathComponent("intro-probability-qti.zip"))
        _ = try await CLITests.lectern(["export", bundle.path, "--format", "qti", "--output", "again.zip"], in: dir.root)
        #expect(first == (try Data(contentsOf: dir.root.appendingPathComponent("again.zip"))))
    }

    /// Practice sets join a course's items: a true/false statement is a choice of two, keyed
    /// as course.json has it, and the package converts like any other.
    @Test func practiceQuestionsAreScoredItemsToo() async throws {
        let dir = try Directory()
        let bundle = try await ExportCommandTests.replayed("python-collections", spec: "pipelines/examples/python-collections.yaml", in: dir.root)
        let result = try await Self.checked(bundle, document: "course.json", in: dir.root)
        // 12 items: per topic an engagement and a bonus question (free text) and 4 practice questions.
        let numbers = result.check.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(numbers.count == 5 && numbers[0] == 12 && numbers[1] == 2, "\(result.check)")
        #expect(result.convert.first == "12 10", "\(result.convert)")
    }

    @Test func anExamBanksPassagesAreSharedStimuli() async throws {
        let dir = try Directory()
        let bundle = try await ExportCommandTests.replayed("world-geography-exam", spec: "pipelines/examples/world-geography-exam.yaml", in: dir.root)
        let result = try await Self.checked(bundle, document: "exam.json", in: dir.root)
        #expect(result.check.hasPrefix("7 0 2 "), "7 items, 2 passages: \(result.check)")
        // The converter inlines each shared passage into its items (QTI 2.1 has no stimuli): four items read one.
        #expect(result.convert.first == "7 7", "\(result.convert)")
        #expect(
            Array(result.convert.dropFirst()) == [
                "stimulus-inlined Shared stimulus \"passage-p01\" was inlined into the item body.", "stimulus-inlined Shared stimulus \"passage-p02\" was inlined into the item body.",
            ], "\(result.convert)")
    }
}
