import ArgumentParser
import Foundation
import LecternCore
import LecternRender

/// `lectern render FILE.md…`: Markdown + math → sanitized XHTML documents, on standard output
/// (one file) or into a directory (any number, in one process).
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render Markdown files with math to sanitized XHTML + MathML documents, and geometry figures to SVG.",
        discussion: """
            With one file and no --output-dir, the document goes to standard output. With \
            --output-dir, every FILE.md becomes DIR/FILE.xhtml (written atomically), so a batch \
            renders in one process. Warnings (e.g. unknown TeX commands, shown as merror in the \
            output) go to standard error as FILE: warning: …. A file that cannot be read or \
            rendered is reported and the others still render. Exit 0 when all rendered, 1 when a \
            document could not be rendered, 2 when a file cannot be read or the arguments do not \
            fit, 5 when an output file cannot be written; the worst applies.

            A geometry figure (FILE.figure.json, the object an exam item's "figure" holds, \
            with an optional "stem") is checked the way the exam kind checks it, given lengths \
            and angles against the coordinates, the stem's points, the alt text, and drawn as \
            the SVG a bundle would carry (DIR/FILE.svg), or its problems are reported (exit 1).
            """)

    @Argument(
        help: ArgumentHelp(
            "Markdown files; '-' reads standard input (to standard output only). A FILE.figure.json is a geometry figure: it is checked and drawn as FILE.svg.",
            valueName: "FILE.md"))
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
        if file.hasSuffix(figureSuffix) {
            return String(URL(fileURLWithPath: file).lastPathComponent.dropLast(figureSuffix.count)) + ".svg"
        }
        return URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent + ".xhtml"
    }

    static let figureSuffix = ".figure.json"

    /// Checks a figure file and draws it: the SVG, or the problems that stop it being drawn.
    func drawFigure(_ data: Data, file: String) -> (svg: Data?, exit: Int32) {
        // A geometry figure as an exam item's `figure` holds it (docs/spec.md, "Figures"), with an
        // optional `stem` whose points it must draw.
        let figure: DescribedFigure
        do {
            figure = try JSONDecoder().decode(DescribedFigure.self, from: data)
        } catch {
            Console.error("\(file): error: not a figure: \(BankLint.describe(error)); see docs/spec.md, \"Figures\"")
            return (nil, LecternExit.usage.rawValue)
        }
        let problems = figure.geometry.problems(stem: figure.stem ?? "", alt: figure.alt)
        for problem in problems { Console.error("\(file): error: \(problem)") }
        guard problems.isEmpty else { return (nil, LecternExit.itemsFailed.rawValue) }
        let svg = GeometryFigureDrawing.svg(figure.geometry, alt: figure.alt, language: language)
        let unsafe = SVGSafety.problems(in: svg)
        for problem in unsafe { Console.error("\(file): error: the drawing is not safe to ship: \(problem)") }
        return unsafe.isEmpty ? (Data(svg.utf8), 0) : (nil, LecternExit.itemsFailed.rawValue)
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
        if file.hasSuffix(Self.figureSuffix) {
            let (svg, exit) = drawFigure(data, file: file)
            guard let svg else { return exit }
            return write(svg, for: file)
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
        return write(Data((fragment ? rendered.body : rendered.xhtml).utf8), for: file)
    }

    /// Writes one file's output to standard output or into the output directory.
    func write(_ output: Data, for file: String) -> Int32 {
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
