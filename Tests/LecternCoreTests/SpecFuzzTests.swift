import Foundation
import LecternRandom
import Synchronization
import Testing

@testable import LecternCore

/// Spec fuzzing: 1,200 mutations of the valid fixture specs (byte flips, type swaps, deleted and
/// duplicated keys, deep nesting, aliases, huge scalars, truncations) through the real
/// `SpecLoader`, from a fixed seed. Every spec must load or be refused with a `SpecError` whose
/// diagnostics name the file and, where the problem has a place, a line and column inside it.
/// No crash (the test process survives), no hang (a watchdog), and the slowest spec is printed.
struct SpecFuzzTests {
    static let seed: UInt64 = 0x5EED_0007
    static let count = 1_200
    /// A spec still loading after this long counts as a hang.
    static let hangSeconds = 20.0
    /// Generous: a real spec loads in milliseconds, and the slowest mutant (a huge scalar) in
    /// 0.3 s on a quiet machine. It took 2.16 s beside two local-model recordings and the rest of
    /// the suite, and 10.08 s in a fresh clone's `.ci/run` on 2 cores (2026-11-27, the suite's
    /// other tests beside it), so the bound is a runaway guard, not a speed target.
    static let slowestAllowed = Duration.seconds(60)

    /// Problems that belong to the whole file, not a place in it.
    static let placelessMessages = [
        "not valid UTF-8", "specs are limited to", "the spec could not be read", "is a directory", "cannot read the file",
    ]

    struct Outcome: Sendable {
        var index: Int
        var operators: [String]
        var accepted: Bool
        var problems: [String]
        var placeless: [String]
        /// The first diagnostic's message, cut short, for the summary.
        var firstMessage: String?
        var duration: Duration
    }

    /// Progress of the background run, for the watchdog.
    final class Progress: Sendable {
        let state = Mutex<(current: Int, startedAt: ContinuousClock.Instant?, outcomes: [Outcome], done: Bool)>((0, nil, [], false))
    }

