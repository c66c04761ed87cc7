import SieveGeometry

/// The DE-9IM matrix of collections that mix points with lines or areas, assembled from GEOS's
/// matrix of their other members and the location of each point.
///
/// GEOS 3.10–3.12 relate the point members of a collection wrongly where they meet the other
/// geometry: `GEOMETRYCOLLECTION (LINESTRING (…), POINT (1 3))` against a line ending at (1 3)
/// gets a matrix that misses the contact the prepared predicates see. (A multi-line or
/// multipolygon with a part of no extent reaches GEOS as such a collection: the part is its
/// point.) GEOS 3.14 gets some of these right and others wrong in new ways.
///
/// So for a pair where either geometry is such a collection, GeoSieve splits each geometry into
/// its points P and the rest L (its lines and areas; a geometry of points only has no rest,
/// anything else is all rest), asks GEOS only for the matrix of L_a against L_b, and locates
/// each point with GEOS (a point against L: interior, boundary or exterior). The collection's
/// point set is L ∪ P, with the OGC's reading of collections (as GEOS 3.13's RelateNG reads
/// them): a point on L is a point of L, in L's interior or boundary; the other points, Q, are
/// isolated points of the interior, of dimension 0, without boundary. Then, cell by cell:
///
/// - a point of Q_a lying in the interior, boundary or exterior of b adds a 0 to the cell of
///   a's interior and that part of b (the exterior of b is that of L_b less the points of Q_b);
///   symmetrically for Q_b;
/// - the cells of L's interiors are otherwise GEOS's: the interior of lines and areas meets an
///   open set in a part of dimension 1 or more, or not at all, so taking finitely many points
///   out of an exterior changes no dimension;
/// - the boundary of L_a meets the exterior of b in what GEOS says, except where it is only
///   points (a 0 in the matrix: ends of lines) and every one of them is a point of Q_b: then
///   they are in b's interior, not its exterior, and the cell is empty (symmetrically for the
///   boundary of L_b);
/// - boundary against boundary is GEOS's (points have no boundary), exterior against exterior
///   always 2.
///
/// Every relationship of such a pair, prepared or not, is read off this matrix.
extension GEOSGeometry {
    /// The parts of a geometry the assembly needs: its points, and the rest (its lines and
    /// areas, as one geometry; `nil` for a geometry of points only).
    struct PointSplit {
        var rest: Geometry?
        var points: [Point]
    }

    /// Whether `geometry` (a GEOS form) is a collection with a point or multipoint among its
    /// members, at any depth.
    static func hasPointMembers(_ geometry: Geometry) -> Bool {
        guard case .collection(let collection) = geometry else { return false }
        return collection.geometries.contains { member in
            switch member {
            case .point, .multipoint: true
            case .collection: hasPointMembers(member)
            case .polyline, .polygon, .envelope: false
            }
        }
    }

    /// `geometry` split into points and the rest.
    static func pointSplit(_ geometry: Geometry) -> PointSplit {
        var points: [Point] = []
        var rest: [Geometry] = []
        func visit(_ geometry: Geometry) {
            switch geometry {
            case .point(let point):
                if !point.isEmpty { points.append(Point(x: point.x, y: point.y)) }
            case .multipoint(let multipoint):
                let coordinates = multipoint.coordinates
                for i in 0..<coordinates.count { points.append(Point(x: coordinates.x(at: i), y: coordinates.y(at: i))) }
            case .collection(let collection):
                for member in collection.geometries { visit(member) }
            case .polyline, .polygon, .envelope:
                if !geometry.isEmpty { rest.append(geometry) }
            }
        }
        visit(geometry)
        let restGeometry: Geometry? =
            switch rest.count {
            case 0: nil
            case 1: rest[0]
            default: .collection(GeometryCollection(rest))
            }
        return PointSplit(rest: restGeometry, points: points)
    }

    /// Where a point lies relative to a geometry.
    enum PointLocation { case interior, boundary, exterior }

    /// The location of `point` in `geometry` (`nil`: no geometry, so exterior), as GEOS's
    /// DE-9IM matrix of the point against it says.
    private func locate(_ point: Point, in geometry: GEOSGeometry?) throws(GEOSError) -> PointLocation {
        guard let geometry else { return .exterior }
        let handle = try GEOSGeometry(.point(point), context: context)
        let entries = try handle.relate(geometry).entries
        if entries[0] != .empty { return .interior }
        if entries[1] != .empty { return .boundary }
        return .exterior
    }

