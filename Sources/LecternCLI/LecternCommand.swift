import ArgumentParser
import Foundation
import LecternCore

/// The `lectern` command: a batch content-generation pipeline for e-learning products.
public struct LecternCommand: AsyncParsableCommand {
    public static let version = "0.1.0"

    public static let configuration = CommandConfiguration(
        commandName: "lectern",
        abstract: "Generate validated e-learning content bundles from YAML job specs.",
        discussion: """
            Exit codes: 0 success; 1 some items failed validation (no bundle unless --allow-partial) \
            or a bundle failed verification; 2 usage or spec error; 3 provider or network failure \
            after retries, or no recorded answer in replay/offline mode; 4 budget exceeded; \
            5 this machine failed the run (cache, cassette or bundle could not be read or \
            written: a full disk, permissions) or an internal error; 130 interrupted. Finished \
            work is kept and a re-run resumes. With several specs, the worst code applies. \
            Shell completions: lectern --generate-completion-script bash|zsh|fish.
            """,
        version: version,
        subcommands: [
            RunCommand.self, PlanCommand.self, ValidateCommand.self, RenderCommand.self, VerifyCommand.self, CheckCommand.self, CacheCommand.self,
            ModelsCommand.self, KeysCommand.self, PackageCommand.self, DiffCommand.self, ExportCommand.self, PreviewCommand.self, ReviewCommand.self,
        ])

    public init() {}

    /// Parses the arguments and runs the command, mapping argument errors to exit code 2.
    public static func entry(_ arguments: [String]? = nil) async -> Int32 {
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return 0
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { Console.out(message) }
                return 0
            }
            if !message.isEmpty { Console.error(message) }
            if let suggestion = suggestion(forInvalidValueMessage: message) { Console.error(suggestion) }
            // swift-argument-parser uses EX_USAGE (64) for bad arguments; ours is 2.
            return code == .validationFailure ? LecternExit.usage.rawValue : code.rawValue
        }
    }

    /// "Did you mean 'record'?" for argument-parser's "The value 'recrod' is invalid for '--cache
    /// <MODE>'. Please provide one of 'record', 'replay', …" (the enum options list their values,
    /// but name no near match).
    static func suggestion(forInvalidValueMessage message: String) -> String? {
        guard let line = message.split(separator: "\n").first(where: { $0.contains("is invalid for") && $0.contains("Please provide one of") }),
            let provide = line.range(of: "Please provide one of")
        else { return nil }
        let quoted = { (text: Substring) in text.split(separator: "'", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) } }
        guard let given = quoted(line[..<provide.lowerBound]).first else { return nil }
        let choices = quoted(line[provide.upperBound...])
        return Suggestion.closest(to: given, among: choices).map { "Did you mean '\($0)'?" }
    }
}
