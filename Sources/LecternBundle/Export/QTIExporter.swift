import Foundation
import LecternCore

/// A QTI 3.0 content package (1EdTech Question and Test Interoperability) of a course's
/// questions or an exam bank's items, for item banks and test players (TAO, Inspera, Citolab,
/// Canvas New Quizzes):
///
/// - `items/<id>.xml`: a `qti-assessment-item` a question. Multiple choice is a
///   `qti-choice-interaction` with the key as the correct response, response processing that
///   scores it (1 or 0) and sets `FEEDBACK` to the chosen option, and a `qti-modal-feedback` per
///   option with its feedback and the explanation. Free text is a `qti-extended-text-interaction`
///   scored by a person, with the reference answer in a scorer's `qti-rubric-block`. Prompts and
///   options are the bundle's rendered XHTML with MathML; an item's figure is an `img` of its SVG.
/// - `stimuli/<id>.xml`: an exam's reading passages, as `qti-assessment-stimulus`, referenced by
///   their items.
/// - `assessment-test.xml`: a `qti-assessment-test` with a section a topic (an exam's section and
///   category), in pipeline order.
/// - `imsmanifest.xml`: IMS Content Packaging 1.2 for QTI 3.0, each item a resource with its
///   files and dependencies, the test depending on its items.
///
/// Deterministic: a `StoredZip` of generated text.
public enum QTIExporter: BundleExporter {
    public static let format = "qti"
    public static let fileExtension = "qti.zip"
    public static let summary = "a QTI 3.0 package: an item a question (scored, with feedback), reading passages as stimuli, and a test"

    static let namespace = "http://www.imsglobal.org/xsd/imsqtiasi_v3p0"
    static let schema = "https://purl.imsglobal.org/spec/qti/v3p0/schema/xsd/imsqti_asiv3p0_v1p0.xsd"

    struct Resource {
        var identifier: String
        var type: String
        var href: String
        var files: [String]
        var dependencies: [String]
    }

