import Foundation

/// Checks on a topic's reinforcement pool (FR-009): one question per level 1–4.
public enum ReinforcementRules {
    /// Checks a whole pool: one question per level, each valid. `optionCount` and `language` as in
    /// `QuestionRules.checkMultipleChoice`.
    public static func check(
        _ questions: [ReinforcementQuestion], expectedTopicID: String, optionCount: Int = QuestionRules.optionCount, language: String = "en"
    ) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        let levels = questions.map(\.level).sorted()
        if levels != [1, 2, 3, 4] {
            issues.append(.error("the pool needs exactly one question at each level 1, 2, 3 and 4; it has levels \(levels)", check: .stageRules))
        }
        for q in questions { issues += checkQuestion(q, expectedTopicID: expectedTopicID, optionCount: optionCount, language: language) }
        return issues
    }

    /// Checks one question of the pool at its level. `optionLabels`, `optionCount` and `language`
    /// as in `QuestionRules.checkMultipleChoice`.
    public static func checkQuestion(
        _ q: ReinforcementQuestion, expectedTopicID: String, optionLabels: [String]? = nil, optionCount: Int = QuestionRules.optionCount,
        language: String = "en"
    ) -> [ValidationIssue] {
        // Kept with stand-in names for the options, so the stage's verdict is the bank lint's (`OptionNames`).
        let count = q.options?.count ?? 0
        let verdict = CheckMemo.verdict("ReinforcementRules.checkQuestion", [CheckMemo.text(q), expectedTopicID, "\(optionCount)", language]) {
            computedCheckQuestion(q, expectedTopicID: expectedTopicID, optionLabels: OptionNames.placeholders(count), optionCount: optionCount, language: language)
        }
        return OptionNames.named(verdict, labels: optionLabels, count: count)
    }

    static func computedCheckQuestion(
        _ q: ReinforcementQuestion, expectedTopicID: String, optionLabels: [String]?, optionCount: Int, language: String
    ) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        let label = "the level-\(q.level) question"
        if q.topicID != expectedTopicID { issues.append(.error("\(label) must be about topic \(expectedTopicID), not \(q.topicID)", check: .grounding)) }
        issues += QuestionRules.checkLength("\(label)'s prompt", q.prompt, 10...1_500)
        issues += QuestionRules.checkNoHeading("\(label)'s prompt", q.prompt)
        issues += QuestionRules.checkFinished("\(label)'s prompt", q.prompt)
        issues += QuestionRules.checkAskedOfTheLearner("\(label)'s prompt", q.prompt, language: language)
        issues += QuestionRules.checkLearnerTexts(
            prompt: ("\(label)'s prompt", q.prompt),
            after: [("\(label)'s explanation", q.explanation), ("\(label)'s reference answer", q.referenceAnswer ?? "")]
                + QuestionRules.feedbackFields(q.options, labels: optionLabels).map { ("\(label): \($0.name)", $0.text) })
        issues += QuestionRules.checkLength("\(label)'s explanation", q.explanation, 10...3_000)
        issues += QuestionRules.checkNoMissingMedium("\(label)'s explanation", q.explanation)
        if let options = q.options, !options.isEmpty {
            issues += QuestionRules.checkOneQuestion("\(label)'s prompt", q.prompt)
            let checked = QuestionRules.checkMultipleChoice(
                prompt: q.prompt, options: options, labels: optionLabels, optionCount: optionCount, language: language, explanation: q.explanation)
            issues += checked.map {
                ValidationIssue(severity: $0.severity, message: "\(label): \($0.message)", kind: $0.kind, check: $0.check)
            }
        } else if q.level <= 2 {
            issues.append(.error("\(label) must have multiple-choice options (levels 1 and 2 are shown as multiple choice)", check: .stageRules))
        }
        // Level 2's reference answer can be as short as its correct option ("red ball"); levels
        // 3–4 ask for an explanation or an application, so a few words are not enough.
        let reference = (q.referenceAnswer ?? "").trimmed.count
        if q.level == 2 && reference == 0 {
            issues.append(.error("\(label) needs a reference answer for self-assessment (level 2 can be shown as free text)", check: .stageRules))
        } else if q.level >= 3 && reference < 10 {
            issues.append(.error("\(label) needs a reference answer of at least 10 characters for self-assessment", check: .stageRules))
        }
        if q.level >= 3 {
            issues += QuestionRules.checkFreeTextPrompt(
                q.prompt, referenceAnswer: q.referenceAnswer ?? "", label: "\(label)'s prompt", language: language)
        }
        return issues
    }
}
