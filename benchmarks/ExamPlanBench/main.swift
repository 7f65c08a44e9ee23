// lectern-bench-exam-plan: the exam corpus at scale. `generate` writes a deterministic synthetic
// corpus (English, Arabic and mixed Markdown documents with headings, emphasis and the odd huge
// paragraph); `plan` loads it through `ExamCorpus.load` (read, UTF-8 check, SHA-256, chunks and
// passages, or the index cache) and makes the source plan of a 2,000-item blueprint (coverage
// checked per cell), which is what `lectern validate` and `lectern plan` do before any model call.
//
//   lectern-bench-exam-plan generate DIR [--megabytes 50]
//   lectern-bench-exam-plan plan DIR [--cache DIR] [--check]
//
// `--check` also verifies one source quote per planned item (`ExamCorpus.contains`, which
// normalizes each cited document once) and files 2,000 stems in a `NearDuplicateIndex`: the checks
// that run on the model's answers, timed apart.
import Foundation
import LecternCore
import LecternRandom

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension SplitMix64 {
    mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func pick<T>(_ xs: [T]) -> T { xs[int(xs.count)] }
}

enum CorpusGenerator {
    static let english = [
        "river", "teacher", "engine", "market", "village", "library", "harvest", "bridge", "letter", "garden", "storm", "clock",
        "energy", "velocity", "function", "variable", "student", "example", "theorem", "value", "system", "model", "city", "author",
        "carried", "changed", "measured", "described", "protected", "followed", "opened", "crossed", "repaired", "counted", "wrote",
        "the", "a", "of", "and", "is", "we", "can", "see", "that", "when", "with", "for", "this", "each", "every", "after", "before",
    ]
    static let arabic = [
        "الطاقة", "السرعة", "الدالة", "المتغير", "الطالب", "مثال", "نظرية", "برهان", "قيمة", "المدينة", "النهر", "الكتاب", "المعلم",
        "السوق", "القرية", "المكتبة", "الحصاد", "الجسر", "الرسالة", "الحديقة", "العاصفة", "الساعة", "يدرس", "يكتب", "يقرأ", "يفسّر",
        "يحمي", "يتبع", "يفتح", "يعبُر", "يُصلح", "يحسب", "في", "من", "إلى", "على", "عن", "مع", "هذا", "هذه", "التي", "الذي", "كان", "قد",
    ]

    static func sentence(_ rng: inout SplitMix64, arabic: Bool) -> String {
        let words = arabic ? Self.arabic : english
        var parts: [String] = []
        for i in 0..<(7 + rng.int(14)) {
            var w = rng.pick(words)
            if i == 0 && !arabic { w = w.prefix(1).uppercased() + w.dropFirst() }
            switch rng.int(30) {
            case 0: w = "*\(w)*"
            case 1: w = "**\(w)**"
            case 2: w = "\(w) \(1_000 + rng.int(9_000))"
            default: break
            }
            parts.append(w)
        }
        let end = arabic ? (rng.int(5) == 0 ? "؟" : ".") : (rng.int(8) == 0 ? "?" : ".")
        return parts.joined(separator: " ") + end
    }

    static func paragraph(_ rng: inout SplitMix64, arabic: Bool) -> String {
        let sentences = rng.int(40) == 0 ? 40 + rng.int(30) : 2 + rng.int(7)  // now and then a huge one
        return (0..<sentences).map { _ in sentence(&rng, arabic: arabic) }.joined(separator: " ")
    }

    /// A document of about `bytes` bytes: English, Arabic or both (by `kind`).
    static func document(index: Int, bytes: Int, kind: Int) -> String {
        var rng = SplitMix64(state: UInt64(index) &* 0x9E37_79B9 &+ 11)
        var out = "# Document \(index)\n\n"
        var paragraphs = 0
        while out.utf8.count < bytes {
            if paragraphs > 0 && paragraphs % (4 + rng.int(6)) == 0 { out += "## Part \(paragraphs)\n\n" }
            let arabic = kind == 1 || (kind == 2 && rng.int(2) == 0)
            out += paragraph(&rng, arabic: arabic) + "\n\n"
            paragraphs += 1
        }
        return out
    }

    /// Writes `en/`, `ar/` and `mixed/` documents of 20–400 KB until `megabytes` MiB are written.
    static func generate(into directory: URL, megabytes: Int) throws -> (documents: Int, bytes: Int) {
        let target = megabytes << 20
        var rng = SplitMix64(state: 0xE8A3)
        var total = 0
        var index = 0
        while total < target {
            let kind = index % 3
            let folder = ["en", "ar", "mixed"][kind]
            let text = document(index: index, bytes: min(20_000 + rng.int(380_000), target - total + 1_000), kind: kind)
            let url = directory.appendingPathComponent("corpus/\(folder)/doc-\(String(format: "%04d", index)).md")
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
            total += text.utf8.count
            index += 1
        }
        return (index, total)
    }
}

