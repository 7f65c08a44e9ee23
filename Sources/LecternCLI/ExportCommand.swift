import ArgumentParser
import Foundation
import LecternBundle

/// `lectern export BUNDLE --format F`: the bundle in a format other tools read.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a verified bundle in a format other tools read: " + Exporters.all.map { $0.format }.joined(separator: ", ") + ".",
        discussion: Exporters.all.map { "\($0.format): \($0.summary)." }.joined(separator: " ")
            + " The bundle is verified first; the same bundle gives the same file. Each format has a file name of its own, so exports of one bundle never replace each other; an existing file is replaced only with --force."
    )

    @Argument(help: ArgumentHelp("The bundle directory, e.g. output/intro-probability/1.0.0.", valueName: "BUNDLE"))
    var bundle: String

    @Option(name: .long, help: ArgumentHelp("The format: " + Exporters.all.map { $0.format }.joined(separator: ", ") + ".", valueName: "FORMAT"))
    var format: String

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Where to write the file (default: <id>-<version>.<extension> here, the extension the format's own: "
                + Exporters.all.map { "\($0.fileExtension) for \($0.format)" }.joined(separator: ", ") + ").",
            valueName: "PATH"))
    var output: String?

    @Flag(name: .long, help: "Replace the file if it exists (without it an existing file is never replaced: exit 2).")
    var force = false

    func run() throws {
        let exported = try reportingUsageErrors { try Exporters.export(URL(fileURLWithPath: bundle, isDirectory: true), format: format) }
        let destination = URL(fileURLWithPath: output ?? exported.fileName)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: destination.path, isDirectory: &isDirectory) {
            if isDirectory.boolValue {
                Console.error("error: \(destination.path) is a directory; give --output a file name")
                throw LecternExit.usage
            }
            guard force else {
                Console.error("error: \(destination.path) exists and was not replaced; pass --force to replace it, or --output PATH to write elsewhere")
                throw LecternExit.usage
            }
        }
        try writeOutput(exported.data, to: destination)
        Console.out("wrote \(destination.path) (\(exported.data.count) bytes, \(format))")
    }
}
