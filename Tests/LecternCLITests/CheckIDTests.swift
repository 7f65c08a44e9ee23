import Foundation
import LecternCore
import LecternLLM
import Testing

/// A refusal carries its check's id from where it is raised (issue 46 §5); quality.json counted
/// refusals by the words of their messages before. Every example replays offline here with its
/// JSON event log, and every refusal and warning the log names — each refused attempt of each
/// item, mended answers included — has the id the old reading of its words gave: so
/// quality.json's counts are the same by construction, not only for the golden bundle.
struct CheckIDTests {
    /// The examples with a committed cassette.
    static let examples = ["python-basics", "intro-probability", "python-collections", "chemistry-deck", "echo-quotes", "world-geography-exam"]

    @Test(arguments: examples)
    func everyRecordedRefusalCarriesTheCheckItsWordsNamed(_ id: String) async throws {
        let repo = CLITests.repository
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-check-ids-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let log = work.appendingPathComponent("events.jsonl")
        let run = try await CLITests.lectern(
            [
                "run", "pipelines/examples/\(id).yaml", "--cache", "offline", "--cassette", "pipelines/cassettes/\(id).jsonl",
                "--cache-dir", work.appendingPathComponent("cache").path, "--output", work.appendingPathComponent("out").path,
                "--log-format", "text", "--event-log", log.path,
            ], in: repo)
        #expect(run.status == 0, "\(run.stderr)")
        var compared = 0
        for line in try String(contentsOf: log, encoding: .utf8).split(separator: "\n") {
            guard case .object(let event)? = try? JSONValue.parse(String(line)) else { continue }
            var pairs: [(check: String, message: String)] = []
            if case .array(let attempts)? = event["rejections"] {
                for case .array(let refusals) in attempts {
                    for case .object(let refusal) in refusals {
                        if case .string(let check)? = refusal["check"], case .string(let message)? = refusal["message"] { pairs.append((check, message)) }
                    }
                }
            }
            if event["event"] == .string("item_retried"), case .array(let errors)? = event["errors"], case .array(let checks)? = event["checks"] {
                #expect(errors.count == checks.count)
                for case (.string(let message), .string(let check)) in zip(errors, checks) { pairs.append((check, message)) }
            }
            if event["event"] == .string("warning"), case .string(let check)? = event["check"], case .string(let message)? = event["message"] {
                pairs.append((check, message))
            }
            for pair in pairs {
                compared += 1
                #expect(pair.check == LegacyRefusalWords.classify(pair.message).rawValue, "\(id): '\(pair.message)'")
            }
        }
        // Every example but two was refused at least once in its recording: the imported deck
        // has no model answer, and every answer of the quotes example is a reviewer's (approved or
        // edited, echo-quotes.review.yaml), which a replay takes without a retry.
        if !["chemistry-deck", "echo-quotes"].contains(id) { #expect(compared > 0, "\(id): no refusal in the event log") }
    }

    /// `lectern check --json` names the check of each problem beside it.
    @Test func checkJSONNamesEachProblemsCheck() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-check-json-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let bank = work.appendingPathComponent("bank.jsonl")
        try Data(
            (#"{"id": "q1", "question": "What does print do?", "options": ["Shows text", "Shows text", "Adds numbers", "Stops"], "answer": 0}"#
                + "\n" + #"{"id": "q2", "question": "What does print do?", "options": ["Shows text", "Reads a file", "Adds numbers", "Stops"], "answer": 0}"#
                + "\n").utf8
        ).write(to: bank)
        let run = try await CLITests.lectern(["check", bank.path, "--json"], in: CLITests.repository)
        #expect(run.status == 1, "\(run.stderr)")
        let flagged = run.stdout.split(separator: "\n").filter { $0.contains("\"id\"") }
        #expect(flagged.count == 2, "\(run.stdout)")
        #expect(flagged.first?.contains(#""checks":["distinct-options"]"#) == true, "\(run.stdout)")
        #expect(flagged.last?.contains(#""checks":["distinct-questions"]"#) == true, "\(run.stdout)")
    }
}

/// How `QualityCheck.classify` filed a refusal before checks had ids: by the fixed words of its
/// message, most specific first. Kept here only to hold the ids to it.
enum LegacyRefusalWords {
    static func classify(_ message: String) -> QualityCheck {
        let text = message.lowercased()
        func has(_ parts: String...) -> Bool { parts.contains { text.contains($0) } }
        if has("states false arithmetic") { return .arithmetic }
        if has("does not render as written") { return .rendering }
        if has("the json escape", "lost its backslash", "without its backslash", "control character") { return .textIntegrity }
        if has(
            "not complete, valid json", "is not valid json", "was cut off", "is missing", "missing required key", "needs 'correct_answer'", "json field name",
            "closes no quotation")
        {
            return .wellFormed
        }
        if has("already asks", "repeats the first question", "the same question as") { return .distinctQuestions }
        if has("calls it right", "calls it wrong") { return .feedbackAgreesWithKey }
        if has("without the key chose", "is not what the explanation works out", "counts the index otherwise than") { return .answerKey }
        if has("are the same (", "are the same", "have the same feedback", "every option must differ", "written twice") { return .distinctOptions }
        if has(
            "does not occur in the source", "source quote", "source_quote", "to show where the answer comes from", "seem to be about", "must be about topic",
            "which the lecture does not teach")
        {
            return .grounding
        }
        if has("add up to", "this is a text course", "teaches after this one", "does not teach up to this subject", "deliverable", "rubric") {
            return .projectScope
        }
        if has(
            "asks nothing", " questions ('", "goes on after its question", "speaks about the question", "speaks as the lecture does",
            "refers to a video", "code outside a code block", "asks whether the explanation helped", "is about the question, not an answer",
            "says whether it is the answer", "stand beside", "asks for the learner's own words", "only repeats the question's own words",
            "gives the answer away", "holds a heading", "stops in the middle of a sentence", "copies the lecture word for word",
            "ends with a colon and nothing after it", "code it does not show", "repeats the question word for word")
        {
            return .questionForm
        }
        return .stageRules
    }
}
