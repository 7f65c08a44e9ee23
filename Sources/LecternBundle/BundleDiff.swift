import Foundation
import LecternCore
import LecternLLM

/// What changed between two bundles of one job, item by item: `lectern diff OLD NEW`, the review
/// step when CI regenerates fixtures or a publisher a catalogue.
///
/// Items are `manifest` (the bundle's id, version, title, language, kind, generator, spec hash,
/// models and prompt templates) and the units of the bundle's kind (`BundleKind.diffUnits`),
/// named as the pipeline names them: a course's `lecture/s01-t02` (compared by its Markdown, with
/// a line diff), `engagement-question/…`, `bonus-question/…`, `reinforcement/s01-t02/level-3`,
/// `practice/s01-t02/q-01`, `ending-project/s01` and `course` (title, description, tone); an
/// exam's `item/<id>`, `passage/<id>`, `form/<id>` and `exam`; a quote database's `quote/<id>`
/// and `templates/<emotion>`; a deck's `card/<id>`, `matching` and `source`. Files the items do
/// not cover (`file/lectern.css`, figures) are compared by their manifest hash. A changed
/// structured item says which fields changed, old → new.
public enum BundleDiff {
    public struct Change: Codable, Sendable, Hashable {
        public var id: String
        /// A unified line diff for text (lectures, passages); nil for structured items.
        public var diff: String?
        /// What changed in a structured item, field by field; nil for text.
        public var fields: [FieldChange]?

        public init(id: String, diff: String?, fields: [FieldChange]? = nil) {
            self.id = id
            self.diff = diff
            self.fields = fields
        }
    }

    /// One field of a structured item that differs: `field` is its path in the item
    /// (`version`, `options[2].text`, `rubric[1]`); `old` or `new` is nil where it is absent.
    public struct FieldChange: Codable, Sendable, Hashable {
        public var field: String
        public var old: JSONValue?
        public var new: JSONValue?

        public init(field: String, old: JSONValue?, new: JSONValue?) {
            self.field = field
            self.old = old
            self.new = new
        }

        /// `version: "1.0.0" → "1.1.0"`, each value cut to `limit` characters; two texts that
        /// begin alike are shown from a little before where they part ("…the end (edited)").
        public func line(limit: Int = 60) -> String {
            var skip = 0
            if case .string(let a)? = old, case .string(let b)? = new {
                let common = zip(a, b).prefix { $0 == $1 }.count
                if common > limit / 2 { skip = common - limit / 4 }
            }
            func shown(_ value: JSONValue?) -> String {
                guard let value else { return "(absent)" }
                var text = value.canonicalText
                if skip > 0, case .string(let string) = value { text = JSONValue.string("…" + string.dropFirst(skip)).canonicalText }
                return text.count > limit ? String(text.prefix(limit - 1)) + "…" : text
            }
            return "\(field): \(shown(old)) → \(shown(new))"
        }
    }

    /// `equal` is derived, and written into the JSON for CI.
    public struct Report: Encodable, Sendable, Hashable {
        public var added: [String]
        public var removed: [String]
        public var changed: [Change]
        public var unchanged: Int
        public var equal: Bool { added.isEmpty && removed.isEmpty && changed.isEmpty }

        enum CodingKeys: String, CodingKey { case added, removed, changed, unchanged, equal }

        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(equal, forKey: .equal)
            try c.encode(added, forKey: .added)
            try c.encode(removed, forKey: .removed)
            try c.encode(changed, forKey: .changed)
            try c.encode(unchanged, forKey: .unchanged)
        }

        init(added: [String], removed: [String], changed: [Change], unchanged: Int) {
            self.added = added
            self.removed = removed
            self.changed = changed
            self.unchanged = unchanged
        }

