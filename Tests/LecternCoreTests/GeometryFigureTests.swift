import Foundation
import Testing

@testable import LecternCore

/// Geometry figures as data: the checks that run before anything is drawn, and the drawing.
struct GeometryFigureTests {
    static let triangle = GeometryFigure(
        points: [.init(label: "A", x: 0, y: 0), .init(label: "B", x: 4, y: 0), .init(label: "C", x: 4, y: 3)],
        polygons: [["A", "B", "C"]], rightAngles: [["A", "B", "C"]],
        lengths: [.init(from: "A", to: "B", value: 4, label: "4 cm"), .init(from: "B", to: "C", value: 3, label: "3 cm")])
    static let stem = "In the right triangle ABC, AB = 4 cm and BC = 3 cm. What is the length of AC?"
    static let alt = "A right triangle ABC with the right angle at B. Side AB is 4 cm and side BC is 3 cm; AC is the hypotenuse."

    @Test func aFigureThatAgreesWithItselfPasses() {
        #expect(Self.triangle.problems(stem: Self.stem, alt: Self.alt) == [])
    }

    @Test func aGivenLengthThatContradictsTheCoordinatesIsCaught() throws {
        var figure = Self.triangle
        figure.lengths[1].value = 5
        figure.lengths[1].label = "5 cm"
        let problems = figure.problems(stem: Self.stem, alt: Self.alt.replacingOccurrences(of: "3 cm", with: "5 cm"))
        #expect(problems.count == 1)
        #expect(try #require(problems.first).contains("BC is given as 5, but the coordinates make it 3"))
        figure.notToScale = true
        #expect(figure.problems(stem: Self.stem, alt: Self.alt.replacingOccurrences(of: "3 cm", with: "5 cm")) == [])
    }

    @Test func aRightAngleMarkOnAnAngleThatIsNotRightIsCaught() throws {
        var figure = Self.triangle
        figure.points[2].x = 5
        figure.lengths = []
        let problems = figure.problems(stem: Self.stem, alt: Self.alt)
        #expect(problems == ["angle ABC is marked right, but the coordinates make it 108.43°"])
    }

    @Test func aGivenAngleIsHeldToTheCoordinates() {
        var figure = Self.triangle
        figure.angles = [.init(vertex: "A", from: "B", to: "C", degrees: 45)]
        let alt = Self.alt + " The angle at A is 45°."
        #expect(figure.problems(stem: Self.stem, alt: alt).first?.contains("angle BAC is given as 45°, but the coordinates make it 36.87°") == true)
        figure.angles[0].degrees = 36.87
        #expect(figure.problems(stem: Self.stem, alt: Self.alt + " The angle at A is 36.87°.") == [])
    }

    @Test func theStemsPointsMustExist() {
        let problems = Self.triangle.problems(stem: "In triangle ABD, what is the length of AD?", alt: Self.alt)
        #expect(problems == ["the stem names point D, which the figure does not draw"])
    }

    @Test func labelsAreUniqueAndReferencesResolve() {
        var figure = Self.triangle
        figure.points[2].label = "B"
        #expect(figure.problems(stem: "", alt: Self.alt) == ["two points are labelled 'B': labels must be unique"])
        var dangling = Self.triangle
        dangling.segments = [["A", "E"]]
        #expect(dangling.problems(stem: "", alt: Self.alt) == ["a segment names point 'E', which the figure does not define"])
    }

