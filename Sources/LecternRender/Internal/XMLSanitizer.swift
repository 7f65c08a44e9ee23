internal import CLibXML2

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes the children of the wrapper element, keeping only allowlisted elements and attributes,
/// as libxml2's SAX2 parser reports them.
///
/// The parse is the well-formedness check; the sanitizer writes as the events arrive, so no tree is
/// built, walked and freed (building and walking one was about half of rendering a lecture). Each
/// element is decided from what is open above it (inside MathML, a list, a table), as a tree walk
/// would: an element outside the allowlist is dropped with its content or unwrapped, a MathML
/// element with no content is written `<x/>`, and an `annotation` keeps only its own text.
struct XMLSanitizer {
    private(set) var out: [UInt8] = []
    private(set) var warnings: [String] = []
    private var warned: Set<String> = []
    /// libxml2 interns names in the parser's dictionary, so each distinct name pointer is
    /// classified once per document and then looked up by address.
    private var names: [UnsafeRawPointer: String] = [:]
    private var xhtmlRules: [UnsafeRawPointer: XHTMLRule] = [:]
    private var mathMLRules: [UnsafeRawPointer: MathMLRule] = [:]
    private var mathMLAttributeRules: [UnsafeRawPointer: MathMLAttributeRule] = [:]
    private var xhtmlAttributeRules: [AttributeKey: XHTMLAttributeRule] = [:]
    /// The open elements, the wrapper first.
    private var open: [Frame] = []
    /// The converter's MathML for each slot (`MathSlot`), written as it is.
    private var trusted: [[UInt8]] = []

    private struct XHTMLRule {
        var name: String
        var allowed: Bool
        var removeContents: Bool
        var void: Bool
        var needsList: Bool
        var needsTable: Bool
        var opensList: Bool
        var opensTable: Bool
    }

    private struct MathMLRule {
        var name: String
        var allowed: Bool
        var isRoot: Bool
        var isAnnotation: Bool
    }

    private enum MathMLAttributeRule {
        case keep(String)
        case style
        case drop(String)
    }

    private enum Namespace { case xhtml, mathML, slot, other(String) }
    private static let tableParts: Set<String> = ["thead", "tbody", "tfoot", "tr", "td", "th"]

    private struct Context {
        var inMath = false
        var inList = false
        var inTable = false
    }

    /// What an open element does with what it contains, and how it ends.
    private struct Frame {
        enum Content {
            /// Written (sanitized in turn).
            case kept
            /// Dropped, elements and text.
            case dropped
            /// Text written, elements dropped (a MathML `annotation`: the TeX source).
            case textOnly
        }
        enum End {
            case nothing
            case xhtml(String)
            /// A MathML element whose start tag is still open: `/>` if nothing comes before its end.
            case mathML(String)
        }
        var content: Content
        var end: End
        var context: Context
        var startTagOpen = false

        static let dropped = Frame(content: .dropped, end: .nothing, context: Context())
    }

    /// Sanitizes `wrapped` (`<div xmlns="…xhtml">body</div>`) and returns the clean body.
    /// `trusted`: the MathML of the writer's slots, which replaces them unparsed.
    /// - Throws: `LibXML.Failure` when `wrapped` is not well-formed XML.
    static func sanitize(wrapped: [UInt8], trusted: [[UInt8]] = []) throws -> (body: [UInt8], warnings: [String]) {
        var body: [UInt8] = []
        let warnings = try sanitize(wrapped: wrapped, trusted: trusted, into: &body)
        return (body, warnings)
    }

