import Foundation

/// A geometry figure as the model describes it: data, not a picture. Lectern checks it (the given
/// lengths and angles agree with the coordinates, the points the stem names exist, the labels are
/// unique, the alt text names every label) and draws the SVG itself (`GeometryFigureDrawing`).
/// Tafawoq seed 003, FR-028 (diagrams for geometry questions) and FR-032 (alt text).
public struct GeometryFigure: Codable, Sendable, Hashable {
    public struct Point: Codable, Sendable, Hashable {
        public var label: String
        public var x: Double
        public var y: Double

        public init(label: String, x: Double, y: Double) {
            self.label = label; self.x = x; self.y = y
        }
    }

    /// A length the figure states: the segment `from`–`to` is `value` long.
    public struct Length: Codable, Sendable, Hashable {
        public var from: String
        public var to: String
        public var value: Double
        /// What is written beside the segment ("5 cm", "x"); the value when absent.
        public var label: String?

        public init(from: String, to: String, value: Double, label: String? = nil) {
            self.from = from; self.to = to; self.value = value; self.label = label
        }

        /// What is drawn beside the segment: its label, or the value when it has none.
        public var text: String { label.flatMap(GeometryFigure.nonEmpty) ?? GeometryFigure.number(value) }
    }

    /// An angle mark at `vertex` between the rays to `from` and `to`, stating `degrees` when it
    /// gives a measure.
    public struct Angle: Codable, Sendable, Hashable {
        public var vertex: String
        public var from: String
        public var to: String
        public var degrees: Double?
        /// What is written in the angle ("40°", "x"); the measure when absent.
        public var label: String?

        public init(vertex: String, from: String, to: String, degrees: Double? = nil, label: String? = nil) {
            self.vertex = vertex; self.from = from; self.to = to; self.degrees = degrees; self.label = label
        }

        /// What is written in the angle: its label, or the measure; nil for a bare mark.
        public var text: String? { label.flatMap(GeometryFigure.nonEmpty) ?? degrees.map { GeometryFigure.number($0) + "°" } }
    }

    public struct Circle: Codable, Sendable, Hashable {
        public var center: String
        public var radius: Double
        public var label: String?

        public init(center: String, radius: Double, label: String? = nil) {
            self.center = center; self.radius = radius; self.label = label
        }
    }

    /// The arc of the circle about `center` from `from` to `to`, counter-clockwise; both points
    /// lie on it.
    public struct Arc: Codable, Sendable, Hashable {
        public var center: String
        public var from: String
        public var to: String

        public init(center: String, from: String, to: String) {
            self.center = center; self.from = from; self.to = to
        }
    }

    public var points: [Point]
    /// Pairs of point labels.
    public var segments: [[String]]
    /// Closed shapes, by their vertices in order.
    public var polygons: [[String]]
    public var circles: [Circle]
    public var arcs: [Arc]
    /// `[A, B, C]`: the angle at B, between BA and BC, is right; it gets the square mark.
    public var rightAngles: [[String]]
    public var angles: [Angle]
    public var lengths: [Length]
    /// "Not drawn to scale": the given lengths and angles are not held to the coordinates.
    public var notToScale: Bool

    public init(
        points: [Point], segments: [[String]] = [], polygons: [[String]] = [], circles: [Circle] = [], arcs: [Arc] = [],
        rightAngles: [[String]] = [], angles: [Angle] = [], lengths: [Length] = [], notToScale: Bool = false
    ) {
        self.points = points; self.segments = segments; self.polygons = polygons; self.circles = circles; self.arcs = arcs
        self.rightAngles = rightAngles; self.angles = angles; self.lengths = lengths; self.notToScale = notToScale
    }

