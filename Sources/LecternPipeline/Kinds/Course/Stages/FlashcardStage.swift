import Foundation
import LecternCore
import LecternLLM

/// A topic's flashcards (the `flashcards` add-on; Jeeva §4.3): terms with definitions, questions
/// with answers and clozes, in one call per topic (`flashcards/<topic>`). The model answers in
/// three lists, one per kind, whose lengths the response schema fixes: told to write "cards of
/// three kinds" in one list, small models choose one kind; given a list per kind, they fill each.
/// Lectern writes a cloze's front itself, blanking the span the model names in its sentence. The
/// call asks for one card of each kind more than the topic keeps (`FlashcardsSpec.askedCounts`):
/// the first good cards are kept, so one weak card does not cost the answer.
public struct FlashcardStage: Sendable {
    public static let name = CourseStages.flashcards

    struct Answer: Decodable {
        struct Term: Decodable { var term: String; var definition: String }
        struct QA: Decodable { var question: String; var answer: String }
        struct Cloze: Decodable { var sentence: String; var blank: String }
        var terms: [Term]
        var questions: [QA]
        var clozes: [Cloze]
    }

    static func schema(_ counts: (terms: Int, questions: Int, clozes: Int)) -> ResponseSchema {
        func text(_ limit: Int) -> JSONValue { ["type": "string", "minLength": 1, "maxLength": .number(Double(limit))] }
        func list(_ fields: [(String, Int)], count: Int) -> JSONValue {
            SchemaParts.array(
                SchemaParts.object(Dictionary(uniqueKeysWithValues: fields.map { ($0.0, text($0.1)) }), required: fields.map(\.0)), min: count, max: count)
        }
        return ResponseSchema(
            name: "flashcards",
            schema: SchemaParts.object(
                [
                    "terms": list([("term", 60), ("definition", FlashcardRules.backLimit)], count: counts.terms),
                    "questions": list([("question", FlashcardRules.frontLimit), ("answer", FlashcardRules.backLimit)], count: counts.questions),
                    // A statement: a grammar-constrained model cannot write a question mark, and
                    // ends with a period (llama.cpp drops `maxLength` beside a `pattern`, so the
                    // pattern bounds the length).
                    "clozes": SchemaParts.array(
                        SchemaParts.object(["sentence": Self.statementPattern(20...(FlashcardRules.clozeSentenceLimit - 1)), "blank": text(40)], required: ["sentence", "blank"]),
                        min: counts.clozes, max: counts.clozes),
                ], required: ["terms", "questions", "clozes"]))
    }

    /// A string schema for one statement of `length` characters: no question mark, quote,
    /// backslash or line break, ending with a period.
    static func statementPattern(_ length: ClosedRange<Int>) -> JSONValue {
        [
            "type": "string", "pattern": .string("^[^?\"\\\\\n]{\(length.lowerBound),\(length.upperBound)}[.]$"),
            "maxLength": .number(Double(length.upperBound + 1)),
        ]
    }

    public let job: CourseJobContext
    public init(job: CourseJobContext) { self.job = job }

    public func call(itemID: String, place: TopicPlace, outline: Outline, lecture: String) throws -> ModelCall<[Flashcard]> {
        var variables = place.variables(job, outline: outline)
        let counts = job.course.flashcards.askedCounts
        let need = job.course.flashcards.kindCounts
        variables["lecture_excerpt"] = EngagementQuestionStage.excerpt(lecture, limit: 5_000)
        variables["card_count"] = String(counts.terms + counts.questions + counts.clozes)
        variables["term_count"] = String(counts.terms)
        variables["question_count"] = String(counts.questions)
        variables["cloze_count"] = String(counts.clozes)
        let schema = Self.schema(counts)
        variables["schema"] = AnswerParsing.schemaText(schema)
        let (topicID, language) = (place.topicID, job.spec.language)
        return ModelCall(
            itemID: itemID, stage: Self.name, template: try PromptLibrary.template("course/flashcards"), variables: variables, schema: schema,
            check: { Self.check($0, topicID: topicID, lecture: lecture, needed: need, language: language) })
    }

    /// Parses a topic's cards (spares included) and keeps the `needed`
    /// (`FlashcardRules.select`); ids are `<topic>-c01` … in the order terms, questions, clozes.
    static func check(
        _ text: String, topicID: String, lecture: String, needed: (terms: Int, questions: Int, clozes: Int), language: String
    ) -> AnswerCheck<[Flashcard]> {
        switch AnswerParsing.decode(Answer.self, from: text) {
        case .failure(let errors): return .invalid(errors)
        case .success(let a):
            var drafts: [FlashcardRules.Draft] = []
            for (index, term) in a.terms.enumerated() {
                drafts.append(.init(label: "terms[\(index + 1)]", card: Flashcard(id: "", kind: .term, front: term.term.trimmed, back: term.definition.trimmed)))
            }
            for (index, qa) in a.questions.enumerated() {
                drafts.append(.init(label: "questions[\(index + 1)]", card: Flashcard(id: "", kind: .question, front: qa.question.trimmed, back: qa.answer.trimmed)))
            }
            for (index, cloze) in a.clozes.enumerated() {
                let sentence = cloze.sentence.trimmed
                let span = cloze.blank.trimmed.trimmingCharacters(in: CharacterSet(charactersIn: ".,;:!?\"'“”"))
                let front = FlashcardRules.clozeFront(sentence: sentence, span: span) ?? sentence
                drafts.append(.init(label: "clozes[\(index + 1)]", card: Flashcard(id: "", kind: .cloze, front: front, back: sentence, cloze: span)))
            }
            let selected = FlashcardRules.select(
                drafts, needed: [.term: needed.terms, .question: needed.questions, .cloze: needed.clozes], lecture: lecture, language: language)
            guard var cards = selected.cards else { return .invalid(selected.issues.map(\.refusal)) }
            for index in cards.indices { cards[index].id = String(format: "\(topicID)-c%02d", index + 1) }
            return .valid(cards, warnings: [])
        }
    }

    /// A course's cards with later repeats of an earlier topic's card left out (each topic's
    /// call checks its own cards; topics are written in parallel, so a repeat across topics is
    /// only seen here). Returns the cards per topic and how many were left out.
    public static func withoutRepeats(_ decks: [(topicID: String, cards: [Flashcard])], language: String) -> (decks: [String: [Flashcard]], dropped: Int) {
        var seen = Set<String>()
        var out: [String: [Flashcard]] = [:]
        var dropped = 0
        for deck in decks {
            out[deck.topicID] = deck.cards.filter { card in
                let fresh = seen.insert(FlashcardRules.frontKey(card, language: language)).inserted
                if !fresh { dropped += 1 }
                return fresh
            }
        }
        return (out, dropped)
    }
}
