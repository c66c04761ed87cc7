import Foundation
import GeoSieve

/// Workload w2: the spatial index over points — bulk build, window queries, identify (point +
/// tolerance) and edits.
///
/// Inputs (distributions as in the project's anchor generator, drawn from ``SplitMix64``; one
/// independent stream per input, so changing one count leaves the other inputs alone):
///
/// | input | values |
/// |---|---|
/// | uniform points | N points uniform in the 1000 × 1000 square `[0, 1000]²` |
/// | clustered points | N points from 50 Gaussian clusters: centres uniform in `[50, 950]²`, σ uniform in `[5, 40]`, cluster weights Dirichlet(2, …, 2); points outside the square are redrawn from their cluster |
/// | small windows | 10,000 rectangles of area 100, aspect ratio log-uniform in `[1/2, 2]`, placed uniformly inside the square (~100 hits on uniform data) |
/// | large windows | 1,000 rectangles of area 10,000, same shape and placement (~10,000 hits) |
/// | identify clicks | 10,000 clicks with tolerance 0.5: half within 0.5 of a data point (a random point of the uniform set or — alternately — of the clustered set, plus an offset uniform in the disc of radius 0.5), half uniform in the square; shuffled |
///
/// The same windows and clicks are run against both point sets.
enum W2 {
    /// The side of the square the points fill.
    static let extent = 1000.0
    /// Gaussian clusters of the clustered set.
    static let clusterCount = 50
    /// Small windows: count and area.
    static let smallWindows = (count: 10_000, area: 100.0)
    /// Large windows: count and area.
    static let largeWindows = (count: 1_000, area: 10_000.0)
    /// Identify clicks: count and tolerance (a radius in data units).
    static let identify = (count: 10_000, tolerance: 0.5)
    /// Edits: inserts of new ids and removes of existing ids, interleaved at random.
    static let edits = (inserts: 50_000, removes: 50_000)

    /// A point set, coordinates in two parallel arrays.
    struct Points {
        var x: [Double]
        var y: [Double]
        var count: Int { x.count }
    }

    /// An identify click: a point and a search radius.
    struct Click {
        var x: Double
        var y: Double
        var tolerance: Double
    }

    /// One planned edit: insert `id` at `(x, y)`, or remove `id`.
    struct Edit {
        var id: UInt32
        var x: Double
        var y: Double
        var isInsert: Bool
    }

    /// Every input of the workload.
    struct Inputs {
        var uniform: Points
        var clustered: Points
        var smallWindows: [Envelope]
        var largeWindows: [Envelope]
        var clicks: [Click]
        /// The edits applied to the uniform tree (new ids start at `uniform.count`).
        var edits: [Edit]
    }

    /// Generates every input from `seed`.
    static func generate(points count: Int, seed: UInt64) -> Inputs {
        var master = SplitMix64(seed: seed)
        var uniformRandom = master.split()
        var clusteredRandom = master.split()
        var smallRandom = master.split()
        var largeRandom = master.split()
        var clickRandom = master.split()
        var editRandom = master.split()

        let uniform = uniformPoints(count: count, &uniformRandom)
        let clustered = clusteredPoints(count: count, &clusteredRandom)
        return Inputs(
            uniform: uniform,
            clustered: clustered,
            smallWindows: windows(count: smallWindows.count, area: smallWindows.area, &smallRandom),
            largeWindows: windows(count: largeWindows.count, area: largeWindows.area, &largeRandom),
            clicks: clicks(near: [uniform, clustered], &clickRandom),
            edits: plannedEdits(existing: uniform.count, &editRandom))
    }

    static func uniformPoints(count: Int, _ random: inout SplitMix64) -> Points {
        var points = Points(x: [], y: [])
        points.x.reserveCapacity(count)
        points.y.reserveCapacity(count)
        for _ in 0..<count {
            points.x.append(random.nextUnit() * extent)
            points.y.append(random.nextUnit() * extent)
        }
        return points
    }

