import Foundation
import LecternCore

/// One format on the way out (DESIGN.md, "the two seams"): writes one file from a verified
/// bundle's typed content. Which kinds it takes, and how it reads each, is the kinds' to say
/// (`BundleKind.exporters`); `lectern export --format` picks it from `Exporters.all`. An exporter
/// never calls a model.
public protocol BundleExporter {
    /// The `--format` value, e.g. `epub`.
    static var format: String { get }
    /// The written file's extension, unique among the exporters (`qti.zip`, `scorm.zip`,
    /// `cards.tsv`), so that exports of one bundle in several formats never share a name.
    static var fileExtension: String { get }
    /// One line for `--help`.
    static var summary: String { get }
}

public enum Exporters {
    public static let all: [any BundleExporter.Type] = [
        EPUBExporter.self, AnkiExporter.self, QTIExporter.self, CommonCartridgeExporter.self, SCORMExporter.self, CSVExporter.self, TSVExporter.self, CardsTSVExporter.self, CardsCSVExporter.self,
        MoodleXMLExporter.self,
        QuotesJSONExporter.self,
    ]

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

    /// Verifies `bundle`, then exports it with the exporter of `format`, as its kind reads it:
    /// the file name it suggests (`<id>-<version>.<extension>`) and its bytes. A format the
    /// bundle's kind does not take is refused with the ones it does.
    public static func export(_ bundle: URL, format: String, kinds: BundleKinds = .builtIn) throws -> (fileName: String, data: Data) {
        guard let exporter = exporter(for: format) else {
            throw PackageError("there is no '\(format)' exporter; formats: \(all.map { $0.format }.joined(separator: ", "))")
        }
        let opened = try OpenBundle.verified(bundle)
        let kind = try kinds.reader(for: opened.manifest)
        let data = try export(kind, opened, format: format)
        return ("\(opened.manifest.id)-\(opened.manifest.version).\(exporter.fileExtension)", data)
    }

    static func export<Kind: BundleKind>(_ kind: Kind.Type, _ bundle: OpenBundle, format: String) throws -> Data {
        guard let entry = Kind.exporters.first(where: { $0.exporter.format == format }) else {
            throw PackageError(
                "a bundle of kind \(Kind.kind) does not export as \(format); it exports as " + Kind.exporters.map { $0.exporter.format }.joined(separator: ", "))
        }
        return try entry.write(try Kind.read(bundle), bundle)
    }
}
