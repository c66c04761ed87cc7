import SieveGeometry
import Testing

@testable import SieveGEOS

/// Rings that enclose no area anywhere (spurs traced out and back, trees of spurs, rings folded
/// onto a line) are the union of their segments, on every path; rings with an area, however
/// thin, however large their coordinates, stay polygons.
@Suite("Rings that enclose no area")
struct RetracedRingTests {
    static let partners = [
        "POINT (1 1)", "POINT (10 5)", "POINT (5 0)", "LINESTRING (-1 1, 11 1)", "LINESTRING (10 5, 12 5)",
        "POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0))", "POLYGON ((-1 -1, 11 -1, 11 11, -1 11, -1 -1))", "0,0,2,2", "9,4,11,6",
        "GEOMETRYCOLLECTION (POINT (3 3), LINESTRING (0 0, 1 1))",
    ]

    static func geometry(_ text: String) throws -> Geometry {
        if text.first?.isNumber == true {
            let v = text.split(separator: ",").compactMap { Double($0) }
            return .envelope(Envelope(xmin: v[0], ymin: v[1], xmax: v[2], ymax: v[3]))
        }
        return try Geometry(wkt: text)
    }

    /// Each degenerate polygon and the geometry it stands for, written by hand.
    @Test(arguments: [
        // The fuzzed spur: an L traced out and back; five positions, which GEOS's rectangle
        // test takes for a rectangle.
        ("POLYGON ((0 0, 10 0, 10 10, 10 0, 0 0))", "LINESTRING (0 0, 10 0, 10 10, 10 0, 0 0)"),
        // The other five-position spur shapes GEOS takes for rectangles.
        ("POLYGON ((0 0, 10 0, 0 0, 0 10, 0 0))", "LINESTRING (0 0, 10 0, 0 0, 0 10, 0 0)"),
        ("POLYGON ((10 10, 0 10, 0 0, 0 10, 10 10))", "LINESTRING (10 10, 0 10, 0 0, 0 10, 10 10)"),
        // A tree of spurs, a spur going back part of the way, a ring folded onto a slanted line.
        ("POLYGON ((0 0, 5 0, 5 5, 5 0, 10 0, 10 3, 10 0, 0 0))", "LINESTRING (0 0, 5 0, 5 5, 5 0, 10 0, 10 3, 10 0, 0 0)"),
        ("POLYGON ((0 0, 10 0, 10 10, 10 4, 10 0, 0 0))", "LINESTRING (0 0, 10 0, 10 10, 10 4, 10 0, 0 0)"),
        ("POLYGON ((0 0, 3 1, 6 2, 0 0))", "LINESTRING (0 0, 3 1, 6 2, 0 0)"),
        // A multipolygon with one real part and one spur part; a spur with a hole (dropped).
        (
            "MULTIPOLYGON (((20 20, 22 20, 22 22, 20 20)), ((0 0, 10 0, 10 10, 10 0, 0 0)))",
            "GEOMETRYCOLLECTION (POLYGON ((20 20, 22 20, 22 22, 20 20)), LINESTRING (0 0, 10 0, 10 10, 10 0, 0 0))"
        ),
        ("POLYGON ((0 0, 10 0, 10 10, 10 0, 0 0), (1 1, 2 1, 2 2, 1 1))", "LINESTRING (0 0, 10 0, 10 10, 10 0, 0 0)"),
    ])
    func answersAsItsSegments(polygon: String, segments: String) throws {
        let degenerate = try Geometry(wkt: polygon)
        let standIn = try Geometry(wkt: segments)
        #expect(degenerate.geosForm() == standIn)
        let context = try GEOSContext()
        let a = try GEOSGeometry(degenerate, context: context)
        let expected = try GEOSGeometry(standIn, context: context)
        #expect(a.dimension == expected.dimension)
        for text in Self.partners {
            let partner = try GEOSGeometry(Self.geometry(text), context: context)
            #expect(try everyAnswer(a, partner) == everyAnswer(expected, partner), "\(polygon) vs \(text)")
            #expect(try everyAnswer(partner, a) == everyAnswer(partner, expected), "\(text) vs \(polygon)")
        }
    }

    /// The fuzzed pair: GEOS 3.11 (and 3.14) said `intersects` and `disjoint` at once, since its
    /// rectangle test took the spur for the square 0,0,10,10.
    @Test func fuzzedSpurAgainstAPoint() throws {
        let context = try GEOSContext()
        let spur = try GEOSGeometry(Geometry(wkt: "POLYGON ((0 0, 10 0, 10 10, 10 0, 0 0))"), context: context)
        let inside = try GEOSGeometry(Geometry(wkt: "POINT (1 1)"), context: context)
        let onSpur = try GEOSGeometry(Geometry(wkt: "POINT (10 5)"), context: context)
        #expect(try !spur.intersects(inside))
        #expect(try spur.isDisjoint(with: inside))
        #expect(try !spur.contains(inside))
        #expect(try !PreparedGeometry(spur).intersects(inside))
        #expect(try !PreparedGeometry(spur).intersects(x: 1, y: 1))
        #expect(try PreparedGeometry(spur).intersects(x: 10, y: 5))
        // A closed line and a point off it; the same closed line and a point on it.
        #expect(try spur.relate(inside).description == "FF1FFF0F2")
        #expect(try spur.relate(onSpur).description == "0F1FFFFF2")
        #expect(try spur.intersects(onSpur))
    }

