extension Geometry {
    /// The geometry with vertices removed by the Douglas–Peucker rule, each path and ring on
    /// its own, so that no removed vertex lies farther than `maxOffset` from the line that
    /// replaces it: the ArcGIS REST API's `maxAllowableOffset`.
    ///
    /// ```swift
    /// let line = try Geometry(wkt: "LINESTRING (0 0, 1 0.1, 2 0, 3 5)")
    /// line.generalized(maxOffset: 0.5)  // LINESTRING (0 0, 2 0, 3 5)
    /// ```
    ///
    /// - A path keeps its two ends. Between two kept vertices, the vertex farthest (in x and y)
    ///   from the segment joining them is kept when it is farther than `maxOffset`, and the
    ///   rule is applied again on each side; otherwise every vertex between them goes.
    /// - A ring is taken as a path from its first vertex round to that vertex again, so the
    ///   first vertex is kept and the rule measures from it. A ring is never reduced below a
    ///   triangle: one that would be keeps its first vertex, the vertex farthest from it, and
    ///   the vertex farthest from the segment between those two. Rings are never dropped, so a
    ///   feature that had a geometry keeps one; the vertices kept stay in ring order.
    /// - Points, multipoints and envelopes are returned as they are; a collection's members are
    ///   generalized one by one. z and m stay with the vertices kept.
    /// - `maxOffset` of 0 or less, or not a number, returns the geometry as it is.
    public func generalized(maxOffset: Double) -> Geometry {
        guard maxOffset > 0 else { return self }
        switch self {
        case .point, .multipoint, .envelope:
            return self
        case .polyline(let polyline):
            var kept = CoordinateBuffer(layout: polyline.coordinates.layout)
            var offsets = [0]
            for p in 0..<(polyline.pathOffsets.count - 1) {
                let range = polyline.pathOffsets[p]..<polyline.pathOffsets[p + 1]
                for i in Self.douglasPeucker(polyline.coordinates, range, maxOffset) { kept.append(polyline.coordinates[i]) }
                offsets.append(kept.count)
            }
            return .polyline(Polyline(trusted: kept, pathOffsets: offsets, envelope: kept.envelope))
        case .polygon(let polygon):
            var kept = CoordinateBuffer(layout: polygon.coordinates.layout)
            var ringOffsets = [0]
            for r in 0..<polygon.ringCount {
                let range = polygon.ringRange(r)
                var indices = Self.douglasPeucker(polygon.coordinates, range, maxOffset)
                if indices.count < 4, range.count >= 4 { indices = Self.triangle(polygon.coordinates, range) }
                for i in indices { kept.append(polygon.coordinates[i]) }
                ringOffsets.append(kept.count)
            }
            return .polygon(
                Polygon(trusted: kept, ringOffsets: ringOffsets, partOffsets: polygon.partOffsets, envelope: kept.envelope))
        case .collection(let collection):
            return .collection(GeometryCollection(collection.geometries.map { $0.generalized(maxOffset: maxOffset) }))
        }
    }

    /// The indices of `range` the Douglas–Peucker rule keeps, in order: both ends, and between
    /// two kept indices the one farthest from their segment when farther than `tolerance`.
    static func douglasPeucker(_ coordinates: CoordinateBuffer, _ range: Range<Int>, _ tolerance: Double) -> [Int] {
        DouglasPeucker.kept(count: range.count, tolerance: tolerance) {
            (coordinates.x(at: range.lowerBound + $0), coordinates.y(at: range.lowerBound + $0))
        }.map { range.lowerBound + $0 }
    }

    /// The closed triangle a collapsing ring keeps: its first vertex, the vertex farthest from
    /// it, the vertex farthest from the segment between them (in ring order), and the first
    /// vertex again.
    static func triangle(_ coordinates: CoordinateBuffer, _ range: Range<Int>) -> [Int] {
        let first = range.lowerBound
        let a = (coordinates.x(at: first), coordinates.y(at: first))
        let inner = (first + 1)..<(range.upperBound - 1)
        let far = inner.max { squaredDistance((coordinates.x(at: $0), coordinates.y(at: $0)), a, a) < squaredDistance((coordinates.x(at: $1), coordinates.y(at: $1)), a, a) } ?? first
        let b = (coordinates.x(at: far), coordinates.y(at: far))
        let third = inner.filter { $0 != far }.max {
            squaredDistance((coordinates.x(at: $0), coordinates.y(at: $0)), a, b) < squaredDistance((coordinates.x(at: $1), coordinates.y(at: $1)), a, b)
        } ?? far
        return [first] + [far, third].sorted() + [range.upperBound - 1]
    }

    /// The squared distance from `p` to the segment from `a` to `b` (to `a` when they are one
    /// point).
    @inline(__always)
    package static func squaredDistance(_ p: (Double, Double), _ a: (Double, Double), _ b: (Double, Double)) -> Double {
        let dx = b.0 - a.0, dy = b.1 - a.1
        let length = dx * dx + dy * dy
        var t = length > 0 ? ((p.0 - a.0) * dx + (p.1 - a.1) * dy) / length : 0
        t = Swift.min(Swift.max(t, 0), 1)
        let x = a.0 + t * dx - p.0, y = a.1 + t * dy - p.1
        return x * x + y * y
    }
}

/// The Douglas–Peucker rule on any sequence of positions: which to keep so that none removed
/// lies farther than a tolerance from the line that replaces it.
package enum DouglasPeucker {
    /// The indices (0..<`count`) kept, ascending: both ends, and between two kept positions the
    /// one farthest from their segment (the first of equals) when farther than `tolerance`, the
    /// rule applied again on each side. `position` gives position `i`'s x and y.
    package static func kept(count: Int, tolerance: Double, _ position: (Int) -> (Double, Double)) -> [Int] {
        guard count > 2 else { return Array(0..<count) }
        var keep = [Bool](repeating: false, count: count)
        keep[0] = true
        keep[count - 1] = true
        // Spans still to examine: a stack, not recursion, so that a path of a million vertices
        // cannot exhaust the stack.
        var spans = [(0, count - 1)]
        let squared = tolerance * tolerance
        while let (first, last) = spans.popLast() {
            guard last - first > 1 else { continue }
            let a = position(first), b = position(last)
            var farthest = -1
            var farthestDistance = -1.0
            for i in (first + 1)..<last {
                let distance = Geometry.squaredDistance(position(i), a, b)
                if distance > farthestDistance {
                    farthestDistance = distance
                    farthest = i
                }
            }
            if farthestDistance > squared {
                keep[farthest] = true
                spans.append((first, farthest))
                spans.append((farthest, last))
            }
        }
        return (0..<count).filter { keep[$0] }
    }
}
