import Testing

@testable import LecternCore

/// Inline math whose delimiters do not pair (issue 48 §3): refused in any language, money and
/// code left alone.
struct MathDelimitersTests {
    @Test(arguments: [
        // The issue's example: the second \( opens before the first closes.
        #"If \( H(10) = 5 feet, and at t = 2 then \( H \) is 16."#,
        "Solve $2x + 3 = 7$ for $x.",
        "Because $7^2 = 49.",
        #"The power rule gives \( 2x."#,
        #"So the answer is 3 \) in the end."#,
        "لأن $x + 7 = 12.",
        #"Le résultat \( \frac{10}{2} = 5."#,
    ])
    func unpairedDelimitersAreFound(_ text: String) {
        #expect(MathDelimiters.firstUnbalanced(text) != nil, "\(text)")
    }

    @Test(arguments: [
        #"If \( H(t) = 20 - t^2 \), then \( H(2) = 16 \)."#,
        "Solve $2x + 3 = 7$ for $x$.",
        "A ticket costs $5, and two cost $10.",
        "The prize is $1,200.50 this year; last year it was $900.",
        "Tickets cost $5–10, or $3/hour to park.",
        "Display math: $$x^2 + 1$$ and inline $y$.",
        "An escaped \\$ sign and a price of $3.",
        "In code `print('$')` and `\\(` stay code.",
        "```python\nprice = '$'\nprint(price)\n```",
        "Une formule $a + b$ et une autre \\( c \\).",
        "الناتج $5 + 7 = 12$ صحيح.",
        "Plain text with no math at all.",
        // A formula that starts like an amount is still a formula when a $ closes it.
        "ما قيمة $5 + 7$؟",
        "Compute $3 \\times 4$ first.",
    ])
    func pairedDelimitersAndMoneyPass(_ text: String) {
        #expect(MathDelimiters.firstUnbalanced(text) == nil, "\(text): \(MathDelimiters.firstUnbalanced(text) ?? "")")
    }

    @Test func aParagraphClosesItsOwnMath() {
        // A formula cannot run on into the next paragraph.
        #expect(MathDelimiters.firstUnbalanced("It is $x.\n\nAnd $y$ here.") != nil)
    }

    @Test func aPrivateUseCharacterInTheTextIsNoFormulasMark() {
        // U+E002 marks where a formula starts in the prose the check reads; one the model wrote
        // must not shift the formulas after it.
        #expect(MathDelimiters.firstUnbalanced("A \u{E002} here, then $x + 1$ and $y$ pair.") == nil)
        #expect(MathDelimiters.firstUnbalanced("A \u{E002} here, then $x + 1$ and $y.") != nil)
    }

    @Test func lecternCheckRefusesIt() {
        let items = [BankItem(id: "q1", question: #"What is \( 2 + 2?"#, options: ["4", "5"], answer: 0, line: 1)]
        let report = BankLint.check(items)
        #expect(report.flagged.first?.checks == [.rendering])
    }
}
