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
        #expect(FileManager.default.fileExists(atPath: chromium.path), "Debian's chromium is installed by make test (make test-deps)")
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
                "--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files", "--virtual-time-budget=60000", "--enable-logging=stderr", "--v=0", "--dump-dom",
                site.appendingPathComponent("harness.html").absoluteString,
            ], in: dir.root, environment: [:], executable: chromium)
        let json = try #require(browser.stdout.firstMatch(of: /<pre id="out">(.*?)<\/pre>/)?.1, "\(browser.stdout.suffix(500)) \(browser.stderr.suffix(500))")
        let results = try #require(try JSONSerialization.jsonObject(with: Data(String(json).replacingOccurrences(of: "&quot;", with: "\"").utf8)) as? [[String: Any]])
        #expect(results.count == pages.count)
        // Chromium logs every console message of every frame (a script error, a console.error): none.
        #expect(!browser.stderr.contains(":CONSOLE"), "\(browser.stderr.split(separator: "\n").filter { $0.contains(":CONSOLE") })")
        #expect(results.allSatisfy { ($0["sheets"] as? Int ?? 0) >= 1 && ($0["title"] as? Int ?? 0) > 0 }, "\(results)")
        #expect(results.allSatisfy { ($0["empty"] as? Int) == 0 }, "formulas without a size: \(results.filter { ($0["empty"] as? Int) != 0 })")
        #expect(results.map { $0["math"] as? Int ?? 0 }.reduce(0, +) > 50, "the lectures' formulas were measured")
    }

    /// `lectern preview --serve`: the site over HTTP on loopback, every page reachable from the
    /// index answering 200 with its media type; nothing outside the site, no hidden file, no
    /// method but GET and HEAD.
    @Test func serveAnswersThePagesAndNothingElse() async throws {
        let dir = try Directory()
        let process = Process()
        process.executableURL = CLITests.binary
        process.arguments = ["preview", Self.golden.path, "--output", dir.root.appendingPathComponent("site").path, "--serve", "--port", "0"]
        process.currentDirectoryURL = dir.root
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { process.terminate(); process.waitUntilExit() }
        // The first line names the address.
        let line: String = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                var bytes = Data()
                while !bytes.contains(10) {
                    let chunk = out.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    bytes += chunk
                }
                continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
            }
        }
        let url = try #require(line.firstMatch(of: /serving (http:\/\/127\.0\.0\.1:\d+)\/index\.xhtml/)?.1, "\(line)")
        let script = """
            import re, sys, urllib.request, urllib.error, http.client
            base = sys.argv[1]
            def get(path, method='GET'):
                request = urllib.request.Request(base + path, method=method)
                try:
                    with urllib.request.urlopen(request) as r: return r.status, r.headers.get('Content-Type'), r.read()
                except urllib.error.HTTPError as e: return e.code, e.headers.get('Content-Type'), b''
            seen, queue = set(), ['/index.xhtml']
            while queue:
                page = queue.pop()
                if page in seen: continue
                seen.add(page)
                status, kind, body = get(page)
                assert status == 200 and kind.startswith('application/xhtml+xml'), (page, status, kind)
                folder = page.rsplit('/', 1)[0]
                for href in re.findall(r'href="([^"#:]+)"', body.decode()):
                    parts = (folder + '/' + href).split('/')
                    path = []
                    for p in parts:
                        if p == '..': path.pop()
                        elif p not in ('', '.'): path.append(p)
                    target = '/' + '/'.join(path)
                    if target.endswith('.xhtml'): queue.append(target)
                    else: assert get(target)[0] == 200, target
            assert get('/')[0] == 200 and get('/lectern.css')[1].startswith('text/css')
            refused = ['/../manifest.json', '/%2e%2e/%2e%2e/etc/passwd', '/.lectern-preview', '/lectures', '/nothing.xhtml', '/lectures/..%2f..%2fetc%2fpasswd']
            for path in refused:
                connection = http.client.HTTPConnection(base.split('//')[1])
                connection.request('GET', path)
                assert connection.getresponse().status == 404, path
            assert get('/index.xhtml', 'POST')[0] == 405
            status, kind, body = get('/index.xhtml', 'HEAD')
            assert status == 200 and body == b''
            print(len(seen))
            """
        let checked = try await CLITests.external(["-c", script, String(url)], in: dir.root, executable: URL(fileURLWithPath: "/usr/bin/python3"))
        #expect(checked.status == 0 && checked.stdout == "10\n", "index, tone preview, 4 lectures, 4 question pages: \(checked)")
        // A port that is taken is refused with the reason.
        let port = String(String(url).split(separator: ":").last!)
        let taken = try await CLITests.lectern(["preview", Self.golden.path, "--output", "other", "--serve", "--port", port], in: dir.root)
        #expect(taken.status == 2 && taken.stderr.contains("cannot listen on 127.0.0.1:\(port)"), "\(taken)")
    }
}
