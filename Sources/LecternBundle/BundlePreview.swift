import Foundation
import LecternCore

/// `lectern preview BUNDLE`: a static site of a bundle to read as its users will: an index with
/// the outline, the lectures as rendered (XHTML + MathML), each topic's questions with their
/// feedback behind a click (`<details>`, no script), an exam's forms and passages. Right to left
/// for right-to-left languages. Every page is reachable from `index.xhtml`. `PreviewServer`
/// serves it on loopback.
public enum BundlePreview {
    public struct Site: Sendable {
        public var index: URL
        public var pages: Int
    }

    public static func write(bundle: URL, to output: URL) throws -> Site {
        let report = try BundleVerifier.verify(bundle)
        guard report.problems.isEmpty else {
            throw PackageError("the bundle does not verify; fix or regenerate it first:\n  " + report.problems.joined(separator: "\n  "))
        }
        let manifest = report.manifest
        let fm = FileManager.default
        if fm.fileExists(atPath: output.path) {
            guard fm.fileExists(atPath: output.appendingPathComponent(".lectern-preview").path) else {
                throw PackageError("\(output.path) exists and is not a Lectern preview; choose an empty or new folder")
            }
            try fm.removeItem(at: output)
        }
        try fm.createDirectory(at: output, withIntermediateDirectories: true)
        try Data("a folder `lectern preview` wrote; it is replaced on the next preview\n".utf8).write(to: output.appendingPathComponent(".lectern-preview"))
        // The bundle's own documents and assets, as they are.
        for path in manifest.files.keys where !path.hasSuffix(".json") && !path.hasSuffix(".md") {
            let destination = output.appendingPathComponent(path)
            try fm.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            try fm.copyItem(at: bundle.appendingPathComponent(path), to: destination)
        }
        let rtl = LanguageDirection.isRightToLeft(manifest.language)
        let page = Page(language: manifest.language, direction: rtl ? "rtl" : "ltr", label: BundleContent.Labels(language: manifest.language))
        var pages = 1
        var body = "<h1>\(escape(manifest.title))</h1>\n"
        let document = try BundleContent.document(of: bundle, manifest: manifest)
        if manifest.kind == "exam" {
            let exam = document
            if let description = exam["description"] as? String { body += "<p>\(escape(description))</p>\n" }
            body += "<h2>\(page.label("Forms", "النماذج"))</h2>\n<ul>\n"
            for path in manifest.files.keys.sorted() where path.hasPrefix("forms/") && path.hasSuffix(".xhtml") {
                body += "<li><a href=\"\(escape(path))\">\(escape(title(ofDocument: output.appendingPathComponent(path)) ?? path))</a></li>\n"
            }
            body += "</ul>\n"
            let passages = manifest.files.keys.sorted().filter { $0.hasPrefix("passages/") && $0.hasSuffix(".xhtml") }
            if !passages.isEmpty {
                body += "<h2>\(page.label("Passages", "النصوص"))</h2>\n<ul>\n"
                for path in passages { body += "<li><a href=\"\(escape(path))\">\(escape(title(ofDocument: output.appendingPathComponent(path)) ?? path))</a></li>\n" }
                body += "</ul>\n"
            }
            body += "<p>\(page.label("Items in the bank", "أسئلة البنك")): \((exam["items"] as? [Any])?.count ?? 0)</p>\n"
        } else {
            let course = document
            let questions = Dictionary(grouping: BundleContent.questions(in: course, kind: "course"), by: \.topicID)
            if let description = course["description"] as? String { body += "<p>\(escape(description))</p>\n" }
            if manifest.files["tone-preview.xhtml"] != nil {
                body += "<p><a href=\"tone-preview.xhtml\">\(page.label("Tone preview", "معاينة الأسلوب"))</a></p>\n"
            }
            try fm.createDirectory(at: output.appendingPathComponent("questions"), withIntermediateDirectories: true)
            for subject in course["subjects"] as? [[String: Any]] ?? [] {
                body += "<h2>\(escape(subject["title"] as? String ?? ""))</h2>\n<ol>\n"
                for topic in subject["topics"] as? [[String: Any]] ?? [] {
                    let id = topic["id"] as? String ?? ""
                    let topicTitle = topic["title"] as? String ?? id
                    var links: [String] = []
                    if let path = (topic["lecture"] as? [String: Any])?["xhtml_path"] as? String, manifest.files[path] != nil {
                        links.append("<a href=\"\(escape(path))\">\(page.label("lecture", "المحاضرة"))</a>")
                    }
                    // The narration, playable in place (a browser plays Ogg Opus natively).
                    if let audio = (topic["lecture"] as? [String: Any])?["audio"] as? [String: Any], let path = audio["path"] as? String,
                        manifest.files[path] != nil
                    {
                        let seconds = Int(((audio["seconds"] as? Double) ?? 0).rounded())
                        links.append(
                            "\(page.label("listen", "استمع")) (\(seconds / 60):\(String(format: "%02d", seconds % 60))) "
                                + "<audio controls=\"controls\" preload=\"none\" src=\"\(escape(path))\"></audio>")
                    }
                    let questions = (questions[id] ?? []).map { (page.label.title(of: $0), $0.fields) }
                    if !questions.isEmpty {
                        let path = "questions/\(id).xhtml"
                        let html = questions.map { questionHTML(title: $0.0, $0.1, page: page) }.joined(separator: "\n")
                        try Data(page.document(title: topicTitle, stylesheet: "../lectern.css", body: "<p><a href=\"../index.xhtml\">\(escape(manifest.title))</a></p>\n<h1>\(escape(topicTitle))</h1>\n" + html).utf8)
                            .write(to: output.appendingPathComponent(path))
                        pages += 1
                        links.append("<a href=\"\(escape(path))\">\(page.label("questions", "الأسئلة")) (\(questions.count))</a>")
                    }
                    // The topic's flashcards: each front, its back behind a click.
                    let cards = topic["flashcards"] as? [[String: Any]] ?? []
                    if !cards.isEmpty {
                        try fm.createDirectory(at: output.appendingPathComponent("flashcards"), withIntermediateDirectories: true)
                        let path = "flashcards/\(id).xhtml"
                        let html = "<ol class=\"lectern-flashcards\">\n" + cards.map { card in
                            "<li><details><summary>\(BundleContent.inline(BundleContent.fragment(card["front"] as? String ?? "", language: page.language)))</summary>"
                                + BundleContent.fragment(card["back"] as? String ?? "", language: page.language) + "</details></li>"
                        }.joined(separator: "\n") + "\n</ol>"
                        try Data(page.document(title: topicTitle, stylesheet: "../lectern.css", body: "<p><a href=\"../index.xhtml\">\(escape(manifest.title))</a></p>\n<h1>\(escape(topicTitle))</h1>\n<h2>\(page.label("Flashcards", "البطاقات"))</h2>\n" + html).utf8)
                            .write(to: output.appendingPathComponent(path))
                        pages += 1
                        links.append("<a href=\"\(escape(path))\">\(page.label("flashcards", "البطاقات")) (\(cards.count))</a>")
                    }
                    body += "<li>\(escape(topicTitle)) — \(links.joined(separator: " · "))</li>\n"
                }
                body += "</ol>\n"
                if let project = subject["project"] as? [String: Any] {
                    let label = page.label("Project", "المشروع")
                    var name = project["title"] as? String ?? ""
                    // "Project: Project: …" when the title starts with the word already.
                    if name.lowercased().hasPrefix(label.lowercased()) { name = String(name.dropFirst(label.count)).trimmingCharacters(in: CharacterSet(charactersIn: ": ")) }
                    body += "<details><summary>\(label): \(escape(name))</summary><p>\(escape(project["brief"] as? String ?? ""))</p></details>\n"
                }
            }
        }
        let index = output.appendingPathComponent("index.xhtml")
        try Data(page.document(title: manifest.title, stylesheet: "lectern.css", body: body).utf8).write(to: index)
        return Site(index: index, pages: pages + manifest.files.keys.filter { $0.hasSuffix(".xhtml") }.count)
    }

