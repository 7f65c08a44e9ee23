import Crypto
import Foundation
import LecternLLM
import Synchronization

/// The verdicts of pure checks, computed once per answer and kept with the exchange cache: an
/// unchanged re-run reads them instead of running the rules again (issue 49).
///
/// A verdict is what a rule function returned for its arguments (its issues, or a bank's report), kept as JSON. It is keyed by the
/// rule's name and every argument the rule reads, hashed (SHA-256), under the identity of the
/// checks that judged it: the running executable (its path, size, modification time and inode),
/// so any new build of Lectern — a changed check, a changed check version — recomputes every
/// verdict, and a file of verdicts another build wrote is deleted, not read. Only functions
/// whose result depends on nothing but their arguments are memoized; a call site names them all.
///
/// Verdicts are read from `<cache>/verdicts/<identity>.jsonl` when a run starts and the new ones
/// appended in one write when it ends; a line that does not decode is skipped.
public final class CheckMemo: Sendable {
    /// The memo of the run this task belongs to; nil: every rule is computed.
    @TaskLocal public static var current: CheckMemo?

    public struct Counts: Sendable, Equatable {
        /// Verdicts read from the memo.
        public var reused = 0
        /// Verdicts computed (and kept, for the file) in this process.
        public var computed = 0
    }

    private struct State {
        /// Each verdict's JSON, by key.
        var known: [String: Data]
        var fresh: [(key: String, json: Data)] = []
        var counts = Counts()
    }

    /// The file verdicts are read from and written to; nil: kept in memory only.
    public let file: URL?
    private let state: Mutex<State>

    /// An empty memo kept in memory only.
    public init() {
        file = nil
        state = Mutex(State(known: [:]))
    }

    /// The memo kept in `directory` for this build of the checks (`identity`): verdicts of other
    /// builds there are deleted. Nil when the identity of the running checks cannot be told.
    public convenience init?(directory: URL, identity: String? = CheckMemo.executableIdentity()) {
        guard let identity else { return nil }
        self.init(file: directory.appendingPathComponent("verdicts").appendingPathComponent(identity + ".jsonl"))
    }

    init(file: URL) {
        self.file = file
        let folder = file.deletingLastPathComponent()
        let fm = FileManager.default
        for name in (try? fm.contentsOfDirectory(atPath: folder.path)) ?? [] where name.hasSuffix(".jsonl") && name != file.lastPathComponent {
            try? fm.removeItem(at: folder.appendingPathComponent(name))
        }
        // A file grown past `sizeLimit` (many edits judged by one build) starts again.
        if let size = (try? fm.attributesOfItem(atPath: file.path))?[.size] as? Int, size > Self.sizeLimit {
            try? fm.removeItem(at: file)
        }
        var known: [String: Data] = [:]
        if let data = fm.contents(atPath: file.path) {
            // `{"k":"<64 hex>","v":<JSON>}` a line; a damaged line is skipped (its JSON is
            // decoded when it is looked up, and recomputed when it does not decode).
            let head = Array("{\"k\":\"".utf8)
            let middle = Array("\",\"v\":".utf8)
            for line in data.split(separator: 0x0A) {
                let bytes = Array(line)
                let keyEnd = head.count + 64
                guard bytes.count > keyEnd + middle.count + 1, bytes.starts(with: head), bytes[keyEnd..<(keyEnd + middle.count)].elementsEqual(middle),
                    bytes.last == UInt8(ascii: "}")
                else { continue }
                let key = String(decoding: bytes[head.count..<keyEnd], as: UTF8.self)
                guard key.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { continue }
                known[key] = Data(bytes[(keyEnd + middle.count)..<(bytes.count - 1)])
            }
        }
        state = Mutex(State(known: known))
    }

    /// The largest verdicts file read: about 100,000 answers' verdicts.
    static let sizeLimit = 64 << 20

    /// A rule's argument as a part of its key: its canonical JSON. A value that cannot be
    /// encoded gets a part of its own that no other call shares, so it is never read from the memo.
    public static func text<T: Encodable>(_ value: T) -> String {
        (try? CanonicalJSON.string(value)) ?? "\u{0}" + UUID().uuidString
    }

    /// What this process reused and computed.
    public var counts: Counts { state.withLock { $0.counts } }

    /// `compute`'s verdict for `parts` — every argument the rule reads, as text — from the run's
    /// memo when it has it, computed (and kept) otherwise: a rule's issues, or a bank's report.
    public static func verdict<T: Codable>(_ rule: String, _ parts: [String], _ compute: () -> T) -> T {
        guard let memo = current else { return compute() }
        return memo.verdict(rule, parts, compute)
    }

    public func verdict<T: Codable>(_ rule: String, _ parts: [String], _ compute: () -> T) -> T {
        let key = Self.key(rule, parts)
        if let json = state.withLock({ $0.known[key] }), let known = try? JSONDecoder().decode(T.self, from: json) {
            state.withLock { $0.counts.reused += 1 }
            return known
        }
        let value = compute()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = try? encoder.encode(value)
        state.withLock {
            if let json, $0.known[key] != json {
                $0.known[key] = json
                $0.fresh.append((key, json))
            }
            $0.counts.computed += 1
        }
        return value
    }

    /// The key of a rule's verdict: its name and each part, each prefixed by its length in bytes
    /// so no two lists of parts give the same text.
    static func key(_ rule: String, _ parts: [String]) -> String {
        var hasher = SHA256()
        for part in [rule] + parts {
            hasher.update(data: Data("\(part.utf8.count):".utf8))
            var part = part
            part.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        }
        return HexText.lowercase(hasher.finalize())
    }

    /// Appends the verdicts computed since the last write to the file, in one write (two runs
    /// sharing a cache do not interleave lines). Failing to write costs only their recomputation.
    public func flush() {
        guard let file else { return }
        let fresh = state.withLock { state -> [(key: String, json: Data)] in
            defer { state.fresh = [] }
            return state.fresh
        }
        guard !fresh.isEmpty else { return }
        var data = Data()
        for entry in fresh {
            data.append(Data("{\"k\":\"\(entry.key)\",\"v\":".utf8))
            data.append(entry.json)
            data.append(Data("}\n".utf8))
        }
        try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let descriptor = open(file.path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        _ = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// The identity of the running build of the checks: a digest of the executable's resolved
    /// path, size, modification time and inode. Nil when the executable cannot be read.
    public static func executableIdentity() -> String? {
        #if os(Linux)
            let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first ?? ""
        #else
            let path = Bundle.main.executablePath ?? CommandLine.arguments.first ?? ""
        #endif
        var info = stat()
        guard !path.isEmpty, stat(path, &info) == 0 else { return nil }
        #if os(Linux)
            let modified = "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        #else
            let modified = "\(info.st_mtimespec.tv_sec).\(info.st_mtimespec.tv_nsec)"
        #endif
        return String(key("checks", [path, "\(info.st_size)", modified, "\(info.st_ino)"]).prefix(32))
    }
}
