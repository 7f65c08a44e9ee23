import ArgumentParser
import Foundation
import LecternBundle

/// `lectern diff OLD NEW`: items added, removed and changed between two bundles.
struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "List the items added, removed and changed between two bundles of a job; exit 0 when equal, 1 when they differ.",
        discussion: """
            Items are named as the pipeline names them (manifest, course, lecture/s01-t02, \
            reinforcement/s01-t02/level-3, ending-project/s01, item/<id>, passage/<id>, form/<id>); \
            a changed lecture or passage shows a line diff, any other changed item the fields that \
            changed, old → new (manifest: the bundle's id, version, title, language, generator, spec \
            hash, models and prompt templates). Files no item covers are compared by their manifest \
            hash (file/…). Both bundles are verified first. --json writes {"equal", "added", \
            "removed", "changed": [{"id", "diff", "fields": [{"field", "old", "new"}]}], \
            "unchanged"} for CI, e.g. to review fixtures a CI job regenerated.
            """)

    @Argument(help: ArgumentHelp("The earlier bundle directory.", valueName: "OLD"))
    var old: String

    @Argument(help: ArgumentHelp("The later bundle directory.", valueName: "NEW"))
    var new: String

    @Flag(name: .long, help: "Write the report as JSON.")
    var json = false

    @Flag(name: .long, help: "Leave out the line diffs of changed lectures and passages (the changed fields of other items stay).")
    var brief = false

    /// Changed fields printed per item; `--json` has them all.
    static let fieldsShown = 12

    func run() throws {
        let report: BundleDiff.Report
        do {
            report = try BundleDiff.compare(URL(fileURLWithPath: old, isDirectory: true), URL(fileURLWithPath: new, isDirectory: true))
        } catch let error as BundleError {
            Console.error("error: \(error)")
            throw LecternExit.usage
        }
        if json {
            var copy = report
            if brief { copy.changed = copy.changed.map { BundleDiff.Change(id: $0.id, diff: nil, fields: $0.fields) } }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            Console.out(String(decoding: try encoder.encode(copy), as: UTF8.self))
        } else {
            for change in report.changed {
                Console.out("changed  \(change.id)")
                if !brief, let diff = change.diff, !diff.isEmpty { Console.out(diff.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n")) }
                let fields = change.fields ?? []
                for field in fields.prefix(Self.fieldsShown) { Console.out("    " + field.line()) }
                if fields.count > Self.fieldsShown { Console.out("    … and \(fields.count - Self.fieldsShown) more fields (--json lists them all)") }
            }
            for id in report.added { Console.out("added    \(id)") }
            for id in report.removed { Console.out("removed  \(id)") }
            Console.out(report.equal ? "equal: \(report.summary)" : report.summary)
        }
        if !report.equal { throw LecternExit.itemsFailed }
    }
}
