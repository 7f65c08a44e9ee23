import Foundation
import LecternCore

/// A SCORM 1.2 package of a course, for any LMS (Moodle, Canvas, Blackboard, SCORM Cloud): one
/// SCO a topic, in the course's order under its subject, holding the lecture as the bundle renders
/// it (XHTML + MathML) and the topic's questions. The learner answers a multiple-choice question
/// by choosing an option, which shows that option's feedback; a free-text question shows its
/// reference answer on request.
///
/// What the LMS records (SCORM 1.2 run-time, through the `API` object it provides): the SCO
/// starts `incomplete`, becomes `completed` once every multiple-choice question has an answer
/// (at once when it has none), with `cmi.core.score.raw` the percentage of questions answered
/// right at the first try (min 0, max 100); the session is committed after each answer and
/// finished when the page is left. Coming back to a completed SCO keeps its status and score
/// until the learner answers again. Without an LMS the pages work as they are.
///
/// `imsmanifest.xml` follows the SCORM 1.2 content packaging profile (IMS CP 1.1.2 with ADL's
/// `adlcp:scormtype`); the package is a deterministic `StoredZip`.
public enum SCORMExporter: BundleExporter {
    public static let format = "scorm"
    public static let fileExtension = "scorm.zip"
    public static let summary = "a SCORM 1.2 package of a course: a SCO a topic (lecture and scored questions)"

    static func export(_ course: Course, questions all: [BundleQuestion], bundle: OpenBundle) throws -> Data {
        let manifest = bundle.manifest
        let language = manifest.language
        let rtl = LanguageDirection.isRightToLeft(language)
        let label = BundleContent.Labels(language: language)
        let questions = Dictionary(grouping: all, by: \.topicID)

        var files: [String: Data] = [:]
        var organization = ""
        var resources = ""
        var topicCount = 0
        for (subjectIndex, subject) in course.subjects.enumerated() {
            var items = ""
            for topic in subject.topics {
                let id = topic.id
                let title = topic.title
                var body = ""
                if let path = topic.lecture?.xhtmlPath, let xhtml = bundle.data(path) {
                    body += "<main class=\"lectern-lecture\">\n" + BundleContent.body(ofDocument: xhtml) + "\n</main>\n"
                }
                let topicQuestions = questions[id] ?? []
                if !topicQuestions.isEmpty {
                    body += "<section class=\"lectern-quiz\">\n<h2>\(label("Check your understanding", "تحقّق من فهمك"))</h2>\n"
                    for q in topicQuestions { body += question(q, language: language, label: label) }
                    body += "</section>\n"
                }
                guard !body.isEmpty else { continue }
                topicCount += 1
                let key = BundleContent.identifier(id.isEmpty ? "topic-\(topicCount)" : id)
                let path = "sco/\(key).html"
                files[path] = Data(page(title: title, language: language, rtl: rtl, body: body).utf8)
                items += "        <item identifier=\"item-\(key)\" identifierref=\"res-\(key)\" isvisible=\"true\">\n"
                items += "          <title>\(BundleContent.xmlEscaped(title))</title>\n        </item>\n"
                resources += "    <resource identifier=\"res-\(key)\" type=\"webcontent\" adlcp:scormtype=\"sco\" href=\"\(path)\">\n"
                resources += "      <file href=\"\(path)\"/>\n      <dependency identifierref=\"shared\"/>\n    </resource>\n"
            }
            guard !items.isEmpty else { continue }
            organization += "      <item identifier=\"subject-\(subjectIndex + 1)\" isvisible=\"true\">\n"
            organization += "        <title>\(BundleContent.xmlEscaped(subject.title))</title>\n" + items + "      </item>\n"
        }
        guard topicCount > 0 else { throw PackageError("the course has no lectures or questions to package") }
        let css = bundle.data("lectern.css") ?? Data()
        files["shared/lectern.css"] = css + Data(quizStylesheet.utf8)
        files["shared/lectern-scorm.js"] = Data(runtime.utf8)
        let id = BundleContent.identifier("lectern-\(manifest.id)-\(manifest.version)")
        files["imsmanifest.xml"] = Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <manifest identifier="\(id)" version="\(BundleContent.xmlEscaped(manifest.version))"
              xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"
              xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2">
              <metadata>
                <schema>ADL SCORM</schema>
                <schemaversion>1.2</schemaversion>
              </metadata>
              <organizations default="course">
                <organization identifier="course">
                  <title>\(BundleContent.xmlEscaped(manifest.title))</title>
            \(organization)    </organization>
              </organizations>
              <resources>
            \(resources)    <resource identifier="shared" type="webcontent" adlcp:scormtype="asset">
                  <file href="shared/lectern.css"/>
                  <file href="shared/lectern-scorm.js"/>
                </resource>
              </resources>
            </manifest>

            """.utf8)
        return StoredZip.write(files)
    }

    static func question(_ q: BundleQuestion, language: String, label: BundleContent.Labels) -> String {
        let heading = label(q.heading)
        let options = q.options
        var html = "<div class=\"lectern-question\"\(options.isEmpty ? "" : " data-scored=\"true\"")>\n<h3>\(BundleContent.xmlEscaped(heading))</h3>\n"
        html += BundleContent.prompt(q, language: language) + "\n"
        if !options.isEmpty {
            html += "<ol type=\"A\" class=\"lectern-options\">\n"
            for option in options {
                let correct = option.correct
                let verdict = label.verdict(correct)
                html += "<li><button type=\"button\" data-correct=\"\(correct)\">"
                html += BundleContent.inline(BundleContent.fragment(option.text, language: language)) + "</button>\n"
                html += "<div class=\"lectern-feedback\" hidden=\"hidden\"><p><strong>\(verdict)</strong></p>"
                html += BundleContent.fragment(option.feedback, language: language) + "</div></li>\n"
            }
            html += "</ol>\n"
        } else if let reference = q.referenceAnswer, !reference.isEmpty {
            html += "<details><summary>\(label("Reference answer", "الإجابة النموذجية"))</summary>\(BundleContent.fragment(reference, language: language))</details>\n"
        }
        if !q.explanation.isEmpty {
            let explanation = q.explanation
            html += "<details class=\"lectern-explanation\"><summary>\(label("Explanation", "الشرح"))</summary>"
            html += BundleContent.fragment(explanation, language: language) + "</details>\n"
        }
        return html + "</div>\n"
    }

    static func page(title: String, language: String, rtl: Bool, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="\(BundleContent.xmlEscaped(language))" dir="\(rtl ? "rtl" : "ltr")">
        <head>
        <meta charset="utf-8"/>
        <meta name="viewport" content="width=device-width, initial-scale=1"/>
        <title>\(BundleContent.xmlEscaped(title))</title>
        <link rel="stylesheet" href="../shared/lectern.css"/>
        <script src="../shared/lectern-scorm.js"></script>
        </head>
        <body>
        \(body)</body>
        </html>

        """
    }

