import Foundation

/// Checks on exam items, shared by the `exam` kind's stages and `lectern check`.
public enum ExamRules {
    /// Checks one item's own content: its options (count, one key, distinct, not questions,
    /// feedback), the lengths of its texts, and that it cites a source. Grounding (the quote
    /// occurs in the document) and duplicates across the bank are checked where the corpus and
    /// the bank are known.
    /// A `completion` item's stem must hold exactly one blank.
    public static func check(
        _ item: ExamItem, optionCount: Int, language: String, labels: [String]? = nil, format: ExamCategory.Format = .standard
    ) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        issues += formatIssues(prompt: item.prompt, options: item.options, quote: item.sources.first?.quote, format: format, language: language, labels: labels)
        issues += QuestionRules.checkLength("prompt", item.prompt, 10...2_000)
        issues += QuestionRules.checkLength("explanation", item.explanation, 20...3_000)
        issues += QuestionRules.checkMultipleChoice(
            prompt: item.prompt, options: item.options, labels: labels, optionCount: optionCount, language: language
        ).map(refusingAGiveAwayLength)
        issues += aboutTheItemIssues(explanation: item.explanation, options: item.options)
        issues += unfinishedIssues(explanation: item.explanation, options: item.options)
        if format.computesKey {
            // Verbal items are held to their source text's words; a computed item has no source.
            issues += languageIssues(item, language: language)
            issues += computedKeyIssues(prompt: item.prompt, options: item.options, solution: item.solution, figure: item.figure, format: format, names: labels)
        } else if item.sources.isEmpty || item.sources.allSatisfy({ $0.quote.trimmed.isEmpty }) {
            issues.append(.error("'source_quote' is empty; copy the sentence of the source text that supports the correct answer", check: .grounding))
        }
        return issues
    }

    /// A key much longer than the other options is a warning in a course and an error in an exam,
    /// where a candidate who picks the longest option must not score: the recorded exam's keys
    /// read "a large land area with a climate …" beside "a type of plant".
    static func refusingAGiveAwayLength(_ issue: ValidationIssue) -> ValidationIssue {
        guard issue.severity == .warning, issue.kind == QuestionRules.longKeyKind else { return issue }
        return .error(
            "\(issue.message); in an exam write every wrong option as long and as specific as the correct one, or shorten the correct one", check: .stageRules)
    }

    /// The explanation and feedback a candidate reads after answering, written about the item
    /// instead of to them ("This question tests the learner's ability to …"). Shared with
    /// `lectern check`.
    public static func aboutTheItemIssues(explanation: String, options: [Choice]) -> [ValidationIssue] {
        textsAfterAnswering(explanation: explanation, options: options).flatMap {
            QuestionRules.checkSpeaksToTheLearner($0.name, $0.text, instructions: true)
        }
    }

    /// The explanation and each option's feedback, named as the messages about them name them.
    static func textsAfterAnswering(explanation: String, options: [Choice]) -> [(name: String, text: String)] {
        [("explanation", explanation)] + options.filter { !$0.feedback.isEmpty }.map { ("the feedback of '\($0.text.prefix(40))'", $0.feedback) }
    }

    /// The explanation or an option's feedback stopping in the middle of a sentence
    /// (`QuestionRules.checkFinished`), as a course question's texts after its prompt may not:
    /// the recorded world-geography exam's reading set p01 kept a wrong option's feedback that
    /// ended "… south of the Antarctic Circle. The wrong answer".
    public static func unfinishedIssues(explanation: String, options: [Choice]) -> [ValidationIssue] {
        textsAfterAnswering(explanation: explanation, options: options).flatMap {
            QuestionRules.checkFinished($0.name, $0.text, finish: "finish it")
        }
    }

    /// Numbers in what a candidate reads after answering (the explanation, each option's
    /// feedback) that neither the source text the item was written from nor the item itself
    /// holds: made up. The local model's feedback on a reading-set key about Antarctica's first
    /// explorations read "The passage states that in 1925, the United States established the
    /// Amundsen-Bellingshausen Station", a year and a station the passage never names; a
    /// completion item's feedback said "The age mentioned in the sentence is about 400 years".
    /// Digits in any script count (a year, "250 mm", "20th"); number words do not. For verbal
    /// items, which are held to their source; a computed item's numbers are checked against its
    /// solution instead.
    public static func unsourcedNumberIssues(explanation: String, prompt: String, options: [Choice], source: String) -> [ValidationIssue] {
        var fields = [("the explanation", explanation)]
        for option in options where !option.feedback.isEmpty { fields.append(("the feedback of '\(option.text.prefix(40))'", option.feedback)) }
        var issues: [ValidationIssue] = []
        for (name, text) in fields {
            guard let first = unsourcedNumbers(in: text, prompt: prompt, options: options.map(\.text), source: source).first else { continue }
            issues.append(
                .error(
                    "\(name) names \(first), \(unsourcedNumber), in its words and numbers", check: .stageRules))
        }
        return issues
    }

    /// The numbers of `text` that neither `source`, the stem nor an option holds
    /// (`unsourcedNumberIssues`; also how a mend finds the feedback to write again).
    /// A number the text writes in words counts as the text's: "4th century" is the source's
    /// "fourth century" (the local model's feedback on a completion item).
    public static func unsourcedNumbers(in text: String, prompt: String, options: [String], source: String) -> [String] {
        let named = [source, prompt] + options
        let known = Set(named.flatMap { numbers(in: $0) + numberWords(in: $0) })
        return numbers(in: text).filter { !known.contains($0) }
    }

    /// English number words, cardinal and ordinal, up to twenty and the tens.
    private static let numberWordValues: [String: Int] = {
        let cardinals = [
            "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen",
            "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
        ]
        let ordinals = [
            "zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth",
            "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth",
        ]
        var values: [String: Int] = [:]
        for (value, word) in cardinals.enumerated() { values[word] = value }
        for (value, word) in ordinals.enumerated() { values[word] = value }
        for (index, tens) in ["thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"].enumerated() {
            values[tens] = (index + 3) * 10
            values[String(tens.dropLast()) + "ieth"] = (index + 3) * 10
        }
        values["hundred"] = 100
        values["hundredth"] = 100
        values["thousand"] = 1000
        values["thousandth"] = 1000
        return values
    }()

    /// The numbers `text` writes as English words ("fourth" is "4"), in order of appearance.
    static func numberWords(in text: String) -> [String] {
        text.lowercased().split(whereSeparator: { !$0.isLetter }).compactMap { numberWordValues[String($0)].map(String.init) }
    }

    /// The message fragment of an unsourced number (`unsourcedNumberIssues`).
    public static let unsourcedNumber = "which neither the source text nor the question has: say only what the text says"

    /// A stem opening with one of the source text's field labels: the Factbook writes
    /// "Climate: a wide equatorial band of hot and humid tropical climates …", and the local model
    /// copied the label into a completion stem, which then reads as a form field, not a sentence.
    /// A label is one to three words before a colon that the source text also has before a colon
    /// ("Complete the sentence:" is an instruction, not the text's, and stays).
    public static func copiedLabelIssues(prompt: String, source: String) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        let lines = prompt.split(separator: "\n").map(\.trimmed).filter { !$0.isEmpty }
        for line in lines {
            guard let match = line.prefixMatch(of: labelPattern) else { continue }
            let label = String(match.output.1).trimmed
            guard source.contains(label + ":") else { continue }
            issues.append(
                .error(
                    "the stem begins with '\(label):', a label of the source text, not part of a sentence: write the question, or the sentence with the blank, without it", check: .stageRules))
            break
        }
        return issues
    }

    nonisolated(unsafe) private static let labelPattern = /([\p{L}][\p{L}\p{M}'’-]*(?: [\p{L}\p{M}'’-]+){0,2}):\s/

    /// `sentence` without a field label it opens with ("Climate: a wide equatorial band …" gives
    /// "a wide equatorial band …"): the sentence an item is built on, which the completion and
    /// wrong-word prompts ask the model to copy word for word, and `copiedLabelIssues` refuses
    /// with its label. Unchanged when nothing follows the label.
    public static func withoutFieldLabel(_ sentence: String) -> String {
        guard let match = sentence.prefixMatch(of: labelPattern) else { return sentence }
        let rest = sentence[match.range.upperBound...].trimmed
        return rest.isEmpty ? sentence : rest
    }

    /// A correct option that names what the source text does not: a number, or a capitalized
    /// word (a name), that neither the source text the item was written from nor its stem holds
    /// (letter case aside). The local model keyed "1925" for "What was the first year in which
    /// scientific research began on Antarctica?" and "China" for the country that claimed the
    /// Antarctic Peninsula, over a passage that names neither, and its blind solver, shown the
    /// passage, agreed. A wrong option may name anything; the key of a question on a text says
    /// what the text says.
    public static func unsourcedKeyIssues(prompt: String, options: [Choice], source: String, labels: [String]? = nil) -> [ValidationIssue] {
        guard let index = options.firstIndex(where: \.correct) else { return [] }
        let key = options[index].text
        let given = source + "\n" + prompt
        let knownNumbers = Set(numbers(in: given))
        // A word is the text's when a word of it starts with the same five letters ("Americans",
        // "America"); a capitalized stop word ("They", "The") is no name.
        let stem = { (word: Substring) in String(word.lowercased().prefix(5)) }
        let knownWords = Set(given.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(stem))
        // A number the item works out from the text's own, in its feedback ("days average 38°C and
        // nights -4°C, so the temperature falls 38 + 4 = 42 degrees"), is the text's too.
        let worked = workedOut(from: knownNumbers, in: options.map(\.feedback))
        var unsourced = numbers(in: key).filter { !knownNumbers.contains($0) && !worked.contains($0) }
        unsourced += key.split(whereSeparator: { !$0.isLetter && !$0.isNumber })
            .filter { word in
                word.count >= 2 && word.first!.isUppercase && !knownWords.contains(stem(word))
                    && !NearDuplicate.Lexicon.stopWords.contains(GroundingText.normalize(String(word)))
            }
            .map(String.init)
        guard let first = unsourced.first else { return [] }
        let name = labels.flatMap { $0.count == options.count ? $0[index] : nil } ?? "the correct option"
        return [
            .error(
                "\(name) ('\(key.prefix(80))') names '\(first)', which neither the source text nor the question has: the answer to a question on a text is what the text says; ask about something it states",
                check: .stageRules)
        ]
    }

    /// The results of calculations written in `texts` ("38 + 4 = 42") whose two operands are
    /// `known` numbers and whose result is right: whole numbers, one operation each.
    static func workedOut(from known: Set<String>, in texts: [String]) -> Set<String> {
        var results: Set<String> = []
        for text in texts where text.contains("=") {
            for match in text.matches(of: Self.calculation) {
                let (a, op, b, result) = (String(match.output.1), match.output.2, String(match.output.3), String(match.output.4))
                guard known.contains(a), known.contains(b), let x = Int(a), let y = Int(b), let z = Int(result) else { continue }
                let value: Int? =
                    switch op {
                    case "+": x + y
                    case "-", "−", "–": x - y
                    case "×", "x", "*", "·": x * y
                    default: y != 0 && x % y == 0 ? x / y : nil
                    }
                if value == z { results.insert(result) }
            }
        }
        return results
    }

    nonisolated(unsafe) static let calculation = /(\d{1,6})\s*([+\-−–×x*·\/÷])\s*(\d{1,6})\s*=\s*(\d{1,7})\b/

    /// The runs of digits in `text`, in any script, as ASCII digits ("1,250" and "1250" are both
    /// "1250"; "20th" is "20"), in order of appearance.
    static func numbers(in text: String) -> [String] {
        var found: [String] = []
        var current = ""
        var previous: Character?
        for character in text {
            if let digit = character.wholeNumberValue, character.isNumber, digit < 10 {
                current.append(String(digit))
            } else if !current.isEmpty, character == "," || character == "٬", previous?.isNumber == true {
                // A thousands separator: the run goes on.
            } else if !current.isEmpty {
                found.append(current)
                current = ""
            }
            previous = character
        }
        if !current.isEmpty { found.append(current) }
        return found
    }

    /// What a candidate reads written in another language than the exam's. For Arabic: a text
    /// mostly in Latin letters ("Calculate the value of √36."), or English words of four letters or
    /// more inside Arabic ("أوجد طول hypotenuse"); math and code spans aside.
    public static func languageIssues(_ item: ExamItem, language: String) -> [ValidationIssue] {
        languageIssues(prompt: item.prompt, explanation: item.explanation, options: item.options, language: language)
    }

    /// `languageIssues` of an item's parts (`lectern check` reads them from a bank file).
    public static func languageIssues(prompt: String, explanation: String, options: [Choice], language: String) -> [ValidationIssue] {
        guard LanguageProfile.isArabic(language) else { return [] }
        var fields = [("the stem", prompt), ("the explanation", explanation)]
        for option in options where !option.feedback.isEmpty { fields.append(("the feedback of '\(option.text.prefix(40))'", option.feedback)) }
        var issues: [ValidationIssue] = []
        for (name, text) in fields {
            let prose = text.replacing(mathOrCode, with: " ")
            let arabic = prose.unicodeScalars.filter { (0x0621...0x064A).contains($0.value) }.count
            let latin = prose.unicodeScalars.filter { ("a"..."z").contains($0) || ("A"..."Z").contains($0) }.count
            if latin > arabic {
                issues.append(.error("\(name) is not in Arabic: write the question, its answers, feedback and explanation in Arabic", check: .stageRules))
            } else if let word = prose.firstMatch(of: latinWord) {
                issues.append(.error("\(name) mixes an English word ('\(word.output)') into Arabic: write it in Arabic", check: .stageRules))
            }
        }
        return issues
    }

    nonisolated(unsafe) private static let mathOrCode = /\\[A-Za-z]+|\$\$[^$]*\$\$|\$[^$]*\$|\\\(.*?\\\)|\\\[.*?\\\]|`[^`]*`/
    nonisolated(unsafe) private static let latinWord = /[A-Za-z]{4,}/

    /// A quantitative or geometry item's key against its solution, and a geometry item's figure
    /// against itself, its stem and its alt text.
    public static func computedKeyIssues(
        prompt: String, options: [Choice], solution: ItemSolution?, figure: ItemFigure?, format: ExamCategory.Format, names: [String]?
    ) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        if let solution, !solution.expression.trimmed.isEmpty {
            let key = options.firstIndex(where: \.correct) ?? -1
            issues += QuantitativeKeyCheck.problems(solution: solution.expression, options: options.map(\.text), key: key, names: names).map {
                .error($0, check: .stageRules)
            }
            let given = figure.map { $0.geometry.lengths.map(\.value) + $0.geometry.angles.compactMap(\.degrees) + $0.geometry.circles.map(\.radius) } ?? []
            issues += QuantitativeKeyCheck.groundingProblems(solution: solution.expression, stem: prompt, given: given).map { .error($0, check: .stageRules) }
        } else {
            issues.append(
                .error(
                    "'solution' is empty: give the expression that computes the answer, e.g. (180 - 175) / 8 or 2 * sqrt(3); "
                        + "the correct option must equal its value", check: .stageRules))
        }
        if format == .geometry {
            if let figure {
                issues += figure.geometry.problems(stem: prompt, alt: figure.alt).map { .error("figure: " + $0, check: .stageRules) }
            } else {
                issues.append(.error("'figure' is missing: a geometry item describes its figure (points, segments, marks, given lengths) and its alt text", check: .wellFormed))
            }
        }
        return issues
    }

    /// What an item breaks of its category format's rules that can be seen without the corpus:
    /// a completion stem's one blank; a fact's key stated in its quote; a vocabulary stem naming a
    /// word of its quote; a wrong-word item's options being words of its sentence. (The checks of
    /// completion and wrong-word keys against the source need the corpus: the exam kind's stages.)
    public static func formatIssues(
        prompt: String, options: [Choice], quote: String?, format: ExamCategory.Format, language: String, labels: [String]? = nil
    ) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        if format == .completion {
            let count = blanks(in: prompt).count
            if count == 0 {
                issues.append(
                    .error(
                        "the stem has no blank: a sentence-completion stem is a sentence of the source text with the missing word replaced by '____'", check: .stageRules))
            } else if count > 1 {
                issues.append(.error("the stem has \(count) blanks; a sentence-completion stem has exactly one ('____'), which the correct option fills", check: .stageRules))
            }
        }
        if format == .fact, let key = options.first(where: \.correct), let quote = quote, !quote.trimmed.isEmpty,
            let missing = unstated(key.text, in: quote)
        {
            issues.append(
                .error(
                    "the correct option ('\(key.text)') is not what the source quote says ('\(missing)' is not in '\(quote.prefix(160))'): "
                        + "a fact question's answer is stated in the sentence it quotes; quote the sentence that states it, or ask about a fact the text states", check: .grounding))
        }
        if format == .vocabulary, let quote = quote, !quote.trimmed.isEmpty {
            // The word may be named in another form than the sentence's ("continent", "continents").
            let quoted = Set(NearDuplicate.contentWords(quote))
            let named = quotedSpans(in: prompt).filter { span in
                let words = NearDuplicate.contentWords(span)
                return span.split(separator: " ").count <= 4 && !words.isEmpty && words.allSatisfy(quoted.contains)
            }
            if named.isEmpty {
                issues.append(
                    .error(
                        "the stem does not name, in quotation marks, a word of the source quote: a vocabulary item asks what one word of the quoted sentence means there, written in quotation marks",
                        check: .grounding))
            } else if let key = options.first(where: \.correct),
                named.contains(where: { NearDuplicate.contentWords($0) == NearDuplicate.contentWords(key.text) })
            {
                issues.append(
                    .error(
                        "the correct option is the word asked about ('\(key.text)'); the options are meanings of the word: make the correct option "
                            + "a synonym or a short definition of '\(key.text)' as the sentence uses it, and each wrong option a meaning it does not have there", check: .stageRules))
            } else if named.allSatisfy({ isNameOrNumber($0, in: quote) }) {
                issues.append(
                    .error(
                        "the word asked about (\(named.map { "'\($0)'" }.joined(separator: ", "))) is a name or a number, which has no meaning to ask for: "
                            + "ask about a common word of the sentence", check: .stageRules))
            }
        }
        if format == .analogy { issues += analogyIssues(prompt: prompt, options: options, quote: quote, labels: labels) }
        if format == .standard || format == .reading, let quote = quote, !quote.trimmed.isEmpty {
            let asked = Set(NearDuplicate.contentWords(prompt + " " + (options.first(where: \.correct)?.text ?? "")))
            if !asked.isEmpty, NearDuplicate.contentWords(quote).allSatisfy({ !asked.contains($0) }) {
                issues.append(
                    .error(
                        "the source quote ('\(quote.prefix(160))') shares no word with the question or its correct answer, so it cannot support them: "
                            + "quote the sentence of the source text that the question is drawn from and that supports its answer", check: .grounding))
            }
        }
        if format == .wrongWord {
            let sentence = stemSentence(prompt)
            let names = labels.flatMap { $0.count == options.count ? $0 : nil } ?? options.indices.map { "option \($0 + 1)" }
            for (index, option) in options.enumerated() where !option.text.trimmed.isEmpty {
                if !GroundingText.contains(option.text, in: String(sentence)) {
                    issues.append(
                        .error(
                            "\(names[index]) ('\(option.text)') is not a word of the stem's sentence; every option of a wrong-word item is a word of the sentence, exactly as written there",
                            check: .stageRules))
                }
            }
        }
        return issues
    }

    /// What an analogy item breaks: its stem must give a pair "A : B" whose words are its quote's,
    /// every option must be a pair "C : D", and no option may be the stem's pair.
    static func analogyIssues(prompt: String, options: [Choice], quote: String?, labels: [String]?) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        let names = labels.flatMap { $0.count == options.count ? $0 : nil } ?? options.indices.map { "option \($0 + 1)" }
        let stemPair = analogyPair(in: prompt)
        if stemPair == nil {
            issues.append(
                .error("the stem has no pair of words written 'A : B': an analogy stem gives two words with a clear relation, separated by ' : '", check: .stageRules))
        }
        for (index, option) in options.enumerated() where !option.text.trimmed.isEmpty {
            guard let pair = analogyPair(option.text) else {
                issues.append(.error("\(names[index]) ('\(option.text)') is not a pair of words written 'C : D'; every option of an analogy is such a pair", check: .stageRules))
                continue
            }
            if let stemPair, NearDuplicate.contentWords(pair.0) == NearDuplicate.contentWords(stemPair.0),
                NearDuplicate.contentWords(pair.1) == NearDuplicate.contentWords(stemPair.1)
            {
                issues.append(.error("\(names[index]) ('\(option.text)') is the stem's own pair; every option is another pair", check: .stageRules))
            }
        }
        if let stemPair, let quote, !quote.trimmed.isEmpty {
            let quoted = Set(NearDuplicate.contentWords(quote))
            let missing = [stemPair.0, stemPair.1].filter { side in !NearDuplicate.contentWords(side).allSatisfy(quoted.contains) }
            if !missing.isEmpty {
                issues.append(
                    .error(
                        "the stem's pair takes \(missing.map { "'\($0)'" }.joined(separator: " and ")) from outside its source quote ('\(quote.prefix(160))'): "
                            + "take both words of the pair from the quoted sentence", check: .grounding))
            }
        }
        return issues
    }

    /// The pair of an analogy option, "C : D": one colon (or ratio sign ∶) with a word group of
    /// one to four words on each side, not both numbers (a time, a ratio of numbers).
    public static func analogyPair(_ text: String) -> (String, String)? {
        let parts = text.trimmed.split(omittingEmptySubsequences: false, whereSeparator: { $0 == ":" || $0 == "∶" })
        guard parts.count == 2 else { return nil }
        let sides = parts.map { String($0).trimmingCharacters(in: CharacterSet.whitespacesAndNewlines.union(.punctuationCharacters)) }
        guard sides.allSatisfy({ (side: String) in !side.isEmpty && side.split(separator: " ").count <= 4 && side.contains(where: \.isLetter) }) else {
            return nil
        }
        return (sides[0], sides[1])
    }

    /// The pair "A : B" a stem gives: the words on either side of a colon spaced alike on both
    /// sides ("Nile : river", "Nile:river"; not a lead-in "as follows: Nile"), up to four words
    /// each, stopping at other punctuation and quotation marks.
    public static func analogyPair(in stem: String) -> (String, String)? {
        let stop: Set<Character> = ["?", "؟", ".", ",", "،", "\"", "“", "”", "«", "»", "(", ")", "!", ";", "؛", ":", "∶", "\n"]
        let characters = Array(stem)
        for (index, character) in characters.enumerated() where character == ":" || character == "∶" {
            let spaceBefore = index > 0 && characters[index - 1] == " "
            let spaceAfter = index + 1 < characters.count && characters[index + 1] == " "
            guard spaceBefore == spaceAfter else { continue }
            var start = index
            while start > 0 && !stop.contains(characters[start - 1]) { start -= 1 }
            var end = index + 1
            while end < characters.count && !stop.contains(characters[end]) { end += 1 }
            let left = String(characters[start..<index]).split(separator: " ").suffix(4).joined(separator: " ")
            let right = String(characters[(index + 1)..<end]).split(separator: " ").prefix(4).joined(separator: " ")
            guard left.contains(where: \.isLetter), right.contains(where: \.isLetter) else { continue }
            // A lead-in may run into the left side ("as Nile : river"): take as many words there as
            // the right side has.
            let rightCount = right.split(separator: " ").count
            return (left.split(separator: " ").suffix(rightCount).joined(separator: " "), right)
        }
        return nil
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

    /// The first content word of `answer` that `quote` does not have, when the answer is not
    /// stated there: a number of the answer missing from the quote, or fewer than half of its other
    /// content words in it (a word counts when the quote has it, or one sharing its first five
    /// letters: "completed", "completion"). Nil when the answer is stated, or has no content word.
    public static func unstated(_ answer: String, in quote: String) -> String? {
        let words = NearDuplicate.contentWords(answer)
        guard !words.isEmpty else { return nil }
        let quoted = Set(NearDuplicate.contentWords(quote))
        let prefixes = Set(quoted.filter { $0.count >= 5 }.map { String($0.prefix(5)) })
        func has(_ word: String) -> Bool { quoted.contains(word) || (word.count >= 5 && prefixes.contains(String(word.prefix(5)))) }
        let isNumber = { (word: String) in word.allSatisfy { $0.isASCII && $0.isNumber } }
        if let number = words.first(where: { isNumber($0) && !has($0) }) { return number }
        let others = words.filter { !isNumber($0) }
        let found = others.filter(has).count
        return found * 2 >= others.count ? nil : others.first { !has($0) }
    }

    /// Whether `span` is a number, or a name: written with a capital letter where `sentence` has it
    /// other than at its start (scripts without letter case have no such names).
    static func isNameOrNumber(_ span: String, in sentence: String) -> Bool {
        let span = span.trimmed
        if !span.isEmpty, span.allSatisfy({ $0.isNumber || $0 == "," || $0 == "." }) { return true }
        guard let first = span.first, first.isUppercase else { return false }
        var from = sentence.startIndex
        while let range = sentence.range(of: span, range: from..<sentence.endIndex) {
            let before = sentence[sentence.startIndex..<range.lowerBound].trimmingCharacters(in: .whitespaces)
            if !before.isEmpty, !(before.last.map { ".!?:\"'“‘«(".contains($0) } ?? false) { return true }
            from = range.upperBound
        }
        return false
    }

    /// English function words of five letters or more, which a vocabulary item does not ask about:
    /// they have no meaning of their own to define in a sentence.
    private static let functionWords: Set<String> = [
        "about", "above", "after", "again", "against", "along", "among", "around", "because", "before", "being", "below", "between",
        "beyond", "could", "during", "either", "every", "other", "their", "there", "these", "those", "though", "through", "under",
        "until", "where", "which", "while", "within", "without", "would", "whose", "often", "still", "since", "across", "toward",
        "towards", "rather", "several", "another", "although", "whether", "including",
    ]

    /// The word of `sentence` a vocabulary item asks about, chosen by Lectern as it chooses the
    /// sentence (a 1.5B model asked "what does 'seven' mean?" and named words the sentence lacks):
    /// the longest word of letters only, not a name (capitalized after the sentence's start), not a
    /// function word, at least five letters long in English (four in other languages: Arabic words
    /// carry their articles); the first of equals. Nil when the sentence has none.
    public static func vocabularyWord(in sentence: String, language: String) -> String? {
        let english = LanguageProfile.isEnglish(language)
        let minimum = english ? 5 : 4
        var best: String?
        var index = 0
        for token in sentence.split(whereSeparator: { !$0.isLetter && $0 != "'" && $0 != "’" && $0 != "-" }) {
            defer { index += 1 }
            let word = String(token)
            guard word.allSatisfy(\.isLetter), word.count >= minimum else { continue }
            if index > 0, word.first?.isUppercase == true { continue }
            if word.allSatisfy(\.isUppercase) { continue }
            if english, functionWords.contains(word.lowercased()) { continue }
            if word.count > (best?.count ?? 0) { best = word }
        }
        return best
    }

    /// Words with which a stem points at a text, table or figure the candidate does not see.
    nonisolated(unsafe) private static let unseenText =
        /(?i)\b(the|this|given|following|above|below) (source )?(text|passage|excerpt|article|paragraph|table|figure|graph|chart|diagram)\b|\baccording to the (text|source|passage|table)\b|\bsource text\b/

    /// Whether a stem speaks of "the source text", "the passage" or "the table": a standard item is
    /// shown without its source, so such a question cannot be answered.
    /// `figureShown`: the item shows a figure (a geometry item), so "the figure" is something the
    /// candidate sees.
    public static func mentionsUnseenText(_ stem: String, language: String, figureShown: Bool = false) -> Bool {
        let text = figureShown ? stem.replacing(shownFigure, with: "") : stem
        if text.contains(unseenText) { return true }
        if LanguageProfile.isArabic(language) {
            let words = ["النص", "الفقرة", "القطعة", "المقطع", "الجدول"] + (figureShown ? [] : ["الشكل", "الرسم"])
            return words.contains { GroundingText.contains($0, in: text) }
        }
        return false
    }

    nonisolated(unsafe) private static let shownFigure = /(?i)\b(the|this|given|following|above|below) (figure|diagram|drawing)\b/

    /// The spans of `text` in quotation marks: "…", “…”, «…», ‘…’, and '…' when the marks are not
    /// apostrophes (no letter before the opening one or after the closing one).
    public static func quotedSpans(in text: String) -> [String] {
        var spans: [String] = []
        for pattern in [/"([^"]+)"/, /“([^”]+)”/, /«([^»]+)»/, /‘([^’]+)’/] {
            spans += text.matches(of: pattern).map { String($0.output.1).trimmed }
        }
        let characters = Array(text)
        var open: Int?
        for (index, character) in characters.enumerated() where character == "'" {
            let before = index > 0 ? characters[index - 1] : " "
            let after = index + 1 < characters.count ? characters[index + 1] : " "
            if let start = open, !after.isLetter, index > start + 1 {
                spans.append(String(characters[(start + 1)..<index]).trimmed)
                open = nil
            } else if !before.isLetter && !before.isNumber {
                open = index
            }
        }
        return spans.filter { !$0.isEmpty }
    }

    /// The sentence a stem asks about: its longest quoted part ("…", “…”, «…»), else what follows
    /// its last ": " (a lead-in such as "Which word is wrong in this sentence: …"), else all of it.
    public static func stemSentence(_ stem: String) -> Substring {
        var best: Substring?
        for pattern in [/"([^"]+)"/, /“([^”]+)”/, /«([^»]+)»/] {
            for match in stem.matches(of: pattern) where match.output.1.count > (best?.count ?? 0) {
                best = match.output.1
            }
        }
        if let best, best.split(separator: " ").count >= 3 { return best }
        if let colon = stem.range(of: ": ", options: .backwards) { return stem[colon.upperBound...] }
        return Substring(stem)
    }

    /// A completion stem written without its blank, made into one: when `stem` has no blank and
    /// holds the correct option exactly once as whole words (letter case aside), that occurrence
    /// becomes "____". Otherwise `stem` unchanged. (Small models copy the sentence and forget the
    /// blank; the stem made so is then checked like any other.)
    public static func blankingKey(_ stem: String, key: String) -> String {
        let key = key.trimmed
        guard blanks(in: stem).isEmpty, !key.isEmpty else { return stem }
        var found: [Range<String.Index>] = []
        var from = stem.startIndex
        while let range = stem.range(of: key, options: [.caseInsensitive], range: from..<stem.endIndex) {
            let before = range.lowerBound > stem.startIndex ? stem[stem.index(before: range.lowerBound)] : " "
            let after = range.upperBound < stem.endIndex ? stem[range.upperBound] : " "
            if !(before.isLetter || before.isNumber) && !(after.isLetter || after.isNumber) { found.append(range) }
            from = range.upperBound
        }
        guard found.count == 1, let only = found.first else { return stem }
        return stem.replacingCharacters(in: only, with: "____")
    }

    /// The sentences of `text` long enough to ask about (at least 40 characters), in order;
    /// headings are not sentences. A sentence ends at `. ? ! ؟` followed by a space or the line's
    /// end, except after an abbreviation or initial ("(r. 336", "B.C. to", "Mt. Everest"): a
    /// word of at most two letters, or one with a full stop inside. A semicolon (`;` `؛`) ends one
    /// too: reference texts list facts as clauses ("winds blow coastward …; blizzards form …"),
    /// and one clause is one fact to ask about. A full stop right after a closing parenthesis ends
    /// a sentence even after an abbreviation ("… period (323-31 B.C.). Hellenistic sightseers …").
    public static func sentences(_ text: String) -> [String] {
        var out: [String] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let characters = Array(line)
            var current = ""
            for (index, character) in characters.enumerated() {
                current.append(character)
                guard ".?!؟;؛".contains(character), index + 1 == characters.count || characters[index + 1].isWhitespace else { continue }
                let closesAParenthesis = index > 0 && characters[index - 1] == ")"
                if character == ".", !closesAParenthesis {
                    let word = current.dropLast().split(whereSeparator: \.isWhitespace).last ?? ""
                    let letters = word.filter(\.isLetter)
                    if letters.count <= 2 || word.contains(".") { continue }
                }
                out.append(current.trimmed)
                current = ""
            }
            out.append(current.trimmed)
        }
        return out.filter { $0.count >= 40 }
    }

    /// What is wrong with a stem shown without its source text (an item outside a reading set):
    /// it speaks of "the text" or "the table" the candidate does not see, or, for a completion
    /// item, it holds more than one sentence. Shared by the exam stages and `lectern check`.
    public static func sourcelessIssues(prompt: String, format: ExamCategory.Format, language: String) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        if mentionsUnseenText(prompt, language: language, figureShown: format == .geometry) {
            issues.append(
                .error("the stem speaks of the source text, which the candidate does not see: ask the question so that it makes sense on its own", check: .stageRules))
        }
        if format == .completion {
            // The blank (which may be written "...") becomes a word, so it neither ends a sentence
            // nor shortens one.
            var text = prompt
            for range in blanks(in: prompt).reversed() { text.replaceSubrange(range, with: "blank") }
            let count = sentences(text).count
            if count > 1 {
                issues.append(.error("the stem holds \(count) sentences; a sentence-completion stem is the one sentence with the blank", check: .stageRules))
            }
        }
        return issues
    }

    /// The blanks of a completion stem: runs of three or more underscores, or an ellipsis written
    /// "…", "……" or "..." (Arabic exams write the blank as "……").
    public static func blanks(in stem: String) -> [Range<String.Index>] {
        stem.ranges(of: blankPattern)
    }

    nonisolated(unsafe) private static let blankPattern = /_{3,}|(?:…|\.\.\.)[….]*/

    /// A completion stem's sentence with `filler` in its one blank: the stem's line that holds the
    /// blank, less a lead-in ("Complete the sentence: ") and the quote marks around the sentence.
    /// Nil unless the stem has exactly one blank. The item is grounded when its source holds this
    /// sentence whole, so nothing of it, near the blank or far from it, differs from the source.
    public static func completedFragment(stem: String, filler: String) -> String? {
        let found = blanks(in: stem)
        guard found.count == 1, let blank = found.first else { return nil }
        var before = Substring(stem[..<blank.lowerBound])
        if let cut = before.lastIndex(where: { "\n\"“”«»".contains($0) }) { before = before[before.index(after: cut)...] }
        if let colon = before.range(of: ": ", options: .backwards) { before = before[colon.upperBound...] }
        var after = Substring(stem[blank.upperBound...])
        if let cut = after.firstIndex(where: { "\n\"“”«»".contains($0) }) { after = after[..<cut] }
        // A word the blank is attached to ("وال……", "____,") keeps its attachment.
        return (before + filler.trimmed + after).trimmed
    }
}
