import Foundation
import LecternCore
import LecternLLM
import LecternPipeline

/// Real providers (OpenAI-compatible, Anthropic, local) from a spec's model section.
enum ProviderSetup {
    static func make(spec: JobSpec, environment: [String: String], events: any EngineEventSink) throws -> any LLMProvider {
        throw LLMError(.invalidRequest, "the '\(spec.model.provider)' provider is not available in this build yet; use 'provider: scripted' or '--cache offline' with a cassette")
    }
}
