import Foundation
import LecternCore
import LecternLLM

/// The ending project of each subject (FR-008 add-on): harder than the engagement questions,
/// with requirements, deliverables and a rubric.
public struct EndingProjectStage: Sendable {
    public static let name: StageName = "ending-project"

    struct Answer: Decodable {
        struct Criterion: Decodable {
            var criterion: String
            var points: Int
            var excellent: String
        }
        var subject_id: String
        var title: String
        var brief: String
        var requirements: [String]
        var deliverables: [String]
        var rubric: [Criterion]
    }

    static let schema = ResponseSchema(
        name: "ending_project",
        schema: SchemaParts.object(
            [
                "subject_id": SchemaParts.string, "title": SchemaParts.string, "brief": SchemaParts.string,
                "requirements": SchemaParts.array(SchemaParts.string, min: 3), "deliverables": SchemaParts.array(SchemaParts.string, min: 1),
                "rubric": SchemaParts.array(
                    SchemaParts.object(
                        ["criterion": SchemaParts.string, "points": ["type": "integer"], "excellent": SchemaParts.string],
                        required: ["criterion", "points", "excellent"]), min: 3, max: 6),
            ], required: ["subject_id", "title", "brief", "requirements", "deliverables", "rubric"]))

    public let job: CourseJobContext
    public init(job: CourseJobContext) { self.job = job }

    public func call(itemID: String, subjectIndex: Int, outline: Outline) throws -> ModelCall<EndingProject> {
        let subject = outline.subjects[subjectIndex]
        let subjectID = TopicPlace.subjectID(subjectIndex)
        var variables = job.commonVariables
        variables["course_title"] = outline.title
        variables["subject_id"] = subjectID
        variables["subject_title"] = subject.title
        variables["subject_topics"] = subject.topics.enumerated().map { "- \($0.element.title): \($0.element.objective ?? "")" }.joined(
            separator: "\n")
        variables["schema"] = AnswerParsing.schemaText(Self.schema)
        return ModelCall(
            itemID: itemID, stage: Self.name, template: try PromptLibrary.template("course/ending-project"), variables: variables, schema: Self.schema,
            check: { text in
                switch AnswerParsing.decode(Answer.self, from: text) {
                case .failure(let errors): return .invalid(errors)
                case .success(let a):
                    let project = EndingProject(
                        subjectID: a.subject_id.trimmed, title: a.title.trimmed,
                        brief: a.brief.trimmed,
                        requirements: a.requirements.map { $0.trimmed }.filter { !$0.isEmpty },
                        deliverables: a.deliverables.map { $0.trimmed }.filter { !$0.isEmpty },
                        rubric: a.rubric.map { RubricCriterion(criterion: $0.criterion, points: $0.points, excellent: $0.excellent) })
                    let issues = ProjectRules.check(project, expectedSubjectID: subjectID)
                    return .judged(project, by: issues)
                }
            })
    }
}
