import Foundation

enum Paths {
    /// The package root of the real checkout (symlinks resolved, so a development package that
    /// links this directory finds the same place).
    static var packageRoot: URL {
        let file = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        return file.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// The project's own copies of the external TeX corpora (provenance in Fixtures/SOURCES.md).
    static var corpora: URL {
        packageRoot.appendingPathComponent("Tests/TeXMathTests/Fixtures/corpora")
    }

    /// The MathML Core schema, the project's own copy (see Fixtures/SOURCES.md).
    static var schema: URL {
        packageRoot.appendingPathComponent("Tests/TeXMathTests/Fixtures/mathml4-core.rng")
    }
}

/// One line of a JSONL corpus.
struct CorpusCase: Decodable {
    var id: String
    var tex: String
}

func loadJSONL<T: Decodable>(_ url: URL, as type: T.Type) throws -> [T] {
    let text = try String(contentsOf: url, encoding: .utf8)
    let decoder = JSONDecoder()
    return try text.split(separator: "\n").filter { !$0.isEmpty }.map {
        try decoder.decode(T.self, from: Data($0.utf8))
    }
}
