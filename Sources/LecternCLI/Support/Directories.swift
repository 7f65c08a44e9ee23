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
}
