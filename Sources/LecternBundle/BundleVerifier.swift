import Foundation
import LecternCore

/// Checks a bundle directory against its manifest: every file present with its size and
/// SHA-256, nothing extra, and every local reference of its XHTML documents (stylesheet, links,
/// images) naming one of its files.
public enum BundleVerifier {
    public struct Report: Sendable {
        public var manifest: Manifest
        public var checkedFiles: Int
        /// One line per problem: missing, changed or unlisted files, and references to files the
        /// bundle does not have.
        public var problems: [String]
    }

    /// Throws "no such directory" (naming the versions beside it, when its folder holds some)
    /// or "is a file" before anything else is said of a bundle that is not there.
    static func requireDirectory(_ directory: URL) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw BundleError(.invalid, "\(directory.path) is a file, not a bundle directory (name a directory such as output/<id>/<version>)")
            }
            return
        }
        let parent = directory.deletingLastPathComponent()
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []).filter {
            FileManager.default.fileExists(atPath: parent.appendingPathComponent($0).appendingPathComponent(Manifest.fileName).path)
        }.sorted { $0.compare($1, options: .numeric) == .orderedAscending }
        let beside = versions.isEmpty ? "name a bundle directory such as output/<id>/<version>" : "\(parent.path) holds " + versions.joined(separator: ", ")
        throw BundleError(.invalid, "\(directory.path): no such directory (\(beside))")
    }

    public static func verify(_ directory: URL) throws -> Report {
        try requireDirectory(directory)
        let manifestURL = directory.appendingPathComponent(Manifest.fileName)
        guard let data = FileManager.default.contents(atPath: manifestURL.path) else {
            throw BundleError(
                .invalid, "\(directory.path) has no manifest.json: it is not a Lectern bundle (name a directory such as output/<id>/<version>)")
        }
        let manifest: Manifest
        do {
            manifest = try JSONDecoder().decode(Manifest.self, from: data)
        } catch {
            throw BundleError(.invalid, "\(manifestURL.path) is not a valid manifest: \(error.localizedDescription)")
        }
        guard manifest.formatVersion <= Manifest.currentFormat else {
            throw BundleError(
                .invalid,
                "\(manifestURL.path) has format version \(manifest.formatVersion); this Lectern reads up to \(Manifest.currentFormat): upgrade Lectern"
            )
        }
        var problems: [String] = []
        var checked = 0
        for (path, entry) in manifest.files.sorted(by: { $0.key < $1.key }) {
            guard BundleWriter.isSafeRelativePath(path) else {
                problems.append("\(path): unsafe path in the manifest")
                continue
            }
            let url = directory.appendingPathComponent(path)
            guard let contents = FileManager.default.contents(atPath: url.path) else {
                problems.append("\(path): missing")
                continue
            }
            checked += 1
            if contents.count != entry.bytes {
                problems.append("\(path): \(contents.count) bytes, the manifest says \(entry.bytes)")
            } else if SHA256Digest.hex(contents) != entry.sha256 {
                problems.append("\(path): content differs from the manifest (SHA-256 mismatch)")
            }
        }
        let present = listFiles(directory)
        for path in present where path != Manifest.fileName && manifest.files[path] == nil {
            problems.append("\(path): not listed in the manifest")
        }
        var documents: [String: Data] = [:]
        for path in present where path.hasSuffix(".xhtml") {
            documents[path] = FileManager.default.contents(atPath: directory.appendingPathComponent(path).path)
        }
        problems += BundleReferences.problems(documents: documents, files: Set(present))
        return Report(manifest: manifest, checkedFiles: checked, problems: problems)
    }

    /// Bundle-relative paths of every regular file under `directory`.
    static func listFiles(_ directory: URL) -> [String] {
        guard let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        let base = directory.standardizedFileURL.path
        var paths: [String] = []
        for case let url as URL in enumerator {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            let full = url.standardizedFileURL.path
            if full.hasPrefix(base + "/") { paths.append(String(full.dropFirst(base.count + 1))) }
        }
        return paths.sorted()
    }
}
