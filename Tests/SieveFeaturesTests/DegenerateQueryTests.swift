import SieveGEOS
import SieveGeometry
import Testing

@testable import SieveFeatures
@testable import SieveEditing
@testable import SieveFormats

/// Spatial queries (the spatial filter, and the region filter for intersects and within) with
/// the inputs that crashed GEOS 3.11 or answered inconsistently: a query collection with empty
/// members against rectangular features, and zero-length lines. Each relationship's rows are
/// checked against the answers of the same question asked of the same point sets written
/// without the degenerate parts (the collection without its empty members, the line as its
/// point) against the square drawn with six vertices (no rectangle fast path).
@Suite("Spatial queries with degenerate geometries")
struct DegenerateQueryTests {
    static let relationships: [SpatialRelationship] = [
        .intersects, .contains, .within, .touches, .crosses, .overlaps, .equals, .disjoint, .envelopeIntersects,
        .relate(pattern: "T********"), .relate(pattern: "FF*FF****"),
    ]

    /// The rows whose feature satisfies `relationship` with `query`, feature first, decided one
    /// by one through GEOSGeometry on the equivalent geometries.
    static func expected(_ features: [Geometry], _ query: Geometry, _ relationship: SpatialRelationship) throws -> [Int64] {
        let context = try GEOSContext()
        let q = try GEOSGeometry(query, context: context)
        return try features.indices.filter { i in
            try GEOSGeometry(features[i], context: context).satisfies(relationship, q)
        }.map { Int64($0 + 1) }
    }

    static func table(_ geometries: [Geometry]) throws -> FeatureTable {
        let text = featureCollection(
            geometries.map { _ in "{}" }, ids: geometries.indices.map { "\($0 + 1)" }, geometries: geometries.map(\.geoJSON))
        return try FeatureTable.load(geoJSON: text)
    }

    @Test func collectionsWithEmptyMembersAgainstRectangles() throws {
        let rectangles = [
            "POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0))", "POLYGON ((0 0, 0 2, 2 2, 2 0, 0 0))", "POLYGON ((1 1, 3 1, 3 3, 1 3, 1 1))",
            "POLYGON ((5 5, 6 5, 6 6, 5 6, 5 5))",
        ]
        let features = try rectangles.map { try Geometry(wkt: $0) }
        // The same squares, each with an extra vertex in the middle of its bottom edge.
        let equivalentFeatures = try [
            "POLYGON ((0 0, 1 0, 2 0, 2 2, 0 2, 0 0))", "POLYGON ((0 0, 0 2, 2 2, 2 0, 1 0, 0 0))",
            "POLYGON ((1 1, 2 1, 3 1, 3 3, 1 3, 1 1))", "POLYGON ((5 5, 5.5 5, 6 5, 6 6, 5 6, 5 5))",
        ].map { try Geometry(wkt: $0) }
        let table = try Self.table(features)
        let queries: [(String, String)] = [
            ("GEOMETRYCOLLECTION (POINT EMPTY, POINT (1 1))", "POINT (1 1)"),
            ("GEOMETRYCOLLECTION (POINT EMPTY, POLYGON EMPTY, LINESTRING (0 0, 1 1))", "LINESTRING (0 0, 1 1)"),
            ("GEOMETRYCOLLECTION (LINESTRING EMPTY, POINT (0.5 0.5), POINT (1.5 1.5))", "MULTIPOINT ((0.5 0.5), (1.5 1.5))"),
            ("GEOMETRYCOLLECTION (GEOMETRYCOLLECTION (POINT EMPTY), POLYGON ((0.5 0.5, 1.5 0.5, 1.5 1.5, 0.5 0.5)))",
             "POLYGON ((0.5 0.5, 1.5 0.5, 1.5 1.5, 0.5 0.5))"),
            ("GEOMETRYCOLLECTION (POINT EMPTY)", "GEOMETRYCOLLECTION EMPTY"),
        ]
        for (wkt, equivalentWKT) in queries {
            let query = try Geometry(wkt: wkt)
            for relationship in Self.relationships {
                let rows = try table.queryObjectIDs(QueryParameters(geometry: query, spatialRelationship: relationship))
                let expected = try Self.expected(equivalentFeatures, Geometry(wkt: equivalentWKT), relationship)
                #expect(rows == expected, "\(wkt) \(relationship)")
            }
        }
        // Hand-derived: the point (1 1) lies inside the first two squares and on the corner of
        // the third; the squares contain it except the third, which it touches.
        let point = try Geometry(wkt: "GEOMETRYCOLLECTION (POINT EMPTY, POINT (1 1))")
        #expect(try table.queryObjectIDs(QueryParameters(geometry: point, spatialRelationship: .contains)) == [1, 2])
        #expect(try table.queryObjectIDs(QueryParameters(geometry: point, spatialRelationship: .touches)) == [3])
    }

    @Test func zeroLengthLinesAreTheirPoints() throws {
        let lines = [
            "LINESTRING (1 1, 1 1)", "LINESTRING (2 0, 2 0)", "LINESTRING (5 5, 5 5, 5 5)", "LINESTRING (0 0, 2 2)",
            "MULTILINESTRING ((1 1, 1 1), (1.5 1.5, 1.5 1.5))",
        ]
        let points = ["POINT (1 1)", "POINT (2 0)", "POINT (5 5)", "LINESTRING (0 0, 2 2)", "MULTIPOINT ((1 1), (1.5 1.5))"]
        let table = try Self.table(lines.map { try Geometry(wkt: $0) })
        let equivalents = try points.map { try Geometry(wkt: $0) }
        for queryWKT in ["0,0,2,2", "POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0))", "POINT (1 1)", "LINESTRING (1 1, 1 1)"] {
            let (query, _) = try Geometry.parse(queryWKT)
            let equivalentQuery = queryWKT == "LINESTRING (1 1, 1 1)" ? try Geometry(wkt: "POINT (1 1)") : query
            for relationship in Self.relationships {
                let rows = try table.queryObjectIDs(QueryParameters(geometry: query, spatialRelationship: relationship))
                #expect(rows == (try Self.expected(equivalents, equivalentQuery, relationship)), "\(queryWKT) \(relationship)")
            }
            let intersecting = try table.queryObjectIDs(QueryParameters(geometry: query, spatialRelationship: .intersects))
            let disjoint = try table.queryObjectIDs(QueryParameters(geometry: query, spatialRelationship: .disjoint))
            #expect(Set(intersecting).isDisjoint(with: disjoint) && intersecting.count + disjoint.count == lines.count)
        }
        // Hand-derived: against the square 0,0,2,2 the zero-length lines at (1 1) and (2 0)
        // intersect it, the one at (5 5) does not; (1 1) lies within it, (2 0) on its corner.
        let square = Geometry.envelope(Envelope(xmin: 0, ymin: 0, xmax: 2, ymax: 2))
        #expect(try table.queryObjectIDs(QueryParameters(geometry: square, spatialRelationship: .intersects)) == [1, 2, 4, 5])
        #expect(try table.queryObjectIDs(QueryParameters(geometry: square, spatialRelationship: .within)) == [1, 4, 5])
        #expect(try table.queryObjectIDs(QueryParameters(geometry: square, spatialRelationship: .disjoint)) == [3])
    }
}
