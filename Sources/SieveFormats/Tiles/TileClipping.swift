import SieveGeometry

/// Clipping and simplification of positions in tile units (flat arrays x, y, x, y, …), for
/// vector tiles.
enum TileClipping {
    /// The pieces of the line `positions` inside the square `low…high` (both axes): each
    /// segment cut where it crosses the square (Liang–Barsky), consecutive pieces joined.
    static func clipLine(_ positions: [Double], low: Double, high: Double) -> [[Double]] {
        let count = positions.count / 2
        guard count >= 2 else { return [] }
        var pieces: [[Double]] = []
        var current: [Double] = []
        for i in 0..<(count - 1) {
            let (x0, y0, x1, y1) = (positions[2 * i], positions[2 * i + 1], positions[2 * i + 2], positions[2 * i + 3])
            guard let (t0, t1) = clipSegment(x0, y0, x1, y1, low: low, high: high) else {
                if !current.isEmpty {
                    pieces.append(current)
                    current = []
                }
                continue
            }
            let (ax, ay) = (x0 + t0 * (x1 - x0), y0 + t0 * (y1 - y0))
            let (bx, by) = (x0 + t1 * (x1 - x0), y0 + t1 * (y1 - y0))
            if current.isEmpty || t0 > 0 {
                if !current.isEmpty {
                    pieces.append(current)
                    current = []
                }
                current = [ax, ay]
            }
            current.append(bx)
            current.append(by)
            if t1 < 1 {
                pieces.append(current)
                current = []
            }
        }
        if !current.isEmpty { pieces.append(current) }
        return pieces.filter { $0.count >= 4 }
    }

    /// The parameters (0…1) of the part of the segment inside the square, `nil` when none is.
    static func clipSegment(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, low: Double, high: Double) -> (Double, Double)? {
        var t0 = 0.0, t1 = 1.0
        let dx = x1 - x0, dy = y1 - y0
        for (p, q) in [(-dx, x0 - low), (dx, high - x0), (-dy, y0 - low), (dy, high - y0)] {
            if p == 0 {
                if q < 0 { return nil }
            } else {
                let r = q / p
                if p < 0 {
                    if r > t1 { return nil }
                    if r > t0 { t0 = r }
                } else {
                    if r < t0 { return nil }
                    if r < t1 { t1 = r }
                }
            }
        }
        return (t0, t1)
    }

    /// The ring `positions` (closed or not) cut to the square `low…high` by the
    /// Sutherland–Hodgman rule: where the ring leaves the square, the result follows its edge.
    /// The result is closed; empty when nothing is inside.
    static func clipRing(_ positions: [Double], low: Double, high: Double) -> [Double] {
        var ring = positions
        if ring.count >= 4, ring[0] == ring[ring.count - 2], ring[1] == ring[ring.count - 1] { ring.removeLast(2) }
        // Inside the square already: as it is.
        var inside = true
        for i in stride(from: 0, to: ring.count, by: 2) where ring[i] < low || ring[i] > high || ring[i + 1] < low || ring[i + 1] > high {
            inside = false
            break
        }
        if !inside {
            // The four edges: x ≥ low, x ≤ high, y ≥ low, y ≤ high.
            for edge in 0..<4 {
                guard ring.count >= 6 else { return [] }
                let axis = edge / 2
                let keepAbove = edge % 2 == 0
                let bound = keepAbove ? low : high
                func isIn(_ i: Int) -> Bool { keepAbove ? ring[i + axis] >= bound : ring[i + axis] <= bound }
                var out: [Double] = []
                out.reserveCapacity(ring.count + 8)
                let n = ring.count / 2
                for k in 0..<n {
                    let current = 2 * k, previous = 2 * ((k + n - 1) % n)
                    let currentIn = isIn(current), previousIn = isIn(previous)
                    if currentIn != previousIn {
                        let t = (bound - ring[previous + axis]) / (ring[current + axis] - ring[previous + axis])
                        let x = ring[previous] + t * (ring[current] - ring[previous])
                        let y = ring[previous + 1] + t * (ring[current + 1] - ring[previous + 1])
                        out.append(axis == 0 ? bound : x)
                        out.append(axis == 1 ? bound : y)
                    }
                    if currentIn {
                        out.append(ring[current])
                        out.append(ring[current + 1])
                    }
                }
                ring = out
            }
        }
        guard ring.count >= 6 else { return [] }
        ring.append(ring[0])
        ring.append(ring[1])
        return ring
    }

    /// The indices of the positions the Douglas–Peucker rule keeps with `tolerance`
    /// (``/SieveGeometry/Geometry/generalized(maxOffset:)``'s rule).
    static func douglasPeucker(_ positions: [Double], tolerance: Double) -> [Int] {
        DouglasPeucker.kept(count: positions.count / 2, tolerance: tolerance) { (positions[2 * $0], positions[2 * $0 + 1]) }
    }
}
