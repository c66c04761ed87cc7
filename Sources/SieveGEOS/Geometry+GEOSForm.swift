import SieveGeometry

/// The form in which a geometry is handed to GEOS: the same point set, written so that every
/// supported GEOS version (3.10 and later) answers every relationship about it consistently and
/// without crashing.
///
/// Three rewrites, each leaving the point set unchanged:
///
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
///   its point**, for the same reason; the holes of such a part are dropped (a hole cannot lie
///   inside a single point).
///
/// Everything else, valid or not, reaches GEOS as it is.
extension Geometry {
    /// The GEOS form of this geometry, or `nil` when it is this geometry itself (the common case,
    /// found without copying anything).
    func geosForm() -> Geometry? {
        switch self {
        case .point, .multipoint, .envelope:
            return nil
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
    /// Parts whose outer ring has no extent replaced by their points; `nil` when there is none.
    func geosForm() -> Geometry? {
        guard (0..<partCount).contains(where: { coordinates.hasNoExtent(ringRange(partOffsets[$0])) }) else { return nil }
        var kept = CoordinateBuffer(layout: coordinates.layout)
        var keptRings = [0]
        var keptParts = [0]
        var points: [Point] = []
        for p in 0..<partCount {
            let rings = partRingRange(p)
            let outer = ringRange(rings.lowerBound)
            if coordinates.hasNoExtent(outer) {
                points.append(coordinates[outer.lowerBound])
                continue
            }
            for r in rings {
                for j in ringRange(r) { kept.append(coordinates[j]) }
                keptRings.append(kept.count)
            }
            keptParts.append(keptRings.count - 1)
        }
        // The kept parts are parts of this polygon, so their rings are valid.
        let rest =
            keptParts.count > 1
            ? (try? Polygon(coordinates: kept, ringOffsets: keptRings, partOffsets: keptParts)).map(Geometry.polygon) : nil
        return combine(rest, pointGeometry(points, layout: coordinates.layout))
    }
}
