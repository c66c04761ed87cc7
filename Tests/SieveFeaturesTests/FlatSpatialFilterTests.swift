import Foundation
import SieveColumns
import SieveGEOS
import SieveGeometry
import SieveTestSupport
import Testing

@testable import SieveFeatures
@testable import SieveEditing
@testable import SieveFormats

/// The candidate-and-test spatial filter decides from the envelope arrays and tests point
/// features from the coordinate arrays, materializing a row only for GEOS: its answers must be
/// GEOS's feature-first answers on the materialized rows, for every relationship, on tables in
/// point storage and in shape storage.
@Suite("Spatial filter on flat geometry arrays")
struct FlatSpatialFilterTests {
    static func table(_ geometries: [Geometry?], type: GeometryType) throws -> FeatureTable {
        try FeatureTable(
            schema: Schema(fields: [Field(name: "OBJECTID", type: .oid)], objectIdFieldName: "OBJECTID", geometryType: type),
            columns: [.integer(Int64Column(values: Array(1...Int64(geometries.count))))], geometries: geometries)
    }

    /// The object IDs (row + 1) whose materialized geometry stands in `relationship` to `query`,
    /// feature first, by GEOS.
    static func expected(_ table: FeatureTable, _ query: Geometry, _ relationship: SpatialRelationship) throws -> [Int64] {
        let context = try GEOSContext()
        let q = try GEOSGeometry(query, context: context)
        return try (0..<table.count).filter { row in
            guard let geometry = table.geometry(row: row), !geometry.isEmpty else { return false }
            return try GEOSGeometry(geometry, context: context).satisfies(relationship, q)
        }.map { Int64($0 + 1) }
    }

    static let relationships: [SpatialRelationship] = [
        .intersects, .within, .contains, .touches, .crosses, .overlaps, .disjoint, .envelopeIntersects,
        .relate(pattern: "T********"), .relate(pattern: "FF*FF****"),
    ]

    /// Query geometries that take the candidate-and-test path for every relationship (no area),
    /// and an areal one for the relationships the region filter does not take.
    static func queries() throws -> [Geometry] {
        [
            try Geometry(wkt: "LINESTRING (100 100, 480 530, 900 120, 600 900)"),
            try Geometry(wkt: "MULTIPOINT ((250 250), (500 500), (740 610))"),
            try Geometry(wkt: "POLYGON ((200 200, 800 180, 820 790, 230 760, 200 200), (400 400, 600 400, 600 600, 400 600, 400 400))"),
        ]
    }

    static func check(_ table: FeatureTable) throws {
        for query in try queries() {
            for relationship in relationships {
                let ids = try table.queryObjectIDs(QueryParameters(geometry: query, spatialRelationship: relationship))
                let expected = try Self.expected(table, query, relationship)
                #expect(ids.count == expected.count, "\(relationship) \(query.kind)")
                let mismatch = zip(ids, expected).first { $0 != $1 }
                #expect(mismatch == nil, "\(relationship) \(query.kind): first differing object IDs \(String(describing: mismatch))")
            }
        }
    }

    @Test func pointStorage() throws {
        var random = SeededGenerator(seed: 61)
        var geometries: [Geometry?] = (0..<1500).map { _ in
            random.chance(5) ? nil : .point(Point(x: random.uniform(0, 1000), y: random.uniform(0, 1000)))
        }
        // Points on the query line's vertices and on the polygon's edges.
        geometries += [Point(x: 480, y: 530), Point(x: 500, y: 500), Point(x: 500, y: 400), Point(x: 200, y: 200)].map { .point($0) }
        let table = try Self.table(geometries, type: .point)
        #expect(table.geometryColumn.storage == .points)
        try Self.check(table)
    }

    @Test func shapeStorage() throws {
        var random = SeededGenerator(seed: 67)
        let geometries = try (0..<1200).map { _ in try FlatRegionFilterTests.randomGeometry(&random) }
        let table = try Self.table(geometries, type: .polygon)
        #expect(table.geometryColumn.storage == .shapes)
        try Self.check(table)
    }
}
