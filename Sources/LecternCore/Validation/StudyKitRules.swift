import Foundation

/// Checks on flashcards: lengths, the shape of each kind, grounding in the lecture they review,
/// no repeated fronts or backs.
public enum FlashcardRules {
    public static let frontLimit = 120
    public static let backLimit = 300
    /// The longest cloze sentence a grammar-constrained model may write (the response schema's
    /// pattern): one that long was cut off by the bound, not ended.
    public static let clozeSentenceLimit = 119
    /// What a cloze's front shows in place of the blanked span.
    public static let blank = "____"

    /// A card as written, with the name of the field it came from (for messages).
    public struct Draft: Sendable {
        public var label: String
        public var card: Flashcard

        public init(label: String, card: Flashcard) {
            self.label = label
            self.card = card
        }
    }

    /// The front of a cloze: `sentence` with the first whole-word occurrence of `span` blanked;
    /// nil when `span` is not there as whole words.
    public static func clozeFront(sentence: String, span: String) -> String? {
        guard let range = wholeWordRanges(of: span, in: sentence).first else { return nil }
        return sentence.replacingCharacters(in: range, with: blank)
    }

    /// Where `span` occurs in `text` as whole words, ignoring letter case.
    public static func wholeWordRanges(of span: String, in text: String) -> [Range<String.Index>] {
        let needle = span.trimmed
        guard !needle.isEmpty else { return [] }
        var found: [Range<String.Index>] = []
        var start = text.startIndex
        while let range = text.range(of: needle, options: [.caseInsensitive], range: start..<text.endIndex) {
            let before = range.lowerBound == text.startIndex ? nil : text[text.index(before: range.lowerBound)]
            let after = range.upperBound == text.endIndex ? nil : text[range.upperBound]
            func isWordCharacter(_ c: Character?) -> Bool { c.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false }
            if !isWordCharacter(before) && !isWordCharacter(after) { found.append(range) }
            start = range.upperBound
        }
        return found
    }

    /// The share of `text`'s content words that occur in `source` (1 for a text without any).
    public static func groundedShare(_ text: String, in sourceWords: Set<String>) -> Double {
        let words = NearDuplicate.contentWords(text)
        guard !words.isEmpty else { return 1 }
        return Double(words.filter(sourceWords.contains).count) / Double(words.count)
    }

    /// A lecture's words, read once for all of a topic's cards: its content words
    /// (`NearDuplicate.contentWords`), its lightly stemmed words (`plainWords`) and its
    /// normalized text.
    public struct Lecture: Sendable {
        public let contentWords: Set<String>
        let plainWords: Set<String>
        let normalized: String

        public init(_ markdown: String, language: String = "en") {
            contentWords = Set(NearDuplicate.contentWords(markdown))
            plainWords = FlashcardRules.plainWords(markdown)
            normalized = TextKey.normalize(markdown, language: language)
        }
    }

