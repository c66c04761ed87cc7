// GEOS predicate benchmarks: SieveGEOS against plain C loops over the GEOS C API.
//
// Every benchmark iteration tests one batch against a 1,000-vertex star polygon: 10,000 points
// (prepared), 1,000 points (unprepared: each such test walks every edge of the star) or
// 10,000 squares. p50 wall clock per iteration divided by the batch size is the cost per test.
//
// Each iteration builds its own GEOS context, converts and prepares the polygon and runs one
// warm-up test (GEOS builds a prepared geometry's indexes lazily, on the first test) before
// `startMeasurement()`, and tears everything down after `stopMeasurement()`: only the batch
// itself is measured. After measuring, the hit count is checked against the count the C
// baseline computed when the fixtures were built, so both sides provably did the same work.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

import Benchmark
import CGEOSBaseline
import GEOSBaseline
import GeoSieve

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        timeUnits: .microseconds,
        warmupIterations: 3,
        scalingFactor: .one,
        maxDuration: .seconds(5),
        maxIterations: 500
    )

    let points: PointFixture
    let unprepared: PointFixture
    let squares: SquareFixture
    do {
        points = try PointFixture(
            vertexCount: PredicateSizes.starVertices, pointCount: PredicateSizes.batch, seed: 0x6E05_1E7E)
        unprepared = try PointFixture(
            vertexCount: PredicateSizes.starVertices, pointCount: PredicateSizes.unpreparedBatch, seed: 0x6E05_1E7E)
        squares = try SquareFixture(
            vertexCount: PredicateSizes.starVertices, squareCount: PredicateSizes.batch, seed: 0x5C0A_4E55)
    } catch {
        Benchmark("GEOSPredicateBenchmarks.fixtures") { benchmark in
            benchmark.error("could not build the fixtures: \(error)")
        }
        return
    }

    // MARK: Point in polygon, unprepared

    Benchmark("PointInPolygon.unprepared.SieveGEOS") { benchmark in
        let context = try GEOSContext()
        let star = try GEOSGeometry(unprepared.star, context: context)
        _ = try star.intersects(GEOSGeometry(.point(Point(x: 0, y: 0)), context: context))

        try measureBatches(benchmark, expected: unprepared.expectedHits) {
            var hits = 0
            for i in unprepared.xs.indices {
                let point = try GEOSGeometry(.point(Point(x: unprepared.xs[i], y: unprepared.ys[i])), context: context)
                if try star.intersects(point) { hits += 1 }
            }
            return hits
        }
    }

    Benchmark("PointInPolygon.unprepared.C-API") { benchmark in
        let c = try CBaseline(ring: unprepared.ring)
        _ = try c.pointHits(xs: [0], ys: [0])

        try measureBatches(benchmark, expected: unprepared.expectedHits) {
            try c.pointHits(xs: unprepared.xs, ys: unprepared.ys)
        }
    }

    // MARK: Point in polygon, prepared

    Benchmark("PointInPolygon.prepared.SieveGEOS") { benchmark in
        let context = try GEOSContext()
        let prepared = try PreparedGeometry(points.star, context: context)
        _ = try prepared.intersects(x: 0, y: 0)

        try measureBatches(benchmark, expected: points.expectedHits) {
            var hits = 0
            for i in points.xs.indices where try prepared.intersects(x: points.xs[i], y: points.ys[i]) {
                hits += 1
            }
            return hits
        }
    }

    // The object path: each point converted to a `GEOSGeometry` first, then
    // `PreparedGeometry.intersects(_:)`. Shows what `intersects(x:y:)` saves.
    Benchmark("PointInPolygon.prepared.SieveGEOS-objects") { benchmark in
        let context = try GEOSContext()
        let prepared = try PreparedGeometry(points.star, context: context)
        _ = try prepared.intersects(x: 0, y: 0)

        try measureBatches(benchmark, expected: points.expectedHits) {
            var hits = 0
            for i in points.xs.indices {
                let point = try GEOSGeometry(.point(Point(x: points.xs[i], y: points.ys[i])), context: context)
                if try prepared.intersects(point) { hits += 1 }
            }
            return hits
        }
    }

    Benchmark("PointInPolygon.prepared.C-API") { benchmark in
        let c = try CBaseline(ring: points.ring)
        _ = try c.preparedPointHits(xs: [0], ys: [0])

        try measureBatches(benchmark, expected: points.expectedHits) {
            try c.preparedPointHits(xs: points.xs, ys: points.ys)
        }
    }

    // The C loop with the same envelope pre-check SieveGEOS makes (every point of this batch
    // passes it, so this shows what the check itself costs).
    Benchmark("PointInPolygon.prepared+envelope.C-API") { benchmark in
        let c = try CBaseline(ring: points.ring)
        _ = try c.preparedPointHitsWithEnvelope(xs: [0], ys: [0])

        try measureBatches(benchmark, expected: points.expectedHits) {
            try c.preparedPointHitsWithEnvelope(xs: points.xs, ys: points.ys)
        }
    }

    // MARK: Polygon against polygon

    Benchmark("PolygonPolygon.unprepared.SieveGEOS") { benchmark in
        let context = try GEOSContext()
        let star = try GEOSGeometry(squares.star, context: context)
        let others = try squares.squares.map { square throws(GEOSError) in try GEOSGeometry(square, context: context) }

        try measureBatches(benchmark, expected: squares.expectedHits) {
            var hits = 0
            for other in others where try star.intersects(other) {
                hits += 1
            }
            return hits
        }
    }

    Benchmark("PolygonPolygon.unprepared.C-API") { benchmark in
        let c = try CBaseline(ring: squares.ring)
        let others = try c.squares(xs: squares.xs, ys: squares.ys, sides: squares.sides)
        defer { c.destroy(others) }

        try measureBatches(benchmark, expected: squares.expectedHits) {
            try c.polygonHits(others)
        }
    }

    Benchmark("PolygonPolygon.prepared.SieveGEOS") { benchmark in
        let context = try GEOSContext()
        let prepared = try PreparedGeometry(squares.star, context: context)
        let others = try squares.squares.map { square throws(GEOSError) in try GEOSGeometry(square, context: context) }
        _ = try prepared.intersects(others[0])

        try measureBatches(benchmark, expected: squares.expectedHits) {
            var hits = 0
            for other in others where try prepared.intersects(other) {
                hits += 1
            }
            return hits
        }
    }

    Benchmark("PolygonPolygon.prepared.C-API") { benchmark in
        let c = try CBaseline(ring: squares.ring)
        let others = try c.squares(xs: squares.xs, ys: squares.ys, sides: squares.sides)
        defer { c.destroy(others) }
        _ = try c.preparedPolygonHits(Array(others.prefix(1)))

        try measureBatches(benchmark, expected: squares.expectedHits) {
            try c.preparedPolygonHits(others)
        }
    }
}

