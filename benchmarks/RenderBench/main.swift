// lectern-bench-render: renders 1,000 generated lecture-like Markdown files with LecternRender and,
// on the same files, times pandoc (`-f markdown -t html5 --mathml`) and the cmark-gfm CLI.
//
//   lectern-bench-render [--files N] [--dir PATH] [--skip-tools] [--unique-formulas]
//
// Fairness: every tool gets the same bytes. Lectern renders in-process, one file per call
// (single-threaded, then 2 tasks). The external tools run once on the whole batch (one process, all
// files as arguments: one startup, then pure throughput) and once per file on a sample (what a
// per-file invocation costs, startup included). Ratios use the batch runs.
import LecternRandom
import LecternRender

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: Deterministic lecture generator

/// SplitMix64 draws: the same files on every machine.
extension SplitMix64 {
    mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func pick<T>(_ xs: [T]) -> T { xs[int(xs.count)] }
}

enum LectureGenerator {
    static let words = [
        "energy", "velocity", "function", "variable", "matrix", "student", "example", "theorem", "proof", "value",
        "system", "model", "data", "algorithm", "loop", "array", "integral", "derivative", "limit", "series",
        "the", "a", "of", "and", "is", "we", "can", "see", "that", "when", "with", "for", "this", "each", "every",
    ]
    static let arabic = ["الطاقة", "السرعة", "الدالة", "المتغير", "المصفوفة", "الطالب", "مثال", "نظرية", "برهان", "قيمة"]
    /// `--unique-formulas`: every formula made distinct (`+ u_{N}`), so that no conversion is a
    /// cache hit — the cost of a document whose formulas were never seen.
    nonisolated(unsafe) static var uniqueCounter: Int?
    static func unique(_ tex: String) -> String {
        guard let n = uniqueCounter else { return tex }
        uniqueCounter = n + 1
        return tex + " + u_{\(n)}"
    }

    static let inlineMath = [
        "x^2", "E = mc^2", "\\frac{a}{b}", "\\sqrt{x^2 + y^2}", "\\alpha + \\beta", "f(x) = 3x + 2", "\\sum_{i=1}^n i",
        "a_{ij}", "\\lim_{x \\to 0} \\frac{\\sin x}{x} = 1", "v = \\frac{d}{t}", "n \\log n", "\\{1, 2, 3\\}",
    ]
    static let displayMath = [
        "\\int_0^1 x^2 \\, dx = \\frac{1}{3}",
        "E_k = \\frac{1}{2} m v^2",
        "\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}",
        "\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix} \\begin{pmatrix} x \\\\ y \\end{pmatrix}",
        "x = \\frac{-b \\pm \\sqrt{b^2 - 4ac}}{2a}",
        "\\lim_{n \\to \\infty} \\left(1 + \\frac{1}{n}\\right)^n = e",
    ]
    static let code = [
        ("python", "def mean(xs):\n    return sum(xs) / len(xs)  # average of $values$\n\nprint(mean([1, 2, 3]))"),
        ("swift", "func square(_ x: Double) -> Double {\n    x * x\n}\nlet total = (1...10).map(square).reduce(0, +)"),
        ("javascript", "const xs = [1, 2, 3];\nconst doubled = xs.map(x => x * 2);\nconsole.log(`sum: ${doubled}`);"),
        ("", "$ ls -la\n$ echo \"cost: $5\""),
    ]

    static func sentence(_ rng: inout SplitMix64, math: Bool) -> String {
        var parts: [String] = []
        let count = 8 + rng.int(14)
        for i in 0..<count {
            var w = rng.pick(words)
            if i == 0 { w = w.prefix(1).uppercased() + w.dropFirst() }
            switch rng.int(40) {
            case 0: w = "*\(w)*"
            case 1: w = "**\(w)**"
            case 2: w = "`\(w)`"
            case 3 where math: w = "$\(unique(rng.pick(inlineMath)))$"
            case 4 where math: w = "\\(\(unique(rng.pick(inlineMath)))\\)"
            case 5: w = "[\(w)](https://example.com/\(w))"
            default: break
            }
            parts.append(w)
        }
        if math, rng.int(3) == 0 { parts.insert("$\(unique(rng.pick(inlineMath)))$", at: rng.int(parts.count)) }
        return parts.joined(separator: " ") + "."
    }

