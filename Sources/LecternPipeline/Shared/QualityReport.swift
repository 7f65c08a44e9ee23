import Foundation
import LecternCore

/// What a run's checks did, per check and per stage: `quality.json` in every bundle. Built from
/// the item reports alone (every refused attempt's errors, the warnings on accepted answers) and
/// the bank-wide lint of the assembled questions, so a replay writes the same bytes.
public struct QualityReport: Sendable, Hashable, Codable {
    public static let fileName = "quality.json"
    public static let formatVersion = 1

    public struct Items: Sendable, Hashable, Codable {
        /// Items whose answer was a model's (renderings and pinned outlines are not counted).
        public var checked = 0
        /// Accepted on the first attempt.
        public var firstTime = 0
        /// Accepted after one or more refused attempts.
        public var repaired = 0
        /// Never accepted: refused to the last attempt, or left without an answer (offline, the
        /// provider failed); only in a bundle written with `--allow-partial`, which leaves them out.
        public var failed = 0
        /// Attempts in all, refused ones included.
        public var attempts = 0
        /// Multiple-choice questions of the accepted answers put to the blind solver, and those it
        /// answered with the key (a solver that named no option is not counted).
        public var blindSolve = BlindSolveTally()
        /// Accepted answers judged by the rubric (`review: { rubric: true }`); nil, and left out
        /// of quality.json, when none was.
        public var rubric: RubricTally?

        /// "32 model answers: 17 accepted first time, 15 repaired, 0 failed (140 attempts)": the
        /// words `lectern verify` and the run's summary both use for these counts.
        public var sentence: String {
            "\(checked) model answers: \(firstTime) accepted first time, \(repaired) repaired, \(failed) failed (\(attempts) attempts)"
        }

        enum CodingKeys: String, CodingKey {
            case checked, repaired, failed, attempts
            case firstTime = "first_time"
            case blindSolve = "blind_solve"
            case rubric
        }
    }

    public struct Check: Sendable, Hashable, Codable {
        public var check: QualityCheck
        public var summary: String
        /// Items that passed it on every attempt.
        public var passed: Int
        /// Items it refused at least once, then accepted clean.
        public var repaired: Int
        /// Items accepted with a warning of this check (a blind solver that still disagreed after
        /// the last attempt; a correct option much longer than the others).
        public var flagged: Int
        /// Items it refused on their last attempt: never accepted.
        public var failed: Int
        /// Attempts it refused, over all items.
        public var refusals: Int
    }

    public struct Stage: Sendable, Hashable, Codable {
        public var stage: String
        public var items: Items
    }

    public struct Warning: Sendable, Hashable, Codable {
        public var kind: String
        public var items: Int
    }

    /// `lectern check`'s lint of the assembled bank: what no single item's check could see (one
    /// question asked in two topics, an id used twice).
    public struct Bank: Sendable, Hashable, Codable {
        public var items: Int
        public var flagged: [Flag]

        /// A flagged question as quality.json has held it since format 1: its id and problems.
        public struct Flag: Sendable, Hashable, Codable {
            public var id: String
            public var problems: [String]
        }
    }

    /// A check not applied to the run's language, which has no `LanguageProfile`
    /// (`LanguageBoundCheck`).
    public struct NotApplied: Sendable, Hashable, Codable {
        public var check: QualityCheck
        public var language: String
        public var rule: String

        public init(_ bound: LanguageBoundCheck, language: String) {
            check = bound.check
            self.language = language
            rule = bound.rule
        }

        /// "check question-form not applied: no profile for fr (…)".
        public var sentence: String { "check \(check.rawValue) not applied: no profile for \(language) (\(rule))" }
    }

    public var format = QualityReport.formatVersion
    public var items: Items
    public var checks: [Check]
    public var stages: [Stage]
    /// Flags on accepted answers, by kind (a correct option much longer than the others …).
    public var warnings: [Warning]
    public var bank: Bank?
    /// What review made of the items (`review.json`'s counts): approved, edited, pending, the
    /// rejections acted on, the decisions not applied.
    public var review: ReviewSeal.Counts?
    /// The checks the run's language had no profile for; absent when it has one (English, Arabic).
    public var notApplied: [NotApplied]?

    enum CodingKeys: String, CodingKey {
        case format, items, checks, stages, warnings, bank, review
        case notApplied = "not_applied"
    }

    /// One model answer as the report counts it.
    struct Record {
        var stage: String
        var attempts: Int
        var rejections: [[Refusal]]
        var accepted: Bool
        var blindSolve = BlindSolveTally()
        var rubric = RubricTally()
        var warnings: [QualityCheck] = []
    }

    /// How the model answers of a run fared: what `items` of quality.json holds, and what the
    /// run's summary says (`RunQuality`). An answer is accepted first time when no attempt of it
    /// was refused — a mended answer was, though its item took one attempt.
    public static func answers(reports: [ItemReport], failures: [ItemFailure]) -> Items {
        tally(records(reports: reports, failures: failures))
    }

