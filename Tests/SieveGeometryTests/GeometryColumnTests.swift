import Foundation
import SieveTestSupport
import Testing

@testable import SieveGeometry

/// The columnar geometry storage gives back exactly the geometries stored, through appends,
/// replacements, the switch from point to shape storage, and compaction.
@Suite("Geometry column")
struct GeometryColumnTests {
    /// Geometries of every kind and layout, empty ones included.
    static let samples: [Geometry?] = {
        let texts = [
            "POINT (1 2)", "POINT Z (1 2 3)", "POINT M (1 2 4)", "POINT ZM (1 2 3 4)", "POINT EMPTY", "POINT Z EMPTY",
            "MULTIPOINT ((1 2), (3 4))", "MULTIPOINT Z ((1 2 3), (3 4 5))", "MULTIPOINT EMPTY",
            "LINESTRING (0 0, 1 1, 2 0)", "MULTILINESTRING ((0 0, 1 1), (2 2, 3 3, 4 2))", "LINESTRING M (0 0 1, 1 1 2)",
            "LINESTRING EMPTY", "MULTILINESTRING ZM ((0 0 1 2, 1 1 3 NaN))",
            "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 4, 4 4, 4 2, 2 2))",
            "MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 5), (5.2 5.1, 5.8 5.1, 5.8 5.7, 5.2 5.1)))",
            "POLYGON Z ((0 0 1, 1 0 2, 1 1 3, 0 0 1))", "POLYGON EMPTY", "POLYGON ZM EMPTY",
            "GEOMETRYCOLLECTION (POINT (1 1), LINESTRING (0 0, 2 2))", "GEOMETRYCOLLECTION EMPTY",
        ]
        var geometries: [Geometry?] = texts.compactMap { try? Geometry(wkt: $0) }
        geometries.append(.envelope(Envelope(xmin: -1, ymin: -2, xmax: 3, ymax: 4)))
        geometries.append(.envelope(.empty))
        geometries.append(nil)
        return geometries
    }()

    /// Checks that `column` holds exactly `expected`, envelopes included.
    static func check(_ column: GeometryColumn, holds expected: [Geometry?]) {
        #expect(column.count == expected.count)
        let (xmin, ymin, xmax, ymax) = (column.xmin, column.ymin, column.xmax, column.ymax)
        for (row, geometry) in expected.enumerated() {
            // `==` on values, or on WKB bytes where NaN m values make `==` false.
            let stored = column[row]
            #expect(stored == geometry || (stored.map { $0.wkb() } == geometry.map { $0.wkb() } && stored?.kind == geometry?.kind), "row \(row)")
            #expect(column.kind(row: row) == geometry?.kind)
            if let geometry, !geometry.isEmpty {
                let box = geometry.envelope
                #expect([xmin[row], ymin[row], xmax[row], ymax[row]] == [box.xmin, box.ymin, box.xmax, box.ymax])
                #expect(column.envelope(row: row) == box)
            } else {
                #expect(xmin[row].isNaN && ymin[row].isNaN && xmax[row].isNaN && ymax[row].isNaN)
                #expect(column.envelope(row: row) == nil)
            }
        }
    }

    @Test func everyKindAndLayoutComesBackEqual() {
        #expect(Self.samples.count == 24)
        let column = GeometryColumn(Self.samples)
        #expect(column.storage == .shapes)
        Self.check(column, holds: Self.samples)
    }

    @Test func fixtureGeometriesComeBackEqual() throws {
        for name in ["naturalearth_lowres.geojson", "naturalearth_cities.geojson", "nybb.geojson"] {
            let root = try JSONReader.parse(try fixtureText(name))
            guard case .array(let features, _)? = root["features"] else {
                Issue.record("no features in \(name)")
                continue
            }
            let geometries: [Geometry?] = try features.map { feature in
                guard let value = feature["geometry"], !value.isNull else { return nil }
                return try Geometry(geoJSON: value, path: "")
            }
            let column = GeometryColumn(geometries)
            Self.check(column, holds: geometries)
            #expect(column.storage == (name == "naturalearth_cities.geojson" ? .points : .shapes))
        }
    }

