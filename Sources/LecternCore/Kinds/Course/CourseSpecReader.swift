import Foundation
import LecternLLM
import Yams

/// Reads the `course` kind's part of a spec: curriculum, outline and add-ons.
public enum CourseSpecReader: JobKindSpecReader {
    public static let keys = ["curriculum", "outline", "addons", "speech", "flashcards", "practice"]

    public static func read(_ context: SpecReadContext) -> JobContent? {
        let top = context.top
        let reader = context.reader
        let c = top.mapping("curriculum", known: ["preset", "presets", "subjects", "topics_per_subject", "edits"])
        c?.finish()
        let curriculumPresets = context.presetNames(c, kind: .curriculum)
        let subjects = context.range(c, "subjects", default: SizeRange(min: 2, max: 5), limit: 100)
        let topics = context.range(c, "topics_per_subject", default: SizeRange(min: 2, max: 6), limit: 100)
        let edits = c?.stringList("edits", maxCount: 20, maxLength: 2_000) ?? []

        var outline: Outline?
        if let node = top.node("outline"), node.null == nil {
            outline = readOutline(node, reader: reader)
        }

        let a = top.mapping("addons", known: ["engagement_questions", "ending_projects", "narration", "reinforcement", "flashcards", "practice"])
        a?.finish()
        let defaults = Addons.defaults
        let addons = Addons(
            engagementQuestions: a?.bool("engagement_questions") ?? defaults.engagementQuestions,
            endingProjects: a?.bool("ending_projects") ?? defaults.endingProjects,
            narration: a?.bool("narration") ?? defaults.narration,
            reinforcement: a?.bool("reinforcement") ?? defaults.reinforcement,
            flashcards: a?.bool("flashcards") ?? defaults.flashcards, practice: a?.bool("practice") ?? defaults.practice)
        var speech = SpeechSpec()
        if let sp = top.mapping("speech", known: ["provider", "voice", "model", "base_url", "api_key_env", "bitrate"]) {
            sp.finish()
            if let name = sp.string("provider", maxLength: 40) {
                if let provider = SpeechSpec.Provider(rawValue: name) {
                    speech.provider = provider
                } else {
                    reader.report(
                        "'speech.provider' is '\(name)', which is not a speech provider", at: sp.node("provider"),
                        hint: "one of " + SpeechSpec.Provider.allCases.map(\.rawValue).joined(separator: ", "))
                }
            }
            if let voice = sp.string("voice", maxLength: 80) {
                if voice.isEmpty || voice.hasPrefix("-") || !voice.allSatisfy({ $0.isLetter || $0.isNumber || "-_/+.".contains($0) }) {
                    reader.report("'speech.voice' is '\(voice)', which is not a voice name", at: sp.node("voice"), hint: "e.g. en-us or ar for espeak-ng, alloy for OpenAI")
                } else {
                    speech.voice = voice
                }
            }
            speech.model = sp.string("model", maxLength: 100)
            if let url = sp.string("base_url", maxLength: 500) {
                if let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? "") {
                    speech.baseURL = parsed
                } else {
                    reader.report("'speech.base_url' is '\(url)', which is not an http(s) URL", at: sp.node("base_url"), hint: "e.g. 'https://api.openai.com/v1'")
                }
            }
            speech.apiKeyEnv = sp.environmentVariableName("api_key_env")
            if speech.apiKeyEnv != nil || speech.baseURL != nil, speech.provider != .openai {
                reader.report(
                    "'speech.\(speech.apiKeyEnv != nil ? "api_key_env" : "base_url")' applies to the openai speech provider, not \(speech.provider.rawValue)",
                    at: sp.node(speech.apiKeyEnv != nil ? "api_key_env" : "base_url"), hint: "add 'provider: openai', or remove it")
            } else if let problem = OpenAISpeechProvider.keyProblem(named: speech.apiKeyEnv, baseURL: speech.baseURL) {
                reader.report(
                    "'speech' would send a key in plain text: \(problem)", at: sp.node("base_url") ?? sp.node,
                    hint: "use an https:// base_url, or remove api_key_env if the server needs no key")
            }
            // An Opus bit rate in kbit/s; speech is clear from 16.
            if let bitrate = sp.int("bitrate", range: 8...128) { speech.bitrate = bitrate }
        }
        let flashcards = readFlashcards(context, enabled: addons.flashcards)
        let practice = readPractice(context, enabled: addons.practice)
        return .course(
            CourseSpec(
                curriculum: CurriculumSpec(presets: curriculumPresets, subjects: subjects, topicsPerSubject: topics, edits: edits),
                outline: outline, addons: addons, speech: speech, flashcards: flashcards, practice: practice))
    }

    /// `flashcards: { per_topic: N }`.
    static func readFlashcards(_ context: SpecReadContext, enabled: Bool) -> FlashcardsSpec {
        var spec = FlashcardsSpec()
        guard let f = context.top.mapping("flashcards", known: ["per_topic"]) else { return spec }
        f.finish()
        if !enabled {
            context.reader.report("'flashcards' is set but the flashcards add-on is off", at: context.top.node("flashcards"), hint: "add 'flashcards: true' under 'addons'")
        }
        if let n = f.int("per_topic", range: FlashcardsSpec.perTopicRange) { spec.perTopic = n }
        return spec
    }

    /// `practice: { per_topic: N, difficulty: { easy: 3, medium: 4, hard: 3 }, formats: [...] }`.
    static func readPractice(_ context: SpecReadContext, enabled: Bool) -> PracticeSpec {
        var spec = PracticeSpec()
        let reader = context.reader
        guard let p = context.top.mapping("practice", known: ["per_topic", "difficulty", "formats"]) else { return spec }
        p.finish()
        if !enabled {
            reader.report("'practice' is set but the practice add-on is off", at: context.top.node("practice"), hint: "add 'practice: true' under 'addons'")
        }
        if let n = p.int("per_topic", range: PracticeSpec.perTopicRange) { spec.perTopic = n }
        if let d = p.mapping("difficulty", known: PracticeQuestion.Difficulty.allCases.map(\.rawValue)) {
            d.finish()
            var mix: [PracticeQuestion.Difficulty: Int] = [:]
            for level in PracticeQuestion.Difficulty.allCases { mix[level] = d.int(level.rawValue, range: 0...100) ?? 0 }
            if mix.values.reduce(0, +) == 0 {
                reader.report("'practice.difficulty' gives every difficulty a weight of 0", at: p.node("difficulty"), hint: "e.g. { easy: 3, medium: 4, hard: 3 }")
            } else {
                spec.mix = mix
            }
        }
        if let names = p.stringList("formats", maxCount: 10, maxLength: 40) {
            var formats: [PracticeQuestion.Format] = []
            for name in names {
                if let format = PracticeQuestion.Format(rawValue: name) {
                    formats.append(format)
                } else {
                    reader.report(
                        "'practice.formats' lists '\(name)', which is not a practice format", at: p.node("formats"),
                        hint: "use multiple_choice and true_false, in the order they repeat")
                }
            }
            if names.isEmpty { reader.report("'practice.formats' is empty", at: p.node("formats"), hint: "e.g. [multiple_choice, multiple_choice, true_false]") }
            if !formats.isEmpty { spec.formats = formats }
        }
        return spec
    }

    static func readOutline(_ node: Node, reader: SpecReader) -> Outline? {
        guard let o = reader.mapping(node, path: "outline", known: ["title", "subjects"]) else { return nil }
        o.finish()
        let title = o.string("title", required: true, maxLength: 300)
        guard let subjectNodes = o.sequence("subjects", maxCount: 100) else {
            if !o.has("subjects") {
                reader.report("missing required key 'outline.subjects'", at: node, hint: "list at least one subject with its topics")
            }
            return nil
        }
        if subjectNodes.isEmpty {
            reader.report("'outline.subjects' is empty", at: o.node("subjects"), hint: "a curriculum has at least one subject")
        }
        var subjects: [OutlineSubject] = []
        for (i, subjectNode) in subjectNodes.enumerated() {
            let path = "outline.subjects[\(i)]"
            guard let s = reader.mapping(subjectNode, path: path, known: ["title", "topics"]) else { continue }
            s.finish()
            let subjectTitle = s.string("title", required: true, maxLength: 300)
            var topics: [OutlineTopic] = []
            if let topicNodes = s.sequence("topics", maxCount: 100) {
                if topicNodes.isEmpty {
                    reader.report("'\(path).topics' is empty", at: s.node("topics"), hint: "every subject has at least one topic")
                }
                for (j, topicNode) in topicNodes.enumerated() {
                    // A topic is a title, or a mapping with title and objective.
                    if case .scalar = topicNode {
                        if let text = s.string(topicNode, name: "\(path).topics[\(j)]", required: true, maxLength: 300, hint: nil) {
                            topics.append(OutlineTopic(title: text))
                        }
                        continue
                    }
                    guard let t = reader.mapping(topicNode, path: "\(path).topics[\(j)]", known: ["title", "objective"]) else { continue }
                    t.finish()
                    if let topicTitle = t.string("title", required: true, maxLength: 300) {
                        topics.append(OutlineTopic(title: topicTitle, objective: t.string("objective", maxLength: 500)))
                    }
                }
            } else if !s.has("topics") {
                reader.report("missing required key '\(path).topics'", at: subjectNode, hint: "list the subject's topics")
            }
            if let subjectTitle { subjects.append(OutlineSubject(title: subjectTitle, topics: topics)) }
        }
        guard let title else { return nil }
        return Outline(title: title, subjects: subjects)
    }
}
