import Testing

@testable import TeXMath

/// Math read aloud from its structure (narration, issue 15).
struct SpeechTests {
    @Test(arguments: [
        ("x^2 + 1", "x squared plus 1"),
        (#"\frac{1}{2}"#, "1 over 2"),
        (#"\frac{a+b}{2}"#, "the fraction a plus b, over 2, end fraction"),
        (#"\sqrt{x}"#, "the square root of x"),
        (#"\sqrt{x^2+y^2}"#, "the square root of x squared plus y squared, end root"),
        (#"\sqrt[3]{8} = 2"#, "the cube root of 8 equals 2"),
        ("f(x) = x^3 - 2x", "f of x equals x cubed minus 2 x"),
        ("(a+b)^2", "open paren a plus b close paren squared"),
        ("e^{i\\pi} + 1 = 0", "e to the power i pi, end power plus 1 equals 0"),
        (#"\sum_{i=1}^{n} i"#, "the sum from i equals 1 to n of i"),
        (#"\int_0^1 x\,dx"#, "the integral from 0 to 1 of x d x"),
        (#"\lim_{x \to 0} \frac{\sin x}{x}"#, "the limit as x tends to 0 of the fraction sine x, over x, end fraction"),
        ("x_1 + x_2", "x sub 1 plus x sub 2"),
        (#"P(A \cap B) \le P(A)"#, "P of A intersection B is less than or equal to P of A"),
        (#"\alpha \ne \beta"#, "alpha is not equal to beta"),
        (#"\vec{v}"#, "vector v"),
        (#"\bar{x}"#, "x bar"),
        ("3 \\times 4 = 12", "3 times 4 equals 12"),
        ("a_n^2", "a sub n, squared"),
    ])
    func english(tex: String, spoken: String) {
        #expect(TeXMath.speech(tex) == spoken)
    }

    @Test func arabic() {
        #expect(TeXMath.speech("x^2 + 1", language: "ar") == "x تربيع زائد 1")
        #expect(TeXMath.speech(#"\frac{a}{b} = 2"#, language: "ar") == "a على b يساوي 2")
    }

    @Test func hostileInputEndsInWordsNotACrash() {
        for tex in [#"\frac{"#, "}}}{{{", String(repeating: "{", count: 5_000), #"\def\a{\a\a}\a"#, #"\unknowncommand{x}"#] {
            _ = TeXMath.speech(tex)
        }
        #expect(TeXMath.speech(#"\unknowncommand + 1"#) == "plus 1", "an unknown command is left out, not spelled")
    }
}
