import Foundation
import LecternCore

/// An IMS Common Cartridge 1.3 of a course (File › Import in Canvas, Moodle's "Restore" of a
/// cartridge, Brightspace, Sakai): a module a subject; under it, a topic's lecture as a page
/// (`wiki_content/<topic>.html`) and its questions as a quiz (`<topic>-quiz/assessment.xml`, the
/// cartridge's QTI 1.2 profile: `cc.multiple_choice.v0p1` with the key at 100 and each option's
/// feedback, `cc.essay.v0p1` with the reference answer as feedback).
///
/// Math is written as TeX in MathJax delimiters (`\(…\)`), which Canvas and Moodle render; their
/// HTML sanitizers drop MathML. Deterministic: a `StoredZip` of generated text.
public enum CommonCartridgeExporter: BundleExporter {
    public static let format = "cc"
    public static let fileExtension = "imscc"
    public static let summary = "an IMS Common Cartridge 1.3 for Canvas and Moodle: a page a lecture, a quiz a topic"

    static let assessmentType = "imsqti_xmlv1p2/imscc_xmlv1p3/assessment"

    static func export(_ course: Course, questions all: [BundleQuestion], bundle: OpenBundle) throws -> Data {
        let manifest = bundle.manifest
        let language = manifest.language
        let rtl = LanguageDirection.isRightToLeft(language)
        let label = BundleContent.Labels(language: language)
        let questions = Dictionary(grouping: all, by: \.topicID)

        var files: [String: Data] = [:]
        var organization = ""
        var resources = ""
        var count = 0
        for (subjectIndex, subject) in course.subjects.enumerated() {
            var items = ""
            for topic in subject.topics {
                let id = topic.id
                let title = topic.title
                count += 1
                let key = BundleContent.identifier(id.isEmpty ? "topic-\(count)" : id)
                if let path = topic.lecture?.xhtmlPath, let xhtml = bundle.data(path) {
                    let page = "wiki_content/\(key).html"
                    files[page] = Data(html(title: title, language: language, rtl: rtl, body: BundleContent.mathJax(BundleContent.body(ofDocument: xhtml))).utf8)
                    items += "          <item identifier=\"item-\(key)\" identifierref=\"page-\(key)\">\n            <title>\(BundleContent.xmlEscaped(title))</title>\n          </item>\n"
                    resources += "    <resource identifier=\"page-\(key)\" type=\"webcontent\" href=\"\(page)\">\n      <file href=\"\(page)\"/>\n    </resource>\n"
                }
                if let topicQuestions = questions[id], !topicQuestions.isEmpty {
                    let quizTitle = label("Questions", "أسئلة") + ": " + title
                    let path = "\(key)-quiz/assessment.xml"
                    files[path] = Data(assessment(identifier: "quiz-\(key)", title: quizTitle, questions: topicQuestions, language: language, label: label).utf8)
                    items += "          <item identifier=\"item-quiz-\(key)\" identifierref=\"quiz-\(key)\">\n            <title>\(BundleContent.xmlEscaped(quizTitle))</title>\n          </item>\n"
                    resources += "    <resource identifier=\"quiz-\(key)\" type=\"\(assessmentType)\">\n      <file href=\"\(path)\"/>\n    </resource>\n"
                }
            }
            guard !items.isEmpty else { continue }
            organization += "        <item identifier=\"module-\(subjectIndex + 1)\">\n          <title>\(BundleContent.xmlEscaped(subject.title))</title>\n"
            organization += items + "        </item>\n"
        }
        guard !resources.isEmpty else { throw PackageError("the course has no lectures or questions to put in a cartridge") }
        let lang = BundleContent.xmlEscaped(language)
        files["imsmanifest.xml"] = Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <manifest identifier="\(BundleContent.identifier("lectern-\(manifest.id)-\(manifest.version)"))"
              xmlns="http://www.imsglobal.org/xsd/imsccv1p3/imscp_v1p1"
              xmlns:lomimscc="http://ltsc.ieee.org/xsd/imsccv1p3/LOM/manifest"
              xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
              xsi:schemaLocation="http://www.imsglobal.org/xsd/imsccv1p3/imscp_v1p1 http://www.imsglobal.org/profile/cc/ccv1p3/ccv1p3_imscp_v1p2_v1p0.xsd http://ltsc.ieee.org/xsd/imsccv1p3/LOM/manifest http://www.imsglobal.org/profile/cc/ccv1p3/LOM/ccv1p3_lommanifest_v1p0.xsd">
              <metadata>
                <schema>IMS Common Cartridge</schema>
                <schemaversion>1.3.0</schemaversion>
                <lomimscc:lom>
                  <lomimscc:general>
                    <lomimscc:title><lomimscc:string language="\(lang)">\(BundleContent.xmlEscaped(manifest.title))</lomimscc:string></lomimscc:title>
                    <lomimscc:language>\(lang)</lomimscc:language>
                  </lomimscc:general>
                </lomimscc:lom>
              </metadata>
              <organizations>
                <organization identifier="organization" structure="rooted-hierarchy">
                  <item identifier="root">
            \(organization)      </item>
                </organization>
              </organizations>
              <resources>
            \(resources)  </resources>
            </manifest>

            """.utf8)
        return StoredZip.write(files)
    }

    static func html(title: String, language: String, rtl: Bool, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="\(BundleContent.xmlEscaped(language))" dir="\(rtl ? "rtl" : "ltr")">
        <head>
        <meta charset="utf-8"/>
        <title>\(BundleContent.xmlEscaped(title))</title>
        </head>
        <body>
        \(body)
        </body>
        </html>

        """
    }

