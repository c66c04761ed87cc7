import SieveGeometry

/// The form in which a geometry is handed to GEOS: the same point set, written so that every
/// supported GEOS version (3.10 and later) answers every relationship about it consistently and
/// without crashing.
///
/// First, every coordinate is rounded to the grid of ``GEOSResolution`` (multiples of 2^-511),
/// which moves only coordinates smaller than about 1.3·10⁻¹³⁸, by at most 7.5·10⁻¹⁵⁵: GEOS's
/// arithmetic cannot resolve positions closer together than that. Then these rewrites, each
/// leaving the point set unchanged:
///
/// - **An envelope without width or height is its line or point** (so its dimension is 1 or 0,
///   not the 2 of a rectangle).
/// - **Empty members of collections are dropped**, at every nesting level (a collection left
///   with no member is the empty collection). An empty member contributes no point, so no entry
///   of a DE-9IM matrix depends on it, and neither does the collection's dimension, which is that
///   of its non-empty members (as in GEOS 3.13's RelateNG). GEOS 3.10–3.12 dereference a null
///   pointer when a collection holding an empty point or an empty line string is tested for
///   containment in a rectangle (`RectangleContains`), and count an empty polygon member's
///   dimension 2 in `crosses` and `overlaps`.
/// - **A zero-length path** (every vertex at the same x and y) **is its point**. OGC calls such a
///   line invalid; GEOS 3.10–3.12 answer about it inconsistently (its DE-9IM matrix treats it as
///   empty, the rectangle and prepared fast paths as its point, so `LINESTRING (1 1, 1 1)`
///   "intersects" the square `0,0,2,2` and is "disjoint" from it at once). GEOS 3.13's RelateNG
///   treats it as its point, and so does GeoSieve on every GEOS.
/// - **A polygon part whose outer ring has no extent** (every vertex at the same x and y) **is
///   its point**, for the same reason; **a part whose outer ring encloses no area anywhere is
///   that ring as a closed line** — the union of its segments. Such a ring retraces itself: it
///   is folded onto a line (`POLYGON ((0 0, 1 1, 2 2, 0 0))`), or a spur traced out and back
///   (`POLYGON ((0 0, 10 0, 10 10, 10 0, 0 0))`), or a tree of them
///   (``CoordinateBuffer/enclosesNoArea(_:)`` decides exactly). GEOS 3.10–3.14's shortcuts and
///   DE-9IM matrix disagree about such polygons (a five-position spur passes GEOS's rectangle
///   test, so `intersects` takes the whole square as its area while the matrix takes none), and
///   their matrix does not describe any point set. The holes of such a part are dropped (no area
///   is left to have a hole in). GEOS 3.14 treats a folded polygon as an area with no interior,
///   the ring its boundary, so its matrices name the same point set with interior and boundary
///   swapped.
///
/// Everything else, valid or not, reaches GEOS as it is (on the grid). A hole that encloses no
/// area inside a real outer ring stays (GEOS takes its ring as boundary), but every relationship
/// of a geometry with such a hole is read off the DE-9IM matrix (``hasCollapsedRing``), not
/// GEOS's shortcuts.
extension Geometry {
    /// Whether a hole of a polygon (at any depth of a collection) encloses no area without
    /// being a single repeated position. Such rings are invalid in the OGC sense. Meant for
    /// ``geosForm()``'s result, in which outer rings always enclose an area.
    var hasCollapsedRing: Bool {
        switch self {
        case .point, .multipoint, .polyline, .envelope:
            return false
        case .polygon(let polygon):
            let coordinates = polygon.coordinates
            let outer = Set(polygon.partOffsets)
            return (0..<polygon.ringCount).contains { r in
                guard !outer.contains(r) else { return false }
                let range = polygon.ringRange(r)
                return !coordinates.hasNoExtent(range) && coordinates.enclosesNoArea(Array(range))
            }
        case .collection(let collection):
            return collection.geometries.contains(where: \.hasCollapsedRing)
        }
    }

    /// The dimension of the boundary of the point set (OGC rules): none (`nil`) for points and
    /// for lines whose every end is shared by an even number of paths (the mod-2 rule), 0 for
    /// other lines, 1 for areas; for a collection the largest of its members', the line ends
    /// counted over all its lines together.
    var boundaryDimension: Int? {
        var ends: [Point: Int] = [:]
        var hasArea = false
        collectBoundary(&ends, &hasArea)
        if hasArea { return 1 }
        return ends.values.contains { !$0.isMultiple(of: 2) } ? 0 : nil
    }

