import Foundation

/// What a text says an index names: "`my_list[2]` refers to the third item" (index 2, ordinal
/// 3), "the index starts at 0". Their `offset` (ordinal minus index) is 1 when counting starts at
/// zero, 0 when it starts at one; a language counts one way.
public struct IndexClaim: Sendable, Hashable {
    /// The claim as written ("`my_list[2]` refers to the third item").
    public var text: String
    /// The ordinal the index is given, minus the index.
    public var offset: Int
}

/// Reads what texts say list indexes name, and holds a multiple-choice key to its own question's
/// counting. The local model's engagement question on lists asked "What does `my_list[2]`
/// represent?" and keyed "The second item in the list.", while the key's own feedback said "The
/// index starts at 0, so `my_list[2]` refers to the third item" and its explanation "the third
/// number in the list, which is 3"; no option said the third, so the blind solver agreed with the
/// key. Counting from zero or from one is the language's (Python from 0, R and Lua from 1), so
/// the key is checked against the question's own texts, never against a language's rule.
public enum IndexClaims {
    static let ordinals: [String: Int] = [
        "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10,
        "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5, "6th": 6, "7th": 7, "8th": 8, "9th": 9, "10th": 10,
    ]
    /// `ordinals`' words as a regex alternation (one list, longest first), for the claim patterns.
    static let ordinalWords = ordinals.keys.sorted { ($0.count, $0) > ($1.count, $1) }.joined(separator: "|")
    static let thing = "item|element|value|entry|character|letter|number|word|name|fruit|one"

    /// A subscript with a whole, non-negative index, not sliced or subscripted again: `my_list[2]`.
    nonisolated(unsafe) static let subscriptRegex = /`?([A-Za-z_][A-Za-z0-9_]*)\[(\d{1,3})\](?![\[:])`?/

    nonisolated(unsafe) static let start = /(?i)\b(?:index|indexes|indices|indexing|counting|positions?)\s+(?:always\s+)?(?:starts?|begins?)\s+(?:at|from|with)\s+(0|zero|1|one)\b/
    nonisolated(unsafe) static let forward = try! Regex(
        #"`?([A-Za-z_][A-Za-z0-9_]*)\[(\d{1,3})\](?![\[:])`?[^.?!\n\[]{0,40}?\b(?:the\s+)?("# + ordinalWords + #")\s+(?:"# + thing + #")s?\b"#
    ).ignoresCase()
    nonisolated(unsafe) static let backward = try! Regex(
        #"\b(?:the\s+)?("# + ordinalWords + #")\s+(?:"# + thing + #")s?\b[^.?!\n\[]{0,25}?`?([A-Za-z_][A-Za-z0-9_]*)\[(\d{1,3})\](?![\[:])"#
    ).ignoresCase()
    nonisolated(unsafe) static let wholeOrdinal = try! Regex(
        #"^\s*(?:it\s+is\s+|it's\s+)?(?:the\s+)?("# + ordinalWords + #")\s+(?:"# + thing + #")\b[^.?!]{0,30}[.!]?\s*$"#
    ).ignoresCase()

    /// The claims in `text`: a subscript followed in its sentence by the ordinal it names
    /// ("`my_list[2]` refers to the third item", "`x[1]` is the 2nd element"), an ordinal followed
    /// by its subscript ("the third item is `my_list[2]`"), and where counting starts ("the index
    /// starts at 0", "indexes begin at one").
    public static func claims(in text: String) -> [IndexClaim] {
        var found: [IndexClaim] = []
        var covered: [Range<String.Index>] = []
        for match in text.matches(of: forward) {
            guard let index = match.output[2].substring.flatMap({ Int($0) }),
                let ordinal = match.output[3].substring.flatMap({ ordinals[$0.lowercased()] })
            else { continue }
            found.append(IndexClaim(text: String(text[match.range]), offset: ordinal - index))
            covered.append(match.range)
        }
        for match in text.matches(of: backward) where !covered.contains(where: { $0.overlaps(match.range) }) {
            guard let ordinal = match.output[1].substring.flatMap({ ordinals[$0.lowercased()] }),
                let index = match.output[3].substring.flatMap({ Int($0) })
            else { continue }
            found.append(IndexClaim(text: String(text[match.range]), offset: ordinal - index))
        }
        for match in text.matches(of: Self.start) {
            let zero = ["0", "zero"].contains(match.output.1.lowercased())
            found.append(IndexClaim(text: String(text[match.range]), offset: zero ? 1 : 0))
        }
        return found
    }

    /// The subscript a stem asks about ("What does `my_list[2]` represent?"), when it names one
    /// only (a stem showing `a[0]` and `a[1]` asks about neither alone).
    public static func askedIndex(in prompt: String) -> (expression: String, index: Int)? {
        let subscripts = Set(prompt.matches(of: subscriptRegex).compactMap { match in Int(match.output.2).map { "\(match.output.1)[\($0)]" } })
        guard subscripts.count == 1, let only = prompt.firstMatch(of: subscriptRegex), let index = Int(only.output.2) else { return nil }
        return ("\(only.output.1)[\(index)]", index)
    }

    /// The ordinal an option is, when it is one ("The second item in the list.", "the 3rd element").
    public static func ordinal(of option: String) -> Int? {
        guard let match = option.firstMatch(of: wholeOrdinal), let word = match.output[1].substring else { return nil }
        return ordinals[word.lowercased()]
    }
}

extension QuestionRules {
    /// What the error on a key counting its stem's index otherwise than its own texts says.
    public static let keyAgainstIndexing = "counts the index otherwise than"

    /// A key naming the ordinal of the one index its stem asks about ("What does `my_list[2]`
    /// represent?" — "The second item") must count as the key's own feedback and the explanation
    /// do, when they say what an index names and agree with each other (`IndexClaims`). Wrong
    /// options' feedback is not read: it may put the learner's mistake in words.
    public static func checkKeyAgreesWithIndexing(prompt: String, options: [Choice], explanation: String) -> [ValidationIssue] {
        guard let asked = IndexClaims.askedIndex(in: prompt), let key = options.first(where: \.correct),
            let ordinal = IndexClaims.ordinal(of: key.text)
        else { return [] }
        let told = IndexClaims.claims(in: key.feedback + "\n\n" + explanation)
        guard let first = told.first, told.allSatisfy({ $0.offset == first.offset }), ordinal - asked.index != first.offset else { return [] }
        return [
            .error(
                "the key ('\(key.text)') \(keyAgainstIndexing) the question's own explanation and feedback: they say '\(first.text)', so `\(asked.expression)` is item \(asked.index + first.offset), not item \(ordinal); make the key the item the index names",
                check: .answerKey)
        ]
    }
}
