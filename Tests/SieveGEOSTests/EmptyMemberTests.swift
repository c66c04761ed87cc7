import CGEOS
import Foundation
import SieveGeometry
import Testing

@testable import SieveGEOS

/// Every answer GeoSieve gives about the ordered pair (a, b), through every public path of
/// SieveGEOS: the plain geometry's relationships, the DE-9IM matrix and the answers derived
/// from it, distance, and the prepared geometry's relationships (a prepared). One line per
/// answer, so that two pairs can be compared line by line.
func everyAnswer(_ a: GEOSGeometry, _ b: GEOSGeometry) throws -> [String] {
    let prepared = try PreparedGeometry(a)
    let matrix = try a.relate(b)
    let derived = try a.relationships(b)
    let distance = try a.distance(to: b)
    var lines = [
        "intersects \(try a.intersects(b))", "disjoint \(try a.isDisjoint(with: b))",
        "contains \(try a.contains(b))", "within \(try a.isWithin(b))",
        "covers \(try a.covers(b))", "coveredBy \(try a.isCovered(by: b))",
        "touches \(try a.touches(b))", "crosses \(try a.crosses(b))", "overlaps \(try a.overlaps(b))",
        "equals \(try a.isTopologicallyEqual(to: b))", "envelopeIntersects \(a.envelopeIntersects(b))",
        "relate \(matrix)", "relatePattern \(try a.relate(b, pattern: matrix.description))",
        "distance \(distance)", "withinDistance \(try a.isWithinDistance(0.5, of: b))",
        "prepared intersects \(try prepared.intersects(b))", "prepared disjoint \(try prepared.isDisjoint(with: b))",
        "prepared contains \(try prepared.contains(b))", "prepared containsProperly \(try prepared.containsProperly(b))",
        "prepared within \(try prepared.isWithin(b))", "prepared covers \(try prepared.covers(b))",
        "prepared coveredBy \(try prepared.isCovered(by: b))", "prepared touches \(try prepared.touches(b))",
        "prepared crosses \(try prepared.crosses(b))", "prepared overlaps \(try prepared.overlaps(b))",
        "prepared withinDistance \(try prepared.isWithinDistance(0.5, of: b))",
        "derived \(derived.intersects) \(derived.disjoint) \(derived.contains) \(derived.within) \(derived.covers) "
            + "\(derived.coveredBy) \(derived.touches) \(derived.crosses) \(derived.overlaps) \(derived.equals) \(derived.matrix)",
    ]
    for relationship in [SpatialRelationship.intersects, .contains, .within, .touches, .crosses, .overlaps, .equals, .disjoint] {
        lines.append("satisfies \(relationship) \(try a.satisfies(relationship, b)) \(try prepared.satisfies(relationship, b))")
    }
    return lines
}

/// GEOS 3.11 dereferences a null pointer when a collection whose members include an empty point
/// or an empty line string (reached before any member off the rectangle's boundary) is tested
/// for containment in an axis-aligned rectangle: `RectangleContains::isContainedInBoundary`
/// takes the empty point's missing coordinate, and walks an empty line string's segments from
/// index 0 to `size() - 1`, which wraps around. Raw GEOS calls found every entry point that
/// reaches it: `GEOSContains_r(rectangle, collection)`, `GEOSWithin_r(collection, rectangle)`
/// and their prepared forms (`GEOSPreparedContains_r` with the rectangle prepared,
/// `GEOSPreparedWithin_r` with the collection prepared), for a rectangle drawn either way
/// round; `MULTIPOINT (EMPTY, (1 1))` and `MULTILINESTRING (EMPTY, (0 0, 1 1))` built by GEOS's
/// own reader, and a collection nested inside one (`GEOMETRYCOLLECTION (GEOMETRYCOLLECTION
/// (POINT EMPTY), POINT (1 1))`), crash the same way. `GEOSDistance_r` crashes on
/// `GEOMETRYCOLLECTION (POINT EMPTY, POINT (5 5))` against any polygon, rectangle or not.
/// Empty polygons and empty collections as members are harmless, as is the same collection
/// against a polygon that is not a rectangle.
///
/// GeoSieve hands collections to GEOS without their empty members. These tests run the inputs
/// that crashed through every public path of SieveGEOS and through the raw GEOS calls on the
/// handles GeoSieve made (a regression crashes the test process), and check the answers against
/// GEOS's answers for the same collection without empty members against the same square drawn
/// with six vertices (not a rectangle to GEOS, so no rectangle fast path): the relationships of
/// a point set do not depend on members that add no point.
@Suite("Empty members of collections")
struct EmptyMemberTests {
    let context: GEOSContext

