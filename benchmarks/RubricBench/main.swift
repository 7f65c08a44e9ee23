// lectern-bench-rubric: what the rubric judge (`review: { rubric: true }`, issue 48) is worth on a
// model: its verdicts on the labelled set, per defect class (recall: defective items it refuses)
// and on the clean items (the share it refuses), with and without the rule that a broken
// criterion must quote the item.
//
//   lectern-bench-rubric LABELLED.jsonl RESULTS.jsonl [--per-class N] [--clean N] [--model NAME] [--shape verdicts|faults|options]
//
// --shape faults asks for a list of faults (`review/rubric-faults`) instead of a verdict per
// criterion; --shape options judges each option on its own (`OptionJudge`, `review:
// { judge_options: true }`, one call per option). Give each shape its own RESULTS file.
// Each item is built into the answer a stage would ship (prompt, correct_answer, wrong_answers
// with feedback, explanation, reference answer, source quote) and judged with the judge's own
// request (RubricJudge: prompt review/rubric@1, schema, temperature 0, the topic, lecture and
// passage as context) on the local model (`make model`). N items a defect class and N clean
// ones, chosen by the SHA-256 of their ids (the same on every run). Each verdict is appended to
// RESULTS.jsonl as it comes, so an interrupted run resumes where it stopped; the tables are
// printed from RESULTS.jsonl.
import Foundation
import LecternCore
import LecternLLM
import LecternPipeline

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("lectern-bench-rubric: \(message)\n".utf8))
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
@MainActor func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    let value = arguments[index + 1]
    arguments.removeSubrange(index...(index + 1))
    return value
}
let perClass = Int(option("--per-class") ?? "3") ?? 3
let cleanCount = Int(option("--clean") ?? "12") ?? 12
let modelName = option("--model") ?? "qwen2.5-coder-1.5b-instruct"
let shapeName = option("--shape") ?? "verdicts"
let perOption = shapeName == "options"
let shape = RubricJudge.Shape(rawValue: perOption ? "verdicts" : shapeName) ?? .verdicts
guard arguments.count == 2 else { fail("usage: lectern-bench-rubric LABELLED.jsonl RESULTS.jsonl [--per-class N] [--clean N] [--model NAME] [--shape verdicts|faults|options]") }
guard let data = FileManager.default.contents(atPath: arguments[0]) else { fail("cannot read \(arguments[0])") }
let resultsURL = URL(fileURLWithPath: arguments[1])
let all: [LabelledItem]
do { all = try LabelledSet.read(data) } catch { fail("\(arguments[0]): \(error)") }

/// Multiple-choice items only: the judge is given what the blind solver is given.
let candidates = all.filter { ($0.options?.count ?? 0) >= 2 }
var chosen: [LabelledItem] = []
for (defectClass, members) in Dictionary(grouping: candidates, by: \.defectClass).sorted(by: { $0.key < $1.key }) {
    let ordered = members.sorted { SHA256Digest.hex($0.id) < SHA256Digest.hex($1.id) }
    chosen += ordered.prefix(defectClass == "clean" ? cleanCount : perClass)
}

/// The item as a stage ships it, and the prompt values the judge reads its context from.
func shipped(_ item: LabelledItem) -> (answer: String, variables: [String: String]) {
    var object: [String: JSONValue] = ["prompt": .string(item.prompt), "explanation": .string(item.explanation)]
    let options = item.options ?? []
    if let key = options.first(where: \.correct) { object["correct_answer"] = ["text": .string(key.text), "feedback": .string(key.feedback)] }
    object["wrong_answers"] = .array(options.filter { !$0.correct }.map { ["text": .string($0.text), "feedback": .string($0.feedback)] })
    if let reference = item.referenceAnswer { object["reference_answer"] = .string(reference) }
    if let quote = item.sourceQuote { object["source_quote"] = .string(quote) }
    var variables: [String: String] = [:]
    if let topic = item.topic { variables["topic_title"] = topic }
    if let lecture = item.lecture { variables["lecture_excerpt"] = lecture }
    if let passage = item.passage { variables["passage"] = passage }
    return (JSONValue.object(object).canonicalText, variables)
}

/// The item's multiple-choice question as the option judge reads it.
func question(_ item: LabelledItem) -> BlindSolveItem {
    BlindSolveItem(label: "the question", prompt: item.prompt, choices: item.options ?? [], context: item.passage)
}

/// What the option judge made of an item from its verdicts (a JSON list, one a option, in the
/// solver's order): refused (a quoted verdict against the key), broken at all, unquoted verdicts.
func optionVerdicts(_ item: LabelledItem, _ answer: String) -> (refused: Bool, broken: Bool, unquoted: Int)? {
    guard let list = try? JSONDecoder().decode([String].self, from: Data(answer.utf8)) else { return nil }
    let q = question(item)
    let context = OptionJudge.context(q, variables: shipped(item).variables)
    var result = (refused: false, broken: false, unquoted: 0)
    for (index, verdict) in list.enumerated() where index < q.options.count {
        guard let judged = OptionJudge.verdict(verdict, question: q, option: index, context: context), judged.broken != nil else { continue }
        result.broken = true
        if judged.refusal != nil { result.refused = true } else { result.unquoted += 1 }
    }
    return result
}

struct Result: Codable {
    var id: String
    var defectClass: String
    var answer: String
    var seconds: Double
}

var done: [String: Result] = [:]
if let text = try? String(contentsOf: resultsURL, encoding: .utf8) {
    for line in text.split(separator: "\n") {
        if let result = try? JSONDecoder().decode(Result.self, from: Data(line.utf8)) { done[result.id] = result }
    }
}

