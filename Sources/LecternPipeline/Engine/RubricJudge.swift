import Foundation
import LecternCore
import LecternLLM

/// The rubric of `review: { rubric: true }` (issue 48): a reviewing model — `review.model`, else
/// the job's — reads an accepted multiple-choice answer field by field, with what it was written
/// from (the topic, the lecture excerpt, the passage or source text), and judges it against fixed
/// criteria. A criterion it finds broken is refused like any check, with its reason, when the
/// verdict copies words of the item that break it; a verdict quoting nothing of the item is one
/// nobody can check, and is counted and disregarded (a small model's verdicts are often that).
public struct RubricJudge: Sendable {
    public enum Criterion: String, CaseIterable, Sendable {
        case keyCorrect = "key_correct"
        case onlyKey = "only_key"
        case feedbackAgrees = "feedback_agrees"
        case statementsTrue = "statements_true"
        case sourceSupports = "source_supports"
        case onTopic = "on_topic"

        /// The criterion as the judge reads it.
        public var question: String {
            switch self {
            case .keyCorrect: return "The key (correct_answer) is right."
            case .onlyKey: return "No wrong answer is also right."
            case .feedbackAgrees:
                return "Every feedback agrees with the key and with the lecture or passage: the key's feedback says why it is right, each wrong answer's why it is wrong."
            case .statementsTrue: return "Every statement in the feedback, the explanation and any reference answer is true."
            case .sourceSupports:
                return "When a passage or source text is given, it supports the key and none of the wrong answers; with none given, this holds."
            case .onTopic: return "The question is about its topic and asks nothing beyond what its lecture or passage gives."
            }
        }

        /// How a repair message names the broken criterion.
        var broken: String {
            switch self {
            case .keyCorrect: return "the key is not right"
            case .onlyKey: return "another option is also right"
            case .feedbackAgrees: return "a feedback contradicts the key or the source"
            case .statementsTrue: return "a statement is false"
            case .sourceSupports: return "the source does not support the key, or supports a wrong answer"
            case .onTopic: return "the question is off its topic"
            }
        }
    }

    /// The judgements' stage in the cache, the call log and quality.json.
    public static let stage = "rubric"
    /// The item id of a judgement: its item's, with `/rubric`.
    public static func itemID(of item: String) -> String { item + "/" + stage }
    public static let warningKind = "a reviewing model found a rubric criterion broken"
    /// Tokens a judgement typically takes (the item, its context, the rubric; six short verdicts): `plan`'s estimate.
    public static let typicalTokens = 2_200
    /// Longest lecture excerpt or source text the judge is shown.
    static let contextLimit = 4_000
    /// How the judge answers: a verdict per criterion (`review/rubric`, the judge of runs and
    /// `check`), or a list of the faults it finds (`review/rubric-faults`, measured beside it by
    /// `lectern-bench-rubric --shape faults`).
    public enum Shape: String, Sendable {
        case verdicts, faults
    }

    /// The judge's model; nil: the job's.
    public var model: String?
    public let shape: Shape
    public let template: PromptTemplate

    public init(model: String? = nil, shape: Shape = .verdicts) throws {
        self.model = model
        self.shape = shape
        template = try PromptLibrary.template(shape == .verdicts ? "review/rubric" : "review/rubric-faults")
    }

    static let schema: ResponseSchema = {
        let verdict = SchemaParts.object(
            ["holds": ["type": "boolean"], "quote": ["type": "string", "maxLength": 300], "reason": ["type": "string", "maxLength": 400]],
            required: ["holds", "quote", "reason"])
        return ResponseSchema(
            name: "rubric", schema: SchemaParts.object(Dictionary(uniqueKeysWithValues: Criterion.allCases.map { ($0.rawValue, verdict) }), required: Criterion.allCases.map(\.rawValue)))
    }()

    static let faultsSchema: ResponseSchema = {
        let fault = SchemaParts.object(
            [
                "criterion": ["type": "string", "enum": .array(Criterion.allCases.map { .string($0.rawValue) })],
                "quote": ["type": "string", "maxLength": 300], "reason": ["type": "string", "maxLength": 400],
            ],
            required: ["criterion", "quote", "reason"])
        return ResponseSchema(
            name: "rubric_faults", schema: SchemaParts.object(["faults": ["type": "array", "items": fault, "maxItems": 6]], required: ["faults"]))
    }()

