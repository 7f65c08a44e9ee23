import CLibXML2
import TeXMath

/// libxml2 set up once per process (its first initialisation is not safe to race).
// RelaxNG's type library is built on first use, and libxml2 2.9 does not guard that against two
// threads: parallel tests each parsing the schema once failed now and then ("fixture" →
// MathMLChecker nil). Built here, once, before any parse.
private let libxmlReady: Void = {
    xmlInitParser()
    _ = xmlRelaxNGInitTypes()
}()

/// Collects libxml2's structured errors instead of letting them print to stderr.
final class ErrorSink {
    var messages: [String] = []
}

private let collectError: xmlStructuredErrorFunc = { userData, error in
    guard let userData, let error, let message = error.pointee.message else { return }
    let sink = Unmanaged<ErrorSink>.fromOpaque(userData).takeUnretainedValue()
    if sink.messages.count < 5 {
        var text = String(cString: message)
        while text.last == "\n" || text.last == " " { text.removeLast() }
        sink.messages.append(text)
    }
}

/// Parses MathML with libxml2 and validates it against the MathML Core RelaxNG schema. One per
/// test: a libxml2 validation context must not be shared between threads.
final class MathMLChecker {
    private let schema: xmlRelaxNGPtr?
    private let validation: xmlRelaxNGValidCtxtPtr?
    private let sink = ErrorSink()

    init?(schemaPath: String) {
        _ = libxmlReady
        guard let parser = xmlRelaxNGNewParserCtxt(schemaPath) else { return nil }
        xmlRelaxNGSetParserStructuredErrors(parser, collectError, Unmanaged.passUnretained(sink).toOpaque())
        schema = xmlRelaxNGParse(parser)
        xmlRelaxNGFreeParserCtxt(parser)
        guard let schema else { return nil }
        validation = xmlRelaxNGNewValidCtxt(schema)
        xmlRelaxNGSetValidStructuredErrors(validation, collectError, Unmanaged.passUnretained(sink).toOpaque())
    }

    deinit {
        if let validation { xmlRelaxNGFreeValidCtxt(validation) }
        if let schema { xmlRelaxNGFree(schema) }
    }

    static func parse(_ xml: String) -> xmlDocPtr? {
        _ = libxmlReady
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        var bytes = Array(xml.utf8)
        return bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.flatMap { base in
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    xmlReadMemory($0, Int32(buffer.count), nil, "UTF-8", options)
                }
            }
        }
    }

    static func isWellFormed(_ xml: String) -> Bool {
        guard let doc = parse(xml) else { return false }
        xmlFreeDoc(doc)
        return true
    }

    /// nil when valid, else the first schema errors.
    func coreErrors(_ xml: String) -> String? {
        guard let doc = Self.parse(xml) else { return "not well-formed" }
        defer { xmlFreeDoc(doc) }
        sink.messages.removeAll()
        let result = xmlRelaxNGValidateDoc(validation, doc)
        if result == 0 { return nil }
        return sink.messages.isEmpty ? "invalid (\(result))" : sink.messages.joined(separator: "; ")
    }

    /// Element names, attribute names and `style` values outside what `TeXMath` documents.
    static func undocumentedMarkup(_ xml: String) -> [String] {
        guard let doc = parse(xml) else { return ["not well-formed"] }
        defer { xmlFreeDoc(doc) }
        var problems: [String] = []
        var stack: [xmlNodePtr] = []
        if let root = xmlDocGetRootElement(doc) { stack.append(root) }
        while let node = stack.popLast() {
            guard node.pointee.type == XML_ELEMENT_NODE else { continue }
            let name = String(cString: node.pointee.name)
            if !TeXMath.emittedElements.contains(name) { problems.append("element \(name)") }
            var attribute = node.pointee.properties
            while let current = attribute {
                let attributeName = String(cString: current.pointee.name)
                if !TeXMath.emittedAttributes.contains(attributeName) { problems.append("attribute \(attributeName)") }
                if attributeName == "style", let content = current.pointee.children?.pointee.content {
                    let text = String(cString: content)
                    if !TeXMath.emittedStyleValues.contains(text) { problems.append("style \(text)") }
                }
                attribute = current.pointee.next
            }
            var child = node.pointee.children
            while let current = child {
                stack.append(current)
                child = current.pointee.next
            }
        }
        return problems
    }
}
