import SieveGEOS
import SieveGeometry
import SieveIndex

/// A fast, exact point-in-polygon test for the many points a region filter must test one by
/// one near a query polygon's boundary.
///
/// The polygon's envelope is cut into a grid; each cell lists the polygon edges that pass
/// through it (or within a hundredth of a cell of it). A point is inside exactly when the cell's
/// centre is inside and the segment from the point to the centre crosses an even number of
/// edges — or outside and the count is odd. Only the cell's own edges can cross that segment, so
/// a test costs a handful of orientation tests instead of a walk over the polygon's edge index.
///
/// The centres are classified the same way when the grid is built, row by row from the left
/// edge of the envelope (outside, unless it lies on the polygon): each step counts the
/// crossings of the segment to the next centre or cell border. GEOS is asked only where a step
/// is uncertain.
///
/// Floating-point orientation tests are only trusted when their value is clearly away from zero;
/// a point on or very near an edge, a segment through a vertex, or a centre on the boundary makes
/// the test answer `nil`, and the caller asks GEOS. The answers given are therefore GEOS's.
///
/// A class so that the region filter shares one grid without copying its arrays; it is not
/// changed after it is built.
final class PolygonGrid {
    /// The polygon's envelope; the grid covers it.
    private let envelope: Envelope
    private let minX: Double, minY: Double
    private let cellWidth: Double, cellHeight: Double
    private let columns: Int, rows: Int
    /// Edge endpoints, four values per edge.
    private let edges: [Double]
    /// Edges of cell `c`: `cellEdges[cellStart[c] ..< cellStart[c + 1]]`.
    private let cellStart: [Int32]
    private let cellEdges: [Int32]
    /// Per cell: 1 centre inside, 0 outside, 2 centre on the boundary (no shortcut). Written
    /// only while the grid is built.
    private var centreState: [UInt8] = []
    private let centreX: [Double], centreY: [Double]
    /// The first vertex of every ring, two values a ring: GEOS tests these points (one per ring)
    /// to find a polygon ring lying inside a feature whose boundary it does not meet.
    private let ringFirstVertices: [Double]

