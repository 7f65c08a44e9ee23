import Foundation
import LecternBundle
import LecternCore
import LecternLLM
import Testing

@testable import LecternPipeline

/// Whole course runs through the real runner, engine, cache and bundle writer, answered by a
/// scripted provider.
struct CourseRunTests {
    @Test func aCompleteCourseBundle() async throws {
        let ws = try Workspace()
        let provider = try RecordingProvider(script: ws.script())
        let result = try await ws.run(try Workspace.spec(Specs.python), provider: provider)
        #expect(result.status == .complete)
        guard case .written(let dir)? = result.bundle else {
            Issue.record("no bundle: \(result.failures)")
            return
        }
        let files = Workspace.files(dir)
        let course = try JSONDecoder().decode(Course.self, from: try #require(files["course.json"]))
        #expect(course.title == "Python Basics")
        #expect(course.subjects.map { $0.topics.count } == [3, 2])
        for topic in course.subjects.flatMap(\.topics) {
            let lecture = try #require(topic.lecture)
            let markdown = String(decoding: try #require(files[lecture.path]), as: UTF8.self)
            #expect(markdown.hasPrefix("# \(topic.title)\n"), "the ```markdown fence is unwrapped")
            #expect(lecture.readingMinutes >= 1)
            #expect(topic.engagementQuestion?.format == .multipleChoice)
            #expect(topic.engagementQuestion?.topicID == topic.id)
            #expect(topic.bonusQuestion?.format == .freeText)
            #expect(topic.reinforcement?.map(\.level) == [1, 2, 3, 4])
            #expect(topic.reinforcement?.allSatisfy { $0.occurrence == 7 } == true)
        }
        #expect(course.subjects.allSatisfy { $0.project != nil })
        #expect(course.tonePreview != nil && files["tone-preview.md"] != nil)
        #expect(course.tone.instruction.contains("five-year-old") && course.tone.instruction.contains("everyday analogies"))
        // 1 curriculum + 1 tone preview + 5 × (lecture, question, bonus, 4 pool levels) + 2 projects,
        // and a blind solve of each multiple-choice question (5 engagement, 10 pool levels 1–2).
        #expect(provider.calls.count == 39 + 15)
        let report = try BundleVerifier.verify(dir)
        #expect(report.problems.isEmpty)
        #expect(report.manifest.promptTemplates.contains("lecture@1"))
        #expect(report.manifest.usage.calls == 39 + 15)
        #expect(report.manifest.specHash == (try Workspace.spec(Specs.python)).hash)
    }

    @Test func rerunningAnUnchangedJobCallsNothingAndWritesNothing() async throws {
        let ws = try Workspace()
        let spec = try Workspace.spec(Specs.python)
        let first = try await ws.run(spec, provider: try RecordingProvider(script: ws.script()))
        guard case .written(let dir)? = first.bundle else { throw PipelineError("no bundle") }
        let before = Workspace.files(dir)
        let attributes = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("manifest.json").path)
        let second = RecordingProvider.self
        let provider = try second.init(script: ws.script())
        let result = try await ws.run(spec, provider: provider)
        #expect(provider.calls.isEmpty)
        #expect(result.bundle == .unchanged(dir))
        #expect(Workspace.files(dir) == before)
        let after = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("manifest.json").path)
        #expect(attributes[.modificationDate] as? Date == after[.modificationDate] as? Date)
        // The checks' verdicts were kept with the exchanges: the re-run reads them, it runs no rule.
        let firstVerdicts = try #require(first.checkVerdicts)
        let verdicts = try #require(result.checkVerdicts)
        #expect(firstVerdicts.computed > 20, "the first run judged every answer: \(firstVerdicts)")
        #expect(verdicts.computed == 0, "\(verdicts)")
        // Fewer than were computed: a verdict read whole (the bank's lint) needs none of its parts'.
        #expect(verdicts.reused > 20 && verdicts.reused <= firstVerdicts.computed, "\(verdicts) after \(firstVerdicts)")
    }

    @Test func changingTheToneRerunsExactlyTheItemsThatUseIt() async throws {
        let ws = try Workspace()
        let spec = try Workspace.spec(Specs.python)
        _ = try await ws.run(spec, provider: try RecordingProvider(script: ws.script()))
        var changed = try Workspace.spec(
            Specs.python.replacingOccurrences(of: "text: friendly, with everyday analogies", with: "text: solemn and exact"))
        changed.version = "1.0.1"
        let provider = try RecordingProvider(script: ws.script())
        let result = try await ws.run(changed, provider: provider)
        #expect(result.status == .complete)
        // The tone reaches every prompt but the curriculum's.
        let topics = ["s01-t01", "s01-t02", "s01-t03", "s02-t01", "s02-t02"]
        let all = Set(
            ["lecture", "engagement-question", "bonus-question"].flatMap { stage in topics.map { "\(stage)/\($0)" } }
                + topics.flatMap { topic in (1...4).map { "reinforcement/\(topic)/level-\($0)" } }
        ).union(["tone-preview", "ending-project/s01", "ending-project/s02"])
        #expect(Set(provider.calledItems) == all)
        #expect(provider.calls.count == all.count, "no item is called twice")
    }

