import Foundation
import LecternCore
import LecternLLM

/// The answer a reviewer reads: the model's answer as the item ships it (`ModelCall.shipped`).
///
/// A reviewer approves, rejects or edits the text `review.json` holds for an item; it must be the
/// text the bundle ships. The model's own text is not, when Lectern changed it after the checks:
/// a TeX command whose backslash a JSON escape ate (`\frac` read as a form feed and "rac") is
/// repaired before the item is built, a completion's key is blanked in its stem, and a reading set
/// can ship questions kept from earlier attempts. A review page showing the model's text had a
/// reviewer judge questions no candidate sees, and an edit made there sent the broken escapes back.
enum ShippedAnswer {
    /// The JSON answer `text` with its strings as the checks read them (`AnswerParsing.withIntegrity`),
    /// when that changed any; nil when nothing changed or `text` holds no JSON object.
    static func mended(_ text: String) -> String? {
        guard let value = JSONExtraction.firstJSONValue(in: text), case .object = value else { return nil }
        var problems: [String] = []
        let repaired = AnswerParsing.withIntegrity(value, path: "", problems: &problems)
        guard problems.isEmpty, repaired != value else { return nil }
        return readable(repaired.canonicalText)
    }

    /// `value` as an answer's JSON text (keys sorted, indented), or nil when it cannot be encoded.
    static func encoded<T: Encodable>(_ value: T) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Compact JSON `text` indented for a reader (the review page and the review file's `answer`).
    static func readable(_ json: String) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)),
            let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return json }
        return String(decoding: data, as: UTF8.self)
    }
}
