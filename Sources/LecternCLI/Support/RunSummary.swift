import Foundation
import LecternPipeline

/// The closing lines of `lectern run` after the totals: how the items fared, what was flagged,
/// how long it took, and which file to open first.
enum RunSummary {
    /// Item ids shown per warning kind before "and N more".
    static let itemsShown = 3

    /// Quality, warnings by kind and wall time, for standard error.
    static func details(_ result: JobRunner.Result) -> [String] {
        let quality = RunQuality(result)
        var lines = [
            "  model answers: \(quality.validAtFirstAttempt) valid at the first attempt, \(quality.repaired) after repair; failed items: \(quality.failed)"
        ]
        if quality.warnings.isEmpty {
            lines.append("  warnings: none")
        } else {
            lines.append("  warnings: \(quality.warningCount), by kind:")
            for group in quality.warnings {
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
