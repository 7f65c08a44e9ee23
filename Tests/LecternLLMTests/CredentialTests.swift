import Foundation
import Testing

@testable import LecternLLM

/// Where keys go: a loopback listener records every header it receives.
@Suite("Credentials go only where they belong")
struct CredentialTests {
    /// A configuration for `server` that names no key variable (as a shared spec with only
    /// `base_url` would).
    func unnamedKey(_ flavor: Flavor, _ server: LoopbackServer) -> ProviderConfiguration {
        var configuration = flavor.configuration(server)
        configuration.apiKeyEnvironmentVariable = nil
        return configuration
    }

    @Test("a custom base URL gets no key from the default variable", arguments: Flavor.allCases)
    func defaultKeyStaysHome(flavor: Flavor) async throws {
        let server = try LoopbackServer(replies: [flavor.answer()])
        defer { server.stop() }
        let provider = try flavor.provider(unnamedKey(flavor, server), rig: TestRig(), environment: flavor.environment)
        let response = try await provider.complete(simpleRequest(flavor), context: testContext)
        #expect(response.content == "Hello there.")
        let received = try #require(server.requests.first)
        #expect(received.headers["authorization"] == nil)
        #expect(received.headers["x-api-key"] == nil)
        #expect(!received.headers.fields.contains { $0.value.contains(Flavor.sentinelKey) })
    }

    @Test("a key variable the configuration names is sent to loopback over http", arguments: Flavor.allCases)
    func namedKeyToLoopback(flavor: Flavor) async throws {
        let server = try LoopbackServer(replies: [flavor.answer()])
        defer { server.stop() }
        var configuration = flavor.configuration(server)
        configuration.apiKeyEnvironmentVariable = "LOCAL_SERVER_KEY"
        let provider = try flavor.provider(configuration, rig: TestRig(), environment: ["LOCAL_SERVER_KEY": "sk-local-1"])
        _ = try await provider.complete(simpleRequest(flavor), context: testContext)
        let received = try #require(server.requests.first)
        switch flavor {
        case .openai: #expect(received.headers["authorization"] == "Bearer sk-local-1")
        case .anthropic: #expect(received.headers["x-api-key"] == "sk-local-1")
        }
    }

    @Test("the default variable goes to the provider's own host, over https", arguments: Flavor.allCases)
    func defaultKeyToOwnHost(flavor: Flavor) throws {
        for base in [nil, flavor == .openai ? "https://api.openai.com/v1" : "https://api.anthropic.com/v1"] {
            let configuration = ProviderConfiguration(kind: flavor.rawValue, model: flavor.model, baseURL: base.flatMap(URL.init(string:)))
            let headers = try wireHeaders(flavor, configuration, environment: flavor.environment)
            #expect(headers.fields.contains { $0.value.contains(Flavor.sentinelKey) }, "base \(base ?? "default")")
        }
        // The same key, the same variable, another host: not sent.
        let proxy = ProviderConfiguration(kind: flavor.rawValue, model: flavor.model, baseURL: URL(string: "https://proxy.example.invalid/v1"))
        let headers = try wireHeaders(flavor, proxy, environment: flavor.environment)
        #expect(!headers.fields.contains { $0.value.contains(Flavor.sentinelKey) })
    }

    @Test("a key is never sent over plain http to another machine", arguments: Flavor.allCases)
    func noKeyOverPlainHTTP(flavor: Flavor) throws {
        let configuration = ProviderConfiguration(
            kind: flavor.rawValue, model: flavor.model, baseURL: URL(string: "http://models.example.invalid/v1"),
            apiKeyEnvironmentVariable: flavor.keyVariable)
        let error = try #require(throws: LLMError.self) {
            try flavor.provider(configuration, rig: TestRig(), environment: flavor.environment)
        }
        #expect(error.kind == .invalidRequest)
        #expect(error.message.contains("plain http") && error.message.contains(flavor.keyVariable))
        #expect(!error.message.contains(Flavor.sentinelKey))
        // With no key named, the same server is fine: nothing secret goes there.
        var keyless = configuration
        keyless.apiKeyEnvironmentVariable = nil
        let headers = try wireHeaders(flavor, keyless, environment: flavor.environment)
        #expect(!headers.fields.contains { $0.value.contains(Flavor.sentinelKey) })
    }

    @Test("a redirect is not followed, so the key never reaches the other host", arguments: Flavor.allCases)
    func redirectsCarryNothing(flavor: Flavor) async throws {
        let elsewhere = try LoopbackServer(replies: [flavor.answer()])
        defer { elsewhere.stop() }
        let server = try LoopbackServer(replies: [.redirect(to: elsewhere.baseURL.appendingPathComponent(String(flavor.path.dropFirst())).absoluteString)])
        defer { server.stop() }
        let provider = try flavor.provider(flavor.configuration(server), rig: TestRig())
        await #expect(throws: LLMError.self) {
            _ = try await provider.complete(simpleRequest(flavor), context: testContext)
        }
        #expect(server.requests.count == 1)
        #expect(elsewhere.requests.isEmpty)
        #expect(elsewhere.connectionsAccepted == 0)
    }

    @Test(
        "loopback hosts",
        arguments: [
            ("127.0.0.1", true), ("127.1.2.3", true), ("localhost", true), ("api.localhost", true), ("::1", true), ("[::1]", true),
            ("LOCALHOST", true), ("128.0.0.1", false), ("127.0.0.1.example.com", false), ("10.0.0.2", false), ("192.168.1.4", false),
            ("localhost.example.com", false), ("127.0.0.256", false), ("", false), ("0.0.0.0", false),
        ])
    func loopback(host: String, expected: Bool) {
        #expect(CredentialPolicy.isLoopback(host) == expected)
    }

    /// The headers the provider would send, without sending.
    func wireHeaders(_ flavor: Flavor, _ configuration: ProviderConfiguration, environment: [String: String]) throws -> HTTPHeaders {
        switch flavor {
        case .openai:
            let provider = try OpenAICompatibleProvider(configuration: configuration, environment: environment)
            return try provider.httpRequest(for: simpleRequest(flavor), maxTokens: 10).headers
        case .anthropic:
            let provider = try AnthropicProvider(configuration: configuration, environment: environment)
            return try provider.httpRequest(for: simpleRequest(flavor), maxTokens: 10).headers
        }
    }
}
