import Foundation
import Testing

@testable import LecternCore

/// The byte-level fast paths of the checks' text helpers (issue 49) give what the definitions
/// they replace gave — written out here as they were — on every string of every recorded answer
/// (`ProseScanTests.texts`) and on edge cases outside ASCII.
struct ByteFastPathTests {
    static let edgeCases = [
        "", " ", "\t", "\n", "  padded  ", "\u{00A0}no-break\u{00A0}", "\u{3000}ideographic\u{3000}", "line\r\n", "\r\nCRLF first", " \u{301}combining",
        "ends with mark\u{301}", "tab\tinside", "x ?", "? x", "«Quoi ?»", "ما هذا ؟", "ſet of words", "The Kelvin \u{212A} sign", "multiple   inner \n\n spaces",
        "über naïve café", "snake_case_word and C3PO2", "\u{2028}line separator\u{2029}", "\u{1F600} emoji \u{1F600}", "\"quoted.\"", "`code`.",
    ]

    static var texts: [String] { ProseScanTests.texts + edgeCases }

    @Test func trimmingAsFoundationTrims() {
        for text in Self.texts {
            #expect(text.trimmed == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(text.debugDescription)")
            #expect(text.trimmedSpaces == text.trimmingCharacters(in: .whitespaces), "\(text.debugDescription)")
            let inner = text.dropFirst()
            #expect(inner.trimmedSpaces == inner.trimmingCharacters(in: .whitespaces), "\(text.debugDescription)")
        }
    }

    /// `TextKey.normalize` and `significantWords` as they were, Character by Character.
    static func normalizedByCharacters(_ text: String, language: String, foldingCase: Bool) -> String {
        let profile = LanguageProfile.for(language)
        let source = profile?.fold(text) ?? text
        let collapsed = (foldingCase ? source.lowercased() : source).split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        return collapsed.trimmingCharacters(in: profile?.subtag == "ar" ? TextKey.arabicEnds : TextKey.latinEnds)
    }

    static func significantWordsByCharacters(_ text: String, language: String) -> [String] {
        let profile = LanguageProfile.for(language) ?? .english
        let source = profile.foldsLetters ? profile.fold(text) : text.lowercased()
        return source.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
            .filter { $0.count >= profile.significantLetters && !profile.stopWords.contains($0) }
    }

