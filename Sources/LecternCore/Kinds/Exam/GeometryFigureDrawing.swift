import Foundation

/// Draws a checked `GeometryFigure` as SVG. The output is deterministic (same figure, same bytes),
/// has a viewBox so it scales to any size and density, uses strokes thick enough to read at a
/// phone's width, places point labels away from the lines that meet at the point and length
/// labels outside the shape, and marks text in Arabic (or any right-to-left script) as such.
/// Only allowlisted SVG is written: no script, no foreignObject, no event attributes, no external
/// references (`SVGSafety` in LecternRender checks it again before a bundle is written).
public enum GeometryFigureDrawing {
    /// The larger side of the drawing, in viewBox units, before margins.
    static let drawingSize = 320.0
    static let margin = 44.0
    static let strokeWidth = 2.5
    static let fontSize = 17.0

    public static func svg(_ figure: GeometryFigure, alt: String, language: String) -> String {
        let canvas = Canvas(figure: figure)
        let rtl = LanguageDirection.isRightToLeft(language)
        var out = "<title>\(escape(alt))</title>\n"
        // Shapes.
        out += "<g fill=\"none\" stroke=\"#1a1a1a\" stroke-width=\"\(f(strokeWidth))\" stroke-linecap=\"round\" stroke-linejoin=\"round\">\n"
        for polygon in figure.polygons {
            let points = polygon.compactMap { canvas.position($0) }.map { "\(f($0.x)),\(f($0.y))" }.joined(separator: " ")
            out += "<polygon points=\"\(points)\" fill=\"#eef3fb\"/>\n"
        }
        for circle in figure.circles {
            guard let c = canvas.position(circle.center) else { continue }
            out += "<circle cx=\"\(f(c.x))\" cy=\"\(f(c.y))\" r=\"\(f(circle.radius * canvas.scale))\"/>\n"
        }
        for arc in figure.arcs {
            guard let c = canvas.position(arc.center), let a = canvas.position(arc.from), let b = canvas.position(arc.to) else { continue }
            let radius = hypot(a.x - c.x, a.y - c.y)
            // Counter-clockwise in the figure's coordinates is clockwise on screen, whose y runs down.
            let start = atan2(-(a.y - c.y), a.x - c.x)
            var sweep = atan2(-(b.y - c.y), b.x - c.x) - start
            while sweep <= 0 { sweep += 2 * .pi }
            out += "<path d=\"M \(f(a.x)) \(f(a.y)) A \(f(radius)) \(f(radius)) 0 \(sweep > .pi ? 1 : 0) 0 \(f(b.x)) \(f(b.y))\"/>\n"
        }
        for segment in figure.segments where segment.count == 2 {
            guard let a = canvas.position(segment[0]), let b = canvas.position(segment[1]) else { continue }
            out += "<line x1=\"\(f(a.x))\" y1=\"\(f(a.y))\" x2=\"\(f(b.x))\" y2=\"\(f(b.y))\"/>\n"
        }
        out += "</g>\n"
        // Angle marks.
        out += "<g fill=\"none\" stroke=\"#1a1a1a\" stroke-width=\"1.6\">\n"
        var angleLabels = [(vertex: Vector, direction: Vector, distance: Double, text: String)]()
        for right in figure.rightAngles where right.count == 3 {
            guard let a = canvas.position(right[0]), let v = canvas.position(right[1]), let c = canvas.position(right[2]) else { continue }
            let (u, w) = ((a - v).unit * 13, (c - v).unit * 13)
            let (p, q, r) = (v + u, v + u + w, v + w)
            out += "<path d=\"M \(f(p.x)) \(f(p.y)) L \(f(q.x)) \(f(q.y)) L \(f(r.x)) \(f(r.y))\"/>\n"
        }
        for angle in figure.angles {
            guard let a = canvas.position(angle.from), let v = canvas.position(angle.vertex), let c = canvas.position(angle.to) else { continue }
            let (u, w) = ((a - v).unit, (c - v).unit)
            let radius = 24.0
            let (p, q) = (v + u * radius, v + w * radius)
            // The smaller angle: sweep on the side where the cross product says.
            let cross = u.x * w.y - u.y * w.x
            out += "<path d=\"M \(f(p.x)) \(f(p.y)) A \(f(radius)) \(f(radius)) 0 0 \(cross > 0 ? 1 : 0) \(f(q.x)) \(f(q.y))\"/>\n"
            if let text = angle.text {
                var bisector = (u + w).unit
                if bisector.length == 0 { bisector = Vector(x: -u.y, y: u.x) }
                let opening = acos(max(-1, min(1, u.x * w.x + u.y * w.y)))
                angleLabels.append((v, bisector, radius + 6 + (opening < 0.8 ? 14 : 0), text))
            }
        }
        out += "</g>\n"
        // Points.
        out += "<g fill=\"#1a1a1a\">\n"
        for point in figure.points {
            guard let p = canvas.position(point.label) else { continue }
            out += "<circle cx=\"\(f(p.x))\" cy=\"\(f(p.y))\" r=\"3.2\"/>\n"
        }
        out += "</g>\n"
        // Labels, with a white halo so that they read over lines.
        out += "<g font-family=\"sans-serif\" font-size=\"\(f(fontSize))\" fill=\"#1a1a1a\" stroke=\"#ffffff\" stroke-width=\"4\""
        out += " paint-order=\"stroke\" text-anchor=\"middle\" dominant-baseline=\"central\">\n"
        var placer = LabelPlacer(canvas: canvas)
        for point in figure.points {
            guard let p = canvas.position(point.label) else { continue }
            out += text(point.label, placer.placePointLabel(point.label, at: p), weight: "bold")
        }
        for (vertex, direction, distance, label) in angleLabels {
            out += text(label, placer.placeAngleLabel(label, vertex: vertex, direction: direction, distance: distance))
        }
        for length in figure.lengths {
            guard let a = canvas.position(length.from), let b = canvas.position(length.to) else { continue }
            out += text(length.text, placer.placeLengthLabel(length.text, from: a, to: b))
        }
        for circle in figure.circles {
            guard let label = circle.label.flatMap(GeometryFigure.nonEmpty), let c = canvas.position(circle.center) else { continue }
            out += text(label, placer.placeLengthLabel(label, from: c + Vector(x: -1, y: -(circle.radius * canvas.scale)), to: c + Vector(x: 1, y: -(circle.radius * canvas.scale))))
        }
        out += "</g>\n</svg>\n"
        // The view box holds the drawing and every label, with a little room.
        let bounds = placer.bounds
        let (x, y) = (bounds.minX - 6, bounds.minY - 6)
        let (width, height) = (bounds.maxX - bounds.minX + 12, bounds.maxY - bounds.minY + 12)
        var header = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"\(f(x)) \(f(y)) \(f(width)) \(f(height))\""
        header += " width=\"\(f(width))\" height=\"\(f(height))\""
        header += " role=\"img\" aria-label=\"\(escape(alt))\" xml:lang=\"\(escape(language))\"\(rtl ? " direction=\"rtl\"" : "")>\n"
        return header + out
    }

    private static func text(_ label: String, _ at: Vector, weight: String? = nil) -> String {
        let rtl = label.unicodeScalars.contains { LanguageDirection.isRightToLeftScalar($0) }
        var attributes = "x=\"\(f(at.x))\" y=\"\(f(at.y))\""
        if let weight { attributes += " font-weight=\"\(weight)\"" }
        attributes += rtl ? " direction=\"rtl\" unicode-bidi=\"embed\"" : " direction=\"ltr\""
        return "<text \(attributes)>\(escape(label))</text>\n"
    }

    /// Two decimals at most, no trailing zeros.
    static func f(_ value: Double) -> String { GeometryFigure.number(value) }

    static func escape(_ text: String) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\n", "\t", "\r": out += " "
            default:
                if c.value < 0x20 || c.value == 0xFFFE || c.value == 0xFFFF { continue }
                out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// Places labels where they cover neither the lines nor each other: each candidate position
    /// is scored by the line samples and earlier labels its box would cover.
    struct LabelPlacer {
        struct Box {
            var center: Vector
            var halfWidth: Double
            var halfHeight: Double

            func overlap(_ other: Box) -> Double {
                let dx = halfWidth + other.halfWidth - abs(center.x - other.center.x)
                let dy = halfHeight + other.halfHeight - abs(center.y - other.center.y)
                return dx > 0 && dy > 0 ? dx * dy : 0
            }

            func contains(_ p: Vector) -> Bool { abs(p.x - center.x) <= halfWidth && abs(p.y - center.y) <= halfHeight }
        }

        let canvas: Canvas
        /// Points along every drawn line and curve, and the point markers.
        private var ink: [Vector] = []
        private var placed: [Box] = []

        init(canvas: Canvas) {
            self.canvas = canvas
            let figure = canvas.figure
            var lines = figure.segments.filter { $0.count == 2 }.map { ($0[0], $0[1]) }
            for polygon in figure.polygons where polygon.count >= 3 {
                for (i, vertex) in polygon.enumerated() { lines.append((vertex, polygon[(i + 1) % polygon.count])) }
            }
            for (a, b) in lines {
                guard let p = canvas.position(a), let q = canvas.position(b) else { continue }
                let steps = max(1, Int((q - p).length / 3))
                for step in 0...steps { ink.append(p + (q - p) * (Double(step) / Double(steps))) }
            }
            for circle in figure.circles {
                guard let c = canvas.position(circle.center) else { continue }
                let radius = circle.radius * canvas.scale
                let steps = max(12, Int(2 * .pi * radius / 3))
                for step in 0..<steps {
                    let angle = 2 * .pi * Double(step) / Double(steps)
                    ink.append(c + Vector(x: radius * cos(angle), y: radius * sin(angle)))
                }
            }
            for arc in figure.arcs {
                for p in figure.arcSamples(arc, count: 96) {
                    ink.append(Vector(x: (p.x - canvas.minX) * canvas.scale + margin, y: (canvas.maxY - p.y) * canvas.scale + margin))
                }
            }
            for point in figure.points {
                guard let p = canvas.position(point.label) else { continue }
                placed.append(Box(center: p, halfWidth: 4, halfHeight: 4))
            }
        }

        /// The smallest rectangle holding every line, marker and label.
        var bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double) {
            var (minX, minY, maxX, maxY) = (Double.infinity, Double.infinity, -Double.infinity, -Double.infinity)
            for p in ink { (minX, minY, maxX, maxY) = (min(minX, p.x), min(minY, p.y), max(maxX, p.x), max(maxY, p.y)) }
            for box in placed {
                (minX, minY) = (min(minX, box.center.x - box.halfWidth), min(minY, box.center.y - box.halfHeight))
                (maxX, maxY) = (max(maxX, box.center.x + box.halfWidth), max(maxY, box.center.y + box.halfHeight))
            }
            return minX.isFinite ? (minX, minY, maxX, maxY) : (0, 0, 1, 1)
        }

        static func box(_ text: String, at center: Vector) -> Box {
            Box(center: center, halfWidth: Double(max(1, text.count)) * fontSize * 0.31 + 2, halfHeight: fontSize * 0.55)
        }

        /// How much a label at `box` would cover: ink under it, and earlier labels.
        func cost(_ box: Box) -> Double {
            var cost = 0.0
            for p in ink where box.contains(p) { cost += 1 }
            for other in placed { cost += other.overlap(box) / 4 }
            return cost
        }

        /// The cheapest of `candidates` (ties to the earliest, the preferred), which is then taken.
        mutating func choose(_ text: String, _ candidates: [Vector]) -> Vector {
            var best = candidates[0]
            var bestCost = Double.infinity
            for (index, candidate) in candidates.enumerated() {
                let cost = self.cost(Self.box(text, at: candidate)) + Double(index) * 0.01
                if cost < bestCost {
                    bestCost = cost
                    best = candidate
                }
            }
            placed.append(Self.box(text, at: best))
            return best
        }

        mutating func placePointLabel(_ label: String, at p: Vector) -> Vector {
            let preferred = canvas.clearDirection(at: label)
            let start = atan2(preferred.y, preferred.x)
            // The preferred direction first, then alternately either side of it.
            var candidates = [Vector]()
            for distance in [16.0, 22] {
                for k in 0..<24 {
                    let turn = Double((k + 1) / 2) * (k % 2 == 0 ? 1 : -1) * .pi / 12
                    candidates.append(p + Vector(x: cos(start + turn), y: sin(start + turn)) * (distance + Double(label.count - 1) * 4))
                }
            }
            return choose(label, candidates)
        }

        mutating func placeAngleLabel(_ label: String, vertex: Vector, direction: Vector, distance: Double) -> Vector {
            let width = Self.box(label, at: vertex).halfWidth
            let candidates = [0.0, 8, 16, 24].map { vertex + direction * (distance + width + $0) }
            return choose(label, candidates)
        }

        mutating func placeLengthLabel(_ label: String, from a: Vector, to b: Vector) -> Vector {
            var normal = Vector(x: -(b - a).y, y: (b - a).x).unit
            let middle = (a + b) * 0.5
            if (middle - canvas.centroid).dot(normal) < 0 { normal = normal * -1 }
            let box = Self.box(label, at: middle)
            // Far enough along the normal for the box to clear the line.
            let clearance = 5 + abs(normal.x) * box.halfWidth + abs(normal.y) * box.halfHeight
            var candidates = [Vector]()
            for t in [0.5, 0.36, 0.64, 0.25, 0.75] {
                let along = a + (b - a) * t
                candidates.append(along + normal * clearance)
            }
            for t in [0.5, 0.36, 0.64] { candidates.append(a + (b - a) * t - normal * clearance) }
            return choose(label, candidates)
        }
    }

    struct Vector {
        var x: Double
        var y: Double
        static func + (a: Vector, b: Vector) -> Vector { Vector(x: a.x + b.x, y: a.y + b.y) }
        static func - (a: Vector, b: Vector) -> Vector { Vector(x: a.x - b.x, y: a.y - b.y) }
        static func * (a: Vector, k: Double) -> Vector { Vector(x: a.x * k, y: a.y * k) }
        var length: Double { hypot(x, y) }
        var unit: Vector { length > 0 ? self * (1 / length) : Vector(x: 0, y: 0) }
        func dot(_ other: Vector) -> Double { x * other.x + y * other.y }
    }

    /// The figure in screen coordinates.
    struct Canvas {
        let figure: GeometryFigure
        let scale: Double
        let minX: Double
        let maxY: Double
        let centroid: Vector
        private var positions: [String: Vector] = [:]

        init(figure: GeometryFigure) {
            self.figure = figure
            let (lowX, _, _, highY) = figure.bounds
            scale = drawingSize / figure.extent
            minX = lowX
            maxY = highY
            var positions = [String: Vector]()
            var sum = Vector(x: 0, y: 0)
            for p in figure.points {
                let v = Vector(x: (p.x - lowX) * scale + margin, y: (highY - p.y) * scale + margin)
                positions[GeometryFigure.labelKey(p.label)] = v
                sum = sum + v
            }
            self.positions = positions
            centroid = figure.points.isEmpty ? sum : sum * (1 / Double(figure.points.count))
        }

        func position(_ label: String) -> Vector? { positions[GeometryFigure.labelKey(label)] }

        /// The direction from a point that is farthest, in angle, from every line that meets it;
        /// ties go to the direction away from the figure's centre.
        func clearDirection(at label: String) -> Vector {
            guard let p = position(label) else { return Vector(x: 0, y: -1) }
            let key = GeometryFigure.labelKey(label)
            var neighbours = [String]()
            for segment in figure.segments where segment.count == 2 {
                let (a, b) = (GeometryFigure.labelKey(segment[0]), GeometryFigure.labelKey(segment[1]))
                if a == key { neighbours.append(segment[1]) } else if b == key { neighbours.append(segment[0]) }
            }
            for polygon in figure.polygons where polygon.count >= 3 {
                for (i, vertex) in polygon.enumerated() where GeometryFigure.labelKey(vertex) == key {
                    neighbours.append(polygon[(i + 1) % polygon.count])
                    neighbours.append(polygon[(i + polygon.count - 1) % polygon.count])
                }
            }
            for circle in figure.circles where GeometryFigure.labelKey(circle.center) != key {
                // A point on a circle: keep its label off the curve, outward.
                if let c = position(circle.center), abs((p - c).length - circle.radius * scale) < 2 {
                    return (p - c).unit.length > 0 ? (p - c).unit : Vector(x: 0, y: -1)
                }
            }
            let rays = neighbours.compactMap { position($0) }.map { ($0 - p).unit }.filter { $0.length > 0 }
            let away = (p - centroid).unit
            var best = away.length > 0 ? away : Vector(x: 0, y: -1)
            var bestScore = -Double.infinity
            for step in 0..<24 {
                let angle = Double(step) * .pi / 12
                let candidate = Vector(x: cos(angle), y: sin(angle))
                let clearance = rays.map { acos(max(-1, min(1, $0.dot(candidate)))) }.min() ?? .pi
                let score = clearance + 0.25 * candidate.dot(away)
                if score > bestScore + 1e-9 {
                    bestScore = score
                    best = candidate
                }
            }
            return best
        }
    }
}

/// Which scripts are written right to left.
public enum LanguageDirection {
    public static func isRightToLeft(_ language: String) -> Bool {
        if let profile = LanguageProfile.for(language) { return profile.direction == .rightToLeft }
        return ["he", "fa", "ur", "ps", "sd", "ug", "yi", "dv", "ckb"].contains(LanguageProfile.primarySubtag(language))
    }

    static func isRightToLeftScalar(_ c: Unicode.Scalar) -> Bool {
        switch c.value {
        case 0x0590...0x08FF, 0xFB1D...0xFDFF, 0xFE70...0xFEFF: true
        default: false
        }
    }
}