    /// The DE-9IM matrix of a against b, assembled as described above (for pairs where either
    /// is a collection with point members, ``hasPointMembers(_:)``).
    func pointAssembledMatrix(_ other: GEOSGeometry) throws(GEOSError) -> IntersectionMatrix {
        let splitA = GEOSGeometry.pointSplit(geometry), splitB = GEOSGeometry.pointSplit(other.geometry)
        // The rests through GEOS (the geometry itself when it is all rest).
        let restA: GEOSGeometry? = try splitA.points.isEmpty ? self : splitA.rest.map { (g) throws(GEOSError) in try GEOSGeometry(g, context: context) }
        let restB: GEOSGeometry? = try splitB.points.isEmpty ? other : splitB.rest.map { (g) throws(GEOSError) in try GEOSGeometry(g, context: context) }

        var cells: [IntersectionMatrix.Dimension]
        switch (restA, restB) {
        case (let a?, let b?):
            cells = try a.relate(b).entries
        case (let a?, nil):
            cells = [.empty, .empty, a.interiorDimension, .empty, .empty, try a.boundaryCell(), .empty, .empty, .area]
        case (nil, let b?):
            cells = [.empty, .empty, .empty, .empty, .empty, .empty, b.interiorDimension, try b.boundaryCell(), .area]
        case (nil, nil):
            cells = [.empty, .empty, .empty, .empty, .empty, .empty, .empty, .empty, .area]
        }

        // The isolated points: not on their own geometry's rest.
        func isolated(_ points: [Point], _ rest: GEOSGeometry?) throws(GEOSError) -> Set<Point> {
            var result = Set<Point>()
            for point in points where !result.contains(point) {
                if try locate(point, in: rest) == .exterior { result.insert(point) }
            }
            return result
        }
        let isolatedA = try isolated(splitA.points, restA), isolatedB = try isolated(splitB.points, restB)

        func mark(_ index: Int) { if cells[index] == .empty { cells[index] = .point } }
        var isolatedBOnBoundaryOfA = false, isolatedAOnBoundaryOfB = false
        for point in isolatedA {
            switch try locate(point, in: restB) {
            case .interior: mark(0)
            case .boundary:
                mark(1)
                isolatedAOnBoundaryOfB = true
            case .exterior: mark(isolatedB.contains(point) ? 0 : 2)
            }
        }
        for point in isolatedB {
            switch try locate(point, in: restA) {
            case .interior: mark(0)
            case .boundary:
                mark(3)
                isolatedBOnBoundaryOfA = true
            case .exterior: mark(isolatedA.contains(point) ? 0 : 6)
            }
        }
        // Boundary points of one rest in the other's exterior that are all isolated points of
        // the other geometry: they are in its interior instead.
        if cells[5] == .point, isolatedBOnBoundaryOfA, let restA {
            if try allBoundaryPointsOutside(restA, restB, areIn: isolatedB) { cells[5] = .empty }
        }
        if cells[7] == .point, isolatedAOnBoundaryOfB, let restB {
            if try allBoundaryPointsOutside(restB, restA, areIn: isolatedA) { cells[7] = .empty }
        }
        guard let matrix = IntersectionMatrix(String(cells.map(\.character))) else {
            throw GEOSError(.geosException, "malformed assembled matrix", function: "GEOSRelate_r")
        }
        return matrix
    }

    /// Whether the points of `rest`'s boundary lying outside `other` (the ends of its lines, by
    /// the mod-2 rule, that GEOS locates on its boundary) are all in `points`, and there is at
    /// least one.
    private func allBoundaryPointsOutside(
        _ rest: GEOSGeometry, _ other: GEOSGeometry?, areIn points: Set<Point>
    ) throws(GEOSError) -> Bool {
        var ends: [Point: Int] = [:]
        func visit(_ geometry: Geometry) {
            switch geometry {
            case .polyline(let polyline):
                for i in 0..<polyline.pathCount {
                    let range = polyline.pathRange(i)
                    let c = polyline.coordinates
                    ends[Point(x: c.x(at: range.lowerBound), y: c.y(at: range.lowerBound)), default: 0] += 1
                    ends[Point(x: c.x(at: range.upperBound - 1), y: c.y(at: range.upperBound - 1)), default: 0] += 1
                }
            case .collection(let collection):
                for member in collection.geometries { visit(member) }
            case .point, .multipoint, .polygon, .envelope:
                return
            }
        }
        visit(rest.geometry)
        var found = false
        for (end, count) in ends where !count.isMultiple(of: 2) {
            guard try locate(end, in: rest) == .boundary, try locate(end, in: other) == .exterior else { continue }
            if !points.contains(end) { return false }
            found = true
        }
        return found
    }

    /// The dimension of the interior as a matrix entry.
    fileprivate var interiorDimension: IntersectionMatrix.Dimension {
        switch dimension {
        case 0?: .point
        case 1?: .line
        case 2?: .area
        default: .empty
        }
    }

    /// The dimension of the boundary as a matrix entry.
    fileprivate func boundaryCell() throws(GEOSError) -> IntersectionMatrix.Dimension {
        switch try boundaryDimension() {
        case 0?: .point
        case 1?: .line
        case 2?: .area
        default: .empty
        }
    }
}