    /// Sanitizes `wrapped`, appending the clean body to `output`; returns the warnings. `output`
    /// is left as it was when `wrapped` is not well-formed.
    static func sanitize(wrapped: [UInt8], trusted: [[UInt8]], into output: inout [UInt8]) throws -> [String] {
        _ = LibXML.initialized
        var sanitizer = XMLSanitizer()
        sanitizer.trusted = trusted
        let start = output.count
        swap(&sanitizer.out, &output)
        sanitizer.out.reserveCapacity(start + wrapped.count + trusted.reduce(0) { $0 + $1.count })
        let failure: LibXML.Failure? = withUnsafeMutablePointer(to: &sanitizer) { state in
            var handler = Self.handler
            return wrapped.withUnsafeBufferPointer { buffer -> LibXML.Failure? in
                guard buffer.count < Int(Int32.max),
                    let ctxt = buffer.withMemoryRebound(to: CChar.self, { xmlCreateMemoryParserCtxt($0.baseAddress, Int32($0.count)) })
                else { return LibXML.Failure(message: "libxml2 could not start a parser", line: 0, column: 0) }
                xmlCtxtUseOptions(ctxt, LibXML.parseOptions)
                return withUnsafeMutablePointer(to: &handler) { sax in
                    let libraryHandler = ctxt.pointee.sax
                    ctxt.pointee.sax = sax
                    ctxt.pointee.userData = UnsafeMutableRawPointer(state)
                    xmlParseDocument(ctxt)
                    ctxt.pointee.sax = libraryHandler
                    ctxt.pointee.userData = nil
                    defer { xmlFreeParserCtxt(ctxt) }
                    guard ctxt.pointee.wellFormed != 0 else { return LibXML.failure(of: ctxt) }
                    return nil
                }
            }
        }
        swap(&sanitizer.out, &output)
        if let failure {
            output.removeSubrange(start...)
            throw failure
        }
        return sanitizer.warnings
    }

    /// The SAX2 callbacks; libxml2 hands each the sanitizer as its context.
    /// Never written after it is made; libxml2 only reads it (through a copy on the stack).
    nonisolated(unsafe) private static let handler: xmlSAXHandler = {
        var h = xmlSAXHandler()
        h.initialized = XML_SAX2_MAGIC
        h.startElementNs = { context, localName, _, uri, _, _, attributeCount, _, attributes in
            guard let context, let localName else { return }
            context.assumingMemoryBound(to: XMLSanitizer.self).pointee.start(
                localName, uri: uri, attributes: attributes, count: Int(attributeCount))
        }
        h.endElementNs = { context, _, _, _ in
            context?.assumingMemoryBound(to: XMLSanitizer.self).pointee.end()
        }
        h.characters = { context, bytes, length in
            guard let context, let bytes, length > 0 else { return }
            context.assumingMemoryBound(to: XMLSanitizer.self).pointee.text(UnsafeBufferPointer(start: bytes, count: Int(length)))
        }
        h.ignorableWhitespace = h.characters
        // Comments and processing instructions are never kept, but they are content: an element
        // holding only a comment is written with an end tag, as a tree walk would.
        h.comment = { context, _ in
            context?.assumingMemoryBound(to: XMLSanitizer.self).pointee.closeStartTag()
        }
        h.processingInstruction = { context, _, _ in
            context?.assumingMemoryBound(to: XMLSanitizer.self).pointee.closeStartTag()
        }
        return h
    }()

    // MARK: Events

    private mutating func closeStartTag() {
        guard let last = open.indices.last, open[last].startTagOpen else { return }
        open[last].startTagOpen = false
        out.append(0x3E)
    }

    private mutating func text(_ bytes: UnsafeBufferPointer<UInt8>) {
        closeStartTag()
        guard let frame = open.last, frame.content != .dropped else { return }
        XMLBytes.appendText(bytes, to: &out)
    }

    private mutating func end() {
        guard let frame = open.popLast() else { return }
        switch frame.end {
        case .nothing:
            break
        case .xhtml(let name):
            writeEndTag(name)
        case .mathML(let name):
            if frame.startTagOpen {
                XMLBytes.append("/>", to: &out)
            } else {
                writeEndTag(name)
            }
        }
    }

