import Foundation
import LecternCore

/// The read side of `kind: course`: course.json as `Course`, its questions by the ids
/// `CourseItems` gives them, a preview page of questions and one of flashcards a topic, a diff
/// unit per lecture, question, topic, subject and project, and every export format.
public enum CourseBundle: BundleKind {
    public static let kind = JobKind.course
    public static let document = "course.json"
    public static let lintedInQualityReport = true

    public static func read(_ bundle: OpenBundle) throws -> Course {
        try bundle.decode(Course.self, document)
    }

    /// A topic's question, as course.json holds it.
    enum TopicQuestion {
        case engagement(Question)
        case bonus(Question)
        case reinforcement(ReinforcementQuestion)
        case practice(PracticeQuestion)

        var record: any Encodable {
            switch self {
            case .engagement(let q), .bonus(let q): q
            case .reinforcement(let q): q
            case .practice(let q): q
            }
        }
    }

    /// A topic's questions in pipeline order (engagement, bonus, the reinforcement levels, the
    /// practice set), each with its item id.
    static func questions(of topic: Topic) -> [(id: ItemID, question: TopicQuestion)] {
        var found: [(id: ItemID, question: TopicQuestion)] = []
        if let q = topic.engagementQuestion { found.append((CourseItems.engagementQuestion(topic.id), .engagement(q))) }
        if let q = topic.bonusQuestion { found.append((CourseItems.bonusQuestion(topic.id), .bonus(q))) }
        for q in topic.reinforcement ?? [] { found.append((CourseItems.reinforcement(topic.id, level: q.level), .reinforcement(q))) }
        for (index, q) in (topic.practice ?? []).enumerated() { found.append((CourseItems.practice(topic.id, number: index + 1), .practice(q))) }
        return found
    }

    static let difficultyWords: [PracticeQuestion.Difficulty: Wording] = [
        .easy: Wording("easy", "سهل"), .medium: Wording("medium", "متوسط"), .hard: Wording("hard", "صعب"),
    ]

    public static func questions(in course: Course) -> [BundleQuestion] {
        course.subjects.flatMap { subject in
            subject.topics.flatMap { topic in
                questions(of: topic).map { id, question in
                    func make(
                        _ role: String, _ heading: Wording, level: Int? = nil, format: String, difficulty: String = "", prompt: String,
                        promptXHTML: String?, options: [Choice]?, referenceAnswer: String?, explanation: String
                    ) -> BundleQuestion {
                        BundleQuestion(
                            id: id.rawValue, role: role, heading: heading, topicID: topic.id, topic: topic.title, subject: subject.title, level: level,
                            format: format, difficulty: difficulty, prompt: prompt, promptXHTML: promptXHTML, options: options ?? [],
                            referenceAnswer: referenceAnswer, explanation: explanation)
                    }
                    switch question {
                    case .engagement(let q):
                        return make(
                            "engagement", Wording("Engagement question", "سؤال التفاعل"), format: q.format.rawValue, prompt: q.prompt,
                            promptXHTML: q.promptXHTML, options: q.options, referenceAnswer: q.referenceAnswer, explanation: q.explanation)
                    case .bonus(let q):
                        return make(
                            "bonus", Wording("Bonus question", "سؤال إضافي"), format: q.format.rawValue, prompt: q.prompt, promptXHTML: q.promptXHTML,
                            options: q.options, referenceAnswer: q.referenceAnswer, explanation: q.explanation)
                    case .reinforcement(let q):
                        return make(
                            "reinforcement", Wording("Practice, level \(q.level)", "تدريب، المستوى \(q.level)"), level: q.level, format: q.format.rawValue,
                            difficulty: q.difficulty, prompt: q.prompt, promptXHTML: nil, options: q.options, referenceAnswer: q.referenceAnswer,
                            explanation: q.explanation)
                    case .practice(let q):
                        let word = difficultyWords[q.difficulty] ?? Wording(verbatim: q.difficulty.rawValue)
                        return make(
                            "practice", Wording("Practice question, " + word.english, "سؤال تدريبي, " + word.arabic), format: q.format.rawValue,
                            difficulty: q.difficulty.rawValue, prompt: q.prompt, promptXHTML: q.promptXHTML, options: q.options, referenceAnswer: nil,
                            explanation: q.explanation)
                    }
                }
            }
        }
    }

    // MARK: Review

