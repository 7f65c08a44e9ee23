import Foundation
import LecternBundle
import LecternCore
import LecternPipeline

/// `lectern review`'s pages and decisions, without the socket: the list of a bundle's items with
/// where review left each, a page per item with its fields and the Approve, Reject (with a note)
/// and Edit forms, and the handling of a decision — checked against what the page showed, then
/// written to the review file at once (atomically). Plain HTML forms; no script.
final class ReviewSite: @unchecked Sendable {
    // @unchecked: `lock` serializes every read-modify-write of the review file; the rest is constant.
    let seal: ReviewSeal
    let manifest: Manifest
    let reviewFile: URL
    let reviewFileName: String
    let reviewer: String
    /// The preview site's folder, served under /preview/.
    let preview: URL?
    /// What each item stands with, by item id (`BundleKind.reviewContext`).
    let contexts: [String: ReviewContext]
    let now: @Sendable () -> Date
    private let lock = NSLock()
    /// A secret of this server's life, in every form's token: a page on another site cannot
    /// forge a decision (it cannot read a page to learn the token), whatever it knows of the bundle.
    let secret = (0..<4).map { _ in String(UInt64.random(in: .min ... .max), radix: 16) }.joined()

    init(
        seal: ReviewSeal, manifest: Manifest, reviewFile: URL, reviewFileName: String, reviewer: String, preview: URL?,
        contexts: [String: ReviewContext] = [:], now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.contexts = contexts
        self.seal = seal
        self.manifest = manifest
        self.reviewFile = reviewFile
        self.reviewFileName = reviewFileName
        self.reviewer = reviewer
        self.preview = preview
        self.now = now
    }

    /// The review file as it is on disk now (another tab, an editor or `git pull` may have changed it).
    func decisions() throws -> ReviewFile { try ReviewFile.read(reviewFile, displayName: reviewFileName) }

    /// The token a page's form carries: the item's answer and its decision as the page showed
    /// them. A decision posted with another is refused (409): something changed since.
    func token(_ item: ReviewSeal.Item, _ decision: ReviewFile.Decision?) -> String {
        let decided =
            decision.map { d in
                [d.kind.rawValue, d.content, d.note ?? "", d.by, d.at] + d.fields.flatMap { [$0.path, $0.text] }
            } ?? []
        return SHA256Digest.hex(([secret, item.content] + decided).joined(separator: "\u{1F}"))
    }

    // MARK: Answering

