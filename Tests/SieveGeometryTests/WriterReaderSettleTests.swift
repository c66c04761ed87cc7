import SieveTestSupport
import Testing

@testable import SieveGeometry

/// Every writer's output reads back with its reader, and a second round trip changes nothing:
/// NaN m values ("no measure") through WKB and WKT, Esri JSON ring assembly for crossing and
/// self-intersecting rings, and ring orientation however close to zero the area is.
@Suite("Writers and readers settle")
struct WriterReaderSettleTests {
    // MARK: NaN m, "no measure"

    /// The fuzzed GeoJSON: positions of 2 and 4 numbers, so the short ones get z = 0, m = NaN.
    static let mixedPositions =
        #"{"type":"Polygon","coordinates":[[[55.968191359282910,41.36],[5,4],[7,7,5,6],[55.968191359282910,41.36]]]}"#

    @Test func mixedGeoJSONPositionsGoThroughWKBAndWKT() throws {
        let geometry = try Geometry(geoJSON: Self.mixedPositions)
        guard case .polygon(let polygon) = geometry else {
            Issue.record("expected a polygon")
            return
        }
        #expect(polygon.coordinates.layout == .xyzm)
        #expect(polygon.coordinates[0].z == 0)
        #expect(polygon.coordinates[0].m?.isNaN == true)
        #expect(polygon.coordinates[2].m == 6)

        let wkb = geometry.wkb()
        let fromWKB = try Geometry(wkb: wkb)
        #expect(fromWKB.wkb() == wkb)
        // NaN is not equal to itself: compare what the writers make of the two.
        #expect(fromWKB.wkt == geometry.wkt)
        #expect(fromWKB.geoJSON == geometry.geoJSON)

        let wkt = geometry.wkt
        #expect(wkt.contains("0 NaN"))
        let fromWKT = try Geometry(wkt: wkt)
        #expect(fromWKT.wkt == wkt)
        #expect(fromWKT.wkb() == wkb)
    }

    @Test func wkbReadsNaNMeasuresOnly() throws {
        // POINT M (1 2 NaN), little-endian ISO.
        var pointM: [UInt8] = [1] + le(UInt32(2001)) + le(1.0) + le(2.0) + le(Double.nan)
        guard case .point(let point) = try Geometry(wkb: pointM) else {
            Issue.record("expected a point")
            return
        }
        #expect(point.x == 1 && point.y == 2 && point.m?.isNaN == true)
        // POINT Z (1 2 NaN): z must be finite.
        pointM[1...4] = le(UInt32(1001))[...]
        #expect(throws: GeometryError.self) { try Geometry(wkb: pointM) }
        // LINESTRING ZM with a NaN m, then with a NaN z.
        let line: [UInt8] = [1] + le(UInt32(3002)) + le(UInt32(2)) + le(0.0) + le(0.0) + le(1.0) + le(Double.nan)
            + le(1.0) + le(1.0) + le(2.0) + le(3.0)
        #expect(try Geometry(wkb: line).wkt == "LINESTRING ZM (0 0 1 NaN, 1 1 2 3)")
        var badZ = line
        badZ.replaceSubrange(25..<33, with: le(Double.nan))
        let error = try #require(throws: GeometryError.self) { try Geometry(wkb: badZ) }
        #expect(error.position == 25)
        // A NaN x is still an error (the empty point has both x and y NaN).
        var badX = line
        badX.replaceSubrange(9..<17, with: le(Double.nan))
        #expect(throws: GeometryError.self) { try Geometry(wkb: badX) }
    }

    @Test(arguments: [
        ("POINT M (1 2 NaN)", true),
        ("POINT ZM (1 2 3 nan)", true),
        ("POINT (1 2 3 NAN)", true),
        ("LINESTRING M (0 0 NaN, 1 1 5)", true),
        ("POINT (1 2 NaN)", false),  // untagged, 3 ordinates: z
        ("POINT Z (1 2 NaN)", false),
        ("POINT (NaN 2)", false),
        ("POINT M (1 NaN 3)", false),
        ("POINT M (1 2 NaNa)", false),
        ("LINESTRING ZM (0 0 NaN 1, 1 1 2 3)", false),
    ])
    func wktReadsNaNAsMeasureOnly(text: String, accepted: Bool) throws {
        if accepted {
            let geometry = try Geometry(wkt: text)
            #expect(try Geometry(wkt: geometry.wkt).wkt == geometry.wkt)
        } else {
            #expect(throws: GeometryError.self) { try Geometry(wkt: text) }
        }
    }

    @Test func nanMeasureErrorNamesThePosition() throws {
        let error = try #require(throws: GeometryError.self) { try Geometry(wkt: "POINT Z (1 2 NaN)") }
        #expect(error.position == 14)
        #expect(error.message.contains("NaN is allowed only as an m value"))
    }

    // MARK: Esri JSON ring assembly

    /// The fuzzed rings: the second is counter-clockwise (a hole) inside the first and the
    /// third; the third is counter-clockwise too and inside nothing, so it becomes an outer
    /// ring. The hole belongs to the smaller of its two containing outer rings, the third.
    static let fuzzedRings = #"{"rings":[[[80,6],[1,-699],[4,2]],[[8,-8],[7,8],[2,1]],[[557,1],[1,8],[3,-84]]]}"#

