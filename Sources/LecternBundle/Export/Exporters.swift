import Foundation
import LecternCore

/// One format on the way out (DESIGN.md, "the two seams"): reads a verified bundle and writes
/// one file. `lectern export --format` picks it from `Exporters.all`. An exporter never calls a model.
public protocol BundleExporter {
    /// The `--format` value, e.g. `epub`.
    static var format: String { get }
    /// The written file's extension, unique among the exporters (`qti.zip`, `scorm.zip`,
    /// `cards.tsv`), so that exports of one bundle in several formats never share a name.
    static var fileExtension: String { get }
    /// One line for `--help`.
    static var summary: String { get }
    /// The exported file of the verified bundle at `bundle`.
    static func export(bundle: URL, manifest: Manifest) throws -> Data
}

public enum Exporters {
    public static let all: [any BundleExporter.Type] = [EPUBExporter.self, AnkiExporter.self, QTIExporter.self, CommonCartridgeExporter.self, SCORMExporter.self, CSVExporter.self, TSVExporter.self, CardsTSVExporter.self, CardsCSVExporter.self, MoodleXMLExporter.self]

    /// Control characters (other than tab and line breaks) and U+FFFE/U+FFFF as U+FFFD. A
    /// bundle's text is the model's: a control character where a JSON escape ate a TeX backslash
    /// must not make an XML export unreadable or a spreadsheet cell garbled.
    static func textCharacters(_ text: String) -> String {
        func allowed(_ c: Unicode.Scalar) -> Bool {
            c.value >= 0x20 ? c.value != 0x7F && c.value != 0xFFFE && c.value != 0xFFFF : c == "\t" || c == "\n" || c == "\r"
        }
        guard text.unicodeScalars.contains(where: { !allowed($0) }) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { allowed($0) ? $0 : "\u{FFFD}" }))
    }

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
