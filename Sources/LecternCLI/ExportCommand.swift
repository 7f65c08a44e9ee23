import ArgumentParser
import Foundation
import LecternBundle

/// `lectern export BUNDLE --format F`: the bundle in a format other tools read.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a verified bundle in a format other tools read: " + Exporters.all.map { $0.format }.joined(separator: ", ") + ".",
        discussion: Exporters.all.map { "\($0.format): \($0.summary)." }.joined(separator: " ")
            + " The bundle is verified first; the same bundle gives the same file.")

    @Argument(help: ArgumentHelp("The bundle directory, e.g. output/intro-probability/1.0.0.", valueName: "BUNDLE"))
    var bundle: String

    @Option(name: .long, help: ArgumentHelp("The format: " + Exporters.all.map { $0.format }.joined(separator: ", ") + ".", valueName: "FORMAT"))
    var format: String

    @Option(name: .long, help: ArgumentHelp("Where to write the file (default: <id>-<version>.<extension> here).", valueName: "PATH"))
    var output: String?

    func run() throws {
        let exported = try reportingUsageErrors { try Exporters.export(URL(fileURLWithPath: bundle, isDirectory: true), format: format) }
        let destination = URL(fileURLWithPath: output ?? exported.fileName)
        try writeOutput(exported.data, to: destination)
        Console.out("wrote \(destination.path) (\(exported.data.count) bytes, \(format))")
    }
}
