import ArgumentParser
import Foundation
import LecternLLM

/// `lectern cache stats|prune|export|import`.
struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect and maintain the exchange cache.",
        subcommands: [Stats.self, Prune.self, Export.self, Import.self])

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Entries, size and stored token totals of the cache.")
        @OptionGroup var cacheOptions: CacheOptions

        func run() throws {
            let cache = try cacheOptions.open(ProcessInfo.processInfo.environment)
            let stats = cache.stats()
            Console.out("cache: \(cache.root.path)")
            Console.out("entries: \(stats.entries), \(stats.bytes) bytes")
            Console.out("stored tokens: \(stats.usage.promptTokens) prompt, \(stats.usage.completionTokens) completion")
            for (stage, n) in stats.byStage.sorted(by: { $0.key < $1.key }) { Console.out("  stage \(stage): \(n)") }
            for (model, n) in stats.byModel.sorted(by: { $0.key < $1.key }) { Console.out("  model \(model): \(n)") }
        }
    }

    struct Prune: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove cache entries (and temporary files a crash left).")
        @Option(name: .customLong("older-than"), help: ArgumentHelp("Remove entries not written in the last DAYS days.", valueName: "DAYS"))
        var olderThan: Int?
        @Flag(help: "Remove every entry.")
        var all = false
        @OptionGroup var cacheOptions: CacheOptions

        func validate() throws {
            if olderThan == nil && !all { throw ValidationError("say what to prune: --older-than DAYS or --all") }
            if let olderThan, olderThan < 0 { throw ValidationError("--older-than must be 0 or more days") }
        }

        func run() throws {
            let cache = try cacheOptions.open(ProcessInfo.processInfo.environment)
            let cutoff = olderThan.map { Date().addingTimeInterval(-Double($0) * 86_400) }
            let removed = try cache.prune(keep: all ? [] : nil, olderThan: cutoff)
            Console.out("removed \(removed) entr\(removed == 1 ? "y" : "ies") from \(cache.root.path)")
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the whole cache as a cassette (sorted JSONL). To export one job's exchanges, use 'lectern run --record-cassette'.")
        @Argument(help: ArgumentHelp("The cassette file to write.", valueName: "FILE"))
        var file: String
        @OptionGroup var cacheOptions: CacheOptions

        func run() throws {
            let cache = try cacheOptions.open(ProcessInfo.processInfo.environment)
            let records = cache.allKeys().compactMap(cache.lookup)
            try ExchangeCache.writeCassette(records, to: URL(fileURLWithPath: file))
            Console.out("wrote \(records.count) exchanges to \(file)")
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a cassette's exchanges to the cache.")
        @Argument(help: ArgumentHelp("The cassette file to read.", valueName: "FILE"))
        var file: String
        @OptionGroup var cacheOptions: CacheOptions

        func run() throws {
            let cache = try cacheOptions.open(ProcessInfo.processInfo.environment)
            do {
                let added = try cache.importCassette(URL(fileURLWithPath: file))
                Console.out("imported \(added) new exchanges into \(cache.root.path)")
            } catch {
                Console.error("error: \(error)")
                throw LecternExit.usage
            }
        }
    }
}
