import CLecternSystem
import Crypto
import Foundation
import Synchronization

/// How the exchange cache is used in a run.
public enum CacheMode: String, Sendable, CaseIterable {
    /// Use the cache; on a miss call the model and store the answer (default).
    case record
    /// Use the cache only; a miss is an error naming the item. The provider may exist.
    case replay
    /// Like replay, and no provider is even started: no model, no network.
    case offline
    /// Neither read nor write the cache.
    case off
}

/// What a cache key is made of: the canonical request. Everything that changes the answer is here;
/// nothing secret is.
public struct ExchangeKeyMaterial: Codable, Sendable, Hashable {
    public var provider: String
    public var model: String
    public var parameters: [String: JSONValue]
    public var messages: [ChatMessage]
    public var responseSchema: ResponseSchema?
    /// `name@version` of the prompt template that built the messages.
    public var promptTemplate: String
    /// The spec's `variant`: a different one forces fresh samples.
    public var variant: String?

    public init(provider: String, request: LLMRequest, promptTemplate: String, variant: String?) {
        self.provider = provider
        self.model = request.model
        var parameters: [String: JSONValue] = [:]
        if let t = request.temperature { parameters["temperature"] = .number(t) }
        if let m = request.maxTokens { parameters["max_tokens"] = .number(Double(m)) }
        if let s = request.seed { parameters["seed"] = .number(Double(s)) }
        if let p = request.frequencyPenalty { parameters["frequency_penalty"] = .number(p) }
        self.parameters = parameters
        self.messages = request.messages
        self.responseSchema = request.responseSchema
        self.promptTemplate = promptTemplate
        self.variant = variant
    }

    /// The canonical JSON text (sorted keys, no white space) that is hashed.
    public var canonicalText: String {
        var object: [String: JSONValue] = [
            "provider": .string(provider),
            "model": .string(model),
            "parameters": .object(parameters),
            "messages": .array(messages.map { .object(["role": .string($0.role.rawValue), "content": .string($0.content)]) }),
            "prompt_template": .string(promptTemplate),
        ]
        if let responseSchema { object["response_schema"] = .object(["name": .string(responseSchema.name), "schema": responseSchema.schema]) }
        if let variant { object["variant"] = .string(variant) }
        return JSONValue.object(object).canonicalText
    }

    /// SHA-256 of the canonical text, lowercase hex.
    public var key: String {
        HexText.lowercase(SHA256.hash(data: Data(canonicalText.utf8)))
    }
}

/// One stored exchange: the answer to a request, with its usage and timing.
public struct ExchangeRecord: Codable, Sendable, Hashable {
    public var key: String
    /// The work item that first asked (for `cache stats` and debugging; not part of the key).
    public var itemID: String
    public var stage: String
    public var promptTemplate: String
    public var provider: String
    public var model: String
    public var response: LLMResponse
    public var elapsedMilliseconds: Int

    public init(key: String, itemID: String, stage: String, promptTemplate: String, provider: String, model: String, response: LLMResponse, elapsedMilliseconds: Int) {
        self.key = key
        self.itemID = itemID
        self.stage = stage
        self.promptTemplate = promptTemplate
        self.provider = provider
        self.model = model
        self.response = response
        self.elapsedMilliseconds = elapsedMilliseconds
    }

    enum CodingKeys: String, CodingKey {
        case key, itemID = "item_id", stage, promptTemplate = "prompt_template", provider, model, response,
            elapsedMilliseconds = "elapsed_ms"
    }
}

/// A cache problem the user can act on.
public struct CacheError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// An answer arrived but could not be stored (a full disk, a read-only or vanished cache
/// directory): a fault of this machine, not of the answer or the provider.
public struct CacheWriteError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The content-addressed exchange store: one JSON file per exchange under
/// `<root>/exchanges/<first two hex digits>/<key>.json`.
///
/// Why files: each entry is written to a temporary file, fsynced and renamed into place, so a
/// crash at any moment leaves either no entry or a complete one — never a torn one — and
/// concurrent writers of the same key both write identical bytes. Reads need no lock, entries
/// are inspectable with ordinary tools, and prune is a directory walk. A database would add a
/// dependency and a recovery path for no gain at the sizes a course produces (thousands of entries).
public final class ExchangeCache: Sendable {
    public let root: URL
    /// Read-only entries from cassettes, consulted before the directory.
    private let overlay: [String: ExchangeRecord]

    public init(root: URL, cassettes: [URL] = []) throws {
        self.root = root
        var overlay: [String: ExchangeRecord] = [:]
        for cassette in cassettes {
            for record in try Self.readCassette(cassette) { overlay[record.key] = record }
        }
        self.overlay = overlay
    }

    /// The descriptor of `<root>/locks` the entry locks are taken on: opened on first use and
    /// kept for the cache's life (-1 when it cannot be opened: then no lock is taken).
    private let lockDescriptor = Mutex<Int32?>(nil)

