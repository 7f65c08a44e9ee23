import Foundation
import LecternCore
import LecternLLM

/// One Markdown lecture per topic: one H1, sections, code/math/quotes where the subject calls
/// for them, in the tone, aware of its neighbours so lectures do not repeat each other.
public struct LectureStage: Sendable {
    public static let name = CourseStages.lecture
    public let job: CourseJobContext

    public init(job: CourseJobContext) { self.job = job }

    public func call(itemID: String, place: TopicPlace, outline: Outline) throws -> ModelCall<String> {
        // Only the neighbours, not the whole outline: a lecture then depends on its own topic and
        // the two beside it, so editing one title regenerates three lectures, not all of them.
        let variables = place.variables(job, outline: outline)
        let title = place.title
        return ModelCall(
            itemID: itemID, stage: Self.name, template: try PromptLibrary.template("course/lecture"), variables: variables, schema: nil,
            check: { text in
                // Small models wrap the whole answer in ```markdown fences: unwrap, then check.
                let markdown = LectureRules.unwrapFence(text).trimmed + "\n"
                let issues = LectureRules.check(markdown, topicTitle: title)
                return .judged(markdown, by: issues)
            })
    }
}
