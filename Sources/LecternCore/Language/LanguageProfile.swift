import LecternLanguage

/// What Lectern's checks and pages know of one language, as data: looked up by a tag's primary
/// subtag (`LanguageProfile.for("ar-EG")` is Arabic), so that every place that asks "is this
/// Arabic?" or "is this English?" asks it one way. A language without a profile (French, say)
/// gets `nil`: a check that needs one says what it does then.
///
/// ```swift
/// LanguageProfile.for("AR_eg")?.questionMarks  // ["?", "؟"]
/// LanguageProfile.for("fr")                    // nil
/// ```
public struct LanguageProfile: Sendable {
    /// Which way lines of the language run.
    public enum Direction: String, Sendable { case leftToRight, rightToLeft }

    /// The primary language subtag, lowercase ("en", "ar").
    public let subtag: String
    /// The marks a question ends with.
    public let questionMarks: Set<Character>
    public let direction: Direction
    /// The digits its exams print by default (`DigitSystem.default(language:)`).
    public let digits: DigitSystem
    /// Whether texts are compared by their letters alone (`fold`): Arabic drops tatweel and vowel
    /// marks and unifies the alef forms.
    public let foldsLetters: Bool
    /// Filler words a text about a title need not mention (`TextKey.significantWords`), folded.
    public let stopWords: Set<String>
    /// The fewest letters a significant word has: English four, Arabic three (most roots have three).
    public let significantLetters: Int
    /// Function words a near-duplicate comparison of two stems sets aside (`NearDuplicate`), as
    /// written (the comparison normalizes them).
    public let comparisonStopWords: [String]
    /// Negations that set aside the clause they stand in (`ArithmeticClaims`), lowercase.
    public let negations: [String]
    /// Words a question opens with and a statement does not ("What is …", "Can you …"),
    /// lowercase: a true/false statement opening with one is a question.
    public let questionOpeners: Set<String>
    /// Words a sentence opens with when it tells the learner what to do ("Explain …", "اشرح …"),
    /// or asks without a question mark ("How …"), folded and lowercase: a stem with one asks
    /// something (`QuestionRules.checkAsksSomething`).
    public let instructionOpeners: [String]
    /// Imperatives that tell the learner how to answer ("Use the formula …", "علل إجابتك"):
    /// sentences after a stem's question that open with one are part of it
    /// (`QuestionRules.checkQuestionLast`).
    public let answerImperatives: [String]
    /// Whether a sentence opens with a capital letter (a lower-case line goes on from the one
    /// before it); false for scripts without letter case.
    public let capitalizesSentences: Bool
    /// The commas after a lead-in that an instruction may follow ("In your own words, describe …").
    public let commas: Set<Character>
    /// Words a question asks for a kind of whole number with ("even", "زوجي"), lowercase and
    /// folded: `OptionValues` counts the options that are one.
    public var numberKinds: [String: NumberKind] = [:]

    /// A kind of whole number a question can ask for.
    public enum NumberKind: String, Sendable {
        case even, odd, prime
    }

    /// The profile of `tag`'s primary subtag, read case-insensitively with `-` or `_` ("ar",
    /// "ar-EG", "AR_eg" are Arabic; "en", "en-GB" English); nil for a language without one.
    public static func `for`(_ tag: String) -> LanguageProfile? {
        switch LanguageSubtag.primary(tag) {
        case "en": return english
        case "ar": return arabic
        default: return nil
        }
    }

    /// Whether `tag` is Arabic ("ar", "ar-EG", "AR_eg").
    public static func isArabic(_ tag: String) -> Bool { self.for(tag)?.subtag == "ar" }
    /// Whether `tag` is English ("en", "en-GB").
    public static func isEnglish(_ tag: String) -> Bool { self.for(tag)?.subtag == "en" }
    /// `tag`'s primary subtag, lowercase, whether or not it has a profile: two tags name one
    /// language when these agree.
    public static func primarySubtag(_ tag: String) -> String { LanguageSubtag.primary(tag) }

    /// Every language with a profile.
    public static let all: [LanguageProfile] = [english, arabic]

    /// `text` as its letters compare (`foldsLetters`); unchanged in a language that does not fold.
    public func fold(_ text: String) -> String { foldsLetters ? TextKey.foldArabic(text) : text }

    /// Whether `text` ends as a question does in this language.
    public func endsWithQuestionMark(_ text: String) -> Bool {
        text.trimmed.last.map(questionMarks.contains) ?? false
    }

