/// One or more polygon parts, each an outer ring with zero or more holes, stored flat.
///
/// All vertices live in one buffer. ``ringOffsets`` marks where each ring starts, and
/// ``partOffsets`` marks which rings belong to which part: the first ring of a part is its outer
/// ring, the others are its holes. Every ring is closed (its last vertex equals its first) and has
/// at least four vertices.
///
/// GeoJSON `Polygon`/`MultiPolygon` and WKT `POLYGON`/`MULTIPOLYGON` map parts one to one.
/// Esri JSON has a flat list of `rings` with orientation telling outer (clockwise) from hole
/// (counter-clockwise); ``init(esriRings:layout:)`` rebuilds the parts from that.
/// Ring orientation is kept as read; writers normalize it as their format requires
/// (``outerRingsCounterClockwise(_:)``).
public struct Polygon: Hashable, Sendable {
    /// All vertices of all rings.
    public let coordinates: CoordinateBuffer
    /// `ringOffsets[r] ..< ringOffsets[r + 1]` are the vertices of ring `r`; one more element
    /// than there are rings, starting with 0.
    public let ringOffsets: [Int]
    /// `partOffsets[p] ..< partOffsets[p + 1]` are the rings of part `p`; the first is the outer
    /// ring. One more element than there are parts, starting with 0.
    public let partOffsets: [Int]
    /// The bounding box of all vertices, computed once.
    public let envelope: Envelope

    /// Creates a polygon from flat storage.
    /// - Throws: ``GeometryError/Kind/invalidCoordinates`` when a coordinate is not finite, a
    ///   ring has fewer than four vertices or is not closed, or a part has no ring.
    public init(coordinates: CoordinateBuffer, ringOffsets: [Int], partOffsets: [Int]) throws(GeometryError) {
        precondition(ringOffsets.first == 0 && ringOffsets.last == coordinates.count, "ring offsets do not span the buffer")
        precondition(partOffsets.first == 0 && partOffsets.last == ringOffsets.count - 1, "part offsets do not span the rings")
        guard coordinates.isFinite else {
            throw GeometryError(.invalidCoordinates, "polygon coordinates must be finite numbers")
        }
        for p in 0..<(partOffsets.count - 1) where partOffsets[p + 1] <= partOffsets[p] {
            throw GeometryError(.invalidCoordinates, "polygon part \(p) has no ring")
        }
        for r in 0..<(ringOffsets.count - 1) {
            let count = ringOffsets[r + 1] - ringOffsets[r]
            guard count >= 4 else {
                var error = GeometryError(
                    .invalidCoordinates, "ring \(r) has \(count) point(s); a closed ring needs at least 4")
                error.componentIndex = r
                throw error
            }
            let first = ringOffsets[r], last = ringOffsets[r + 1] - 1
            guard coordinates.x(at: first) == coordinates.x(at: last), coordinates.y(at: first) == coordinates.y(at: last) else {
                var error = GeometryError(.invalidCoordinates, "ring \(r) is not closed: its first and last points differ")
                error.componentIndex = r
                throw error
            }
        }
        self.coordinates = coordinates
        self.ringOffsets = ringOffsets
        self.partOffsets = partOffsets
        self.envelope = coordinates.envelope
    }

    /// Creates a polygon from parts, each a list of rings (outer ring first, then holes).
    public init(parts: [[[Point]]], layout: CoordinateLayout? = nil) throws(GeometryError) {
        let layout = layout ?? parts.first?.first?.first?.layout ?? .xy
        var buffer = CoordinateBuffer(layout: layout)
        var rings = [0]
        var partOffsets = [0]
        for part in parts {
            for ring in part {
                for point in ring { buffer.append(point) }
                rings.append(buffer.count)
            }
            partOffsets.append(rings.count - 1)
        }
        try self.init(coordinates: buffer, ringOffsets: rings, partOffsets: partOffsets)
    }

    /// Creates a single-part polygon from an outer ring and holes.
    public init(exterior: [Point], holes: [[Point]] = []) throws(GeometryError) {
        try self.init(parts: [[exterior] + holes])
    }