    /// HTML for a `mattext`: the rendered fragment with math as MathJax TeX, escaped as text.
    static func mattext(_ html: String) -> String {
        "<mattext texttype=\"text/html\">" + BundleContent.xmlEscaped(BundleContent.mathJax(html)) + "</mattext>"
    }

    static func field(_ label: String, _ entry: String) -> String {
        "<qtimetadatafield><fieldlabel>\(label)</fieldlabel><fieldentry>\(entry)</fieldentry></qtimetadatafield>"
    }

    /// A topic's quiz in the cartridge's QTI 1.2 profile.
    static func assessment(identifier: String, title: String, questions: [BundleQuestion], language: String, label: BundleContent.Labels) -> String {
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <questestinterop xmlns="http://www.imsglobal.org/xsd/ims_qtiasiv1p2" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
              xsi:schemaLocation="http://www.imsglobal.org/xsd/ims_qtiasiv1p2 http://www.imsglobal.org/profile/cc/ccv1p3/ccv1p3_qtiasiv1p2p1_v1p0.xsd">
              <assessment ident="\(identifier)" title="\(BundleContent.xmlEscaped(title))">
                <qtimetadata>\(field("cc_profile", "cc.exam.v0p1"))\(field("qmd_assessmenttype", "Examination"))\(field("cc_maxattempts", "unlimited"))</qtimetadata>
                <section ident="\(identifier)-section">

            """
        for (index, q) in questions.enumerated() {
            let ident = "\(identifier)-\(index + 1)"
            let options = q.options
            let prompt = BundleContent.prompt(q, language: language)
            let explanation = BundleContent.fragment(q.explanation, language: language)
            let keys = options.indices.filter { options[$0].correct }
            let multiple = keys.count > 1
            let profile = options.isEmpty ? "cc.essay.v0p1" : multiple ? "cc.multiple_response.v0p1" : "cc.multiple_choice.v0p1"
            xml += "      <item ident=\"\(ident)\" title=\"\(BundleContent.xmlEscaped(q.id))\">\n"
            xml += "        <itemmetadata><qtimetadata>\(field("cc_profile", profile))\(field("cc_weighting", "1"))</qtimetadata></itemmetadata>\n"
            xml += "        <presentation>\n          <material>\(mattext(prompt))</material>\n"
            if options.isEmpty {
                xml += "          <response_str ident=\"response1\" rcardinality=\"Single\"><render_fib><response_label ident=\"answer1\" rshuffle=\"No\"/></render_fib></response_str>\n"
                xml += "        </presentation>\n"
                xml += "        <resprocessing>\n          <outcomes><decvar maxvalue=\"100\" minvalue=\"0\" varname=\"SCORE\" vartype=\"Decimal\"/></outcomes>\n"
                xml += "          <respcondition continue=\"No\"><conditionvar><other/></conditionvar><displayfeedback feedbacktype=\"Response\" linkrefid=\"general_fb\"/></respcondition>\n"
                xml += "        </resprocessing>\n"
                let reference =
                    "<p><strong>\(label("Reference answer", "الإجابة النموذجية"))</strong></p>"
                    + BundleContent.fragment(q.referenceAnswer ?? "", language: language) + explanation
                xml += "        <itemfeedback ident=\"general_fb\"><flow_mat><material>\(mattext(reference))</material></flow_mat></itemfeedback>\n"
                xml += "      </item>\n"
                continue
            }
            let letters = options.indices.map { $0 < 26 ? String(UnicodeScalar(UInt8(65 + $0))) : "C\($0 + 1)" }
            xml += "          <response_lid ident=\"response1\" rcardinality=\"\(multiple ? "Multiple" : "Single")\">\n            <render_choice shuffle=\"No\">\n"
            for (n, option) in options.enumerated() {
                let text = BundleContent.inline(BundleContent.fragment(option.text, language: language))
                xml += "              <response_label ident=\"\(letters[n])\"><material>\(mattext(text))</material></response_label>\n"
            }
            xml += "            </render_choice>\n          </response_lid>\n        </presentation>\n"
            xml += "        <resprocessing>\n          <outcomes><decvar maxvalue=\"100\" minvalue=\"0\" varname=\"SCORE\" vartype=\"Decimal\"/></outcomes>\n"
            xml += "          <respcondition continue=\"Yes\"><conditionvar><other/></conditionvar><displayfeedback feedbacktype=\"Response\" linkrefid=\"general_fb\"/></respcondition>\n"
            for letter in letters {
                xml +=
                    "          <respcondition continue=\"Yes\"><conditionvar><varequal respident=\"response1\">\(letter)</varequal></conditionvar><displayfeedback feedbacktype=\"Response\" linkrefid=\"\(letter)_fb\"/></respcondition>\n"
            }
            // Full marks for the key: the one right option, or exactly the right ones.
            let condition =
                multiple
                ? "<and>"
                    + options.indices.map {
                        keys.contains($0) ? "<varequal respident=\"response1\">\(letters[$0])</varequal>" : "<not><varequal respident=\"response1\">\(letters[$0])</varequal></not>"
                    }.joined() + "</and>"
                : keys.map { "<varequal respident=\"response1\">\(letters[$0])</varequal>" }.joined()
            xml += "          <respcondition continue=\"No\"><conditionvar>\(condition)</conditionvar><setvar action=\"Set\" varname=\"SCORE\">100</setvar></respcondition>\n"
            xml += "        </resprocessing>\n"
            xml += "        <itemfeedback ident=\"general_fb\"><flow_mat><material>\(mattext(explanation))</material></flow_mat></itemfeedback>\n"
            for (n, option) in options.enumerated() {
                let verdict = label.verdict(option.correct)
                let feedback = "<p><strong>\(verdict)</strong></p>" + BundleContent.fragment(option.feedback, language: language)
                xml += "        <itemfeedback ident=\"\(letters[n])_fb\"><flow_mat><material>\(mattext(feedback))</material></flow_mat></itemfeedback>\n"
            }
            xml += "      </item>\n"
        }
        xml += "    </section>\n  </assessment>\n</questestinterop>\n"
        return xml
    }
}
