import Foundation
import LecternBundle
import LecternCore
import LecternLLM
import Testing

@testable import LecternPipeline

/// The two example jobs in pipelines/examples, run end to end with a scripted provider in place
/// of the local model.
struct ExampleJobTests {
    static func example(_ name: String) throws -> JobSpec {
        let url = Workspace.repository.appendingPathComponent("pipelines/examples/\(name).yaml")
        var spec = try SpecLoader(presets: try Workspace.presets()).load(url)
        #expect(spec.model.provider == .local, "the examples run on the local model by default")
        spec.model.provider = .scripted
        return spec
    }

    func run(_ name: String, script: String) async throws -> (Course, [String: Data], RecordingProvider) {
        let ws = try Workspace()
        let scriptURL = ws.root.appendingPathComponent("s.json")
        try FileManager.default.copyItem(at: Workspace.fixtures.appendingPathComponent(script), to: scriptURL)
        let provider = try RecordingProvider(script: scriptURL)
        let result = try await ws.run(try Self.example(name), provider: provider)
        #expect(result.status == .complete, "\(result.failures)")
        guard case .written(let dir)? = result.bundle else { throw PipelineError("no bundle for \(name)") }
        #expect(try BundleVerifier.verify(dir).problems.isEmpty)
        let files = Workspace.files(dir)
        let course = try JSONDecoder().decode(Course.self, from: try #require(files["course.json"]))
        return (course, files, provider)
    }

    @Test func pythonBasics() async throws {
        let (course, files, _) = try await run("python-basics", script: "course-script.json")
        #expect(course.id == "python-basics" && course.subjects.count == 2)
        #expect(course.subjects.allSatisfy { (2...3).contains($0.topics.count) })
        for topic in course.subjects.flatMap(\.topics) {
            #expect(topic.lecture.flatMap { files[$0.path] } != nil)
            #expect(topic.engagementQuestion != nil && topic.bonusQuestion != nil)
            #expect(topic.reinforcement?.count == 4)
        }
        #expect(course.subjects.allSatisfy { $0.project != nil })
        #expect(course.tonePreview != nil)
    }

    @Test func introProbabilityIsMathHeavy() async throws {
        let (course, files, provider) = try await run("intro-probability", script: "probability-script.json")
        #expect(course.title == "Introduction to Probability")
        #expect(course.subjects.count == 3)
        let lectures = course.subjects.flatMap(\.topics).compactMap { $0.lecture.flatMap { files[$0.path] } }.map {
            String(decoding: $0, as: UTF8.self)
        }
        #expect(lectures.count == 7 && lectures.allSatisfy { $0.contains("$$") && $0.contains("\\frac") })
        #expect(course.subjects.flatMap(\.topics).allSatisfy { $0.reinforcement == nil }, "reinforcement is off in this example")
        // Both presets reach the curriculum prompt.
        let curriculum = try #require(provider.requests.first { $0.0.itemID == "curriculum" && $0.0.stage != BlindSolver.stage }?.1.messages.last?.content)
        #expect(curriculum.contains("most basic to the most advanced") && curriculum.contains("exam"))
    }
}