    static let quizStylesheet = """

        /* SCORM quiz */
        .lectern-quiz { max-width: 46em; margin: 2em auto; padding: 0 1em; }
        .lectern-question { border-top: 1px solid #ccc; padding: 0.5em 0 1em; }
        .lectern-options button { font: inherit; text-align: start; background: none; border: 1px solid #999; border-radius: 4px; padding: 0.3em 0.6em; margin: 0.2em 0; cursor: pointer; width: 100%; }
        .lectern-options button[data-chosen="true"][data-correct="true"] { border-color: #2a7; background: #e6f6ec; }
        .lectern-options button[data-chosen="true"][data-correct="false"] { border-color: #c33; background: #fbeaea; }
        .lectern-feedback { margin: 0.2em 0 0.6em; }

        """

    /// The SCORM 1.2 run-time side: find the LMS's `API` (up the frames, then the opener), keep
    /// status and score, commit, finish once.
    static let runtime = """
        // Lectern SCORM 1.2 runtime: status, score and feedback for one SCO.
        (function () {
          "use strict";
          function find(win) {
            for (var depth = 0; win && depth < 10; depth++) {
              try { if (win.API) { return win.API; } } catch (e) { return null; }
              if (!win.parent || win.parent === win) { break; }
              win = win.parent;
            }
            return null;
          }
          var api = find(window) || (window.opener ? find(window.opener) : null);
          var started = false, finished = false;
          function call(name, a, b) {
            if (!api || !started && name !== "LMSInitialize" || finished) { return ""; }
            try { return String(api[name].apply(api, b === undefined ? [a] : [a, b])); } catch (e) { return ""; }
          }
          function finish() {
            if (!started || finished) { return; }
            call("LMSCommit", "");
            call("LMSFinish", "");
            finished = true;
          }
          document.addEventListener("DOMContentLoaded", function () {
            if (api) { started = String(api.LMSInitialize("")) === "true"; }
            var questions = Array.prototype.slice.call(document.querySelectorAll(".lectern-question[data-scored]"));
            var answered = 0, right = 0;
            var completed = call("LMSGetValue", "cmi.core.lesson_status") === "completed";
            function report() {
              if (answered > 0) {
                call("LMSSetValue", "cmi.core.score.min", "0");
                call("LMSSetValue", "cmi.core.score.max", "100");
                call("LMSSetValue", "cmi.core.score.raw", String(Math.round(100 * right / questions.length)));
              }
              var done = answered === questions.length;
              if (done || !completed) { call("LMSSetValue", "cmi.core.lesson_status", done ? "completed" : "incomplete"); }
              completed = completed || done;
              call("LMSCommit", "");
            }
            questions.forEach(function (question) {
              var first = true;
              Array.prototype.forEach.call(question.querySelectorAll(".lectern-options button"), function (button) {
                button.addEventListener("click", function () {
                  button.setAttribute("data-chosen", "true");
                  var feedback = button.parentNode.querySelector(".lectern-feedback");
                  if (feedback) { feedback.hidden = false; }
                  if (!first) { return; }
                  first = false;
                  answered += 1;
                  if (button.getAttribute("data-correct") === "true") { right += 1; }
                  report();
                });
              });
            });
            report();
          });
          window.addEventListener("pagehide", finish);
          window.addEventListener("beforeunload", finish);
        })();

        """
}
