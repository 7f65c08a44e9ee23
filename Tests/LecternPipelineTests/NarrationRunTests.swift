import Foundation
import LecternBundle
import LecternCore
import LecternLLM
import Synchronization
import Testing

@testable import LecternPipeline

/// A speech provider that counts what it is asked and speaks through espeak-ng.
final class CountingSpeech: SpeechProvider {
    let inner: EspeakSpeechProvider
    private let log = Mutex<[String]>([])
    var texts: [String] { log.withLock { $0 } }
    var kind: String { inner.kind }
    var model: String { inner.model }

    init() throws { inner = try #require(EspeakSpeechProvider(), "espeak-ng is not installed (Debian: apt install espeak-ng)") }

    func synthesize(_ request: SpeechRequest) async throws -> PCMAudio {
        log.withLock { $0.append(request.text) }
        return try await inner.synthesize(request)
    }
}

/// A provider whose audio is silence: the narration must not accept it.
struct SilentSpeech: SpeechProvider {
    let kind = "silent"
    let model = "none"
    func synthesize(_ request: SpeechRequest) async throws -> PCMAudio { .silence(seconds: 5, sampleRate: 22_050) }
}

/// The narration add-on and lesson durations (issue 15), through the real runner, engine, cache
/// and bundle writer: a scripted model writes the lectures, espeak-ng speaks them.
struct NarrationRunTests {
    static let spec = Specs.pinned.replacingOccurrences(of: "model:", with: "addons: { narration: true, engagement_questions: false, ending_projects: false }\nmodel:")

    @Test func narratedLecturesAreAudioThatFitsTheirWordsAndAreNotSpokenTwice() async throws {
        let ws = try Workspace()
        let spec = try Workspace.spec(Self.spec)
        #expect(spec.course?.addons.narration == true)
        let speech = try CountingSpeech()
        var runner = try ws.runner(spec, provider: try RecordingProvider(script: ws.script()))
        runner.speech = SpeechSetup(provider: speech, voice: "en-us", cacheDirectory: ws.cacheRoot)
        let result = try await runner.run(options: JobRunner.Options(outputRoot: ws.output))
        #expect(result.status == .complete, "\(result.failures)")
        // The model answers are the tone preview and 5 lectures; a narration is none, spoken or not.
        #expect(RunQuality(result).validAtFirstAttempt == 6, "\(RunQuality(result))")
        guard case .written(let dir)? = result.bundle else { throw PipelineError("no bundle: \(result.failures)") }
        let files = Workspace.files(dir)
        let course = try JSONDecoder().decode(Course.self, from: try #require(files["course.json"]))
        let topics = course.subjects.flatMap(\.topics)
        #expect(!topics.isEmpty)
        for topic in topics {
            let lecture = try #require(topic.lecture)
            let audio = try #require(lecture.audio, "\(topic.id) has no narration")
            #expect(audio.path == lecture.path.replacingOccurrences(of: "lectures/", with: "audio/").replacingOccurrences(of: ".md", with: ".opus"))
            let data = try #require(files[audio.path])
            // The length in course.json is the file's.
            let seconds = try #require(OggOpus.duration(data))
            #expect(abs(seconds - audio.seconds) < 0.01)
            // About as long as its words take to say (espeak-ng at 160 words a minute, plus pauses).
            let spokenWords = Double(lecture.wordCount)
            #expect(audio.seconds > spokenWords / 400 * 60 && audio.seconds < spokenWords / 60 * 60, "\(topic.id): \(audio.seconds) s, \(lecture.wordCount) words")
            #expect(audio.sections.first?.startSeconds == 0 && audio.sections.first?.title == topic.title)
            #expect(zip(audio.sections, audio.sections.dropFirst()).allSatisfy { $0.startSeconds < $1.startSeconds })
            #expect(audio.sections.allSatisfy { $0.startSeconds < audio.seconds })
            #expect(audio.voice == "espeak-ng en-us")
            // The duration is the audio's when narrated.
            #expect(topic.durationSeconds == Int(audio.seconds.rounded(.up)))
        }
        #expect(course.durationSeconds == course.subjects.reduce(0) { $0 + ($1.durationSeconds ?? 0) })
        #expect(course.subjects.allSatisfy { $0.durationSeconds == $0.topics.reduce(0) { $0 + ($1.durationSeconds ?? 0) } })
        // What was spoken: no Markdown, no TeX, no code read symbol by symbol.
        for text in speech.texts {
            #expect(!text.contains("```") && !text.contains("$") && !text.contains("**") && !text.contains("\\"), "\(text.prefix(200))")
        }
        // course.json with its narration against the published schema.
        let schemaProblems = try Workspace.schemaProblems(dir.appendingPathComponent("course.json"), schema: "course.schema.json")
        #expect(schemaProblems == nil, "course.json against course.schema.json: \(schemaProblems ?? "")")
        // The manifest carries the audio with its checksum; the bundle verifies.
        let report = try BundleVerifier.verify(dir)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.manifest.files.keys.contains { $0.hasPrefix("audio/") })

        // The preview plays each narration in place.
        let site = try BundlePreview.write(bundle: dir, to: ws.root.appendingPathComponent("site"))
        let index = try String(contentsOf: site.index, encoding: .utf8)
        for topic in topics {
            let path = try #require(topic.lecture?.audio?.path)
            #expect(index.contains("<audio controls=\"controls\" preload=\"none\" src=\"\(path)\"></audio>"))
            #expect(FileManager.default.fileExists(atPath: ws.root.appendingPathComponent("site/\(path)").path))
        }

        // A second run with the same lectures speaks nothing and writes the same bundle.
        let before = speech.texts.count
        let again = try CountingSpeech()
        var second = try ws.runner(spec, provider: try RecordingProvider(script: ws.script()))
        second.speech = SpeechSetup(provider: again, voice: "en-us", cacheDirectory: ws.cacheRoot)
        let rerun = try await second.run(options: JobRunner.Options(outputRoot: ws.output))
        #expect(rerun.bundle == .unchanged(dir))
        #expect(RunQuality(rerun) == RunQuality(result), "a re-run reports the answers as they were recorded")
        #expect(again.texts.isEmpty && before > 0, "unchanged lectures are not synthesized again")
    }