    @Test func pointColumnsAreTwoArraysAndAFlagByte() {
        var column = GeometryColumn()
        var expected: [Geometry?] = []
        for i in 0..<1000 {
            if i % 7 == 3 {
                column.append(nil)
                expected.append(nil)
            } else {
                column.appendPoint(x: Double(i), y: -Double(i) / 3)
                expected.append(.point(Point(x: Double(i), y: -Double(i) / 3)))
            }
        }
        #expect(column.storage == .points)
        // x, y and one flag byte per row (and the two empty offset arrays' first elements); the
        // envelope arrays are x and y themselves.
        #expect(column.byteCount == 1000 * 17 + 16)
        #expect(column.pointX == column.xmin && column.pointX == column.xmax)
        Self.check(column, holds: expected)
        // A point with z widens the column, the earlier rows keep no z.
        column.append(.point(Point(x: 1, y: 2, z: 3)))
        expected.append(.point(Point(x: 1, y: 2, z: 3)))
        #expect(column.storage == .points)
        Self.check(column, holds: expected)
        // A polygon turns the column into shape storage, rows unchanged.
        let square = Geometry.envelope(Envelope(xmin: 0, ymin: 0, xmax: 1, ymax: 1))
        column.append(square)
        expected.append(square)
        #expect(column.storage == .shapes)
        Self.check(column, holds: expected)
    }

    /// Random appends and replacements against an array of the same geometries: every row stays
    /// equal, and the unused positions left by replacements stay bounded by compaction.
    @Test(arguments: [1 as UInt64, 2, 3])
    func editsAgreeWithAnArray(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var column = GeometryColumn(storage: seed == 1 ? .points : .shapes)
        var expected: [Geometry?] = []
        func randomGeometry() -> Geometry? {
            if seed == 1 && random.chance(90) {
                return random.chance(10) ? nil : .point(Point(x: random.uniform(-10, 10), y: random.uniform(-10, 10)))
            }
            if random.chance(30) { return Self.samples[random.int(Self.samples.count)] }
            // A random star polygon or path with 3–40 vertices.
            let n = random.int(3...40)
            let cx = random.uniform(-100, 100), cy = random.uniform(-100, 100)
            var points: [Point] = (0..<n).map { i in
                let angle = 2 * Double.pi * Double(i) / Double(n)
                let r = random.uniform(1, 5)
                return Point(x: cx + r * cos(angle), y: cy + r * sin(angle))
            }
            if random.chance(50) { return try? .polyline(Polyline(paths: [points])) }
            points.append(points[0])
            return try? .polygon(Polygon(exterior: points))
        }
        for step in 0..<3000 {
            if expected.isEmpty || random.chance(40) {
                let geometry = randomGeometry()
                column.append(geometry)
                expected.append(geometry)
            } else {
                let row = random.int(expected.count)
                let geometry = randomGeometry()
                column.replace(row: row, with: geometry)
                expected[row] = geometry
            }
            if step % 500 == 499 { Self.check(column, holds: expected) }
            #expect(column.unusedPositions <= Swift.max(1024, column.xy.count / 4))
        }
        Self.check(column, holds: expected)
        let compacted = column.compacted()
        #expect(compacted.unusedPositions == 0)
        #expect(compacted.xy.count == column.xy.count - 2 * column.unusedPositions)
        Self.check(compacted, holds: expected)
    }

    /// z and m arrays start when the first row with them arrives, also when no position came
    /// before it (rows without geometry or empty ones first; found by fuzz-features).
    @Test func firstRowWithZOrMBeforeAnyPosition() throws {
        for leading: [Geometry?] in [[], [nil], [try Geometry(wkt: "POLYGON EMPTY")], [nil, .envelope(.empty)]] {
            for text in ["LINESTRING Z (0 0 1, 1 1 2)", "MULTIPOLYGON M (((0 0 1, 1 0 2, 1 1 3, 0 0 1)))", "POINT ZM (1 2 3 4)"] {
                let geometries = leading + [try Geometry(wkt: text), try Geometry(wkt: "LINESTRING (5 5, 6 6)")]
                var column = GeometryColumn(storage: .shapes)
                for geometry in geometries { column.append(geometry) }
                Self.check(column, holds: geometries)
                Self.check(GeometryColumn(geometries), holds: geometries)
            }
        }
    }

    @Test func shapeStorageIsFlat() throws {
        // Two polygons and a polyline: one position buffer, offsets at three levels.
        let geometries: [Geometry?] = try [
            "POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 1 2, 2 2, 2 1, 1 1))",
            "MULTILINESTRING ((0 0, 1 1), (5 5, 6 6, 7 5))",
            "MULTIPOLYGON (((10 10, 11 10, 11 11, 10 10)), ((20 20, 21 20, 21 21, 20 20)))",
        ].map { try Geometry(wkt: $0) }
        let column = GeometryColumn(geometries)
        #expect(column.xy.count == 2 * (10 + 5 + 8))
        #expect(column.rowParts(0) == 0..<1)
        #expect(column.rowParts(1) == 1..<3)
        #expect(column.rowParts(2) == 3..<5)
        #expect(column.partRings(0) == 0..<2)
        #expect(column.partRings(2) == 3..<4)
        #expect(column.ringPositions(1) == 5..<10)
        #expect(column.ringPositions(3) == 12..<15)
        #expect(Array(column.xy[24..<26]) == [5, 5])
    }
}
