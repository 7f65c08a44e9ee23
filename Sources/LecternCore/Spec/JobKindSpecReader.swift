import Foundation

/// Reads one kind's part of a spec. `SpecLoader` reads the common keys (id, version, language,
/// description, audience, variant, tone, model, budget, repair) once, then hands the top-level
/// mapping to the reader of the spec's `kind:`, registered in `SpecLoader.kindReaders`.
public protocol JobKindSpecReader: SendableMetatype {
    /// The top-level keys this kind adds to the common ones; any other key is reported unknown.
    static var keys: [String] { get }
    /// The kind's part, or nil when it could not be read (the problems are reported on
    /// `context.reader`, each at its file:line:column).
    static func read(_ context: SpecReadContext) -> JobContent?
}

/// What a kind's reader works with: the top-level mapping, the place to report problems, the
/// presets, the common values it may need, and helpers for shapes several kinds share.
public struct SpecReadContext {
    public let top: MappingReader
    public let reader: SpecReader
    public let presets: PresetLibrary
    /// The spec's language tag.
    public let language: String
    /// The directory relative paths are resolved against (nil: the current directory).
    public let baseDirectory: URL?
    /// Where the files the spec names may be read from: its project and the allowed roots.
    public let fileRoots: FileRoots

    public init(top: MappingReader, reader: SpecReader, presets: PresetLibrary, language: String, baseDirectory: URL?, allowedRoots: [URL] = []) {
        self.top = top
        self.reader = reader
        self.presets = presets
        self.language = language
        self.baseDirectory = baseDirectory
        self.fileRoots = FileRoots(
            specDirectory: baseDirectory ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true), allowed: allowedRoots)
    }

    /// `baseDirectory`, or the current directory.
    public var resolvedBaseDirectory: URL {
        baseDirectory ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
    }

    /// A size range: `key: 3` (exactly 3) or `key: {min: 2, max: 5}`; `value` when absent.
    public func range(_ parent: MappingReader?, _ key: String, default value: SizeRange, limit: Int) -> SizeRange {
        guard let parent, let node = parent.node(key) else { return value }
        if case .scalar = node, node.null == nil {
            if let n = parent.int(key, range: 1...limit) { return SizeRange(min: n, max: n) }
            return value
        }
        guard let r = parent.mapping(key, known: ["min", "max"]) else { return value }
        r.finish()
        let min = r.int("min", range: 1...limit) ?? value.min
        let max = r.int("max", range: 1...limit) ?? Swift.max(value.max, min)
        if min > max {
            reader.report("'\(r.path)' has min \(min) greater than max \(max)", at: r.node, hint: "make min ≤ max")
        }
        return SizeRange(min: min, max: Swift.max(min, max))
    }

    /// `preset: name` or `presets: [a, b]` (not both), each checked against the library.
    public func presetNames(_ mapping: MappingReader?, kind: Preset.Kind) -> [String] {
        guard let mapping else { return [] }
        if mapping.has("preset") && mapping.has("presets") {
            reader.report("'\(mapping.path)' has both 'preset' and 'presets'", at: mapping.node("presets"), hint: "use 'presets: [a, b]' alone")
        }
        let names = mapping.stringList("presets", maxCount: 8, maxLength: 64) ?? mapping.stringList("preset", maxCount: 8, maxLength: 64) ?? []
        let node = mapping.node("presets") ?? mapping.node("preset")
        for name in names where !presets.contains(name, kind: kind) {
            reader.report("unknown \(kind.rawValue) preset '\(name)'", at: node, hint: presets.availabilityHint(for: name, kind: kind))
        }
        return names
    }
}
