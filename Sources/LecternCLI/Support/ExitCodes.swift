import ArgumentParser
import Foundation
import LecternBundle
import LecternCore
import LecternLLM

/// Exit codes of every command (DESIGN.md). When several specs run, the process exits with the
/// worst code (``worse(_:_:)``).
public enum LecternExit {
    /// The job ran but some items failed validation (bundle not written unless --allow-partial).
    public static let itemsFailed = ExitCode(1)
    /// A usage or spec error.
    public static let usage = ExitCode(2)
    /// A provider or network failure after retries (also: replay/offline with no recorded answer).
    public static let provider = ExitCode(3)
    /// The budget was exceeded.
    public static let budget = ExitCode(4)
    /// This machine failed the run: the cache, a cassette or the bundle could not be read or
    /// written (a full disk, permissions), or an internal error. Finished work is kept.
    public static let runtime = ExitCode(5)
    /// Interrupted (Ctrl-C); finished work is kept.
    public static let interrupted = ExitCode(130)

    /// How bad each code is, worst last: an interruption outranks everything, then a fault of
    /// this machine, the provider, the budget, the spec, and failed items.
    static let severity: [Int32] = [0, 1, 2, 4, 3, 5, 130]

    /// The worse of two exit codes.
    static func worse(_ a: Int32, _ b: Int32) -> Int32 {
        let rank = { (code: Int32) in severity.firstIndex(of: code) ?? severity.count }
        return rank(b) > rank(a) ? b : a
    }

    /// The exit code for an error that ended a command (after its message was printed).
    static func code(for error: any Error) -> Int32 {
        switch error {
        case let exit as ExitCode: exit.rawValue
        case is SpecError: usage.rawValue
        case let bundle as BundleError: bundle.kind == .versionExists ? usage.rawValue : runtime.rawValue
        // A missing or refused key, or a provider that cannot be reached: exit 3; a provider the
        // spec cannot make (a key over plain http, an unreadable script): exit 2.
        case let llm as LLMError: llm.kind == .authentication || llm.kind == .unavailable ? provider.rawValue : usage.rawValue
        case is CancellationError: interrupted.rawValue
        default: runtime.rawValue
        }
    }
}
