import Foundation
import LecternBundle
import LecternCore
import LecternLLM

/// Expands a course spec into work items and assembles their results into a course and its
/// bundle files. Item ids: `curriculum`, `curriculum-edit/N`, `tone-preview`, `lecture/<topic>`,
/// `engagement-question/<topic>`, `bonus-question/<topic>`, `reinforcement/<topic>/level-<1…4>`,
/// `ending-project/<subject>`, `render/<path>`.
public struct CourseJob: Sendable {
    public let job: CourseJobContext
    public let runner: ModelCallRunner
    /// Renders Markdown to XHTML; nil skips the `.xhtml` renditions.
    public let renderer: (any DocumentRenderer)?

    public init(job: CourseJobContext, runner: ModelCallRunner, renderer: (any DocumentRenderer)?) {
        self.job = job
        self.runner = runner
        self.renderer = renderer
    }

    /// Where the bundle keeps the stylesheet every XHTML document links to: its root, so each
    /// document links to it by a path relative to its own folder (`../lectern.css` from `lectures/`).
    public static let stylesheetPath = "lectern.css"

    /// The id of the item whose value is the final outline.
    var finalCurriculumID: String {
        job.curriculum.edits.isEmpty ? "curriculum" : "curriculum-edit/\(job.curriculum.edits.count)"
    }

    // MARK: Planning

    /// The items a run starts with; the final curriculum item spawns the rest.
    public func initialItems() -> [WorkItem] {
        var items: [WorkItem] = []
        let edits = job.curriculum.edits
        let curriculumSpawns = edits.isEmpty
        if let pinned = job.course.outline {
            items.append(
                WorkItem(id: "curriculum", stage: CurriculumStage.name, context: "pinned outline", usesModel: false) { [self] _ in
                    WorkOutput(value: pinned, spawn: curriculumSpawns ? contentItems(for: pinned) : [])
                })
        } else {
            items.append(
                WorkItem(id: "curriculum", stage: CurriculumStage.name, context: "course curriculum") { [self] _ in
                    let (outline, report) = try await runner.run(try CurriculumStage(job: job).generate(itemID: "curriculum"))
                    return WorkOutput(value: outline, report: report, spawn: curriculumSpawns ? contentItems(for: outline) : [])
                })
        }
        for (index, instruction) in edits.enumerated() {
            let id = "curriculum-edit/\(index + 1)"
            let previous = index == 0 ? "curriculum" : "curriculum-edit/\(index)"
            let isLast = index == edits.count - 1
            items.append(
                WorkItem(id: id, stage: CurriculumStage.editName, context: "edit \(index + 1): \(instruction.prefix(60))", dependencies: [previous]) {
                    [self] context in
                    let current = try context.results.value(previous, as: Outline.self)
                    let (outline, report) = try await runner.run(
                        try CurriculumStage(job: job).edit(itemID: id, outline: current, instruction: instruction))
                    return WorkOutput(value: outline, report: report, spawn: isLast ? contentItems(for: outline) : [])
                })
        }
        return items
    }

