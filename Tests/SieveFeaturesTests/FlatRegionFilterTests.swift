import Foundation
import SieveColumns
import SieveGEOS
import SieveGeometry
import SieveIndex
import SieveTestSupport
import Testing

@testable import SieveFeatures
@testable import SieveEditing
@testable import SieveFormats

/// The region filter reads shape-storage rows in place (``RegionFilter/testRow(_:_:_:)``):
/// every answer must be the one the materializing path (``RegionFilter/test(_:)`` on the row's
/// `Geometry`) gives, for every kind of row, with and without the grid.
@Suite("Region filter on flat geometry arrays")
struct FlatRegionFilterTests {
    /// A random geometry of any kind around `[0, 1000]²`: mostly small polygons (some with holes
    /// or several parts), paths and multipoints, and some points, envelopes, collections, rows
    /// with z or m, empty geometries and rows without geometry.
    static func randomGeometry(_ random: inout SeededGenerator) throws -> Geometry? {
        func ring(_ cx: Double, _ cy: Double, _ r: Double, _ n: Int, clockwise: Bool = false) -> [Point] {
            var points = (0..<n).map { i -> Point in
                let angle = 2 * Double.pi * Double(i) / Double(n) * (clockwise ? -1 : 1)
                let radius = r * random.uniform(0.7, 1)
                return Point(x: cx + radius * cos(angle), y: cy + radius * sin(angle))
            }
            points.append(points[0])
            return points
        }
        let cx = random.uniform(-20, 1020), cy = random.uniform(-20, 1020), r = random.uniform(0.5, 12)
        switch random.int(100) {
        case 0..<35:
            return .polygon(try Polygon(exterior: ring(cx, cy, r, random.int(3...9))))
        case 35..<42:
            // A hole, in either orientation.
            return .polygon(try Polygon(parts: [[ring(cx, cy, r, 8), ring(cx, cy, r / 3, 5, clockwise: random.chance(50))]]))
        case 42..<48:
            return .polygon(try Polygon(parts: [[ring(cx, cy, r, 5)], [ring(cx + 3 * r, cy, r, 6)]]))
        case 48..<62:
            let paths = (0..<random.int(1...3)).map { k in
                (0..<random.int(2...6)).map { _ in Point(x: cx + Double(k) * r + random.uniform(-r, r), y: cy + random.uniform(-r, r)) }
            }
            return .polyline(try Polyline(paths: paths))
        case 62..<72:
            let points = (0..<random.int(1...6)).map { _ in Point(x: cx + random.uniform(-r, r), y: cy + random.uniform(-r, r)) }
            return .multipoint(try Multipoint(points: points))
        case 72..<80:
            return .point(Point(x: cx, y: cy))
        case 80..<84:
            return .envelope(Envelope(xmin: cx, ymin: cy, xmax: cx + r, ymax: cy + r / 2))
        case 84..<87:
            return .collection(GeometryCollection([.point(Point(x: cx, y: cy)), .polyline(try Polyline(paths: [[Point(x: cx, y: cy), Point(x: cx + r, y: cy + r)]]))]))
        case 87..<91:
            return try Geometry(wkt: "POLYGON Z ((\(cx) \(cy) 1, \(cx + r) \(cy) 2, \(cx) \(cy + r) 3, \(cx) \(cy) 1))")
        case 91..<93:
            return try Geometry(wkt: "LINESTRING M (\(cx) \(cy) 1, \(cx + r) \(cy + r) NaN)")
        case 93..<95:
            return try Geometry(wkt: ["POLYGON EMPTY", "LINESTRING EMPTY", "MULTIPOINT EMPTY", "POINT EMPTY"][random.int(4)])
        case 95..<97:
            // A vertex below 2^-459, which GEOS's grid moves: the row is materialized.
            return .polygon(try Polygon(exterior: [
                Point(x: 3e-140, y: cy), Point(x: cx, y: cy), Point(x: cx, y: cy + r), Point(x: 3e-140, y: cy),
            ]))
        default:
            return nil
        }
    }

    static func tree(_ column: GeometryColumn) -> QuadTree {
        QuadTree(xmin: column.xmin, ymin: column.ymin, xmax: column.xmax, ymax: column.ymax)
    }