    /// Creates a polygon from Esri JSON rings, which carry no part structure.
    ///
    /// Following the Esri convention (y up), clockwise rings are outer rings and
    /// counter-clockwise rings are holes. A hole that no outer ring contains becomes an outer
    /// ring of its own; then each hole joins the smallest outer ring that contains its first
    /// vertex (or, when that vertex lies on the outer ring, its first vertex in x, y order that
    /// does not). When no ring is clockwise at all (a common mistake), every ring is an outer
    /// ring, nested by containment in the same way: a ring inside an odd number of others is a
    /// hole. Degenerate rings (zero area) count as outer rings.
    ///
    /// Reading is idempotent: the Esri JSON written for the polygon (``Geometry/esriJSON(spatialReference:)``
    /// turns outer rings clockwise and holes counter-clockwise) reads back to the same parts, for
    /// crossing and self-intersecting rings too.
    public init(esriRings: [[Point]], layout: CoordinateLayout? = nil) throws(GeometryError) {
        let layout = layout ?? esriRings.first?.first?.layout ?? .xy
        var buffer = CoordinateBuffer(layout: layout)
        var offsets = [0]
        for ring in esriRings {
            for point in ring { buffer.append(point) }
            offsets.append(buffer.count)
        }
        // Validate ring shapes before looking at orientation.
        let flat = try Polygon(coordinates: buffer, ringOffsets: offsets, partOffsets: Array(0...esriRings.count))
        let ringCount = esriRings.count
        let areas = (0..<ringCount).map { flat.coordinates.signedDoubleArea(of: flat.ringRange($0)) }
        // Ring boxes, computed once; a ring can only contain a vertex inside its box, so only the
        // rings whose box holds a ring's first vertex are candidates (found through a grid, so
        // that many separate rings cost linear time, not quadratic).
        let boxes = (0..<ringCount).map { flat.coordinates.envelope(of: flat.ringRange($0)) }
        func firstVertex(_ r: Int) -> (Double, Double) {
            (flat.coordinates.x(at: flat.ringOffsets[r]), flat.coordinates.y(at: flat.ringOffsets[r]))
        }
        var isOuter = areas.map { $0 <= 0 }
        if !isOuter.contains(true) || ringCount == 0 {
            // No clockwise ring: decide by nesting depth.
            var everyRing = RingBoxIndex(boxes)
            for r in 0..<ringCount { everyRing.insert(r) }
            isOuter = (0..<ringCount).map { r in
                var depth = 0
                let (x, y) = firstVertex(r)
                for other in everyRing.candidates(x, y) where other != r && flat.ring(other, box: boxes[other], containsVertexOf: r) {
                    depth += 1
                }
                return depth % 2 == 0
            }
        }
        // Holes that no outer ring contains become outer rings; then every hole joins the
        // smallest outer ring, of them all, that contains it (the first of the smallest). Doing
        // it in that order makes reading idempotent: writing the polygon (outer rings clockwise,
        // holes counter-clockwise, part by part) and reading it back assigns every hole to the
        // same outer ring, since the outer rings are then exactly these.
        var outerIndex = RingBoxIndex(boxes)
        for r in 0..<ringCount where isOuter[r] { outerIndex.insert(r) }
        func host(_ r: Int) -> Int? {
            let (x, y) = firstVertex(r)
            return outerIndex.candidates(x, y).sorted()
                .filter { flat.ring($0, box: boxes[$0], containsVertexOf: r) }
                .min { abs(areas[$0]) < abs(areas[$1]) }
        }
        let orphans = (0..<ringCount).filter { !isOuter[$0] && host($0) == nil }
        for r in orphans {
            isOuter[r] = true
            outerIndex.insert(r)
        }
        var holesOf = [Int: [Int]]()
        for r in 0..<ringCount where !isOuter[r] {
            if let host = host(r) { holesOf[host, default: []].append(r) }
        }
        let outers = (0..<ringCount).filter { isOuter[$0] }
        var parts: [[Range<Int>]] = []
        for outer in outers {
            parts.append([flat.ringRange(outer)] + (holesOf[outer] ?? []).map { flat.ringRange($0) })
        }
        var reordered = CoordinateBuffer(layout: layout)
        var ringOffsets = [0]
        var partOffsets = [0]
        for part in parts {
            for range in part {
                for i in range { reordered.append(flat.coordinates[i]) }
                ringOffsets.append(reordered.count)
            }
            partOffsets.append(ringOffsets.count - 1)
        }
        try self.init(coordinates: reordered, ringOffsets: ringOffsets, partOffsets: partOffsets)
    }

