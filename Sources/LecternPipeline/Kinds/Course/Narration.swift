import Foundation
import LecternCore
import LecternLLM
import LecternRender

/// What a run speaks with: the provider and where finished narrations are kept.
public struct SpeechSetup: Sendable {
    public var provider: any SpeechProvider
    public var voice: String
    /// Narrations by content key (`<cache>/speech/`): an unchanged lecture is not spoken again.
    public var cacheDirectory: URL?
    /// `--cache offline`: a provider that is not local must find every narration in the cache.
    public var offline: Bool
    /// Opus bit rate, kbit/s.
    public var bitrate: Int

    public init(provider: any SpeechProvider, voice: String, cacheDirectory: URL?, offline: Bool = false, bitrate: Int = 24) {
        self.provider = provider
        self.voice = voice
        self.cacheDirectory = cacheDirectory
        self.offline = offline
        self.bitrate = bitrate
    }
}

/// A narrated lecture: the Ogg Opus bytes, the length measured from them, and section starts.
public struct NarratedLecture: Sendable, Codable {
    public var audio: Data
    public var seconds: Double
    public var sections: [LectureAudio.Section]
    public var words: Int
}

/// Narration (the `narration` add-on): a lecture's Markdown becomes a `SpeechScript`
/// (`MarkdownSpeech`), each section is spoken by the provider, the sections are joined with a
/// pause and encoded once as Ogg Opus. What comes back is checked like any untrusted answer:
/// audio that is silence, or far shorter or longer than its words take to say, is an error.
struct Narrator: Sendable {
    static let name = CourseStages.narration
    /// The pause between sections.
    static let pause = 0.6
    /// Speaking rates outside these bounds (words a minute) mean the audio is not the text.
    static let plausibleRate = 60.0...400.0

    let setup: SpeechSetup
    let language: String

    func narrate(markdown: String, title: String) async throws -> (NarratedLecture, spoken: Bool) {
        let script = MarkdownSpeech.script(markdown, title: title, language: language)
        let key = cacheKey(script)
        if let cached = load(key) { return (cached, false) }
        if setup.offline && setup.provider.kind != "espeak-ng" {
            throw ItemFailureError(reason: .cacheMiss, attempts: 0, errors: ["no stored narration for this lecture (key \(key.prefix(12))) and the cache is offline"])
        }
        var joined: [Int16] = []
        var rate = 0
        var sections: [LectureAudio.Section] = []
        for (index, section) in script.sections.enumerated() {
            let pcm = try await speak(section.text)
            if rate == 0 { rate = pcm.sampleRate }
            guard pcm.sampleRate == rate else {
                throw ItemFailureError(reason: .provider, attempts: 1, errors: ["the speech provider changed its sample rate mid-lecture (\(rate) Hz, then \(pcm.sampleRate) Hz)"])
            }
            if index > 0 { joined += PCMAudio.silence(seconds: Self.pause, sampleRate: rate).samples }
            sections.append(LectureAudio.Section(title: section.title, startSeconds: Self.round(Double(joined.count) / Double(rate))))
            joined += pcm.samples
        }
        let pcm = PCMAudio(samples: joined, sampleRate: rate)
        try Self.check(pcm, words: script.wordCount)
        let opus: Data
        do {
            opus = try await OggOpus.encode(pcm, bitrate: setup.bitrate)
        } catch let error as SpeechError {
            throw ItemFailureError(reason: .internal, attempts: 1, errors: [error.message])
        }
        guard let seconds = OggOpus.duration(opus) else {
            throw ItemFailureError(reason: .internal, attempts: 1, errors: ["opusenc wrote a file that is not Ogg Opus"])
        }
        let narrated = NarratedLecture(audio: opus, seconds: Self.round(seconds), sections: sections, words: script.wordCount)
        store(narrated, key: key)
        return (narrated, true)
    }

    /// One section, with the model providers' habit: a retryable failure is tried again (3 times).
    func speak(_ text: String) async throws -> PCMAudio {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await setup.provider.synthesize(SpeechRequest(text: text, voice: setup.voice, language: language))
            } catch let error as SpeechError {
                if !error.retryable || attempt >= 3 {
                    throw ItemFailureError(reason: .provider, attempts: attempt, errors: ["\(setup.provider.kind): \(error.message)"])
                }
            }
        }
    }

    /// Audio that is silence, or whose length does not fit its words, is not the lecture.
    static func check(_ pcm: PCMAudio, words: Int) throws {
        if pcm.rms < 50 {
            throw ItemFailureError(reason: .invalid, attempts: 1, errors: ["the narration is silence (RMS \(Int(pcm.rms)))"])
        }
        let minutes = pcm.seconds / 60
        if words >= 20, minutes > 0, !plausibleRate.contains(Double(words) / minutes) {
            throw ItemFailureError(
                reason: .invalid, attempts: 1,
                errors: ["the narration lasts \(Int(pcm.seconds)) s for \(words) words (\(Int(Double(words) / minutes)) words a minute): it is not this text"])
        }
    }

    static func round(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

    // MARK: The narration cache

    func cacheKey(_ script: SpeechScript) -> String {
        let request = JSONValue.object([
            "format": "ogg-opus/1", "kind": .string(setup.provider.kind), "model": .string(setup.provider.model), "voice": .string(setup.voice),
            "language": .string(language), "bitrate": .number(Double(setup.bitrate)), "pause": .number(Self.pause),
            "sections": .array(script.sections.map { .object(["title": .string($0.title), "text": .string($0.text)]) }),
        ])
        return SHA256Digest.hex(request.canonicalText)
    }

    func files(_ key: String) -> (audio: URL, info: URL)? {
        guard let directory = setup.cacheDirectory?.appendingPathComponent("speech", isDirectory: true) else { return nil }
        return (directory.appendingPathComponent("\(key).opus"), directory.appendingPathComponent("\(key).json"))
    }

    struct Info: Codable {
        var seconds: Double
        var sections: [LectureAudio.Section]
        var words: Int
        var sha256: String
    }

    /// A stored narration whose audio still matches its checksum (a damaged file is spoken again).
    func load(_ key: String) -> NarratedLecture? {
        guard let (audioURL, infoURL) = files(key), let data = try? Data(contentsOf: infoURL),
            let info = try? JSONDecoder().decode(Info.self, from: data), let audio = try? Data(contentsOf: audioURL),
            SHA256Digest.hex(audio) == info.sha256
        else { return nil }
        return NarratedLecture(audio: audio, seconds: info.seconds, sections: info.sections, words: info.words)
    }

    /// Written to temporary names and renamed, audio first: a kill leaves no half entry.
    func store(_ narrated: NarratedLecture, key: String) {
        guard let (audioURL, infoURL) = files(key) else { return }
        let info = Info(seconds: narrated.seconds, sections: narrated.sections, words: narrated.words, sha256: SHA256Digest.hex(narrated.audio))
        do {
            try FileManager.default.createDirectory(at: audioURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            try narrated.audio.write(to: audioURL, options: .atomic)
            try CanonicalJSON.encode(info).write(to: infoURL, options: .atomic)
        } catch {
            // A narration that cannot be kept is spoken again next time; the run goes on.
        }
    }
}
