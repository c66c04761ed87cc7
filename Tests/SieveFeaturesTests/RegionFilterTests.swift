import Foundation
import SieveGEOS
import SieveGeometry
import SieveIndex
import Testing

@testable import SieveFeatures
@testable import SieveEditing
@testable import SieveFormats
import SieveTestSupport

/// The accelerated region filter against the plain loop over every feature with the prepared
/// query geometry (which the relationship tests check against Shapely).
@Suite("Region filter")
struct RegionFilterTests {
    static func star(vertices: Int, center: (Double, Double), outer: Double, inner: Double) throws -> Geometry {
        var ring: [Point] = []
        for i in 0..<vertices {
            let angle = Double(i) / Double(vertices) * 2 * Double.pi
            let radius = i.isMultiple(of: 2) ? outer : inner
            ring.append(Point(x: center.0 + radius * cos(angle), y: center.1 + radius * sin(angle)))
        }
        ring.append(ring[0])
        return .polygon(try Polygon(exterior: ring))
    }

    func naive(_ filter: RegionFilter, _ geometries: [Geometry?]) throws -> [UInt32] {
        try geometries.indices.filter { i in
            guard let geometry = geometries[i] else { return false }
            return try filter.test(geometry)
        }.map(UInt32.init)
    }

    @Test(arguments: [RegionFilter.Mode.intersects, .within])
    func pointsAgainstAStar(mode: RegionFilter.Mode) throws {
        var random = LinearCongruential(state: 5)
        // Points on a grid too, so that some lie exactly on the star's edges' vertices.
        var geometries: [Geometry?] = (0..<20_000).map { _ in .point(Point(x: random.next() * 1000, y: random.next() * 1000)) }
        geometries += (0...40).flatMap { i in (0...40).map { j in Geometry.point(Point(x: Double(i) * 25, y: Double(j) * 25)) } }
        geometries.append(nil)
        let boxes = geometries.map { $0?.envelope ?? .empty }
        let tree = QuadTree(
            xmin: boxes.map { $0.isEmpty ? .nan : $0.xmin }, ymin: boxes.map { $0.isEmpty ? .nan : $0.ymin },
            xmax: boxes.map { $0.isEmpty ? .nan : $0.xmax }, ymax: boxes.map { $0.isEmpty ? .nan : $0.ymax })
        let context = try GEOSContext()
        let query = try PreparedGeometry(Self.star(vertices: 200, center: (500, 500), outer: 450, inner: 250), context: context)
        let filter = RegionFilter(prepared: query, context: context, mode: mode)
        let fast = try filter.rows(in: tree, geometries: GeometryColumn(geometries))
        #expect(fast == (try naive(filter, geometries)))
        #expect(fast.count > 5000)
    }

    @Test(arguments: [RegionFilter.Mode.intersects, .within])
    func countriesAgainstAPolygon(mode: RegionFilter.Mode) throws {
        let table = try FeatureTable.load(geoJSON: try fixtureText("naturalearth_lowres.geojson"))
        let tree = QuadTree(xmin: table.xmin, ymin: table.ymin, xmax: table.xmax, ymax: table.ymax)
        let context = try GEOSContext()
        // Roughly Europe and Africa.
        let region = Geometry.polygon(try Polygon(exterior: [
            Point(x: -20, y: -40), Point(x: 55, y: -40), Point(x: 55, y: 72), Point(x: -20, y: 72), Point(x: -20, y: -40),
        ]))
        let filter = RegionFilter(prepared: try PreparedGeometry(region, context: context), context: context, mode: mode)
        let fast = try filter.rows(in: tree, geometries: table.geometryColumn)
        #expect(fast == (try naive(filter, (0..<table.count).map { table.geometry(row: $0) })))
        #expect(!fast.isEmpty)
    }
}

