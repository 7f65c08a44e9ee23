import ArgumentParser
import Foundation
import LecternCore

/// `lectern validate SPEC...`: check specs without running them.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check job specs and report every error with file:line:column; exit 0 when all are valid, 2 otherwise.")

    @Argument(help: ArgumentHelp("Job spec files (YAML).", valueName: "SPEC"))
    var specs: [String]

    @OptionGroup var specOptions: SpecOptions

    func run() throws {
        var failed = false
        for path in specs {
            do {
                let (spec, _, _) = try JobSetup.loadSpec(path, presetsDirectory: specOptions.presetsDirectory)
                Console.out("\(path): ok (\(spec.kind.rawValue) '\(spec.id)' \(spec.version))")
            } catch {
                failed = true
            }
        }
        if failed { throw LecternExit.usage }
    }
}
