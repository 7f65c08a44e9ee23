import Foundation
import Yams

/// Reads the `quotes` kind's part of a spec (docs/spec.md#quotes):
///
/// ```yaml
/// corpus:
///   - path: corpus/quotes/wisdom          # fortune, .csv or .jsonl (or `format:`)
///     licence: BSD-3-Clause
///     origin: Debian package fortunes 1:1.99.1-7.3
///     attribution: attributed             # verified | attributed | unverified
/// target: 1200                            # quotes in the database, at most
/// batch: 20                               # quotes per tagging call
/// min_per_emotion: 40
/// emotions: [Achievement, Comfort, …]     # or {name, meaning} mappings; default Echo's eight
/// categories: [Stoicism, …]               # default Echo's six
/// length: {min: 50, max: 200}
/// templates: true                         # or {per_emotion: 10, max_characters: 99, …}
/// ```
public enum QuotesSpecReader: JobKindSpecReader {
    public static let keys = ["corpus", "target", "batch", "min_per_emotion", "emotions", "categories", "fallback_emotion", "length", "templates"]

    public static func read(_ context: SpecReadContext) -> JobContent? {
        let top = context.top
        let reader = context.reader
        let sources = readCorpus(context)
        var spec = QuotesSpec(sources: [])
        spec.target = top.int("target", range: 1...20_000) ?? spec.target
        spec.batchSize = top.int("batch", range: 1...100) ?? spec.batchSize
        spec.minPerEmotion = top.int("min_per_emotion", range: 0...20_000) ?? spec.minPerEmotion
        spec.length = context.range(top, "length", default: spec.length, limit: 2_000)
        if let emotions = readEmotions(context) { spec.emotions = emotions }
        if let categories = top.stringList("categories", maxCount: 50, maxLength: 60) {
            if categories.isEmpty { reader.report("'categories' is empty", at: top.node("categories"), hint: "name at least one category") }
            if Set(categories.map { $0.lowercased() }).count != categories.count {
                reader.report("'categories' names a category twice", at: top.node("categories"), hint: "list each once")
            }
            spec.categories = categories
        }
        let names = spec.emotions.map(\.name)
        if let fallback = top.string("fallback_emotion", maxLength: 60) {
            if !names.contains(fallback) {
                reader.report("the fallback emotion '\(fallback)' is not one of the emotions", at: top.node("fallback_emotion"), hint: Suggestion.hint(for: fallback, among: names))
            }
            spec.fallbackEmotion = fallback
        } else {
            spec.fallbackEmotion = names.contains("Reflection") ? "Reflection" : nil
        }
        if let node = top.node("templates"), node.null == nil {
            if case .scalar = node {
                if top.bool("templates") == true { spec.templates = TemplateBankSpec() }
            } else if let t = top.mapping("templates", known: ["per_emotion", "max_characters", "keyword_length", "min_without_placeholder", "rounds", "judge"]) {
                t.finish()
                var bank = TemplateBankSpec()
                bank.perEmotion = t.int("per_emotion", range: 3...50) ?? bank.perEmotion
                bank.maxCharacters = t.int("max_characters", range: 30...500) ?? bank.maxCharacters
                bank.keywordLength = t.int("keyword_length", range: 1...60) ?? bank.keywordLength
                bank.minWithoutPlaceholder = t.int("min_without_placeholder", range: 0...10) ?? bank.minWithoutPlaceholder
                bank.rounds = t.int("rounds", range: 1...10) ?? bank.rounds
                bank.judge = t.bool("judge") ?? bank.judge
                if bank.minWithoutPlaceholder * 2 >= bank.perEmotion {
                    reader.report(
                        "'templates.min_without_placeholder' is \(bank.minWithoutPlaceholder) of \(bank.perEmotion): most templates must hold {keyword}",
                        at: t.node("min_without_placeholder"), hint: "keep it under half of per_emotion")
                }
                spec.templates = bank
            }
        }
        guard let sources else { return nil }
        spec.sources = sources
        if reader.diagnostics.isEmpty { checkCorpus(spec, context: context) }
        return .quotes(spec)
    }

