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

    static func make(spec: JobSpec, environment: [String: String], events: any EngineEventSink) throws -> any LLMProvider {
        let forward: ProviderEventSink = { event in
            if event.kind == .receiving, let tokens = event.receivedTokens {
                events.emit(.receiving(id: event.itemID ?? "-", tokens: tokens))
            } else {
                events.emit(.provider(id: event.itemID ?? "-", message: event.message))
            }
        }
        switch spec.model.provider {
        case .openai, .anthropic:
            return try ProviderFactory.make(configuration(spec.model), environment: environment, events: forward)
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
}
