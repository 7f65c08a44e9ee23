import Foundation
import Testing

@testable import LecternCore

/// Languages as data (`LanguageProfile`): one lookup by primary subtag decides what every check
/// and page does with a language, so a regional tag ("ar-EG") behaves as its language does.
@Suite struct LanguageProfileTests {
    @Test func aTagIsReadByItsPrimarySubtag() throws {
        for tag in ["ar", "ar-EG", "AR_eg", "ar-SA", "Ar"] {
            #expect(LanguageProfile.for(tag)?.subtag == "ar", "\(tag)")
            #expect(LanguageProfile.isArabic(tag), "\(tag)")
        }
        for tag in ["en", "en-GB", "EN_us"] {
            #expect(LanguageProfile.for(tag)?.subtag == "en", "\(tag)")
            #expect(LanguageProfile.isEnglish(tag), "\(tag)")
        }
        // A language without a profile, and subtags that only begin as one does.
        for tag in ["fr", "fr-CA", "arc", "arn", "eng", ""] { #expect(LanguageProfile.for(tag) == nil, "\(tag)") }
        #expect(LanguageProfile.primarySubtag("PT_br") == "pt")
        let arabic = try #require(LanguageProfile.for("ar-EG"))
        #expect(arabic.questionMarks == ["?", "؟"] && arabic.direction == .rightToLeft && arabic.digits == .eastern && arabic.foldsLetters)
        let english = try #require(LanguageProfile.for("en-GB"))
        #expect(english.questionMarks == ["?"] && english.direction == .leftToRight && english.digits == .western && !english.foldsLetters)
    }

    /// What asked for a tag's language one way before now asks the profile: "ar-EG" gets what "ar" gets.
    @Test func aRegionalArabicTagIsArabicEverywhere() {
        #expect(DigitSystem.default(language: "ar-EG") == .eastern && DigitSystem.default(language: "AR_eg") == .eastern)
        #expect(DigitSystem.default(language: "fr") == .western)
        #expect(Difficulty.hard.label(language: "ar-EG") == "صعب")
        #expect(LanguageDirection.isRightToLeft("ar-EG") && LanguageDirection.isRightToLeft("he") && !LanguageDirection.isRightToLeft("en-GB"))
        // A stem that speaks of a text the candidate does not see, in Arabic (it was read only for "ar").
        #expect(ExamRules.mentionsUnseenText("حسب النص، ما الذي يسبب الفيضان؟", language: "ar-EG"))
        #expect(!ExamRules.mentionsUnseenText("حسب النص، ما الذي يسبب الفيضان؟", language: "fr"))
        #expect(TextKey.endsWithQuestionMark("ما المتغير؟", language: "ar-EG") && !TextKey.endsWithQuestionMark("ما المتغير؟", language: "en"))
    }

    /// The case: an Arabic course question that is an instruction, without "؟", asks
    /// something; an Arabic statement that asks nothing is still refused.
    @Test func anArabicInstructionStemAsksSomething() {
        for stem in [
            "اشرح معنى المتغير في بايثون.", "اكتبْ دالة تعيد مجموع عنصرين.", "قارِن بين القائمة والصف في بايثون.", "وضّح الفرق بين == و = في بايثون",
            "بكلماتك الخاصة، صف ما تفعله الحلقة.", "أعطِ مثالا على قاموس.", "علل: لماذا نستخدم الدوال",
        ] {
            #expect(QuestionRules.checkAsksSomething("prompt", stem, language: "ar").isEmpty, "\(stem)")
            #expect(QuestionRules.checkAsksSomething("prompt", stem, language: "ar-EG").isEmpty, "\(stem)")
        }
        let statement = "المتغير اسم يحفظ قيمة في ذاكرة الحاسوب."
        #expect(QuestionRules.checkAsksSomething("prompt", statement, language: "ar").map(\.message).first?.hasPrefix("'prompt' asks nothing") == true)
        // English forms are English: an Arabic imperative is no English instruction.
        #expect(QuestionRules.checkAsksSomething("prompt", "اشرح معنى المتغير في بايثون.", language: "en").count == 1)
        // The whole course question, through its checks.
        let question = Question(
            topicID: "t", format: .freeText, prompt: "اشرح معنى المتغير في بايثون.", options: nil,
            referenceAnswer: "المتغير اسم يشير إلى قيمة محفوظة في الذاكرة.", explanation: "المتغير اسم نعطيه لقيمة لنستعملها لاحقا في البرنامج.")
        #expect(!QuestionRules.check(question, expectedTopicID: "t", language: "ar-EG").contains { $0.message.contains("asks nothing") })
        var told = question
        told.prompt = statement
        #expect(QuestionRules.check(told, expectedTopicID: "t", language: "ar-EG").contains { $0.message.contains("asks nothing") })
    }

    /// Instructions after an Arabic question say how to answer it, as "Use the formula …" does.
    @Test func anArabicInstructionAfterTheQuestionIsPartOfIt() {
        let stem = "كم طريقة لاختيار ثلاثة طلاب من عشرة؟ استخدم قانون التوافيق، واكتب خطوات الحل كاملة مع تبرير كل خطوة منها بوضوح، ثم قارن الناتج بعدد التباديل."
        #expect(QuestionRules.checkQuestionLast("prompt", stem, language: "ar").isEmpty)
        let goesOn = "كم طريقة لاختيار ثلاثة طلاب من عشرة؟ الطلاب في الصف يحبون الرياضيات كثيرا ويجتمعون كل يوم بعد الظهر في المكتبة لحل المسائل معا."
        #expect(QuestionRules.checkQuestionLast("prompt", goesOn, language: "ar").count == 1)
    }

    /// The profile owns the stop-word lists: significant words and near-duplicate comparison read them.
    @Test func theProfilesOwnTheStopWords() {
        #expect(TextKey.significantWords("مقدمة إلى الحلقات", language: "ar-EG") == ["الحلقات"])
        #expect(TextKey.significantWords("Introduction to loops", language: "en-GB") == ["loops"])
        #expect(NearDuplicate.Lexicon.stopWords.contains(GroundingText.normalize("التالية")) && NearDuplicate.Lexicon.stopWords.contains("whether"))
    }
}
