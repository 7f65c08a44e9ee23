// Test helpers without Foundation: Foundation's ICU module clashes with libxml2's ICU headers.
import CLibXML2
import LecternRender

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files next to the tests, found from this source file's path.
enum TestFiles {
    /// Tests/LecternRenderTests
    static let testsDirectory: String = {
        // The dev package reaches these tests through a symlink: resolve it to find the checkout.
        var path = String(#filePath)
        if let resolved = realpath(path, nil) {
            path = String(cString: resolved)
            free(resolved)
        }
        for _ in 0..<2 { path = parent(path) }  // …/Support/TestSupport.swift → …/LecternRenderTests
        return path
    }()

    static let fixtures = testsDirectory + "/Fixtures"

    /// The package root (…/Tests/LecternRenderTests → …).
    static let packageRoot = parent(parent(testsDirectory))

    /// The project's own copies of the external Markdown math corpora (provenance in
    /// Fixtures/SOURCES.md).
    static var corpora: String { fixtures + "/corpora" }

    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return String(path[..<slash])
    }

    static func isDirectory(_ path: String) -> Bool {
        guard let dir = opendir(path) else { return false }
        closedir(dir)
        return true
    }

    static func read(_ path: String) -> String? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func write(_ path: String, _ text: String) {
        guard let file = fopen(path, "wb") else { return }
        defer { fclose(file) }
        var copy = text
        copy.withUTF8 { _ = fwrite($0.baseAddress, 1, $0.count, file) }
    }

    /// Names in `directory` ending with `suffix`, sorted.
    static func list(_ directory: String, suffix: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name.hasSuffix(suffix) { names.append(name) }
        }
        return names.sorted()
    }

    static var updateFixtures: Bool { getenv("LECTERN_UPDATE_FIXTURES") != nil }
}

/// An element of a parsed document, flattened for assertions.
struct ParsedElement: CustomStringConvertible {
    var namespace: String
    var name: String
    var attributes: [(namespace: String, name: String, value: String)]
    var ancestors: [String]

    var description: String { "<\(name)> in \(namespace) under \(ancestors.joined(separator: "/"))" }
}

/// A document parsed with libxml2 (XML_PARSE_NONET, no entity substitution).
struct ParsedXML {
    var elements: [ParsedElement] = []
    var text = ""
    var error: String?

    init(_ xml: String) {
        let bytes = Array(xml.utf8)
        guard let ctxt = xmlNewParserCtxt() else {
            error = "no parser"
            return
        }
        defer { xmlFreeParserCtxt(ctxt) }
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        let doc = bytes.withUnsafeBufferPointer { buf in
            buf.withMemoryRebound(to: CChar.self) { xmlCtxtReadMemory(ctxt, $0.baseAddress, Int32($0.count), nil, "UTF-8", options) }
        }
        guard let doc, ctxt.pointee.wellFormed != 0 else {
            if let doc { xmlFreeDoc(doc) }
            error = ctxt.pointee.lastError.message.map { String(cString: $0) } ?? "not well-formed"
            return
        }
        defer { xmlFreeDoc(doc) }
        if let root = xmlDocGetRootElement(doc) { walk(root, ancestors: []) }
    }

    private static func string(_ p: UnsafePointer<xmlChar>?) -> String {
        guard let p else { return "" }
        return String(cString: UnsafeRawPointer(p).assumingMemoryBound(to: CChar.self))
    }

    private mutating func walk(_ node: xmlNodePtr, ancestors: [String]) {
        var attributes: [(String, String, String)] = []
        var a = node.pointee.properties
        while let attr = a {
            var value = ""
            var child = attr.pointee.children
            while let c = child {
                value += Self.string(c.pointee.content)
                child = c.pointee.next
            }
            attributes.append((attr.pointee.ns.map { Self.string($0.pointee.href) } ?? "", Self.string(attr.pointee.name), value))
            a = attr.pointee.next
        }
        let name = Self.string(node.pointee.name)
        elements.append(
            ParsedElement(
                namespace: node.pointee.ns.map { Self.string($0.pointee.href) } ?? "", name: name,
                attributes: attributes, ancestors: ancestors))
        var child = node.pointee.children
        while let c = child {
            if c.pointee.type == XML_ELEMENT_NODE {
                walk(c, ancestors: ancestors + [name])
            } else if c.pointee.type == XML_TEXT_NODE || c.pointee.type == XML_CDATA_SECTION_NODE {
                text += Self.string(c.pointee.content)
            }
            child = c.pointee.next
        }
    }
}

/// The safety properties every rendered document must have, checked on the parsed tree.
enum SafetyCheck {
    static let xhtml = "http://www.w3.org/1999/xhtml"
    static let mathML = "http://www.w3.org/1998/Math/MathML"

