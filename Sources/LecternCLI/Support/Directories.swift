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

    /// The built-in presets beside the executable: the first directory, from the executable's
    /// own (symbolic links resolved) upwards, that holds `share/lectern/presets` (what `make
    /// install` puts beside `<prefix>/libexec/lectern/lectern`) or `pipelines/presets` (a build
    /// in a clone of this repository, `.build/release/lectern`). What a spec outside the
    /// repository uses when no `presets/` is above it.
    static func builtInPresets(executable: URL? = Bundle.main.executableURL) -> URL? {
        guard let executable else { return nil }
        return ancestors(of: executable.resolvingSymlinksInPath().deletingLastPathComponent()).lazy
            .flatMap { directory in ["share/lectern/presets", "pipelines/presets"].map { directory.appendingPathComponent($0, isDirectory: true) } }
            .first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("curriculum").path) }
    }
}
