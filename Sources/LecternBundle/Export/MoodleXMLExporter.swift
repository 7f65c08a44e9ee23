import Foundation
import LecternCore

/// A Moodle XML question bank (Site administration › Question bank › Import › Moodle XML
/// format): one category per course topic (or exam section/category), a `multichoice` question
/// for every multiple-choice question with its options, the key at 100 % and per-option
/// feedback, and an `essay` question with the reference answer as grader information for every
/// free-text one. Text is the bundle's rendered XHTML (`prompt_xhtml`; options, feedback and
/// explanations rendered the same way), with each formula as TeX in `\(…\)` for Moodle's MathJax
/// filter (its HTML cleaning drops MathML).
public enum MoodleXMLExporter: BundleExporter {
    public static let format = "moodle"
    public static let fileExtension = "xml"
    public static let summary = "a Moodle XML question bank: a category per topic, multichoice and essay questions with feedback"

    static func export(questions: [BundleQuestion], bundle: OpenBundle) throws -> Data {
        let manifest = bundle.manifest
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<quiz>\n"
        let root = "$course$/top/" + categoryName(manifest.title)
        func category(_ path: String) {
            out += "  <question type=\"category\">\n    <category><text>\(BundleContent.xmlEscaped(root + "/" + categoryName(path)))</text></category>\n  </question>\n"
        }
        let language = manifest.language
        func html(_ markdown: String?) -> String { BundleContent.mathJax(BundleContent.fragment(markdown ?? "", language: language)) }
        func question(name: String, _ q: BundleQuestion) {
            let options = q.options
            let text = BundleContent.mathJax(BundleContent.prompt(q, language: language))
            let explanation = html(q.explanation)
            if options.isEmpty {
                out += "  <question type=\"essay\">\n"
                out += "    <name><text>\(BundleContent.xmlEscaped(name))</text></name>\n"
                out += "    <questiontext format=\"html\"><text>\(cdata(text))</text></questiontext>\n"
                out += "    <generalfeedback format=\"html\"><text>\(cdata(explanation))</text></generalfeedback>\n"
                out += "    <defaultgrade>1</defaultgrade>\n    <penalty>0</penalty>\n    <hidden>0</hidden>\n"
                out += "    <responseformat>editor</responseformat>\n    <responserequired>1</responserequired>\n    <responsefieldlines>10</responsefieldlines>\n"
                out += "    <attachments>0</attachments>\n"
                out += "    <graderinfo format=\"html\"><text>\(cdata(html(q.referenceAnswer)))</text></graderinfo>\n"
                out += "    <responsetemplate format=\"html\"><text></text></responsetemplate>\n"
                out += "  </question>\n"
                return
            }
            let correctCount = options.filter(\.correct).count
            out += "  <question type=\"multichoice\">\n"
            out += "    <name><text>\(BundleContent.xmlEscaped(name))</text></name>\n"
            out += "    <questiontext format=\"html\"><text>\(cdata(text))</text></questiontext>\n"
            out += "    <generalfeedback format=\"html\"><text>\(cdata(explanation))</text></generalfeedback>\n"
            out += "    <defaultgrade>1</defaultgrade>\n    <penalty>0.3333333</penalty>\n    <hidden>0</hidden>\n"
            out += "    <single>\(correctCount == 1 ? "true" : "false")</single>\n    <shuffleanswers>true</shuffleanswers>\n    <answernumbering>abc</answernumbering>\n"
            for option in options {
                let correct = option.correct
                let fraction = correct ? (correctCount > 1 ? String(format: "%.5f", 100.0 / Double(correctCount)) : "100") : "0"
                out += "    <answer fraction=\"\(fraction)\" format=\"html\">\n"
                out += "      <text>\(cdata(html(option.text)))</text>\n"
                out += "      <feedback format=\"html\"><text>\(cdata(html(option.feedback)))</text></feedback>\n"
                out += "    </answer>\n"
            }
            out += "  </question>\n"
        }
        var current: String?
        for q in questions {
            let path = q.subject.isEmpty ? q.topic : q.subject + "/" + q.topic
            if path != current {
                category(path)
                current = path
            }
            question(name: q.id, q)
        }
        out += "</quiz>\n"
        return Data(out.utf8)
    }

    /// A category name: Moodle separates levels with `/`, so a slash inside a title is doubled
    /// (Moodle's own escape for it), and line breaks become spaces.
    static func categoryName(_ title: String) -> String {
        title.split(separator: "/", omittingEmptySubsequences: false).map { $0.replacingOccurrences(of: "\n", with: " ") }.joined(separator: "/")
    }

    /// HTML inside `<![CDATA[…]]>`, as Moodle writes it; a `]]>` inside is split across sections.
    static func cdata(_ html: String) -> String {
        "<![CDATA[" + Exporters.textCharacters(html).replacingOccurrences(of: "]]>", with: "]]]]><![CDATA[>") + "]]>"
    }

}
