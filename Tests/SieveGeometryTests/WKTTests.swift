import SieveTestSupport
import Testing
@testable import SieveGeometry
import SieveJSON

// MARK: - Seeded random geometries (shared with WKBTests)

/// The seeded generator of the randomized tests.
typealias SplitMix64 = SeededGenerator

/// Builds random valid geometries of every kind and layout.
struct RandomGeometries {
    var rng: SplitMix64

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    /// A finite number: small integers, short decimals, arbitrary doubles, extremes.
    mutating func number() -> Double {
        switch Int.random(in: 0..<8, using: &rng) {
        case 0: return Double(Int.random(in: -200...200, using: &rng))
        case 1: return Double(Int.random(in: -180_000...180_000, using: &rng)) / 1000
        case 2: return Double.random(in: -1e7...1e7, using: &rng)
        case 3:
            // Any finite bit pattern.
            while true {
                let value = Double(bitPattern: rng.next())
                if value.isFinite { return value }
            }
        case 4:
            let special: [Double] = [
                0.0, -0.0, 0.1, 1e-300, .leastNonzeroMagnitude, .greatestFiniteMagnitude, -2.5e-8, 9007199254740994,
            ]
            return special[Int.random(in: 0..<special.count, using: &rng)]
        default: return Double.random(in: -180...180, using: &rng)
        }
    }

    mutating func layout() -> CoordinateLayout {
        [.xy, .xy, .xyz, .xym, .xyzm][Int.random(in: 0..<5, using: &rng)]
    }

    mutating func point(_ layout: CoordinateLayout) -> Point {
        Point(
            x: number(), y: number(),
            z: layout.hasZ ? number() : nil,
            m: layout.hasM ? number() : nil)
    }

    mutating func path(_ layout: CoordinateLayout, closed: Bool) -> [Point] {
        let count = Int.random(in: (closed ? 3 : 2)...7, using: &rng)
        var points = (0..<count).map { _ in point(layout) }
        if closed {
            // Closed in x and y; z and m of the closing point may differ.
            var last = point(layout)
            last.x = points[0].x
            last.y = points[0].y
            points.append(last)
        }
        return points
    }

    /// A random geometry; `depth` limits collection nesting. Envelopes are left out (they read
    /// back as polygons).
    mutating func geometry(depth: Int = 0) throws -> Geometry {
        let layout = layout()
        let empty = Int.random(in: 0..<12, using: &rng) == 0
        switch Int.random(in: 0..<(depth < 2 ? 6 : 5), using: &rng) {
        case 0:
            if empty { return .point(.empty) }
            return .point(point(layout))
        case 1:
            let count = empty ? 0 : Int.random(in: 1...6, using: &rng)
            return .multipoint(try Multipoint(points: (0..<count).map { _ in point(layout) }, layout: layout))
        case 2:
            let count = empty ? 0 : Int.random(in: 1...4, using: &rng)
            return .polyline(try Polyline(paths: (0..<count).map { _ in path(layout, closed: false) }, layout: layout))
        case 3, 4:
            let partCount = empty ? 0 : Int.random(in: 1...3, using: &rng)
            var parts: [[[Point]]] = []
            for _ in 0..<partCount {
                let holes = Int.random(in: 0...2, using: &rng)
                parts.append((0...holes).map { _ in path(layout, closed: true) })
            }
            return .polygon(try Polygon(parts: parts, layout: layout))
        default:
            let count = empty ? 0 : Int.random(in: 1...4, using: &rng)
            var members: [Geometry] = []
            for _ in 0..<count { members.append(try geometry(depth: depth + 1)) }
            return .collection(GeometryCollection(members))
        }
    }
}

// MARK: - WKT

