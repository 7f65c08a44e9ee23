/// Patterns the validators match, each compiled once: a regex literal written inside a function
/// is parsed again every time the function runs (`Regex(_regexString:)` was a tenth of a
/// replay's CPU). Swift's `Regex` is not `Sendable`; these are never mutated after their first
/// use, so sharing them across tasks is safe.
enum CompiledPatterns {
    nonisolated(unsafe) static let bangBeforeName = /!(?=[A-Za-z_(])/
    nonisolated(unsafe) static let whatIsTheWayTo = /(?i)^\s*what (is|are) the ((correct|best|right|proper|usual|easiest) )?ways? to\s+/
    nonisolated(unsafe) static let decimalNumber = /\d+(\.\d+)?/
    nonisolated(unsafe) static let fenceLine = /^```[A-Za-z0-9_+-]*$/
    nonisolated(unsafe) static let endsWithAValue = /[=≈]\s*[-+−]?[\d.,\/]*\d\s*(%|\))?\z/
    nonisolated(unsafe) static let commandName = /\\([A-Za-z]+)/
    nonisolated(unsafe) static let blankLine = /\n[ \t]*\n/
}
