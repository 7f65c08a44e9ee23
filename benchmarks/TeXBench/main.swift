// lectern-bench-tex: runs TeXMath over a JSONL suite of formulas, in one process.
//
//   lectern-bench-tex INPUT.jsonl [OUTPUT.jsonl]     (OUTPUT defaults to standard output)
//   lectern-bench-tex --repeat N INPUT.jsonl          (converts the suite N times, writes nothing,
//                                                     and prints the fastest pass: for profiling)
//
// Input: one JSON object a line, `{"tex": "...", "display": true|false, ...}`. A missing `display`
// means display mode (the shared corpora carry no such field and are written as display formulas).
// Output: one JSON object a line, in input order, `{"tex", "display", "mathml", "warnings"}` plus
// every other input field passed through unchanged. Blank input lines are skipped; a line that is
// not a JSON object with a string `tex` stops the run with its line number (exit 1).
// Timing for the whole suite goes to standard error.
import Foundation
import TeXMath

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("lectern-bench-tex: \(message)\n".utf8))
    exit(1)
}

var arguments = CommandLine.arguments.dropFirst()
var repeats = 0
if arguments.first == "--repeat" {
    arguments = arguments.dropFirst()
    guard let n = arguments.first.flatMap({ Int($0) }), n > 0 else { fail("--repeat takes a positive count") }
    repeats = n
    arguments = arguments.dropFirst()
}
guard let inputPath = arguments.first, arguments.count <= 2 else {
    fail("usage: lectern-bench-tex INPUT.jsonl [OUTPUT.jsonl]")
}
guard let inputData = FileManager.default.contents(atPath: inputPath) else {
    fail("cannot read \(inputPath)")
}

if repeats > 0 {
    var suite: [(String, Bool)] = []
    for line in inputData.split(separator: UInt8(ascii: "\n")) {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any],
            let tex = object["tex"] as? String
        else { continue }
        suite.append((tex, (object["display"] as? Bool) ?? true))
    }
    var best = Double.infinity
    var bytes = 0
    for _ in 0..<repeats {
        let start = DispatchTime.now().uptimeNanoseconds
        bytes = 0
        for (tex, display) in suite { bytes &+= TeXMath.convert(tex, display: display).mathML.utf8.count }
        best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    print(
        String(
            format: "lectern-bench-tex: %d formulas, fastest of %d passes %.3f s (%.2f µs a formula), %d bytes of MathML", suite.count, repeats, best, best / Double(max(suite.count, 1)) * 1e6, bytes))
    exit(0)
}

var output = Data()
var count = 0
var unclean = 0
var seconds = 0.0
let lines = inputData.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
for (index, line) in lines.enumerated() {
    if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\t") }) { continue }
    guard var object = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any],
        let tex = object["tex"] as? String
    else { fail("\(inputPath):\(index + 1): not a JSON object with a string \"tex\"") }
    let display = (object["display"] as? Bool) ?? true
    let start = DispatchTime.now().uptimeNanoseconds
    let result = TeXMath.convert(tex, display: display)
    seconds += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    object["display"] = display
    object["mathml"] = result.mathML
    object["warnings"] = result.warnings
    count += 1
    if !result.warnings.isEmpty { unclean += 1 }
    do {
        output.append(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
    } catch { fail("\(inputPath):\(index + 1): cannot encode the result: \(error)") }
    output.append(UInt8(ascii: "\n"))
}

if arguments.count == 2 {
    let outputPath = arguments[arguments.startIndex + 1]
    guard FileManager.default.createFile(atPath: outputPath, contents: output) else { fail("cannot write \(outputPath)") }
} else {
    FileHandle.standardOutput.write(output)
}
FileHandle.standardError.write(
    Data(
        String(
            format: "lectern-bench-tex: %d formulas (%d with warnings) in %.3f s of conversion\n", count, unclean, seconds
        ).utf8))
