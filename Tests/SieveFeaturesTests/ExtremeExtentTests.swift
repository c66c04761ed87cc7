import Foundation
import SieveGEOS
import SieveGeometry
import Testing

@testable import SieveFeatures
@testable import SieveEditing
@testable import SieveFormats
import SieveTestSupport

/// Query polygons whose extent overflows a Double (wider than the largest finite value) or is
/// smaller than the spacing of Doubles at its coordinates: the region filter's grid computed
/// cell numbers from them with `Int(Double)` and trapped on the infinite or NaN quotient. Such
/// polygons get no grid; GEOS answers alone.
@Suite("Spatial queries with extreme extents")
struct ExtremeExtentTests {
    static func star(radius: Double, center: (Double, Double) = (0, 0), vertices: Int = 40) throws -> Geometry {
        var ring: [Point] = []
        for i in 0..<vertices {
            let angle = Double(i) / Double(vertices) * 2 * Double.pi
            let r = i.isMultiple(of: 2) ? radius : radius / 2
            ring.append(Point(x: center.0 + r * cos(angle), y: center.1 + r * sin(angle)))
        }
        ring.append(ring[0])
        return .polygon(try Polygon(exterior: ring))
    }

    @Test func gridsAreOnlyBuiltForUsableExtents() throws {
        let context = try GEOSContext()
        for (radius, center, usable) in [
            (1e308, (0.0, 0.0), false),  // width 2e308 overflows
            (8e307, (0.0, 0.0), false),  // width 1.6e308: more than half the largest Double
            (1e-300, (1e10, 0.0), false),  // cells far below the spacing of Doubles near 1e10
            (Double(bitPattern: 0x7e8), (0.0, 0.0), true),  // about 1e-320: subnormal, but cells still representable
            (100, (0.0, 0.0), true),
        ] {
            let geometry = try Self.star(radius: radius, center: center)
            let prepared = try PreparedGeometry(geometry, context: context)
            let grid = PolygonGrid(geometry, prepared: prepared)
            #expect((grid != nil) == usable, "radius \(radius)")
            if let grid {
                _ = grid.isInside(x: center.0, y: center.1)
                _ = grid.classify(Envelope(xmin: -1.7e308, ymin: -1.7e308, xmax: 1.7e308, ymax: 1.7e308))
            }
        }
    }