    /// A topic's item (`engagement-question/s01-t01`, `lecture/…`, `reinforcement/…/level-2` …):
    /// its subject and topic, the objective, the engagement question a bonus question must not
    /// repeat, and its lecture's page. A subject's project (`ending-project/s01`): the topics it
    /// may draw on.
    public static func reviewContext(_ course: Course, item: String, answer: String) -> ReviewContext? {
        let parts = item.split(separator: "/").map(String.init)
        guard parts.count >= 2 else { return nil }
        if parts[0] == "ending-project", let subject = course.subjects.first(where: { $0.id == parts[1] }) {
            return ReviewContext([
                .init("Subject", subject.title), .init("What the subject teaches", subject.topics.map { "\($0.title): \($0.objective)" }.joined(separator: "\n")),
            ])
        }
        for subject in course.subjects {
            guard let topic = subject.topics.first(where: { $0.id == parts[1] }) else { continue }
            var shown: [ReviewContext.Part] = [.init("Topic", "\(subject.title) › \(topic.title)"), .init("Objective", topic.objective)]
            if parts[0] == "bonus-question", let engagement = topic.engagementQuestion {
                shown.append(.init("The engagement question it must not repeat", engagement.prompt))
            }
            return ReviewContext(shown, preview: topic.lecture?.xhtmlPath)
        }
        return nil
    }

    // MARK: Preview

    /// The outline: each topic with its lecture, its narration (playable in place), a page of its
    /// questions and a page of its flashcards; each subject's project behind a click.
    public static func preview(_ course: Course, site: inout PreviewSite) throws -> String {
        let label = site.label
        let files = site.manifest.files
        let questions = Dictionary(grouping: questions(in: course), by: \.topicID)
        var body = "<p>\(escape(course.description))</p>\n"
        if files["tone-preview.xhtml"] != nil {
            body += "<p><a href=\"tone-preview.xhtml\">\(label("Tone preview", "معاينة الأسلوب"))</a></p>\n"
        }
        try FileManager.default.createDirectory(at: site.output.appendingPathComponent("questions"), withIntermediateDirectories: true)
        for subject in course.subjects {
            body += "<h2>\(escape(subject.title))</h2>\n<ol>\n"
            for topic in subject.topics {
                var links: [String] = []
                if let path = topic.lecture?.xhtmlPath, files[path] != nil {
                    links.append("<a href=\"\(escape(path))\">\(label("lecture", "المحاضرة"))</a>")
                }
                // A browser plays Ogg Opus natively.
                if let audio = topic.lecture?.audio, files[audio.path] != nil {
                    let seconds = Int(audio.seconds.rounded())
                    links.append(
                        "\(label("listen", "استمع")) (\(seconds / 60):\(String(format: "%02d", seconds % 60))) "
                            + "<audio controls=\"controls\" preload=\"none\" src=\"\(escape(audio.path))\"></audio>")
                }
                let topicQuestions = questions[topic.id] ?? []
                if !topicQuestions.isEmpty {
                    let path = "questions/\(topic.id).xhtml"
                    let html = topicQuestions.map { BundlePreview.questionHTML($0, page: site.page) }.joined(separator: "\n")
                    try site.write(path, title: topic.title, body: "<h1>\(escape(topic.title))</h1>\n" + html)
                    links.append("<a href=\"\(escape(path))\">\(label("questions", "الأسئلة")) (\(topicQuestions.count))</a>")
                }
                // Each front, its back behind a click.
                let cards = topic.flashcards ?? []
                if !cards.isEmpty {
                    let path = "flashcards/\(topic.id).xhtml"
                    let html =
                        "<ol class=\"lectern-flashcards\">\n"
                        + cards.map { card in
                            "<li><details><summary>\(BundleContent.inline(BundleContent.fragment(card.front, language: site.page.language)))</summary>"
                                + BundleContent.fragment(card.back, language: site.page.language) + "</details></li>"
                        }.joined(separator: "\n") + "\n</ol>"
                    try site.write(path, title: topic.title, body: "<h1>\(escape(topic.title))</h1>\n<h2>\(label("Flashcards", "البطاقات"))</h2>\n" + html)
                    links.append("<a href=\"\(escape(path))\">\(label("flashcards", "البطاقات")) (\(cards.count))</a>")
                }
                body += "<li>\(escape(topic.title)) — \(links.joined(separator: " · "))</li>\n"
            }
            body += "</ol>\n"
            if let project = subject.project {
                let projectLabel = label("Project", "المشروع")
                var name = project.title
                // "Project: Project: …" when the title starts with the word already.
                if name.lowercased().hasPrefix(projectLabel.lowercased()) {
                    name = String(name.dropFirst(projectLabel.count)).trimmingCharacters(in: CharacterSet(charactersIn: ": "))
                }
                body += "<details><summary>\(projectLabel): \(escape(name))</summary><p>\(escape(project.brief))</p></details>\n"
            }
        }
        return body
    }

