// lectern-bench-checks: the checks every model answer's texts get, over every answer recorded in
// the committed cassettes, in one process; CPU time per checked answer.
//
//   lectern-bench-checks [--repeat N] CASSETTE.jsonl...
//
// Each cassette line's answer is read as the pipeline reads it: a JSON answer's strings are its
// texts (each by its field path), any other answer (a lecture's Markdown) is one text. Every text
// goes through what every kind's answers get — `TextIntegrity.inspectField` (as decoding does),
// `ContentInspector` with the real renderer (rendering, field names, stray quotes, arithmetic,
// Python structure) — and the course's question rules (`checkAskedOfTheLearner`,
// `checkOneQuestion`, `checkLearnerText`, `checkSpeaksToTheLearner`, `checkCodeInABlock`,
// `checkNoHeading`, `formIssues` through `checkMultipleChoice` is left to the stages). The answers
// are checked `N` times (default 3) after one warm-up pass; the best pass is reported, with the
// issues found (the same every pass) as a fingerprint of the verdicts.
import Foundation
import LecternCore
import LecternLLM
import LecternPipeline

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("lectern-bench-checks: \(message)\n".utf8))
    exit(1)
}

var arguments = Array(CommandLine.arguments.dropFirst())
var repeats = 3
if let index = arguments.firstIndex(of: "--repeat"), index + 1 < arguments.count, let n = Int(arguments[index + 1]) {
    repeats = max(1, n)
    arguments.removeSubrange(index...(index + 1))
}
guard !arguments.isEmpty else { fail("usage: lectern-bench-checks [--repeat N] CASSETTE.jsonl...") }

/// Every string of `value`, with its path.
func strings(_ value: JSONValue, path: String, into texts: inout [(String, String)]) {
    switch value {
    case .string(let text): texts.append((path.isEmpty ? "answer" : path, text))
    case .array(let elements): for (i, e) in elements.enumerated() { strings(e, path: "\(path)[\(i + 1)]", into: &texts) }
    case .object(let object): for key in object.keys.sorted() { strings(object[key]!, path: path.isEmpty ? key : "\(path).\(key)", into: &texts) }
    case .null, .bool, .number: break
    }
}

func load(_ arguments: [String]) -> [[(String, String)]] {
    var answers: [[(String, String)]] = []
    for path in arguments {
        guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
        for line in data.split(separator: UInt8(ascii: "\n")) {
            guard case .object(let record)? = try? JSONValue.parse(String(decoding: line, as: UTF8.self)),
                case .object(let response)? = record["response"], case .string(let content)? = response["content"]
            else { continue }
            var texts: [(String, String)] = []
            if let value = JSONExtraction.firstJSONValue(in: content), case .object = value {
                strings(value, path: "", into: &texts)
            } else {
                texts.append(("lecture", content))
            }
            answers.append(texts)
        }
    }
    return answers
}
let answers = load(arguments)

/// LECTERN_CHECKS_DUMP=FILE writes every issue with its field, so two builds' verdicts can be diffed.
let dumpPath = ProcessInfo.processInfo.environment["LECTERN_CHECKS_DUMP"]
nonisolated(unsafe) var dumping = dumpPath != nil
nonisolated(unsafe) var dump = ""
let inspector = ContentInspector(renderer: MarkdownDocumentRenderer(), language: "en")

/// One pass over every answer: the issues found (messages and checks), for the fingerprint.
func pass(_ answers: [[(String, String)]], inspector: ContentInspector) -> [String] {
    var found: [String] = []
    for texts in answers {
        for (field, text) in texts {
            var issues: [ValidationIssue] = TextIntegrity.inspectField(text).problems.map { .error($0, check: .textIntegrity) }
            issues += inspector.issues([LearnerText(field, text, asserts: !field.hasSuffix("prompt") && !field.hasSuffix("text"))])
            issues += QuestionRules.checkAskedOfTheLearner(field, text)
            issues += QuestionRules.checkOneQuestion(field, text)
            issues += QuestionRules.checkLearnerText(field, text, afterPrompt: true)
            issues += QuestionRules.checkSpeaksToTheLearner(field, text, instructions: true)
            issues += QuestionRules.checkCodeInABlock(field, text)
            issues += QuestionRules.checkNoHeading(field, text)
            found += issues.map { "\($0.check.rawValue) \($0.message)" }
            if dumping { dump += issues.map { "\(field)\t\($0.check.rawValue) \($0.message)\n" }.joined() }
        }
    }
    return found
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

let texts = answers.reduce(0) { $0 + $1.count }
let characters = answers.reduce(0) { $0 + $1.reduce(0) { $0 + $1.1.count } }
let first = pass(answers, inspector: inspector)
if let dumpPath {
    FileManager.default.createFile(atPath: dumpPath, contents: Data(dump.utf8))
    dumping = false
}
var best = Double.infinity
for _ in 1...repeats {
    let start = cpuSeconds()
    let again = pass(answers, inspector: inspector)
    best = min(best, cpuSeconds() - start)
    if again != first { fail("a pass found other issues than the first: the checks are not deterministic") }
}
let fingerprint = SHA256Digest.hex(first.joined(separator: "\n"))
print("answers \(answers.count), texts \(texts), characters \(characters)")
print(String(format: "CPU per pass %.3f s, per checked answer %.3f ms, per text %.1f µs", best, best * 1000 / Double(answers.count), best * 1e6 / Double(texts)))
print("issues \(first.count), fingerprint \(fingerprint.prefix(16))")
