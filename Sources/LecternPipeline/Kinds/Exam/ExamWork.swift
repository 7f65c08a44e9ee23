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
            corpus = try ExamCorpus.load(exam.corpus, relativeTo: base)
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
        for item in plan.items where item.passage == nil {
            guard let (section, category) = place(item.section, item.category) else { continue }
            // The n-th item on a text gets its n-th sentence (by plan order, which depends only on
            // the items and that text).
            let ordinal = drawn[item.groundingSHA256, default: 0]
            drawn[item.groundingSHA256] = ordinal + 1
            let sentences = Self.sentences(item.groundingText)
            questions.append(
                Question(
                    id: item.id, section: section, category: category, difficulty: item.difficulty, document: item.document,
                    source: item.groundingText, focus: sentences.isEmpty ? item.groundingText : sentences[ordinal % sentences.count]))
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

    /// The sentences of `text` long enough to ask about (at least 40 characters), in order;
    /// headings and list markers are not sentences.
    static func sentences(_ text: String) -> [String] {
        var out: [String] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            var current = ""
            for character in line {
                current.append(character)
                if ".?!؟".contains(character) {
                    out.append(current.trimmed)
                    current = ""
                }
            }
            out.append(current.trimmed)
        }
        return out.filter { $0.count >= 40 }
    }

    /// Why `quote` does not ground an item citing `document`, or nil when it does.
    public func groundingProblem(quote: String, document: String) -> String? {
        switch corpus.contains(quote: quote, inDocument: document) {
        case .found: return nil
        case .tooShort:
            return "'source_quote' ('\(quote.prefix(80))') is too short to show where the answer comes from; copy a whole sentence or phrase of at least four words"
        case .documentNotFound:
            return "'source_quote' cites a document that is not in the corpus"
        case .notFound:
            return "'source_quote' ('\(quote.prefix(120))') does not occur in the source text; copy it character for character from the text you were given"
        }
    }

    /// The text an item is compared by for duplicates: its stem and its options (templated
    /// categories share a stem, "Which word does not belong?", and differ in their options).
    public static func duplicateKey(_ item: ExamItem) -> String {
        ([item.prompt] + item.options.map(\.text)).joined(separator: " ")
    }

    /// The stem among `stems` that `prompt` near-duplicates, if any.
    public func repeats(_ prompt: String, among stems: [String]) -> String? {
        guard !stems.isEmpty else { return nil }
        var index = NearDuplicateIndex()
        for (i, stem) in stems.enumerated() { index.insert(id: "\(i)", text: stem) }
        return index.firstDuplicate(of: prompt).flatMap { Int($0) }.map { stems[$0] }
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
