import Testing

@testable import LecternRender

/// The allowlist every figure passes before it is written: what an SVG could carry that a
/// learner's app must never run or fetch is refused, and plain drawing passes.
struct SVGSafetyTests {
    static func svg(_ body: String, root: String = "") -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 10 10\"\(root)>\(body)</svg>"
    }

    @Test func plainDrawingPasses() {
        let drawing = Self.svg(
            "<title>A line</title><g stroke=\"#000\" stroke-width=\"2\"><line x1=\"0\" y1=\"0\" x2=\"10\" y2=\"10\"/></g>"
                + "<text x=\"5\" y=\"5\" direction=\"rtl\" unicode-bidi=\"embed\">أ</text>",
            root: " xml:lang=\"ar\" role=\"img\" aria-label=\"A line\"")
        #expect(SVGSafety.problems(in: drawing) == [])
    }

    @Test(arguments: [
        ("<script>alert(1)</script>", "element <script> is not allowed in a figure"),
        ("<foreignObject><div xmlns=\"http://www.w3.org/1999/xhtml\">x</div></foreignObject>", "element <foreignObject> is not allowed in a figure"),
        ("<circle cx=\"1\" cy=\"1\" r=\"1\" onload=\"alert(1)\"/>", "event attribute onload on <circle>"),
        ("<image href=\"https://example.com/a.png\"/>", "element <image> is not allowed in a figure"),
        ("<a xmlns:xlink=\"http://www.w3.org/1999/xlink\" xlink:href=\"javascript:alert(1)\"><text>x</text></a>", "element <a> is not allowed in a figure"),
        ("<rect width=\"1\" height=\"1\" fill=\"url(https://example.com/p.svg#g)\"/>", "attribute fill on <rect> refers to something outside the figure"),
        ("<rect width=\"1\" height=\"1\" style=\"fill:red\"/>", "attribute style on <rect> is not allowed in a figure"),
        ("<use href=\"#a\"/>", "element <use> is not allowed in a figure"),
        ("<html:p xmlns:html=\"http://www.w3.org/1999/xhtml\">x</html:p>", "element <p> is not allowed in a figure"),
    ])
    func dangerousContentIsRefused(_ body: String, _ problem: String) {
        #expect(SVGSafety.problems(in: Self.svg(body)) == [problem])
    }

    @Test func malformedAndDeclaredDocumentsAreRefused() {
        #expect(SVGSafety.problems(in: "<svg xmlns=\"http://www.w3.org/2000/svg\"><line></svg>").first?.hasPrefix("the SVG is not well-formed XML") == true)
        #expect(
            SVGSafety.problems(in: "<!DOCTYPE svg [<!ENTITY x \"y\">]><svg xmlns=\"http://www.w3.org/2000/svg\">&x;</svg>") == [
                "the SVG has a DOCTYPE or entity declaration"
            ])
        #expect(SVGSafety.problems(in: "<svg><line/></svg>") == ["element <svg> is not allowed in a figure"])
    }
}
