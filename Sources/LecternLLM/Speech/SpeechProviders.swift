import Foundation
import LecternLanguage

/// espeak-ng (Debian's `espeak-ng`): the embedded default, no key, English and Arabic voices.
/// Deterministic: the same text, voice and version give the same samples.
public struct EspeakSpeechProvider: SpeechProvider {
    public let kind = "espeak-ng"
    public let model: String
    let executable: URL
    /// Words per minute (espeak-ng's default is 175; lectures are followed better a little slower).
    let wordsPerMinute: Int

    /// Finds `espeak-ng` on PATH; nil when it is not installed.
    public init?(wordsPerMinute: Int = 160, environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let executable = ChildProcess.locate("espeak-ng", environment: environment) else { return nil }
        self.executable = executable
        self.wordsPerMinute = wordsPerMinute
        let version =
            (try? ChildProcess.runBlocking(executable, arguments: ["--version"], input: Data()))
            .map { String(decoding: $0, as: UTF8.self) } ?? ""
        // "eSpeak NG text-to-speech: 1.51  Data at: …" → "espeak-ng 1.51"
        let number = version.split(separator: " ").first { $0.first?.isNumber == true } ?? "?"
        self.model = "espeak-ng \(number) \(wordsPerMinute) wpm"
        // `espeak-ng --voices`: "Pty Language Age/Gender VoiceName File Other…" rows.
        let listing = (try? ChildProcess.runBlocking(executable, arguments: ["--voices"], input: Data())).map { String(decoding: $0, as: UTF8.self) } ?? ""
        var voices: Set<String> = []
        for line in listing.split(separator: "\n").dropFirst() {
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            if columns.count >= 5 { voices.formUnion([String(columns[1]), String(columns[3]), String(columns[4])].map { $0.lowercased() }) }
        }
        self.voices = voices
    }

    /// Language codes, voice names and voice files `espeak-ng --voices` lists (lower case).
    public let voices: Set<String>

    public func synthesize(_ request: SpeechRequest) async throws -> PCMAudio {
        // espeak-ng falls back to its default voice without a word: an unknown voice is an error here.
        guard voices.contains(request.voice.lowercased()) else {
            throw SpeechError("espeak-ng has no voice '\(request.voice)'; `espeak-ng --voices` lists them (for example en-us, en-gb, ar)")
        }
        // Text on stdin, never on the command line (no option injection from content).
        let data = try await ChildProcess.run(
            executable, arguments: ["-v", request.voice, "-s", "\(wordsPerMinute)", "--stdin", "--stdout"], input: Data(request.text.utf8))
        return try WAV.parse(data)
    }

    /// The voice for a language when the spec names none.
    public static func defaultVoice(language: String) -> String {
        LanguageSubtag.is(language, "ar") ? "ar" : "en-us"
    }
}

/// An OpenAI-compatible `POST /v1/audio/speech` endpoint (`{model, voice, input,
/// response_format: "wav"}`), with the model providers' retry policy.
public struct OpenAISpeechProvider: SpeechProvider {
    public let kind = "openai"
    public let model: String
    let baseURL: URL
    let apiKey: APIKey?
    let client: CurlHTTPClient
    let retry: RetryPolicy

    /// OpenAI's speech API root.
    public static let defaultBaseURL = URL(string: "https://api.openai.com/v1")!  // a literal, always valid
    /// The variables read, in order, when the spec names none: only for OpenAI's own host.
    public static let defaultKeyVariables = ["LECTERN_SPEECH_API_KEY", OpenAICompatibleProvider.defaultKeyVariable]

    /// The variables whose key may go to `baseURL` (the first one set is used), decided from the
    /// spec alone (``CredentialPolicy``, as for the model providers): the one `speech.api_key_env`
    /// names; else the default ones, only for OpenAI's own host; else none.
    public static func keyVariables(named: String?, baseURL: URL?) -> [String] {
        if let named { return [named] }
        return (baseURL ?? defaultBaseURL).host?.lowercased() == OpenAICompatibleProvider.ownHost ? defaultKeyVariables : []
    }

    /// Why the spec's speech settings may not send a key, or nil: a key would travel over plain
    /// http to a host that is not this machine. `validate` and `run` both refuse it.
    public static func keyProblem(named: String?, baseURL: URL?) -> String? {
        let variables = keyVariables(named: named, baseURL: baseURL)
        guard !variables.isEmpty, let problem = CredentialPolicy.plainTextProblem(sendingKeyTo: baseURL ?? defaultBaseURL) else { return nil }
        return "the key in \(variables.joined(separator: " or ")) would go to \((baseURL ?? defaultBaseURL).host ?? "?"), but \(problem)"
    }