    enum CodingKeys: String, CodingKey {
        case points, segments, polygons, circles, arcs, rightAngles = "right_angles", angles, lengths, notToScale = "not_to_scale"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        points = try c.decode([Point].self, forKey: .points)
        segments = try c.decodeIfPresent([[String]].self, forKey: .segments) ?? []
        polygons = try c.decodeIfPresent([[String]].self, forKey: .polygons) ?? []
        circles = try c.decodeIfPresent([Circle].self, forKey: .circles) ?? []
        arcs = try c.decodeIfPresent([Arc].self, forKey: .arcs) ?? []
        rightAngles = try c.decodeIfPresent([[String]].self, forKey: .rightAngles) ?? []
        angles = try c.decodeIfPresent([Angle].self, forKey: .angles) ?? []
        lengths = try c.decodeIfPresent([Length].self, forKey: .lengths) ?? []
        notToScale = try c.decodeIfPresent(Bool.self, forKey: .notToScale) ?? false
    }

    /// The figure with segments written as names read as point pairs: a model writes the segment
    /// AB as ["AB"] or a path as ["AB", "BC"]; each name made of point labels becomes the segments
    /// between them. Anything else is left for `problems` to report.
    public func readingSegmentNames() -> GeometryFigure {
        var copy = self
        copy.segments = segments.flatMap { entry -> [[String]] in
            if entry.count == 2, entry.allSatisfy({ point($0) != nil }) { return [entry] }
            let runs = entry.map(labelRun)
            guard !runs.isEmpty, runs.allSatisfy({ ($0?.count ?? 0) >= 2 }) else { return [entry] }
            return runs.compactMap { $0 }.flatMap { run in zip(run, run.dropFirst()).map { [$0, $1] } }
        }
        return copy
    }

    /// The labels a name such as "AB" or "أ ب" is made of, when every one is a point's.
    func labelRun(_ name: String) -> [String]? {
        let letters = name.filter { !$0.isWhitespace }.map(String.init)
        guard !letters.isEmpty, letters.allSatisfy({ point($0) != nil }) else { return nil }
        return letters
    }

    // MARK: Checks

    /// Relative tolerance for a given length against the coordinates, and degrees for an angle.
    static let lengthTolerance = 0.02
    static let angleTolerance = 1.5

    /// The point a reference names. Labels are compared without surrounding space and with the
    /// Arabic alef forms as one (a model writes أ for a point and ا when it names it again).
    func point(_ label: String) -> Point? {
        let key = Self.labelKey(label)
        return points.first { Self.labelKey($0.label) == key }
    }

    static func labelKey(_ label: String) -> String {
        String(
            String.UnicodeScalarView(
                label.trimmingCharacters(in: .whitespacesAndNewlines).unicodeScalars.map { c in
                    switch c {
                    case "\u{0623}", "\u{0625}", "\u{0622}", "\u{0671}": "\u{0627}"
                    default: c
                    }
                }))
    }

    /// The texts drawn beside segments, in angles and by circles (point labels apart).
    public var drawnLabels: [String] {
        lengths.map { $0.text } + angles.compactMap(\.text) + circles.compactMap { $0.label.flatMap(Self.nonEmpty) }
    }