/// Fails the benchmark when its last batch found a different number of hits than the C
/// baseline did on the same data.
/// Times `batch` (which returns its hit count) over the benchmark's iterations, then checks the
/// last count against the C baseline's. The closure keeps the context and geometries it uses
/// alive until the measurement is over.
func measureBatches(_ benchmark: Benchmark, expected: Int, _ batch: () throws -> Int) rethrows {
    var hits = 0
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
        hits = try batch()
        blackHole(hits)
    }
    benchmark.stopMeasurement()
    check(benchmark, hits, expected)
}

func check(_ benchmark: Benchmark, _ hits: Int, _ expected: Int) {
    if hits != expected {
        benchmark.error("\(benchmark.name): \(hits) hits, the C baseline found \(expected)")
    }
}

// MARK: - Data

/// Sizes shared by all benchmarks of this suite.
enum PredicateSizes {
    /// Vertices of the star polygon (its ring has one more, closing it).
    static let starVertices = 1_000
    /// Tests per iteration of the prepared point-in-polygon and the polygon-polygon benchmarks.
    static let batch = 10_000
    /// Points per iteration of the unprepared point-in-polygon benchmarks: the first points of
    /// the same seeded sequence.
    static let unpreparedBatch = 1_000
}

/// SplitMix64 (Steele, Lea and Flood 2014): a tiny seeded generator, so that every run tests the
/// same points.
/// Values are derived with integer arithmetic only, identical on every platform.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A double uniform in `[0, 1)` from the top 53 bits.
    mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// A double uniform in `[low, high)`.
    mutating func next(in low: Double, _ high: Double) -> Double {
        low + (high - low) * nextUnit()
    }
}

