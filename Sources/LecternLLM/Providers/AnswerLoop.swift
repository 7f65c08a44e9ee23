/// Whether an answer cut off by its token budget went round in a loop: small models at a low
/// temperature can fall into writing one line or phrase again and again until the budget runs
/// out, and a larger budget only buys a longer loop (the same prompt and seed loop the same way).
/// Such an answer is returned as it is, finished `.loop`, instead of being asked again with more
/// tokens: the stage refuses it with the repeated text quoted, and the repair prompt differs.
///
/// Decided from the text alone, so a replay of a recorded loop decides the same way.
public enum AnswerLoop {
    /// The text repeated, when `text` ends in a loop (blank space included: `isBlank`):
    /// - its last characters are one stretch of 8–400 characters written at least 4 times over,
    ///   back to back (a phrase, a sentence or a list entry repeated exactly); or
    /// - a line of at least 24 characters (trimmed), outside fenced code, occurs 4 or more times;
    ///   or
    /// - a JSON string of at least 24 characters occurs 4 or more times: a JSON answer is one
    ///   line, and its loop can cycle through a few list entries, not exactly periodic (the local
    ///   model's project requirements "Plot the results of the simulation", "Create a program
    ///   that …", "Calculate …" over and over, to 6,144 tokens).
    public static func repeated(in text: String) -> String? {
        let scalars = Array(text.unicodeScalars.suffix(4_000))
        if let period = tailPeriod(scalars) {
            return aligned(Array(scalars[(scalars.count - period)...]))
        }
        return repeatedLine(in: text[...], times: 4) ?? repeatedString(in: text, times: 4)
    }

    /// A JSON string literal's content of at least 24 characters (escapes as written) that
    /// occurs `times` times in `text`, quotes found left to right (an escaped quote is content).
    static func repeatedString(in text: String, times: Int) -> String? {
        var counts: [Substring: Int] = [:]
        var start: String.Index?
        var escaped = false
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            if let open = start {
                if escaped {
                    escaped = false
                } else if c == "\\" {
                    escaped = true
                } else if c == "\"" {
                    let content = text[text.index(after: open)..<i]
                    if content.count >= 24 {
                        counts[content, default: 0] += 1
                        if counts[content]! >= times { return String(content) }
                    }
                    start = nil
                }
            } else if c == "\"" {
                start = i
            }
            i = text.index(after: i)
        }
        return nil
    }

    /// Whether a loop's text is blank space only: a model constrained to JSON can pad an answer
    /// with spaces and line breaks (which JSON allows between its tokens) until the budget.
    public static func isBlank(_ unit: String) -> Bool { unit.trimmingWhitespace.isEmpty }

    /// A cut-off answer that is a complete JSON value followed by blank space to the budget: the
    /// value, which nothing cut; nil otherwise.
    public static func completeBeforeBlank(_ text: String) -> String? {
        guard let unit = repeated(in: text), isBlank(unit) else { return nil }
        let value = text.trimmingWhitespace
        guard value.first == "{" || value.first == "[", (try? JSONValue.parse(value)) != nil else { return nil }
        return value
    }

    /// What a stage says of an answer that looped, for its repair.
    public static func refusal(_ text: String) -> String {
        let unit = repeated(in: text) ?? ""
        if isBlank(unit) && !unit.isEmpty {
            return "the answer trailed off into blank space (spaces and line breaks) until it was cut off; end the answer when it is complete"
        }
        return "the answer went round in a loop, writing '\(quoted(unit))' again and again until it was cut off; say each thing once and finish the answer"
    }

    /// The text repeated, when a streamed answer still arriving has run away into a loop — held
    /// to more than `repeated`, since the answer is not cut off and could still go on well: its
    /// tail one stretch written back to back at least 4 times and over at least 600 characters,
    /// or a line of at least 24 characters 6 times.
    public static func runaway(in text: String) -> String? {
        let scalars = Array(text.unicodeScalars.suffix(4_000))
        if let period = tailPeriod(scalars, span: 600) {
            return aligned(Array(scalars[(scalars.count - period)...]))
        }
        return repeatedLine(in: text[...], times: 6)
    }

    /// A line of at least 24 characters, outside fenced code, that occurs `times` times. Code
    /// repeats lines on purpose (a `print` in every example); a loop inside code is caught by
    /// the tail rule when it is the answer's end.
    static func repeatedLine(in text: Substring, times: Int) -> String? {
        var counts: [Substring: Int] = [:]
        var inFence = false
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingWhitespaceSubstring
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                inFence.toggle()
                continue
            }
            guard !inFence, trimmed.count >= 24 else { continue }
            counts[trimmed, default: 0] += 1
            if counts[trimmed]! >= times { return String(trimmed) }
        }
        return nil
    }

    /// A loop's unit turned to start where a reader would: after its line break, else after
    /// its sentence's end, else after a space (cut off mid-word, the last p characters of a loop
    /// begin anywhere in it).
    static func aligned(_ unit: [Unicode.Scalar]) -> String {
        // Each group's earliest match wins; a line break first, then a sentence's end, then a
        // clause's, then a space.
        let groups: [[String]] = [["\n"], [". ", "? ", "! "], ["; ", ", "], [" "]]
        for group in groups {
            let cuts = group.compactMap { delimiter -> Int? in
                let d = Array(delimiter.unicodeScalars)
                guard unit.count > d.count else { return nil }
                return (0...(unit.count - d.count)).first { Array(unit[$0..<($0 + d.count)]) == d }.map { $0 + d.count }
            }
            if let cut = cuts.min() {
                return String(String.UnicodeScalarView(unit[cut...] + unit[..<cut]))
            }
        }
        return String(String.UnicodeScalarView(unit))
    }

    /// The shortest period p (8…400) of the text's last max(4·p, `span`) scalars, if they have one.
    static func tailPeriod(_ s: [Unicode.Scalar], span: Int = 0) -> Int? {
        let n = s.count
        var p = 8
        while p <= 400 {
            let length = max(4 * p, span)
            guard length <= n else { break }
            var periodic = true
            var i = n - 1
            while i >= n - length + p {
                if s[i] != s[i - p] {
                    periodic = false
                    break
                }
                i -= 1
            }
            if periodic { return p }
            p += 1
        }
        return nil
    }

    /// `text` up to the end of the first time its loop's text appears, marked as cut there: what
    /// a repair shows of a looped answer (shown whole, the loop invites more of it).
    public static func beforeLoop(_ text: String) -> String {
        guard let unit = repeated(in: text), let first = text.range(of: unit) else { return text }
        return String(text[..<first.upperBound]) + "\n[… the same again and again until cut off]"
    }

    /// The quoted form of a repeated text for a message: one line, at most 80 characters.
    public static func quoted(_ unit: String) -> String {
        if isBlank(unit) { return "blank space" }
        let line = unit.split(whereSeparator: \.isNewline).map { $0.trimmingWhitespaceSubstring }.filter { !$0.isEmpty }.joined(separator: " ")
        return line.count > 80 ? String(line.prefix(79)) + "…" : line
    }
}

extension StringProtocol {
    fileprivate var trimmingWhitespaceSubstring: Substring {
        let s = self[...]
        guard let first = s.firstIndex(where: { !$0.isWhitespace }), let last = s.lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return Substring(s[first...last])
    }
    fileprivate var trimmingWhitespace: String { String(trimmingWhitespaceSubstring) }
}