    /// The whole query path on a table big enough for the grid (10,000 points): the rows are
    /// those the prepared polygon's own point test accepts.
    @Test(arguments: [1e308, Double(bitPattern: 0x7e8)])
    func queriesOnATableAnswerAsGEOS(radius: Double) throws {
        var features: [String] = []
        var points: [(Double, Double)] = []
        for i in 0..<10_000 {
            let x = (Double(i % 100) - 50) / 50 * radius, y = (Double(i / 100) - 50) / 50 * radius
            points.append((x, y))
            features.append(#"{"type":"Feature","id":\#(i + 1),"properties":{},"geometry":{"type":"Point","coordinates":[\#(x),\#(y)]}}"#)
        }
        let table = try FeatureTable.load(geoJSON: #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}")
        let query = try Self.star(radius: radius)
        let context = try GEOSContext()
        let prepared = try PreparedGeometry(query, context: context)
        for relationship in [SpatialRelationship.intersects, .within] {
            let rows = try table.queryObjectIDs(QueryParameters(geometry: query, spatialRelationship: relationship))
            let expected = try points.indices.filter { i in
                relationship == .intersects
                    ? try prepared.intersects(x: points[i].0, y: points[i].1) : try prepared.contains(x: points[i].0, y: points[i].1)
            }.map { Int64($0 + 1) }
            #expect(rows == expected, "\(relationship) radius \(radius)")
        }
    }
}

/// A query geometry on which GEOS's relate is quadratic (a star of 60,000 spikes: about 6 s of
/// GEOS per feature) is refused with a clear error for the relationships GEOS answers with its
/// full DE-9IM computation; the prepared ones (intersects, within, disjoint) still answer.
@Suite("Spatial queries with a query geometry too complex for GEOS's relate")
struct ComplexQueryTests {
    @Test func relateBasedRelationshipsAreRefused() throws {
        let table = try FeatureTable.load(geoJSON: featureCollection(
            ["{}", "{}"], ids: ["1", "2"],
            geometries: [#"{"type":"Point","coordinates":[1,1]}"#, #"{"type":"Point","coordinates":[100,100]}"#]))
        let star = try ExtremeExtentTests.star(radius: 10, vertices: 60_000)
        for relationship in [SpatialRelationship.touches, .crosses, .overlaps, .relate(pattern: "T********")] {
            let error = featureTableError {
                _ = try table.queryObjectIDs(QueryParameters(geometry: star, spatialRelationship: relationship))
            }
            #expect(error?.kind == .invalidQuery, "\(relationship)")
            #expect(error?.message.contains("too complex") == true, "\(relationship)")
        }
        // Decided from the envelopes alone (a point cannot contain or equal the star): no GEOS
        // call, so nothing to refuse.
        #expect(try table.queryObjectIDs(QueryParameters(geometry: star, spatialRelationship: .contains)) == [])
        #expect(try table.queryObjectIDs(QueryParameters(geometry: star, spatialRelationship: .equals)) == [])
        #expect(try table.queryObjectIDs(QueryParameters(geometry: star, spatialRelationship: .intersects)) == [1])
        #expect(try table.queryObjectIDs(QueryParameters(geometry: star, spatialRelationship: .within)) == [1])
        #expect(try table.queryObjectIDs(QueryParameters(geometry: star, spatialRelationship: .disjoint)) == [2])
    }

    /// A stored feature on which GEOS's relate is quadratic: the relate-based tests that reach it
    /// are refused with its object ID (instead of some 7 s of GEOS per query); tests GEOS
    /// answers prepared, and every query that does not reach it, are answered.
    @Test func aTooComplexStoredFeatureIsRefusedWithItsObjectID() throws {
        let star = try ExtremeExtentTests.star(radius: 10, vertices: 60_000)
        let table = try FeatureTable.load(geoJSON: featureCollection(
            ["{}", "{}"], ids: ["1", "2"],
            geometries: [star.geoJSON, #"{"type":"Polygon","coordinates":[[[100,100],[101,100],[101,101],[100,100]]]}"#]))
        let near = Geometry.envelope(Envelope(xmin: -1, ymin: -1, xmax: 1, ymax: 1))
        let error = featureTableError {
            _ = try table.queryObjectIDs(QueryParameters(geometry: near, spatialRelationship: .touches))
        }
        #expect(error?.kind == .invalidQuery)
        #expect(error?.objectID == 1)
        #expect(error?.message.hasPrefix("the feature and the query geometry are too complex for GEOS to test touches") == true)
        #expect(try table.queryObjectIDs(QueryParameters(geometry: near, spatialRelationship: .intersects)) == [1])
        let far = Geometry.envelope(Envelope(xmin: 99, ymin: 99, xmax: 102, ymax: 102))
        #expect(try table.queryObjectIDs(QueryParameters(geometry: far, spatialRelationship: .touches)) == [])
        #expect(try table.queryObjectIDs(QueryParameters(geometry: far, spatialRelationship: .contains)) == [])
    }

    /// A cancelled query stops with ``FeatureTableError/Kind/cancelled`` at the next feature
    /// GEOS would test, whether cancelled before it starts or from another thread while it runs.
    @Test func cancelledQueriesStop() async throws {
        let countries = try FeatureTable.load(geoJSON: fixtureText("naturalearth_lowres.geojson"))
        let box = QueryParameters(geometry: .envelope(Envelope(xmin: -10, ymin: -10, xmax: 10, ymax: 10)), spatialRelationship: .touches)
        let before = QueryCancellation()
        before.cancel()
        let error = featureTableError { _ = try QueryCancellation.$current.withValue(before) { try countries.queryObjectIDs(box) } }
        #expect(error?.kind == .cancelled)
        // Not cancelled, or nobody to cancel: the same query is answered.
        let answer = try countries.queryObjectIDs(box)
        #expect(try QueryCancellation.$current.withValue(QueryCancellation()) { try countries.queryObjectIDs(box) } == answer)
        // 100,000 points around a circle touching-tested against every country they surround:
        // minutes of GEOS in a debug build, cancelled after a few features.
        var points: [Point] = []
        for i in 0..<100_000 {
            let angle = Double(i) / 100_000 * 2 * Double.pi
            points.append(Point(x: 60 * cos(angle), y: 50 * sin(angle)))
        }
        let heavy = QueryParameters(geometry: .multipoint(try Multipoint(points: points)), spatialRelationship: .touches)
        let running = QueryCancellation()
        let task = Task.detached { () -> FeatureTableError? in
            featureTableError { _ = try QueryCancellation.$current.withValue(running) { try countries.queryObjectIDs(heavy) } }
        }
        try await Task.sleep(for: .milliseconds(200))
        running.cancel()
        #expect(await task.value?.kind == .cancelled)
    }
}