    static func paragraph(_ rng: inout SplitMix64) -> String {
        (0..<(2 + rng.int(4))).map { _ in sentence(&rng, math: true) }.joined(separator: " ")
    }

    static func lecture(_ index: Int) -> String {
        var rng = SplitMix64(state: UInt64(index) &* 7919 &+ 17)
        var out = "# Lecture \(index): \(rng.pick(words)) and \(rng.pick(words))\n\n"
        let sections = 2 + rng.int(4)
        for s in 0..<sections {
            out += "## Section \(s + 1)\n\n"
            for _ in 0..<(1 + rng.int(3)) { out += paragraph(&rng) + "\n\n" }
            switch rng.int(6) {
            case 0:
                out += "$$\n\(unique(rng.pick(displayMath)))\n$$\n\n"
            case 1:
                let (language, body) = rng.pick(code)
                out += "```\(language)\n\(body)\n```\n\n"
            case 2:
                out += "> " + sentence(&rng, math: true) + "\n> " + sentence(&rng, math: false) + "\n\n"
            case 3:
                for i in 0..<(2 + rng.int(4)) { out += "\(i + 1). " + sentence(&rng, math: true) + "\n" }
                out += "\n"
            case 4:
                out += "| Quantity | Formula | Value |\n|:--|:-:|--:|\n"
                for _ in 0..<(2 + rng.int(4)) {
                    out += "| \(rng.pick(words)) | $\(unique(rng.pick(inlineMath)))$ | \(rng.int(1000)) |\n"
                }
                out += "\n"
            default:
                out += (0..<3).map { _ in rng.pick(arabic) }.joined(separator: " ") + " $\(unique(rng.pick(inlineMath)))$.\n\n"
            }
            if rng.int(2) == 0 { out += "$$\(unique(rng.pick(displayMath)))$$\n\n" }
        }
        return out
    }
}

// MARK: Helpers

func writeFile(_ path: String, _ text: String) {
    guard let f = fopen(path, "wb") else {
        print("cannot write \(path)")
        exit(1)
    }
    var copy = text
    copy.withUTF8 { _ = fwrite($0.baseAddress, 1, $0.count, f) }
    fclose(f)
}

func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

/// CPU time (user + system) of this process so far.
func processCPUTime() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
        + Double(usage.ru_stime.tv_usec) / 1e6
}

/// CPU time (user + system) of all finished child processes so far.
func childrenCPUTime() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
        + Double(usage.ru_stime.tv_usec) / 1e6
}

/// A measurement: wall-clock seconds and CPU seconds. The machine's 2 cores are shared, so the
/// ratios use CPU time, which other processes disturb much less than wall time.
struct Timing {
    var wall: Double
    var cpu: Double
}

/// Runs a shell command; returns its timing (CPU time of the command's processes), or nil if it failed.
func timeCommand(_ command: String) -> Timing? {
    let cpuBefore = childrenCPUTime()
    let start = ContinuousClock.now
    let status = system(command)
    let elapsed = seconds(ContinuousClock.now - start)
    return status == 0 ? Timing(wall: elapsed, cpu: childrenCPUTime() - cpuBefore) : nil
}

func toolExists(_ name: String) -> Bool { system("command -v \(name) >/dev/null 2>&1") == 0 }

/// One line: wall and CPU seconds, then throughput by CPU time.
func report(_ label: String, files: Int, bytes: Int, time: Timing) {
    let filesPerSecond = Double(files) / time.cpu
    let mbPerSecond = Double(bytes) / time.cpu / 1_000_000
    print(
        label.padding(48) + format3(time.wall).padding(8, left: true) + format3(time.cpu).padding(9, left: true)
            + format1(filesPerSecond).padding(11, left: true) + format2(mbPerSecond).padding(9, left: true))
}

