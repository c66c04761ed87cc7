import Foundation
import SieveGEOS
import SieveGeometry
import SieveIndex
import Testing

@testable import SieveFeatures

/// The accelerated region filter against the plain loop over every feature with the prepared
/// query geometry (which the relationship tests check against Shapely).
@Suite("Region filter")
struct RegionFilterTests {
    static func star(vertices: Int, center: (Double, Double), outer: Double, inner: Double) throws -> Geometry {
        var ring: [Point] = []
        for i in 0..<vertices {
            let angle = Double(i) / Double(vertices) * 2 * Double.pi
            let radius = i.isMultiple(of: 2) ? outer : inner
            ring.append(Point(x: center.0 + radius * cos(angle), y: center.1 + radius * sin(angle)))
        }
        ring.append(ring[0])
        return .polygon(try Polygon(exterior: ring))
    }

    func naive(_ filter: RegionFilter, _ geometries: [Geometry?]) throws -> [UInt32] {
        try geometries.indices.filter { i in
            guard let geometry = geometries[i] else { return false }
            return try filter.test(geometry)
        }.map(UInt32.init)
    }

    @Test(arguments: [RegionFilter.Mode.intersects, .within])
    func pointsAgainstAStar(mode: RegionFilter.Mode) throws {
        var state: UInt64 = 5
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        // Points on a grid too, so that some lie exactly on the star's edges' vertices.
        var geometries: [Geometry?] = (0..<20_000).map { _ in .point(Point(x: next() * 1000, y: next() * 1000)) }
        geometries += (0...40).flatMap { i in (0...40).map { j in Geometry.point(Point(x: Double(i) * 25, y: Double(j) * 25)) } }
        geometries.append(nil)
        let boxes = geometries.map { $0?.envelope ?? .empty }
        let tree = QuadTree(
            xmin: boxes.map { $0.isEmpty ? .nan : $0.xmin }, ymin: boxes.map { $0.isEmpty ? .nan : $0.ymin },
            xmax: boxes.map { $0.isEmpty ? .nan : $0.xmax }, ymax: boxes.map { $0.isEmpty ? .nan : $0.ymax })
        let context = try GEOSContext()
        let query = try PreparedGeometry(Self.star(vertices: 200, center: (500, 500), outer: 450, inner: 250), context: context)
        let filter = RegionFilter(prepared: query, context: context, mode: mode)
        let fast = try filter.rows(in: tree, geometries: geometries)
        #expect(fast == (try naive(filter, geometries)))
        #expect(fast.count > 5000)
    }

    @Test(arguments: [RegionFilter.Mode.intersects, .within])
    func countriesAgainstAPolygon(mode: RegionFilter.Mode) throws {
        let table = try FeatureTable.load(geoJSON: try fixtureText("naturalearth_lowres.geojson"))
        let tree = QuadTree(xmin: table.xmin, ymin: table.ymin, xmax: table.xmax, ymax: table.ymax)
        let context = try GEOSContext()
        // Roughly Europe and Africa.
        let region = Geometry.polygon(try Polygon(exterior: [
            Point(x: -20, y: -40), Point(x: 55, y: -40), Point(x: 55, y: 72), Point(x: -20, y: 72), Point(x: -20, y: -40),
        ]))
        let filter = RegionFilter(prepared: try PreparedGeometry(region, context: context), context: context, mode: mode)
        let fast = try filter.rows(in: tree, geometries: table.geometries)
        #expect(fast == (try naive(filter, table.geometries)))
        #expect(!fast.isEmpty)
    }
}
