import Foundation
import LecternCore

/// A job kind's read side (DESIGN.md, "the read side is the same seam"): what a bundle of this
/// kind holds and how each reader takes it. Preview, diff, package, export and the run's quality
/// report ask the kind; none of them knows what a course or an exam is. A kind plugs in here by
/// one type in `LecternBundle/Kinds/<Kind>/` and one line in `BundleKinds.builtIn`.
public protocol BundleKind: Sendable {
    /// The kind's typed content, decoded from its document(s).
    associatedtype Content: Sendable

    /// The manifest's `kind`.
    static var kind: JobKind { get }
    /// The content document beside manifest.json (`course.json`, `exam.json` …).
    static var document: String { get }
    /// Whether the run's quality.json carries `lectern check`'s lint of `document`.
    static var lintedInQualityReport: Bool { get }
    /// The typed content of a verified bundle; a document that is missing or does not decode
    /// throws `BundleReadError`, naming it.
    static func read(_ bundle: OpenBundle) throws -> Content
    /// The bundle's questions in pipeline order, named by the pipeline's item ids: what the
    /// question exporters (QTI, Moodle, the CSV table, Anki) read. Empty for a kind without any.
    static func questions(in content: Content) -> [BundleQuestion]
    /// The preview's pages beside `index.xhtml` (written through `site`) and the index's body
    /// after its title.
    static func preview(_ content: Content, site: inout PreviewSite) throws -> String
    /// What `lectern diff` compares: the content's items by id, and the paths they cover.
    static func diffUnits(_ content: Content, bundle: OpenBundle) -> DiffUnits
    /// What a marketplace listing says of the content, and the ids its free samples may name.
    static func listing(_ content: Content) -> ListingFacts
    /// The export formats this kind supports, each with how it writes the content.
    static var exporters: [KindExporter<Content>] { get }
    /// What a reviewer reads beside the pipeline's item `item` (an id of review.json) whose
    /// answer is `answer`: what it was built from or stands with — a reading set's passage, a
    /// distractor's card and the quiz as it ships, a question's topic and lecture, the quotes a
    /// tagging batch names by their opening words. Nil when the item's answer says it all.
    static func reviewContext(_ content: Content, item: String, answer: String) -> ReviewContext?
    /// `reviewContext` of each of `items` (id and answer), the content read once.
    static func reviewContexts(_ bundle: OpenBundle, items: [(id: String, answer: String)]) throws -> [String: ReviewContext]
}

extension BundleKind {
    public static var lintedInQualityReport: Bool { false }
    public static func questions(in content: Content) -> [BundleQuestion] { [] }
    public static func reviewContext(_ content: Content, item: String, answer: String) -> ReviewContext? { nil }

    /// `reviewContext` of each of `items` (id and answer), the content read once.
    public static func reviewContexts(_ bundle: OpenBundle, items: [(id: String, answer: String)]) throws -> [String: ReviewContext] {
        let content = try read(bundle)
        var contexts: [String: ReviewContext] = [:]
        for item in items { contexts[item.id] = reviewContext(content, item: item.id, answer: item.answer) }
        return contexts
    }
}

/// What `lectern review` shows above an item's answer so that it can be judged: labelled texts
/// (plain, as the bundle holds them) and the preview page that shows the item in place.
public struct ReviewContext: Sendable, Equatable {
    public struct Part: Sendable, Equatable {
        public var label: String
        public var text: String

        public init(_ label: String, _ text: String) {
            self.label = label
            self.text = text
        }
    }

    public var parts: [Part]
    /// A page of the bundle's preview (relative to its root, a fragment allowed).
    public var preview: String?

    public init(_ parts: [Part], preview: String? = nil) {
        self.parts = parts
        self.preview = preview
    }
}

/// The registry of readable kinds: `manifest.json`'s `kind` → its read side. A value, so a test
/// (or a program embedding Lectern) can read a kind of its own: `BundleKinds.builtIn.adding(MyKind.self)`.
public struct BundleKinds: Sendable {
    public private(set) var all: [JobKind: any BundleKind.Type]

