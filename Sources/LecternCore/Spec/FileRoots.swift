import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the files a spec names may be read from (its corpus, an imported set): inside the
/// spec's project — the nearest directory above the spec that holds `.git`, else the spec's own
/// directory — or under a directory the command line allows (`--corpus-root DIR`, repeatable).
///
/// A spec is a file people share and run; what a run reads goes into prompts, so to the
/// provider. Without this rule `corpus: [../../../../etc]`, or a corpus file that is a link to
/// `~/.ssh/id_ed25519`, would send a private file away. Paths are compared after every symbolic
/// link in them is resolved, so a link cannot lead out.
public struct FileRoots: Sendable, Hashable, Codable {
    /// The allowed directories, as real paths (links resolved), the project first.
    public let directories: [String]

    /// The roots of a spec in `specDirectory`: its project, and `allowed` (from `--corpus-root`).
    public init(specDirectory: URL, allowed: [URL] = []) {
        var directories = [Self.realPath(Self.project(of: specDirectory).path) ?? specDirectory.standardizedFileURL.path]
        for directory in allowed {
            let real = Self.realPath(directory.path) ?? directory.standardizedFileURL.path
            if !directories.contains(real) { directories.append(real) }
        }
        self.directories = directories
    }

    /// The spec's project: the nearest directory at or above `specDirectory` holding `.git`
    /// (a directory, or a file in a worktree), else `specDirectory` itself.
    public static func project(of specDirectory: URL) -> URL {
        var directory = specDirectory.standardizedFileURL
        while true {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent(".git").path) { return directory }
            let parent = directory.deletingLastPathComponent()
            if parent.path == directory.path { return specDirectory.standardizedFileURL }
            directory = parent
        }
    }

    /// `path` with every symbolic link resolved, or nil when it does not exist.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether the file or directory at `url` (links resolved) lies inside one of the roots; a
    /// path that does not exist is not inside.
    public func contains(_ url: URL) -> Bool {
        guard let real = Self.realPath(url.path) else { return false }
        return directories.contains { real == $0 || real.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") }
    }

    /// Why `url` may not be read (nil when it may): where it leads, and the roots.
    public func refusal(_ url: URL, written: String) -> String? {
        guard !contains(url), let real = Self.realPath(url.path) else { return nil }
        let leads = real == written || real == url.standardizedFileURL.path && written.hasPrefix("/") ? "" : " (it leads to \(real))"
        return "'\(written)'\(leads) is outside the spec's project (\(directories[0]))"
            + (directories.count > 1 ? " and the allowed roots (\(directories.dropFirst().joined(separator: ", ")))" : "")
    }

    /// What to do about a refusal.
    public static let hint =
        "a spec reads files only inside its project (the nearest directory above it holding .git, else its own directory); "
        + "move the files there, or allow their directory with --corpus-root DIR"
}
