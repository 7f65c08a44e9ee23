import Foundation

/// Finds, reads and indexes the files of the `corpus:` entries (`ExamCorpus.load`).
struct CorpusLoader {
    static let extensions: Set<String> = ["md", "markdown", "txt"]

    let specDirectory: URL
    let indexCache: URL?
    let limits: CorpusLimits
    /// Where files may be read from (`FileRoots`): every entry and every file found through one.
    let roots: FileRoots
    private var issues: [CorpusIssue] = []
    private var skipped: [String] = []

    init(specDirectory: URL, indexCache: URL?, limits: CorpusLimits, roots: FileRoots) {
        self.specDirectory = specDirectory.standardizedFileURL
        self.indexCache = indexCache
        self.limits = limits
        self.roots = roots
    }

    /// A file found through an entry.
    private struct Found {
        var id: String
        var url: URL
        var sources: [CorpusSource]
        /// The entry it was first found through, for messages.
        var entry: String
    }

    mutating func load(_ sources: [CorpusSource]) throws -> ExamCorpus {
        // No sources: an empty corpus (a blueprint of computed-key categories needs none; the spec
        // reader refuses a missing corpus for any other).
        var found: [Found] = []
        var positions: [String: Int] = [:]
        for source in sources {
            for (id, url) in files(of: source) {
                // Whatever led here (a link, a bundle's lectures/ folder that is a link), the file
                // itself must be inside the roots.
                if let refusal = roots.refusal(url, written: id) {
                    issues.append(CorpusIssue(path: source.path, message: refusal, hint: FileRoots.hint))
                    continue
                }
                if let position = positions[id] {
                    if !found[position].sources.contains(source) { found[position].sources.append(source) }
                } else {
                    positions[id] = found.count
                    found.append(Found(id: id, url: url, sources: [source], entry: source.path))
                }
            }
        }
        if found.count > limits.maximumDocuments {
            issues.append(
                CorpusIssue(
                    path: found[limits.maximumDocuments].entry,
                    message: "the corpus has \(found.count) documents, over the limit of \(limits.maximumDocuments)",
                    hint: "name fewer files, or join small ones"))
        }
        guard issues.isEmpty else { throw CorpusError(issues: issues) }

        var documents: [CorpusDocument] = []
        var total = 0
        var oversized = false
        for file in found {
            let size = (try? file.url.resourceValues(forKeys: [.fileSizeKey]))?.fileSize ?? 0
            if size > limits.maximumDocumentBytes {
                issues.append(
                    CorpusIssue(
                        path: file.entry,
                        message: "\(file.id) is \(Self.size(size)), over the \(Self.size(limits.maximumDocumentBytes)) limit for one corpus document",
                        hint: "split it into several files"))
                oversized = true
                continue
            }
            total += size
            if total > limits.maximumTotalBytes {
                issues.append(
                    CorpusIssue(
                        path: file.entry,
                        message: "the corpus is over \(Self.size(limits.maximumTotalBytes)) in all (reached at \(file.id))",
                        hint: "name fewer or smaller documents"))
                break
            }
            guard !oversized else { continue }  // still size-check the rest, but read nothing more
            let data: Data
            do {
                data = try Data(contentsOf: file.url)
            } catch {
                issues.append(
                    CorpusIssue(path: file.entry, message: "cannot read \(file.id): \(error.localizedDescription)", hint: "check its permissions"))
                continue
            }
            guard data.count <= limits.maximumDocumentBytes else {  // grew since it was measured
                issues.append(
                    CorpusIssue(
                        path: file.entry, message: "\(file.id) is over the \(Self.size(limits.maximumDocumentBytes)) limit",
                        hint: "split it into several files"))
                continue
            }
            do {
                documents.append(
                    try Self.document(
                        id: file.id, data: data, sources: file.sources, markdown: Self.isMarkdown(file.id), cache: indexCache, entry: file.entry))
            } catch {
                issues.append(error)
            }
        }
        guard issues.isEmpty else { throw CorpusError(issues: issues) }
        return ExamCorpus(documents: documents, skipped: skipped)
    }