    @Test("1,200 mutated specs: no crash, no hang, every refusal a located SpecError")
    func mutatedSpecs() async throws {
        let fixtures = try #require(Bundle.module.resourceURL).appendingPathComponent("Fixtures")
        let presets = try PresetLibrary(directories: [fixtures.appendingPathComponent("presets")])
        let bases = try ["full.yaml", "minimal.yaml", "pinned-outline.yaml"].map {
            try String(contentsOf: fixtures.appendingPathComponent("specs/valid/\($0)"), encoding: .utf8)
        }
        var random = SplitMix64(state: Self.seed)
        var mutants: [(text: Data, operators: [String])] = []
        for index in 0..<Self.count {
            var mutator = SpecMutator(text: bases[index % bases.count])
            let steps = 1 + Int(random.next() % 3)
            var names: [String] = []
            for _ in 0..<steps { names.append(mutator.mutate(&random)) }
            mutants.append((mutator.data, names))
        }

        // Loads run in one task (like `lectern validate`/`run`, on the cooperative pool and its
        // stack), in order; the test watches for a spec that never ends.
        let progress = Progress()
        let loader = SpecLoader(presets: presets)
        let work = mutants
        Task.detached {
            let clock = ContinuousClock()
            for (index, mutant) in work.enumerated() {
                let start = clock.now
                progress.state.withLock {
                    $0.current = index
                    $0.startedAt = start
                }
                let outcome = Self.load(mutant.text, index: index, operators: mutant.operators, loader: loader, clock: clock, start: start)
                progress.state.withLock { $0.outcomes.append(outcome) }
            }
            progress.state.withLock { $0.done = true }
        }

        let clock = ContinuousClock()
        while true {
            let (done, current, startedAt) = progress.state.withLock { ($0.done, $0.current, $0.startedAt) }
            if done { break }
            if let startedAt, startedAt.duration(to: clock.now) > .seconds(Self.hangSeconds) {
                let text = String(decoding: mutants[current].text.prefix(400), as: UTF8.self)
                Issue.record(
                    "spec #\(current) (\(mutants[current].operators)) has been loading for over \(Self.hangSeconds) s: a hang. Start:\n\(text)")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }

        let outcomes = progress.state.withLock { $0.outcomes }
        #expect(outcomes.count == Self.count)
        var operatorCounts: [String: Int] = [:]
        for outcome in outcomes { for name in outcome.operators { operatorCounts[name, default: 0] += 1 } }
        for outcome in outcomes {
            for problem in outcome.problems {
                Issue.record("spec #\(outcome.index) (\(outcome.operators)): \(problem)")
            }
            for message in outcome.placeless where !Self.placelessMessages.contains(where: { message.contains($0) }) {
                Issue.record("spec #\(outcome.index) (\(outcome.operators)): a diagnostic without a place: \(message)")
            }
        }
        let accepted = outcomes.filter(\.accepted).count
        let slowest = outcomes.max { $0.duration < $1.duration }
        let total = outcomes.reduce(Duration.zero) { $0 + $1.duration }
        print(
            "spec fuzz: \(outcomes.count) mutants (seed \(String(Self.seed, radix: 16))), \(accepted) accepted, \(outcomes.count - accepted) refused with located SpecErrors; "
                + "operators \(operatorCounts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")); "
                + "total \(total), slowest #\(slowest?.index ?? -1) \(slowest?.operators ?? []) in \(slowest?.duration ?? .zero)")
        var byOperator: [String: Duration] = [:]
        for outcome in outcomes { for name in Set(outcome.operators) { byOperator[name, default: .zero] += outcome.duration } }
        print(
            "spec fuzz: time by operator (a spec counts for each of its operators): "
                + byOperator.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        var messages: [String: Int] = [:]
        for outcome in outcomes { if let message = outcome.firstMessage { messages[message, default: 0] += 1 } }
        let placelessCount = outcomes.filter { !$0.placeless.isEmpty }.count
        print(
            "spec fuzz: \(placelessCount) refusals carry a file-level diagnostic (no place); most common first diagnostics: "
                + messages.sorted { $0.value > $1.value }.prefix(10).map { "\($0.value)× \($0.key)" }.joined(separator: "; "))
        if let slowest { #expect(slowest.duration < Self.slowestAllowed, "spec #\(slowest.index) took \(slowest.duration)") }
        #expect(outcomes.count - accepted > Self.count / 2, "most mutants are refused")
    }

    /// Loads one mutant and checks the outcome; never throws.
    static func load(
        _ data: Data, index: Int, operators: [String], loader: SpecLoader, clock: ContinuousClock, start: ContinuousClock.Instant
    ) -> Outcome {
        let file = "fuzz-\(index).yaml"
        var problems: [String] = []
        var placeless: [String] = []
        var accepted = false
        var firstMessage: String?
        do {
            let spec = try loader.load(try YAMLSource(file: file, data: data))
            accepted = true
            if !Slug.isValidID(spec.id) { problems.append("accepted with an invalid id '\(spec.id)'") }
        } catch let error as SpecError {
            if error.diagnostics.isEmpty { problems.append("a SpecError without diagnostics") }
            firstMessage = error.diagnostics.first.map { String($0.message.prefix(while: { $0 != "'" && $0 != ":" }).prefix(48)) }
            let lineCount = data.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
            for diagnostic in error.diagnostics {
                if diagnostic.file != file { problems.append("a diagnostic names '\(diagnostic.file)', not \(file)") }
                if diagnostic.message.trimmingCharacters(in: .whitespaces).isEmpty { problems.append("an empty message") }
                switch (diagnostic.line, diagnostic.column) {
                case (nil, nil):
                    placeless.append(diagnostic.message)
                case (let line?, let column?):
                    if line < 1 || line > lineCount + 1 || column < 1 {
                        problems.append("place \(line):\(column) is outside the file (\(lineCount) lines): \(diagnostic.message)")
                    }
                default:
                    problems.append("a line without a column (or the reverse): \(diagnostic)")
                }
            }
        } catch {
            problems.append("refused with \(type(of: error)), not SpecError: \(error)")
        }
        return Outcome(
            index: index, operators: operators, accepted: accepted, problems: problems, placeless: placeless, firstMessage: firstMessage,
            duration: start.duration(to: clock.now))
    }
}

/// Mutations of a YAML spec, by line and by byte.
struct SpecMutator {
    var lines: [String]
    private var raw: Data?

    init(text: String) {
        lines = text.components(separatedBy: "\n")
    }

    var data: Data { raw ?? Data(lines.joined(separator: "\n").utf8) }

    static let operators = [
        "byte-flip", "type-swap", "delete-key", "duplicate-key", "deep-nesting", "alias", "huge-scalar", "truncate",
        "swap-lines", "indent", "control-chars",
    ]

    static let replacementValues = [
        "[1, 2, 3]", "{ a: b, c: [d] }", "true", "~", "12e999", "-1", "0x1F", "\"\"", "''", ".nan", "!!binary aGVsbG8=",
        "2026-01-01", "|\n  block", ">-", "\"\\u0000\"", "[", "{", "]: x", "- item", "&anchor", "*missing", "!!str", "? complex",
        "@reserved", "`tick`", "%TAG ! tag:x", "1_000", "+.inf", "\"\u{202E}rtl\"", "0o777", "[[[[[]]]]]",
    ]

