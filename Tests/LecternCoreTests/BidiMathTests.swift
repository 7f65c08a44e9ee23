import Foundation
import Testing

@testable import LecternCore

/// Root and power terms in right-to-left text are isolated left to right, so that a candidate
/// reads ٢√٣ and not ٣√٢; the checks read through the marks.
struct BidiMathTests {
    static let lri = "\u{2066}"
    static let pdi = "\u{2069}"
    static let lrm = "\u{200E}"

    @Test func rootAndPowerTermsAreIsolatedInArabic() {
        let (i, p, m) = (Self.lri, Self.pdi, Self.lrm)
        #expect(BidiMath.isolatingTerms("الناتج ٢√٣ سم", language: "ar") == "الناتج \(i)٢\(m)√٣\(p) سم")
        #expect(BidiMath.isolatingTerms("الجذر √١٢ أو ٢ √٣", language: "ar-SA") == "الجذر \(i)√١٢\(p) أو \(i)٢\(m) √٣\(p)")
        #expect(BidiMath.isolatingTerms("٣√(٢+٣)", language: "ar") == "\(i)٣\(m)√(٢\(m)+٣\(m))\(p)")
        #expect(BidiMath.isolatingTerms("٢^٣ و 2^-2 و ∛٨", language: "ar") == "\(i)٢\(m)^٣\(p) و \(i)2\(m)^-2\(p) و \(i)∛٨\(p)")
        // A decimal coefficient stays one number; the mark comes after it.
        #expect(BidiMath.isolatingTerms("٢٫٥√٢", language: "ar") == "\(i)٢٫٥\(m)√٢\(p)")
        // Plain numbers, sums and words are left to the sentence's direction.
        #expect(BidiMath.isolatingTerms("٦ − ٢ = ٤، و ٣/٤", language: "ar") == "٦ − ٢ = ٤، و ٣/٤")
        #expect(BidiMath.isolatingTerms("س٢√٣", language: "ar") == "س٢√٣", "a term glued to a word is not one")
        #expect(BidiMath.isolatingTerms("٢√٣ و٣√٢", language: "ar") == "\(i)٢\(m)√٣\(p) و\(i)٣\(m)√٢\(p)", "'and' glued to a term")
        #expect(BidiMath.isolatingTerms("سو٢√٣", language: "ar") == "سو٢√٣", "و inside a word is not the proclitic")
    }

    @Test func leftToRightTextIsUnchanged() {
        #expect(BidiMath.isolatingTerms("2√3 cm", language: "en") == "2√3 cm")
        #expect(BidiMath.isolatingTerms("2\u{202E}√3", language: "en") == "2\u{202E}√3", "only right-to-left text is rewritten")
    }

    @Test func modelWrittenControlsAreRemovedAndIsolatingIsIdempotent() {
        let once = BidiMath.isolatingTerms("الناتج \u{202E}٢√٣\u{202C} سم\u{200F}", language: "ar")
        #expect(once == "الناتج \(Self.lri)٢\(Self.lrm)√٣\(Self.pdi) سم")
        #expect(BidiMath.isolatingTerms(once, language: "ar") == once)
        #expect(BidiMath.removingControls(once) == "الناتج ٢√٣ سم")
    }

    /// Option values, claims in explanations and the numbers a stem gives are read through the marks.
    @Test func checksReadThroughTheMarks() throws {
        let option = BidiMath.isolatingTerms("٢√٣ سم", language: "ar")
        #expect(try QuantitativeExpression.optionValue(option) == QuantitativeExpression.evaluate("sqrt(12)"))
        let power = BidiMath.isolatingTerms("٢^-٢", language: "ar")
        #expect(try QuantitativeExpression.optionValue(power) == QuantitativeExpression.evaluate("1/4"))
        let plain = "نحسب: √١٢ = ٢√٣، ثم ٢^٣ = ٩."
        let claims = ArithmeticClaims.claims(in: BidiMath.isolatingTerms(plain, language: "ar"))
        #expect(claims.map(\.holds) == [true, false], "\(claims.map(\.text)) \(ArithmeticClaims.claims(in: plain).map(\.text))")
        let stem = BidiMath.isolatingTerms("ما قيمة ٣√٢ × √٨؟", language: "ar")
        #expect(QuantitativeKeyCheck.groundingProblems(solution: "3 * sqrt(2) * sqrt(8)", stem: stem).isEmpty)
        #expect(
            QuantitativeKeyCheck.problems(solution: "sqrt(12)", options: [option, BidiMath.isolatingTerms("√١٢", language: "ar"), "٦", "٣"], key: 0)
                .contains { $0.contains("also equals") })
    }
}
