import Foundation
import LecternCore

/// The exam's work over its corpus, planned before any call: the source of each item, the
/// passages of the reading sets, and the checks that need the corpus or the whole bank
/// (grounding, duplicates). Built from LecternCore's `ExamCorpus` and `ExamSourcePlan`.
public struct ExamWork: Sendable {
    /// One item of a standard category and the corpus text it is built on.
    public struct Question: Sendable {
        /// `verbal/analogies/medium-03`
        public var id: String
        public var section: ExamSection
        public var category: ExamCategory
        public var difficulty: Difficulty
        /// The document the source comes from (its id).
        public var document: String
        public var source: String
        /// The sentence of the source the question is to be built on: items drawn from the same
        /// text are pointed at different sentences, so their prompts (and questions) differ.
        public var focus: String
    }

    /// A reading-comprehension passage and the questions asked on it.
    public struct PassageSet: Sendable {
        public struct Slot: Sendable {
            /// `verbal/reading-comprehension/p02-q1`
            public var id: String
            public var difficulty: Difficulty
        }

        public var passage: Passage
        /// 1-based, across the bank.
        public var number: Int
        public var section: ExamSection
        public var category: ExamCategory
        public var questions: [Slot]
    }

    public var questions: [Question]
    public var passages: [PassageSet]
    public var documents: [CorpusDocumentInfo]
    let corpus: ExamCorpus

    /// Loads the corpus and plans the sources; throws `PipelineError` naming every blueprint
    /// cell the corpus cannot serve.
    public static func make(spec: JobSpec, exam: ExamSpec) throws -> ExamWork {
        let base = spec.baseDirectory ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        let corpus: ExamCorpus
        do {
            corpus = try ExamCorpus.load(exam.corpus, relativeTo: base, roots: spec.resolvedFileRoots)
        } catch {
            throw PipelineError("the corpus could not be read: \(error)")
        }
        let plan: ExamSourcePlan
        switch ExamSourcePlan.make(spec: exam, corpus: corpus) {
        case .failure(let error):
            throw PipelineError("the corpus cannot serve the blueprint:\n" + error.description)
        case .success(let made):
            plan = made
        }
        let sections = Dictionary(exam.sections.map { ($0.id, $0) }) { a, _ in a }
        func place(_ section: String, _ category: String) -> (ExamSection, ExamCategory)? {
            guard let s = sections[section], let c = s.categories.first(where: { $0.id == category }) else { return nil }
            return (s, c)
        }
        var questions: [Question] = []
        var drawn: [String: Int] = [:]
        var computed: [String: Int] = [:]
        for item in plan.items where item.passage == nil {
            guard let (section, category) = place(item.section, item.category) else { continue }
            if category.format.computesKey {
                // Not grounded in the corpus: the n-th item of the cell gets the n-th topic, in turn.
                let cell = "\(section.id)/\(category.id)"
                let ordinal = computed[cell, default: 0]
                computed[cell] = ordinal + 1
                let topic = category.topics.flatMap { $0.isEmpty ? nil : $0[ordinal % $0.count] } ?? ""
                questions.append(
                    Question(
                        id: item.id, section: section, category: category, difficulty: item.difficulty, document: "", source: "", focus: topic))
                continue
            }
            // The n-th item on a text gets its n-th sentence (by plan order, which depends only on
            // the items and that text).
            let ordinal = drawn[item.groundingSHA256, default: 0]
            drawn[item.groundingSHA256] = ordinal + 1
            let sentences = ExamRules.sentences(item.groundingText)
            questions.append(
                Question(
                    id: item.id, section: section, category: category, difficulty: item.difficulty, document: item.document,
                    source: item.groundingText,
                    focus: sentences.isEmpty ? item.groundingText : ExamRules.withoutFieldLabel(sentences[ordinal % sentences.count])))
        }
        var passages: [PassageSet] = []
        for (index, planned) in plan.passages.enumerated() {
            guard let (section, category) = place(planned.section, planned.category) else { continue }
            passages.append(
                PassageSet(
                    passage: Passage(id: planned.id, section: section.id, category: category.id, text: planned.text, document: planned.document),
                    number: index + 1, section: section, category: category,
                    questions: zip(planned.items, planned.difficulties).map { PassageSet.Slot(id: $0, difficulty: $1) }))
        }
        return ExamWork(questions: questions, passages: passages, documents: corpus.documentInfos, corpus: corpus)
    }