func format1(_ x: Double) -> String { formatFixed(x, 1) }
func format2(_ x: Double) -> String { formatFixed(x, 2) }
func format3(_ x: Double) -> String { formatFixed(x, 3) }
func formatFixed(_ x: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let rounded = (x * scale).rounded() / scale
    var s = String(rounded)
    if let dot = s.firstIndex(of: ".") {
        let decimals = s.distance(from: dot, to: s.endIndex) - 1
        if decimals < digits { s += String(repeating: "0", count: digits - decimals) }
    } else if digits > 0 {
        s += "." + String(repeating: "0", count: digits)
    }
    return s
}

extension String {
    func padding(_ width: Int, left: Bool = false) -> String {
        let pad = String(repeating: " ", count: max(0, width - count))
        return left ? pad + self : self + pad
    }
}

// MARK: Main

var fileCount = 1000
var directory = "/tmp/lectern-bench-render"
var skipTools = false
var arguments = CommandLine.arguments.dropFirst()
while let a = arguments.popFirst() {
    switch a {
    case "--files": fileCount = Int(arguments.popFirst() ?? "") ?? fileCount
    case "--dir": directory = arguments.popFirst() ?? directory
    case "--skip-tools": skipTools = true
    case "--unique-formulas": LectureGenerator.uniqueCounter = 0
    default:
        print("usage: lectern-bench-render [--files N] [--dir PATH] [--skip-tools] [--unique-formulas]")
        exit(2)
    }
}

_ = system("rm -rf '\(directory)' && mkdir -p '\(directory)'")
var lectures: [String] = []
var paths: [String] = []
for i in 0..<fileCount {
    let text = LectureGenerator.lecture(i)
    let path = "\(directory)/lecture-\(String(i).padding(4, left: true).replacing(" ", with: "0")).md"
    writeFile(path, text)
    lectures.append(text)
    paths.append(path)
}
let totalBytes = lectures.reduce(0) { $0 + $1.utf8.count }
let formulaCount = lectures.reduce(0) { $0 + $1.split(separator: "$", omittingEmptySubsequences: false).count / 2 }
print("\(fileCount) generated lectures in \(directory): \(totalBytes) bytes (\(totalBytes / fileCount) per file), ~\(formulaCount) dollar-delimited formulas")
print()

let renderer = MarkdownRenderer()
// Warm-up (registration, first allocations).
for text in lectures.prefix(20) { _ = try? renderer.render(text, language: "en", title: nil) }

print("tool".padding(48) + "wall s".padding(8, left: true) + "CPU s".padding(9, left: true) + "files/s".padding(11, left: true) + "MB/s".padding(9, left: true) + "   (throughput per CPU second)")
var outputBytes = 0
var failures = 0
/// FNV-1a over every page (an untimed pass): a change that should not alter the output shows here.
var outputDigest: UInt64 = 0xcbf2_9ce4_8422_2325
var best = Timing(wall: .infinity, cpu: .infinity)
for _ in 0..<3 {
    let cpuBefore = processCPUTime()
    let start = ContinuousClock.now
    outputBytes = 0
    for (i, text) in lectures.enumerated() {
        do {
            outputBytes += try renderer.render(text, language: i % 10 == 0 ? "ar" : "en", title: nil).xhtml.utf8.count
        } catch {
            failures += 1
        }
    }
    let t = Timing(wall: seconds(ContinuousClock.now - start), cpu: processCPUTime() - cpuBefore)
    if t.cpu < best.cpu { best = t }
}
let lecternTime = best
// Untimed: the digest of every page.
for (i, text) in lectures.enumerated() {
    guard let page = try? renderer.render(text, language: i % 10 == 0 ? "ar" : "en", title: nil) else { continue }
    for byte in page.xhtml.utf8 { outputDigest = (outputDigest ^ UInt64(byte)) &* 0x100_0000_01b3 }
}
report("Lectern (in-process, 1 thread, best of 3)", files: fileCount, bytes: totalBytes, time: lecternTime)

