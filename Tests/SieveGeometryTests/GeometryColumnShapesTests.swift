import Foundation
import SieveTestSupport
import Testing

@testable import SieveGeometry

/// The in-place view of shape storage (``GeometryColumn/Shapes``) describes every row exactly as
/// the materialized geometry does: kind, envelope, parts, rings and positions.
@Suite("Geometry column shapes view")
struct GeometryColumnShapesTests {
    /// The (x, y) positions and the ring and part structure of a geometry as the view describes
    /// them: `rings` are each ring's (paths', a multipoint's single ring's) positions, `parts`
    /// the number of rings of each part.
    struct Layout: Equatable {
        var rings: [[Double]] = []
        var parts: [Int] = []
    }

    /// The layout read from a materialized geometry (the reference).
    static func layout(of geometry: Geometry) -> Layout? {
        func xy(_ buffer: CoordinateBuffer, _ range: Range<Int>) -> [Double] {
            range.flatMap { [buffer.x(at: $0), buffer.y(at: $0)] }
        }
        var layout = Layout()
        switch geometry {
        case .point(let point):
            layout.rings = [[point.x, point.y]]
            layout.parts = [1]
        case .multipoint(let multipoint):
            guard !multipoint.isEmpty else { return layout }
            layout.rings = [xy(multipoint.coordinates, 0..<multipoint.coordinates.count)]
            layout.parts = [1]
        case .polyline(let polyline):
            layout.rings = (0..<polyline.pathCount).map { xy(polyline.coordinates, polyline.pathRange($0)) }
            layout.parts = Array(repeating: 1, count: polyline.pathCount)
        case .polygon(let polygon):
            layout.rings = (0..<polygon.ringCount).map { xy(polygon.coordinates, polygon.ringRange($0)) }
            layout.parts = (0..<polygon.partCount).map { polygon.partRingRange($0).count }
        case .envelope, .collection:
            return nil
        }
        return layout
    }

    /// The layout of row `row` read through the view.
    static func layout(of shapes: GeometryColumn.Shapes, row: Int) -> Layout {
        var layout = Layout()
        for part in shapes.parts(row: row) {
            let rings = shapes.rings(part: part)
            layout.parts.append(rings.count)
            for ring in rings {
                layout.rings.append(shapes.positions(ring: ring).flatMap { [shapes.x($0), shapes.y($0)] })
            }
        }
        return layout
    }

    /// Every row of `column` read through the view agrees with the materialized row.
    static func check(_ column: GeometryColumn, _ comment: String = "") throws {
        let shapes = try #require(column.shapes)
        #expect(shapes.count == column.count)
        for row in 0..<column.count {
            let geometry = column[row]
            #expect(shapes.kind(row: row) == geometry?.kind, "row \(row) \(comment)")
            #expect(shapes.envelope(row: row) == column.envelope(row: row), "row \(row) \(comment)")
            #expect(shapes.hasZOrM(row: row) == ((geometry?.layout ?? .xy) != .xy), "row \(row) \(comment)")
            let viewed = layout(of: shapes, row: row)
            if let geometry, let expected = layout(of: geometry) {
                // NaN-safe: the empty point's NaN coordinates compare by their bits.
                #expect(viewed.parts == expected.parts, "row \(row) \(comment)")
                #expect(viewed.rings.map { $0.map(\.bitPattern) } == expected.rings.map { $0.map(\.bitPattern) }, "row \(row) \(comment)")
            } else {
                #expect(viewed == Layout(), "row \(row) \(comment)")
                #expect(shapes.rings(row: row).isEmpty && shapes.positions(row: row).isEmpty, "row \(row) \(comment)")
            }
            #expect(shapes.layout(row: row) == (geometry?.layout ?? .xy), "row \(row) \(comment)")
            try checkOrdinatesAndAreas(shapes, row: row, geometry, comment)
            // The whole-row ranges are the union of the per-part ones, in order.
            let rings = shapes.parts(row: row).flatMap { Array(shapes.rings(part: $0)) }
            #expect(Array(shapes.rings(row: row)) == rings, "row \(row) \(comment)")
            let positions = rings.flatMap { Array(shapes.positions(ring: $0)) }
            #expect(Array(shapes.positions(row: row)) == positions, "row \(row) \(comment)")
        }
    }