    private mutating func start(
        _ localName: UnsafePointer<xmlChar>, uri: UnsafePointer<xmlChar>?,
        attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?, count: Int
    ) {
        closeStartTag()
        guard let parent = open.last else {
            // The wrapper: only its content is written.
            open.append(Frame(content: .kept, end: .nothing, context: Context()))
            return
        }
        guard parent.content == .kept else {
            open.append(.dropped)
            return
        }
        let key = UnsafeRawPointer(localName)
        let attributeList = SAXAttributes(base: attributes, count: count)
        switch Self.namespace(uri) {
        case .xhtml:
            let rule = xhtmlRules[key] ?? xhtmlRule(key, localName)
            open.append(xhtmlElement(key, rule, attributeList, parent.context))
        case .mathML:
            let rule = mathMLRules[key] ?? mathMLRule(key, localName)
            open.append(mathMLElement(rule, attributeList, parent.context))
        case .slot:
            // The writer's place for a formula: the TeX converter's MathML, which emits only
            // allowlisted markup by construction (MathSlot), goes in without a second parse.
            if !parent.context.inMath, let index = MathSlot.index(in: attributeList), trusted.indices.contains(index) {
                out.append(contentsOf: trusted[index])
            } else {
                warn("removed a misplaced formula slot")
            }
            open.append(.dropped)
        case .other(let uri):
            warn("removed <\(name(localName))> from namespace “\(uri)”")
            open.append(.dropped)
        }
    }

    // MARK: Elements

    private mutating func xhtmlElement(
        _ key: UnsafeRawPointer, _ rule: XHTMLRule, _ attributes: SAXAttributes, _ context: Context
    ) -> Frame {
        let name = rule.name
        if context.inMath {
            warn("removed XHTML <\(name)> inside MathML")
            return .dropped
        }
        guard rule.allowed else {
            if rule.removeContents {
                warn("removed <\(name)> and its content")
                return .dropped
            }
            warn("removed <\(name)> (content kept)")
            return Frame(content: .kept, end: .nothing, context: context)
        }
        // html-pipeline's transformers: list items outside lists and table parts outside tables
        // could break out of the markup that contains the content.
        if (rule.needsList && !context.inList) || (rule.needsTable && !context.inTable) {
            return Frame(content: .kept, end: .nothing, context: context)
        }
        out.append(0x3C)
        out.append(contentsOf: name.utf8)
        for attribute in attributes {
            guard attribute.uri == nil else {
                warn("removed namespaced attribute \(Self.string(attribute.localName)) on <\(name)>")
                continue
            }
            let rule = xhtmlAttributeRule(element: key, rule, attribute.localName)
            attribute.withValue { value in
                if keepXHTMLAttribute(rule, value: value, element: name) {
                    writeAttribute(rule.name, value)
                }
            }
        }
        if rule.void {
            XMLBytes.append("/>", to: &out)
            return .dropped
        }
        out.append(0x3E)
        var inner = context
        if rule.opensList { inner.inList = true }
        if rule.opensTable { inner.inTable = true }
        return Frame(content: .kept, end: .xhtml(name), context: inner)
    }

    private mutating func mathMLElement(_ rule: MathMLRule, _ attributes: SAXAttributes, _ context: Context) -> Frame {
        let name = rule.name
        // `math` only as the root of a formula in XHTML; everything else only inside one.
        guard context.inMath != rule.isRoot else {
            warn("removed misplaced MathML <\(name)>")
            return .dropped
        }
        guard rule.allowed else {
            warn("removed MathML <\(name)> and its content")
            return .dropped
        }
        out.append(0x3C)
        out.append(contentsOf: name.utf8)
        if rule.isRoot {
            XMLBytes.append(" xmlns=\"http://www.w3.org/1998/Math/MathML\"", to: &out)
        }
        for attribute in attributes {
            guard attribute.uri == nil else {
                warn("removed namespaced attribute \(self.name(attribute.localName)) in MathML")
                continue
            }
            switch mathMLAttributeRule(attribute.localName) {
            case .keep(let attributeName):
                attribute.withValue { writeAttribute(attributeName, $0) }
            case .style:
                attribute.withValue { value in
                    if Allowlist.mathMLStyles.contains(String(decoding: value, as: UTF8.self)) {
                        writeAttribute("style", value)
                    } else {
                        warn("removed style in MathML")
                    }
                }
            case .drop(let attributeName):
                warn("removed attribute \(attributeName) in MathML")
            }
        }
        var inner = context
        inner.inMath = true
        return Frame(content: rule.isAnnotation ? .textOnly : .kept, end: .mathML(name), context: inner, startTagOpen: true)
    }