    public init(_ kinds: [any BundleKind.Type]) {
        all = Dictionary(kinds.map { ($0.kind, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// The kinds this version of Lectern writes.
    public static let builtIn = BundleKinds([CourseBundle.self, ExamBundle.self, QuotesBundle.self, DeckBundle.self])

    /// This registry with `kind` added (or replacing the kind of its name).
    public func adding(_ kind: any BundleKind.Type) -> BundleKinds {
        var copy = self
        copy.all[kind.kind] = kind
        return copy
    }

    /// The read side of `manifest`'s kind, or an error saying this version cannot read it.
    public func reader(for manifest: Manifest) throws(BundleReadError) -> any BundleKind.Type {
        guard let kind = all[manifest.kind] else {
            throw BundleReadError(
                "the bundle is of kind '\(manifest.kind)', which this version of Lectern cannot read (it reads "
                    + all.keys.map(\.rawValue).sorted().joined(separator: ", ") + "); read it with the Lectern that wrote it (\(manifest.generator))")
        }
        return kind
    }
}

/// A bundle whose files were verified against its manifest, open for reading.
public struct OpenBundle: Sendable {
    public var url: URL
    public var manifest: Manifest

    public init(url: URL, manifest: Manifest) {
        self.url = url
        self.manifest = manifest
    }

    /// Verifies the bundle at `url` and opens it; a bundle that does not verify is refused with its problems.
    public static func verified(_ url: URL) throws -> OpenBundle {
        let report = try BundleVerifier.verify(url)
        guard report.problems.isEmpty else {
            throw PackageError("the bundle does not verify; fix or regenerate it first:\n  " + report.problems.joined(separator: "\n  "))
        }
        return OpenBundle(url: url, manifest: report.manifest)
    }

    /// The bytes of a file of the bundle, or nil.
    public func data(_ path: String) -> Data? {
        FileManager.default.contents(atPath: url.appendingPathComponent(path).path)
    }

    /// A JSON document of the bundle, decoded as `type`.
    public func decode<T: Decodable>(_ type: T.Type, _ path: String) throws(BundleReadError) -> T {
        guard let data = data(path) else { throw BundleReadError("the \(manifest.kind) bundle has no \(path)") }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw BundleReadError("the bundle's \(path) is not a \(manifest.kind) document: \(BankLint.describe(error))")
        }
    }
}

/// A bundle that cannot be read as its kind: what is missing or wrong, and where.
public struct BundleReadError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// One question of a bundle, whatever its kind: its id (the pipeline's), where it belongs, and
/// what a learner sees.
public struct BundleQuestion: Sendable, Hashable {
    /// The pipeline's item id: `engagement-question/s01-t02`, `reinforcement/s01-t02/level-3`, an exam item's id.
    public var id: String
    /// What kind of question it is, for tags and the table's `kind` column: `engagement`, `bonus`,
    /// `reinforcement`, `practice`, `exam-item` …
    public var role: String
    /// Its heading on a page (`Bonus question`, `Practice, level 3`).
    public var heading: Wording
    /// Whether an item that stands alone (a QTI item) is titled with its heading and topic, or its heading alone.
    public var titledWithTopic: Bool
    /// A course topic's id and title; an exam's `section/category` for both.
    public var topicID: String
    public var topic: String
    /// The course subject's title; empty for an exam.
    public var subject: String
    /// Reinforcement level; nil otherwise.
    public var level: Int?
    /// `multiple_choice`, `free_text`, `true_false`.
    public var format: String
    /// The question's own difficulty word (`basic`, `easy` …); empty when it has none.
    public var difficulty: String
    public var prompt: String
    /// The bundle's rendition of `prompt`, when it has one.
    public var promptXHTML: String?
    /// Empty for a free-text question.
    public var options: [Choice]
    public var referenceAnswer: String?
    public var explanation: String
    /// The reading passage it is asked on (an exam's), by id.
    public var passage: String?
    /// The figure it shows (an exam's geometry item).
    public var figure: ItemFigure?

    public init(
        id: String, role: String, heading: Wording, titledWithTopic: Bool = true, topicID: String, topic: String, subject: String, level: Int? = nil,
        format: String, difficulty: String, prompt: String, promptXHTML: String?, options: [Choice], referenceAnswer: String?, explanation: String,
        passage: String? = nil, figure: ItemFigure? = nil
    ) {
        self.id = id; self.role = role; self.heading = heading; self.titledWithTopic = titledWithTopic; self.topicID = topicID
        self.topic = topic; self.subject = subject; self.level = level; self.format = format; self.difficulty = difficulty
        self.prompt = prompt; self.promptXHTML = promptXHTML; self.options = options; self.referenceAnswer = referenceAnswer
        self.explanation = explanation; self.passage = passage; self.figure = figure
    }
}

/// A few words a page writes itself, in English and Arabic (`Labels` picks one).
public struct Wording: Sendable, Hashable {
    public var english: String
    public var arabic: String

    public init(_ english: String, _ arabic: String) {
        self.english = english
        self.arabic = arabic
    }

    /// The same text in every language (an item id).
    public init(verbatim text: String) { self.init(text, text) }
}

/// One export format a kind supports, and how it writes the kind's content.
public struct KindExporter<Content: Sendable>: Sendable {
    public let exporter: any BundleExporter.Type
    let write: @Sendable (Content, OpenBundle) throws -> Data

    public init(_ exporter: any BundleExporter.Type, write: @escaping @Sendable (Content, OpenBundle) throws -> Data) {
        self.exporter = exporter
        self.write = write
    }
}

/// What `lectern diff` compares in a bundle's content: items by id, and the bundle's paths they
/// cover (the rest are compared by their manifest hash as `file/<path>`).
public struct DiffUnits: Sendable {
    public var items: [String: BundleDiff.Content] = [:]
    public var covered: Set<String> = []
    /// Ids listed first, after `manifest` (a course's `course`, the whole document's other fields).
    public var leading: Set<String> = []

    public init() {}

    /// `value` as canonical JSON (sorted keys): compared field by field.
    public mutating func add(_ id: String, _ value: some Encodable) {
        items[id] = .json(value)
    }

    /// A text, compared line by line.
    public mutating func add(_ id: String, text: String) {
        items[id] = .text(text)
    }
}

/// What a listing says of a bundle's content (`listing.json`'s `contents`), and what its free
/// samples may name.
public struct ListingFacts: Sendable {
    public var contents: Listing.Contents
    public var samples: Set<String>
    /// What the samples are, for messages: "lectures", "forms", "emotions", "cards".
    public var samplesAre: String

    public init(contents: Listing.Contents, samples: Set<String>, samplesAre: String) {
        self.contents = contents
        self.samples = samples
        self.samplesAre = samplesAre
    }
}

/// The preview being written: its folder, the page template, and the pages written so far.
public struct PreviewSite {
    public let output: URL
    public let manifest: Manifest
    public let page: BundlePreview.Page
    /// Pages written beside the index (the bundle's own documents are counted apart).
    public internal(set) var pages = 0

    init(output: URL, manifest: Manifest, page: BundlePreview.Page) {
        self.output = output
        self.manifest = manifest
        self.page = page
    }

    /// `page.label("Forms", "النماذج")`: words in the bundle's language.
    public var label: BundleContent.Labels { page.label }

    /// Writes a page at `path` (relative to the site) with a link back to the index above its body.
    public mutating func write(_ path: String, title: String, body: String) throws {
        let destination = output.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        let up = String(repeating: "../", count: path.split(separator: "/").count - 1)
        let html = "<p><a href=\"\(up)index.xhtml\">\(BundleContent.xmlEscaped(manifest.title))</a></p>\n" + body
        try Data(page.document(title: title, stylesheet: up + "lectern.css", body: html).utf8).write(to: destination)
        pages += 1
    }

    /// The `<title>` of a bundle document already copied into the site.
    public func title(ofDocument path: String) -> String? { BundlePreview.title(ofDocument: output.appendingPathComponent(path)) }
}
