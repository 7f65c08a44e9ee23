import ArgumentParser
import Foundation
import LecternBundle

/// `lectern preview BUNDLE`: a static site of the bundle.
struct PreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Write a static site of a verified bundle to read it as its users will: outline, lectures, questions with their feedback, exam forms.",
        discussion: """
            Open index.xhtml in a browser (no server and no script needed: feedback opens with a \
            click), or add --serve to serve the site on http://127.0.0.1 until Ctrl-C. The folder \
            is replaced on the next preview; a folder that is not a preview is never overwritten. \
            Right-to-left languages get right-to-left pages.
            """)

    @Argument(help: ArgumentHelp("The bundle directory, e.g. output/python-basics/1.0.0.", valueName: "BUNDLE"))
    var bundle: String

    @Option(name: .long, help: ArgumentHelp("The site's folder (default: preview/<id>-<version>).", valueName: "DIR"))
    var output: String?

    @Flag(name: .long, help: "Serve the site on loopback (127.0.0.1) after writing it, until interrupted.")
    var serve = false

    @Option(name: .long, help: ArgumentHelp("The port for --serve (0 picks a free one).", valueName: "N"))
    var port: Int = 8000

    func validate() throws {
        if !serve && port != 8000 { throw ValidationError("--port is for --serve") }
    }

    func run() throws {
        let source = URL(fileURLWithPath: bundle, isDirectory: true)
        let folder =
            try output
            ?? reportingUsageErrors {
                let manifest = try BundleVerifier.verify(source).manifest
                return "preview/\(manifest.id)-\(manifest.version)"
            }
        let site = try reportingUsageErrors { try BundlePreview.write(bundle: source, to: URL(fileURLWithPath: folder, isDirectory: true)) }
        guard serve else {
            Console.out("wrote \(site.pages) pages; open \(site.index.path)")
            return
        }
        let server: PreviewServer
        do {
            server = try PreviewServer(root: site.index.deletingLastPathComponent(), port: port)
        } catch let failure as PreviewServer.Failure {
            Console.error("error: \(failure)")
            throw LecternExit.usage
        }
        Console.out("wrote \(site.pages) pages; serving http://127.0.0.1:\(server.port)/index.xhtml (Ctrl-C to stop)")
        server.serveForever()
    }
}
