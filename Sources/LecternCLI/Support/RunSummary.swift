import Foundation
import LecternCore
import LecternPipeline

/// The closing lines of `lectern run` after the totals: how the items fared, what was flagged,
/// how long it took, and which file to open first.
enum RunSummary {
    /// Item ids shown per warning kind before "and N more".
    static let itemsShown = 3

    /// Quality, warnings by kind and wall time, for standard error.
    static func details(_ result: JobRunner.Result) -> [String] {
        let quality = RunQuality(result)
        // In the words `lectern verify` prints from quality.json, counted by the same function.
        // (Failed items, with those not started because of them, are listed after these lines.)
        var lines = ["  " + quality.answers.sentence]
        // The bundle's quality.json, when one was written: which checks refused answers, and
        // what the lint of the whole bank flagged.
        if let report = result.quality {
            let refusing = report.checks.filter { $0.refusals > 0 }
            if !refusing.isEmpty {
                lines.append(
                    "  refused by: " + refusing.map { "\($0.check.rawValue) \($0.refusals)× (\($0.repaired) repaired, \($0.failed) failed)" }.joined(separator: ", "))
            }
            // Once per run: what the spec's language had no profile for (`LanguageBoundCheck`).
            for check in report.notApplied ?? [] { lines.append("  warning: " + check.sentence) }
            if let bank = report.bank, !bank.flagged.isEmpty {
                let shown = bank.flagged.prefix(itemsShown).map { "\($0.id): \($0.problems.first ?? "")" }.joined(separator: "; ")
                lines.append(
                    "  bank lint: \(bank.flagged.count) of \(bank.items) questions flagged (\(shown)\(bank.flagged.count > itemsShown ? " …" : ""); all in quality.json)")
            }
        }
        // Blind solving, per stage: the accepted questions whose key a solver picked without
        // seeing it (from the items' reports, so a run that wrote no bundle says it too).
        var solved: [String: BlindSolveTally] = [:]
        for report in result.reports.values where report.blindSolve.asked > 0 {
            solved[report.stage, default: BlindSolveTally()] = solved[report.stage, default: BlindSolveTally()] + report.blindSolve
        }
        if !solved.isEmpty {
            lines.append(
                "  blind solving, the key picked: "
                    + solved.keys.sorted().map { "\($0) \(solved[$0]!.agreed) of \(solved[$0]!.asked)" }.joined(separator: ", "))
        }
        if quality.warnings.isEmpty {
            lines.append("  warnings: none")
        } else {
            lines.append("  warnings: \(quality.warningCount), by kind:")
            for group in quality.warnings {
                if group.count > 1, group.items.count == 1, let report = result.reports[group.items[0]] {
                    // Several flags on one item: the item's id says little, its messages say what.
                    let messages = report.warnings.filter { $0.kind == group.kind }.map(\.message)
                    var shown = messages.prefix(itemsShown).joined(separator: "; ")
                    if messages.count > itemsShown { shown += " and \(messages.count - itemsShown) more" }
                    lines.append("    \(group.count) × \(group.kind) (\(group.items[0]): \(shown))")
                    continue
                }
                var items = group.items.prefix(itemsShown).joined(separator: ", ")
                if group.items.count > itemsShown { items += " and \(group.items.count - itemsShown) more" }
                lines.append("    \(group.count) × \(group.kind) (\(items))")
            }
        }
        lines += result.summary
        lines.append("  wall time: \(duration(result.wallTime))")
        return lines
    }

    /// "open first: …" for standard output, when a bundle is there to open.
    static func entry(_ result: JobRunner.Result) -> String? {
        guard let document = result.entryDocument else { return nil }
        switch result.bundle {
        case .written(let url)?, .unchanged(let url)?: return "open first: \(url.appendingPathComponent(document).path)"
        case nil: return nil
        }
    }

    /// "85 ms", "42.1 s", "25 min 04 s", "1 h 02 min".
    static func duration(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        if seconds < 1 { return "\(Int((seconds * 1000).rounded())) ms" }
        if seconds < 60 { return String(format: "%.1f s", seconds) }
        let whole = Int(seconds.rounded())
        if whole < 3600 { return String(format: "%d min %02d s", whole / 60, whole % 60) }
        return String(format: "%d h %02d min", whole / 3600, (whole % 3600) / 60)
    }
}
