import Foundation

/// Writes to standard error and standard output without buffering surprises.
enum Console {
    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }

    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }

    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}
