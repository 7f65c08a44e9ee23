import Foundation
import LecternCore
import LecternLLM

/// The ids of a deck's items, shared by planning and assembly.
public enum DeckItems {
    public static func cards(batch: Int) -> ItemID { ItemID(DeckJob.cardsName, String(format: "batch-%02d", batch)) }
    public static func distractors(_ cardID: String) -> ItemID { ItemID(DeckJob.distractorsName, cardID) }
    public static let deck = ItemID(DeckJob.deckName)
}

/// One card before enrichment: imported (with its line) or written.
public struct DeckDraft: Sendable, Hashable {
    public var id: String
    public var line: Int?
    public var front: String
    public var back: String
}

/// The `deck` item's value: the cards, and for each the distractors the other cards' backs give
/// and the word usage its cloze is chosen by (read once, for the distractor calls and assembly).
public struct PreparedDeck: Sendable {
    public var drafts: [DeckDraft]
    public var deckDistractors: [[String]]
    public var usage: [String: Int]

    init(_ drafts: [DeckDraft], options: Int) {
        let backs = DeckBacks(drafts.map(\.back))
        self.drafts = drafts
        deckDistractors = drafts.indices.map { backs.distractors(for: $0, count: options - 1) }
        usage = backs.usage
    }
}

/// The `flashcards` kind (docs/spec.md#flashcards): a deck imported from TSV/CSV (never
/// rewritten) or written from the description in batches of ten (`cards/batch-NN`, each after
/// the one before and checked against it), then enriched for the study modes: quiz distractors
/// from the other cards' backs where they fit, else written by the model for that card
/// (`distractors/<card>`) and checked; a cloze variant and matching rounds, both derived without
/// a model.
public struct DeckJob: GenerationJob {
    public static let cardsName: StageName = "cards"
    public static let distractorsName: StageName = "distractors"
    public static let deckName: StageName = "deck"
    public static let batchSize = 10

    public static let stages: [StageInfo] = [
        StageInfo(cardsName, typicalTokens: 1_600), StageInfo(deckName, typicalTokens: 0), StageInfo(distractorsName, typicalTokens: 500),
    ]

    public let spec: JobSpec
    public let deck: DeckSpec
    public let runner: ModelCallRunner
    /// The imported set (nil for a written deck).
    public let imported: DeckImport.Result?
    let tone: String

    public init(environment: JobEnvironment) throws {
        guard let deck = environment.spec.deck else { throw PipelineError("the spec '\(environment.spec.id)' is not a flashcard deck") }
        self.spec = environment.spec
        self.deck = deck
        self.runner = environment.runner
        self.tone = PromptText.tone(environment.spec.tone, presets: environment.presets)
        if let source = deck.source {
            let url = DeckSpec.resolve(source, base: environment.spec.baseDirectory ?? URL(fileURLWithPath: "."))
            // Problems of the imported set are the author's to fix, like a spec's (exit 2), each at
            // its file and line.
            let format = deck.format ?? DeckSpec.Format.guess(source)
            let loaded: (data: Data, result: DeckImport.Result)
            do {
                loaded = try DeckImport.load(url, format: format, roots: environment.spec.resolvedFileRoots)
            } catch {
                throw SpecError(
                    [SpecDiagnostic(file: source, line: error.line, message: error.description, hint: error.hint)]
                        + error.rowProblems.map { SpecDiagnostic(file: source, line: $0.line, message: $0.message) })
            }
            if let digest = deck.sourceDigest, digest != SHA256Digest.hex(loaded.data) {
                throw SpecError(SpecDiagnostic(file: source, message: "the deck file changed after the spec was read", hint: "run again"))
            }
            let result = loaded.result
            self.imported = result
        } else {
            self.imported = nil
        }
    }

