import Foundation
import Testing

@testable import LecternLLM

/// Speech synthesis with espeak-ng and Ogg Opus encoding (narration, issue 15), listened to: each
/// file is decoded again and must last as long as its words take to say, and not be silence.
struct SpeechSynthesisTests {
    static let english = """
        Variables name values so a program can use them later. Write the name, an equals sign and \
        the value. The area of a circle is pi r squared. A code example in Python is in the written lecture.
        """
    static let arabic = "المتغيرات تسمي القيم حتى يستخدمها البرنامج لاحقا. مساحة الدائرة تساوي باي في مربع نصف القطر."

    /// espeak-ng and opus-tools are installed by `make test` (`make deps`); a machine without them fails here
    /// with the package to install rather than skipping.
    static func provider() throws -> EspeakSpeechProvider {
        try #require(EspeakSpeechProvider(), "espeak-ng is not installed (Debian: apt install espeak-ng)")
    }

    @Test(arguments: [("en", english), ("ar", arabic)])
    func spokenTextLastsAsLongAsItsWordsAndIsNotSilence(language: String, text: String) async throws {
        let espeak = try Self.provider()
        let voice = EspeakSpeechProvider.defaultVoice(language: language)
        let pcm = try await espeak.synthesize(SpeechRequest(text: text, voice: voice, language: language))
        let words = Double(text.split(separator: " ").count)
        // 160 words a minute, give or take: pauses at sentence ends, long and short words.
        let expected = words / 160 * 60
        #expect(pcm.seconds > expected * 0.5 && pcm.seconds < expected * 2, "\(language): \(pcm.seconds) s for \(Int(words)) words")
        #expect(pcm.rms > 300, "\(language): RMS \(pcm.rms) — silence?")

        let opus = try await OggOpus.encode(pcm)
        let again = try await OggOpus.encode(pcm)
        #expect(opus == again, "the same samples give the same bytes")
        let length = try #require(OggOpus.duration(opus))
        #expect(abs(length - pcm.seconds) < 0.05, "\(length) s in the file, \(pcm.seconds) s spoken")

        // Decode the file as a listener's player would, and listen to it.
        let opusdec = try #require(ChildProcess.locate("opusdec"), "opusdec is not installed (Debian: apt install opus-tools)")
        let decoded = try WAV.parse(try ChildProcess.runBlocking(opusdec, arguments: ["--quiet", "--force-wav", "-", "-"], input: opus))
        #expect(abs(decoded.seconds - pcm.seconds) < 0.05)
        #expect(decoded.rms > 300, "decoded RMS \(decoded.rms)")
        // Speech has pauses: some 100 ms windows are much quieter than the loudest.
        let window = decoded.sampleRate / 10
        let levels = stride(from: 0, to: decoded.samples.count - window, by: window).map {
            PCMAudio(samples: Array(decoded.samples[$0..<$0 + window]), sampleRate: decoded.sampleRate).rms
        }
        #expect(levels.filter { $0 < 100 }.count >= 2 && (levels.max() ?? 0) > 1_000, "levels \(levels.prefix(20))")
    }

    @Test func wavFilesAreReadAndWrittenAndBadAudioIsAnError() throws {
        let audio = PCMAudio(samples: [0, 1, -1, 32767, -32768], sampleRate: 22_050)
        #expect(try WAV.parse(WAV.encode(audio)) == audio)
        #expect(throws: SpeechError.self) { try WAV.parse(Data("not audio".utf8)) }
        #expect(throws: SpeechError.self) { try WAV.parse(Data("RIFF\0\0\0\0WAVE".utf8)) }
        #expect(OggOpus.duration(Data("OggS but not really, far too short to be a page".utf8)) == nil)
        #expect(OggOpus.duration(Data()) == nil)
    }

    @Test func textGoesInOnStandardInputSoItCannotBeAnOption() async throws {
        let espeak = try Self.provider()
        let pcm = try await espeak.synthesize(SpeechRequest(text: "--version -w /tmp/x.wav", voice: "en-us", language: "en"))
        #expect(pcm.seconds > 0.5 && !FileManager.default.fileExists(atPath: "/tmp/x.wav"))
        await #expect(throws: SpeechError.self) {
            _ = try await espeak.synthesize(SpeechRequest(text: "hello", voice: "no-such-voice-xx", language: "en"))
        }
    }
}

/// A program that exits without reading its input is an error to report, not a SIGPIPE.
struct ChildProcessTests {
    @Test func aProgramThatIgnoresItsInputIsAnErrorNotACrash() throws {
        let input = Data(repeating: 0x41, count: 4 << 20)  // more than a pipe holds
        #expect(throws: SpeechError.self) {
            _ = try ChildProcess.runBlocking(URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "exit 3"], input: input)
        }
        let echoed = try ChildProcess.runBlocking(URL(fileURLWithPath: "/bin/cat"), arguments: [], input: Data("hello".utf8))
        #expect(echoed == Data("hello".utf8))
    }
}