    /// A label with something in it; an empty one is no label.
    static func nonEmpty(_ label: String) -> String? {
        let trimmed = label.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// What is wrong with the figure for an item whose stem is `stem` and whose alt text is `alt`;
    /// empty when it may be drawn.
    public func problems(stem: String, alt: String) -> [String] {
        var problems = [String]()
        // Points: labelled, unique, finite, apart.
        guard (2...26).contains(points.count) else {
            return ["a figure needs 2 to 26 labelled points; this one has \(points.count)"]
        }
        var seen = Set<String>()
        for point in points {
            let label = point.label.trimmingCharacters(in: .whitespaces)
            if label.isEmpty || label.unicodeScalars.count > 3 {
                problems.append("point label '\(point.label)' must be 1 to 3 characters (A, B, O, A1)")
            }
            if !seen.insert(Self.labelKey(label)).inserted { problems.append("two points are labelled '\(label)': labels must be unique") }
            if !point.x.isFinite || !point.y.isFinite || abs(point.x) > 10_000 || abs(point.y) > 10_000 {
                problems.append("point \(label) has coordinates out of range (each within ±10000)")
            }
        }
        guard problems.isEmpty else { return problems }
        let size = extent
        for (i, a) in points.enumerated() {
            for b in points[(i + 1)...] where hypot(a.x - b.x, a.y - b.y) <= size * 1e-3 {
                problems.append("points \(a.label) and \(b.label) are drawn at the same place")
            }
        }
        // References.
        func missing(_ labels: [String], _ what: String) {
            for label in labels where point(label) == nil {
                problems.append("\(what) names point '\(label)', which the figure does not define")
            }
        }
        for segment in segments {
            if segment.count != 2 { problems.append("a segment must name two points; got \(segment)") } else { missing(segment, "a segment") }
        }
        for polygon in polygons {
            if polygon.count < 3 { problems.append("a polygon needs at least three vertices; got \(polygon)") } else { missing(polygon, "a polygon") }
        }
        for circle in circles {
            missing([circle.center], "a circle")
            if !(circle.radius > 0) || !circle.radius.isFinite { problems.append("the circle about \(circle.center) needs a positive radius") }
        }
        for arc in arcs { missing([arc.center, arc.from, arc.to], "an arc") }
        for right in rightAngles {
            if right.count != 3 { problems.append("a right angle must name three points [A, B, C], the vertex B in the middle; got \(right)") } else { missing(right, "a right angle") }
        }
        for angle in angles { missing([angle.from, angle.vertex, angle.to], "an angle") }
        for length in lengths { missing([length.from, length.to], "a length") }
        guard problems.isEmpty else { return problems }
        // Measures against coordinates.
        for arc in arcs {
            guard let c = point(arc.center), let a = point(arc.from), let b = point(arc.to) else { continue }
            let (ra, rb) = (hypot(a.x - c.x, a.y - c.y), hypot(b.x - c.x, b.y - c.y))
            if abs(ra - rb) > Self.lengthTolerance * max(ra, rb) {
                problems.append("the arc about \(arc.center) from \(arc.from) to \(arc.to): the two points are not the same distance from the center")
            }
        }
        for right in rightAngles {
            guard let degrees = angleDegrees(right[0], right[1], right[2]) else { continue }
            if abs(degrees - 90) > Self.angleTolerance {
                problems.append("angle \(right[0])\(right[1])\(right[2]) is marked right, but the coordinates make it \(Self.number(degrees))°")
            }
        }
        if !notToScale {
            for length in lengths {
                guard let a = point(length.from), let b = point(length.to) else { continue }
                let drawn = hypot(a.x - b.x, a.y - b.y)
                if !(length.value > 0) || abs(drawn - length.value) > Self.lengthTolerance * max(drawn, length.value) {
                    problems.append(
                        "\(length.from)\(length.to) is given as \(Self.number(length.value)), but the coordinates make it \(Self.number(drawn)); "
                            + "place the points so the lengths agree, or set not_to_scale")
                }
            }
            for angle in angles {
                guard let given = angle.degrees, let drawn = angleDegrees(angle.from, angle.vertex, angle.to) else { continue }
                if abs(drawn - given) > Self.angleTolerance {
                    problems.append(
                        "angle \(angle.from)\(angle.vertex)\(angle.to) is given as \(Self.number(given))°, but the coordinates make it "
                            + "\(Self.number(drawn))°; place the points so the angles agree, or set not_to_scale")
                }
            }
        }
        // The stem's points.
        // و is also "and", written apart before a letter name ("أ ب و ب ج"): a point only when the figure has one.
        for label in Self.pointNames(in: stem) where point(label) == nil && label != "و" {
            problems.append("the stem names point \(label), which the figure does not draw")
        }
        // Alt text.
        // Digits in either system, and the Arabic alef forms as one, as labels are compared.
        let altText = Self.labelKey(Self.normalizedDigits(alt))
        if altText.split(whereSeparator: \.isWhitespace).count < 5 {
            problems.append("the figure needs alt text: a description from which the question can be answered without seeing it")
        } else {
            let unnamed =
                points.map(\.label).filter { !Self.mentions(altText, Self.labelKey($0)) }
                + drawnLabels.filter { label in
                    let text = Self.labelKey(Self.normalizedDigits(label))
                    return !altText.contains(text) && !altText.contains(Self.withoutUnit(text))
                }
            if !unnamed.isEmpty {
                problems.append("the alt text must name every label drawn; it leaves out " + unnamed.map { "'\($0)'" }.joined(separator: ", "))
            }
        }
        return problems
    }

    /// The angle at `vertex` between the rays to `a` and `b`, in degrees (0–180).
    func angleDegrees(_ a: String, _ vertex: String, _ b: String) -> Double? {
        guard let p = point(a), let v = point(vertex), let q = point(b) else { return nil }
        let (ux, uy, wx, wy) = (p.x - v.x, p.y - v.y, q.x - v.x, q.y - v.y)
        let lengths = hypot(ux, uy) * hypot(wx, wy)
        guard lengths > 0 else { return nil }
        return acos(max(-1, min(1, (ux * wx + uy * wy) / lengths))) * 180 / .pi
    }

    /// The larger side of the bounding box of the points and circles.
    var extent: Double {
        let box = bounds
        return max(box.maxX - box.minX, box.maxY - box.minY, 1e-9)
    }

    /// The bounding box of the points, the circles and the arcs, in the figure's coordinates.
    var bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        var (minX, minY, maxX, maxY) = (Double.infinity, Double.infinity, -Double.infinity, -Double.infinity)
        func include(_ x: Double, _ y: Double) { (minX, minY, maxX, maxY) = (min(minX, x), min(minY, y), max(maxX, x), max(maxY, y)) }
        for p in points { include(p.x, p.y) }
        for circle in circles {
            guard let c = point(circle.center), circle.radius.isFinite else { continue }
            include(c.x - circle.radius, c.y - circle.radius)
            include(c.x + circle.radius, c.y + circle.radius)
        }
        for arc in arcs {
            for p in arcSamples(arc, count: 48) { include(p.x, p.y) }
        }
        return (minX, minY, maxX, maxY)
    }

