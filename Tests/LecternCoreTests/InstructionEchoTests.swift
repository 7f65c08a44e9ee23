import LecternCore
import Testing

/// `InstructionEcho`: six words in a row of what Lectern wrote to the model, found in an answer
/// whatever their case and punctuation, in any script; content never counts.
struct InstructionEchoTests {
    static let template = "The explanation is shown whatever the learner answered. Do not give the answer away in the question."

    @Test func sixWordsOfTheInstructionsAreFoundAsTheAnswerWritesThem() {
        let echo = InstructionEcho(instructions: [Self.template])
        #expect(echo.firstEcho(in: "Loops repeat steps. THE EXPLANATION is shown — whatever the learner answered!") == "THE EXPLANATION is shown — whatever the")
        #expect(echo.firstEcho(in: "Do not give the answer away, in the question") == "Do not give the answer away")
        // Five words are not enough: common phrases are shared by chance.
        #expect(echo.firstEcho(in: "Do not give the answer, please.") == nil)
        #expect(echo.firstEcho(in: "Loops repeat the steps of a program.") == nil)
        #expect(InstructionEcho(instructions: []).firstEcho(in: Self.template) == nil)
    }

    /// A run that is also in the content sent (a lecture the question may quote) is no echo.
    @Test func aRunOfTheContentIsNoEcho() {
        let lecture = "A loop repeats the same steps; the explanation is shown whatever the learner answered."
        let echo = InstructionEcho(instructions: [Self.template], content: [lecture])
        #expect(echo.firstEcho(in: "As the lecture says, the explanation is shown whatever the learner answered.") == nil)
        #expect(echo.firstEcho(in: "Do not give the answer away in the question.") == "Do not give the answer away")
        #expect(echo.with(content: []).firstEcho(in: "the explanation is shown whatever the learner") != nil)
    }

    /// A repair's words count from then on, less what they quote of the refused answer.
    @Test func aRepairsWordsAreAddedLessTheAnswerTheyQuote() {
        let answer = "Three passes of four steps each run twelve steps in all."
        let echo = InstructionEcho(instructions: [Self.template]).adding(
            instructions: ["explanation states false arithmetic: three passes of four steps each run twelve steps; compute it again and write the right value"],
            except: [answer])
        #expect(echo.firstEcho(in: "So compute it again and write the right value.") == "compute it again and write the")
        #expect(echo.firstEcho(in: answer) == nil)
        #expect(echo.firstEcho(in: "Do not give the answer away in the question") != nil, "the template's runs are kept")
    }

    /// Words in any script, compared without case: Arabic and accented Latin.
    @Test func wordsInAnyScript() {
        let arabic = "اكتب سؤالا واحدا عن الدرس ولا تكشف الإجابة في السؤال"
        let echo = InstructionEcho(instructions: [arabic, "Écrivez une question sur la leçon sans donner la réponse"])
        #expect(echo.firstEcho(in: "سؤال: اكتب سؤالا واحدا عن الدرس ولا تكشف شيئا") == "اكتب سؤالا واحدا عن الدرس ولا")
        #expect(echo.firstEcho(in: "ÉCRIVEZ UNE QUESTION SUR LA LEÇON, vite.") == "ÉCRIVEZ UNE QUESTION SUR LA LEÇON")
        #expect(echo.firstEcho(in: "ما هو المتغير في البرمجة؟") == nil)
    }
}
