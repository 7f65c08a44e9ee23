import Foundation

/// One piece of text to speak.
public struct SpeechRequest: Sendable, Hashable, Codable {
    public var text: String
    /// The provider's voice name (`en-us`, `ar` for espeak-ng; `alloy` … for OpenAI).
    public var voice: String
    public var language: String

    public init(text: String, voice: String, language: String) {
        self.text = text
        self.voice = voice
        self.language = language
    }
}

/// Mono 16-bit PCM.
public struct PCMAudio: Sendable, Equatable {
    public var samples: [Int16]
    public var sampleRate: Int

    public init(samples: [Int16], sampleRate: Int) {
        self.samples = samples
        self.sampleRate = sampleRate
    }

    public var seconds: Double { sampleRate > 0 ? Double(samples.count) / Double(sampleRate) : 0 }

    /// `seconds` of silence at `sampleRate`.
    public static func silence(seconds: Double, sampleRate: Int) -> PCMAudio {
        PCMAudio(samples: Array(repeating: 0, count: Int((seconds * Double(sampleRate)).rounded())), sampleRate: sampleRate)
    }

    /// Root mean square level of the samples (0 … 32767): silence is near 0, speech in the hundreds.
    public var rms: Double {
        guard !samples.isEmpty else { return 0 }
        var sum = 0.0
        for s in samples { sum += Double(s) * Double(s) }
        return (sum / Double(samples.count)).squareRoot()
    }
}

/// A speech synthesizer. Like the model providers it is an untrusted remote (or a local
/// program): a failure is a `SpeechError` that says what to do.
public protocol SpeechProvider: Sendable {
    /// `espeak-ng`, `openai`, `scripted` …: part of the cache key.
    var kind: String { get }
    /// The engine or model name and version: part of the cache key, so a new engine speaks again.
    var model: String { get }
    func synthesize(_ request: SpeechRequest) async throws -> PCMAudio
}

public struct SpeechError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// Whether trying again may help (a timeout, a 5xx, a rate limit).
    public var retryable: Bool

    public init(_ message: String, retryable: Bool = false) {
        self.message = message
        self.retryable = retryable
    }

    public var description: String { message }
}

/// RIFF/WAVE with 16-bit PCM: what espeak-ng writes and what `/v1/audio/speech` returns as `wav`.
public enum WAV {
    /// The samples of a 16-bit PCM WAV file (mono, or the first channel). A streamed file's
    /// placeholder sizes (espeak-ng's `--stdout`) are read as "to the end".
    public static func parse(_ data: Data) throws -> PCMAudio {
        let bytes = [UInt8](data)
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        guard bytes.count >= 12, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46], bytes[8..<12] == [0x57, 0x41, 0x56, 0x45] else {
            throw SpeechError("the audio is not a WAV file (\(bytes.count) bytes, starting \(bytes.prefix(12).map { String($0, radix: 16) }.joined(separator: " ")))")
        }
        var at = 12
        var channels = 0
        var rate = 0
        var bits = 0
        while at + 8 <= bytes.count {
            let id = String(decoding: bytes[at..<at + 4], as: UTF8.self)
            let size = u32(at + 4)
            let body = at + 8
            if id == "fmt " {
                guard body + 16 <= bytes.count else { break }
                guard u16(body) == 1 else { throw SpeechError("the WAV audio is not PCM (format \(u16(body)))") }
                channels = u16(body + 2)
                rate = u32(body + 4)
                bits = u16(body + 14)
            } else if id == "data" {
                guard channels > 0, rate > 0, bits == 16 else { throw SpeechError("the WAV audio is not 16-bit PCM (\(bits) bits, \(channels) channels)") }
                let end = min(bytes.count, size >= 0x7FFF_0000 ? bytes.count : body + size)
                let frame = 2 * channels
                var samples: [Int16] = []
                samples.reserveCapacity((end - body) / frame)
                var i = body
                while i + frame <= end {
                    samples.append(Int16(bitPattern: UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8))
                    i += frame
                }
                return PCMAudio(samples: samples, sampleRate: rate)
            }
            at = body + size + (size & 1)
        }
        throw SpeechError("the WAV audio has no data")
    }

    public static func encode(_ audio: PCMAudio) -> Data {
        var out = Data()
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { out.append(contentsOf: $0) } }
        func u16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { out.append(contentsOf: $0) } }
        let dataSize = audio.samples.count * 2
        out.append(contentsOf: Array("RIFF".utf8))
        u32(36 + dataSize)
        out.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(16)
        u16(1)
        u16(1)
        u32(audio.sampleRate)
        u32(audio.sampleRate * 2)
        u16(2)
        u16(16)
        out.append(contentsOf: Array("data".utf8))
        u32(dataSize)
        audio.samples.withUnsafeBufferPointer { buffer in
            for s in buffer { withUnsafeBytes(of: s.littleEndian) { out.append(contentsOf: $0) } }
        }
        return out
    }
}

/// Runs a program with `input` on its standard input and returns its standard output; a non-zero
/// exit is an error carrying the program's standard error.
enum ChildProcess {
    static func run(_ executable: URL, arguments: [String], input: Data) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                do {
                    continuation.resume(returning: try runBlocking(executable, arguments: arguments, input: input))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    static func runBlocking(_ executable: URL, arguments: [String], input: Data) throws -> Data {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        do {
            try process.run()
        } catch {
            throw SpeechError(
                "\(executable.lastPathComponent) cannot be started (\(error.localizedDescription)); install it (Debian: apt install \(executable.lastPathComponent == "opusenc" ? "opus-tools" : executable.lastPathComponent))"
            )
        }
        // Feed stdin and drain stderr on their own threads so no pipe fills up. A program that
        // exits without reading all its input must not take Lectern down with SIGPIPE: the
        // signal is ignored and the write's error is the program's exit status to report.
        _ = ignoreBrokenPipes
        let writer = Thread {
            try? stdin.fileHandleForWriting.write(contentsOf: input)
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let errors = Mutexed(Data())
        let errorReader = Thread { errors.set(stderr.fileHandleForReading.readAllRetryingInterrupts()) }
        errorReader.start()
        let output = stdout.fileHandleForReading.readAllRetryingInterrupts()
        process.waitUntilExit()
        while !errorReader.isFinished { usleep(1_000) }
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errors.get().prefix(500), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw SpeechError("\(executable.lastPathComponent) exited with status \(process.terminationStatus): \(message)")
        }
        return output
    }

    /// SIGPIPE ignored once per process (writes to a closed pipe then fail with EPIPE instead).
    static let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// Finds `name` on PATH (or the usual Debian places).
    static func locate(_ name: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> URL? {
        let path = (environment["PATH"] ?? "") + ":/usr/bin:/usr/local/bin"
        for dir in path.split(separator: ":") where !dir.isEmpty {
            let candidate = URL(fileURLWithPath: String(dir)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}

/// A value behind a lock, for a thread that hands back one result.
final class Mutexed<Value: Sendable>: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func set(_ new: Value) { lock.withLock { value = new } }
    func get() -> Value { lock.withLock { value } }
}
