import ArgumentParser
import Foundation
import LecternRender

/// `lectern render FILE.md`: Markdown + math → a sanitized XHTML document on standard output.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a Markdown file with math to a sanitized XHTML + MathML document on standard output.",
        discussion:
            "Warnings (e.g. unknown TeX commands, shown as merror in the output) go to standard error. Exit 1 when the document cannot be rendered, 2 when the file cannot be read."
    )

    @Argument(help: ArgumentHelp("The Markdown file; '-' reads standard input.", valueName: "FILE.md"))
    var file: String

    @Option(help: ArgumentHelp("Language tag of the text: sets lang, and dir=\"rtl\" for right-to-left languages such as ar.", valueName: "TAG"))
    var language: String = "en"

    @Option(help: ArgumentHelp("The document title (default: the file name).", valueName: "TEXT"))
    var title: String?

    @Flag(help: "Print only the sanitized body fragment, not a whole document.")
    var fragment = false

    func run() throws {
        let data: Data?
        if file == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            data = FileManager.default.contents(atPath: file)
        }
        guard let data else {
            Console.error("error: cannot read \(file): it does not exist or is not readable")
            throw LecternExit.usage
        }
        guard let markdown = String(data: data, encoding: .utf8) else {
            Console.error("error: \(file) is not UTF-8 text")
            throw LecternExit.usage
        }
        do {
            let name = file == "-" ? "document" : URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
            let rendered = try MarkdownRenderer().render(markdown, language: language, title: title ?? name)
            for warning in rendered.warnings { Console.error("\(file): warning: \(warning)") }
            FileHandle.standardOutput.write(Data((fragment ? rendered.body : rendered.xhtml).utf8))
        } catch {
            Console.error("\(file): error: \(error)")
            throw LecternExit.itemsFailed
        }
    }
}