    /// Every item that follows from an outline.
    public func contentItems(for outline: Outline) -> [WorkItem] {
        let root = finalCurriculumID
        let places = TopicPlace.all(in: outline)
        let addons = job.course.addons
        var items: [WorkItem] = []

        if let place = TonePreviewStage.pick(places, courseID: job.spec.id) {
            items.append(
                modelItem("tone-preview", stage: TonePreviewStage.name, context: place.contextText, after: [root]) { [self] _ in
                    try TonePreviewStage(job: job).call(itemID: "tone-preview", place: place, outline: outline)
                } wrap: { markdown in
                    TonePreviewValue(topicID: place.topicID, markdown: markdown)
                })
            if renderer != nil {
                items.append(
                    renderItem(path: "tone-preview", source: "tone-preview", title: "Tone preview: \(place.title)") {
                        ($0 as? TonePreviewValue)?.markdown
                    })
            }
        }
        for place in places {
            let lectureID = "lecture/\(place.topicID)"
            items.append(
                modelItem(lectureID, stage: LectureStage.name, context: place.contextText, after: [root]) { [self] _ in
                    try LectureStage(job: job).call(itemID: lectureID, place: place, outline: outline)
                })
            if renderer != nil {
                items.append(renderItem(path: "lectures/\(place.fileStem)", source: lectureID, title: place.title) { $0 as? String })
            }
            if addons.engagementQuestions {
                let questionID = "engagement-question/\(place.topicID)"
                items.append(
                    modelItem(questionID, stage: EngagementQuestionStage.name, context: place.contextText, after: [lectureID]) { [self] done in
                        try EngagementQuestionStage(job: job).engagement(
                            itemID: questionID, place: place, outline: outline, lecture: try done.results.value(lectureID, as: String.self))
                    })
                let bonusID = "bonus-question/\(place.topicID)"
                items.append(
                    modelItem(bonusID, stage: EngagementQuestionStage.bonusName, context: place.contextText, after: [lectureID, questionID]) {
                        [self] done in
                        try EngagementQuestionStage(job: job).bonus(
                            itemID: bonusID, place: place, outline: outline, lecture: try done.results.value(lectureID, as: String.self),
                            first: try done.results.value(questionID, as: Question.self))
                    })
            }
            if addons.reinforcement {
                for level in ReinforcementStage.levels {
                    let id = Self.reinforcementID(place.topicID, level: level)
                    items.append(
                        modelItem(id, stage: ReinforcementStage.name, context: place.contextText + ", level \(level)", after: [lectureID]) {
                            [self] done in
                            try ReinforcementStage(job: job).call(
                                itemID: id, place: place, outline: outline, lecture: try done.results.value(lectureID, as: String.self),
                                level: level)
                        })
                }
            }
        }
        if addons.endingProjects {
            for (index, subject) in outline.subjects.enumerated() {
                let id = "ending-project/\(TopicPlace.subjectID(index))"
                items.append(
                    modelItem(id, stage: EndingProjectStage.name, context: "subject \(index + 1) '\(subject.title)'", after: [root]) { [self] _ in
                        try EndingProjectStage(job: job).call(itemID: id, subjectIndex: index, outline: outline)
                    })
            }
        }
        return items
    }

    /// The item of one level of a topic's reinforcement pool.
    static func reinforcementID(_ topicID: String, level: Int) -> String { "reinforcement/\(topicID)/level-\(level)" }

    /// A work item running one model call, built by `call` once `dependencies` have finished;
    /// `wrap` turns the checked answer into the value later items read.
    func modelItem<Output: Sendable>(
        _ id: String, stage: String, context: String, after dependencies: [String],
        call: @escaping @Sendable (WorkContext) throws -> ModelCall<Output>,
        wrap: @escaping @Sendable (Output) -> any Sendable = { $0 }
    ) -> WorkItem {
        WorkItem(id: id, stage: stage, context: context, dependencies: dependencies) { [runner] done in
            let (value, report) = try await runner.run(try call(done))
            return WorkOutput(value: wrap(value), report: report)
        }
    }

    /// The kind of every rendering warning (unknown TeX, omitted raw HTML, a removed link).
    static let renderWarningKind = "the Markdown did not render exactly as written"

    /// A local item rendering the Markdown produced by `source` to `<path>.xhtml`.
    func renderItem(path: String, source: String, title: String, markdown: @escaping @Sendable (any Sendable) -> String?) -> WorkItem {
        let id = "render/\(path)"
        let language = job.spec.language
        let renderer = self.renderer
        let stylesheet = BundleReferences.reference(to: Self.stylesheetPath, from: "\(path).xhtml")
        return WorkItem(id: id, stage: "render", context: path, dependencies: [source], usesModel: false) { context in
            guard let renderer, let value = context.results.optionalValue(source, as: (any Sendable).self), let text = markdown(value) else {
                throw PipelineError("internal: nothing to render for \(path)")
            }
            do {
                let xhtml = try renderer.renderDocument(text, language: language, title: title, stylesheet: stylesheet)
                let warnings = xhtml.warnings.map {
                    ItemWarning(itemID: id, kind: Self.renderWarningKind, message: "\(path).md: \($0)")
                }
                let report = ItemReport(
                    id: id, stage: "render", attempts: 0, usage: TokenUsage(), paidUsage: TokenUsage(), costUSD: 0, cached: true,
                    latency: .zero, warnings: warnings)
                return WorkOutput(value: RenderedFile(path: "\(path).xhtml", xhtml: xhtml.document, warnings: xhtml.warnings), report: report)
            } catch {
                throw ItemFailureError(reason: .invalid, attempts: 1, errors: ["rendering \(path).md failed: \(error)"])
            }
        }
    }

    // MARK: Assembly