    /// Builds the grid of an areal geometry (a polygon or an envelope); `nil` for anything else.
    init?(_ geometry: Geometry, prepared: PreparedGeometry) {
        var segments: [Double] = []
        var firstVertices: [Double] = []
        switch geometry {
        case .polygon(let polygon):
            let coordinates = polygon.coordinates
            for r in 0..<polygon.ringCount {
                let range = polygon.ringRange(r)
                firstVertices.append(coordinates.x(at: range.lowerBound))
                firstVertices.append(coordinates.y(at: range.lowerBound))
                for i in range.lowerBound..<(range.upperBound - 1) {
                    segments.append(coordinates.x(at: i))
                    segments.append(coordinates.y(at: i))
                    segments.append(coordinates.x(at: i + 1))
                    segments.append(coordinates.y(at: i + 1))
                }
            }
        default:
            return nil
        }
        let box = geometry.envelope
        let edgeCount = segments.count / 4
        let side = Swift.max(8, Swift.min(512, Int(Double(edgeCount).squareRoot() * 2)))
        // Cells must have a finite, non-zero size, so that every cell number computed from a
        // coordinate inside the envelope is a finite number between 0 and `side`: an envelope
        // wider than half the largest Double (its width overflows) or so narrow that a cell
        // would be smaller than the smallest Double gets no grid (GEOS answers alone).
        let limit = Double.greatestFiniteMagnitude / 2
        guard edgeCount >= 16, box.width > 0, box.height > 0, box.width < limit, box.height < limit,
            box.width / Double(side) > 0, box.height / Double(side) > 0,
            Double(side) * Double.ulpOfOne * Swift.max(abs(box.xmin), abs(box.xmax)) < box.width,
            Double(side) * Double.ulpOfOne * Swift.max(abs(box.ymin), abs(box.ymax)) < box.height
        else { return nil }
        columns = side
        rows = side
        envelope = box
        minX = box.xmin
        minY = box.ymin
        let width = box.width / Double(side), height = box.height / Double(side)
        cellWidth = width
        cellHeight = height
        edges = segments
        // Cell ranges each edge's box touches (widened by one cell: rounding cannot hide an edge).
        func cellRange(_ e: Int) -> (Int, Int, Int, Int) {
            let x0 = Swift.min(segments[e * 4], segments[e * 4 + 2]), x1 = Swift.max(segments[e * 4], segments[e * 4 + 2])
            let y0 = Swift.min(segments[e * 4 + 1], segments[e * 4 + 3]), y1 = Swift.max(segments[e * 4 + 1], segments[e * 4 + 3])
            let c0 = Swift.max(0, Int(((x0 - box.xmin) / width).rounded(.down)) - 1)
            let c1 = Swift.min(side - 1, Int(((x1 - box.xmin) / width).rounded(.down)) + 1)
            let r0 = Swift.max(0, Int(((y0 - box.ymin) / height).rounded(.down)) - 1)
            let r1 = Swift.min(side - 1, Int(((y1 - box.ymin) / height).rounded(.down)) + 1)
            return (c0, c1, r0, r1)
        }
        // Whether edge e passes through (a slightly widened) cell (c, r): its bounding box
        // overlaps the cell already, so it does unless the cell's corners all lie on one side
        // of the edge's line.
        let margin = 0.01 * Swift.max(width, height)
        func crosses(_ e: Int, _ c: Int, _ r: Int) -> Bool {
            let ax = segments[e * 4], ay = segments[e * 4 + 1], bx = segments[e * 4 + 2], by = segments[e * 4 + 3]
            let x0 = box.xmin + Double(c) * width - margin, x1 = box.xmin + Double(c + 1) * width + margin
            let y0 = box.ymin + Double(r) * height - margin, y1 = box.ymin + Double(r + 1) * height + margin
            let d00 = (bx - ax) * (y0 - ay) - (by - ay) * (x0 - ax), d10 = (bx - ax) * (y0 - ay) - (by - ay) * (x1 - ax)
            let d01 = (bx - ax) * (y1 - ay) - (by - ay) * (x0 - ax), d11 = (bx - ax) * (y1 - ay) - (by - ay) * (x1 - ax)
            return !((d00 > 0 && d10 > 0 && d01 > 0 && d11 > 0) || (d00 < 0 && d10 < 0 && d01 < 0 && d11 < 0))
        }
        var counts = [Int32](repeating: 0, count: side * side + 1)
        for e in 0..<edgeCount {
            let (c0, c1, r0, r1) = cellRange(e)
            for r in r0...r1 { for c in c0...c1 where crosses(e, c, r) { counts[r * side + c + 1] += 1 } }
        }
        for c in 0..<(side * side) { counts[c + 1] += counts[c] }
        var fill = counts
        var lists = [Int32](repeating: 0, count: Int(counts[side * side]))
        for e in 0..<edgeCount {
            let (c0, c1, r0, r1) = cellRange(e)
            for r in r0...r1 {
                for c in c0...c1 where crosses(e, c, r) {
                    let cell = r * side + c
                    lists[Int(fill[cell])] = Int32(e)
                    fill[cell] += 1
                }
            }
        }
        cellStart = counts
        cellEdges = lists
        var xs = [Double](repeating: 0, count: side * side), ys = [Double](repeating: 0, count: side * side)
        for r in 0..<side {
            for c in 0..<side {
                xs[r * side + c] = box.xmin + (Double(c) + 0.5) * width
                ys[r * side + c] = box.ymin + (Double(r) + 0.5) * height
            }
        }
        centreX = xs
        centreY = ys
        ringFirstVertices = firstVertices
        centreState = classifyCentres(prepared)
    }

    /// The state of every cell's centre: along each row, from the point on the envelope's left
    /// edge (outside, or on the boundary, where the first step is uncertain) to the first centre,
    /// then centre to cell border to centre, flipping at each edge crossed. Where a step is
    /// uncertain, GEOS classifies the centre and the walk resumes from it.
    private func classifyCentres(_ prepared: PreparedGeometry) -> [UInt8] {
        var states = [UInt8](repeating: 2, count: columns * rows)
        for r in 0..<rows {
            // The state at (x, y), the point the walk stands on; nil when unknown.
            var known: UInt8? = 0
            var x = minX
            let y = centreY[r * columns]
            for c in 0..<columns {
                let cell = r * columns + c
                let cx = centreX[cell]
                let state: UInt8
                if let from = known, let crossed = crossings(x, y, cx, y, cell) {
                    state = from ^ UInt8(crossed & 1)
                } else {
                    state = Self.geosState(prepared, cx, y)
                }
                states[cell] = state
                x = minX + Double(c + 1) * cellWidth
                if state != 2, let crossed = crossings(cx, y, x, y, cell) {
                    known = state ^ UInt8(crossed & 1)
                } else {
                    known = nil
                }
            }
        }
        return states
    }

    /// The state of point `(x, y)` by GEOS: 1 inside, 0 outside, 2 on the boundary (or unknown).
    private static func geosState(_ prepared: PreparedGeometry, _ x: Double, _ y: Double) -> UInt8 {
        guard let inside = try? prepared.contains(x: x, y: y) else { return 2 }
        if inside { return 1 }
        guard let touches = try? prepared.intersects(x: x, y: y) else { return 2 }
        return touches ? 2 : 0
    }