/// 2,000 items: four standard verbal categories and a reading one (400 questions, 2–5 per
/// passage), three quantitative ones; Arabic documents serve the verbal section only.
func blueprint() -> ExamSpec {
    func standard(_ id: String, _ n: Int) -> ExamCategory {
        ExamCategory(
            id: id, title: id, format: .standard, instructions: "", seconds: 60,
            counts: DifficultyCounts(easy: n / 3 + n % 3, medium: n / 3, hard: n / 3))
    }
    let reading = ExamCategory(
        id: "reading-comprehension", title: "Reading", format: .reading, instructions: "", seconds: 90,
        counts: DifficultyCounts(easy: 140, medium: 140, hard: 120), questionsPerPassage: SizeRange(min: 2, max: 5))
    return ExamSpec(
        corpus: [
            CorpusSource(path: "corpus/en"), CorpusSource(path: "corpus/ar", sections: ["verbal"]), CorpusSource(path: "corpus/mixed"),
        ],
        preset: nil,
        sections: [
            ExamSection(
                id: "verbal", title: "Verbal",
                categories: [
                    standard("analogies", 300), standard("sentence-completion", 300), standard("contextual-error", 300),
                    standard("odd-word-out", 300), reading,
                ]),
            ExamSection(
                id: "quantitative", title: "Quantitative",
                categories: [standard("arithmetic", 150), standard("algebra", 150), standard("geometry", 100)]),
        ],
        optionCount: 4, forms: [])
}

func seconds(since start: ContinuousClock.Instant) -> String {
    let d = ContinuousClock.now - start
    let s = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    return String(format: "%.3f s", s)
}

func peakRSS() -> String {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return "\(usage.ru_maxrss / 1024) MB"
}

func cpu() -> String {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    return String(format: "%.3f s user + %.3f s system", user, system)
}

// MARK: Commands

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String, in arguments: [String] = arguments) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}
guard arguments.count >= 2 else {
    print("usage: lectern-bench-exam-plan generate DIR [--megabytes 50] | plan DIR [--cache DIR] [--check]")
    exit(2)
}
let directory = URL(fileURLWithPath: arguments[1])

switch arguments[0] {
case "generate":
    let start = ContinuousClock.now
    let (documents, bytes) = try CorpusGenerator.generate(into: directory, megabytes: Int(option("--megabytes") ?? "50") ?? 50)
    print("generated \(documents) documents, \(bytes) bytes in \(directory.path)/corpus (\(seconds(since: start)))")

case "plan":
    let spec = blueprint()
    let cache = option("--cache").map { URL(fileURLWithPath: $0) }
    let start = ContinuousClock.now
    let corpus = try ExamCorpus.load(spec.corpus, relativeTo: directory, indexCache: cache)
    let loaded = seconds(since: start)
    let planStart = ContinuousClock.now
    let plan: ExamSourcePlan
    switch ExamSourcePlan.make(spec: spec, corpus: corpus) {
    case .success(let made): plan = made
    case .failure(let error):
        print(error)
        exit(1)
    }
    let planned = seconds(since: planStart)
    let bytes = corpus.documents.reduce(0) { $0 + $1.characters }
    print(
        "corpus: \(corpus.documents.count) documents, \(bytes) characters, \(corpus.documents.reduce(0) { $0 + $1.chunks.count }) chunks, "
            + "\(corpus.documents.reduce(0) { $0 + $1.passages.count }) passages; index cache: \(cache?.path ?? "none")")
    print("plan: \(plan.items.count) items, \(plan.passages.count) passages, from \(Set(plan.items.map(\.document)).count) documents")
    print("load + index: \(loaded); coverage check + plan: \(planned); total \(seconds(since: start)); CPU \(cpu()); peak RSS \(peakRSS())")

    if arguments.contains("--check") {
        let checkStart = ContinuousClock.now
        var found = 0
        for item in plan.items {
            // A sentence of the grounding text, as a model would quote it: without its Markdown emphasis.
            let sentences = item.groundingText.split(whereSeparator: { $0 == "." || $0 == "؟" || $0 == "?" })
            let quote = (sentences.first { $0.split(separator: " ").count >= 6 && !$0.contains("#") } ?? sentences[0])
                .replacingOccurrences(of: "*", with: "")
            if corpus.contains(quote: String(quote), inDocument: item.document) == .found { found += 1 }
        }
        let quotes = seconds(since: checkStart)
        let stemStart = ContinuousClock.now
        var index = NearDuplicateIndex()
        var duplicates = 0
        var rng = SplitMix64(state: 7)
        // Stems on one frame with four words from a vocabulary of 3,350 (67 content words × 50): a
        // near duplicate shares three of them (the frame's words do not count once the bank has 20 stems).
        let words = Array(CorpusGenerator.english.prefix(35)) + CorpusGenerator.arabic.prefix(32)
        for item in plan.items {
            let stem = "Which word is the odd one out: " + (0..<4).map { _ in "\(rng.pick(words))\(rng.int(50))" }.joined(separator: ", ") + "?"
            if index.insertUnlessDuplicate(id: item.id, text: stem) != nil { duplicates += 1 }
        }
        print(
            "quotes: \(found) of \(plan.items.count) found in \(quotes); near duplicates: \(duplicates) of \(plan.items.count) stems in "
                + "\(seconds(since: stemStart)); CPU \(cpu()); peak RSS \(peakRSS())")
    }

default:
    print("unknown command \(arguments[0])")
    exit(2)
}
