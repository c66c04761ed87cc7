import SieveGEOS
import SieveGeometry
import SieveIndex

/// A fast, exact point-in-polygon test for the many points a region filter must test one by
/// one near a query polygon's boundary.
///
/// The polygon's envelope is cut into a grid; each cell lists the polygon edges that pass
/// through it (or within a hundredth of a cell of it). A point is inside exactly when the cell's centre is inside (asked of GEOS once per cell)
/// and the segment from the point to the centre crosses an even number of edges — or outside
/// and the count is odd. Only the cell's own edges can cross that segment, so a test costs a
/// handful of orientation tests instead of a walk over the polygon's edge index.
///
/// Floating-point orientation tests are only trusted when their value is clearly away from zero;
/// a point on or very near an edge, a segment through a vertex, or a centre on the boundary makes
/// the test answer `nil`, and the caller asks GEOS. The answers given are therefore GEOS's.
///
/// A class because cell centres are classified lazily; like the prepared geometry it holds, it
/// belongs to one query on one thread.
final class PolygonGrid {
    private let prepared: PreparedGeometry
    private let minX: Double, minY: Double
    private let cellWidth: Double, cellHeight: Double
    private let columns: Int, rows: Int
    /// Edge endpoints, four values per edge.
    private let edges: [Double]
    /// Edges of cell `c`: `cellEdges[cellStart[c] ..< cellStart[c + 1]]`.
    private let cellStart: [Int32]
    private let cellEdges: [Int32]
    /// Per cell: 1 centre inside, 0 outside, 2 centre on the boundary (no shortcut), 3 not yet
    /// asked (GEOS is asked the first time a cell is used).
    private var centreState: [UInt8]
    private let centreX: [Double], centreY: [Double]

    /// Builds the grid of an areal geometry (a polygon or an envelope); `nil` for anything else.
    init?(_ geometry: Geometry, prepared: PreparedGeometry) {
        var segments: [Double] = []
        switch geometry {
        case .polygon(let polygon):
            let coordinates = polygon.coordinates
            for r in 0..<polygon.ringCount {
                let range = polygon.ringRange(r)
                for i in range.lowerBound..<(range.upperBound - 1) {
                    segments += [coordinates.x(at: i), coordinates.y(at: i), coordinates.x(at: i + 1), coordinates.y(at: i + 1)]
                }
            }
        default:
            return nil
        }
        let box = geometry.envelope
        let edgeCount = segments.count / 4
        guard edgeCount >= 16, box.width > 0, box.height > 0 else { return nil }
        let side = Swift.max(8, Swift.min(512, Int(Double(edgeCount).squareRoot() * 2)))
        columns = side
        rows = side
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
            var positive = 0, negative = 0
            for (x, y) in [(x0, y0), (x1, y0), (x0, y1), (x1, y1)] {
                let d = (bx - ax) * (y - ay) - (by - ay) * (x - ax)
                if d > 0 { positive += 1 } else if d < 0 { negative += 1 } else { return true }
            }
            return positive > 0 && negative > 0
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
        centreState = [UInt8](repeating: 3, count: side * side)
        centreX = xs
        centreY = ys
        self.prepared = prepared
    }

    /// The state of cell `cell`'s centre, asking GEOS on first use.
    @inline(__always)
    private func state(_ cell: Int) -> UInt8 {
        let known = centreState[cell]
        if known != 3 { return known }
        var state: UInt8 = 2
        if let inside = try? prepared.contains(x: centreX[cell], y: centreY[cell]) {
            if inside {
                state = 1
            } else if let touches = try? prepared.intersects(x: centreX[cell], y: centreY[cell]), !touches {
                state = 0
            }
        }
        centreState[cell] = state
        return state
    }

    /// Whether `(x, y)` lies in the polygon's interior, or `nil` when the answer is not certain
    /// (on or next to the boundary) — then ask GEOS. A point strictly inside is also the only
    /// kind that intersects without lying on the boundary, so `true` answers both `intersects`
    /// and `contains`, and `false` both negatively.
    @inline(__always)
    func isInside(x: Double, y: Double) -> Bool? {
        let c = Int(((x - minX) / cellWidth).rounded(.down)), r = Int(((y - minY) / cellHeight).rounded(.down))
        guard c >= 0, c < columns, r >= 0, r < rows else { return nil }
        let cell = r * columns + c
        let state = state(cell)
        guard state != 2 else { return nil }
        let cx = centreX[cell], cy = centreY[cell]
        var crossings = 0
        for k in Int(cellStart[cell])..<Int(cellStart[cell + 1]) {
            let e = Int(cellEdges[k]) * 4
            let ax = edges[e], ay = edges[e + 1], bx = edges[e + 2], by = edges[e + 3]
            guard let o1 = Self.orientation(ax, ay, bx, by, x, y), let o2 = Self.orientation(ax, ay, bx, by, cx, cy)
            else { return nil }
            // Both ends on one side of the edge's line: no crossing, whatever the other test says.
            if o1 == o2 { continue }
            guard let o3 = Self.orientation(x, y, cx, cy, ax, ay), let o4 = Self.orientation(x, y, cx, cy, bx, by)
            else { return nil }
            if o3 != o4 { crossings += 1 }
        }
        return (state == 1) != (crossings % 2 == 1)
    }

    /// The class of a box from the grid alone: `.outside` or `.inside` when every cell the box
    /// touches has no edge through it and its centre on that side (and, for `.inside`, the box
    /// lies within the grid), `.boundary` otherwise. No GEOS call.
    func classify(_ box: Envelope) -> RegionClass {
        let gridMaxX = minX + Double(columns) * cellWidth, gridMaxY = minY + Double(rows) * cellHeight
        if box.xmax < minX || box.xmin > gridMaxX || box.ymax < minY || box.ymin > gridMaxY { return .outside }
        let within = box.xmin >= minX && box.xmax <= gridMaxX && box.ymin >= minY && box.ymax <= gridMaxY
        let c0 = Swift.max(0, Int(((box.xmin - minX) / cellWidth).rounded(.down)) - 1)
        let c1 = Swift.min(columns - 1, Int(((box.xmax - minX) / cellWidth).rounded(.down)) + 1)
        let r0 = Swift.max(0, Int(((box.ymin - minY) / cellHeight).rounded(.down)) - 1)
        let r1 = Swift.min(rows - 1, Int(((box.ymax - minY) / cellHeight).rounded(.down)) + 1)
        var sawInside = false, sawOutside = false
        for r in r0...r1 {
            for c in c0...c1 {
                let cell = r * columns + c
                if cellStart[cell + 1] > cellStart[cell] { return .boundary }
                let state = state(cell)
                if state == 2 { return .boundary }
                if state == 1 { sawInside = true } else { sawOutside = true }
                if sawInside && sawOutside { return .boundary }
            }
        }
        if sawOutside { return .outside }
        return within ? .inside : .boundary
    }

    /// The side of `(px, py)` relative to the line through a and b: `true` left, `false` right,
    /// `nil` when too close to call in floating point.
    @inline(__always)
    static func orientation(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ px: Double, _ py: Double) -> Bool? {
        let left = (bx - ax) * (py - ay)
        let right = (by - ay) * (px - ax)
        let determinant = left - right
        // A generous bound on the rounding error of the expression (Shewchuk's is ~3.3e-16).
        let bound = 1e-12 * (abs(left) + abs(right))
        if abs(determinant) <= bound { return nil }
        return determinant > 0
    }
}