    static func clusteredPoints(count: Int, _ random: inout SplitMix64) -> Points {
        var centres: [(x: Double, y: Double)] = []
        var sigmas: [Double] = []
        var weights: [Double] = []
        for _ in 0..<clusterCount {
            centres.append((50 + random.nextUnit() * (extent - 100), 50 + random.nextUnit() * (extent - 100)))
            sigmas.append(5 + random.nextUnit() * 35)
            // Dirichlet(2, …, 2) = normalized Gamma(2, 1) draws; Gamma(2, 1) is the sum of two
            // Exp(1) draws (the normalization happens in WeightedChoice).
            weights.append(-log(1 - random.nextUnit()) - log(1 - random.nextUnit()))
        }
        let choice = WeightedChoice(weights: weights)
        var points = Points(x: [], y: [])
        points.x.reserveCapacity(count)
        points.y.reserveCapacity(count)
        for _ in 0..<count {
            let cluster = choice.pick(&random)
            let centre = centres[cluster], sigma = sigmas[cluster]
            var x: Double, y: Double
            repeat {
                x = random.nextNormal(mean: centre.x, standardDeviation: sigma)
                y = random.nextNormal(mean: centre.y, standardDeviation: sigma)
            } while !(0...extent).contains(x) || !(0...extent).contains(y)
            points.x.append(x)
            points.y.append(y)
        }
        return points
    }

    static func windows(count: Int, area: Double, _ random: inout SplitMix64) -> [Envelope] {
        let lowAspect = log(0.5), highAspect = log(2.0)
        var result: [Envelope] = []
        result.reserveCapacity(count)
        for _ in 0..<count {
            let aspect = exp(lowAspect + random.nextUnit() * (highAspect - lowAspect))
            let width = (area * aspect).squareRoot()
            let height = area / width
            let x = random.nextUnit() * (extent - width)
            let y = random.nextUnit() * (extent - height)
            result.append(Envelope(xmin: x, ymin: y, xmax: x + width, ymax: y + height))
        }
        return result
    }

    /// Half the clicks near a point of one of `sets` (taken in turn), half uniform; shuffled.
    static func clicks(near sets: [Points], _ random: inout SplitMix64) -> [Click] {
        let count = identify.count, tolerance = identify.tolerance
        var result: [Click] = []
        result.reserveCapacity(count)
        for i in 0..<(count / 2) {
            let set = sets[i % sets.count]
            let index = random.nextInt(below: set.count)
            let angle = 2 * Double.pi * random.nextUnit()
            let radius = tolerance * random.nextUnit().squareRoot()
            result.append(Click(x: set.x[index] + radius * cos(angle), y: set.y[index] + radius * sin(angle), tolerance: tolerance))
        }
        while result.count < count {
            result.append(Click(x: random.nextUnit() * extent, y: random.nextUnit() * extent, tolerance: tolerance))
        }
        shuffle(&result, &random)
        return result
    }

    /// Inserts of new ids `existing …` at uniform positions and removes of distinct existing ids,
    /// interleaved at random.
    static func plannedEdits(existing: Int, _ random: inout SplitMix64) -> [Edit] {
        var result: [Edit] = []
        result.reserveCapacity(edits.inserts + edits.removes)
        for k in 0..<edits.inserts {
            result.append(Edit(id: UInt32(existing + k), x: random.nextUnit() * extent, y: random.nextUnit() * extent, isInsert: true))
        }
        // Distinct ids: a partial Fisher–Yates shuffle of 0 ..< existing.
        var ids = Array(0..<UInt32(existing))
        for k in 0..<min(edits.removes, existing) {
            ids.swapAt(k, k + random.nextInt(below: existing - k))
            result.append(Edit(id: ids[k], x: 0, y: 0, isInsert: false))
        }
        shuffle(&result, &random)
        return result
    }

    static func shuffle<T>(_ values: inout [T], _ random: inout SplitMix64) {
        guard values.count > 1 else { return }
        for i in stride(from: values.count - 1, to: 0, by: -1) {
            values.swapAt(i, random.nextInt(below: i + 1))
        }
    }
}

// MARK: - Measurement

extension W2 {
    /// The measurements of one point set ("uniform" or "clustered"), in output order.
    enum Stage: String, CaseIterable {
        case build, windowSmall = "window_small", windowLarge = "window_large", identify, edits
    }

