import Testing

@testable import LecternLLM

@Suite("Answers that go round in a loop")
struct AnswerLoopTests {
    @Test("a phrase written again and again is found, turned to start where a reader would, whatever the cut")
    func repeatedPhrase() {
        let looped = "The `if` statement checks a condition. " + String(repeating: "It runs the block when it is true. ", count: 12)
        #expect(AnswerLoop.repeated(in: looped) == "It runs the block when it is true. ")
        // Cut off mid-word: the unit still reads from its sentence's start.
        #expect(AnswerLoop.repeated(in: String(looped.dropLast(9))) == "It runs the block when it is true. ")
        #expect(AnswerLoop.quoted("It runs the block when it is true. ") == "It runs the block when it is true.")
    }

    @Test("a line that comes back four times is a loop, even with other lines between")
    func repeatedLine() {
        let lines = (1...4).map { "- Step \($0): check the toy\n  Make sure the toy is not broken before playing." }.joined(separator: "\n")
        #expect(AnswerLoop.repeated(in: lines) == "Make sure the toy is not broken before playing.")
    }

    @Test("a JSON answer cycling through a few list entries is a loop, though not exactly periodic")
    func repeatedJSONStrings() {
        // The local model's project for intro-probability subject 1, to 6,144 tokens on one line.
        let cycle = [
            "Create a program that generates a large number of samples from a given probability distribution",
            "Plot the results of the simulation", "Calculate the frequency of each sample", "Analyze the results of the simulation",
        ]
        var entries = ["Understand the concepts of sample spaces and events"]
        for round in 0..<6 { entries += round % 2 == 0 ? [cycle[0], cycle[1], cycle[2]] : [cycle[3], cycle[1], cycle[0]] }
        let answer = "{\"title\":\"Project\",\"requirements\":[" + entries.map { "\"\($0)\"" }.joined(separator: ",") + ",\"Plot the res"
        #expect(AnswerLoop.tailPeriod(Array(answer.unicodeScalars.suffix(4_000))) == nil, "no exact period")
        // The first entry to come back four times.
        #expect(AnswerLoop.repeated(in: answer) == cycle[1])
        #expect(
            AnswerLoop.refusal(answer)
                == "the answer went round in a loop, writing 'Plot the results of the simulation' again and again until it was cut off; say each thing once and finish the answer")
        // Three times is not yet a loop; short strings (keys, "True") never count; an escaped quote is content.
        #expect(AnswerLoop.repeatedString(in: String(repeating: "\"Plot the results of the simulation\",", count: 3), times: 4) == nil)
        #expect(AnswerLoop.repeatedString(in: String(repeating: "{\"text\": \"True\", \"feedback\": \"Yes\"}", count: 9), times: 4) == nil)
        #expect(AnswerLoop.repeatedString(in: String(repeating: "\"He said \\\"stop\\\" to the loop, again\" ", count: 4), times: 4) == "He said \\\"stop\\\" to the loop, again")
    }

    @Test("long answers that only end abruptly are not loops")
    func notLoops() {
        let lecture = (1...60).map { "Paragraph \($0) says something new about values number \($0 * 7)." }.joined(separator: "\n\n")
        #expect(AnswerLoop.repeated(in: lecture) == nil)
        #expect(AnswerLoop.repeated(in: String(repeating: "-", count: 200)) == "--------")
        #expect(AnswerLoop.repeated(in: "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |") == nil)
        #expect(AnswerLoop.repeated(in: "") == nil)
        // A lecture cut off at its budget that prints in every example is not looping.
        let examples = (1...5).map { "Example \($0):\n```python\nprint(\"The value is\", value)\n```" }.joined(separator: "\n\n")
        #expect(AnswerLoop.repeated(in: examples + "\n\nNow a new idea") == nil)
        // Three times is emphasis or a pattern; four is a loop.
        #expect(AnswerLoop.repeated(in: String(repeating: "Practice makes perfect. ", count: 3)) == nil)
    }

    @Test("blank space to the budget: after a closed JSON value the value is the answer; inside one it is a loop")
    func blankSpace() {
        let closed = "{\"prompt\": \"Why?\"}" + String(repeating: "\n", count: 300)
        #expect(AnswerLoop.completeBeforeBlank(closed) == "{\"prompt\": \"Why?\"}")
        let open = "{\"prompt\": \"Why?\"," + String(repeating: " \n", count: 300)
        #expect(AnswerLoop.completeBeforeBlank(open) == nil)
        #expect(AnswerLoop.repeated(in: open).map(AnswerLoop.isBlank) == true)
        #expect(AnswerLoop.refusal(open) == "the answer trailed off into blank space (spaces and line breaks) until it was cut off; end the answer when it is complete")
        #expect(
            AnswerLoop.refusal("Intro. " + String(repeating: "Again and again. ", count: 10))
                == "the answer went round in a loop, writing 'Again and again.' again and again until it was cut off; say each thing once and finish the answer")
        // Plain text padded with blank space is not JSON: a loop, never an answer.
        #expect(AnswerLoop.completeBeforeBlank("All done." + String(repeating: " ", count: 100)) == nil)
    }

    @Test("a repair is shown the answer up to the loop's first turn")
    func beforeLoop() {
        let looped = "Intro. " + String(repeating: "Again and again. ", count: 10)
        #expect(AnswerLoop.beforeLoop(looped) == "Intro. Again and again. \n[… the same again and again until cut off]")
        #expect(AnswerLoop.beforeLoop("No loop here.") == "No loop here.")
    }
}
