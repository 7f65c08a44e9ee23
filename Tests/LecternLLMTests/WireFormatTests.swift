import Foundation
import Testing

@testable import LecternLLM

@Suite("Wire formats and structured-output modes")
struct WireFormatTests {
    @Test("llama.cpp mode sends response_format json_object with the schema")
    func llamaCppSchema() async throws {
        let server = try LoopbackServer(replies: [Flavor.openai.answer(text: #"{"title":"Loops","minutes":5}"#)])
        let rig = TestRig()
        var configuration = Flavor.openai.configuration(server, schemaMode: .jsonObjectWithSchema)
        configuration.apiKeyEnvironmentVariable = nil
        let provider = try ProviderFactory.make(configuration, environment: [:], runtime: rig.runtime)
        let response = try await provider.complete(simpleRequest(.openai, schema: lectureSchema), context: testContext)
        #expect(try JSONValue.parse(response.content) == ["title": "Loops", "minutes": 5])
        let received = try #require(server.requests.first)
        #expect(received.json?["response_format"] == ["type": "json_object", "schema": lectureSchema.schema])
        // A local server at a custom base URL needs no key, and none is sent.
        #expect(received.headers["authorization"] == nil)
    }

    @Test("prompt mode puts the schema in the system message and extracts the JSON from prose")
    func promptMode() async throws {
        let prose = "Sure! Here it is:\n```json\n{\"title\": \"Loops\", \"minutes\": 5}\n```\nEnjoy."
        let server = try LoopbackServer(replies: [Flavor.openai.answer(text: prose)])
        let rig = TestRig()
        let provider = try Flavor.openai.provider(Flavor.openai.configuration(server, schemaMode: .prompt), rig: rig)
        let response = try await provider.complete(simpleRequest(.openai, schema: lectureSchema), context: testContext)
        #expect(response.content == #"{"minutes":5,"title":"Loops"}"#)
        let body = try #require(server.requests.first?.json)
        #expect(body["response_format"] == nil)
        let system = try #require(body["messages"]?.arrayValue?.first?["content"]?.stringValue)
        #expect(system.hasPrefix("You are a teacher."))
        #expect(system.contains(lectureSchema.schema.schemaOrderedText))
    }

    @Test("api.openai.com gets max_completion_tokens; other servers max_tokens; override wins")
    func maxTokensField() throws {
        let environment = ["OPENAI_API_KEY": "k"]
        let official = try OpenAICompatibleProvider(
            configuration: ProviderConfiguration(kind: "openai", model: "gpt-4o"), environment: environment)
        #expect(official.body(for: simpleRequest(.openai), maxTokens: 50)["max_completion_tokens"] == 50)
        #expect(official.endpoint.absoluteString == "https://api.openai.com/v1/chat/completions")

        let local = try OpenAICompatibleProvider(
            configuration: ProviderConfiguration(kind: "openai", model: "qwen", baseURL: URL(string: "http://127.0.0.1:8080/v1")),
            environment: [:])
        #expect(local.body(for: simpleRequest(.openai), maxTokens: 50)["max_tokens"] == 50)
        #expect(local.body(for: simpleRequest(.openai), maxTokens: nil)["max_tokens"] == nil)

        let overridden = try OpenAICompatibleProvider(
            configuration: ProviderConfiguration(kind: "openai", model: "gpt-4o", maxTokensParameter: "max_tokens"),
            environment: environment)
        #expect(overridden.body(for: simpleRequest(.openai), maxTokens: 50)["max_tokens"] == 50)
    }

    @Test("frequency_penalty is sent when the spec sets it, and is part of the cache key")
    func frequencyPenalty() throws {
        let local = try OpenAICompatibleProvider(
            configuration: ProviderConfiguration(kind: "openai", model: "qwen", baseURL: URL(string: "http://127.0.0.1:8080/v1")),
            environment: [:])
        var request = simpleRequest(.openai)
        #expect(local.body(for: request, maxTokens: 50)["frequency_penalty"] == nil)
        let plain = ExchangeKeyMaterial(provider: "local", request: request, promptTemplate: "t@1", variant: nil).key
        request.frequencyPenalty = 0.5
        #expect(local.body(for: request, maxTokens: 50)["frequency_penalty"] == 0.5)
        #expect(ExchangeKeyMaterial(provider: "local", request: request, promptTemplate: "t@1", variant: nil).key != plain)
    }

    @Test("schema names are made acceptable to the APIs")
    func schemaNames() {
        #expect(OpenAICompatibleProvider.schemaName("course outline/v2") == "course_outline_v2")
        #expect(OpenAICompatibleProvider.schemaName("") == "answer")
        #expect(OpenAICompatibleProvider.schemaName(String(repeating: "a", count: 100)).count == 64)
    }

    @Test("Anthropic merges system messages and neighbouring turns of one role; max_tokens is always sent")
    func anthropicShape() throws {
        let provider = try AnthropicProvider(
            configuration: ProviderConfiguration(kind: "anthropic", model: "claude-haiku-4-5"),
            environment: ["ANTHROPIC_API_KEY": "k"])
        let request = LLMRequest(
            model: "claude-haiku-4-5",
            messages: [.system("A"), .user("one"), .user("two"), .assistant("ok"), .system("B"), .user("three")])
        let body = provider.body(for: request, maxTokens: 4096)
        #expect(body["system"] == "A\n\nB")
        #expect(
            body["messages"] == [
                ["role": "user", "content": "one\n\ntwo"], ["role": "assistant", "content": "ok"],
                ["role": "user", "content": "three"],
            ])
        #expect(body["max_tokens"] == 4096)
        #expect(body["tools"] == nil)
        #expect(provider.endpoint.absoluteString == "https://api.anthropic.com/v1/messages")
    }

    @Test("OpenAI refusals and content filters are not complete answers")
    func refusal() async throws {
        let server = try LoopbackServer(replies: [
            .json(
                200,
                #"{"choices":[{"message":{"role":"assistant","content":null,"refusal":"I can't help."},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}"#
            )
        ])
        let provider = try Flavor.openai.provider(Flavor.openai.configuration(server), rig: TestRig())
        let response = try await provider.complete(simpleRequest(.openai), context: testContext)
        #expect(response.finishReason == .contentFilter)
        #expect(response.content == "I can't help.")
    }

    @Test("a 200 that is not the API's JSON is a malformed-response error", arguments: Flavor.allCases)
    func malformed(flavor: Flavor) async throws {
        let server = try LoopbackServer(replies: [.json(200, "<html>proxy login</html>")])
        let provider = try flavor.provider(flavor.configuration(server), rig: TestRig())
        let error = await #expect(throws: LLMError.self) {
            _ = try await provider.complete(simpleRequest(flavor), context: testContext)
        }
        #expect(error?.kind == .malformedResponse)
        #expect(error?.message.contains("lecture/s01-t01") == true)
    }

    @Test("the factory rejects unknown kinds with the known ones")
    func unknownKind() {
        let error = #expect(throws: LLMError.self) {
            _ = try ProviderFactory.make(ProviderConfiguration(kind: "gemini", model: "x"), environment: [:], events: { _ in })
        }
        #expect(error?.message.contains("'gemini'") == true)
        #expect(error?.message.contains("openai, anthropic") == true)
    }

    @Test("configuration decodes with defaults and round-trips")
    func configurationCodable() throws {
        let decoded = try JSONDecoder().decode(
            ProviderConfiguration.self,
            from: Data(#"{"kind":"openai","model":"qwen","baseURL":"http://127.0.0.1:8080/v1","schemaMode":"json_object_schema"}"#.utf8))
        #expect(decoded.maxRetries == 3)
        #expect(decoded.maxConcurrency == 4)
        #expect(decoded.schemaMode == .jsonObjectWithSchema)
        #expect(decoded.maxTokensCeiling == 16384)
        let again = try JSONDecoder().decode(ProviderConfiguration.self, from: JSONEncoder().encode(decoded))
        #expect(again == decoded)
    }
}