    @Test func fuzzedRingsSettle() throws {
        let (polygon, written) = try Self.settles(Self.fuzzedRings)
        // Ring 0 alone; ring 2 (as an outer ring) with ring 1 as its hole.
        #expect(polygon.partCount == 2)
        #expect(polygon.partRingRange(0).count == 1 && polygon.partRingRange(1).count == 2)
        #expect(polygon.ring(polygon.partOffsets[1]).first == Point(x: 557, y: 1))
        #expect(polygon.ring(polygon.partOffsets[1] + 1).first == Point(x: 8, y: -8))
        #expect(written.hasPrefix(#"{"rings":[[[80,6]"#))
    }

    /// Reads, writes, reads again and writes again; the two written texts must be equal. Returns
    /// the polygon read first and the text written.
    @discardableResult
    static func settles(_ text: String) throws -> (Polygon, String) {
        let first = try Geometry(esriJSON: text)
        let written = try first.esriJSON()
        let again = try Geometry(esriJSON: written)
        let rewritten = try again.esriJSON()
        #expect(written == rewritten, "\(text)\n\(written)\n\(rewritten)")
        guard case .polygon(let polygon) = first else { throw GeometryError(.invalidEsriJSON, "not a polygon") }
        return (polygon, written)
    }

    /// Random rings of 3 to 7 vertices on a small grid (so that vertices fall on other rings'
    /// edges, rings cross, nest, touch and fold), in random orientation: every set settles after
    /// one round through Esri JSON.
    @Test(arguments: [1 as UInt64, 2, 3, 4])
    func randomRingSetsSettle(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<400 {
            var rings: [String] = []
            for _ in 0..<(1 + Int(random.next() % 4)) {
                let count = 3 + Int(random.next() % 5)
                let span = [4, 10, 1000][Int(random.next() % 3)]
                let vertices = (0..<count).map { _ in
                    "[\(Int(random.next() % UInt64(span)) - span / 2),\(Int(random.next() % UInt64(span)) - span / 2)]"
                }
                rings.append("[" + vertices.joined(separator: ",") + "]")
            }
            let text = #"{"rings":["# + rings.joined(separator: ",") + "]}"
            guard (try? Geometry(esriJSON: text)) != nil else { continue }
            try Self.settles(text)
        }
    }

    /// Thin rings whose area is lost in rounding: their orientation, as computed, is exactly
    /// reversed when the ring is, so a writer that reverses a ring and a reader that reads its
    /// orientation agree.
    @Test func areaIsExactlyAntisymmetric() throws {
        var random = SeededGenerator(seed: 7)
        for _ in 0..<2_000 {
            let count = 3 + Int(random.next() % 6)
            let scale = [1.0, 1e-300, 1e300, 1.7e308][Int(random.next() % 4)]
            var points: [Point] = []
            for _ in 0..<count {
                // Nearly collinear: on the line y = 0.1 x, off by a few units in the last place.
                let x = random.uniform(-1, 1) * scale
                let y = (x * 0.1).nextUp.nextUp
                points.append(random.next() % 2 == 0 ? Point(x: x, y: y) : Point(x: y, y: x))
            }
            points.append(points[0])
            let buffer = CoordinateBuffer(points: points, layout: .xy)
            let reversed = CoordinateBuffer(points: points.reversed(), layout: .xy)
            let area = buffer.signedDoubleArea(of: 0..<buffer.count)
            let back = reversed.signedDoubleArea(of: 0..<reversed.count)
            #expect(!area.isNaN)
            #expect(area == -back || (area == 0 && back == 0), "\(points)")
        }
        // Offsets beyond 2^511 keep their sign: a clockwise square spanning the Double range.
        let m = Double.greatestFiniteMagnitude
        let square = CoordinateBuffer(
            points: [Point(x: -m, y: -m), Point(x: -m, y: m), Point(x: m, y: m), Point(x: m, y: -m), Point(x: -m, y: -m)],
            layout: .xy)
        #expect(square.signedDoubleArea(of: 0..<5) == -.infinity)
    }

    @Test func nearlyFlatRingsSettle() throws {
        // Rings whose computed area is a few units in the last place, either sign.
        var random = SeededGenerator(seed: 11)
        for _ in 0..<500 {
            var vertices: [String] = []
            for _ in 0..<(3 + Int(random.next() % 4)) {
                let x = random.uniform(-1000, 1000)
                let y = 0.3 * x + (random.next() % 2 == 0 ? 0 : x.ulp)
                vertices.append("[\(x),\(y)]")
            }
            try Self.settles(#"{"rings":[["# + vertices.joined(separator: ",") + "]]}")
            try Self.settles(#"{"rings":[[[-2000,-2000],[-2000,2000],[2000,2000],[2000,-2000]],["# + vertices.joined(separator: ",") + "]]}")
        }
    }
}

private func le(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
private func le(_ value: Double) -> [UInt8] { withUnsafeBytes(of: value.bitPattern.littleEndian) { Array($0) } }
