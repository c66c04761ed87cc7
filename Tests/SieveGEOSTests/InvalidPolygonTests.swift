import CGEOS
import SieveGeometry
import Testing

@testable import SieveGEOS

/// Invalid polygons read differently by GEOS's algorithms: a shell that crosses itself (a bow
/// tie) with a hole outside both lobes. GEOS's DE-9IM matrix labels areas by ring orientation
/// and finds the square in the polygon's interior (`2F21F1212`); `GEOSIntersects_r` takes the
/// square's rectangle fast path, which locates its corners by the even-odd rule (outside both
/// lobes) and finds no segment crossing the square (the hole lies inside it): no intersection.
/// GEOS 3.11 and GEOS 3.14 (Shapely) answer `intersects` false and `disjoint` false alike. The
/// prepared polygon says they intersect, the prepared square that they do not.
///
/// GeoSieve cannot say which reading is right for a polygon that is not one, but it keeps its
/// own answers opposite: `disjoint` is `!intersects` on every path.
@Suite("Invalid polygons: intersects and disjoint stay opposite")
struct InvalidPolygonTests {
    static let fuzzed = [
        "POLYGON ((-1 -1, 5 -1, 5 5, 51 5, -1 -1), (0.5 0.5, 0.5 0.5, 1.5 1.5, 1.5 0.5, 0.5 0.5))",
        "POLYGON ((-1 -1, -5 1, 5 5, -1 5, -1 -1), (0.5 0.5, 1.5 0.5, 1.5 0.1, 0.5 0.5))",
        "POLYGON ((-1 -1, 5 -1.000000238593288, -2.6306323834405068e+275 -2.4705049999749693e+204, "
            + "2.526984132470122e-175 5, -1 -1), (0.5 0.5, 1.5 0.5, 1.5 1.5, 0.5 1.5, 0.5 0.5))",
    ]
    static let partners = [
        "POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0))", "POLYGON ((0 0, 2 0, 2 2.0001, 0 2, 0 0))", "POINT (1 1)", "LINESTRING (-5 0, 5 0, 5 5)",
    ]

    @Test(arguments: fuzzed)
    func intersectsAndDisjointStayOpposite(text: String) throws {
        let context = try GEOSContext()
        let polygon = try GEOSGeometry(Geometry(wkt: text), context: context)
        #expect(try !polygon.isValid)
        for partnerText in Self.partners {
            let partner = try GEOSGeometry(Geometry(wkt: partnerText), context: context)
            for (a, b) in [(polygon, partner), (partner, polygon)] {
                let prepared = try PreparedGeometry(a)
                #expect(try a.intersects(b) == !a.isDisjoint(with: b), "\(text) vs \(partnerText)")
                #expect(try prepared.intersects(b) == !prepared.isDisjoint(with: b), "\(text) vs \(partnerText)")
                #expect(try a.satisfies(.intersects, b) == !a.satisfies(.disjoint, b))
                #expect(try prepared.satisfies(.intersects, b) == !prepared.satisfies(.disjoint, b))
                let derived = try a.relationships(b)
                #expect(derived.intersects == !derived.disjoint)
            }
        }
    }

    /// The disagreement itself, in GEOS (kept as a record: if a GEOS release makes the two
    /// agree, this test says so).
    @Test func geosDisagreesWithItself() throws {
        let context = try GEOSContext()
        let polygon = try GEOSGeometry(Geometry(wkt: Self.fuzzed[0]), context: context)
        let square = try GEOSGeometry(Geometry(wkt: Self.partners[0]), context: context)
        let h = context.handle
        #expect(GEOSIntersects_r(h, polygon.handle, square.handle) == 0)
        #expect(GEOSDisjoint_r(h, polygon.handle, square.handle) == 0)
        #expect(try polygon.relate(square).description == "2F21F1212")
    }
}
