// lectern-bench-gates: how much of what a careful reader finds do Lectern's deterministic gates
// refuse, and how much that is right do they refuse too (issue 48, "Measure first").
//
//   lectern-bench-gates [--items] LABELLED.jsonl [BANK.jsonl ...]
//
// For each labelled item (Tests/LecternCoreTests/Fixtures/labelled/items.jsonl) two verdicts:
// - `lectern check`: the item alone in a bank of its kind (a course.json topic, an exam.json item,
//   after the question it repeats when it has one), checked by `BankLint` as the command does;
// - all gates: that, and the checks every model answer's texts get during a run
//   (`TextIntegrity.inspectField` and `ContentInspector` with the real renderer: rendering,
//   field names, stray quotes, arithmetic, Python structure).
// Per class it prints the recall (defective items refused), and for clean items the share
// refused. Each BANK (JSON Lines of real questions, `lectern check`'s format) is then checked
// whole, and its refused share printed with the checks that refused. `--items` lists every
// labelled item with its verdicts.
import Foundation
import LecternCore
import LecternPipeline

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("lectern-bench-gates: \(message)\n".utf8))
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
let listItems = arguments.contains("--items")
arguments.removeAll { $0 == "--items" }
guard let labelledPath = arguments.first else { fail("usage: lectern-bench-gates [--items] LABELLED.jsonl [BANK.jsonl ...]") }
guard let labelledData = FileManager.default.contents(atPath: labelledPath) else { fail("cannot read \(labelledPath)") }
let items: [LabelledItem]
do { items = try LabelledSet.read(labelledData) } catch { fail("\(labelledPath): \(error)") }

/// The texts a learner reads, as the pipeline hands them to `ContentInspector`: a prompt and an
/// option may be false on purpose, feedback, reference answers and explanations assert.
func learnerTexts(_ item: LabelledItem) -> [LearnerText] {
    var texts = [LearnerText("prompt", item.prompt, asserts: false)]
    for (index, option) in (item.options ?? []).enumerated() {
        texts.append(LearnerText("option \(index + 1)'s text", option.text, asserts: false))
        texts.append(LearnerText("option \(index + 1)'s feedback", option.feedback, asserts: true))
    }
    if let reference = item.referenceAnswer { texts.append(LearnerText("reference_answer", reference, asserts: true)) }
    texts.append(LearnerText("explanation", item.explanation, asserts: true))
    return texts
}

let renderer = MarkdownDocumentRenderer()
/// The checks of a run's content gates that refuse `item`.
func generationRefusals(_ item: LabelledItem) -> [(check: QualityCheck, problem: String)] {
    let texts = learnerTexts(item)
    var found = texts.flatMap { text in TextIntegrity.inspectField(text.markdown).problems.map { (QualityCheck.textIntegrity, "\(text.field) \($0)") } }
    found += ContentInspector(renderer: renderer, language: item.language).issues(texts).errors.map { ($0.check, $0.message) }
    return found
}

struct Tally {
    var items = 0
    var byCheck = 0
    var byAll = 0
}
var tallies: [String: Tally] = [:]
var lines: [String] = []
for item in items {
    let check = LabelledSet.checkRefusals(item)
    let all = check + generationRefusals(item)
    var tally = tallies[item.defectClass, default: Tally()]
    tally.items += 1
    if !check.isEmpty { tally.byCheck += 1 }
    if !all.isEmpty { tally.byAll += 1 }
    tallies[item.defectClass] = tally
    let verdict = all.isEmpty ? "passed" : "refused (\(Set(all.map(\.check.rawValue)).sorted().joined(separator: ", ")))"
    let problems = all.map { "[\($0.check.rawValue)] \($0.problem)" }.joined(separator: " | ")
    lines.append("\(item.id)\t\(item.defectClass)\t\(check.isEmpty ? "-" : "check")\t\(verdict)\t\(problems)")
}

func share(_ part: Int, _ whole: Int) -> String {
    whole == 0 ? "–" : String(format: "%d/%d (%.0f%%)", part, whole, 100 * Double(part) / Double(whole))
}

let defective = items.filter(\.isDefective).count
print("labelled set: \(items.count) items (\(defective) defective, \(items.count - defective) clean)")
print("")
print("| class | items | refused by `lectern check` | refused by all deterministic gates |")
print("|---|---|---|---|")
for name in tallies.keys.sorted() where name != "clean" {
    let tally = tallies[name]!
    print("| \(name) | \(tally.items) | \(share(tally.byCheck, tally.items)) | \(share(tally.byAll, tally.items)) |")
}
let allDefective = tallies.filter { $0.key != "clean" }.values.reduce(Tally()) { Tally(items: $0.items + $1.items, byCheck: $0.byCheck + $1.byCheck, byAll: $0.byAll + $1.byAll) }
print("| **all defective** | \(allDefective.items) | \(share(allDefective.byCheck, allDefective.items)) | \(share(allDefective.byAll, allDefective.items)) |")
if let clean = tallies["clean"] {
    print("| clean (refused: lower is better) | \(clean.items) | \(share(clean.byCheck, clean.items)) | \(share(clean.byAll, clean.items)) |")
}

// Public banks of real questions: what `lectern check` refuses of them.
for path in arguments.dropFirst() {
    guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
    let report: BankReport
    do { report = try BankLint.check(data: data, file: path) } catch { fail(error.description) }
    var counts: [QualityCheck: Int] = [:]
    for flag in report.flagged { for check in Set(flag.checks) { counts[check, default: 0] += 1 } }
    let checks = counts.sorted { $0.value > $1.value }.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ")
    print("")
    print("\(URL(fileURLWithPath: path).lastPathComponent): \(share(report.flagged.count, report.items)) refused\(checks.isEmpty ? "" : " — \(checks)")")
}

if listItems {
    print("")
    print("id\tclass\tcheck\tall gates\tproblems")
    for line in lines { print(line) }
}
