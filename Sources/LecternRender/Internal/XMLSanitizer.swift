internal import CLibXML2

/// libxml2: parse (the well-formedness check), then serialize only what the allowlist keeps.
enum LibXML {
    /// `xmlInitParser` must run once before libxml2 is used from several threads.
    static let initialized: Bool = {
        xmlInitParser()
        return true
    }()

    /// No network, no entity substitution, no DTD loading, quiet, CDATA as text.
    static let parseOptions = Int32(
        XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
            | XML_PARSE_NOCDATA.rawValue)

    /// Why a document did not parse.
    struct Failure: Error {
        var message: String
        var line: Int
        var column: Int
    }

    /// Parses `bytes` as XML and hands the document to `body`; throws the parser's first error.
    static func withDocument<R>(_ bytes: [UInt8], _ body: (xmlDocPtr) throws -> R) throws -> R {
        _ = initialized
        guard bytes.count < Int(Int32.max), let ctxt = xmlNewParserCtxt() else {
            throw Failure(message: "libxml2 could not start a parser", line: 0, column: 0)
        }
        defer { xmlFreeParserCtxt(ctxt) }
        let doc = bytes.withUnsafeBufferPointer { buf in
            buf.withMemoryRebound(to: CChar.self) { chars in
                xmlCtxtReadMemory(ctxt, chars.baseAddress, Int32(chars.count), nil, "UTF-8", parseOptions)
            }
        }
        guard let doc, ctxt.pointee.wellFormed != 0 else {
            if let doc { xmlFreeDoc(doc) }
            let error = ctxt.pointee.lastError
            var message = error.message.map { String(cString: $0) } ?? "not well-formed"
            while message.last == "\n" { message.removeLast() }
            throw Failure(message: message, line: Int(error.line), column: Int(error.int2))
        }
        defer { xmlFreeDoc(doc) }
        return try body(doc)
    }

    /// Whether `bytes` is well-formed XML (`nil`) or the reason it is not.
    static func check(_ bytes: [UInt8]) -> Failure? {
        do {
            try withDocument(bytes) { _ in }
            return nil
        } catch let failure as Failure {
            return failure
        } catch {
            return Failure(message: "\(error)", line: 0, column: 0)
        }
    }
}

/// Serializes the children of the wrapper element, keeping only allowlisted elements and attributes.
struct XMLSanitizer {
    private(set) var out: [UInt8] = []
    private(set) var warnings: [String] = []
    private var warned: Set<String> = []
    /// libxml2 interns names in the parser's dictionary, so each distinct name pointer is
    /// classified once per document and then looked up by address.
    private var names: [UnsafeRawPointer: String] = [:]
    private var namespaces: [UnsafeRawPointer: Namespace] = [:]
    private var xhtmlRules: [UnsafeRawPointer: XHTMLRule] = [:]
    private var mathMLRules: [UnsafeRawPointer: MathMLRule] = [:]
    private var mathMLAttributeRules: [UnsafeRawPointer: MathMLAttributeRule] = [:]

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
    /// The converter's MathML for each slot (`MathSlot`), written as it is.
    private var trusted: [String] = []
    private static let tableParts: Set<String> = ["thead", "tbody", "tfoot", "tr", "td", "th"]

    private struct Context {
        var inMath = false
        var inList = false
        var inTable = false
    }

    /// Sanitizes `wrapped` (`<div xmlns="…xhtml">body</div>`) and returns the clean body.
    /// `trusted`: the MathML of the writer's slots, which replaces them unparsed.
    static func sanitize(wrapped: [UInt8], trusted: [String] = []) throws -> (body: [UInt8], warnings: [String]) {
        try LibXML.withDocument(wrapped) { doc in
            var sanitizer = XMLSanitizer()
            sanitizer.trusted = trusted
            sanitizer.out.reserveCapacity(wrapped.count)
            if let root = xmlDocGetRootElement(doc) {
                sanitizer.children(of: root, Context())
            }
            return (sanitizer.out, sanitizer.warnings)
        }
    }

