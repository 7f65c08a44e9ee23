import Foundation
import Testing

@testable import LecternLLM

/// `JSONValue.parse` reads objects and arrays with its own byte-level reader; it must give
/// exactly what JSONDecoder gives, and leave to JSONDecoder whatever it does not take.
struct FastJSONTests {
    static let repository = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func decoded(_ text: String) -> JSONValue? { try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) }

    @Test func everyRecordedExchangeReadsAsJSONDecoderReadsIt() throws {
        // The committed cassettes: thousands of requests and answers, with the answers' own JSON.
        let directory = Self.repository.appendingPathComponent("pipelines/cassettes")
        var compared = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() where file.hasSuffix(".jsonl") {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let line = String(line)
                let fast = FastJSON.parse(line)
                #expect(fast != nil && fast == Self.decoded(line), "\(file): \(line.prefix(120))")
                compared += 1
                if let content = fast?["response"]?["content"]?.stringValue, let inner = FastJSON.parse(content) {
                    #expect(inner == Self.decoded(content), "\(file): \(content.prefix(120))")
                    compared += 1
                }
            }
        }
        #expect(compared > 1_000, "\(compared) documents compared")
    }

    @Test(arguments: [
        #"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#, #"[]"#, #"{}"#, #" [ 1 , -0 , 0.5 , 1e3 , -2.5E-3 , 123456789012345678 ] "#,
        #"{"s":"\" \\ \/ \b \f \n \r \t \u00e9 \u20AC \ud83d\ude00 é 😀"}"#, #"["\u0000"]"#, #"{"k":"ﷺ العربية"}"#,
        #"[1.7976931348623157e308, 5e-324, 0.1, 3.141592653589793]"#,
    ])
    func validDocumentsMatch(text: String) {
        #expect(FastJSON.parse(text) != nil && FastJSON.parse(text) == Self.decoded(text))
    }

    @Test(arguments: [
        #"{"a":1,}"#, #"[1,]"#, #"[01]"#, #"[1.]"#, #"[.5]"#, #"[+1]"#, #"[1e]"#, #"["\ud83d"]"#, #"["\ude00"]"#, #"["\x"]"#,
        "[\"a\nb\"]", #"{"a" 1}"#, #"{a:1}"#, #"[1 2]"#, #"[1e999]"#, #"[tru]"#, #"[nul]"#, #"{"a":1}x"#, #""text""#, "42", "",
        String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
    ])
    func whatItDoesNotTakeGoesToJSONDecoder(text: String) {
        #expect(FastJSON.parse(text) == nil)
        // And JSONValue.parse still answers as JSONDecoder does: a value or its error.
        #expect((try? JSONValue.parse(text)) == Self.decoded(text))
    }

    @Test func aKeyGivenTwiceIsLeftToJSONDecoder() {
        #expect(FastJSON.parse(#"{"a":1,"a":2}"#) == nil)
        #expect((try? JSONValue.parse(#"{"a":1,"a":2}"#)) == Self.decoded(#"{"a":1,"a":2}"#))
    }
}
