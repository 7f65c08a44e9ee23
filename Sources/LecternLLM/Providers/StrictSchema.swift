/// OpenAI's strict structured output accepts a schema only when every object lists all its
/// properties as required and sets `additionalProperties: false`.
public enum StrictSchema {
    public static func isCompatible(_ schema: JSONValue) -> Bool {
        switch schema {
        case .object(let object):
            if let properties = object["properties"]?.objectValue {
                guard object["additionalProperties"] == .bool(false) else { return false }
                let required = Set((object["required"]?.arrayValue ?? []).compactMap(\.stringValue))
                guard required == Set(properties.keys) else { return false }
            }
            return object.values.allSatisfy(isCompatible)
        case .array(let items):
            return items.allSatisfy(isCompatible)
        default:
            return true
        }
    }
}
