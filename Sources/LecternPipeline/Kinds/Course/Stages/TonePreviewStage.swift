import Foundation
import LecternCore
import LecternLLM

/// A short sample of the tone of delivery on one topic (FR-008 step 2), picked deterministically.
public struct TonePreviewStage: Sendable {
    public static let name = CourseStages.tonePreview
    public let job: CourseJobContext

    public init(job: CourseJobContext) { self.job = job }

    /// The topic the preview is written on: chosen by a hash of the course id and the number of
    /// topics, so it is stable for a job and does not move when a title is edited.
    public static func pick(_ places: [TopicPlace], courseID: String) -> TopicPlace? {
        guard !places.isEmpty else { return nil }
        let digest = SHA256Digest.hex(courseID + "\n\(places.count)")
        let index = Int(digest.prefix(8), radix: 16).map { $0 % places.count } ?? 0
        return places[index]
    }

    public func call(itemID: String, place: TopicPlace, outline: Outline) throws -> ModelCall<String> {
        let title = place.title
        return ModelCall(
            itemID: itemID, stage: Self.name, template: try PromptLibrary.template("course/tone-preview"),
            variables: place.variables(job, outline: outline), schema: nil,
            check: { text in
                let markdown = LectureRules.unwrapFence(text).trimmed + "\n"
                let words = LectureRules.wordCount(markdown)
                if words < 40 { return .invalid([Refusal(.stageRules, "the sample is too short (\(words) words; write 120 to 200 words)")]) }
                if words > 600 { return .invalid([Refusal(.stageRules, "the sample is too long (\(words) words; write 120 to 200 words)")]) }
                if !markdown.hasPrefix("#") { return .invalid([Refusal(.stageRules, "start the sample with '# \(title)'")]) }
                let links = LectureRules.checkLocalLinks(markdown, document: "the sample")
                if !links.isEmpty { return .invalid(links.map(\.refusal)) }
                return .valid(markdown, warnings: [])
            })
    }
}
