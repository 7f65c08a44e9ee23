import Foundation
import Testing

@testable import LecternCore

/// Spec loading through the real loader, driven by fixture files: every file under
/// Fixtures/specs/invalid starts with `# expect: LINE:COLUMN message | hint`.
struct SpecLoaderTests {
    static let fixtures = Bundle.module.resourceURL!.appendingPathComponent("Fixtures")

    static func presets() throws -> PresetLibrary {
        try PresetLibrary(directories: [fixtures.appendingPathComponent("presets")])
    }

    static func files(_ folder: String) -> [String] {
        let dir = fixtures.appendingPathComponent("specs/\(folder)")
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasSuffix(".yaml") }.sorted()
    }

    static func load(_ text: String, file: String = "spec.yaml") throws -> JobSpec {
        try SpecLoader(presets: try presets()).load(YAMLSource(file: file, data: Data(text.utf8)))
    }

    @Test(arguments: files("valid"))
    func validSpecsLoad(_ name: String) throws {
        let url = Self.fixtures.appendingPathComponent("specs/valid/\(name)")
        let spec = try SpecLoader(presets: try Self.presets()).load(url, displayName: name)
        #expect(spec.kind == (name.hasPrefix("exam") ? .exam : .course))
        #expect(Slug.isValidID(spec.id))
    }

    @Test(arguments: files("invalid"))
    func invalidSpecsAreRefusedWithLocation(_ name: String) throws {
        let url = Self.fixtures.appendingPathComponent("specs/invalid/\(name)")
        let text = try String(contentsOf: url, encoding: .utf8)
        let header = try #require(text.split(separator: "\n").first.map(String.init))
        let expectation = header.replacingOccurrences(of: "# expect: ", with: "")
        let parts = expectation.components(separatedBy: " | ")
        let placeAndMessage = parts[0]
        let place = placeAndMessage.prefix(while: { $0 != " " })
        let message = placeAndMessage.dropFirst(place.count + 1)
        let numbers = place.split(separator: ":").compactMap { Int($0) }
        do {
            _ = try SpecLoader(presets: try Self.presets()).load(url, displayName: name)
            Issue.record("\(name) was accepted")
        } catch let error as SpecError {
            let match = error.diagnostics.first { $0.message.contains(message) }
            #expect(match != nil, "\(name): no diagnostic contains '\(message)'; got:\n\(error)")
            if let match {
                #expect(
                    match.line == numbers[0] && match.column == numbers[1], "\(name): at \(match.line ?? 0):\(match.column ?? 0), expected \(place)")
                #expect(match.file == name)
                if parts.count > 1 {
                    #expect((match.hint ?? "").contains(parts[1]), "\(name): hint '\(match.hint ?? "")' lacks '\(parts[1])'")
                }
            }
            #expect(error.description.contains("\(name):\(numbers[0]):\(numbers[1]): error:"))
        }
    }

    @Test func validSpecDecodesEveryField() throws {
        let url = Self.fixtures.appendingPathComponent("specs/valid/full.yaml")
        let spec = try SpecLoader(presets: try Self.presets()).load(url)
        let course = try #require(spec.course)
        #expect(spec.version == "1.2.0-beta.1")
        #expect(course.curriculum.presets == ["basic-to-advanced", "comprehensive"])
        #expect(course.curriculum.subjects == SizeRange(min: 2, max: 4))
        #expect(course.curriculum.topicsPerSubject == SizeRange(min: 3, max: 3))
        #expect(course.curriculum.edits.count == 1)
        #expect(spec.tone.presets == ["eli5", "piratey"])
        #expect(course.addons.reinforcement && !course.addons.endingProjects && course.addons.engagementQuestions)
        #expect(spec.model.provider == .openai && spec.model.maxConcurrency == 16 && spec.model.seed == 7)
        #expect(spec.model.apiKeyEnv == "MY_KEY")
        #expect(spec.budget.maxCostUSD == 2.5)
        #expect(spec.repair.maxAttempts == 4)
        #expect(spec.variant == "take-2")
    }

    @Test func defaultsAreDocumentedValues() throws {
        let spec = try Self.load("kind: course\nid: a\ndescription: d\n")
        #expect(spec.version == "1.0.0" && spec.language == "en")
        #expect(spec.model.provider == .local && spec.model.name == ModelSpec.defaultLocalModel)
        #expect(spec.model.temperature == 0.3 && spec.model.maxRetries == 3 && spec.model.maxConcurrency == 2)
        #expect(spec.course?.addons == Addons.defaults)
        #expect(spec.repair.maxAttempts == 3)
        #expect(spec.budget.maxCostUSD == nil)
    }

    @Test func timeoutsAndStreamingDecodeWithTheirDefaults() throws {
        let url = Self.fixtures.appendingPathComponent("specs/valid/keys-and-timeouts.yaml")
        let spec = try SpecLoader(presets: try Self.presets()).load(url)
        #expect(spec.model.connectTimeoutSeconds == 5 && spec.model.requestTimeoutSeconds == 300 && spec.model.idleTimeoutSeconds == 30)
        #expect(spec.model.stream == false && !spec.model.streams)
        let remote = try Self.load("kind: course\nid: a\ndescription: d\nmodel: {provider: anthropic}\n")
        #expect(remote.model.streams && remote.model.requestTimeoutSeconds == nil)
        let local = try Self.load("kind: course\nid: a\ndescription: d\n")
        #expect(!local.model.streams)
        // Unset keys stay out of the spec hash, so existing bundles keep their spec_hash.
        let encoded = try local.hashedJSON()
        #expect(!String(decoding: encoded, as: UTF8.self).contains("timeout"))
    }

    @Test func pinnedOutlineWithAliasValue() throws {
        let url = Self.fixtures.appendingPathComponent("specs/valid/pinned-outline.yaml")
        let spec = try SpecLoader(presets: try Self.presets()).load(url)
        let outline = try #require(spec.course?.outline)
        #expect(outline.subjects.count == 2)
        #expect(outline.subjects[0].topics[1].objective == "Understand the idea.")
        #expect(outline.subjects[1].topics[0].title == "Only topic")
    }

    @Test func specHashIgnoresCommentsAndKeyOrder() throws {
        let a = try Self.load("kind: course\nid: a\ndescription: d\n")
        let b = try Self.load("# comment\ndescription: d\nid: a\nkind: course\n")
        let c = try Self.load("kind: course\nid: a\ndescription: e\n")
        #expect(a.hash == b.hash)
        #expect(a.hash != c.hash)
        #expect(a.hash.count == 64)
    }

    @Test func emptyAndWhitespaceFilesAreRefused() {
        for text in ["", "   \n\n  "] {
            #expect {
                _ = try YAMLSource(file: "empty.yaml", data: Data(text.utf8))
            } throws: { error in
                (error as? SpecError)?.diagnostics.first?.message == "the file is empty"
            }
        }
        // A document that is only a comment parses to nothing.
        #expect(throws: SpecError.self) { try Self.load("# nothing here\n") }
    }

    @Test func binaryAndInvalidUTF8AreRefused() {
        #expect {
            _ = try YAMLSource(file: "bin.yaml", data: Data([0x6b, 0x69, 0x6e, 0x64, 0x00, 0x01, 0x02]))
        } throws: { error in
            guard let d = (error as? SpecError)?.diagnostics.first else { return false }
            return d.message.contains("NUL byte") && d.line == 1 && d.column == 5
        }
        #expect {
            _ = try YAMLSource(file: "latin1.yaml", data: Data([0x6b, 0x3a, 0x20, 0xe9, 0x0a]))
        } throws: { error in
            (error as? SpecError)?.diagnostics.first?.message.contains("not valid UTF-8") == true
        }
    }

    @Test func hugeFilesAreRefusedBeforeParsing() throws {
        let big = Data(repeating: 0x61, count: YAMLSource.maxBytes + 1)
        #expect {
            _ = try YAMLSource(file: "big.yaml", data: big)
        } throws: { error in
            (error as? SpecError)?.diagnostics.first?.message.contains("limited to") == true
        }
        // Through the file path too.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-big-\(UUID().uuidString).yaml")
        try big.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(throws: SpecError.self) { try YAMLSource.read(url) }
    }

    /// The classic "billion laughs": nine levels of ten aliases each.
    static func aliasBomb(levels: Int = 9) -> String {
        var text = "kind: course\nid: x\ndescription: d\nlol0: &l0 [lol]\n"
        for level in 1...levels {
            let refs = Array(repeating: "*l\(level - 1)", count: 10).joined(separator: ", ")
            text += "lol\(level): &l\(level) [\(refs)]\n"
        }
        return text
    }

    @Test func aliasBombIsRefused() throws {
        let clock = ContinuousClock()
        let start = clock.now
        #expect {
            _ = try Self.load(Self.aliasBomb())
        } throws: { error in
            (error as? SpecError)?.diagnostics.contains { $0.message.contains("billion laughs") } == true
        }
        // Not a timing assertion: a record of the refusal's cost for the log.
        print("alias bomb refused in \(start.duration(to: clock.now))")
    }

    @Test func aliasesUnderTheCountLimitCannotExpandTheWalk() throws {
        // Few aliases, exponential expansion: each level doubles. 30 levels = 2^30 nodes if walked.
        var text = "kind: course\nid: x\ndescription: d\naudience: &a0 [x]\n"
        for level in 1...30 {
            text += "variant: &a\(level) [*a\(level - 1), *a\(level - 1)]\n".replacingOccurrences(of: "variant", with: "k\(level)")
        }
        text += "curriculum:\n  edits: *a30\n"
        let error = try #require(throws: SpecError.self) { try Self.load(text) }
        #expect(error.diagnostics.count >= 1)
    }

    @Test func markdownEmphasisInBlockScalarsIsNotAnAlias() throws {
        let stars = Array(repeating: "*bold* text", count: 200).joined(separator: " ")
        let spec = try Self.load("kind: course\nid: x\ndescription: |\n  \(stars)\n  *more*: not a key\n")
        #expect(spec.description.contains("*bold*"))
    }

    /// Windows line ends: a block scalar opens at `key: |` followed by CR LF as it does at LF, and
    /// an alias bomb is refused all the same.
    @Test func crlfFilesAreGuardedLineByLine() throws {
        let stars = Array(repeating: "*bold* text", count: 200).joined(separator: " ")
        let spec = try Self.load("kind: course\r\nid: x\r\ndescription: |\r\n  \(stars)\r\n  *more*: not a key\r\n")
        #expect(spec.description.contains("*bold*"))
        #expect {
            _ = try Self.load(Self.aliasBomb().replacingOccurrences(of: "\n", with: "\r\n"))
        } throws: { error in
            (error as? SpecError)?.diagnostics.contains { $0.message.contains("billion laughs") } == true
        }
    }

    @Test func questionMarksInValuesAreText() throws {
        let spec = try Self.load("kind: course\nid: x\ndescription: What is a loop ? And why * matters ?\naudience: anyone ?\n")
        #expect(spec.description == "What is a loop ? And why * matters ?")
        let error = try #require(throws: SpecError.self) { try Self.load("kind: course\nid: x\ndescription: d\n? complex\n: value\n") }
        #expect(error.diagnostics.first?.message.contains("explicit '?' mapping keys") == true)
    }

    @Test func everyProblemIsReportedInFileOrder() throws {
        let error = try #require(throws: SpecError.self) {
            try Self.load("kind: course\nid: BAD\ndescripton: x\nmodel: { provider: local, temperature: 9 }\n")
        }
        let lines = error.diagnostics.compactMap(\.line)
        #expect(lines == lines.sorted())
        #expect(error.diagnostics.count >= 3)
    }
}
