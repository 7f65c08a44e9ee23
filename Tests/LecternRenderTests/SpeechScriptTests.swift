import Foundation
import LecternRender
import Testing

/// Lectures as speakable text (narration, issue 15): what a listener hears for each kind of block.
struct SpeechScriptTests {
    static let lecture = """
        Variables name values so a program can use them later.

        ## Assigning a value

        Write the name, an equals sign and the value:

        ```python
        def greet(name):
            message = "Hello, " + name
            return message
        ```

        The call `greet("Ada")` returns a string, and `print()` shows it.

        1. Choose a name
        2. Assign the value

        - names are case sensitive
        - `max_value` is a good name

        ## Areas

        The area of a circle is $A = \\pi r^2$, and

        $$\\frac{a+b}{2}$$

        is the mean of two numbers.

        | shape | area |
        |---|---|
        | square | $s^2$ |

        > Simple is better than complex.

        <div>raw html</div>
        """

    @Test func aLectureReadsAsSectionsOfSentences() {
        let script = MarkdownSpeech.script(Self.lecture, title: "Variables")
        #expect(script.sections.map(\.title) == ["Variables", "Assigning a value", "Areas"])
        let first = script.sections[0].text
        #expect(first == "Variables.\n\nVariables name values so a program can use them later.")
        let second = script.sections[1].text
        #expect(second.hasPrefix("Assigning a value.\n\nWrite the name, an equals sign and the value:"))
        #expect(second.contains("A code example in Python, 3 lines, is in the written lecture; it defines greet."))
        #expect(!second.contains("return message") && !second.contains("Hello"), "code is summarized, not read")
        #expect(second.contains("The call greet with Ada returns a string, and print shows it."))
        #expect(second.contains("Step 1: Choose a name.\n\nStep 2: Assign the value."))
        #expect(second.contains("names are case sensitive.\n\nmax value is a good name."))
        let third = script.sections[2].text
        #expect(
            third.contains("The area of a circle is A equals pi r squared, and the fraction a plus b, over 2, end fraction is the mean of two numbers."),
            "a display formula inside a sentence does not end it: \(third)")
        #expect(third.contains("A table of 1 row is in the written lecture; its columns are shape and area."))
        #expect(third.contains("Quote:\n\nSimple is better than complex.\n\nEnd of quote."))
        #expect(!third.contains("raw html") && !third.contains("$") && !third.contains("\\"), "\(third)")
        #expect(script.wordCount > 60)
        if ProcessInfo.processInfo.environment["LECTERN_PRINT_SPEECH"] != nil { print(script.sections.map { "[\($0.title)]\n\($0.text)" }.joined(separator: "\n\n")) }
    }

    @Test func inlineCodeIsReadWhenShortAndPlain() {
        let script = MarkdownSpeech.script(
            "Use `if-elif-else`, test `x >= 10`, call `len(items)`, set `total += 1`, avoid `{k: v for k, v in d.items()}`.", title: "Code")
        let line = MarkdownSpeech.script("Store it:\n\n```python\nmy_ball = \"red\"\n```\n", title: "Code")
        #expect(line.sections[0].text.hasSuffix("Store it:\n\nIn code: my ball equals red."), "\(line.sections[0].text)")
        #expect(
            script.sections[0].text.hasSuffix(
                "Use if elif else, test x greater than or equal to 10, call len with items, set total plus equals 1, avoid a piece of code."),
            "\(script.sections[0].text)")
    }

    @Test func aLectureThatOpensWithItsTitleSaysItOnce() {
        let script = MarkdownSpeech.script("# Loops\n\nA loop repeats work.\n\n## For loops\n\nThey count.\n", title: "Loops")
        #expect(script.sections == [.init(title: "Loops", text: "Loops.\n\nA loop repeats work."), .init(title: "For loops", text: "For loops.\n\nThey count.")])
        let other = MarkdownSpeech.script("# Repetition\n\nA loop repeats work.\n", title: "Loops")
        #expect(other.sections == [.init(title: "Loops", text: "Loops.\n\nRepetition.\n\nA loop repeats work.")])
    }

    @Test func arabicLecturesAreReadInArabic() {
        let script = MarkdownSpeech.script("## المساحة\n\nمساحة المربع $s^2$.\n\n1. أولا\n", title: "الهندسة", language: "ar")
        #expect(script.sections.map(\.title) == ["الهندسة"], "a heading right after the title stays in the lecture's first section")
        #expect(script.sections[0].text.hasPrefix("الهندسة.\n\nالمساحة."))
        #expect(script.sections[0].text.contains("مساحة المربع s تربيع."))
        #expect(script.sections[0].text.contains("الخطوة 1: أولا."))
    }

    @Test func hostileMarkdownGivesTextNotACrash() {
        for input in ["", "$$", "```", String(repeating: "> ", count: 2_000) + "x", "\u{E000}9\u{E001}", String(repeating: "- ", count: 3_000)] {
            _ = MarkdownSpeech.script(input, title: "T")
        }
        #expect(MarkdownSpeech.script("", title: "Empty").sections == [.init(title: "Empty", text: "Empty.")])
    }
}
