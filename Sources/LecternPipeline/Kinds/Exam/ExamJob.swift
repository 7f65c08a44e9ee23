import Foundation
import LecternCore
import LecternLLM

/// What every exam stage needs: the spec, its exam part, the tone, and the planned work over
/// the corpus (sources per item, passages, grounding, duplicate detection).
public struct ExamJobContext: Sendable {
    public var spec: JobSpec
    public var exam: ExamSpec
    public var work: ExamWork
    public var toneInstruction: String
    public var languageName: String

    public init(spec: JobSpec, presets: PresetLibrary) throws {
        guard let exam = spec.exam else { throw PipelineError("the spec '\(spec.id)' is not an exam") }
        self.spec = spec
        self.exam = exam
        self.work = try ExamWork.make(spec: spec, exam: exam)
        self.toneInstruction = PromptText.tone(spec.tone, presets: presets)
        self.languageName = PromptText.languageName(spec.language)
    }
}

/// The ids of an exam's items, shared by planning and assembly.
public enum ExamItems {
    public static func item(_ id: String) -> ItemID { ItemID(ExamItemStage.name, id) }
    public static func readingSet(_ id: String) -> ItemID { ItemID(ExamItemStage.readingName, id) }
    /// The re-ask of an item (or reading set) whose stem repeated an earlier one.
    public static func retry(_ original: ItemID) -> ItemID { ItemID(ExamJob.retryName, original.rawValue) }
    public static let bankCheck = ItemID(ExamJob.bankCheckName)
    public static let bank = ItemID(ExamJob.bankName)
    public static func passage(_ id: String) -> ItemID { ItemID(ExamJob.passageName, id) }
    public static func form(_ id: String) -> ItemID { ItemID(ExamJob.formName, id) }
    public static func render(_ path: String) -> ItemID { ItemID(.render, path) }
}

/// The `exam` kind: an item bank grounded in a corpus, laid out by a blueprint, and the forms
/// (full exams) assembled from it. Items of standard categories are asked one per call, reading
/// comprehension one set per passage; a bank check then re-asks items whose stems repeat an
/// earlier one, and the forms are assembled from the final bank without another call.
public struct ExamJob: GenerationJob {
    public static let bankCheckName: StageName = "bank-check"
    public static let retryName: StageName = "exam-item-retry"
    public static let bankName: StageName = "bank"
    public static let passageName: StageName = "passage"
    public static let formName: StageName = "form"

    /// The bank check reads every item and spawns the re-asks of repeated stems: in a sharded
    /// run every shard runs it in a second round, on the merged cache, and asks the re-asks that
    /// fall to it (docs/scale.md), so the assembling run asks nothing and the bank is the one a
    /// single run writes.
    public static let gatheringStages: Set<StageName> = [bankCheckName]

    public static let stages: [StageInfo] = [
        StageInfo(passageName, typicalTokens: 0), StageInfo(ExamItemStage.name, typicalTokens: 1_500, blindSolves: 1),
        StageInfo(ExamItemStage.readingName, typicalTokens: 3_000, blindSolves: 3), StageInfo(bankCheckName, typicalTokens: 0),
        StageInfo(retryName, typicalTokens: 1_800, blindSolves: 1), StageInfo(bankName, typicalTokens: 0), StageInfo(formName, typicalTokens: 0),
        StageInfo(.render, typicalTokens: 0),
    ]

    public let job: ExamJobContext
    public let runner: ModelCallRunner
    public let renderer: (any DocumentRenderer)?

    public init(environment: JobEnvironment) throws {
        self.job = try ExamJobContext(spec: environment.spec, presets: environment.presets)
        self.runner = environment.runner
        self.renderer = environment.renderer
    }

    var stage: ExamItemStage { ExamItemStage(context: job) }