    private func collectBoundary(_ ends: inout [Point: Int], _ hasArea: inout Bool) {
        switch self {
        case .point, .multipoint:
            return
        case .polyline(let polyline):
            for i in 0..<polyline.pathCount {
                let range = polyline.pathRange(i)
                let first = polyline.coordinates[range.lowerBound], last = polyline.coordinates[range.upperBound - 1]
                ends[Point(x: first.x, y: first.y), default: 0] += 1
                ends[Point(x: last.x, y: last.y), default: 0] += 1
            }
        case .polygon(let polygon):
            if !polygon.isEmpty { hasArea = true }
        case .envelope(let box):
            if box.isEmpty || (box.width == 0 && box.height == 0) { return }
            if box.width > 0 && box.height > 0 {
                hasArea = true
            } else {
                ends[Point(x: box.xmin, y: box.ymin), default: 0] += 1
                ends[Point(x: box.xmax, y: box.ymax), default: 0] += 1
            }
        case .collection(let collection):
            for member in collection.geometries { member.collectBoundary(&ends, &hasArea) }
        }
    }

    /// The GEOS form of this geometry, or `nil` when it is this geometry itself (the common case,
    /// found without copying anything).
    func geosForm() -> Geometry? {
        let snapped = snappedToGEOSResolution()
        let base = snapped ?? self
        return base.degenerateForm() ?? snapped
    }

    /// The geometry with every x and y rounded to a multiple of ``GEOSResolution/spacing``;
    /// `nil` when none changes (every coordinate is 0 or at least 2^-459 in magnitude).
    package func snappedToGEOSResolution() -> Geometry? {
        switch self {
        case .point(let point):
            guard !point.isEmpty, GEOSResolution.changes(point.x) || GEOSResolution.changes(point.y) else { return nil }
            var snapped = point
            snapped.x = GEOSResolution.snap(point.x)
            snapped.y = GEOSResolution.snap(point.y)
            return .point(snapped)
        case .multipoint(let multipoint):
            return multipoint.coordinates.snappedToGEOSResolution().flatMap { try? Multipoint(coordinates: $0) }.map(Geometry.multipoint)
        case .polyline(let polyline):
            return polyline.coordinates.snappedToGEOSResolution().flatMap {
                try? Polyline(coordinates: $0, pathOffsets: polyline.pathOffsets)
            }.map(Geometry.polyline)
        case .polygon(let polygon):
            return polygon.coordinates.snappedToGEOSResolution().flatMap {
                try? Polygon(coordinates: $0, ringOffsets: polygon.ringOffsets, partOffsets: polygon.partOffsets)
            }.map(Geometry.polygon)
        case .envelope(let box):
            guard !box.isEmpty, [box.xmin, box.ymin, box.xmax, box.ymax].contains(where: GEOSResolution.changes) else { return nil }
            return .envelope(GEOSResolution.snap(box))
        case .collection(let collection):
            var changed = false
            let members = collection.geometries.map { member in
                guard let snapped = member.snappedToGEOSResolution() else { return member }
                changed = true
                return snapped
            }
            return changed ? .collection(GeometryCollection(members)) : nil
        }
    }

    /// Degenerate shapes rewritten (see above); `nil` when there is none.
    private func degenerateForm() -> Geometry? {
        switch self {
        case .point, .multipoint:
            return nil
        case .envelope(let box):
            // An envelope without width or height is a line or a point, with that dimension.
            guard !box.isEmpty, box.width == 0 || box.height == 0 else { return nil }
            if box.width == 0 && box.height == 0 { return .point(Point(x: box.xmin, y: box.ymin)) }
            let ends = [Point(x: box.xmin, y: box.ymin), Point(x: box.xmax, y: box.ymax)]
            return (try? Polyline(paths: [ends])).map(Geometry.polyline)
        case .polyline(let polyline):
            return polyline.geosForm()
        case .polygon(let polygon):
            return polygon.geosForm()
        case .collection(let collection):
            var members: [Geometry] = []
            var changed = false
            for member in collection.geometries {
                if member.isEmpty {
                    changed = true
                    continue
                }
                if let rewritten = member.degenerateForm() {
                    members.append(rewritten)
                    changed = true
                } else {
                    members.append(member)
                }
            }
            return changed ? .collection(GeometryCollection(members)) : nil
        }
    }
}