extension RegionFilterTests {
    /// The grid's certain answers equal GEOS's, for random points, points on vertices and points
    /// on edges; and it is certain for the great majority of points.
    @Test func polygonGridAgreesWithGEOS() throws {
        let context = try GEOSContext()
        let star = try Self.star(vertices: 1000, center: (500, 500), outer: 450, inner: 300)
        let prepared = try PreparedGeometry(star, context: context)
        let grid = try #require(PolygonGrid(star, prepared: prepared))
        var random = LinearCongruential(state: 17)
        var points: [(Double, Double)] = (0..<50_000).map { _ in (50 + random.next() * 900, 50 + random.next() * 900) }
        guard case .polygon(let polygon) = star else {
            Issue.record("expected a polygon")
            return
        }
        for i in 0..<polygon.coordinates.count - 1 {
            let (ax, ay) = (polygon.coordinates.x(at: i), polygon.coordinates.y(at: i))
            let (bx, by) = (polygon.coordinates.x(at: i + 1), polygon.coordinates.y(at: i + 1))
            points.append((ax, ay))                        // a vertex
            points.append((ax + (bx - ax) / 2, ay + (by - ay) / 2))  // (about) an edge's midpoint
        }
        var certain = 0
        for (x, y) in points {
            guard let inside = grid.isInside(x: x, y: y) else { continue }
            certain += 1
            #expect(inside == (try prepared.contains(x: x, y: y)), "(\(x), \(y))")
            #expect(inside == (try prepared.intersects(x: x, y: y)), "(\(x), \(y))")
        }
        #expect(certain > 49_000)
    }

    @Test(arguments: [RegionFilter.Mode.intersects, .within])
    func regionFilterWithGridAgreesWithGEOS(mode: RegionFilter.Mode) throws {
        var random = LinearCongruential(state: 3)
        let geometries: [Geometry?] = (0..<30_000).map { _ in .point(Point(x: random.next() * 1000, y: random.next() * 1000)) }
        let tree = QuadTree(
            xmin: geometries.map { $0?.envelope.xmin ?? .nan }, ymin: geometries.map { $0?.envelope.ymin ?? .nan },
            xmax: geometries.map { $0?.envelope.xmax ?? .nan }, ymax: geometries.map { $0?.envelope.ymax ?? .nan })
        let context = try GEOSContext()
        let star = try Self.star(vertices: 1000, center: (500, 500), outer: 480, inner: 200)
        let prepared = try PreparedGeometry(star, context: context)
        let filter = RegionFilter(prepared: prepared, context: context, mode: mode, grid: PolygonGrid(star, prepared: prepared))
        let expected = try geometries.indices.filter { i in try geometries[i].map { try filter.testWithGEOS($0) } ?? false }
        #expect(try filter.rows(in: tree, geometries: GeometryColumn(geometries)) == expected.map(UInt32.init))
    }
}

extension RegionFilterTests {
    /// Small polygon features through the grid agree with GEOS.
    @Test(arguments: [RegionFilter.Mode.intersects, .within])
    func smallPolygonsWithGridAgreeWithGEOS(mode: RegionFilter.Mode) throws {
        var random = LinearCongruential(state: 11)
        let geometries: [Geometry?] = try (0..<8000).map { _ in
            let (x, y, r) = (random.next() * 1000, random.next() * 1000, 0.5 + random.next() * 3)
            return .polygon(try Polygon(exterior: [
                Point(x: x - r, y: y - r), Point(x: x + r, y: y - r), Point(x: x + r, y: y + r), Point(x: x - r, y: y + r),
                Point(x: x - r, y: y - r),
            ]))
        }
        let boxes = geometries.map { $0?.envelope ?? .empty }
        let tree = QuadTree(xmin: boxes.map(\.xmin), ymin: boxes.map(\.ymin), xmax: boxes.map(\.xmax), ymax: boxes.map(\.ymax))
        let context = try GEOSContext()
        let star = try Self.star(vertices: 400, center: (500, 500), outer: 480, inner: 200)
        let prepared = try PreparedGeometry(star, context: context)
        let filter = RegionFilter(prepared: prepared, context: context, mode: mode, grid: PolygonGrid(star, prepared: prepared))
        let expected = try geometries.indices.filter { i in try geometries[i].map { try filter.testWithGEOS($0) } ?? false }
        #expect(try filter.rows(in: tree, geometries: GeometryColumn(geometries)) == expected.map(UInt32.init))
        #expect(expected.count > 1000)
    }
}