    /// A document from its bytes: cleaned, hashed and indexed (from the cache when it holds this text).
    static func document(
        id: String, data: Data, sources: [CorpusSource], markdown: Bool, cache: URL?, entry: String? = nil
    ) throws(CorpusIssue) -> CorpusDocument {
        let cleaned: (bytes: [UInt8], characters: Int)
        do {
            cleaned = try CorpusText.clean(data)
        } catch {
            switch error {
            case .invalidUTF8(let offset):
                throw CorpusIssue(
                    path: entry ?? id, message: "\(id) is not valid UTF-8 text (at byte \(offset))",
                    hint: "save it as UTF-8; for example `iconv -f WINDOWS-1256 -t UTF-8` converts Arabic Windows text")
            case .nul(let offset):
                throw CorpusIssue(
                    path: entry ?? id, message: "\(id) holds a NUL byte (at byte \(offset)): it is a binary file, not text",
                    hint: "name only Markdown or plain-text files in corpus:")
            }
        }
        let sha256 = SHA256Digest.hex(data)
        let cacheURL = cache.map { CorpusIndex.cacheURL(in: $0, sha256: sha256, markdown: markdown) }
        let index: CorpusIndex
        if let cacheURL, let cached = CorpusIndex.cached(at: cacheURL, text: cleaned.bytes, markdown: markdown) {
            index = cached
        } else {
            index = CorpusIndex.build(cleaned.bytes, markdown: markdown)
            if let cacheURL { index.store(at: cacheURL, text: cleaned.bytes, markdown: markdown) }
        }
        return CorpusDocument(
            id: id, sources: sources, sha256: sha256, characters: cleaned.characters, isMarkdown: markdown, utf8: cleaned.bytes, index: index)
    }

    static func isMarkdown(_ path: String) -> Bool {
        let ext = (path as NSString).pathExtension.lowercased()
        return ext == "md" || ext == "markdown"
    }

    private static func isDocument(_ name: String) -> Bool {
        extensions.contains((name as NSString).pathExtension.lowercased())
    }

    /// `25 MB`, `2.5 MB`, `12 KB`, `900 bytes`.
    static func size(_ bytes: Int) -> String {
        if bytes >= 1 << 20 {
            let mb = Double(bytes) / 1_048_576
            return mb >= 10 ? "\(Int(mb.rounded())) MB" : "\((mb * 10).rounded() / 10) MB"
        }
        return bytes >= 1 << 10 ? "\(Int((Double(bytes) / 1_024).rounded())) KB" : "\(bytes) bytes"
    }

    // MARK: Finding files