/// The grid GeoSieve rounds coordinates to before GEOS sees them: multiples of 2^-511
/// (about 1.5·10⁻¹⁵⁴).
///
/// GEOS computes squared distances and products of coordinate differences in plain `Double`
/// arithmetic and assumes they do not underflow: GEOS 3.10–3.12's DE-9IM computation loses
/// every segment whose squared length is zero in floating point although its ends differ (both
/// offsets below about 1.5·10⁻¹⁶²), while the prepared predicates see it, so
/// `LINESTRING (0 1e-200, 0 0)` touched `LINESTRING (-5 0, 5 0)` for `intersects` and not for
/// `relate`; two geometries with vertices that close together get wrong matrices or topology
/// exceptions. On this grid two distinct positions differ by at least 2^-511 in x or y, so
/// every such square or product of two differences is a normal number (at least 2^-1022), and
/// is exact for positions near one another.
///
/// Every `Double` of magnitude 2^-459 (about 1.3·10⁻¹³⁸) or more is already a multiple of
/// 2^-511, so only smaller coordinates move, each by at most 2^-512 (about 7.5·10⁻¹⁵⁵). Every
/// path — plain and prepared geometries, point tests, envelope shortcuts — works on the rounded
/// coordinates, so the answers are those for the rounded geometry.
package enum GEOSResolution {
    /// The grid spacing, 2^-511.
    @inlinable package static var spacing: Double { 0x1p-511 }

    /// Whether `value` is not a multiple of the spacing (a nonzero magnitude below 2^-459 that
    /// is not on the grid).
    @inlinable @inline(__always)
    package static func changes(_ value: Double) -> Bool {
        abs(value) < 0x1p-459 && value != 0 && snap(value) != value
    }

    /// `value` rounded to the nearest multiple of the spacing (halves away from zero).
    @inlinable @inline(__always)
    package static func snap(_ value: Double) -> Double {
        // Below 2^-459 the scaled value is below 2^52: scaling both ways is exact.
        abs(value) < 0x1p-459 ? (value * 0x1p511).rounded() * 0x1p-511 : value
    }

    /// The envelope with its corners rounded: exactly the envelope of any geometry inside it,
    /// rounded (rounding does not change the order of coordinates).
    @inlinable @inline(__always)
    package static func snap(_ box: Envelope) -> Envelope {
        // The usual case, no corner below 2^-459 (an empty envelope's are infinite): unchanged.
        guard abs(box.xmin) < 0x1p-459 || abs(box.ymin) < 0x1p-459 || abs(box.xmax) < 0x1p-459 || abs(box.ymax) < 0x1p-459
        else { return box }
        return snapCorners(box)
    }

    /// ``snap(_:)-(Envelope)`` for the rare envelope with a tiny corner.
    @usableFromInline
    static func snapCorners(_ box: Envelope) -> Envelope {
        Envelope(xmin: snap(box.xmin), ymin: snap(box.ymin), xmax: snap(box.xmax), ymax: snap(box.ymax))
    }
}

extension CoordinateBuffer {
    /// The buffer with every x and y rounded to the GEOS grid; `nil` when none changes.
    func snappedToGEOSResolution() -> CoordinateBuffer? {
        let stride = layout.stride
        var changed = false
        values.withUnsafeBufferPointer { v in
            var i = 0
            while i < v.count {
                if GEOSResolution.changes(v[i]) || GEOSResolution.changes(v[i + 1]) {
                    changed = true
                    return
                }
                i += stride
            }
        }
        guard changed else { return nil }
        var snapped = values
        var i = 0
        while i < snapped.count {
            snapped[i] = GEOSResolution.snap(snapped[i])
            snapped[i + 1] = GEOSResolution.snap(snapped[i + 1])
            i += stride
        }
        return CoordinateBuffer(values: snapped, layout: layout)
    }
}

