import Foundation
import SieveGeometry
import Testing

@testable import SieveGEOS
import SieveTestSupport

/// One row of `oracle/point_member_oracle.json`: the exact DE-9IM matrix of a against b,
/// computed by brute force over the arrangement of the two geometries in rational arithmetic
/// (`oracle/make_point_member_oracle.py`), and GEOS 3.14's through Shapely for comparison.
struct PointMemberOracleRow: Decodable {
    let a: String
    let b: String
    let relate: String
    let shapely: String
    /// The exact matrix of the two geometries' lines and areas alone; `nil` when either has none.
    let restRelate: String?
}

/// Collections with point members (and multi-lines whose parts of no extent are points): the
/// DE-9IM matrix GeoSieve assembles from GEOS's matrix of the other members and the points'
/// locations is the exact one, and every path (plain, prepared, derived, point tests) agrees.
@Suite("Collections with point members")
struct PointMemberTests {
    static func oracle() throws -> [PointMemberOracleRow] {
        try JSONDecoder().decode([PointMemberOracleRow].self, from: Data(fixtureText("oracle/point_member_oracle.json").utf8))
    }

    /// Every pair of the oracle: the matrix is the exact one whenever GEOS computes the exact
    /// matrix of the lines and areas (which GeoSieve takes from GEOS as it is; GEOS 3.11 gets a
    /// few of those wrong on its own, e.g. overlaps of self-intersecting lines, and treats
    /// collections of lines and areas as it does), and the answers of every path agree with
    /// each other and with it on every pair.
    @Test func matricesAreExact() throws {
        let rows = try Self.oracle()
        #expect(rows.count >= 1_500)
        let context = try GEOSContext()
        var wrong: [String] = []
        var violations: [String] = []
        var exceptions: [String] = []
        var checked = 0
        for row in rows {
            do {
                let geometryA = try Geometry(wkt: row.a), geometryB = try Geometry(wkt: row.b)
                let a = try GEOSGeometry(geometryA, context: context)
                let b = try GEOSGeometry(geometryB, context: context)
                let matrix = try a.relate(b).description
                violations += try DegenerateGeometryPropertyTests.violations(a, b, row.a, row.b)
                if let restRelate = row.restRelate {
                    let restA = try #require(GEOSGeometry.pointSplit(geometryA.geosForm() ?? geometryA).rest)
                    let restB = try #require(GEOSGeometry.pointSplit(geometryB.geosForm() ?? geometryB).rest)
                    let geos = try GEOSGeometry(restA, context: context).relate(GEOSGeometry(restB, context: context))
                    guard geos.description == restRelate else { continue }
                }
                checked += 1
                if matrix != row.relate { wrong.append("\(row.a) | \(row.b): \(matrix), exact \(row.relate)") }
            } catch {
                exceptions.append("\(row.a) | \(row.b): \(error)")
            }
        }
        #expect(checked >= rows.count * 9 / 10)
        #expect(wrong.isEmpty, "\(wrong.count) wrong matrices, first: \(wrong.prefix(8))")
        #expect(violations.isEmpty, "\(violations.count) violations, first: \(violations.prefix(8))")
        #expect(exceptions.isEmpty, "\(exceptions.count) exceptions, first: \(exceptions.prefix(5))")
    }

    /// The pairs the first round found: a multi-line with a part of no extent (its point, on the
    /// other line's end) against that line. GEOS 3.11's own matrix of the collection it became
    /// misses the contact.
    @Test(arguments: [
        ("MULTILINESTRING ((1 2, 1 5), (1 3, 1 3))", "LINESTRING (1 4, 1 4, 1 3)", "101FF0FF2"),
        // An isolated point of the collection on the other line's end.
        ("GEOMETRYCOLLECTION (LINESTRING (4 4, 2 0), POINT (4 0))", "LINESTRING (4 0, 6 0)", "F01FF0102"),
        // The other line's ends: one on the collection's isolated point (so not in its
        // exterior), the other on the end of the collection's line.
        ("GEOMETRYCOLLECTION (LINESTRING (0 0, 1 0), POINT (5 5))", "LINESTRING (5 5, 1 0)", "F01F001F2"),
        // The collection's point at the end of its own line: part of the line's boundary.
        ("GEOMETRYCOLLECTION (LINESTRING (0 0, 1 0), POINT (1 0))", "POINT (1 0)", "FF10F0FF2"),
        // A point of the collection on the line's interior: GEOS 3.11's prepared line said
        // the two do not intersect, its plain predicate that they do.
        ("GEOMETRYCOLLECTION (LINESTRING (4 4, 2 1), POINT (5 3))", "LINESTRING (-5 0, 5 0, 5 5)", "0F1FF0102"),
        // An isolated point covering the other's only boundary point outside the polygon.
        ("GEOMETRYCOLLECTION (POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0)), POINT (5 1))", "LINESTRING (1 1, 5 1)", "1020F11F2"),
    ])
    func knownPairs(a: String, b: String, expected: String) throws {
        let context = try GEOSContext()
        let ga = try GEOSGeometry(Geometry(wkt: a), context: context)
        let gb = try GEOSGeometry(Geometry(wkt: b), context: context)
        #expect(try ga.relate(gb).description == expected)
        #expect(try DegenerateGeometryPropertyTests.violations(ga, gb, a, b).isEmpty)
        #expect(try DegenerateGeometryPropertyTests.violations(gb, ga, b, a).isEmpty)
    }
}
