/// A check, or the part of one, that reads wording only a `LanguageProfile` knows (English
/// phrases, question openers, a domain's terms). In a language without a profile it would find
/// nothing and pass silently; a kind lists these (`GenerationJob.languageBoundChecks`) so that a
/// run in such a language says once, in its summary and in quality.json, what it did not apply.
public struct LanguageBoundCheck: Sendable, Hashable, Codable {
    public var check: QualityCheck
    /// What of the check reads the wording: "feedback that calls its option right or wrong".
    public var rule: String

    public init(_ check: QualityCheck, _ rule: String) {
        self.check = check
        self.rule = rule
    }

    /// The checks of `checks` not applied to `language`: all of them when it has no profile,
    /// none when it has one.
    public static func notApplied(_ checks: [LanguageBoundCheck], language: String) -> [LanguageBoundCheck] {
        LanguageProfile.for(language) == nil ? checks : []
    }

    /// The wording of `QuestionRules.checkMultipleChoice` (courses and exams): feedback that
    /// contradicts the key.
    public static let feedbackWording = LanguageBoundCheck(.feedbackAgreesWithKey, "feedback that calls its option right or wrong is read in English")
    /// The wording of a course question's texts (`checkAskedOfTheLearner`, `checkSpeaksToTheLearner`, `formIssues`).
    public static let courseQuestionWording = LanguageBoundCheck(
        .questionForm,
        "a stem in the lecture's voice, about a video or instructor, asking for the learner's own words or offering Yes and No among other options, "
            + "and texts about the item rather than to the learner, are found by English phrases")
    /// The wording of an exam item's texts (`checkSpeaksToTheLearner`).
    public static let examTextWording = LanguageBoundCheck(.questionForm, "texts about the item rather than to the candidate are found by English phrases")
}
