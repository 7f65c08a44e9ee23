import Foundation
import LecternCore
import LecternLLM

/// Produces the curriculum outline (title → subjects → topics with objectives) from the
/// description, presets and size bounds; with an `edit`, revises a given outline instead.
public struct CurriculumStage: Sendable {
    public static let name = CourseStages.curriculum
    public static let editName = CourseStages.curriculumEdit

    struct Answer: Decodable {
        struct Subject: Decodable {
            var title: String
            var topics: [Topic]
        }
        struct Topic: Decodable {
            var title: String
            var objective: String
        }
        var title: String
        var subjects: [Subject]
    }

    /// The schema with the spec's size bounds as array bounds: schema-constrained decoding
    /// (llama.cpp's grammar, OpenAI's strict mode) then cannot produce the wrong number of
    /// subjects or topics, which small models otherwise often do.
    static func schema(subjects: SizeRange, topics: SizeRange) -> ResponseSchema {
        ResponseSchema(
            name: "curriculum",
            schema: SchemaParts.object(
                [
                    "title": SchemaParts.string,
                    "subjects": SchemaParts.array(
                        SchemaParts.object(
                            [
                                "title": SchemaParts.string,
                                "topics": SchemaParts.array(
                                    SchemaParts.object(
                                        ["title": SchemaParts.string, "objective": SchemaParts.string], required: ["title", "objective"]),
                                    min: topics.min, max: topics.max),
                            ], required: ["title", "topics"]), min: subjects.min, max: subjects.max),
                ], required: ["title", "subjects"]))
    }

    /// The schema for this job's bounds.
    var schema: ResponseSchema { Self.schema(subjects: job.curriculum.subjects, topics: job.curriculum.topicsPerSubject) }

    /// "exactly 2" or "between 2 and 4".
    static func count(_ range: SizeRange) -> String {
        range.min == range.max ? "exactly \(range.min)" : "between \(range.min) and \(range.max)"
    }

    public let job: CourseJobContext

    public init(job: CourseJobContext) { self.job = job }

    func check(_ text: String) -> AnswerCheck<Outline> {
        switch AnswerParsing.decode(Answer.self, from: text) {
        case .failure(let errors): return .invalid(errors)
        case .success(let answer):
            let outline = Outline(
                title: answer.title.trimmed,
                subjects: answer.subjects.map { subject in
                    OutlineSubject(
                        title: subject.title.trimmed,
                        topics: subject.topics.map {
                            OutlineTopic(title: $0.title.trimmed, objective: $0.objective.trimmed)
                        })
                })
            let issues =
                CurriculumRules.check(outline, subjects: job.curriculum.subjects, topicsPerSubject: job.curriculum.topicsPerSubject)
                + CurriculumRules.droppedPromises(description: job.spec.description, outline: outline, language: job.spec.language)
            return .judged(outline, by: issues)
        }
    }

    /// The call that generates the first outline.
    public func generate(itemID: String) throws -> ModelCall<Outline> {
        var variables = job.commonVariables
        variables["preset_instructions"] = job.curriculumPresetInstructions
        variables["subjects_range"] = Self.count(job.curriculum.subjects)
        variables["topics_range"] = Self.count(job.curriculum.topicsPerSubject)
        variables["schema"] = AnswerParsing.schemaText(schema)
        return ModelCall(
            itemID: itemID, stage: Self.name, template: try PromptLibrary.template("course/curriculum"), variables: variables, schema: schema,
            check: { [self] in check($0) })
    }

    /// The call that applies one edit instruction to `outline`.
    public func edit(itemID: String, outline: Outline, instruction: String) throws -> ModelCall<Outline> {
        var variables = job.commonVariables
        variables["course_title"] = outline.title
        variables["edit"] = instruction
        variables["curriculum_json"] = (try? CanonicalJSON.string(outline)) ?? ""
        variables["subjects_range"] = Self.count(job.curriculum.subjects)
        variables["topics_range"] = Self.count(job.curriculum.topicsPerSubject)
        variables["schema"] = AnswerParsing.schemaText(schema)
        return ModelCall(
            itemID: itemID, stage: Self.editName, template: try PromptLibrary.template("course/curriculum-edit"), variables: variables, schema: schema,
            check: { [self] in check($0) })
    }
}
