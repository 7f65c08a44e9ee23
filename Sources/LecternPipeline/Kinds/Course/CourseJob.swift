import Foundation
import LecternBundle
import LecternCore
import LecternLLM

/// The `course` kind: expands a course spec into work items (curriculum, its edits, tone
/// preview, lectures, engagement and bonus questions, reinforcement pools, ending projects,
/// renderings; ids in `CourseItems`) and assembles their results into `course.json` and its
/// documents.
public struct CourseJob: GenerationJob {
    public let job: CourseJobContext
    public let runner: ModelCallRunner
    /// Renders Markdown to XHTML; nil skips the `.xhtml` renditions.
    public let renderer: (any DocumentRenderer)?

    /// The curriculum and its edits: every topic's work depends on the final outline. (A
    /// subject's ending project reads its lectures: `shardKey(of:)` keeps them in one shard.)
    public static let sharedStages: Set<StageName> = [CurriculumStage.name, CurriculumStage.editName]

    public static let stages: [StageInfo] = [
        StageInfo(CurriculumStage.name, typicalTokens: 1_400), StageInfo(CurriculumStage.editName, typicalTokens: 2_000),
        StageInfo(TonePreviewStage.name, typicalTokens: 700), StageInfo(LectureStage.name, typicalTokens: 2_400),
        StageInfo(.render, typicalTokens: 0), StageInfo(EngagementQuestionStage.name, typicalTokens: 2_300, blindSolves: 1),
        StageInfo(EngagementQuestionStage.bonusName, typicalTokens: 900), StageInfo(ReinforcementStage.name, typicalTokens: 1_400, blindSolves: 0.5),
        StageInfo(EndingProjectStage.name, typicalTokens: 1_300), StageInfo(Narrator.name, typicalTokens: 0),
        StageInfo(FlashcardStage.name, typicalTokens: 2_600), StageInfo(PracticeStage.name, typicalTokens: 1_500, blindSolves: 1),
    ]

    /// Speech synthesis for the `narration` add-on.
    public let speech: SpeechSetup?

    public init(environment: JobEnvironment) throws {
        self.init(
            job: try CourseJobContext(spec: environment.spec, presets: environment.presets), runner: environment.runner,
            renderer: environment.renderer, speech: environment.speech)
    }

    public init(job: CourseJobContext, runner: ModelCallRunner, renderer: (any DocumentRenderer)?, speech: SpeechSetup? = nil) {
        self.job = job
        self.runner = runner
        self.renderer = renderer
        self.speech = speech
    }

    /// The id of the item whose value is the final outline.
    var finalCurriculumID: ItemID {
        job.curriculum.edits.isEmpty ? CourseItems.curriculum : CourseItems.curriculumEdit(job.curriculum.edits.count)
    }

    // MARK: Planning

    /// The items a run starts with; the final curriculum item spawns the rest.
    public func initialItems() -> [WorkItem] {
        var items: [WorkItem] = []
        let edits = job.curriculum.edits
        let curriculumSpawns = edits.isEmpty
        if let pinned = job.course.outline {
            items.append(
                WorkItem(id: CourseItems.curriculum, stage: CurriculumStage.name, context: "pinned outline", usesModel: false) { [self] _ in
                    WorkOutput(value: pinned, spawn: curriculumSpawns ? contentItems(for: pinned) : [])
                })
        } else {
            items.append(
                WorkItem(id: CourseItems.curriculum, stage: CurriculumStage.name, context: "course curriculum") { [self] _ in
                    let (outline, report) = try await runner.run(try CurriculumStage(job: job).generate(itemID: CourseItems.curriculum.rawValue))
                    return WorkOutput(value: outline, report: report, spawn: curriculumSpawns ? contentItems(for: outline) : [])
                })
        }
        for (index, instruction) in edits.enumerated() {
            let id = CourseItems.curriculumEdit(index + 1)
            let previous = index == 0 ? CourseItems.curriculum : CourseItems.curriculumEdit(index)
            let isLast = index == edits.count - 1
            items.append(
                WorkItem(id: id, stage: CurriculumStage.editName, context: "edit \(index + 1): \(instruction.prefix(60))", dependencies: [previous]) {
                    [self] context in
                    let current = try context.results.value(previous, as: Outline.self)
                    let (outline, report) = try await runner.run(
                        try CurriculumStage(job: job).edit(itemID: id.rawValue, outline: current, instruction: instruction))
                    return WorkOutput(value: outline, report: report, spawn: isLast ? contentItems(for: outline) : [])
                })
        }
        return items
    }

