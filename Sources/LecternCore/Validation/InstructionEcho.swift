/// Lectern's own words given back as the learner's text: a run of `runLength` words of an answer
/// that is also a run of what Lectern wrote to the model — a template's own text, the rules it
/// inserts (the schema, the tone, a level's instruction) and the messages of a repair, less what
/// those messages quote of the answers they refuse — and is in none of the content it sent (a
/// lecture, a passage, the topic). "The explanation helps us understand…" and "the wrong answers have
/// conflicting feedback" are such runs; a question quoting its lecture is not.
///
/// Words are runs of letters and digits in any script, compared case-insensitively, so the rule
/// needs no phrase list and reads every language the same way.
public struct InstructionEcho: Sendable {
    /// Six words: shorter runs ("the correct answer is the") are common English; a sentence of
    /// the instructions copied into an answer shares more.
    public static let runLength = 6

    /// The words a run has: `runLength` for Lectern's instructions; longer for a text whose words
    /// an answer may rightly share for a while (a reviewer's note says what is true, in words a
    /// mended answer may use) but not copy whole.
    public let length: Int
    private var runs: Set<UInt64>
    /// Texts whose runs are never an echo, read only when a run of an answer is one of `runs`.
    private var content: [String]

    /// The runs of `instructions`; a run that is also in `content` is not counted.
    public init(instructions: [String], content: [String] = [], length: Int = Self.runLength) {
        var runs = Set<UInt64>()
        for text in instructions { Self.forEachRun(in: text, length: length) { hash, _ in runs.insert(hash) } }
        self.length = length
        self.runs = runs
        self.content = content
    }

    /// These runs, with those of `instructions` added that are in none of `except` (a repair's
    /// messages quote the answer they refuse: those words are the model's, not Lectern's).
    public func adding(instructions: [String], except: [String]) -> InstructionEcho {
        var added = Set<UInt64>()
        for text in instructions { Self.forEachRun(in: text, length: length) { hash, _ in added.insert(hash) } }
        guard !added.isEmpty else { return self }
        for text in except { Self.forEachRun(in: text, length: length) { hash, _ in added.remove(hash) } }
        var more = self
        more.runs.formUnion(added)
        return more
    }

    /// The same runs, with `content` (whose runs are no echo) in place of this one's.
    public func with(content: [String]) -> InstructionEcho {
        var copy = self
        copy.content = content
        return copy
    }

    /// No runs yet, of `length` words, with this one's content.
    public func emptied(length: Int) -> InstructionEcho {
        InstructionEcho(instructions: [], content: content, length: length)
    }

    public var isEmpty: Bool { runs.isEmpty }

    /// The first run of `text` that is one of the instructions' and in none of the content, as
    /// `text` writes it.
    public func firstEcho(in text: String) -> Substring? {
        guard !runs.isEmpty else { return nil }
        var contentRuns: Set<UInt64>?
        var found: Range<String.Index>?
        Self.forEachRun(in: text, length: length) { hash, range in
            guard runs.contains(hash) else { return }
            if contentRuns == nil {
                var all = Set<UInt64>()
                for text in content { Self.forEachRun(in: text, length: length) { hash, _ in all.insert(hash) } }
                contentRuns = all
            }
            if contentRuns?.contains(hash) == false { found = range }
        } stopWhen: {
            found != nil
        }
        return found.map { text[$0] }
    }

    // MARK: Words and runs

    /// Calls `body` with the hash and range of every run of `length` consecutive words.
    static func forEachRun(
        in text: String, length: Int = runLength, _ body: (UInt64, Range<String.Index>) -> Void, stopWhen stop: () -> Bool = { false }
    ) {
        var hashes: [UInt64] = []
        var starts: [String.Index] = []
        hashes.reserveCapacity(length)
        starts.reserveCapacity(length)
        forEachWord(in: text) { hash, range in
            if hashes.count == length {
                hashes.removeFirst()
                starts.removeFirst()
            }
            hashes.append(hash)
            starts.append(range.lowerBound)
            guard hashes.count == length else { return false }
            var run: UInt64 = 0xcbf2_9ce4_8422_2325
            for word in hashes { run = (run ^ word) &* 0x100_0000_01b3 }
            body(run, starts[0]..<range.upperBound)
            return stop()
        }
    }

    /// Calls `body` with a hash of each word (lowercased) and its range; stops when it returns true.
    static func forEachWord(in text: String, _ body: (UInt64, Range<String.Index>) -> Bool) {
        let scalars = text.unicodeScalars
        var index = scalars.startIndex
        while index < scalars.endIndex {
            guard isWordScalar(scalars[index]) else {
                index = scalars.index(after: index)
                continue
            }
            let start = index
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            var ascii = true
            while index < scalars.endIndex, isWordScalar(scalars[index]) {
                let value = scalars[index].value
                if value < 0x80 {
                    let lower = value >= 0x41 && value <= 0x5A ? value | 0x20 : value
                    hash = (hash ^ UInt64(lower)) &* 0x100_0000_01b3
                } else {
                    ascii = false
                }
                index = scalars.index(after: index)
            }
            if !ascii {
                hash = 0xcbf2_9ce4_8422_2325
                for byte in String(scalars[start..<index]).lowercased().utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            }
            if body(hash, start..<index) { return }
        }
    }

    /// A letter or digit of any script: what a word is made of.
    public static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x80 {
            return (value >= 0x30 && value <= 0x39) || (value >= 0x41 && value <= 0x5A) || (value >= 0x61 && value <= 0x7A)
        }
        return scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }
}