    /// The imported cards as drafts.
    var importedDrafts: [DeckDraft] {
        (imported?.rows ?? []).enumerated().map { index, row in
            DeckDraft(id: String(format: "c%03d", index + 1), line: row.line, front: row.term, back: row.definition)
        }
    }

    /// How many written cards each batch holds.
    var batchSizes: [Int] {
        stride(from: 0, to: deck.cards, by: Self.batchSize).map { min(Self.batchSize, deck.cards - $0) }
    }

    public func initialItems() -> [WorkItem] {
        var items: [WorkItem] = []
        var batchIDs: [ItemID] = []
        if imported == nil {
            for (index, size) in batchSizes.enumerated() {
                let id = DeckItems.cards(batch: index + 1)
                let earlier = batchIDs
                items.append(
                    WorkItem(id: id, stage: Self.cardsName, context: "cards \(index * Self.batchSize + 1)–\(index * Self.batchSize + size)", dependencies: earlier.suffix(1)) { [self] done in
                        let known = try earlier.flatMap { try done.results.value($0, as: [DeckDraft].self) }
                        let (value, report) = try await runner.run(try writeCards(itemID: id.rawValue, batch: index + 1, size: size, known: known))
                        return WorkOutput(value: value, report: report)
                    })
                batchIDs.append(id)
            }
        }
        let batches = batchIDs
        items.append(
            WorkItem(id: DeckItems.deck, stage: Self.deckName, context: "the deck", dependencies: batches, usesModel: false) { [self] done in
                let drafts = imported != nil ? importedDrafts : try batches.flatMap { try done.results.value($0, as: [DeckDraft].self) }
                let prepared = PreparedDeck(drafts, options: deck.options)
                return WorkOutput(value: prepared, spawn: distractorItems(prepared))
            })
        return items
    }

    /// A model item for each card whose quiz the deck cannot fill.
    func distractorItems(_ prepared: PreparedDeck) -> [WorkItem] {
        let need = deck.options - 1
        return prepared.drafts.indices.compactMap { index in
            let found = prepared.deckDistractors[index]
            guard found.count < need else { return nil }
            let card = prepared.drafts[index]
            let id = DeckItems.distractors(card.id)
            return WorkItem(id: id, stage: Self.distractorsName, context: "card \(card.id) '\(card.front.prefix(40))'", dependencies: [DeckItems.deck]) {
                [self] _ in
                let (value, report) = try await runner.run(try writeDistractors(itemID: id.rawValue, card: card, count: need - found.count, avoid: found))
                return WorkOutput(value: value, report: report)
            }
        }
    }

    // MARK: Model calls

    struct CardsAnswer: Decodable {
        struct Card: Decodable { var term: String; var definition: String }
        var cards: [Card]
    }