        /// "2 changed, 1 added, 0 removed, 34 unchanged".
        public var summary: String {
            "\(changed.count) changed, \(added.count) added, \(removed.count) removed, \(unchanged) unchanged"
        }
    }

    /// An item's comparable content: text (diffed by line) or canonical JSON.
    public enum Content: Equatable, Sendable {
        case text(String)
        case data(Data)

        /// `value` as canonical JSON: sorted keys, so equal values give equal bytes.
        static func json(_ value: some Encodable) -> Content {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return .data((try? encoder.encode(value)) ?? Data())
        }
    }

    public static func compare(_ old: URL, _ new: URL, kinds: BundleKinds = .builtIn) throws -> Report {
        let (oldManifest, oldItems, oldLeading) = try items(of: old, kinds: kinds)
        let (newManifest, newItems, newLeading) = try items(of: new, kinds: kinds)
        let leading = oldLeading.union(newLeading)
        guard oldManifest.kind == newManifest.kind else {
            throw BundleError(.invalid, "\(old.path) is a \(oldManifest.kind) bundle and \(new.path) a \(newManifest.kind) bundle: there is nothing to compare item by item")
        }
        var report = Report(added: [], removed: [], changed: [], unchanged: 0)
        for id in Set(oldItems.keys).union(newItems.keys).sorted(by: { order($0, $1, leading: leading) }) {
            switch (oldItems[id], newItems[id]) {
            case (nil, _?): report.added.append(id)
            case (_?, nil): report.removed.append(id)
            case (let a?, let b?) where a == b: report.unchanged += 1
            case (let a?, let b?):
                if case .text(let x) = a, case .text(let y) = b {
                    report.changed.append(Change(id: id, diff: LineDiff.unified(x, y)))
                } else if case .data(let x) = a, case .data(let y) = b {
                    report.changed.append(Change(id: id, diff: nil, fields: fieldChanges(x, y)))
                } else {
                    report.changed.append(Change(id: id, diff: nil))
                }
            default: break
            }
        }
        return report
    }

    /// The fields that differ between two items' canonical JSON, in key order; a value that is
    /// not JSON (a file's hash) is one field, `content`.
    static func fieldChanges(_ old: Data, _ new: Data) -> [FieldChange] {
        guard let a = try? JSONValue.parse(String(decoding: old, as: UTF8.self)), let b = try? JSONValue.parse(String(decoding: new, as: UTF8.self))
        else {
            return [FieldChange(field: "content", old: .string(String(decoding: old, as: UTF8.self)), new: .string(String(decoding: new, as: UTF8.self)))]
        }
        var changes: [FieldChange] = []
        func walk(_ a: JSONValue?, _ b: JSONValue?, _ path: String) {
            guard a != b else { return }
            switch (a, b) {
            case (.object(let x)?, .object(let y)?):
                for key in Set(x.keys).union(y.keys).sorted() { walk(x[key], y[key], path.isEmpty ? key : path + "." + key) }
            case (.array(let x)?, .array(let y)?):
                for i in 0..<max(x.count, y.count) { walk(i < x.count ? x[i] : nil, i < y.count ? y[i] : nil, "\(path)[\(i)]") }
            default:
                changes.append(FieldChange(field: path.isEmpty ? "content" : path, old: a, new: b))
            }
        }
        walk(a, b, "")
        return changes
    }

    /// Pipeline order: `manifest`, then the kind's leading units (a course's `course`), then by id
    /// with numbers compared as numbers, then the files no unit covers.
    static func order(_ a: String, _ b: String, leading: Set<String>) -> Bool {
        let rank = { (id: String) in id == "manifest" ? -1 : leading.contains(id) ? 0 : id.hasPrefix("file/") ? 2 : 1 }
        if rank(a) != rank(b) { return rank(a) < rank(b) }
        return a.compare(b, options: .numeric) == .orderedAscending
    }

    static func items(of bundle: URL, kinds: BundleKinds) throws -> (Manifest, [String: Content], Set<String>) {
        let report = try BundleVerifier.verify(bundle)
        guard report.problems.isEmpty else {
            throw BundleError(.invalid, "\(bundle.path) does not verify (\(report.problems.count) problems, the first: \(report.problems[0])); compare intact bundles")
        }
        let opened = OpenBundle(url: bundle, manifest: report.manifest)
        let kind = try kinds.reader(for: opened.manifest)
        let found = try items(kind, opened)
        return (opened.manifest, found.items, found.leading)
    }

    static func items<Kind: BundleKind>(_ kind: Kind.Type, _ bundle: OpenBundle) throws -> (items: [String: Content], leading: Set<String>) {
        let manifest = bundle.manifest
        var units = Kind.diffUnits(try Kind.read(bundle), bundle: bundle)
        // The bundle's identity and provenance: what the manifest says beyond the files (which the
        // other items cover) and what the content cost to make (usage, cost_usd).
        if case .object(var fields)? = try? JSONValue.parse(String(decoding: bundle.data(Manifest.fileName) ?? Data(), as: UTF8.self)) {
            for key in ["files", "usage", "cost_usd", "contents", "incomplete_items"] { fields[key] = nil }
            units.add("manifest", JSONValue.object(fields))
        }
        // Where review left each item (review.json, every kind's): its state, who and when. (A
        // changed answer shows as its item's change.)
        if let data = bundle.data(ReviewSeal.fileName), let seal = try? ReviewSeal.read(data) {
            units.covered.insert(ReviewSeal.fileName)
            for item in seal.items {
                var fields: [String: JSONValue] = ["state": .string(item.state.rawValue)]
                if let by = item.by { fields["by"] = .string(by) }
                if let at = item.at { fields["at"] = .string(at) }
                if let rejected = item.rejected { fields["rejected"] = .string(rejected) }
                units.add("review/" + item.id, JSONValue.object(fields))
            }
        }
        units.covered.insert(Manifest.fileName)
        for (path, entry) in manifest.files where !units.covered.contains(path) {
            units.items["file/" + path] = .data(Data((entry.sha256 + " \(entry.bytes)").utf8))
        }
        return (units.items, units.leading)
    }
}