    struct Page {
        var language: String
        var direction: String
        /// `page.label("Forms", "النماذج")`: the page's words in its language.
        var label: BundleContent.Labels

        func document(title: String, stylesheet: String, body: String) -> String {
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE html>
            <html xmlns="http://www.w3.org/1999/xhtml" lang="\(escape(language))" xml:lang="\(escape(language))" dir="\(direction)">
            <head>
            <meta charset="utf-8"/>
            <title>\(escape(title))</title>
            <link rel="stylesheet" href="\(stylesheet)"/>
            </head>
            <body>
            \(body)
            </body>
            </html>

            """
        }
    }

    /// One question: its rendered prompt, each option with its feedback behind a click, and the
    /// explanation; all of it rendered as the lectures are (Markdown, formulas as MathML).
    static func questionHTML(title: String, _ q: [String: Any], page: Page) -> String {
        func rendered(_ text: Any?) -> String { BundleContent.fragment(text as? String ?? "", language: page.language) }
        var html = "<section class=\"lectern-question\">\n<h2>\(escape(title))</h2>\n"
        html += BundleContent.prompt(q, language: page.language)
        let options = q["options"] as? [[String: Any]] ?? []
        if !options.isEmpty {
            html += "\n<ol type=\"A\">\n"
            for option in options {
                let correct = option["correct"] as? Bool == true
                let verdict = correct ? page.label("✓ Right", "✓ صحيحة") : page.label("✗ Not right", "✗ غير صحيحة")
                html += "<li><details><summary>\(BundleContent.inline(rendered(option["text"])))</summary><p><strong>\(verdict).</strong></p>\(rendered(option["feedback"]))</details></li>\n"
            }
            html += "</ol>\n"
        }
        if let reference = q["reference_answer"] as? String, !reference.isEmpty {
            html += "<details><summary>\(page.label("Reference answer", "الإجابة النموذجية"))</summary>\(rendered(reference))</details>\n"
        }
        if let explanation = q["explanation"] as? String, !explanation.isEmpty {
            html += "<details><summary>\(page.label("Explanation", "الشرح"))</summary>\(rendered(explanation))</details>\n"
        }
        return html + "</section>"
    }

    static func title(ofDocument url: URL) -> String? {
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        let text = String(decoding: data.prefix(4_096), as: UTF8.self)
        guard let start = text.range(of: "<title>"), let end = text.range(of: "</title>", range: start.upperBound..<text.endIndex) else { return nil }
        return String(text[start.upperBound..<end.lowerBound]).replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">")
    }

    static func escape(_ text: String) -> String { BundleContent.xmlEscaped(text) }
}