    /// The number of edges of cell `cell` that the segment from `(x0, y0)` to `(x1, y1)`, lying
    /// in the cell, crosses; `nil` when an end is on or next to an edge or the segment passes
    /// through a vertex (too close to call).
    @inline(__always)
    private func crossings(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, _ cell: Int) -> Int? {
        var count = 0
        for k in Int(cellStart[cell])..<Int(cellStart[cell + 1]) {
            let e = Int(cellEdges[k]) * 4
            switch Self.contact(edges[e], edges[e + 1], edges[e + 2], edges[e + 3], x0, y0, x1, y1) {
            case .crossing: count += 1
            case .apart: continue
            case .uncertain: return nil
            }
        }
        return count
    }

    /// Whether `(x, y)` lies in the polygon's interior, or `nil` when the answer is not certain
    /// (on or next to the boundary) — then ask GEOS. A point strictly inside is also the only
    /// kind that intersects without lying on the boundary, so `true` answers both `intersects`
    /// and `contains`, and `false` both negatively.
    @inline(__always)
    func isInside(x: Double, y: Double) -> Bool? {
        // Non-negative column and row numbers: truncation rounds them down.
        let column = (x - minX) / cellWidth, row = (y - minY) / cellHeight
        guard column >= 0, column < Double(columns), row >= 0, row < Double(rows) else {
            // Off the grid: strictly outside the polygon's envelope is certainly outside.
            return x < envelope.xmin || x > envelope.xmax || y < envelope.ymin || y > envelope.ymax ? false : nil
        }
        let cell = Int(row) * columns + Int(column)
        let state = centreState[cell]
        guard state != 2, let crossed = crossings(x, y, centreX[cell], centreY[cell], cell) else { return nil }
        return (state == 1) != (crossed & 1 == 1)
    }

    /// The columns `c0...c1` and rows `r0...r1` of the cells `box` overlaps, widened by
    /// `widening` cells on every side and clipped to the grid; `nil` when none is left.
    private func cells(covering box: Envelope, widening: Int) -> (Int, Int, Int, Int)? {
        // Cell numbers clamped in floating point first, so that far-away coordinates cannot
        // overflow the conversion.
        func index(_ value: Double, _ origin: Double, _ size: Double, _ count: Int) -> Int {
            Int(Swift.min(Swift.max(((value - origin) / size).rounded(.down), -1), Double(count)))
        }
        let c0 = Swift.max(0, index(box.xmin, minX, cellWidth, columns) - widening)
        let c1 = Swift.min(columns - 1, index(box.xmax, minX, cellWidth, columns) + widening)
        let r0 = Swift.max(0, index(box.ymin, minY, cellHeight, rows) - widening)
        let r1 = Swift.min(rows - 1, index(box.ymax, minY, cellHeight, rows) + widening)
        return c0 <= c1 && r0 <= r1 ? (c0, c1, r0, r1) : nil
    }

    /// The class of a box from the grid alone: `.outside` or `.inside` when every cell the box
    /// touches has no edge through it and its centre on that side (and, for `.inside`, the box
    /// lies within the grid), `.boundary` otherwise. No GEOS call.
    func classify(_ box: Envelope) -> RegionClass {
        let gridMaxX = minX + Double(columns) * cellWidth, gridMaxY = minY + Double(rows) * cellHeight
        if box.xmax < minX || box.xmin > gridMaxX || box.ymax < minY || box.ymin > gridMaxY { return .outside }
        let within = box.xmin >= minX && box.xmax <= gridMaxX && box.ymin >= minY && box.ymax <= gridMaxY
        guard let (c0, c1, r0, r1) = cells(covering: box, widening: 1) else { return .outside }
        var sawInside = false, sawOutside = false
        for r in r0...r1 {
            for c in c0...c1 {
                let cell = r * columns + c
                if cellStart[cell + 1] > cellStart[cell] { return .boundary }
                let state = centreState[cell]
                if state == 2 { return .boundary }
                if state == 1 { sawInside = true } else { sawOutside = true }
                if sawInside && sawOutside { return .boundary }
            }
        }
        if sawOutside { return .outside }
        return within ? .inside : .boundary
    }

    /// How a feature's segments meet the polygon's edges.
    enum Contact {
        /// A segment certainly crosses an edge at one point inside both.
        case crossing
        /// Every segment is certainly disjoint from every edge.
        case apart
        /// Neither is certain: a segment touches or runs along an edge, or a test is too close
        /// to call.
        case uncertain
    }

