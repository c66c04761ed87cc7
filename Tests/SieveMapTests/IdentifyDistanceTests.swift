import SieveGeometry
import Testing

@testable import SieveFeatures
@testable import SieveEditing
@testable import SieveFormats
@testable import SieveMap

/// Identify's distances at the ends of the `Double` range: point features a subnormal or a
/// near-overflow distance away are measured to a few units in the last place, and hit exactly
/// when they lie within the radius.
@Suite("Identify distances at the ends of the Double range")
struct IdentifyDistanceTests {
    @Test func pointDistances() {
        let tiny = 0x1p-1074
        // 3-4-5 triangles at every scale: exact.
        #expect(FeatureTable.distance(dx: 3 * tiny, dy: 4 * tiny) == 5 * tiny)
        #expect(FeatureTable.distance(dx: 3e-170, dy: -4e-170) == 5e-170)
        #expect(FeatureTable.distance(dx: 3, dy: 4) == 5)
        #expect(FeatureTable.distance(dx: -3e300, dy: 4e300) == 5e300)
        #expect(FeatureTable.distance(dx: 0, dy: 0) == 0)
        #expect(FeatureTable.distance(dx: tiny, dy: 0) == tiny)
        #expect(FeatureTable.distance(dx: .infinity, dy: 0) == .infinity)
        // Near the largest double: finite when the length is.
        let big = 1e308
        #expect(abs(FeatureTable.distance(dx: big, dy: big) / (big * 2.0.squareRoot()) - 1) < 1e-15)
        #expect(FeatureTable.distance(dx: 1.7e308, dy: 1e308) == .infinity)
        // Sums of squares in the subnormal range lose precision: 1e-160 squared keeps a handful
        // of digits only, the scaled form all of them.
        let d = FeatureTable.distance(dx: 1e-160, dy: 1e-161)
        let expected = 1e-160 * (1.01).squareRoot()
        #expect(abs(d / expected - 1) < 1e-15)
    }

    /// Points a few subnormal units from the identify point, with a radius of a few units: hit
    /// by their true distance (before, every squared offset was zero, so every one was hit).
    @Test func subnormalOffsetsThroughIdentify() throws {
        let tiny = 0x1p-1074
        let coordinates = [(0.0, 3 * tiny), (4 * tiny, 3 * tiny), (10 * tiny, 0), (0, Double(bitPattern: 0x7e8))]
        let features = coordinates.enumerated().map { i, c in
            #"{"type":"Feature","properties":{"n":\#(i)},"geometry":{"type":"Point","coordinates":[\#(c.0),\#(c.1)]}}"#
        }
        let table = try FeatureTable.load(geoJSON: #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}")
        // A view 100 px wide showing 100·(5·2^-1074): 5 units of 2^-1074 a pixel, tolerance 1 px.
        let width = 500 * tiny
        let parameters = IdentifyParameters(
            x: 0, y: 0, tolerance: 1, mapExtent: Envelope(xmin: 0, ymin: 0, xmax: width, ymax: width), width: 100,
            height: 100, maxResults: 0)
        #expect(parameters.mapTolerance == 5 * tiny)
        let hits = try table.identify(parameters)
        // (0, 3) at 3 units and (4, 3) at 5 units are hit; (10, 0) and 1e-320 (2024 units) not.
        #expect(hits.map(\.distance) == [3 * tiny, 5 * tiny])
        #expect(hits.map(\.objectID) == [1, 2])
    }

    /// Points near the largest doubles: √2·10³⁰⁸ away is not within 10³⁰⁸.
    @Test func hugeOffsetsThroughIdentify() throws {
        let coordinates = [(1e308, 1e308), (0.0, 9e307), (-1e308, 0.0)]
        let features = coordinates.enumerated().map { i, c in
            #"{"type":"Feature","properties":{"n":\#(i)},"geometry":{"type":"Point","coordinates":[\#(c.0),\#(c.1)]}}"#
        }
        let table = try FeatureTable.load(geoJSON: #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}")
        let parameters = IdentifyParameters(
            x: 0, y: 0, tolerance: 1, mapExtent: Envelope(xmin: -5e307, ymin: -5e307, xmax: 5e307, ymax: 5e307), width: 1,
            height: 1, maxResults: 0)
        #expect(parameters.mapTolerance == 1e308)
        let hits = try table.identify(parameters)
        #expect(hits.map(\.distance) == [9e307, 1e308])
        #expect(hits.map(\.objectID) == [2, 3])
    }
}
