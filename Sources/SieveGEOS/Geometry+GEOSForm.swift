import SieveGeometry

/// The form in which a geometry is handed to GEOS: the same point set, written so that every
/// supported GEOS version (3.10 and later) answers every relationship about it consistently and
/// without crashing.
///
/// These rewrites, each leaving the point set unchanged:
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
///   its point**, for the same reason; **a part whose outer ring has zero area** (folded onto a
///   line, `POLYGON ((0 0, 1 1, 2 2, 0 0))`) **is that ring as a closed line**: GEOS 3.10–3.12's
///   shortcuts and DE-9IM matrix disagree about such polygons, and their matrix does not
///   describe any point set. The holes of such a part are dropped (no area is left to have a
///   hole in). GEOS 3.14 treats a folded polygon as an area with no interior, the ring its
///   boundary, so its matrices name the same point set with interior and boundary swapped.
///
/// Everything else, valid or not, reaches GEOS as it is. A hole of zero area inside a real
/// outer ring stays (GEOS takes its ring as boundary), but every relationship of a geometry
/// with such a hole is read off the DE-9IM matrix (``hasCollapsedRing``), not GEOS's shortcuts.
extension Geometry {
    /// Whether a ring of a polygon (at any depth of a collection) has zero area without being a
    /// single repeated position. Such rings are invalid in the OGC sense. After ``geosForm()``
    /// only holes can be such rings.
    var hasCollapsedRing: Bool {
        switch self {
        case .point, .multipoint, .polyline, .envelope:
            return false
        case .polygon(let polygon):
            return (0..<polygon.ringCount).contains { polygon.coordinates.isCollapsedRing(polygon.ringRange($0)) }
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
                if let rewritten = member.geosForm() {
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
    /// Whether the closed ring in `range` is folded onto a line: more than one position, all on
    /// one straight line (so it has no area). Each position's offset from the first is tested
    /// against the offset of the first position that differs from it; a cross product within
    /// rounding noise of its terms counts as collinear. A real ring is told apart at its third
    /// distinct position, so the test costs a few steps. (A zero shoelace area is not enough: a
    /// bow tie's two lobes cancel.)
    func isCollapsedRing(_ range: Range<Int>) -> Bool {
        guard range.count >= 4 else { return false }
        let x0 = x(at: range.lowerBound), y0 = y(at: range.lowerBound)
        var direction: (Double, Double)?
        for i in range.dropFirst() {
            let dx = x(at: i) - x0, dy = y(at: i) - y0
            guard let (fx, fy) = direction else {
                if dx != 0 || dy != 0 { direction = (dx, dy) }
                continue
            }
            let cross = fx * dy - fy * dx
            if abs(cross) > 1e-12 * (abs(fx * dy) + abs(fy * dx)) { return false }
        }
        // No second position: the ring has no extent, which is not "collapsed" here.
        return direction != nil
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
    /// Parts whose outer ring has no extent replaced by their points, parts whose outer ring
    /// has zero area by that ring as a closed line; `nil` when there is none.
    func geosForm() -> Geometry? {
        guard (0..<partCount).contains(where: { coordinates.isCollapsedRing(ringRange(partOffsets[$0]))
            || coordinates.hasNoExtent(ringRange(partOffsets[$0])) })
        else { return nil }
        var kept = CoordinateBuffer(layout: coordinates.layout)
        var keptRings = [0]
        var keptParts = [0]
        var lines = CoordinateBuffer(layout: coordinates.layout)
        var lineOffsets = [0]
        var points: [Point] = []
        for p in 0..<partCount {
            let rings = partRingRange(p)
            let outer = ringRange(rings.lowerBound)
            if coordinates.hasNoExtent(outer) {
                points.append(coordinates[outer.lowerBound])
                continue
            }
            if coordinates.isCollapsedRing(outer) {
                for j in outer { lines.append(coordinates[j]) }
                lineOffsets.append(lines.count)
                continue
            }
            for r in rings {
                for j in ringRange(r) { kept.append(coordinates[j]) }
                keptRings.append(kept.count)
            }
            keptParts.append(keptRings.count - 1)
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
