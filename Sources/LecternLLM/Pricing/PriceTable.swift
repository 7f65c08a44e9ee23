import Foundation

/// What one model costs, in US dollars per million tokens.
public struct ModelPrice: Sendable, Hashable, Codable {
    /// The provider kind: `openai`, `anthropic`, …
    public var provider: String
    /// The model name, or a prefix of dated variants (`gpt-4o` also prices `gpt-4o-2024-08-06`).
    public var model: String
    /// USD per million prompt tokens not served from the provider's prompt cache.
    public var prompt: Double
    /// USD per million completion tokens.
    public var completion: Double
    /// USD per million prompt tokens served from the prompt cache; `nil` bills them as `prompt`.
    public var cachedPrompt: Double?

    /// Creates a price entry.
    public init(provider: String, model: String, prompt: Double, completion: Double, cachedPrompt: Double? = nil) {
        self.provider = provider
        self.model = model
        self.prompt = prompt
        self.completion = completion
        self.cachedPrompt = cachedPrompt
    }
}

/// Prices per provider kind and model, for cost estimates and budgets.
///
/// Built-in entries cover a few well-known OpenAI and Anthropic models; a JSON file (see
/// docs/pricing.md) adds or overrides entries. Local and scripted providers cost nothing; an
/// unknown model has no cost (`nil`), which callers should report rather than count as free.
public struct PriceTable: Sendable, Hashable {
    /// Provider kinds that never cost money.
    public static let freeProviders: Set<String> = ["local", "scripted"]

    private var entries: [String: ModelPrice]

    /// A table with exactly these entries (later entries replace earlier ones for the same model).
    public init(_ prices: [ModelPrice] = []) {
        entries = [:]
        for price in prices { entries[Self.key(price.provider, price.model)] = price }
    }

    /// Every entry, sorted by provider and model.
    public var prices: [ModelPrice] {
        entries.values.sorted { ($0.provider, $0.model) < ($1.provider, $1.model) }
    }

    /// The price of `model` from `provider`: an exact entry, else the longest entry that is a
    /// prefix of the name followed by `-` (dated snapshots), else `nil`.
    public func price(provider: String, model: String) -> ModelPrice? {
        if let exact = entries[Self.key(provider, model)] { return exact }
        var best: ModelPrice?
        for price in entries.values where price.provider == provider && model.hasPrefix(price.model + "-") {
            if price.model.count > (best?.model.count ?? -1) { best = price }
        }
        return best
    }

    /// The cost in USD of `usage` with `model` from `provider`: 0 for local and scripted
    /// providers, `nil` when the model is not in the table.
    /// OpenAI's Batch API and Anthropic's Message Batches bill half the standard price
    /// (`run --batch`, `model.batch: true`).
    public static let batchFactor = 0.5

    public func cost(provider: String, model: String, usage: TokenUsage) -> Double? {
        if Self.freeProviders.contains(provider) { return 0 }
        guard let price = price(provider: provider, model: model) else { return nil }
        let cached = min(max(0, usage.cachedTokens), max(0, usage.promptTokens))
        let uncached = max(0, usage.promptTokens) - cached
        let total =
            Double(uncached) * price.prompt + Double(cached) * (price.cachedPrompt ?? price.prompt)
            + Double(max(0, usage.completionTokens)) * price.completion
        return total / 1_000_000
    }

    /// This table with `other`'s entries added, replacing entries for the same model.
    public func merging(_ other: PriceTable) -> PriceTable {
        var merged = self
        for (key, price) in other.entries { merged.entries[key] = price }
        return merged
    }

    /// The file format: `{"prices": [{"provider", "model", "prompt", "completion", "cachedPrompt"?}]}`.
    private struct File: Codable {
        var prices: [ModelPrice]
    }