    /// The model answers among `reports` (accepted) and `failures` (never accepted).
    static func records(reports: [ItemReport], failures: [ItemFailure]) -> [Record] {
        var records: [Record] = reports.filter { $0.attempts > 0 }.map {
            Record(
                stage: $0.stage, attempts: $0.attempts, rejections: $0.rejections, accepted: true, blindSolve: $0.blindSolve,
                rubric: $0.rubric, warnings: $0.warnings.map(\.check))
        }
        // Every item that was asked and never accepted; with the refusals it got on the way. One
        // that failed for want of an answer (offline, the provider) after a refusal counts that
        // refusal as its last: replaying an old recording offline under new checks thus counts,
        // per check, the recorded answers it refuses.
        records += failures.filter { $0.attempts > 0 && $0.reason != .dependency }.map {
            Record(
                stage: $0.stage, attempts: $0.attempts,
                rejections: $0.reason == .invalid && $0.rejections.isEmpty ? [Self.lastRefusals($0)] : $0.rejections, accepted: false)
        }
        return records
    }

    /// The refusals of a failure that had no refused attempt before its last: those the model
    /// check raised, or — for an item failed outside one (a narration that is silence, a bank
    /// of templates short of its needs) — its errors, under the stage's own rules.
    static func lastRefusals(_ failure: ItemFailure) -> [Refusal] {
        failure.refusals.isEmpty ? failure.errors.map { Refusal(.stageRules, $0) } : failure.refusals
    }

    static func tally(_ records: [Record]) -> Items {
        var items = Items()
        for record in records {
            items.checked += 1
            items.attempts += record.attempts
            items.blindSolve = items.blindSolve + record.blindSolve
            if !record.rubric.isEmpty { items.rubric = (items.rubric ?? RubricTally()) + record.rubric }
            if !record.accepted {
                items.failed += 1
            } else if record.rejections.isEmpty {
                items.firstTime += 1
            } else {
                items.repaired += 1
            }
        }
        return items
    }

    /// The report of a run: `reports` of the accepted items, `failures` of the others, in the
    /// order of `stages`; `bank` from the assembled bundle.
    public init(stages stageOrder: [String], reports: [ItemReport], failures: [ItemFailure], bank: BankReport?) {
        let records = Self.records(reports: reports, failures: failures)
        items = Self.tally(records)
        checks = QualityCheck.allCases.map { check in
            var result = Check(check: check, summary: check.summary, passed: 0, repaired: 0, flagged: 0, failed: 0, refusals: 0)
            for record in records {
                let refused = record.rejections.map { errors in errors.contains { $0.check == check } }
                result.refusals += refused.filter { $0 }.count
                // An accepted item's last attempt was refused by nothing; a failed item's may
                // have been refused by this check earlier only (it failed for another).
                if !record.accepted, refused.last == true {
                    result.failed += 1
                } else if record.warnings.contains(check) {
                    result.flagged += 1
                } else if refused.contains(true) {
                    result.repaired += 1
                } else {
                    result.passed += 1
                }
            }
            return result
        }
        let known = Set(stageOrder)
        let order = stageOrder + Set(records.map(\.stage)).subtracting(known).sorted()
        stages = order.compactMap { stage in
            let mine = records.filter { $0.stage == stage }
            return mine.isEmpty ? nil : Stage(stage: stage, items: Self.tally(mine))
        }
        var warningItems: [String: Set<String>] = [:]
        for report in reports {
            for warning in report.warnings { warningItems[warning.kind, default: []].insert(report.id) }
        }
        warnings = warningItems.keys.sorted().map { Warning(kind: $0, items: warningItems[$0]!.count) }
        self.bank = bank.map { Bank(items: $0.items, flagged: $0.flagged.map { Bank.Flag(id: $0.id, problems: $0.problems) }) }
    }

    /// Sorted-key, pretty JSON with a final newline, as every bundle file.
    public func jsonData() throws -> Data { try CanonicalJSON.encode(self, pretty: true) }

    /// A few lines for `lectern verify` and the run summary.
    public var summaryLines: [String] {
        var lines = ["quality: " + items.sentence]
        if items.blindSolve.asked > 0 {
            lines.append("  blind solving: the solver picked the key of \(items.blindSolve.agreed) of \(items.blindSolve.asked) accepted questions")
        }
        if let rubric = items.rubric {
            let broken = rubric.broken.keys.sorted().map { "\($0) \(rubric.broken[$0]!)" }.joined(separator: ", ")
            lines.append(
                "  rubric: the reviewing model passed \(rubric.passed) of \(rubric.judged) judged answers"
                    + (broken.isEmpty ? "" : "; broken, quoting the item: \(broken)")
                    + (rubric.unquoted > 0 ? "; \(rubric.unquoted) verdicts quoting nothing of the item disregarded" : ""))
        }
        for check in checks where check.refusals > 0 || check.failed > 0 || check.flagged > 0 {
            lines.append(
                "  \(check.check.rawValue): \(check.repaired) repaired, \(check.flagged) flagged, \(check.failed) failed (\(check.refusals) refusals) — \(check.summary)")
        }
        if let review { lines.append("  review: " + review.sentence(items: review.approved + review.edited + review.pending)) }
        for check in notApplied ?? [] { lines.append("  " + check.sentence) }
        let warned = warnings.reduce(0) { $0 + $1.items }
        if warned > 0 { lines.append("  warnings on accepted answers: \(warnings.map { "\($0.kind) (\($0.items))" }.joined(separator: "; "))") }
        if let bank {
            lines.append(
                bank.flagged.isEmpty
                    ? "  bank: \(bank.items) questions, none flagged"
                    : "  bank: \(bank.items) questions, \(bank.flagged.count) flagged: "
                        + bank.flagged.prefix(3).map { "\($0.id) (\($0.problems.first ?? ""))" }.joined(separator: "; ")
                        + (bank.flagged.count > 3 ? " …" : ""))
        }
        return lines
    }
}