@Suite("WKT")
struct WKTTests {
    /// Input text and the canonical text it writes back as.
    static let parseCases: [(String, String)] = [
        // Points, every dimension
        ("POINT (1 2)", "POINT (1 2)"),
        ("point(1 2)", "POINT (1 2)"),
        ("  Point\t(\n1.5   -2e3 )\r\n", "POINT (1.5 -2000)"),
        ("POINT Z (1 2 3)", "POINT Z (1 2 3)"),
        ("POINT (1 2 3)", "POINT Z (1 2 3)"),
        ("POINT M (1 2 4)", "POINT M (1 2 4)"),
        ("POINT ZM (1 2 3 4)", "POINT ZM (1 2 3 4)"),
        ("POINT (1 2 3 4)", "POINT ZM (1 2 3 4)"),
        ("pointz(1 2 3)", "POINT Z (1 2 3)"),
        ("POINTM (1 2 3)", "POINT M (1 2 3)"),
        ("PointZM (1 2 3 4)", "POINT ZM (1 2 3 4)"),
        ("POINT zm (1 2 3 4)", "POINT ZM (1 2 3 4)"),
        ("POINT EMPTY", "POINT EMPTY"),
        ("point empty", "POINT EMPTY"),
        ("POINT Z EMPTY", "POINT Z EMPTY"),
        // Numbers
        ("POINT (0.1 -0)", "POINT (0.1 -0)"),
        ("POINT (+1 .5)", "POINT (1 0.5)"),
        ("POINT (3. 1E2)", "POINT (3 100)"),
        ("POINT (1e-5 -2.5E+3)", "POINT (1e-05 -2500)"),
        ("POINT (12345678901234567890 0.000001)", "POINT (1.2345678901234567e+19 1e-06)"),
        ("POINT (1.7976931348623157e308 4.9e-324)", "POINT (1.7976931348623157e+308 5e-324)"),
        ("POINT (1e-400 0)", "POINT (0 0)"),
        // Multipoints
        ("MULTIPOINT (1 2, 3 4)", "MULTIPOINT ((1 2), (3 4))"),
        ("MULTIPOINT ((1 2), (3 4))", "MULTIPOINT ((1 2), (3 4))"),
        ("MULTIPOINT (EMPTY, 1 2, (3 4), EMPTY)", "MULTIPOINT ((1 2), (3 4))"),
        ("MULTIPOINT EMPTY", "MULTIPOINT EMPTY"),
        ("MULTIPOINT (EMPTY)", "MULTIPOINT EMPTY"),
        ("MULTIPOINT Z ((1 2 3), (4 5 6))", "MULTIPOINT Z ((1 2 3), (4 5 6))"),
        ("MULTIPOINT (1 2 3 4)", "MULTIPOINT ZM ((1 2 3 4))"),
        ("MULTIPOINT M EMPTY", "MULTIPOINT M EMPTY"),
        // Lines
        ("LINESTRING (0 0, 1 1)", "LINESTRING (0 0, 1 1)"),
        ("LINESTRING M (0 0 5, 1 1 6)", "LINESTRING M (0 0 5, 1 1 6)"),
        ("LINESTRING EMPTY", "LINESTRING EMPTY"),
        ("LINESTRING Z EMPTY", "LINESTRING Z EMPTY"),
        ("MULTILINESTRING ((0 0, 1 1))", "LINESTRING (0 0, 1 1)"),
        ("MULTILINESTRING ((0 0,1 1),(2 2,3 3))", "MULTILINESTRING ((0 0, 1 1), (2 2, 3 3))"),
        ("MULTILINESTRING (EMPTY, (0 0, 1 1), EMPTY)", "LINESTRING (0 0, 1 1)"),
        ("MULTILINESTRING EMPTY", "LINESTRING EMPTY"),
        ("MULTILINESTRING ZM ((0 0 1 2, 1 1 3 4))", "LINESTRING ZM (0 0 1 2, 1 1 3 4)"),
        // Polygons
        ("POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))", "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))"),
        (
            "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 8, 8 8, 8 2, 2 2))",
            "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 8, 8 8, 8 2, 2 2))"
        ),
        ("POLYGON Z ((0 0 1, 1 0 2, 1 1 3, 0 0 4))", "POLYGON Z ((0 0 1, 1 0 2, 1 1 3, 0 0 4))"),
        ("POLYGON EMPTY", "POLYGON EMPTY"),
        ("POLYGON ZM EMPTY", "POLYGON ZM EMPTY"),
        ("MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)))", "POLYGON ((0 0, 1 0, 1 1, 0 0))"),
        (
            "MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), EMPTY, ((5 5, 6 5, 6 6, 5 5), (5.1 5.1, 5.2 5.1, 5.2 5.2, 5.1 5.1)))",
            "MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 5), (5.1 5.1, 5.2 5.1, 5.2 5.2, 5.1 5.1)))"
        ),
        ("MULTIPOLYGON (EMPTY)", "POLYGON EMPTY"),
        ("MULTIPOLYGON EMPTY", "POLYGON EMPTY"),
        // Collections
        ("GEOMETRYCOLLECTION EMPTY", "GEOMETRYCOLLECTION EMPTY"),
        (
            "GEOMETRYCOLLECTION (POINT (1 2), LINESTRING (0 0, 1 1), POINT EMPTY)",
            "GEOMETRYCOLLECTION (POINT (1 2), LINESTRING (0 0, 1 1), POINT EMPTY)"
        ),
        (
            "GEOMETRYCOLLECTION Z (POINT (1 2 3), POINT EMPTY)",
            "GEOMETRYCOLLECTION Z (POINT Z (1 2 3), POINT Z EMPTY)"
        ),
        ("GEOMETRYCOLLECTION M (POINT (1 2 3))", "GEOMETRYCOLLECTION M (POINT M (1 2 3))"),
        (
            "GEOMETRYCOLLECTION (POINT Z (1 2 3), POINT (1 2))",
            "GEOMETRYCOLLECTION (POINT Z (1 2 3), POINT (1 2))"
        ),
        (
            "GEOMETRYCOLLECTION (GEOMETRYCOLLECTION (POINT (1 2), POINT M (1 2 3)), POINT M (5 6 7))",
            "GEOMETRYCOLLECTION (GEOMETRYCOLLECTION (POINT (1 2), POINT M (1 2 3)), POINT M (5 6 7))"
        ),
        (
            "GEOMETRYCOLLECTION (GEOMETRYCOLLECTION (POINT M (1 2 3)), GEOMETRYCOLLECTION EMPTY, POINT M (5 6 7))",
            "GEOMETRYCOLLECTION M (GEOMETRYCOLLECTION M (POINT M (1 2 3)), GEOMETRYCOLLECTION EMPTY, POINT M (5 6 7))"
        ),
        (
            "geometrycollection(geometrycollection(point(1 2)),geometrycollection empty)",
            "GEOMETRYCOLLECTION (GEOMETRYCOLLECTION (POINT (1 2)), GEOMETRYCOLLECTION EMPTY)"
        ),
    ]

