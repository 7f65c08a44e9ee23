// What a review file costs a run (issue 47: "a review file of 10,000 decisions adds under 1 s to a
// run of a 10,000-item bundle"): the review's own work, in process, on synthetic items shaped like
// a course's questions (an answer of about 1.4 KB each).
//
//   lectern-bench-review [--items N] [--json FILE]
//
// Measured: reading the review file (N decisions: approvals with their answers, rejections with
// notes, edits with a field), then for every item the two hashes a run takes (what it was built
// from, the answer) and the lookup of its decision, then writing the bundle's review.json; and,
// for scale, the file's size. The checks an approved answer goes through are the ones any answer
// goes through, so they are not the review's cost.
import Foundation
import LecternCore

var items = 10_000
var jsonOut: String?
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--items": items = Int(arguments.next() ?? "") ?? items
    case "--json": jsonOut = arguments.next()
    default:
        FileHandle.standardError.write(Data("unknown argument \(argument)\n".utf8))
        exit(2)
    }
}

func answer(_ n: Int) -> String {
    let options = (0..<3).map {
        #"{"text":"Wrong option \#($0) of question \#(n), about something else entirely","feedback":"No: the lecture says otherwise about point \#($0), in its second section, with an example."}"#
    }
    return #"{"prompt":"Question \#(n): which statement about the topic is true, as the lecture explains it with its everyday example?","#
        + #""correct_answer":{"text":"The statement the lecture makes about item \#(n)","feedback":"Right: the lecture says so in its first section, with the example of the toy box."},"#
        + #""wrong_answers":[\#(options.joined(separator: ","))],"explanation":"The lecture explains item \#(n) step by step; the other options mix it up with later topics.","topic_id":"s01-t\#(n)"}"#
}

func variables(_ n: Int) -> [String: String] {
    [
        "topic_title": "Topic \(n)", "topic_objective": "Understand item \(n)", "lecture_excerpt": String(repeating: "Lecture text for \(n). ", count: 40),
        "tone": "friendly", "schema": "{…}", "course_title": "A course", "audience": "adults", "language": "en",
    ]
}

let clock = ContinuousClock()
let work = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-bench-review-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: work) }
let ids = (0..<items).map { "engagement-question/s\(String(format: "%03d", $0 / 100))-t\(String(format: "%03d", $0 % 100))" }
var file = ReviewFile(file: "bench.review.yaml")
for (n, id) in ids.enumerated() {
    let text = answer(n)
    switch n % 10 {
    case 0:
        file.record(ReviewFile.Decision(item: id, kind: .reject, content: ReviewFile.contentHash(text), note: "The key is not what the lecture says.", by: "Ada", at: "2026-11-28T10:00:00Z"))
    case 1:
        file.record(
            ReviewFile.Decision(
                item: id, kind: .edit, content: ReviewFile.contentHash(text), basis: ReviewFile.basisHash(variables(n)), answer: text,
                fields: [(path: "prompt", text: "Question \(n), asked better?")], by: "Ada", at: "2026-11-28T10:00:00Z"))
    default:
        file.record(
            ReviewFile.Decision(
                item: id, kind: .approve, content: ReviewFile.contentHash(text), basis: ReviewFile.basisHash(variables(n)), answer: text, by: "Ada",
                at: "2026-11-28T10:00:00Z"))
    }
}
let url = work.appendingPathComponent("bench.review.yaml")
try file.write(to: url)
let bytes = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0

// What a run holds before its review work: every item's answer and prompt values.
let answers = (0..<items).map(answer)
let promptValues = (0..<items).map(variables)

// The run's review work, as ModelCallRunner.run does it.
let start = clock.now
let read = try ReviewFile.read(url)
let afterRead = clock.now
var sealed: [ReviewSeal.Item] = []
sealed.reserveCapacity(items)
for (n, id) in ids.enumerated() {
    let text = answers[n]
    let basis = ReviewFile.basisHash(promptValues[n])
    let decision = read[id]
    var state = ReviewSeal.State.pending
    var kept = text
    var content: String?
    if let decision, decision.kind != .reject, decision.basis == basis, let approved = decision.answer {
        kept = decision.kind == .edit ? try AnswerFields.apply(decision.fields, to: approved) : approved
        state = decision.kind == .edit ? .edited : .approved
        // An approved answer's hash is the decision's, checked when the file was read.
        if decision.kind == .approve { content = decision.content }
    }
    sealed.append(
        ReviewSeal.Item(id: id, stage: "engagement-question", state: state, content: content ?? ReviewFile.contentHash(kept), basis: basis, answer: kept))
}
let afterApply = clock.now
let seal = ReviewSeal(items: sealed, unmatched: [], reviewFile: "bench.review.yaml", reviewFileSHA256: nil)
let sealData = try seal.jsonData()
let end = clock.now

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
let result: [String: Any] = [
    "items": items, "review_file_bytes": bytes, "review_json_bytes": sealData.count,
    "read_s": seconds(start.duration(to: afterRead)), "apply_s": seconds(afterRead.duration(to: afterApply)), "seal_s": seconds(afterApply.duration(to: end)),
    "total_s": seconds(start.duration(to: end)), "approved": seal.counts.approved, "edited": seal.counts.edited,
]
print(
    String(
        format: "review of %d items: review file %.1f MB read in %.3f s, decisions applied in %.3f s, review.json (%.1f MB) in %.3f s: %.3f s in all",
        items, Double(bytes) / 1e6, result["read_s"] as! Double, result["apply_s"] as! Double, Double(sealData.count) / 1e6, result["seal_s"] as! Double,
        result["total_s"] as! Double))
if let jsonOut { try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys, .prettyPrinted]).write(to: URL(fileURLWithPath: jsonOut)) }
