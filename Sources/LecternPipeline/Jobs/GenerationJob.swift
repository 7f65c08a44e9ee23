import Foundation
import LecternCore
import LecternLLM

/// What the planner and the progress display know of a stage.
public struct StageInfo: Sendable, Hashable {
    public var name: StageName
    /// Tokens (prompt and answer) a call of this stage typically takes: `plan`'s estimate where
    /// the cache has nothing better. 0 for a stage without model calls.
    public var typicalTokens: Int
    /// Multiple-choice questions an item of this stage typically holds, each a blind solve when
    /// the spec's `review.blind_solve` is on (a reinforcement level: 0.5, levels 1–2 of 4).
    public var blindSolves: Double

    public init(_ name: StageName, typicalTokens: Int, blindSolves: Double = 0) {
        self.name = name
        self.typicalTokens = typicalTokens
        self.blindSolves = blindSolves
    }
}

extension WorkItem {
    /// An item with a typed id and stage.
    public init(
        id: ItemID, stage: StageName, context: String, dependencies: [ItemID] = [], after: [ItemID] = [], usesModel: Bool = true,
        shardKey: String? = nil, body: @escaping @Sendable (WorkContext) async throws -> WorkOutput
    ) {
        self.init(
            id: id.rawValue, stage: stage.rawValue, context: context, dependencies: dependencies.map(\.rawValue), after: after.map(\.rawValue),
            usesModel: usesModel, shardKey: shardKey, body: body)
    }
}

extension ResultStore {
    /// The value of a finished item, or nil.
    public func optionalValue<T: Sendable>(_ id: ItemID, as type: T.Type) -> T? { optionalValue(id.rawValue, as: type) }
    /// The value of a finished item; throws when it is missing or of another type.
    public func value<T: Sendable>(_ id: ItemID, as type: T.Type) throws -> T { try value(id.rawValue, as: type) }
}

/// What every job is built from: the spec, the presets, the model-call runner and the renderer.
public struct JobEnvironment: Sendable {
    public var spec: JobSpec
    public var presets: PresetLibrary
    public var runner: ModelCallRunner
    /// Renders Markdown to XHTML; nil skips the `.xhtml` renditions.
    public var renderer: (any DocumentRenderer)?
    /// Speech synthesis for the `narration` add-on; nil when the spec asks for none.
    public var speech: SpeechSetup?

    public init(spec: JobSpec, presets: PresetLibrary, runner: ModelCallRunner, renderer: (any DocumentRenderer)?, speech: SpeechSetup? = nil) {
        self.spec = spec
        self.presets = presets
        self.runner = runner
        self.renderer = renderer
        self.speech = speech
    }
}

/// A finished job's bundle content: the files beside manifest.json.
public struct AssembledBundle: Sendable {
    /// The manifest's title.
    public var title: String
    /// Bundle-relative path → bytes.
    public var files: [String: Data]
    /// The document a reader opens first, relative to the bundle.
    public var entryDocument: String
    /// Counts the manifest carries under `contents` (a quote database's coverage by emotion and
    /// category); empty for none.
    public var counts: [String: [String: Int]]
    /// Lines the run's closing summary adds, indented two spaces.
    public var summary: [String]

    public init(title: String, files: [String: Data], entryDocument: String, counts: [String: [String: Int]] = [:], summary: [String] = []) {
        self.title = title
        self.files = files
        self.entryDocument = entryDocument
        self.counts = counts
        self.summary = summary
    }
}

/// A job kind's pipeline: the one type the runner, the planner, `plan`, `run`, the event log and
/// the bundle writer ask. A kind plugs in by implementing this, registering in `JobKinds`, and
/// giving LecternCore a spec reader (`JobKindSpecReader`); docs/ARCHITECTURE.md walks through one.
public protocol GenerationJob: Sendable {
    /// The stages in the order a run reaches them (progress lines, logs and `plan` rows follow it).
    static var stages: [StageInfo] { get }
    /// Stages every shard of a sharded run needs (`run --shard`, `Shard`): the planning that
    /// the rest depends on. Empty by default: every item is partitioned.
    static var sharedStages: Set<StageName> { get }
    /// Local stages that read items of several shards and spawn model calls from them (an exam's
    /// bank check): every shard runs them once its cache holds the other shards' items (a second
    /// round of shards), and runs the calls that fall to it, so the assembling run asks nothing.
    /// Empty by default.
    static var gatheringStages: Set<StageName> { get }
    /// The checks of this kind that read wording only a `LanguageProfile` knows: a run in a
    /// language without one lists them in quality.json and its summary as not applied. Empty by
    /// default.
    static var languageBoundChecks: [LanguageBoundCheck] { get }
    /// Builds the job; throws `PipelineError` when the spec cannot run (say, its corpus changed
    /// since it was validated).
    init(environment: JobEnvironment) throws
    /// The items a run starts with; their results may spawn more.
    func initialItems() -> [WorkItem]
    /// For `plan`: items each stage would still add beyond those a replay reached (`reached`:
    /// the ids of the items it finished), estimated from the spec's bounds. Empty when the
    /// replay reached every item.
    func unreachedEstimate(reached: Set<String>) -> [StageName: Int]
    /// For `plan`, when `unreachedEstimate` added items: what they wait for and what their
    /// counts are (upper bounds, exact, or leaving some calls out), in this kind's words.
    static var unreachedNote: String { get }
    /// The bundle's files from a finished run (failed items left out); nil when too little
    /// finished to write anything (a course without its curriculum).
    func assemble(results: ResultStore) throws -> AssembledBundle?
}

extension GenerationJob {
    public static var sharedStages: Set<StageName> { [] }
    public static var gatheringStages: Set<StageName> { [] }
    public static var languageBoundChecks: [LanguageBoundCheck] { [] }
    public static var unreachedNote: String { "some items wait for answers not stored yet: their counts are estimated from the spec" }
}

/// The registry of job kinds that run: `kind:` → its pipeline.
public enum JobKinds {
    public static let all: [JobKind: any GenerationJob.Type] = [
        .course: CourseJob.self,
        .exam: ExamJob.self,
        .quotes: QuotesJob.self,
        .flashcards: DeckJob.self,
    ]

    /// The pipeline of `kind`; throws for a kind this version cannot run.
    public static func pipeline(for kind: JobKind) throws -> any GenerationJob.Type {
        guard let type = all[kind] else { throw PipelineError("kind '\(kind.rawValue)' is not supported by this version of Lectern") }
        return type
    }

    /// The stage names of `kind` in run order (empty for a kind that does not run).
    public static func stageOrder(of kind: JobKind) -> [StageName] {
        all[kind]?.stages.map(\.name) ?? []
    }
}