    private mutating func children(of node: xmlNodePtr, _ context: Context) {
        var child = node.pointee.children
        while let c = child {
            visit(c, context)
            child = c.pointee.next
        }
    }

    private mutating func visit(_ node: xmlNodePtr, _ context: Context) {
        switch node.pointee.type {
        case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
            XMLBytes.appendText(UnsafeBufferPointer.cString(contentPointer(node)), to: &out)
        case XML_ELEMENT_NODE:
            element(node, context)
        default:
            break  // comments, processing instructions, entity references: never kept
        }
    }

    private func contentPointer(_ node: xmlNodePtr) -> UnsafePointer<CChar>? {
        guard let content = node.pointee.content else { return nil }
        return UnsafeRawPointer(content).assumingMemoryBound(to: CChar.self)
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

    private mutating func namespace(_ ns: xmlNsPtr?) -> Namespace {
        guard let ns, let href = ns.pointee.href else { return .other("") }
        let key = UnsafeRawPointer(href)
        if let known = namespaces[key] { return known }
        let s = Self.string(href)
        let kind: Namespace =
            s == Allowlist.xhtmlNamespace ? .xhtml : s == Allowlist.mathMLNamespace ? .mathML : s == MathSlot.namespace ? .slot : .other(s)
        namespaces[key] = kind
        return kind
    }

    private mutating func warn(_ message: String) {
        if warned.insert(message).inserted, warnings.count < 50 { warnings.append(message) }
    }

    private mutating func element(_ node: xmlNodePtr, _ context: Context) {
        guard let namePointer = node.pointee.name else { return }
        let key = UnsafeRawPointer(namePointer)
        switch namespace(node.pointee.ns) {
        case .xhtml:
            let rule = xhtmlRules[key] ?? xhtmlRule(key, namePointer)
            xhtmlElement(node, rule, context)
        case .mathML:
            let rule = mathMLRules[key] ?? mathMLRule(key, namePointer)
            mathMLElement(node, rule, context)
        case .slot:
            // The writer's place for a formula: the TeX converter's MathML, which emits only
            // allowlisted markup by construction (MathSlot), goes in without a second parse.
            guard !context.inMath, let index = MathSlot.index(of: node), trusted.indices.contains(index) else {
                warn("removed a misplaced formula slot")
                return
            }
            out.append(contentsOf: trusted[index].utf8)
        case .other(let uri):
            warn("removed <\(self.name(namePointer))> from namespace “\(uri)”")
        }
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

    private mutating func xhtmlElement(_ node: xmlNodePtr, _ rule: XHTMLRule, _ context: Context) {
        let name = rule.name
        if context.inMath {
            warn("removed XHTML <\(name)> inside MathML")
            return
        }
        guard rule.allowed else {
            if rule.removeContents {
                warn("removed <\(name)> and its content")
            } else {
                warn("removed <\(name)> (content kept)")
                children(of: node, context)
            }
            return
        }
        // html-pipeline's transformers: list items outside lists and table parts outside tables
        // could break out of the markup that contains the content.
        if (rule.needsList && !context.inList) || (rule.needsTable && !context.inTable) {
            children(of: node, context)
            return
        }
        out.append(0x3C)
        out.append(contentsOf: name.utf8)
        var attribute = node.pointee.properties
        while let a = attribute {
            attribute = a.pointee.next
            guard a.pointee.ns == nil else {
                warn("removed namespaced attribute \(Self.string(a.pointee.name)) on <\(name)>")
                continue
            }
            let attributeName = self.name(a.pointee.name)
            Self.withValue(of: a) { value in
                if keepXHTMLAttribute(attributeName, value: value, element: name) {
                    writeAttribute(attributeName, value)
                }
            }
        }
        if rule.void {
            XMLBytes.append("/>", to: &out)
            return
        }
        out.append(0x3E)
        var inner = context
        if rule.opensList { inner.inList = true }
        if rule.opensTable { inner.inTable = true }
        children(of: node, inner)
        out.append(0x3C)
        out.append(0x2F)
        out.append(contentsOf: name.utf8)
        out.append(0x3E)
    }

    private mutating func keepXHTMLAttribute(
        _ attribute: String, value: UnsafeBufferPointer<UInt8>, element: String
    )
        -> Bool
    {
        if let schemes = Allowlist.urlSchemes(element: element, attribute: attribute) {
            if URLPolicy.isAllowed(Array(value), schemes: schemes) { return true }
            warn("removed \(attribute) with a disallowed URL scheme on <\(element)>")
            return false
        }
        if Allowlist.globalAttributes.contains(attribute) { return true }
        if Allowlist.elementAttributes[element]?.contains(attribute) == true { return true }
        if attribute == "class", Allowlist.classElements.contains(element), Allowlist.isAllowedClass(Array(value)) {
            return true
        }
        if attribute == "style", element == "th" || element == "td",
            Allowlist.allowedStyles.contains(String(decoding: value, as: UTF8.self))
        {
            return true
        }
        warn("removed attribute \(attribute) on <\(element)>")
        return false
    }

    private mutating func mathMLElement(_ node: xmlNodePtr, _ rule: MathMLRule, _ context: Context) {
        let name = rule.name
        // `math` only as the root of a formula in XHTML; everything else only inside one.
        guard context.inMath != rule.isRoot else {
            warn("removed misplaced MathML <\(name)>")
            return
        }
        guard rule.allowed else {
            warn("removed MathML <\(name)> and its content")
            return
        }
        out.append(0x3C)
        out.append(contentsOf: name.utf8)
        if rule.isRoot {
            XMLBytes.append(" xmlns=\"http://www.w3.org/1998/Math/MathML\"", to: &out)
        }
        var attribute = node.pointee.properties
        while let a = attribute {
            attribute = a.pointee.next
            guard let namePointer = a.pointee.name else { continue }
            guard a.pointee.ns == nil else {
                warn("removed namespaced attribute \(self.name(namePointer)) in MathML")
                continue
            }
            switch mathMLAttributeRule(namePointer) {
            case .keep(let attributeName):
                Self.withValue(of: a) { writeAttribute(attributeName, $0) }
            case .style:
                Self.withValue(of: a) { value in
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
        guard node.pointee.children != nil else {
            XMLBytes.append("/>", to: &out)
            return
        }
        out.append(0x3E)
        var inner = context
        inner.inMath = true
        if rule.isAnnotation {
            // The TeX source: text only.
            var child = node.pointee.children
            while let c = child {
                if c.pointee.type == XML_TEXT_NODE || c.pointee.type == XML_CDATA_SECTION_NODE {
                    XMLBytes.appendText(UnsafeBufferPointer.cString(contentPointer(c)), to: &out)
                }
                child = c.pointee.next
            }
        } else {
            children(of: node, inner)
        }
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

    /// Calls `body` with an attribute's value, character references decoded (its text children
    /// joined; libxml2 gives a single child in the usual case, which needs no copy).
    private static func withValue<R>(of attribute: xmlAttrPtr, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let only = attribute.pointee.children, only.pointee.next == nil {
            return body(UnsafeBufferPointer.cString(contentChars(only)))
        }
        var bytes: [UInt8] = []
        var child = attribute.pointee.children
        while let c = child {
            bytes.append(contentsOf: UnsafeBufferPointer.cString(contentChars(c)))
            child = c.pointee.next
        }
        return bytes.withUnsafeBufferPointer(body)
    }

    private static func contentChars(_ node: xmlNodePtr) -> UnsafePointer<CChar>? {
        guard let content = node.pointee.content else { return nil }
        return UnsafeRawPointer(content).assumingMemoryBound(to: CChar.self)
    }
}
