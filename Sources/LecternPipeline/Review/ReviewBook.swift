import Foundation
import LecternCore
import Synchronization

/// A run's review decisions (`ReviewFile`) as `ModelCallRunner` applies them, and what each model
/// item became: the record the bundle's `review.json` seals (docs/review.md).
///
/// - approve: the approved answer is kept — no call — while what it was built from (its basis:
///   the prompt's values but the tone) holds, whatever the prompt template, model, tone or
///   temperature; it must still pass every check, or it is stale and asked again.
/// - edit: the approved answer with the reviewer's fields; it must pass every check and render,
///   or the run stops with a spec error at the decision (exit 2).
/// - reject: the answer judged is refused with the reviewer's note as its repair message; the new
///   answer is pending.
/// A decision whose answer (`content`) or basis no longer matches is stale: reported, not applied.
/// An item no answer of which passed is sealed as failed with its last answer, for a person to
/// write it from (an edit of that answer).
public final class ReviewBook: Sendable {
    /// What became of one model item.
    public struct Record: Sendable, Equatable {
        public typealias State = ReviewSeal.State

        public var item: String
        public var stage: String
        public var state: State
        /// The answer in the bundle (mends and edits included) and its hash.
        public var answer: String
        public var content: String
        public var basis: String
        /// Who decided, and when (approved, edited).
        public var by: String?
        public var at: String?
        /// A rejection this run acted on: its note (the new answer is pending).
        public var rejected: String?
        /// Why a decision on this item was not applied.
        public var stale: String?
        /// What was wrong with the last answer, when the item failed.
        public var problems: [String]? = nil
    }

    public let file: ReviewFile
    /// The review file, relative to the spec's directory, for messages and `review.json`.
    public let fileName: String?
    private let records = Mutex<[String: Record]>([:])
    private let refusedEdits = Mutex<[SpecDiagnostic]>([])

    public init(file: ReviewFile = ReviewFile(file: "review"), fileName: String? = nil) {
        self.file = file
        self.fileName = fileName
    }

    /// Every record, by item id.
    public var all: [String: Record] { records.withLock { $0 } }

    func record(_ record: Record) {
        records.withLock { $0[record.item] = record }
    }

    /// Decisions whose item no run of this job produced (a topic renamed away, an id mistyped).
    public func unmatched() -> [ReviewFile.Decision] {
        let seen = records.withLock { Set($0.keys) }
        return file.decisions.values.filter { !seen.contains($0.item) }.sorted { $0.item < $1.item }
    }

    /// The bundle's `review.json` of this run's records.
    public func seal(reviewFileSHA256: String?) -> ReviewSeal {
        ReviewSeal(
            items: all.values.map {
                ReviewSeal.Item(
                    id: $0.item, stage: $0.stage, state: $0.state, content: $0.content, basis: $0.basis, answer: $0.answer, by: $0.by, at: $0.at,
                    rejected: $0.rejected, stale: $0.stale, problems: $0.problems)
            }, unmatched: unmatched(), reviewFile: fileName, reviewFileSHA256: reviewFileSHA256)
    }

    /// The error an edit gets when its text does not pass the checks: the decision's place in
    /// the review file, and what to fix. Kept, so that the run ends with it (exit 2).
    public func editError(_ decision: ReviewFile.Decision, problems: [String]) -> SpecError {
        let diagnostic = SpecDiagnostic(
            file: file.file, line: decision.line, column: decision.column,
            message: "the edit of \(decision.item) does not pass the checks: " + problems.joined(separator: "; "),
            hint: "change its fields so they pass, or reject the item with a note instead")
        refusedEdits.withLock { $0.append(diagnostic) }
        return SpecError(diagnostic)
    }

    /// The edits the checks refused this run, as spec errors in file order; nil when none.
    public var refusedEditsError: SpecError? {
        let all = refusedEdits.withLock { $0 }.sorted { ($0.line ?? 0, $0.column ?? 0) < ($1.line ?? 0, $1.column ?? 0) }
        return all.isEmpty ? nil : SpecError(all)
    }
}

/// A spec error raised inside an item (an edit that does not pass): it stops the run, exit 2.
public struct ReviewEditError: Error, Sendable, CustomStringConvertible {
    public var error: SpecError
    public var description: String { error.description }
}