    /// Runs `body` holding this cache's lock on `key` against every other process using the
    /// same cache directory: a second `lectern run` of the same spec on the same cache waits
    /// here while the first is asking for that answer, and then finds it stored instead of
    /// paying for it again. The lock is one byte of `<root>/locks` (an open-file-description
    /// lock, dropped by the kernel when its holder exits, however it exits); waiting polls every
    /// 100 ms, so no thread blocks, and ends when the task is cancelled.
    public func withEntryLock<T: Sendable>(_ key: String, _ body: () async throws -> T) async throws -> T {
        #if os(Linux)
            let fd = lockDescriptor.withLock { fd -> Int32 in
                if let fd { return fd }
                try? DurableFile.makeDirectory(root)
                let opened = open(root.appendingPathComponent("locks").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
                fd = opened
                return opened
            }
            guard fd >= 0 else { return try await body() }
            // 60 bits of the key: distinct answers practically never share a byte.
            let offset = Int64(key.prefix(15), radix: 16) ?? 0
            while lectern_lock_byte(fd, offset, 1) != 0 {
                guard errno == EAGAIN || errno == EACCES || errno == EINTR else { return try await body() }
                try await Task.sleep(for: .milliseconds(100))
            }
            defer { _ = lectern_lock_byte(fd, offset, 0) }
            return try await body()
        #else
            return try await body()
        #endif
    }

    /// The default location: `$LECTERN_CACHE_DIR`, else `$XDG_CACHE_HOME/lectern`, else `~/.cache/lectern`.
    public static func defaultRoot(environment: [String: String]) -> URL {
        if let dir = environment["LECTERN_CACHE_DIR"], !dir.isEmpty { return URL(fileURLWithPath: dir, isDirectory: true) }
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty {
            return URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("lectern", isDirectory: true)
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".cache/lectern", isDirectory: true)
    }

    var exchangesDirectory: URL { root.appendingPathComponent("exchanges", isDirectory: true) }

    func path(for key: String) -> URL {
        exchangesDirectory.appendingPathComponent(String(key.prefix(2)), isDirectory: true).appendingPathComponent("\(key).json")
    }

    /// The stored exchange for `key`, if any. A damaged entry reads as a miss.
    public func lookup(_ key: String) -> ExchangeRecord? {
        if let record = overlay[key] { return record }
        guard key.count == 64, key.allSatisfy(\.isHexDigit), let data = FileManager.default.contents(atPath: path(for: key).path) else { return nil }
        guard let record = try? JSONDecoder().decode(ExchangeRecord.self, from: data), record.key == key else { return nil }
        return record
    }

    /// Stores an exchange: written to a temporary file and renamed into place, so it is visible
    /// whole or not at all (a SIGKILL cannot tear it). Flushing to disk is group-committed:
    /// one `syncfs` at most every 100 ms in the background, and `flush()` at the end of a run,
    /// instead of an fsync per entry on the item's critical path. A power cut can therefore lose
    /// the last 100 ms of entries — they are asked again — but never corrupt one: an entry that
    /// does not decode reads as a miss.
    public func store(_ record: ExchangeRecord) throws {
        let destination = path(for: record.key)
        let directory = destination.deletingLastPathComponent()
        try DurableFile.write(try Self.encode(record), to: destination, directory: directory, sync: false)
        scheduleFlush()
    }

    private let flushState = Mutex<(pending: Bool, scheduled: Bool)>((false, false))

    private func scheduleFlush() {
        let schedule = flushState.withLock { state -> Bool in
            state.pending = true
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        guard schedule else { return }
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .milliseconds(100)) { [self] in
            flushState.withLock { $0.scheduled = false }
            flush()
        }
    }

    /// Makes every stored entry durable now (one `syncfs` of the cache's file system).
    public func flush() {
        let pending = flushState.withLock { state -> Bool in
            defer { state.pending = false }
            return state.pending
        }
        guard pending else { return }
        DurableFile.syncFileSystem(containing: exchangesDirectory)
    }

    static func encode(_ record: ExchangeRecord) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(record)
    }

    /// Every key in the directory (not the overlay).
    public func allKeys() -> [String] {
        guard let shards = try? FileManager.default.contentsOfDirectory(atPath: exchangesDirectory.path) else { return [] }
        var keys: [String] = []
        for shard in shards.sorted() {
            let dir = exchangesDirectory.appendingPathComponent(shard)
            guard let files = try? FileManager.default.contentsOfDirectory(atPath: dir.path) else { continue }
            for file in files where file.hasSuffix(".json") && file.count == 69 {
                keys.append(String(file.dropLast(5)))
            }
        }
        return keys.sorted()
    }

    /// Entry count, bytes on disk and the entries' token totals.
    public struct Stats: Sendable {
        public var entries = 0
        public var bytes = 0
        public var usage = TokenUsage()
        public var byStage: [String: Int] = [:]
        public var byModel: [String: Int] = [:]
    }

    public func stats() -> Stats {
        var stats = Stats()
        for key in allKeys() {
            let url = path(for: key)
            guard let data = FileManager.default.contents(atPath: url.path),
                let record = try? JSONDecoder().decode(ExchangeRecord.self, from: data)
            else { continue }
            stats.entries += 1
            stats.bytes += data.count
            stats.usage += record.response.usage
            stats.byStage[record.stage, default: 0] += 1
            stats.byModel["\(record.provider)/\(record.model)", default: 0] += 1
        }
        return stats
    }