    /// Batch `batch` of a written deck: `size` cards and two spares, none repeating `known`.
    func writeCards(itemID: String, batch: Int, size: Int, known: [DeckDraft]) throws -> ModelCall<[DeckDraft]> {
        let asked = size + 2
        let schema = ResponseSchema(
            name: "deck_cards",
            schema: SchemaParts.object(
                [
                    "cards": SchemaParts.array(
                        SchemaParts.object(
                            [
                                "term": ["type": "string", "minLength": 1, "maxLength": 60],
                                "definition": ["type": "string", "minLength": 3, "maxLength": .number(Double(FlashcardRules.backLimit))],
                            ], required: ["term", "definition"]), min: asked, max: asked)
                ], required: ["cards"]))
        let variables: [String: String] = [
            "title": deck.title ?? spec.id, "description": spec.description.trimmed, "audience": spec.audience, "language": PromptText.languageName(spec.language),
            "tone": tone, "count": String(asked),
            "known": known.isEmpty ? "" : "\nThe deck already has these terms; write other ones:\n" + known.map { "- \($0.front)" }.joined(separator: "\n") + "\n",
            "schema": AnswerParsing.schemaText(schema),
        ]
        let firstNumber = known.count + 1
        let language = spec.language
        return ModelCall(
            itemID: itemID, stage: Self.cardsName, template: try PromptLibrary.template("flashcards/cards"), variables: variables, schema: schema,
            check: { text in
                switch AnswerParsing.decode(CardsAnswer.self, from: text) {
                case .failure(let errors): return .invalid(errors)
                case .success(let answer):
                    var kept: [DeckDraft] = []
                    var issues: [String] = []
                    var seen = Set(known.map { TextKey.normalize($0.front, language: language) })
                    for (index, card) in answer.cards.enumerated() where kept.count < size {
                        let label = "cards[\(index + 1)]"
                        let term = card.term.trimmed
                        let definition = card.definition.trimmed
                        let problems = Self.cardProblems(term: term, definition: definition, language: language)
                        if let problem = problems.first {
                            issues.append("\(label): \(problem)")
                            continue
                        }
                        guard seen.insert(TextKey.normalize(term, language: language)).inserted else {
                            issues.append("\(label): the term '\(term)' is already in the deck")
                            continue
                        }
                        kept.append(DeckDraft(id: String(format: "c%03d", firstNumber + kept.count), line: nil, front: term, back: definition))
                    }
                    guard kept.count == size else {
                        return .invalid((issues + ["only \(kept.count) of the \(size) cards needed are usable; mend the cards above"]).map { Refusal(.stageRules, $0) })
                    }
                    return .valid(kept, warnings: [])
                }
            })
    }

    /// What is wrong with a written card: a question for a term, a term of more than eight
    /// words, a definition that only repeats its term or is too short to teach.
    static func cardProblems(term: String, definition: String, language: String) -> [String] {
        var problems: [String] = []
        if TextKey.endsWithQuestionMark(term, language: language) { problems.append("'\(term)' is a question; a card's front is a term") }
        if term.split(whereSeparator: \.isWhitespace).count > 8 { problems.append("the term '\(term.prefix(60))' is longer than eight words") }
        if definition.count < 3 { problems.append("the definition of '\(term)' is empty") }
        if TextKey.normalize(definition, language: language) == TextKey.normalize(term, language: language) {
            problems.append("the definition of '\(term)' is the term itself")
        }
        return problems
    }

    struct DistractorsAnswer: Decodable { var distractors: [String] }

    /// `count` wrong answers for `card`'s quiz, beside the `avoid` ones the deck gave.
    func writeDistractors(itemID: String, card: DeckDraft, count: Int, avoid: [String]) throws -> ModelCall<[String]> {
        let limit = min(FlashcardRules.backLimit, max(20, card.back.count * 2))
        let schema = ResponseSchema(
            name: "quiz_distractors",
            schema: SchemaParts.object(
                ["distractors": SchemaParts.array(["type": "string", "minLength": 1, "maxLength": .number(Double(limit))], min: count, max: count)],
                required: ["distractors"]))
        let variables: [String: String] = [
            "title": deck.title ?? spec.id, "language": PromptText.languageName(spec.language), "tone": tone, "term": card.front, "answer": card.back,
            "count": String(count), "length": String(card.back.count),
            "kind": [.number: "a number, like the right answer", .quantity: "a number with its unit, like the right answer"][DeckRules.shape(card.back)]
                ?? "an answer of the same kind as the right one",
            "avoid": avoid.isEmpty ? "" : "\nThese wrong answers are taken already; write others:\n" + avoid.map { "- \($0)" }.joined(separator: "\n") + "\n",
            "schema": AnswerParsing.schemaText(schema),
        ]
        let (answer, term) = (card.back, card.front)
        return ModelCall(
            itemID: itemID, stage: Self.distractorsName, template: try PromptLibrary.template("flashcards/distractors"), variables: variables,
            schema: schema,
            check: { text in
                switch AnswerParsing.decode(DistractorsAnswer.self, from: text) {
                case .failure(let errors): return .invalid(errors)
                case .success(let a):
                    let written = a.distractors.map(\.trimmed)
                    var issues = DeckRules.checkDistractors(written, answer: answer, term: term)
                    for (index, text) in written.enumerated() where avoid.contains(where: { NearDuplicate.restate($0, text) || TextKey.normalize($0) == TextKey.normalize(text) }) {
                        issues.append(.error("distractors[\(index + 1)] ('\(text)') is one the quiz has already", check: .stageRules))
                    }
                    if written.count != count { issues.append(.error("write exactly \(count) wrong answers; there are \(written.count)", check: .stageRules)) }
                    return .judged(written, by: issues)
                }
            })
    }

