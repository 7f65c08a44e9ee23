import Foundation
import LecternLLM
import Yams

/// Reads job spec files into checked `JobSpec` values.
public struct SpecLoader: Sendable {
    public let presets: PresetLibrary
    /// Directories beyond the spec's project that its files may be read from (`--corpus-root`).
    public let allowedRoots: [URL]

    /// The spec reader of each kind this loader reads: `kindReaders`, and any a program adds
    /// for a kind of its own (`loader.readers[.glossary] = GlossarySpecReader.self`).
    public var readers: [JobKind: any JobKindSpecReader.Type] = SpecLoader.kindReaders

    public init(presets: PresetLibrary, allowedRoots: [URL] = []) {
        self.presets = presets
        self.allowedRoots = allowedRoots
    }

    /// The keys every kind shares, read once here.
    static let commonKeys = [
        "kind", "id", "version", "language", "description", "audience", "variant", "tone", "model", "budget", "repair", "review", "review_file",
    ]

    /// The spec reader of each kind that runs. A kind plugs in here and in LecternPipeline's
    /// `JobKinds`.
    public static let kindReaders: [JobKind: any JobKindSpecReader.Type] = [
        .course: CourseSpecReader.self,
        .exam: ExamSpecReader.self,
        .quotes: QuotesSpecReader.self,
        .flashcards: DeckSpecReader.self,
    ]

    /// Loads and checks the spec at `url`. Throws `SpecError` with every problem found.
    public func load(_ url: URL, displayName: String? = nil) throws -> JobSpec {
        let source = try YAMLSource.read(url, displayName: displayName)
        var spec = try load(source, baseDirectory: url.deletingLastPathComponent())
        // The review decisions beside the spec: `review_file:`, else `<spec name>.review.yaml`.
        if spec.reviewFile == nil {
            let stem = url.deletingPathExtension().lastPathComponent
            spec.reviewFile = url.deletingLastPathComponent().appendingPathComponent("\(stem).review.yaml").standardizedFileURL
        }
        return spec
    }

    /// Loads and checks a spec from its text; relative paths in it are resolved against
    /// `baseDirectory` (nil: the current directory).
    public func load(_ source: YAMLSource, baseDirectory: URL? = nil) throws -> JobSpec {
        let root = try source.compose()
        let reader = SpecReader(file: source.file)
        let spec = read(root, reader: reader, baseDirectory: baseDirectory)
        try reader.throwIfErrors()
        guard let spec else {
            throw SpecError(SpecDiagnostic(file: source.file, message: "the spec could not be read"))
        }
        return spec
    }

    func read(_ root: Node, reader: SpecReader, baseDirectory: URL? = nil) -> JobSpec? {
        // Read the kind first: it decides which other keys are allowed.
        guard case .mapping = root else {
            _ = reader.mapping(root, path: "", known: [])
            return nil
        }
        var kindReader: (any JobKindSpecReader.Type)?
        if let kindNode = root.mapping?["kind"] {
            let kindText = kindNode.string ?? ""
            let named = JobKind(rawValue: kindText)
            if JobKind.allCases.contains(named) || readers[named] != nil {
                if let found = readers[named] {
                    kindReader = found
                } else {
                    reader.report(
                        "kind '\(kindText)' is not supported by this version of Lectern yet", at: kindNode,
                        hint: "supported kinds: " + JobKind.supported.map(\.rawValue).joined(separator: ", "))
                    return nil
                }
            } else {
                reader.report(
                    "unknown kind '\(kindText)'", at: kindNode, hint: Suggestion.hint(for: kindText, among: JobKind.allCases.map(\.rawValue)))
                return nil
            }
        } else {
            reader.report("missing required key 'kind'", at: root, hint: "add 'kind: course' at the top")
            return nil
        }
        guard let kindReader, let top = reader.mapping(root, path: "", known: Self.commonKeys + kindReader.keys) else { return nil }
        top.finish()

        let id = top.string("id", required: true, maxLength: 200, hint: "a slug such as 'python-basics'")
        if let id, !Slug.isValidID(id) {
            reader.report(
                "'id' is '\(id)', which is not a slug", at: top.node("id"),
                hint:
                    "use 1–64 lowercase letters, digits and single hyphens, e.g. '\(Slug.make(id, maxLength: 64))'; the id names the output directory"
            )
        }
        let version = top.string("version", maxLength: 100) ?? "1.0.0"
        if !Slug.isValidVersion(version) {
            reader.report(
                "'version' is '\(version)', which is not a semantic version", at: top.node("version"),
                hint: "write MAJOR.MINOR.PATCH in quotes, e.g. '1.0.0'")
        }
        let language = top.string("language", maxLength: 35) ?? "en"
        if !Self.isLanguageTag(language) {
            reader.report(
                "'language' is '\(language)', which is not a language tag", at: top.node("language"),
                hint: "use a BCP 47 tag such as 'en', 'ar' or 'pt-BR'")
        }
        let description = top.string("description", required: true, maxLength: 20_000, hint: "describe the job in a few sentences")
        let audience = top.string("audience", maxLength: 1_000) ?? "curious adults who are new to the subject"
        let variant = top.string("variant", maxLength: 200)
        let model = readModel(top, reader: reader)
        let budget = readBudget(top)
        let repair = readRepair(top)
        let review = readReview(top, model: model, reader: reader)
        let reviewFile = top.string("review_file", maxLength: 1_000)
        if let reviewFile, !(reviewFile.hasSuffix(".yaml") || reviewFile.hasSuffix(".yml")) {
            reader.report("'review_file' is '\(reviewFile)', not a .yaml file", at: top.node("review_file"), hint: "e.g. review_file: reviews/course.review.yaml")
        }

        let t = top.mapping("tone", known: ["preset", "presets", "text"])
        t?.finish()
        let context = SpecReadContext(
            top: top, reader: reader, presets: presets, language: language, baseDirectory: baseDirectory, allowedRoots: allowedRoots)
        let tone = ToneSpec(presets: context.presetNames(t, kind: .tone), text: t?.string("text", maxLength: 2_000))

        let content = kindReader.read(context)
        guard let id, let description, let model, let content else { return nil }
        var spec = JobSpec(
            id: id, version: version, language: language, description: description, audience: audience, variant: variant, tone: tone,
            model: model, budget: budget, repair: repair, review: review, content: content, baseDirectory: baseDirectory?.standardizedFileURL)
        spec.fileRoots = context.fileRoots
        spec.reviewFile = reviewFile.map {
            ($0.hasPrefix("/") ? URL(fileURLWithPath: $0) : context.resolvedBaseDirectory.appendingPathComponent($0)).standardizedFileURL
        }
        return spec
    }

