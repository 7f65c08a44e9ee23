import LecternRandom
import TeXMath
import Testing

/// Random splices of TeX fragments (fixed seed, so runs are repeatable): the output must be
/// MathML Core-valid and use only documented markup for any input, not only for the corpora.
@Suite("Generated input")
struct GeneratedInputTests {
    static let fragments: [String] = [
        "x", "12.5", "+", "-", "=", "(", ")", "[", "]", "|", "{", "}", "^", "_", "'", "&", #"\\"#, " ",
        #"\frac"#, #"\dfrac"#, #"\binom"#, #"\sqrt"#, #"\sqrt[3]"#, #"\left("#, #"\right)"#, #"\middle|"#,
        #"\bigl["#, #"\Bigr]"#, #"\over"#, #"\choose"#, #"\hat"#, #"\overbrace"#, #"\underbrace"#,
        #"\vec"#, #"\mathbb"#, #"\mathrm"#, #"\mathbf"#, #"\boldsymbol"#, #"\rm"#, #"\text"#, #"\mbox"#,
        #"\textbf"#, "$", #"\alpha"#, #"\Gamma"#, #"\sum"#, #"\int"#, #"\lim"#, #"\limits"#, #"\nolimits"#,
        #"\sin"#, #"\operatorname*"#, #"\not"#, #"\neq"#, #"\to"#, #"\begin{pmatrix}"#, #"\end{pmatrix}"#,
        #"\begin{array}{l|cr}"#, #"\end{array}"#, #"\begin{aligned}"#, #"\end{aligned}"#,
        #"\begin{cases}"#, #"\end{cases}"#, #"\color{red}"#, #"\textcolor{blue}"#, #"\colorbox{yellow}"#,
        #"\displaystyle"#, #"\scriptstyle"#, #"\Large"#, #"\hspace{2pt}"#, #"\kern-1mu"#, #"\,"#, #"\!"#,
        #"\quad"#, #"\phantom"#, #"\smash[b]"#, #"\boxed"#, #"\cancel"#, #"\overset"#, #"\stackrel"#,
        #"\substack"#, #"\sideset{_1^2}{_3}"#, #"\xrightarrow[a]"#, #"\pmod"#, #"\bmod"#, #"\href{x}"#,
        #"\newcommand{\f}[1]{#1^2}"#, #"\f"#, #"\def\g#1{(#1)}"#, #"\g"#, #"\unicode{x2211}"#, #"\verb|&|"#,
        #"\tag{1}"#, #"\raise{2pt}"#, #"\mathchoice{a}{b}{c}{d}"#, #"\genfrac(]{1pt}{2}"#, #"\above 2pt"#,
        #"\foo"#, "α", "→", "\u{301}", "~", "%", "#1",
    ]

    @Test("random splices are Core-valid")
    func randomSplices() throws {
        let checker = try #require(MathMLChecker(schemaPath: Paths.schema.path))
        var generator = SplitMix64(state: 20_250_101)
        var invalid: [String] = []
        for _ in 0..<400 {
            let count = Int.random(in: 1...24, using: &generator)
            var tex = ""
            for _ in 0..<count { tex += Self.fragments.randomElement(using: &generator) ?? "" }
            for display in [false, true] {
                let mathML = TeXMath.convert(tex, display: display).mathML
                if let errors = checker.coreErrors(mathML) { invalid.append("\(tex) → \(errors)") }
                let undocumented = MathMLChecker.undocumentedMarkup(mathML)
                if !undocumented.isEmpty { invalid.append("\(tex) → \(undocumented)") }
            }
        }
        #expect(invalid.isEmpty, "\(invalid.prefix(5))")
    }
}