    /// Reads a price file (JSON). Throws ``PriceTableError`` naming the file and the problem.
    public static func load(contentsOf url: URL) throws -> PriceTable {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw PriceTableError(
                message: "Cannot read the price file \(url.path): \(error.localizedDescription). Check the path.")
        }
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: data)
        } catch {
            throw PriceTableError(
                message: "The price file \(url.path) is not valid: \(Self.explain(error)). Expected "
                    + #"{"prices": [{"provider": "openai", "model": "gpt-4o", "prompt": 2.5, "completion": 10}]}"#
                    + " (USD per million tokens); see docs/pricing.md.")
        }
        for price in file.prices where price.prompt < 0 || price.completion < 0 || (price.cachedPrompt ?? 0) < 0 {
            throw PriceTableError(
                message: "The price file \(url.path) has a negative price for \(price.provider)/\(price.model); "
                    + "prices are USD per million tokens and must be 0 or more.")
        }
        return PriceTable(file.prices)
    }

    /// The built-in table extended (and overridden) by the file at `url`.
    public static func builtInMerged(withFileAt url: URL) throws -> PriceTable {
        builtIn.merging(try load(contentsOf: url))
    }

    /// The table as JSON in the file format, sorted, for writing a starting point to edit.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(File(prices: prices))
    }

    /// Published list prices (USD per million tokens) as of 2025; check the providers' pricing
    /// pages and override in a price file when they change.
    public static let builtIn = PriceTable([
        ModelPrice(provider: "openai", model: "gpt-4o", prompt: 2.50, completion: 10.00, cachedPrompt: 1.25),
        ModelPrice(provider: "openai", model: "gpt-4o-mini", prompt: 0.15, completion: 0.60, cachedPrompt: 0.075),
        ModelPrice(provider: "openai", model: "gpt-4.1", prompt: 2.00, completion: 8.00, cachedPrompt: 0.50),
        ModelPrice(provider: "openai", model: "gpt-4.1-mini", prompt: 0.40, completion: 1.60, cachedPrompt: 0.10),
        ModelPrice(provider: "openai", model: "gpt-4.1-nano", prompt: 0.10, completion: 0.40, cachedPrompt: 0.025),
        ModelPrice(provider: "openai", model: "o4-mini", prompt: 1.10, completion: 4.40, cachedPrompt: 0.275),
        ModelPrice(provider: "openai", model: "gpt-5", prompt: 1.25, completion: 10.00, cachedPrompt: 0.125),
        ModelPrice(provider: "openai", model: "gpt-5-mini", prompt: 0.25, completion: 2.00, cachedPrompt: 0.025),
        ModelPrice(provider: "openai", model: "gpt-5-nano", prompt: 0.05, completion: 0.40, cachedPrompt: 0.005),
        ModelPrice(provider: "anthropic", model: "claude-3-5-haiku", prompt: 0.80, completion: 4.00, cachedPrompt: 0.08),
        ModelPrice(provider: "anthropic", model: "claude-haiku-4-5", prompt: 1.00, completion: 5.00, cachedPrompt: 0.10),
        ModelPrice(provider: "anthropic", model: "claude-3-5-sonnet", prompt: 3.00, completion: 15.00, cachedPrompt: 0.30),
        ModelPrice(provider: "anthropic", model: "claude-3-7-sonnet", prompt: 3.00, completion: 15.00, cachedPrompt: 0.30),
        ModelPrice(provider: "anthropic", model: "claude-sonnet-4", prompt: 3.00, completion: 15.00, cachedPrompt: 0.30),
        ModelPrice(provider: "anthropic", model: "claude-sonnet-4-5", prompt: 3.00, completion: 15.00, cachedPrompt: 0.30),
        ModelPrice(provider: "anthropic", model: "claude-opus-4", prompt: 15.00, completion: 75.00, cachedPrompt: 1.50),
        ModelPrice(provider: "anthropic", model: "claude-opus-4-1", prompt: 15.00, completion: 75.00, cachedPrompt: 1.50),
        ModelPrice(provider: "anthropic", model: "claude-opus-4-5", prompt: 5.00, completion: 25.00, cachedPrompt: 0.50),
    ])

    private static func key(_ provider: String, _ model: String) -> String { provider + "\u{1F}" + model }

    private static func explain(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return error.localizedDescription }
        switch decoding {
        case .keyNotFound(let key, let context):
            return "missing \"\(key.stringValue)\" at \(path(context.codingPath))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(context.debugDescription) at \(path(context.codingPath))"
        case .dataCorrupted(let context):
            return "not JSON (\(context.debugDescription))"
        @unknown default:
            return "\(decoding)"
        }
    }

    private static func path(_ codingPath: [any CodingKey]) -> String {
        let text = codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return text.isEmpty ? "the top level" : text
    }
}

/// A price file that could not be used.
public struct PriceTableError: Error, Sendable, CustomStringConvertible {
    /// What was wrong, in which file, and what to do.
    public var message: String
    public var description: String { message }
}