    /// Every item and reading set of the blueprint, the passages and their renderings; the bank
    /// check spawns the rest.
    public func initialItems() -> [WorkItem] {
        var items: [WorkItem] = []
        var generated: [ItemID] = []
        for set in job.work.passages {
            let id = ExamItems.passage(set.passage.id)
            let markdown = ExamDocuments.passageMarkdown(set, language: job.spec.language)
            items.append(WorkItem(id: id, stage: Self.passageName, context: set.passage.id, usesModel: false) { _ in WorkOutput(value: markdown) })
            if renderer != nil {
                items.append(
                    DocumentRendering.item(
                        id: ExamItems.render("passages/\(set.passage.id)"), path: "passages/\(set.passage.id)", source: id,
                        title: ExamDocuments.passageTitle(set, language: job.spec.language), language: job.spec.language, renderer: renderer
                    ) { $0 as? String })
            }
        }
        for question in job.work.questions {
            let id = ExamItems.item(question.id)
            generated.append(id)
            items.append(
                WorkItem(id: id, stage: ExamItemStage.name, context: question.id) { [self] _ in
                    let (item, report) = try await runner.run(try stage.item(question))
                    return WorkOutput(value: [Self.stamped(item, attempts: report.attempts)], report: report)
                })
        }
        for set in job.work.passages {
            let id = ExamItems.readingSet(set.passage.id)
            generated.append(id)
            items.append(
                WorkItem(id: id, stage: ExamItemStage.readingName, context: "\(set.section.id)/\(set.category.id) passage \(set.passage.id)") {
                    [self] _ in
                    let (questions, report) = try await runner.run(try stage.readingSet(set))
                    return WorkOutput(value: questions.map { Self.stamped($0, attempts: report.attempts) }, report: report)
                })
        }
        let sources = generated
        items.append(
            WorkItem(id: ExamItems.bankCheck, stage: Self.bankCheckName, context: "the whole bank", dependencies: sources, usesModel: false) {
                [self] context in
                let drafts = sources.map { (id: $0, items: (try? context.results.value($0, as: [ExamItem].self)) ?? []) }
                return WorkOutput(value: true, spawn: bankItems(after: drafts))
            })
        return items
    }

    static func stamped(_ item: ExamItem, attempts: Int) -> ExamItem {
        var copy = item
        copy.generation.attempts = attempts
        return copy
    }

    /// After every item is in: re-asks each item (or reading set) whose stem repeats an earlier
    /// one (in id order), then the bank, the forms and their renderings.
    func bankItems(after drafts: [(id: ItemID, items: [ExamItem])]) -> [WorkItem] {
        let duplicates = job.work.duplicates(in: drafts.map { ($0.id.rawValue, $0.items.map(ExamWork.duplicateKey)) })
        var items: [WorkItem] = []
        var finals: [ItemID] = []
        let questions = Dictionary(job.work.questions.map { (ExamItems.item($0.id), $0) }) { a, _ in a }
        let sets = Dictionary(job.work.passages.map { (ExamItems.readingSet($0.passage.id), $0) }) { a, _ in a }
        let kept = drafts.filter { duplicates[$0.id.rawValue] == nil }.flatMap { $0.items.map(ExamWork.duplicateKey) }
        for draft in drafts {
            guard duplicates[draft.id.rawValue] != nil else {
                finals.append(draft.id)
                continue
            }
            let retry = ExamItems.retry(draft.id)
            finals.append(retry)
            if let question = questions[draft.id] {
                items.append(
                    WorkItem(id: retry, stage: Self.retryName, context: "\(question.id): its stem repeated an earlier item") { [self] _ in
                        let (item, report) = try await runner.run(try stage.item(question, avoid: kept, retry: true))
                        var call = Self.stamped(item, attempts: report.attempts)
                        call.id = question.id
                        return WorkOutput(value: [call], report: report)
                    })
            } else if let set = sets[draft.id] {
                items.append(
                    WorkItem(id: retry, stage: Self.retryName, context: "passage \(set.passage.id): a question repeated an earlier item") {
                        [self] _ in
                        let (questions, report) = try await runner.run(try stage.readingSet(set, avoid: kept, retry: true))
                        return WorkOutput(value: questions.map { Self.stamped($0, attempts: report.attempts) }, report: report)
                    })
            }
        }
        let sources = finals
        items.append(
            WorkItem(id: ExamItems.bank, stage: Self.bankName, context: "the final bank", dependencies: sources, usesModel: false) {
                [self] context in
                let bank = try sources.flatMap { try context.results.value($0, as: [ExamItem].self) }
                return WorkOutput(value: bank, spawn: formItems(bank: bank))
            })
        return items
    }

