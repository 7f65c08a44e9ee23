import Foundation

/// One problem with generated content. Errors make the item invalid (it is repaired by re-asking
/// or reported); warnings are flags kept in the event log and counted in the run's summary.
public struct ValidationIssue: Codable, Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Codable, Sendable { case error, warning }

    public var severity: Severity
    public var message: String
    /// The rule that raised it, without the particulars of this answer (lengths, names, lines):
    /// "the correct option is much longer than the others". A run's summary counts warnings by it.
    public var kind: String

    public init(severity: Severity, message: String, kind: String? = nil) {
        self.severity = severity
        self.message = message
        self.kind = kind ?? message
    }

    public static func error(_ message: String) -> ValidationIssue { ValidationIssue(severity: .error, message: message) }
    public static func warning(_ message: String, kind: String) -> ValidationIssue {
        ValidationIssue(severity: .warning, message: message, kind: kind)
    }

    public var description: String { "\(severity.rawValue): \(message)" }
}

extension Array where Element == ValidationIssue {
    public var errors: [ValidationIssue] { filter { $0.severity == .error } }
    public var warnings: [ValidationIssue] { filter { $0.severity == .warning } }
}

/// Text normalisation for comparisons: case-folded, white space collapsed, punctuation (Latin and
/// Arabic) dropped at both ends. In Arabic (`language` "ar", "ar-SA" …) the letters alone are
/// compared: tatweel and short-vowel marks are dropped and the alef forms unified (`TextKey.foldArabic`).
public enum TextKey {
    public static func normalize(_ text: String, language: String = "en") -> String {
        normalize(text, language: language, foldingCase: true)
    }

    /// `normalize`, keeping letter case when `foldingCase` is false.
    public static func normalize(_ text: String, language: String, foldingCase: Bool) -> String {
        let source = isArabic(language) ? foldArabic(text) : text
        let collapsed = (foldingCase ? source.lowercased() : source).split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        // Arabic writers often set a space before "؟" and "؛"; English keys keep the space left
        // by "x ?" (an option's place in a course is derived from its prompt's key).
        return collapsed.trimmingCharacters(in: isArabic(language) ? arabicEnds : latinEnds)
    }

    static let latinEnds = CharacterSet(charactersIn: ".,;:!?\"'`،؛؟")
    static let arabicEnds = latinEnds.union(.whitespaces)

    /// Words that are not common filler — what a text must mention to be about a title. English:
    /// four letters or more; Arabic: three letters or more (most roots have three), after
    /// `foldArabic`.
    public static func significantWords(_ text: String, language: String = "en") -> [String] {
        if isArabic(language) {
            return foldArabic(text).split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
                .filter { $0.count >= 3 && !arabicStopWords.contains($0) }
        }
        return text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
            .filter { $0.count >= 4 && !englishStopWords.contains($0) }
    }

    /// Whether `language` (a BCP 47 tag such as "ar", "ar-EG") is Arabic.
    public static func isArabic(_ language: String) -> Bool {
        language.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).first == "ar"
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

    /// Whether a text ends as a question does: "?", and in Arabic also "؟".
    public static func endsWithQuestionMark(_ text: String, language: String = "en") -> Bool {
        let trimmed = text.trimmed
        return trimmed.hasSuffix("?") || (isArabic(language) && trimmed.hasSuffix("؟"))
    }

    static let englishStopWords: Set<String> = [
        "with", "from", "into", "about", "your", "that", "this", "what", "when", "their", "there", "using", "and", "the", "for", "introduction",
        "basics", "overview", "part",
    ]