    @Test(arguments: parseCases)
    func parsesAndWritesCanonically(input: String, canonical: String) throws {
        let geometry = try Geometry(wkt: input)
        #expect(geometry.wkt == canonical)
        // The canonical text is a fixed point.
        #expect(try Geometry(wkt: canonical) == geometry)
        #expect(try Geometry(wkt: canonical).wkt == canonical)
    }

    @Test func mapsTypesAndValues() throws {
        #expect(try Geometry(wkt: "POINT (1 2)") == .point(Point(x: 1, y: 2)))
        #expect(try Geometry(wkt: "POINT Z (1 2 3)") == .point(Point(x: 1, y: 2, z: 3)))
        #expect(try Geometry(wkt: "POINT M (1 2 4)") == .point(Point(x: 1, y: 2, m: 4)))
        #expect(try Geometry(wkt: "POINT ZM (1 2 3 4)") == .point(Point(x: 1, y: 2, z: 3, m: 4)))
        #expect(try Geometry(wkt: "POINT EMPTY") == .point(.empty))

        let multipoint = try Geometry(wkt: "MULTIPOINT (1 2, 3 4)")
        #expect(multipoint == .multipoint(try Multipoint(points: [Point(x: 1, y: 2), Point(x: 3, y: 4)])))

        guard case .polyline(let polyline) = try Geometry(wkt: "MULTILINESTRING ((0 0, 1 1, 2 2), (5 5, 6 6))") else {
            Issue.record("not a polyline")
            return
        }
        #expect(polyline.pathOffsets == [0, 3, 5])
        #expect(polyline.coordinates.values == [0, 0, 1, 1, 2, 2, 5, 5, 6, 6])

        let text = "MULTIPOLYGON (((0 0, 9 0, 9 9, 0 0), (1 1, 2 1, 2 2, 1 1)), ((20 20, 21 20, 21 21, 20 20)))"
        guard case .polygon(let polygon) = try Geometry(wkt: text) else {
            Issue.record("not a polygon")
            return
        }
        #expect(polygon.ringOffsets == [0, 4, 8, 12])
        #expect(polygon.partOffsets == [0, 2, 3])
        #expect(polygon.coordinates.layout == .xy)

        guard case .collection(let collection) = try Geometry(wkt: "GEOMETRYCOLLECTION (POINT (1 2), POLYGON EMPTY)") else {
            Issue.record("not a collection")
            return
        }
        #expect(collection.geometries == [.point(Point(x: 1, y: 2)), .polygon(.empty)])
    }