    /// Why `quote` does not ground an item citing `document`, or nil when it does. `given`: the
    /// text the model was shown (the passage, or the chunk a standard item is built on); when the
    /// quote is not in the document, the message points at the sentence of it closest to the quote.
    public func groundingProblem(quote: String, document: String, given: String? = nil) -> String? {
        switch corpus.contains(quote: quote, inDocument: document) {
        case .found: return nil
        case .tooShort:
            return "'source_quote' ('\(quote.prefix(80))') is too short to show where the answer comes from; copy a whole sentence or phrase of at least four words"
        case .documentNotFound:
            return "'source_quote' cites a document that is not in the corpus"
        case .notFound:
            let problem = "'source_quote' ('\(quote.prefix(120))') does not occur in the source text; copy it character for character from the text you were given"
            guard let given, let closest = GroundingText.closestSentence(to: quote, among: ExamRules.sentences(given)) else { return problem }
            return problem + ". Its closest sentence is '\(closest.prefix(240))': copy that sentence if it supports the correct answer, or another that does"
        }
    }

    /// The source quote an item keeps: `quote` itself, or, when a lead-in such as "The passage
    /// states that" stands before words the document has, those words (the framing is not part
    /// of what the source says; the words must still be the source's); or, when the quote (with
    /// or without its lead-in) is a sentence of `given` (the text the model was shown) with one
    /// word wrong, that sentence as the document has it (`GroundingText.misTypedSentence`) —
    /// unless a word the quote has and the sentence lacks is in `claims` (the stem and options):
    /// then the item is built on the misreading. The local model keyed "Several exploration
    /// expeditions" from its quote "Several exploration expeditions were achieved …", where the
    /// passage says 'Several exploration "firsts" were achieved …'.
    public func groundedQuote(_ quote: String, document: String, given: String? = nil, claims: [String] = []) -> String {
        guard corpus.contains(quote: quote, inDocument: document) != .found else { return quote }
        let bare = GroundingText.withoutLeadIn(quote)
        if let bare, corpus.contains(quote: bare, inDocument: document) == .found { return bare }
        guard let given, let sentence = GroundingText.misTypedSentence(bare ?? quote, among: ExamRules.sentences(given)),
            corpus.contains(quote: sentence, inDocument: document) == .found
        else { return quote }
        let words = { (text: String) in Set(GroundingText.normalize(text).split(separator: " ")) }
        let misread = words(bare ?? quote).subtracting(words(sentence))
        let claimed = claims.reduce(into: Set<Substring>()) { $0.formUnion(words($1)) }
        return misread.isDisjoint(with: claimed) ? sentence : quote
    }

    /// A check of an item's answer key against its source sentence: what is wrong, and the span of
    /// the source the key was found in (the item's source quote, verified).
    public struct KeyCheck: Sendable {
        public var issues: [ValidationIssue] = []
        public var grounded: String?

        /// This check with `focus` as its grounded span when it found no problem and `holds` says
        /// the focus sentence is where the key was checked.
        func grounding(_ focus: String?, holds: (String) -> Bool) -> KeyCheck {
            var copy = self
            if issues.isEmpty, let focus, holds(focus) { copy.grounded = focus }
            return copy
        }
    }

    /// What makes a sentence-completion item's key wrong: the stem filled with the correct option
    /// must give the source's words, and filled with a wrong option must not (else two options are
    /// right). Nothing when the stem does not have exactly one blank (`ExamRules.check` says so).
    /// The span found is `focus` when that sentence holds it, else the filled stem's words.
    public func completionProblems(_ item: ExamItem, labels: [String]?, document: String, focus: String? = nil) -> KeyCheck {
        var result = KeyCheck()
        guard ExamRules.blanks(in: item.prompt).count == 1 else { return result }
        let names = labels.flatMap { $0.count == item.options.count ? $0 : nil } ?? item.options.indices.map { "option \($0 + 1)" }
        var issues: [ValidationIssue] = []
        for (index, option) in item.options.enumerated() {
            guard let fragment = ExamRules.completedFragment(stem: item.prompt, filler: option.text) else { continue }
            let check = corpus.contains(quote: fragment, inDocument: document)
            if option.correct {
                switch check {
                case .found:
                    result.grounded = focus.flatMap { GroundingText.contains(fragment, in: $0) ? $0 : nil } ?? fragment
                case .tooShort:
                    issues.append(
                        .error("the stem is too short to place in the source text ('\(fragment.prefix(120))'); use a whole sentence of the source text with one blank", check: .stageRules))
                default:
                    issues.append(
                        .error(
                            "the stem completed with the correct option reads '\(fragment.prefix(160))', which is not what the source text says: "
                                + "copy a sentence of the source text into the stem, replace one word with '____', and make that word the correct option", check: .stageRules))
                }
            } else if check == .found {
                issues.append(
                    .error(
                        "\(names[index]) ('\(option.text)') also completes the sentence as the source text has it; a wrong option must not fit the source's sentence", check: .stageRules))
            }
        }
        result.issues = issues
        if !issues.isEmpty { result.grounded = nil }
        return result
    }

