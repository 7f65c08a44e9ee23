import Foundation
import LecternCore

/// What every course stage needs from the spec: audience, language, tone, presets, and the
/// place of each topic in the curriculum.
public struct CourseJobContext: Sendable {
    public var spec: JobSpec
    public var course: CourseSpec
    public var curriculum: CurriculumSpec { course.curriculum }
    /// The combined tone instruction (presets + free text).
    public var toneInstruction: String
    public var curriculumPresetInstructions: String

    public init(spec: JobSpec, presets: PresetLibrary) throws {
        guard let course = spec.course else { throw PipelineError("the spec '\(spec.id)' is not a course") }
        self.spec = spec
        self.course = course
        self.toneInstruction = PromptText.tone(spec.tone, presets: presets)
        let curriculumInstructions = course.curriculum.presets.compactMap { presets.curriculum[$0]?.instructions }
        self.curriculumPresetInstructions =
            curriculumInstructions.isEmpty
            ? "a clear progression suited to the audience" : curriculumInstructions.joined(separator: " ")
    }

    var commonVariables: [String: String] {
        [
            "description": spec.description.trimmed,
            "audience": spec.audience,
            "language": PromptText.languageName(spec.language),
            "tone": toneInstruction,
            "course_title": course.outline?.title ?? "",
        ]
    }
}

/// A topic with its place in the curriculum: what every per-topic prompt tells the model.
public struct TopicPlace: Sendable, Hashable {
    public var subjectIndex: Int
    public var topicIndex: Int
    public var subjectCount: Int
    public var topicCount: Int
    public var subjectID: String
    public var subjectTitle: String
    public var topicID: String
    public var title: String
    public var objective: String
    public var previousTitle: String?
    public var nextTitle: String?

    /// `lectures/01-02-loops.md`'s stem.
    public var fileStem: String {
        String(format: "%02d-%02d-", subjectIndex + 1, topicIndex + 1) + Slug.make(title)
    }

    /// "2 of 3 in subject 1 of 2"
    public var positionText: String {
        "\(topicIndex + 1) of \(topicCount) in subject \(subjectIndex + 1) of \(subjectCount)"
    }

    public var contextText: String {
        "subject \(subjectIndex + 1) '\(subjectTitle)', topic \(topicIndex + 1) '\(title)'"
    }

    /// Every topic of an outline with its place, in reading order.
    public static func all(in outline: Outline) -> [TopicPlace] {
        let flat = outline.subjects.flatMap(\.topics)
        var places: [TopicPlace] = []
        var flatIndex = 0
        for (s, subject) in outline.subjects.enumerated() {
            for (t, topic) in subject.topics.enumerated() {
                places.append(
                    TopicPlace(
                        subjectIndex: s, topicIndex: t, subjectCount: outline.subjects.count, topicCount: subject.topics.count,
                        subjectID: subjectID(s), subjectTitle: subject.title, topicID: topicID(s, t), title: topic.title,
                        objective: topic.objective ?? "understand \(topic.title)",
                        previousTitle: flatIndex > 0 ? flat[flatIndex - 1].title : nil,
                        nextTitle: flatIndex + 1 < flat.count ? flat[flatIndex + 1].title : nil))
                flatIndex += 1
            }
        }
        return places
    }

    public static func subjectID(_ s: Int) -> String { String(format: "s%02d", s + 1) }
    public static func topicID(_ s: Int, _ t: Int) -> String { String(format: "s%02d-t%02d", s + 1, t + 1) }

    /// Variables shared by per-topic prompts.
    func variables(_ job: CourseJobContext, outline: Outline) -> [String: String] {
        var v = job.commonVariables
        v["course_title"] = outline.title
        v["topic_title"] = title
        v["topic_id"] = topicID
        v["topic_objective"] = objective
        v["subject_title"] = subjectTitle
        v["subject_id"] = subjectID
        v["position"] = positionText
        v["previous_topic"] = previousTitle.map { "\"\($0)\"" } ?? "none (this is the first topic)"
        v["next_topic"] = nextTitle.map { "\"\($0)\"" } ?? "none (this is the last topic)"
        return v
    }
}