    @Test func readsNumbersExactly() throws {
        let literals = [
            "0.1", "0.3", "-123.456", "9007199254740993", "1.7976931348623157e308", "2.2250738585072014e-308",
            "4.9e-324", "123456789012345678901234567890", "0.000000000000000000000000000001", "1e22", "1e23",
            "-8.98846567431158e307", "3.141592653589793238462643383279", "00012.5000",
        ]
        for literal in literals {
            let expected = try #require(Double(literal))
            #expect(try Geometry(wkt: "POINT (\(literal) 0)") == .point(Point(x: expected, y: 0)), "\(literal)")
        }
        var rng = SplitMix64(seed: 7)
        for _ in 0..<2000 {
            let value = Double(bitPattern: rng.next())
            guard value.isFinite else { continue }
            let geometry = try Geometry(wkt: "POINT (\(formatNumber(value)) \(value))")
            guard case .point(let point) = geometry else {
                Issue.record("not a point")
                return
            }
            #expect(point.x.bitPattern == value.bitPattern)
            #expect(point.y.bitPattern == value.bitPattern)
        }
    }

    @Test func writesEveryKind() throws {
        let envelope = Envelope(xmin: 1, ymin: 2, xmax: 3, ymax: 4)
        #expect(Geometry.envelope(envelope).wkt == "POLYGON ((1 2, 3 2, 3 4, 1 4, 1 2))")
        #expect(Geometry.envelope(.empty).wkt == "POLYGON EMPTY")
        #expect(Geometry.point(.empty).wkt == "POINT EMPTY")
        #expect(Geometry.polyline(.empty).wkt == "LINESTRING EMPTY")
        #expect(Geometry.polygon(.empty).wkt == "POLYGON EMPTY")
        #expect(Geometry.multipoint(try Multipoint(points: [])).wkt == "MULTIPOINT EMPTY")
        #expect(Geometry.collection(GeometryCollection([])).wkt == "GEOMETRYCOLLECTION EMPTY")
        // Clockwise rings stay clockwise.
        let clockwise = "POLYGON ((0 0, 0 1, 1 1, 1 0, 0 0))"
        #expect(try Geometry(wkt: clockwise).wkt == clockwise)
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func randomGeometriesRoundTrip(seed: UInt64) throws {
        var generator = RandomGeometries(seed: seed)
        for _ in 0..<200 {
            let geometry = try generator.geometry()
            let text = geometry.wkt
            let read = try Geometry(wkt: text)
            #expect(read == geometry, "\(text)")
            #expect(read.wkt == text)
        }
    }

    /// Input, expected 1-based position, expected message fragment.
    static let errorCases: [(String, Int, String)] = [
        ("POINT (1 2", 11, "expected ')'"),
        ("POINT (1 x)", 10, "expected a number"),
        ("LINESTRING (1 2)", 12, "path 0 has 1 point(s); a path needs at least 2"),
        ("POLYGON ((0 0, 1 0, 1 1, 0 0)", 30, "expected ',' or ')'"),
        ("POLYGON ((0 0, 1 0, 1 1, 0 1))", 10, "ring 0 is not closed"),
        ("POLYGON ((0 0, 1 0, 0 0))", 10, "ring 0 has 3 point(s); a closed ring needs at least 4"),
        (
            "MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((0 0, 1 0, 0 0)))", 40,
            "ring 1 has 3 point(s); a closed ring needs at least 4"
        ),
        ("CIRCLE (1 2)", 1, "unknown geometry type 'CIRCLE'"),
        ("POINT (nan 1)", 8, "NaN is allowed only as an m value"),
        ("POINT (NaN 1)", 8, "NaN is allowed only as an m value"),
        ("POINT (inf 1)", 8, "expected a number"),
        ("POINT (-inf 1)", 8, "expected a number"),
        ("POINT (1e999 1)", 8, "number out of range"),
        ("POINT (1 -1e400)", 10, "number out of range"),
        ("POINT (1 2) x", 13, "unexpected text after the geometry"),
        ("POINT (1 2)\r\nx", 13, "unexpected text after the geometry"),
        ("POINT (1 2) 😀", 13, "unexpected text after the geometry"),
        // A combining mark joins the ')' into one Character: the error points at that Character.
        ("POINT (1 2)\u{301}", 11, "unexpected text after the geometry"),
        ("POINT (1\u{301} 2)", 8, "malformed number"),
        ("POINT Z (1 2)", 13, "expected a number"),
        ("POINT ZM (1 2 3)", 16, "expected a number"),
        ("POINT Z (1 2 3 4)", 16, "too many ordinates"),
        ("POINT (1 2 3 4 5)", 16, "at most 4"),
        ("MULTIPOINT (1 2, 3 4 5)", 22, "too many ordinates: earlier positions have 2"),
        ("MULTIPOINT (1 2 3, 4 5)", 23, "earlier positions have 3 ordinates"),
        ("LINESTRING (1 2, 3 4", 21, "expected ',' or ')'"),
        ("POINT (1 2,)", 11, "expected ')'"),
        ("POINT (1.2.3 4)", 8, "malformed number"),
        ("POINT (1e 2)", 8, "malformed number"),
        ("POINT (12abc 2)", 8, "malformed number"),
        ("POINT (- 2)", 8, "expected a number"),
        ("POINT (", 8, "expected a number"),
        ("POINT", 6, "expected '(' or EMPTY"),
        ("POINT Q (1 2)", 7, "expected '(' or EMPTY"),
        ("POINT Z Z (1 2 3)", 9, "expected '(' or EMPTY"),
        ("POINT [1 2]", 7, "expected '(' or EMPTY"),
        ("", 1, "unexpected end of input"),
        ("   ", 4, "unexpected end of input"),
        ("(1 2)", 1, "expected a geometry type"),
        ("GEOMETRYCOLLECTION (POINT (1 2), CIRCLE (1 2))", 34, "unknown geometry type 'CIRCLE'"),
        ("GEOMETRYCOLLECTION (LINESTRING (1 2))", 32, "path 0 has 1 point(s)"),
        ("GEOMETRYCOLLECTION (POINT (1 2)", 32, "expected ',' or ')'"),
        ("GEOMETRYCOLLECTION (EMPTY)", 21, "unknown geometry type 'EMPTY'"),
        ("MULTIPOINT ((1 2), (3 4)", 25, "expected ',' or ')'"),
        ("MULTIPOINT ((1 2, 3 4))", 17, "expected ')'"),
        ("POLYGON (EMPTY)", 10, "expected '('"),
        ("POINT EMPTY EMPTY", 13, "unexpected text after the geometry"),
    ]

    @Test(arguments: errorCases)
    func reportsErrors(input: String, position: Int, fragment: String) {
        do {
            let geometry = try Geometry(wkt: input)
            Issue.record("parsed \(input) as \(geometry)")
        } catch {
            #expect(error.kind == .invalidWKT)
            #expect(error.position == position, "\(error)")
            #expect(error.message.contains(fragment), "\(error)")
        }
    }

    @Test func documentedErrorDescription() {
        #expect(throws: GeometryError(.invalidWKT, "expected ')'", position: 11)) {
            try Geometry(wkt: "POINT (1 2")
        }
        do {
            _ = try Geometry(wkt: "POINT (1 2")
        } catch {
            #expect(error.description == "invalid WKT at position 11: expected ')'")
        }
    }

