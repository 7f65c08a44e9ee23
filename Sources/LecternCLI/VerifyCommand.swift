import ArgumentParser
import Foundation
import LecternBundle
import LecternPipeline

/// `lectern verify BUNDLE`: check a bundle against its manifest.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract:
            "Check every file of a bundle against the SHA-256 and size in its manifest, and every local link of its XHTML files; exit 0 when intact, 1 when not. An intact bundle's quality report is summarised.",
        discussion:
            "A local link (a stylesheet, link or image that is not an http, https or mailto address or a #fragment) must name a file of the bundle, relative to the document that holds it. The summary of quality.json says how many model answers were accepted first time, repaired or failed, which checks refused answers, and what the lint of the whole bank flagged (docs/bundle.md). A .lectern package (from 'lectern package') is checked whole against --public-key or --trusted-keys: its signature, the listing, and every file against the signed manifest; a flipped byte, a swapped listing or a package re-signed with another key is refused, saying which."
    )

    @Argument(help: ArgumentHelp("Bundle directories (e.g. output/python-basics/1.0.0) or .lectern packages.", valueName: "BUNDLE|FILE.lectern"))
    var bundles: [String]

    @Option(name: .long, help: ArgumentHelp("A public key a package may be signed with (repeatable).", valueName: "KEY.pub"))
    var publicKey: [String] = []

    @Option(name: .long, help: ArgumentHelp("A folder of trusted public keys (*.pub) a package may be signed with.", valueName: "DIR"))
    var trustedKeys: String?

    func run() throws {
        var bad = false
        for path in bundles {
            if path.hasSuffix(".lectern") {
                if try !Self.verifyPackage(path, publicKeys: publicKey, trustedKeys: trustedKeys) { bad = true }
                continue
            }
            do {
                let report = try BundleVerifier.verify(URL(fileURLWithPath: path, isDirectory: true))
                if report.problems.isEmpty {
                    Console.out("\(path): ok (\(report.checkedFiles) files, \(report.manifest.id) \(report.manifest.version))")
                    for line in Self.qualitySummary(of: URL(fileURLWithPath: path, isDirectory: true)) { Console.out("  " + line) }
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

    /// The summary of an intact bundle's quality.json (its checksum was just verified).
    static func qualitySummary(of bundle: URL) -> [String] {
        let file = bundle.appendingPathComponent(QualityReport.fileName)
        guard let data = FileManager.default.contents(atPath: file.path) else {
            return ["no \(QualityReport.fileName): the bundle was written before Lectern reported its checks"]
        }
        guard let report = try? JSONDecoder().decode(QualityReport.self, from: data) else {
            return ["\(QualityReport.fileName) is not a quality report this Lectern reads (format \(QualityReport.formatVersion))"]
        }
        return report.summaryLines
    }
}