    @Test func badSpeechSettingsAreSpecErrorsWithTheirPlace() throws {
        let bad = Self.spec.replacingOccurrences(of: "model:", with: "speech: { provider: festival, voice: \"--rm\", bitrate: 500 }\nmodel:")
        do {
            _ = try Workspace.spec(bad)
            Issue.record("a bad speech mapping was accepted")
        } catch {
            let text = "\(error)"
            #expect(text.contains("'speech.provider' is 'festival'") && text.contains("one of espeak-ng, openai"), "\(text)")
            #expect(text.contains("'speech.voice' is '--rm', which is not a voice name"), "\(text)")
            #expect(text.contains("'speech.bitrate' is 500"), "\(text)")
        }
        let good = try Workspace.spec(Self.spec.replacingOccurrences(of: "model:", with: "speech: { voice: en-gb, bitrate: 16 }\nmodel:"))
        #expect(good.course?.speech == SpeechSpec(voice: "en-gb", bitrate: 16))
    }

    @Test func silenceIsNotANarration() async throws {
        let ws = try Workspace()
        var runner = try ws.runner(try Workspace.spec(Self.spec), provider: try RecordingProvider(script: ws.script()))
        runner.speech = SpeechSetup(provider: SilentSpeech(), voice: "x", cacheDirectory: ws.cacheRoot)
        let result = try await runner.run(options: JobRunner.Options(outputRoot: ws.output))
        #expect(result.status == .itemsFailed)
        #expect(result.failures.contains { $0.id.hasPrefix("narrate/") && $0.errors.joined().contains("silence") }, "\(result.failures)")
    }

    @Test func lessonsWithoutNarrationLastTheirReadingTimeAndQuestions() async throws {
        let ws = try Workspace()
        let result = try await ws.run(try Workspace.spec(Specs.pinned), provider: try RecordingProvider(script: ws.script()))
        guard case .written(let dir)? = result.bundle else { throw PipelineError("no bundle: \(result.failures)") }
        let course = try JSONDecoder().decode(Course.self, from: try #require(Workspace.files(dir)["course.json"]))
        for topic in course.subjects.flatMap(\.topics) {
            let lecture = try #require(topic.lecture)
            let questions = [topic.engagementQuestion, topic.bonusQuestion].compactMap { $0 }.count
            #expect(lecture.audio == nil)
            #expect(topic.durationSeconds == Int((Double(lecture.wordCount) / 200 * 60).rounded(.up)) + 60 * questions)
        }
        #expect((course.durationSeconds ?? 0) > 0)
    }
}
