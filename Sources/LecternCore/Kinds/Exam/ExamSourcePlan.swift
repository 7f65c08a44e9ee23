import Foundation

/// What every item of the bank is grounded in, decided before any model call: a chunk of the
/// corpus for each standard item, a passage for each reading-comprehension set.
///
/// Deterministic and local, so that editing one document re-asks only the items drawn from it.
/// Choices are rendezvous (highest-random-weight) hashing over contents:
/// - a standard item takes, among the groundable chunks of the documents serving its cell, the one
///   with the highest hash of (item id, document id, chunk text), skipping chunks that already
///   ground `itemsPerChunk` items of the cell. A long document draws items in proportion to its
///   chunks, and the items of a cell spread over chunks at random;
/// - a reading passage slot (`section/category#n`) takes, among the passages serving its cell that
///   no earlier slot took, the one with the highest hash of (slot, passage text): a passage is used
///   once in the bank.
/// An item's choice therefore changes only when the chunk or passage it had, or one that now
/// outranks it, changed: when it was or is now drawn from the edited document. The exception is
/// competition: when a chunk is full or two slots prefer one passage, the later item takes its
/// next choice, and moves back if the earlier one leaves.
///
/// Coverage rules (a cell the corpus cannot serve is a `CoverageProblem`, before any model call):
/// - some `corpus:` entry must serve the cell;
/// - a standard cell of n items needs at least ⌈n / `itemsPerChunk`⌉ groundable chunks (200
///   characters or more) in the documents serving it;
/// - a reading cell of n questions, min–max per passage, takes ⌈n / max⌉ passages of near-equal
///   size, which must each reach min; it needs that many passages (600–2,500 characters of
///   consecutive prose paragraphs, at least 3 sentences) serving it and not taken by an earlier cell.
public struct ExamSourcePlan: Sendable, Hashable {
    /// Every item in bank order: sections, their categories, then easy to hard (standard) or
    /// passage by passage (reading).
    public var items: [PlannedItem]
    /// The reading-comprehension passages, `p01` … in bank order.
    public var passages: [PlannedPassage]

    /// The most items of one cell a chunk grounds.
    public static let itemsPerChunk = 3
    /// Questions per passage when a reading category does not say.
    public static let defaultQuestionsPerPassage = SizeRange(min: 2, max: 5)

    public init(items: [PlannedItem], passages: [PlannedPassage]) {
        self.items = items
        self.passages = passages
    }

    /// The plan for `spec` over `corpus`, or every blueprint cell the corpus cannot serve.
    public static func make(spec: ExamSpec, corpus: ExamCorpus) -> Result<ExamSourcePlan, CoverageError> {
        var planner = Planner(corpus: corpus)
        for (section, category) in spec.cells where category.counts.total > 0 {
            switch category.format {
            case .standard, .fact, .vocabulary, .completion, .wrongWord, .analogy: planner.planStandard(section: section.id, category: category)
            case .quantitative, .geometry: planner.planComputed(section: section.id, category: category)
            case .reading: planner.planReading(section: section.id, category: category)
            }
        }
        if !planner.problems.isEmpty { return .failure(CoverageError(problems: planner.problems)) }
        return .success(ExamSourcePlan(items: planner.items, passages: planner.passages))
    }

    /// The planned item with this id.
    public func item(_ id: String) -> PlannedItem? { items.first { $0.id == id } }
}

/// One item of the bank and what it is grounded in.
public struct PlannedItem: Sendable, Hashable {
    /// `verbal/analogies/medium-03` (standard: difficulty and 2-digit number within it, from 01) or
    /// `verbal/reading-comprehension/p02-q1` (reading: passage and question number).
    public var id: String
    public var section: String
    public var category: String
    public var difficulty: Difficulty
    /// The document it is grounded in.
    public var document: String
    /// The chunk's id (`<document>#<n>`), for a standard item.
    public var chunk: String?
    /// The passage's id (`p02`), for a reading question.
    public var passage: String?
    /// What it is grounded in, verbatim: the chunk's text or the passage's.
    public var groundingText: String
    /// SHA-256 of `groundingText`: changes exactly when what the item is asked about changes.
    public var groundingSHA256: String

