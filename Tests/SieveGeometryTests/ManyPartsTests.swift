import Foundation
import Testing

@testable import SieveGeometry

/// Geometries of very many rings or paths read in time linear in their size. The readers used
/// to reserve room for each ring as it came, which reallocates the whole coordinate array to the
/// exact new size every time: quadratic copying (20,000 rings took seconds, 100,000 minutes).
/// Esri JSON's assignment of holes to outer rings compared every ring with every other. At
/// these sizes the old code would make the tests hang.
@Suite("Many rings and paths")
struct ManyPartsTests {
    static let count = 50_000

    /// Ring `i`: a unit square on a 250-column grid, counter-clockwise unless `clockwise`.
    static func square(_ i: Int, clockwise: Bool = false, inset: Double = 0) -> [[Double]] {
        let x = Double(i % 250) * 2 + inset, y = Double(i / 250) * 2 + inset, s = 1 - 2 * inset
        let ring = [[x, y], [x + s, y], [x + s, y + s], [x, y + s], [x, y]]
        return clockwise ? ring.reversed() : ring
    }

    static func json(_ rings: [[[Double]]]) -> String {
        "[" + rings.map { ring in "[" + ring.map { "[\($0[0]),\($0[1])]" }.joined(separator: ",") + "]" }.joined(separator: ",") + "]"
    }

    @Test func geoJSONMultiPolygonOfManyParts() throws {
        let parts = (0..<Self.count).map { "[" + Self.json([Self.square($0)]).dropFirst().dropLast() + "]" }
        let geometry = try Geometry(geoJSON: #"{"type":"MultiPolygon","coordinates":["# + parts.joined(separator: ",") + "]}")
        guard case .polygon(let polygon) = geometry else { Issue.record("not a polygon"); return }
        #expect(polygon.partCount == Self.count)
        #expect(polygon.coordinates.count == 5 * Self.count)
    }

    @Test func wkbMultiLineStringOfManyPaths() throws {
        var bytes: [UInt8] = [1, 5, 0, 0, 0]
        bytes += withUnsafeBytes(of: UInt32(Self.count).littleEndian, Array.init)
        for i in 0..<Self.count {
            bytes += [1, 2, 0, 0, 0, 2, 0, 0, 0]
            for value in [Double(i), 0, Double(i), 1] { bytes += withUnsafeBytes(of: value.bitPattern.littleEndian, Array.init) }
        }
        guard case .polyline(let polyline) = try Geometry(wkb: bytes) else { Issue.record("not a polyline"); return }
        #expect(polyline.pathCount == Self.count)
    }

    @Test func esriRingsWithHolesAndWithoutClockwiseRings() throws {
        // Outer rings clockwise, each with a counter-clockwise hole: every hole finds its own
        // outer ring among 25,000.
        var rings: [[[Double]]] = []
        for i in 0..<(Self.count / 2) {
            rings.append(Self.square(i, clockwise: true))
            rings.append(Self.square(i, inset: 0.25))
        }
        guard case .polygon(let holed) = try Geometry(esriJSON: #"{"rings":"# + Self.json(rings) + "}") else {
            Issue.record("not a polygon")
            return
        }
        #expect(holed.partCount == Self.count / 2)
        #expect((0..<holed.partCount).allSatisfy { holed.partRingRange($0).count == 2 })
        // No clockwise ring at all: nesting depth decides, every square an outer ring.
        let flat = (0..<Self.count).map { Self.square($0) }
        guard case .polygon(let separate) = try Geometry(esriJSON: #"{"rings":"# + Self.json(flat) + "}") else {
            Issue.record("not a polygon")
            return
        }
        #expect(separate.partCount == Self.count)
    }
}

/// Projection of coordinates so large that Web Mercator's x overflows: an error for every kind,
/// the point included (it used to come out with an infinite x).
@Suite("Projection overflow")
struct ProjectionOverflowTests {
    @Test func everyKindRejectsAnInfiniteResult() throws {
        let wgs84 = SpatialReference.wgs84, mercator = SpatialReference.webMercator
        for wkt in ["POINT (1e308 0)", "MULTIPOINT ((1e308 0))", "LINESTRING (-1e308 0, 1e308 1)"] {
            #expect(throws: GeometryError.self, "\(wkt)") { try Geometry(wkt: wkt).projected(from: wgs84, to: mercator) }
        }
        #expect(throws: GeometryError.self) {
            try Geometry.envelope(Envelope(xmin: -1e308, ymin: 0, xmax: 1e308, ymax: 1)).projected(from: wgs84, to: mercator)
        }
        // Ordinary longitudes still project.
        let projected = try Geometry(wkt: "POINT (180 0)").projected(from: wgs84, to: mercator)
        #expect(projected.envelope.xmin == 6_378_137 * Double.pi)
    }
}
