import CLecternSystem
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `lectern preview --serve`: the preview site over HTTP on loopback, for browsers that will not
/// run a page's script from `file://` and for phones on an emulator's host loopback. GET and
/// HEAD of files inside the site only (a path that leaves it, a hidden file, a link pointing out
/// is a 404), with the right media types (`application/xhtml+xml` for the XHTML pages, so that
/// MathML and XHTML parsing apply), `no-store` so a rebuilt preview shows at once. Served by a
/// ``LoopbackHTTPServer``: loopback `Host` names only, a request head within `idleTimeout`.
public final class PreviewServer: Sendable {
    let root: URL
    let server: LoopbackHTTPServer

    public typealias Failure = LoopbackHTTPServer.Failure

    public var port: Int { server.port }

    /// Listens on 127.0.0.1:`port` (0 picks a free one) and serves `root`.
    public init(root: URL, port requested: Int, idleTimeout: Duration = .seconds(10)) throws {
        let root = root.standardizedFileURL.resolvingSymlinksInPath()
        self.root = root
        server = try LoopbackHTTPServer(port: requested, idleTimeout: idleTimeout, maxBodyBytes: 0) { request in
            PreviewServer.answer(request, root: root)
        }
    }

    /// Accepts connections until the process ends.
    public func serveForever() -> Never { server.serveForever() }

    /// The answer to a request for a file of the site at `root`.
    public static func answer(_ request: LoopbackHTTPServer.Request, root: URL) -> LoopbackHTTPServer.Response {
        guard request.method == "GET" || request.method == "HEAD" else { return .text(405, "GET or HEAD only") }
        guard let file = resolve(request.target, root: root), let data = FileManager.default.contents(atPath: file.path) else {
            return .text(404, "not found")
        }
        return LoopbackHTTPServer.Response(status: 200, type: mediaTypes[file.pathExtension.lowercased()] ?? "application/octet-stream", body: data)
    }

    public static let mediaTypes: [String: String] = [
        "xhtml": "application/xhtml+xml; charset=utf-8", "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "json": "application/json", "svg": "image/svg+xml", "png": "image/png", "jpg": "image/jpeg",
        "jpeg": "image/jpeg", "webp": "image/webp", "mp3": "audio/mpeg", "ogg": "audio/ogg", "opus": "audio/ogg", "wav": "audio/wav",
        "m4a": "audio/mp4", "txt": "text/plain; charset=utf-8", "md": "text/markdown; charset=utf-8",
    ]

    /// The file a request target names inside the site, or nil: percent-decoded, query and
    /// fragment dropped, `/` as index.xhtml; no `..`, no hidden files, symbolic links resolved and
    /// required to stay inside.
    static func resolve(_ target: String, root: URL) -> URL? {
        guard target.hasPrefix("/") else { return nil }
        let path = String(target.prefix { $0 != "?" && $0 != "#" })
        guard let decoded = path.removingPercentEncoding, !decoded.contains("\0"), !decoded.contains("\\") else { return nil }
        let parts = decoded.split(separator: "/", omittingEmptySubsequences: true)
        guard !parts.contains(where: { $0 == ".." || $0 == "." || $0.hasPrefix(".") }) else { return nil }
        var url = root
        for part in parts { url.appendPathComponent(String(part)) }
        if parts.isEmpty || decoded.hasSuffix("/") { url.appendPathComponent("index.xhtml") }
        let real = url.resolvingSymlinksInPath().standardizedFileURL
        guard real.path.hasPrefix(root.path + "/") else { return nil }
        var directory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: real.path, isDirectory: &directory), !directory.boolValue else { return nil }
        return real
    }

}
