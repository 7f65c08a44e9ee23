import Foundation
import Yams

/// Reads the `exam` kind's part of a spec: corpus, preset, blueprint, options and forms.
///
/// ```yaml
/// title: Nature reading exam                  # optional
/// corpus: [corpus/english-nature/]            # or {path: …, sections: […], categories: […]}
/// preset: tafawoq-general-aptitude            # optional
/// options: 4                                  # per item, 2–6
/// blueprint:
///   - section: verbal
///     categories:
///       - category: analogies
///         easy: 2
///         medium: 2
///       - category: reading-comprehension
///         medium: 4
///         questions_per_passage: {min: 2, max: 3}
/// forms:
///   - {id: form-a, title: Mock exam A, duration_minutes: 30, sections: [{section: verbal, count: 6}]}
/// ```
public enum ExamSpecReader: JobKindSpecReader {
    public static let keys = ["title", "corpus", "preset", "options", "digits", "blueprint", "forms"]

    /// Items one blueprint cell may ask for, and a whole bank.
    public static let maxCellItems = 5_000
    public static let maxItems = 50_000

    public static func read(_ context: SpecReadContext) -> JobContent? {
        let top = context.top
        let reader = context.reader
        let corpus = top.has("corpus") ? readCorpus(context) : []
        var preset: ExamPreset?
        if let name = top.string("preset", maxLength: 64) {
            preset = context.presets.exam[name]
            if preset == nil {
                reader.report("unknown exam preset '\(name)'", at: top.node("preset"), hint: context.presets.availabilityHint(for: name, kind: .exam))
            }
        }
        let optionCount = top.int("options", range: 2...6) ?? 4
        var digits: DigitSystem?
        if let name = top.string("digits", maxLength: 20) {
            digits = DigitSystem(rawValue: name)
            if digits == nil {
                reader.report(
                    "unknown digits '\(name)'", at: top.node("digits"),
                    hint: "use 'western' (0-9) or 'eastern' (Arabic-Indic ٠-٩); the default is eastern for Arabic, western otherwise")
            }
        }
        let sections = readBlueprint(context, preset: preset)
        let forms = readForms(context, sections: sections)
        guard let corpus, let sections else { return nil }
        if !top.has("corpus"), sections.contains(where: { $0.categories.contains { !$0.format.computesKey } }) {
            reader.report(
                "missing required key 'corpus'", at: top.node,
                hint: "list the source material: files or directories of Markdown or text, or course bundles, e.g. 'corpus: [corpus/my-texts/]' "
                    + "(a blueprint of quantitative and geometry categories only needs none)")
            return nil
        }
        let spec = ExamSpec(title: top.string("title", maxLength: 300), corpus: corpus, preset: preset?.name, sections: sections, optionCount: optionCount, forms: forms, digits: digits)
        if spec.itemCount > maxItems {
            reader.report("the blueprint asks for \(spec.itemCount) items; at most \(maxItems)", at: top.node("blueprint"), hint: "split the bank into several specs")
        } else if reader.diagnostics.isEmpty {
            checkCoverage(spec, context: context)
        }
        return .exam(spec)
    }

    /// Before any model call: the corpus must be readable and serve every blueprint cell
    /// (Tafawoq FR-027a). Each problem is reported at the cell's place in the spec.
    static func checkCoverage(_ spec: ExamSpec, context: SpecReadContext) {
        let reader = context.reader
        let corpus: ExamCorpus
        do {
            corpus = try ExamCorpus.load(spec.corpus, relativeTo: context.resolvedBaseDirectory, roots: context.fileRoots)
        } catch let error as CorpusError {
            for issue in error.issues {
                let node = corpusNode(for: issue.path, context: context) ?? context.top.node("corpus")
                reader.report("corpus: \(issue.message)", at: node, hint: issue.hint)
            }
            return
        } catch {
            reader.report("the corpus could not be read: \(error)", at: context.top.node("corpus"))
            return
        }
        if case .failure(let error) = ExamSourcePlan.make(spec: spec, corpus: corpus) {
            for problem in error.problems {
                reader.report(
                    "blueprint cell \(problem.cell): \(problem.message)", at: cellNode(problem.section, problem.category, context: context),
                    hint: problem.hint)
            }
        }
    }

