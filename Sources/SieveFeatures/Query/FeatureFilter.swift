import SieveCQL
import SieveColumns
import SieveGEOS
import SieveGeometry
import SieveSQL

/// A CQL2 filter bound to a table: its where-clause part compiled against the table's schema,
/// and its spatial functions resolved into spatial filters in the table's spatial reference.
///
/// Running it computes each spatial function's 0/1 column over the rows still in question —
/// through the quadtree, the region filter and prepared GEOS geometries, as a query's spatial
/// filter — and then runs the clause over the table's columns and those, so a spatial function
/// may stand anywhere in the filter's `AND`, `OR` and `NOT` with three-valued logic (a feature
/// without a geometry makes it NULL).
///
/// ```swift
/// let filter = try FeatureFilter(CQL2Filter("S_WITHIN(geometry, BBOX(-10, 35, 30, 60)) AND pop_est > 5e6"), table: table)
/// let rows = try filter.matchingRows(in: table)
/// ```
///
/// The features' geometry is the property named by ``geometryPropertyNames(of:)`` (any case) that
/// is not also an attribute field. Strings compare byte for byte whatever the table's collation:
/// CQL2 ignores case only inside `CASEI`.
public struct FeatureFilter: Sendable {
    /// The filter as given.
    public let filter: CQL2Filter
    /// The where-clause part, bound to the table's fields and the geometry tests' columns.
    public let clause: CompiledWhereClause
    private let tests: [Test]

    /// A geometry test resolved against the table.
    private enum Test: Sendable {
        /// The spatial filter (feature first) against the table.
        case relationship(SpatialFilter)
        /// Whether the feature has a geometry.
        case present
        /// The same answer at every feature.
        case constant(Bool)
    }

    /// The names by which a filter may call the features' geometry: `geometry` (the name OGC API
    /// queryables give it), `geom`, `the_geom`, `shape`, `wkb_geometry` (the usual column names
    /// of GeoPackage, PostGIS, Esri and GDAL), unless the table has an attribute field of that
    /// name; none for a table without geometries.
    public static func geometryPropertyNames(of schema: Schema) -> Set<String> {
        guard schema.geometryType != nil else { return [] }
        return Set(["geometry", "geom", "the_geom", "shape", "wkb_geometry"].filter { schema.index(ofField: $0) == nil })
    }

    /// Binds `filter` to `table`.
    /// - Parameters:
    ///   - filter: The CQL2 filter.
    ///   - table: The table it will run on (any snapshot of it later).
    ///   - spatialReference: The reference of the filter's geometry literals (`filter-crs`);
    ///     WGS 84 longitude/latitude (CRS84) by default. They are projected into the table's.
    ///   - now: The instant `CURRENT_TIMESTAMP` stands for; the current time when `nil`.
    /// - Throws: ``/SieveCQL/CQL2Error`` for a filter that does not bind (an unknown property,
    ///   mixed types, a misplaced geometry, a CRS84 literal with a latitude beyond ±90 or a
    ///   longitude beyond ±180, …); ``FeatureTableError`` when a geometry literal cannot be
    ///   projected into the table's reference or GEOS cannot compare two literals.
    public init(
        _ filter: CQL2Filter, table: FeatureTable, spatialReference: SpatialReference = .wgs84, now: Int64? = nil
    ) throws {
        let lowered = try filter.lowered(
            geometryPropertyNames: Self.geometryPropertyNames(of: table.schema), dateOnlyPropertyNames: table.schema.dateOnlyFieldNames)
        if spatialReference.isGeographic { try lowered.validateCRS84Coordinates() }
        self.filter = filter
        clause = try lowered.compile(schema: table.schema, now: now)
        var tests: [Test] = []
        for test in lowered.geometryTests {
            switch test.kind {
            case .present:
                tests.append(.present)
            case .relationship(let relationship, let geometry):
                let query = QueryParameters(geometry: geometry, inSpatialReference: spatialReference, spatialRelationship: relationship)
                guard let spatial = try SpatialFilter(query, table: table) else {
                    preconditionFailure("a query with a geometry has a spatial filter")
                }
                tests.append(.relationship(spatial))
            case .literals(let relationship, let first, let second):
                tests.append(.constant(try Self.relate(first, second, relationship)))
            }
        }
        self.tests = tests
    }