    /// The empty polygon (no parts).
    public static let empty = Polygon(uncheckedEmpty: ())

    private init(uncheckedEmpty: Void) {
        coordinates = CoordinateBuffer()
        ringOffsets = [0]
        partOffsets = [0]
        envelope = .empty
    }

    /// Number of rings in all parts.
    public var ringCount: Int { ringOffsets.count - 1 }
    /// Number of parts (outer rings).
    public var partCount: Int { partOffsets.count - 1 }
    /// Whether there are no parts.
    public var isEmpty: Bool { partCount == 0 }
    /// The vertex index range of ring `r`.
    public func ringRange(_ r: Int) -> Range<Int> { ringOffsets[r]..<ringOffsets[r + 1] }
    /// The ring index range of part `p` (the first is the outer ring).
    public func partRingRange(_ p: Int) -> Range<Int> { partOffsets[p]..<partOffsets[p + 1] }
    /// Ring `r` as points.
    public func ring(_ r: Int) -> [Point] { ringRange(r).map { coordinates[$0] } }
    /// The parts, each a list of rings of points (outer ring first).
    public var parts: [[[Point]]] { (0..<partCount).map { p in partRingRange(p).map { ring($0) } } }
    /// Twice the signed area of ring `r`: positive when counter-clockwise (y up).
    public func signedDoubleArea(ofRing r: Int) -> Double { coordinates.signedDoubleArea(of: ringRange(r)) }

    /// The same polygon with every outer ring turned counter-clockwise and every hole clockwise
    /// when `counterClockwise` is `true` (GeoJSON, RFC 7946 §3.1.6), or the other way round when
    /// `false` (Esri JSON). Rings of zero area are left as they are.
    public func outerRingsCounterClockwise(_ counterClockwise: Bool) -> Polygon {
        var buffer = CoordinateBuffer(layout: coordinates.layout)
        for p in 0..<partCount {
            for r in partRingRange(p) {
                let range = ringRange(r)
                let area = coordinates.signedDoubleArea(of: range)
                let isOuter = r == partOffsets[p]
                let wantCCW = isOuter == counterClockwise
                let reverse = area != 0 && (area > 0) != wantCCW
                if reverse {
                    for i in range.reversed() { buffer.append(coordinates[i]) }
                } else {
                    for i in range { buffer.append(coordinates[i]) }
                }
            }
        }
        return Polygon(trusted: buffer, ringOffsets: ringOffsets, partOffsets: partOffsets, envelope: envelope)
    }

    /// A polygon from parts already checked (by a reader, or taken from a valid polygon).
    package init(trusted coordinates: CoordinateBuffer, ringOffsets: [Int], partOffsets: [Int], envelope: Envelope) {
        self.coordinates = coordinates
        self.ringOffsets = ringOffsets
        self.partOffsets = partOffsets
        self.envelope = envelope
    }

    /// Whether ring `r` contains a vertex of ring `other` (even-odd rule). The first vertex is
    /// tried first; when it lies on the boundary of `r`, the other vertices are tried in order
    /// of x, then y, until one is not on it.
    ///
    /// The answer does not depend on the direction of either ring (reversing a ring keeps its
    /// first vertex and its set of vertices, and ``ring(_:locate:_:)`` computes each edge from
    /// its ends in a fixed order), so that orienting rings for output never changes which ring
    /// holds which.
    func ring(_ r: Int, containsVertexOf other: Int) -> Bool {
        ring(r, box: coordinates.envelope(of: ringRange(r)), containsVertexOf: other)
    }

    /// ``ring(_:containsVertexOf:)`` with ring `r`'s box already computed.
    func ring(_ r: Int, box: Envelope, containsVertexOf other: Int) -> Bool {
        let candidate = ringRange(other)
        guard ringRange(r).count >= 4, let first = candidate.first else { return false }
        func located(_ i: Int) -> RingLocation {
            let x = coordinates.x(at: i), y = coordinates.y(at: i)
            guard box.contains(x: x, y: y) else { return .outside }
            return ring(r, locate: x, y)
        }
        switch located(first) {
        case .inside: return true
        case .outside: return false
        case .boundary: break
        }
        let rest = candidate.dropLast().dropFirst().sorted {
            (coordinates.x(at: $0), coordinates.y(at: $0)) < (coordinates.x(at: $1), coordinates.y(at: $1))
        }
        for i in rest {
            switch located(i) {
            case .inside: return true
            case .outside: return false
            case .boundary: continue
            }
        }
        return false
    }

