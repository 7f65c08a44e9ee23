import Foundation
import Yams

/// A named instruction from `pipelines/presets/<kind>/<name>.yaml`: a curriculum shape or a tone.
public struct Preset: Codable, Sendable, Hashable {
    public enum Kind: String, Codable, Sendable {
        case curriculum, tone, exam
    }

    public var name: String
    /// One line for listings.
    public var summary: String
    /// What the model is told when this preset is chosen.
    public var instructions: String
}

/// The presets available to a job: every `*.yaml` under `curriculum/` and `tone/` of the preset
/// directories. Users add their own by adding files; a later directory overrides an earlier one.
public struct PresetLibrary: Sendable {
    public private(set) var curriculum: [String: Preset] = [:]
    public private(set) var tone: [String: Preset] = [:]
    /// Exam layouts (`exam/<name>.yaml`): sections and categories.
    public private(set) var exam: [String: ExamPreset] = [:]
    /// The directories searched, for messages.
    public private(set) var directories: [URL] = []

    public init() {}

    /// Loads every preset under `directories` (each holding `curriculum/` and `tone/`).
    public init(directories: [URL]) throws {
        self.directories = directories
        var diagnostics: [SpecDiagnostic] = []
        for directory in directories {
            for kind in [Preset.Kind.curriculum, .tone] {
                let folder = directory.appendingPathComponent(kind.rawValue, isDirectory: true)
                guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { continue }
                for file in names.sorted() where file.hasSuffix(".yaml") || file.hasSuffix(".yml") {
                    let url = folder.appendingPathComponent(file)
                    do {
                        let preset = try Self.load(url, kind: kind)
                        switch kind {
                        case .curriculum: curriculum[preset.name] = preset
                        case .tone: tone[preset.name] = preset
                        case .exam: break
                        }
                    } catch let error as SpecError {
                        diagnostics += error.diagnostics
                    }
                }
            }
            let examFolder = directory.appendingPathComponent(Preset.Kind.exam.rawValue, isDirectory: true)
            for file in ((try? FileManager.default.contentsOfDirectory(atPath: examFolder.path)) ?? []).sorted()
            where file.hasSuffix(".yaml") || file.hasSuffix(".yml") {
                do {
                    let preset = try ExamPreset.load(examFolder.appendingPathComponent(file))
                    exam[preset.name] = preset
                } catch let error as SpecError {
                    diagnostics += error.diagnostics
                }
            }
        }
        if !diagnostics.isEmpty { throw SpecError(diagnostics) }
    }

    /// Reads one preset file. Its name is the file name without the extension.
    public static func load(_ url: URL, kind: Preset.Kind) throws -> Preset {
        let source = try YAMLSource.read(url)
        let root = try source.compose()
        let reader = SpecReader(file: source.file)
        let name = url.deletingPathExtension().lastPathComponent
        var preset: Preset?
        if let m = reader.mapping(root, path: "", known: ["summary", "instructions"]) {
            m.finish()
            let summary = m.string("summary", required: true, maxLength: 300)
            let instructions = m.string("instructions", required: true, maxLength: 4_000)
            if !Slug.isValidID(name) {
                reader.report("preset file name '\(name)' is not a slug", at: nil, hint: "rename it to lowercase letters, digits and hyphens")
            }
            if let summary, let instructions {
                preset = Preset(name: name, summary: summary, instructions: instructions.trimmed)
            }
        }
        try reader.throwIfErrors()
        guard let preset else { throw SpecError(SpecDiagnostic(file: source.file, message: "the preset could not be read")) }
        return preset
    }

    /// Finds the preset directories for a spec: `override` when given; otherwise the nearest
    /// `presets/` or `pipelines/presets/` at or above the spec's directory, or, when there is
    /// none, at or above the current directory. (The CLI puts the built-in presets beside the
    /// binary before these: docs/spec.md, "Where presets are found".)
    public static func locate(forSpecAt spec: URL, override: URL? = nil) -> [URL] {
        if let override { return [override] }
        var found: [URL] = []
        for start in [spec.deletingLastPathComponent(), URL(fileURLWithPath: FileManager.default.currentDirectoryPath)] {
            var directory = start.standardizedFileURL
            for _ in 0..<12 {
                for candidate in ["presets", "pipelines/presets"] {
                    let url = directory.appendingPathComponent(candidate, isDirectory: true)
                    var isDirectory: ObjCBool = false
                    if FileManager.default.fileExists(atPath: url.appendingPathComponent("curriculum").path, isDirectory: &isDirectory)
                        || FileManager.default.fileExists(atPath: url.appendingPathComponent("tone").path, isDirectory: &isDirectory)
                        || FileManager.default.fileExists(atPath: url.appendingPathComponent("exam").path, isDirectory: &isDirectory)
                    {
                        if !found.contains(url.standardizedFileURL) { found.append(url.standardizedFileURL) }
                    }
                }
                if !found.isEmpty { break }
                let parent = directory.deletingLastPathComponent()
                if parent.path == directory.path { break }
                directory = parent
            }
            if !found.isEmpty { break }
        }
        return found
    }

    /// Whether a preset of `kind` is called `name`.
    public func contains(_ name: String, kind: Preset.Kind) -> Bool {
        switch kind {
        case .curriculum: curriculum[name] != nil
        case .tone: tone[name] != nil
        case .exam: exam[name] != nil
        }
    }

    /// "did you mean …" or the list of available presets of that kind.
    public func availabilityHint(for name: String, kind: Preset.Kind) -> String {
        let names =
            switch kind {
            case .curriculum: curriculum.keys.sorted()
            case .tone: tone.keys.sorted()
            case .exam: exam.keys.sorted()
            }
        if names.isEmpty {
            let searched = directories.map(\.path).joined(separator: ", ")
            return
                "no \(kind.rawValue) presets were found (searched: \(searched.isEmpty ? "nothing" : searched)); add pipelines/presets/\(kind.rawValue)/\(name).yaml or pass --presets DIR"
        }
        let available = "available: " + names.joined(separator: ", ") + " in " + directories.map(\.path).joined(separator: ", ")
        let own = "add your own as pipelines/presets/\(kind.rawValue)/<name>.yaml, or pass --presets DIR (a directory holding \(kind.rawValue)/)"
        if let match = Suggestion.closest(to: name, among: names) {
            return "did you mean '\(match)'? (\(available)); " + own
        }
        return available + "; " + own
    }
}