    init() throws {
        context = try GEOSContext()
    }

    func geos(_ wkt: String) throws -> GEOSGeometry {
        try GEOSGeometry(Geometry(wkt: wkt), context: context)
    }

    /// The inputs that crashed, each with the same point set written without empty members.
    static let dangerous: [(wkt: String, equivalent: String)] = [
        ("GEOMETRYCOLLECTION (POINT EMPTY, POINT (1 1))", "POINT (1 1)"),
        ("GEOMETRYCOLLECTION (POINT EMPTY, POLYGON EMPTY, LINESTRING (0 0, 1 1))", "LINESTRING (0 0, 1 1)"),
        ("GEOMETRYCOLLECTION (LINESTRING EMPTY, POINT (1 1))", "POINT (1 1)"),
        ("GEOMETRYCOLLECTION (POINT (0 0), POINT EMPTY, POINT (1 1))", "GEOMETRYCOLLECTION (POINT (0 0), POINT (1 1))"),
        ("GEOMETRYCOLLECTION (GEOMETRYCOLLECTION (POINT EMPTY), POINT (1 1))", "POINT (1 1)"),
        ("GEOMETRYCOLLECTION (GEOMETRYCOLLECTION EMPTY, POINT (1 1))", "POINT (1 1)"),
        ("GEOMETRYCOLLECTION (POLYGON EMPTY, POINT (1 1))", "POINT (1 1)"),
        ("GEOMETRYCOLLECTION (POINT EMPTY, POINT (5 5))", "POINT (5 5)"),
        ("GEOMETRYCOLLECTION (POINT EMPTY, LINESTRING (-1 1, 3 1))", "LINESTRING (-1 1, 3 1)"),
        ("GEOMETRYCOLLECTION (POLYGON EMPTY, LINESTRING (-1 1, 3 1))", "LINESTRING (-1 1, 3 1)"),
        ("GEOMETRYCOLLECTION (POINT EMPTY, POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0)))", "POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0))"),
        ("GEOMETRYCOLLECTION (POINT EMPTY, POLYGON ((1 1, 3 1, 3 3, 1 3, 1 1)))", "POLYGON ((1 1, 3 1, 3 3, 1 3, 1 1))"),
        ("GEOMETRYCOLLECTION (LINESTRING EMPTY, GEOMETRYCOLLECTION (POINT EMPTY, POINT (2 1)))", "POINT (2 1)"),
        ("GEOMETRYCOLLECTION (POINT EMPTY)", "GEOMETRYCOLLECTION EMPTY"),
        ("GEOMETRYCOLLECTION (POINT EMPTY, LINESTRING EMPTY, POLYGON EMPTY)", "GEOMETRYCOLLECTION EMPTY"),
        ("GEOMETRYCOLLECTION (GEOMETRYCOLLECTION EMPTY, GEOMETRYCOLLECTION (POINT EMPTY))", "GEOMETRYCOLLECTION EMPTY"),
    ]

    /// The square (0 0)–(2 2) as GEOS's rectangle fast paths see it (an envelope, and polygons
    /// drawn counter-clockwise and clockwise), and the same square with a sixth vertex in the
    /// middle of its bottom edge, which GEOS does not take for a rectangle.
    static func rectangles() throws -> [Geometry] {
        [
            .envelope(Envelope(xmin: 0, ymin: 0, xmax: 2, ymax: 2)),
            try Geometry(wkt: "POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0))"),
            try Geometry(wkt: "POLYGON ((0 0, 0 2, 2 2, 2 0, 0 0))"),
        ]
    }
    static let sixVertexSquare = "POLYGON ((0 0, 1 0, 2 0, 2 2, 0 2, 0 0))"

    @Test func everyPathAnswersAsForTheSamePointSetWithoutEmptyMembers() throws {
        let reference = try geos(Self.sixVertexSquare)
        for (wkt, equivalentWKT) in Self.dangerous {
            let collection = try geos(wkt)
            let equivalent = try geos(equivalentWKT)
            for rectangleGeometry in try Self.rectangles() {
                let rectangle = try GEOSGeometry(rectangleGeometry, context: context)
                #expect(try everyAnswer(collection, rectangle) == everyAnswer(equivalent, reference), "\(wkt) vs \(rectangleGeometry)")
                #expect(try everyAnswer(rectangle, collection) == everyAnswer(reference, equivalent), "\(rectangleGeometry) vs \(wkt)")
            }
        }
    }