    /// The `corpus:` entry naming `path`.
    static func corpusNode(for path: String, context: SpecReadContext) -> Node? {
        guard case .sequence(let entries)? = context.top.node("corpus") else { return nil }
        return entries.first { entry in
            entry.string == path || entry.mapping?["path"]?.string == path
        }
    }

    /// The blueprint entry of a category (or its section).
    static func cellNode(_ section: String, _ category: String, context: SpecReadContext) -> Node? {
        guard case .sequence(let sections)? = context.top.node("blueprint") else { return nil }
        guard let s = sections.first(where: { $0.mapping?["section"]?.string == section }) else { return context.top.node("blueprint") }
        guard case .sequence(let categories)? = s.mapping?["categories"] else { return s }
        return categories.first { $0.mapping?["category"]?.string == category } ?? s
    }

    /// The sequence at top-level `key`, reported missing (with `hint`) when absent.
    static func requiredSequence(_ key: String, maxCount: Int, context: SpecReadContext, hint: String) -> [Node]? {
        guard let nodes = context.top.sequence(key, maxCount: maxCount) else {
            if !context.top.has(key) { context.reader.report("missing required key '\(key)'", at: context.top.node, hint: hint) }
            return nil
        }
        return nodes
    }

    static func readCorpus(_ context: SpecReadContext) -> [CorpusSource]? {
        let top = context.top
        let reader = context.reader
        guard
            let nodes = requiredSequence(
                "corpus", maxCount: 1_000, context: context,
                hint: "list the source material: files or directories of Markdown or text, or course bundles, e.g. 'corpus: [corpus/my-texts/]'")
        else { return nil }
        if nodes.isEmpty {
            reader.report("'corpus' is empty", at: top.node("corpus"), hint: "name at least one file or directory")
            return nil
        }
        var sources: [CorpusSource] = []
        for (i, node) in nodes.enumerated() {
            let path = "corpus[\(i)]"
            if case .scalar = node {
                if let text = top.string(node, name: path, required: true, maxLength: 1_000, hint: nil) { sources.append(CorpusSource(path: text)) }
                continue
            }
            guard let m = reader.mapping(node, path: path, known: ["path", "sections", "categories"]) else { continue }
            m.finish()
            if let text = m.string("path", required: true, maxLength: 1_000) {
                sources.append(
                    CorpusSource(
                        path: text, sections: m.stringList("sections", maxCount: 50, maxLength: 64),
                        categories: m.stringList("categories", maxCount: 200, maxLength: 64)))
            }
        }
        return sources
    }