    /// Builds the quadtree over `points` (zero-size envelopes; ids are indices).
    static func buildTree(_ points: Points) -> QuadTree {
        QuadTree(xmin: points.x, ymin: points.y, xmax: points.x, ymax: points.y)
    }

    /// Times the bulk build: one warm-up build, then `rounds` timed builds; returns the last tree.
    static func measureBuild(_ points: Points, name: String, rounds: Int) -> (QuadTree, ResultLine) {
        var tree = buildTree(points)
        var samples: [UInt64] = []
        for _ in 0..<rounds {
            tree = QuadTree()  // release the previous tree before timing the next build
            let timed = MonotonicClock.measure { buildTree(points) }
            tree = timed.result
            samples.append(timed.nanoseconds)
        }
        let line = ResultLine(
            workload: "w2.build.\(name)", timing: TimingSummary(nanoseconds: samples),
            rows: points.count, result: tree.count, sizeName: "features")
        return (tree, line)
    }

    /// Total hits of every window (ids appended to a reused buffer, then counted).
    static func runWindows(_ tree: QuadTree, _ windows: [Envelope], _ buffer: inout [UInt32]) -> Int {
        var total = 0
        for window in windows {
            buffer.removeAll(keepingCapacity: true)
            tree.query(intersecting: window, into: &buffer)
            total += buffer.count
        }
        return total
    }

    /// Total hits of every click (radius query: a circle, not a square).
    static func runClicks(_ tree: QuadTree, _ clicks: [Click], _ buffer: inout [UInt32]) -> Int {
        var total = 0
        for click in clicks {
            buffer.removeAll(keepingCapacity: true)
            tree.query(nearX: click.x, y: click.y, radius: click.tolerance, into: &buffer)
            total += buffer.count
        }
        return total
    }

    /// Times a batch of queries: one warm-up pass (which fixes the answer), then `rounds` passes.
    static func measureQueries(
        workload: String, queries: Int, rounds: Int, _ pass: () -> Int
    ) throws(BenchmarkFailure) -> ResultLine {
        let answer = pass()
        var samples: [UInt64] = []
        for _ in 0..<rounds {
            let timed = MonotonicClock.measure(pass)
            guard timed.result == answer else {
                throw BenchmarkFailure("\(workload): a pass counted \(timed.result) hits, the warm-up \(answer)")
            }
            samples.append(timed.nanoseconds)
        }
        return ResultLine(
            workload: workload, timing: TimingSummary(nanoseconds: samples), rows: queries, result: answer,
            sizeName: "queries")
    }

    /// The 99th percentile of per-click identify latency in microseconds, over `rounds` passes
    /// timed click by click (separate from the throughput passes, whose totals it would inflate
    /// by the clock reads).
    static func identifyP99(_ tree: QuadTree, _ clicks: [Click], rounds: Int) -> Double {
        var latencies: [UInt64] = []
        latencies.reserveCapacity(clicks.count * rounds)
        var buffer: [UInt32] = []
        buffer.reserveCapacity(64)
        for _ in 0..<rounds {
            for click in clicks {
                let start = MonotonicClock.nanoseconds()
                buffer.removeAll(keepingCapacity: true)
                tree.query(nearX: click.x, y: click.y, radius: click.tolerance, into: &buffer)
                latencies.append(MonotonicClock.nanoseconds() - start)
            }
        }
        return Double(percentile(latencies, 0.99)) / 1000
    }

