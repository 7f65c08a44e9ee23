import Foundation
import LecternLLM
import LecternPipeline
import Synchronization
import Testing

@testable import LecternCLI

/// The JSON lines a run writes in CI and in a recording's log (`pipelines/cassettes/<id>.log.jsonl`).
struct EventLogTests {
    @Test func aGivenUpMendIsOneJSONLineSayingWhy() throws {
        let lines = Mutex<[String]>([])
        let sink = JSONLinesEventSink { line in lines.withLock { $0.append(line) } }
        sink.emit(.mendGivenUp(id: "engagement-question/s01-t01", stage: "engagement-question", attempt: 2, reason: "the mended answer was refused: x"))
        let written = lines.withLock { $0 }
        #expect(written.count == 1)
        let value = try JSONValue.parse(try #require(written.first))
        #expect(value["event"]?.stringValue == "mend_given_up" && value["item"]?.stringValue == "engagement-question/s01-t01")
        #expect(value["stage"]?.stringValue == "engagement-question" && value["attempt"]?.intValue == 2)
        #expect(value["reason"]?.stringValue == "the mended answer was refused: x")
    }
}