    public init(
        id: String, section: String, category: String, difficulty: Difficulty, document: String, chunk: String?, passage: String?,
        groundingText: String, groundingSHA256: String
    ) {
        self.id = id; self.section = section; self.category = category; self.difficulty = difficulty; self.document = document
        self.chunk = chunk; self.passage = passage; self.groundingText = groundingText; self.groundingSHA256 = groundingSHA256
    }
}

/// A reading-comprehension passage and the questions asked about it.
public struct PlannedPassage: Sendable, Hashable {
    /// `p01` …, unique in the bank.
    public var id: String
    public var section: String
    public var category: String
    public var document: String
    /// The corpus passage's id (`<document>@<n>`).
    public var source: String
    /// UTF-8 offsets into the document's text.
    public var range: Range<Int>
    public var text: String
    public var sha256: String
    /// Its questions' item ids, `…/p01-q1` …
    public var items: [String]
    /// Their difficulties, one per question, in order.
    public var difficulties: [Difficulty]

    public init(
        id: String, section: String, category: String, document: String, source: String, range: Range<Int>, text: String, sha256: String,
        items: [String], difficulties: [Difficulty]
    ) {
        self.id = id; self.section = section; self.category = category; self.document = document; self.source = source
        self.range = range; self.text = text; self.sha256 = sha256; self.items = items; self.difficulties = difficulties
    }
}

/// A blueprint cell the corpus cannot serve.
public struct CoverageProblem: Sendable, Hashable, CustomStringConvertible {
    public var section: String
    public var category: String
    public var message: String
    /// What to do about it.
    public var hint: String

    public init(section: String, category: String, message: String, hint: String) {
        self.section = section; self.category = category; self.message = message; self.hint = hint
    }

    /// `section/category`.
    public var cell: String { "\(section)/\(category)" }

    public var description: String { "\(message)\n  hint: \(hint)" }
}

/// Every blueprint cell the corpus cannot serve.
public struct CoverageError: Error, Sendable, CustomStringConvertible {
    public var problems: [CoverageProblem]

    public init(problems: [CoverageProblem]) {
        self.problems = problems
    }

    public var description: String { problems.map(\.description).joined(separator: "\n") }

    /// The problems as diagnostics of the spec file `file`.
    public func diagnostics(file: String) -> [SpecDiagnostic] {
        problems.map { SpecDiagnostic(file: file, message: $0.message, hint: $0.hint) }
    }
}

// MARK: - Planning

private struct Planner {
    let corpus: ExamCorpus
    var items: [PlannedItem] = []
    var passages: [PlannedPassage] = []
    var problems: [CoverageProblem] = []
    /// Corpus passages already used, by id, with the cell that took each.
    var taken: [String: String] = [:]
    /// Content hashes of the passages used.
    var takenTexts = Set<UInt64>()
    /// Content hashes of each document's chunks and passages (by index), made once.
    var chunkHashes: [String: [UInt64]] = [:]
    var passageHashes: [String: [UInt64]] = [:]

    init(corpus: ExamCorpus) {
        self.corpus = corpus
    }

    /// The documents serving a cell, or nil after recording the problem.
    private mutating func serving(section: String, category: ExamCategory) -> [CorpusDocument]? {
        let documents = corpus.documents(servingSection: section, category: category.id)
        if documents.isEmpty {
            problems.append(
                CoverageProblem(
                    section: section, category: category.id,
                    message: "blueprint cell \(section)/\(category.id) (\(category.counts.total) items) has no corpus entry serving it",
                    hint: "the corpus entries limit their sections or categories: list '\(category.id)' (and '\(section)') in one of them, "
                        + "or add an entry without limits"))
            return nil
        }
        return documents
    }

