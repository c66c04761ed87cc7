import Foundation
import SieveColumns
import SieveGEOS
import SieveGeometry
import SieveTestSupport
import Testing

@testable import SieveFeatures
@testable import SieveEditing
@testable import SieveFormats
@testable import SieveMap

/// Identify measures point features from the coordinate arrays and materializes only the other
/// features for GEOS: its hits must be those computed from the materialized rows.
@Suite("Identify on flat geometry arrays")
struct FlatIdentifyTests {
    /// The hits of an identify at `(x, y)` within `radius`, from the materialized rows: every
    /// row with a non-empty geometry within the radius (points by their offset, anything else by
    /// GEOS's distance), nearest first, ties by object ID.
    static func expected(_ table: FeatureTable, x: Double, y: Double, radius: Double) throws -> [(Int64, Double)] {
        let context = try GEOSContext()
        let click = try GEOSGeometry(.point(Point(x: x, y: y)), context: context)
        var hits: [(Int64, Double)] = []
        for row in 0..<table.count {
            guard let geometry = table.geometry(row: row), !geometry.isEmpty else { continue }
            // A geometry is no nearer than its envelope (checked here with a margin, to save
            // GEOS calls).
            let box = geometry.envelope
            if max(box.xmin - x, x - box.xmax, 0) > 2 * radius || max(box.ymin - y, y - box.ymax, 0) > 2 * radius { continue }
            let distance: Double
            if case .point(let p) = geometry {
                distance = FeatureTable.distance(dx: p.x - x, dy: p.y - y)
            } else {
                distance = try GEOSGeometry(geometry, context: context).distance(to: click)
            }
            if distance <= radius { hits.append((table.objectID(row: row), distance)) }
        }
        hits.sort { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }
        return hits
    }

    static func check(_ table: FeatureTable, seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        var total = 0
        for _ in 0..<150 {
            let (x, y) = (random.uniform(0, 1000), random.uniform(0, 1000))
            // Tolerance 20 pixels of a 1000-pixel view 1000 units wide: a radius of 20.
            let parameters = IdentifyParameters(
                x: x, y: y, tolerance: 20, mapExtent: Envelope(xmin: 0, ymin: 0, xmax: 1000, ymax: 1000), width: 1000,
                height: 1000, maxResults: 0, returnGeometry: true)
            let results = try table.identify(parameters)
            let expected = try Self.expected(table, x: x, y: y, radius: parameters.mapTolerance)
            #expect(results.map(\.objectID) == expected.map(\.0), "click (\(x), \(y))")
            #expect(results.map(\.distance) == expected.map(\.1), "click (\(x), \(y))")
            for result in results {
                #expect(result.geometry == table.geometry(row: result.row) || result.geometry?.wkb() == table.geometry(row: result.row)?.wkb())
            }
            total += results.count
        }
        #expect(total > 100)
    }

    @Test func pointStorage() throws {
        var random = SeededGenerator(seed: 71)
        let geometries: [Geometry?] = (0..<3000).map { _ in
            random.chance(5) ? nil : .point(Point(x: random.uniform(0, 1000), y: random.uniform(0, 1000)))
        }
        let table = try FlatSpatialFilterTests.table(geometries, type: .point)
        #expect(table.geometryColumn.storage == .points)
        try Self.check(table, seed: 73)
    }

    @Test func shapeStorage() throws {
        var random = SeededGenerator(seed: 79)
        let geometries = try (0..<3000).map { _ in try FlatRegionFilterTests.randomGeometry(&random) }
        let table = try FlatSpatialFilterTests.table(geometries, type: .polygon)
        #expect(table.geometryColumn.storage == .shapes)
        try Self.check(table, seed: 83)
    }
}