    /// The nearest-rank percentile `p` (0 … 1) of `samples` (not empty).
    static func percentile(_ samples: [UInt64], _ p: Double) -> UInt64 {
        let sorted = samples.sorted()
        let rank = Int((p * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// Applies the edits to a fresh tree over `points` per round (the build is not timed), then
    /// checks the edited tree against a brute-force scan.
    static func measureEdits(_ points: Points, _ edits: [Edit], inputs: Inputs, name: String, rounds: Int) throws(BenchmarkFailure) -> ResultLine {
        var samples: [UInt64] = []
        var finalTree = QuadTree()
        for _ in 0...rounds {  // round 0 is the warm-up
            finalTree = QuadTree()
            var tree = buildTree(points)
            let timed = MonotonicClock.measure { () -> Int in
                var failures = 0
                for edit in edits {
                    let done =
                        edit.isInsert
                        ? tree.insert(edit.id, envelope: Envelope(xmin: edit.x, ymin: edit.y, xmax: edit.x, ymax: edit.y))
                        : tree.remove(edit.id)
                    if !done { failures += 1 }
                }
                return failures
            }
            guard timed.result == 0 else {
                throw BenchmarkFailure("w2.edits.\(name): \(timed.result) of \(edits.count) edits were refused")
            }
            samples.append(timed.nanoseconds)
            finalTree = tree
        }
        samples.removeFirst()

        // Exactness: the edited tree against a scan of the live points.
        var x = points.x, y = points.y
        var alive = [Bool](repeating: true, count: points.count)
        for edit in edits {
            let id = Int(edit.id)
            if id >= x.count {
                x.append(contentsOf: repeatElement(0, count: id + 1 - x.count))
                y.append(contentsOf: repeatElement(0, count: id + 1 - y.count))
                alive.append(contentsOf: repeatElement(false, count: id + 1 - alive.count))
            }
            if edit.isInsert {
                x[id] = edit.x
                y[id] = edit.y
            }
            alive[id] = edit.isInsert
        }
        let live = Points(x: x, y: y)
        let expectedCount = alive.reduce(0) { $0 + ($1 ? 1 : 0) }
        guard finalTree.count == expectedCount else {
            throw BenchmarkFailure("w2.edits.\(name): the tree holds \(finalTree.count) ids, \(expectedCount) expected")
        }
        try verify(finalTree, live, alive: alive, inputs: inputs, label: "w2.edits.\(name)")

        let timing = TimingSummary(nanoseconds: samples)
        let opsPerSecond = Double(edits.count) / (timing.medianMilliseconds / 1000)
        return ResultLine(
            workload: "w2.edits.\(name)", timing: timing, rows: edits.count, result: finalTree.count,
            sizeName: "operations", extras: [("ops_per_s", String(Int(opsPerSecond.rounded())))])
    }

    /// Checks a sample of window and identify queries (sorted id lists) against a brute-force
    /// scan of the points whose `alive` flag is set.
    static func verify(_ tree: QuadTree, _ points: Points, alive: [Bool]?, inputs: Inputs, label: String) throws(BenchmarkFailure) {
        func isAlive(_ i: Int) -> Bool { alive?[i] ?? true }
        let windows = inputs.smallWindows.prefix(20) + inputs.largeWindows.prefix(5)
        for (k, window) in windows.enumerated() {
            let found = tree.query(intersecting: window).sorted()
            var expected: [UInt32] = []
            for i in 0..<points.count where isAlive(i) {
                let px = points.x[i], py = points.y[i]
                if px >= window.xmin && px <= window.xmax && py >= window.ymin && py <= window.ymax {
                    expected.append(UInt32(i))
                }
            }
            guard found == expected else {
                throw BenchmarkFailure("\(label): window \(k) \(window) gave \(found.count) ids, brute force \(expected.count)")
            }
        }
        for (k, click) in inputs.clicks.prefix(100).enumerated() {
            var found: [UInt32] = []
            tree.query(nearX: click.x, y: click.y, radius: click.tolerance, into: &found)
            found.sort()
            var expected: [UInt32] = []
            let limit = click.tolerance * click.tolerance
            for i in 0..<points.count where isAlive(i) {
                let dx = points.x[i] - click.x, dy = points.y[i] - click.y
                if dx * dx + dy * dy <= limit { expected.append(UInt32(i)) }
            }
            guard found == expected else {
                throw BenchmarkFailure("\(label): click \(k) gave \(found) , brute force \(expected)")
            }
        }
    }

    /// Formats microseconds with two decimals (JSON number text).
    static func microseconds(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let fraction = String(hundredths % 100)
        return "\(hundredths / 100)." + String(repeating: "0", count: 2 - fraction.count) + fraction
    }
}

/// A benchmark run that went wrong (answers that changed or disagree with brute force): reported
/// on standard error with exit status 1.
struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