    /// Every item that follows from an outline.
    public func contentItems(for outline: Outline) -> [WorkItem] {
        let root = finalCurriculumID
        let places = TopicPlace.all(in: outline)
        let addons = job.course.addons
        var items: [WorkItem] = []

        if let place = TonePreviewStage.pick(places, courseID: job.spec.id) {
            items.append(
                modelItem(CourseItems.tonePreview, stage: TonePreviewStage.name, context: place.contextText, after: [root]) { [self] _ in
                    try TonePreviewStage(job: job).call(itemID: CourseItems.tonePreview.rawValue, place: place, outline: outline)
                } wrap: { markdown in
                    TonePreviewValue(topicID: place.topicID, markdown: markdown)
                })
            if renderer != nil {
                items.append(
                    renderItem(path: "tone-preview", source: CourseItems.tonePreview, title: "Tone preview: \(place.title)") {
                        ($0 as? TonePreviewValue)?.markdown
                    })
            }
        }
        for place in places {
            let lectureID = CourseItems.lecture(place.topicID)
            items.append(
                modelItem(lectureID, stage: LectureStage.name, context: place.contextText, after: [root], shardKey: shardKey(of: place)) { [self] _ in
                    try LectureStage(job: job).call(itemID: lectureID.rawValue, place: place, outline: outline)
                })
            if renderer != nil {
                items.append(renderItem(path: "lectures/\(place.fileStem)", source: lectureID, title: place.title) { $0 as? String })
            }
            if addons.narration {
                let narrationID = CourseItems.narration(place.topicID)
                let (speech, language) = (self.speech, job.spec.language)
                items.append(
                    WorkItem(id: narrationID, stage: Narrator.name, context: place.contextText, dependencies: [lectureID], usesModel: false) { done in
                        guard let speech else {
                            throw ItemFailureError(reason: .internal, attempts: 0, errors: ["no speech provider is set up for the narration add-on"])
                        }
                        let narrator = Narrator(setup: speech, language: language)
                        let markdown = try done.results.value(lectureID, as: String.self)
                        let (narrated, spoken) = try await narrator.narrate(markdown: markdown, title: place.title)
                        // Not a model answer (attempts 0): the run's quality counts are the same
                        // whether it was spoken now or read from the cache.
                        let report = ItemReport(
                            id: narrationID.rawValue, stage: Narrator.name.rawValue, attempts: 0, usage: TokenUsage(), paidUsage: TokenUsage(),
                            costUSD: 0, cached: !spoken, latency: .zero)
                        return WorkOutput(value: narrated, report: report)
                    })
            }
            if addons.engagementQuestions {
                let questionID = CourseItems.engagementQuestion(place.topicID)
                items.append(
                    modelItem(questionID, stage: EngagementQuestionStage.name, context: place.contextText, after: [lectureID]) { [self] done in
                        try EngagementQuestionStage(job: job).engagement(
                            itemID: questionID.rawValue, place: place, outline: outline, lecture: try done.results.value(lectureID, as: String.self))
                    })
                let bonusID = CourseItems.bonusQuestion(place.topicID)
                items.append(
                    modelItem(bonusID, stage: EngagementQuestionStage.bonusName, context: place.contextText, after: [lectureID, questionID]) {
                        [self] done in
                        try EngagementQuestionStage(job: job).bonus(
                            itemID: bonusID.rawValue, place: place, outline: outline, lecture: try done.results.value(lectureID, as: String.self),
                            first: try done.results.value(questionID, as: Question.self))
                    })
            }
            if addons.flashcards {
                let id = CourseItems.flashcards(place.topicID)
                items.append(
                    modelItem(id, stage: FlashcardStage.name, context: place.contextText, after: [lectureID]) { [self] done in
                        try FlashcardStage(job: job).call(itemID: id.rawValue, place: place, outline: outline, lecture: try done.results.value(lectureID, as: String.self))
                    })
            }
            if addons.practice {
                items += practiceItems(place: place, outline: outline)
            }
            if addons.reinforcement {
                // Each level waits for the topic's questions before it, and may not ask what they ask.
                let questions =
                    addons.engagementQuestions ? [CourseItems.engagementQuestion(place.topicID), CourseItems.bonusQuestion(place.topicID)] : []
                for level in ReinforcementStage.levels {
                    let id = CourseItems.reinforcement(place.topicID, level: level)
                    let lower = ReinforcementStage.levels.prefix { $0 < level }.map { CourseItems.reinforcement(place.topicID, level: $0) }
                    items.append(
                        modelItem(id, stage: ReinforcementStage.name, context: place.contextText + ", level \(level)", after: [lectureID], waitingFor: questions + lower) {
                            [self] done in
                            // Those that failed are not there to repeat.
                            let earlier =
                                questions.compactMap { id in done.results.optionalValue(id, as: Question.self).map { (id.rawValue, $0.prompt) } }
                                + lower.compactMap { id in done.results.optionalValue(id, as: ReinforcementQuestion.self).map { (id.rawValue, $0.prompt) } }
                            return try ReinforcementStage(job: job).call(
                                itemID: id.rawValue, place: place, outline: outline,
                                lecture: try done.results.value(lectureID, as: String.self), level: level, earlier: earlier)
                        })
                }
            }
        }
        if addons.endingProjects {
            for (index, subject) in outline.subjects.enumerated() {
                let id = CourseItems.endingProject(TopicPlace.subjectID(index))
                // It waits for the subject's lectures, to hold its requirements to what they teach.
                let lectures = places.filter { $0.subjectIndex == index }.map { CourseItems.lecture($0.topicID) }
                items.append(
                    modelItem(
                        id, stage: EndingProjectStage.name, context: "subject \(index + 1) '\(subject.title)'", after: [root], waitingFor: lectures,
                        shardKey: TopicPlace.subjectID(index)
                    ) {
                        [self] done in
                        let texts = lectures.compactMap { done.results.optionalValue($0, as: String.self) }
                        return try EndingProjectStage(job: job).call(
                            itemID: id.rawValue, subjectIndex: index, outline: outline, lectures: texts.count == lectures.count ? texts : nil)
                    })
            }
        }
        return items
    }

