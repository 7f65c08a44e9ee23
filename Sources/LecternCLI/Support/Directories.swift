import Foundation

enum Directories {
    /// `directory` and each directory above it, up to the root.
    static func ancestors(of directory: URL) -> [URL] {
        var result: [URL] = []
        var current = directory.standardizedFileURL
        while true {
            result.append(current)
            let parent = current.deletingLastPathComponent()
            if parent.path == current.path || current.path == "/" { break }
            current = parent
        }
        return result
    }

    /// The presets `make install` put beside the executable, `<prefix>/share/lectern/presets`
    /// (the executable being `<prefix>/libexec/lectern/lectern` or `<prefix>/bin/lectern`): what
    /// a spec outside this repository uses when no `presets/` is above it.
    static func installedPresets(executable: URL? = Bundle.main.executableURL) -> URL? {
        guard let executable else { return nil }
        return ancestors(of: executable.resolvingSymlinksInPath().deletingLastPathComponent()).lazy
            .map { $0.appendingPathComponent("share/lectern/presets", isDirectory: true) }
            .first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("curriculum").path) }
    }
}