    /// z, m and ring areas of row `row` read through the view equal the materialized ones.
    static func checkOrdinatesAndAreas(_ shapes: GeometryColumn.Shapes, row: Int, _ geometry: Geometry?, _ comment: String) throws {
        let buffer: CoordinateBuffer
        var rings: [Range<Int>]
        switch geometry {
        case .polygon(let polygon)?:
            buffer = polygon.coordinates
            rings = (0..<polygon.ringCount).map { polygon.ringRange($0) }
        case .polyline(let polyline)?:
            buffer = polyline.coordinates
            rings = (0..<polyline.pathCount).map { polyline.pathRange($0) }
        case .multipoint(let multipoint)?:
            buffer = multipoint.coordinates
            rings = multipoint.isEmpty ? [] : [0..<buffer.count]
        default:
            return
        }
        let viewed = Array(shapes.rings(row: row))
        try #require(viewed.count == rings.count, "row \(row) \(comment)")
        let layout = buffer.layout
        for (ring, range) in zip(viewed, rings) {
            #expect(shapes.signedDoubleArea(ring: ring).bitPattern == buffer.signedDoubleArea(of: range).bitPattern, "row \(row) \(comment)")
            for (position, i) in zip(shapes.positions(ring: ring), range) {
                if let offset = layout.zOffset { #expect(shapes.z[position] == buffer.values[i * layout.stride + offset]) }
                if let offset = layout.mOffset {
                    #expect(shapes.m[position].bitPattern == buffer.values[i * layout.stride + offset].bitPattern)
                }
            }
        }
    }

    @Test func everyKindAndLayout() throws {
        try Self.check(GeometryColumn(GeometryColumnTests.samples))
    }

    @Test func pointStorageHasNoShapesView() {
        var column = GeometryColumn()
        column.appendPoint(x: 1, y: 2)
        #expect(column.shapes == nil)
    }

    @Test func fixtureGeometries() throws {
        for name in ["naturalearth_lowres.geojson", "nybb.geojson"] {
            let root = try JSONReader.parse(try fixtureText(name))
            guard case .array(let features, _)? = root["features"] else {
                Issue.record("no features in \(name)")
                continue
            }
            let geometries: [Geometry?] = try features.map { feature in
                guard let value = feature["geometry"], !value.isNull else { return nil }
                return try Geometry(geoJSON: value, path: "")
            }
            try Self.check(GeometryColumn(geometries), name)
        }
    }

    /// After replacements (old positions left unused, then compacted) the view still reads each
    /// row's current positions.
    @Test func afterReplacementsAndCompaction() throws {
        var random = SeededGenerator(seed: 8)
        var column = GeometryColumn(storage: .shapes)
        func star() -> Geometry? {
            let n = random.int(3...30)
            let cx = random.uniform(-50, 50), cy = random.uniform(-50, 50)
            var points: [Point] = (0..<n).map { i in
                let angle = 2 * Double.pi * Double(i) / Double(n)
                let r = random.uniform(1, 5)
                return Point(x: cx + r * cos(angle), y: cy + r * sin(angle))
            }
            if random.chance(30) { return try? .polyline(Polyline(paths: [points])) }
            points.append(points[0])
            return try? .polygon(Polygon(exterior: points))
        }
        for _ in 0..<400 { column.append(random.chance(10) ? GeometryColumnTests.samples[random.int(24)] : star()) }
        for step in 0..<3000 {
            column.replace(row: random.int(column.count), with: star())
            if step % 1000 == 999 { try Self.check(column, "after \(step + 1) replacements") }
        }
        try Self.check(column.compacted(), "compacted")
    }

    /// Gathering rows (in any order, some twice) gives a column holding exactly those rows, in
    /// both storages, also after replacements.
    @Test func gatheringRows() throws {
        var random = SeededGenerator(seed: 9)
        var shapes = GeometryColumn(GeometryColumnTests.samples)
        for _ in 0..<50 { shapes.replace(row: random.int(shapes.count), with: GeometryColumnTests.samples[random.int(24)]) }
        var points = GeometryColumn()
        for i in 0..<300 {
            switch i % 5 {
            case 0: points.append(nil)
            case 1: points.append(.point(Point(x: Double(i), y: 1, z: 2)))
            case 2: points.append(.point(Point(x: Double(i), y: 1, m: .nan)))
            default: points.appendPoint(x: Double(i), y: -Double(i))
            }
        }
        for column in [shapes, points] {
            for count in [0, 1, 7, 200] {
                let rows = (0..<count).map { _ in random.int(column.count) }
                let gathered = column.gathering(rows)
                #expect(gathered.storage == column.storage)
                GeometryColumnTests.check(gathered, holds: rows.map { column[$0] })
                if gathered.storage == .shapes { try Self.check(gathered, "gathered") }
                // z and m arrays only when a gathered row has them.
                #expect(gathered.hasZ == rows.contains { column.layout(row: $0).hasZ })
                #expect(gathered.hasM == rows.contains { column.layout(row: $0).hasM })
            }
        }
    }
}
