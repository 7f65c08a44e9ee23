import ArgumentParser
import Foundation
import LecternRender

/// `lectern render FILE.md…`: Markdown + math → sanitized XHTML documents, on standard output
/// (one file) or into a directory (any number, in one process).
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render Markdown files with math to sanitized XHTML + MathML documents.",
        discussion: """
            With one file and no --output-dir, the document goes to standard output. With \
            --output-dir, every FILE.md becomes DIR/FILE.xhtml (written atomically), so a batch \
            renders in one process. Warnings (e.g. unknown TeX commands, shown as merror in the \
            output) go to standard error as FILE: warning: …. A file that cannot be read or \
            rendered is reported and the others still render. Exit 0 when all rendered, 1 when a \
            document could not be rendered, 2 when a file cannot be read or the arguments do not \
            fit, 5 when an output file cannot be written; the worst applies.
            """)

    @Argument(help: ArgumentHelp("Markdown files; '-' reads standard input (to standard output only).", valueName: "FILE.md"))
    var files: [String]

    @Option(
        name: .customLong("output-dir"),
        help: ArgumentHelp("Write each FILE.md to DIR/FILE.xhtml instead of standard output (created if missing).", valueName: "DIR"))
    var outputDirectory: String?

    @Option(help: ArgumentHelp("Language tag of the text: sets lang, and dir=\"rtl\" for right-to-left languages such as ar.", valueName: "TAG"))
    var language: String = "en"

    @Option(help: ArgumentHelp("The document title (default: each file's name).", valueName: "TEXT"))
    var title: String?

    @Flag(help: "Write only the sanitized body fragment, not a whole document.")
    var fragment = false

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("name at least one Markdown file, or '-' for standard input") }
        if outputDirectory == nil, files.count > 1 {
            throw ValidationError("several files need --output-dir DIR (each FILE.md is written to DIR/FILE.xhtml)")
        }
        if outputDirectory != nil, files.contains("-") {
            throw ValidationError("'-' (standard input) renders to standard output only; leave out --output-dir")
        }
        if let outputDirectory {
            var seen: [String: String] = [:]
            for file in files {
                let target = Self.outputName(for: file)
                if let other = seen[target] {
                    throw ValidationError("\(other) and \(file) would both be written to \(outputDirectory)/\(target); render them in two runs")
                }
                seen[target] = file
            }
        }
    }

    static func outputName(for file: String) -> String {
        URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent + ".xhtml"
    }

    func run() throws {
        let renderer = MarkdownRenderer()
        var worst: Int32 = 0
        if let outputDirectory {
            do {
                try FileManager.default.createDirectory(atPath: outputDirectory, withIntermediateDirectories: true)
            } catch {
                Console.error("error: cannot create the output directory \(outputDirectory): \(error.localizedDescription)")
                throw LecternExit.runtime
            }
        }
        for file in files {
            worst = LecternExit.worse(worst, renderOne(file, renderer: renderer))
        }
        if let outputDirectory, files.count > 1 {
            let failed = worst == 0 ? "" : " (some failed, see above)"
            Console.error("rendered \(files.count) files into \(outputDirectory)\(failed)")
        }
        if worst != 0 { throw ExitCode(worst) }
    }

    /// Renders one file; returns its exit code.
    func renderOne(_ file: String, renderer: MarkdownRenderer) -> Int32 {
        let data = file == "-" ? FileHandle.standardInput.readDataToEndOfFile() : FileManager.default.contents(atPath: file)
        guard let data else {
            Console.error("\(file): error: cannot read it: it does not exist or is not readable")
            return LecternExit.usage.rawValue
        }
        guard let markdown = String(data: data, encoding: .utf8) else {
            Console.error("\(file): error: not UTF-8 text")
            return LecternExit.usage.rawValue
        }
        let rendered: RenderedDocument
        do {
            let name = file == "-" ? "document" : URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
            rendered = try renderer.render(markdown, language: language, title: title ?? name)
        } catch {
            Console.error("\(file): error: \(error)")
            return LecternExit.itemsFailed.rawValue
        }
        for warning in rendered.warnings { Console.error("\(file): warning: \(warning)") }
        let output = Data((fragment ? rendered.body : rendered.xhtml).utf8)
        guard let outputDirectory else {
            FileHandle.standardOutput.write(output)
            return 0
        }
        let target = URL(fileURLWithPath: outputDirectory, isDirectory: true).appendingPathComponent(Self.outputName(for: file))
        do {
            try output.write(to: target, options: .atomic)
        } catch {
            Console.error("\(file): error: cannot write \(target.path): \(error.localizedDescription)")
            return LecternExit.runtime.rawValue
        }
        return 0
    }
}
