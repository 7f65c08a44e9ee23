// libFuzzer harness for LecternRender: the math delimiter scanner and the whole render path.
// Built and run by fuzz/run-render.sh (swiftc -sanitize=fuzzer,address); see fuzz/README.md.
@testable import LecternRender

private let renderer = MarkdownRenderer()

/// Traps (a finding) with a message libFuzzer prints next to the crashing input.
private func finding(_ message: String) -> Never {
    fatalError("render-fuzz: \(message)")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func renderFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)

    // 1. The delimiter scanner: tokens stand for exactly the text they replaced.
    let protected = MathDelimiterScanner.protect(input)
    if MathToken.restore(protected.text, formulas: protected.formulas) != input {
        finding("protect/restore is not the identity")
    }
    for formula in protected.formulas {
        if formula.line < 1 || formula.column < 1 { finding("bad position \(formula.line):\(formula.column)") }
        let opener = formula.delimiter == .dollar ? "$" : formula.delimiter == .doubleDollar ? "$$" : formula.delimiter == .parenthesis ? "\\(" : "\\["
        // Bytes, not Characters: `$` followed by a combining mark is one grapheme cluster.
        if !formula.source.utf8.starts(with: opener.utf8) {
            finding("formula source \(formula.source) does not start with \(opener)")
        }
        if formula.tex.contains("\u{E000}") && !input.contains("\u{E000}") { finding("token inside TeX") }
    }

    // 2. The whole path: any input renders (or fails with a RenderError, never a crash), the
    //    document parses as XML, and sanitizing the body again changes nothing.
    let document: RenderedDocument
    do {
        document = try renderer.render(input, language: size % 2 == 0 ? "en" : "ar", title: nil)
    } catch let error as RenderError {
        finding("render failed: \(error)")
    } catch {
        finding("unexpected error \(error)")
    }
    if let failure = LibXML.check(Array(document.xhtml.utf8)) {
        finding("output is not well-formed: \(failure.message)")
    }
    let wrapped = Array("<div xmlns=\"http://www.w3.org/1999/xhtml\">\(document.body)</div>".utf8)
    guard let again = try? XMLSanitizer.sanitize(wrapped: wrapped) else { finding("body does not re-parse") }
    if again.body != Array(document.body.utf8) { finding("sanitizing is not idempotent") }
    if !again.warnings.isEmpty { finding("sanitized body still had something to remove: \(again.warnings)") }
    return 0
}
