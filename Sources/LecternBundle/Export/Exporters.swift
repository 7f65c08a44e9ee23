import Foundation
import LecternCore

/// One format on the way out (DESIGN.md, "the two seams"): reads a verified bundle and writes
/// one file. `lectern export --format` picks it from `Exporters.all`. An exporter never calls a model.
public protocol BundleExporter {
    /// The `--format` value, e.g. `epub`.
    static var format: String { get }
    /// The written file's extension.
    static var fileExtension: String { get }
    /// One line for `--help`.
    static var summary: String { get }
    /// The exported file of the verified bundle at `bundle`.
    static func export(bundle: URL, manifest: Manifest) throws -> Data
}

public enum Exporters {
    public static let all: [any BundleExporter.Type] = [EPUBExporter.self, CSVExporter.self, TSVExporter.self]

    public static func exporter(for format: String) -> (any BundleExporter.Type)? {
        all.first { $0.format == format }
    }

    /// Verifies `bundle`, then exports it with the exporter of `format`: the file name it suggests
    /// (`<id>-<version>.<extension>`) and its bytes.
    public static func export(_ bundle: URL, format: String) throws -> (fileName: String, data: Data) {
        guard let exporter = exporter(for: format) else {
            throw PackageError("there is no '\(format)' exporter; formats: \(all.map { $0.format }.joined(separator: ", "))")
        }
        let report = try BundleVerifier.verify(bundle)
        guard report.problems.isEmpty else {
            throw PackageError("the bundle does not verify; fix or regenerate it first:\n  " + report.problems.joined(separator: "\n  "))
        }
        let data = try exporter.export(bundle: bundle, manifest: report.manifest)
        return ("\(report.manifest.id)-\(report.manifest.version).\(exporter.fileExtension)", data)
    }
}