    mutating func planStandard(section: String, category: ExamCategory) {
        guard let documents = serving(section: section, category: category) else { return }
        let cell = "\(section)/\(category.id)"
        let count = category.counts.total
        let candidates = documents.map { ($0, $0.groundableChunks) }.filter { !$0.1.isEmpty }
        let chunkCount = candidates.reduce(0) { $0 + $1.1.count }
        let needed = (count + ExamSourcePlan.itemsPerChunk - 1) / ExamSourcePlan.itemsPerChunk
        if chunkCount == 0 {
            problems.append(
                CoverageProblem(
                    section: section, category: category.id,
                    message: "blueprint cell \(cell) asks for \(count) items but no document serving it has a chunk of at least "
                        + "\(CorpusIndex.groundableMinimum) characters (\(Self.list(documents.map(\.id))))",
                    hint: "add prose to the documents serving it, or name more documents in corpus:"))
            return
        }
        if chunkCount < needed {
            problems.append(
                CoverageProblem(
                    section: section, category: category.id,
                    message:
                        "blueprint cell \(cell) asks for \(count) items but the corpus has \(chunkCount) chunk\(chunkCount == 1 ? "" : "s") of at least "
                        + "\(CorpusIndex.groundableMinimum) characters serving it (\(Self.list(candidates.map(\.0.id)))), "
                        + "and a chunk grounds at most \(ExamSourcePlan.itemsPerChunk) items of a cell",
                    hint: "add documents serving it, or lower the count to \(chunkCount * ExamSourcePlan.itemsPerChunk)"))
            return
        }

        // Item ids: difficulty-NN, numbered within each difficulty.
        var ids: [(id: String, difficulty: Difficulty)] = []
        for difficulty in Difficulty.allCases where category.counts[difficulty] > 0 {
            for n in 1...category.counts[difficulty] { ids.append(("\(cell)/\(difficulty.rawValue)-\(Self.twoDigits(n))", difficulty)) }
        }

        // Every groundable chunk serving the cell, keyed by its document's id and its content. The
        // keys are an array of their own: the loop below reads them once per item.
        var chunks: [(document: Int, chunk: CorpusChunk)] = []
        var keys: [UInt64] = []
        for (d, (document, groundable)) in candidates.enumerated() {
            let contentHashes = hashes(of: document, \.chunkHashes, document.chunks.map(\.range))
            let documentHash = Rendezvous.mix(Rendezvous.hash(document.id))
            for chunk in groundable {
                chunks.append((d, chunk))
                keys.append(Rendezvous.mix(documentHash ^ contentHashes[chunk.index - 1]))
            }
        }
        // Chunk per item: the highest rendezvous score among chunks with room for another item of the cell.
        var load = [UInt8](repeating: 0, count: chunks.count)
        for item in ids {
            let key = Rendezvous.hash(item.id)
            var best = -1
            var bestScore: UInt64 = 0
            keys.withUnsafeBufferPointer { keys in
                for c in 0..<keys.count where load[c] < ExamSourcePlan.itemsPerChunk {
                    let score = Rendezvous.mix(key ^ keys[c])
                    if best < 0 || score > bestScore {
                        best = c
                        bestScore = score
                    }
                }
            }
            guard best >= 0 else { break }  // cannot happen: the capacity was checked above
            load[best] += 1
            let chunk = chunks[best].chunk
            let document = candidates[chunks[best].document].0
            let text = document.text(chunk.range)
            items.append(
                PlannedItem(
                    id: item.id, section: section, category: category.id, difficulty: item.difficulty, document: document.id, chunk: chunk.id,
                    passage: nil, groundingText: text, groundingSHA256: SHA256Digest.hex(text)))
        }
    }