    /// Points along an arc (counter-clockwise from `from` to `to`).
    func arcSamples(_ arc: Arc, count: Int) -> [(x: Double, y: Double)] {
        guard let c = point(arc.center), let a = point(arc.from), let b = point(arc.to) else { return [] }
        let radius = hypot(a.x - c.x, a.y - c.y)
        let start = atan2(a.y - c.y, a.x - c.x)
        var sweep = atan2(b.y - c.y, b.x - c.x) - start
        while sweep <= 0 { sweep += 2 * .pi }
        return (0...count).map { step in
            let angle = start + sweep * Double(step) / Double(count)
            return (c.x + radius * cos(angle), c.y + radius * sin(angle))
        }
    }

    // MARK: Text

    /// Point names a stem uses: runs of 2–4 capital Latin letters (AB, ABC, ∠ABC, ABCD), a capital
    /// after "point", "vertex", "angle", "center", ∠ (and their Arabic words), and runs of single
    /// Arabic letters (أ ب ج).
    static func pointNames(in stem: String) -> [String] {
        var names = [String]()
        func add(_ label: String) { if !names.contains(label) { names.append(label) } }
        let patterns = [
            #"(?<![\p{L}\p{N}])[A-Z]{2,4}(?![\p{L}\p{N}])"#,
            #"(?:(?i:points?|vertex|vertices|angle|cent(?:er|re))\s+|∠\s*|(?:النقطة|نقطة|الرأس|الزاوية|المركز)\s+)[A-Z](?![\p{L}\p{N}])"#,
            #"(?<![\p{L}])[\x{0621}-\x{064A}](?:\s+[\x{0621}-\x{064A}](?![\p{L}])){1,3}"#,
        ]
        for (index, pattern) in patterns.enumerated() {
            guard let regex = try? NSRegularExpression(pattern: pattern) else { continue }
            let range = NSRange(stem.startIndex..., in: stem)
            for match in regex.matches(in: stem, range: range) {
                guard let found = Range(match.range, in: stem) else { continue }
                let text = String(stem[found])
                switch index {
                case 0:
                    // A run of capitals is a run of point names (AB, ABC, ABCD) unless it is a word
                    // in capitals ("THE AREA"): a word of the stoplist, or a letter twice.
                    guard !capitalWords.contains(text), Set(text).count == text.count else { continue }
                    for c in text { add(String(c)) }
                case 1: if let last = text.last { add(String(last)) }
                default: for part in text.split(whereSeparator: \.isWhitespace) { add(String(part)) }
                }
            }
        }
        return names
    }