    /// The shard key of a topic's work (`WorkItem.shardKey`; its other items follow its
    /// lecture): the subject's id when ending projects are on, since a project reads every lecture
    /// of its subject and must run in their shard for the assembling run to ask nothing; else the
    /// topic's own id, which spreads the work more evenly.
    func shardKey(of place: TopicPlace) -> String {
        job.course.addons.endingProjects ? place.subjectID : place.topicID
    }

    /// A topic's practice set: question 1 waits for the lecture and the topic's other questions,
    /// each later one for the one before; each is checked against every question the topic has
    /// so far, and given the part of the lecture they touch least.
    func practiceItems(place: TopicPlace, outline: Outline) -> [WorkItem] {
        let addons = job.course.addons
        let lectureID = CourseItems.lecture(place.topicID)
        let others: [ItemID] =
            (addons.engagementQuestions ? [CourseItems.engagementQuestion(place.topicID), CourseItems.bonusQuestion(place.topicID)] : [])
            + (addons.reinforcement ? ReinforcementStage.levels.map { CourseItems.reinforcement(place.topicID, level: $0) } : [])
        let count = job.course.practice.perTopic
        return (1...count).map { number in
            let id = CourseItems.practice(place.topicID, number: number)
            let earlier = (1..<number).map { CourseItems.practice(place.topicID, number: $0) }
            let after = number == 1 ? [lectureID] + others : [CourseItems.practice(place.topicID, number: number - 1)]
            return modelItem(id, stage: PracticeStage.name, context: place.contextText + ", practice \(number) of \(count)", after: after) { [self] done in
                let results = done.results
                var asked = others.compactMap { other -> String? in
                    results.optionalValue(other, as: Question.self)?.prompt ?? results.optionalValue(other, as: ReinforcementQuestion.self)?.prompt
                }
                asked += earlier.compactMap { results.optionalValue($0, as: PracticeQuestion.self)?.prompt }
                return try PracticeStage(job: job).call(
                    itemID: id.rawValue, place: place, outline: outline, lecture: try results.value(lectureID, as: String.self), number: number, asked: asked)
            }
        }
    }

