import ArgumentParser
import Foundation
import LecternCore
import LecternLLM

/// `lectern validate SPEC...`: check specs without running them.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check job specs and report every error with file:line:column; exit 0 when all are valid, 2 otherwise.",
        discussion: """
            A spec is checked as `run` checks it before its first model call: every key, the corpus \
            and imported files it names, where API keys may be sent, and the job built from it. What \
            this machine lacks for a run (an API key not set, espeak-ng not installed) is a warning \
            here, since specs are often checked where the keys are not; `run` stops on it.
            """)

    @Argument(help: ArgumentHelp("Job spec files (YAML).", valueName: "SPEC"))
    var specs: [String]

    @OptionGroup var specOptions: SpecOptions

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        var failed = false
        for path in specs {
            do {
                // The checks `run` makes before its first call, in the same code (JobSetup.preflight).
                let (spec, presets, url) = try JobSetup.loadSpec(path, options: specOptions)
                let missing = try JobSetup.preflight(spec: spec, presets: presets, specURL: url, path: path, environment: environment, cache: .record)
                    .problems
                Console.out("\(path): ok (\(spec.kind.rawValue) '\(spec.id)' \(spec.version))")
                for problem in missing {
                    Console.error("\(path): warning: `run` on this machine would stop before its first call: \(problem.message)")
                }
            } catch {
                failed = true
            }
        }
        if failed { throw LecternExit.usage }
    }
}