    static func readBlueprint(_ context: SpecReadContext, preset: ExamPreset?) -> [ExamSection]? {
        let top = context.top
        let reader = context.reader
        guard
            let nodes = requiredSequence(
                "blueprint", maxCount: 50, context: context,
                hint: "list sections with their categories and item counts per difficulty (easy, medium, hard); see docs/spec.md#exam")
        else { return nil }
        var sections: [ExamSection] = []
        var seenSections: Set<String> = []
        for (i, node) in nodes.enumerated() {
            let path = "blueprint[\(i)]"
            guard let s = reader.mapping(node, path: path, known: ["section", "title", "categories"]) else { continue }
            s.finish()
            guard let id = s.string("section", required: true, maxLength: 64, hint: "a slug such as 'verbal'") else { continue }
            if !Slug.isValidID(id) { reader.report("'\(path).section' is '\(id)', which is not a slug", at: s.node("section"), hint: "use lowercase letters, digits and hyphens") }
            if !seenSections.insert(id).inserted {
                reader.report("section '\(id)' appears twice in the blueprint", at: s.node("section"), hint: "list each section once with all its categories")
            }
            var presetSection: ExamPreset.Section?
            if let preset {
                presetSection = preset.section(id)
                if presetSection == nil {
                    reader.report(
                        "the preset '\(preset.name)' has no section '\(id)'", at: s.node("section"),
                        hint: Suggestion.hint(for: id, among: preset.sections.map(\.id)))
                }
            }
            let title = s.string("title", maxLength: 200) ?? presetSection?.title ?? Self.title(fromSlug: id)
            var categories: [ExamCategory] = []
            var seenCategories: Set<String> = []
            let categoryNodes = s.sequence("categories", maxCount: 100) ?? []
            if categoryNodes.isEmpty {
                reader.report("'\(path).categories' is missing or empty", at: s.node("categories") ?? node, hint: "list at least one category with its counts")
            }
            for (j, categoryNode) in categoryNodes.enumerated() {
                let categoryPath = "\(path).categories[\(j)]"
                guard
                    let c = reader.mapping(
                        categoryNode, path: categoryPath,
                        known: ["category", "title", "format", "instructions", "seconds", "easy", "medium", "hard", "questions_per_passage", "topics"])
                else { continue }
                c.finish()
                guard let categoryID = c.string("category", required: true, maxLength: 64, hint: "a slug such as 'analogies'") else { continue }
                if !seenCategories.insert(categoryID).inserted {
                    reader.report("category '\(categoryID)' appears twice in section '\(id)'", at: c.node("category"), hint: "give its counts once")
                }
                let fromPreset = presetSection?.categories.first { $0.id == categoryID }
                if let presetSection, fromPreset == nil {
                    reader.report(
                        "the preset's section '\(id)' has no category '\(categoryID)'", at: c.node("category"),
                        hint: Suggestion.hint(for: categoryID, among: presetSection.categories.map(\.id)))
                }
                var format = fromPreset?.format ?? .standard
                if let name = c.string("format", maxLength: 20) {
                    if let f = ExamCategory.Format(rawValue: name) {
                        format = f
                    } else {
                        reader.report("unknown category format '\(name)'", at: c.node("format"), hint: "use " + ExamCategory.Format.described)
                    }
                }
                let instructions = c.string("instructions", maxLength: 4_000) ?? fromPreset?.instructions
                if instructions == nil && (preset == nil || fromPreset != nil) {
                    reader.report(
                        "category '\(categoryID)' needs 'instructions': what an item of this category asks", at: c.node("category"),
                        hint: "describe the item type in a sentence or two, or use a preset that defines the category")
                }
                let counts = DifficultyCounts(
                    easy: c.int("easy", range: 0...maxCellItems) ?? 0, medium: c.int("medium", range: 0...maxCellItems) ?? 0,
                    hard: c.int("hard", range: 0...maxCellItems) ?? 0)
                if counts.total == 0 {
                    reader.report(
                        "category '\(id)/\(categoryID)' asks for no items", at: categoryNode,
                        hint: "give a count for at least one of 'easy', 'medium' and 'hard'")
                }
                var topics = c.stringList("topics", maxCount: 200, maxLength: 300) ?? fromPreset?.topics
                if topics?.isEmpty == true { topics = nil }
                if c.has("topics"), !format.computesKey {
                    reader.report(
                        "'topics' applies to quantitative and geometry categories only", at: c.node("topics"),
                        hint: "remove it: other categories draw their items from the corpus")
                }
                var perPassage: SizeRange?
                if format == .reading {
                    perPassage = context.range(c, "questions_per_passage", default: SizeRange(min: 2, max: 5), limit: 5)
                    if let p = perPassage, p.min < 2 {
                        reader.report(
                            "'\(categoryPath).questions_per_passage' must be 2–5", at: c.node("questions_per_passage"),
                            hint: "a reading-comprehension passage carries 2 to 5 questions")
                    }
                    if let p = perPassage, counts.total > 0, counts.total < p.min {
                        reader.report(
                            "category '\(id)/\(categoryID)' asks for \(counts.total) question(s), fewer than one passage's \(p.min)",
                            at: categoryNode, hint: "ask for at least \(p.min) questions, or lower questions_per_passage")
                    }
                } else if c.has("questions_per_passage") {
                    reader.report(
                        "'questions_per_passage' applies to reading categories only", at: c.node("questions_per_passage"),
                        hint: "remove it, or set 'format: reading'")
                }
                categories.append(
                    ExamCategory(
                        id: categoryID, title: c.string("title", maxLength: 200) ?? fromPreset?.title ?? Self.title(fromSlug: categoryID),
                        format: format, instructions: (instructions ?? "").trimmed, seconds: c.int("seconds", range: 10...3_600) ?? fromPreset?.seconds ?? 60,
                        counts: counts, questionsPerPassage: perPassage, topics: topics))
            }
            sections.append(ExamSection(id: id, title: title, categories: categories))
        }
        if nodes.isEmpty { reader.report("'blueprint' is empty", at: top.node("blueprint"), hint: "list at least one section") }
        return sections
    }