    /// A work item running one model call, built by `call` once `dependencies` have finished;
    /// `wrap` turns the checked answer into the value later items read.
    func modelItem<Output: Sendable>(
        _ id: ItemID, stage: StageName, context: String, after dependencies: [ItemID], waitingFor predecessors: [ItemID] = [],
        shardKey: String? = nil, call: @escaping @Sendable (WorkContext) throws -> ModelCall<Output>,
        wrap: @escaping @Sendable (Output) -> any Sendable = { $0 }
    ) -> WorkItem {
        WorkItem(id: id, stage: stage, context: context, dependencies: dependencies, after: predecessors, shardKey: shardKey) { [runner] done in
            let (value, report) = try await runner.run(try call(done))
            return WorkOutput(value: wrap(value), report: report)
        }
    }

    /// A local item rendering the Markdown produced by `source` to `<path>.xhtml`.
    func renderItem(path: String, source: ItemID, title: String, markdown: @escaping @Sendable (any Sendable) -> String?) -> WorkItem {
        DocumentRendering.item(
            id: CourseItems.render(path), path: path, source: source, title: title, language: job.spec.language, renderer: renderer,
            markdown: markdown)
    }

    // MARK: Assembly

    /// The course and its files from a finished run; nil without a curriculum (nothing to write,
    /// even with `--allow-partial`). Items that failed are left out (this is only called for a
    /// complete run, or with `--allow-partial`).
    public func assemble(results: ResultStore) throws -> AssembledBundle? {
        guard results.optionalValue(finalCurriculumID, as: Outline.self) != nil else { return nil }
        let (course, files, notes) = try assembleCourse(results: results)
        return AssembledBundle(title: course.title, files: files, entryDocument: Self.entryDocument(of: course), summary: notes)
    }

    /// The document a reader opens first: the first lecture (XHTML when rendered), else the
    /// tone preview, else the course itself.
    static func entryDocument(of course: Course) -> String {
        let firstLecture = course.subjects.lazy.flatMap(\.topics).compactMap(\.lecture).first
        if let lecture = firstLecture { return lecture.xhtmlPath ?? lecture.path }
        if let preview = course.tonePreview { return preview.xhtmlPath ?? preview.path }
        return "course.json"
    }

    public static let languageBoundChecks: [LanguageBoundCheck] = [
        .feedbackWording, .courseQuestionWording,
        LanguageBoundCheck(.projectScope, "a project requiring a programming or mathematics term no lecture teaches is found by English terms"),
        LanguageBoundCheck(
            .stageRules, "a lecture whose title names a term it does not teach, and a true/false statement that opens as a question, are found by English words"),
    ]

    /// For `plan`: without the final curriculum, the items it would spawn at the spec's upper
    /// bounds.
    public static let unreachedNote =
        "the curriculum is not stored yet, so the topics' items are counted at the spec's most subjects and topics per subject: upper bounds"

    public func unreachedEstimate(reached: Set<String>) -> [StageName: Int] {
        guard !reached.contains(finalCurriculumID.rawValue) else { return [:] }
        let course = job.course
        let subjects = course.outline?.subjects.count ?? course.curriculum.subjects.max
        let topics = course.outline.map { $0.subjects.reduce(0) { $0 + $1.topics.count } } ?? subjects * course.curriculum.topicsPerSubject.max
        var add: [StageName: Int] = [TonePreviewStage.name: 1, LectureStage.name: topics]
        if course.addons.engagementQuestions {
            add[EngagementQuestionStage.name] = topics
            add[EngagementQuestionStage.bonusName] = topics
        }
        if course.addons.reinforcement { add[ReinforcementStage.name] = topics * ReinforcementStage.levels.count }
        if course.addons.endingProjects { add[EndingProjectStage.name] = subjects }
        if course.addons.narration { add[Narrator.name] = topics }
        if course.addons.flashcards { add[FlashcardStage.name] = topics }
        if course.addons.practice { add[PracticeStage.name] = topics * course.practice.perTopic }
        if renderer != nil { add[.render] = topics + 1 }
        return add
    }

