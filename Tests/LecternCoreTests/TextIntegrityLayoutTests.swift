import Foundation
import LecternMarkdown
import Testing

@testable import LecternCore

/// The text-integrity inspector reads code and math as `MarkdownLayout` does (and so as the
/// renderer does): its code blocks, runs and code spans are the layout's. Its own formula scan
/// differs on purpose in one way: it reads a control character that stands for an eaten escape
/// as the backslash it was (`$<tab>imes$` is a formula once repaired). Where no escape was eaten,
/// it finds the layout's formulas — on every text of every committed cassette.
struct TextIntegrityLayoutTests {
    static func strings(_ ranges: [Range<Int>], _ scalars: [Unicode.Scalar]) -> [String] {
        ranges.map { range in
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars[range])
            return String(view)
        }
    }

    @Test func theInspectorReadsWhatTheLayoutReads() async {
        var compared = 0
        var disagreements: [String] = []
        for (index, text) in ProseScanTests.corpus.enumerated() {
            if index % ProseScanTests.yieldEvery == 0 { await Task.yield() }
            guard text.contains("$") || text.contains("\\") || text.contains("`"),
                TextIntegrity.inspect(text).recoveries.isEmpty
            else { continue }
            compared += 1
            let scalars = Array(text.unicodeScalars)
            let zones = TextIntegrity.inlineZones(text)
            let layout = MarkdownLayout(text)
            let bytes = Array(text.utf8)
            let spans = layout.codeSpans.map { String(decoding: bytes[$0], as: UTF8.self) }
            // Adjacent spans are one zone in the inspector.
            var merged: [String] = []
            var lastEnd = -1
            for (range, span) in zip(layout.codeSpans, spans) {
                if range.lowerBound == lastEnd, let last = merged.popLast() { merged.append(last + span) } else { merged.append(span) }
                lastEnd = range.upperBound
            }
            // Compared without white space: the layout's TeX has container prefixes (a list
            // item's indentation) taken out, the inspector reads the lines as they are.
            func squeezed(_ texts: [String]) -> [String] { texts.map { $0.filter { !$0.isWhitespace } } }
            let inspected = (Self.strings(zones.codeSpans, scalars), squeezed(Self.strings(zones.math, scalars)))
            let read = (merged, squeezed(layout.formulas.map(\.tex)))
            if inspected.0 != read.0 || inspected.1 != read.1 {
                let firstMath = (0..<min(inspected.1.count, read.1.count)).first { inspected.1[$0] != read.1[$0] } ?? min(inspected.1.count, read.1.count)
                disagreements.append(
                    "spans \(inspected.0 == read.0 ? "agree" : "\(inspected.0) vs \(read.0)"); formulas \(inspected.1.count) vs \(read.1.count), first differing #\(firstMath): \(inspected.1.dropFirst(firstMath).first ?? "-") vs \(read.1.dropFirst(firstMath).first ?? "-"): \(text.prefix(100).debugDescription)"
                )
            }
        }
        #expect(compared > 300, "\(compared) texts compared")
        #expect(disagreements.isEmpty, "\(disagreements.count) of \(compared):\n\(disagreements.prefix(10).joined(separator: "\n"))")
    }
}