    /// Before any call: every collection must be readable, and hold quotes after cleaning.
    static func checkCorpus(_ spec: QuotesSpec, context: SpecReadContext) {
        do {
            let corpus = try QuoteCorpus.load(spec.sources, relativeTo: context.resolvedBaseDirectory, length: spec.length, roots: context.fileRoots)
            if corpus.candidates.isEmpty {
                context.reader.report(
                    "no quote is left after cleaning (\(corpus.report.read) read)", at: context.top.node("corpus"),
                    hint: "check the files' format: fortune records end with a '-- Author' line; CSV has the header text,author,source")
            }
        } catch let error as CorpusError {
            for issue in error.issues {
                context.reader.report("corpus: \(issue.message)", at: ExamSpecReader.corpusNode(for: issue.path, context: context) ?? context.top.node("corpus"), hint: issue.hint)
            }
        } catch {
            context.reader.report("the corpus could not be read: \(error)", at: context.top.node("corpus"))
        }
    }

    static func readCorpus(_ context: SpecReadContext) -> [QuoteSource]? {
        let top = context.top
        let reader = context.reader
        guard
            let nodes = ExamSpecReader.requiredSequence(
                "corpus", maxCount: 1_000, context: context,
                hint: "list quote collections: fortune files, CSV (text,author,source) or JSON Lines, e.g. 'corpus: [{path: corpus/quotes.csv, licence: CC0-1.0}]'")
        else { return nil }
        if nodes.isEmpty {
            reader.report("'corpus' is empty", at: top.node("corpus"), hint: "name at least one quote collection")
            return nil
        }
        var sources: [QuoteSource] = []
        for (i, node) in nodes.enumerated() {
            let path = "corpus[\(i)]"
            if case .scalar = node {
                if let text = top.string(node, name: path, required: true, maxLength: 1_000, hint: nil) { sources.append(QuoteSource(path: text)) }
                continue
            }
            guard let m = reader.mapping(node, path: path, known: ["path", "format", "licence", "license", "origin", "attribution"]) else { continue }
            m.finish()
            guard let file = m.string("path", required: true, maxLength: 1_000) else { continue }
            var format: QuoteSource.Format?
            if let name = m.string("format", maxLength: 20) {
                format = QuoteSource.Format(rawValue: name)
                if format == nil {
                    reader.report("unknown quote format '\(name)'", at: m.node("format"), hint: "use " + QuoteSource.Format.allCases.map(\.rawValue).joined(separator: ", "))
                }
            }
            var attribution = QuoteSource.Attribution.attributed
            if let name = m.string("attribution", maxLength: 20) {
                if let a = QuoteSource.Attribution(rawValue: name) {
                    attribution = a
                } else {
                    reader.report(
                        "unknown attribution status '\(name)'", at: m.node("attribution"),
                        hint: "use verified (checked against a primary source), attributed (as the collection gives it) or unverified")
                }
            }
            sources.append(
                QuoteSource(
                    path: file, format: format, licence: m.string("licence", maxLength: 300) ?? m.string("license", maxLength: 300),
                    origin: m.string("origin", maxLength: 500), attribution: attribution))
        }
        return sources
    }

    static func readEmotions(_ context: SpecReadContext) -> [QuoteEmotion]? {
        let top = context.top
        let reader = context.reader
        guard let nodes = top.sequence("emotions", maxCount: 30) else { return nil }
        if nodes.isEmpty {
            reader.report("'emotions' is empty", at: top.node("emotions"), hint: "name at least one emotion, or leave the key out for Echo's eight")
            return nil
        }
        var emotions: [QuoteEmotion] = []
        for (i, node) in nodes.enumerated() {
            let path = "emotions[\(i)]"
            var emotion: QuoteEmotion?
            if case .scalar = node {
                if let name = top.string(node, name: path, required: true, maxLength: 60, hint: nil) {
                    emotion = QuoteEmotion(name: name, meaning: QuoteEmotion.echo.first { $0.name == name }?.meaning ?? "")
                }
            } else if let m = reader.mapping(node, path: path, known: ["name", "meaning"]) {
                m.finish()
                if let name = m.string("name", required: true, maxLength: 60) {
                    emotion = QuoteEmotion(name: name, meaning: m.string("meaning", maxLength: 300) ?? "")
                }
            }
            guard let emotion else { continue }
            if emotion.name.contains(where: { !$0.isLetter && $0 != " " && $0 != "-" }) {
                reader.report("the emotion '\(emotion.name)' has characters other than letters, spaces and hyphens", at: node, hint: "use a word such as 'Hope'")
            }
            if emotions.contains(where: { $0.name.lowercased() == emotion.name.lowercased() }) {
                reader.report("the emotion '\(emotion.name)' is listed twice", at: node, hint: "list each once")
            }
            emotions.append(emotion)
        }
        return emotions
    }
}
