import Foundation
import LecternMarkdown

/// One problem with generated content. Errors make the item invalid (it is repaired by re-asking
/// or reported); warnings are flags kept in the event log and counted in the run's summary.
public struct ValidationIssue: Codable, Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Codable, Sendable { case error, warning }

    public var severity: Severity
    public var message: String
    /// The rule that raised it, without the particulars of this answer (lengths, names, lines):
    /// "the correct option is much longer than the others". A run's summary counts warnings by it.
    public var kind: String
    /// The check it belongs to, named where it is raised: quality.json counts it there.
    public var check: QualityCheck

    public init(severity: Severity, message: String, kind: String? = nil, check: QualityCheck) {
        self.severity = severity
        self.message = message
        self.kind = kind ?? message
        self.check = check
    }

    public static func error(_ message: String, check: QualityCheck) -> ValidationIssue {
        ValidationIssue(severity: .error, message: message, check: check)
    }
    public static func warning(_ message: String, kind: String, check: QualityCheck) -> ValidationIssue {
        ValidationIssue(severity: .warning, message: message, kind: kind, check: check)
    }

    /// The refusal this issue makes of an answer.
    public var refusal: Refusal { Refusal(check, message) }

    public var description: String { "\(severity.rawValue): \(message)" }
}

extension Array where Element == ValidationIssue {
    public var errors: [ValidationIssue] { filter { $0.severity == .error } }
    public var warnings: [ValidationIssue] { filter { $0.severity == .warning } }
}

/// Text normalisation for comparisons: case-folded, white space collapsed, punctuation (Latin and
/// Arabic) dropped at both ends. In a language whose profile folds letters (Arabic: "ar", "ar-SA"
/// …, `LanguageProfile`) the letters alone are compared: tatweel and short-vowel marks are dropped
/// and the alef forms unified (`TextKey.foldArabic`).
public enum TextKey {
    public static func normalize(_ text: String, language: String = "en") -> String {
        normalize(text, language: language, foldingCase: true)
    }

    /// `normalize`, keeping letter case when `foldingCase` is false.
    public static func normalize(_ text: String, language: String, foldingCase: Bool) -> String {
        let profile = LanguageProfile.for(language)
        let source = profile?.fold(text) ?? text
        let cased = foldingCase ? source.lowercased() : source
        if let ascii = asciiNormalized(cased, arabic: profile?.subtag == "ar") { return ascii }
        let collapsed = cased.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        // Arabic writers often set a space before "؟" and "؛"; English keys keep the space left
        // by "x ?" (an option's place in a course is derived from its prompt's key).
        return collapsed.trimmingCharacters(in: profile?.subtag == "ar" ? arabicEnds : latinEnds)
    }

    /// `normalize`'s white space and ends for an ASCII text, by its bytes (nil for any other
    /// text): each character of an ASCII text is one byte (CR LF aside, white space either way),
    /// its white space is tab, line feed, vertical tab, form feed, carriage return and space, and
    /// its ends to trim are `latinEnds`' ASCII ones (and, in Arabic, space and tab). Every
    /// question's key passes here, several times per check.
    static func asciiNormalized(_ text: String, arabic: Bool) -> String? {
        var text = text
        return text.withUTF8 { bytes -> String? in
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            var pendingSpace = false
            for byte in bytes {
                guard byte < 0x80 else { return nil }
                if byte == 0x20 || (0x09...0x0D).contains(byte) {
                    pendingSpace = !out.isEmpty
                    continue
                }
                if pendingSpace { out.append(0x20) }
                pendingSpace = false
                out.append(byte)
            }
            let ends: Set<UInt8> = arabic ? asciiArabicEnds : asciiLatinEnds
            var start = 0
            var end = out.count
            while start < end && ends.contains(out[start]) { start += 1 }
            while end > start && ends.contains(out[end - 1]) { end -= 1 }
            return String(decoding: out[start..<end], as: UTF8.self)
        }
    }

    static let asciiLatinEnds = Set(".,;:!?\"'`".utf8)
    static let asciiArabicEnds = asciiLatinEnds.union([0x20, 0x09])

    static let latinEnds = CharacterSet(charactersIn: ".,;:!?\"'`،؛؟")
    static let arabicEnds = latinEnds.union(.whitespaces)

    /// Words that are not common filler — what a text must mention to be about a title: words of
    /// the profile's `significantLetters` or more (English four, Arabic three), after folding, not
    /// among its `stopWords`. A language without a profile is read as English.
    public static func significantWords(_ text: String, language: String = "en") -> [String] {
        let profile = LanguageProfile.for(language) ?? .english
        let source = profile.foldsLetters ? profile.fold(text) : text.lowercased()
        if source.utf8.allSatisfy({ $0 < 0x80 }) {
            // An ASCII text by its bytes: its letters and digits are [A-Za-z0-9], each one byte.
            return source.utf8.split(whereSeparator: { !(0x30...0x39).contains($0) && !(0x41...0x5A).contains($0) && !(0x61...0x7A).contains($0) })
                .compactMap { $0.count >= profile.significantLetters ? String(decoding: $0, as: UTF8.self) : nil }
                .filter { !profile.stopWords.contains($0) }
        }
        return source.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
            .filter { $0.count >= profile.significantLetters && !profile.stopWords.contains($0) }
    }

    /// Arabic text reduced to its letters, so that spellings with and without vowel marks compare
    /// equal: tatweel (U+0640), the harakat (U+064B–U+0652) and the superscript alef (U+0670)
    /// dropped; أ إ آ ٱ written as ا. Other text passes unchanged.
    public static func foldArabic(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0640, 0x064B...0x0652, 0x0670: continue
            case 0x0622, 0x0623, 0x0625, 0x0671: scalars.append("\u{0627}")
            default: scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    /// Whether a text ends as a question does in `language` (`LanguageProfile.questionMarks`):
    /// "?", and in Arabic also "؟"; "?" in a language without a profile.
    public static func endsWithQuestionMark(_ text: String, language: String = "en") -> Bool {
        (LanguageProfile.for(language) ?? .english).endsWithQuestionMark(text)
    }
}

/// Semantic checks on questions (engagement, bonus, reinforcement renditions, bank items). Each
/// takes the number of options a question must have (2–6; a course asks for 4) and the content's
/// language, which decides how texts are compared (`TextKey`).
public enum QuestionRules {
    /// The options a course's multiple-choice question has.
    public static let optionCount = 4
    /// The option counts a multiple-choice question may have.
    public static let optionCounts = 2...6
    /// The kind of the error "exactly one option must be correct" (a bank whose key is an index
    /// reports an index out of range instead).
    public static let oneCorrectKind = "exactly one option must be correct"

    /// The kind of the warning on a correct option much longer than the others (an error in exams,
    /// `ExamRules.check`).
    public static let longKeyKind = "the correct option is much longer than the others"
    /// What the error on two wrong options with one feedback says of them ("wrong_answers[1] and
    /// wrong_answers[2] have the same feedback; …"): the runner mends answers refused for it alone
    /// (`FeedbackMending`).
    public static let sameFeedback = "have the same feedback"
    /// The fewest characters a wrong option's feedback has, normalised (`TextKey`), for it to
    /// count as shared with another's: shorter ones ("No.") are judged by the other rules. The
    /// check and `FeedbackMending` compare by it alike.
    public static let sharedFeedbackMinimum = 3
    /// What the error on a wrong option whose feedback calls it right says of it: mended as
    /// `sameFeedback` is.
    public static let callsAWrongAnswerRight = "calls it right, but it is a wrong answer"

    /// Whether a wrong option's `feedback` calls it right ("This is correct because …"; not
    /// judged in Arabic).
    public static func feedbackCallsItRight(_ feedback: String, language: String) -> Bool {
        !LanguageProfile.isArabic(language) && mayMatch(feedback, anyOf: callsRightWords) && feedback.contains(callsRight)
    }

