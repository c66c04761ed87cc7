import Foundation
import GeoSieve

/// Workload w3: the spatial filter — "which features intersect this query polygon" — through the
/// feature table's query path (quadtree nodes classified by GEOS, only boundary features tested).
///
/// Inputs (drawn from ``SplitMix64``, one independent stream per input, seeded apart from the w2
/// streams so that w2's inputs do not change):
///
/// | input | values |
/// |---|---|
/// | points | the w2 uniform points (``W2/Inputs/uniform``) |
/// | star | 1,000 vertices (1,001 with the closing one) around (500, 500) at regular angles, alternately at radius 450 · U(0.85, 1) and 450 · U(0.30, 0.60): 500 spikes, ~26 % of the square |
/// | walk | an irregular polygon with 7 holes, 2 % of the square net, 1,066 vertices: an outer ring of 1,002 vertices (1,003 closed) whose radius wobbles (three sine harmonics and jitter), stretched 6 : 1 and rotated; holes of 8 vertices (9 closed), radius ~4 … 6, on the long axis. Generated procedurally (the project's anchors buffer a random walk with GEOS, which SieveGEOS does not expose), so only the name is the anchors' |
/// | polygons | 100,000 small polygons: centre uniform in the square, 4 or 6 vertices (even odds), radius U(0.5, 2) · U(0.8, 1.2) per vertex, angles regular from a random rotation with a jitter of at most ¼ step (star-shaped, so simple), counter-clockwise |
///
/// Every generated polygon is checked with GEOS (`validity()`); an invalid one stops the run.
enum W3 {
    /// The side of the square (the w2 extent).
    static let extent = W2.extent
    /// Vertices of the star (without the closing one).
    static let starVertices = 1_000
    /// Distinct vertices of the walk's outer ring, of each of its holes, and the hole count.
    static let walk = (outerVertices: 1_002, holes: 7, holeVertices: 8, areaFraction: 0.02)
    /// Small polygons.
    static let polygonCount = 100_000

    /// Every input of the workload besides the points.
    struct Inputs {
        var star: Polygon
        var walk: Polygon
        var polygons: [Polygon]
    }

    /// The measurements, in output order.
    enum Stage: String, CaseIterable {
        case starPoints = "star_points", walkPoints = "walk_points", starPolygons = "star_polygons"
    }

    /// Generates the query polygons and the small polygons from `seed`, and checks each with GEOS.
    static func generate(seed: UInt64) throws -> Inputs {
        var master = SplitMix64(seed: seed ^ 0x5733_5733_5733_5733)
        var starRandom = master.split()
        var walkRandom = master.split()
        var polygonRandom = master.split()
        let inputs = Inputs(
            star: try star(&starRandom),
            walk: try walkPolygon(&walkRandom),
            polygons: try smallPolygons(count: polygonCount, &polygonRandom))
        try GEOSContext.withCurrent { context throws in
            try check(inputs.star, name: "star", context: context)
            try check(inputs.walk, name: "walk", context: context)
            for (index, polygon) in inputs.polygons.enumerated() {
                try check(polygon, name: "small polygon \(index)", context: context)
            }
        }
        return inputs
    }

    /// Throws unless GEOS finds `polygon` valid.
    static func check(_ polygon: Polygon, name: String, context: GEOSContext) throws {
        let validity = try GEOSGeometry(.polygon(polygon), context: context).validity()
        guard validity.isValid else {
            throw BenchmarkFailure("w3: the generated \(name) is not valid: \(validity)")
        }
    }

    /// The star: spikes alternating between an outer and an inner radius.
    static func star(_ random: inout SplitMix64) throws -> Polygon {
        var ring: [Point] = []
        ring.reserveCapacity(starVertices + 1)
        for i in 0..<starVertices {
            let angle = Double(i) * 2 * Double.pi / Double(starVertices)
            let radius = i % 2 == 0 ? 450 * (0.85 + 0.15 * random.nextUnit()) : 450 * (0.30 + 0.30 * random.nextUnit())
            ring.append(Point(x: extent / 2 + radius * cos(angle), y: extent / 2 + radius * sin(angle)))
        }
        ring.append(ring[0])
        return try Polygon(exterior: ring)
    }