    /// The course, its files, and notes for the run's summary (study-kit items left out as
    /// repeats across topics).
    public func assembleCourse(results: ResultStore) throws -> (course: Course, files: [String: Data], notes: [String]) {
        let outline = try results.value(finalCurriculumID, as: Outline.self)
        let places = TopicPlace.all(in: outline)
        var files: [String: Data] = [:]
        var subjects: [Subject] = outline.subjects.enumerated().map { index, subject in
            Subject(
                id: TopicPlace.subjectID(index), title: subject.title, topics: [],
                project: results.optionalValue(CourseItems.endingProject(TopicPlace.subjectID(index)), as: EndingProject.self))
        }
        var notes: [String] = []
        let (decks, droppedCards) = FlashcardStage.withoutRepeats(
            places.compactMap { place in results.optionalValue(CourseItems.flashcards(place.topicID), as: [Flashcard].self).map { (place.topicID, $0) } },
            language: job.spec.language)
        if droppedCards > 0 { notes.append("flashcards: \(droppedCards) asking what an earlier topic's card asks, left out") }
        let sets = practiceWithoutRepeats(places: places, results: results)
        if sets.dropped > 0 { notes.append("practice: \(sets.dropped) repeating another topic's question, left out") }
        for place in places {
            var topic = Topic(id: place.topicID, title: place.title, objective: place.objective)
            if let markdown = results.optionalValue(CourseItems.lecture(place.topicID), as: String.self) {
                let path = "lectures/\(place.fileStem).md"
                files[path] = Data(markdown.utf8)
                var xhtmlPath: String?
                if let rendered = results.optionalValue(CourseItems.render("lectures/\(place.fileStem)"), as: RenderedFile.self) {
                    files[rendered.path] = Data(rendered.xhtml.utf8)
                    xhtmlPath = rendered.path
                }
                let words = LectureRules.wordCount(markdown)
                var lecture = Lecture(
                    topicID: place.topicID, path: path, xhtmlPath: xhtmlPath, wordCount: words,
                    readingMinutes: LectureRules.readingMinutes(words: words))
                if let narrated = results.optionalValue(CourseItems.narration(place.topicID), as: NarratedLecture.self), let speech {
                    let audioPath = "audio/\(place.fileStem).opus"
                    files[audioPath] = narrated.audio
                    lecture.audio = LectureAudio(
                        path: audioPath, seconds: narrated.seconds, voice: "\(speech.provider.kind) \(speech.voice)", sections: narrated.sections)
                }
                topic.lecture = lecture
            }
            topic.engagementQuestion = results.optionalValue(CourseItems.engagementQuestion(place.topicID), as: Question.self).map(renderQuestion)
            topic.bonusQuestion = results.optionalValue(CourseItems.bonusQuestion(place.topicID), as: Question.self).map(renderQuestion)
            topic.flashcards = decks[place.topicID]
            if let set = sets.byTopic[place.topicID], !set.isEmpty { topic.practice = set.map(renderPractice) }
            topic.durationSeconds = LessonDuration.seconds(of: topic)
            let pool = ReinforcementStage.levels.compactMap {
                results.optionalValue(CourseItems.reinforcement(place.topicID, level: $0), as: ReinforcementQuestion.self)
            }
            topic.reinforcement = pool.isEmpty ? nil : pool
            subjects[place.subjectIndex].topics.append(topic)
        }
        var preview: TonePreview?
        if let value = results.optionalValue(CourseItems.tonePreview, as: TonePreviewValue.self) {
            files["tone-preview.md"] = Data(value.markdown.utf8)
            var xhtmlPath: String?
            if let rendered = results.optionalValue(CourseItems.render("tone-preview"), as: RenderedFile.self) {
                files[rendered.path] = Data(rendered.xhtml.utf8)
                xhtmlPath = rendered.path
            }
            preview = TonePreview(topicID: value.topicID, markdown: value.markdown, path: "tone-preview.md", xhtmlPath: xhtmlPath)
        }
        DocumentRendering.addStylesheet(to: &files, renderer: renderer)
        for index in subjects.indices { subjects[index].durationSeconds = subjects[index].topics.reduce(0) { $0 + ($1.durationSeconds ?? 0) } }
        var course = Course(
            id: job.spec.id, version: job.spec.version, language: job.spec.language, title: outline.title,
            description: job.spec.description.trimmed, audience: job.spec.audience,
            tone: Tone(presets: job.spec.tone.presets, text: job.spec.tone.text, instruction: job.toneInstruction),
            subjects: subjects, tonePreview: preview)
        course.durationSeconds = subjects.reduce(0) { $0 + ($1.durationSeconds ?? 0) }
        files["course.json"] = try CanonicalJSON.encode(course, pretty: true)
        return (course, files, notes)
    }