let judge: RubricJudge
let optionJudge: OptionJudge
do { (judge, optionJudge) = (try RubricJudge(shape: shape), try OptionJudge()) } catch { fail("\(error)") }
let todo = chosen.filter { done[$0.id] == nil }
FileHandle.standardError.write(Data("\(chosen.count) items chosen (\(perClass) a class, \(cleanCount) clean), \(todo.count) to judge on \(modelName)\n".utf8))
if !todo.isEmpty {
    let provider: LocalModelProvider
    do {
        provider = try LocalProviderFactory.make(
            model: modelName, maxConcurrency: 1, maxTokens: 900, environment: ProcessInfo.processInfo.environment, events: { _ in },
            status: { FileHandle.standardError.write(Data("\($0)\n".utf8)) })
    } catch { fail("\(error)") }
    if !FileManager.default.fileExists(atPath: resultsURL.path) { _ = FileManager.default.createFile(atPath: resultsURL.path, contents: nil) }
    guard let out = try? FileHandle(forWritingTo: resultsURL) else { fail("cannot write \(resultsURL.path)") }
    out.seekToEndOfFile()
    for (index, item) in todo.enumerated() {
        let (answer, variables) = shipped(item)
        let start = Date()
        var content: String
        do {
            if perOption {
                // One judgement an option, each kept as the model wrote it.
                let q = question(item)
                var verdicts: [String] = []
                for index in q.options.indices {
                    let (request, _) = optionJudge.request(q, option: index, variables: variables, fallbackModel: modelName, seed: 7)
                    verdicts.append(try await provider.complete(request, context: RequestContext(itemID: item.id, stage: OptionJudge.stage, attempt: 1)).content)
                }
                content = String(decoding: try JSONEncoder().encode(verdicts), as: UTF8.self)
            } else {
                let (request, _) = judge.request(shipped: answer, variables: variables, fallbackModel: modelName, seed: 7)
                content = try await provider.complete(request, context: RequestContext(itemID: item.id, stage: RubricJudge.stage, attempt: 1)).content
            }
        } catch {
            FileHandle.standardError.write(Data("\(item.id): \(error)\n".utf8))
            continue
        }
        let result = Result(id: item.id, defectClass: item.defectClass, answer: content, seconds: Date().timeIntervalSince(start))
        done[item.id] = result
        out.write((try! JSONEncoder().encode(result)) + Data("\n".utf8))
        FileHandle.standardError.write(Data("[\(index + 1)/\(todo.count)] \(item.id) (\(item.defectClass)): \(String(format: "%.0f", result.seconds)) s\n".utf8))
    }
    await provider.shutdown()
}

// The tables.
struct Tally {
    var items = 0
    var judged = 0
    var refusedQuoted = 0
    var refusedAny = 0
    var unquoted = 0
    var seconds = 0.0
}
var tallies: [String: Tally] = [:]
for item in chosen {
    guard let result = done[item.id] else { continue }
    var tally = tallies[item.defectClass, default: Tally()]
    tally.items += 1
    tally.seconds += result.seconds
    let (answer, _) = shipped(item)
    if perOption {
        if let judged = optionVerdicts(item, result.answer) {
            tally.judged += 1
            if judged.refused { tally.refusedQuoted += 1 }
            if judged.broken { tally.refusedAny += 1 }
            tally.unquoted += judged.unquoted
        }
    } else if let (verdict, refusals) = RubricJudge.verdicts(result.answer, shipped: answer) {
        tally.judged += 1
        if !refusals.isEmpty { tally.refusedQuoted += 1 }
        if !refusals.isEmpty || verdict.unquoted > 0 { tally.refusedAny += 1 }
        tally.unquoted += verdict.unquoted
    }
    tallies[item.defectClass] = tally
}
func percent(_ a: Int, _ b: Int) -> String { b == 0 ? "—" : String(format: "%.0f%%", 100 * Double(a) / Double(b)) }
print("class                          items  judged  refused (quote rule)  refused (any broken verdict)  unquoted verdicts  s/item")
for (name, t) in tallies.sorted(by: { ($0.key == "clean" ? "~" : $0.key) < ($1.key == "clean" ? "~" : $1.key) }) {
    print(
        name.padding(toLength: 30, withPad: " ", startingAt: 0), String(t.items).leftPad(6), String(t.judged).leftPad(7),
        "\(t.refusedQuoted) (\(percent(t.refusedQuoted, t.items)))".leftPad(21), "\(t.refusedAny) (\(percent(t.refusedAny, t.items)))".leftPad(29),
        String(t.unquoted).leftPad(18), String(format: "%.0f", t.seconds / Double(max(1, t.items))).leftPad(7))
}
let defective = tallies.filter { $0.key != "clean" }.values
let d = defective.reduce(Tally()) {
    Tally(
        items: $0.items + $1.items, judged: $0.judged + $1.judged, refusedQuoted: $0.refusedQuoted + $1.refusedQuoted, refusedAny: $0.refusedAny + $1.refusedAny, unquoted: $0.unquoted + $1.unquoted,
        seconds: $0.seconds + $1.seconds)
}
print("all defective: \(d.refusedQuoted) of \(d.items) refused with the quote rule (\(percent(d.refusedQuoted, d.items))), \(d.refusedAny) (\(percent(d.refusedAny, d.items))) on any broken verdict")
if let c = tallies["clean"] {
    print("clean: \(c.refusedQuoted) of \(c.items) refused with the quote rule (\(percent(c.refusedQuoted, c.items))), \(c.refusedAny) (\(percent(c.refusedAny, c.items))) on any broken verdict")
}

extension String {
    func leftPad(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
