import ArgumentParser
import Foundation
import LecternCore
import LecternLLM
import LecternPipeline

/// Options shared by commands that read a spec.
struct SpecOptions: ParsableArguments {
    @Option(
        name: .customLong("presets"),
        help: ArgumentHelp(
            "Directory holding curriculum/, tone/ and exam/ presets, used alone (default: the built-in presets beside the lectern binary, then the nearest presets/ or pipelines/presets at or above the spec — or, with none there, above the current directory — which override them; docs/spec.md).",
            valueName: "DIR"))
    var presetsDirectory: String?

    @Option(
        name: .customLong("corpus-root"),
        help: ArgumentHelp(
            "A directory outside the spec's project that its corpus and imported files may be read from; repeatable. By default a spec reads files only inside its project: the nearest directory above it holding .git, else its own directory (links resolved).",
            valueName: "DIR"))
    var corpusRoots: [String] = []
}

/// Options shared by commands that use the exchange cache.
struct CacheOptions: ParsableArguments {
    @Option(
        name: .customLong("cache-dir"),
        help: ArgumentHelp(
            "Exchange cache directory (default: $LECTERN_CACHE_DIR, else $XDG_CACHE_HOME/lectern, else ~/.cache/lectern).", valueName: "DIR"))
    var cacheDirectory: String?

    @Option(
        name: .customLong("cassette"),
        help: ArgumentHelp("A recorded cassette (sorted JSONL) to answer from before the cache; repeatable.", valueName: "FILE"))
    var cassettes: [String] = []

    func root(_ environment: [String: String]) -> URL {
        cacheDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? ExchangeCache.defaultRoot(environment: environment)
    }

    func open(_ environment: [String: String], cassettes extra: [URL] = []) throws -> ExchangeCache {
        for cassette in cassettes where !FileManager.default.isReadableFile(atPath: cassette) {
            Console.error("error: the cassette \(cassette) (--cassette) does not exist or is not readable")
            throw LecternExit.usage
        }
        do {
            return try ExchangeCache(root: root(environment), cassettes: cassettes.map { URL(fileURLWithPath: $0) } + extra)
        } catch {
            Console.error("error: cannot open the exchange cache at \(root(environment).path): \(error)")
            throw LecternExit.runtime
        }
    }
}

/// Loading a spec with its presets, and making its provider.
enum JobSetup {
    static func loadSpec(_ path: String, options: SpecOptions) throws -> (JobSpec, PresetLibrary, URL) {
        try loadSpec(path, presetsDirectory: options.presetsDirectory, corpusRoots: options.corpusRoots)
    }

    static func loadSpec(_ path: String, presetsDirectory: String?, corpusRoots: [String] = []) throws -> (JobSpec, PresetLibrary, URL) {
        let url = URL(fileURLWithPath: path)
        do {
            var directories = PresetLibrary.locate(forSpecAt: url, override: presetsDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) })
            // The built-in presets beside the binary (installed, or the repository a build is in)
            // first; presets found above the spec come later, so they override them.
            if presetsDirectory == nil, let builtIn = Directories.builtInPresets()?.standardizedFileURL,
                !directories.contains(where: { $0.standardizedFileURL.path == builtIn.path })
            {
                directories.insert(builtIn, at: 0)
            }
            let presets = try PresetLibrary(directories: directories)
            let spec = try SpecLoader(presets: presets, allowedRoots: corpusRoots.map { URL(fileURLWithPath: $0, isDirectory: true) }).load(
                url, displayName: path)
            return (spec, presets, url)
        } catch let error as SpecError {
            Console.error(error.description)
            throw LecternExit.usage
        }
    }

    /// What `validate` and `run` both refuse before the first call, decided in one place: the
    /// spec as `loadSpec` reads it (every key, the corpus and imported files, where keys may go),
    /// then its job built as `run` builds it, then the provider and the speech set-up made from it
    /// as `run` makes them (nothing connects). Spec problems throw (printed, exit 2); what this
    /// machine lacks for the run (a key not set, espeak-ng not installed) is returned, for `run`
    /// to stop on and for `validate` to warn about: a spec is checked in CI without the keys.
    ///
    /// `run` uses what it made: the provider (not the local model's, made at its first cache miss)
    /// and the speech set-up, so nothing is made twice.
    static func preflight(
        spec: JobSpec, presets: PresetLibrary, specURL: URL, path: String, environment: [String: String], cache: CacheMode,
        events: any EngineEventSink = SilentEventSink(), cacheRoot: URL? = nil
    ) throws -> Preflight {
        let root = cacheRoot ?? FileManager.default.temporaryDirectory.appendingPathComponent("lectern-preflight-unused")
        let exchanger = Exchanger(providerKind: spec.model.provider.rawValue, provider: nil, cache: try ExchangeCache(root: root), mode: .offline)
        do {
            try JobRunner(spec: spec, presets: presets, exchanger: exchanger, renderer: nil, events: SilentEventSink()).prepare()
        } catch let error as SpecError {
            Console.error(error.description)
            throw LecternExit.usage
        } catch let error as LLMError {
            Console.error("\(path): error: \(error.message)")
            throw LecternExit.usage
        }
        var made = Preflight()
        // `run` makes a provider only when it may call one; the local model's is made at the
        // first cache miss (installing it is `lectern models install`'s business).
        if cache == .record || cache == .off, spec.model.provider != .local {
            do {
                made.provider = try makeProvider(
                    spec: spec, specURL: specURL, environment: environment, events: events, batchJournal: root.appendingPathComponent("batches"))
            } catch let error as LLMError {
                let message = error.message
                guard error.kind == .authentication || error.kind == .unavailable else {
                    Console.error("\(path): error: \(message)")
                    throw LecternExit.usage
                }
                made.problems.append(MachineProblem(message: message, exit: LecternExit.provider))
            }
        }
        if let course = spec.course, course.addons.narration {
            do {
                made.speech = try makeSpeech(course.speech, language: spec.language, cacheRoot: root, offline: cache == .offline, environment: environment)
            } catch let error as SpeechVoiceError {
                Console.error("\(path): error: \(error.message)")
                throw LecternExit.usage
            } catch {
                made.problems.append(MachineProblem(message: "\(error)", exit: LecternExit.provider))
            }
        }
        return made
    }

    /// What `preflight` found and made.
    struct Preflight {
        /// What this machine lacks for the run; empty when nothing.
        var problems: [MachineProblem] = []
        var provider: (any LLMProvider)?
        var speech: SpeechSetup?
    }

    /// The spec's recorded cassette, `cassettes/<id>.jsonl` in the nearest directory above the
    /// spec that has one (or `pipelines/cassettes/`, as in this repository): what `--cache replay`
    /// and `--cache offline` answer from when no `--cassette` is given.
    static func recordedCassette(id: String, specAt spec: URL) -> URL? {
        Directories.ancestors(of: spec.deletingLastPathComponent())
            .lazy.flatMap { directory in ["cassettes", "pipelines/cassettes"].map { directory.appendingPathComponent("\($0)/\(id).jsonl") } }
            .first { FileManager.default.isReadableFile(atPath: $0.path) }
    }

    /// The provider for a spec. Created lazily by the exchanger's first cache miss, so a fully
    /// cached run never starts a local model or opens a connection.
    static func makeProvider(
        spec: JobSpec, specURL: URL, environment: [String: String], events: any EngineEventSink, batchJournal: URL? = nil
    ) throws -> any LLMProvider {
        let model = spec.model
        switch model.provider {
        case .scripted:
            guard let script = model.script else { throw LLMError(.invalidRequest, "the scripted provider needs model.script") }
            let url = script.hasPrefix("/") ? URL(fileURLWithPath: script) : specURL.deletingLastPathComponent().appendingPathComponent(script)
            return try ScriptedProvider(scriptAt: url, maxConcurrency: model.maxConcurrency)
        default:
            return try ProviderSetup.make(spec: spec, environment: environment, events: events, batchJournal: batchJournal)
        }
    }
}