    /// Checks one card: its shape, and with `lecture` its grounding in it (its term or blank
    /// found there, most of its back's key words too). Without a lecture (`lectern check` reads
    /// course.json alone) only the shape is checked.
    public static func check(_ draft: Draft, lecture: Lecture?, language: String = "en") -> [ValidationIssue] {
        let card = draft.card
        let label = draft.label
        var issues: [ValidationIssue] = []
        let front = card.front.trimmed
        let back = card.back.trimmed
        if front.isEmpty { issues.append(.error("\(label) has an empty front", check: .stageRules)) }
        if back.isEmpty { issues.append(.error("\(label) has an empty back", check: .stageRules)) }
        if front.count > frontLimit { issues.append(.error("\(label)'s front is \(front.count) characters; at most \(frontLimit)", check: .stageRules)) }
        if back.count > backLimit { issues.append(.error("\(label)'s back is \(back.count) characters; at most \(backLimit)", check: .stageRules)) }
        guard issues.isEmpty else { return issues }
        let backKey = TextKey.normalize(back, language: language)
        switch card.kind {
        case .term:
            if TextKey.endsWithQuestionMark(front, language: language) {
                issues.append(.error("\(label): '\(front)' is a question; a term card's front is the term itself (a word or short phrase)", check: .stageRules))
            } else if front.split(whereSeparator: \.isWhitespace).count > 6 {
                issues.append(.error("\(label): the term '\(front)' is longer than six words; name the term alone and put what it means in the definition", check: .stageRules))
            }
            if back.count < 10 { issues.append(.error("\(label): the definition of '\(front)' ('\(back)') is too short to teach anything", check: .stageRules)) }
            let termWords = Set(NearDuplicate.contentWords(front))
            let definitionWords = NearDuplicate.contentWords(back).filter { !termWords.contains($0) }
            if back.count >= 10 && definitionWords.count < 2 {
                issues.append(.error("\(label): the definition of '\(front)' only repeats the term; say what it is or does", check: .stageRules))
            }
            if let lecture, !occurs(front, in: lecture, language: language) {
                issues.append(.error("\(label): the term '\(front)' does not occur in the lecture; make cards only of what the lecture teaches", check: .stageRules))
            }
        case .question:
            if !TextKey.endsWithQuestionMark(front, language: language) {
                issues.append(.error("\(label): the question '\(front)' does not end with a question mark", check: .stageRules))
            }
            let frontKey = TextKey.normalize(front, language: language)
            if backKey == frontKey {
                issues.append(.error("\(label): the answer repeats the question", check: .stageRules))
            } else if backKey.count >= 12 && frontKey.contains(backKey) {
                issues.append(.error("\(label): the question gives its answer away ('\(back)')", check: .stageRules))
            }
        case .cloze:
            let span = (card.cloze ?? "").trimmed
            let spanWords = span.split(whereSeparator: \.isWhitespace).count
            if span.isEmpty {
                issues.append(.error("\(label) has no blank: name the word or phrase of the sentence to hide", check: .stageRules))
            } else if spanWords > 4 {
                issues.append(.error("\(label): the blank '\(span)' is \(spanWords) words; hide one key word or a short phrase (at most four words)", check: .stageRules))
            } else {
                let places = wholeWordRanges(of: span, in: back).count
                if places == 0 {
                    issues.append(.error("\(label): the blank '\(span)' is not a word or phrase of the sentence '\(back)'", check: .stageRules))
                } else if places == 1 && clozeFront(sentence: back, span: span) != front {
                    issues.append(.error("\(label): the front '\(front)' is not the sentence with '\(span)' blanked", check: .stageRules))
                } else if places > 1 {
                    issues.append(.error("\(label): the blank '\(span)' occurs \(places) times in the sentence; the learner could not tell which is hidden", check: .stageRules))
                }
                // A blank of letters must hold a content word; one of symbols (`[]`, `==`) is code.
                if span.contains(where: \.isLetter) && NearDuplicate.contentWords(span).isEmpty && !span.contains(where: \.isNumber) {
                    issues.append(.error("\(label): the blank '\(span)' is a filler word; hide a key term of the sentence", check: .stageRules))
                } else if let lecture, !occurs(span, in: lecture, language: language) {
                    issues.append(.error("\(label): the blank '\(span)' does not occur in the lecture; blank a term the lecture teaches", check: .stageRules))
                }
            }
            if back.count >= clozeSentenceLimit || back.hasSuffix(" .") {
                issues.append(.error("\(label): the sentence '\(back)' is cut off at the length limit; write one short sentence", check: .stageRules))
            }
            if TextKey.endsWithQuestionMark(back, language: language) || PracticeRules.opensAsQuestion(back, language: language) {
                issues.append(.error("\(label): '\(back)' is a question; a cloze is a statement with a key word hidden", check: .stageRules))
            }
            if back.split(whereSeparator: \.isWhitespace).count < 5 {
                issues.append(.error("\(label): the sentence '\(back)' is too short for a cloze; write a whole sentence of at least five words", check: .stageRules))
            }
        }
        // The back's key terms occur in the lecture.
        if let lecture, issues.isEmpty, groundedShare(back, in: lecture.contentWords) < 0.5 {
            issues.append(
                .error(
                    card.kind == .cloze
                        ? "\(label): most of the sentence's key words are not in the lecture; take the sentence from what the lecture says"
                        : "\(label): most of the back's key words ('\(back.prefix(80))') are not in the lecture; write cards that review what the lecture says", check: .stageRules))
        }
        return issues
    }

    /// Whether a term or span occurs in the lecture: its text does, or each of its words does
    /// (stop words too, so "while loop" is not found in a lecture on for loops; a plural `s`
    /// aside, so "lists" is found beside "list").
    static func occurs(_ term: String, in lecture: Lecture, language: String) -> Bool {
        if lecture.normalized.contains(TextKey.normalize(term, language: language)) { return true }
        let termWords = plainWords(term)
        return !termWords.isEmpty && termWords.isSubset(of: lecture.plainWords)
    }

