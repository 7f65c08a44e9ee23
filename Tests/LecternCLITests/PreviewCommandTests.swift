import Foundation
import Testing

/// `lectern preview`: every page reachable from the index and every local link resolving; then the
/// math course's site opened in headless Chromium (Debian's), where every formula is laid out
/// with a size and every page has its stylesheet.
struct PreviewCommandTests {
    typealias Directory = CheckCommandTests.Directory
    static let golden = CLITests.repository.appendingPathComponent("Tests/LecternCLITests/Fixtures/golden/python-basics/1.0.0")

    /// Local `href`/`src` targets of every XHTML file of `site`, checked to exist; and the pages
    /// reachable from index.xhtml, following links.
    static func crawl(_ site: URL) throws -> (reachable: Set<String>, pages: Set<String>, broken: [String]) {
        let files = FileManager.default.enumerator(atPath: site.path)?.compactMap { $0 as? String } ?? []
        let pages = Set(files.filter { $0.hasSuffix(".xhtml") })
        var broken: [String] = []
        var links: [String: [String]] = [:]
        for page in pages {
            let text = try String(contentsOf: site.appendingPathComponent(page), encoding: .utf8)
            let base = page.split(separator: "/").dropLast().map(String.init)
            for match in text.matches(of: /(?:href|src)="([^"#:]+)(#[^"]*)?"/) {
                var parts = base
                for part in match.1.split(separator: "/") {
                    if part == ".." { _ = parts.popLast() } else if part != "." { parts.append(String(part)) }
                }
                let target = parts.joined(separator: "/")
                if !FileManager.default.fileExists(atPath: site.appendingPathComponent(target).path) { broken.append("\(page) → \(match.1)") }
                links[page, default: []].append(target)
            }
        }
        var reachable: Set<String> = ["index.xhtml"]
        var queue = ["index.xhtml"]
        while let page = queue.popLast() {
            for target in links[page] ?? [] where target.hasSuffix(".xhtml") && reachable.insert(target).inserted { queue.append(target) }
        }
        return (reachable, pages, broken)
    }

    @Test func everyPageIsReachableAndEveryLinkResolves() async throws {
        let dir = try Directory()
        let made = try await CLITests.lectern(["preview", Self.golden.path], in: dir.root)
        #expect(made.status == 0 && made.stdout.contains("open "), "\(made)")
        let site = dir.root.appendingPathComponent("preview/python-basics-1.0.0")
        let crawl = try Self.crawl(site)
        #expect(crawl.broken.isEmpty, "\(crawl.broken)")
        #expect(crawl.pages.count == 10, "index, tone preview, 4 lectures, 4 question pages: \(crawl.pages.sorted())")
        #expect(crawl.reachable == crawl.pages, "unreachable: \(crawl.pages.subtracting(crawl.reachable).sorted())")
        let questions = try String(contentsOf: site.appendingPathComponent("questions/s01-t01.xhtml"), encoding: .utf8)
        #expect(questions.components(separatedBy: "<details><summary>").count - 1 >= 10, "each option's feedback and the explanations behind a click")
        #expect(questions.contains("✓ Right."))
        // A second preview replaces the first; a folder that is not a preview is left alone.
        #expect(try await CLITests.lectern(["preview", Self.golden.path], in: dir.root).status == 0)
        let other = dir.root.appendingPathComponent("mine")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        let refused = try await CLITests.lectern(["preview", Self.golden.path, "--output", other.path], in: dir.root)
        #expect(refused.status == 2 && refused.stderr.contains("is not a Lectern preview"), "\(refused)")
    }

    @Test func theMathCoursesSiteLaysOutEveryFormulaInChromium() async throws {
        let chromium = URL(fileURLWithPath: "/usr/bin/chromium")
        #expect(FileManager.default.fileExists(atPath: chromium.path), "Debian's chromium is installed by .ci/run")
        let dir = try Directory()
        let bundle = try await ExportCommandTests.replayed("intro-probability", spec: "pipelines/examples/intro-probability.yaml", in: dir.root)
        let site = dir.root.appendingPathComponent("site")
        let made = try await CLITests.lectern(["preview", bundle.path, "--output", site.path], in: dir.root)
        #expect(made.status == 0, "\(made)")
        let crawl = try Self.crawl(site)
        #expect(crawl.broken.isEmpty && crawl.reachable == crawl.pages, "\(crawl.broken) \(crawl.pages.subtracting(crawl.reachable))")
        // A harness page (the test's, not the site's) opens each page in a frame and measures it.
        let pages = crawl.pages.sorted()
        let harness = """
            <!DOCTYPE html><html><body><script>
            const pages = \(String(decoding: try JSONSerialization.data(withJSONObject: pages), as: UTF8.self));
            const results = []; let i = 0;
            function next() {
              if (i >= pages.length) { const pre = document.createElement('pre'); pre.id = 'out'; pre.textContent = JSON.stringify(results); document.body.appendChild(pre); return; }
              const f = document.createElement('iframe'); f.style.width = '900px'; f.style.height = '700px';
              f.onload = () => {
                const d = f.contentDocument;
                const maths = [...d.getElementsByTagNameNS('http://www.w3.org/1998/Math/MathML', 'math')];
                const empty = maths.filter(m => { const r = m.getBoundingClientRect(); return !(r.width > 0 && r.height > 0) && !m.closest('details:not([open])'); });
                results.push({page: pages[i], math: maths.length, empty: empty.length, sheets: d.styleSheets.length, title: d.title.length});
                f.remove(); i++; next();
              };
              f.src = pages[i]; document.body.appendChild(f);
            }
            next();
            </script></body></html>
            """
        try harness.write(to: site.appendingPathComponent("harness.html"), atomically: true, encoding: .utf8)
        let browser = try await CLITests.external(
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files", "--virtual-time-budget=60000", "--dump-dom",
                site.appendingPathComponent("harness.html").absoluteString,
            ], in: dir.root, environment: [:], executable: chromium)
        let json = try #require(browser.stdout.firstMatch(of: /<pre id="out">(.*?)<\/pre>/)?.1, "\(browser.stdout.suffix(500)) \(browser.stderr.suffix(500))")
        let results = try #require(try JSONSerialization.jsonObject(with: Data(String(json).replacingOccurrences(of: "&quot;", with: "\"").utf8)) as? [[String: Any]])
        #expect(results.count == pages.count)
        #expect(results.allSatisfy { ($0["sheets"] as? Int ?? 0) >= 1 && ($0["title"] as? Int ?? 0) > 0 }, "\(results)")
        #expect(results.allSatisfy { ($0["empty"] as? Int) == 0 }, "formulas without a size: \(results.filter { ($0["empty"] as? Int) != 0 })")
        #expect(results.map { $0["math"] as? Int ?? 0 }.reduce(0, +) > 50, "the lectures' formulas were measured")
    }
}