extension RegionFilterTests {
    /// Point features read from coordinate arrays (tested in batches) agree with GEOS point by
    /// point, for random points and for points exactly on the query's vertices and on its
    /// edges' midpoints.
    @Test(arguments: [RegionFilter.Mode.intersects, .within])
    func pointCoordinatesAgreeWithGEOS(mode: RegionFilter.Mode) throws {
        var random = LinearCongruential(state: 23)
        let star = try Self.star(vertices: 600, center: (500, 500), outer: 470, inner: 150)
        guard case .polygon(let polygon) = star else {
            Issue.record("expected a polygon")
            return
        }
        var xs = (0..<40_000).map { _ in random.next() * 1000 }, ys = (0..<40_000).map { _ in random.next() * 1000 }
        for i in 0..<polygon.coordinates.count - 1 {
            let (ax, ay) = (polygon.coordinates.x(at: i), polygon.coordinates.y(at: i))
            let (bx, by) = (polygon.coordinates.x(at: i + 1), polygon.coordinates.y(at: i + 1))
            xs += [ax, ax + (bx - ax) / 2]
            ys += [ay, ay + (by - ay) / 2]
        }
        let geometries: [Geometry?] = xs.indices.map { .point(Point(x: xs[$0], y: ys[$0])) }
        let tree = QuadTree(xmin: xs, ymin: ys, xmax: xs, ymax: ys)
        let context = try GEOSContext()
        let prepared = try PreparedGeometry(star, context: context)
        let filter = RegionFilter(prepared: prepared, context: context, mode: mode, grid: PolygonGrid(star, prepared: prepared))
        let expected = try xs.indices.filter { i in
            mode == .intersects ? try prepared.intersects(x: xs[i], y: ys[i]) : try prepared.contains(x: xs[i], y: ys[i])
        }
        #expect(try filter.rows(in: tree, geometries: GeometryColumn(geometries), pointXs: ColumnBuffer(xs), pointYs: ColumnBuffer(ys)) == expected.map(UInt32.init))
        #expect(expected.count > 5000)
    }
}

extension RegionFilterTests {
    /// A comb (ten teeth, axis-parallel edges on whole numbers, a hole in its base) and a small
    /// square island as a second part: features on a 2.5-unit lattice share its vertices, touch
    /// its edges and run along them.
    static func combWithIsland() throws -> Geometry {
        var comb = [Point(x: 0, y: 0), Point(x: 100, y: 0), Point(x: 100, y: 10)]
        for k in stride(from: 9, through: 0, by: -1) {
            let x = Double(k) * 10
            comb += [Point(x: x + 5, y: 10), Point(x: x + 5, y: 60), Point(x: x, y: 60), Point(x: x, y: 10)]
        }
        comb.append(Point(x: 0, y: 0))
        let hole = [Point(x: 40, y: 3), Point(x: 40, y: 7), Point(x: 60, y: 7), Point(x: 60, y: 3), Point(x: 40, y: 3)]
        let island = [Point(x: 200, y: 200), Point(x: 210, y: 200), Point(x: 210, y: 210), Point(x: 200, y: 210), Point(x: 200, y: 200)]
        return .polygon(try Polygon(parts: [[comb, hole], [island]]))
    }

    /// GEOS's own answer: the unprepared `intersects`, or the prepared one for an invalid
    /// feature that the unprepared test rejects (a self-crossing ring, say).
    static func geosIntersects(_ feature: Geometry, _ query: PreparedGeometry, context: GEOSContext) throws -> Bool {
        let converted = try GEOSGeometry(feature, context: context)
        return try (try? converted.intersects(query.geometry)) ?? query.intersects(converted)
    }

    /// Tests every geometry through an `intersects` filter with a grid over `query`, and checks
    /// its answer, and the grid's wherever the grid decides alone, against GEOS's.
    /// - Returns: the filter and its GEOS objects, and how many geometries the grid decided.
    static func checkGridDecisions(_ geometries: [Geometry], against query: Geometry) throws
        -> (filter: RegionFilter, prepared: PreparedGeometry, context: GEOSContext, decided: Int)
    {
        let context = try GEOSContext()
        let prepared = try PreparedGeometry(query, context: context)
        let grid = try #require(PolygonGrid(query, prepared: prepared))
        let filter = RegionFilter(prepared: prepared, context: context, mode: .intersects, grid: grid)
        var decided = 0
        for geometry in geometries {
            let expected = try geosIntersects(geometry, prepared, context: context)
            #expect(try filter.test(geometry) == expected, "\(geometry)")
            if let answer = filter.decideWithGrid(geometry, grid) {
                decided += 1
                #expect(answer == expected, "\(geometry)")
            }
        }
        return (filter, prepared, context, decided)
    }