    /// The rows whose materialized geometry passes `filter.test`, ascending.
    static func materialized(_ filter: RegionFilter, _ column: GeometryColumn) throws -> [UInt32] {
        try (0..<column.count).filter { row in try column[row].map { try filter.test($0) } ?? false }.map(UInt32.init)
    }

    @Test(arguments: [RegionFilter.Mode.intersects, .within], [false, true])
    func everyKindAgreesWithTheMaterializingPath(mode: RegionFilter.Mode, withGrid: Bool) throws {
        var random = SeededGenerator(seed: withGrid ? 41 : 43)
        let geometries = try (0..<6000).map { _ in try Self.randomGeometry(&random) }
        let column = GeometryColumn(geometries)
        #expect(column.storage == .shapes)
        let context = try GEOSContext()
        let star = try RegionFilterTests.star(vertices: 400, center: (500, 500), outer: 480, inner: 180)
        let prepared = try PreparedGeometry(star, context: context)
        let grid = withGrid ? try #require(PolygonGrid(star, prepared: prepared)) : nil
        let filter = RegionFilter(prepared: prepared, context: context, mode: mode, grid: grid)
        let fast = try filter.rows(in: Self.tree(column), geometries: column)
        #expect(fast == (try Self.materialized(filter, column)))
        #expect(fast.count > (mode == .within ? 400 : 1000))
        // And GEOS alone agrees.
        let geos = try (0..<column.count).filter { row in try column[row].map { try filter.testWithGEOS($0) } ?? false }
        #expect(fast == geos.map(UInt32.init))
    }

    /// A column whose rows were replaced (new positions appended, old ones left unused) and one
    /// that turned from point into shape storage: the in-place reads follow the current rows.
    @Test func editedColumnsAgreeWithTheMaterializingPath() throws {
        var random = SeededGenerator(seed: 47)
        var column = GeometryColumn()
        for _ in 0..<3000 { column.appendPoint(x: random.uniform(0, 1000), y: random.uniform(0, 1000)) }
        for _ in 0..<3000 { column.append(try Self.randomGeometry(&random)) }
        #expect(column.storage == .shapes)
        for _ in 0..<2000 { column.replace(row: random.int(column.count), with: try Self.randomGeometry(&random)) }
        #expect(column.unusedPositions > 0)
        let context = try GEOSContext()
        let star = try RegionFilterTests.star(vertices: 300, center: (500, 500), outer: 450, inner: 250)
        let prepared = try PreparedGeometry(star, context: context)
        for mode in [RegionFilter.Mode.intersects, .within] {
            let filter = RegionFilter(prepared: prepared, context: context, mode: mode, grid: PolygonGrid(star, prepared: prepared))
            #expect(try filter.rows(in: Self.tree(column), geometries: column) == (try Self.materialized(filter, column)))
        }
    }

    /// Through the table: an areal `intersects`/`within` query on a polygon table gives the rows
    /// GEOS gives feature by feature (the table path takes the grid from 10,000 rows on).
    @Test(arguments: [SpatialRelationship.intersects, .within])
    func tableQueryAgreesWithGEOS(relationship: SpatialRelationship) throws {
        var random = SeededGenerator(seed: 53)
        let geometries = try (0..<12_000).map { _ in try Self.randomGeometry(&random) }
        let table = try FeatureTable(
            schema: Schema(fields: [Field(name: "OBJECTID", type: .oid)], objectIdFieldName: "OBJECTID", geometryType: .polygon),
            columns: [.integer(Int64Column(values: Array(1...Int64(geometries.count))))], geometries: geometries)
        let star = try RegionFilterTests.star(vertices: 500, center: (500, 500), outer: 470, inner: 200)
        let ids = try table.queryObjectIDs(QueryParameters(geometry: star, spatialRelationship: relationship))
        let context = try GEOSContext()
        let prepared = try PreparedGeometry(star, context: context)
        let expected = try geometries.indices.filter { row in
            guard let geometry = geometries[row] else { return false }
            let feature = try GEOSGeometry(geometry, context: context)
            return relationship == .within ? try prepared.contains(feature) : try prepared.intersects(feature)
        }
        let expectedIDs = expected.map { Int64($0 + 1) }
        // The first difference, not the whole lists, when they differ.
        #expect(ids.count == expectedIDs.count)
        let mismatch = zip(ids, expectedIDs).first { $0 != $1 }
        #expect(mismatch == nil, "first differing object IDs: \(String(describing: mismatch))")
        #expect(ids.count > 1000)
    }
}
