import Crypto
import Foundation

/// `lectern run --shard K/N`: which items this process runs when a job is spread over N
/// processes or machines (an existing scheduler starts them; Lectern only partitions and merges
/// through the exchange cache).
///
/// The rule, from ids, shard keys and dependencies alone, so every shard computes the same
/// partition, and so that every model call is made in a shard and the assembling run needs none:
/// - items of the kind's shared stages (a course's curriculum and its edits: what everything else
///   needs) run in every shard, from the cache where a planning run (`--shard 0/N`) left them;
/// - an item that depends on other items, waits for them (`WorkItem.after`), or was spawned by
///   one, goes where they go, so a topic's lecture, its questions and their renderings stay
///   together;
/// - an item of one of the kind's gathering stages (an exam's bank check: it reads every item and
///   spawns the re-asks of repeated stems) runs in every shard, reading the other shards' items
///   from the cache: in a second round of shards, once their caches are merged;
/// - any other item whose dependencies are in several shards is left to the assembling run (an
///   exam's final bank, its forms: local work);
/// - any other item goes to shard 1 + (SHA-256 of its shard key mod N). The key is the item's
///   id unless the kind gives one (`WorkItem.shardKey`): a course gives a subject's lectures its
///   subject's id when the subject has an ending project, which reads all of them.
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
        /// Every shard runs it, reading the items of other shards it needs from the cache (a
        /// gathering stage); a shard whose cache lacks some leaves it for its next round.
        case gathering
        /// Only the assembling run (no `--shard`) runs it: its inputs are in several shards.
        case assembly
    }

    /// The shard of an item that depends on nothing outside the shared stages.
    public func home(of key: String) -> Int {
        let digest = SHA256.hash(data: Data(key.utf8))
        let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return 1 + Int(value % UInt64(count))
    }

    /// An item's assignment from its shard key, its stage and its dependencies' assignments
    /// (those of the items it waits for and of the item that spawned it included).
    public func assignment(
        key: String, stage: String, dependencies: [Assignment], sharedStages: Set<String>, gatheringStages: Set<String> = []
    ) -> Assignment {
        if sharedStages.contains(stage) && dependencies.allSatisfy({ $0 == .shared }) { return .shared }
        if dependencies.contains(.assembly) { return .assembly }
        if gatheringStages.contains(stage) { return .gathering }
        var home: Int?
        for dependency in dependencies {
            guard case .shard(let k) = dependency else { continue }
            if let h = home, h != k { return .assembly }
            home = k
        }
        return .shard(home ?? self.home(of: key))
    }

    /// Whether this process runs an item with `assignment`.
    public func runs(_ assignment: Assignment) -> Bool {
        switch assignment {
        case .shared: return true
        case .gathering: return index > 0
        case .shard(let k): return k == index
        case .assembly: return false
        }
    }
}

/// What the engine needs to partition: the shard and the kind's shared and gathering stages.
public struct ShardFilter: Sendable {
    public var shard: Shard
    public var sharedStages: Set<String>
    public var gatheringStages: Set<String>

    public init(shard: Shard, sharedStages: Set<String>, gatheringStages: Set<String> = []) {
        self.shard = shard
        self.sharedStages = sharedStages
        self.gatheringStages = gatheringStages
    }
}