    enum RingLocation { case inside, outside, boundary }

    /// Where `(x, y)` lies relative to ring `r` (crossing-number test with exact boundary check).
    /// Each edge is computed from its lexicographically smaller end, so the answer is the same
    /// for the ring traversed either way.
    func ring(_ r: Int, locate x: Double, _ y: Double) -> RingLocation {
        let range = ringRange(r)
        var inside = false
        var j = range.upperBound - 1
        for i in range {
            var xi = coordinates.x(at: i), yi = coordinates.y(at: i)
            var xj = coordinates.x(at: j), yj = coordinates.y(at: j)
            j = i
            if (xj, yj) < (xi, yi) { swap(&xi, &xj); swap(&yi, &yj) }
            // On the segment?
            let cross = (xj - xi) * (y - yi) - (yj - yi) * (x - xi)
            if cross == 0, min(xi, xj) <= x, x <= max(xi, xj), min(yi, yj) <= y, y <= max(yi, yj) {
                return .boundary
            }
            if (yi > y) != (yj > y) {
                let xCross = xi + (y - yi) * (xj - xi) / (yj - yi)
                if x < xCross { inside.toggle() }
            }
        }
        return inside ? .inside : .outside
    }
}

/// The rings whose box holds a point, found through a uniform grid over the boxes of all rings:
/// a ring is listed in the cells its box overlaps, or, when that is more than a few cells, in a
/// list every query reads. Many separate rings cost a handful of candidates per query; rings
/// nested inside each other are each a candidate for the others, as they must be.
private struct RingBoxIndex {
    let boxes: [Envelope]
    let minX: Double, minY: Double, cellWidth: Double, cellHeight: Double
    let side: Int
    var cells: [[Int]]
    var large: [Int] = []

    init(_ boxes: [Envelope]) {
        self.boxes = boxes
        let extent = boxes.reduce(Envelope.empty) { $0.union($1) }
        let side = Swift.max(1, Swift.min(1024, Int(Double(boxes.count).squareRoot())))
        let width = extent.width / Double(side), height = extent.height / Double(side)
        // One cell when the extent is empty, flat, or too wide for finite cell numbers.
        if extent.isEmpty || !(width > 0) || !(height > 0) || !width.isFinite || !height.isFinite
            || !(extent.width / width).isFinite || !(extent.height / height).isFinite
        {
            (minX, minY, cellWidth, cellHeight, self.side) = (0, 0, 1, 1, 1)
        } else {
            (minX, minY, cellWidth, cellHeight, self.side) = (extent.xmin, extent.ymin, width, height, side)
        }
        cells = Array(repeating: [], count: self.side * self.side)
    }

    /// The cell column (or row) of a coordinate, clamped to the grid in floating point first.
    private func index(_ value: Double, _ origin: Double, _ size: Double) -> Int {
        let cell = ((value - origin) / size).rounded(.down)
        guard cell.isFinite else { return cell > 0 ? side - 1 : 0 }  // NaN and -inf to 0
        return Int(Swift.min(Swift.max(cell, 0), Double(side - 1)))
    }

    mutating func insert(_ ring: Int) {
        let box = boxes[ring]
        let c0 = index(box.xmin, minX, cellWidth), c1 = index(box.xmax, minX, cellWidth)
        let r0 = index(box.ymin, minY, cellHeight), r1 = index(box.ymax, minY, cellHeight)
        if (c1 - c0 + 1) * (r1 - r0 + 1) > 16 {
            large.append(ring)
            return
        }
        for r in r0...r1 { for c in c0...c1 { cells[r * side + c].append(ring) } }
    }

    /// The rings whose box holds `(x, y)`, each once.
    func candidates(_ x: Double, _ y: Double) -> [Int] {
        let cell = index(y, minY, cellHeight) * side + index(x, minX, cellWidth)
        return (cells[cell] + large).filter { boxes[$0].contains(x: x, y: y) }
    }
}
