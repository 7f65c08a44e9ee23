import Foundation
import LecternLLM
import Synchronization

/// A versioned prompt template from `Prompts/<name>.prompt`: a front matter with name and
/// version, then `[system]` and `[user]` sections with `{{variable}}` placeholders. Its
/// `name@version` enters every cache key, so editing a template means bumping its version.
public struct PromptTemplate: Sendable, Hashable {
    public let name: String
    public let version: Int
    let system: String
    let user: String

    /// `name@version`, as it enters cache keys and manifests.
    public var identifier: String { "\(name)@\(version)" }

    public init(name: String, version: Int, system: String, user: String) {
        self.name = name
        self.version = version
        self.system = system
        self.user = user
    }

    /// Parses a template file's text.
    public init(parsing text: String, file: String) throws {
        var lines = text.components(separatedBy: "\n")
        guard lines.first == "---", let end = lines.dropFirst().firstIndex(of: "---") else {
            throw PipelineError("prompt template \(file) has no front matter ('---' … '---')")
        }
        var fields: [String: String] = [:]
        for line in lines[1..<end] {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        guard let name = fields["name"], let versionText = fields["version"], let version = Int(versionText) else {
            throw PipelineError("prompt template \(file) needs 'name' and a whole-number 'version' in its front matter")
        }
        lines = Array(lines[(end + 1)...])
        var sections: [String: [String]] = [:]
        var current: String?
        for line in lines {
            if line == "[system]" || line == "[user]" {
                current = String(line.dropFirst().dropLast())
                continue
            }
            if let current { sections[current, default: []].append(line) }
        }
        guard let user = sections["user"] else { throw PipelineError("prompt template \(file) has no [user] section") }
        self.init(
            name: name, version: version,
            system: (sections["system"] ?? []).joined(separator: "\n").trimmed,
            user: user.joined(separator: "\n").trimmed)
    }

    /// The chat messages with `variables` filled in. An unknown placeholder is a programming
    /// error caught by tests, so it is left visible rather than silently emptied.
    public func messages(_ variables: [String: String]) -> [ChatMessage] {
        var out: [ChatMessage] = []
        if !system.isEmpty { out.append(.system(Self.fill(system, variables))) }
        out.append(.user(Self.fill(user, variables)))
        return out
    }

    static func fill(_ text: String, _ variables: [String: String]) -> String {
        Placeholders.fill(text, variables)
    }
}

/// The templates shipped with Lectern.
public enum PromptLibrary {
    /// Parsed templates: each resource file is read once per process.
    private static let loaded = Mutex<[String: PromptTemplate]>([:])

    /// Loads `name` from the package resources: `<kind>/<template>`, e.g. `course/lecture`, a
    /// file under each kind's folder of `Prompts/`.
    public static func template(_ name: String) throws -> PromptTemplate {
        if let cached = loaded.withLock({ $0[name] }) { return cached }
        let template = try load(name)
        loaded.withLock { $0[name] = template }
        return template
    }

    static func load(_ name: String) throws -> PromptTemplate {
        let parts = name.split(separator: "/").map(String.init)
        let file = parts.last ?? name
        let folder = (["Prompts"] + parts.dropLast()).joined(separator: "/")
        guard
            let url = Bundle.module.url(forResource: file, withExtension: "prompt", subdirectory: folder)
                ?? Bundle.module.url(forResource: file, withExtension: "prompt")
        else {
            throw PipelineError("the prompt template '\(name)' is missing from Lectern's resources; reinstall Lectern")
        }
        let text = try String(contentsOf: url, encoding: .utf8)
        return try PromptTemplate(parsing: text, file: url.lastPathComponent)
    }
}

/// A pipeline problem with a message for the user.
public struct PipelineError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
