import Foundation

/// Makes the provider a configuration names.
public enum ProviderFactory {
    /// The kinds `make` knows.
    public static let knownKinds = ["openai", "anthropic"]

    /// Makes a provider with its own HTTP client and the real clocks; events go to `events`.
    /// Throws ``LLMError`` when the kind is unknown or a required key is missing (naming the
    /// environment variable to set).
    public static func make(
        _ configuration: ProviderConfiguration, environment: [String: String], events: @escaping ProviderEventSink
    ) throws -> any LLMProvider {
        try make(configuration, environment: environment, runtime: ProviderRuntime(events: events))
    }

    /// Makes a provider with the given runtime (shared HTTP client, test clocks).
    public static func make(
        _ configuration: ProviderConfiguration, environment: [String: String], runtime: ProviderRuntime
    ) throws -> any LLMProvider {
        switch configuration.kind {
        case "openai":
            return try OpenAICompatibleProvider(configuration: configuration, environment: environment, runtime: runtime)
        case "anthropic":
            return try AnthropicProvider(configuration: configuration, environment: environment, runtime: runtime)
        // Extension point: "scripted" and "local" providers are added here as further cases.
        default:
            throw LLMError(
                .invalidRequest,
                "Unknown provider kind '\(configuration.kind)' for model \(configuration.model): use one of "
                    + knownKinds.joined(separator: ", ") + ".")
        }
    }
}
