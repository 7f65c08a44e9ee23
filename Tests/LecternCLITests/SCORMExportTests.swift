import Foundation
import Testing

/// `lectern export --format scorm`. There is no SCORM 1.2 conformance checker to be had here (ADL's
/// test suite is a Windows program; no registry package carries one), so the package is checked
/// against the content packaging rules a player applies, and every SCO is run in headless
/// Chromium against a recording SCORM 1.2 `API`, as an LMS frame would host it.
struct SCORMExportTests {
    typealias Directory = CheckCommandTests.Directory

    /// The manifest read as an LMS reads it: namespaces, the default organization, every item's
    /// resource, every resource's files in the package and every package file in a resource.
    static let manifestCheck = """
        import sys, zipfile, xml.etree.ElementTree as ET
        z = zipfile.ZipFile(sys.argv[1])
        names = set(z.namelist())
        CP = '{http://www.imsproject.org/xsd/imscp_rootv1p1p2}'
        ADL = '{http://www.adlnet.org/xsd/adlcp_rootv1p2}'
        root = ET.fromstring(z.read('imsmanifest.xml'))
        assert root.tag == CP + 'manifest', root.tag
        assert root.find(CP + 'metadata/' + CP + 'schema').text == 'ADL SCORM'
        assert root.find(CP + 'metadata/' + CP + 'schemaversion').text == '1.2'
        ids = [e.get('identifier') for e in root.iter() if e.get('identifier')]
        assert len(ids) == len(set(ids)), 'identifiers are unique'
        orgs = root.find(CP + 'organizations')
        default = [o for o in orgs if o.get('identifier') == orgs.get('default')]
        assert len(default) == 1 and default[0].find(CP + 'title').text
        resources = {r.get('identifier'): r for r in root.find(CP + 'resources')}
        listed = set()
        for r in resources.values():
            assert r.get('type') == 'webcontent' and r.get(ADL + 'scormtype') in ('sco', 'asset')
            files = [f.get('href') for f in r.findall(CP + 'file')]
            assert all(f in names for f in files), files
            listed.update(files)
            if r.get('href'): assert r.get('href') in files
            for d in r.findall(CP + 'dependency'): assert d.get('identifierref') in resources
        assert names - listed == {'imsmanifest.xml'}, names - listed
        leaves = [i for i in default[0].iter(CP + 'item') if i.get('identifierref')]
        assert all(resources[i.get('identifierref')].get(ADL + 'scormtype') == 'sco' for i in leaves)
        assert all(i.find(CP + 'title').text for i in default[0].iter(CP + 'item'))
        print(len(leaves), len([i for i in default[0] if i.tag == CP + 'item']))
        """