/// Defers creating the real provider until it is first needed.
final class LazyProvider: LLMProvider, @unchecked Sendable {
    // @unchecked: `provider` is only touched under `lock`.
    let kind: String
    let maxConcurrency: Int
    private let make: @Sendable () throws -> any LLMProvider
    private let lock = NSLock()
    private var provider: (any LLMProvider)?

    init(kind: String, maxConcurrency: Int, make: @escaping @Sendable () throws -> any LLMProvider) {
        self.kind = kind
        self.maxConcurrency = maxConcurrency
        self.make = make
    }

    func resolve() throws -> any LLMProvider {
        lock.lock()
        defer { lock.unlock() }
        if let provider { return provider }
        let made = try make()
        provider = made
        return made
    }

    func complete(_ request: LLMRequest, context: RequestContext) async throws -> LLMResponse {
        try await resolve().complete(request, context: context)
    }

    /// Stops what the provider started (the local model server), if it was ever made.
    func shutdown() async {
        let made = lock.withLock { provider }
        if let stoppable = made as? any ShutdownableProvider { await stoppable.shutdown() }
    }
}

extension CacheMode: ExpressibleByArgument {}
extension LogFormat: ExpressibleByArgument {}

extension JobSetup {
    /// The speech provider for the `narration` add-on, from the spec's `speech` mapping.
    static func makeSpeech(
        _ speech: SpeechSpec, language: String, cacheRoot: URL, offline: Bool, environment: [String: String]
    ) throws -> SpeechSetup {
        switch speech.provider {
        case .espeak:
            guard let espeak = EspeakSpeechProvider(environment: environment) else {
                throw SpeechError("the narration add-on speaks with espeak-ng, which is not installed: apt install espeak-ng opus-tools")
            }
            let voice = speech.voice ?? EspeakSpeechProvider.defaultVoice(language: language)
            guard espeak.voices.contains(voice.lowercased()) else {
                throw SpeechVoiceError(
                    message: "espeak-ng has no voice '\(voice)' ('speech.voice'); `espeak-ng --voices` lists them (for example en-us, en-gb, ar)")
            }
            return SpeechSetup(provider: espeak, voice: voice, cacheDirectory: cacheRoot, offline: offline, bitrate: speech.bitrate)
        case .openai:
            // The key follows the model providers' rule (CredentialPolicy): the default variables
            // only to OpenAI's own host, a custom base_url only the variable speech.api_key_env
            // names, never over plain http to another machine. Offline, the audio comes from the
            // cache and no key is read.
            let provider = try OpenAISpeechProvider(
                model: speech.model ?? "tts-1", baseURL: speech.baseURL, keyVariable: speech.apiKeyEnv, environment: environment,
                client: CurlHTTPClient(), requireKey: !offline)
            return SpeechSetup(provider: provider, voice: speech.voice ?? "alloy", cacheDirectory: cacheRoot, offline: offline, bitrate: speech.bitrate)
        }
    }
}

/// Something this machine lacks for a run of a valid spec (a key not set, a program not
/// installed): `run` stops on it with `exit`; `validate` warns.
struct MachineProblem {
    var message: String
    var exit: ExitCode
}

/// A `speech.voice` the provider does not have: a spec error (exit 2), not a provider failure.
struct SpeechVoiceError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