    static func export(questions: [BundleQuestion], passages: [Passage], bundle: OpenBundle) throws -> Data {
        let manifest = bundle.manifest
        let language = manifest.language
        guard !questions.isEmpty else { throw PackageError("the bundle has no questions to write as QTI items") }
        let label = BundleContent.Labels(language: language)

        var files: [String: Data] = [:]
        var resources: [Resource] = []
        // Reading passages, once each.
        var stimuli: [String: String] = [:]
        for passage in passages {
            let id = passage.id
            let key = BundleContent.identifier("passage-" + id)
            let path = "stimuli/\(key).xml"
            var body = BundleContent.fragment(passage.text, language: language)
            if let xhtmlPath = passage.xhtmlPath, let xhtml = bundle.data(xhtmlPath) {
                body = BundleContent.body(ofDocument: xhtml)
            }
            files[path] = Data(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <qti-assessment-stimulus xmlns="\(namespace)" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
                  xsi:schemaLocation="\(namespace) \(schema)" identifier="\(key)" title="\(BundleContent.xmlEscaped(label("Passage", "نص")) + " " + BundleContent.xmlEscaped(id))" xml:lang="\(BundleContent.xmlEscaped(language))">
                  <qti-stimulus-body>
                <div\(direction(language))>\(body)</div>
                  </qti-stimulus-body>
                </qti-assessment-stimulus>

                """.utf8)
            stimuli[id] = key
            resources.append(Resource(identifier: key, type: "imsqti_stimulus_xmlv3p0", href: path, files: [path], dependencies: []))
        }

        var sections: [(title: String, refs: [(String, String)])] = []
        var used: Set<String> = []
        for q in questions {
            var key = BundleContent.identifier(q.id)
            while !used.insert(key).inserted { key += "_" }
            let path = "items/\(key).xml"
            var itemFiles = [path]
            var head = ""
            var dependencies: [String] = []
            if let passage = q.passage, let stimulus = stimuli[passage] {
                head += "  <qti-assessment-stimulus-ref identifier=\"\(stimulus)\" href=\"../stimuli/\(stimulus).xml\"/>\n"
                dependencies.append(stimulus)
            }
            var figure = ""
            if let figureInfo = q.figure, let svg = bundle.data(figureInfo.path) {
                let svgPath = figureInfo.path
                files[svgPath] = svg
                itemFiles.append(svgPath)
                figure = "<p><img src=\"../\(BundleContent.xmlEscaped(svgPath))\" alt=\"\(BundleContent.xmlEscaped(figureInfo.alt))\"/></p>\n"
            }
            let title = q.titledWithTopic ? [label(q.heading), q.topic].filter { !$0.isEmpty }.joined(separator: " — ") : label(q.heading)
            files[path] = Data(item(q, identifier: key, title: title, head: head, figure: figure, language: language, label: label).utf8)
            resources.append(Resource(identifier: key, type: "imsqti_item_xmlv3p0", href: path, files: itemFiles, dependencies: dependencies))
            let sectionTitle = q.subject.isEmpty ? q.topic : q.subject + " › " + q.topic
            if sections.last?.title != sectionTitle { sections.append((sectionTitle, [])) }
            sections[sections.count - 1].refs.append((key, path))
        }

        let testID = BundleContent.identifier("test-\(manifest.id)")
        var test = """
            <?xml version="1.0" encoding="UTF-8"?>
            <qti-assessment-test xmlns="\(namespace)" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
              xsi:schemaLocation="\(namespace) \(schema)" identifier="\(testID)" title="\(BundleContent.xmlEscaped(manifest.title))">
              <qti-outcome-declaration identifier="SCORE" cardinality="single" base-type="float">
                <qti-default-value><qti-value>0</qti-value></qti-default-value>
              </qti-outcome-declaration>
              <qti-test-part identifier="part-1" navigation-mode="nonlinear" submission-mode="individual">

            """
        for (index, section) in sections.enumerated() {
            test += "    <qti-assessment-section identifier=\"section-\(index + 1)\" title=\"\(BundleContent.xmlEscaped(section.title))\" visible=\"true\">\n"
            for (key, path) in section.refs { test += "      <qti-assessment-item-ref identifier=\"\(key)\" href=\"\(path)\"/>\n" }
            test += "    </qti-assessment-section>\n"
        }
        test += """
              </qti-test-part>
              <qti-outcome-processing>
                <qti-set-outcome-value identifier="SCORE">
                  <qti-sum><qti-test-variables variable-identifier="SCORE"/></qti-sum>
                </qti-set-outcome-value>
              </qti-outcome-processing>
            </qti-assessment-test>

            """
        files["assessment-test.xml"] = Data(test.utf8)
        let itemKeys = resources.filter { $0.type == "imsqti_item_xmlv3p0" }.map(\.identifier)
        resources.insert(Resource(identifier: testID, type: "imsqti_test_xmlv3p0", href: "assessment-test.xml", files: ["assessment-test.xml"], dependencies: itemKeys), at: 0)

        var manifestXML = """
            <?xml version="1.0" encoding="UTF-8"?>
            <manifest xmlns="http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
              xsi:schemaLocation="http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1 https://purl.imsglobal.org/spec/qti/v3p0/schema/xsd/imsqtiv3p0_imscpv1p2_v1p0.xsd"
              identifier="\(BundleContent.identifier("lectern-\(manifest.id)-\(manifest.version)"))">
              <metadata>
                <schema>QTI Package</schema>
                <schemaversion>3.0.0</schemaversion>
              </metadata>
              <organizations/>
              <resources>

            """
        for resource in resources {
            manifestXML += "    <resource identifier=\"\(resource.identifier)\" type=\"\(resource.type)\" href=\"\(BundleContent.xmlEscaped(resource.href))\">\n"
            for file in resource.files { manifestXML += "      <file href=\"\(BundleContent.xmlEscaped(file))\"/>\n" }
            for dependency in resource.dependencies { manifestXML += "      <dependency identifierref=\"\(dependency)\"/>\n" }
            manifestXML += "    </resource>\n"
        }
        manifestXML += "  </resources>\n</manifest>\n"
        files["imsmanifest.xml"] = Data(manifestXML.utf8)
        return StoredZip.write(files)
    }

    static func direction(_ language: String) -> String {
        LanguageDirection.isRightToLeft(language) ? " dir=\"rtl\"" : ""
    }

    /// One `qti-assessment-item`, its children in the order the schema requires: response and
    /// outcome declarations, stimulus references, the body, response processing, modal feedback.
    static func item(
        _ q: BundleQuestion, identifier: String, title: String, head: String, figure: String, language: String, label: BundleContent.Labels
    ) -> String {
        let options = q.options
        let letters = options.indices.map { $0 < 26 ? String(UnicodeScalar(UInt8(65 + $0))) : "C\($0 + 1)" }
        let keys = options.indices.filter { options[$0].correct }.map { letters[$0] }
        let explanation = BundleContent.fragment(q.explanation, language: language)
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <qti-assessment-item xmlns="\(namespace)" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
              xsi:schemaLocation="\(namespace) \(schema)"
              identifier="\(identifier)" title="\(BundleContent.xmlEscaped(title))" adaptive="false" time-dependent="false" xml:lang="\(BundleContent.xmlEscaped(language))">

            """
        if options.isEmpty {
            xml += "  <qti-response-declaration identifier=\"RESPONSE\" cardinality=\"single\" base-type=\"string\"/>\n"
            xml += "  <qti-outcome-declaration identifier=\"SCORE\" cardinality=\"single\" base-type=\"float\" external-scored=\"human\" normal-maximum=\"1\">\n"
            xml += "    <qti-default-value><qti-value>0</qti-value></qti-default-value>\n  </qti-outcome-declaration>\n"
            xml += head
            xml += "  <qti-item-body>\n<div\(direction(language))>\n" + figure + BundleContent.prompt(q, language: language) + "\n"
            xml += "<qti-extended-text-interaction response-identifier=\"RESPONSE\" expected-lines=\"6\"/>\n"
            if let reference = q.referenceAnswer, !reference.isEmpty {
                xml += "<qti-rubric-block use=\"scoring\" view=\"scorer\"><qti-content-body>\n<p><strong>\(label("Reference answer", "الإجابة النموذجية"))</strong></p>\n"
                xml += BundleContent.fragment(reference, language: language) + "\n" + explanation + "\n</qti-content-body></qti-rubric-block>\n"
            }
            xml += "</div>\n  </qti-item-body>\n</qti-assessment-item>\n"
            return xml
        }
        let multiple = keys.count > 1
        xml += "  <qti-response-declaration identifier=\"RESPONSE\" cardinality=\"\(multiple ? "multiple" : "single")\" base-type=\"identifier\">\n"
        xml += "    <qti-correct-response>" + keys.map { "<qti-value>\($0)</qti-value>" }.joined() + "</qti-correct-response>\n"
        xml += "  </qti-response-declaration>\n"
        xml += "  <qti-outcome-declaration identifier=\"SCORE\" cardinality=\"single\" base-type=\"float\" normal-maximum=\"1\">\n"
        xml += "    <qti-default-value><qti-value>0</qti-value></qti-default-value>\n  </qti-outcome-declaration>\n"
        xml += "  <qti-outcome-declaration identifier=\"FEEDBACK\" cardinality=\"\(multiple ? "multiple" : "single")\" base-type=\"identifier\"/>\n"
        xml += head
        xml += "  <qti-item-body>\n<div\(direction(language))>\n" + figure + BundleContent.prompt(q, language: language) + "\n"
        xml += "<qti-choice-interaction response-identifier=\"RESPONSE\" shuffle=\"false\" max-choices=\"\(multiple ? 0 : 1)\">\n"
        for (index, option) in options.enumerated() {
            let text = BundleContent.inline(BundleContent.fragment(option.text, language: language))
            xml += "  <qti-simple-choice identifier=\"\(letters[index])\">\(text)</qti-simple-choice>\n"
        }
        xml += "</qti-choice-interaction>\n</div>\n  </qti-item-body>\n"
        xml += """
              <qti-response-processing>
                <qti-response-condition>
                  <qti-response-if>
                    <qti-match><qti-variable identifier="RESPONSE"/><qti-correct identifier="RESPONSE"/></qti-match>
                    <qti-set-outcome-value identifier="SCORE"><qti-base-value base-type="float">1</qti-base-value></qti-set-outcome-value>
                  </qti-response-if>
                  <qti-response-else>
                    <qti-set-outcome-value identifier="SCORE"><qti-base-value base-type="float">0</qti-base-value></qti-set-outcome-value>
                  </qti-response-else>
                </qti-response-condition>
                <qti-set-outcome-value identifier="FEEDBACK"><qti-variable identifier="RESPONSE"/></qti-set-outcome-value>
              </qti-response-processing>

            """
        for (index, option) in options.enumerated() {
            let correct = option.correct
            let verdict = label.verdict(correct)
            xml += "  <qti-modal-feedback outcome-identifier=\"FEEDBACK\" identifier=\"\(letters[index])\" show-hide=\"show\">"
            xml += "<qti-content-body><div\(direction(language))>\n<p><strong>\(verdict)</strong></p>\n"
            xml += BundleContent.fragment(option.feedback, language: language) + "\n" + explanation + "\n</div></qti-content-body></qti-modal-feedback>\n"
        }
        return xml + "</qti-assessment-item>\n"
    }
}
