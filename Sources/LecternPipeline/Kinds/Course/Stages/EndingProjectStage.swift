import Foundation
import LecternCore
import LecternLLM

/// The ending project of each subject (FR-008 add-on): harder than the engagement questions,
/// with requirements, deliverables and a rubric.
public struct EndingProjectStage: Sendable {
    public static let name = CourseStages.endingProject

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

    /// The project of subject `subjectIndex`. With `lectures` (every lecture of the subject, in
    /// order), a requirement that needs a later subject's topic is refused; without them (a
    /// lecture failed) that check is left out rather than judged on part of what was taught.
    public func call(itemID: String, subjectIndex: Int, outline: Outline, lectures: [String]? = nil) throws -> ModelCall<EndingProject> {
        let subject = outline.subjects[subjectIndex]
        let subjectID = TopicPlace.subjectID(subjectIndex)
        var variables = job.commonVariables
        variables["course_title"] = outline.title
        variables["subject_id"] = subjectID
        variables["subject_title"] = subject.title
        variables["subject_topics"] = subject.topics.enumerated().map { "- \($0.element.title): \($0.element.objective ?? "")" }.joined(
            separator: "\n")
        variables["schema"] = AnswerParsing.schemaText(Self.schema)
        let language = job.spec.language
        let taught = lectures.map { lectures in
            (subject.topics.map { "\($0.title) \($0.objective ?? "")" } + lectures).joined(separator: "\n")
        }
        // What the course teaches up to this subject: the topics of the subjects before it (their
        // lectures are not waited for) and this subject's topics and lectures.
        let taughtSoFar = taught.map { taught in
            (outline.subjects.prefix(subjectIndex).flatMap(\.topics).map { "\($0.title) \($0.objective ?? "")" } + [taught]).joined(separator: "\n")
        }
        // The prompt gives the subject's topics, not the spec's description: the local model took
        // "repeating work, and organising code into functions" from python-basics' description,
        // which promises more than the curriculum's two subjects hold, into 8 projects in a row.
        // (Naming the untaught terms in the prompt made it worse: "Function: How do you create a
        // function in Python?" as the first requirement, 4 attempts of 4.)
        let later = outline.subjects.enumerated().dropFirst(subjectIndex + 1).flatMap { index, later in
            later.topics.map { ProjectRules.LaterTopic(subjectID: TopicPlace.subjectID(index), title: $0.title) }
        }
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
                        rubric: ProjectRules.scaled(
                            a.rubric.map { RubricCriterion(criterion: $0.criterion, points: $0.points, excellent: $0.excellent) }))
                    var issues = ProjectRules.check(project, expectedSubjectID: subjectID)
                    if let taught, let taughtSoFar, let lectures {
                        issues += ProjectRules.laterTopicIssues(project, taught: taught, later: later, language: language)
                        issues += ProjectRules.untaughtTermIssues(project, taught: taughtSoFar, lectures: lectures, language: language)
                    }
                    return .judged(project, by: issues)
                }
            })
    }
}