    /// Lowercased words, lightly stemmed (`stem`).
    static func plainWords(_ text: String) -> Set<String> {
        Set(text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map { stem(String($0)) })
    }

    /// A light English stem, enough to find a term in the lecture in another form: "dictionaries"
    /// and "dictionary", "looking" and "look", "creating" and "create", "lists" and "list".
    public static func stem(_ word: String) -> String {
        var w = word
        if w.count > 4 && w.hasSuffix("ies") {
            w = String(w.dropLast(3)) + "y"
        } else if w.count > 5 && w.hasSuffix("ing") {
            w = String(w.dropLast(3))
        } else if w.count > 4 && w.hasSuffix("ed") && !w.hasSuffix("eed") {
            w = String(w.dropLast(2))
        } else if w.count > 3 && w.hasSuffix("s") && !w.hasSuffix("ss") && !w.hasSuffix("us") {
            w = String(w.dropLast())
        }
        if w.count > 4 && w.hasSuffix("e") { w = String(w.dropLast()) }
        return w
    }

    /// Checks a topic's cards as the stage keeps them, all of them needed: each card, then
    /// repeats among fronts and among backs (`select`'s problems).
    public static func check(_ drafts: [Draft], lecture: String, language: String = "en") -> [ValidationIssue] {
        let needed = Dictionary(grouping: drafts, by: \.card.kind).mapValues(\.count)
        return select(drafts, needed: needed, lecture: lecture, language: language).issues
    }

    /// The cards a topic keeps from an answer with spares: of each kind, the first `needed`
    /// cards that pass their own checks and do not ask or answer what a kept card does. Questions
    /// and clozes are chosen first: the model often answers a question with a term's definition,
    /// and terms have more spares. Nil, with the refused cards' problems and what is missing,
    /// when a kind falls short.
    public static func select(
        _ drafts: [Draft], needed: [Flashcard.Kind: Int], lecture: String, language: String = "en"
    ) -> (cards: [Flashcard]?, issues: [ValidationIssue]) {
        let vocabulary = Lecture(lecture, language: language)
        var kept: [Flashcard.Kind: [Draft]] = [:]
        var issues: [ValidationIssue] = []
        var fronts: [String: String] = [:]
        var backs: [String: String] = [:]
        let order: [Flashcard.Kind] = [.question, .cloze, .term]
        for draft in order.flatMap({ kind in drafts.filter { $0.card.kind == kind } }) {
            let kind = draft.card.kind
            guard (kept[kind]?.count ?? 0) < needed[kind, default: 0] else { continue }
            let own = check(draft, lecture: vocabulary, language: language)
            if !own.isEmpty {
                issues += own
                continue
            }
            let front = frontKey(draft.card, language: language)
            let back = TextKey.normalize(draft.card.back, language: language)
            if let first = fronts[front] {
                issues.append(.error("\(first) and \(draft.label) ask the same ('\(draft.card.front)'); every card must review something else", check: .stageRules))
                continue
            }
            if kind != .cloze, let first = backs[back] {
                issues.append(.error("\(first) and \(draft.label) have the same answer ('\(draft.card.back)'); every card must review something else", check: .stageRules))
                continue
            }
            fronts[front] = draft.label
            if kind != .cloze { backs[back] = draft.label }
            kept[kind, default: []].append(draft)
        }
        var short: [ValidationIssue] = []
        for kind in Flashcard.Kind.allCases where (kept[kind]?.count ?? 0) < needed[kind, default: 0] {
            short.append(.error("only \(kept[kind]?.count ?? 0) of the \(needed[kind, default: 0]) \(kind.rawValue) cards needed are usable; mend the cards above", check: .stageRules))
        }
        guard short.isEmpty else { return (nil, issues + short) }
        return (Flashcard.Kind.allCases.flatMap { kept[$0] ?? [] }.map(\.card), [])
    }

    /// The key a card's front is compared by across a course: a card repeats another when they
    /// ask the same (a cloze by its sentence).
    public static func frontKey(_ card: Flashcard, language: String = "en") -> String {
        TextKey.normalize(card.kind == .cloze ? card.back : card.front, language: language)
    }
}

/// Checks on practice questions (Jeeva §4.1).
public enum PracticeRules {
    public static let trueText = "True"
    public static let falseText = "False"
    /// The longest true/false statement a grammar-constrained model may write (the response
    /// schema's pattern): one that long was cut off by the bound, not ended.
    public static let statementLimit = 200

