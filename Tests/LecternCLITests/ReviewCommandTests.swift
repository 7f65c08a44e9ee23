import Foundation
import LecternCore
import Testing

/// `lectern review` as a reviewer uses it (issue 47): the golden bundle served on loopback and
/// decided on in headless Chromium with the pages' scripts off; `--list`; `package
/// --require-review`; `diff` of review states; the server refusing what it must.
struct ReviewCommandTests {
    typealias Directory = CheckCommandTests.Directory
    static let golden = PreviewCommandTests.golden

    /// `lectern review … --port 0` running, its address read from its first line.
    final class Server {
        let process = Process()
        let base: String

        init(_ arguments: [String], in directory: URL) throws {
            process.executableURL = CLITests.binary
            process.arguments = arguments
            process.currentDirectoryURL = directory
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            var bytes = Data()
            while !bytes.contains(10) {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                bytes += chunk
            }
            let line = String(decoding: bytes, as: UTF8.self)
            guard let match = line.firstMatch(of: /(http:\/\/127\.0\.0\.1:\d+)\//) else {
                throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "lectern review said: \(line)"])
            }
            base = String(match.1)
        }

        deinit {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    static func python(_ script: String, _ arguments: [String], in directory: URL) async throws -> CLITests.Output {
        try await CLITests.external(["-c", script] + arguments, in: directory, executable: URL(fileURLWithPath: "/usr/bin/python3"))
    }

    @Test func aReviewerApprovesRejectsAndEditsInChromiumAndTheFileHoldsIt() async throws {
        let dir = try Directory()
        let file = dir.root.appendingPathComponent("python-basics.review.yaml")
        let server = try Server(
            ["review", Self.golden.path, "--review-file", file.path, "--port", "0", "--reviewer", "Ada Lovelace"], in: dir.root)
        let note = "The third option's feedback says a value cannot change in a program; it can."
        let edited = "What would you count with a variable in a game?"
        let driver = try await CLITests.external(
            [
                CLITests.fixtures.appendingPathComponent("servers/review-in-chromium.py").path, server.base, "lecture/s01-t01",
                "engagement-question/s01-t01", "bonus-question/s01-t01", "prompt", note, edited,
            ], in: dir.root, executable: URL(fileURLWithPath: "/usr/bin/python3"))
        #expect(driver.status == 0, "\(driver.stderr.suffix(3_000))")
        let shown = try #require(try JSONSerialization.jsonObject(with: Data(driver.stdout.utf8)) as? [String: Any], "\(driver.stdout)")
        #expect(shown["approve"] as? String == "approved" && shown["reject"] as? String == "rejected" && shown["edit"] as? String == "edited", "\(shown)")
        #expect(shown["scripts_disabled"] as? Bool == true)
        let list = try #require(shown["list"] as? [String: String])
        #expect(list["lecture/s01-t01"] == "approved" && list["engagement-question/s01-t01"] == "rejected" && list["bonus-question/s01-t01"] == "edited")
        #expect(list.values.filter { $0 == "pending" }.count == list.count - 3)

        // The file holds the three decisions, each on the answer the bundle holds.
        let decisions = try ReviewFile.read(file)
        #expect(decisions.decisions.count == 3)
        #expect(decisions["lecture/s01-t01"]?.kind == .approve && decisions["lecture/s01-t01"]?.by == "Ada Lovelace")
        #expect(decisions["engagement-question/s01-t01"]?.kind == .reject && decisions["engagement-question/s01-t01"]?.note == note)
        let edit = try #require(decisions["bonus-question/s01-t01"])
        #expect(edit.kind == .edit && edit.fields.map(\.path) == ["prompt"] && edit.fields.first?.text == edited)

        // --list says the same, and names the note.
        let listed = try await CLITests.lectern(["review", Self.golden.path, "--review-file", file.path, "--list"], in: dir.root)
        #expect(listed.status == 0)
        #expect(listed.stdout.contains("approved  lecture/s01-t01") && listed.stdout.contains("rejected  engagement-question/s01-t01"), "\(listed.stdout)")
        #expect(listed.stdout.contains(note) && listed.stdout.contains("29 pending, 1 approved, 1 edited, 1 rejected, 0 stale"), "\(listed.stdout)")

        // Refused: a form from a page loaded before the item's decision changed (two tabs); a
        // form posted from another site; a Host that is not this server's.
        let refusals = """
            import re, sys, urllib.request, urllib.parse, urllib.error, http.client
            base = sys.argv[1]
            page = urllib.request.urlopen(base + '/item?id=tone-preview').read().decode()
            token = re.search(r'name="token" value="([0-9a-f]+)"', page).group(1)
            def post(data, headers={}):
                request = urllib.request.Request(base + '/decide', data=urllib.parse.urlencode(data).encode(), headers=headers, method='POST')
                try:
                    with urllib.request.urlopen(request) as r: return r.status
                except urllib.error.HTTPError as e: return e.code
            # The first tab approves; the second, loaded before, tries to reject.
            first = post({'item': 'tone-preview', 'token': token, 'action': 'approve'})
            second = post({'item': 'tone-preview', 'token': token, 'action': 'reject', 'note': 'too long'})
            page = urllib.request.urlopen(base + '/item?id=tone-preview').read().decode()
            fresh = re.search(r'name="token" value="([0-9a-f]+)"', page).group(1)
            foreign = post({'item': 'tone-preview', 'token': fresh, 'action': 'clear'}, {'Origin': 'http://attacker.example'})
            empty_note = post({'item': 'tone-preview', 'token': fresh, 'action': 'reject', 'note': '  '})
            connection = http.client.HTTPConnection(base.split('//')[1])
            connection.request('GET', '/', headers={'Host': 'attacker.example'})
            print(first, second, foreign, empty_note, connection.getresponse().status)
            # A note of two lines, as a browser sends a textarea's: CR LF between them.
            page = urllib.request.urlopen(base + '/item?id=lecture/s02-t01').read().decode()
            token = re.search(r'name="token" value="([0-9a-f]+)"', page).group(1)
            print(post({'item': 'lecture/s02-t01', 'token': token, 'action': 'reject', 'note': 'Two faults.\\r\\nThe second line.'}))
            """
        let refused = try await Self.python(refusals, [server.base], in: dir.root)
        #expect(refused.stdout == "200 409 403 422 421\n200\n", "303 followed to 200; then two tabs, another site, an empty note, another host; a note: \(refused)")
        #expect(try ReviewFile.read(file)["tone-preview"]?.kind == .approve, "the refused decisions changed nothing")
        #expect(try ReviewFile.read(file)["lecture/s02-t01"]?.note == "Two faults.\nThe second line.", "the note as the model will read it, without CR")

        // Editing the answer a rejection judged: the Edit form offers the rejection's note as
        // the edit's reason, and the decision keeps it (the rejection's note is not lost).
        let editing = """
            import html, re, sys, urllib.request, urllib.parse
            base = sys.argv[1]
            page = urllib.request.urlopen(base + '/item?id=lecture/s02-t01').read().decode()
            form = page.split('class="edit">')[1].split('</form>')[0]
            token = re.search(r'name="token" value="([0-9a-f]+)"', form).group(1)
            fields = re.findall(r'<textarea name="(field:[^"]+)"[^>]*>(.*?)</textarea>', form, re.S)
            note = re.search(r'<textarea name="note"[^>]*>(.*?)</textarea>', form, re.S).group(1)
            data = [(name, html.unescape(text)) for name, text in fields]
            data[0] = (data[0][0], data[0][1] + '\\n\\nA sentence the reviewer added.')
            data += [('item', 'lecture/s02-t01'), ('token', token), ('action', 'edit'), ('note', html.unescape(note))]
            request = urllib.request.Request(base + '/decide', data=urllib.parse.urlencode(data).encode(), method='POST')
            print(urllib.request.urlopen(request).status, repr(html.unescape(note)))
            """
        let edited2 = try await Self.python(editing, [server.base], in: dir.root)
        #expect(edited2.stdout == "200 'Two faults.\\nThe second line.'\n", "\(edited2)")
        let lectureEdit = try #require(try ReviewFile.read(file)["lecture/s02-t01"])
        #expect(lectureEdit.kind == .edit && lectureEdit.note == "Two faults.\nThe second line.", "\(lectureEdit)")
        #expect(lectureEdit.fields.count == 1 && lectureEdit.fields[0].text.hasSuffix("A sentence the reviewer added."), "\(lectureEdit.fields)")
    }

    /// Each item's page shows what the item stands with, so that a reviewer can judge it without
    /// another window: a distractor's card and quiz, a reading set's passage, a bonus question's
    /// topic and the engagement question it must not repeat, each with a link into the preview.
    @Test func anItemPageShowsWhatTheItemStandsWith() async throws {
        let dir = try Directory()
        let deck = try await ExportCommandTests.replayed("chemistry-deck", spec: "pipelines/examples/chemistry-deck.yaml", in: dir.root)
        let exam = try await ExportCommandTests.replayed("world-geography-exam", spec: "pipelines/examples/world-geography-exam.yaml", in: dir.root)
        let quotes = try await ExportCommandTests.replayed("echo-quotes", spec: "pipelines/examples/echo-quotes.yaml", in: dir.root)
        let fetch = """
            import sys, urllib.request, urllib.parse, re, html
            base = sys.argv[1]
            page = urllib.request.urlopen(base + '/item?id=' + urllib.parse.quote(sys.argv[2])).read().decode()
            context = page.split('<h2>The answer</h2>')[0]
            link = re.search(r'<a href="(/preview/[^"#]+)[^"]*">See it in the preview</a>', context)
            status = urllib.request.urlopen(base + link.group(1)).status if link else 'no-link'
            print(status, html.unescape(re.sub(r'<[^>]+>', ' ', context.split('What it stands with')[-1])))
            """
        for (bundle, item, expected) in [
            (deck, "distractors/c016", ["The card", "Avogadro's number", "Its quiz as it ships", "6.022 × 10^23 particles per mole  ✓ (the card's back)"]),
            (exam, "reading-set/p02", ["The passage (p02", "The most important characteristic of a desert biome"]),
            (Self.golden, "bonus-question/s01-t01", ["Topic", "The engagement question it must not repeat"]),
            (
                quotes, "tag/b0e761aab890a",
                [
                    // As the example ships it: with its reviewer's tags (echo-quotes.review.yaml).
                    "3. “Experience is simply the name we give our mistakes.” — Oscar Wilde", "ships tagged Struggle, Reflection · Literature",
                    // The model's opening has a curly apostrophe, the quote a straight one.
                    "7. “I didn't fail the test. I just found 100 ways to do it wrong.” — Benjamin Franklin",
                ]
            ),
            // A batch whose later rounds asked again for some of its quotes: the first round's
            // page still finds its batch's quotes, and a later round's finds them too.
            (quotes, "tag/b113d07842602", ["2. “Life is what we make it, always has been, always will be.” — Grandma Moses"]),
            (quotes, "tag/b113d07842602/round-2", ["ships tagged"]),
            // Each answer beside the quotation its number names (curation.json lists what each
            // call asked): an answer whose opening begins another quote did not count, and the
            // page says so — the quote was asked again, and a later round decided it.
            (
                quotes, "tag/b6972b1de91fb",
                [
                    "14. “I avoid looking forward or backward, and try to keep looking upward.” — Charlotte Bronte",
                    "this answer's opening, “There is only one way to”, does not begin it: not taken (asked again in the next round)",
                ]
            ),
            // A quote the model rejected is shown whole, so that a reviewer can judge the rejection.
            (
                quotes, "tag/b2830ab1f9317",
                [
                    "2. “A poorly implemented feature hurts more than not having it at all.” — Noah Everett, founder of Twitpic",
                    "left out: rejected (not-encouraging)",
                ]
            ),
        ] {
            let server = try Server(
                ["review", bundle.path, "--review-file", dir.root.appendingPathComponent("r.review.yaml").path, "--port", "0", "--reviewer", "A"], in: dir.root)
            let shown = try await Self.python(fetch, [server.base, item], in: dir.root)
            // A tagging batch has no page of its own in the preview; the others link to theirs, and it resolves.
            #expect(shown.stdout.hasPrefix(item.hasPrefix("tag/") ? "no-link " : "200 "), "\(item): the preview link: \(shown)")
            for text in expected { #expect(shown.stdout.contains(text), "\(item): \(text) in \(shown.stdout.prefix(1_500))") }
        }
    }

    /// An item the model never wrote an answer for that passed (python-collections' review run,
    /// its review file as the second reading left it, before a person wrote those items: its
    /// engagement question on lists was refused eight times) is listed as failed, shown with its
    /// last answer and what was wrong, and offered for a person to write — not to approve or
    /// reject; the person's text is then checked and ships at the next run, with no model call.
    @Test func aFailedItemIsListedShownAndWrittenByAPerson() async throws {
        let dir = try Directory()
        let repo = CLITests.repository
        for (from, to) in [
            (repo.appendingPathComponent("pipelines/examples/python-collections.yaml"), "python-collections.yaml"),
            (CLITests.fixtures.appendingPathComponent("reviews/python-collections.second-reading.review.yaml"), "python-collections.review.yaml"),
        ] {
            try FileManager.default.copyItem(at: from, to: dir.root.appendingPathComponent(to))
        }
        func replay(_ output: String) async throws -> CLITests.Output {
            try await CLITests.lectern(
                [
                    "run", "python-collections.yaml", "--cache", "offline", "--cassette", repo.appendingPathComponent("pipelines/reviews/python-collections.jsonl").path,
                    "--cache-dir", dir.root.appendingPathComponent("cache").path, "--presets", repo.appendingPathComponent("pipelines/presets").path,
                    "--allow-partial", "--output", output, "--log-format", "text",
                ], in: dir.root)
        }
        let first = try await replay("partial")
        #expect(first.status == 1, "\(first.stderr.suffix(1_500))")
        let bundle = dir.root.appendingPathComponent("partial/python-collections/1.0.0")
        let id = "engagement-question/s01-t01"
        let list = try await CLITests.lectern(["review", bundle.path, "--spec", "python-collections.yaml", "--list"], in: dir.root)
        #expect(list.stdout.contains("failed    \(id)") && list.stdout.contains("no answer passed the checks"), "\(list.stdout)")
        #expect(list.stdout.hasSuffix("4 failed\n"), "\(list.stdout)")

        let server = try Server(["review", bundle.path, "--spec", "python-collections.yaml", "--port", "0", "--reviewer", "Grace Hopper"], in: dir.root)
        let decide = #"""
            import sys, re, html, json, urllib.request, urllib.parse, urllib.error
            base, item = sys.argv[1], sys.argv[2]
            page = urllib.request.urlopen(base + '/item?id=' + urllib.parse.quote(item)).read().decode()
            token = re.search(r'name="token" value="([0-9a-f]+)"', page).group(1)
            shown = {'failed': 'No answer of the model' in page, 'wrong': 'What was wrong' in page and 'a reviewer rejected this answer' in page,
                     'last': 'Create a list and access its elements' in page, 'approve_form': 'value="approve"' in page, 'reject_form': 'value="reject"' in page}
            def post(data):
                request = urllib.request.Request(base + '/decide', data=urllib.parse.urlencode(data).encode(), method='POST')
                try:
                    return urllib.request.urlopen(request).status
                except urllib.error.HTTPError as e:
                    return e.code
            shown['approve'] = post({'item': item, 'token': token, 'action': 'approve'})
            fields = json.loads(sys.argv[3])
            data = {'item': item, 'token': token, 'action': 'edit', 'note': 'Written by hand: the model never asked a question.'}
            data.update({'field:' + k: v for k, v in fields.items()})
            shown['edit'] = post(data)
            print(json.dumps(shown))
            """#
        let fields = [
            "prompt": "With my_list = [1, 2, 3, 4, 5], what does print(my_list[1]) print?",
            "correct_answer.text": "2",
            "correct_answer.feedback": "Right: a list's positions are counted from 0, so my_list[1] is the second item, 2.",
            "wrong_answers[0].text": "1",
            "wrong_answers[0].feedback": "No: 1 is my_list[0], the first item. Counting starts at 0, so index 1 is the second item.",
            "wrong_answers[1].text": "3",
            "wrong_answers[1].feedback": "No: 3 is my_list[2], the third item. Index 1 is one place after the start, not two.",
            "wrong_answers[2].text": "An IndexError",
            "wrong_answers[2].feedback": "No: a list of five items has the indexes 0 to 4, so index 1 is inside it.",
            "explanation": "Python counts a list's positions from 0: my_list[0] is 1, my_list[1] is 2 and my_list[2] is 3. So print(my_list[1]) prints 2.",
        ]
        let decided = try await Self.python(decide, [server.base, id, String(decoding: try JSONSerialization.data(withJSONObject: fields), as: UTF8.self)], in: dir.root)
        let shown = try #require(try JSONSerialization.jsonObject(with: Data(decided.stdout.utf8)) as? [String: Any], "\(decided)")
        #expect(shown["failed"] as? Bool == true && shown["wrong"] as? Bool == true && shown["last"] as? Bool == true, "\(shown)")
        #expect(shown["approve_form"] as? Bool == false && shown["reject_form"] as? Bool == false, "\(shown)")
        #expect(shown["approve"] as? Int == 422 && shown["edit"] as? Int == 200, "\(shown)")
        let edit = try #require(try ReviewFile.read(dir.root.appendingPathComponent("python-collections.review.yaml"))[id])
        #expect(edit.kind == .edit && edit.by == "Grace Hopper" && edit.fields.count == fields.count, "\(edit)")

        // The next run keeps the person's question (checked like any answer) without a call.
        let second = try await replay("written")
        let written = dir.root.appendingPathComponent("written/python-collections/1.0.0")
        let seal = try ReviewSeal.read(try Data(contentsOf: written.appendingPathComponent("review.json")))
        #expect(seal.items.first { $0.id == id }?.state == .edited, "\(second.stderr.suffix(2_000))")
        let course = try JSONDecoder().decode(Course.self, from: try Data(contentsOf: written.appendingPathComponent("course.json")))
        #expect(course.subjects[0].topics[0].engagementQuestion?.prompt == fields["prompt"])
    }

    /// A copy of python-basics' spec in `dir` with its review file there, replayed offline from its
    /// recorded cassette with the repository's presets.
    static func replay(_ dir: URL, output: String) async throws -> CLITests.Output {
        try await CLITests.lectern(
            [
                "run", "python-basics.yaml", "--cache", "offline", "--cassette", CLITests.repository.appendingPathComponent("pipelines/cassettes/python-basics.jsonl").path,
                "--cache-dir", dir.appendingPathComponent("cache").path, "--presets", CLITests.repository.appendingPathComponent("pipelines/presets").path,
                "--output", output, "--log-format", "text",
            ], in: dir)
    }

    @Test func approvalsReplayOfflineAndAPublisherCanRequireThem() async throws {
        let dir = try Directory()
        try FileManager.default.copyItem(
            at: CLITests.repository.appendingPathComponent("pipelines/examples/python-basics.yaml"), to: dir.root.appendingPathComponent("python-basics.yaml"))
        // Unreviewed, the golden bundle cannot be published where review is required.
        let keys = dir.root.appendingPathComponent("keys")
        _ = try await CLITests.lectern(["keys", "generate", "--output", keys.path, "--name", "p"], in: dir.root)
        let packageArguments = [
            "--listing", PackageCommandTests.listing, "--key", keys.appendingPathComponent("p.key").path, "--require-review", "--output", "x.lectern",
        ]
        let refused = try await CLITests.lectern(["package", Self.golden.path] + packageArguments, in: dir.root)
        #expect(refused.status == 1 && refused.stderr.contains("31 of 32 items are not approved or edited"), "\(refused.stderr)")
        #expect(refused.stderr.contains("engagement-question/s01-t01"))

        // Approve every item as the golden bundle holds it: the replay calls nothing and seals them.
        let seal = try ReviewSeal.read(try Data(contentsOf: Self.golden.appendingPathComponent("review.json")))
        var file = ReviewFile(file: "python-basics.review.yaml")
        for item in seal.items {
            file.record(
                ReviewFile.Decision(
                    item: item.id, kind: .approve, content: item.content, basis: item.basis, answer: item.answer, by: "Ada Lovelace",
                    at: "2026-11-28T12:00:00Z"))
        }
        try file.write(to: dir.root.appendingPathComponent("python-basics.review.yaml"))
        let run = try await Self.replay(dir.root, output: "approved")
        #expect(run.status == 0, "\(run.stderr.suffix(2_000))")
        let bundle = dir.root.appendingPathComponent("approved/python-basics/1.0.0")
        let sealed = try ReviewSeal.read(try Data(contentsOf: bundle.appendingPathComponent("review.json")))
        #expect(sealed.counts.approved == 32 && sealed.counts.pending == 0, "\(sealed.counts)")
        // The content is the golden's, byte for byte: review changed the seal, not the course.
        for name in ["course.json", "lectures/01-01-understanding-values.md", "lectures/01-01-understanding-values.xhtml"] {
            #expect(try Data(contentsOf: bundle.appendingPathComponent(name)) == Data(contentsOf: Self.golden.appendingPathComponent(name)), "\(name)")
        }
        let verified = try await CLITests.lectern(["verify", bundle.path], in: dir.root)
        #expect(verified.stdout.contains("review: 32 items: 32 approved, 0 edited, 0 pending"), "\(verified.stdout)")
        let packaged = try await CLITests.lectern(["package", bundle.path] + packageArguments, in: dir.root)
        #expect(packaged.status == 0, "\(packaged.stderr)")

        // diff names each item whose review changed, with the fields.
        let diff = try await CLITests.lectern(["diff", Self.golden.path, bundle.path], in: dir.root)
        #expect(diff.status == 1)
        #expect(diff.stdout.contains("changed  review/engagement-question/s01-t01"), "\(diff.stdout.prefix(2_000))")
        #expect(diff.stdout.contains("state: \"pending\" → \"approved\"") || diff.stdout.contains("state: pending → approved"), "\(diff.stdout.prefix(2_000))")
    }
}
