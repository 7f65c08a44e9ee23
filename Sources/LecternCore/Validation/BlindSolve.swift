import Foundation

/// One multiple-choice question as a blind solver sees it: its stem, its options in an order of
/// their own (not the one the learner sees, so a solver cannot lean on position), no key and no
/// feedback. A reading question carries its passage.
public struct BlindSolveItem: Sendable, Hashable {
    /// The question's name in a repair message: "the question", "questions[2]".
    public var label: String
    public var prompt: String
    /// The options in the solver's order.
    public var options: [String]
    /// The keyed option's place in `options`.
    public var key: Int
    /// What the question is about when the stem alone does not say: a reading passage.
    public var context: String?

    /// `choices` presented without their key: ordered by the SHA-256 of the stem and each option's
    /// text, so the order is the same on every run and unrelated to where the key is shown.
    public init(label: String, prompt: String, choices: [Choice], context: String? = nil) {
        self.label = label
        self.prompt = prompt
        self.context = context
        let ordered = choices.map { (SHA256Digest.hex(prompt + "\u{0}" + $0.text), $0) }
            .sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1.text < $1.1.text }.map(\.1)
        options = ordered.map(\.text)
        key = ordered.firstIndex(where: \.correct) ?? 0
    }

    /// "A", "B" … for option `index`.
    public static func letter(_ index: Int) -> String {
        String(UnicodeScalar(UInt8(ascii: "A") + UInt8(clamping: index)))
    }

    /// The options as the prompt lists them: "A. …" a line.
    public var optionLines: String {
        options.enumerated().map { "\(Self.letter($0.offset)). \($0.element)" }.joined(separator: "\n")
    }

    /// The option a solver's answer chose: `{"answer": "B"}` (a letter, "B." or "(B)"), or the
    /// text of one option; nil when it names none.
    public func chosen(_ answer: String) -> Int? {
        var text = answer.trimmingCharacters(in: .whitespacesAndNewlines)
        if let data = text.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let value = object["answer"] as? String
        {
            text = value.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let bare = text.trimmingCharacters(in: CharacterSet(charactersIn: "()[]. :"))
        if bare.count == 1, let scalar = bare.uppercased().unicodeScalars.first, scalar.value >= 65, Int(scalar.value - 65) < options.count {
            return Int(scalar.value - 65)
        }
        let key = TextKey.normalize(text)
        return options.firstIndex { TextKey.normalize($0) == key }
    }
}

/// What blind solving found on an accepted answer: questions asked, and how many the solver
/// answered with the key.
public struct BlindSolveTally: Sendable, Hashable, Codable {
    public var asked: Int
    public var agreed: Int

    public init(asked: Int = 0, agreed: Int = 0) {
        self.asked = asked
        self.agreed = agreed
    }

    public static func + (a: BlindSolveTally, b: BlindSolveTally) -> BlindSolveTally {
        BlindSolveTally(asked: a.asked + b.asked, agreed: a.agreed + b.agreed)
    }
}

/// What the rubric judge (`review: { rubric: true }`) found on accepted answers (as the blind
/// solve's tally, refused attempts are counted by the `rubric` check): answers judged, those it
/// passed, the criteria it still found broken after the last attempt, quoting the item (the
/// answer kept with a warning), and verdicts quoting nothing of the item, disregarded.
public struct RubricTally: Sendable, Hashable, Codable {
    public var judged = 0
    public var passed = 0
    /// Broken criteria that quoted the item, by criterion (`RubricJudge.Criterion`).
    public var broken: [String: Int] = [:]
    /// Broken criteria whose quote is not in the item: a verdict nobody can check, not acted on.
    public var unquoted = 0

    public init(judged: Int = 0, passed: Int = 0, broken: [String: Int] = [:], unquoted: Int = 0) {
        self.judged = judged
        self.passed = passed
        self.broken = broken
        self.unquoted = unquoted
    }

    public var isEmpty: Bool { judged == 0 && unquoted == 0 && broken.isEmpty }

    /// Two judgements of one answer (the rubric's and the option judge's) as one: judged once,
    /// passed when both passed it.
    public func sameAnswer(_ other: RubricTally) -> RubricTally {
        RubricTally(
            judged: min(1, max(judged, other.judged)), passed: passed == 1 && other.passed == 1 ? 1 : 0, broken: broken.merging(other.broken, uniquingKeysWith: +),
            unquoted: unquoted + other.unquoted)
    }

    public static func + (a: RubricTally, b: RubricTally) -> RubricTally {
        RubricTally(
            judged: a.judged + b.judged, passed: a.passed + b.passed, broken: a.broken.merging(b.broken, uniquingKeysWith: +),
            unquoted: a.unquoted + b.unquoted)
    }
}
