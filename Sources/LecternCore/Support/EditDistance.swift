/// "Did you mean" suggestions for misspelt keys and names.
public enum Suggestion {
    /// The candidate closest to `word`, if it is close enough to be a likely typo.
    public static func closest(to word: String, among candidates: some Sequence<String>) -> String? {
        let lowered = word.lowercased()
        var best: (String, Int)?
        for candidate in candidates {
            let distance = levenshtein(Array(lowered.unicodeScalars), Array(candidate.lowercased().unicodeScalars))
            if best == nil || distance < best!.1 { best = (candidate, distance) }
        }
        guard let (candidate, distance) = best else { return nil }
        let allowed = max(1, min(3, candidate.count / 3))
        return distance <= allowed ? candidate : nil
    }

    /// A hint sentence: "did you mean 'x'?" or the list of valid choices.
    public static func hint(for word: String, among candidates: [String]) -> String {
        if let match = closest(to: word, among: candidates) {
            return "did you mean '\(match)'?"
        }
        return "valid choices: " + candidates.sorted().map { "'\($0)'" }.joined(separator: ", ")
    }

    static func levenshtein(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        // Typos are short words; cap the work so a hostile 1 MB key costs nothing.
        if a.count > 128 || b.count > 128 { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
