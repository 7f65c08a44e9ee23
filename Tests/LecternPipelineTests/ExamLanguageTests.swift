import Foundation
import LecternCore
import Testing

@testable import LecternPipeline

/// A regional Arabic tag ("ar-EG", which a spec accepts) gets the exam an "ar" spec gets: the
/// item prompts' worked examples, the figure's labels and the form's words (they compared the tag
/// with "ar" or its prefix before `LanguageProfile`).
@Suite struct ExamLanguageTests {
    @Test func anArabicRegionalTagGetsTheArabicExamples() {
        for format in [ExamCategory.Format.completion, .wrongWord, .analogy] {
            let arabic = ExamItemStage.formatRule(format, language: "ar")
            #expect(arabic.contains("النيل"))
            #expect(ExamItemStage.formatRule(format, language: "ar-EG") == arabic)
            #expect(ExamItemStage.formatRule(format, language: "AR_eg") == arabic)
            #expect(!ExamItemStage.formatRule(format, language: "en-GB").contains("النيل"))
        }
        #expect(ExamItemStage.figureRule(.geometry, language: "ar-EG") == ExamItemStage.figureRule(.geometry, language: "ar"))
        #expect(ExamItemStage.figureRule(.geometry, language: "ar-EG").contains("٤ سم"))
        #expect(ExamDocuments.labels("ar-EG").question == "السؤال")
        #expect(ExamDocuments.minutes(2, language: "ar-EG", written: String.init) == "دقيقتان")
        #expect(ExamDocuments.minutes(1, language: "en-GB", written: String.init) == "1 minute")
        #expect(PromptText.languageName("ar-EG") == "Arabic (ar-EG)")
    }
}
