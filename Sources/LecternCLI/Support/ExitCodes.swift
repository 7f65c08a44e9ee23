import ArgumentParser

/// Exit codes of every command (DESIGN.md).
public enum LecternExit {
    /// The job ran but some items failed validation (bundle not written unless --allow-partial).
    public static let itemsFailed = ExitCode(1)
    /// A usage or spec error.
    public static let usage = ExitCode(2)
    /// A provider or network failure after retries (also: replay/offline with no recorded answer).
    public static let provider = ExitCode(3)
    /// The budget was exceeded.
    public static let budget = ExitCode(4)
    /// Interrupted (Ctrl-C); finished work is kept.
    public static let interrupted = ExitCode(130)
}