    @Test func nestingIsLimited() throws {
        let keyword = "GEOMETRYCOLLECTION ("
        // 10,000 open collections: an error at the 33rd, not a stack overflow.
        let deep = String(repeating: keyword, count: 10_000)
        #expect(throws: GeometryError(.invalidWKT, "geometry collections nest deeper than 32 levels", position: 32 * 20 + 1)) {
            try Geometry(wkt: deep)
        }
        // Exactly 32 levels are fine; 33 are not.
        let ok = String(repeating: keyword, count: 31) + "GEOMETRYCOLLECTION EMPTY" + String(repeating: ")", count: 31)
        guard case .collection(let collection) = try Geometry(wkt: ok) else {
            Issue.record("not a collection")
            return
        }
        #expect(collection.nestingDepth == 32)
        let tooDeep = keyword + ok + ")"
        #expect(throws: GeometryError.self) { try Geometry(wkt: tooDeep) }
        // Deep plain parentheses do not recurse either.
        let parens = "POLYGON " + String(repeating: "(", count: 100_000)
        #expect(throws: GeometryError(.invalidWKT, "expected a number", position: 11)) {
            try Geometry(wkt: parens)
        }
    }

    @Test func randomTextNeverCrashes() {
        var rng = SplitMix64(seed: 99)
        let alphabet = Array("POINTLINESTRGMULYCZE (),.-+e0123456789 \n")
        var parsed = 0
        for _ in 0..<2000 {
            let length = Int.random(in: 0..<60, using: &rng)
            let text = String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &rng)] })
            if (try? Geometry(wkt: text)) != nil { parsed += 1 }
        }
        // Mutations of valid text.
        var generator = RandomGeometries(seed: 123)
        for _ in 0..<300 {
            guard let geometry = try? generator.geometry() else { continue }
            var bytes = Array(geometry.wkt.utf8)
            let cut = Int.random(in: 0...bytes.count, using: &rng)
            bytes.removeSubrange(cut...)
            do {
                _ = try Geometry(wkt: String(decoding: bytes, as: UTF8.self))
            } catch {
                #expect(error.kind == .invalidWKT)
                #expect((error.position ?? 0) >= 1)
                #expect((error.position ?? 0) <= bytes.count + 1)
            }
        }
        #expect(parsed >= 0)
    }
}