    static func readForms(_ context: SpecReadContext, sections: [ExamSection]?) -> [ExamFormSpec] {
        let top = context.top
        let reader = context.reader
        var forms: [ExamFormSpec] = []
        var seen: Set<String> = []
        for (i, node) in (top.sequence("forms", maxCount: 100) ?? []).enumerated() {
            let path = "forms[\(i)]"
            guard let f = reader.mapping(node, path: path, known: ["id", "title", "duration_minutes", "sections"]) else { continue }
            f.finish()
            guard let id = f.string("id", required: true, maxLength: 64, hint: "a slug such as 'mock-exam-1'") else { continue }
            if !Slug.isValidID(id) { reader.report("'\(path).id' is '\(id)', which is not a slug", at: f.node("id"), hint: "use lowercase letters, digits and hyphens") }
            if !seen.insert(id).inserted { reader.report("form '\(id)' appears twice", at: f.node("id"), hint: "give each form its own id") }
            let duration = f.int("duration_minutes", range: 1...1_440)
            if duration == nil && !f.has("duration_minutes") {
                reader.report("form '\(id)' needs 'duration_minutes'", at: node, hint: "the time a candidate has for the whole exam")
            }
            var parts: [FormSectionSpec] = []
            for (j, partNode) in (f.sequence("sections", maxCount: 50) ?? []).enumerated() {
                guard let p = reader.mapping(partNode, path: "\(path).sections[\(j)]", known: ["section", "count"]) else { continue }
                p.finish()
                guard let section = p.string("section", required: true, maxLength: 64), let count = p.int("count", range: 1...maxCellItems) else {
                    if !p.has("count") { reader.report("'\(path).sections[\(j)]' needs 'count'", at: partNode, hint: "how many items of the section the form takes") }
                    continue
                }
                if let sections {
                    if let blueprint = sections.first(where: { $0.id == section }) {
                        let available = blueprint.categories.reduce(0) { $0 + $1.counts.total }
                        if count > available {
                            reader.report(
                                "form '\(id)' takes \(count) items of section '\(section)', but the blueprint gives it \(available)",
                                at: p.node("count"), hint: "lower the count or ask the blueprint for more items")
                        }
                    } else {
                        reader.report(
                            "form '\(id)' names section '\(section)', which the blueprint does not have", at: p.node("section"),
                            hint: Suggestion.hint(for: section, among: sections.map(\.id)))
                    }
                }
                parts.append(FormSectionSpec(section: section, count: count))
            }
            if parts.isEmpty { reader.report("form '\(id)' takes no sections", at: node, hint: "list 'sections' with a count each") }
            forms.append(
                ExamFormSpec(id: id, title: f.string("title", maxLength: 200) ?? Self.title(fromSlug: id), durationMinutes: duration ?? 60, sections: parts))
        }
        return forms
    }

    /// "reading-comprehension" → "Reading comprehension".
    public static func title(fromSlug slug: String) -> String {
        let words = slug.split(separator: "-").joined(separator: " ")
        return words.prefix(1).uppercased() + words.dropFirst()
    }
}