    /// The item as the judge reads it: each field of the answer as it ships, a line each.
    public static func itemText(_ shipped: String) -> String {
        AnswerFields.fields(of: shipped).filter { $0.path != "text" }.map { "\($0.path): \($0.text)" }.joined(separator: "\n")
    }

    /// What the item was written from, from its prompt's values: the topic, the lecture excerpt,
    /// the passage or the source text (each at most `contextLimit` characters).
    public static func context(_ variables: [String: String]) -> String {
        var parts: [String] = []
        if let topic = variables["topic_title"], !topic.isEmpty {
            parts.append("Topic: \(topic)" + (variables["topic_objective"].map { $0.isEmpty ? "" : " — \($0)" } ?? ""))
        }
        for (key, label) in [("lecture_excerpt", "The lecture it is about (excerpt)"), ("passage", "The passage"), ("source", "The source text")] {
            if let text = variables[key]?.trimmed, !text.isEmpty { parts.append("\(label):\n\(text.prefix(contextLimit))") }
        }
        return parts.isEmpty ? "" : parts.joined(separator: "\n\n") + "\n\n"
    }

    /// The request judging `shipped`, written from `variables`, and its variables.
    public func request(shipped: String, variables: [String: String], fallbackModel: String, seed: Int?) -> (LLMRequest, [String: String]) {
        let values = [
            "context": Self.context(variables), "item": Self.itemText(shipped),
            "criteria": Criterion.allCases.map { "- \($0.rawValue): \($0.question)" }.joined(separator: "\n"),
            "schema": AnswerParsing.schemaText(shape == .verdicts ? Self.schema : Self.faultsSchema),
        ]
        let request = LLMRequest(
            model: model ?? fallbackModel, messages: template.messages(values), temperature: 0, maxTokens: 900,
            responseSchema: shape == .verdicts ? Self.schema : Self.faultsSchema, seed: seed)
        return (request, values)
    }

    /// What a judgement says of `shipped`: nil when it is no judgement (not JSON, a criterion
    /// missing); else the tally and a refusal for each broken criterion whose quote is in the item.
    public static func verdicts(_ answer: String, shipped: String) -> (tally: RubricTally, refusals: [Refusal])? {
        guard let data = answer.data(using: .utf8), let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return nil }
        var verdicts: [(Criterion, holds: Bool, quote: String, reason: String)] = []
        if let faults = object["faults"] as? [[String: Any]] {
            // A list of faults: each a broken criterion (the first of a criterion's faults counts).
            for fault in faults {
                guard let criterion = (fault["criterion"] as? String).flatMap(Criterion.init(rawValue:)) else { return nil }
                if verdicts.contains(where: { $0.0 == criterion }) { continue }
                verdicts.append((criterion, false, (fault["quote"] as? String ?? "").trimmed, (fault["reason"] as? String ?? "").trimmed))
            }
        } else {
            for criterion in Criterion.allCases {
                guard let verdict = object[criterion.rawValue] as? [String: Any], let holds = verdict["holds"] as? Bool else { return nil }
                verdicts.append((criterion, holds, (verdict["quote"] as? String ?? "").trimmed, (verdict["reason"] as? String ?? "").trimmed))
            }
        }
        let item = TextKey.normalize(itemText(shipped))
        var tally = RubricTally(judged: 1)
        var refusals: [Refusal] = []
        for verdict in verdicts where !verdict.holds {
            // A quote of the item: at least three words, found in it (case, punctuation and spacing aside).
            let quote = TextKey.normalize(verdict.quote.trimmingCharacters(in: CharacterSet(charactersIn: "\"'“”‘’«» ")))
            guard quote.split(separator: " ").count >= 3, item.contains(quote) else {
                tally.unquoted += 1
                continue
            }
            tally.broken[verdict.0.rawValue, default: 0] += 1
            refusals.append(
                Refusal(
                    .rubric,
                    "a reviewing model judged that \(verdict.0.broken): “\(verdict.quote.prefix(300))” — \(verdict.reason.prefix(400)); make sure the key is right and alone, and every feedback and explanation true and in agreement with it"
                ))
        }
        if refusals.isEmpty { tally.passed = 1 }
        return (tally, refusals)
    }
}