    /// Polygon, polyline and multipoint features decided by the grid (vertices, segment
    /// crossings, segments apart from every edge) agree with GEOS's unprepared `intersects`,
    /// including features touching the query at vertices and along edges, degenerate rings,
    /// and features that enclose a whole ring of the query or whose envelope holds a ring's
    /// first vertex without the feature holding it.
    @Test func featuresDecidedByTheGridAgreeWithGEOS() throws {
        var random = LinearCongruential(state: 29)
        func lattice(_ low: Double, _ high: Double) -> Double { low + (random.next() * (high - low) / 2.5).rounded(.down) * 2.5 }
        func point(_ x: Double, _ y: Double) -> Point { Point(x: x, y: y) }
        var geometries: [Geometry] = []
        for _ in 0..<3000 {
            let (x, y) = (lattice(-10, 110), lattice(-10, 70))
            let (w, h) = (2.5 * Double(1 + Int(random.next() * 3)), 2.5 * Double(1 + Int(random.next() * 3)))
            geometries.append(.polygon(try Polygon(exterior: [point(x, y), point(x + w, y), point(x + w, y + h), point(x, y + h), point(x, y)])))
            let (tx, ty) = (random.next() * 120 - 10, random.next() * 80 - 10)
            geometries.append(.polygon(try Polygon(exterior: [
                point(tx, ty), point(tx + 1 + random.next() * 4, ty + random.next()), point(tx + random.next(), ty + 1 + random.next() * 4), point(tx, ty),
            ])))
            geometries.append(.polyline(try Polyline(paths: [[point(x, y), point(x + w, y + h), point(x + w, y)]])))
            geometries.append(.multipoint(try Multipoint(points: [point(x, y), point(x + w, y + h)])))
        }
        geometries += [
            // Degenerate rings: all vertices on one line across a tooth, and a ring with a repeated vertex.
            .polygon(try Polygon(exterior: [point(2, 30), point(8, 30), point(3, 30), point(2, 30)])),
            .polygon(try Polygon(exterior: [point(6, 30), point(9, 30), point(9, 30), point(6, 32), point(6, 30)])),
            // Encloses the island (every vertex outside the query, no edge met): intersects.
            .polygon(try Polygon(exterior: [point(193, 196), point(216, 196), point(216, 213), point(193, 213), point(193, 196)])),
            // An L around the island's first vertex, clear of the island: its envelope holds the vertex.
            .polygon(try Polygon(exterior: [
                point(195, 195), point(198, 195), point(198, 212), point(212, 212), point(212, 215), point(195, 215), point(195, 195),
            ])),
            // Through the hole only, and around it.
            .polygon(try Polygon(exterior: [point(45, 4), point(55, 4), point(55, 6), point(45, 6), point(45, 4)])),
            .polyline(try Polyline(paths: [[point(41, 5), point(59, 5)]])),
            .polygon(try Polygon(exterior: [point(38, 2), point(62, 2), point(62, 8), point(38, 8), point(38, 2)])),
        ]
        let query = try Self.combWithIsland()
        let (filter, prepared, context, decided) = try Self.checkGridDecisions(geometries, against: query)
        let rows = geometries.map(Optional.some)
        let boxes = geometries.map(\.envelope)
        let tree = QuadTree(xmin: boxes.map(\.xmin), ymin: boxes.map(\.ymin), xmax: boxes.map(\.xmax), ymax: boxes.map(\.ymax))
        let expected = try geometries.indices.filter { try Self.geosIntersects(geometries[$0], prepared, context: context) }
        #expect(try filter.rows(in: tree, geometries: GeometryColumn(rows)) == expected.map(UInt32.init))
        #expect(decided > geometries.count / 2)
        #expect(expected.count > 1000)
    }

