import SieveGeometry

/// Identify's own measure of the distance from a point to a polyline or polygon row, read
/// straight from the geometry column's shape arrays: the same answer GEOS's `GEOSDistance_r`
/// gives, without materializing the row or building a GEOS geometry.
///
/// The distance to a line is the smallest distance to one of its segments, computed with
/// GEOS's own arithmetic (`Distance::pointToSegment`: the projection parameter, then the
/// perpendicular offset, or the distance to the nearer end), so the value is the one GEOS
/// returns. A polygon is at distance 0 when the point lies inside one of its parts (inside the
/// part's outer ring and in none of its holes, by ray crossing), else at its rings' distance.
///
/// Only cases this arithmetic decides reliably are measured here; ``measure(x:y:row:kind:shapes:xy:)``
/// returns `nil` for the others, which GEOS then measures:
///
/// - a coordinate of the row or of the point that is non-finite, above 10¹⁰⁰ or a nonzero
///   below 10⁻¹⁰⁰ in magnitude (squares would overflow or underflow; GEOS sees such tiny
///   coordinates snapped to its grid);
/// - a path of fewer than 2 positions, a ring of fewer than 4 or not closed;
/// - an outer ring whose area is not clearly above zero (GEOS takes a ring enclosing no area
///   as a line, without its holes);
/// - a point so near a ring (within 10⁻¹² of the largest magnitude of the coordinates) that
///   rounding could decide on which side of it the point lies.
enum ShapeDistance {
    /// The distance from (`px`, `py`) to row `row` (a `.polyline` or `.polygon` of `shapes`,
    /// coordinates `xy`), or `nil` when GEOS must measure it (see the type's description).
    static func measure(
        x px: Double, y py: Double, row: Int, kind: Geometry.Kind, shapes: GeometryColumn.Shapes,
        xy: UnsafeBufferPointer<Double>
    ) -> Double? {
        guard kind == .polyline || kind == .polygon, isPlain(px), isPlain(py) else { return nil }
        let closed = kind == .polygon
        var nearest = Double.infinity
        var magnitude = max(abs(px), abs(py))
        var inside = false
        for part in shapes.parts(row: row) {
            let rings = shapes.rings(part: part)
            var insidePart = false
            for ring in rings {
                let positions = shapes.positions(ring: ring)
                guard positions.count >= (closed ? 4 : 2) else { return nil }
                let first = 2 * positions.lowerBound
                let last = 2 * (positions.upperBound - 1)
                if closed, xy[first] != xy[last] || xy[first + 1] != xy[last + 1] { return nil }
                var ax = xy[first], ay = xy[first + 1]
                guard isPlain(ax), isPlain(ay) else { return nil }
                magnitude = max(magnitude, abs(ax), abs(ay))
                var crossings = false
                // Twice the signed area, from offsets to the first position (exact differences).
                var area = 0.0
                var minX = ax, maxX = ax, minY = ay, maxY = ay
                for position in (positions.lowerBound + 1)..<positions.upperBound {
                    let bx = xy[2 * position], by = xy[2 * position + 1]
                    guard isPlain(bx), isPlain(by) else { return nil }
                    magnitude = max(magnitude, abs(bx), abs(by))
                    // A segment whose box lies farther off than the nearest so far (by more than
                    // any rounding of either) cannot be nearer: not measured.
                    let gapX = max(min(ax, bx) - px, px - max(ax, bx)), gapY = max(min(ay, by) - py, py - max(ay, by))
                    if max(gapX, gapY) <= nearest * (1 + 1e-9) + 1e-12 * magnitude {
                        nearest = min(nearest, pointToSegment(px, py, ax, ay, bx, by))
                    }
                    if closed {
                        // The edge crosses the ray from the point to +x: it straddles the
                        // point's y and the point lies to its left going up (right going down).
                        if (ay > py) != (by > py),
                            ((bx - ax) * (py - ay) - (px - ax) * (by - ay) > 0) == (by > ay)
                        {
                            crossings.toggle()
                        }
                        area += (ax - xy[first]) * (by - xy[first + 1]) - (bx - xy[first]) * (ay - xy[first + 1])
                        minX = min(minX, bx); maxX = max(maxX, bx); minY = min(minY, by); maxY = max(maxY, by)
                    }
                    ax = bx
                    ay = by
                }
                guard closed else { continue }
                if ring == rings.lowerBound {
                    // The rounding error of the area is below count · 4ε · width · height.
                    let bound = Double(positions.count + 16) * 1e-13 * (maxX - minX) * (maxY - minY)
                    guard abs(area) > bound, bound > 0 else { return nil }
                    insidePart = crossings
                } else if crossings {
                    insidePart = false
                }
            }
            if insidePart { inside = true }
        }
        // Too near a ring for the crossings (or a segment distance of 0) to be trusted.
        guard nearest.isFinite, nearest > 1e-12 * magnitude else { return nil }
        return inside ? 0 : nearest
    }

    /// Whether `value` is 0 or of magnitude 10⁻¹⁰⁰ … 10¹⁰⁰.
    @inline(__always)
    private static func isPlain(_ value: Double) -> Bool {
        let magnitude = abs(value)
        return value == 0 || (magnitude >= 1e-100 && magnitude <= 1e100)
    }

    /// The distance from P to segment AB, as GEOS computes it (`Distance::pointToSegment`).
    @inline(__always)
    static func pointToSegment(
        _ px: Double, _ py: Double, _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double
    ) -> Double {
        if ax == bx, ay == by { return pointDistance(px, py, ax, ay) }
        let len2 = (bx - ax) * (bx - ax) + (by - ay) * (by - ay)
        let r = ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / len2
        if r <= 0 { return pointDistance(px, py, ax, ay) }
        if r >= 1 { return pointDistance(px, py, bx, by) }
        let s = ((ay - py) * (bx - ax) - (ax - px) * (by - ay)) / len2
        return abs(s) * len2.squareRoot()
    }

    /// The distance between two positions, as GEOS computes it.
    @inline(__always)
    private static func pointDistance(_ px: Double, _ py: Double, _ ax: Double, _ ay: Double) -> Double {
        let dx = px - ax, dy = py - ay
        return (dx * dx + dy * dy).squareRoot()
    }
}
