import ArgumentParser
import Foundation
import LecternBundle
import LecternCore
import LecternLLM
import LecternPipeline

/// `lectern review BUNDLE --spec SPEC`: a person's last word on what a model drafted.
struct ReviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "review",
        abstract: "Approve, reject with a note, or edit every item of a bundle in a browser; the decisions go to the spec's review file.",
        discussion: """
            Serves the bundle's items on http://127.0.0.1 (loopback only) until Ctrl-C: a list with \
            a filter by status (pending, approved, edited, rejected, stale, failed), and a page per \
            item with its answer's fields and plain forms — Approve; Reject with a note (the next run \
            asks the model again with it); Edit the fields' text (the next run checks and renders it \
            like any answer). An item no answer of which passed (a bundle written with \
            --allow-partial) is shown with its last answer and what was wrong, to be written with \
            Edit. A list of tags (a quote's emotions) is one field, names joined by commas. Each decision is written to the review file at once (atomically): the spec's \
            review_file, else <spec name>.review.yaml beside it, versioned with the spec. A decision \
            made on a page whose item or decision changed since it was loaded (another tab, a run in \
            between) is refused. --list prints each item's status instead. See docs/review.md.
            """)

    @Argument(help: ArgumentHelp("The bundle directory, e.g. output/python-basics/1.0.0.", valueName: "BUNDLE"))
    var bundle: String

    @Option(name: .long, help: ArgumentHelp("The job spec the bundle was made from: its review file takes the decisions.", valueName: "SPEC"))
    var spec: String?

    @Option(name: .customLong("review-file"), help: ArgumentHelp("The review file, instead of the spec's.", valueName: "FILE"))
    var reviewFile: String?

    @Flag(name: .long, help: "Print each item's status (pending, approved, edited, rejected, stale) and exit.")
    var list = false

    @Option(name: .long, help: ArgumentHelp("The port to serve on (0 picks a free one).", valueName: "N"))
    var port: Int = 8001

    @Option(
        name: .long,
        help: ArgumentHelp("Who decides, as the review file records it (default: $LECTERN_REVIEWER, else git's user.name).", valueName: "NAME"))
    var reviewer: String?

    @OptionGroup var specOptions: SpecOptions

    func validate() throws {
        if spec == nil && reviewFile == nil {
            throw ValidationError("name the spec the bundle was made from (--spec SPEC), or the review file (--review-file FILE)")
        }
        if list && port != 8001 { throw ValidationError("--port is for serving, not --list") }
    }

    func run() throws {
        let directory = URL(fileURLWithPath: bundle, isDirectory: true)
        let manifest = try reportingUsageErrors { () throws -> Manifest in
            let report = try BundleVerifier.verify(directory)
            guard report.problems.isEmpty else {
                throw PackageError("\(bundle) does not verify:\n  " + report.problems.joined(separator: "\n  "))
            }
            return report.manifest
        }
        guard let sealData = FileManager.default.contents(atPath: directory.appendingPathComponent(ReviewSeal.fileName).path) else {
            Console.error("error: \(bundle) has no \(ReviewSeal.fileName) (it was written before review existed); run the job again to write one")
            throw LecternExit.usage
        }
        let seal = try reportingUsageErrors { try ReviewSeal.read(sealData) }
        let (fileURL, fileName, specDirectory) = try locateReviewFile(manifest: manifest)
        let decisions: ReviewFile
        do {
            decisions = try ReviewFile.read(fileURL, displayName: fileName)
        } catch let error as SpecError {
            Console.error(error.description)
            throw LecternExit.usage
        }
        if list {
            printList(seal, decisions)
            return
        }
        guard let who = Self.reviewer(given: reviewer, environment: ProcessInfo.processInfo.environment, directory: specDirectory) else {
            Console.error("error: who is deciding? give --reviewer NAME, or set LECTERN_REVIEWER, or git's user.name")
            throw LecternExit.usage
        }
        let previewFolder = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-review-preview-\(UUID().uuidString)")
        let preview = try? BundlePreview.write(bundle: directory, to: previewFolder)
        let site = ReviewSite(
            seal: seal, manifest: manifest, reviewFile: fileURL, reviewFileName: fileName, reviewer: who,
            preview: preview.map { $0.index.deletingLastPathComponent() },
            // What each item stands with, as its kind reads the bundle; a kind that cannot say shows the answer alone.
            contexts: (try? BundleKinds.builtIn.reader(for: manifest).reviewContexts(OpenBundle(url: directory, manifest: manifest), items: seal.items.map { ($0.id, $0.answer) }))
                ?? [:])
        let server: LoopbackHTTPServer
        do {
            server = try LoopbackHTTPServer(port: port) { site.answer($0) }
        } catch let failure as LoopbackHTTPServer.Failure {
            Console.error("error: \(failure)")
            throw LecternExit.usage
        }
        Console.out(
            "reviewing \(manifest.id) \(manifest.version) (\(seal.items.count) items) as \(who): http://127.0.0.1:\(server.port)/ "
                + "— decisions go to \(fileName) (Ctrl-C to stop)")
        // Ctrl-C stops it, also when started in the background of a script, which starts a
        // background job with SIGINT ignored; each decision is already on disk.
        signal(SIGINT, SIG_DFL)
        server.serveForever()
    }

    /// The review file and its name for messages, and the spec's directory (for git).
    func locateReviewFile(manifest: Manifest) throws -> (URL, String, URL) {
        if let reviewFile {
            let url = URL(fileURLWithPath: reviewFile).standardizedFileURL
            return (url, reviewFile, url.deletingLastPathComponent())
        }
        let (jobSpec, _, specURL) = try JobSetup.loadSpec(spec!, options: specOptions)  // validate() requires one of the two
        guard jobSpec.id == manifest.id else {
            Console.error("error: \(spec!) is the spec of '\(jobSpec.id)', but \(bundle) is a bundle of '\(manifest.id)'")
            throw LecternExit.usage
        }
        guard let url = jobSpec.reviewFile else {
            Console.error("error: \(spec!) names no review file")
            throw LecternExit.usage
        }
        let current = FileManager.default.currentDirectoryPath
        let name = url.path.hasPrefix(current + "/") ? String(url.path.dropFirst(current.count + 1)) : url.path
        return (url, name, specURL.deletingLastPathComponent())
    }

    func printList(_ seal: ReviewSeal, _ decisions: ReviewFile) {
        var counts: [ReviewStatus: Int] = [:]
        for item in seal.items {
            let decision = decisions[item.id]
            let status = item.status(decision)
            counts[status, default: 0] += 1
            var line = status.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0) + " " + item.id
            if let decision {
                line += "  (\(decision.kind.rawValue) by \(decision.by), \(decision.at))"
                if let note = decision.note, status == .rejected { line += " “\(note)” — asked again on the next run" }
            }
            if status == .stale { line += " — decided on another answer than this bundle holds" }
            if status == .failed { line += " — no answer passed the checks; not in the bundle: write it with Edit" }
            Console.out(line)
        }
        for decision in decisions.decisions.values.sorted(by: { $0.item < $1.item }) where !seal.items.contains(where: { $0.id == decision.item }) {
            counts[.stale, default: 0] += 1
            Console.out("stale     \(decision.item)  (\(decision.kind.rawValue) by \(decision.by)) — no such item in this bundle")
        }
        Console.out(ReviewStatus.allCases.map { "\(counts[$0] ?? 0) \($0.rawValue)" }.joined(separator: ", "))
    }

    /// Who decides: `given`, else `$LECTERN_REVIEWER`, else git's `user.name` where the spec is.
    static func reviewer(given: String?, environment: [String: String], directory: URL) -> String? {
        if let given = given?.trimmingCharacters(in: .whitespaces), !given.isEmpty { return given }
        if let named = environment["LECTERN_REVIEWER"]?.trimmingCharacters(in: .whitespaces), !named.isEmpty { return named }
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        git.arguments = ["git", "-C", directory.path, "config", "user.name"]
        let out = Pipe()
        git.standardOutput = out
        git.standardError = FileHandle.nullDevice
        guard (try? git.run()) != nil else { return nil }
        let data = out.fileHandleForReading.readAllRetryingInterrupts()
        git.waitUntilExit()
        let name = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return git.terminationStatus == 0 && !name.isEmpty ? name : nil
    }
}
