import Foundation
import LecternCore
import LecternLLM
import LecternPipeline

/// The ids of a glossary's items: the one definition planning, assembly and the read side use.
enum GlossaryItems {
    static let definitionStage: StageName = "definition"
    static func definition(_ term: String) -> ItemID { ItemID(definitionStage, Slug.make(term)) }
}

/// The write side: one model call a term (`definition/<term>`), checked and repaired like any
/// stage's answer; `assemble` writes glossary.json.
struct GlossaryJob: GenerationJob {
    static let stages = [StageInfo(GlossaryItems.definitionStage, typicalTokens: 200)]
    static let template = PromptTemplate(
        name: "glossary/definition", version: 1, system: "You write one-sentence definitions for a glossary.",
        user: "Define the term \"{{term}}\" for: {{description}}\nAnswer with JSON: {\"definition\": \"…\"}")

    struct Answer: Decodable, Sendable { var definition: String }

    let spec: JobSpec
    let glossary: GlossarySpec
    let runner: ModelCallRunner

    init(environment: JobEnvironment) throws {
        guard let glossary = GlossarySpecReader.spec(environment.spec.content) else { throw PipelineError("the spec '\(environment.spec.id)' is not a glossary") }
        self.spec = environment.spec
        self.glossary = glossary
        self.runner = environment.runner
    }

    func initialItems() -> [WorkItem] {
        glossary.terms.map { term in
            let id = GlossaryItems.definition(term)
            return WorkItem(id: id, stage: GlossaryItems.definitionStage, context: term) { [runner, spec] _ in
                let call = ModelCall<String>(
                    itemID: id.rawValue, stage: GlossaryItems.definitionStage, template: Self.template,
                    variables: ["term": term, "description": spec.description], schema: nil
                ) { text in
                    guard let answer = try? JSONDecoder().decode(Answer.self, from: Data(text.utf8)) else {
                        return .invalid([Refusal(.wellFormed, "answer with one JSON object: {\"definition\": \"…\"}")])
                    }
                    let definition = answer.definition.trimmingCharacters(in: .whitespacesAndNewlines)
                    if definition.isEmpty { return .invalid([Refusal(.stageRules, "the definition is empty")]) }
                    if definition.localizedCaseInsensitiveContains(term) { return .invalid([Refusal(.stageRules, "the definition names the term itself ('\(term)'); define it in other words")]) }
                    return .valid(definition, warnings: [])
                }
                let (definition, report) = try await runner.run(call)
                return WorkOutput(value: definition, report: report)
            }
        }
    }

    func unreachedEstimate(reached: Set<String>) -> [StageName: Int] { [:] }

    func assemble(results: ResultStore) throws -> AssembledBundle? {
        let entries = glossary.terms.compactMap { term in
            results.optionalValue(GlossaryItems.definition(term), as: String.self).map { Glossary.Entry(term: term, definition: $0) }
        }
        guard !entries.isEmpty else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let title = "Glossary: " + spec.id
        return AssembledBundle(
            title: title, files: [GlossaryBundle.document: try encoder.encode(Glossary(title: title, entries: entries))], entryDocument: GlossaryBundle.document)
    }
}
