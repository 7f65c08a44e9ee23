internal import CLibXML2

/// The check every SVG figure passes before it goes into a bundle: it parses with libxml2 (no
/// network, no entities), and it holds only allowlisted SVG: shapes, paths, text and grouping.
/// No script, no foreignObject, no images or `use`, no event attributes, no links or other
/// external references, no `url(…)` anywhere in an attribute.
public enum SVGSafety {
    static let svgNamespace = "http://www.w3.org/2000/svg"
    static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"

    static let elements: Set<String> = [
        "svg", "g", "title", "desc", "line", "polyline", "polygon", "path", "circle", "ellipse", "rect", "text", "tspan",
    ]
    static let attributes: Set<String> = [
        "viewBox", "width", "height", "role", "aria-label", "aria-hidden", "direction", "unicode-bidi", "fill", "fill-opacity",
        "stroke", "stroke-width", "stroke-linecap", "stroke-linejoin", "stroke-dasharray", "stroke-opacity", "paint-order",
        "points", "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "d", "dx", "dy", "text-anchor",
        "dominant-baseline", "font-family", "font-size", "font-weight", "font-style", "transform", "opacity",
    ]

    /// What is wrong with `svg`; empty when it is safe to ship.
    public static func problems(in svg: String) -> [String] {
        let bytes = Array(svg.utf8)
        if svg.contains("<!DOCTYPE") || svg.contains("<!ENTITY") { return ["the SVG has a DOCTYPE or entity declaration"] }
        do {
            return try LibXML.withDocument(bytes) { doc in
                guard let root = xmlDocGetRootElement(doc) else { return ["the SVG has no root element"] }
                var problems = [String]()
                if name(root.pointee.name) != "svg" { problems.append("the root element is <\(name(root.pointee.name))>, not <svg>") }
                walk(root, &problems)
                return problems
            }
        } catch let failure as LibXML.Failure {
            return ["the SVG is not well-formed XML (line \(failure.line)): \(failure.message)"]
        } catch {
            return ["the SVG could not be parsed: \(error)"]
        }
    }

    private static func walk(_ node: xmlNodePtr, _ problems: inout [String]) {
        switch node.pointee.type {
        case XML_ELEMENT_NODE:
            let element = name(node.pointee.name)
            let namespace = node.pointee.ns.map { name($0.pointee.href) } ?? ""
            if namespace != svgNamespace || !elements.contains(element) {
                problems.append("element <\(element)> is not allowed in a figure")
                return
            }
            var attribute = node.pointee.properties
            while let a = attribute {
                attribute = a.pointee.next
                let attributeName = name(a.pointee.name)
                let attributeNamespace = a.pointee.ns.map { name($0.pointee.href) }
                let value = valueOf(a)
                if attributeNamespace == xmlNamespace && attributeName == "lang" { continue }
                if attributeName.lowercased().hasPrefix("on") {
                    problems.append("event attribute \(attributeName) on <\(element)>")
                } else if attributeNamespace != nil || !attributes.contains(attributeName) {
                    problems.append("attribute \(attributeName) on <\(element)> is not allowed in a figure")
                } else if value.lowercased().contains("url(") || value.lowercased().contains("javascript:") {
                    problems.append("attribute \(attributeName) on <\(element)> refers to something outside the figure")
                }
            }
            var child = node.pointee.children
            while let c = child {
                walk(c, &problems)
                child = c.pointee.next
            }
        case XML_TEXT_NODE, XML_COMMENT_NODE:
            break
        case XML_CDATA_SECTION_NODE:
            break
        default:
            problems.append("the SVG holds a node of a kind figures do not use (a processing instruction or entity)")
        }
    }

    private static func name(_ p: UnsafePointer<xmlChar>?) -> String {
        guard let p else { return "" }
        return String(cString: UnsafeRawPointer(p).assumingMemoryBound(to: CChar.self))
    }

    private static func valueOf(_ attribute: xmlAttrPtr) -> String {
        var text = ""
        var child = attribute.pointee.children
        while let c = child {
            if let content = c.pointee.content { text += name(content) }
            child = c.pointee.next
        }
        return text
    }
}