    /// A computed-key cell is not grounded in the corpus: its items are planned without a source.
    mutating func planComputed(section: String, category: ExamCategory) {
        let cell = "\(section)/\(category.id)"
        for difficulty in Difficulty.allCases where category.counts[difficulty] > 0 {
            for n in 1...category.counts[difficulty] {
                items.append(
                    PlannedItem(
                        id: "\(cell)/\(difficulty.rawValue)-\(Self.twoDigits(n))", section: section, category: category.id, difficulty: difficulty,
                        document: "", chunk: nil, passage: nil, groundingText: "", groundingSHA256: SHA256Digest.hex("")))
            }
        }
    }

    mutating func planReading(section: String, category: ExamCategory) {
        let cell = "\(section)/\(category.id)"
        let total = category.counts.total
        let range = category.questionsPerPassage ?? ExamSourcePlan.defaultQuestionsPerPassage
        guard range.min >= 1, range.max >= range.min else {
            problems.append(
                CoverageProblem(
                    section: section, category: category.id,
                    message: "blueprint cell \(cell) has questions_per_passage \(range.min)–\(range.max)",
                    hint:
                        "questions per passage must be at least 1, the minimum not above the maximum (default \(ExamSourcePlan.defaultQuestionsPerPassage))"
                ))
            return
        }
        let passageCount = (total + range.max - 1) / range.max
        guard passageCount * range.min <= total else {
            let lower = (1..<total).reversed().first { Self.splits($0, range) }
            let higher = (total + 1...(total + range.max * range.min)).first { Self.splits($0, range) }
            let choices = [lower, higher].compactMap { $0 }.map(String.init).joined(separator: " or ")
            problems.append(
                CoverageProblem(
                    section: section, category: category.id,
                    message: "blueprint cell \(cell) asks for \(total) question\(total == 1 ? "" : "s"), which cannot be split into passages "
                        + "of \(range) questions each",
                    hint: "ask for \(choices) questions, or change questions_per_passage"))
            return
        }
        guard let documents = serving(section: section, category: category) else { return }
        let available = documents.reduce(0) { $0 + $1.passages.count }
        let shape =
            "\(passageCount) passage\(passageCount == 1 ? "" : "s") (\(total) questions, \(range) per passage)"
        let rule =
            "\(CorpusIndex.passageMinimum)–\(CorpusIndex.passageMaximum) characters of consecutive prose paragraphs, "
            + "at least \(CorpusIndex.passageMinimumSentences) sentences"
        if available < passageCount {
            let holding = documents.filter { !$0.passages.isEmpty }.map(\.id)
            problems.append(
                CoverageProblem(
                    section: section, category: category.id,
                    message: "blueprint cell \(cell) asks for \(shape) but the corpus has \(available) passage-length "
                        + "span\(available == 1 ? "" : "s") serving it (\(rule))"
                        + (holding.isEmpty ? "" : " in \(Self.list(holding))"),
                    hint: "add documents of at least \(CorpusIndex.passageMinimum) characters of prose serving it, or lower the count to "
                        + "\(available * range.max)"))
            return
        }

        // Questions per passage: near-equal sizes, larger first; difficulties in blueprint order (easy first).
        let sequence = category.counts.sequence
        var sizes = [Int](repeating: total / passageCount, count: passageCount)
        for p in 0..<(total % passageCount) { sizes[p] += 1 }

        // Every passage serving the cell and not taken, with its content hash; a text met twice (a
        // document copied into the corpus twice) is one candidate, so no passage text is used twice.
        var candidates: [(document: CorpusDocument, passage: CorpusPassage, hash: UInt64)] = []
        var texts = Set<UInt64>()
        for document in documents {
            let contentHashes = hashes(of: document, \.passageHashes, document.passages.map(\.range))
            for passage in document.passages where taken[passage.id] == nil {
                let hash = contentHashes[passage.index - 1]
                guard !takenTexts.contains(hash), texts.insert(hash).inserted else { continue }
                candidates.append((document, passage, hash))
            }
        }
        if candidates.count < passageCount {
            let others = Set(documents.flatMap { $0.passages.compactMap { taken[$0.id] } }).sorted()
            let reason =
                others.isEmpty
                ? "the others repeat the text of one of them" : "the others are used by \(Self.list(others)) or repeat a text"
            problems.append(
                CoverageProblem(
                    section: section, category: category.id,
                    message: "blueprint cell \(cell) asks for \(shape) but only \(candidates.count) of the \(available) passages serving it "
                        + "\(candidates.count == 1 ? "is" : "are") left: \(reason) (a passage is used once in the bank)",
                    hint: "add documents of at least \(CorpusIndex.passageMinimum) characters of prose serving it, or lower the counts"))
            return
        }

        // Passage per slot: rendezvous over the contents of every free passage serving the cell, so
        // a slot moves only when the passage it had or now prefers changed (or another slot took it).
        var start = 0
        var used = [Bool](repeating: false, count: candidates.count)
        let candidateKeys = candidates.map { Rendezvous.mix(Rendezvous.mix(Rendezvous.hash($0.document.id)) ^ $0.hash) }
        for (slot, size) in sizes.enumerated() {
            let key = Rendezvous.hash("\(cell)#\(slot + 1)")
            var best = -1
            var bestScore: UInt64 = 0
            for c in candidateKeys.indices where !used[c] {
                let score = Rendezvous.mix(key ^ candidateKeys[c])
                if best < 0 || score > bestScore {
                    best = c
                    bestScore = score
                }
            }
            guard best >= 0 else { break }  // cannot happen: enough free passages were counted above
            let (document, passage, _) = candidates[best]
            used[best] = true
            taken[passage.id] = cell
            takenTexts.insert(candidates[best].hash)
            let id = "p\(Self.twoDigits(passages.count + 1))"
            let text = document.text(passage.range)
            let sha256 = SHA256Digest.hex(text)
            let difficulties = Array(sequence[start..<(start + size)])
            start += size
            let itemIDs = (1...size).map { "\(cell)/\(id)-q\($0)" }
            passages.append(
                PlannedPassage(
                    id: id, section: section, category: category.id, document: document.id, source: passage.id, range: passage.range,
                    text: text, sha256: sha256, items: itemIDs, difficulties: difficulties))
            for (itemID, difficulty) in zip(itemIDs, difficulties) {
                items.append(
                    PlannedItem(
                        id: itemID, section: section, category: category.id, difficulty: difficulty, document: document.id, chunk: nil,
                        passage: id, groundingText: text, groundingSHA256: sha256))
            }
        }
    }