    @Test func changingOneTopicTitleRerunsOnlyItsDependents() async throws {
        let ws = try Workspace()
        let spec = try Workspace.spec(Specs.pinned)
        let first = try await ws.run(spec, provider: try RecordingProvider(script: ws.script()))
        #expect(first.status == .complete)
        var edited = try Workspace.spec(Specs.pinned.replacingOccurrences(of: "title: Loops,", with: "title: Loops and iteration,"))
        edited.version = "1.0.1"
        let provider = try RecordingProvider(script: ws.script())
        let result = try await ws.run(edited, provider: provider)
        #expect(result.status == .complete)
        var expected: Set<String> = [
            // The topic itself, and the lectures beside it (they name it as previous/next).
            "lecture/s01-t01", "lecture/s01-t02", "lecture/s01-t03",
            "engagement-question/s01-t02", "engagement-question/s01-t02/blind-solve", "bonus-question/s01-t02",
            // The subject's project lists its topics.
            "ending-project/s01",
        ]
        let places = TopicPlace.all(in: try #require(edited.course?.outline))
        if TonePreviewStage.pick(places, courseID: edited.id)?.topicID == "s01-t02" { expected.insert("tone-preview") }
        #expect(Set(provider.calledItems) == expected)
        #expect(provider.calls.count == expected.count)
    }

    @Test func curriculumEditsApplyInOrder() async throws {
        let ws = try Workspace()
        let spec = try Workspace.spec(
            Specs.python.replacingOccurrences(
                of: "  topics_per_subject: { min: 2, max: 3 }",
                with: "  topics_per_subject: { min: 1, max: 3 }\n  edits: [\"Drop conditions and return values.\"]"))
        let provider = try RecordingProvider(script: ws.script())
        let result = try await ws.run(spec, provider: provider)
        #expect(result.status == .complete)
        #expect(provider.calledItems.prefix(2) == ["curriculum", "curriculum-edit/1"])
        let editRequest = try #require(provider.requests.first { $0.0.itemID == "curriculum-edit/1" }?.1)
        #expect(editRequest.messages.last?.content.contains("Drop conditions and return values.") == true)
        #expect(editRequest.messages.last?.content.contains("\"Conditions\"") == true, "the edit sees the current curriculum")
        guard case .written(let dir)? = result.bundle else { throw PipelineError("no bundle") }
        let course = try JSONDecoder().decode(Course.self, from: Data(contentsOf: dir.appendingPathComponent("course.json")))
        #expect(course.title == "Python Basics (edited)")
        #expect(course.subjects.flatMap(\.topics).count == 3)
    }

    @Test func everyPromptCarriesPlaceAudienceToneAndSchema() async throws {
        let ws = try Workspace()
        let provider = try RecordingProvider(script: ws.script())
        _ = try await ws.run(try Workspace.spec(Specs.python), provider: provider)
        // A blind solver sees the question as a learner does, without the course around it.
        for (context, request) in provider.requests where context.stage != "curriculum" && context.stage != BlindSolver.stage {
            let text = request.messages.map(\.content).joined(separator: "\n")
            #expect(text.contains("who have never written code") || text.contains("curious adults"), "\(context.itemID): audience")
            #expect(text.contains("five-year-old"), "\(context.itemID): tone")
            if context.itemID.contains("/s") && !context.itemID.hasPrefix("ending-project") {
                #expect(text.contains(" of ") && text.contains("in subject"), "\(context.itemID): place in the curriculum")
            }
            if let schema = request.responseSchema {
                #expect(text.contains(schema.schema.schemaOrderedText), "\(context.itemID): schema in the prompt")
            }
        }
    }
}

/// Every stage's schema is accepted by OpenAI's strict structured output.
struct SchemaTests {
    @Test func everyStageSchemaIsStrictCompatible() {
        let schemas =
            [
                CurriculumStage.schema(subjects: SizeRange(min: 2, max: 4), topics: SizeRange(min: 1, max: 3)), EndingProjectStage.schema,
                EngagementQuestionStage.schema(.multipleChoice), EngagementQuestionStage.schema(.freeText),
            ] + ReinforcementStage.levels.map { ReinforcementStage.schema(level: $0) }
        for schema in schemas { #expect(StrictSchema.isCompatible(schema.schema), "\(schema.name)") }
        #expect(
            !StrictSchema.isCompatible(["type": "object", "properties": ["a": ["type": "string"]], "required": [], "additionalProperties": false]))
    }
}