    func answer(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response {
        guard let path = request.path else { return .text(400, "bad request") }
        if path.hasPrefix("/preview/"), let preview {
            guard request.method == "GET" || request.method == "HEAD" else { return .text(405, "GET or HEAD only") }
            return PreviewServer.answer(
                LoopbackHTTPServer.Request(method: request.method, target: String(request.target.dropFirst("/preview".count)), headers: [], body: Data()),
                root: preview)
        }
        do {
            switch (request.method, path) {
            case ("GET", "/"), ("HEAD", "/"):
                return page(try index(filter: request.query["state"].flatMap(ReviewStatus.init(rawValue:))))
            case ("GET", "/item"), ("HEAD", "/item"):
                guard let id = request.query["id"], let item = seal.items.first(where: { $0.id == id }) else { return .text(404, "no such item") }
                return page(try itemPage(item, message: request.query["saved"] != nil ? "Saved to \(reviewFileName)." : nil))
            case ("POST", "/decide"):
                // A form posted from another site's page: refused, whatever it carries.
                if let origin = request.header("Origin"), origin != "http://" + (request.header("Host") ?? "") {
                    return .text(403, "decisions are taken only from this server's own pages")
                }
                return try decide(request.form)
            case (_, "/"), (_, "/item"), (_, "/decide"):
                return .text(405, "method not allowed")
            default:
                return .text(404, "not found")
            }
        } catch {
            return page("<h1>The review file cannot be read</h1><pre>\(Self.escape("\(error)"))</pre><p>Fix it and reload.</p>", status: 500)
        }
    }

    /// Records the decision a form posted, if the page it came from is still true.
    func decide(_ form: [String: String]) throws -> LoopbackHTTPServer.Response {
        guard let id = form["item"], let item = seal.items.first(where: { $0.id == id }) else { return .text(404, "no such item") }
        guard let action = form["action"] else { return .text(400, "no action") }
        lock.lock()
        defer { lock.unlock() }
        var file = try decisions()
        guard form["token"] == token(item, file[id]) else {
            return page(
                "<h1>Not saved: \(Self.escape(id)) changed</h1><p>The item or its decision changed since this page was loaded (another tab, "
                    + "an edit of \(Self.escape(reviewFileName)), or a run in between). <a href=\"/item?id=\(Self.query(id))\">Reload it</a> and decide again.</p>",
                status: 409)
        }
        let at = ISO8601DateFormatter().string(from: now())
        switch action {
        case "approve" where item.state == .failed, "reject" where item.state == .failed:
            return page(try itemPage(item, message: "This item failed: no answer of the model's to \(action); write it with Edit.", isError: true), status: 422)
        case "approve":
            file.record(
                ReviewFile.Decision(item: id, kind: .approve, content: item.content, basis: item.basis, answer: item.answer, by: reviewer, at: at)
                    .replacing(file[id]))
        case "reject":
            // A browser sends a textarea's line breaks as CR LF; the note goes into a repair message as LF.
            let note = (form["note"] ?? "").replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            guard !note.isEmpty else {
                return page(try itemPage(item, message: "A rejection needs a note: what is wrong, for the model to mend.", isError: true), status: 422)
            }
            // A rejection of a new answer keeps the ones before it (`earlier`): each stays refused.
            file.record(ReviewFile.Decision(item: id, kind: .reject, content: item.content, note: note, by: reviewer, at: at).replacing(file[id]))
        case "edit":
            // The base is the model's answer: an item edited before is edited again from it.
            let base = file[id].flatMap { $0.kind == .edit ? $0.answer : nil } ?? item.answer
            var fields: [(path: String, text: String)] = []
            for (path, original) in AnswerFields.fields(of: base).map({ ($0.path, $0.text) }) {
                guard let text = form["field:" + path] else { continue }
                let normalized = text.replacingOccurrences(of: "\r\n", with: "\n")
                if normalized != original { fields.append((path, normalized)) }
            }
            guard !fields.isEmpty else { return page(try itemPage(item, message: "Nothing was changed: no edit recorded.", isError: true), status: 422) }
            let content = base == item.answer ? item.content : ReviewFile.contentHash(base)
            do {
                _ = try AnswerFields.apply(fields, to: base)
            } catch {
                return page(try itemPage(item, message: "The edit cannot be applied: \(error)", isError: true), status: 422)
            }
            // Why the text was changed, kept with the decision (the form offers the rejection's note it answers).
            let note = (form["note"] ?? "").replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            file.record(
                ReviewFile.Decision(
                    item: id, kind: .edit, content: content, basis: item.basis, answer: base, fields: fields, note: note.isEmpty ? nil : note,
                    by: reviewer, at: at
                ).replacing(file[id]))
        case "clear":
            file.remove(id)
        default:
            return .text(400, "unknown action")
        }
        try file.write(to: reviewFile)
        return .seeOther("/item?id=\(Self.query(id))&saved=1")
    }

    // MARK: Pages

    func index(filter: ReviewStatus?) throws -> String {
        let file = try decisions()
        let statuses = seal.items.map { ($0, $0.status(file[$0.id])) }
        var counts: [ReviewStatus: Int] = [:]
        for (_, status) in statuses { counts[status, default: 0] += 1 }
        var html = "<h1>Review: \(Self.escape(manifest.title)) \(Self.escape(manifest.version))</h1>"
        html += "<p>Decisions go to <code>\(Self.escape(reviewFileName))</code> as you make them; the next <code>lectern run</code> applies them. "
        html += "Reviewing as <strong>\(Self.escape(reviewer))</strong>.\(preview != nil ? " <a href=\"/preview/index.xhtml\">The preview</a>." : "")</p>"
        html += "<nav class=\"filters\"><a href=\"/\">all (\(seal.items.count))</a>"
        for status in ReviewStatus.allCases {
            html += " · <a href=\"/?state=\(status.rawValue)\"\(filter == status ? " class=\"current\"" : "")>\(status.rawValue) (\(counts[status] ?? 0))</a>"
        }
        html += "</nav><table><thead><tr><th>item</th><th>stage</th><th>status</th><th>decided</th></tr></thead><tbody>"
        for (item, status) in statuses where filter == nil || filter == status {
            let decision = file[item.id]
            html += "<tr class=\"\(status.rawValue)\"><td><a href=\"/item?id=\(Self.query(item.id))\">\(Self.escape(item.id))</a></td>"
            html += "<td>\(Self.escape(item.stage))</td><td class=\"status\">\(status.rawValue)</td>"
            html += "<td>\(decision.map { Self.escape("\($0.by), \($0.at)") } ?? "")</td></tr>"
        }
        html += "</tbody></table>"
        let unmatched = file.decisions.values.filter { d in !seal.items.contains { $0.id == d.item } }.sorted { $0.item < $1.item }
        if !unmatched.isEmpty {
            html += "<h2>Decisions on items this bundle does not have</h2><ul>"
            for d in unmatched { html += "<li>\(Self.escape(d.item)): \(d.kind.rawValue) (\(Self.escape(d.by)))</li>" }
            html += "</ul>"
        }
        return html
    }

    func itemPage(_ item: ReviewSeal.Item, message: String? = nil, isError: Bool = false) throws -> String {
        let file = try decisions()
        let decision = file[item.id]
        let status = item.status(decision)
        let token = self.token(item, decision)
        var html = "<p><a href=\"/\">All items</a> · <a href=\"/?state=pending\">pending</a></p>"
        html += "<h1>\(Self.escape(item.id))</h1>"
        if let message { html += "<p class=\"\(isError ? "error" : "saved")\" role=\"status\">\(Self.escape(message))</p>" }
        html += "<p>Stage <code>\(Self.escape(item.stage))</code>. Status: <strong class=\"status\">\(status.rawValue)</strong>"
        if let decision {
            html += " — \(decision.kind.rawValue) by \(Self.escape(decision.by)) at \(Self.escape(decision.at))"
            if let note = decision.note { html += ": <span class=\"note\">“\(Self.escape(note))”</span>" }
        }
        html += ".</p>"
        if let stale = item.stale { html += "<p class=\"error\">At the last run: \(Self.escape(stale)).</p>" }
        let failed = item.state == .failed
        // (A failed item's rejection is among what was wrong with its last answer, below.)
        if let rejected = item.rejected, !failed { html += "<p>This answer replaced one a reviewer rejected: “\(Self.escape(rejected))”.</p>" }
        if status == .stale { html += "<p class=\"error\">The decision was made on another answer than this bundle holds: it is not applied. Decide again.</p>" }
        if failed {
            // Not in the bundle: the model's last answer, refused. A person may write the item from it.
            html +=
                "<p class=\"error\">No answer of the model's passed the checks: this item is not in the bundle. Below is its last answer and what "
                + "was wrong with it. Write the item yourself with Edit: the next run checks your text like any answer, and stops at this "
                + "decision's line in \(Self.escape(reviewFileName)) if it does not pass.</p>"
            if let problems = item.problems, !problems.isEmpty {
                html += "<h2>What was wrong</h2><ul class=\"problems\">" + problems.map { "<li>\(Self.escape($0))</li>" }.joined() + "</ul>"
            }
        }
        let base = decision.flatMap { $0.kind == .edit ? $0.answer : nil } ?? item.answer
        let edited = decision.flatMap { d in d.kind == .edit ? Dictionary(d.fields.map { ($0.path, $0.text) }, uniquingKeysWith: { _, b in b }) : nil } ?? [:]
        let fields = AnswerFields.fields(of: base)
        if let context = contexts[item.id] {
            html += "<h2>What it stands with</h2><dl class=\"context\">"
            for part in context.parts { html += "<dt>\(Self.escape(part.label))</dt><dd><pre>\(Self.escape(part.text))</pre></dd>" }
            html += "</dl>"
            if let page = context.preview, let preview, FileManager.default.fileExists(atPath: preview.appendingPathComponent(String(page.prefix { $0 != "#" })).path) {
                html += "<p><a href=\"/preview/\(Self.escape(page))\">See it in the preview</a></p>"
            }
        }
        html += failed ? "<h2>The model's last answer (refused)</h2><dl class=\"fields\">" : "<h2>The answer</h2><dl class=\"fields\">"
        for field in fields where field.path != "text" || fields.count == 1 {
            html += "<dt>\(Self.escape(field.path))</dt><dd><pre>\(Self.escape(edited[field.path] ?? field.text))</pre></dd>"
        }
        html += "</dl>"
        func form(_ action: String, _ inner: String, _ button: String) -> String {
            "<form method=\"post\" action=\"/decide\" class=\"\(action)\"><input type=\"hidden\" name=\"item\" value=\"\(Self.escape(item.id))\"/>"
                + "<input type=\"hidden\" name=\"token\" value=\"\(token)\"/><input type=\"hidden\" name=\"action\" value=\"\(action)\"/>"
                + inner + "<button type=\"submit\" name=\"do\" value=\"\(action)\">\(button)</button></form>"
        }
        html += "<h2>Decide</h2>"
        // A failed item has no answer to approve, and a rejection would only ask for what the
        // model could not write: a person's edit is what it takes.
        if !failed {
            html += form("approve", "", "Approve")
            html += form("reject", "<label>What is wrong (the model gets this note)<br/><textarea name=\"note\" rows=\"3\" cols=\"80\"></textarea></label><br/>", "Reject")
        }
        var inner = ""
        for field in fields where !(field.path == "text" && fields.count > 1) {
            let rows = min(20, max(2, field.text.count / 80 + field.text.filter { $0 == "\n" }.count + 1))
            inner +=
                "<label>\(Self.escape(field.path))<br/><textarea name=\"field:\(Self.escape(field.path))\" rows=\"\(rows)\" cols=\"80\">"
                + Self.escape(edited[field.path] ?? field.text) + "</textarea></label><br/>"
        }
        // A rejection or an earlier edit of this answer says why it is being changed: offered as the edit's note.
        let why = decision.flatMap { $0.kind == .edit || ($0.kind == .reject && $0.content == item.content) ? $0.note : nil } ?? item.rejected ?? ""
        inner +=
            "<label>Why (kept with the decision; optional)<br/><textarea name=\"note\" rows=\"3\" cols=\"80\">"
            + Self.escape(why) + "</textarea></label><br/>"
        html += form("edit", inner, "Save the edit")
        if decision != nil { html += form("clear", "", "Withdraw the decision") }
        return html
    }

    func page(_ body: String, status: Int = 200) -> LoopbackHTTPServer.Response {
        let html = """
            <!DOCTYPE html>
            <html lang="\(Self.escape(manifest.language))"><head><meta charset="utf-8"/><title>Review: \(Self.escape(manifest.title))</title>
            <style>
            body { font-family: sans-serif; max-width: 60rem; margin: 1rem auto; padding: 0 1rem; }
            table { border-collapse: collapse; width: 100%; } td, th { border-bottom: 1px solid #ddd; padding: .3rem; text-align: start; }
            tr.pending .status { color: #8a5a00; } tr.stale .status, tr.failed .status, .error { color: #b00020; } tr.approved .status, tr.edited .status, .saved { color: #1b6e20; }
            pre { white-space: pre-wrap; background: #f6f6f6; padding: .4rem; } form { margin: .8rem 0; padding: .5rem; border: 1px solid #ddd; }
            nav.filters a.current { font-weight: bold; } textarea { width: 100%; } .note { white-space: pre-line; }
            </style></head><body>\(body)</body></html>
            """
        return LoopbackHTTPServer.Response(status: status, type: "text/html; charset=utf-8", body: Data(html.utf8))
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    static func query(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~/"))) ?? text
    }
}
