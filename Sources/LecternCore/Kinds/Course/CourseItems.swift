import Foundation

/// The names of a course's stages: what its items, events and `plan` rows are grouped by.
public enum CourseStages {
    public static let curriculum: StageName = "curriculum"
    public static let curriculumEdit: StageName = "curriculum-edit"
    public static let tonePreview: StageName = "tone-preview"
    public static let lecture: StageName = "lecture"
    public static let engagementQuestion: StageName = "engagement-question"
    public static let bonusQuestion: StageName = "bonus-question"
    public static let reinforcement: StageName = "reinforcement"
    public static let endingProject: StageName = "ending-project"
    public static let narration: StageName = "narrate"
    public static let flashcards: StageName = "flashcards"
    public static let practice: StageName = "practice"
}

/// The ids of a course's items: the one definition that planning, assembly and every reader of
/// a course bundle (preview, diff, exports, `lectern check`, quality.json) use.
public enum CourseItems {
    public static let curriculum = ItemID(CourseStages.curriculum)
    public static func curriculumEdit(_ n: Int) -> ItemID { ItemID(CourseStages.curriculumEdit, "\(n)") }
    public static let tonePreview = ItemID(CourseStages.tonePreview)
    public static func lecture(_ topicID: String) -> ItemID { ItemID(CourseStages.lecture, topicID) }
    public static func engagementQuestion(_ topicID: String) -> ItemID { ItemID(CourseStages.engagementQuestion, topicID) }
    public static func bonusQuestion(_ topicID: String) -> ItemID { ItemID(CourseStages.bonusQuestion, topicID) }
    /// A topic's reinforcement pool as a whole (what `lectern check` flags when a level is missing).
    public static func reinforcementPool(_ topicID: String) -> ItemID { ItemID(CourseStages.reinforcement, topicID) }
    public static func reinforcement(_ topicID: String, level: Int) -> ItemID { ItemID(CourseStages.reinforcement, topicID, "level-\(level)") }
    public static func endingProject(_ subjectID: String) -> ItemID { ItemID(CourseStages.endingProject, subjectID) }
    public static func narration(_ topicID: String) -> ItemID { ItemID(CourseStages.narration, topicID) }
    public static func flashcards(_ topicID: String) -> ItemID { ItemID(CourseStages.flashcards, topicID) }
    /// Practice question `number` (from 1) of a topic's set.
    public static func practice(_ topicID: String, number: Int) -> ItemID { ItemID(CourseStages.practice, topicID, String(format: "q-%02d", number)) }
    /// The rendering of `<path>.md` to `<path>.xhtml`.
    public static func render(_ path: String) -> ItemID { ItemID(.render, path) }
}
