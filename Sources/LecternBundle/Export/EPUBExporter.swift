import Foundation
import LecternCore

/// EPUB 3 of a course: a cover, a navigation document (subjects and their lectures), and the
/// lectures as the bundle renders them (XHTML + MathML, with its stylesheet), in course order;
/// right-to-left page progression for right-to-left languages. Deterministic: the archive is a
/// `StoredZip` with `mimetype` first, and `dcterms:modified` is a fixed date (the bundle has no
/// clock time by design). Checked by epubcheck in the tests.
public enum EPUBExporter: BundleExporter {
    public static let format = "epub"
    public static let fileExtension = "epub"
    public static let summary = "EPUB 3 of a course's lectures (XHTML + MathML), with a cover and navigation"

    struct Lecture {
        var title: String
        var path: String
        var math: Bool
    }

    static func export(_ course: Course, bundle: OpenBundle) throws -> Data {
        let manifest = bundle.manifest
        let language = manifest.language
        let rtl = LanguageDirection.isRightToLeft(language)
        var files: [(String, Data)] = [("mimetype", Data("application/epub+zip".utf8))]
        files.append(("META-INF/container.xml", Data(container.utf8)))

        // Lectures in course order, and the navigation tree.
        var lectures: [Lecture] = []
        var navigation = ""
        for subject in course.subjects {
            var items = ""
            for topic in subject.topics {
                guard let path = topic.lecture?.xhtmlPath, let xhtml = bundle.data(path) else { continue }
                let title = topic.title
                let text = String(decoding: xhtml, as: UTF8.self)
                lectures.append(Lecture(title: title, path: path, math: text.contains("<math")))
                files.append(("OEBPS/" + path, xhtml))
                items += "<li><a href=\"\(escape(path))\">\(escape(title))</a></li>"
            }
            if !items.isEmpty { navigation += "<li><span>\(escape(subject.title))</span><ol>\(items)</ol></li>\n" }
        }
        guard !lectures.isEmpty else { throw PackageError("the course has no rendered lectures to export") }
        if let css = bundle.data("lectern.css") {
            files.append(("OEBPS/lectern.css", Data(epubStylesheet(String(decoding: css, as: UTF8.self)).utf8)))
        }
        let title = manifest.title
        let direction = rtl ? "rtl" : "ltr"
        files.append(("OEBPS/cover.svg", Data(coverSVG(title: title, subtitle: course.description, rtl: rtl).utf8)))
        files.append(
            (
                "OEBPS/cover.xhtml",
                Data(
                    document(
                        title: title, language: language, direction: direction,
                        body: """
                            <section epub:type="cover"><img src="cover.svg" alt="\(escape(title))" style="width: 100%; height: auto"/></section>
                            """
                    ).utf8)
            ))
        files.append(
            (
                "OEBPS/nav.xhtml",
                Data(
                    document(
                        title: title, language: language, direction: direction,
                        body: """
                            <nav epub:type="toc" id="toc"><h1>\(escape(title))</h1>
                            <ol>
                            \(navigation)</ol></nav>
                            """
                    ).utf8)
            ))

        // The package document.
        var manifestItems = """
            <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
            <item id="cover" href="cover.xhtml" media-type="application/xhtml+xml"/>
            <item id="cover-image" href="cover.svg" media-type="image/svg+xml" properties="cover-image"/>

            """
        if files.contains(where: { $0.0 == "OEBPS/lectern.css" }) { manifestItems += "<item id=\"css\" href=\"lectern.css\" media-type=\"text/css\"/>\n" }
        var spine = "<itemref idref=\"cover\" linear=\"yes\"/>\n<itemref idref=\"nav\" linear=\"yes\"/>\n"
        for (index, lecture) in lectures.enumerated() {
            manifestItems += "<item id=\"l\(index + 1)\" href=\"\(escape(lecture.path))\" media-type=\"application/xhtml+xml\"\(lecture.math ? " properties=\"mathml\"" : "")/>\n"
            spine += "<itemref idref=\"l\(index + 1)\"/>\n"
        }
        let opf = """
            <?xml version="1.0" encoding="UTF-8"?>
            <package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid" xml:lang="\(escape(language))" dir="\(direction)">
            <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
            <dc:identifier id="uid">urn:lectern:\(escape(manifest.id)):\(escape(manifest.version))</dc:identifier>
            <dc:title>\(escape(title))</dc:title>
            <dc:language>\(escape(language))</dc:language>
            <dc:creator>Lectern</dc:creator>
            <meta property="dcterms:modified">2000-01-01T00:00:00Z</meta>
            </metadata>
            <manifest>
            \(manifestItems)</manifest>
            <spine\(rtl ? " page-progression-direction=\"rtl\"" : "")>
            \(spine)</spine>
            </package>

            """
        files.append(("OEBPS/content.opf", Data(opf.utf8)))
        return StoredZip.write(ordered: [files[0]] + files.dropFirst().sorted { $0.0 < $1.0 }.map { ($0.0, $0.1) })
    }

    /// The bundle's stylesheet as EPUB reading systems take it: no `direction` or `unicode-bidi` (EPUB
    /// leaves direction to `dir` attributes, which the lectures carry on every container), and
    /// `:is(a, b)` written out as a selector list (EPUB's CSS profile predates it).
    static func epubStylesheet(_ css: String) -> String {
        var out: [String] = []
        for line in css.split(separator: "\n", omittingEmptySubsequences: false) {
            let declaration = line.trimmingCharacters(in: .whitespaces)
            if declaration.hasPrefix("direction:") || declaration.hasPrefix("unicode-bidi:") { continue }
            if let open = line.range(of: ":is("), let close = line.range(of: ")", range: open.upperBound..<line.endIndex) {
                let prefix = line[..<open.lowerBound]
                let suffix = line[close.upperBound...]
                let choices = line[open.upperBound..<close.lowerBound].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                out.append(choices.map { prefix + $0 }.joined(separator: ", ") + suffix)
                continue
            }
            out.append(String(line))
        }
        return out.joined(separator: "\n")
    }

    static let container = """
        <?xml version="1.0" encoding="UTF-8"?>
        <container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
        <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
        </container>

        """

    static func document(title: String, language: String, direction: String, body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE html>
        <html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" lang="\(escape(language))" xml:lang="\(escape(language))" dir="\(direction)">
        <head><meta charset="utf-8"/><title>\(escape(title))</title><link rel="stylesheet" href="lectern.css"/></head>
        <body>
        \(body)
        </body>
        </html>

        """
    }

    /// A typographic cover: the title (wrapped) and the start of the description on a plain field.
    static func coverSVG(title: String, subtitle: String, rtl: Bool) -> String {
        func lines(_ text: String, width: Int, max: Int) -> [String] {
            var result: [String] = []
            var line = ""
            for word in text.split(whereSeparator: \.isWhitespace) {
                if line.count + word.count + 1 > width, !line.isEmpty {
                    result.append(line)
                    line = ""
                    if result.count == max { break }
                }
                line += (line.isEmpty ? "" : " ") + word
            }
            if !line.isEmpty, result.count < max { result.append(line) }
            // A cut text ends with an ellipsis, not in mid-sentence.
            if result.joined(separator: " ").count < text.split(whereSeparator: \.isWhitespace).joined(separator: " ").count, let last = result.indices.last {
                result[last] += " …"
            }
            return result
        }
        let anchor = rtl ? "end" : "start"
        let x = rtl ? 540 : 60
        var text = ""
        for (index, line) in lines(title, width: 18, max: 4).enumerated() {
            text +=
                "<text x=\"\(x)\" y=\"\(220 + index * 64)\" font-size=\"52\" font-weight=\"bold\" fill=\"#ffffff\" text-anchor=\"\(anchor)\"\(rtl ? " direction=\"rtl\"" : "")>\(escape(line))</text>\n"
        }
        for (index, line) in lines(subtitle, width: 36, max: 5).enumerated() {
            text += "<text x=\"\(x)\" y=\"\(520 + index * 36)\" font-size=\"24\" fill=\"#dbeef2\" text-anchor=\"\(anchor)\"\(rtl ? " direction=\"rtl\"" : "")>\(escape(line))</text>\n"
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 600 800" width="600" height="800">
            <rect width="600" height="800" fill="#126e82"/>
            <g font-family="'Noto Sans', 'Noto Naskh Arabic', sans-serif">
            <rect x="40" y="120" width="520" height="6" fill="#ffffff"/>
            \(text)</g>
            </svg>

            """
    }

    static func escape(_ text: String) -> String { BundleContent.xmlEscaped(text) }
}