    /// What makes a wrong-word item's key wrong: its sentence, the key word taken out, must be a
    /// sentence of the source with another word in that place (so the key is the changed word, and
    /// the other words are the source's). Nothing when the key is not a word of the stem
    /// (`ExamRules.check` says so).
    /// The span found is `focus` when that sentence holds the words either side of the key.
    public func wrongWordProblems(_ item: ExamItem, document: String, focus: String? = nil) -> KeyCheck {
        let context = Self.wrongWordContext(item)
        return KeyCheck(issues: wrongWordIssues(item, context: context, document: document), grounded: nil)
            .grounding(focus) { focus in
                guard let (left, right) = context else { return false }
                return (left.isEmpty || GroundingText.contains(left, in: focus)) && (right.isEmpty || GroundingText.contains(right, in: focus))
            }
    }

    /// The words of the stem's sentence before and after the key, normalized.
    static func wrongWordContext(_ item: ExamItem) -> (left: String, right: String)? {
        guard let key = item.options.first(where: \.correct) else { return nil }
        let words = GroundingText.normalize(String(ExamRules.stemSentence(item.prompt))).split(separator: " ").map(String.init)
        let keyWords = GroundingText.normalize(key.text).split(separator: " ").map(String.init)
        guard !keyWords.isEmpty, keyWords.count <= words.count,
            let at = (0...(words.count - keyWords.count)).first(where: { Array(words[$0..<($0 + keyWords.count)]) == keyWords })
        else { return nil }
        return (words[..<at].joined(separator: " "), words[(at + keyWords.count)...].joined(separator: " "))
    }

    func wrongWordIssues(_ item: ExamItem, context: (left: String, right: String)?, document: String) -> [ValidationIssue] {
        guard let key = item.options.first(where: \.correct), let (left, right) = context else { return [] }
        guard (left + " " + right).split(separator: " ").count >= 3 else {
            return [.error("the stem's sentence is too short to place in the source text; use a whole sentence of the source text with one word changed", check: .stageRules)]
        }
        let gaps = corpus.gaps(between: left, and: right, maxGap: 3, inDocument: document)
        let shown = "\(left) ___ \(right)".trimmed
        if gaps.isEmpty {
            return [
                .error(
                    "the stem's sentence without the correct option's word ('\(shown.prefix(160))') is not a sentence of the source text: "
                        + "copy a sentence of the source text, change exactly one word to a word that contradicts its meaning, and make that word the correct option", check: .stageRules)
            ]
        }
        if gaps.contains(GroundingText.normalize(key.text)) {
            return [
                .error(
                    "the stem's sentence is the source's sentence unchanged, so '\(key.text)' is not wrong in it: "
                        + "change one word of the sentence to a word that contradicts its meaning, and make that word the correct option", check: .stageRules)
            ]
        }
        return []
    }

    /// The text an item is compared by for duplicates: its stem and its options (templated
    /// categories share a stem, "Which word does not belong?", and differ in their options).
    public static func duplicateKey(_ item: ExamItem) -> String {
        ([item.prompt] + item.options.map(\.text)).joined(separator: " ")
    }

    /// Stems an item may not repeat (`duplicateKey`s of the bank kept so far), indexed once per
    /// call rather than once per attempt: a re-asked item checks each answer against the whole bank.
    public struct AvoidedStems: Sendable {
        private var index = NearDuplicateIndex()
        private var stems: [String] = []

        public init(_ stems: [String] = []) {
            for stem in stems { insert(stem) }
        }

        public mutating func insert(_ stem: String) {
            index.insert(id: "\(stems.count)", text: stem)
            stems.append(stem)
        }

        /// The stem `text` near-duplicates, if any.
        public func repeated(by text: String) -> String? {
            index.firstDuplicate(of: text).flatMap { Int($0) }.map { stems[$0] }
        }
    }

    /// The drafts (item or reading set, in order) with a stem near-duplicating an earlier one,
    /// each with the stem it repeats. Stems within one draft are compared too.
    public func duplicates(in drafts: [(id: String, stems: [String])]) -> [String: String] {
        var index = NearDuplicateIndex()
        var found: [String: String] = [:]
        var stems: [String: String] = [:]
        var counter = 0
        for draft in drafts {
            var clean = true
            for stem in draft.stems {
                if let earlier = index.firstDuplicate(of: stem) {
                    found[draft.id] = stems[earlier] ?? ""
                    clean = false
                    break
                }
            }
            guard clean else { continue }
            for stem in draft.stems {
                counter += 1
                index.insert(id: "\(counter)", text: stem)
                stems["\(counter)"] = stem
            }
        }
        return found
    }
}