    @Test func theAltTextMustNameEveryLabel() {
        #expect(
            Self.triangle.problems(stem: Self.stem, alt: "") == [
                "the figure needs alt text: a description from which the question can be answered without seeing it"
            ])
        let problems = Self.triangle.problems(stem: Self.stem, alt: "A right triangle with legs AB and BC; the right angle is at B.")
        #expect(
            problems == ["the alt text must name every label drawn; it leaves out 'C', '4 cm', '3 cm'"]
                || problems == [
                    "the alt text must name every label drawn; it leaves out '4 cm', '3 cm'"
                ])
        // The article "A" opening a sentence does not name point A; "point A is" does.
        let article = Self.triangle.problems(stem: Self.stem, alt: "A right triangle. The legs are B to C, 3 cm, and 4 cm. C is above B.")
        #expect(article == ["the alt text must name every label drawn; it leaves out 'A'"])
        #expect(Self.triangle.problems(stem: Self.stem, alt: "A right triangle: point A, then B and C; legs 4 cm and 3 cm.") == [])
    }

    @Test func arabicPointsAndEasternDigitsAreRead() {
        let figure = GeometryFigure(
            points: [.init(label: "أ", x: 0, y: 0), .init(label: "ب", x: 6, y: 0), .init(label: "ج", x: 0, y: 8)],
            polygons: [["أ", "ب", "ج"]], rightAngles: [["ب", "أ", "ج"]],
            lengths: [.init(from: "أ", to: "ب", value: 6, label: "٦ سم"), .init(from: "أ", to: "ج", value: 8, label: "٨ سم")])
        let stem = "في المثلث أ ب ج القائم الزاوية في أ، ما طول الضلع ب ج؟"
        let alt = "مثلث قائم الزاوية أ ب ج، الزاوية القائمة عند أ، طول أ ب ٦ سم وطول أ ج ٨ سم."
        #expect(figure.problems(stem: stem, alt: alt) == [])
        #expect(figure.problems(stem: "في المثلث أ ب د", alt: alt) == ["the stem names point د, which the figure does not draw"])
        #expect(GeometryFigure.pointNames(in: stem) == ["أ", "ب", "ج"])
        #expect(GeometryFigure.pointNames(in: "What is the AREA of triangle ABC? Do NOT round; AD is 4 CM.") == ["A", "B", "C", "D"])
        #expect(figure.problems(stem: "ما مجموع طولي الضلعين أ ب و أ ج؟", alt: alt) == [], "و between two names is 'and'")
    }

    @Test func drawingIsDeterministicScalableAndLabelsEverything() {
        let svg = GeometryFigureDrawing.svg(Self.triangle, alt: Self.alt, language: "en")
        #expect(svg == GeometryFigureDrawing.svg(Self.triangle, alt: Self.alt, language: "en"))
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"15.28 14.79 405.88 298.91\" width=\"405.88\" height=\"298.91\""))
        for label in ["A", "B", "C", "4 cm", "3 cm"] { #expect(svg.contains(">\(label)</text>")) }
        #expect(svg.contains("<title>\(Self.alt)</title>"))
        #expect(!svg.contains("script"))
    }

    @Test func pointLabelsSitOutsideTheShape() throws {
        let svg = GeometryFigureDrawing.svg(Self.triangle, alt: Self.alt, language: "en")
        // B is the bottom-right corner (x 364, y 284 on screen): its label goes right and down of it.
        let label = try #require(svg.firstMatch(of: /<text x="([0-9.]+)" y="([0-9.]+)" font-weight="bold" direction="ltr">B<\/text>/))
        #expect(try #require(Double(label.1)) > 364)
        #expect(try #require(Double(label.2)) > 284)
    }

    @Test func arabicLabelsAreRightToLeft() {
        let figure = GeometryFigure(
            points: [.init(label: "أ", x: 0, y: 0), .init(label: "ب", x: 6, y: 0)], segments: [["أ", "ب"]],
            lengths: [.init(from: "أ", to: "ب", value: 6, label: "٦ سم")])
        let svg = GeometryFigureDrawing.svg(figure, alt: "قطعة مستقيمة أ ب طولها ٦ سم", language: "ar")
        #expect(svg.contains("direction=\"rtl\" unicode-bidi=\"embed\">٦ سم</text>"))
        #expect(svg.contains("xml:lang=\"ar\" direction=\"rtl\""))
    }

    @Test func altTextIsEscaped() {
        let svg = GeometryFigureDrawing.svg(Self.triangle, alt: "AB < BC & \"quoted\"", language: "en")
        #expect(svg.contains("aria-label=\"AB &lt; BC &amp; &quot;quoted&quot;\""))
    }

    @Test func aGeometryStemMaySpeakOfItsFigure() {
        #expect(ExamRules.sourcelessIssues(prompt: "In the figure below, what is AC?", format: .geometry, language: "en") == [])
        #expect(ExamRules.sourcelessIssues(prompt: "في الشكل المجاور، ما طول ب ج؟", format: .geometry, language: "ar") == [])
        #expect(ExamRules.sourcelessIssues(prompt: "In the figure below, what is AC?", format: .quantitative, language: "en").count == 1)
        #expect(ExamRules.sourcelessIssues(prompt: "According to the text, what is AC?", format: .geometry, language: "en").count == 1)
    }

    @Test func anEmptyLabelIsNoLabel() {
        var figure = Self.triangle
        figure.lengths[0].label = ""
        figure.lengths[1].label = " "
        #expect(figure.drawnLabels == ["4", "3"])
        #expect(figure.problems(stem: Self.stem, alt: Self.alt) == [])
        #expect(GeometryFigureDrawing.svg(figure, alt: Self.alt, language: "en").contains(">4</text>"))
    }

    @Test func arabicAlefFormsNameOnePoint() {
        let figure = GeometryFigure(
            points: [.init(label: "أ", x: 0, y: 0), .init(label: "ب", x: 6, y: 0)], segments: [["ا", "ب"]],
            lengths: [.init(from: "ا", to: "ب", value: 6, label: "٦ سم")])
        #expect(figure.problems(stem: "ما طول القطعة أ ب؟", alt: "قطعة مستقيمة من أ إلى ب طولها ٦ سم") == [])
        #expect(GeometryFigureDrawing.svg(figure, alt: "قطعة", language: "ar").contains("<line "))
    }

    @Test func segmentNamesAreReadAsPointPairs() {
        var figure = Self.triangle
        figure.segments = [["AB"], ["BC", "CA"], ["A B", "X"], ["A", "C"]]
        #expect(figure.readingSegmentNames().segments == [["A", "B"], ["B", "C"], ["C", "A"], ["A B", "X"], ["A", "C"]])
    }
}