    /// Each form's document and its rendering, from the final bank.
    func formItems(bank: [ExamItem]) -> [WorkItem] {
        var items: [WorkItem] = []
        let forms = ExamForms.assemble(job.exam, bank: bank, passages: job.work.passages.map(\.passage))
        for form in forms {
            let id = ExamItems.form(form.id)
            let markdown = ExamDocuments.formMarkdown(form, bank: bank, passages: job.work.passages.map(\.passage), exam: job.exam, language: job.spec.language)
            items.append(WorkItem(id: id, stage: Self.formName, context: form.id, usesModel: false) { _ in WorkOutput(value: markdown) })
            if renderer != nil {
                items.append(
                    DocumentRendering.item(
                        id: ExamItems.render("forms/\(form.id)"), path: "forms/\(form.id)", source: id, title: form.title,
                        language: job.spec.language, renderer: renderer
                    ) { $0 as? String })
            }
        }
        return items
    }

    public static let languageBoundChecks: [LanguageBoundCheck] = [.feedbackWording, .examTextWording]

    public static let unreachedNote =
        "the bank, its bank-wide check and the forms wait for items not stored yet; they are counted from the blueprint and the forms, and a stem the check finds repeated is asked again beyond them"

    public func unreachedEstimate(reached: Set<String>) -> [StageName: Int] {
        guard !reached.contains(ExamItems.bank.rawValue) else { return [:] }
        var add: [StageName: Int] = [Self.bankName: 1, Self.formName: job.exam.forms.count]
        if !reached.contains(ExamItems.bankCheck.rawValue) { add[Self.bankCheckName] = 1 }
        if renderer != nil { add[.render] = job.exam.forms.count }
        return add
    }

    /// `exam.json`, the passages and forms as Markdown and XHTML; nil until the bank is in.
    public func assemble(results: ResultStore) throws -> AssembledBundle? {
        guard let bank = results.optionalValue(ExamItems.bank, as: [ExamItem].self) else { return nil }
        var files: [String: Data] = [:]
        var passages: [Passage] = []
        for set in job.work.passages {
            var passage = set.passage
            if let markdown = results.optionalValue(ExamItems.passage(passage.id), as: String.self) {
                files["passages/\(passage.id).md"] = Data(markdown.utf8)
            }
            if let rendered = results.optionalValue(ExamItems.render("passages/\(passage.id)"), as: RenderedFile.self) {
                files[rendered.path] = Data(rendered.xhtml.utf8)
                passage.xhtmlPath = rendered.path
            }
            passages.append(passage)
        }
        var forms: [ExamForm] = []
        for var form in ExamForms.assemble(job.exam, bank: bank, passages: passages) {
            if let markdown = results.optionalValue(ExamItems.form(form.id), as: String.self) {
                files["forms/\(form.id).md"] = Data(markdown.utf8)
            }
            if let rendered = results.optionalValue(ExamItems.render("forms/\(form.id)"), as: RenderedFile.self) {
                files[rendered.path] = Data(rendered.xhtml.utf8)
                form.xhtmlPath = rendered.path
            }
            forms.append(form)
        }
        let items = bank.map { item in
            var copy = item
            if let renderer { copy.promptXHTML = try? renderer.renderFragment(item.prompt, language: job.spec.language) }
            return copy
        }
        for item in items {
            guard let figure = item.figure else { continue }
            files[figure.path] = Data(GeometryFigureDrawing.svg(figure.geometry, alt: figure.alt, language: job.spec.language).utf8)
        }
        DocumentRendering.addStylesheet(to: &files, renderer: renderer)
        let title = job.exam.title ?? ExamSpecReader.title(fromSlug: job.spec.id)
        let exam = ExamBank(
            id: job.spec.id, version: job.spec.version, language: job.spec.language, title: title, description: job.spec.description.trimmed,
            audience: job.spec.audience,
            sections: job.exam.sections.map { section in
                ExamBankSection(id: section.id, title: section.title, categories: section.categories.map { ExamBankCategory(id: $0.id, title: $0.title, format: $0.format) })
            },
            passages: passages, items: items, forms: forms, documents: job.work.documents)
        files["exam.json"] = try CanonicalJSON.encode(exam, pretty: true)
        let entry = forms.first?.xhtmlPath ?? passages.first?.xhtmlPath ?? "exam.json"
        return AssembledBundle(title: title, files: files, entryDocument: entry)
    }
}