    // MARK: Diff

    /// `lecture/s01-t02` (its Markdown, diffed by line), each question by its item id,
    /// `ending-project/s01`, `topic/s01-t02` and `subject/s01` (what is left of them: titles,
    /// objectives, flashcards, durations), and `course` (title, description, tone …).
    public static func diffUnits(_ course: Course, bundle: OpenBundle) -> DiffUnits {
        var units = DiffUnits()
        units.covered.insert(document)
        units.leading.insert("course")
        for subject in course.subjects {
            if let project = subject.project { units.add(CourseItems.endingProject(subject.id).rawValue, project) }
            for topic in subject.topics {
                if let lecture = topic.lecture {
                    units.covered.insert(lecture.path)
                    if let xhtml = lecture.xhtmlPath { units.covered.insert(xhtml) }
                    units.add(CourseItems.lecture(topic.id).rawValue, text: bundle.data(lecture.path).map { String(decoding: $0, as: UTF8.self) } ?? "")
                }
                for (id, question) in questions(of: topic) { units.add(id.rawValue, question.record) }
                // The topic's own record holds none of what has a unit of its own.
                var rest = topic
                rest.lecture = nil
                rest.engagementQuestion = nil
                rest.bonusQuestion = nil
                rest.reinforcement = nil
                rest.practice = nil
                units.add("topic/" + topic.id, rest)
            }
            var rest = subject
            rest.topics = []
            rest.project = nil
            units.add("subject/" + subject.id, rest)
        }
        var whole = course
        whole.subjects = []
        units.add("course", whole)
        return units
    }

    // MARK: Package

    /// Counts of subjects, lectures, questions and projects, the lectures' reading time; free
    /// samples are topic ids.
    public static func listing(_ course: Course) -> ListingFacts {
        let topics = course.subjects.flatMap(\.topics)
        let contents = Listing.Contents(
            kind: kind.rawValue,
            counts: [
                "subjects": course.subjects.count, "lectures": topics.count, "questions": questions(in: course).count,
                "projects": course.subjects.filter { $0.project != nil }.count,
            ],
            totalMinutes: topics.compactMap { $0.lecture?.readingMinutes }.reduce(0, +))
        return ListingFacts(contents: contents, samples: Set(topics.map(\.id)), samplesAre: "lectures")
    }

    // MARK: Export

    /// A course's flashcards in course order, front and back.
    static func cards(_ course: Course) throws -> [(front: String, back: String)] {
        let cards = course.subjects.flatMap(\.topics).flatMap { $0.flashcards ?? [] }.map { ($0.front, $0.back) }
        guard !cards.isEmpty else { throw PackageError("the course has no flashcards: run it with 'flashcards: true' under 'addons'") }
        return cards
    }

    public static let exporters: [KindExporter<Course>] = [
        KindExporter(EPUBExporter.self) { course, bundle in try EPUBExporter.export(course, bundle: bundle) },
        KindExporter(AnkiExporter.self) { course, bundle in
            try AnkiExporter.export(questions: questions(in: course), flashcards: AnkiExporter.flashcards(of: course), bundle: bundle)
        },
        KindExporter(QTIExporter.self) { course, bundle in try QTIExporter.export(questions: questions(in: course), passages: [], bundle: bundle) },
        KindExporter(CommonCartridgeExporter.self) { course, bundle in
            try CommonCartridgeExporter.export(course, questions: questions(in: course), bundle: bundle)
        },
        KindExporter(SCORMExporter.self) { course, bundle in try SCORMExporter.export(course, questions: questions(in: course), bundle: bundle) },
        KindExporter(CSVExporter.self) { course, _ in QuestionTable.csv(QuestionTable.rows(questions(in: course))) },
        KindExporter(TSVExporter.self) { course, _ in QuestionTable.tsv(QuestionTable.rows(questions(in: course))) },
        KindExporter(CardsTSVExporter.self) { course, _ in CardsTSVExporter.write(try cards(course)) },
        KindExporter(CardsCSVExporter.self) { course, _ in CardsCSVExporter.write(try cards(course)) },
        KindExporter(MoodleXMLExporter.self) { course, bundle in try MoodleXMLExporter.export(questions: questions(in: course), bundle: bundle) },
    ]

    static func escape(_ text: String) -> String { BundleContent.xmlEscaped(text) }
}