    private mutating func keepXHTMLAttribute(
        _ rule: XHTMLAttributeRule, value: UnsafeBufferPointer<UInt8>, element: String
    )
        -> Bool
    {
        switch rule.check {
        case .keep:
            return true
        case .url(let schemes):
            if URLPolicy.isAllowed(Array(value), schemes: schemes) { return true }
            warn("removed \(rule.name) with a disallowed URL scheme on <\(element)>")
            return false
        case .classValue:
            if Allowlist.isAllowedClass(value) { return true }
        case .styleValue:
            if Allowlist.allowedStyles.contains(String(decoding: value, as: UTF8.self)) { return true }
        case .drop:
            break
        }
        warn("removed attribute \(rule.name) on <\(element)>")
        return false
    }

    // MARK: Rules

    /// What an XHTML attribute on one element needs: decided once per (element, attribute) name.
    private struct XHTMLAttributeRule {
        enum Check {
            case keep
            case url(Set<String>)
            /// Only Lectern's container classes and `language-*`.
            case classValue
            /// Only the table-cell alignments.
            case styleValue
            case drop
        }
        var name: String
        var check: Check
    }

    private struct AttributeKey: Hashable {
        var element: UnsafeRawPointer
        var attribute: UnsafeRawPointer
    }

    private mutating func xhtmlAttributeRule(
        element key: UnsafeRawPointer, _ elementRule: XHTMLRule, _ pointer: UnsafePointer<xmlChar>
    ) -> XHTMLAttributeRule {
        let attributeKey = AttributeKey(element: key, attribute: UnsafeRawPointer(pointer))
        if let known = xhtmlAttributeRules[attributeKey] { return known }
        let attribute = name(pointer)
        let element = elementRule.name
        let check: XHTMLAttributeRule.Check
        if let schemes = Allowlist.urlSchemes(element: element, attribute: attribute) {
            check = .url(schemes)
        } else if Allowlist.globalAttributes.contains(attribute) || Allowlist.elementAttributes[element]?.contains(attribute) == true {
            check = .keep
        } else if attribute == "class", Allowlist.classElements.contains(element) {
            check = .classValue
        } else if attribute == "style", element == "th" || element == "td" {
            check = .styleValue
        } else {
            check = .drop
        }
        let rule = XHTMLAttributeRule(name: attribute, check: check)
        xhtmlAttributeRules[attributeKey] = rule
        return rule
    }

    private mutating func xhtmlRule(_ key: UnsafeRawPointer, _ pointer: UnsafePointer<xmlChar>) -> XHTMLRule {
        let name = self.name(pointer)
        let rule = XHTMLRule(
            name: name, allowed: Allowlist.xhtmlElements.contains(name),
            removeContents: Allowlist.removeContents.contains(name), void: Allowlist.voidElements.contains(name),
            needsList: name == "li", needsTable: Self.tableParts.contains(name),
            opensList: name == "ul" || name == "ol", opensTable: name == "table")
        xhtmlRules[key] = rule
        return rule
    }

    private mutating func mathMLRule(_ key: UnsafeRawPointer, _ pointer: UnsafePointer<xmlChar>) -> MathMLRule {
        let name = self.name(pointer)
        let rule = MathMLRule(
            name: name, allowed: name == "math" || Allowlist.mathMLElements.contains(name), isRoot: name == "math",
            isAnnotation: name == "annotation")
        mathMLRules[key] = rule
        return rule
    }

    private mutating func mathMLAttributeRule(_ pointer: UnsafePointer<xmlChar>) -> MathMLAttributeRule {
        let key = UnsafeRawPointer(pointer)
        if let rule = mathMLAttributeRules[key] { return rule }
        let name = self.name(pointer)
        let rule: MathMLAttributeRule
        if name == "style" {
            rule = .style
        } else if Allowlist.mathMLAttributes.contains(name), !name.lowercased().hasPrefix("on") {
            rule = .keep(name)
        } else {
            rule = .drop(name)
        }
        mathMLAttributeRules[key] = rule
        return rule
    }