    /// The raw GEOS predicates on the handles GeoSieve made, both ways round, prepared and not,
    /// and distance: each crashed before the empty members were left out.
    @Test func rawGEOSCallsOnGeoSieveHandlesDoNotCrash() throws {
        let h = context.handle
        typealias Raw = (OpaquePointer?, OpaquePointer?, OpaquePointer?) -> CChar
        let plain: [Raw] = [
            GEOSIntersects_r, GEOSDisjoint_r, GEOSContains_r, GEOSWithin_r, GEOSCovers_r, GEOSCoveredBy_r,
            GEOSTouches_r, GEOSCrosses_r, GEOSOverlaps_r, GEOSEquals_r,
        ]
        let prepared: [Raw] = [
            GEOSPreparedIntersects_r, GEOSPreparedDisjoint_r, GEOSPreparedContains_r, GEOSPreparedContainsProperly_r,
            GEOSPreparedWithin_r, GEOSPreparedCovers_r, GEOSPreparedCoveredBy_r, GEOSPreparedTouches_r,
            GEOSPreparedCrosses_r, GEOSPreparedOverlaps_r,
        ]
        for (wkt, _) in Self.dangerous {
            let collection = try geos(wkt)
            for rectangleGeometry in try Self.rectangles() {
                let rectangle = try GEOSGeometry(rectangleGeometry, context: context)
                for (a, b) in [(collection, rectangle), (rectangle, collection)] {
                    for function in plain { #expect(function(h, a.handle, b.handle) != 2, "\(wkt)") }
                    let preparedA = try #require(GEOSPrepare_r(h, a.handle))
                    defer { GEOSPreparedGeom_destroy_r(h, preparedA) }
                    for function in prepared { #expect(function(h, preparedA, b.handle) != 2, "\(wkt)") }
                    var distance = 0.0
                    #expect(GEOSDistance_r(h, a.handle, b.handle, &distance) == 1)
                    if let text = GEOSRelate_r(h, a.handle, b.handle) { GEOSFree_r(h, text) }
                }
            }
        }
    }

    /// Answers reasoned from the drawings: a point inside the square is within it, the line
    /// through the square crosses it (the empty polygon member does not make the collection an
    /// area: GEOS 3.11 said `false`, counting POLYGON EMPTY's dimension 2), a collection of only
    /// empty members relates to nothing.
    @Test func handDerivedAnswers() throws {
        let square = try GEOSGeometry(Self.rectangles()[0], context: context)
        let point = try geos("GEOMETRYCOLLECTION (POINT EMPTY, POINT (1 1))")
        #expect(try point.isWithin(square))
        #expect(try square.contains(point))
        #expect(try PreparedGeometry(square).contains(point))
        #expect(try PreparedGeometry(point).isWithin(square))
        #expect(try point.relate(square).description == "0FFFFF212")
        let line = try geos("GEOMETRYCOLLECTION (POLYGON EMPTY, LINESTRING (-1 1, 3 1))")
        #expect(line.dimension == 1)
        #expect(try line.crosses(square))
        #expect(try square.crosses(line))
        #expect(try line.relationships(square).crosses)
        let points = try geos("GEOMETRYCOLLECTION (POLYGON EMPTY, MULTIPOINT ((1 1), (5 5)))")
        #expect(points.dimension == 0)
        #expect(try points.overlaps(geos("MULTIPOINT ((1 1), (6 6))")))
        let nothing = try geos("GEOMETRYCOLLECTION (POINT EMPTY, LINESTRING EMPTY)")
        #expect(nothing.isEmpty)
        #expect(nothing.dimension == nil)
        #expect(try !nothing.intersects(square))
        #expect(try nothing.isDisjoint(with: square))
        #expect(try !square.contains(nothing))
        #expect(try nothing.distance(to: square) == .infinity)
        #expect(try geos("GEOMETRYCOLLECTION (POINT EMPTY, POINT (5 5))").distance(to: square) == (9.0 + 9.0).squareRoot())
    }

    /// Multi-geometries with empty parts, from every reader, never reach GEOS with them: the
    /// readers leave empty parts out (or reject them), so what GEOS gets is the non-empty rest.
    @Test func multiGeometriesWithEmptyFirstPartsFromEveryReader() throws {
        let square = try GEOSGeometry(Self.rectangles()[1], context: context)
        // WKT.
        #expect(try Geometry(wkt: "MULTIPOINT (EMPTY, (1 1))") == Geometry(wkt: "MULTIPOINT ((1 1))"))
        #expect(try Geometry(wkt: "MULTILINESTRING (EMPTY, (0 0, 1 1))") == Geometry(wkt: "LINESTRING (0 0, 1 1)"))
        #expect(try Geometry(wkt: "MULTIPOLYGON (EMPTY, ((0 0, 1 0, 1 1, 0 0)))") == Geometry(wkt: "POLYGON ((0 0, 1 0, 1 1, 0 0))"))
        #expect(try geos("MULTIPOINT (EMPTY, (1 1))").isWithin(square))
        #expect(try square.contains(geos("MULTILINESTRING (EMPTY, (0 0, 1 1))")))
        // WKB: a multipoint whose first member is POINT EMPTY (NaN coordinates).
        var wkb: [UInt8] = [1, 4, 0, 0, 0, 2, 0, 0, 0]
        for (x, y) in [(Double.nan, Double.nan), (1, 1)] {
            wkb += [1, 1, 0, 0, 0]
            wkb += withUnsafeBytes(of: x.bitPattern.littleEndian, Array.init)
            wkb += withUnsafeBytes(of: y.bitPattern.littleEndian, Array.init)
        }
        let fromWKB = try Geometry(wkb: wkb)
        #expect(fromWKB == (try Geometry(wkt: "MULTIPOINT ((1 1))")))
        #expect(try square.contains(GEOSGeometry(fromWKB, context: context)))
        // WKB: a collection whose first member is an empty line string.
        var collectionWKB: [UInt8] = [1, 7, 0, 0, 0, 2, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0]
        collectionWKB += withUnsafeBytes(of: (1.0).bitPattern.littleEndian, Array.init)
        collectionWKB += withUnsafeBytes(of: (1.0).bitPattern.littleEndian, Array.init)
        let collection = try GEOSGeometry(Geometry(wkb: collectionWKB), context: context)
        #expect(try square.contains(collection))
        #expect(try collection.isWithin(square))
        // GeoJSON: a GeometryCollection whose first member is the empty point.
        let geoJSON = #"{"type":"GeometryCollection","geometries":[{"type":"Point","coordinates":[]},{"type":"Point","coordinates":[1,1]}]}"#
        let fromGeoJSON = try GEOSGeometry(Geometry(geoJSON: geoJSON), context: context)
        #expect(try square.contains(fromGeoJSON))
        #expect(try PreparedGeometry(square).contains(fromGeoJSON))
        // GeoJSON cannot write an empty part of a multi-geometry: an empty position is an error.
        #expect(throws: GeometryError.self) {
            try Geometry(geoJSON: #"{"type":"MultiPoint","coordinates":[[],[1,1]]}"#)
        }
        #expect(throws: GeometryError.self) {
            try Geometry(geoJSON: #"{"type":"MultiLineString","coordinates":[[],[[0,0],[1,1]]]}"#)
        }
    }

    /// The empty members are left out of what GEOS gets, and nothing else changes.
    @Test func geosFormLeavesOutEmptyMembersOnly() throws {
        #expect(try Geometry(wkt: "GEOMETRYCOLLECTION (POINT EMPTY, POINT (1 1))").geosForm()
            == Geometry(wkt: "GEOMETRYCOLLECTION (POINT (1 1))"))
        #expect(try Geometry(wkt: "GEOMETRYCOLLECTION (GEOMETRYCOLLECTION (POINT EMPTY, POINT (1 1)), LINESTRING EMPTY)").geosForm()
            == Geometry(wkt: "GEOMETRYCOLLECTION (GEOMETRYCOLLECTION (POINT (1 1)))"))
        #expect(try Geometry(wkt: "GEOMETRYCOLLECTION (POINT EMPTY)").geosForm() == Geometry(wkt: "GEOMETRYCOLLECTION EMPTY"))
        #expect(try Geometry(wkt: "GEOMETRYCOLLECTION (POINT (1 1), LINESTRING (0 0, 1 1))").geosForm() == nil)
        #expect(try Geometry(wkt: "POINT EMPTY").geosForm() == nil)
        #expect(try Geometry(wkt: "GEOMETRYCOLLECTION (POLYGON EMPTY, POINT (1 1))").dimension == 0)
        #expect(try Geometry(wkt: "GEOMETRYCOLLECTION (POLYGON EMPTY)").dimension == nil)
    }
}
