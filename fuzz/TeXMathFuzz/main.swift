// libFuzzer entry point for TeXMath.convert (and OnePass against the full converter). Built together with the TeXMath sources into one
// module (see fuzz/README.md), so the converter is called directly, without `import`.
import CLibXML2

private let xmlReady: Void = xmlInitParser()

/// True when libxml2 parses `xml` as a well-formed document.
private func isWellFormed(_ xml: String) -> Bool {
    _ = xmlReady
    let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
    var bytes = Array(xml.utf8)
    let document: xmlDocPtr? = bytes.withUnsafeMutableBufferPointer { buffer in
        buffer.baseAddress.flatMap { base in
            base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                xmlReadMemory($0, Int32(buffer.count), nil, "UTF-8", options)
            }
        }
    }
    guard let document else { return false }
    xmlFreeDoc(document)
    return true
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTeXMath(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    // Invalid UTF-8 is repaired the same way the renderer's String(decoding:) would.
    let tex = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    for display in [false, true] {
        let result = TeXMath.convert(tex, display: display)
        if !isWellFormed(result.mathML) {
            // Trapping is how a fuzz target reports a finding; libFuzzer saves the input.
            fatalError("TeXMath produced malformed XML for \(Array(tex.utf8).prefix(200)): \(result.mathML.prefix(2000))")
        }
        // A formula the one-pass writer takes is written as the full converter writes it.
        if let fast = OnePass.convert(tex, display: display) {
            let tree = TeXMath.convertWithTree(tex, display: display)
            if fast != tree.mathML || !tree.warnings.isEmpty {
                fatalError("OnePass differs from the converter for \(Array(tex.utf8).prefix(200))")
            }
        }
    }
    return 0
}