extension CoordinateBuffer {
    /// Whether every position in `range` has the x and y of the first (z and m do not take part
    /// in relationships). Stops at the first position that differs, so a path of any length
    /// costs one or two comparisons unless it really has no extent.
    func hasNoExtent(_ range: Range<Int>) -> Bool {
        guard let first = range.first else { return false }
        let x = x(at: first), y = y(at: first)
        for i in range.dropFirst() where self.x(at: i) != x || self.y(at: i) != y { return false }
        return true
    }

}

extension CoordinateBuffer {
    /// Whether the closed ring made of the positions `indices` (first = last) encloses no area
    /// anywhere: it retraces itself, every stretch of it run over an even number of times, so
    /// that it is only the union of its segments. A spur (`0 0, 10 0, 10 10, 10 0, 0 0`), a tree
    /// of spurs, a ring folded onto one line (`0 0, 1 1, 2 2, 0 0`) and a ring of one repeated
    /// position are such rings; a bow tie, whose lobes cancel in the signed area, is not.
    ///
    /// Decided exactly. A vertex collinear with its two neighbours (``ExactOrientation``) can
    /// be left out without changing which stretches the ring runs over an odd number of times
    /// (the two segments at it add up to the one between its neighbours, mod 2), and so can a
    /// repeated position; the ring encloses no area when that removal, repeated, leaves a single
    /// position (each vertex is removed at most once: linear time). Such rings have a signed
    /// area of exactly zero, so rings whose computed area is clearly not zero (beyond its
    /// rounding error bound, one pass over the positions) are answered at once.
    func enclosesNoArea(_ indices: [Int]) -> Bool {
        let count = indices.count - 1  // distinct slots; the last index closes the ring
        guard count >= 1 else { return false }
        if count >= 3, hasClearArea(indices) { return false }
        // A cyclic doubly linked list of the slots, and the slots to look at.
        var previous = (0..<count).map { ($0 + count - 1) % count }
        var next = (0..<count).map { ($0 + 1) % count }
        var alive = [Bool](repeating: true, count: count)
        var remaining = count
        var work = Array((0..<count).reversed())
        while remaining > 1, let slot = work.popLast() {
            guard alive[slot] else { continue }
            let p = previous[slot], q = next[slot]
            let a = indices[p], b = indices[slot], c = indices[q]
            guard p == q || ExactOrientation.sign(x(at: a), y(at: a), x(at: b), y(at: b), x(at: c), y(at: c)) == 0 else {
                continue
            }
            alive[slot] = false
            remaining -= 1
            next[p] = q
            previous[q] = p
            work.append(p)
            if q != p { work.append(q) }
        }
        return remaining <= 1
    }

    /// Whether the signed area of the ring `indices` is certainly not zero: its computed value
    /// exceeds a bound on its rounding error. Coordinates beyond 2^500 or all below 2^-400 are
    /// multiplied by a power of two first, so that products neither overflow nor vanish.
    private func hasClearArea(_ indices: [Int]) -> Bool {
        var largest = 0.0
        for i in indices { largest = Swift.max(largest, abs(x(at: i)), abs(y(at: i))) }
        guard largest > 0 else { return false }
        let scale = largest > 0x1p500 || largest < 0x1p-400 ? Double(sign: .plus, exponent: 500 - Int(largest.exponent), significand: 1) : 1
        let x0 = x(at: indices[0]) * scale, y0 = y(at: indices[0]) * scale
        var sum = 0.0, magnitude = 0.0, offsets = 0.0
        for k in 0..<(indices.count - 1) {
            let ax = x(at: indices[k]) * scale - x0, ay = y(at: indices[k]) * scale - y0
            let bx = x(at: indices[k + 1]) * scale - x0, by = y(at: indices[k + 1]) * scale - y0
            let left = ax * by, right = bx * ay
            sum += left - right
            magnitude += abs(left) + abs(right)
            offsets += abs(ax) + abs(ay) + abs(bx) + abs(by)
        }
        // Offsets, products and the difference are rounded once each (relative 2^-53), the sum
        // accumulates at most one rounding per term; subnormal products add 2^-1075 each.
        // Scaling down moves each coordinate by at most 2^-1075, each offset by 2^-1074, each
        // product by 2^-1074 times the other factor.
        let n = Double(indices.count)
        var bound = (n + 4) * 0x1p-52 * magnitude + n * 0x1p-1072
        if scale < 1 { bound += 0x1p-1073 * offsets + n * 0x1p-1070 }
        return sum.isFinite && bound.isFinite && abs(sum) > bound
    }
}