    /// Rings with an area stay polygons: a bow tie (its lobes cancel in the signed area), a
    /// square traced twice, a proper ring with a spur (invalid, but with an area), a triangle
    /// whose coordinates' products overflow, and one whose area is a few units of 10⁻¹⁰⁰.
    @Test(arguments: [
        "POLYGON ((0 0, 2 2, 2 0, 0 2, 0 0))",
        "POLYGON ((0 0, 1 0, 1 1, 0 1, 0 0, 1 0, 1 1, 0 1, 0 0))",
        "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 5, -5 5, 0 5, 0 0))",
        "POLYGON ((0 0, 1e200 0, 1e200 1e200, 0 0))",
        "POLYGON ((-1.7e308 -1.7e308, 1.7e308 -1.7e308, 1.7e308 1.7e308, -1.7e308 -1.7e308))",
        "POLYGON ((0 0, 1 0, 2 1e-100, 0 0))",
        "POLYGON ((0 0, 1 1, 2 2.0000000000000004, 0 0))",
    ])
    func ringsWithAreaStay(text: String) throws {
        let geometry = try Geometry(wkt: text)
        #expect(geometry.geosForm() == nil)
        let context = try GEOSContext()
        #expect(try GEOSGeometry(geometry, context: context).dimension == 2)
    }

    /// A hole that encloses no area stays (GEOS takes its segments as boundary), and the
    /// geometry's relationships come from the DE-9IM matrix.
    @Test func retracedHolesAreReadOffTheMatrix() throws {
        let geometry = try Geometry(wkt: "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 5 2, 5 5, 5 2, 2 2))")
        #expect(geometry.geosForm() == nil)
        #expect(geometry.hasCollapsedRing)
        let proper = try Geometry(wkt: "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 5 2, 5 5, 2 2))")
        #expect(!proper.hasCollapsedRing)
        let context = try GEOSContext()
        let a = try GEOSGeometry(geometry, context: context)
        let onHole = try GEOSGeometry(Geometry(wkt: "POINT (5 4)"), context: context)
        #expect(try a.intersects(onHole) == !a.isDisjoint(with: onHole))
        #expect(try PreparedGeometry(a).intersects(x: 5, y: 4) == a.intersects(onHole))
        #expect(try PreparedGeometry(a).contains(x: 5, y: 4) == a.contains(onHole))
    }
}

/// Coordinates are rounded to GEOS's grid (multiples of 2^-511) before GEOS sees them, so that
/// positions closer together than GEOS's arithmetic resolves are one position, on every path and
/// between geometries.
@Suite("Coordinates on GEOS's grid")
struct GEOSResolutionTests {
    @Test func roundsOnlyTinyCoordinates() {
        let spacing = 0x1p-511
        #expect(GEOSResolution.spacing == spacing)
        #expect(GEOSResolution.snap(spacing) == spacing)
        #expect(GEOSResolution.snap(0.5 * spacing) == spacing)  // halves away from zero
        #expect(GEOSResolution.snap(-0.5 * spacing) == -spacing)
        #expect(GEOSResolution.snap(0.49 * spacing) == 0)
        #expect(GEOSResolution.snap(1.5 * spacing) == 2 * spacing)
        #expect(GEOSResolution.snap(0x1p-1028) == 0)
        #expect(GEOSResolution.snap(0x1p-1074) == 0)
        // Every double from 2^-459 up is a multiple of 2^-511 already.
        for value in [0x1p-459, 0x1p-459.nextUp, 1.5e-138, 1e-100, 1, 1e300, -0x1p-459.nextUp, .greatestFiniteMagnitude] {
            #expect(GEOSResolution.snap(value) == value)
            #expect(!GEOSResolution.changes(value))
            #expect((value / spacing).rounded() == value / spacing)
        }
        // Just below 2^-459 the spacing of doubles is finer than the grid.
        #expect(GEOSResolution.changes(0x1p-459.nextDown))
        #expect(abs(GEOSResolution.snap(0x1p-459.nextDown) - 0x1p-459.nextDown) <= 0x1p-512)
    }

