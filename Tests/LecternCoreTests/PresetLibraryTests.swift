import Foundation
import Testing

@testable import LecternCore

struct PresetLibraryTests {
    func temporaryPresets(_ files: [String: String]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-presets-\(UUID().uuidString)")
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        return root
    }

    @Test func usersAddPresetsByAddingFiles() throws {
        let root = try temporaryPresets([
            "curriculum/weekend-workshop.yaml": "summary: Two days.\ninstructions: Fit everything into two days.\n",
            "tone/noir.yaml": "summary: Detective noir.\ninstructions: Write like a hard-boiled detective.\n",
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let library = try PresetLibrary(directories: [root])
        #expect(library.curriculum["weekend-workshop"]?.instructions == "Fit everything into two days.")
        #expect(library.tone["noir"] != nil)
        let spec = try SpecLoader(presets: library).load(
            YAMLSource(file: "s.yaml", data: Data("kind: course\nid: a\ndescription: d\ntone: { presets: [noir] }\n".utf8)))
        #expect(spec.tone.presets == ["noir"])
    }

    @Test func unknownPresetListsTheAvailableOnes() throws {
        let root = try temporaryPresets(["tone/noir.yaml": "summary: s\ninstructions: i\n", "tone/calm.yaml": "summary: s\ninstructions: i\n"])
        defer { try? FileManager.default.removeItem(at: root) }
        let library = try PresetLibrary(directories: [root])
        #expect(library.availabilityHint(for: "zzz", kind: .tone).contains("available: calm, noir"))
        #expect(library.availabilityHint(for: "noyr", kind: .tone).hasPrefix("did you mean 'noir'?"))
    }

    @Test func aBrokenPresetFileIsASpecErrorWithLocation() throws {
        let root = try temporaryPresets(["tone/bad.yaml": "summary: s\ninstructons: typo\n"])
        defer { try? FileManager.default.removeItem(at: root) }
        let error = try #require(throws: SpecError.self) { try PresetLibrary(directories: [root]) }
        #expect(error.diagnostics.contains { $0.message.contains("unknown key 'instructons'") && $0.line == 2 })
    }

    @Test func theShippedPresetsLoad() throws {
        // The project's own pipelines/presets, found from this file's place in the repository.
        let root = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let library = try PresetLibrary(directories: [root.appendingPathComponent("pipelines/presets")])
        for name in ["comprehensive", "basic-to-advanced", "crash-course", "exam-prep"] { #expect(library.curriculum[name] != nil, "\(name)") }
        for name in ["eli5", "piratey", "like-my-mom", "socratic", "academic", "storyteller"] { #expect(library.tone[name] != nil, "\(name)") }
    }
}
