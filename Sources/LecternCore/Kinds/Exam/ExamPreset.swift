import Foundation

/// An exam layout from `pipelines/presets/exam/<name>.yaml`: sections and their categories, each
/// with what an item of it is. A blueprint naming the preset gives counts per category; the
/// preset gives everything else. Users add presets by adding files.
public struct ExamPreset: Sendable, Hashable {
    public struct Category: Sendable, Hashable {
        public var id: String
        public var title: String
        public var format: ExamCategory.Format
        public var instructions: String
        public var seconds: Int
        /// What its items are about, in turn (`ExamCategory.topics`).
        public var topics: [String]? = nil
    }

    public struct Section: Sendable, Hashable {
        public var id: String
        public var title: String
        public var categories: [Category]
    }

    public var name: String
    public var summary: String
    public var sections: [Section]

    public func section(_ id: String) -> Section? { sections.first { $0.id == id } }

    /// Reads one preset file; its name is the file name without the extension.
    public static func load(_ url: URL) throws -> ExamPreset {
        let source = try YAMLSource.read(url)
        let root = try source.compose()
        let reader = SpecReader(file: source.file)
        let name = url.deletingPathExtension().lastPathComponent
        var preset: ExamPreset?
        if let m = reader.mapping(root, path: "", known: ["summary", "sections"]) {
            m.finish()
            let summary = m.string("summary", required: true, maxLength: 300)
            var sections: [Section] = []
            for (i, node) in (m.sequence("sections", maxCount: 20) ?? []).enumerated() {
                guard let s = reader.mapping(node, path: "sections[\(i)]", known: ["id", "title", "categories"]) else { continue }
                s.finish()
                let id = s.string("id", required: true, maxLength: 64)
                let title = s.string("title", required: true, maxLength: 200)
                var categories: [Category] = []
                for (j, categoryNode) in (s.sequence("categories", maxCount: 50) ?? []).enumerated() {
                    let path = "sections[\(i)].categories[\(j)]"
                    guard let c = reader.mapping(categoryNode, path: path, known: ["id", "title", "format", "instructions", "seconds", "topics"]) else { continue }
                    c.finish()
                    let categoryID = c.string("id", required: true, maxLength: 64)
                    let categoryTitle = c.string("title", required: true, maxLength: 200)
                    let instructions = c.string("instructions", required: true, maxLength: 4_000)
                    let formatName = c.string("format", maxLength: 20) ?? ExamCategory.Format.standard.rawValue
                    let format = ExamCategory.Format(rawValue: formatName)
                    if format == nil {
                        reader.report("unknown category format '\(formatName)'", at: c.node("format"), hint: "use " + ExamCategory.Format.described)
                    }
                    if let categoryID, let categoryTitle, let instructions, let format {
                        categories.append(
                            Category(
                                id: categoryID, title: categoryTitle, format: format, instructions: instructions.trimmed,
                                seconds: c.int("seconds", range: 10...3_600) ?? 60, topics: c.stringList("topics", maxCount: 200, maxLength: 300)))
                    }
                }
                if let id, let title { sections.append(Section(id: id, title: title, categories: categories)) }
            }
            if !Slug.isValidID(name) {
                reader.report("preset file name '\(name)' is not a slug", at: nil, hint: "rename it to lowercase letters, digits and hyphens")
            }
            if let summary { preset = ExamPreset(name: name, summary: summary, sections: sections) }
        }
        try reader.throwIfErrors()
        guard let preset else { throw SpecError(SpecDiagnostic(file: source.file, message: "the preset could not be read")) }
        return preset
    }
}
