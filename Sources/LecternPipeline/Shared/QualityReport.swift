import Foundation
import LecternCore

/// The checks a model answer goes through, as the quality report counts them. Each refusal an
/// item's attempt gets is filed under one check by its message (`classify`), so the report needs
/// nothing from the stages but the messages they already write.
public enum QualityCheck: String, CaseIterable, Sendable, Codable {
    /// The answer is complete JSON with the schema's fields.
    case wellFormed = "well-formed"
    /// No control character left by a JSON escape, no TeX command without its backslash.
    case textIntegrity = "text-integrity"
    /// Every learner text renders without a warning (TeX the renderer knows, no raw HTML).
    case rendering
    /// Every equality between numbers in what an answer asserts is true.
    case arithmetic
    /// No option restates another; wrong options have their own feedback.
    case distinctOptions = "distinct-options"
    /// No question asks what another of its topic (or bank) already asks.
    case distinctQuestions = "distinct-questions"
    /// Feedback agrees with the key: a wrong option's feedback does not call it right.
    case feedbackAgreesWithKey = "feedback-agrees-with-key"
    /// A solver shown the question and its options without the key picks the key (`review:`).
    case answerKey = "answer-key"
    /// Quotes are copied from the source and support the key; the answer is about its topic.
    case grounding
    /// A project's rubric adds up to its total; its deliverables fit the course's medium; it
    /// requires nothing a later subject teaches.
    case projectScope = "project-scope"
    /// A course question put as a question to a learner who read the lecture: it asks something,
    /// one question, last, not answered in the stem nor rhetorical; its texts speak to the learner
    /// about the subject (no video, no lecture's voice, nothing about the question itself), and
    /// its code is in a block.
    case questionForm = "question-form"
    /// Everything else a stage asks of its answer (counts, lengths, formats, levels).
    case stageRules = "stage-rules"

    /// One line for the report and `lectern verify`.
    public var summary: String {
        switch self {
        case .wellFormed: return "complete JSON with the schema's fields"
        case .textIntegrity: return "no control characters or TeX commands that lost their backslash"
        case .rendering: return "every text renders without a warning; TeX only inside math"
        case .arithmetic: return "no false arithmetic in what an answer asserts"
        case .distinctOptions: return "no option restating another; distinct feedback"
        case .distinctQuestions: return "no question asking what another already asks"
        case .feedbackAgreesWithKey: return "feedback agrees with the answer key"
        case .answerKey: return "a blind solver picks the key; a numeric key is what its working gives"
        case .grounding: return "quotes copied from the source; answers about their topic"
        case .projectScope: return "rubrics add up; deliverables fit the course; nothing it does not teach"
        case .questionForm: return "a question put to the learner: one, asked last, not answered in the stem; code in a block"
        case .stageRules: return "the stage's own rules (counts, lengths, formats)"
        }
    }

