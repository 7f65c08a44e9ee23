import Foundation
import LecternCore

/// `manifest.json`: what a bundle holds and how it was made. Deterministic for a given spec and
/// cache: no wall-clock time, sorted keys, sorted lists.
public struct Manifest: Codable, Sendable, Hashable {
    public static let currentFormat = 1
    public static let fileName = "manifest.json"

    public struct FileEntry: Codable, Sendable, Hashable {
        public var sha256: String
        public var bytes: Int
    }

    public struct Usage: Codable, Sendable, Hashable {
        public var promptTokens: Int
        public var completionTokens: Int
        public var cachedTokens: Int
        public var totalTokens: Int
        /// Model calls the content took (repairs included).
        public var calls: Int

        public init(promptTokens: Int, completionTokens: Int, cachedTokens: Int, calls: Int) {
            self.promptTokens = promptTokens
            self.completionTokens = completionTokens
            self.cachedTokens = cachedTokens
            self.totalTokens = promptTokens + completionTokens
            self.calls = calls
        }

        enum CodingKeys: String, CodingKey {
            case promptTokens = "prompt_tokens", completionTokens = "completion_tokens", cachedTokens = "cached_tokens",
                totalTokens = "total_tokens", calls
        }
    }

    public var formatVersion: Int = Manifest.currentFormat
    /// The job kind that wrote it: what reads it (`BundleKinds`).
    public var kind: JobKind
    public var id: String
    public var version: String
    public var title: String
    public var language: String
    public var generator: String
    public var specHash: String
    /// `provider/model` for every model that answered.
    public var models: [String]
    /// `name@version` of every prompt template used.
    public var promptTemplates: [String]
    public var usage: Usage
    /// Cost of all calls the content took, at the price table's rates (USD).
    public var costUSD: Double
    /// Items that failed, when written with `--allow-partial`; empty for a complete bundle.
    public var incompleteItems: [String]
    public var files: [String: FileEntry]
    /// What the content holds, in counts the kind chooses (a quote database: quotes per emotion
    /// and per category); absent for kinds that count nothing.
    public var contents: [String: [String: Int]]?

    public init(
        kind: JobKind, id: String, version: String, title: String, language: String, generator: String, specHash: String,
        models: [String], promptTemplates: [String], usage: Usage, costUSD: Double, incompleteItems: [String], files: [String: FileEntry],
        contents: [String: [String: Int]]? = nil
    ) {
        self.kind = kind
        self.id = id
        self.version = version
        self.title = title
        self.language = language
        self.generator = generator
        self.specHash = specHash
        self.models = models.sorted()
        self.promptTemplates = promptTemplates.sorted()
        self.usage = usage
        // Rounded so float summation order cannot change the bytes.
        self.costUSD = (costUSD * 1_000_000).rounded() / 1_000_000
        self.incompleteItems = incompleteItems.sorted()
        self.files = files
        self.contents = contents
    }

    enum CodingKeys: String, CodingKey {
        case formatVersion = "format_version", kind, id, version, title, language, generator, specHash = "spec_hash", models,
            promptTemplates = "prompt_templates", usage, costUSD = "cost_usd", incompleteItems = "incomplete_items", files, contents
    }
}