    /// Particles, prepositions, pronouns and demonstratives, and the filler words of titles
    /// (introduction, basics, overview, part), folded as the text is.
    static let arabicStopWords: Set<String> = Set(
        [
            "في", "من", "إلى", "على", "عن", "ما", "هذا", "هذه", "ذلك", "تلك", "التي", "الذي", "الذين", "اللذان", "اللتان", "اللواتي", "أن", "إن",
            "كان", "كانت", "يكون", "تكون", "مع", "هو", "هي", "هم", "هن", "نحن", "أنت", "أنا", "أو", "ثم", "قد", "لقد", "لا", "لم", "لن", "ليس", "هل",
            "كل", "بعض", "غير", "بين", "عند", "عندما", "حتى", "إذا", "لكن", "بل", "إلا", "منذ", "خلال", "حول", "لدى", "نحو", "بعد", "قبل", "فوق",
            "تحت", "كما", "مثل", "أيضا", "هناك", "هنا", "ماذا", "متى", "أين", "كيف", "لماذا", "أي", "التى", "وهو", "وهي", "وفي", "ومن", "والتي",
            "والذي", "فيه", "فيها", "منه", "منها", "عليه", "عليها", "إليه", "إليها", "به", "بها", "له", "لها", "ذات", "مقدمة", "المقدمة", "أساسيات",
            "نظرة", "عامة", "جزء", "الجزء",
        ].map(foldArabic))
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