    /// Content hashes of `ranges` of `document`, made once per document.
    private mutating func hashes(
        of document: CorpusDocument, _ store: WritableKeyPath<Planner, [String: [UInt64]]>, _ ranges: @autoclosure () -> [Range<Int>]
    ) -> [UInt64] {
        if let known = self[keyPath: store][document.id] { return known }
        let made = document.utf8.withUnsafeBufferPointer { bytes in ranges().map { Rendezvous.hash(UnsafeBufferPointer(rebasing: bytes[$0])) } }
        self[keyPath: store][document.id] = made
        return made
    }

    /// Whether `total` questions split into passages of `range` questions.
    private static func splits(_ total: Int, _ range: SizeRange) -> Bool {
        total > 0 && ((total + range.max - 1) / range.max) * range.min <= total
    }

    static func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    /// Up to three names, then how many more.
    static func list(_ names: [String]) -> String {
        names.count <= 3 ? names.joined(separator: ", ") : names.prefix(3).joined(separator: ", ") + " and \(names.count - 3) more"
    }
}

/// The hashes of rendezvous hashing: FNV-1a over bytes and SplitMix64's finalizer to mix two of
/// them; integer arithmetic only, so every machine makes the same plan.
enum Rendezvous {
    static func hash(_ text: String) -> UInt64 { hash(text.utf8) }

    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            h ^= UInt64(byte)
            h = h &* 0x0000_0100_0000_01B3
        }
        return h
    }

    static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            h ^= UInt64(byte)
            h = h &* 0x0000_0100_0000_01B3
        }
        return h
    }

    static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