    /// Short English words a stem may write in capitals, which are not runs of point names.
    static let capitalWords: Set<String> = [
        "NOT", "THE", "AND", "ARE", "ALL", "ONE", "TWO", "SUM", "HOW", "WHY", "FOR", "CAN", "MAY", "ITS", "YOU", "BOTH",
        "ONLY", "MUST", "WHAT", "FIND", "EACH", "MOST", "FROM", "THEN", "WITH", "SIDE", "IS", "IN", "ON", "AT",
        "TO", "BE", "IF", "OR", "NO", "OF", "BY", "AN", "AS", "IT", "DO", "SO", "UP", "CM", "MM", "KM", "FT",
    ]

    /// Whether `label` appears in `text` as a point name: alone, or in a run of point names (AB,
    /// ∠ABC), not inside a word.
    static func mentions(_ text: String, _ label: String) -> Bool {
        var text = text
        // The article opening a sentence ("A right triangle …") is not point A.
        if label == "A" { text = text.replacingOccurrences(of: #"(^|[.!?:;]\s+)A(?= \p{Ll})"#, with: "$1", options: .regularExpression) }
        let escaped = NSRegularExpression.escapedPattern(for: label)
        let pattern =
            label.unicodeScalars.allSatisfy({ $0.value < 0x80 && $0.properties.isUppercase })
            ? #"(?<![\p{Ll}\p{Lo}])[A-Z0-9]*"# + escaped + #"[A-Z0-9]*(?![\p{Ll}\p{Lo}])"#
            : #"(?<![\p{L}])"# + escaped + #"(?![\p{L}])"#
        return text.range(of: pattern, options: .regularExpression) != nil
    }

    /// Eastern Arabic digits and separators as Western ones, so that "٥ سم" and "5 سم" compare,
    /// and without directional controls (BidiMath).
    static func normalizedDigits(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                BidiMath.removingControls(text).unicodeScalars.map { c in
                    switch c.value {
                    case 0x660...0x669: Unicode.Scalar(c.value - 0x660 + 0x30)!
                    case 0x6F0...0x6F9: Unicode.Scalar(c.value - 0x6F0 + 0x30)!
                    case 0x66B: "."
                    default: c
                    }
                }))
    }

    /// "5 cm" → "5": alt text may give the number and name the unit once.
    static func withoutUnit(_ label: String) -> String {
        QuantitativeExpression.strippingUnit(label)
    }

    /// A measure as a label writes it: whole numbers without a point, else up to two decimals.
    /// Also the drawing's coordinates: deterministic and compact.
    public static func number(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        if rounded == rounded.rounded(), abs(rounded) < 1e12 { return String(Int(rounded)) }
        var text = String(format: "%.2f", rounded)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}

/// A figure with its alt text, as the model writes an item's `figure` and as a `.figure.json` file
/// for `lectern render` holds it: the figure's fields, `alt`, and optionally the `stem` it goes with.
public struct DescribedFigure: Decodable, Sendable {
    public var alt: String
    public var stem: String?
    public var geometry: GeometryFigure

    enum CodingKeys: String, CodingKey { case alt, stem }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        alt = try c.decode(String.self, forKey: .alt)
        stem = try c.decodeIfPresent(String.self, forKey: .stem)
        geometry = try GeometryFigure(from: decoder)
    }
}
