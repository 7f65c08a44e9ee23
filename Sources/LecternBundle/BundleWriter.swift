import CLecternSystem
import Foundation
import LecternCore

/// A bundle problem, with what to do about it.
public struct BundleError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable { case versionExists, io, invalid }
    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

/// What writing a bundle did.
public enum BundleWriteResult: Sendable, Equatable {
    /// A new version directory was written.
    case written(URL)
    /// The version exists with identical content: nothing was written.
    case unchanged(URL)
}

/// Writes `output/<id>/<version>/` atomically: every file into a temporary directory beside it,
/// the manifest last, one `syncfs` for them all, then one rename and an fsync of the parent. A version directory, once there, is never
/// modified.
public struct BundleWriter: Sendable {
    public let outputRoot: URL

    public init(outputRoot: URL) {
        self.outputRoot = outputRoot
    }

    public func directory(id: String, version: String) -> URL {
        outputRoot.appendingPathComponent(id, isDirectory: true).appendingPathComponent(version, isDirectory: true)
    }

    /// Checks a bundle-relative path: no absolute paths, no `..`, no hidden or empty components.
    static func isSafeRelativePath(_ path: String) -> Bool {
        guard !path.isEmpty, !path.hasPrefix("/"), !path.contains("\\"), !path.contains("\0") else { return false }
        return path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { part in
            !part.isEmpty && part != "." && part != ".." && !part.hasPrefix(".")
        }
    }

    /// Builds the manifest for `files` (the manifest's own entry excluded).
    public static func manifest(for files: [String: Data], base: Manifest) -> Manifest {
        var manifest = base
        manifest.files = files.mapValues { Manifest.FileEntry(sha256: SHA256Digest.hex($0), bytes: $0.count) }
        return manifest
    }

    /// Writes `files` plus `manifest.json` as version `manifest.version` of `manifest.id`.
    public func write(files: [String: Data], manifest base: Manifest) throws -> BundleWriteResult {
        guard Slug.isValidID(base.id), Slug.isValidVersion(base.version) else {
            throw BundleError(
                .invalid, "refusing to write a bundle for id '\(base.id)' version '\(base.version)': not a safe slug and semantic version")
        }
        for path in files.keys where !Self.isSafeRelativePath(path) || path == Manifest.fileName {
            throw BundleError(.invalid, "refusing to write '\(path)' into a bundle: paths must be relative, without '..' or hidden parts")
        }
        let manifest = Self.manifest(for: files, base: base)
        let manifestData: Data
        do {
            manifestData = try CanonicalJSON.encode(manifest, pretty: true)
        } catch {
            throw BundleError(.io, "cannot encode the manifest: \(error)")
        }
        let destination = directory(id: manifest.id, version: manifest.version)
        let fm = FileManager.default
        if fm.fileExists(atPath: destination.path) {
            return try compareExisting(destination, manifestData: manifestData, files: files)
        }
        let parent = destination.deletingLastPathComponent()
        let temporary = parent.appendingPathComponent(".tmp-\(manifest.version)-\(UUID().uuidString)", isDirectory: true)
        do {
            try fm.createDirectory(at: temporary, withIntermediateDirectories: true)
            var directories = Set<String>()
            for (path, data) in files.sorted(by: { $0.key < $1.key }) {
                let url = temporary.appendingPathComponent(path)
                let dir = url.deletingLastPathComponent()
                if directories.insert(dir.path).inserted {
                    try fm.createDirectory(at: dir, withIntermediateDirectories: true)
                }
                try Self.write(data, to: url)
            }
            try Self.write(manifestData, to: temporary.appendingPathComponent(Manifest.fileName))
            // One flush of the file system for all files and directories, then the rename.
            let fd = open(temporary.path, O_RDONLY | O_DIRECTORY)
            if fd >= 0 {
                _ = lectern_syncfs(fd)
                close(fd)
            }
            if rename(temporary.path, destination.path) != 0 {
                let reason = String(cString: strerror(errno))
                // Another run may have written the same version meanwhile.
                if fm.fileExists(atPath: destination.path) {
                    try? fm.removeItem(at: temporary)
                    return try compareExisting(destination, manifestData: manifestData, files: files)
                }
                throw BundleError(.io, "cannot move the bundle into \(destination.path): \(reason)")
            }
            Self.syncDirectory(parent)
        } catch let error as BundleError {
            try? fm.removeItem(at: temporary)
            throw error
        } catch {
            try? fm.removeItem(at: temporary)
            throw BundleError(
                .io, "cannot write the bundle under \(parent.path): \(error.localizedDescription); check the disk space and permissions")
        }
        return .written(destination)
    }

    func compareExisting(_ destination: URL, manifestData: Data, files: [String: Data]) throws -> BundleWriteResult {
        let existing = FileManager.default.contents(atPath: destination.appendingPathComponent(Manifest.fileName).path)
        if existing == manifestData, (try? BundleVerifier.verify(destination).problems.isEmpty) == true {
            return .unchanged(destination)
        }
        throw BundleError(
            .versionExists,
            "\(destination.path) already exists with different content, and a version is never changed; bump 'version' in the spec (e.g. to a new patch version) or remove the old directory yourself"
        )
    }

    static func write(_ data: Data, to url: URL) throws {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw BundleError(.io, "cannot create \(url.path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var written = 0
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            guard let base = buffer.baseAddress else { return }
            while written < buffer.count {
                let n = Foundation.write(fd, base + written, buffer.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw BundleError(.io, "cannot write \(url.path): \(String(cString: strerror(errno)))")
                }
                written += n
            }
        }
    }

    static func syncDirectory(_ url: URL) {
        let fd = open(url.path, O_RDONLY | O_DIRECTORY)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }
}
