import Foundation
import LecternCore

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The references between a bundle's files: the stylesheet, links and images its XHTML
/// documents point to. A bundle is opened as a folder of files (a browser, an e-reader, an LMS
/// import), so every local reference must name a file of the bundle, relative to the document.
public enum BundleReferences {
    /// A local reference that names no file of the bundle.
    public struct Broken: Sendable, Hashable, CustomStringConvertible {
        /// The bundle-relative path of the document holding the reference.
        public var document: String
        /// The reference as written (`../lectern.css`).
        public var reference: String
        /// The bundle-relative path it points to; nil when it points outside the bundle.
        public var target: String?

        public var description: String {
            if let target {
                return "\(document): refers to \(reference) (\(target)), which the bundle does not have"
            }
            return "\(document): refers to \(reference), which is outside the bundle"
        }
    }

    /// Attributes whose value is a URL the document refers to (`xlink:href` counts as `href`).
    static let urlAttributes: Set<String> = ["href", "src", "longdesc", "cite", "poster", "data"]

    /// The reference to bundle path `target` from a document at bundle path `document`:
    /// `../lectern.css` to `lectern.css` from `lectures/01-01-values.xhtml`.
    public static func reference(to target: String, from document: String) -> String {
        var from = folders(of: document)
        var to = target.split(separator: "/").map(String.init)
        while let first = from.first, first == to.first, to.count > 1 {
            from.removeFirst()
            to.removeFirst()
        }
        return (Array(repeating: "..", count: from.count) + to).joined(separator: "/")
    }

    /// The bundle path a local reference in the document at `document` points to, without its
    /// query or fragment and percent-decoded; nil when it climbs out of the bundle or is
    /// absolute.
    public static func resolve(_ reference: String, from document: String) -> String? {
        var path = reference
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = String(path[..<cut]) }
        path = path.removingPercentEncoding ?? path
        guard !path.hasPrefix("/") else { return nil }
        var parts = folders(of: document)
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..":
                guard parts.popLast() != nil else { return nil }
            default: parts.append(String(part))
            }
        }
        return parts.isEmpty ? nil : parts.joined(separator: "/")
    }

    /// The local references of an XHTML document, in document order; throws when the document
    /// is not well-formed XML.
    public static func localReferences(inXHTML data: Data) throws -> [String] {
        let collector = ReferenceCollector()
        let parser = XMLParser(data: data)
        parser.delegate = collector
        parser.shouldResolveExternalEntities = false
        let parsed = parser.parse()
        if !parsed || collector.failure != nil {
            let error = collector.failure ?? parser.parserError.map { "\($0.localizedDescription)" } ?? "unknown error"
            throw BundleError(.invalid, "not well-formed XML (line \(collector.failureLine ?? parser.lineNumber): \(error))")
        }
        return collector.references.filter(LocalReference.isLocal)
    }

    /// Every local reference in a bundle's `.xhtml` files that names none of its files, and
    /// every such document that is not well-formed XML, described for a report. `files` maps the
    /// bundle's paths to their contents.
    public static func problems(in files: [String: Data]) -> [String] {
        problems(documents: files.filter { $0.key.hasSuffix(".xhtml") }, files: Set(files.keys))
    }

    /// As `problems(in:)`, for the XHTML `documents` of a bundle holding `files` (bundle paths).
    public static func problems(documents: [String: Data], files paths: Set<String>) -> [String] {
        var problems: [String] = []
        for (document, data) in documents.sorted(by: { $0.key < $1.key }) {
            do {
                for reference in try localReferences(inXHTML: data) {
                    let target = resolve(reference, from: document)
                    if target.map(paths.contains) != true {
                        problems.append(Broken(document: document, reference: reference, target: target).description)
                    }
                }
            } catch {
                problems.append("\(document): \(error)")
            }
        }
        return problems
    }

    /// The folders of a bundle path (`["lectures"]` for `lectures/a.xhtml`).
    static func folders(of path: String) -> [String] {
        Array(path.split(separator: "/").map(String.init).dropLast())
    }
}

/// Collects URL-valued attributes while an `XMLParser` reads a document.
private final class ReferenceCollector: NSObject, XMLParserDelegate {
    var references: [String] = []
    /// The first error the parser reported (it may recover and go on).
    var failure: String?
    var failureLine: Int?

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        if failure == nil {
            failure = "\(parseError.localizedDescription)"
            failureLine = parser.lineNumber
        }
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        // Sorted, so the order of a report does not depend on dictionary order.
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
            let local = name.split(separator: ":").last.map(String.init) ?? name
            if BundleReferences.urlAttributes.contains(local.lowercased()) { references.append(value) }
        }
    }
}
