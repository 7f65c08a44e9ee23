import Foundation
import LecternBundle
import LecternCore
import LecternLLM
import Testing

@testable import LecternPipeline

/// A person's decisions (issue 47) through the real runner, engine, cache and bundle writer: an
/// approval pins its answer across a change of tone, a rejection is asked again with the note,
/// an edit replaces the model's text and is checked like any answer, and the bundle seals it all.
struct ReviewRunTests {
    static let note = "The key says the topic helps structure programs, but the lecture never says so; ask what the lecture teaches."

    /// A first run of the course, and the spec with its review file set.
    static func firstRun(_ ws: Workspace) async throws -> (JobSpec, ReviewSeal) {
        var spec = try Workspace.spec(Specs.python)
        spec.reviewFile = ws.root.appendingPathComponent("python-basics.review.yaml")
        let first = try await ws.run(spec, provider: try RecordingProvider(script: ws.script()))
        guard case .written(let dir)? = first.bundle else { throw PipelineError("no bundle: \(first.failures)") }
        let seal = try ReviewSeal.read(try #require(Workspace.files(dir)[ReviewSeal.fileName]))
        return (spec, seal)
    }

    static func decision(_ kind: ReviewFile.Kind, _ item: ReviewSeal.Item, note: String? = nil, fields: [(path: String, text: String)] = []) -> ReviewFile.Decision {
        ReviewFile.Decision(
            item: item.id, kind: kind, content: item.content, basis: kind == .reject ? nil : item.basis, answer: kind == .reject ? nil : item.answer,
            fields: fields, note: note, by: "Ada Lovelace", at: "2026-11-28T10:12:00Z")
    }

    /// A TeX command whose backslash a JSON escape ate (`\frac` read as a form feed and "rac") is
    /// repaired before the item is built: the answer a reviewer reads and edits is the repaired
    /// one, not control characters an edit would send back.
    @Test func theReviewedAnswerIsTheOneTheChecksRead() throws {
        let eaten = #"{"prompt": "What is $\frac{1}{2}$ of 4?", "explanation": "Half of 4 is $4 \times \frac{1}{2} = 2$."}"#
        let shipped = try #require(ShippedAnswer.mended(eaten))
        let fields = AnswerFields.fields(of: shipped)
        #expect(fields.map(\.path) == ["prompt", "explanation"])
        #expect(fields.first?.text == #"What is $\frac{1}{2}$ of 4?"#)
        #expect(fields.last?.text == #"Half of 4 is $4 \times \frac{1}{2} = 2$."#)
        #expect(ShippedAnswer.mended(shipped) == nil, "repaired once")
        #expect(ShippedAnswer.mended(#"{"prompt": "What is half of 4?"}"#) == nil, "nothing to repair: the model's text stands")
        #expect(ShippedAnswer.mended("# A lecture\n\nNo JSON here.") == nil)
    }

    @Test func decisionsSteerTheNextRunAndAreSealedInTheBundle() async throws {
        let ws = try Workspace()
        var (spec, seal) = try await Self.firstRun(ws)
        #expect(seal.items.count == 39 && seal.items.allSatisfy { $0.state == .pending }, "\(seal.counts)")
        #expect(seal.reviewFile == nil, "no review file yet")
        func item(_ id: String) throws -> ReviewSeal.Item { try #require(seal.items.first { $0.id == id }, "\(id)") }
        var file = ReviewFile(file: "python-basics.review.yaml")
        file.record(Self.decision(.approve, try item("lecture/s01-t01")))
        file.record(Self.decision(.reject, try item("engagement-question/s01-t01"), note: Self.note))
        // (Not s01-t01's bonus question: it is built from the engagement question rejected here.)
        file.record(Self.decision(.edit, try item("bonus-question/s01-t02"), fields: [("prompt", "When would a loop save you from writing the same line twice?")]))
        try file.write(to: try #require(spec.reviewFile))

        // The tone changes (every prompt with it), and a new version is written.
        spec.tone.text = "calm and precise, with worked examples"
        spec.version = "1.1.0"
        let replacement: JSONValue = [
            "item": "engagement-question/s01-t01", "attempt": 2,
            "json": [
                "prompt": "What does a variable do in a Python program?", "explanation": "The lecture shows a variable naming a value.",
                "topic_id": "s01-t01",
                "correct_answer": ["text": "It names a value so the program can use it later", "feedback": "Right: that is what the lecture shows."],
                "wrong_answers": [
                    ["text": "It prints a value on the screen", "feedback": "No: print does that."],
                    ["text": "It repeats a block of code", "feedback": "No: a loop does that."],
                    ["text": "It stops the program", "feedback": "No: nothing in the lecture stops a program."],
                ],
            ],
        ]
        let provider = try RecordingProvider(script: ws.script(extra: [replacement]))
        let result = try await ws.run(spec, provider: provider, renderer: MarkdownDocumentRenderer())
        #expect(result.status == .complete, "\(result.failures)")
        guard case .written(let dir)? = result.bundle else { throw PipelineError("no bundle") }
        let files = Workspace.files(dir)

        // Approved: kept, no call, though its prompt changed with the tone; its neighbour is asked.
        #expect(!provider.calledItems.contains("lecture/s01-t01"))
        #expect(provider.calledItems.contains("lecture/s01-t02"))
        // Rejected: asked again with the reviewer's note as the repair message.
        let repair = provider.requests.filter { $0.0.itemID == "engagement-question/s01-t01" && $0.0.attempt == 2 }
        #expect(repair.count == 1)
        #expect(repair.first?.1.messages.last?.content.contains("a reviewer rejected this answer: " + Self.note) == true)
        // Edited: the reviewer's text in the bundle, checked and rendered.
        let course = try JSONDecoder().decode(Course.self, from: try #require(files["course.json"]))
        let bonus = try #require(course.subjects[0].topics[1].bonusQuestion)
        #expect(bonus.prompt == "When would a loop save you from writing the same line twice?")
        #expect(bonus.promptXHTML?.contains("When would a loop save you") == true)
        #expect(course.subjects[0].topics[0].engagementQuestion?.prompt == "What does a variable do in a Python program?")

        let sealed = try ReviewSeal.read(try #require(files[ReviewSeal.fileName]))
        let states = Dictionary(uniqueKeysWithValues: sealed.items.map { ($0.id, $0) })
        #expect(states["lecture/s01-t01"]?.state == .approved && states["lecture/s01-t01"]?.by == "Ada Lovelace")
        #expect(states["bonus-question/s01-t02"]?.state == .edited)
        // The rejected question's bonus question was built from it: asked again, and still pending.
        #expect(states["bonus-question/s01-t01"]?.state == .pending)
        #expect(states["engagement-question/s01-t01"]?.state == .pending && states["engagement-question/s01-t01"]?.rejected == Self.note)
        #expect(sealed.counts.approved == 1 && sealed.counts.edited == 1 && sealed.counts.rejected == 1 && sealed.counts.stale == 0)
        #expect(sealed.counts.pending == sealed.items.count - 2)
        #expect(sealed.reviewFile == "python-basics.review.yaml" && sealed.reviewFileSHA256 != nil)
        // Where each item now stands against the file: the new question is no longer the one
        // rejected, and waits to be read (pending, not a stale decision: the run acted on it).
        let reread = try ReviewFile.read(try #require(spec.reviewFile))
        #expect(states["lecture/s01-t01"]?.status(reread["lecture/s01-t01"]) == .approved)
        #expect(states["bonus-question/s01-t02"]?.status(reread["bonus-question/s01-t02"]) == .edited)
        #expect(states["engagement-question/s01-t01"]?.status(reread["engagement-question/s01-t01"]) == .pending)
        let quality = try JSONDecoder().decode(QualityReport.self, from: try #require(files[QualityReport.fileName]))
        #expect(quality.review == sealed.counts)
        #expect(quality.summaryLines.contains { $0.contains("1 approved, 1 edited") }, "\(quality.summaryLines)")
    }

    @Test func anApprovalOfAnUnchangedItemKeepsTheModelsHistory() async throws {
        let ws = try Workspace()
        var (spec, seal) = try await Self.firstRun(ws)
        var file = ReviewFile(file: "python-basics.review.yaml")
        file.record(Self.decision(.approve, try #require(seal.items.first { $0.id == "engagement-question/s01-t01" })))
        try file.write(to: try #require(spec.reviewFile))
        spec.version = "1.1.0"
        let provider = try RecordingProvider(script: ws.script())
        let result = try await ws.run(spec, provider: provider)
        guard case .written(let dir)? = result.bundle else { throw PipelineError("no bundle: \(result.failures)") }
        #expect(provider.calls.isEmpty, "every answer, the approved one's included, came from the cache")
        let files = Workspace.files(dir)
        let sealed = try ReviewSeal.read(try #require(files[ReviewSeal.fileName]))
        #expect(sealed.items.first { $0.id == "engagement-question/s01-t01" }?.state == .approved)
        // Its attempts and blind solve are counted as in the first run: quality.json tells the model's story.
        let quality = try JSONDecoder().decode(QualityReport.self, from: try #require(files[QualityReport.fileName]))
        #expect(quality.items.checked == 39 && quality.items.blindSolve.asked == 15, "\(quality.items)")
    }

    /// An edit of an unchanged item keeps the model's attempts, but not what was judged of the
    /// model's text: its blind solve and warnings are not the reviewer's text's (found applying
    /// world-geography-exam's edits, where the solver's pick among the options the reviewer
    /// replaced still showed as a warning on the item).
    @Test func anEditKeepsTheModelsAttemptsButNotItsVerdicts() async throws {
        let ws = try Workspace()
        var (spec, seal) = try await Self.firstRun(ws)
        let item = try #require(seal.items.first { $0.id == "engagement-question/s01-t01" })
        var file = ReviewFile(file: "python-basics.review.yaml")
        file.record(Self.decision(.edit, item, fields: [("explanation", "The lecture shows a variable naming a value, so that the program can use it later.")]))
        try file.write(to: try #require(spec.reviewFile))
        spec.version = "1.1.0"
        let provider = try RecordingProvider(script: ws.script())
        let result = try await ws.run(spec, provider: provider)
        guard case .written(let dir)? = result.bundle else { throw PipelineError("no bundle: \(result.failures)") }
        #expect(provider.calls.isEmpty, "the edit needs no call")
        let files = Workspace.files(dir)
        let sealed = try ReviewSeal.read(try #require(files[ReviewSeal.fileName]))
        #expect(sealed.items.first { $0.id == "engagement-question/s01-t01" }?.state == .edited)
        let quality = try JSONDecoder().decode(QualityReport.self, from: try #require(files[QualityReport.fileName]))
        // 15 items were put to the blind solver in the first run (the approval test above); the
        // edited one's verdict judged text that no longer ships.
        #expect(quality.items.checked == 39 && quality.items.blindSolve.asked == 14, "\(quality.items)")
        let edited = try #require(result.reports["engagement-question/s01-t01"])
        #expect(edited.attempts >= 1 && edited.blindSolve.asked == 0, "\(edited)")
    }

    /// An engagement question written as `prompt`, for a scripted answer at `attempt`.
    static func question(attempt: Int, prompt: String, key: String) -> JSONValue {
        [
            "item": "engagement-question/s01-t01", "attempt": .number(Double(attempt)),
            "json": [
                "prompt": .string(prompt), "explanation": "The lecture shows a variable naming a value.", "topic_id": "s01-t01",
                "correct_answer": ["text": .string(key), "feedback": "Right: that is what the lecture shows."],
                "wrong_answers": [
                    ["text": "It prints a value on the screen", "feedback": "No: print does that."],
                    ["text": "It repeats a block of code", "feedback": "No: a loop does that."],
                    ["text": "It stops the program", "feedback": "No: nothing in the lecture stops a program."],
                ],
            ],
        ]
    }

    /// A second rejection, of the answer the first one's run gave, keeps the first: the next run
    /// replays the item's chain from its first answer, and each rejected answer is refused with
    /// its own note, so the model is asked again instead of the first answer coming back.
    @Test func aSecondRejectionKeepsTheFirstAnswerRefused() async throws {
        let ws = try Workspace()
        var (spec, seal) = try await Self.firstRun(ws)
        let id = "engagement-question/s01-t01"
        let firstAnswer = try #require(seal.items.first { $0.id == id })
        var file = ReviewFile(file: "python-basics.review.yaml")
        file.record(Self.decision(.reject, firstAnswer, note: Self.note))
        try file.write(to: try #require(spec.reviewFile))
        spec.version = "1.1.0"
        let second = try RecordingProvider(
            script: ws.script(extra: [Self.question(attempt: 2, prompt: "What does a variable do in a Python program?", key: "It names a value")]))
        guard case .written(let dir2)? = try await ws.run(spec, provider: second).bundle else { throw PipelineError("no second bundle") }
        let secondSeal = try ReviewSeal.read(try #require(Workspace.files(dir2)[ReviewSeal.fileName]))
        let redone = try #require(secondSeal.items.first { $0.id == id })
        #expect(redone.content != firstAnswer.content)
        // The redone answer waits to be read: pending, not a stale decision (`lectern review`).
        let decided = try ReviewFile.read(try #require(spec.reviewFile))[id]
        #expect(redone.rejected == Self.note && redone.status(decided) == .pending)

        // The redone answer rejected in turn, through the same call `lectern review` makes.
        let secondNote = "The key is too short to tell a learner what a variable does; say it names a value the program uses later."
        var reread = try ReviewFile.read(try #require(spec.reviewFile))
        reread.record(Self.decision(.reject, redone, note: secondNote).replacing(reread[id]))
        try reread.write(to: try #require(spec.reviewFile))
        #expect(try ReviewFile.read(try #require(spec.reviewFile))[id]?.earlier.map(\.content) == [firstAnswer.content])

        spec.version = "1.2.0"
        let third = try RecordingProvider(
            script: ws.script(extra: [
                Self.question(attempt: 3, prompt: "Why would a program store a value in a variable?", key: "To use the value again later by its name")
            ]))
        let result = try await ws.run(spec, provider: third)
        guard case .written(let dir3)? = result.bundle else { throw PipelineError("no third bundle: \(result.failures)") }
        // Both rejected answers came from the cache and were refused; the model was asked once more.
        let asked = third.requests.filter { $0.0.itemID == id }
        #expect(asked.map(\.0.attempt) == [3])
        let sent = try #require(asked.first?.1.messages.map(\.content).joined(separator: "\n"))
        #expect(sent.contains("a reviewer rejected this answer: " + secondNote), "\(sent)")
        let course = try JSONDecoder().decode(Course.self, from: try #require(Workspace.files(dir3)["course.json"]))
        #expect(course.subjects[0].topics[0].engagementQuestion?.prompt == "Why would a program store a value in a variable?")
    }

    /// An item no answer of which passed is sealed as failed in a partial bundle, with its last
    /// answer and what was wrong, so that a person can write it; that person's edit of the last
    /// answer is then kept without a call, checked like any answer, and ships.
    @Test func aFailedItemIsSealedAndAPersonCanWriteIt() async throws {
        let ws = try Workspace()
        var spec = try Workspace.spec(Specs.python)
        spec.reviewFile = ws.root.appendingPathComponent("python-basics.review.yaml")
        let id = "bonus-question/s01-t01"
        // Every attempt states instead of asking: the question-form check refuses each.
        let refused: [JSONValue] = (1...8).map { attempt in
            [
                "item": .string(id), "attempt": .number(Double(attempt)),
                "json": [
                    "prompt": .string("Variables are names for values (attempt \(attempt))."), "reference_answer": "A name for a value.",
                    "explanation": "The lecture names values with variables.", "topic_id": "s01-t01",
                ],
            ]
        }
        let first = try await ws.run(spec, provider: try RecordingProvider(script: ws.script(extra: refused)), allowPartial: true)
        #expect(first.failures.map(\.id) == [id], "\(first.failures)")
        guard case .written(let dir)? = first.bundle else { throw PipelineError("no partial bundle: \(first.failures)") }
        let sealFile = dir.appendingPathComponent(ReviewSeal.fileName)
        #expect(try Workspace.schemaProblems(sealFile, schema: "review.schema.json") == nil)
        let seal = try ReviewSeal.read(try Data(contentsOf: sealFile))
        let failed = try #require(seal.items.first { $0.id == id })
        #expect(failed.state == .failed && failed.answer.contains("Variables are names for values (attempt") && seal.counts.failed == 1, "\(failed)")
        #expect(failed.problems?.contains { $0.contains("asks nothing") } == true, "\(failed.problems ?? [])")
        #expect(failed.status(nil) == .failed)
        #expect(seal.counts.sentence(items: seal.items.count).contains(", 1 failed"), "\(seal.counts)")

        // A person writes the question from the last answer (the Edit `lectern review` offers).
        var file = ReviewFile(file: "python-basics.review.yaml")
        let written = Self.decision(.edit, failed, fields: [("prompt", "When would you give a value a name in a program?")])
        #expect(failed.status(written) == .edited)
        file.record(written)
        try file.write(to: try #require(spec.reviewFile))
        spec.version = "1.1.0"
        let provider = try RecordingProvider(script: ws.script(extra: refused))
        let second = try await ws.run(spec, provider: provider)
        #expect(second.status == .complete, "\(second.failures)")
        guard case .written(let dir2)? = second.bundle else { throw PipelineError("no bundle: \(second.failures)") }
        #expect(provider.requests.filter { $0.0.itemID == id }.isEmpty, "a person's text needs no call")
        let course = try JSONDecoder().decode(Course.self, from: try #require(Workspace.files(dir2)["course.json"]))
        #expect(course.subjects[0].topics[0].bonusQuestion?.prompt == "When would you give a value a name in a program?")
        let sealed = try ReviewSeal.read(try #require(Workspace.files(dir2)[ReviewSeal.fileName]))
        #expect(sealed.items.first { $0.id == id }?.state == .edited && sealed.counts.failed == 0, "\(sealed.counts)")
        #expect(!String(decoding: try #require(Workspace.files(dir2)[ReviewSeal.fileName]), as: UTF8.self).contains("\"failed\""), "no failed count when none")
    }

    /// A mended answer may use a note's words for a clause, but one that pastes the note in (ten
    /// words in a row outside its quotations: the local model's tone preview of intro-probability
    /// ended with its reviewer's critique) is refused, and the model asked again.
    @Test func anAnswerThatGivesBackTheReviewersNoteIsRefused() async throws {
        let ws = try Workspace()
        var (spec, seal) = try await Self.firstRun(ws)
        let id = "engagement-question/s01-t01"
        var file = ReviewFile(file: "python-basics.review.yaml")
        file.record(Self.decision(.reject, try #require(seal.items.first { $0.id == id }), note: Self.note))
        try file.write(to: try #require(spec.reviewFile))
        spec.version = "1.1.0"
        func answer(_ attempt: Int, explanation: String) -> JSONValue {
            var question = Self.question(attempt: attempt, prompt: "What does a variable do in a Python program?", key: "It names a value")
            if case .object(var fields) = question, case .object(var json)? = fields["json"] {
                json["explanation"] = .string(explanation)
                fields["json"] = .object(json)
                question = .object(fields)
            }
            return question
        }
        let provider = try RecordingProvider(
            script: ws.script(extra: [
                // The note's own sentence, given back to the learner.
                answer(2, explanation: "The key says the topic helps structure programs, but the lecture never says so. A variable names a value."),
                // The note's words for a clause (under ten in a row): what a mended answer may do.
                answer(3, explanation: "The lecture never says so much about structure: it shows a variable naming a value, the key."),
            ]))
        let result = try await ws.run(spec, provider: provider)
        guard case .written(let dir)? = result.bundle else { throw PipelineError("no bundle: \(result.failures)") }
        let asked = provider.requests.filter { $0.0.itemID == id }
        #expect(asked.map(\.0.attempt) == [2, 3], "\(asked.map(\.0.attempt))")
        let repair = try #require(asked.last?.1.messages.map(\.content).joined(separator: "\n"))
        #expect(repair.contains("'explanation' gives back the reviewer's note ('"), "\(repair.suffix(1_500))")
        let course = try JSONDecoder().decode(Course.self, from: try #require(Workspace.files(dir)["course.json"]))
        #expect(course.subjects[0].topics[0].engagementQuestion?.explanation.hasPrefix("The lecture never says so much") == true)
    }

    @Test func anEditThatFailsTheChecksStopsTheRunAtItsLine() async throws {
        let ws = try Workspace()
        var (spec, seal) = try await Self.firstRun(ws)
        let bonus = try #require(seal.items.first { $0.id == "bonus-question/s01-t01" })
        var file = ReviewFile(file: "python-basics.review.yaml")
        file.record(Self.decision(.approve, try #require(seal.items.first { $0.id == "lecture/s01-t01" })))
        // A prompt that asks nothing: the question-form check refuses it.
        file.record(Self.decision(.edit, bonus, fields: [("prompt", "Variables are names for values.")]))
        try file.write(to: try #require(spec.reviewFile))
        spec.version = "1.1.0"
        do {
            _ = try await ws.run(spec, provider: try RecordingProvider(script: ws.script()))
            Issue.record("a refused edit was written")
        } catch let error as SpecError {
            let diagnostic = try #require(error.diagnostics.first)
            #expect(diagnostic.file.hasSuffix("python-basics.review.yaml"))
            let text = try String(contentsOf: try #require(spec.reviewFile), encoding: .utf8)
            let line = text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("\"bonus-question/s01-t01\":") }.map { $0 + 1 }
            #expect(diagnostic.line == line, "\(error)")
            #expect(diagnostic.message.contains("the edit of bonus-question/s01-t01 does not pass the checks") && diagnostic.message.contains("asks nothing"), "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: ws.output.appendingPathComponent("python-basics/1.1.0").path), "nothing applied in part")
    }

    @Test func aDecisionWhoseItemChangedIsStaleAndNotApplied() async throws {
        let ws = try Workspace()
        var (spec, seal) = try await Self.firstRun(ws)
        var file = ReviewFile(file: "python-basics.review.yaml")
        file.record(Self.decision(.approve, try #require(seal.items.first { $0.id == "lecture/s01-t01" })))
        file.record(
            ReviewFile.Decision(
                item: "lecture/s09-t09", kind: .approve, content: ReviewFile.contentHash("# Gone\n"), basis: String(repeating: "b", count: 64),
                answer: "# Gone\n", by: "Ada Lovelace", at: "2026-11-28T10:12:00Z"))
        try file.write(to: try #require(spec.reviewFile))
        // Who the course is for changes what every lecture is built from.
        spec.audience = "retired engineers learning to script their home automation"
        spec.version = "1.1.0"
        let provider = try RecordingProvider(script: ws.script())
        let result = try await ws.run(spec, provider: provider)
        guard case .written(let dir)? = result.bundle else { throw PipelineError("no bundle: \(result.failures)") }
        #expect(provider.calledItems.contains("lecture/s01-t01"), "asked again: what it was built from changed")
        let sealed = try ReviewSeal.read(try #require(Workspace.files(dir)[ReviewSeal.fileName]))
        let lecture = try #require(sealed.items.first { $0.id == "lecture/s01-t01" })
        #expect(lecture.state == .pending && lecture.stale?.contains("changed since it was approved") == true, "\(lecture)")
        #expect(sealed.unmatched.map(\.id) == ["lecture/s09-t09"])
        #expect(sealed.counts.stale == 2 && sealed.counts.approved == 0)
    }

    @Test func decisionsOnItemsTheKindDoesNotHaveAreRefusedBeforeAnyCall() async throws {
        let ws = try Workspace()
        var spec = try Workspace.spec(Specs.python)
        spec.reviewFile = ws.root.appendingPathComponent("python-basics.review.yaml")
        try """
        format: 1
        decisions:
          exam-item/verbal/x/medium-01:
            decision: reject
            note: wrong kind
            content: \(String(repeating: "c", count: 64))
            by: Ada
            at: 2026-11-28T10:12:00Z
        """.write(to: try #require(spec.reviewFile), atomically: true, encoding: .utf8)
        let provider = try RecordingProvider(script: ws.script())
        do {
            _ = try await ws.run(spec, provider: provider)
            Issue.record("a decision on no item of a course was accepted")
        } catch let error as SpecError {
            #expect(error.diagnostics.first?.line == 3 && error.description.contains("is no item of a course job"), "\(error)")
        }
        #expect(provider.calls.isEmpty)
    }
}
