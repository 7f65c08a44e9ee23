import Foundation
import Testing

@testable import LecternCore

/// Feedback that says the text gives no year, date, temperature or number about something it does
/// give one for (issue 48: feedback that contradicts the passage).
struct AbsenceClaimsTests {
    static let antarctica =
        "In order to form a legal framework for countries' activities on the continent, an Antarctic Treaty was negotiated that neither "
        + "denies nor recognizes existing territorial claims; it was signed in 1959 and entered into force in 1961. "
        + "In 1956, the United States established the Amundsen-Scott Station at the South Pole."
    static let desert =
        "During the day, desert temperatures rise to an average of 38°C (100°F). At night, desert temperatures fall to an average of -4°C (about 25°F)."

    @Test(arguments: [
        // The recorded reading set's feedback (world-geography-exam, reading-set/p01).
        ("The passage does not mention any year when the Antarctic Treaty came into force.", antarctica, "year"),
        ("The passage does not state when the treaty was signed or entered into force.", antarctica, "date"),
        ("The text doesn't give a date for when the treaty entered into force.", antarctica, "date"),
        ("The passage fails to mention the year in which the United States established its South Pole station.", antarctica, "year"),
        ("The passage does not give any night temperature.", desert, "temperature"),
        ("Wrong: the article never states the temperature at night.", desert, "temperature"),
    ])
    func aClaimTheTextAnswersIsFound(_ feedback: String, _ source: String, _ kind: String) {
        let found = AbsenceClaims.contradictions(in: feedback, source: source)
        #expect(found.first?.kind == kind, "\(feedback)")
    }

    @Test(arguments: [
        // A named value the text does not hold: the feedback is right.
        "The passage does not mention 1960.",
        // Something the text gives no value for.
        "The passage does not mention any year when China established an Antarctic station.",
        "The passage does not give the number of scientists who winter at the stations.",
        // A claim with nothing to compare but its kind.
        "The passage does not mention any year.",
        // Not a claim that the text lacks something.
        "The passage mentions the year the treaty entered into force: 1961.",
        "1960 is not the year the treaty entered into force; the passage gives 1961.",
        // About the treaty's signing countries, for which the text gives no number.
        "The passage does not say how many countries signed the treaty.",
    ])
    func aClaimTheTextDoesNotAnswerPasses(_ feedback: String) {
        #expect(AbsenceClaims.contradictions(in: feedback, source: Self.antarctica).isEmpty, "\(feedback)")
    }

    @Test func theIssueNamesTheFeedbackAndTheSentence() throws {
        let options = [
            Choice(text: "1961", correct: true, feedback: "The passage says it entered into force in 1961."),
            Choice(text: "1960", correct: false, feedback: "The passage does not mention any year when the Antarctic Treaty came into force."),
            Choice(text: "1970", correct: false, feedback: "1970 is when the stations grew in number, not when the treaty entered into force."),
        ]
        let issues = AbsenceClaims.issues(explanation: "It entered into force in 1961.", options: options, source: Self.antarctica, language: "en")
        let issue = try #require(issues.first)
        #expect(issues.count == 1)
        #expect(issue.check == .feedbackAgreesWithKey)
        #expect(issue.message.contains("the feedback of '1960' says the passage gives no year"))
        #expect(issue.message.contains("entered into force in 1961"))
        // The wording is English: another language's feedback is not read.
        #expect(AbsenceClaims.issues(explanation: "", options: options, source: Self.antarctica, language: "fr").isEmpty)
    }

    /// `lectern check` reads the passage an exam.json stores with its items.
    @Test func lecternCheckReadsThePassageOfABank() throws {
        let bank: [String: Any] = [
            "format_version": ExamBank.formatVersion, "language": "en",
            "sections": [["id": "s", "title": "Reading", "categories": [["id": "c", "title": "Reading", "format": "reading"]]]],
            "passages": [["id": "p1", "section": "s", "category": "c", "text": Self.antarctica, "document": "antarctica.md"]],
            "items": [
                [
                    "id": "q1", "section": "s", "category": "c", "difficulty": "medium", "passage": "p1",
                    "prompt": "What year did the Antarctic Treaty come into force?",
                    "options": [
                        ["text": "1961", "correct": true, "feedback": "The passage gives 1961 for its entry into force."],
                        ["text": "1960", "correct": false, "feedback": "The passage does not mention any year when the Antarctic Treaty came into force."],
                        ["text": "1959", "correct": false, "feedback": "1959 is the year it was signed, two years before it entered into force."],
                        ["text": "1956", "correct": false, "feedback": "1956 is when the United States built its station at the South Pole."],
                    ],
                    "explanation": "The treaty was signed in 1959 and entered into force in 1961.",
                    "sources": [["document": "antarctica.md", "quote": "it was signed in 1959 and entered into force in 1961"]],
                ]
            ],
        ]
        let data = try JSONSerialization.data(withJSONObject: bank)
        let report = try BankLint.check(data: data, file: "exam.json", language: "en")
        let flag = try #require(report.flagged.first { $0.id == "q1" })
        #expect(flag.checks.contains(.feedbackAgreesWithKey), "\(flag.problems)")
        #expect(flag.problems.contains { $0.contains("gives no year") })
    }
}
