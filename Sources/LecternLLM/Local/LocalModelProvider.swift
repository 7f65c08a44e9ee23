import Foundation

/// A provider that holds a resource (a server process) to release at the end of a run.
public protocol ShutdownableProvider: Sendable {
    /// Releases the resource; safe to call more than once and when it was never started.
    func shutdown() async
}

/// The `local` provider: the embedded llama.cpp server with a model from ``LocalModelCatalog``.
///
/// The server starts on the first ``complete(_:context:)`` (once, however many requests
/// arrive together), so a fully cached run never starts it; requests then go to an
/// ``OpenAICompatibleProvider`` at the server's loopback URL, with the schema sent as
/// llama.cpp's `response_format: {type: json_object, schema}` (grammar-constrained JSON).
/// A failed start is remembered: later requests fail at once with the same error instead of
/// each paying for another start. Call ``shutdown()`` at the end of the run.
public final class LocalModelProvider: LLMProvider, ShutdownableProvider, CustomStringConvertible {
    public let kind = "local"
    public let maxConcurrency: Int
    /// The model served.
    public let modelName: String
    /// The server process (not started until the first request).
    public let server: LocalModelServer
    private let session: Session

    /// Creates a provider over `server`; `configuration` is the OpenAI-compatible client's
    /// (its `baseURL` is replaced by the server's). `status` receives one line when the server
    /// starts and when it is ready, for the console.
    public init(
        modelName: String, server: LocalModelServer, configuration: ProviderConfiguration, runtime: ProviderRuntime,
        status: (@Sendable (String) -> Void)? = nil
    ) {
        self.modelName = modelName
        self.maxConcurrency = configuration.maxConcurrency
        self.server = server
        self.session = Session(server: server, configuration: configuration, runtime: runtime, status: status)
    }

    public var description: String { "LocalModelProvider(model: \(modelName), server: \(server.baseURL?.absoluteString ?? "not running"))" }

    public func complete(_ request: LLMRequest, context: RequestContext) async throws -> LLMResponse {
        let provider = try await session.provider()
        return try await provider.complete(request, context: context)
    }

    /// Starts the server now instead of on the first request (e.g. to measure start-up).
    public func warmUp() async throws {
        _ = try await session.provider()
    }

    /// Stops the server (SIGTERM, then SIGKILL after the grace period); later requests fail.
    public func shutdown() async {
        await session.shutdown()
    }

    /// Starts the server once and hands out the client for it.
    private actor Session {
        enum Phase {
            case idle
            case starting(Task<OpenAICompatibleProvider, any Error>)
            case ready(OpenAICompatibleProvider)
            case failed(any Error)
            case shutDown
        }

        let server: LocalModelServer
        let configuration: ProviderConfiguration
        let runtime: ProviderRuntime
        let status: (@Sendable (String) -> Void)?
        var phase = Phase.idle

        init(
            server: LocalModelServer, configuration: ProviderConfiguration, runtime: ProviderRuntime,
            status: (@Sendable (String) -> Void)?
        ) {
            self.server = server
            self.configuration = configuration
            self.runtime = runtime
            self.status = status
        }

        func provider() async throws -> OpenAICompatibleProvider {
            switch phase {
            case .ready(let provider): return provider
            case .failed(let error): throw error
            case .shutDown:
                throw LLMError(.cancelled, "the local model server (\(server.displayName)) was shut down; the run is ending")
            case .starting(let task): return try await task.value
            case .idle:
                let task = Task { try await self.start() }
                phase = .starting(task)
                do {
                    let provider = try await task.value
                    if case .starting = phase { phase = .ready(provider) }
                    return provider
                } catch {
                    if case .starting = phase { phase = .failed(error) }
                    throw error
                }
            }
        }

        private func start() async throws -> OpenAICompatibleProvider {
            let clock = ContinuousClock()
            let began = clock.now
            status?("starting the local model server (\(server.displayName))…")
            let baseURL = try await server.start()
            let elapsed = (clock.now - began).components
            let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            status?("local model server (\(server.displayName)) ready at \(baseURL.absoluteString) after \(String(format: "%.1f", seconds)) s")
            var configuration = configuration
            configuration.baseURL = baseURL
            configuration.apiKeyEnvironmentVariable = nil
            // An empty environment: no key of another provider is ever sent, even to loopback.
            return try OpenAICompatibleProvider(configuration: configuration, environment: [:], runtime: runtime)
        }

        func shutdown() async {
            if case .starting(let task) = phase { task.cancel() }
            phase = .shutDown
            await server.stop()
        }
    }
}