/// Each option judged on its own (`review: { judge_options: true }`, issue 48 §2): for every
/// option of every multiple-choice question the blind solver was given, a reviewing model is asked
/// whether that answer, alone, is a correct answer to the question according to the text it was
/// written from (`review/option-judge`, temperature 0, `<item>/option-judge`), not told whether it
/// is the key. A key judged not correct, or a wrong option judged correct, refuses the answer
/// (`rubric`: `key_correct`, `only_key`) — when the verdict copies at least three words of the
/// text that decide it (or, with no text, of the question): a verdict that quotes nothing cannot
/// be checked and is counted, not acted on. One call per option: for a capable model.
public struct OptionJudge: Sendable {
    /// The judgements' stage in the cache, the call log and `plan`.
    public static let stage = "option-judge"
    public static func itemID(of item: String) -> String { item + "/" + stage }
    /// Tokens a judgement typically takes (the context, the question, one option; a short verdict).
    public static let typicalTokens = 1_400
    /// The options a planned multiple-choice question has (a course's and an exam's).
    public static let plannedOptions = 4

    /// The judge's model; nil: the job's.
    public var model: String?
    public let template: PromptTemplate

    public init(model: String? = nil) throws {
        self.model = model
        template = try PromptLibrary.template("review/option-judge")
    }

    static let schema = ResponseSchema(
        name: "option_judgement",
        schema: SchemaParts.object(
            ["correct": ["type": "boolean"], "quote": ["type": "string", "maxLength": 300], "reason": ["type": "string", "maxLength": 400]],
            required: ["correct", "quote", "reason"]))

    /// What the option was written from: the call's context (`RubricJudge.context`) and a
    /// reading question's passage.
    public static func context(_ question: BlindSolveItem, variables: [String: String]) -> String {
        var context = RubricJudge.context(variables)
        if let passage = question.context?.trimmed, !passage.isEmpty, variables["passage"]?.trimmed != passage {
            context += "The passage:\n\(passage.prefix(RubricJudge.contextLimit))\n\n"
        }
        return context
    }

    /// The request judging option `index` of `question`, and its variables (`expected`, whether
    /// it is the key, is in no message: a scripted provider's script may answer with it).
    public func request(
        _ question: BlindSolveItem, option index: Int, variables: [String: String], fallbackModel: String, seed: Int?
    ) -> (
        LLMRequest, [String: String]
    ) {
        let values = [
            "context": Self.context(question, variables: variables), "question": question.prompt, "option": question.options[index],
            "schema": AnswerParsing.schemaText(Self.schema),
        ]
        let request = LLMRequest(
            model: model ?? fallbackModel, messages: template.messages(values), temperature: 0, maxTokens: 400, responseSchema: Self.schema, seed: seed)
        return (request, values.merging(["expected": index == question.key ? "true" : "false"]) { a, _ in a })
    }

    /// What one judgement says: nil when it is no judgement; else the criterion it breaks (nil:
    /// it agrees with the key), whether it quotes what decides it, and the refusal when it does.
    public static func verdict(
        _ answer: String, question: BlindSolveItem, option index: Int, context: String
    ) -> (
        broken: RubricJudge.Criterion?, quoted: Bool, refusal: Refusal?
    )? {
        guard let data = answer.data(using: .utf8), let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return nil }
        let correct: Bool
        switch object["correct"] {
        case let flag as Bool: correct = flag
        case let text as String where ["true", "false"].contains(text.trimmed.lowercased()): correct = text.trimmed.lowercased() == "true"
        default: return nil
        }
        let isKey = index == question.key
        guard correct != isKey else { return (nil, true, nil) }
        let quote = (object["quote"] as? String ?? "").trimmed
        let reason = (object["reason"] as? String ?? "").trimmed
        let normalized = TextKey.normalize(quote.trimmingCharacters(in: CharacterSet(charactersIn: "\"'“”‘’«» ")))
        let evidence = TextKey.normalize(context.isEmpty ? question.prompt : context)
        let criterion: RubricJudge.Criterion = isKey ? .keyCorrect : .onlyKey
        guard normalized.split(separator: " ").count >= 3, evidence.contains(normalized) else { return (criterion, false, nil) }
        let option = question.options[index].prefix(120)
        let message =
            isKey
            ? "\(question.label): a reviewing model, judging each option on its own, found the keyed '\(option)' not a correct answer: “\(quote.prefix(300))” — \(reason.prefix(400)); make sure the key is right"
            : "\(question.label): a reviewing model, judging each option on its own, found '\(option)' a correct answer too: “\(quote.prefix(300))” — \(reason.prefix(400)); change it so that only the key answers the question"
        return (criterion, true, Refusal(.rubric, message))
    }
}