    /// The course and its files from a finished run. Items that failed are left out (this is
    /// only called for a complete run, or with `--allow-partial`).
    public func assemble(results: ResultStore) throws -> (course: Course, files: [String: Data]) {
        let outline = try results.value(finalCurriculumID, as: Outline.self)
        let places = TopicPlace.all(in: outline)
        var files: [String: Data] = [:]
        var subjects: [Subject] = outline.subjects.enumerated().map { index, subject in
            Subject(
                id: TopicPlace.subjectID(index), title: subject.title, topics: [],
                project: results.optionalValue("ending-project/\(TopicPlace.subjectID(index))", as: EndingProject.self))
        }
        for place in places {
            var topic = Topic(id: place.topicID, title: place.title, objective: place.objective)
            if let markdown = results.optionalValue("lecture/\(place.topicID)", as: String.self) {
                let path = "lectures/\(place.fileStem).md"
                files[path] = Data(markdown.utf8)
                var xhtmlPath: String?
                if let rendered = results.optionalValue("render/lectures/\(place.fileStem)", as: RenderedFile.self) {
                    files[rendered.path] = Data(rendered.xhtml.utf8)
                    xhtmlPath = rendered.path
                }
                let words = LectureRules.wordCount(markdown)
                topic.lecture = Lecture(
                    topicID: place.topicID, path: path, xhtmlPath: xhtmlPath, wordCount: words,
                    readingMinutes: LectureRules.readingMinutes(words: words))
            }
            topic.engagementQuestion = results.optionalValue("engagement-question/\(place.topicID)", as: Question.self).map(renderQuestion)
            topic.bonusQuestion = results.optionalValue("bonus-question/\(place.topicID)", as: Question.self).map(renderQuestion)
            let pool = ReinforcementStage.levels.compactMap {
                results.optionalValue(Self.reinforcementID(place.topicID, level: $0), as: ReinforcementQuestion.self)
            }
            topic.reinforcement = pool.isEmpty ? nil : pool
            subjects[place.subjectIndex].topics.append(topic)
        }
        var preview: TonePreview?
        if let value = results.optionalValue("tone-preview", as: TonePreviewValue.self) {
            files["tone-preview.md"] = Data(value.markdown.utf8)
            var xhtmlPath: String?
            if let rendered = results.optionalValue("render/tone-preview", as: RenderedFile.self) {
                files[rendered.path] = Data(rendered.xhtml.utf8)
                xhtmlPath = rendered.path
            }
            preview = TonePreview(topicID: value.topicID, markdown: value.markdown, path: "tone-preview.md", xhtmlPath: xhtmlPath)
        }
        if let renderer, files.keys.contains(where: { $0.hasSuffix(".xhtml") }) {
            files[Self.stylesheetPath] = Data(renderer.stylesheet.utf8)
        }
        let course = Course(
            id: job.spec.id, version: job.spec.version, language: job.spec.language, title: outline.title,
            description: job.spec.description.trimmed, audience: job.spec.audience,
            tone: Tone(presets: job.course.tone.presets, text: job.course.tone.text, instruction: job.toneInstruction),
            subjects: subjects, tonePreview: preview)
        files["course.json"] = try CanonicalJSON.encode(course, pretty: true)
        return (course, files)
    }

    /// Adds the XHTML rendition of a question's prompt.
    func renderQuestion(_ question: Question) -> Question {
        guard let renderer else { return question }
        var copy = question
        copy.promptXHTML = try? renderer.renderFragment(question.prompt, language: job.spec.language)
        return copy
    }
}

/// The tone preview's result.
public struct TonePreviewValue: Sendable {
    public var topicID: String
    public var markdown: String
}

/// A render item's result.
public struct RenderedFile: Sendable {
    public var path: String
    public var xhtml: String
    public var warnings: [String]
}

/// The renderer seam: Markdown + math → sanitized XHTML. The CLI plugs in `LecternRender`.
public protocol DocumentRenderer: Sendable {
    /// A complete XHTML document, and warnings (e.g. unknown TeX commands). `stylesheet` is the
    /// `href` of its stylesheet link, relative to the document (nil: no link).
    func renderDocument(
        _ markdown: String, language: String, title: String, stylesheet: String?
    ) throws -> (
        document: String, warnings: [String]
    )
    /// A sanitized XHTML fragment for embedding (question prompts).
    func renderFragment(_ markdown: String, language: String) throws -> String
    /// The stylesheet the XHTML files link to (the bundle keeps it at `CourseJob.stylesheetPath`).
    var stylesheet: String { get }
}