    /// Removes entries not in `keep` (when given) or older than `olderThan`; returns how many.
    public func prune(keep: Set<String>?, olderThan: Date?) throws -> Int {
        var removed = 0
        for key in allKeys() {
            let url = path(for: key)
            var remove = false
            if let keep, !keep.contains(key) { remove = true }
            if let olderThan, let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
                let modified = attributes[.modificationDate] as? Date, modified < olderThan
            {
                remove = true
            }
            if remove {
                try FileManager.default.removeItem(at: url)
                removed += 1
            }
        }
        // Temporary files left by a crash mid-write.
        if let shards = try? FileManager.default.contentsOfDirectory(atPath: exchangesDirectory.path) {
            for shard in shards {
                let dir = exchangesDirectory.appendingPathComponent(shard)
                for file in (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [] where file.hasPrefix(".tmp-") {
                    try? FileManager.default.removeItem(at: dir.appendingPathComponent(file))
                }
            }
        }
        return removed
    }

    // MARK: Cassettes

    /// Writes `records` as a cassette: one canonical JSON object per line, sorted by key, no
    /// secrets (requests never hold keys; responses are model text).
    public static func writeCassette(_ records: [ExchangeRecord], to url: URL) throws {
        var data = Data()
        for record in records.sorted(by: { $0.key < $1.key }) {
            var stable = record
            // Timing differs between recordings; a committed cassette should not churn on it.
            stable.elapsedMilliseconds = 0
            data.append(try encode(stable))
            data.append(0x0A)
        }
        try DurableFile.write(data, to: url, directory: url.deletingLastPathComponent())
    }

    /// Reads a cassette, naming the line of any damaged entry.
    public static func readCassette(_ url: URL) throws -> [ExchangeRecord] {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw CacheError("cannot read cassette \(url.path): it does not exist or is not readable")
        }
        var records: [ExchangeRecord] = []
        var lineNumber = 0
        for line in data.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) { continue }
            do {
                records.append(try JSONDecoder().decode(ExchangeRecord.self, from: Data(line)))
            } catch {
                throw CacheError("\(url.path):\(lineNumber): not a cassette entry (\(error.localizedDescription)); re-record it with 'make fixtures' or 'lectern run --record-cassette'")
            }
        }
        return records
    }

    /// Imports a cassette's entries into the directory; returns how many were new.
    public func importCassette(_ url: URL) throws -> Int {
        var added = 0
        for record in try Self.readCassette(url) where lookup(record.key) == nil {
            try store(record)
            added += 1
        }
        return added
    }
}

/// Crash-safe file writes: a temporary file in the same directory, fsynced, renamed over the
/// destination, then the directory fsynced so the rename itself survives a power cut.
public enum DurableFile {
    /// Flushes the file system holding `url` (syncfs on Linux).
    public static func syncFileSystem(containing url: URL) {
        let fd = open(url.path, O_RDONLY)
        if fd >= 0 {
            _ = lectern_syncfs(fd)
            close(fd)
        }
    }

    /// Writes atomically. With `sync` (the default) the data and the rename are fsynced before
    /// returning; without, the caller group-commits with `syncFileSystem`.
    public static func write(_ data: Data, to destination: URL, directory: URL, sync: Bool = true) throws {
        try makeDirectory(directory)
        let temporary = directory.appendingPathComponent(".tmp-\(UUID().uuidString)")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard fd >= 0 else { throw CacheError("cannot create \(temporary.path): \(String(cString: strerror(errno)))") }
        var ok = true
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Foundation.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n <= 0 {
                    if errno == EINTR { continue }
                    ok = false
                    return
                }
                offset += n
            }
        }
        if ok && sync && fsync(fd) != 0 { ok = false }
        let savedErrno = errno
        close(fd)
        guard ok else {
            unlink(temporary.path)
            throw CacheError("cannot write \(destination.path): \(String(cString: strerror(savedErrno))); is the disk full?")
        }
        guard rename(temporary.path, destination.path) == 0 else {
            let message = String(cString: strerror(errno))
            unlink(temporary.path)
            throw CacheError("cannot move \(temporary.path) to \(destination.path): \(message)")
        }
        if sync { syncDirectory(directory) }
    }

    /// Creates `directory` and its missing parents; the error names the directory and the
    /// system's reason (a full disk, a file where a directory should be, permissions).
    public static func makeDirectory(_ directory: URL) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue { return }
        let parent = directory.deletingLastPathComponent()
        if parent.path != directory.path { try makeDirectory(parent) }
        guard mkdir(directory.path, 0o755) == 0 || errno == EEXIST else {
            throw CacheError("cannot create the directory \(directory.path): \(String(cString: strerror(errno)))")
        }
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CacheError("cannot create the directory \(directory.path): a file of that name is in the way")
        }
    }

    /// fsync on a directory: makes a rename in it durable.
    public static func syncDirectory(_ directory: URL) {
        let fd = open(directory.path, O_RDONLY | O_DIRECTORY)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }
}
