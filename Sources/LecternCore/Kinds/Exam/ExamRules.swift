import Foundation

/// Checks on exam items, shared by the `exam` kind's stages and `lectern check`.
public enum ExamRules {
    /// Checks one item's own content: its options (count, one key, distinct, not questions,
    /// feedback), the lengths of its texts, and that it cites a source. Grounding (the quote
    /// occurs in the document) and duplicates across the bank are checked where the corpus and
    /// the bank are known.
    public static func check(_ item: ExamItem, optionCount: Int, language: String, labels: [String]? = nil) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        issues += QuestionRules.checkLength("prompt", item.prompt, 10...2_000)
        issues += QuestionRules.checkLength("explanation", item.explanation, 20...3_000)
        issues += QuestionRules.checkMultipleChoice(
            prompt: item.prompt, options: item.options, labels: labels, optionCount: optionCount, language: language)
        let names = labels.flatMap { $0.count == item.options.count ? $0 : nil } ?? item.options.indices.map { "option \($0 + 1)" }
        for i in item.options.indices {
            for j in item.options.indices where j > i {
                let (a, b) = (item.options[i].text, item.options[j].text)
                if TextKey.normalize(a, language: language) != TextKey.normalize(b, language: language), NearDuplicate.restate(a, b) {
                    issues.append(.error("\(names[i]) ('\(a)') and \(names[j]) ('\(b)') say the same thing in other words; every option must be a different answer"))
                }
            }
        }
        if item.sources.isEmpty || item.sources.allSatisfy({ $0.quote.trimmed.isEmpty }) {
            issues.append(.error("'source_quote' is empty; copy the sentence of the source text that supports the correct answer"))
        }
        return issues
    }

    /// Recommended seconds for an item: the category's time, less for easy items and more for
    /// hard ones, in steps of 5 seconds.
    public static func seconds(category: Int, difficulty: Difficulty) -> Int {
        let factor =
            switch difficulty {
            case .easy: 0.75
            case .medium: 1.0
            case .hard: 1.5
            }
        return max(10, Int((Double(category) * factor / 5).rounded()) * 5)
    }
}