    /// Checks one practice question; `labels` name a multiple-choice question's options as the
    /// model wrote them.
    public static func check(_ question: PracticeQuestion, optionLabels: [String]? = nil, language: String = "en") -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        issues += QuestionRules.checkLength("explanation", question.explanation, 20...2_000)
        issues += QuestionRules.checkAskedOfTheLearner("prompt", question.prompt, asks: question.format == .multipleChoice, language: language)
        issues += QuestionRules.checkLearnerTexts(
            prompt: ("prompt", question.prompt), after: [("explanation", question.explanation)] + QuestionRules.feedbackFields(question.options, labels: optionLabels))
        issues += QuestionRules.checkNoMissingMedium("explanation", question.explanation)
        switch question.format {
        case .multipleChoice:
            issues += QuestionRules.checkLength("prompt", question.prompt, 10...1_000)
            issues += QuestionRules.checkNoHeading("prompt", question.prompt)
            issues += QuestionRules.checkOneQuestion("prompt", question.prompt)
            issues += QuestionRules.checkFinished("prompt", question.prompt)
            issues += QuestionRules.checkMultipleChoice(
                prompt: question.prompt, options: question.options, labels: optionLabels, optionCount: QuestionRules.optionCount, language: language,
                explanation: question.explanation)
        case .trueFalse:
            issues += QuestionRules.checkLength("statement", question.prompt, 15...statementLimit)
            if question.prompt.count >= statementLimit || question.prompt.hasSuffix(" .") {
                issues.append(.error("the statement is cut off at the length limit ('…\(question.prompt.suffix(40))'); write one short sentence", check: .stageRules))
            }
            if TextKey.endsWithQuestionMark(question.prompt, language: language) || opensAsQuestion(question.prompt, language: language) {
                issues.append(.error("the statement '\(question.prompt)' is a question; write a statement the learner judges true or false", check: .stageRules))
            }
            let texts = question.options.map(\.text)
            if texts != [trueText, falseText] || question.options.filter(\.correct).count != 1 {
                issues.append(.error("a true/false question has the options True and False, exactly one of them correct", check: .stageRules))
            }
            let feedback = question.options.map { TextKey.normalize($0.feedback, language: language) }
            if feedback.contains(where: { $0.count < 3 }) {
                issues.append(.error("both answers need feedback: 'feedback_if_true' for a learner who answers True, 'feedback_if_false' for False", check: .stageRules))
            } else if feedback.count == 2 && feedback[0] == feedback[1] {
                issues.append(.error("the feedback for True and for False is the same; say why each answer is right or wrong", check: .stageRules))
            }
        }
        // What the question asserts must be true arithmetic (wrong options, and a statement keyed
        // False, are wrong on purpose).
        let asserted =
            [question.explanation] + question.options.filter(\.correct).flatMap { [$0.text, $0.feedback] }
            + (question.format == .multipleChoice || question.options.first?.correct == true ? [question.prompt] : [])
        for claim in asserted.flatMap(ArithmeticClaims.check) {
            issues.append(.error("false arithmetic: \(claim.message)", check: .stageRules))
        }
        return issues
    }

    /// Whether a text opens as a question does ("What is …", "Can you …": the profile's
    /// `questionOpeners`; none in Arabic, nor without a profile). A grammar that forbids the
    /// question mark still lets a small model write "What is the difference … ." as its statement.
    public static func opensAsQuestion(_ text: String, language: String = "en") -> Bool {
        guard let profile = LanguageProfile.for(language), let first = text.split(whereSeparator: { !$0.isLetter }).first else { return false }
        return profile.questionOpeners.contains(first.lowercased())
    }

    /// The first of `asked` that `prompt` repeats (a near duplicate, or one containing the other).
    /// Questions asking for the way to do something are compared as "how" questions (`QuestionRules.howForm`).
    public static func repeated(_ prompt: String, in asked: [String], language: String = "en") -> String? {
        let prompt = QuestionRules.howForm(prompt)
        let key = TextKey.normalize(prompt, language: language)
        return asked.first { asked in
            let other = QuestionRules.howForm(asked)
            let otherKey = TextKey.normalize(other, language: language)
            if key == otherKey { return true }
            if min(key.count, otherKey.count) >= 20 && (key.contains(otherKey) || otherKey.contains(key)) { return true }
            return NearDuplicate.areDuplicates(prompt, other)
        }
    }
}
