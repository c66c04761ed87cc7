import SieveGeometry

/// The form in which a geometry is handed to GEOS: the same point set, written so that every
/// supported GEOS version (3.10 and later) answers every relationship about it consistently and
/// without crashing.
///
/// These rewrites leave the point set unchanged, except the last, which moves points by less
/// than 2.2·10⁻¹⁶²:
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
/// - **Positions closer together than GEOS can resolve are one position.** GEOS 3.10–3.12's
///   DE-9IM computation loses every segment whose squared length, `dx·dx + dy·dy`, underflows
///   to zero although its ends differ (both offsets below about 1.5·10⁻¹⁶²), while the prepared
///   predicates see it: `LINESTRING (0 1e-200, 0 0)` and `LINESTRING (-5 0, 5 0)` would touch
///   for `intersects` and be disjoint for `relate`. Along each path and ring, a position that
///   close to the last position kept is left out (an envelope that narrow is its line or point),
///   so every path sees the same, resolvable geometry; each position left out lies within
///   2.2·10⁻¹⁶² of one kept. A path or ring left with one position is that point, a ring left
///   with two a closed line.
///
/// Everything else, valid or not, reaches GEOS as it is. A hole that encloses no area inside a
/// real outer ring stays (GEOS takes its ring as boundary), but every relationship of a
/// geometry with such a hole is read off the DE-9IM matrix (``hasCollapsedRing``), not GEOS's
/// shortcuts.
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
        switch self {
        case .point, .multipoint:
            return nil
        case .envelope(let box):
            // An envelope without width or height is a line or a point, with that dimension; so
            // is one narrower than GEOS can resolve (its width squared underflows to zero).
            guard !box.isEmpty else { return nil }
            let noWidth = box.width * box.width == 0, noHeight = box.height * box.height == 0
            guard noWidth || noHeight else { return nil }
            if noWidth && noHeight { return .point(Point(x: box.xmin, y: box.ymin)) }
            let ends = [Point(x: box.xmin, y: box.ymin), Point(x: noWidth ? box.xmin : box.xmax, y: noHeight ? box.ymin : box.ymax)]
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

    /// Whether positions `i` and `j` differ but lie closer together than GEOS can resolve:
    /// `dx·dx + dy·dy`, the squared distance as GEOS computes it, underflows to zero (both
    /// offsets below about 1.5·10⁻¹⁶²).
    @inline(__always)
    func isUnresolvable(_ i: Int, _ j: Int) -> Bool {
        let dx = x(at: j) - x(at: i), dy = y(at: j) - y(at: i)
        return dx * dx + dy * dy == 0 && (dx != 0 || dy != 0)
    }

    /// Whether a segment of the path in `range` is unresolvable (``isUnresolvable(_:_:)``).
    func hasUnresolvableSegment(_ range: Range<Int>) -> Bool {
        guard range.count >= 2 else { return false }
        for i in range.lowerBound..<(range.upperBound - 1) where isUnresolvable(i, i + 1) { return true }
        return false
    }

    /// The positions of the path or closed ring in `range`, each position that lies an
    /// unresolvable distance from the last one kept left out (so the positions kept are at least
    /// that far apart, and each one left out is within about 2.2·10⁻¹⁶² of a kept one). A ring
    /// stays closed: positions at the end within that distance of the first are left out too,
    /// and the first closes it.
    func resolvedIndices(_ range: Range<Int>, closed: Bool) -> [Int] {
        guard let first = range.first else { return [] }
        var kept = [first]
        for i in range.dropFirst() {
            guard let last = kept.last else { continue }
            if !isUnresolvable(last, i) { kept.append(i) }
        }
        if closed {
            // The last kept position is the closing one (it equals the first) unless it was
            // left out for being too close to the one before it.
            if let last = kept.last, last != first, x(at: last) == x(at: first), y(at: last) == y(at: first) {
                kept.removeLast()
            }
            while kept.count > 1, let last = kept.last, isUnresolvable(last, first) || hasSamePosition(last, first) {
                kept.removeLast()
            }
            kept.append(first)
        }
        return kept
    }

    @inline(__always)
    private func hasSamePosition(_ i: Int, _ j: Int) -> Bool { x(at: i) == x(at: j) && y(at: i) == y(at: j) }
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
    /// exceeds a bound on its rounding error.
    private func hasClearArea(_ indices: [Int]) -> Bool {
        let x0 = x(at: indices[0]), y0 = y(at: indices[0])
        var sum = 0.0, magnitude = 0.0
        for k in 0..<(indices.count - 1) {
            let ax = x(at: indices[k]) - x0, ay = y(at: indices[k]) - y0
            let bx = x(at: indices[k + 1]) - x0, by = y(at: indices[k + 1]) - y0
            let left = ax * by, right = bx * ay
            sum += left - right
            magnitude += abs(left) + abs(right)
        }
        // Offsets, products and the difference are rounded once each (relative 2^-53), the sum
        // accumulates at most one rounding per term; subnormal products add 2^-1075 each.
        let n = Double(indices.count)
        let bound = (n + 4) * 0x1p-52 * magnitude + n * 0x1p-1072
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
    /// Zero-length paths replaced by their points, positions closer than GEOS can resolve
    /// merged; `nil` when there is nothing to rewrite.
    func geosForm() -> Geometry? {
        guard (0..<pathCount).contains(where: {
            coordinates.hasNoExtent(pathRange($0)) || coordinates.hasUnresolvableSegment(pathRange($0))
        }) else { return nil }
        var kept = CoordinateBuffer(layout: coordinates.layout)
        var offsets = [0]
        var points: [Point] = []
        for i in 0..<pathCount {
            let indices = coordinates.resolvedIndices(pathRange(i), closed: false)
            if coordinates.hasNoExtent(indices) {
                points.append(coordinates[indices[0]])
                continue
            }
            for j in indices { kept.append(coordinates[j]) }
            offsets.append(kept.count)
        }
        // The kept paths have two or more positions, so they are valid.
        let rest = offsets.count > 1 ? (try? Polyline(coordinates: kept, pathOffsets: offsets)).map(Geometry.polyline) : nil
        return combine(rest, pointGeometry(points, layout: coordinates.layout))
    }
}

extension CoordinateBuffer {
    /// ``hasNoExtent(_:)`` for positions given by index.
    func hasNoExtent(_ indices: [Int]) -> Bool {
        guard let first = indices.first else { return false }
        let x = x(at: first), y = y(at: first)
        return indices.allSatisfy { self.x(at: $0) == x && self.y(at: $0) == y }
    }
}

extension Polygon {
    /// What a ring of this polygon is, as GEOS must see it.
    enum RingForm {
        /// A proper ring, with these positions (closed).
        case ring([Int])
        /// A ring that encloses no area: the union of its segments, these positions as a closed
        /// path (first = last).
        case noArea([Int])
        /// A ring of one position.
        case point(Int)
    }

    /// The form of ring `r`, and whether its positions were rewritten.
    func ringForm(_ r: Int) -> (form: RingForm, rewritten: Bool) {
        let range = ringRange(r)
        let rewritten = coordinates.hasUnresolvableSegment(range)
        let indices = rewritten ? coordinates.resolvedIndices(range, closed: true) : Array(range)
        if coordinates.hasNoExtent(indices) { return (.point(indices[0]), rewritten) }
        if indices.count < 4 || coordinates.enclosesNoArea(indices) { return (.noArea(indices), rewritten) }
        return (.ring(indices), rewritten)
    }

    /// Parts whose outer ring has no extent replaced by their points, parts whose outer ring
    /// encloses no area by that ring as a closed line, positions closer than GEOS can resolve
    /// merged; `nil` when there is nothing to rewrite.
    func geosForm() -> Geometry? {
        var forms: [[(form: RingForm, rewritten: Bool)]] = []
        var changed = false
        for p in 0..<partCount {
            var part: [(form: RingForm, rewritten: Bool)] = []
            for r in partRingRange(p) {
                let form = ringForm(r)
                part.append(form)
                if form.rewritten { changed = true }
                if r == partOffsets[p] {
                    if case .ring = form.form {} else {
                        changed = true
                        break  // the holes of a part without area do not matter
                    }
                }
            }
            forms.append(part)
        }
        guard changed else { return nil }
        var kept = CoordinateBuffer(layout: coordinates.layout)
        var keptRings = [0]
        var keptParts = [0]
        var lines = CoordinateBuffer(layout: coordinates.layout)
        var lineOffsets = [0]
        var points: [Point] = []
        for part in forms {
            guard let outer = part.first else { continue }
            switch outer.form {
            case .point(let i):
                points.append(coordinates[i])
                continue
            case .noArea(let indices):
                for j in indices { lines.append(coordinates[j]) }
                lineOffsets.append(lines.count)
                continue
            case .ring:
                break
            }
            for ring in part {
                switch ring.form {
                case .ring(let indices), .noArea(let indices):
                    for j in indices { kept.append(coordinates[j]) }
                    // A hole merged down to fewer than four positions stays a (collapsed) ring.
                    while kept.count - (keptRings.last ?? 0) < 4, let last = indices.last { kept.append(coordinates[last]) }
                case .point(let i):
                    for _ in 0..<4 { kept.append(coordinates[i]) }
                }
                keptRings.append(kept.count)
            }
            keptParts.append(keptRings.count - 1)
        }
        // Every kept ring is closed and has at least four positions; every line at least two.
        let polygons =
            keptParts.count > 1
            ? (try? Polygon(coordinates: kept, ringOffsets: keptRings, partOffsets: keptParts)).map(Geometry.polygon) : nil
        let paths = lineOffsets.count > 1 ? (try? Polyline(coordinates: lines, pathOffsets: lineOffsets)).map(Geometry.polyline) : nil
        return combine(combine(polygons, paths), pointGeometry(points, layout: coordinates.layout))
    }
}
