import Testing

@testable import LecternCore

/// A "when" inside a question's clause is its condition, not the question "When …?" (issue 48:
/// the same question again in other words).
struct NearDuplicateTests {
    @Test(arguments: [
        // The labelled set's h-rq-07: the engagement question with its sentences reordered.
        ("A fair coin is tossed. What is the probability of heads?", "What is the probability of heads when a fair coin is tossed?"),
        ("What happens to the list when you call pop() on it?", "You call pop() on the list. What happens to it?"),
        ("Where the list ends, what does append put?", "What does append put where the list ends?"),
        ("When a fair coin is tossed, what is the probability of heads?", "What is the probability of heads when a fair coin is tossed?"),
    ])
    func aConditionJoinedByWhenIsNotAnotherQuestion(_ a: String, _ b: String) {
        #expect(NearDuplicate.areDuplicates(a, b), "\(a) | \(b)")
    }

    @Test(arguments: [
        // A question asking when is still not one asking what, after a condition too.
        ("When was the Antarctic Treaty signed?", "What was the Antarctic Treaty?"),
        ("If the treaty was signed in 1959, when did it enter into force?", "If the treaty was signed in 1959, what did it do?"),
        ("When did the treaty enter into force?", "Why did the treaty enter into force?"),
        // Other numbers, another question.
        ("What is printed when x is 3?", "What is printed when x is 4?"),
        // A condition with words of its own.
        ("What does the loop print when the list holds only negative numbers?", "What does the loop print?"),
    ])
    func otherQuestionsStayApart(_ a: String, _ b: String) {
        #expect(!NearDuplicate.areDuplicates(a, b), "\(a) | \(b)")
    }

    /// Statements compare as they did: "when" in a statement is a question word on both sides.
    @Test func statementsAreComparedAsBefore() {
        #expect(NearDuplicate.restate("Water expands when it freezes", "When it freezes, water expands"))
        #expect(NearDuplicate.Fingerprint("Water expands when it freezes.").gate == NearDuplicate.Fingerprint("Water expands when it freezes").gate)
        #expect(NearDuplicate.Fingerprint("Water expands when it freezes").gate.hasPrefix("when"))
    }
}