/// A unified diff of two texts by line (longest common subsequence), with three lines of context.
enum LineDiff {
    static let maxCells = 4_000_000

    static func unified(_ old: String, _ new: String, context: Int = 3) -> String {
        let a = old.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let b = new.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard a.count * b.count <= maxCells else { return "(\(a.count) → \(b.count) lines: too long to diff line by line)" }
        // lcs[i][j]: the longest common subsequence of a[i...] and b[j...].
        var lcs = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : max(lcs[i + 1][j], lcs[i][j + 1])
            }
        }
        enum Op { case same(String), removed(String), added(String) }
        var ops: [Op] = []
        var (i, j) = (0, 0)
        while i < a.count || j < b.count {
            if i < a.count, j < b.count, a[i] == b[j] {
                ops.append(.same(a[i])); i += 1; j += 1
            } else if i < a.count, j == b.count || lcs[i + 1][j] >= lcs[i][j + 1] {
                ops.append(.removed(a[i])); i += 1
            } else {
                ops.append(.added(b[j])); j += 1
            }
        }
        // Hunks: changed lines with `context` unchanged lines around them.
        let changed = ops.indices.filter { if case .same = ops[$0] { return false } else { return true } }
        guard !changed.isEmpty else { return "" }
        var lines: [String] = []
        var start = 0
        while start < changed.count {
            var end = start
            while end + 1 < changed.count, changed[end + 1] - changed[end] <= 2 * context + 1 { end += 1 }
            let from = max(0, changed[start] - context)
            let to = min(ops.count - 1, changed[end] + context)
            var oldLine = 1, newLine = 1
            for op in ops[..<from] {
                switch op {
                case .same: oldLine += 1; newLine += 1
                case .removed: oldLine += 1
                case .added: newLine += 1
                }
            }
            let hunk = ops[from...to]
            let oldCount = hunk.filter { if case .added = $0 { return false } else { return true } }.count
            let newCount = hunk.filter { if case .removed = $0 { return false } else { return true } }.count
            lines.append("@@ -\(oldLine),\(oldCount) +\(newLine),\(newCount) @@")
            for op in hunk {
                switch op {
                case .same(let s): lines.append(" " + s)
                case .removed(let s): lines.append("-" + s)
                case .added(let s): lines.append("+" + s)
                }
            }
            start = end + 1
        }
        return lines.joined(separator: "\n")
    }
}