    /// Applies one random mutation; returns its name.
    mutating func mutate(_ random: inout SplitMix64) -> String {
        let name = Self.operators[Int(random.next() % UInt64(Self.operators.count))]
        if raw != nil && name != "byte-flip" && name != "truncate" {
            // Already byte-mangled: keep mangling bytes.
            flipBytes(&random)
            return "byte-flip"
        }
        switch name {
        case "byte-flip": flipBytes(&random)
        case "truncate":
            var bytes = data
            if !bytes.isEmpty { bytes = bytes.prefix(Int(random.next() % UInt64(bytes.count))) }
            raw = bytes
        case "type-swap":
            if let index = keyLine(&random), let colon = lines[index].firstIndex(of: ":") {
                let value = Self.replacementValues[Int(random.next() % UInt64(Self.replacementValues.count))]
                lines[index] = String(lines[index][...colon]) + " " + value
            }
        case "delete-key":
            if let index = keyLine(&random) {
                let count = 1 + Int(random.next() % 3)
                lines.removeSubrange(index..<min(lines.count, index + count))
            }
        case "duplicate-key":
            if let index = keyLine(&random) { lines.insert(lines[index], at: index + 1) }
        case "deep-nesting":
            let depth = [10, 100, 1_000, 5_000, 20_000][Int(random.next() % 5)]
            let flow = random.next() % 2 == 0
            let value =
                flow
                ? String(repeating: "[", count: depth) + "x" + String(repeating: "]", count: depth)
                : String(repeating: "{a: ", count: depth) + "x" + String(repeating: "}", count: depth)
            if let index = keyLine(&random), let colon = lines[index].firstIndex(of: ":") {
                lines[index] = String(lines[index][...colon]) + " " + value
            } else {
                lines.append("variant: " + value)
            }
        case "alias":
            switch random.next() % 5 {
            case 0:
                lines.insert("anchors: &a { x: 1 }", at: 0)
                lines.append("variant: *a")
            case 1: lines.append("variant: *undefined")
            case 2: lines.append("recursive: &r [*r]")
            case 3: lines.append("*a : value")
            default:
                var text = "l0: &l0 [x, x]\n"
                for level in 1...12 { text += "l\(level): &l\(level) [*l\(level - 1), *l\(level - 1)]\n" }
                lines.insert(contentsOf: text.split(separator: "\n").map(String.init), at: 0)
            }
        case "huge-scalar":
            // Mostly moderate; now and then just under the 1 MiB limit, or over it.
            let size = random.next() % 32 == 0 ? 1_000_000 : [2_000, 20_000, 60_000, 150_000, 1_100_000][Int(random.next() % 5)]
            let filler = String(repeating: "a", count: size)
            if let index = keyLine(&random), let colon = lines[index].firstIndex(of: ":") {
                lines[index] = String(lines[index][...colon]) + " " + filler
            } else {
                lines.append("description: " + filler)
            }
        case "swap-lines":
            if lines.count > 2 {
                let a = Int(random.next() % UInt64(lines.count))
                let b = Int(random.next() % UInt64(lines.count))
                lines.swapAt(a, b)
            }
        case "indent":
            if let index = keyLine(&random) {
                lines[index] = (random.next() % 2 == 0 ? "\t" : String(repeating: " ", count: 1 + Int(random.next() % 7))) + lines[index]
            }
        default:  // control-chars
            if let index = keyLine(&random) {
                let characters = ["\u{0007}", "\u{001B}[31m", "\u{FEFF}", "\r", "\u{0085}", "\u{2028}", "\u{FFFD}", "\u{10FFFF}"]
                lines[index] += characters[Int(random.next() % UInt64(characters.count))]
            }
        }
        return name
    }

    private mutating func flipBytes(_ random: inout SplitMix64) {
        var bytes = data
        guard !bytes.isEmpty else { return }
        for _ in 0..<(1 + Int(random.next() % 4)) {
            let at = Int(random.next() % UInt64(bytes.count))
            bytes[bytes.startIndex + at] ^= UInt8(1 << (random.next() % 8))
        }
        raw = bytes
    }

    /// A random line that holds a `key:`.
    private func keyLine(_ random: inout SplitMix64) -> Int? {
        let candidates = lines.indices.filter { lines[$0].contains(":") && !lines[$0].trimmingCharacters(in: .whitespaces).hasPrefix("#") }
        guard !candidates.isEmpty else { return nil }
        return candidates[Int(random.next() % UInt64(candidates.count))]
    }
}