    /// The documents of one entry, as (id, URL).
    private mutating func files(of source: CorpusSource) -> [(String, URL)] {
        let written = source.path
        let trimmed = written.trimmed
        guard !trimmed.isEmpty else {
            issues.append(
                CorpusIssue(path: written, message: "a corpus entry has an empty path", hint: "name a file or directory relative to the spec"))
            return []
        }
        let url = (trimmed.hasPrefix("/") ? URL(fileURLWithPath: trimmed) : specDirectory.appendingPathComponent(trimmed)).standardizedFileURL
        let id = documentID(trimmed)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            issues.append(
                CorpusIssue(path: written, message: "corpus entry '\(written)' does not exist (looked for \(url.path))", hint: missingHint(url)))
            return []
        }
        if let refusal = roots.refusal(url, written: written) {
            issues.append(CorpusIssue(path: written, message: "corpus entry \(refusal)", hint: FileRoots.hint))
            return []
        }
        if !isDirectory.boolValue {
            guard Self.isDocument(url.lastPathComponent) else {
                issues.append(
                    CorpusIssue(
                        path: written, message: "corpus entry '\(written)' is not a Markdown or plain-text file",
                        hint: "corpus documents are .md, .markdown or .txt files, or directories of them"))
                return []
            }
            return [(id, url)]
        }
        var result: [(String, URL)] = []
        if Self.isBundle(url) {
            result = bundleLectures(url, id: id, entry: written)
        } else {
            let root = url.resolvingSymlinksInPath().path
            walk(url, id: id, root: root, into: &result)
        }
        if result.isEmpty {
            issues.append(
                CorpusIssue(
                    path: written, message: "corpus entry '\(written)' holds no .md, .markdown or .txt files",
                    hint: "hidden files and links out of the directory are not read"))
        }
        return result
    }

    /// The document id of a path as written: relative to the spec's directory, lexically normalized.
    private func documentID(_ path: String) -> String {
        let normalized = Self.lexicalPath(path)
        if normalized.hasPrefix("/") {
            let base = Self.lexicalPath(specDirectory.path)
            if normalized.hasPrefix(base + "/") { return String(normalized.dropFirst(base.count + 1)) }
        }
        return normalized
    }

    /// `./a//b/../c/` → `a/c`; `..` kept where it leaves the directory.
    static func lexicalPath(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." {
                parts.removeLast()
                continue
            }
            if part == ".." && absolute { continue }
            parts.append(part)
        }
        let joined = parts.joined(separator: "/")
        if absolute { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }

    private static func join(_ id: String, _ name: String) -> String {
        id == "." ? name : "\(id)/\(name)"
    }

    private func missingHint(_ url: URL) -> String {
        var hint = "corpus paths are relative to the spec's directory, \(specDirectory.path)"
        let parent = url.deletingLastPathComponent()
        if let siblings = try? FileManager.default.contentsOfDirectory(atPath: parent.path),
            let match = Suggestion.closest(to: url.lastPathComponent, among: siblings.filter { !$0.hasPrefix(".") })
        {
            hint = "did you mean '\(match)'? " + hint
        }
        return hint
    }

    static func isBundle(_ url: URL) -> Bool {
        let manager = FileManager.default
        return manager.fileExists(atPath: url.appendingPathComponent("manifest.json").path)
            && manager.fileExists(atPath: url.appendingPathComponent("course.json").path)
    }

    /// A course bundle's lectures: `lectures/*.md`, sorted (the course's order: `01-01-…`).
    private mutating func bundleLectures(_ url: URL, id: String, entry: String) -> [(String, URL)] {
        let lectures = url.appendingPathComponent("lectures")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: lectures.path) else {
            issues.append(
                CorpusIssue(path: entry, message: "course bundle '\(id)' has no lectures/ directory", hint: "name a bundle written by `lectern run`"))
            return []
        }
        return names.filter { !$0.hasPrefix(".") && ($0 as NSString).pathExtension.lowercased() == "md" }.sorted().compactMap { name in
            let file = lectures.appendingPathComponent(name)
            guard Self.kind(of: file.path) == .typeRegular else { return nil }
            return (Self.join(Self.join(id, "lectures"), name), file)
        }
    }

    private static func kind(of path: String) -> FileAttributeType? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
    }

    /// A directory's documents at any depth, sorted by name at each level; hidden entries skipped;
    /// a symbolic link read only when it resolves to a file inside `root` (the entry's directory).
    private mutating func walk(_ url: URL, id: String, root: String, into result: inout [(String, URL)]) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: url.path) else { return }
        for name in names.sorted() where !name.hasPrefix(".") {
            guard result.count <= limits.maximumDocuments else { return }  // enough to report the limit; a mistaken `/` ends here
            let child = url.appendingPathComponent(name)
            let childID = Self.join(id, name)
            switch Self.kind(of: child.path) {
            case .typeDirectory?:
                if Self.isBundle(child) {
                    result += bundleLectures(child, id: childID, entry: childID)
                } else {
                    walk(child, id: childID, root: root, into: &result)
                }
            case .typeRegular?:
                if Self.isDocument(name) { result.append((childID, child)) }
            case .typeSymbolicLink?:
                let target = child.resolvingSymlinksInPath().path
                if Self.kind(of: target) == .typeDirectory {
                    skipped.append("\(childID): a symbolic link to a directory, not followed")
                    continue
                }
                guard Self.isDocument(name) else { continue }
                if !target.hasPrefix(root + "/") {
                    skipped.append("\(childID): a symbolic link out of its corpus directory, not read")
                } else if Self.kind(of: target) != .typeRegular {
                    skipped.append("\(childID): a symbolic link to something other than a file, not read")
                } else {
                    result.append((childID, child))
                }
            default:
                continue
            }
        }
    }
}