/// The closed ring of a star: `vertexCount` vertices around the origin, radius alternating
/// 1.0 and 0.6, as interleaved x y values (first vertex repeated at the end).
func starRing(vertexCount: Int) -> [Double] {
    var values: [Double] = []
    values.reserveCapacity(2 * (vertexCount + 1))
    for i in 0..<vertexCount {
        let angle = 2 * Double.pi * Double(i) / Double(vertexCount)
        let radius = i.isMultiple(of: 2) ? 1.0 : 0.6
        values.append(radius * cos(angle))
        values.append(radius * sin(angle))
    }
    values.append(values[0])
    values.append(values[1])
    return values
}

/// The star as a GeoSieve polygon.
func starPolygon(ring: [Double]) throws(GeometryError) -> Geometry {
    let exterior = stride(from: 0, to: ring.count, by: 2).map { Point(x: ring[$0], y: ring[$0 + 1]) }
    return .polygon(try Polygon(exterior: exterior))
}

/// The star and a batch of points uniform in its envelope: every point passes the envelope
/// check, so every test reaches GEOS.
struct PointFixture: Sendable {
    let ring: [Double]
    let star: Geometry
    let xs: [Double]
    let ys: [Double]
    /// How many of the points intersect the star, by the prepared C baseline.
    let expectedHits: Int

    init(vertexCount: Int, pointCount: Int, seed: UInt64) throws {
        ring = starRing(vertexCount: vertexCount)
        star = try starPolygon(ring: ring)
        let box = star.envelope
        var random = SplitMix64(seed: seed)
        var xs: [Double] = [], ys: [Double] = []
        xs.reserveCapacity(pointCount)
        ys.reserveCapacity(pointCount)
        for _ in 0..<pointCount {
            xs.append(random.next(in: box.xmin, box.xmax))
            ys.append(random.next(in: box.ymin, box.ymax))
        }
        self.xs = xs
        self.ys = ys
        expectedHits = try CBaseline(ring: ring).preparedPointHits(xs: xs, ys: ys)
    }
}

/// The star and a batch of small axis-aligned squares (side 0.01 to 0.1) lying inside its
/// envelope, so that no envelope test decides alone.
struct SquareFixture: Sendable {
    let ring: [Double]
    let star: Geometry
    let xs: [Double]
    let ys: [Double]
    let sides: [Double]
    let squares: [Geometry]
    /// How many of the squares intersect the star, by the prepared C baseline.
    let expectedHits: Int

    init(vertexCount: Int, squareCount: Int, seed: UInt64) throws {
        ring = starRing(vertexCount: vertexCount)
        star = try starPolygon(ring: ring)
        let box = star.envelope
        var random = SplitMix64(seed: seed)
        var xs: [Double] = [], ys: [Double] = [], sides: [Double] = [], squares: [Geometry] = []
        for _ in 0..<squareCount {
            let side = random.next(in: 0.01, 0.1)
            let x = random.next(in: box.xmin, box.xmax - side)
            let y = random.next(in: box.ymin, box.ymax - side)
            xs.append(x)
            ys.append(y)
            sides.append(side)
            let corners = [
                Point(x: x, y: y), Point(x: x + side, y: y), Point(x: x + side, y: y + side),
                Point(x: x, y: y + side), Point(x: x, y: y),
            ]
            // A polygon, not an `.envelope`, so that SieveGEOS takes no rectangle shortcut.
            squares.append(.polygon(try Polygon(exterior: corners)))
        }
        self.xs = xs
        self.ys = ys
        self.sides = sides
        self.squares = squares
        let baseline = try CBaseline(ring: ring)
        let others = try baseline.squares(xs: xs, ys: ys, sides: sides)
        defer { baseline.destroy(others) }
        expectedHits = try baseline.preparedPolygonHits(others)
    }
}

// MARK: - C baseline