    /// Checks a multiple-choice question's options against its prompt. `labels` name the options
    /// in messages the way the model wrote them (say "correct_answer", "wrong_answers[2]"); by
    /// default "option 1" … "option N". `optionCount` is the number of options the question must
    /// have (2–6); `requiresFeedback` whether every option needs its feedback (a bank of bare
    /// questions has none).
    /// `explanation`, when given, is held to the key (`checkKeyAgreesWithWorking`,
    /// `checkKeyAgreesWithIndexing`).
    public static func checkMultipleChoice(
        prompt: String, options: [Choice], labels: [String]? = nil, optionCount: Int = QuestionRules.optionCount, language: String = "en",
        requiresFeedback: Bool = true, explanation: String? = nil, maxOptionLength: Int? = 300
    ) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        if let explanation {
            issues +=
                checkKeyAgreesWithWorking(options: options, explanation: explanation)
                + checkKeyAgreesWithIndexing(prompt: prompt, options: options, explanation: explanation)
        }
        let labels = labels.flatMap { $0.count == options.count ? $0 : nil } ?? options.indices.map { "option \($0 + 1)" }
        if !optionCounts.contains(optionCount) {
            issues.append(.error("a multiple-choice question has 2 to 6 options; \(optionCount) were asked for", check: .stageRules))
        } else if options.count != optionCount {
            issues.append(.error("a multiple-choice question needs exactly \(optionCount) options; it has \(options.count)", check: .stageRules))
        }
        // An option that announces what it then does not give: "To find out what's inside a
        // dictionary, you use its key. For example:" (the local model's four options, each so).
        for (label, option) in zip(labels, options) where option.text.trimmed.hasSuffix(":") {
            issues.append(
                .error(
                    "\(label) ends with a colon and nothing after it ('…\(option.text.trimmed.suffix(40))'): an option is a whole answer; finish it, or leave out what announces more",
                    check: .questionForm))
        }
        let correct = options.filter(\.correct)
        if correct.count != 1 {
            issues.append(
                ValidationIssue(
                    severity: .error, message: "exactly one option must be correct; \(correct.count) are marked correct", kind: oneCorrectKind, check: .stageRules))
        }
        issues += OptionValues.issues(prompt: prompt, options: options, labels: labels, language: language)
        var seen: [String: [Int]] = [:]
        let promptKey = TextKey.normalize(prompt, language: language)
        let keys = options.map { TextKey.normalize($0.text, language: language) }
        // Options that differ only in letter case are the same answer ("A list", "a list") —
        // unless three or more options are spellings of one word: the question is then about the
        // letters' case ("the abbreviation for megahertz": mHz, mhZ, Mhz, MHz).
        var spellings: [String: Set<String>] = [:]
        for (key, option) in zip(keys, options) {
            spellings[key, default: []].insert(TextKey.normalize(option.text, language: language, foldingCase: false))
        }
        let asksForAQuestion = Self.asksForAQuestion(prompt, options: options, language: language)
        // "Which of these sentences is written in the subjunctive?": a sentence may be a question.
        let asksForASentence = (LanguageProfile.isEnglish(language) || language.isEmpty) && prose(prompt).firstMatch(of: Self.whichSentence) != nil
        for (index, option) in options.enumerated() {
            let folded = keys[index]
            // Symbols whose case is their meaning ("Sc ≡ Ej" and "sC ≡ eJ" in predicate logic:
            // no word among them) are compared with their case.
            let key =
                (spellings[folded]?.count ?? 0) >= 3 || Self.isSymbolic(option.text)
                ? TextKey.normalize(option.text, language: language, foldingCase: false) : folded
            if key.isEmpty {
                issues.append(.error("\(labels[index]) is empty", check: .stageRules))
                continue
            }
            // Small models often copy the question, or write more questions, as options.
            if folded == promptKey
                || (TextKey.endsWithQuestionMark(option.text, language: language) && !asksForAQuestion && !asksForASentence && !Self.isCode(option.text))
            {
                issues.append(
                    .error(
                        "\(labels[index]) ('\(option.text.trimmed)') is a question; every option must be a possible answer to the question, not a question", check: .stageRules))
                continue
            }
            // Every earlier option with this key is compared: "`:=`", "`!=`", "`!=`" repeats the second.
            if let first = seen[key, default: []].first(where: { !Self.differAsCode(options[$0].text, option.text, key: key) }) {
                issues.append(.error("\(labels[first]) and \(labels[index]) are the same ('\(option.text)'); every option must differ", check: .distinctOptions))
            } else {
                seen[key, default: []].append(index)
            }
            if let maxOptionLength, option.text.count > maxOptionLength {
                issues.append(.error("\(labels[index]) is longer than \(maxOptionLength) characters", check: .stageRules))
            }
            if requiresFeedback && option.feedback.trimmed.count < 3 {
                issues.append(.error("\(labels[index]) has no feedback; every option needs feedback explaining why it is right or wrong", check: .stageRules))
            }
        }
        issues += distinctnessIssues(options: options, keys: keys, labels: labels, requiresFeedback: requiresFeedback, language: language)
        issues += formIssues(prompt: prompt, options: options, keys: keys, labels: labels, language: language)
        if correct.count == 1, let answer = correct.first {
            let key = TextKey.normalize(answer.text, language: language)
            // An answer of a word or two can legitimately appear in a question; a longer one
            // quoted in the prompt gives the answer away — unless a wrong option is quoted there
            // too: the question asks which of the stem's own parts is the one ("Identify the
            // antecedent of: If the university does not increase financial aid, …", "determine
            // whether they are logically equivalent or contradictory").
            // So too when the stem quotes a text to take apart ("Identify the conclusion of the
            // following argument. …"): its answer is one of the text's parts.
            let wrongQuoted = zip(options, keys).contains { option, key in !option.correct && key.count >= 3 && Self.containsWords(promptKey, key) }
            let quotesAText = (LanguageProfile.isEnglish(language) || language.isEmpty) && prose(prompt).firstMatch(of: Self.followingText) != nil
            if key.count >= 12 && key != promptKey && !TextKey.endsWithQuestionMark(answer.text, language: language) && promptKey.contains(key)
                && !wrongQuoted && !quotesAText
            {
                issues.append(.error("the prompt gives the answer away: it contains the correct option '\(answer.text)'", check: .questionForm))
            } else if let marked = statedAnswer(prompt) ?? hintedAnswer(prompt), !key.isEmpty,
                TextKey.significantWords(marked, language: language).contains(where: Set(TextKey.significantWords(answer.text, language: language)).contains)
                    || TextKey.normalize(marked, language: language).hasPrefix(key)
            {
                // "(answer: insulator)" after the stem: a key of any length, stated as the answer.
                issues.append(
                    .error(
                        "the prompt gives the answer away ('\(marked.trimmed.trimmingCharacters(in: CharacterSet(charactersIn: ")?.!")).prefix(60))'): it states the correct option '\(answer.text.trimmed)' as the answer",
                        check: .questionForm))
            }
            if !LanguageProfile.isArabic(language) {
                let answerWords = Set(TextKey.significantWords(answer.text, language: language).map(FlashcardRules.stem))
                let promptWords = Set(TextKey.significantWords(prompt, language: language).map(FlashcardRules.stem))
                // The key's words are the question's, and most of them: "The `if` statement tells
                // the computer to look at a value and decide what to do next" for "how does the
                // `if` statement tell the computer to look at a value and decide what to do next?"
                // (a key naming a few of a long question's words answers it: "On any General or
                // Technician class band segment").
                // A key that denies the question's premise says what it does not: "There is no
                // device to protect a station from a direct hit from lightning." for "What device
                // can protect a transmitting station from a direct lightning hit?"
                let profile = LanguageProfile.for(language) ?? .english
                let denials = Set(profile.negations + (LanguageProfile.isEnglish(language) || language.isEmpty ? ["no", "none", "nothing", "nor"] : []))
                let keyWords = answer.text.lowercased().split(whereSeparator: { !$0.isLetter && $0 != "'" && $0 != "’" }).map(String.init)
                let promptLower = Set(prompt.lowercased().split(whereSeparator: { !$0.isLetter && $0 != "'" && $0 != "’" }).map(String.init))
                let denies = keyWords.contains { denials.contains($0) && !promptLower.contains($0) }
                // A yes/no question is answered by saying it: "Piracy jure gentium is subject to
                // universal jurisdiction" for "Is piracy … subject to universal jurisdiction?".
                let yesNoStem = (LanguageProfile.isEnglish(language) || language.isEmpty) && prose(prompt).firstMatch(of: Self.yesNoStem) != nil
                if !denies && !yesNoStem && answerWords.count >= 4 && answerWords.isSubset(of: promptWords) && answerWords.count * 10 >= promptWords.count * 6 {
                    issues.append(
                        .error(
                            "the correct option ('\(answer.text.trimmed)') only repeats the question's own words; it must answer the question with what the question does not already say",
                            check: .questionForm))
                }
            }
            let others = options.filter { !$0.correct }.map(\.text.count)
            if !others.isEmpty {
                let mean = Double(others.reduce(0, +)) / Double(others.count)
                if Double(answer.text.count) > mean * 1.8 && answer.text.count - Int(mean) >= 25 {
                    issues.append(
                        .warning(
                            "the correct option is much longer than the others (\(answer.text.count) vs about \(Int(mean)) characters): its length alone may give it away",
                            kind: longKeyKind, check: .stageRules))
                }
            }
        }
        return issues
    }

    /// Options that are not distinct answers: two that differ only in articles, punctuation and
    /// plurals (`restates`), and wrong options whose feedback is the same text (each
    /// says why *that* answer is wrong). Options equal after normalization are reported by the
    /// caller. (A wrong option containing the correct one is not refused: real exams use such
    /// distractors — "Full-wave bridge" beside "Full-wave", "The reciprocal of the RMS value"
    /// beside "The RMS value" in the US amateur radio pools.)
    static func distinctnessIssues(options: [Choice], keys: [String], labels: [String], requiresFeedback: Bool, language: String) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        let words = options.map { restatementWords($0.text, language: language) }
        for i in options.indices {
            for j in options.indices where j > i && !keys[i].isEmpty && !keys[j].isEmpty && keys[i] != keys[j] {
                // Words of a letter or two are no statement to restate: "ab" and "a ab" are two
                // outputs of `"a" + "ab"`, not "ab" with an article.
                if !words[i].isEmpty, words[i] == words[j], words[i].contains(where: { $0.count >= 3 }),
                    !differAsCode(options[i].text, options[j].text, key: keys[i])
                {
                    issues.append(
                        .error(
                            "\(labels[i]) ('\(options[i].text)') and \(labels[j]) ('\(options[j].text)') say the same thing in other words; every option must be a different answer", check: .stageRules
                        ))
                }
            }
        }
        if requiresFeedback {
            var seen: [String: Int] = [:]
            for (index, option) in options.enumerated() where !option.correct {
                let feedback = TextKey.normalize(option.feedback, language: language)
                guard feedback.count >= sharedFeedbackMinimum else { continue }
                if let first = seen[feedback] {
                    issues.append(
                        .error("\(labels[first]) and \(labels[index]) \(sameFeedback); each wrong answer's feedback says why that answer is wrong", check: .distinctOptions))
                } else {
                    seen[feedback] = index
                }
            }
            if !LanguageProfile.isArabic(language) {
                for (index, option) in options.enumerated() where !option.feedback.trimmed.isEmpty {
                    let contradicts =
                        option.correct
                        ? mayMatch(option.feedback, anyOf: callsWrongWords) && option.feedback.contains(callsWrong)
                        : mayMatch(option.feedback, anyOf: callsRightWords) && option.feedback.contains(callsRight)
                    if contradicts {
                        issues.append(
                            .error(
                                "\(labels[index])'s feedback ('\(option.feedback.prefix(100))') \(option.correct ? "calls it wrong, but it is the correct answer" : callsAWrongAnswerRight): "
                                    + "the feedback says why this answer is \(option.correct ? "right" : "wrong")", check: .feedbackAgreesWithKey))
                    }
                }
            }
        }
        return issues
    }

    /// A question and options that do not make a multiple-choice question, as the local model
    /// wrote one: "Can you explain what the sentence '…' means?" with the options "Yes", "No",
    /// "The sentence is too short" and "The sentence doesn't make sense as a multiple-choice
    /// question". Refused: a stem asking for the learner's own words (options cannot be their
    /// words); "Yes" and "No" beside other options (a yes/no question has two answers, not four);
    /// an option about the question itself. English only.
    static func formIssues(prompt: String, options: [Choice], keys: [String], labels: [String], language: String) -> [ValidationIssue] {
        guard LanguageProfile.isEnglish(language) || language.isEmpty else { return [] }
        var issues: [ValidationIssue] = []
        let prose = prose(prompt)
        if let match = prose.firstMatch(of: Self.asksForOwnWords) {
            issues.append(
                .error(
                    "the question asks for the learner's own words ('\(String(match.output.0).trimmed)'), which options cannot be: ask which option is right, or make it a free-text question",
                    check: .questionForm))
        }
        let yesNo = Set(keys.filter { ["yes", "no"].contains($0) })
        if yesNo.count == 2 && options.count > 2 {
            issues.append(
                .error(
                    "'Yes' and 'No' stand beside \(options.count - 2) other option\(options.count == 3 ? "" : "s"): a yes/no question has two answers; ask what, which or how, with \(options.count) answers of the same kind",
                    check: .questionForm))
        }
        for (index, option) in options.enumerated() where option.text.firstMatch(of: Self.announcesItsKey) != nil {
            issues.append(
                .error(
                    "\(labels[index]) ('\(option.text.trimmed.prefix(80))') says whether it is the answer; an option is only the answer itself — why it is right or wrong goes in its feedback",
                    check: .questionForm))
        }
        for (index, option) in options.enumerated() where option.text.firstMatch(of: Self.aboutTheQuestion) != nil {
            issues.append(
                .error("\(labels[index]) ('\(option.text.trimmed)') is about the question, not an answer to it; every option answers the question", check: .questionForm))
        }
        return issues
    }

    nonisolated(unsafe) static let asksForOwnWords = /(?i)\b(in|using|with) your own words\b/
    nonisolated(unsafe) static let announcesItsKey =
        /(?i)^\s*(the\s+|this\s+is\s+the\s+|a\s+)?(correct|right|wrong|incorrect)\s+(answer|option|choice)\s*((is|would be)?\s*[:\-–]|(is|would be)\s+that\b|says\b)/
    nonisolated(unsafe) static let aboutTheQuestion =
        /(?i)\b(multiple[- ]choice question|(this|the) (question|sentence|statement) (is too (short|long|vague)|does ?n[o']t make sense|makes no sense|is (not|n't) a (question|sentence)|cannot be answered|has no (answer|correct answer)))\b/

    /// Feedback that calls its option right ("This answer is also correct", "While this is true"),
    /// which a wrong option's must not do; and feedback that calls it wrong, which the correct
    /// option's must not do. English wording only.
    /// An opening "You're right!", "That's correct" or "True!" calls it right too (the local
    /// model's feedback on two wrong options about `elif`). An opening "Right" qualified in its own
    /// sentence ("Right idea, but …", "Yes, it loops, but …", "True, but …") does not. So does
    /// "The statement 'To establish territorial claims' is correct as it relates to the text",
    /// the option quoted before "is correct" (the local model's feedback on a reading question).
    nonisolated(unsafe) static let callsRight =
        /(?i)^\s*((correct|right|yes)\b(?!\s+(idea|direction|track|thought|approach|start|instinct|intuition|question|place)\b)|(you're|you are|you’re|that's|that’s|exactly) (right|correct)\b|(true|exactly)\s*[!,.])(?![^.!?]*\bbut\b)|\b(this|that|it)( answer| option| statement)? is (also |indeed |actually )?(correct|right|true)\b|\b(answer|option|statement|choice)\s+(['"“‘][^'"”’]{1,160}['"”’])\s+is (also |indeed |actually )?(correct|right|true)\b|\bis (also )?the (correct|right) answer\b|\bwhile (this|that|it) is true\b|\b(this|that|it)( answer| option| statement)? is (also |directly |clearly )?(supported|stated|confirmed) (by|in) the (passage|text|source)\b/
    /// A word every match of `callsRight` holds, and one every match of `callsWrong` holds.
    static let callsRightWords = ["correct", "right", "yes", "true", "exactly", "supported", "stated", "confirmed"]
    static let callsWrongWords = ["incorrect", "wrong", "no", "false"]
    nonisolated(unsafe) static let callsWrong =
        /(?i)^\s*(incorrect|wrong|no)\b|\b(this|that|it)( answer| option| statement)? is (incorrect|wrong|false|not correct)\b/

    /// Whether two options are one answer written twice: the same words in the same order once
    /// letter case, punctuation, articles (a, an, the; Arabic ال) and an English plural `s` are
    /// set aside ("A river." and "the rivers"). Every other word counts: real exams' distractors
    /// are often the key with one word changed ("above"/"below", "AND"/"OR") or two swapped ("4:1",
    /// "1:4"). Paraphrases in other words are left to blind solving.
    /// Whether two options with one key (`TextKey.normalize` trims quotes, backticks and
    /// sentence marks) are still different answers: code (in backticks) or a value without
    /// letters whose symbols differ once a closing sentence mark is set aside. "`==`", "`!=`" and
    /// "`:=`" are three operators, "'42'" and "42" a string and a number; "Paris." is "Paris", and
    /// "`x = 5`" is "x = 5".
    static func differAsCode(_ a: String, _ b: String, key: String) -> Bool {
        guard a.contains("`") || b.contains("`") || !key.contains(where: \.isLetter) || (isCode(a) && isCode(b)) else { return false }
        // A code is its characters in their order: the Q signal "QRM?" asks and "QRM" tells;
        // "?AA" and "AA?" are two abbreviations.
        if isCode(a) && isCode(b) { return a.trimmed != b.trimmed }
        func symbols(_ text: String) -> String {
            var text = Substring(text.trimmed)
            while let last = text.last, ".!?؟".contains(last) { text = text.dropLast() }
            // Backticks only mark code, and one quotation mark is as good as another.
            return String(text.filter { !$0.isLetter && !$0.isNumber && !$0.isWhitespace && $0 != "`" }.map { "\"“”‘’".contains($0) ? "'" : $0 })
        }
        return symbols(a) != symbols(b)
    }

    public static func restates(_ a: String, _ b: String, language: String) -> Bool {
        let x = restatementWords(a, language: language)
        return !x.isEmpty && x == restatementWords(b, language: language)
    }

    /// The words `restates` compares: computed once per option by `distinctnessIssues`, which
    /// compares every pair.
    static func restatementWords(_ text: String, language: String) -> [String] {
        let arabic = LanguageProfile.isArabic(language)
        // Symbols are words too: "P(A ∪ B)" and "P(A ∩ B)" are different answers. So is a
        // code negation, which the punctuation trimmed below would drop: `if !is_broken` is
        // not `if is_broken:`, nor `x != 5` `x = 5`.
        let negations = text.replacing("!=", with: " ≠ ").replacing(CompiledPatterns.bangBeforeName, with: "not ")
        return TextKey.normalize(negations, language: language).split(whereSeparator: \.isWhitespace)
            .compactMap { raw in
                var word = String(raw).trimmingCharacters(in: restatementPunctuation)
                if ["a", "an", "the"].contains(word) { return nil }
                if arabic, word.hasPrefix("ال"), word.count > 3 { word.removeFirst(2) }
                if !arabic, word.count > 3, word.hasSuffix("s"), !word.hasSuffix("ss"), !word.hasSuffix("us"), !word.hasSuffix("is") {
                    word.removeLast()
                }
                return word.isEmpty ? nil : word
            }
    }

    static let restatementPunctuation = CharacterSet(charactersIn: ".,;:!?\"'`“”‘’«»،؛؟")

    /// Checks a whole engagement or bonus question.
    /// `optionLabels`, `optionCount` and `language` as in `checkMultipleChoice`.
    public static func check(
        _ question: Question, expectedTopicID: String, optionLabels: [String]? = nil, optionCount: Int = QuestionRules.optionCount,
        language: String = "en"
    ) -> [ValidationIssue] {
        // Kept with stand-in names for the options, and without the prompt's rendition (course.json
        // has one, the stage's answer not yet), so the stage's verdict is the bank lint's (`OptionNames`).
        let count = question.options?.count ?? 0
        var question = question
        question.promptXHTML = nil
        let verdict = CheckMemo.verdict("QuestionRules.check", [CheckMemo.text(question), expectedTopicID, "\(optionCount)", language]) {
            computedCheck(question, expectedTopicID: expectedTopicID, optionLabels: OptionNames.placeholders(count), optionCount: optionCount, language: language)
        }
        return OptionNames.named(verdict, labels: optionLabels, count: count)
    }

    static func computedCheck(
        _ question: Question, expectedTopicID: String, optionLabels: [String]?, optionCount: Int, language: String
    ) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        if question.topicID != expectedTopicID {
            issues.append(.error("the question must be about topic \(expectedTopicID), but it names topic \(question.topicID)", check: .grounding))
        }
        issues += checkLength("prompt", question.prompt, 10...1_500)
        issues += checkNoHeading("prompt", question.prompt)
        issues += checkFinished("prompt", question.prompt)
        issues += checkAskedOfTheLearner("prompt", question.prompt, language: language)
        issues += checkLearnerTexts(
            prompt: ("prompt", question.prompt),
            after: [("explanation", question.explanation), ("reference_answer", question.referenceAnswer ?? "")]
                + feedbackFields(question.options, labels: optionLabels))
        issues += checkLength("explanation", question.explanation, 20...3_000)
        issues += checkNoMissingMedium("explanation", question.explanation)
        switch question.format {
        case .multipleChoice:
            issues += checkOneQuestion("prompt", question.prompt)
            issues += checkMultipleChoice(
                prompt: question.prompt, options: question.options ?? [], labels: optionLabels, optionCount: optionCount, language: language,
                explanation: question.explanation)
        case .freeText:
            if (question.referenceAnswer ?? "").trimmed.count < 10 {
                issues.append(.error("a free-text question needs a reference answer of at least 10 characters", check: .stageRules))
            }
            issues += checkFreeTextPrompt(question.prompt, referenceAnswer: question.referenceAnswer ?? "", language: language)
        }
        return issues
    }

    /// What a prompt states as its answer after an "(answer: …" or a line opening "Answer:" (the
    /// text from the marker on), or nil. "Justify your answer: …" is a question, not a marker.
    static func statedAnswer(_ prompt: String) -> String? {
        guard let marker = answerMarkerRange(prompt) else { return nil }
        return String(prompt[marker.upperBound...])
    }

    /// Where `prompt` marks its answer: "(answer:", "(answer is", "(the correct answer is", or
    /// "Answer:" opening a line or following the end of a sentence ("… is called what? Answer:
    /// insulator") — the pattern compiled once (`String.range(of:options:)` compiles it on every
    /// call), run only on a prompt that says "answer". ("Justify your answer: …" is no marker.)
    static func answerMarkerRange(_ prompt: String) -> Range<String.Index>? {
        guard mayMatch(prompt, anyOf: ["answer"]),
            let match = answerMarker.firstMatch(in: prompt, range: NSRange(prompt.startIndex..., in: prompt))
        else { return nil }
        return Range(match.range, in: prompt)
    }

    static let answerMarker = try! NSRegularExpression(
        pattern: #"\(\s*((the\s+)?(correct|right)\s+)?answers?\s*(is\b|[:=])|(^\s*|[?.!]\s+)((the\s+)?(correct|right)\s+)?answers?\s*(is\s*)?[:=]"#,
        options: [.caseInsensitive, .anchorsMatchLines])

    /// What a multiple-choice stem gives as a hint — "(Hint: Paris)", "… ? Hint: it starts with
    /// P" — for the key check, which flags it only when it states the key (a hint that leads
    /// without naming the answer is a fair part of a question).
    static func hintedAnswer(_ prompt: String) -> String? {
        guard mayMatch(prompt, anyOf: ["hint"]),
            let match = hintMarker.firstMatch(in: prompt, range: NSRange(prompt.startIndex..., in: prompt)),
            let range = Range(match.range, in: prompt)
        else { return nil }
        return String(prompt[range.upperBound...])
    }

    static let hintMarker = try! NSRegularExpression(pattern: #"(\(\s*|^\s*|[?.!]\s+)hints?\s*[:=]"#, options: [.caseInsensitive, .anchorsMatchLines])

    /// Whether a multiple-choice stem asks which question something is — "Which question can be
    /// answered by science?", "Which of these is a testable question?" — and every option is one:
    /// then options ending in a question mark are its answers (real science banks ask this), not
    /// questions written where answers belong.
    static func asksForAQuestion(_ prompt: String, options: [Choice], language: String) -> Bool {
        guard LanguageProfile.isEnglish(language) || language.isEmpty, options.count >= 2,
            options.allSatisfy({ TextKey.endsWithQuestionMark($0.text, language: language) })
        else { return false }
        // Every option a situation that ends in its question (word problems: "Mitch bought 20
        // containers … How many flowers did Mitch buy?" for "Which situation can be represented
        // by 20/8?").
        if options.allSatisfy({ Self.isSituation($0.text) }) { return true }
        // A stem the options finish: "Are/were viruses:", "The major question concerning aging
        // and personality is:".
        if prompt.trimmed.hasSuffix(":") { return true }
        guard mayMatch(prompt, anyOf: ["question"]) else { return false }
        let prose = prose(prompt)
        return prose.firstMatch(of: Self.whichQuestion) != nil || prose.firstMatch(of: Self.followingQuestion) != nil
    }

    nonisolated(unsafe) static let whichQuestion = /(?i)\b(which|what)\b[^.?!]{0,80}\bquestions?\b/
    /// "The Drake equation attempts to answer the following question:".
    nonisolated(unsafe) static let followingQuestion = /(?i)\bfollowing questions?\s*:?\s*$/
    /// "Which of these sentences is …", "Which sentence uses …".
    nonisolated(unsafe) static let whichSentence = /(?i)\bwhich\b(\s+(one\s+)?of\s+(these|the\s+following))?\s+sentences?\b/
    /// A text the stem quotes for taking apart: "the following argument", "the following
    /// conditional proposition", "the following pairs of propositions". ("The following
    /// statements" and "sentences" are most often the options, and stay out.)
    nonisolated(unsafe) static let followingText =
        /(?i)\bthe\s+following\s+(conditional\s+)?(arguments?|propositions?|pairs?\s+of\s+propositions|passages?|paragraphs?|excerpts?|syllogisms?|text)\b/
    /// A stem that is a yes/no question: it opens with an auxiliary verb.
    nonisolated(unsafe) static let yesNoStem = /^\s*(?i:is|are|was|were|do|does|did|can|could|will|would|should|has|have|had|may|must)\s/

    /// Whether `needle` is in `haystack` as whole words (no letter or digit on either side).
    static func containsWords(_ haystack: String, _ needle: String) -> Bool {
        var start = haystack.startIndex
        while let range = haystack.range(of: needle, range: start..<haystack.endIndex) {
            let before = range.lowerBound == haystack.startIndex ? nil : haystack[haystack.index(before: range.lowerBound)]
            let after = range.upperBound == haystack.endIndex ? nil : haystack[range.upperBound]
            // A hyphen joins words: "ionizing radiation" is not in "non-ionizing radiation".
            func joins(_ c: Character?) -> Bool { c.map { $0.isLetter || $0.isNumber || $0 == "-" } ?? false }
            if !joins(before) && !joins(after) { return true }
            start = haystack.index(after: range.lowerBound)
        }
        return false
    }

    /// A statement, then a question: a situation, not a question put instead of an answer.
    static func isSituation(_ text: String) -> Bool {
        let characters = Array(text.trimmed)
        guard characters.count > 2,
            let end = characters.indices.dropLast().last(where: { ".!".contains(characters[$0]) && characters[$0 + 1].isWhitespace })
        else { return false }
        let before = characters[..<end]
        return before.count >= 20 && !before.contains("?")
    }

    /// A code of capitals, digits and marks, one token ("QRH?", "?SIG", "WA"): its marks are
    /// part of it, so "QRH?" is no question and "?SIG" is not "SIG".
    static func isCode(_ text: String) -> Bool {
        let trimmed = text.trimmed
        return !trimmed.isEmpty && trimmed.count <= 8 && trimmed.contains(where: \.isLetter)
            && trimmed.allSatisfy({ !$0.isWhitespace && (!$0.isLetter || $0.isUppercase) })
    }

    /// Symbols rather than words: letters only in runs of one or two, and no digits ("Sc ≡ Ej",
    /// "P(A|B)"; "-6 dB" is a quantity, whose unit's case a writer may get wrong).
    static func isSymbolic(_ text: String) -> Bool {
        var run = 0
        var letters = false
        for character in text {
            if character.isNumber { return false }
            if character.isLetter {
                run += 1
                letters = true
                if run >= 3 { return false }
            } else {
                run = 0
            }
        }
        return letters
    }

    /// A free-text question must not carry its own answer: small models append "(answer: …)" or
    /// an "Answer: …" line to the question, or quote the reference answer in it. ("Justify your
    /// answer: …" is a question, and passes.)
    public static func checkFreeTextPrompt(
        _ prompt: String, referenceAnswer: String, label: String = "the prompt", language: String = "en"
    ) -> [ValidationIssue] {
        if let marker = answerMarkerRange(prompt) {
            let shown = prompt[marker.lowerBound...].trimmed.prefix(60)
            return [.error("\(label) gives the answer away ('\(shown)…'); it must hold only the question — put the answer in 'reference_answer'", check: .questionForm)]
        }
        let promptKey = TextKey.normalize(prompt, language: language)
        let answerKey = TextKey.normalize(referenceAnswer, language: language)
        if answerKey.count >= 12 && promptKey.contains(answerKey) {
            return [.error("\(label) gives the answer away: it contains the reference answer '\(referenceAnswer.trimmed)'", check: .questionForm)]
        }
        return []
    }

    /// A question holds no Markdown heading outside its code: a prompt with "## The If
    /// Statement" in it is part of a lecture pasted in (the local model copied the lecture's
    /// opening, heading and code included, as its engagement question), never a question.
    public static func checkNoHeading(_ field: String, _ text: String) -> [ValidationIssue] {
        for line in MarkdownLayout(text).prose().split(whereSeparator: \.isNewline) {
            guard line.first == "#" else { continue }
            let hashes = line.prefix { $0 == "#" }
            guard hashes.count <= 6, line.dropFirst(hashes.count).first == " " else { continue }
            return [
                .error(
                    "'\(field)' holds a heading ('\(line.trimmed.prefix(60))') as a lecture does: write only the question, in a sentence or two, not part of the lecture", check: .questionForm)
            ]
        }
        return []
    }

    /// A multiple-choice stem asks one question, which its options answer. The local model's
    /// accepted level-1 pool question was "What is a value in programming? Imagine you have a toy
    /// box. Why do you think it's important to keep track of the money in your piggy bank? How can
    /// you use values in programming to help you manage your piggy bank?", with options answering
    /// the first. Question marks in code (fenced or inline) and in math are not counted.
    public static func checkOneQuestion(_ field: String, _ text: String) -> [ValidationIssue] {
        // A question quoted inside the stem ("If someone asks 'What is this?', what would you
        // say?") is part of the one question: a mark right before a closing quote does not end it.
        let prose = ProseScan.removingMarksBeforeQuotes(MarkdownLayout(text).prose(codeSpan: { _ in " " }, formula: { _ in " " }))
        let questions = ProseScan.questionSentences(prose, repeated: false).map { String(prose[$0]).trimmed }.filter { !$0.isEmpty && $0 != "?" && $0 != "؟" }
        guard questions.count > 1 else { return [] }
        let quoted = questions.prefix(3).map { "'\($0.count > 80 ? $0.prefix(77) + "…" : Substring($0))'" }.joined(separator: ", ")
        return [
            .error(
                "'\(field)' asks \(questions.count) questions (\(quoted)\(questions.count > 3 ? ", …" : "")): a multiple-choice question asks one question, which its options answer — keep one of them as the stem's only question mark, turn the rest into statements or drop them, and make every option answer that one",
                check: .questionForm)
        ]
    }

    /// A text's prose: its code blocks' lines left empty and its inline code blanked, so a check
    /// of wording does not read code.
    static func prose(_ text: String) -> String {
        MarkdownLayout(text).prose(codeSpan: { _ in " " })
    }

    /// What a course question's prompt is held to as a question put to a learner who read the
    /// lecture: no video or instructor the course lacks, not the lecture's voice, and (`asks`)
    /// something asked, the question last, in `language`. A true/false statement is not a
    /// question: `asks` false.
    public static func checkAskedOfTheLearner(_ field: String, _ prompt: String, asks: Bool = true, language: String = "en") -> [ValidationIssue] {
        checkNoMissingMedium(field, prompt) + checkNotLectureVoice(field, prompt) + checkShowsItsCode(field, prompt)
            + (asks ? checkAsksSomething(field, prompt, language: language) + checkQuestionLast(field, prompt, language: language) : [])
    }

    /// A question that points at code shows it. The local model's python-basics pool questions
    /// read "What does this line of code mean? The string 'Alice' will be stored in the variable
    /// named 'myName'." and "In the following code, what will be printed to the console?", with
    /// no code in them at all; a learner has nothing to read. A prompt that says "this code",
    /// "the following code", "this line of code", "the code above" … holds code: a block or an
    /// inline span.
    /// Whether one question holds the other whole (compared by `TextKey`, with quotation marks and
    /// backticks set aside: a name quoted or in code is the same name): the local model wrote the
    /// engagement question again with sentences after it, and python-basics' level-4 pool question
    /// was its level-3 question with `apples` written 'apples' and the last sentence left out.
    /// Texts of fewer than 12 characters only when equal.
    public static func holdsTheOther(_ a: String, _ b: String, language: String = "en") -> Bool {
        let unquoted = { (text: String) in TextKey.normalize(text, language: language).filter { !"`'\"‘’“”".contains($0) } }
        let (x, y) = (unquoted(a), unquoted(b))
        guard x != y else { return true }
        guard min(x.count, y.count) >= 12 else { return false }
        // ASCII texts by their bytes (the same answer as Foundation's search, without bridging).
        if x.utf8.allSatisfy({ $0 < 0x80 }) && y.utf8.allSatisfy({ $0 < 0x80 }) {
            var (x, y) = (x, y)
            return x.withUTF8 { ProseScan.contains($0, y) } || y.withUTF8 { ProseScan.contains($0, x) }
        }
        return x.contains(y) || y.contains(x)
    }

    /// Whether two questions show the same code and ask what it does (what happens, what it prints
    /// or outputs, its result or value): python-basics' level-2 and level-3 pool questions both
    /// showed `myName = 'Alice'` and `print(myName)` and asked "what will happen", in other words
    /// (`NearDuplicate` reads "executed" and "execute" as two words). Code is compared with its
    /// white space set aside, fences and backticks out; at least 12 characters of it.
    public static func asksTheSameCode(_ a: String, _ b: String) -> Bool {
        func code(_ text: String) -> String {
            let layout = MarkdownLayout(text)
            let bytes = Array(text.utf8)
            let blocks = layout.codeBlocks.flatMap(\.lines)
            let spans = layout.codeSpans.map { range -> String in
                let span = String(decoding: bytes[range], as: UTF8.self)
                let ticks = span.prefix(while: { $0 == "`" }).count
                var inner = String(span.dropFirst(ticks).dropLast(ticks))
                // A fence written inside a paragraph ("```python x = 1```") shows as a code span:
                // the word right after its backticks, before white space, is its language.
                if ticks >= 3 {
                    let word = inner.prefix(while: { $0.isASCII && ($0.isLetter || $0.isNumber || "_+-".contains($0)) })
                    if let after = inner.dropFirst(word.count).first, after.isWhitespace { inner = String(inner.dropFirst(word.count)) }
                }
                return inner
            }
            return (blocks + spans).joined().filter { !$0.isWhitespace }
        }
        let (x, y) = (code(a), code(b))
        return x.count >= 12 && x == y && prose(a).firstMatch(of: Self.asksWhatItDoes) != nil && prose(b).firstMatch(of: Self.asksWhatItDoes) != nil
    }

    /// Compiled once: a literal in the function was parsed again on every pair of questions
    /// compared (a fifth of an unchanged re-run's CPU).
    nonisolated(unsafe) static let asksWhatItDoes = /(?i)\b(happens?|print(s|ed)?|outputs?|display(s|ed)?|results?|value)\b/

    /// A question asking for the way to do something, in the form two stems are compared in
    /// (`NearDuplicate` keeps "how" and "what" questions apart): "What is the correct way to look
    /// up a value in a dictionary?" asks what "How do you look up a value in a dictionary?" asks —
    /// python-collections' practice questions 2 and 4 on dictionaries.
    public static func howForm(_ prompt: String) -> String {
        prompt.replacing(CompiledPatterns.whatIsTheWayTo, with: "How do you ")
    }

    /// A question asking what a named list, dictionary or variable holds (python-collections'
    /// "What is the first item in the list `my_list`?": its item, element or value by position, how
    /// many, its length) shows it: an assignment to the name (`my_list = …`) or a code block. What
    /// a method does to `my_list` needs no contents, and is not held to this.
    public static func checkShowsItsCode(_ field: String, _ text: String) -> [ValidationIssue] {
        // "Which line removes and returns the last item of the list `xs`?" asks for the code, not
        // for what `xs` holds (labelled set h-py-15): no contents needed.
        let ticks = text.utf8.contains(UInt8(ascii: "`"))
        if ticks, MarkdownLayout(text).codeBlocks.isEmpty, let named = text.firstMatch(of: Self.namedObject), text.firstMatch(of: Self.asksContents) != nil,
            text.firstMatch(of: Self.asksForTheCode) == nil
        {
            let name = String(named.output.2)
            let assigned = text.range(of: #"\b\#(name)\s*(=|\+=)[^=]"#, options: .regularExpression) != nil
            if !assigned {
                return [
                    .error(
                        "'\(field)' asks about code it does not show ('\(String(named.output.0))' without what it holds): put the code in the question, in a ```python block, or ask without pointing at code",
                        check: .questionForm)
                ]
            }
        }
        guard !ticks, mayMatch(text, anyOf: ["code", "snippet", "program"]), let match = text.firstMatch(of: Self.pointsAtCode) else {
            return checkShowsItsExample(field, text)
        }
        return [
            .error(
                "'\(field)' asks about code it does not show ('\(String(match.output.0))'): put the code in the question, in a ```python block, or ask without pointing at code", check: .questionForm)
        ]
    }

    /// A question that points at an example in its first sentence has nothing before it to point
    /// at, unless it shows a code block: python-basics' pool questions on a branch recording
    /// (2026-11-29) asked "What does the `day` toy represent in this example?" and "In this
    /// example, if `toy_color` is 'blue', it will print 'Playing with the blue car'. What happens
    /// when `toy_color` is 'green'?", the example in the lecture and not in the question. A
    /// question that sets the case out first ("Imagine … In this example, …") is not held to it,
    /// nor one that takes "the same example" up again and gives it after (python-basics' golden
    /// level-3 question, labelled clean: "Now, let's use the same example with numbers again.
    /// Suppose you have 5 apples …"). What points forward ("the following situation:", "the
    /// story below") is followed by what it points at, and is not read here.
    public static func checkShowsItsExample(_ field: String, _ text: String) -> [ValidationIssue] {
        guard mayMatch(text, anyOf: ["example", "scenario", "situation", "story"]) else { return [] }
        let layout = MarkdownLayout(text)
        guard layout.codeBlocks.isEmpty, let first = ProseScan.sentences(layout.prose(codeSpan: { _ in "code" })).first,
            let match = first.firstMatch(of: Self.pointsAtExample)
        else { return [] }
        return [
            .error(
                "'\(field)' points at an example it does not show ('\(String(match.output.0))'): set the example out in the question before asking about it, or ask without pointing at one",
                check: .questionForm)
        ]
    }

    nonisolated(unsafe) static let pointsAtExample =
        /(?i)\b(this|the above|the given) (example|scenario|situation|story)\b|\bthe (example|scenario|situation|story) above\b/

    nonisolated(unsafe) static let asksContents =
        /(?i)\b((first|last|second|third|fourth|fifth|\d+(st|nd|rd|th)) (item|element|value|entry|key)|how many (items|elements|values|entries|keys)|length of|value (of|stored under) the key)\b/
    /// A stem asking which code does something ("Which line …", "What method …", "How do you …").
    nonisolated(unsafe) static let asksForTheCode =
        /(?i)^\s*(which|what) (line|lines|method|methods|statement|expression|call|function|command|operation|code)\b|^\s*how (do|would|can|could) you\b/
    nonisolated(unsafe) static let namedObject = /(?i)\bthe (list|dictionary|dict|tuple|set|variable|string) `([A-Za-z_][A-Za-z0-9_]*)`/

    nonisolated(unsafe) static let pointsAtCode =
        /(?i)\b(this|the following|the above|the given) (python )?(lines? of code|code snippet|code|snippet)\b|\bthe (python )?(code|code snippet|snippet|program) (above|below)\b/

    /// What the error on a numeric key its own working contradicts says (`checkKeyAgreesWithWorking`).
    public static let keyAgainstWorking = "is not what the explanation works out"

    /// A numeric key its own working contradicts. The local model keyed "70" for the permutations
    /// of 8 objects taken 3 at a time while its explanation computed "8! / 5! = 40320 / 120 =
    /// 336", and keyed 60, 35 and 56 beside "C(10, 4) = 210" in other attempts — and a blind
    /// solver agreed with one of them. When the key is a number (`ArithmeticClaims.evaluate`) and
    /// the explanation or the key's feedback works something out (`ArithmeticClaims.claims`), the
    /// key, or a number written in it, is one of the values worked out ("$\frac{252}{1024}$" beside
    /// "$\binom{10}{5} = 252$": the working counts what the key divides). Over the recorded
    /// intro-probability, python-basics, python-collections and world-geography answers (510
    /// multiple-choice questions, 17 with a numeric key) it flags exactly those four.
    public static func checkKeyAgreesWithWorking(options: [Choice], explanation: String) -> [ValidationIssue] {
        guard let key = options.first(where: \.correct), let value = ArithmeticClaims.evaluate(key.text) else { return [] }
        let claims = ArithmeticClaims.claims(in: explanation + "\n\n" + key.feedback)
        // The working quoted: its last true step, or its last step.
        guard let last = claims.last(where: \.holds) ?? claims.last else { return [] }
        let numbers = [value.doubleValue] + key.text.matches(of: CompiledPatterns.decimalNumber).compactMap { Double(String($0.output.0)) }
        let agrees = { (other: ExactValue) in numbers.contains { abs(other.doubleValue - $0) <= 1e-9 * max(1, abs($0)) } }
        guard !claims.contains(where: { agrees($0.left.value) || agrees($0.right.value) }) else { return [] }
        // "10 = 3 × 3 + 1": a division with remainder works out its quotient and its remainder.
        guard
            !claims.contains(where: { claim in Self.quotientAndRemainder(claim.left.text, claim.right.text).contains { whole in numbers.contains { abs(Double(whole) - $0) <= 1e-9 * max(1, abs($0)) } }
            })
        else {
            return []
        }
        return [
            .error(
                "the key ('\(key.text)') \(keyAgainstWorking) ('\(last.left.text) = \(last.right.text)'): make the key the value the working gives, or correct the working", check: .answerKey)
        ]
    }

    /// The quotient and remainder a working "n = q × d + r" (or "d × q + r") states, when it is a
    /// division with remainder: whole numbers, n = q·d + r and r smaller than the divisor. Empty
    /// for anything else.
    static func quotientAndRemainder(_ left: String, _ right: String) -> [Int] {
        guard let n = Int(left.trimmed), let match = right.wholeMatch(of: Self.productPlusRemainder),
            let a = Int(match.output.1), let b = Int(match.output.2), let r = Int(match.output.3), a * b + r == n
        else { return [] }
        // Either factor may be the divisor: the remainder is smaller than it.
        return [(a, b), (b, a)].filter { r < $0.1 }.flatMap { [$0.0, r] }
    }

    nonisolated(unsafe) static let productPlusRemainder = /\s*(\d{1,9})\s*[×x*·]\s*(\d{1,9})\s*\+\s*(\d{1,9})\s*/

    /// A text course has no video and no instructor on screen: the local model's pool questions
    /// opened "In this video, the instructor showed how to assign values to variables in Python",
    /// in a course of written lectures, and a learner is left looking for a video that is not
    /// there. References to a video, clip, screencast or slides the learner watched, or to what an
    /// instructor or presenter showed or said, are refused outside code; a story's teacher ("your
    /// teacher says …") and a figure the item carries are not.
    public static func checkNoMissingMedium(_ field: String, _ text: String) -> [ValidationIssue] {
        let prose = prose(text)
        guard mayMatch(prose, anyOf: Self.missingMediumWords), let match = prose.firstMatch(of: Self.missingMedium) else { return [] }
        let start = prose[..<match.range.lowerBound].lastIndex(where: { ".!?\n".contains($0) }).map { prose.index(after: $0) } ?? prose.startIndex
        let sentence = prose[start...].prefix(while: { !".!?\n".contains($0) }).trimmed
        let shown = sentence.count > 90 ? sentence.prefix(87) + "…" : Substring(sentence)
        return [
            .error(
                "'\(field)' refers to a video, slides or an instructor ('\(shown)'), which this course does not have: its learners read written lectures; refer to the lecture, or ask without it",
                check: .questionForm)
        ]
    }

    /// A question in the lecture's voice: the local model's level-4 pool question opened "In this
    /// section, we'll learn how to handle more than one condition in our programs", copied from
    /// the lecture. A question is asked of a learner who has read the lecture; it does not
    /// announce what a section will teach.
    public static func checkNotLectureVoice(_ field: String, _ text: String) -> [ValidationIssue] {
        let prose = prose(text)
        guard mayMatch(prose, anyOf: Self.lectureVoiceWords), let match = prose.firstMatch(of: Self.lectureVoice) else { return [] }
        return [
            .error(
                "'\(field)' speaks as the lecture does ('\(String(match.output.0))…'): a question is asked of a learner who has read the lecture; ask it without announcing what will be learned",
                check: .questionForm)
        ]
    }

    nonisolated(unsafe) static let lectureVoice =
        /(?i)\b(in this (section|lesson|lecture|chapter|unit|tutorial),? (we|you)('ll| will| are going to| shall)|(we|you)('ll| will| are going to|'re going to| are about to|'re about to) (learn|explore|discover|cover|practi[cs]e)|let's (learn|explore|dive|get started|practi[cs]e))\b/

    /// A question asks the learner something. The local model's accepted pool questions included
    /// stories with no question in them ("Imagine you have a piggy bank … This is how we use values
    /// to store information in our programs.") and a question about the question ("Does this help
    /// explain how the `if` statement works?"). A prompt asks something when a sentence outside
    /// code ends with `?` (or `؟`), holds a blank (`___`), or tells the learner what to do
    /// ("Explain …", "Write …", "In your own words, describe …", "Choose …"; in Arabic "اشرح …",
    /// "قارن …": `LanguageProfile.instructionOpeners`; a language without a profile is not refused);
    /// and it does not ask whether an explanation helped. A true/false statement is not held to this.
    public static func checkAsksSomething(_ field: String, _ text: String, language: String = "en") -> [ValidationIssue] {
        let prose = MarkdownLayout(text).prose()
        if mayMatch(prose, anyOf: ["help", "make sense", "understand", "clear", "with me", "ready"]),
            let meta = matchAtWordStarts(prose[...], Self.asksWhetherItHelped, firstWords: Self.asksWhetherItHelpedFirstWords)
                ?? prose.firstMatch(of: Self.asksWhetherItHelped).map({ prose[$0.range] })
        {
            return [
                .error(
                    "'\(field)' asks whether the explanation helped ('\(String(meta))'), not about the subject: ask what the learner should know or do", check: .questionForm)
            ]
        }
        if !askedQuestions(text).isEmpty || prose.contains("___") { return [] }
        let sentences = prose.split(whereSeparator: { ".!\n".contains($0) }).map { $0.trimmedSpaces }
        // A sentence opens with a capital: a lower-case line goes on from the one before it (the
        // local model's practice stem "… For example:\n\nprint(my_dict['name'])\nwill print the
        // value …" is a statement, not a question opening "will").
        // Without a profile, an instruction cannot be told from a statement: "Expliquez pourquoi
        // …" asks something. Nothing is refused; the run's quality.json says the wording of
        // question-form was not applied (`LanguageBoundCheck`).
        guard let profile = LanguageProfile.for(language) else { return [] }
        if sentences.contains(where: { opensAsInstruction($0, profile) }) { return [] }
        let shown = prose.trimmed.count > 90 ? "…" + prose.trimmed.suffix(80) : Substring(prose.trimmed)
        return [
            .error(
                "'\(field)' asks nothing ('\(shown)'): it tells a story or explains, but holds no question and no instruction; end it with the question the learner answers", check: .questionForm)
        ]
    }

    /// The questions a text asks outside code and math, each with the text after it: a sentence
    /// ending in `?` (or `؟`) that is not rhetorical. Rhetorical: a tag question ("…, right?",
    /// "…, aren't they?"), an exclamation ("…!?"), an aside that needs no answer ("Isn't it fun how
    /// …?", "Ready?", "Guess what?"). The local model ended a level-3 pool question "Isn't it fun
    /// how we can organize our toys using variables? Let's try it out with a simple example!?".
    public static func askedQuestions(_ text: String) -> [(question: String, after: Substring)] {
        // Code and math are kept for quoting, with their sentence marks taken out.
        let prose = ProseScan.removingMarksBeforeQuotes(MarkdownLayout(text).prose(codeSpan: ProseScan.unmarked, formula: ProseScan.unmarked))
        return ProseScan.questionSentences(prose, repeated: true).compactMap { range in
            let sentence = String(prose[range]).trimmed
            let start = range.lowerBound
            let exclaimed = start > prose.startIndex && prose[prose.index(before: start)] == "!"
            guard sentence.count > 1, !exclaimed, !isRhetorical(sentence) else { return nil }
            return (sentence, prose[range.upperBound...])
        }
    }

    /// Whether `rhetorical` matches `sentence`. Its alternatives but the tag question are anchored
    /// at the start, and a tag question holds a comma: without one, only the first position can
    /// match, and the engine is not walked over every other.
    static func isRhetorical(_ sentence: String) -> Bool {
        if !sentence.utf8.contains(UInt8(ascii: ",")) { return sentence.prefixMatch(of: rhetorical) != nil }
        return sentence.firstMatch(of: rhetorical) != nil
    }

    nonisolated(unsafe) static let rhetorical =
        /(?i)(,\s*(right|ok|okay|see|yes|no|isn't it|aren't they|aren't you|isn't that|don't you|doesn't it|didn't it|wasn't it|won't you|can't you|wouldn't it|huh)\s*[?؟]+$|^(isn't|wasn't|aren't|wouldn't) (it|that|this) (fun|cool|great|amazing|easy|neat|nice|interesting|exciting|awesome|simple|wonderful|magic|magical)\b|^(ready|guess what|see|get it|got it|cool|right|remember|you know what|sounds? (fun|good|easy)|easy|simple|fun|what's next|how cool is that)\s*[?؟]+$)/

    /// Words after a stem's last question: a learner reads the question last, then the options or
    /// the answer box. The local model asked "What would you use?" and went on "A number! Just
    /// like the cookies example, we can give this value a name …", answering its own question and
    /// ending on a statement. More than this many words after the last question (outside code
    /// and math) are refused; a short instruction ("Choose one.", "Give your answer as a
    /// fraction.") is not.
    public static let wordsAfterTheQuestion = 12

    /// A stem that goes on after its question (`wordsAfterTheQuestion`). Item-writing practice
    /// puts what a learner needs before the question, and the question last.
    /// Instructions after the question are how the learner is to answer it ("How many ways can you
    /// do it? Use the formula for combinations, and compare the result with …", intro-probability's
    /// bonus question, refused for it before): a stem whose every sentence after the question is
    /// one (`imperative`) is not refused, however long.
    public static func checkQuestionLast(_ field: String, _ text: String, language: String = "en") -> [ValidationIssue] {
        guard let last = askedQuestions(text).last else { return [] }
        let words = last.after.split(whereSeparator: { $0.isWhitespace }).filter { $0.contains(where: { $0.isLetter || $0.isNumber }) }
        guard words.count > wordsAfterTheQuestion else { return [] }
        let sentences = last.after.split(whereSeparator: { ".!\n".contains($0) }).map { $0.trimmedSpaces }.filter { !$0.isEmpty }
        let profile = LanguageProfile.for(language) ?? .english
        if let imperative = Self.answerImperatives[profile.subtag], sentences.allSatisfy({ profile.fold($0).prefixMatch(of: imperative) != nil }) { return [] }
        let tail = words.prefix(12).joined(separator: " ")
        return [
            .error(
                "'\(field)' goes on after its question ('\(last.question.suffix(60))' is followed by '\(tail)…', \(words.count) words): put what the learner needs before the question, end the stem with the question, and leave its answer out",
                check: .questionForm)
        ]
    }

    /// Text about the item instead of for the learner: the local model's explanations read "This
    /// question is designed to check if the student has correctly understood …", "The prompt
    /// asks the learner to explain …, while the reference answer provides …", "To explain this to
    /// a five-year-old: …", and an engagement question's stem "The story should end with the
    /// question that the learner answers". A learner reads every one of these texts. A student in
    /// the subject matter ("A student has learned 12 words …", "if the student's grade is …")
    /// is not the item's audience and passes, and so does "This question tests your knowledge of
    /// …", a line real exam explanations use. "In this explanation, I explain the concept of …"
    /// and "the level-2 question" (python-collections, python-basics) are about the item too.
    /// `instructions`: also a text that tells its writer what it should be ("The explanation
    /// should include all relevant information from the passage …": the local model's accepted
    /// reading-set explanation, its repair's words given back). Exams ask it; a course does not
    /// yet, since its recorded examples' refused answers would be refused for more and their
    /// repairs asked otherwise.
    public static func checkSpeaksToTheLearner(_ field: String, _ text: String, instructions: Bool = false) -> [ValidationIssue] {
        let read = prose(text)
        let found =
            firstMatchInSentences(read, Self.aboutTheItem, words: Self.aboutTheItemWords, firstWords: Self.aboutTheItemFirstWords)
            .map(String.init)
            ?? (instructions && mayMatch(read, anyOf: ["explanation", "feedback"]) ? read.firstMatch(of: Self.instructionsToTheWriter).map { String($0.output.0) } : nil)
        guard let match = found else { return [] }
        return [
            .error(
                "'\(field)' speaks about the question instead of to the learner ('\(match)'): the learner reads it; write to them about the subject, not about the question, its parts or its audience",
                check: .questionForm)
        ]
    }

    nonisolated(unsafe) static let instructionsToTheWriter = /(?i)\b(the|this|each|every) (explanation|feedback)s? (should|must|needs? to|has to|have to)\b/

    /// Whether `text` may match a case-insensitive pattern every match of which holds one of
    /// `words` (lowercase ASCII): checked on the lowercased text (a long s read as the `s` it folds
    /// to), so a text with none of them is passed over without running the pattern. The phrase
    /// patterns tried every start position of every text of every answer: a third of checking's CPU.
    /// The words are looked for among the lowercased text's bytes (each word is ASCII, so a match
    /// of its bytes is a match of its characters); Foundation's `contains` bridged every text
    /// through NSString, a twentieth of a large run's CPU.
    static func mayMatch(_ text: String, anyOf words: [String]) -> Bool {
        var lower = text.lowercased()
        if lower.utf8.contains(0xC5) && lower.unicodeScalars.contains("ſ") { lower = String(lower.unicodeScalars.map { $0 == "ſ" ? "s" : Character($0) }) }
        return lower.withUTF8 { haystack in words.contains { ProseScan.contains(haystack, $0) } }
    }

    /// The first match of `pattern` in `text`, for a pattern no match of which holds `.`, `!`, `?`
    /// or a line break and every match of which holds one of `words` (as `mayMatch` reads them):
    /// looked for only in the sentences that hold one of them, so the pattern no longer tries
    /// every position of every sentence of a feedback that names "the question" once. A match lies
    /// inside one sentence, and a sentence is cut only where its end is a word boundary whatever
    /// follows (Unicode's word boundaries, `\b`'s, join "e.g" and "3.5" across a full stop, not
    /// across a full stop before white space, a `!`, a `?` or a line break): the match is the
    /// one the whole text gives.
    ///
    /// `firstWords` (lowercase ASCII), when given, are the words a match can begin with: in a
    /// sentence of ASCII, the pattern is then tried only where one of them begins a word, instead
    /// of at every position (Swift's regex engine made this a sixth of checking's CPU).
    static func firstMatchInSentences<Output>(
        _ text: String, _ pattern: Regex<Output>, words: [String], firstWords: [String: [String]]? = nil
    ) -> Substring? {
        guard mayMatch(text, anyOf: words) else { return nil }
        var start = text.startIndex
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            let next = text.index(after: index)
            let ends = character == "!" || character == "?" || character == "\n" || (character == "." && (next == text.endIndex || text[next].isWhitespace))
            if ends || next == text.endIndex {
                let sentence = text[start..<(ends ? index : next)]
                if mayMatch(String(sentence), anyOf: words) {
                    let match: Substring?
                    if let firstWords, let atWordStarts = matchAtWordStarts(sentence, pattern, firstWords: firstWords) {
                        match = atWordStarts
                    } else {
                        match = sentence.firstMatch(of: pattern).map { text[$0.range] }
                    }
                    if let match { return match }
                }
                start = next
            }
            index = next
        }
        return nil
    }

    /// `sentence.firstMatch(of: pattern)` for a pattern whose matches start, at a word boundary,
    /// with one of `firstWords`: tried only at the starts of those words (`.some(nil)` when none
    /// matches). Nil, for the caller to run the pattern itself, for a sentence outside ASCII or
    /// with a word start the boundary rules could join to the word before (after `'`, `.`, `:`
    /// or `_`).
    static func matchAtWordStarts<Output>(_ sentence: Substring, _ pattern: Regex<Output>, firstWords: [String: [String]]) -> Substring?? {
        let utf8 = sentence.utf8
        guard utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        func isLetter(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }
        func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        var previous: UInt8?
        var i = utf8.startIndex
        while i < utf8.endIndex {
            let b = utf8[i]
            guard isLetter(b), previous.map({ !isLetter($0) && !isDigit($0) }) ?? true else {
                previous = b
                i = utf8.index(after: i)
                continue
            }
            if let p = previous, p == 0x27 || p == 0x2E || p == 0x3A || p == 0x5F { return nil }
            var end = i
            var word: [UInt8] = []
            while end < utf8.endIndex, isLetter(utf8[end]) {
                word.append(utf8[end] | 0x20)
                end = utf8.index(after: end)
            }
            if let seconds = firstWords[String(decoding: word, as: UTF8.self)], seconds.isEmpty || followedBy(seconds, at: end),
                let match = sentence[i...].prefixMatch(of: pattern)
            {
                return .some(sentence[match.range])
            }
            previous = utf8[utf8.index(before: end)]
            i = end
        }
        return .some(nil)

        /// Whether a space and then a word starting with one of `seconds` come at `position`.
        func followedBy(_ seconds: [String], at position: String.UTF8View.Index) -> Bool {
            guard position < utf8.endIndex, utf8[position] == 0x20 else { return false }
            let rest = utf8[utf8.index(after: position)...]
            return seconds.contains { second in
                rest.count >= second.utf8.count && zip(rest, second.utf8).allSatisfy { ($0 | 0x20) == $1 }
            }
        }
    }

    /// A word every match of `aboutTheItem` holds.
    static let aboutTheItemWords = [
        "learner", "designed", "meant", "question", "explanation", "statement", "feedback", "level", "children", "reference", "prompt", "stem", "year",
        "student",
    ]
    /// The words a match of `aboutTheItem` begins with (its alternatives' first words), each with
    /// the words one of which follows it after a space (their starts; none: any).
    static let aboutTheItemFirstWords: [String: [String]] = {
        let item = ["learner", "question", "exercise", "item", "explanation", "statement", "feedback", "level", "reference", "prompt", "stem", "student"]
        var words: [String: [String]] = [
            "the": item, "this": ["question", "exercise", "item", "explanation", "level", "reference"], "learners": [], "in": ["this"],
            "young": ["children"], "children": ["can"], "a": ["reference"], "to": ["a"], "for": ["a"],
        ]
        for verb in ["explained", "stated", "described"] { words[verb] = ["in"] }
        for verb in ["check", "checks", "test", "tests", "see", "assess", "assesses"] { words[verb] = ["whether", "if"] }
        return words
    }()
    /// A word every match of `missingMedium` holds.
    static let missingMediumWords = ["video", "clip", "screencast", "slide", "instructor", "presenter", "narrator", "lecturer"]
    /// A word every match of `lectureVoice` holds.
    static let lectureVoiceWords = [
        "section", "lesson", "lecture", "chapter", "unit", "tutorial", "learn", "explore", "discover", "cover", "practi", "dive", "get started",
    ]

    nonisolated(unsafe) static let aboutTheItem =
        /(?i)\b(the learner(s|'s|’s|s')?|learners|(this|the) (question|exercise|item) (is designed|was designed|is meant)|(the|this) (question|explanation) (asks|is asking|gives|shows|explains|also explains|says|tells)|the statement correctly (explains|describes|uses)|in this (explanation|feedback)|(explained|stated|described) in (the|this) (feedback|explanation)|the feedback (says|explains|states)|(this|the) level[- ]\d question|(young )?children can understand|(the|a|this) reference answer|the (prompt|stem) (asks|is asking|says|gives|states|provides|contains)|(to|for) a (five|5|six|6)[- ]year[- ]old|the students? (should|must|needs? to|is expected to|are expected to|has correctly|have correctly|has properly)|(checks?|tests?|see|assess(es)?) (whether|if) the students? (has|have|can|knows?|understands?)\b)\b/

    /// What every text of a course question is held to, beside its prompt's own rules: code in a
    /// fenced block, and written to the learner (`checkCodeInABlock`, `checkSpeaksToTheLearner`);
    /// the texts after the prompt (explanation, reference answer) finished, as the prompt is
    /// (`checkFinished`; the prompt's own rules hold it to that): the local model's reference
    /// answer ended "For example, `{". Fields are named as messages name them.
    /// The feedback of each option as a field of `checkLearnerTexts` ("wrong_answers[2]'s
    /// feedback"); `labels` name the options as `checkMultipleChoice`'s do.
    public static func feedbackFields(_ options: [Choice]?, labels: [String]?) -> [(name: String, text: String)] {
        guard let options else { return [] }
        let labels = labels.flatMap { $0.count == options.count ? $0 : nil } ?? options.indices.map { "option \($0 + 1)" }
        return options.indices.filter { !options[$0].feedback.trimmed.isEmpty }.map { ("\(labels[$0])'s feedback", options[$0].feedback) }
    }

    public static func checkLearnerTexts(prompt: (name: String, text: String), after: [(name: String, text: String)]) -> [ValidationIssue] {
        checkLearnerText(prompt.name, prompt.text, afterPrompt: false)
            + after.flatMap { checkLearnerText($0.name, $0.text, afterPrompt: true) + checkNotTheQuestionAgain($0.name, $0.text, prompt: prompt.text) }
    }

    /// A text shown after the question does not write the question out again: the local model's
    /// intro-probability bonus explanation was its three-question prompt word for word, then its
    /// reference answer. Prompts of 40 characters or more (letters and digits), compared by their
    /// words, standing in the text as sentences of their own: a lead-in that carries the question's
    /// words into a sentence of its own ("To calculate the number of ways to choose 4 students from
    /// a class of 10, we use …" after "Calculate the number of ways …") says what it adds.
    public static func checkNotTheQuestionAgain(_ field: String, _ text: String, prompt: String) -> [ValidationIssue] {
        func words(_ text: String) -> [Substring] { text.split(whereSeparator: { !$0.isLetter && !$0.isNumber }) }
        let question = words(prompt).map { $0.lowercased() }
        guard question.joined(separator: " ").count >= 40 else { return [] }
        let found = words(text)
        let tokens = found.map { $0.lowercased() }
        // What stands between sentences: spaces, quotes, brackets, math and Markdown marks.
        let between = CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: "\"'“”‘’«»()[]*_$`"))
        func bounded(_ characters: Substring, fromEnd: Bool) -> Bool {
            let rest = fromEnd ? String(characters.reversed()) : String(characters)
            guard let mark = rest.unicodeScalars.first(where: { !between.contains($0) }) else { return true }
            return ".?!:;".unicodeScalars.contains(mark) || "؟。".unicodeScalars.contains(mark)
        }
        var start = 0
        while start + question.count <= tokens.count {
            if Array(tokens[start..<start + question.count]) == question {
                let first = found[start]
                let last = found[start + question.count - 1]
                if bounded(text[text.startIndex..<first.startIndex], fromEnd: true), bounded(text[last.endIndex...], fromEnd: false) {
                    return [
                        .error(
                            "'\(field)' repeats the question word for word: the learner has just read it; say what it adds instead", check: .questionForm)
                    ]
                }
            }
            start += 1
        }
        return []
    }

    /// One field of `checkLearnerTexts`: `afterPrompt` for a text after the prompt.
    public static func checkLearnerText(_ field: String, _ text: String, afterPrompt: Bool) -> [ValidationIssue] {
        checkCodeInABlock(field, text) + checkSpeaksToTheLearner(field, text) + (afterPrompt ? checkFinished(field, text, finish: "finish it") : [])
    }

    /// The words a match of `asksWhetherItHelped` begins with, and what follows each.
    static let asksWhetherItHelpedFirstWords: [String: [String]] = [
        "does": ["this", "that", "it", "these"], "did": ["this", "that", "it", "these"], "do": ["this", "that", "it", "these", "you"],
        "is": ["this", "that", "it"], "was": ["this", "that", "it"], "are": ["you"],
    ]
    nonisolated(unsafe) static let asksWhetherItHelped =
        /(?i)\b((does|did|do) (this|that|it|these) (help|make sense)|do you understand|(is|was) (this|that|it) clear|are you (with me|ready))\b/
    /// Whether `sentence` tells the learner what to do in `profile`'s language: it opens, after at
    /// most a short lead-in and a comma ("In your own words, describe …"), with one of the
    /// profile's `instructionOpeners`; with a capital letter where sentences have one.
    static func opensAsInstruction(_ sentence: String, _ profile: LanguageProfile) -> Bool {
        if profile.capitalizesSentences && sentence.first?.isUppercase != true { return false }
        guard let pattern = instructions[profile.subtag] else { return false }
        // Anchored at the start: only the first position can match.
        return profile.fold(sentence).prefixMatch(of: pattern) != nil
    }

    /// Each profile's `instructionOpeners` as one pattern, by subtag.
    nonisolated(unsafe) static let instructions: [String: Regex<AnyRegexOutput>] = patterns { profile in
        let commas = String(profile.commas.sorted())
        return "(?i)^(?:[^\(commas)]{0,60}[\(commas)]\\s*)?(\(profile.instructionOpeners.joined(separator: "|")))\\b"
    }
    /// A sentence that tells the learner how to answer: it opens with one of the profile's
    /// `answerImperatives`. By subtag.
    nonisolated(unsafe) static let answerImperatives: [String: Regex<AnyRegexOutput>] = patterns { profile in
        "(?i)^(\(profile.answerImperatives.joined(separator: "|")))\\b"
    }

    /// A pattern per profile, compiled once.
    private static func patterns(_ source: (LanguageProfile) -> String) -> [String: Regex<AnyRegexOutput>] {
        var patterns: [String: Regex<AnyRegexOutput>] = [:]
        for profile in LanguageProfile.all { patterns[profile.subtag] = try? Regex(source(profile)) }
        return patterns
    }

    /// Python written as prose: a header line (`def …:`, `if …:`, `for …:` …) outside a code
    /// block with a more indented line after it. Markdown joins such lines into one paragraph, and
    /// the learner reads `def check_car_color(car_color): if car_color == 'red': print(…)` — the
    /// local model's level-2 pool question and its reference answer.
    public static func checkCodeInABlock(_ field: String, _ text: String) -> [ValidationIssue] {
        // A fence sharing its line with code or prose: python-basics' level-3 pool question asked
        // "What will happen if you execute this code snippet? ```python myName = 'Alice'
        // print(myName) ```?", which Markdown shows as one line of inline code.
        if text.utf8.contains(UInt8(ascii: "`")),
            let line = text.components(separatedBy: "\n").first(where: { $0.contains("```") && $0.trimmed.firstMatch(of: CompiledPatterns.fenceLine) == nil })
        {
            return [
                .error(
                    "'\(field)' shows code outside a code block (a fence sharing its line: '\(line.trimmed.prefix(60))'): Markdown shows it as inline code; put each ``` on a line of its own, the code between them",
                    check: .questionForm)
            ]
        }
        // Code on lines of its own needs two lines.
        guard text.utf8.contains(UInt8(ascii: "\n")) || text.utf8.contains(UInt8(ascii: "\r")) else { return [] }
        let lines = MarkdownLayout(text).prose().components(separatedBy: "\n")
        func refused(_ index: Int) -> [ValidationIssue] {
            [
                .error(
                    "'\(field)' shows code outside a code block (line \(index + 1): '\(lines[index].trimmed.prefix(60))'): Markdown joins its lines into one paragraph; put the code in a ```python fence",
                    check: .questionForm)
            ]
        }
        for (index, line) in lines.enumerated() where index + 1 < lines.count {
            let indent = line.prefix(while: { $0 == " " }).count
            guard indent < 4, !line.contains("`") else { continue }
            let next = lines[index + 1]
            if line.trimmed.hasSuffix(":"), line.firstMatch(of: Self.pythonHeader) != nil, !next.trimmed.isEmpty, next.prefix(while: { $0 == " " || $0 == "\t" }).count > indent {
                return refused(index)
            }
            // Two statements on lines of their own ("myName = 'Alice'" then "print(myName)"):
            // the learner reads "myName = 'Alice' print(myName)".
            if next.prefix(while: { $0 == " " }).count < 4, !next.contains("`"), mayBeStatement(line), mayBeStatement(next), line.firstMatch(of: Self.pythonStatement) != nil,
                next.firstMatch(of: Self.pythonStatement) != nil
            {
                return refused(index)
            }
        }
        return []
    }

    nonisolated(unsafe) static let pythonHeader = /^\s*(def|class|if|elif|else|for|while|try|except|finally|with)\b.*:\s*$/
    /// A line that is one Python statement: an assignment (`x = 5`, `total += 1`, not `==`), a
    /// call (`print(x)`, `scores.append(3)`; not an equation such as `P(A) = P(B)`), or `return`,
    /// `import`, `pass`, `break`, `continue`.
    /// Whether a line may match `pythonStatement`: each of its forms holds `=` or `(`, or opens
    /// with one of its keywords.
    static func mayBeStatement(_ line: String) -> Bool {
        if line.utf8.contains(where: { $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "(") }) { return true }
        let opening = line.trimmed
        return ["return", "import", "pass", "break", "continue", "from"].contains { opening.hasPrefix($0) }
    }
    nonisolated(unsafe) static let pythonStatement =
        /^\s*([A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\]|\.[A-Za-z_][A-Za-z0-9_]*)*\s*(=|\+=|-=|\*=|\/=)\s*[^=\s].*|(?![^=]*[^=!<>]=[^=])[A-Za-z_][A-Za-z0-9_.]*\(.*\)|(return|import|pass|break|continue)\b.*|from [A-Za-z_.]+ import .*)\s*$/

    nonisolated(unsafe) static let missingMedium =
        /(?i)\b((in|from|during|throughout|watch|watching|watched) (this|the|our|today's|that) (video|clip|screencast|video lesson|slides?)|as (shown|seen|you saw|we saw) in the (video|clip|screencast|slides?)|the (instructor|presenter|narrator|lecturer) (showed|shows|has shown|demonstrated|demonstrates|explained|explains|said|says|mentioned|mentions|used|uses|wrote|writes))\b/

    /// A question that stops in the middle of a sentence: its last character is a letter, a digit
    /// or an opening mark although an earlier sentence ended properly. The local model's bonus
    /// question ended "… gives the value 5 to a variable named". A question of one sentence without
    /// a final mark ("Calculate 5 + 3") is not refused; code, math and closing marks end a text,
    /// and so does an equation's result ("E(X) = 0.6 + 0.8 = 1.4": the local model's
    /// intro-probability explanations and reference answers, refused for it before).
    public static func checkFinished(_ field: String, _ text: String, finish: String = "finish the question") -> [ValidationIssue] {
        let trimmed = text.trimmed
        // A text that ends with a code block ends with its code; one cut off inside a fence that
        // never closes is cut off.
        let layout = MarkdownLayout(trimmed)
        let endsWithCode = layout.codeBlocks.last.map { $0.lineRange.contains(layout.lineStarts.count) && ($0.closed || !$0.fenced) } ?? false
        guard let last = trimmed.last, !endsWithCode else { return [] }
        // Cut off in inline code: python-collections' feedback ended "you would use the key `" and
        // a practice stem "… which is `'Alice" (its JSON broke at the quote of `my_dict["name"]`).
        if layout.prose().filter({ $0 == "`" }).count % 2 == 1 {
            return [.error("'\(field)' stops in the middle of a sentence ('…\(trimmed.suffix(50))'): \(finish)", check: .questionForm)]
        }
        if last.isNumber, trimmed.firstMatch(of: CompiledPatterns.endsWithAValue) != nil { return [] }
        // A straight quote may close as well as open: not counted.
        let open = last.isLetter || last.isNumber || ",;-–—([{“‘«".contains(last)
        guard open else { return [] }
        let body = MarkdownLayout(String(trimmed.dropLast())).prose(codeBlocks: .kept, codeSpan: { _ in " " }, formula: { _ in " " })
        guard body.contains(where: { ".?!؟".contains($0) }) else { return [] }
        let tail = trimmed.suffix(50)
        return [.error("'\(field)' stops in the middle of a sentence ('…\(tail)'): \(finish)", check: .questionForm)]
    }

    public static func checkLength(_ field: String, _ text: String, _ range: ClosedRange<Int>) -> [ValidationIssue] {
        let count = text.trimmed.count
        if count < range.lowerBound { return [.error("'\(field)' is too short (\(count) characters; at least \(range.lowerBound))", check: .stageRules)] }
        if count > range.upperBound { return [.error("'\(field)' is too long (\(count) characters; at most \(range.upperBound))", check: .stageRules)] }
        return []
    }
}