    @Test func textKeysAsCharactersGaveThem() {
        for text in Self.texts {
            for language in ["en", "ar"] {
                #expect(TextKey.normalize(text, language: language) == Self.normalizedByCharacters(text, language: language, foldingCase: true), "\(language) \(text.debugDescription)")
                #expect(
                    TextKey.normalize(text, language: language, foldingCase: false) == Self.normalizedByCharacters(text, language: language, foldingCase: false),
                    "\(language) \(text.debugDescription)")
                #expect(TextKey.significantWords(text, language: language) == Self.significantWordsByCharacters(text, language: language), "\(language) \(text.debugDescription)")
            }
        }
    }

    @Test func aWordIsFoundAsFoundationFindsIt() {
        let words = QuestionRules.aboutTheItemWords + QuestionRules.missingMediumWords + QuestionRules.lectureVoiceWords + ["explanation", "feedback"]
        for text in Self.texts {
            var lower = text.lowercased()
            let found = lower.withUTF8 { bytes in words.map { ProseScan.contains(bytes, $0) } }
            #expect(found == words.map { lower.contains($0) }, "\(text.debugDescription)")
        }
        // The long s folds to s before the words are looked for, as it did.
        #expect(QuestionRules.mayMatch("the ſtudent", anyOf: ["student"]))
        #expect(!QuestionRules.mayMatch("the learner", anyOf: ["student"]))
    }

    /// The phrases about the item are looked for sentence by sentence and found where the whole
    /// text's search finds them: on every recorded text that holds one of their words, and where a
    /// full stop joins two words ("e.g.the learner": no word boundary before "the").
    @Test func aSentenceBySentenceSearchFindsWhatTheWholeTextGives() async {
        let cases = ["e.g.the learner reads", "Ask the learner.x", "It is 3.5 the learner said", "the learner!", "Does it?\nthe learners agree", "x.the learner. The learner", "the stem asks."]
        for (index, text) in (Self.texts + cases).enumerated() where QuestionRules.mayMatch(text, anyOf: QuestionRules.aboutTheItemWords) {
            if index % 20 == 0 { await Task.yield() }
            let whole = text.firstMatch(of: QuestionRules.aboutTheItem).map { text[$0.range] }
            let bySentence = QuestionRules.firstMatchInSentences(text, QuestionRules.aboutTheItem, words: QuestionRules.aboutTheItemWords)
            #expect(whole == bySentence && whole?.startIndex == bySentence?.startIndex, "\(text.debugDescription)")
        }
    }

    /// One question holding the other is found by bytes as Foundation's search found it: every
    /// recorded text against the next one and against its own second half.
    @Test func aQuestionHoldingAnotherIsFoundAsBefore() {
        func foundationHolds(_ a: String, _ b: String) -> Bool {
            let unquoted = { (text: String) in TextKey.normalize(text, language: "en").filter { !"`'\"‘’“”".contains($0) } }
            let (x, y) = (unquoted(a), unquoted(b))
            guard x != y else { return true }
            guard min(x.count, y.count) >= 12 else { return false }
            return x.contains(y) || y.contains(x)
        }
        var held = 0
        let texts = Self.texts.filter { $0.count < 2_000 }
        for (index, text) in texts.enumerated() {
            for other in [texts[(index + 1) % texts.count], String(text.dropFirst(text.count / 2))] {
                let holds = QuestionRules.holdsTheOther(text, other)
                #expect(holds == foundationHolds(text, other), "\(text.debugDescription) / \(other.debugDescription)")
                if holds { held += 1 }
            }
        }
        #expect(held > texts.count / 4)
    }

    /// A term the pattern finds is never passed over by its words: `TermWords` only skips the
    /// pattern where it could not match. Checked for every term against every recorded text, and
    /// the shortcut is taken (the words known) for most of them.
    @Test func aTermsWordsNeverHideAMention() {
        let terms = ProjectRules.programmingTerms + ProjectRules.mathematicsTerms + ["c++", "probability density"]
        var known = 0
        var skipped = 0
        for text in Self.texts {
            let words = ProjectRules.TermWords(text)
            if words.words != nil { known += 1 }
            for term in terms {
                let may = words.mayMention(term)
                if ProjectRules.mentions(text, term) { #expect(may, "\(term) in \(text.debugDescription)") }
                if !may { skipped += 1 }
            }
        }
        #expect(known > Self.texts.count / 2)
        #expect(skipped > Self.texts.count * terms.count / 2)
        // Plurals and multi-word terms, in both directions.
        let text = ProjectRules.TermWords("A matrix, probability densities, two loops and a File I/O example; my_function() runs.")
        for term in ["matrix", "probability density", "loop", "file I/O", "function"] { #expect(text.mayMention(term), "\(term)") }
        for term in ["recursion", "class", "p-value", "standard deviation"] { #expect(!text.mayMention(term), "\(term)") }
        // A letter outside ASCII: no shortcut.
        #expect(ProjectRules.TermWords("The Kelvin \u{212A} sign").words == nil)
    }

    /// A term is found in the singular and in its plurals, irregular ones included ("arrays" and
    /// "matrices" were not found before), and not inside a longer word; the words shortcut agrees.
    @Test func aTermIsFoundInItsPlurals() {
        let found: [(String, String)] = [
            ("array", "Store the scores in arrays."), ("matrix", "Multiply the two matrices."),
            ("matrix", "Two matrixes."), ("dictionary", "Nested dictionaries hold it."),
            ("dictionary", "A dictionary."), ("index", "Its indices start at 0."), ("index", "Two indexes."),
            ("class", "Write two classes."), ("loop", "Nested loops."), ("probability density", "Probability densities."),
            ("c++", "Written in C++."),
        ]
        for (term, text) in found {
            #expect(ProjectRules.mentions(text, term), "\(term) in \(text)")
            #expect(ProjectRules.TermWords(text).mayMention(term), "\(term) in \(text)")
        }
        let absent: [(String, String)] = [
            ("array", "An arrayed list."), ("matrix", "The matrixa."), ("loop", "A looping answer."),
            ("class", "A classic."), ("index", "Indicate it."),
        ]
        for (term, text) in absent { #expect(!ProjectRules.mentions(text, term), "\(term) in \(text)") }
    }
}

/// The phrase patterns tried only where a word they begin with starts (`matchAtWordStarts`) find
/// what the patterns find run over the whole text, on every recorded string and on phrases made to
/// reach each alternative, its near misses and the places the word-start rule hands back.
struct WordStartMatchTests {
    static let phrases = [
        "The learner should see this.", "the learners' answers", "The learner's book", "the learner’s book", "Learners like it.",
        "This question is designed to check recall.", "the exercise was designed", "The item is meant for you.",
        "The question asks you to add.", "This explanation shows why.", "the statement correctly explains it", "In this feedback, we add.",
        "as explained in the feedback", "The feedback says no.", "the level-2 question", "This level 3 question", "young children can understand it",
        "Children can understand", "the reference answer is short", "A reference answer helps", "the prompt asks for a sum", "the stem provides data",
        "to a five-year-old", "For a 6 year old", "The students should know", "the student has correctly added", "checks whether the student knows",
        "Tests if the students understand", "see if the student can", "It assesses whether the student understands", "x'the learner", "o.the learner",
        "a:this question asks", "snake_the learner", "the  learner", "thelearner", "the learnerx", "soothe learner", "bathe learner",
        "Does this help?", "did that make sense", "Do you understand?", "Is this clear?", "was it clear", "Are you ready?", "are you with me",
        "do these help", "Does it help you", "is that clear to you", "ſee if the ſtudent can", "the Kelvin \u{212A} learner", "“the learner”",
        "(the learner)", "—the learner", "the learner\u{301}", "café the learner",
    ]

    static var texts: [String] { ProseScanTests.texts + ByteFastPathTests.edgeCases + phrases }

    @Test func aboutTheItemAsTheWholePattern() {
        var found = 0
        for text in Self.texts {
            let fast = QuestionRules.firstMatchInSentences(
                text, QuestionRules.aboutTheItem, words: QuestionRules.aboutTheItemWords, firstWords: QuestionRules.aboutTheItemFirstWords)
            let whole = QuestionRules.firstMatchInSentences(text, QuestionRules.aboutTheItem, words: QuestionRules.aboutTheItemWords)
            #expect(fast.map(String.init) == whole.map(String.init), "\(text.debugDescription)")
            #expect(fast?.startIndex == whole?.startIndex, "\(text.debugDescription)")
            if whole != nil { found += 1 }
        }
        #expect(found >= 30)
    }

    @Test func asksWhetherItHelpedAsTheWholePattern() {
        var found = 0
        for text in Self.texts {
            let whole = text.firstMatch(of: QuestionRules.asksWhetherItHelped).map { String(text[$0.range]) }
            switch QuestionRules.matchAtWordStarts(text[...], QuestionRules.asksWhetherItHelped, firstWords: QuestionRules.asksWhetherItHelpedFirstWords) {
            case .some(let fast): #expect(fast.map(String.init) == whole, "\(text.debugDescription)")
            case .none: break  // handed back: the caller runs the whole pattern
            }
            if whole != nil { found += 1 }
        }
        #expect(found >= 8)
    }
}