/// A failure reported by a C baseline function.
struct BaselineError: Error, CustomStringConvertible {
    let description: String
}

/// A GEOS context, the star polygon and its prepared form, owned by the C baseline functions.
/// Not `Sendable`, like ``GEOSContext``: one per benchmark iteration (and one, briefly, per
/// fixture, to count the expected hits).
final class CBaseline {
    let handle: OpaquePointer
    let polygon: OpaquePointer
    let prepared: OpaquePointer
    let envelope: (xmin: Double, ymin: Double, xmax: Double, ymax: Double)

    init(ring: [Double]) throws(BaselineError) {
        guard let handle = geos_baseline_init() else {
            throw BaselineError(description: "GEOS_init_r failed")
        }
        guard let polygon = geos_baseline_polygon(handle, ring, ring.count / 2) else {
            geos_baseline_finish(handle)
            throw BaselineError(description: "could not build the star polygon")
        }
        guard let prepared = geos_baseline_prepare(handle, polygon) else {
            geos_baseline_destroy(handle, polygon)
            geos_baseline_finish(handle)
            throw BaselineError(description: "GEOSPrepare_r failed")
        }
        self.handle = handle
        self.polygon = polygon
        self.prepared = prepared
        var box = (xmin: Double.infinity, ymin: Double.infinity, xmax: -Double.infinity, ymax: -Double.infinity)
        for i in stride(from: 0, to: ring.count, by: 2) {
            box.xmin = min(box.xmin, ring[i])
            box.xmax = max(box.xmax, ring[i])
            box.ymin = min(box.ymin, ring[i + 1])
            box.ymax = max(box.ymax, ring[i + 1])
        }
        envelope = box
    }

    deinit {
        geos_baseline_prepared_destroy(handle, prepared)
        geos_baseline_destroy(handle, polygon)
        geos_baseline_finish(handle)
    }

    private func checked(_ hits: Int, _ what: String) throws(BaselineError) -> Int {
        guard hits >= 0 else { throw BaselineError(description: "\(what) failed") }
        return hits
    }

    func pointHits(xs: [Double], ys: [Double]) throws(BaselineError) -> Int {
        try checked(geos_baseline_point_hits(handle, polygon, xs, ys, xs.count), "geos_baseline_point_hits")
    }

    func preparedPointHits(xs: [Double], ys: [Double]) throws(BaselineError) -> Int {
        try checked(geos_baseline_prepared_point_hits(handle, prepared, xs, ys, xs.count), "geos_baseline_prepared_point_hits")
    }

    func preparedPointHitsWithEnvelope(xs: [Double], ys: [Double]) throws(BaselineError) -> Int {
        try checked(
            geos_baseline_prepared_point_hits_envelope(
                handle, prepared, envelope.xmin, envelope.ymin, envelope.xmax, envelope.ymax, xs, ys, xs.count),
            "geos_baseline_prepared_point_hits_envelope")
    }

    /// The squares `[x, x + side] × [y, y + side]` as GEOS polygons; release them with
    /// ``destroy(_:)``.
    func squares(xs: [Double], ys: [Double], sides: [Double]) throws(BaselineError) -> [OpaquePointer?] {
        precondition(xs.count == ys.count && xs.count == sides.count, "square arrays differ in length")
        var out = [OpaquePointer?](repeating: nil, count: xs.count)
        let status = geos_baseline_squares(handle, xs, ys, sides, xs.count, &out)
        guard status == 0 else { throw BaselineError(description: "could not build the squares") }
        return out
    }

    func destroy(_ geometries: [OpaquePointer?]) {
        var geometries = geometries
        geos_baseline_destroy_all(handle, &geometries, geometries.count)
    }

    func polygonHits(_ others: [OpaquePointer?]) throws(BaselineError) -> Int {
        try checked(geos_baseline_polygon_hits(handle, polygon, others, others.count), "geos_baseline_polygon_hits")
    }

    func preparedPolygonHits(_ others: [OpaquePointer?]) throws(BaselineError) -> Int {
        try checked(
            geos_baseline_prepared_polygon_hits(handle, prepared, others, others.count),
            "geos_baseline_prepared_polygon_hits")
    }
}
