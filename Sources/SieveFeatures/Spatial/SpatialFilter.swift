import SieveGEOS
import SieveGeometry
import SieveIndex
import SieveProjection

/// The spatial part of a query, resolved against one table: the query geometry in the table's
/// spatial reference and the relationship, with the plan to apply them.
///
/// The plan: quadtree candidates for the query envelope (every row with a geometry when the
/// relationship can hold between disjoint geometries: `disjoint`, or a relate pattern that
/// needs no shared point), then — after the caller's attribute filter — the exact test. The
/// exact test decides from the envelopes alone whenever they suffice (`envelopeIntersects`
/// always; disjoint envelopes; a feature envelope not inside the query envelope for `within`,
/// …), answers point features of `intersects`/`within`/`disjoint` with the prepared query
/// geometry's point tests, and hands everything else to GEOS with the query geometry prepared
/// once per query.
///
/// Feature-first semantics, f the feature and q the query geometry: `intersects` is
/// q ∩ f ≠ ∅; `within` is f within q (evaluated as prepared q contains f); `contains` is f
/// contains q (prepared q within f); `touches`, `crosses`, `overlaps`, `disjoint` and `equals`
/// are symmetric in GEOS and evaluated on the prepared q (equals unprepared); `relate(pattern)`
/// is the DE-9IM matrix of f against q, unprepared.
package struct SpatialFilter {
    /// The query geometry in the table's spatial reference.
    let geometry: Geometry
    /// The relationship, read "feature REL query geometry".
    let relationship: SpatialRelationship
    /// How far from the query geometry a feature may lie (``QueryParameters/distance``).
    let proximity: Proximity?

    /// The filter of `query` against `table`, or `nil` when the query has no geometry.
    ///
    /// A query geometry in another spatial reference than the table's is projected into it
    /// (``Projector``): 4326 ⇄ 3857 by the exact Web Mercator formulas, every other pair
    /// through PROJ with its edges densified (``Densification/standard``), so that an edge
    /// straight in the query's reference follows its true curve in the table's.
    /// - Throws: ``FeatureTableError/Kind/invalidQuery`` when either reference is unknown to
    ///   PROJ, PROJ has no transformation between them, or a position does not transform.
    init?(_ query: QueryParameters, table: FeatureTable) throws(FeatureTableError) {
        guard let geometry = query.geometry else { return nil }
        try Self.validate(query.spatialRelationship)
        self.geometry = try Self.queryGeometry(
            geometry, from: query.inSpatialReference ?? table.spatialReference, to: table.spatialReference)
        self.relationship = query.spatialRelationship
        if let distance = query.distance {
            guard query.spatialRelationship == .intersects else {
                throw FeatureTableError(
                    .invalidQuery, "a distance applies to the intersects relationship only, not \(query.spatialRelationship)")
            }
            proximity = try Proximity(distance, query: self.geometry, reference: table.spatialReference)
        } else {
            proximity = nil
        }
    }

    /// `geometry`, given in `source`, in the table's reference `target`: as is when they are the
    /// same, else projected with its edges densified (``Densification/standard``). Every source
    /// that tests feature geometries against a query geometry (this filter, the PostGIS source)
    /// projects it so, and so answers alike.
    /// - Throws: ``FeatureTableError/Kind/invalidQuery`` when the projection fails.
    package static func queryGeometry(
        _ geometry: Geometry, from source: SpatialReference, to target: SpatialReference
    ) throws(FeatureTableError) -> Geometry {
        guard source != target else { return geometry }
        do {
            return try Projector(from: source, to: target).project(geometry, densification: .standard)
        } catch {
            throw FeatureTableError(
                .invalidQuery,
                "cannot project the query geometry from wkid \(source.wkid) to the table's wkid \(target.wkid): \(error)")
        }
    }

    /// The envelope, in the table's reference `reference`, outside which no feature lies within
    /// the distance of `query`'s geometry: the window an in-memory table takes its candidates
    /// from (widened by GEOS's grid spacing as it is), and what a database is asked for before
    /// the distance is measured as the in-memory table measures it. `nil` when the query has no
    /// geometry or no distance.
    /// - Throws: ``FeatureTableError/Kind/invalidQuery`` as a distance query over a table of
    ///   `reference` throws.
    package static func distanceWindow(_ query: QueryParameters, reference: SpatialReference) throws(FeatureTableError) -> Envelope? {
        guard let geometry = query.geometry, let distance = query.distance else { return nil }
        guard query.spatialRelationship == .intersects else {
            throw FeatureTableError(.invalidQuery, "a distance applies to the intersects relationship only, not \(query.spatialRelationship)")
        }
        let projected = try queryGeometry(geometry, from: query.inSpatialReference ?? reference, to: reference)
        let box = try Proximity(distance, query: projected, reference: reference).window(projected.envelope)
        guard !box.isEmpty else { return box }
        let d = GEOSResolution.spacing
        return Envelope(xmin: box.xmin - d, ymin: box.ymin - d, xmax: box.xmax + d, ymax: box.ymax + d)
    }

    /// Checks a relate pattern by its syntax alone, so that a bad pattern fails every query kind
    /// even when no row is a candidate; other relationships need no check.
    /// - Throws: ``FeatureTableError/Kind/invalidQuery`` for a pattern that is not DE-9IM.
    package static func validate(_ relationship: SpatialRelationship) throws(FeatureTableError) {
        guard case .relate(let pattern) = relationship else { return }
        do throws(GEOSError) {
            try IntersectionMatrix.validate(pattern: pattern)
        } catch {
            throw FeatureTableError(.invalidQuery, "relate pattern \"\(pattern)\": \(error.message)")
        }
    }

    /// Whether features disjoint from the query geometry can satisfy the relationship, so that
    /// every row with a geometry is a candidate and not just those near the query envelope.
    var admitsDisjoint: Bool { relationship.admitsDisjoint }

    /// See ``SpatialRelationship/patternNeedsIntersection(_:)``.
    static func patternNeedsIntersection(_ pattern: String) -> Bool {
        SpatialRelationship.patternNeedsIntersection(pattern)
    }

    /// The candidate rows, ascending: rows whose envelope intersects the query envelope, or
    /// every row with a geometry when ``admitsDisjoint``.
    func candidates(in table: FeatureTable) -> [UInt32] {
        if admitsDisjoint {
            var rows: [UInt32] = []
            rows.reserveCapacity(table.count)
            for (row, x) in table.xmin.enumerated() where !x.isNaN { rows.append(UInt32(row)) }
            return table.tombstones.removingDeleted(from: rows)
        }
        let box = proximity?.window(geometry.envelope) ?? geometry.envelope
        guard !box.isEmpty else { return [] }
        // GEOS sees coordinates rounded to its grid (GEOSResolution), each moved by at most half
        // a spacing: a feature whose rounded envelope meets the rounded query envelope lies
        // within one spacing of it. (For coordinates above 1e-138 this widening is no change.)
        let d = GEOSResolution.spacing
        let window = Envelope(xmin: box.xmin - d, ymin: box.ymin - d, xmax: box.xmax + d, ymax: box.ymax + d)
        var rows: [UInt32] = []
        if !table.extent.isEmpty, window.contains(table.extent) {
            // A window around the whole table (a world map's tile): every row with a geometry,
            // in order, without the index or a sort. The extent covers every geometry, edits'
            // too (it only grows).
            rows.reserveCapacity(table.count)
            for (row, x) in table.xmin.enumerated() where !x.isNaN { rows.append(UInt32(row)) }
            return table.tombstones.removingDeleted(from: rows)
        }
        table.withSpatialIndex { $0.query(intersecting: window, into: &rows) }
        rows = table.visibleRows(rows)
        rows.sort()
        return rows
    }

    /// What the envelopes decide on their own: `true` or `false`, or `nil` when GEOS must.
    /// Both are rounded to GEOS's grid first, as the geometries are (``GEOSResolution``).
    @inline(__always)
    func decide(feature: Envelope, query: Envelope) -> Bool? {
        let f = GEOSResolution.snap(feature), q = GEOSResolution.snap(query)
        let meet = f.intersects(q)
        switch relationship {
        case .envelopeIntersects: return meet
        case .disjoint: return meet ? nil : true
        case .relate(let pattern): return meet || !Self.patternNeedsIntersection(pattern) ? nil : false
        case .within: return q.contains(f) ? nil : false
        case .contains: return f.contains(q) ? nil : false
        case .equals: return f == q ? nil : false
        case .intersects, .touches, .crosses, .overlaps: return meet ? nil : false
        }
    }

    /// The rows of `rows` (ascending) whose geometry satisfies the relationship, ascending.
    /// - Throws: ``FeatureTableError/Kind/invalidQuery`` when GEOS rejects the query geometry
    ///   or the relate pattern is not a DE-9IM pattern;
    ///   ``FeatureTableError/Kind/invalidGeometry`` (with the object ID) when GEOS fails on a
    ///   feature's geometry.
    func filter(_ rows: [UInt32], table: FeatureTable) throws(FeatureTableError) -> [UInt32] {
        try GEOSContext.withCurrent { context throws(FeatureTableError) -> [UInt32] in
            let query: GEOSGeometry
            let prepared: PreparedGeometry
            do throws(GEOSError) {
                query = try GEOSGeometry(geometry, context: context)
                prepared = try PreparedGeometry(query)
            } catch {
                throw FeatureTableError(.invalidQuery, "GEOS rejects the query geometry: \(error.message)")
            }
            let queryEnvelope = geometry.envelope
            // Relationships GEOS answers with its full DE-9IM computation, even prepared, in time
            // that is quadratic on some shapes: every pair is estimated first (``RelateCost``) and
            // one GEOS would take over a second on is refused, with the feature's object ID; a
            // query geometry too complex on its own is refused before the first feature.
            let estimator: RelateCostEstimator?
            switch relationship {
            case .contains, .touches, .crosses, .overlaps, .equals, .relate: estimator = RelateCostEstimator(geometry)
            case .intersects, .within, .disjoint, .envelopeIntersects: estimator = nil
            }
            let cancellation = QueryCancellation.current
            var result: [UInt32] = []
            // Envelopes and point coordinates are read from the column's arrays; a feature's
            // geometry is materialized only when GEOS must test it.
            let column = table.geometryColumn
            let pointXs = column.pointX, pointYs = column.pointY
            let shapes = column.shapes
            let window = proximity?.window(queryEnvelope)
            for row in rows {
                let r = Int(row)
                guard let envelope = column.envelope(row: r) else { continue }
                if let proximity, let window {
                    // Within a distance: every feature whose envelope meets the window is measured.
                    guard envelope.intersects(window) else { continue }
                    try cancellation?.check()
                    guard let feature = column[r] else { continue }
                    do throws(GEOSError) {
                        let converted = try GEOSGeometry(feature, context: context)
                        if try proximity.isNear(feature, converted, prepared: prepared) { result.append(row) }
                    } catch {
                        throw failure(error, row: r, table: table)
                    }
                    continue
                }
                if let decided = decide(feature: envelope, query: queryEnvelope) {
                    if decided { result.append(row) }
                    continue
                }
                do throws(GEOSError) {
                    if let point = Self.point(row: r, pointXs: pointXs, pointYs: pointYs, shapes: shapes),
                        let decided = try pointTest(x: point.x, y: point.y, prepared)
                    {
                        if decided { result.append(row) }
                        continue
                    }
                } catch {
                    throw failure(error, row: r, table: table)
                }
                try cancellation?.check()
                guard let feature = column[r] else { continue }
                if let estimator {
                    guard !estimator.exceedsLimitAlone else {
                        throw FeatureTableError(
                            .invalidQuery,
                            "the query geometry is too complex for GEOS to test \(relationship) against features: "
                                + "an estimated \(estimator.ownSweepSteps) steps per feature, the limit is \(estimator.limit)")
                    }
                    let cost = estimator.cost(against: feature)
                    guard cost.total <= estimator.limit else {
                        throw FeatureTableError(
                            .invalidQuery,
                            "the feature and the query geometry are too complex for GEOS to test \(relationship): "
                                + "an estimated \(cost.total) steps (\(cost)), the limit is \(estimator.limit)",
                            objectID: table.objectID(row: r))
                    }
                }
                do throws(GEOSError) {
                    let converted = try GEOSGeometry(feature, context: context)
                    if try test(converted, prepared) { result.append(row) }
                } catch {
                    throw failure(error, row: r, table: table)
                }
            }
            return result
        }
    }

    /// The error for GEOS failing on row `row`'s geometry.
    private func failure(_ error: GEOSError, row: Int, table: FeatureTable) -> FeatureTableError {
        FeatureTableError(
            .invalidGeometry, "GEOS failed testing \(relationship) against the query geometry: \(error.message)",
            objectID: table.objectID(row: row))
    }

    /// The coordinates of row `row`, which has a geometry, when that geometry is a point, read
    /// from the column's arrays (`pointXs`/`pointYs` in point storage, where every geometry is a
    /// point; `shapes` otherwise); `nil` for any other geometry.
    @inline(__always)
    package static func point(row: Int, pointXs: ColumnBuffer<Double>, pointYs: ColumnBuffer<Double>, shapes: GeometryColumn.Shapes?) -> (x: Double, y: Double)? {
        guard let shapes else { return (pointXs[row], pointYs[row]) }
        guard shapes.kind(row: row) == .point else { return nil }
        let p = shapes.positions(row: row).lowerBound
        return (shapes.x(p), shapes.y(p))
    }

    /// The answer for a point feature at `(x, y)` from the prepared query geometry's point
    /// tests, or `nil` when the relationship has none.
    @inline(__always)
    private func pointTest(x: Double, y: Double, _ prepared: PreparedGeometry) throws(GEOSError) -> Bool? {
        switch relationship {
        case .intersects: try prepared.intersects(x: x, y: y)
        case .disjoint: try !prepared.intersects(x: x, y: y)
        case .within: try prepared.contains(x: x, y: y)
        default: nil
        }
    }

    /// The exact test of feature `f` against the prepared query geometry `q`, feature first.
    @inline(__always)
    private func test(_ f: GEOSGeometry, _ q: PreparedGeometry) throws(GEOSError) -> Bool {
        switch relationship {
        case .intersects: try q.intersects(f)
        case .within: try q.contains(f)  // f within q ⇔ q contains f
        case .contains: try q.isWithin(f)  // f contains q ⇔ q within f
        case .touches: try q.touches(f)
        case .crosses: try q.crosses(f)
        case .overlaps: try q.overlaps(f)
        case .disjoint: try q.isDisjoint(with: f)
        case .equals: try q.geometry.isTopologicallyEqual(to: f)
        case .envelopeIntersects: f.envelope.intersects(q.envelope)
        case .relate(let pattern): try f.relate(q.geometry, pattern: pattern)
        }
    }
}

/// The values present in both ascending, duplicate-free arrays, ascending.
func intersectSorted(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
    var result: [UInt32] = []
    result.reserveCapacity(Swift.min(a.count, b.count))
    var i = 0, j = 0
    while i < a.count, j < b.count {
        if a[i] < b[j] {
            i += 1
        } else if a[i] > b[j] {
            j += 1
        } else {
            result.append(a[i])
            i += 1
            j += 1
        }
    }
    return result
}
