import Testing
@testable import SieveGeometry
import SieveJSON

@Suite("Geometry model")
struct GeometryModelTests {
    @Test func polygonRejectsUnclosedAndShortRings() {
        #expect(throws: GeometryError.self) {
            try Polygon(exterior: [Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 1, y: 1), Point(x: 0, y: 1)])
        }
        #expect(throws: GeometryError.self) {
            try Polygon(exterior: [Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 0, y: 0)])
        }
    }

    @Test func polylineRejectsSinglePointPathAndNaN() {
        #expect(throws: GeometryError.self) { try Polyline(paths: [[Point(x: 0, y: 0)]]) }
        #expect(throws: GeometryError.self) { try Polyline(paths: [[Point(x: 0, y: 0), Point(x: .nan, y: 1)]]) }
        #expect(throws: GeometryError.self) { try Multipoint(points: [Point(x: .infinity, y: 0)]) }
    }

    @Test func esriRingsBecomePartsWithHoles() throws {
        // Two clockwise outers; a counter-clockwise hole inside the second.
        let outerA = [(0, 0), (0, 10), (10, 10), (10, 0), (0, 0)].map { Point(x: Double($0.0), y: Double($0.1)) }
        let outerB = [(20, 0), (20, 10), (30, 10), (30, 0), (20, 0)].map { Point(x: Double($0.0), y: Double($0.1)) }
        let hole = [(22, 2), (28, 2), (28, 8), (22, 8), (22, 2)].map { Point(x: Double($0.0), y: Double($0.1)) }
        let polygon = try Polygon(esriRings: [hole, outerA, outerB])
        #expect(polygon.partCount == 2)
        #expect(polygon.parts[0] == [outerA])
        #expect(polygon.parts[1] == [outerB, hole])
    }

    @Test func counterClockwiseOnlyRingsNestByContainment() throws {
        let outer = [(0, 0), (10, 0), (10, 10), (0, 10), (0, 0)].map { Point(x: Double($0.0), y: Double($0.1)) }
        let inner = [(2, 2), (8, 2), (8, 8), (2, 8), (2, 2)].map { Point(x: Double($0.0), y: Double($0.1)) }
        let polygon = try Polygon(esriRings: [outer, inner])
        #expect(polygon.partCount == 1)
        #expect(polygon.ringCount == 2)
    }

    @Test func orientationNormalization() throws {
        let ccw = [(0, 0), (10, 0), (10, 10), (0, 10), (0, 0)].map { Point(x: Double($0.0), y: Double($0.1)) }
        let ccwHole = [(2, 2), (8, 2), (8, 8), (2, 8), (2, 2)].map { Point(x: Double($0.0), y: Double($0.1)) }
        let polygon = try Polygon(exterior: ccw, holes: [ccwHole])
        let esri = polygon.outerRingsCounterClockwise(false)
        #expect(esri.signedDoubleArea(ofRing: 0) < 0)
        #expect(esri.signedDoubleArea(ofRing: 1) > 0)
        let geo = esri.outerRingsCounterClockwise(true)
        #expect(geo.signedDoubleArea(ofRing: 0) > 0)
        #expect(geo.signedDoubleArea(ofRing: 1) < 0)
        #expect(geo.signedDoubleArea(ofRing: 0) == 200)
    }

    @Test func envelopeRelations() throws {
        let a = Envelope(xmin: 0, ymin: 0, xmax: 10, ymax: 10)
        #expect(a.intersects(Envelope(xmin: 10, ymin: 10, xmax: 20, ymax: 20)))
        #expect(!a.intersects(Envelope(xmin: 10.5, ymin: 0, xmax: 20, ymax: 20)))
        #expect(!a.intersects(.empty))
        #expect(a.contains(Envelope(xmin: 0, ymin: 0, xmax: 10, ymax: 10)))
        #expect(throws: GeometryError.self) { try Envelope(validating: 1, 0, 0, 1) }
    }

    @Test func webMercatorKnownValues() throws {
        // 180° of longitude is half the world: π · 6378137 m.
        let east = WebMercator.forward(longitude: 180, latitude: 0)
        #expect(east.x == WebMercator.halfWorld)
        #expect(east.y == 0)
        // At the clamp latitude the map is square: y = π · R (to rounding).
        let top = WebMercator.forward(longitude: 0, latitude: 90)
        #expect(abs(top.y - WebMercator.halfWorld) < 1e-6)
        // Round trip.
        let point = Geometry.point(Point(x: -73.985, y: 40.748))
        let there = try point.projected(from: .wgs84, to: SpatialReference(wkid: 102100))
        let back = try there.projected(from: .webMercator, to: .wgs84)
        guard case .point(let p) = back else { Issue.record("not a point"); return }
        #expect(abs(p.x - -73.985) < 1e-12 && abs(p.y - 40.748) < 1e-12)
        #expect(throws: GeometryError.self) { try point.projected(from: .wgs84, to: SpatialReference(wkid: 2263)) }
    }

    @Test func numberFormattingRoundTrips() {
        #expect(formatNumber(12) == "12")
        #expect(formatNumber(-0.5) == "-0.5")
        for value in [0.1, 1e-5, 1.7976931348623157e308, 123456789.123456789, -180.0, .leastNonzeroMagnitude] {
            #expect(Double(formatNumber(value)) == value)
        }
    }
}