    /// XHTML elements allowed in a body (html-pipeline's list + span), plus the document skeleton.
    static let xhtmlElements: Set<String> = [
        "html", "head", "meta", "title", "link", "body",
        "h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "br", "b", "i", "strong", "em", "a", "pre", "code",
        "img", "tt", "div", "ins", "del", "sup", "sub", "p", "ol", "ul", "table", "thead", "tbody", "tfoot",
        "blockquote", "dl", "dt", "dd", "kbd", "q", "samp", "var", "hr", "ruby", "rt", "rp", "li", "tr", "td",
        "th", "s", "strike", "summary", "details", "span",
    ]
    static let mathMLElements: Set<String> = [
        "math", "semantics", "annotation", "mi", "mn", "mo", "ms", "mspace", "mtext", "mrow", "mfrac", "msqrt",
        "mroot", "mstyle", "merror", "mpadded", "mphantom", "msub", "msup", "msubsup", "munder", "mover",
        "munderover", "mmultiscripts", "mprescripts", "none", "mtable", "mtr", "mtd",
    ]

    /// Independent of the renderer's URL code: strip every control and space, lowercase, then the
    /// value must be relative or start with an allowed scheme.
    static func urlIsSafe(_ value: String, schemes: [String]) -> Bool {
        let squeezed = String(String.UnicodeScalarView(value.unicodeScalars.filter { $0.value > 0x20 && $0.value != 0x7F })).lowercased()
        guard let colon = squeezed.firstIndex(of: ":") else { return true }
        let beforeColon = squeezed[..<colon]
        if beforeColon.contains(where: { $0 == "/" || $0 == "?" || $0 == "#" }) { return true }
        return schemes.contains(String(beforeColon))
    }

    /// Problems found in `xml`; empty when it is safe.
    static func problems(in xml: String) -> [String] {
        let parsed = ParsedXML(xml)
        if let error = parsed.error { return ["not well-formed XML: \(error)"] }
        var problems: [String] = []
        for e in parsed.elements {
            switch e.namespace {
            case xhtml:
                if !xhtmlElements.contains(e.name) { problems.append("disallowed \(e)") }
                if e.ancestors.contains("math") { problems.append("XHTML inside MathML: \(e)") }
            case mathML:
                if !mathMLElements.contains(e.name) { problems.append("disallowed MathML \(e)") }
            default:
                problems.append("foreign namespace \(e)")
            }
            for a in e.attributes {
                let lower = a.name.lowercased()
                if lower.hasPrefix("on") { problems.append("event handler \(a.name) on \(e)") }
                if !a.namespace.isEmpty, !(e.name == "html" && a.name == "lang") {
                    problems.append("namespaced attribute \(a.namespace):\(a.name) on \(e)")
                }
                if ["href", "src", "cite", "longdesc", "action", "formaction", "xlink:href", "background"].contains(lower) {
                    let schemes = e.name == "a" ? ["http", "https", "mailto"] : ["http", "https"]
                    let stylesheet = e.name == "link" && a.value == "lectern.css"
                    if !stylesheet, e.namespace != xhtml || !urlIsSafe(a.value, schemes: schemes) {
                        problems.append("bad URL \(a.name)=\"\(a.value)\" on \(e)")
                    }
                }
                if lower == "style", e.namespace == xhtml {
                    let ok = ["text-align: left", "text-align: center", "text-align: right"].contains(a.value)
                    if !(ok && (e.name == "th" || e.name == "td")) { problems.append("style=\"\(a.value)\" on \(e)") }
                }
                if lower == "style", e.namespace == mathML {
                    // The converter's fixed declarations only: nothing that can load or run anything.
                    let v = a.value.lowercased()
                    let risky = ["url", "(", "expression", "javascript", "\\", "@", "image", "behavior", "binding", "&"]
                    if risky.contains(where: { v.contains($0) }) { problems.append("MathML style=\"\(a.value)\" on \(e)") }
                }
                if e.namespace == mathML, ["id", "class", "href"].contains(lower) {
                    problems.append("MathML attribute \(a.name) on \(e)")
                }
            }
        }
        return problems
    }
}

/// Rewrites each `<math>…</math>` as `<math>TeX</math>` / `<math display="block">TeX</math>`, so
/// document fixtures check where formulas go without depending on the TeX converter's output.
func normalizingMath(_ xhtml: String) -> String {
    var result = ""
    var rest = Substring(xhtml)
    while let start = rest.firstRange(of: "<math") {
        result += rest[..<start.lowerBound]
        guard let end = rest[start.upperBound...].firstRange(of: "</math>") else {
            result += rest[start.lowerBound...]
            return result
        }
        let element = rest[start.lowerBound..<end.upperBound]
        let openTagEnd = element.firstIndex(of: ">") ?? element.endIndex
        let display = element[..<openTagEnd].contains("display=\"block\"")
        var tex: Substring
        if let a = element.firstRange(of: "<annotation encoding=\"application/x-tex\">"),
            let b = element[a.upperBound...].firstRange(of: "</annotation>")
        {
            tex = element[a.upperBound..<b.lowerBound]
        } else {
            var stripped = ""
            var inTag = false
            for ch in element {
                if ch == "<" { inTag = true } else if ch == ">" { inTag = false } else if !inTag { stripped.append(ch) }
            }
            tex = Substring(stripped)
        }
        while let f = tex.first, f.isWhitespace { tex.removeFirst() }
        while let l = tex.last, l.isWhitespace { tex.removeLast() }
        result += display ? "<math display=\"block\">" : "<math>"
        result += tex
        result += "</math>"
        rest = rest[end.upperBound...]
    }
    result += rest
    return result
}