    // MARK: Planning and assembly

    public static let unreachedNote =
        "the deck's cards are not stored yet: the distractor calls a card may need when the deck's own backs cannot fill its quiz are not counted"

    public func unreachedEstimate(reached: Set<String>) -> [StageName: Int] {
        guard !reached.contains(DeckItems.deck.rawValue) else { return [:] }
        return imported == nil ? [Self.deckName: 1] : [:]
    }

    public func assemble(results: ResultStore) throws -> AssembledBundle? {
        guard let prepared = results.optionalValue(DeckItems.deck, as: PreparedDeck.self) else { return nil }
        let need = deck.options - 1
        var cards: [DeckCard] = []
        var generated = 0
        for (index, draft) in prepared.drafts.enumerated() {
            var wrong = prepared.deckDistractors[index]
            var origin = DeckCard.Quiz.Origin.deck
            if wrong.count < need {
                // A card whose distractors failed keeps no quiz question rather than a short one.
                guard let written = results.optionalValue(DeckItems.distractors(draft.id), as: [String].self) else { continue }
                wrong += written
                origin = .generated
                generated += 1
            }
            let position = DeckRules.answerPosition(draft.front + "\u{1F}" + draft.back, count: need + 1)
            var options = wrong
            options.insert(draft.back, at: position)
            cards.append(
                DeckCard(
                    id: draft.id, line: draft.line, front: draft.front, back: draft.back, quiz: .init(options: options, answer: position, distractors: origin),
                    cloze: DeckRules.cloze(back: draft.back, term: draft.front, usage: prepared.usage)))
        }
        let matching = DeckRules.matchingRounds(cards.map { ($0.id, $0.front, $0.back) }, pairs: deck.pairs)
        var source: DeckSource?
        if let imported, let path = deck.source {
            source = DeckSource(
                path: path, format: deck.format ?? DeckSpec.Format.guess(path), sha256: deck.sourceDigest ?? "", rows: imported.read,
                imported: imported.rows.count, problems: imported.problems)
        }
        let title = deck.title ?? spec.id
        let document = Deck(
            id: spec.id, version: spec.version, language: spec.language, title: title, description: spec.description.trimmed, source: source, cards: cards,
            matching: matching.rounds.enumerated().map { MatchingRound(round: $0.offset + 1, cards: $0.element) }, unmatched: matching.unmatched)
        var summary = [
            "cards: \(cards.count)" + (source.map { ", imported from \($0.path) (\($0.imported) of \($0.rows) rows)" } ?? ", written"),
            "quiz: \(cards.count - generated) with distractors from the deck, \(generated) with written ones",
            "cloze variants: \(cards.filter { $0.cloze != nil }.count); matching rounds: \(matching.rounds.count) (\(matching.unmatched.count) cards unmatched)",
        ]
        for problem in source?.problems ?? [] { summary.append("left out: \(source!.path):\(problem.line): \(problem.message)") }
        return AssembledBundle(
            title: title, files: ["deck.json": try CanonicalJSON.encode(document, pretty: true)], entryDocument: "deck.json",
            counts: ["cards": ["total": cards.count, "generated_distractors": generated, "matching_rounds": matching.rounds.count]], summary: summary)
    }
}
