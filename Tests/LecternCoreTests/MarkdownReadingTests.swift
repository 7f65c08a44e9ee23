import Foundation
import Testing

@testable import LecternCore

/// The checks read code and math as the renderer shows them (`MarkdownLayout`), where the
/// detectors they replaced each had their own rule: indented code, fences inside list items,
/// a fence left open at the end of a text, `$ x $` (no formula on the page).
struct MarkdownReadingTests {
    @Test func aTextCutOffInsideAnOpenFenceIsUnfinishedAndOneEndingWithItsCodeIsNot() {
        let cut = "To read a value, use its key. For example:\n```\nprint(my_dict[\"Alice\"]\nThis will print the value of the key \"Alice\","
        #expect(QuestionRules.checkFinished("text", cut).count == 1)
        let closed = "To read a value, use its key. For example:\n```python\nprint(my_dict[\"Alice\"])\n```"
        #expect(QuestionRules.checkFinished("text", closed).isEmpty)
        let indented = "To read a value, use its key. For example:\n\n    print(my_dict[\"Alice\"])"
        #expect(QuestionRules.checkFinished("text", indented).isEmpty)
    }

    @Test func aCommentInIndentedCodeIsNoHeading() {
        let prompt = "What does this print?\n\n    # the total\n    print(2 + 3)\n"
        #expect(QuestionRules.checkNoHeading("prompt", prompt).isEmpty)
        #expect(QuestionRules.checkNoHeading("prompt", "## The If Statement\nWhat does `if` do?").count == 1)
        let lecture = "# Loops\n\nText.\n\n    # not a heading\n    x = 1\n\n## Next\n\nMore text.\n"
        #expect(LectureRules.scan(lecture).headings.map(\.text) == ["Loops", "Next"])
    }

    @Test func pythonInAListItemsFenceIsRead() {
        // The item's content starts at column 4, so its fence is indented four spaces: code on
        // the page, and an `elif` with no `if` in it.
        let markdown = "1.  Write the branch:\n\n    ```python\n    elif x > 3:\n        print(x)\n    ```\n"
        #expect(CodeStructure.pythonProblems(markdown).count == 1)
        #expect(CodeStructure.pythonProblems(markdown).first?.line == 4)
    }

    @Test func texThatRendersAsTextIsOutsideMath() {
        // A space after the opening $ makes no formula: the learner sees "\frac{1}{2}".
        #expect(TextIntegrity.commandsOutsideMath("Half is $ \\frac{1}{2} $ here.") == ["frac"])
        #expect(TextIntegrity.commandsOutsideMath("Half is $\\frac{1}{2}$ and `\\frac` is code.").isEmpty)
    }

    @Test func codeSpansPairAsThePageShowsThem() {
        // cmark-gfm 0.29 shows "`e`" here as text, after "` c`" was paired: its question mark
        // is prose.
        let text = "Is ``b` c` d `e?` the point? And this?"
        #expect(QuestionRules.checkOneQuestion("prompt", text).first?.message.contains("asks 3 questions") == true)
    }
}