    /// Each SCO of `package`, run in a frame of a harness page that plays the LMS: what it did.
    static func run(_ package: URL, in dir: URL) async throws -> [[String: Any]] {
        let chromium = URL(fileURLWithPath: "/usr/bin/chromium")
        let site = dir.appendingPathComponent(package.deletingPathExtension().lastPathComponent)
        _ = try await CLITests.external(
            ["-c", "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])", package.path, site.path], in: dir,
            executable: URL(fileURLWithPath: "/usr/bin/python3"))
        let scos = try FileManager.default.contentsOfDirectory(atPath: site.appendingPathComponent("sco").path).filter { $0.hasSuffix(".html") }.sorted()
        // The LMS side: a SCORM 1.2 API that records every call, a frame for each SCO. In each,
        // the first question is answered right, every other one wrong (then right, which must not
        // count); then the frame is navigated away.
        let harness = """
            <!DOCTYPE html><html><body><script>
            const scos = \(String(decoding: try JSONSerialization.data(withJSONObject: scos.map { "sco/" + $0 }), as: UTF8.self));
            let calls = [], store = {};
            window.API = {
              LMSInitialize: a => { calls.push(['LMSInitialize']); return 'true'; },
              LMSFinish: a => { calls.push(['LMSFinish']); return 'true'; },
              LMSGetValue: k => { calls.push(['LMSGetValue', k]); return store[k] || ''; },
              LMSSetValue: (k, v) => { calls.push(['LMSSetValue', k, v]); store[k] = v; return 'true'; },
              LMSCommit: a => { calls.push(['LMSCommit']); return 'true'; },
              LMSGetLastError: () => '0', LMSGetErrorString: () => '', LMSGetDiagnostic: () => ''
            };
            const results = []; let i = 0;
            function next() {
              if (i >= scos.length) { const pre = document.createElement('pre'); pre.id = 'out'; pre.textContent = JSON.stringify(results); document.body.appendChild(pre); return; }
              calls = []; store = {};
              const f = document.createElement('iframe'); f.style.width = '900px'; f.style.height = '700px';
              f.onload = () => {
                const w = f.contentWindow, d = f.contentDocument, errors = [];
                w.addEventListener('error', e => errors.push(String(e.message)));
                const questions = [...d.querySelectorAll('.lectern-question[data-scored]')];
                const statusAfterLoad = store['cmi.core.lesson_status'];
                let feedbackShown = 0;
                questions.forEach((q, n) => {
                  const buttons = [...q.querySelectorAll('.lectern-options button')];
                  const right = buttons.find(b => b.dataset.correct === 'true'), wrong = buttons.find(b => b.dataset.correct === 'false');
                  (n === 0 ? right : wrong).click();
                  if (n > 0) right.click();
                  feedbackShown += [...q.querySelectorAll('.lectern-feedback')].filter(x => !x.hidden).length;
                });
                const maths = [...d.getElementsByTagNameNS('http://www.w3.org/1998/Math/MathML', 'math')];
                const empty = maths.filter(m => { const r = m.getBoundingClientRect(); return !(r.width > 0 && r.height > 0) && !m.closest('details:not([open]), [hidden]'); });
                f.onload = () => {
                  results.push({sco: scos[i], questions: questions.length, statusAfterLoad, feedbackShown, math: maths.length, empty: empty.length, errors, calls});
                  f.remove(); i++; next();
                };
                f.src = 'about:blank';
              };
              f.src = scos[i]; document.body.appendChild(f);
            }
            next();
            </script></body></html>
            """
        try harness.write(to: site.appendingPathComponent("lms.html"), atomically: true, encoding: .utf8)
        let browser = try await CLITests.external(
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files", "--virtual-time-budget=60000", "--enable-logging=stderr", "--v=0", "--dump-dom",
                site.appendingPathComponent("lms.html").absoluteString,
            ], in: dir, environment: [:], executable: chromium)
        let json = try #require(browser.stdout.firstMatch(of: /<pre id="out">(.*?)<\/pre>/)?.1, "\(browser.stdout.suffix(500)) \(browser.stderr.suffix(500))")
        let results = try #require(
            try JSONSerialization.jsonObject(with: Data(String(json).replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&").utf8))
                as? [[String: Any]])
        // Chromium logs every console message of every frame (a script error, a console.error): none.
        #expect(!browser.stderr.contains(":CONSOLE"), "\(browser.stderr.split(separator: "\n").filter { $0.contains(":CONSOLE") })")
        return results
    }