    /// Creates a provider. The key is read from `environment` by ``keyVariables(named:baseURL:)``:
    /// throws ``SpeechError`` when the key would cross the network in plain text, or when a key
    /// is required (OpenAI's own host, or a variable named) and none of its variables is set —
    /// unless `requireKey` is false (an offline run, whose audio comes from the cache).
    public init(
        model: String, baseURL: URL?, keyVariable: String?, environment: [String: String], client: CurlHTTPClient,
        retry: RetryPolicy = RetryPolicy(), requireKey: Bool = true
    ) throws {
        if let problem = Self.keyProblem(named: keyVariable, baseURL: baseURL) { throw SpeechError(problem) }
        let variables = Self.keyVariables(named: keyVariable, baseURL: baseURL)
        var key: APIKey?
        for variable in variables {
            if let value = environment[variable]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty {
                key = APIKey(value: value, variable: variable)
                break
            }
        }
        if key == nil, !variables.isEmpty, requireKey {
            throw SpeechError(
                "the openai speech provider needs a key: set \(variables.joined(separator: " or "))"
                    + (keyVariable == nil ? " (or name another variable with speech.api_key_env)" : ""))
        }
        self.init(model: model, baseURL: baseURL ?? Self.defaultBaseURL, apiKey: key, client: client, retry: retry)
    }

    init(model: String, baseURL: URL, apiKey: APIKey?, client: CurlHTTPClient, retry: RetryPolicy = RetryPolicy()) {
        self.model = model
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.client = client
        self.retry = retry
    }

    public func synthesize(_ request: SpeechRequest) async throws -> PCMAudio {
        let body = JSONValue.object([
            "model": .string(model), "voice": .string(request.voice), "input": .string(request.text), "response_format": "wav",
        ]).canonicalText
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if let apiKey { headers.add(name: "Authorization", value: "Bearer \(apiKey.value)") }
        let http = HTTPRequest(method: "POST", url: baseURL.appendingPathComponent("audio/speech"), headers: headers, body: Data(body.utf8))
        var attempt = 0
        while true {
            attempt += 1
            do {
                let response = try await client.send(http)
                if response.status == 200 { return try WAV.parse(response.body) }
                let detail = apiKey?.redact(String(decoding: response.body.prefix(300), as: UTF8.self)) ?? String(decoding: response.body.prefix(300), as: UTF8.self)
                let retryable = RetryPolicy.isRetryable(status: response.status)
                if !retryable || attempt > retry.maxRetries {
                    let hint = response.status == 401 || response.status == 403 ? "; check the key (\(apiKey?.variable ?? "none was sent"))" : ""
                    throw SpeechError("the speech endpoint answered HTTP \(response.status)\(hint): \(detail)", retryable: retryable)
                }
            } catch let error as SpeechError {
                throw error
            } catch {
                if attempt > retry.maxRetries { throw SpeechError("the speech endpoint cannot be reached: \(error)", retryable: true) }
            }
            try await Task.sleep(for: retry.backoff(retry: attempt, random: SystemRandomSource()))
        }
    }
}

/// Ogg Opus files: encoding with opusenc (Debian's opus-tools) and reading a file's length.
public enum OggOpus {
    /// `audio` as Ogg Opus, mono speech at `bitrate` kbit/s. The stream serial number is fixed,
    /// so the same samples give the same bytes.
    public static func encode(_ audio: PCMAudio, bitrate: Int = 24, serial: UInt32 = 1) async throws -> Data {
        guard let opusenc = ChildProcess.locate("opusenc") else {
            throw SpeechError("opusenc is not installed; install it (Debian: apt install opus-tools)")
        }
        return try await ChildProcess.run(
            opusenc, arguments: ["--quiet", "--speech", "--bitrate", "\(bitrate)", "--serial", "\(serial)", "-", "-"], input: WAV.encode(audio))
    }

    /// The playing time of an Ogg Opus file: the last page's granule position less the pre-skip,
    /// at 48 kHz (RFC 7845); nil when `data` is not Ogg Opus.
    public static func duration(_ data: Data) -> Double? {
        let bytes = [UInt8](data)
        guard bytes.count > 47, bytes[0..<4] == [0x4F, 0x67, 0x67, 0x53] else { return nil }
        // The OpusHead packet starts the first page's body.
        let segments = Int(bytes[26])
        let head = 27 + segments
        guard head + 12 <= bytes.count, String(decoding: bytes[head..<head + 8], as: UTF8.self) == "OpusHead" else { return nil }
        let preSkip = Int(bytes[head + 10]) | Int(bytes[head + 11]) << 8
        // The last page: search back for its capture pattern.
        var at = bytes.count - 27
        while at >= 0 {
            if bytes[at] == 0x4F && bytes[at + 1] == 0x67 && bytes[at + 2] == 0x67 && bytes[at + 3] == 0x53 && bytes[at + 4] == 0 {
                var granule: UInt64 = 0
                for i in 0..<8 { granule |= UInt64(bytes[at + 6 + i]) << (8 * UInt64(i)) }
                guard granule != UInt64.max else { return nil }
                return Double(Int(granule) - preSkip) / 48_000
            }
            at -= 1
        }
        return nil
    }
}