    /// How the segments of a feature meet the polygon's edges: the paths or rings of
    /// `feature` (``FeaturePositions/offsets``), all within `envelope`. Only the edges listed in
    /// the cells `envelope` covers can meet them.
    func contact(_ feature: FeaturePositions, envelope: Envelope) -> Contact {
        guard let offsets = feature.offsets, let (c0, c1, r0, r1) = cells(covering: envelope, widening: 0) else { return .apart }
        var uncertain = false
        for r in r0...r1 {
            for c in c0...c1 {
                let cell = r * columns + c
                for k in Int(cellStart[cell])..<Int(cellStart[cell + 1]) {
                    let e = Int(cellEdges[k]) * 4
                    let ax = edges[e], ay = edges[e + 1], bx = edges[e + 2], by = edges[e + 3]
                    let edgeBox = Envelope(
                        xmin: Swift.min(ax, bx), ymin: Swift.min(ay, by), xmax: Swift.max(ax, bx), ymax: Swift.max(ay, by))
                    guard edgeBox.intersects(envelope) else { continue }
                    for path in 0..<(offsets.count - 1) {
                        for i in offsets[path]..<(offsets[path + 1] - 1) {
                            let px = feature.x(i), py = feature.y(i)
                            let qx = feature.x(i + 1), qy = feature.y(i + 1)
                            // Boxes apart (exact comparisons): the segments are apart.
                            if Swift.max(px, qx) < edgeBox.xmin || Swift.min(px, qx) > edgeBox.xmax
                                || Swift.max(py, qy) < edgeBox.ymin || Swift.min(py, qy) > edgeBox.ymax
                            {
                                continue
                            }
                            switch Self.contact(ax, ay, bx, by, px, py, qx, qy) {
                            case .crossing: return .crossing
                            case .uncertain: uncertain = true
                            case .apart: continue
                            }
                        }
                    }
                }
            }
        }
        return uncertain ? .uncertain : .apart
    }

    /// Whether the first vertex of one of the polygon's rings lies in `box` (boundary included).
    func hasRingFirstVertex(in box: Envelope) -> Bool {
        stride(from: 0, to: ringFirstVertices.count, by: 2).contains { i in
            box.xmin <= ringFirstVertices[i] && ringFirstVertices[i] <= box.xmax
                && box.ymin <= ringFirstVertices[i + 1] && ringFirstVertices[i + 1] <= box.ymax
        }
    }

    /// How segment a–b meets segment p–q.
    @inline(__always)
    static func contact(
        _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ px: Double, _ py: Double, _ qx: Double, _ qy: Double
    ) -> Contact {
        guard let o1 = orientation(ax, ay, bx, by, px, py), let o2 = orientation(ax, ay, bx, by, qx, qy) else { return .uncertain }
        // Both ends of p–q strictly on one side of a–b's line: apart, whatever the other test says.
        if o1 == o2 { return .apart }
        guard let o3 = orientation(px, py, qx, qy, ax, ay), let o4 = orientation(px, py, qx, qy, bx, by) else { return .uncertain }
        return o3 == o4 ? .apart : .crossing
    }

    /// The side of `(px, py)` relative to the line through a and b: `true` left, `false` right,
    /// `nil` when too close to call in floating point.
    @inline(__always)
    static func orientation(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ px: Double, _ py: Double) -> Bool? {
        let left = (bx - ax) * (py - ay)
        let right = (by - ay) * (px - ax)
        let determinant = left - right
        // A generous bound on the rounding error of the expression (Shewchuk's is ~3.3e-16),
        // plus the absolute error of products in the subnormal range. On overflow the
        // comparison fails (a NaN determinant, or an infinite bound): too close to call.
        let bound = 1e-12 * (abs(left) + abs(right)) + 0x1p-1070
        if !(abs(determinant) > bound) { return nil }
        return determinant > 0
    }
}

/// The positions of one feature, read in place from a flat buffer: position `i`'s x and y are
/// `values[i * stride]` and `values[i * stride + 1]`. The buffer is a geometry's own coordinates
/// (stride 2, 3 or 4) or a geometry column's x/y buffer (stride 2) holding every row's.
struct FeaturePositions {
    /// The buffer.
    let values: UnsafeBufferPointer<Double>
    /// Values per position.
    let stride: Int
    /// The feature's positions, in order.
    let range: Range<Int>
    /// The feature's paths or rings, `offsets[k] ..< offsets[k + 1]` (positions of `values`),
    /// spanning `range`; `nil` for the points of a multipoint, which have no segments.
    let offsets: UnsafeBufferPointer<Int>?

    @inline(__always) func x(_ i: Int) -> Double { values[i * stride] }
    @inline(__always) func y(_ i: Int) -> Double { values[i * stride + 1] }
}
