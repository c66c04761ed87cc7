/// A rectangle in pixel positions (y down) that rings and paths reaching beyond it are clipped
/// to: the view grown by a margin wider than half the stroke, so that the edges clipping adds
/// along it are never seen.
struct PixelRectangle: Sendable, Equatable {
    let minX: Double
    let minY: Double
    let maxX: Double
    let maxY: Double

    /// Whether the box `minX…maxX × minY…maxY` lies inside this rectangle.
    @inline(__always)
    func contains(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Bool {
        minX >= self.minX && maxX <= self.maxX && minY >= self.minY && maxY <= self.maxY
    }

    /// Ring `ring` (interleaved x, y; closed or not) clipped to the rectangle, by
    /// Sutherland–Hodgman: the part of its inside within the rectangle, as one ring (not
    /// repeating its first vertex), with edges along the rectangle where the ring went outside;
    /// empty when nothing is left.
    func clip(ring: [Double]) -> [Double] {
        var current = ring
        for side in 0..<4 {
            let count = current.count / 2
            guard count >= 3 else { return [] }
            var output: [Double] = []
            output.reserveCapacity(current.count + 8)
            var previousX = current[2 * (count - 1)]
            var previousY = current[2 * (count - 1) + 1]
            var previousInside = isInside(side, previousX, previousY)
            for i in 0..<count {
                let x = current[2 * i]
                let y = current[2 * i + 1]
                let inside = isInside(side, x, y)
                if inside != previousInside {
                    let (cx, cy) = crossing(side, previousX, previousY, x, y)
                    output.append(cx)
                    output.append(cy)
                }
                if inside {
                    output.append(x)
                    output.append(y)
                }
                previousX = x
                previousY = y
                previousInside = inside
            }
            current = output
        }
        return current.count >= 6 ? current : []
    }

    /// Path `path` (interleaved x, y) clipped to the rectangle, by Liang–Barsky on each segment:
    /// the pieces of the path inside it, in order, each as interleaved x, y of 2 or more
    /// vertices.
    func clip(path: [Double]) -> [[Double]] {
        var pieces: [[Double]] = []
        var piece: [Double] = []
        let count = path.count / 2
        guard count >= 2 else { return [] }
        for i in 1..<count {
            let (x0, y0, x1, y1) = (path[2 * i - 2], path[2 * i - 1], path[2 * i], path[2 * i + 1])
            guard let (t0, t1) = segmentRange(x0, y0, x1, y1) else {
                if piece.count >= 4 { pieces.append(piece) }
                piece = []
                continue
            }
            if t0 > 0 || piece.isEmpty {
                if piece.count >= 4 { pieces.append(piece) }
                piece = [x0 + t0 * (x1 - x0), y0 + t0 * (y1 - y0)]
            }
            piece.append(t1 < 1 ? x0 + t1 * (x1 - x0) : x1)
            piece.append(t1 < 1 ? y0 + t1 * (y1 - y0) : y1)
            if t1 < 1 {
                pieces.append(piece)
                piece = []
            }
        }
        if piece.count >= 4 { pieces.append(piece) }
        return pieces
    }

    /// The part `t0…t1` of the segment from (x0, y0) to (x1, y1) inside the rectangle (0 and 1
    /// are its ends), or `nil` when it misses the rectangle.
    private func segmentRange(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> (Double, Double)? {
        var t0 = 0.0
        var t1 = 1.0
        let dx = x1 - x0
        let dy = y1 - y0
        // Each side as p · t ≤ q: left, right, top, bottom.
        for (p, q) in [(-dx, x0 - minX), (dx, maxX - x0), (-dy, y0 - minY), (dy, maxY - y0)] {
            if p == 0 {
                guard q >= 0 else { return nil }
                continue
            }
            let t = q / p
            if p < 0 {
                if t > t1 { return nil }
                t0 = max(t0, t)
            } else {
                if t < t0 { return nil }
                t1 = min(t1, t)
            }
        }
        return (t0, t1)
    }

    /// Whether (x, y) is on the inner side of side `side` (0 left, 1 right, 2 top, 3 bottom).
    @inline(__always)
    private func isInside(_ side: Int, _ x: Double, _ y: Double) -> Bool {
        switch side {
        case 0: x >= minX
        case 1: x <= maxX
        case 2: y >= minY
        default: y <= maxY
        }
    }

    /// Where the segment from (x0, y0) to (x1, y1), which crosses side `side`, meets it.
    private func crossing(_ side: Int, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> (Double, Double) {
        switch side {
        case 0, 1:
            let x = side == 0 ? minX : maxX
            return (x, y0 + (x - x0) / (x1 - x0) * (y1 - y0))
        default:
            let y = side == 2 ? minY : maxY
            return (x0 + (y - y0) / (y1 - y0) * (x1 - x0), y)
        }
    }
}