/// Makes the `local` provider for the CLI.
public enum LocalProviderFactory {
    /// The context one request gets: enough for the prompt plus twice the answer budget, at
    /// least 8192 tokens, at most 32768 (Qwen2.5-Coder's trained context).
    public static func contextLength(maxTokens: Int) -> Int {
        let wanted = max(8_192, 2 * max(maxTokens, 0) + 4_096)
        return min(32_768, (wanted + 1_023) / 1_024 * 1_024)
    }

    /// The server's threads: `$LECTERN_LOCAL_THREADS` when set to a positive number, else one per
    /// core. llama.cpp's threads wait for each other at every step, so when other busy processes
    /// share the cores, fewer threads than cores can be faster.
    public static func threadCount(environment: [String: String]) -> Int {
        if let text = environment["LECTERN_LOCAL_THREADS"], let value = Int(text.trimmingCharacters(in: .whitespaces)), value > 0 {
            return value
        }
        return max(1, ProcessInfo.processInfo.activeProcessorCount)
    }

    /// Makes the provider for `model` (a ``LocalModelCatalog`` name); the server starts on the
    /// first request. Throws ``LLMError`` (`.invalidRequest`) when the model is unknown or not
    /// installed, saying how to install it. The result conforms to ``ShutdownableProvider``:
    /// call `shutdown()` when the run ends, also after errors and Ctrl-C.
    public static func make(
        model: String, maxConcurrency: Int, maxTokens: Int, environment: [String: String],
        events: @escaping ProviderEventSink, status: (@Sendable (String) -> Void)? = nil
    ) throws -> LocalModelProvider {
        let catalog = LocalModelCatalog(environment: environment)
        let entry = try catalog.installedModel(named: model)
        let runtime = ProviderRuntime(events: events)
        let context = contextLength(maxTokens: maxTokens)
        let threads = threadCount(environment: environment)
        let server = LocalModelServer(
            command: catalog.serverCommand(for: entry, contextLength: context, threads: threads),
            displayName: entry.name,
            options: LocalModelServer.Options(
                logFile: catalog.logsDirectory.appendingPathComponent("server-\(getpid()).log")),
            httpClient: runtime.httpClient)
        return LocalModelProvider(
            modelName: entry.name, server: server,
            configuration: configuration(model: entry.name, maxConcurrency: maxConcurrency, maxTokens: maxTokens, contextLength: context),
            runtime: runtime, status: status)
    }

    /// The OpenAI-compatible client's settings for a local server (the base URL is filled in
    /// when the server is up).
    public static func configuration(
        model: String, maxConcurrency: Int, maxTokens: Int, contextLength: Int
    )
        -> ProviderConfiguration
    {
        ProviderConfiguration(
            kind: "openai", model: model, maxConcurrency: max(1, maxConcurrency),
            // The server answers one request at a time on a CPU: a queued request can wait for
            // several long answers before its own.
            connectTimeoutSeconds: 5, requestTimeoutSeconds: 3_600, maxRetries: 1,
            schemaMode: .jsonObjectWithSchema,
            maxTokensCeiling: max(maxTokens, min(maxTokens * 4, contextLength - 2_048)), defaultMaxTokens: maxTokens,
            maxTokensParameter: "max_tokens")
    }
}
