import ArgumentParser
import Foundation
import LecternLLM

/// `lectern models` (the providers and whether the local models are installed) and
/// `lectern models install [NAME]`.
struct ModelsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models",
        abstract: "Show the providers and local models; install a local model.",
        subcommands: [List.self, Install.self],
        defaultSubcommand: List.self)

    /// The installer's name under `scripts/`.
    static let installerName = "install-local-model.sh"

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "The local models (installed or not, where, how big) and the remote providers (whether their key variable is set).")

        func run() throws {
            let environment = ProcessInfo.processInfo.environment
            let catalog = LocalModelCatalog(environment: environment)
            Console.out("local (llama.cpp server on 127.0.0.1, started by a run when needed): \(catalog.root.path)")
            // One import check serves every model: they share the server.
            let importable = LocalModelCatalog.knownModels.first.flatMap {
                catalog.status(of: $0, checkServerImport: true).serverImportable
            }
            let server: String
            switch (FileManager.default.isExecutableFile(atPath: catalog.python.path), importable) {
            case (false, _): server = "not installed"
            case (true, false): server = "broken (llama_cpp.server does not import): reinstall with 'lectern models install'"
            default: server = "installed (\(catalog.virtualEnvironment.path))"
            }
            Console.out("  server: \(server)")
            for model in catalog.models {
                var status = catalog.status(of: model)
                status.serverImportable = importable
                let tag = model.name == LocalModelCatalog.defaultModelName ? " (default)" : ""
                Console.out("  \(model.name)\(tag): \(model.summary)")
                if status.modelFileComplete {
                    Console.out("      model: installed, \(megabytes(model.byteCount)), \(status.modelFile.path)")
                } else if let bytes = status.modelFileBytes {
                    Console.out("      model: incomplete (\(megabytes(bytes)) of \(megabytes(model.byteCount))), \(status.modelFile.path)")
                } else {
                    Console.out("      model: not installed (\(megabytes(model.byteCount)))")
                }
                if !status.isInstalled {
                    Console.out(
                        "      to install: lectern models install \(model.installerArgument) "
                            + "(about \(model.firstInstallMinutes) minutes the first time)")
                }
            }
            Console.out("remote:")
            for (kind, variable) in [
                ("openai", OpenAICompatibleProvider.defaultKeyVariable), ("anthropic", AnthropicProvider.defaultKeyVariable),
            ] {
                // Only whether the variable is set: never the key, not even a part of it.
                let set = !(environment[variable]?.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ?? true)
                Console.out("  \(kind): \(variable) is \(set ? "set" : "not set")")
            }
            Console.out("  (a spec may name another key variable with model.api_key_env)")
        }

        private func megabytes(_ bytes: Int64) -> String {
            String(format: "%.0f MB", Double(bytes) / 1_048_576)
        }
    }

    struct Install: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Install the llama.cpp server and a local model (runs scripts/\(ModelsCommand.installerName)).",
            discussion: """
                The script is looked for, in this order: --script PATH; scripts/\(ModelsCommand.installerName) \
                or share/lectern/\(ModelsCommand.installerName) in the directory of the lectern executable \
                (symbolic links resolved) or any directory above it; scripts/\(ModelsCommand.installerName) \
                in the current directory or any directory above it. Everything is installed under \
                $LECTERN_HOME, else $XDG_CACHE_HOME/lectern, else ~/.cache/lectern.
                """)

        @Argument(
            help: ArgumentHelp(
                "The model: \(LocalModelCatalog.knownModels.map(\.name).joined(separator: ", ")), or all.",
                valueName: "NAME"))
        var name: String = LocalModelCatalog.defaultModelName

        @Option(help: ArgumentHelp("The installer script to run instead of the one found next to lectern.", valueName: "PATH"))
        var script: String?

        func validate() throws {
            let known = LocalModelCatalog.knownModels.map(\.name)
            guard known.contains(name) || name == "all" else {
                throw ValidationError("unknown local model '\(name)': use one of \(known.joined(separator: ", ")), or all")
            }
            if let script, !FileManager.default.fileExists(atPath: script) {
                throw ValidationError("--script \(script): no such file")
            }
        }

        func run() throws {
            guard let installer = script.map({ URL(fileURLWithPath: $0) }) ?? ModelsCommand.locateInstaller() else {
                Console.error(
                    "error: cannot find scripts/\(ModelsCommand.installerName) next to the lectern executable or above "
                        + "the current directory (\(FileManager.default.currentDirectoryPath)): run this from the Lectern "
                        + "repository, or pass --script PATH.")
                throw LecternExit.usage
            }
            Console.out("running \(installer.path) \(name)")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = [installer.path, name]
            // Standard input, output and error are inherited: the script's progress streams as it runs.
            do {
                try process.run()
            } catch {
                Console.error("error: cannot run /bin/bash \(installer.path): \(error.localizedDescription)")
                throw ExitCode(1)
            }
            process.waitUntilExit()
            guard process.terminationReason == .exit, process.terminationStatus == 0 else {
                let how =
                    process.terminationReason == .exit
                    ? "exit status \(process.terminationStatus)" : "signal \(process.terminationStatus)"
                Console.error("error: the installer failed (\(how)); its messages are above.")
                throw process.terminationStatus == 2 ? LecternExit.usage : ExitCode(1)
            }
        }
    }

    /// The installer next to the executable (or above it), else above the current directory.
    static func locateInstaller(
        executable: URL? = Bundle.main.executableURL,
        currentDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    ) -> URL? {
        var candidates: [URL] = []
        if let executable {
            for directory in Directories.ancestors(of: executable.resolvingSymlinksInPath().deletingLastPathComponent()) {
                candidates.append(directory.appendingPathComponent("scripts/\(installerName)"))
                candidates.append(directory.appendingPathComponent("share/lectern/\(installerName)"))
            }
        }
        for directory in Directories.ancestors(of: currentDirectory) {
            candidates.append(directory.appendingPathComponent("scripts/\(installerName)"))
        }
        return candidates.first { FileManager.default.isReadableFile(atPath: $0.path) }
    }
}
