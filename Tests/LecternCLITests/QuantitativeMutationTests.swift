import Foundation
import LecternCore
import Testing

/// The quantitative checks against what the local model really wrote: the recorded Arabic
/// quantitative bank is replayed offline, every item passes its checks as recorded, and four
/// mutations of every item (a wrong key, a second option equal to the key, a given length the
/// coordinates contradict, alt text that leaves out a label) are each caught.
struct QuantitativeMutationTests {
    static let spec = "pipelines/examples/tafawoq-quantitative-exam.yaml"

    /// The bank the cassette gives, and its categories' formats.
    static func recordedBank() async throws -> ExamBank {
        let repo = CLITests.repository
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-quant-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let run = try await CLITests.lectern(
            [
                "run", spec, "--cache", "offline", "--cache-dir", work.appendingPathComponent("cache").path,
                "--output", work.appendingPathComponent("out").path, "--log-format", "text",
            ], in: repo)
        #expect(run.status == 0, "re-record with 'scripts/record-fixtures.sh \(spec)' if a prompt changed: \(run.stderr)")
        let data = try Data(contentsOf: work.appendingPathComponent("out/tafawoq-quantitative-exam/1.0.0/exam.json"))
        return try JSONDecoder().decode(ExamBank.self, from: data)
    }

    static func format(_ item: ExamItem, in bank: ExamBank) -> ExamCategory.Format {
        bank.sections.first { $0.id == item.section }?.categories.first { $0.id == item.category }?.format ?? .standard
    }

    static func errors(_ item: ExamItem, in bank: ExamBank) -> [String] {
        ExamRules.check(item, optionCount: item.options.count, language: bank.language, format: format(item, in: bank)).errors.map(\.message)
    }

    @Test func everyMutationOfARecordedItemIsCaught() async throws {
        let bank = try await Self.recordedBank()
        let categories = Set(bank.items.map(\.category))
        #expect(categories == ["basic-operations", "geometry", "roots-and-exponents"])
        #expect(bank.items.filter { $0.figure != nil }.count >= 2, "the geometry items have figures")
        var mutations = 0
        for item in bank.items {
            let format = Self.format(item, in: bank)
            #expect(format.computesKey)
            // As recorded: clean.
            #expect(Self.errors(item, in: bank) == [], "\(item.id) as recorded")
            let solution = try #require(item.solution)
            let value = try QuantitativeExpression.evaluate(solution.expression)
            let keyIndex = item.options.firstIndex { $0.correct }
            let key = try #require(keyIndex)

            // A wrong key: the mark moved to another option.
            var wrongKey = item
            let other = (key + 1) % item.options.count
            for index in wrongKey.options.indices { wrongKey.options[index].correct = index == other }
            #expect(Self.errors(wrongKey, in: bank).contains { $0.contains("the answer key is wrong") }, "\(item.id): wrong key")
            mutations += 1

            // A second option equal to the key, written another way: the solution itself.
            var second = item
            second.options[other].text = solution.expression
            #expect(
                Self.errors(second, in: bank).contains { $0.contains("also equals \(value)") }, "\(item.id): second correct option")
            mutations += 1

            guard let figure = item.figure else { continue }
            // A given length the coordinates contradict (its label kept, so only the measure is wrong).
            var longer = item
            if longer.figure!.geometry.lengths.isEmpty {
                let points = figure.geometry.points
                let drawn = hypot(points[0].x - points[1].x, points[0].y - points[1].y)
                longer.figure!.geometry.lengths = [.init(from: points[0].label, to: points[1].label, value: drawn * 1.5, label: "")]
                longer.figure!.geometry.lengths[0].label = nil
                longer.figure!.alt += " " + GeometryFigure.number(drawn * 1.5)
            } else {
                longer.figure!.geometry.lengths[0].value *= 1.5
            }
            longer.figure!.geometry.notToScale = false
            #expect(
                Self.errors(longer, in: bank).contains { $0.contains("but the coordinates make it") }, "\(item.id): contradicted length")
            mutations += 1

            // Alt text that leaves out a label: every mention of the last point removed.
            var unnamed = item
            let label = try #require(figure.geometry.points.last?.label)
            unnamed.figure!.alt = figure.alt.replacingOccurrences(of: label, with: "")
            #expect(
                Self.errors(unnamed, in: bank).contains { $0.contains("the alt text must name every label drawn") && $0.contains("'\(label)'") },
                "\(item.id): alt text without \(label)")
            mutations += 1
        }
        #expect(mutations >= 2 * bank.items.count + 4)
    }
}