    @Test func eachTopicIsAnSCOThatReportsToTheLMS() async throws {
        let chromium = URL(fileURLWithPath: "/usr/bin/chromium")
        #expect(FileManager.default.fileExists(atPath: chromium.path), "Debian's chromium is installed by make test (make test-deps)")
        let dir = try Directory()
        let bundle = try await ExportCommandTests.replayed("intro-probability", spec: "pipelines/examples/intro-probability.yaml", in: dir.root)
        let package = dir.root.appendingPathComponent("probability-scorm.zip")
        let exported = try await CLITests.lectern(["export", bundle.path, "--format", "scorm", "--output", package.path], in: dir.root)
        #expect(exported.status == 0, "\(exported)")
        let manifest = try await CLITests.external(["-c", Self.manifestCheck, package.path], in: dir.root, executable: URL(fileURLWithPath: "/usr/bin/python3"))
        #expect(manifest.status == 0 && manifest.stdout == "7 3\n", "seven topic SCOs under three subjects: \(manifest)")
        // The same bundle, the same bytes; an exam is refused with the reason.
        _ = try await CLITests.lectern(["export", bundle.path, "--format", "scorm", "--output", "again.zip"], in: dir.root)
        #expect(try Data(contentsOf: package) == Data(contentsOf: dir.root.appendingPathComponent("again.zip")))

        let results = try await Self.run(package, in: dir.root)
        #expect(results.count == 7)
        var formulas = 0
        var scored = 0
        for result in results {
            let sco = result["sco"] as? String ?? ""
            let questions = result["questions"] as? Int ?? 0
            let calls = (result["calls"] as? [[String]]) ?? []
            #expect(questions >= 1, "\(sco): the engagement question is multiple choice")
            scored += questions
            #expect((result["errors"] as? [String])?.isEmpty == true, "\(sco): \(result["errors"] ?? "")")
            #expect(result["empty"] as? Int == 0, "\(sco): every formula laid out")
            formulas += result["math"] as? Int ?? 0
            #expect(result["statusAfterLoad"] as? String == "incomplete", "\(sco)")
            #expect(result["feedbackShown"] as? Int == 1 + 2 * (questions - 1), "\(sco): each chosen option's feedback")
            #expect(calls.first == ["LMSInitialize"] && calls.last == ["LMSFinish"], "\(sco): \(calls)")
            #expect(calls.filter { $0 == ["LMSFinish"] }.count == 1)
            let sets = calls.filter { $0.first == "LMSSetValue" }
            #expect(sets.last(where: { $0[1] == "cmi.core.lesson_status" })?[2] == "completed", "\(sco): \(sets)")
            // One right at the first try; the rest wrong first.
            let expected = String(Int((100.0 / Double(max(questions, 1))).rounded()))
            #expect(sets.last(where: { $0[1] == "cmi.core.score.raw" })?[2] == expected, "\(sco): \(sets)")
            #expect(sets.contains(["LMSSetValue", "cmi.core.score.max", "100"]))
        }
        #expect(formulas > 50, "the lectures' formulas are in the SCOs")
        #expect(scored == 7, "the seven multiple-choice questions (the bonus questions are free text)")
    }

    /// The Python course: an engagement question and four reinforcement levels a topic, all
    /// multiple choice, so a second answer (the right one, after a wrong one) must not count.
    @Test func aSecondAnswerDoesNotChangeTheScore() async throws {
        let dir = try Directory()
        let package = dir.root.appendingPathComponent("python.zip")
        #expect(try await CLITests.lectern(["export", ExportCommandTests.golden.path, "--format", "scorm", "--output", package.path], in: dir.root).status == 0)
        let results = try await Self.run(package, in: dir.root)
        #expect(results.count == 4)
        for result in results {
            let calls = (result["calls"] as? [[String]]) ?? []
            let scores = calls.filter { $0.first == "LMSSetValue" && $0[1] == "cmi.core.score.raw" }.map { $0[2] }
            let questions = result["questions"] as? Int ?? 0
            #expect(questions >= 2, "\(result["sco"] ?? "")")
            // The running score after each first answer: right, then each wrong one.
            #expect(scores == (1...questions).map { _ in String(Int((100.0 / Double(questions)).rounded())) }, "\(result["sco"] ?? ""): \(scores)")
            #expect(calls.filter { $0 == ["LMSSetValue", "cmi.core.lesson_status", "completed"] }.count == 1, "completed once, when the last is answered")
        }
    }

    @Test func anExamIsRefusedWithTheReason() async throws {
        let dir = try Directory()
        let exam = try await ExportCommandTests.replayed("world-geography-exam", spec: "pipelines/examples/world-geography-exam.yaml", in: dir.root)
        let refused = try await CLITests.lectern(["export", exam.path, "--format", "scorm"], in: dir.root)
        #expect(refused.status != 0 && refused.stderr.contains("a bundle of kind exam does not export as scorm; it exports as anki, qti, csv, tsv, moodle"), "\(refused)")
    }
}