/// The points standing in for degenerate paths or parts, as one geometry: a point, or a
/// multipoint for several.
private func pointGeometry(_ points: [Point], layout: CoordinateLayout) -> Geometry? {
    guard let first = points.first else { return nil }
    if points.count == 1 { return .point(first) }
    // The coordinates come from an already validated geometry, so they are finite.
    guard let multipoint = try? Multipoint(points: points, layout: layout) else { return nil }
    return .multipoint(multipoint)
}

/// `lines` (may be `nil` when none is left) together with `points`, as one geometry.
private func combine(_ rest: Geometry?, _ points: Geometry?) -> Geometry? {
    switch (rest, points) {
    case (let rest?, let points?): .collection(GeometryCollection([rest, points]))
    case (let rest?, nil): rest
    case (nil, let points?): points
    case (nil, nil): nil
    }
}

extension Polyline {
    /// Zero-length paths replaced by their points; `nil` when there is none.
    func geosForm() -> Geometry? {
        guard (0..<pathCount).contains(where: { coordinates.hasNoExtent(pathRange($0)) }) else { return nil }
        var kept = CoordinateBuffer(layout: coordinates.layout)
        var offsets = [0]
        var points: [Point] = []
        for i in 0..<pathCount {
            let range = pathRange(i)
            if coordinates.hasNoExtent(range) {
                points.append(coordinates[range.lowerBound])
                continue
            }
            for j in range { kept.append(coordinates[j]) }
            offsets.append(kept.count)
        }
        // The kept paths are paths of this polyline, so they are valid.
        let rest = offsets.count > 1 ? (try? Polyline(coordinates: kept, pathOffsets: offsets)).map(Geometry.polyline) : nil
        return combine(rest, pointGeometry(points, layout: coordinates.layout))
    }
}

extension Polygon {
    /// What a ring of this polygon is, as GEOS must see it.
    enum RingForm {
        /// A ring with an area.
        case ring
        /// A ring that encloses no area: the union of its segments, a closed path.
        case noArea
        /// A ring of one position.
        case point
    }

    /// The form of ring `r`.
    func ringForm(_ r: Int) -> RingForm {
        let range = ringRange(r)
        if coordinates.hasNoExtent(range) { return .point }
        return coordinates.enclosesNoArea(Array(range)) ? .noArea : .ring
    }

    /// Parts whose outer ring has no extent replaced by their points, parts whose outer ring
    /// encloses no area by that ring as a closed line; `nil` when there is none.
    func geosForm() -> Geometry? {
        let forms = (0..<partCount).map { ringForm(partOffsets[$0]) }
        guard forms.contains(where: { $0 != .ring }) else { return nil }
        var kept = CoordinateBuffer(layout: coordinates.layout)
        var keptRings = [0]
        var keptParts = [0]
        var lines = CoordinateBuffer(layout: coordinates.layout)
        var lineOffsets = [0]
        var points: [Point] = []
        for p in 0..<partCount {
            let rings = partRingRange(p)
            let outer = ringRange(rings.lowerBound)
            switch forms[p] {
            case .point:
                points.append(coordinates[outer.lowerBound])
            case .noArea:
                // The holes of a part without area do not matter.
                for j in outer { lines.append(coordinates[j]) }
                lineOffsets.append(lines.count)
            case .ring:
                for r in rings {
                    for j in ringRange(r) { kept.append(coordinates[j]) }
                    keptRings.append(kept.count)
                }
                keptParts.append(keptRings.count - 1)
            }
        }
        // The kept parts are parts of this polygon, so their rings are valid; a ring is a valid
        // path.
        let polygons =
            keptParts.count > 1
            ? (try? Polygon(coordinates: kept, ringOffsets: keptRings, partOffsets: keptParts)).map(Geometry.polygon) : nil
        let paths = lineOffsets.count > 1 ? (try? Polyline(coordinates: lines, pathOffsets: lineOffsets)).map(Geometry.polyline) : nil
        return combine(combine(polygons, paths), pointGeometry(points, layout: coordinates.layout))
    }
}