    /// The practice sets, less any question that nearly duplicates a question of another topic
    /// (its engagement, bonus or pool questions, or an earlier topic's practice): each set's
    /// calls check it against its own topic's questions, and topics are written in parallel, so
    /// a repeat across topics is only seen here. One `NearDuplicateIndex` a topic keeps this a
    /// lookup per question and topic, not a comparison per pair of questions.
    func practiceWithoutRepeats(places: [TopicPlace], results: ResultStore) -> (byTopic: [String: [PracticeQuestion]], dropped: Int) {
        guard job.course.addons.practice else { return ([:], 0) }
        var indexes: [NearDuplicateIndex] = places.map { place in
            var index = NearDuplicateIndex()
            let id = place.topicID
            let prompts =
                [CourseItems.engagementQuestion(id), CourseItems.bonusQuestion(id)].compactMap { results.optionalValue($0, as: Question.self)?.prompt }
                + ReinforcementStage.levels.compactMap { results.optionalValue(CourseItems.reinforcement(id, level: $0), as: ReinforcementQuestion.self)?.prompt }
            for prompt in prompts { index.insert(id: id, text: prompt) }
            return index
        }
        var byTopic: [String: [PracticeQuestion]] = [:]
        var dropped = 0
        for (position, place) in places.enumerated() {
            let set = (1...job.course.practice.perTopic).compactMap {
                results.optionalValue(CourseItems.practice(place.topicID, number: $0), as: PracticeQuestion.self)
            }
            let kept = set.filter { question in
                !indexes.indices.contains { $0 != position && indexes[$0].firstDuplicate(of: question.prompt) != nil }
            }
            dropped += set.count - kept.count
            byTopic[place.topicID] = kept
            for question in kept { indexes[position].insert(id: question.id, text: question.prompt) }
        }
        return (byTopic, dropped)
    }

    /// A prompt's XHTML rendition; nil without a renderer.
    func promptXHTML(_ prompt: String) -> String? { try? renderer?.renderFragment(prompt, language: job.spec.language) }

    /// Adds the XHTML rendition of a practice question's prompt.
    func renderPractice(_ question: PracticeQuestion) -> PracticeQuestion {
        var copy = question
        copy.promptXHTML = promptXHTML(question.prompt)
        return copy
    }

    /// Adds the XHTML rendition of a question's prompt.
    func renderQuestion(_ question: Question) -> Question {
        var copy = question
        copy.promptXHTML = promptXHTML(question.prompt)
        return copy
    }
}

/// The tone preview's result.
public struct TonePreviewValue: Sendable {
    public var topicID: String
    public var markdown: String
}

/// A lesson's duration (Jeeva §2.3): the narration's length when narrated, else the lecture's
/// reading time at 200 words a minute, plus a minute for each engagement and bonus question and
/// the practice set's time: a minute per multiple-choice question, half a minute per true/false
/// statement. Flashcards are review for later days, not part of the lesson.
public enum LessonDuration {
    public static let readingWordsPerMinute = 200.0
    public static let secondsPerQuestion = 60
    public static let secondsPerTrueFalse = 30

    public static func seconds(of topic: Topic) -> Int {
        var seconds = 0
        if let lecture = topic.lecture {
            seconds +=
                lecture.audio.map { Int($0.seconds.rounded(.up)) }
                ?? Int((Double(lecture.wordCount) / readingWordsPerMinute * 60).rounded(.up))
        }
        let questions = [topic.engagementQuestion, topic.bonusQuestion].compactMap { $0 }.count
        let practice = (topic.practice ?? []).reduce(0) { $0 + ($1.format == .trueFalse ? secondsPerTrueFalse : secondsPerQuestion) }
        return seconds + questions * secondsPerQuestion + practice
    }
}
