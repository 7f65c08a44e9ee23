import Foundation
import LecternCore
import LecternLLM

/// A decoded answer, or the problems to send back to the model.
enum Decoded<T> {
    case success(T)
    case failure([Refusal])
}

/// Reading untrusted model answers: JSON extraction and decoding with messages a model can act on.
enum AnswerParsing {
    /// Decodes `T` from the answer, or returns errors phrased for a repair request. Every string
    /// of the answer goes through `TextIntegrity` first: a TeX command whose backslash a JSON
    /// escape took (`"\frac"` decoded as a form feed and "rac") is put back where that is
    /// unambiguous (inside math); any other control character or lost backslash is an error.
    static func decode<T: Decodable>(_ type: T.Type, from text: String) -> Decoded<T> {
        guard let value = JSONExtraction.firstJSONValue(in: text), case .object = value else {
            let trimmed = text.trimmed
            if trimmed.hasPrefix("{") {
                return .failure([
                    Refusal(.wellFormed, "the answer is not complete, valid JSON (it may be cut off or have a syntax error); send one complete JSON object")
                ])
            }
            return .failure([Refusal(.stageRules, "the answer contains no JSON object; answer with one JSON object only")])
        }
        var problems: [String] = []
        let json = withIntegrity(value, path: "", problems: &problems).canonicalText
        if !problems.isEmpty { return .failure(problems.map { Refusal(.textIntegrity, $0) }) }
        do {
            return .success(try JSONDecoder().decode(T.self, from: Data(json.utf8)))
        } catch let error as DecodingError {
            return .failure([describe(error)])
        } catch {
            return .failure([Refusal(.stageRules, "the JSON could not be read: \(error)")])
        }
    }

    /// `value` with every string recovered by `TextIntegrity` (formulas written without delimiters
    /// read between `$…$`, `TextIntegrity.inspectField`); what cannot be recovered goes to
    /// `problems`, named by its place in the answer (`wrong_answers[2].feedback contains …`).
    static func withIntegrity(_ value: JSONValue, path: String, problems: inout [String]) -> JSONValue {
        switch value {
        case .string(let text):
            let inspected = TextIntegrity.inspectField(text)
            problems += inspected.problems.map { "\(path.isEmpty ? "the answer" : path) \($0)" }
            return .string(inspected.repaired)
        case .array(let elements):
            return .array(elements.enumerated().map { withIntegrity($1, path: "\(path)[\($0 + 1)]", problems: &problems) })
        case .object(let object):
            var out: [String: JSONValue] = [:]
            for key in object.keys.sorted() {
                guard let element = object[key] else { continue }
                out[key] = withIntegrity(element, path: path.isEmpty ? key : "\(path).\(key)", problems: &problems)
            }
            return .object(out)
        case .null, .bool, .number:
            return value
        }
    }

    static func describe(_ error: DecodingError) -> Refusal {
        func path(_ keys: [any CodingKey]) -> String {
            let parts = keys.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
            return parts.hasPrefix(".") ? String(parts.dropFirst()) : (parts.isEmpty ? "the top level" : parts)
        }
        switch error {
        case .keyNotFound(let key, let context):
            let at = context.codingPath.isEmpty ? "the top-level object" : "'\(path(context.codingPath))'"
            return Refusal(.wellFormed, "\(at) is missing the required key '\(key.stringValue)'")
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            return Refusal(.stageRules, "'\(path(context.codingPath))' has the wrong type: expected \(typeName(type))")
        case .dataCorrupted(let context):
            return Refusal(.stageRules, "'\(path(context.codingPath))' is invalid: \(context.debugDescription)")
        @unknown default:
            return Refusal(.stageRules, "the JSON does not follow the schema")
        }
    }

    static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type: return "a whole number"
        case is Double.Type: return "a number"
        case is Bool.Type: return "true or false"
        default:
            let name = String(describing: type)
            return name.hasPrefix("Array") ? "a list" : name.hasPrefix("Dictionary") ? "an object" : "an object"
        }
    }

    static func schemaText(_ schema: ResponseSchema) -> String {
        schema.schema.schemaOrderedText
    }
}

/// Shared JSON Schema pieces.
enum SchemaParts {
    static let string: JSONValue = ["type": "string"]
    static func array(_ items: JSONValue, min: Int? = nil, max: Int? = nil) -> JSONValue {
        var object: [String: JSONValue] = ["type": "array", "items": items]
        if let min { object["minItems"] = .number(Double(min)) }
        if let max { object["maxItems"] = .number(Double(max)) }
        return .object(object)
    }
    static func object(_ properties: [String: JSONValue], required: [String]) -> JSONValue {
        [
            "type": "object", "properties": .object(properties), "required": .array(required.map { .string($0) }),
            "additionalProperties": false,
        ]
    }
}