    /// Whether `first` stands in `relationship` to `second`. GEOS computes every unprepared
    /// predicate from the DE-9IM matrix, so a pair it would take over a second on
    /// (``RelateCost``) is refused.
    private static func relate(_ first: Geometry, _ second: Geometry, _ relationship: SpatialRelationship) throws -> Bool {
        if relationship != .envelopeIntersects {
            let cost = RelateCost(first, second)
            guard cost.total <= RelateCost.defaultLimit else {
                throw FeatureTableError(
                    .invalidQuery,
                    "the filter's geometry literals are too complex for GEOS to compare: an estimated \(cost.total) steps "
                        + "(\(cost)), the limit is \(RelateCost.defaultLimit)")
            }
        }
        return try GEOSContext.withCurrent { context throws -> Bool in
            do throws(GEOSError) {
                let a = try GEOSGeometry(first, context: context), b = try GEOSGeometry(second, context: context)
                switch relationship {
                case .intersects: return try a.intersects(b)
                case .contains: return try a.contains(b)
                case .within: return try a.isWithin(b)
                case .touches: return try a.touches(b)
                case .crosses: return try a.crosses(b)
                case .overlaps: return try a.overlaps(b)
                case .equals: return try a.isTopologicallyEqual(to: b)
                case .disjoint: return try a.isDisjoint(with: b)
                case .envelopeIntersects: return a.envelopeIntersects(b)
                case .relate(let pattern): return try a.relate(b, pattern: pattern)
                }
            } catch {
                throw FeatureTableError(.invalidQuery, "cannot compare the filter's geometry literals: \(error.message)")
            }
        }
    }

    /// The live rows of `table` the filter selects, ascending; among `candidates` (ascending
    /// live rows) when given.
    /// - Throws: ``FeatureTableError`` when GEOS fails on a feature's geometry.
    public func matchingRows(in table: FeatureTable, candidates: [UInt32]? = nil) throws -> [UInt32] {
        var columns = table.columns
        for test in tests { columns.append(try column(test, table: table, candidates: candidates)) }
        let rows = clause.matchingRows(in: columns, rowCount: table.count, candidates: candidates)
        return candidates == nil ? table.tombstones.removingDeleted(from: rows) : rows
    }

    /// The 0/1 column of `test`: NULL where a feature has no geometry for a relationship.
    /// Rows outside `candidates` hold 0; the clause never reads them.
    private func column(_ test: Test, table: FeatureTable, candidates: [UInt32]?) throws -> Column {
        let count = table.count
        var values = [Int64](repeating: 0, count: count)
        let xmins = table.xmin
        switch test {
        case .present:
            for row in 0..<count where !xmins[row].isNaN { values[row] = 1 }
            return .integer(Int64Column(values: values))
        case .constant(let value):
            return .integer(Int64Column(values: [Int64](repeating: value ? 1 : 0, count: count)))
        case .relationship(let spatial):
            var rows: [UInt32]
            if let region = try spatial.regionRows(in: table) {
                rows = region
            } else {
                var inQuestion = spatial.candidates(in: table)
                if let candidates { inQuestion = intersectSorted(inQuestion, candidates) }
                rows = try spatial.filter(inQuestion, table: table)
            }
            for row in rows { values[Int(row)] = 1 }
            var validity = ValidityBitmap(count: count, allValid: true)
            for row in 0..<count where xmins[row].isNaN { validity.set(row, valid: false) }
            return .integer(Int64Column(values: values, validity: validity))
        }
    }
}