    static func isLanguageTag(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLowercase }) else { return false }
        return parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    func readModel(_ top: MappingReader, reader: SpecReader) -> ModelSpec? {
        let keys = [
            "provider", "name", "temperature", "max_concurrency", "max_tokens", "base_url", "api_key_env", "requests_per_minute", "tokens_per_minute",
            "max_retries", "seed", "frequency_penalty", "script", "connect_timeout_s", "request_timeout_s", "idle_timeout_s", "stream", "batch",
        ]
        let m = top.mapping("model", known: keys)
        m?.finish()
        let providerName = m?.string("provider", maxLength: 40) ?? ProviderKind.local.rawValue
        guard let provider = ProviderKind(rawValue: providerName) else {
            let names = ProviderKind.allCases.map(\.rawValue)
            reader.report("unknown model provider '\(providerName)'", at: m?.node("provider"), hint: Suggestion.hint(for: providerName, among: names))
            return nil
        }
        let baseURL = m?.string("base_url", maxLength: 2_000)
        var endpoint: URL?
        if let baseURL {
            let lowered = baseURL.lowercased()
            endpoint = URL(string: baseURL)
            if !(lowered.hasPrefix("http://") || lowered.hasPrefix("https://")) || endpoint?.host == nil {
                reader.report(
                    "'model.base_url' is '\(baseURL)', which is not an http(s) URL", at: m?.node("base_url"), hint: "e.g. 'http://127.0.0.1:8080/v1'")
                endpoint = nil
            } else if !provider.isRemote {
                reader.report(
                    "'model.base_url' does not apply to the \(provider.rawValue) provider", at: m?.node("base_url"),
                    hint: "use provider: openai for an OpenAI-compatible server at this address")
            }
        }
        let keyEnv = m?.environmentVariableName("api_key_env")
        // A key crosses the network only over TLS, or to this machine: the rule the provider
        // applies when it reads the key (``CredentialPolicy``), decided here from the spec alone
        // so that `validate` refuses what `run` would.
        if provider.isRemote,
            let problem = CredentialPolicy.keyRouteProblem(
                configured: keyEnv, defaultVariable: provider.defaultKeyVariable, ownHost: provider.ownAPIHost, baseURL: endpoint)
        {
            reader.report(
                "'model' would send \(problem)", at: m?.node("base_url") ?? m?.node,
                hint: keyEnv == nil
                    ? "use an https:// base_url; over http the provider's own host gets no key either"
                    : "use an https:// base_url, or remove api_key_env if the server needs no key")
        }
        let script = m?.string("script", maxLength: 1_000)
        if provider == .scripted && script == nil {
            reader.report(
                "the scripted provider needs 'model.script', the file of canned answers", at: m?.node ?? top.node,
                hint: "see docs/spec.md#scripted-provider")
        }
        let stream = m?.bool("stream")
        if stream == true, !provider.isRemote {
            reader.report(
                "'model.stream' applies to the openai and anthropic providers, not \(provider.rawValue)", at: m?.node("stream"),
                hint: "remove it; the \(provider.rawValue) provider answers whole")
        }
        let connectTimeout = m?.double("connect_timeout_s", range: 0.1...600)
        let requestTimeout = m?.double("request_timeout_s", range: 1...86_400)
        let idleTimeout = m?.double("idle_timeout_s", range: 1...86_400)
        if let connectTimeout, let requestTimeout, connectTimeout > requestTimeout {
            reader.report(
                "'model.connect_timeout_s' (\(JSONNumber.format(connectTimeout))) is longer than 'model.request_timeout_s' "
                    + "(\(JSONNumber.format(requestTimeout)))",
                at: m?.node("connect_timeout_s"), hint: "the request timeout includes connecting; make it the larger one")
        }
        let frequencyPenalty = m?.double("frequency_penalty", range: -2...2)
        if frequencyPenalty != nil, provider == .anthropic {
            reader.report(
                "'model.frequency_penalty' is not something Anthropic's API takes", at: m?.node("frequency_penalty"),
                hint: "remove it, or use an OpenAI-compatible provider (openai, local)")
        }
        let batch = m?.bool("batch")
        if batch == true, provider != .openai, provider != .anthropic {
            reader.report(
                "'model.batch' needs a provider with a batch API; \(provider.rawValue) has none", at: m?.node("batch"),
                hint: "use provider openai or anthropic, or remove 'batch'")
        }
        return ModelSpec(
            provider: provider,
            name: m?.string("name", maxLength: 200) ?? provider.defaultModelName,
            temperature: m?.double("temperature", range: 0...2) ?? 0.3,
            maxConcurrency: m?.int("max_concurrency", range: 1...256) ?? (provider == .local ? 2 : 8),
            maxTokens: m?.int("max_tokens", range: 16...65_536) ?? 2_048,
            baseURL: baseURL,
            apiKeyEnv: keyEnv,
            requestsPerMinute: m?.int("requests_per_minute", range: 1...1_000_000),
            tokensPerMinute: m?.int("tokens_per_minute", range: 1...1_000_000_000),
            maxRetries: m?.int("max_retries", range: 0...10) ?? 3,
            seed: m?.int("seed", range: 0...Int(Int32.max)),
            frequencyPenalty: frequencyPenalty,
            script: script,
            connectTimeoutSeconds: connectTimeout,
            requestTimeoutSeconds: requestTimeout,
            idleTimeoutSeconds: idleTimeout,
            stream: stream,
            batch: batch)
    }

    func readBudget(_ top: MappingReader) -> BudgetSpec {
        let b = top.mapping("budget", known: ["max_cost_usd"])
        b?.finish()
        return BudgetSpec(maxCostUSD: b?.double("max_cost_usd", range: 0...100_000))
    }

    func readReview(_ top: MappingReader, model: ModelSpec?, reader: SpecReader) -> ReviewSpec {
        let r = top.mapping("review", known: ["blind_solve", "model", "rubric", "disputed", "judge_options"])
        r?.finish()
        let solver = r?.string("model", maxLength: 200)
        var disputed = ReviewSpec.Disputed.fail
        if let text = r?.string("disputed", maxLength: 40) {
            if let policy = ReviewSpec.Disputed(rawValue: text) {
                disputed = policy
            } else {
                reader.report(
                    "'review.disputed' is '\(text)'; it must be 'fail' or 'warn'", at: r?.node("disputed"),
                    hint: "fail: an item whose key the solver still disputes after its last attempt fails the run; warn: it is kept with a warning")
            }
        }
        // The local provider starts one server with one model a run: a second name would be
        // answered by the job's model and counted under the other's.
        if let solver, let model, model.provider == .local, solver != model.name {
            reader.report(
                "'review.model' is '\(solver)', but the local provider runs one model a run ('\(model.name)')", at: r?.node("model"),
                hint: "leave 'review.model' out (the job's model solves), or name a model on a provider that serves several (openai, anthropic)")
        }
        return ReviewSpec(
            blindSolve: r?.bool("blind_solve") ?? true, model: solver, rubric: r?.bool("rubric") ?? false, disputed: disputed,
            judgeOptions: r?.bool("judge_options") ?? false)
    }

    func readRepair(_ top: MappingReader) -> RepairSpec {
        let r = top.mapping("repair", known: ["max_attempts"])
        r?.finish()
        return RepairSpec(maxAttempts: r?.int("max_attempts", range: 1...10) ?? 3)
    }
}
