import Foundation
import LecternCore
import Testing

/// Mutations of valid quantitative items and figures are each caught, and the valid ones are
/// not flagged. The items are hand-written and the figures are the ten reference figures; the
/// same test over recorded items waits for the Arabic quantitative example's recording.
struct QuantitativeMutationTests {
    static func figures() throws -> [(String, DescribedFigure)] {
        let directory = CLITests.fixtures.appendingPathComponent("figures")
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".figure.json") }.sorted().map {
            ($0, try JSONDecoder().decode(DescribedFigure.self, from: Data(contentsOf: directory.appendingPathComponent($0))))
        }
    }

    @Test func everyFigureMutationIsCaught() throws {
        let figures = try Self.figures()
        #expect(figures.count == 10)
        for (name, file) in figures {
            let stem = try #require(file.stem, "\(name) has a stem")
            #expect(file.geometry.problems(stem: stem, alt: file.alt) == [], "\(name) as written")
            // A given length the coordinates contradict (drawn to scale only).
            if !file.geometry.notToScale, !file.geometry.lengths.isEmpty {
                var longer = file.geometry
                longer.lengths[0].value *= 1.5
                let alt = file.alt.replacingOccurrences(of: file.geometry.lengths[0].text, with: longer.lengths[0].text)
                #expect(longer.problems(stem: stem, alt: alt).contains { $0.contains("but the coordinates make it") }, "\(name): length")
            }
            // Alt text without the last point's label.
            let label = try #require(file.geometry.points.last?.label)
            let unnamed = file.alt.replacingOccurrences(of: label, with: "")
            #expect(
                file.geometry.problems(stem: "", alt: unnamed).contains { $0.contains("the alt text must name every label") && $0.contains("'\(label)'") },
                "\(name): alt text without \(label)")
            // A stem naming a point the figure does not draw.
            #expect(file.geometry.problems(stem: "What is the length of ZQ?", alt: file.alt).contains { $0.contains("the stem names point Z") }, "\(name)")
        }
    }

    /// Items as a model writes them: stem, solution, options (the key first).
    static let items: [(stem: String, solution: String, options: [String])] = [
        ("What is 20% of 150?", "20 / 100 * 150", ["30", "20", "15", "300"]),
        ("Simplify √12.", "sqrt(12)", ["2√3", "3√2", "6", "4√3"]),
        ("What is 2⁻²?", "2^-2", ["1/4", "-4", "4", "-1/4"]),
        ("A circle has radius 5 cm. What is its area?", "pi * 5^2", ["25π cm²", "10π cm²", "5π cm²", "50π cm²"]),
        ("Rationalise 1/(√3 − 1).", "1 / (sqrt(3) - 1)", ["(√3 + 1)/2", "√3 - 1", "√3 + 1", "(√3 - 1)/2"]),
        ("ما ناتج ٣/٤ − ١/٨؟", "3/4 - 1/8", ["٥/٨", "١/٢", "١/٤", "٣/٨"]),
        ("In a right triangle the legs are 6 and 8. How long is the hypotenuse?", "sqrt(6^2 + 8^2)", ["10", "14", "48", "√28"]),
        ("What is 8^(2/3)?", "8^(2/3)", ["4", "16/3", "2", "8"]),
    ]

    @Test func everyKeyMutationIsCaught() {
        for item in Self.items {
            #expect(QuantitativeKeyCheck.problems(solution: item.solution, options: item.options, key: 0) == [], "\(item.stem)")
            #expect(QuantitativeKeyCheck.groundingProblems(solution: item.solution, stem: item.stem) == [], "\(item.stem)")
            // The key moved to a wrong option.
            #expect(QuantitativeKeyCheck.problems(solution: item.solution, options: item.options, key: 1).contains { $0.contains("the answer key is wrong") })
            // A second option equal to the key, in another form: the solution itself.
            var second = item.options
            second[2] = item.solution
            #expect(QuantitativeKeyCheck.problems(solution: item.solution, options: second, key: 0).contains { $0.contains("also equals") }, "\(item.stem)")
            // The key's value changed: no option equals the solution.
            var changed = item.options
            changed[0] = "1234"
            #expect(QuantitativeKeyCheck.problems(solution: item.solution, options: changed, key: 0).contains { $0.contains("no option equals") })
        }
    }
}
