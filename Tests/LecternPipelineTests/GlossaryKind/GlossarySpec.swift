import Foundation
import LecternCore
import LecternLLM

// A toy fifth kind, `kind: glossary`, written as a kind outside Lectern's modules would be: this
// folder only, and one registration line in each registry (`ToyKindTests`). docs/ARCHITECTURE.md
// walks through it.

extension JobKind {
    static let glossary = JobKind(rawValue: "glossary")
}

/// The kind's part of a spec: the terms to define.
struct GlossarySpec: Codable, Sendable, Hashable {
    var terms: [String]
}

/// Reads `terms:` (1–20 distinct terms) at file:line:column like any kind's reader, and keeps the
/// part as JSON for the job.
enum GlossarySpecReader: JobKindSpecReader {
    static let keys = ["terms"]

    static func read(_ context: SpecReadContext) -> JobContent? {
        guard let terms = context.top.stringList("terms", maxCount: 20, maxLength: 60), !terms.isEmpty else {
            context.reader.report("a glossary needs 'terms': a list of 1 to 20 terms", at: context.top.node("terms"), hint: "terms: [loop, variable]")
            return nil
        }
        if Set(terms).count != terms.count {
            context.reader.report("a term is listed twice", at: context.top.node("terms"), hint: "list each term once")
            return nil
        }
        return .other(.glossary, .object(["terms": .array(terms.map(JSONValue.string))]))
    }

    static func spec(_ content: JobContent) -> GlossarySpec? {
        guard case .other(.glossary, let part) = content, let data = try? JSONEncoder().encode(part) else { return nil }
        return try? JSONDecoder().decode(GlossarySpec.self, from: data)
    }
}

/// glossary.json: each term with its definition, in the spec's order.
struct Glossary: Codable, Sendable, Hashable {
    struct Entry: Codable, Sendable, Hashable {
        var term: String
        var definition: String
    }

    var title: String
    var entries: [Entry]
}
