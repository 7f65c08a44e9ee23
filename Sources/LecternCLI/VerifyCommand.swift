import ArgumentParser
import Foundation
import LecternBundle

/// `lectern verify BUNDLE`: check a bundle against its manifest.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract:
            "Check every file of a bundle against the SHA-256 and size in its manifest, and every local link of its XHTML files; exit 0 when intact, 1 when not.",
        discussion:
            "A local link (a stylesheet, link or image that is not an http, https or mailto address or a #fragment) must name a file of the bundle, relative to the document that holds it."
    )

    @Argument(help: ArgumentHelp("Bundle directories, e.g. output/python-basics/1.0.0.", valueName: "BUNDLE"))
    var bundles: [String]

    func run() throws {
        var bad = false
        for path in bundles {
            do {
                let report = try BundleVerifier.verify(URL(fileURLWithPath: path, isDirectory: true))
                if report.problems.isEmpty {
                    Console.out("\(path): ok (\(report.checkedFiles) files, \(report.manifest.id) \(report.manifest.version))")
                } else {
                    bad = true
                    Console.error("\(path): \(report.problems.count) problem\(report.problems.count == 1 ? "" : "s"):")
                    for problem in report.problems { Console.error("  \(problem)") }
                }
            } catch {
                bad = true
                Console.error("\(path): \(error)")
            }
        }
        if bad { throw LecternExit.itemsFailed }
    }
}