    public static let english = LanguageProfile(
        subtag: "en", questionMarks: ["?"], direction: .leftToRight, digits: .western, foldsLetters: false,
        stopWords: [
            "with", "from", "into", "about", "your", "that", "this", "what", "when", "their", "there", "using", "and", "the", "for",
            "introduction", "basics", "overview", "part",
        ],
        significantLetters: 4,
        comparisonStopWords: """
            a an the is are was were be been being am of to in on at by for with from as into onto about and or but nor so than \
            then that this these those it its do does did done has have had having can could will would shall should may might \
            must i you he she we they me him her us them my your his our their there here also just very such each if because \
            while whether s t d ll re ve m following given below above
            """.split(separator: " ").map(String.init),
        negations: ["not", "isn't", "aren't", "wasn't", "weren't", "doesn't", "don't", "didn't", "cannot", "can't", "never"],
        questionOpeners: [
            "what", "how", "why", "which", "when", "where", "who", "whom", "whose", "can", "could", "do", "does", "did", "is", "are", "was",
            "were", "will", "would", "should", "shall", "have", "has",
        ],
        instructionOpeners: [
            "explain", "describe", "write", "give", "list", "name", "show", "calculate", "compute", "compare", "choose", "select", "pick",
            "identify", "find", "complete", "predict", "suggest", "tell", "state", "determine", "decide", "fill", "match", "rewrite", "fix",
            "correct", "create", "design", "define", "discuss", "outline", "summarise", "summarize", "draw", "sketch", "evaluate", "estimate",
            "solve", "simplify", "convert", "classify", "sort", "order", "rank", "justify", "modify", "change", "add", "use", "think", "plan",
            "say", "how", "what", "which", "why", "is", "are", "does", "do", "can", "should", "would", "will",
        ],
        answerImperatives: [
            "explain", "describe", "write", "give", "list", "name", "show", "calculate", "compute", "compare", "choose", "select", "identify",
            "find", "complete", "predict", "justify", "use", "include", "assume", "round", "express", "support", "illustrate",
        ],
        capitalizesSentences: true, commas: [","], numberKinds: ["even": .even, "odd": .odd, "prime": .prime])

    /// Imperatives an Arabic stem or instruction opens with, as exam and course authors write
    /// them (masculine singular, the form instructions use), folded. Left out: forms that are as
    /// often a noun or a preposition at a statement's start once vowel marks go (حوّل/حول "around",
    /// عبّر/عبر "through", عدّد/عدد "number", قدّر/قدر "amount", قيّم/قيم "values").
    static let arabicImperatives = Array(
        Set(
            [
                "اشرح", "اكتب", "صف", "وضّح", "قارن", "حدد", "حدّد", "اذكر", "علل", "علّل", "بيّن", "احسب", "استخدم", "أعطِ", "لخّص", "عرّف", "اختر",
                "استنتج", "أوجد", "صنّف", "رتّب", "أكمل", "املأ", "صحّح", "ناقش", "فسّر", "برهن", "أثبت", "ارسم", "حلّل", "بسّط", "حل", "اقترح",
                "توقّع", "طابق", "اربط", "أعد", "استخرج", "ميّز", "اشتق", "أجب", "تحقق", "اقرأ", "انظر", "تأمل", "لاحظ", "قدّم",
            ].map(TextKey.foldArabic))
    ).sorted()

    public static let arabic = LanguageProfile(
        subtag: "ar", questionMarks: ["?", "؟"], direction: .rightToLeft, digits: .eastern, foldsLetters: true,
        // Particles, prepositions, pronouns and demonstratives, and the filler words of titles
        // (introduction, basics, overview, part).
        stopWords: Set(
            [
                "في", "من", "إلى", "على", "عن", "ما", "هذا", "هذه", "ذلك", "تلك", "التي", "الذي", "الذين", "اللذان", "اللتان", "اللواتي", "أن", "إن",
                "كان", "كانت", "يكون", "تكون", "مع", "هو", "هي", "هم", "هن", "نحن", "أنت", "أنا", "أو", "ثم", "قد", "لقد", "لا", "لم", "لن", "ليس", "هل",
                "كل", "بعض", "غير", "بين", "عند", "عندما", "حتى", "إذا", "لكن", "بل", "إلا", "منذ", "خلال", "حول", "لدى", "نحو", "بعد", "قبل", "فوق",
                "تحت", "كما", "مثل", "أيضا", "هناك", "هنا", "ماذا", "متى", "أين", "كيف", "لماذا", "أي", "التى", "وهو", "وهي", "وفي", "ومن", "والتي",
                "والذي", "فيه", "فيها", "منه", "منها", "عليه", "عليها", "إليه", "إليها", "به", "بها", "له", "لها", "ذات", "مقدمة", "المقدمة", "أساسيات",
                "نظرة", "عامة", "جزء", "الجزء",
            ].map(TextKey.foldArabic)),
        significantLetters: 3,
        comparisonStopWords: """
            في من إلى على عن مع هو هي هم هما هن هذا هذه ذلك تلك التي الذي الذين اللذان اللتان و أو ثم قد لقد كان كانت يكون تكون \
            إن أن إذا حيث كل بعض عند بين فيه فيها به بها له لها هل التالية التالي الآتية الآتي يلي
            """.split(separator: " ").map(String.init),
        // Is not, not.
        negations: ["ليس", "ليست", "لا"],
        questionOpeners: [],
        instructionOpeners: arabicImperatives, answerImperatives: arabicImperatives,
        capitalizesSentences: false, commas: [",", "،"],
        numberKinds: [
            "زوجي": .even, "زوجيا": .even, "زوجية": .even, "فردي": .odd, "فرديا": .odd, "فردية": .odd, "أولي": .prime, "أوليا": .prime, "أولية": .prime,
        ].reduce(into: [:]) { $0[TextKey.foldArabic($1.key)] = $1.value })
}