    /// An element's namespace, by its URI's bytes.
    private static func namespace(_ uri: UnsafePointer<xmlChar>?) -> Namespace {
        guard let uri else { return .other("") }
        let chars = UnsafeRawPointer(uri).assumingMemoryBound(to: CChar.self)
        if xhtmlNamespace.withUnsafeBufferPointer({ strcmp(chars, $0.baseAddress!) }) == 0 { return .xhtml }
        if mathMLNamespace.withUnsafeBufferPointer({ strcmp(chars, $0.baseAddress!) }) == 0 { return .mathML }
        if slotNamespace.withUnsafeBufferPointer({ strcmp(chars, $0.baseAddress!) }) == 0 { return .slot }
        return .other(string(uri))
    }

    private static let xhtmlNamespace = Array(Allowlist.xhtmlNamespace.utf8CString)
    private static let mathMLNamespace = Array(Allowlist.mathMLNamespace.utf8CString)
    private static let slotNamespace = Array(MathSlot.namespace.utf8CString)

    // MARK: Output

    private mutating func writeEndTag(_ name: String) {
        out.append(0x3C)
        out.append(0x2F)
        out.append(contentsOf: name.utf8)
        out.append(0x3E)
    }

    private mutating func writeAttribute(_ name: String, _ value: UnsafeBufferPointer<UInt8>) {
        out.append(0x20)
        out.append(contentsOf: name.utf8)
        out.append(0x3D)
        out.append(0x22)
        XMLBytes.appendText(value, to: &out, attribute: true)
        out.append(0x22)
    }

    private mutating func warn(_ message: String) {
        if warned.insert(message).inserted, warnings.count < 50 { warnings.append(message) }
    }

    private static func string(_ p: UnsafePointer<xmlChar>?) -> String {
        guard let p else { return "" }
        return String(cString: UnsafeRawPointer(p).assumingMemoryBound(to: CChar.self))
    }

    private mutating func name(_ p: UnsafePointer<xmlChar>?) -> String {
        guard let p else { return "" }
        let key = UnsafeRawPointer(p)
        if let known = names[key] { return known }
        let s = Self.string(p)
        names[key] = s
        return s
    }
}

/// An element's attributes as SAX2 reports them: five pointers each (local name, prefix, URI,
/// value start, value end).
struct SAXAttributes: Sequence {
    let base: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    let count: Int

    struct Attribute {
        var localName: UnsafePointer<xmlChar>
        var uri: UnsafePointer<xmlChar>?
        var value: UnsafeBufferPointer<UInt8>

        /// Calls `body` with the value, character references decoded. libxml2 decodes every
        /// reference in an attribute value itself except the ampersand, which it hands on as
        /// `&#38;` (for a tree builder to decode).
        func withValue<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            guard let start = value.baseAddress, memchr(start, 0x26, value.count) != nil else { return body(value) }
            var decoded: [UInt8] = []
            decoded.reserveCapacity(value.count)
            var i = 0
            while i < value.count {
                if value[i] == 0x26, i + 4 < value.count, value[i + 1] == 0x23, value[i + 2] == 0x33, value[i + 3] == 0x38,
                    value[i + 4] == 0x3B
                {
                    decoded.append(0x26)
                    i += 5
                } else {
                    decoded.append(value[i])
                    i += 1
                }
            }
            return decoded.withUnsafeBufferPointer(body)
        }
    }

    func makeIterator() -> Iterator { Iterator(base: base, count: count) }

    struct Iterator: IteratorProtocol {
        let base: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
        let count: Int
        var index = 0

        mutating func next() -> Attribute? {
            while let base, index < count {
                let entry = base + index * 5
                index += 1
                guard let localName = entry[0], let valueStart = entry[3], let valueEnd = entry[4] else { continue }
                return Attribute(
                    localName: localName, uri: entry[2],
                    value: UnsafeBufferPointer(start: valueStart, count: valueEnd - valueStart))
            }
            return nil
        }
    }
}
