import Foundation
import LecternCore
import LecternLLM
import LecternPipeline

/// Real providers (OpenAI-compatible, Anthropic, the local model) from a spec's model section.
enum ProviderSetup {
    /// The provider configuration a remote provider's `model:` section describes. Holds no secret.
    /// Timeouts the spec leaves out keep the configuration's defaults.
    static func configuration(_ model: ModelSpec) -> ProviderConfiguration {
        var configuration = ProviderConfiguration(
            kind: model.provider.rawValue, model: model.name, baseURL: model.baseURL.flatMap(URL.init(string:)),
            apiKeyEnvironmentVariable: model.apiKeyEnv, maxConcurrency: model.maxConcurrency,
            requestsPerMinute: model.requestsPerMinute, tokensPerMinute: model.tokensPerMinute, idleTimeoutSeconds: model.idleTimeoutSeconds,
            maxRetries: model.maxRetries, maxTokensCeiling: max(model.maxTokens * 4, 8_192), defaultMaxTokens: model.maxTokens,
            stream: model.streams)
        if let seconds = model.connectTimeoutSeconds { configuration.connectTimeoutSeconds = seconds }
        if let seconds = model.requestTimeoutSeconds { configuration.requestTimeoutSeconds = seconds }
        return configuration
    }

    static func make(spec: JobSpec, environment: [String: String], events: any EngineEventSink, batchJournal: URL? = nil) throws -> any LLMProvider {
        let forward: ProviderEventSink = { event in
            if event.kind == .receiving, let tokens = event.receivedTokens {
                events.emit(.receiving(id: event.itemID ?? "-", tokens: tokens))
            } else {
                events.emit(.provider(id: event.itemID ?? "-", message: event.message))
            }
        }
        switch spec.model.provider {
        case .openai, .anthropic:
            let runtime = ProviderRuntime(events: forward)
            let provider = try ProviderFactory.make(configuration(spec.model), environment: environment, runtime: runtime)
            guard spec.model.batch == true else { return provider }
            var options = BatchProvider.Options()
            // For tests and the mock server: seconds between status checks, the quiet moment before a round.
            if let seconds = environment["LECTERN_BATCH_POLL_SECONDS"].flatMap(Double.init), seconds > 0 {
                options.pollInterval = .milliseconds(Int(seconds * 1000))
                options.maxPollInterval = max(options.pollInterval, .milliseconds(Int(seconds * 4000)))
            }
            if let milliseconds = environment["LECTERN_BATCH_QUIET_MS"].flatMap(Int.init), milliseconds >= 0 {
                options.quietPeriod = .milliseconds(milliseconds)
            }
            guard let batched = BatchProvider.wrapping(provider, journalDirectory: batchJournal, options: options, runtime: runtime) else {
                throw LLMError(.invalidRequest, "\(spec.model.provider.rawValue) has no batch API; remove model.batch or --batch")
            }
            return batched
        case .local:
            return try LocalProviderFactory.make(
                model: spec.model.name, maxConcurrency: spec.model.maxConcurrency, maxTokens: spec.model.maxTokens,
                environment: environment, events: forward, status: { message in Console.error(message) })
        case .scripted:
            throw LLMError(.invalidRequest, "the scripted provider is made from its script file (JobSetup.makeProvider)")
        }
    }
}

/// Prices from the provider price table (built in, plus `$LECTERN_PRICE_TABLE` when set; see
/// docs/pricing.md).
enum PricingSetup {
    static let table: PriceTable = {
        if let path = ProcessInfo.processInfo.environment["LECTERN_PRICE_TABLE"], !path.isEmpty {
            do {
                return try PriceTable.builtInMerged(withFileAt: URL(fileURLWithPath: path))
            } catch {
                Console.error("warning: cannot read the price table \(path) (LECTERN_PRICE_TABLE): \(error); using the built-in prices")
            }
        }
        return PriceTable.builtIn
    }()

    static let cost: CostFunction = { provider, model, usage in
        table.cost(provider: provider, model: model, usage: usage)
    }

    /// The cost function of a run: batch runs at the batch price.
    static func cost(batch: Bool) -> CostFunction {
        guard batch else { return cost }
        return { provider, model, usage in table.cost(provider: provider, model: model, usage: usage).map { $0 * PriceTable.batchFactor } }
    }
}
