internal import CCmarkGFM

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// cmark-gfm with the GFM extensions Lectern uses, parsed safely from many tasks at once.
enum CMarkParser {
    /// Extension node types, known only after the core extensions are registered.
    struct Registry: @unchecked Sendable {
        // @unchecked: the extension pointers refer to cmark-gfm's global registry objects, which are
        // created once (inside `shared`'s initializer) and never mutated or freed afterwards.
        let extensions: [OpaquePointer]
        let table: cmark_node_type
        let tableRow: cmark_node_type
        let tableCell: cmark_node_type
        let strikethrough: cmark_node_type
    }

    /// Registered once: `cmark_gfm_core_extensions_ensure_registered` itself is not thread-safe,
    /// and Swift runs a `static let` initializer exactly once.
    static let registry: Registry = {
        cmark_gfm_core_extensions_ensure_registered()
        var extensions: [OpaquePointer] = []
        for name in ["table", "strikethrough", "autolink", "tagfilter"] {
            if let ext = cmark_find_syntax_extension(name) { extensions.append(ext) }
        }
        // Learn the extension node types by parsing a probe document.
        var types: [String: cmark_node_type] = [:]
        let probe = "|a|\n|-|\n|b|\n\n~~s~~\n"
        if let parser = cmark_parser_new(CMARK_OPT_DEFAULT) {
            for ext in extensions { cmark_parser_attach_syntax_extension(parser, ext) }
            cmark_parser_feed(parser, probe, probe.utf8.count)
            if let doc = cmark_parser_finish(parser) {
                if let iter = cmark_iter_new(doc) {
                    while cmark_iter_next(iter) != CMARK_EVENT_DONE {
                        guard let node = cmark_iter_get_node(iter), let name = cmark_node_get_type_string(node)
                        else { continue }
                        types[String(cString: name)] = cmark_node_get_type(node)
                    }
                    cmark_iter_free(iter)
                }
                cmark_node_free(doc)
            }
            cmark_parser_free(parser)
        }
        return Registry(
            extensions: extensions,
            table: types["table"] ?? CMARK_NODE_NONE,
            tableRow: types["table_row"] ?? CMARK_NODE_NONE,
            tableCell: types["table_cell"] ?? CMARK_NODE_NONE,
            strikethrough: types["strikethrough"] ?? CMARK_NODE_NONE)
    }()

    /// cmark-gfm 0.29.0.gfm.6 adds and removes the extensions' special characters in a global table
    /// around every inline parse (github/cmark-gfm#176), so parses must not overlap.
    private static let lock = ParseLock()

    /// Options: safe mode (no raw HTML: CMARK_OPT_UNSAFE is off), UTF-8 validation.
    static let options = CMARK_OPT_VALIDATE_UTF8

    /// Parses `markdown`; the caller frees the result with `cmark_node_free`.
    static func parse(_ markdown: [UInt8]) -> OpaquePointer? {
        let registry = self.registry
        guard let parser = cmark_parser_new(options) else { return nil }
        defer { cmark_parser_free(parser) }
        for ext in registry.extensions { cmark_parser_attach_syntax_extension(parser, ext) }
        return lock.withLock {
            markdown.withUnsafeBufferPointer { bytes -> OpaquePointer? in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    if let base = chars.baseAddress { cmark_parser_feed(parser, base, chars.count) }
                }
                return cmark_parser_finish(parser)
            }
        }
    }
}

/// A plain pthread mutex (Foundation's NSLock would bring ICU headers that clash with libxml2's).
final class ParseLock: @unchecked Sendable {
    // @unchecked: the mutex is heap-allocated once, never moved, and only touched through
    // pthread_mutex_lock/unlock, which are thread-safe by definition.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