    /// Checks a multiple-choice question's options against its prompt. `labels` name the options
    /// in messages the way the model wrote them (say "correct_answer", "wrong_answers[2]"); by
    /// default "option 1" … "option N". `optionCount` is the number of options the question must
    /// have (2–6); `requiresFeedback` whether every option needs its feedback (a bank of bare
    /// questions has none).
    public static func checkMultipleChoice(
        prompt: String, options: [Choice], labels: [String]? = nil, optionCount: Int = QuestionRules.optionCount, language: String = "en",
        requiresFeedback: Bool = true
    ) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        let labels = labels.flatMap { $0.count == options.count ? $0 : nil } ?? options.indices.map { "option \($0 + 1)" }
        if !optionCounts.contains(optionCount) {
            issues.append(.error("a multiple-choice question has 2 to 6 options; \(optionCount) were asked for"))
        } else if options.count != optionCount {
            issues.append(.error("a multiple-choice question needs exactly \(optionCount) options; it has \(options.count)"))
        }
        let correct = options.filter(\.correct)
        if correct.count != 1 {
            issues.append(
                ValidationIssue(
                    severity: .error, message: "exactly one option must be correct; \(correct.count) are marked correct", kind: oneCorrectKind))
        }
        var seen: [String: Int] = [:]
        let promptKey = TextKey.normalize(prompt, language: language)
        let keys = options.map { TextKey.normalize($0.text, language: language) }
        // Options that differ only in letter case are the same answer ("A list", "a list") —
        // unless three or more options are spellings of one word: the question is then about the
        // letters' case ("the abbreviation for megahertz": mHz, mhZ, Mhz, MHz).
        var spellings: [String: Set<String>] = [:]
        for (key, option) in zip(keys, options) {
            spellings[key, default: []].insert(TextKey.normalize(option.text, language: language, foldingCase: false))
        }
        for (index, option) in options.enumerated() {
            let folded = keys[index]
            let key = (spellings[folded]?.count ?? 0) >= 3 ? TextKey.normalize(option.text, language: language, foldingCase: false) : folded
            if key.isEmpty {
                issues.append(.error("\(labels[index]) is empty"))
                continue
            }
            // Small models often copy the question, or write more questions, as options.
            if folded == promptKey || TextKey.endsWithQuestionMark(option.text, language: language) {
                issues.append(
                    .error(
                        "\(labels[index]) ('\(option.text.trimmed)') is a question; every option must be a possible answer to the question, not a question"
                    ))
                continue
            }
            if let first = seen[key] {
                issues.append(.error("\(labels[first]) and \(labels[index]) are the same ('\(option.text)'); every option must differ"))
            } else {
                seen[key] = index
            }
            if option.text.count > 300 { issues.append(.error("\(labels[index]) is longer than 300 characters")) }
            if requiresFeedback && option.feedback.trimmed.count < 3 {
                issues.append(.error("\(labels[index]) has no feedback; every option needs feedback explaining why it is right or wrong"))
            }
        }
        if correct.count == 1, let answer = correct.first {
            let key = TextKey.normalize(answer.text, language: language)
            // An answer of a word or two can legitimately appear in a question; a longer one
            // quoted in the prompt gives the answer away.
            if key.count >= 12 && key != promptKey && !TextKey.endsWithQuestionMark(answer.text, language: language) && promptKey.contains(key) {
                issues.append(.error("the prompt gives the answer away: it contains the correct option '\(answer.text)'"))
            }
            let others = options.filter { !$0.correct }.map(\.text.count)
            if !others.isEmpty {
                let mean = Double(others.reduce(0, +)) / Double(others.count)
                if Double(answer.text.count) > mean * 1.8 && answer.text.count - Int(mean) >= 25 {
                    issues.append(
                        .warning(
                            "the correct option is much longer than the others (\(answer.text.count) vs about \(Int(mean)) characters): its length alone may give it away",
                            kind: "the correct option is much longer than the others"))
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
        for i in options.indices {
            for j in options.indices where j > i && !keys[i].isEmpty && !keys[j].isEmpty && keys[i] != keys[j] {
                if restates(options[i].text, options[j].text, language: language) {
                    issues.append(
                        .error(
                            "\(labels[i]) ('\(options[i].text)') and \(labels[j]) ('\(options[j].text)') say the same thing in other words; every option must be a different answer"
                        ))
                }
            }
        }
        if requiresFeedback {
            var seen: [String: Int] = [:]
            for (index, option) in options.enumerated() where !option.correct {
                let feedback = TextKey.normalize(option.feedback, language: language)
                guard feedback.count >= 3 else { continue }
                if let first = seen[feedback] {
                    issues.append(
                        .error("\(labels[first]) and \(labels[index]) have the same feedback; each wrong answer's feedback says why that answer is wrong"))
                } else {
                    seen[feedback] = index
                }
            }
            if !TextKey.isArabic(language) {
                for (index, option) in options.enumerated() where !option.feedback.trimmed.isEmpty {
                    let contradicts = option.correct ? option.feedback.contains(callsWrong) : option.feedback.contains(callsRight)
                    if contradicts {
                        issues.append(
                            .error(
                                "\(labels[index])'s feedback ('\(option.feedback.prefix(100))') calls it \(option.correct ? "wrong" : "right"), but it is \(option.correct ? "the correct answer" : "a wrong answer"): "
                                    + "the feedback says why this answer is \(option.correct ? "right" : "wrong")"))
                    }
                }
            }
        }
        return issues
    }

    /// Feedback that calls its option right ("This answer is also correct", "While this is true"),
    /// which a wrong option's must not do; and feedback that calls it wrong, which the correct
    /// option's must not do. English wording only.
    /// An opening "Right" qualified in its own sentence ("Right idea, but …", "Yes, it loops, but
    /// …") does not call the option right.
    nonisolated(unsafe) static let callsRight =
        /(?i)^\s*(correct|right|yes)\b(?!\s+(idea|direction|track|thought|approach|start|instinct|intuition|question|place)\b)(?![^.!?]*\bbut\b)|\b(this|that|it)( answer| option| statement)? is (also |indeed |actually )?(correct|right|true)\b|\bis (also )?the (correct|right) answer\b|\bwhile (this|that|it) is true\b/
    nonisolated(unsafe) static let callsWrong =
        /(?i)^\s*(incorrect|wrong|no)\b|\b(this|that|it)( answer| option| statement)? is (incorrect|wrong|false|not correct)\b/

    /// Whether two options are one answer written twice: the same words in the same order once
    /// letter case, punctuation, articles (a, an, the; Arabic ال) and an English plural `s` are
    /// set aside ("A river." and "the rivers"). Every other word counts: real exams' distractors
    /// are often the key with one word changed ("above"/"below", "AND"/"OR") or two swapped ("4:1",
    /// "1:4"). Paraphrases in other words are left to blind solving.
    public static func restates(_ a: String, _ b: String, language: String) -> Bool {
        func words(_ text: String) -> [String] {
            // Symbols are words too: "P(A ∪ B)" and "P(A ∩ B)" are different answers.
            TextKey.normalize(text, language: language).split(whereSeparator: \.isWhitespace)
                .compactMap { raw in
                    var word = String(raw).trimmingCharacters(in: CharacterSet(charactersIn: ".,;:!?\"'`“”‘’«»،؛؟"))
                    if ["a", "an", "the"].contains(word) { return nil }
                    if TextKey.isArabic(language), word.hasPrefix("ال"), word.count > 3 { word.removeFirst(2) }
                    if !TextKey.isArabic(language), word.count > 3, word.hasSuffix("s"), !word.hasSuffix("ss"), !word.hasSuffix("us"), !word.hasSuffix("is") {
                        word.removeLast()
                    }
                    return word.isEmpty ? nil : word
                }
        }
        let x = words(a)
        return !x.isEmpty && x == words(b)
    }

    /// `distinctnessIssues` of a multiple-choice question's options with feedback, named "option
    /// 1" …: `lectern check`'s rule for course.json. (Not yet part of `checkMultipleChoice`, which
    /// the stages share: the recorded examples must first be recorded again under it.)
    public static func checkDistinctOptions(_ options: [Choice], language: String = "en") -> [ValidationIssue] {
        let keys = options.map { TextKey.normalize($0.text, language: language) }
        return distinctnessIssues(
            options: options, keys: keys, labels: options.indices.map { "option \($0 + 1)" }, requiresFeedback: true, language: language)
    }

    /// Checks a whole engagement or bonus question.
    /// `optionLabels`, `optionCount` and `language` as in `checkMultipleChoice`.
    public static func check(
        _ question: Question, expectedTopicID: String, optionLabels: [String]? = nil, optionCount: Int = QuestionRules.optionCount,
        language: String = "en"
    ) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        if question.topicID != expectedTopicID {
            issues.append(.error("the question must be about topic \(expectedTopicID), but it names topic \(question.topicID)"))
        }
        issues += checkLength("prompt", question.prompt, 10...1_500)
        issues += checkNoHeading("prompt", question.prompt)
        issues += checkLength("explanation", question.explanation, 20...3_000)
        switch question.format {
        case .multipleChoice:
            issues += checkMultipleChoice(
                prompt: question.prompt, options: question.options ?? [], labels: optionLabels, optionCount: optionCount, language: language)
        case .freeText:
            if (question.referenceAnswer ?? "").trimmed.count < 10 {
                issues.append(.error("a free-text question needs a reference answer of at least 10 characters"))
            }
            issues += checkFreeTextPrompt(question.prompt, referenceAnswer: question.referenceAnswer ?? "", language: language)
        }
        return issues
    }

    /// A free-text question must not carry its own answer: small models append "(answer: …)" or
    /// an "Answer: …" line to the question, or quote the reference answer in it. ("Justify your
    /// answer: …" is a question, and passes.)
    public static func checkFreeTextPrompt(
        _ prompt: String, referenceAnswer: String, label: String = "the prompt", language: String = "en"
    ) -> [ValidationIssue] {
        let marked = #"(?im)(\(\s*|^\s*)answers?\s*(is\s*)?[:=]"#
        if let marker = prompt.range(of: marked, options: .regularExpression) {
            let shown = prompt[marker.lowerBound...].trimmingCharacters(in: .whitespacesAndNewlines).prefix(60)
            return [.error("\(label) gives the answer away ('\(shown)…'); it must hold only the question — put the answer in 'reference_answer'")]
        }
        let promptKey = TextKey.normalize(prompt, language: language)
        let answerKey = TextKey.normalize(referenceAnswer, language: language)
        if answerKey.count >= 12 && promptKey.contains(answerKey) {
            return [.error("\(label) gives the answer away: it contains the reference answer '\(referenceAnswer.trimmed)'")]
        }
        return []
    }

    /// A question holds no Markdown heading outside its code: a prompt with "## The If
    /// Statement" in it is part of a lecture pasted in (the local model copied the lecture's
    /// opening, heading and code included, as its engagement question), never a question.
    public static func checkNoHeading(_ field: String, _ text: String) -> [ValidationIssue] {
        for line in TextIntegrity.outsideFencedCode(text).split(whereSeparator: \.isNewline) {
            guard line.first == "#" else { continue }
            let hashes = line.prefix { $0 == "#" }
            guard hashes.count <= 6, line.dropFirst(hashes.count).first == " " else { continue }
            return [
                .error(
                    "'\(field)' holds a heading ('\(line.trimmed.prefix(60))') as a lecture does: write only the question, in a sentence or two, not part of the lecture"
                )
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
        let prose = TextIntegrity.outsideFencedCode(text).replacing(/`[^`\n]*`/, with: " ").replacing(/\$\$?[^$]*\$\$?/, with: " ")
        let questions = prose.matches(of: /[^.!?؟\n]*[?؟]/).map { String($0.output).trimmed }.filter { !$0.isEmpty && $0 != "?" && $0 != "؟" }
        guard questions.count > 1 else { return [] }
        let quoted = questions.prefix(3).map { "'\($0.count > 80 ? $0.prefix(77) + "…" : Substring($0))'" }.joined(separator: ", ")
        return [
            .error(
                "'\(field)' asks \(questions.count) questions (\(quoted)\(questions.count > 3 ? ", …" : "")): a multiple-choice question asks one question, which its options answer"
            )
        ]
    }

    public static func checkLength(_ field: String, _ text: String, _ range: ClosedRange<Int>) -> [ValidationIssue] {
        let count = text.trimmed.count
        if count < range.lowerBound { return [.error("'\(field)' is too short (\(count) characters; at least \(range.lowerBound))")] }
        if count > range.upperBound { return [.error("'\(field)' is too long (\(count) characters; at most \(range.upperBound))")] }
        return []
    }
}

/// Checks on lecture Markdown.
public enum LectureRules {
    public static let wordRange = 120...6_000

    /// Removes a fence that wraps the whole answer (small models write ```markdown … ```).
    public static func unwrapFence(_ text: String) -> String {
        let trimmed = text.trimmed
        guard trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") else { return text }
        var lines = trimmed.components(separatedBy: "\n")
        guard lines.count >= 2 else { return text }
        let opener = lines[0].trimmingCharacters(in: .whitespaces)
        let info = opener.dropFirst(3).trimmingCharacters(in: .whitespaces).lowercased()
        guard ["", "markdown", "md", "mdx"].contains(info) else { return text }
        let fence = String(opener.prefix(3))
        guard lines.last?.trimmingCharacters(in: .whitespaces) == fence else { return text }
        lines.removeFirst()
        lines.removeLast()
        return lines.joined(separator: "\n") + "\n"
    }

    struct Heading {
        var level: Int
        var text: String
        var line: Int
    }

    /// Headings outside code fences, and whether the fences are balanced; `prose` holds every line
    /// outside code fences with its number.
    static func scan(
        _ markdown: String
    ) -> (
        headings: [Heading], contentLinesAfter: [Int: Int], fencesBalanced: Bool, fenceLine: Int?, prose: [(line: Int, text: String)]
    ) {
        var headings: [Heading] = []
        var contentAfter: [Int: Int] = [:]
        var prose: [(line: Int, text: String)] = []
        var openFence: (marker: Character, count: Int, line: Int)?
        for (index, rawLine) in markdown.components(separatedBy: "\n").enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if let fence = openFence {
                let run = line.prefix(while: { $0 == fence.marker }).count
                if run >= fence.count && line.dropFirst(run).trimmingCharacters(in: .whitespaces).isEmpty {
                    openFence = nil
                }
                if let last = headings.last { contentAfter[last.line, default: 0] += 1 }
                continue
            }
            if let marker = line.first, marker == "`" || marker == "~" {
                let run = line.prefix(while: { $0 == marker }).count
                if run >= 3 {
                    openFence = (marker, run, index + 1)
                    if let last = headings.last { contentAfter[last.line, default: 0] += 1 }
                    continue
                }
            }
            prose.append((index + 1, rawLine))
            if line.hasPrefix("#") {
                let level = line.prefix(while: { $0 == "#" }).count
                let rest = line.dropFirst(level)
                if level <= 6 && (rest.isEmpty || rest.first == " ") {
                    headings.append(Heading(level: level, text: rest.trimmingCharacters(in: .whitespaces), line: index + 1))
                    continue
                }
            }
            if !line.isEmpty, let last = headings.last { contentAfter[last.line, default: 0] += 1 }
        }
        return (headings, contentAfter, openFence == nil, openFence?.line, prose)
    }

    /// The targets of links and images outside code (`[text](target)`, `![alt](target)`,
    /// `[label]: target`) that name a file beside the document rather than a web address or a
    /// place in it, with their line numbers.
    public static func localLinks(_ markdown: String) -> [(line: Int, target: String)] {
        var found: [(line: Int, target: String)] = []
        for (number, text) in scan(markdown).prose {
            // Code spans are code, not links: `table[i](x)` in backticks is Python.
            let prose = text.replacingOccurrences(of: #"(`+).*?\1"#, with: "", options: .regularExpression)
            var targets: [String] = []
            for pattern in [#"\]\(\s*(<[^>]*>|[^\s)]+)"#, #"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)"#] {
                guard let regex = try? NSRegularExpression(pattern: pattern) else { continue }
                let range = NSRange(prose.startIndex..., in: prose)
                for match in regex.matches(in: prose, range: range) {
                    guard let target = Range(match.range(at: 1), in: prose) else { continue }
                    targets.append(String(prose[target]).trimmingCharacters(in: CharacterSet(charactersIn: "<>")))
                }
            }
            for target in targets where LocalReference.isLocal(target) { found.append((number, target)) }
        }
        return found
    }

    /// Errors for links and images to files beside a lecture or sample (`![diagram](diagram.png)`):
    /// a bundle ships no such files, so the reader would meet a broken link or image.
    public static func checkLocalLinks(_ markdown: String, document: String = "the lecture") -> [ValidationIssue] {
        localLinks(markdown).map { link in
            .error(
                "\(document) links to '\(link.target)' (line \(link.line)), a file the course does not have; link only to full https:// addresses, or leave the link or image out"
            )
        }
    }

    /// The lecture's `##` sections, each from its heading line up to the next `##` heading
    /// (deeper headings stay inside; headings in code fences do not count, as in `check`).
    /// Text before the first `##` belongs to no section.
    public static func sections(_ markdown: String) -> [String] {
        let lines = markdown.components(separatedBy: "\n")
        let starts = scan(markdown).headings.filter { $0.level == 2 }.map { $0.line - 1 }
        return starts.enumerated().map { index, start in
            let end = index + 1 < starts.count ? starts[index + 1] : lines.count
            return lines[start..<end].joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// Whether a section (as `sections` gives it) is a recap — its heading a conclusion, summary,
    /// recap, takeaways, wrap-up or review — which says again what the sections before it teach:
    /// questions are asked about the other sections first.
    public static func isRecap(_ section: String) -> Bool {
        let heading = section.prefix(while: { $0 != "\n" }).lowercased().split(whereSeparator: { !$0.isLetter })
        return heading.contains { word in recapWords.contains { word.hasPrefix($0) } }
    }

    static let recapWords = ["conclu", "summar", "recap", "takeaway", "wrap", "review"]

    /// Checks a lecture for a topic titled `topicTitle`, written in `language`.
    public static func check(_ markdown: String, topicTitle: String, language: String = "en") -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        let scan = scan(markdown)
        let h1 = scan.headings.filter { $0.level == 1 }
        if h1.isEmpty {
            issues.append(.error("the lecture has no title heading; start it with '# ' and the topic's title"))
        } else if h1.count > 1 {
            issues.append(
                .error(
                    "the lecture has \(h1.count) level-1 headings (lines \(h1.map { String($0.line) }.joined(separator: ", "))); use exactly one '# ' title and '## ' for sections"
                ))
        }
        if scan.headings.filter({ $0.level >= 2 }).isEmpty {
            issues.append(.error("the lecture has no sections; divide it with '## ' headings"))
        }
        for (i, heading) in scan.headings.enumerated() {
            let next = i + 1 < scan.headings.count ? scan.headings[i + 1] : nil
            let hasContent = (scan.contentLinesAfter[heading.line] ?? 0) > 0
            // A heading directly followed by a deeper heading is a parent, not an empty section.
            if !hasContent && (next == nil || next!.level <= heading.level) && heading.level >= 2 {
                issues.append(.error("the section '\(heading.text)' (line \(heading.line)) is empty"))
            }
        }
        if !scan.fencesBalanced {
            issues.append(.error("the code fence opened on line \(scan.fenceLine ?? 0) is never closed"))
        }
        issues += checkLocalLinks(markdown)
        let words = markdown.split(whereSeparator: { $0.isWhitespace }).count
        if words < wordRange.lowerBound {
            issues.append(.error("the lecture is too short (\(words) words; at least \(wordRange.lowerBound))"))
        } else if words > wordRange.upperBound {
            issues.append(.error("the lecture is too long (\(words) words; at most \(wordRange.upperBound))"))
        }
        let wanted = TextKey.significantWords(topicTitle, language: language)
        if !wanted.isEmpty {
            let arabic = TextKey.isArabic(language)
            let head = arabic ? TextKey.foldArabic(markdown) : markdown.lowercased()
            let found = wanted.filter { word in
                // Accept simple inflections: "loop" for "loops", "variable" for "variables"; in
                // Arabic the word with or without the article ("الحلقات", "حلقات").
                let stem =
                    arabic
                    ? (word.hasPrefix("ال") && word.count >= 5 ? String(word.dropFirst(2)) : word)
                    : (word.count > 5 ? String(word.prefix(word.count - 2)) : word)
                return head.contains(stem)
            }
            if found.isEmpty {
                issues.append(
                    .error(
                        "the lecture does not seem to be about '\(topicTitle)': none of \(wanted.map { "'\($0)'" }.joined(separator: ", ")) appears in it"
                    ))
            }
        }
        return issues
    }

    public static func wordCount(_ markdown: String) -> Int {
        markdown.split(whereSeparator: { $0.isWhitespace }).count
    }

    /// Reading time at 200 words a minute, at least one minute.
    public static func readingMinutes(_ markdown: String) -> Int {
        readingMinutes(words: wordCount(markdown))
    }

    public static func readingMinutes(words: Int) -> Int {
        max(1, Int((Double(words) / 200).rounded()))
    }
}

/// Checks on a generated or edited curriculum.
public enum CurriculumRules {
    public static func check(_ outline: Outline, subjects: SizeRange, topicsPerSubject: SizeRange) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        if outline.title.trimmingCharacters(in: .whitespaces).isEmpty { issues.append(.error("the curriculum has no title")) }
        if !(subjects.min...subjects.max).contains(outline.subjects.count) {
            issues.append(.error("the curriculum must have \(subjects) subjects; it has \(outline.subjects.count)"))
        }
        var titles: [String: String] = [:]
        for (i, subject) in outline.subjects.enumerated() {
            if subject.title.trimmingCharacters(in: .whitespaces).isEmpty { issues.append(.error("subject \(i + 1) has no title")) }
            if !(topicsPerSubject.min...topicsPerSubject.max).contains(subject.topics.count) {
                issues.append(.error("subject \(i + 1) ('\(subject.title)') must have \(topicsPerSubject) topics; it has \(subject.topics.count)"))
            }
            for topic in subject.topics {
                let key = TextKey.normalize(topic.title)
                if key.isEmpty {
                    issues.append(.error("a topic of subject \(i + 1) has no title"))
                } else if let other = titles[key] {
                    issues.append(.error("the topic '\(topic.title)' appears twice (also under '\(other)'); every topic must be distinct"))
                } else {
                    titles[key] = subject.title
                }
                if topic.title.count > 200 { issues.append(.error("the topic title '\(topic.title.prefix(40))…' is longer than 200 characters")) }
                let objective = topic.objective ?? ""
                if objective.trimmingCharacters(in: .whitespaces).count < 10 {
                    issues.append(.error("the topic '\(topic.title)' needs a one-line learning objective"))
                } else if objective.contains("\n") || objective.count > 300 {
                    issues.append(.error("the objective of '\(topic.title)' must be one line of at most 300 characters"))
                }
            }
        }
        return issues
    }
}

/// Checks on ending projects.
public enum ProjectRules {
    public static func check(_ project: EndingProject, expectedSubjectID: String) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        if project.subjectID != expectedSubjectID {
            issues.append(.error("the project must be for subject \(expectedSubjectID), but it names \(project.subjectID)"))
        }
        issues += QuestionRules.checkLength("title", project.title, 3...200)
        issues += QuestionRules.checkLength("brief", project.brief, 40...3_000)
        if project.requirements.count < 3 { issues.append(.error("a project needs at least 3 requirements; it has \(project.requirements.count)")) }
        if project.deliverables.isEmpty { issues.append(.error("a project needs at least one deliverable")) }
        if project.rubric.count < 3 { issues.append(.error("the rubric needs at least 3 criteria; it has \(project.rubric.count)")) }
        for criterion in project.rubric where criterion.points <= 0 {
            issues.append(.error("the rubric criterion '\(criterion.criterion)' must be worth more than 0 points"))
        }
        return issues
    }
}

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
            issues.append(.error("the pool needs exactly one question at each level 1, 2, 3 and 4; it has levels \(levels)"))
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
        var issues: [ValidationIssue] = []
        let label = "the level-\(q.level) question"
        if q.topicID != expectedTopicID { issues.append(.error("\(label) must be about topic \(expectedTopicID), not \(q.topicID)")) }
        issues += QuestionRules.checkLength("\(label)'s prompt", q.prompt, 10...1_500)
        issues += QuestionRules.checkNoHeading("\(label)'s prompt", q.prompt)
        issues += QuestionRules.checkLength("\(label)'s explanation", q.explanation, 10...3_000)
        if let options = q.options, !options.isEmpty {
            let checked = QuestionRules.checkMultipleChoice(
                prompt: q.prompt, options: options, labels: optionLabels, optionCount: optionCount, language: language)
            issues += checked.map {
                ValidationIssue(severity: $0.severity, message: "\(label): \($0.message)", kind: $0.kind)
            }
        } else if q.level <= 2 {
            issues.append(.error("\(label) must have multiple-choice options (levels 1 and 2 are shown as multiple choice)"))
        }
        // Level 2's reference answer can be as short as its correct option ("red ball"); levels
        // 3–4 ask for an explanation or an application, so a few words are not enough.
        let reference = (q.referenceAnswer ?? "").trimmed.count
        if q.level == 2 && reference == 0 {
            issues.append(.error("\(label) needs a reference answer for self-assessment (level 2 can be shown as free text)"))
        } else if q.level >= 3 && reference < 10 {
            issues.append(.error("\(label) needs a reference answer of at least 10 characters for self-assessment"))
        }
        if q.level >= 3 {
            issues += QuestionRules.checkFreeTextPrompt(
                q.prompt, referenceAnswer: q.referenceAnswer ?? "", label: "\(label)'s prompt", language: language)
        }
        return issues
    }
}