    /// The check a refusal message comes from. The patterns are the fixed parts of the
    /// validators' messages; a message none of them knows counts under `stageRules`.
    public static func classify(_ message: String) -> QualityCheck {
        let text = message.lowercased()
        func has(_ parts: String...) -> Bool { parts.contains { text.contains($0) } }
        // Most specific first: a field name in the message ("rubric[1].criterion states false
        // arithmetic") must not decide the check.
        if has("states false arithmetic") { return .arithmetic }
        if has("does not render as written") { return .rendering }
        if has("the json escape", "lost its backslash", "without its backslash", "control character") { return .textIntegrity }
        if has(
            "not complete, valid json", "is not valid json", "was cut off", "is missing", "missing required key", "needs 'correct_answer'", "json field name",
            "closes no quotation")
        {
            return .wellFormed
        }
        if has("already asks", "repeats the first question", "the same question as") { return .distinctQuestions }
        if has("calls it right", "calls it wrong") { return .feedbackAgreesWithKey }
        if has("without the key chose", QuestionRules.keyAgainstWorking, QuestionRules.keyAgainstIndexing) { return .answerKey }
        if has("are the same (", "are the same", "have the same feedback", "every option must differ", "written twice") { return .distinctOptions }
        if has(
            "does not occur in the source", "source quote", "source_quote", "to show where the answer comes from", "seem to be about", "must be about topic",
            "which the lecture does not teach")
        {
            return .grounding
        }
        if has("add up to", "this is a text course", "teaches after this one", "does not teach up to this subject", "deliverable", "rubric") {
            return .projectScope
        }
        if has(
            "asks nothing", " questions ('", "goes on after its question", "speaks about the question", "speaks as the lecture does",
            "refers to a video", "code outside a code block", "asks whether the explanation helped", "is about the question, not an answer",
            "says whether it is the answer", "stand beside", "asks for the learner's own words", "only repeats the question's own words",
            "gives the answer away", "holds a heading", "stops in the middle of a sentence", "copies the lecture word for word",
            "ends with a colon and nothing after it", "code it does not show", "repeats the question word for word")
        {
            return .questionForm
        }
        return .stageRules
    }
}

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

        /// "32 model answers: 17 accepted first time, 15 repaired, 0 failed (140 attempts)": the
        /// words `lectern verify` and the run's summary both use for these counts.
        public var sentence: String {
            "\(checked) model answers: \(firstTime) accepted first time, \(repaired) repaired, \(failed) failed (\(attempts) attempts)"
        }

        enum CodingKeys: String, CodingKey {
            case checked, repaired, failed, attempts
            case firstTime = "first_time"
            case blindSolve = "blind_solve"
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
        public var flagged: [BankReport.Flag]
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

    /// One model answer as the report counts it.
    struct Record {
        var stage: String
        var attempts: Int
        var rejections: [[String]]
        var accepted: Bool
        var blindSolve = BlindSolveTally()
        var warnings: [String] = []
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
                warnings: $0.warnings.map(\.message))
        }
        // Every item that was asked and never accepted; with the refusals it got on the way. One
        // that failed for want of an answer (offline, the provider) after a refusal counts that
        // refusal as its last: replaying an old recording offline under new checks thus counts,
        // per check, the recorded answers it refuses.
        records += failures.filter { $0.attempts > 0 && $0.reason != .dependency }.map {
            Record(
                stage: $0.stage, attempts: $0.attempts,
                rejections: $0.reason == .invalid && $0.rejections.isEmpty ? [$0.errors] : $0.rejections, accepted: false)
        }
        return records
    }

    static func tally(_ records: [Record]) -> Items {
        var items = Items()
        for record in records {
            items.checked += 1
            items.attempts += record.attempts
            items.blindSolve = items.blindSolve + record.blindSolve
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
                let refused = record.rejections.map { errors in errors.contains { QualityCheck.classify($0) == check } }
                result.refusals += refused.filter { $0 }.count
                // An accepted item's last attempt was refused by nothing; a failed item's may
                // have been refused by this check earlier only (it failed for another).
                if !record.accepted, refused.last == true {
                    result.failed += 1
                } else if record.warnings.contains(where: { QualityCheck.classify($0) == check }) {
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
        self.bank = bank.map { Bank(items: $0.items, flagged: $0.flagged) }
    }

    /// Sorted-key, pretty JSON with a final newline, as every bundle file.
    public func jsonData() throws -> Data { try CanonicalJSON.encode(self, pretty: true) }

    /// A few lines for `lectern verify` and the run summary.
    public var summaryLines: [String] {
        var lines = ["quality: " + items.sentence]
        if items.blindSolve.asked > 0 {
            lines.append("  blind solving: the solver picked the key of \(items.blindSolve.agreed) of \(items.blindSolve.asked) accepted questions")
        }
        for check in checks where check.refusals > 0 || check.failed > 0 || check.flagged > 0 {
            lines.append(
                "  \(check.check.rawValue): \(check.repaired) repaired, \(check.flagged) flagged, \(check.failed) failed (\(check.refusals) refusals) — \(check.summary)")
        }
        if let review { lines.append("  review: " + review.sentence(items: review.approved + review.edited + review.pending)) }
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
