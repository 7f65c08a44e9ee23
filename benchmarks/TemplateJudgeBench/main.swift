// lectern-bench-template-judge: what the template judge (`templates: { judge: true }`, issue 48
// §5) is worth on a model: its verdicts on the labelled template lines (every line of the Echo
// bank recorded on 2026-11-25, each read by a person and labelled as fitting its emotion or not),
// per emotion: recall (lines that do not fit that it refuses) and the share of fitting lines it
// refuses.
//
//   lectern-bench-template-judge LABELLED.jsonl RESULTS.jsonl [--model NAME]
//
// Each emotion's lines are judged in one call, as a round's usable lines are (TemplateJudge:
// prompt quotes/judge-templates@1, its schema, temperature 0.2 and seed 7 as in the Echo example)
// on the local model (`make model`). Each answer is appended to RESULTS.jsonl as it comes, so an
// interrupted run resumes where it stopped; the tables are printed from RESULTS.jsonl.
import Foundation
import LecternCore
import LecternLLM
import LecternPipeline

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("lectern-bench-template-judge: \(message)\n".utf8))
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
var modelName = "qwen2.5-coder-1.5b-instruct"
if let index = arguments.firstIndex(of: "--model"), index + 1 < arguments.count {
    modelName = arguments[index + 1]
    arguments.removeSubrange(index...(index + 1))
}
guard arguments.count == 2 else { fail("usage: lectern-bench-template-judge LABELLED.jsonl RESULTS.jsonl [--model NAME]") }

struct Line: Decodable {
    var id: String
    var emotion: String
    var template: String
    var fits: Bool
}

struct Result: Codable {
    var emotion: String
    var answer: String
    var seconds: Double
}

guard let text = try? String(contentsOfFile: arguments[0], encoding: .utf8) else { fail("cannot read \(arguments[0])") }
var lines: [Line] = []
for (n, row) in text.split(separator: "\n").enumerated() {
    do { lines.append(try JSONDecoder().decode(Line.self, from: Data(row.utf8))) } catch { fail("\(arguments[0]):\(n + 1): \(error)") }
}
let resultsURL = URL(fileURLWithPath: arguments[1])
var done: [String: Result] = [:]
if let saved = try? String(contentsOf: resultsURL, encoding: .utf8) {
    for row in saved.split(separator: "\n") {
        if let result = try? JSONDecoder().decode(Result.self, from: Data(row.utf8)) { done[result.emotion] = result }
    }
}
let emotions = QuoteEmotion.echo.filter { e in lines.contains { $0.emotion == e.name } }
let judge: TemplateJudge
do { judge = try TemplateJudge() } catch { fail("\(error)") }
let todo = emotions.filter { done[$0.name] == nil }
FileHandle.standardError.write(Data("\(lines.count) lines in \(emotions.count) emotions, \(todo.count) to judge on \(modelName)\n".utf8))
if !todo.isEmpty {
    let provider: LocalModelProvider
    do {
        provider = try LocalProviderFactory.make(
            model: modelName, maxConcurrency: 1, maxTokens: 1200, environment: ProcessInfo.processInfo.environment, events: { _ in },
            status: { FileHandle.standardError.write(Data("\($0)\n".utf8)) })
    } catch { fail("\(error)") }
    if !FileManager.default.fileExists(atPath: resultsURL.path) { _ = FileManager.default.createFile(atPath: resultsURL.path, contents: nil) }
    guard let out = try? FileHandle(forWritingTo: resultsURL) else { fail("cannot write \(resultsURL.path)") }
    out.seekToEndOfFile()
    for emotion in todo {
        let own = lines.filter { $0.emotion == emotion.name }.map(\.template)
        let request = judge.request(emotion, lines: own, model: modelName, temperature: 0.2, maxTokens: 1200, seed: 7)
        let start = Date()
        let response: LLMResponse
        do {
            response = try await provider.complete(request, context: RequestContext(itemID: "judge/\(emotion.name)", stage: "templates", attempt: 1))
        } catch {
            FileHandle.standardError.write(Data("\(emotion.name): \(error)\n".utf8))
            continue
        }
        let result = Result(emotion: emotion.name, answer: response.content, seconds: Date().timeIntervalSince(start))
        done[emotion.name] = result
        out.write((try! JSONEncoder().encode(result)) + Data("\n".utf8))
        FileHandle.standardError.write(Data("\(emotion.name): \(String(format: "%.0f", result.seconds)) s\n".utf8))
    }
    await provider.shutdown()
}

func percent(_ a: Int, _ b: Int) -> String { b == 0 ? "—" : String(format: "%.0f%%", 100 * Double(a) / Double(b)) }
print("emotion        lines  unfit  refused unfit (recall)  fitting  refused fitting  s/call")
var totals = (unfit: 0, caught: 0, fitting: 0, refused: 0, unread: 0)
for emotion in emotions {
    let own = lines.filter { $0.emotion == emotion.name }
    guard let result = done[emotion.name] else { continue }
    guard case .success(let verdicts) = TemplateJudge.verdicts(result.answer, count: own.count) else {
        print("\(emotion.name.padding(toLength: 14, withPad: " ", startingAt: 0)) no readable verdicts")
        totals.unread += own.count
        continue
    }
    let unfit = zip(own, verdicts).filter { !$0.0.fits }
    let fitting = zip(own, verdicts).filter { $0.0.fits }
    let caught = unfit.filter { !$0.1.fits }.count
    let refused = fitting.filter { !$0.1.fits }.count
    totals.unfit += unfit.count
    totals.caught += caught
    totals.fitting += fitting.count
    totals.refused += refused
    print(
        emotion.name.padding(toLength: 14, withPad: " ", startingAt: 0), String(own.count).leftPad(6), String(unfit.count).leftPad(6),
        "\(caught) (\(percent(caught, unfit.count)))".leftPad(23), String(fitting.count).leftPad(8), "\(refused) (\(percent(refused, fitting.count)))".leftPad(16),
        String(format: "%.0f", result.seconds).leftPad(7))
}
print(
    "all: \(totals.caught) of \(totals.unfit) lines that do not fit refused (\(percent(totals.caught, totals.unfit))); \(totals.refused) of \(totals.fitting) fitting lines refused (\(percent(totals.refused, totals.fitting)))"
        + (totals.unread > 0 ? "; \(totals.unread) lines without a readable verdict" : ""))

extension String {
    func leftPad(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
