import LecternMarkdown
import Testing

/// `MarkdownLayout`: code blocks, code spans and formulas as CommonMark and the math pre-pass
/// read them. `MarkdownAgreementTests` (LecternPipelineTests) holds it to the rendered pages.
struct MarkdownLayoutTests {
    @Test func fencedBlocksKeepTheirLabelLinesAndPlace() {
        let layout = MarkdownLayout("Intro\n\n```python title\nx = 1\n\nprint(x)\n```\nafter\n")
        #expect(layout.codeBlocks.count == 1)
        let block = layout.codeBlocks[0]
        #expect(block.fenced && block.closed)
        #expect(block.info == "python title" && block.label == "python")
        #expect(block.lines == ["x = 1", "", "print(x)"])
        #expect(block.lineRange == 3...7 && block.firstContentLine == 4)
    }

    @Test func anUnclosedFenceRunsToTheEndOfItsContainer() {
        let layout = MarkdownLayout("> ```\n> a\n\nb\n")
        #expect(layout.codeBlocks.count == 1)
        #expect(layout.codeBlocks[0].lines == ["a"] && !layout.codeBlocks[0].closed)
        #expect(layout.codeBlocks[0].lineRange == 1...2)
        #expect(layout.prose() == "\n\n\nb\n")
    }

    @Test func indentedCodeIsCodeAndAListItemsIndentationIsNot() {
        let indented = MarkdownLayout("Text\n\n    x = 1\n\n    y = 2\n\n\nMore")
        #expect(indented.codeBlocks.map(\.lines) == [["x = 1", "", "y = 2"]])
        #expect(indented.codeBlocks[0].lineRange == 3...5 && !indented.codeBlocks[0].fenced)
        // A list item's continuation is the item's text; a fence inside it is code, its content
        // without the item's indentation.
        let list = MarkdownLayout("1.  Step one\n    goes on\n\n    ```\n    code()\n    ```\n")
        #expect(list.codeBlocks.map(\.lines) == [["code()"]])
        #expect(list.codeBlocks[0].lineRange == 4...6)
        // Four spaces inside a paragraph continue it.
        #expect(MarkdownLayout("a\n    b\n").codeBlocks.isEmpty)
        // A fence indented four columns is not a fence.
        #expect(MarkdownLayout("para\n\n    ```\n    x\n    ```\n").codeBlocks.map(\.fenced) == [false])
    }

    @Test func codeSpansPairBacktickRunsOfEqualLength() {
        let text = "Use ``a ` b`` and `x`, not `this\nline` or ` unclosed"
        let layout = MarkdownLayout(text)
        let spans = layout.codeSpans.map { String(decoding: Array(text.utf8)[$0], as: UTF8.self) }
        #expect(spans == ["``a ` b``", "`x`", "`this\nline`"])
        #expect(layout.prose(codeSpan: { _ in "C" }) == "Use C and C, not C or ` unclosed")
    }

    @Test func formulasFollowTheRenderersRules() {
        let text = "Costs $5 and $10. Here $x^2$ and \\(y\\), then\n\n$$\na+b\n$$\n\n`$not$` here\n"
        let layout = MarkdownLayout(text)
        #expect(layout.formulas.map(\.source) == ["$x^2$", "\\(y\\)", "$$\na+b\n$$"])
        #expect(layout.formulas.map(\.display) == [false, false, true])
        #expect(layout.formulas[1].line == 1 && layout.formulas[2].line == 3)
        #expect(layout.codeSpans.count == 1)
        #expect(layout.prose(codeSpan: { _ in "C" }, formula: { _ in "F" }) == "Costs $5 and $10. Here F and F, then\n\nF\n\nC here\n")
    }

    @Test func aMathFenceIsMathAndHTMLIsNeitherCodeNorMath() {
        let layout = MarkdownLayout("```math\nx^2\n```\n\n<div>\n$a$ `b`\n</div>\n\nafter $c$\n")
        #expect(layout.codeBlocks.map(\.isMath) == [true])
        #expect(layout.htmlLines == [5, 6, 7])
        #expect(layout.formulas.map(\.source) == ["$c$"] && layout.codeSpans.isEmpty)
    }

    @Test func proseKeepsLineNumbersAndOtherScripts() {
        let text = "ما هو `x`؟\n```\nكود\n```\nسطر $y$"
        #expect(MarkdownLayout(text).prose(codeSpan: { _ in "…" }, formula: { _ in "…" }) == "ما هو …؟\n\n\n\nسطر …")
        #expect(MarkdownLayout(text).isCodeLine(3) && !MarkdownLayout(text).isCodeLine(5))
    }
}
