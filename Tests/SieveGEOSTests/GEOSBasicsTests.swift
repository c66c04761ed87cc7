import SieveGeometry
import Testing

@testable import SieveGEOS

/// Small hand-built geometries (no codecs), so these tests stand on the model alone.
enum Shapes {
    static func square(_ x0: Double, _ y0: Double, _ size: Double) -> [Point] {
        [Point(x: x0, y: y0), Point(x: x0 + size, y: y0), Point(x: x0 + size, y: y0 + size),
         Point(x: x0, y: y0 + size), Point(x: x0, y: y0)]
    }
    static func polygon(_ x0: Double, _ y0: Double, _ size: Double) throws -> Geometry {
        .polygon(try Polygon(exterior: square(x0, y0, size)))
    }
    static func point(_ x: Double, _ y: Double) -> Geometry { .point(Point(x: x, y: y)) }
    static func line(_ coordinates: (Double, Double)...) throws -> Geometry {
        .polyline(try Polyline(paths: [coordinates.map { Point(x: $0.0, y: $0.1) }]))
    }
}

@Suite("GEOS bridge basics")
struct GEOSBasicsTests {
    let context: GEOSContext

    init() throws {
        context = try GEOSContext()
    }

    func geos(_ geometry: Geometry) throws -> GEOSGeometry {
        try GEOSGeometry(geometry, context: context)
    }

    @Test func squaresOverlap() throws {
        let a = try geos(Shapes.polygon(0, 0, 2))
        let b = try geos(Shapes.polygon(1, 1, 2))
        #expect(try a.intersects(b))
        #expect(try a.overlaps(b))
        #expect(try !a.contains(b))
        #expect(try a.relate(b).description == "212101212")
        #expect(try a.relate(b, pattern: "T*T***T**"))
    }

    @Test func pointOnBoundaryTouchesButIsNotContained() throws {
        let square = try geos(Shapes.polygon(0, 0, 2))
        let edge = try geos(Shapes.point(2, 1))
        #expect(try square.intersects(edge))
        #expect(try square.touches(edge))
        #expect(try !square.contains(edge))
        #expect(try square.covers(edge))
        #expect(try square.relate(edge).description == "FF20F1FF2")
    }

    @Test func preparedPointTests() throws {
        let prepared = try PreparedGeometry(Shapes.polygon(0, 0, 2), context: context)
        #expect(try prepared.intersects(x: 1, y: 1))
        #expect(try prepared.intersects(x: 2, y: 1))
        #expect(try !prepared.contains(x: 2, y: 1))
        #expect(try prepared.contains(x: 1, y: 1))
        #expect(try !prepared.intersects(x: 3, y: 1))
        #expect(try !prepared.intersects(x: 1.5, y: 2.0000001))
    }

    @Test func distance() throws {
        let a = try geos(Shapes.point(0, 0))
        let b = try geos(Shapes.line((3, -1), (3, 4)))
        #expect(try a.distance(to: b) == 3)
        #expect(try a.isWithinDistance(3, of: b))
        #expect(try !a.isWithinDistance(2.999, of: b))
        #expect(try a.distance(to: geos(.point(.empty))) == .infinity)
    }

    @Test func validityReason() throws {
        let bowtie = try Polygon(exterior: [
            Point(x: 0, y: 0), Point(x: 2, y: 2), Point(x: 2, y: 0), Point(x: 0, y: 2), Point(x: 0, y: 0),
        ])
        let validity = try geos(.polygon(bowtie)).validity()
        #expect(!validity.isValid)
        #expect(validity.reason == "Self-intersection")
        #expect(validity.location == Point(x: 1, y: 1))
        #expect(try geos(Shapes.polygon(0, 0, 1)).isValid)
    }

    @Test func relateOnInvalidPolygonIsAThrownGEOSError() throws {
        // A bow-tie (self-intersecting at (1 1)) against a square whose corner is that point:
        // GEOS 3.11 raises "TopologyException: side location conflict".
        let bowtie = try Polygon(exterior: [
            Point(x: 0, y: 0), Point(x: 2, y: 2), Point(x: 2, y: 0), Point(x: 0, y: 2), Point(x: 0, y: 0),
        ])
        let a = try geos(.polygon(bowtie))
        let b = try geos(Shapes.polygon(0, 0, 1))
        #expect {
            _ = try a.relate(b)
        } throws: { error in
            guard let error = error as? GEOSError else { return false }
            return error.kind == .geosException && error.function == "GEOSRelate_r"
                && error.message.contains("TopologyException")
        }
        #expect(throws: GEOSError.self) { try a.contains(b) }
        // The context still works after the exception, and holds no stale message.
        #expect(try a.isDisjoint(with: geos(Shapes.point(5, 5))))
        #expect(try a.intersects(b))
    }

    @Test func invalidPatternThrows() throws {
        let a = try geos(Shapes.point(0, 0))
        #expect(throws: GEOSError.self) { try a.relate(a, pattern: "T*F**F**") }
        #expect(throws: GEOSError.self) { try a.relate(a, pattern: "T*F**F**X") }
    }
}
