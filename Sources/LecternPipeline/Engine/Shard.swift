import Crypto
import Foundation

/// `lectern run --shard K/N`: which items this process runs when a job is spread over N
/// processes or machines (an existing scheduler starts them; Lectern only partitions and merges
/// through the exchange cache).
///
/// The rule, from ids and dependencies alone, so every shard computes the same partition:
/// - items of the kind's shared stages (a course's curriculum and its edits: what everything else
///   needs) run in every shard, from the cache where a planning run (`--shard 0/N`) left them;
/// - an item that depends on other items, or waits for them (`WorkItem.after`), goes where they
///   go, so a topic's lecture, its questions and their renderings stay together; an item whose
///   dependencies are in several shards (an exam's bank-wide duplicate check, a subject's project
///   waiting for its lectures) is left for the assembling run, as is everything after it;
/// - any other item goes to shard 1 + (SHA-256 of its id mod N).
/// Shard 0 runs the shared stages only.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// 0 (planning only) through `count`.
    public var index: Int
    public var count: Int

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// `K/N` with 1 ≤ N ≤ 10,000 and 0 ≤ K ≤ N; nil otherwise.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), (1...10_000).contains(n), (0...n).contains(k) else { return nil }
        self.init(index: k, count: n)
    }

    public var description: String { "\(index)/\(count)" }

    /// Where an item belongs.
    public enum Assignment: Sendable, Hashable {
        /// Every shard runs it (a shared stage).
        case shared
        /// Shard 1…N.
        case shard(Int)
        /// Only the assembling run (no `--shard`) can run it: its inputs are in several shards.
        case assembly
    }

    /// The shard of an item that depends on nothing outside the shared stages.
    public func home(of id: String) -> Int {
        let digest = SHA256.hash(data: Data(id.utf8))
        let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return 1 + Int(value % UInt64(count))
    }

    /// An item's assignment from its stage and its dependencies' assignments.
    public func assignment(id: String, stage: String, dependencies: [Assignment], sharedStages: Set<String>) -> Assignment {
        if sharedStages.contains(stage) && dependencies.allSatisfy({ $0 == .shared }) { return .shared }
        var home: Int?
        for dependency in dependencies {
            switch dependency {
            case .shared: continue
            case .assembly: return .assembly
            case .shard(let k):
                if let h = home, h != k { return .assembly }
                home = k
            }
        }
        return .shard(home ?? self.home(of: id))
    }

    /// Whether this process runs an item with `assignment`.
    public func runs(_ assignment: Assignment) -> Bool {
        switch assignment {
        case .shared: return true
        case .shard(let k): return k == index
        case .assembly: return false
        }
    }
}

/// What the engine needs to partition: the shard and the kind's shared stages.
public struct ShardFilter: Sendable {
    public var shard: Shard
    public var sharedStages: Set<String>

    public init(shard: Shard, sharedStages: Set<String>) {
        self.shard = shard
        self.sharedStages = sharedStages
    }
}
