import Foundation
import Testing

@testable import LecternLLM

@Suite("Request-tracing headers")
struct TracingHeaderTests {
    @Test("every request names its item and attempt, retries included", arguments: Flavor.allCases)
    func itemAndAttemptAreSent(_ flavor: Flavor) async throws {
        let server = try LoopbackServer(replies: [
            .json(503, flavor.errorBody("busy"), headers: [("Retry-After", "0")]), flavor.answer(),
        ])
        let rig = TestRig()
        let provider = try flavor.provider(flavor.configuration(server), rig: rig)
        let context = RequestContext(itemID: "engagement-question/s02-t03", stage: "engagement-question", attempt: 2)
        _ = try await provider.complete(simpleRequest(flavor), context: context)
        let requests = server.requests
        #expect(requests.count == 2)
        for request in requests {
            #expect(request.headers["x-lectern-item"] == "engagement-question/s02-t03")
            #expect(request.headers["x-lectern-attempt"] == "2")
        }
    }

    @Test("item ids that could break a header line are percent-encoded and decode back")
    func unsafeItemIDs() {
        let id = "lecture/s01 t02\r\nX-Evil: 1"
        let value = TracingHeaders.encode(id)
        #expect(!value.contains("\r") && !value.contains("\n") && !value.contains(" "))
        #expect(TracingHeaders.decode(value) == id)
        #expect(TracingHeaders.encode("render/lectures/01-02-loops.md") == "render/lectures/01-02-loops.md")
    }
}