    /// Small polygons around a star, some sharing its vertices or with an edge through one:
    /// the grid's decisions agree with GEOS's unprepared `intersects`.
    @Test func smallPolygonsDecidedByTheGridAgreeWithGEOS() throws {
        var random = LinearCongruential(state: 31)
        let query = try Self.star(vertices: 500, center: (500, 500), outer: 470, inner: 200)
        guard case .polygon(let star) = query else {
            Issue.record("expected a polygon")
            return
        }
        var geometries: [Geometry] = []
        for i in 0..<6000 {
            let (x, y, r) = (random.next() * 1000, random.next() * 1000, 0.5 + random.next() * 2)
            var ring = (0..<5).map { k in
                let angle = (Double(k) + random.next() / 2) / 5 * 2 * Double.pi
                return Point(x: x + r * cos(angle), y: y + r * sin(angle))
            }
            if i.isMultiple(of: 3) {
                // A vertex on a star vertex, or the star vertex halfway along an edge.
                let v = star.coordinates[Int(random.next() * Double(star.coordinates.count - 1))]
                ring[0] = v
                if i.isMultiple(of: 2) { ring[1] = Point(x: 2 * v.x - ring[2].x, y: 2 * v.y - ring[2].y) }
            }
            ring.append(ring[0])
            geometries.append(.polygon(try Polygon(exterior: ring)))
        }
        let decided = try Self.checkGridDecisions(geometries, against: query).decided
        #expect(decided > geometries.count / 2)
    }
}

extension RegionFilterTests {
    /// A square with a pocket cut from its top whose wall zigzags through (47, 43.75): the
    /// centre of the fourth row of its 8 × 8 grid, so the row's walk passes exactly through a
    /// vertex where the boundary crosses the row.
    static func squareWithPocket() throws -> Geometry {
        let ring = [
            (0.0, 0.0), (25, 0), (50, 0), (75, 0), (100, 0), (100, 25), (100, 50), (100, 75), (100, 100), (75, 100), (50, 100),
            (45, 60), (47, 43.75), (40, 30), (20, 30), (20, 100), (0, 100), (0, 75), (0, 50), (0, 25), (0, 0),
        ]
        return .polygon(try Polygon(exterior: ring.map { Point(x: $0.0, y: $0.1) }))
    }

    /// The grid's cell centres are classified by walking each row from the envelope's left
    /// edge; every uncertain step must fall back to GEOS. On the comb, that edge is a polygon
    /// edge and cell borders and centres fall on edges and vertices; on the square with a
    /// pocket, a row runs through a vertex. Points on a half-unit lattice (on every edge,
    /// vertex, cell border and centre) agree with GEOS wherever the grid is certain, and the
    /// grid is certain almost everywhere.
    @Test(arguments: [0, 1])
    func polygonGridCentresAgreeWithGEOS(shape: Int) throws {
        let query = shape == 0 ? try Self.combWithIsland() : try Self.squareWithPocket()
        let context = try GEOSContext()
        let prepared = try PreparedGeometry(query, context: context)
        let grid = try #require(PolygonGrid(query, prepared: prepared))
        var points: [(Double, Double)] = []
        for i in 0...214 { for j in 0...216 { points.append((-1 + Double(i) / 2, -1 + Double(j) / 2)) } }
        if shape == 0 {
            for i in 0...40 { for j in 0...40 { points.append((195 + Double(i) / 2, 195 + Double(j) / 2)) } }
        }
        var certain = 0
        for (x, y) in points {
            guard let inside = grid.isInside(x: x, y: y) else { continue }
            certain += 1
            #expect(inside == (try prepared.contains(x: x, y: y)), "(\(x), \(y))")
            #expect(inside == (try prepared.intersects(x: x, y: y)), "(\(x), \(y))")
        }
        #expect(certain > points.count / 2)
    }
}

/// The 64-bit linear congruential generator these tests draw their data from (Knuth's MMIX
/// constants), as doubles in `0 ..< 1`.
struct LinearCongruential {
    var state: UInt64

    mutating func next() -> Double {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(state >> 11) / Double(1 << 53)
    }
}