    /// The "walk": a wobbly, stretched, rotated outer ring with holes along its long axis, scaled
    /// so that its area net of the holes is ``walk``'s fraction of the square.
    ///
    /// The outer ring is star-shaped about its centre in its unstretched frame, with radius
    /// between 0.61 and 1.39 times the scale, so it is simple; each hole lies within 0.61 of the
    /// centre in that frame, so it is inside, and the holes are spaced further apart than their
    /// diameters, so they are disjoint.
    static func walkPolygon(_ random: inout SplitMix64) throws -> Polygon {
        let aspect = 6.0
        let major = aspect.squareRoot(), minor = 1 / aspect.squareRoot()
        let rotation = Double.pi / 8 + random.nextUnit() * Double.pi / 4
        let centre = (x: 400 + 200 * random.nextUnit(), y: 400 + 200 * random.nextUnit())
        let phases = (0..<3).map { _ in 2 * Double.pi * random.nextUnit() }

        // The unit outer ring (scale 1, unstretched): angle and radius per vertex.
        let n = walk.outerVertices
        let step = 2 * Double.pi / Double(n)
        var unit: [(u: Double, v: Double)] = []
        unit.reserveCapacity(n)
        for i in 0..<n {
            let angle = Double(i) * step + (random.nextUnit() - 0.5) * 0.5 * step
            let radius =
                1 + 0.20 * sin(2 * angle + phases[0]) + 0.12 * sin(5 * angle + phases[1])
                + 0.05 * sin(13 * angle + phases[2]) + 0.04 * (random.nextUnit() - 0.5)
            unit.append((radius * cos(angle) * major, radius * sin(angle) * minor))
        }
        var unitArea = 0.0
        for i in 0..<n {
            let a = unit[i], b = unit[(i + 1) % n]
            unitArea += a.u * b.v - b.u * a.v
        }
        unitArea /= 2

        // Holes: offsets (absolute units) around their centres, clockwise.
        var holeOffsets: [[(u: Double, v: Double)]] = []
        var holeArea = 0.0
        for _ in 0..<walk.holes {
            let radius = 4 + 2 * random.nextUnit()
            let rotation = 2 * Double.pi * random.nextUnit()
            let holeStep = 2 * Double.pi / Double(walk.holeVertices)
            var offsets: [(u: Double, v: Double)] = []
            for k in 0..<walk.holeVertices {
                let angle = rotation - Double(k) * holeStep + (random.nextUnit() - 0.5) * 0.5 * holeStep
                let r = radius * (0.85 + 0.30 * random.nextUnit())
                offsets.append((r * cos(angle), r * sin(angle)))
            }
            var area = 0.0
            for k in 0..<offsets.count {
                let a = offsets[k], b = offsets[(k + 1) % offsets.count]
                area += a.u * b.v - b.u * a.v
            }
            holeArea += abs(area) / 2
            holeOffsets.append(offsets)
        }

        let netArea = walk.areaFraction * extent * extent
        let scale = ((netArea + holeArea) / unitArea).squareRoot()
        let cosR = cos(rotation), sinR = sin(rotation)
        func place(_ u: Double, _ v: Double) -> Point {
            Point(x: centre.x + u * cosR - v * sinR, y: centre.y + u * sinR + v * cosR)
        }
        var exterior = unit.map { place($0.u * scale, $0.v * scale) }
        exterior.append(exterior[0])

        var holes: [[Point]] = []
        for (k, offsets) in holeOffsets.enumerated() {
            // Hole centres on the long axis at -0.36 … 0.36 of the unstretched unit radius.
            let position = (-0.36 + 0.72 * Double(k) / Double(walk.holes - 1)) * major * scale
            var ring = offsets.map { place(position + $0.u, $0.v) }
            ring.append(ring[0])
            holes.append(ring)
        }
        return try Polygon(exterior: exterior, holes: holes)
    }

