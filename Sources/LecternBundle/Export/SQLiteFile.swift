import CSQLite
import Foundation

/// A SQLite database written once into a temporary file and read back as bytes: what the Anki
/// export needs (an .apkg carries a collection database). No journal, one transaction, a fixed
/// page size, so the same statements give the same bytes.
final class SQLiteFile {
    private var handle: OpaquePointer?
    let url: URL

    /// SQLITE_TRANSIENT: SQLite copies bound text before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("lectern-\(UUID().uuidString).sqlite")
        guard sqlite3_open_v2(url.path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            handle = nil
            throw Failure(description: "could not create a SQLite database in \(url.deletingLastPathComponent().path): \(message)")
        }
        try execute("PRAGMA page_size = 4096; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN")
    }

    deinit {
        if let handle { sqlite3_close(handle) }
        try? FileManager.default.removeItem(at: url)
    }

    /// Runs `sql` (one or more statements, no parameters).
    func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &error) == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(error)
            throw Failure(description: "SQLite: \(message)")
        }
    }

    enum Value {
        case integer(Int64)
        case text(String)
    }

    /// Runs one statement with `?` parameters, once for every row of `rows`.
    func insert(_ sql: String, rows: [[Value]]) throws {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
            throw Failure(description: "SQLite: \(String(cString: sqlite3_errmsg(handle)))")
        }
        defer { sqlite3_finalize(statement) }
        for row in rows {
            sqlite3_reset(statement)
            for (index, value) in row.enumerated() {
                switch value {
                case .integer(let n): sqlite3_bind_int64(statement, Int32(index + 1), n)
                case .text(let s): sqlite3_bind_text(statement, Int32(index + 1), s, -1, Self.transient)
                }
            }
            guard sqlite3_step(statement) == SQLITE_DONE else {
                throw Failure(description: "SQLite: \(String(cString: sqlite3_errmsg(handle)))")
            }
        }
    }

    /// Commits, closes and returns the database file's bytes.
    func finish() throws -> Data {
        try execute("COMMIT")
        sqlite3_close(handle)
        handle = nil
        return try Data(contentsOf: url)
    }
}