    @Test(arguments: [
        // The fuzzed lines: both ends round to (0 0), a zero-length line: its point.
        ("LINESTRING (0 3.4766779039175e-310, 0 0)", "POINT (0 0)"),
        ("LINESTRING (8e-323 0, 0 0)", "POINT (0 0)"),
        ("LINESTRING (0 0, 1e-163 0, 1 1)", "LINESTRING (0 0, 0 0, 1 1)"),
        ("MULTILINESTRING ((0 0, 1 1), (0 5, 1e-170 5))", "GEOMETRYCOLLECTION (LINESTRING (0 0, 1 1), POINT (0 5))"),
        ("MULTIPOINT ((1e-300 1), (2 3))", "MULTIPOINT ((0 1), (2 3))"),
        ("POINT (-1e-200 1e-160)", "POINT (0 0)"),
        // Rings: a position next to the closing one; a square too small for the grid; a triangle
        // left with two positions (a ring without area: a closed line); a hole of one position.
        ("POLYGON ((0 0, 1 0, 1 1, 1e-170 1e-170, 0 0))", "POLYGON ((0 0, 1 0, 1 1, 0 0, 0 0))"),
        ("POLYGON ((0 0, 1e-200 0, 1e-200 1e-200, 0 1e-200, 0 0))", "POINT (0 0)"),
        ("POLYGON ((0 0, 1 0, 1e-200 1e-200, 0 0))", "LINESTRING (0 0, 1 0, 0 0, 0 0)"),
        (
            "POLYGON ((-4 -4, 4 -4, 4 4, -4 4, -4 -4), (0 0, 0 1e-170, 1e-170 1e-170, 0 0))",
            "POLYGON ((-4 -4, 4 -4, 4 4, -4 4, -4 -4), (0 0, 0 0, 0 0, 0 0))"
        ),
        // Coordinates above 1.3e-138 stay.
        ("LINESTRING (0 0, 1e-130 0)", nil),
    ] as [(String, String?)])
    func roundsToTheGrid(text: String, expected: String?) throws {
        #expect(try Geometry(wkt: text).geosForm() == expected.map { try Geometry(wkt: $0) })
    }

    @Test func narrowEnvelopesAreLines() throws {
        let narrow = Geometry.envelope(Envelope(xmin: 0, ymin: 0, xmax: 1e-200, ymax: 5))
        #expect(narrow.geosForm() == .polyline(try Polyline(paths: [[Point(x: 0, y: 0), Point(x: 0, y: 5)]])))
        let tiny = Geometry.envelope(Envelope(xmin: 3, ymin: 0, xmax: 3, ymax: 1e-200))
        #expect(tiny.geosForm() == .point(Point(x: 3, y: 0)))
        guard case .envelope(let small)? = Geometry.envelope(Envelope(xmin: 0, ymin: 0, xmax: 1e-150, ymax: 1e-150)).geosForm() else {
            Issue.record("expected an envelope")
            return
        }
        #expect(small.xmin == 0 && small.width > 0 && abs(small.xmax - 1e-150) <= 0x1p-512)
    }

    /// The fuzzed pairs: GEOS 3.11's matrix lost the tiny line (`FFFFFF102`) while the prepared
    /// predicate saw it touch. On the grid each line is the point (0 0), on the partner's
    /// interior, and every path says so.
    @Test(arguments: ["LINESTRING (0 3.4766779039175e-310, 0 0)", "LINESTRING (8e-323 0, 0 0)"])
    func fuzzedLinesAnswerAlike(text: String) throws {
        let context = try GEOSContext()
        let a = try GEOSGeometry(Geometry(wkt: text), context: context)
        let b = try GEOSGeometry(Geometry(wkt: "LINESTRING (-5 0, 5 0, 5 5)"), context: context)
        #expect(try a.relate(b).description == "0FFFFF102")
        #expect(try a.intersects(b))
        #expect(try !a.isDisjoint(with: b))
        #expect(try PreparedGeometry(a).intersects(b))
        #expect(try PreparedGeometry(b).intersects(a))
        #expect(try b.relationships(a).intersects)
        #expect(try DegenerateGeometryPropertyTests.violations(a, b, text, "LINESTRING (-5 0, 5 0, 5 5)").isEmpty)
    }

    /// Two geometries with vertices closer together than GEOS resolves: on the grid they are one
    /// vertex, so the envelope shortcuts, GEOS's predicates and its matrix agree. (Unrounded,
    /// GEOS's matrix merged the two vertices while the envelopes kept them apart: `within` was
    /// true by the matrix and false by the envelopes.)
    @Test func nearlyCoincidentVerticesOfTwoGeometries() throws {
        let context = try GEOSContext()
        let cases = [
            ("LINESTRING (0 0, 2 2)", "POLYGON ((8.682651365176084e-165 0, 1 3, 4 1, 8.682651365176084e-165 0))"),
            ("POLYGON ((6 8.682651365176084e-165, 7 8.682651365176084e-165, 7 2, 6 2, 6 8.682651365176084e-165))",
             "POLYGON ((9 4, 6 1, 6 0, 9 4))"),
            ("POINT (1e-300 0)", "LINESTRING (0 0, 1 1)"),
        ]
        for (textA, textB) in cases {
            let a = try GEOSGeometry(Geometry(wkt: textA), context: context)
            let b = try GEOSGeometry(Geometry(wkt: textB), context: context)
            #expect(try DegenerateGeometryPropertyTests.violations(a, b, textA, textB).isEmpty)
            #expect(try DegenerateGeometryPropertyTests.violations(b, a, textB, textA).isEmpty)
        }
        let point = try PreparedGeometry(GEOSGeometry(Geometry(wkt: "LINESTRING (0 0, 1 1)"), context: context))
        #expect(try point.intersects(x: 1e-300, y: 0))
        #expect(try point.intersects(x: 0, y: -1e-300))
    }
}