    /// Small 4- and 6-gons scattered over the square.
    static func smallPolygons(count: Int, _ random: inout SplitMix64) throws -> [Polygon] {
        var result: [Polygon] = []
        result.reserveCapacity(count)
        for _ in 0..<count {
            let vertices = random.nextUnit() < 0.5 ? 4 : 6
            let cx = random.nextUnit() * extent, cy = random.nextUnit() * extent
            let radius = 0.5 + 1.5 * random.nextUnit()
            let rotation = 2 * Double.pi * random.nextUnit()
            let step = 2 * Double.pi / Double(vertices)
            var ring: [Point] = []
            ring.reserveCapacity(vertices + 1)
            for k in 0..<vertices {
                let angle = rotation + Double(k) * step + (random.nextUnit() - 0.5) * 0.5 * step
                let r = radius * (0.8 + 0.4 * random.nextUnit())
                ring.append(Point(x: cx + r * cos(angle), y: cy + r * sin(angle)))
            }
            ring.append(ring[0])
            result.append(try Polygon(exterior: ring))
        }
        return result
    }
}

// MARK: - Measurement

extension W3 {
    /// A feature table of `geometries` (all of `type`) with only an OBJECTID column (1 …),
    /// in planar units (wkid 3857, so no projection is involved).
    static func makeTable(_ geometries: [Geometry], type: GeometryType) throws -> FeatureTable {
        let schema = try Schema(
            fields: [Field(name: "OBJECTID", type: .oid)], objectIdFieldName: "OBJECTID",
            geometryType: type, spatialReference: .webMercator)
        let ids = Int64Column(values: (0..<Int64(geometries.count)).map { $0 + 1 })
        return try FeatureTable(schema: schema, columns: [.integer(ids)], geometries: geometries)
    }

    /// The point table over `points`.
    static func pointTable(_ points: W2.Points) throws -> FeatureTable {
        var geometries: [Geometry] = []
        geometries.reserveCapacity(points.count)
        for i in 0..<points.count {
            geometries.append(.point(Point(x: points.x[i], y: points.y[i])))
        }
        return try makeTable(geometries, type: .point)
    }

    /// Times `table.queryFeatureCount` with `query` intersects: the quadtree is built first and
    /// one warm-up query fixes the answer; every timed round must give it again.
    static func measure(
        workload: String, table: FeatureTable, query: Polygon, rounds: Int
    ) throws -> ResultLine {
        _ = table.spatialIndex  // build the lazy quadtree outside the timing
        let parameters = QueryParameters(geometry: .polygon(query), spatialRelationship: .intersects)
        let answer = try table.queryFeatureCount(parameters)
        var samples: [UInt64] = []
        for _ in 0..<rounds {
            let timed = try MonotonicClock.measure { () throws -> Int in try table.queryFeatureCount(parameters) }
            guard timed.result == answer else {
                throw BenchmarkFailure("\(workload): a round counted \(timed.result) features, the warm-up \(answer)")
            }
            samples.append(timed.nanoseconds)
        }
        let split = try regionSplit(table.spatialIndex, query: query)
        return ResultLine(
            workload: workload, timing: TimingSummary(nanoseconds: samples), rows: table.count, result: answer,
            sizeName: "features",
            extras: [("inside_features", String(split.inside)), ("boundary_features", String(split.boundary))])
    }

    /// How the quadtree's nodes split the features for `query`, by the rule of the engine's
    /// region filter (a node box the prepared query covers: its features are accepted untested;
    /// a box disjoint from it: rejected; otherwise opened, down to leaves whose features are
    /// tested one by one): the features accepted untested and those tested one by one. A
    /// diagnostic computed outside the timing through the public quadtree API, to show where the
    /// filter's time goes; it does not call the engine's own code.
    static func regionSplit(_ tree: QuadTree, query: Polygon) throws -> (inside: Int, boundary: Int) {
        try GEOSContext.withCurrent { context throws -> (inside: Int, boundary: Int) in
            let prepared = try PreparedGeometry(.polygon(query), context: context)
            var inside = 0, boundary = 0
            tree.classify(
                { box in
                    guard prepared.envelope.intersects(box),
                        let rectangle = try? GEOSGeometry(.envelope(box), context: context)
                    else { return prepared.envelope.intersects(box) ? .boundary : .outside }
                    if (try? prepared.covers(rectangle)) == true { return .inside }
                    if (try? prepared.isDisjoint(with: rectangle)) == true { return .outside }
                    return .boundary
                },
                inside: { _ in inside += 1 },
                boundary: { _ in boundary += 1 })
            return (inside, boundary)
        }
    }
}