/// Renders `lectures` from `workers` tasks; returns the timing.
func renderConcurrently(_ lectures: [String], workers: Int) async -> Timing {
    let renderer = MarkdownRenderer()
    let cpuBefore = processCPUTime()
    let start = ContinuousClock.now
    await withTaskGroup(of: Void.self) { group in
        for worker in 0..<workers {
            group.addTask {
                for i in stride(from: worker, to: lectures.count, by: workers) {
                    _ = try? renderer.render(lectures[i], language: "en", title: nil)
                }
            }
        }
    }
    return Timing(wall: seconds(ContinuousClock.now - start), cpu: processCPUTime() - cpuBefore)
}

report("Lectern (in-process, 2 tasks)", files: fileCount, bytes: totalBytes, time: await renderConcurrently(lectures, workers: 2))
print("  output: \(outputBytes) bytes of XHTML (FNV-1a \(String(outputDigest, radix: 16))), \(failures) failures")

guard !skipTools else { exit(failures == 0 ? 0 : 1) }
print()

let listPath = "\(directory)/files.txt"
writeFile(listPath, paths.joined(separator: "\n") + "\n")
let sample = Array(paths.prefix(100))
let sampleBytes = lectures.prefix(100).reduce(0) { $0 + $1.utf8.count }

var cmarkBatch: Timing?
if toolExists("cmark-gfm") {
    let cmark = "cmark-gfm -e table -e strikethrough -e autolink -e tagfilter --validate-utf8"
    var bestCmark = Timing(wall: .infinity, cpu: .infinity)
    for _ in 0..<3 {
        if let t = timeCommand("xargs -a '\(listPath)' \(cmark) > /dev/null"), t.cpu < bestCmark.cpu { bestCmark = t }
    }
    if bestCmark.cpu.isFinite {
        cmarkBatch = bestCmark
        report("cmark-gfm CLI (batch: 1 process, best of 3)", files: fileCount, bytes: totalBytes, time: bestCmark)
    }
    if let t = timeCommand("for f in \(sample.joined(separator: " ")); do \(cmark) \"$f\" > /dev/null || exit 1; done") {
        report("cmark-gfm CLI (1 process per file, 100 files)", files: 100, bytes: sampleBytes, time: t)
    }
} else {
    print("cmark-gfm not installed: skipped")
}

var pandocBatch: Timing?
if toolExists("pandoc") {
    if let t = timeCommand("xargs -a '\(listPath)' pandoc -f markdown -t html5 --mathml > /dev/null") {
        pandocBatch = t
        report("pandoc -t html5 --mathml (batch: 1 process)", files: fileCount, bytes: totalBytes, time: t)
    }
    let pandocSample = sample.prefix(30)
    let pandocSampleBytes = lectures.prefix(30).reduce(0) { $0 + $1.utf8.count }
    if let t = timeCommand("for f in \(pandocSample.joined(separator: " ")); do pandoc -f markdown -t html5 --mathml \"$f\" > /dev/null || exit 1; done") {
        report("pandoc (1 process per file, 30 files)", files: 30, bytes: pandocSampleBytes, time: t)
    }
} else {
    print("pandoc not installed: skipped")
}

print()
if let p = pandocBatch {
    print("Lectern vs pandoc (batch):    \(format1(p.cpu / lecternTime.cpu))x faster by CPU time, \(format1(p.wall / lecternTime.wall))x by wall time   (goal: >= 20x)")
}
if let c = cmarkBatch {
    print("Lectern vs cmark-gfm (batch): \(format2(lecternTime.cpu / c.cpu))x cmark-gfm's CPU time, \(format2(lecternTime.wall / c.wall))x its wall time   (goal: <= 2x)")
}
exit(failures == 0 ? 0 : 1)
