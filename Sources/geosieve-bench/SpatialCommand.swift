import ArgumentParser
import Foundation
import GeoSieve

/// `geosieve-bench spatial`: the spatial workloads, generated and measured in one process.
///
/// Stage w2 (Workloads/W2.swift) measures the quadtree alone: bulk build, window queries,
/// identify and edits over generated points. The spatial-filter stage w3 (query polygons against
/// the same points and against polygons) runs after it, with its own `w3.*` lines and its own
/// `--emit-data` files, reusing ``W2/Inputs/uniform`` as its point set.
struct SpatialCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spatial",
        abstract: "Spatial workloads w2 (quadtree build, windows, identify, edits) and w3 (spatial filter by a query polygon).",
        discussion: """
            For each point set (uniform, clustered) prints one JSON line per measurement: \
            "w2.build.SET" (features = points, result = ids indexed), "w2.window_small.SET" \
            (10,000 windows of area 100), "w2.window_large.SET" (1,000 windows of area 10,000), \
            "w2.identify.SET" (10,000 clicks, radius 0.5; with "p99_us", the 99th percentile of \
            the per-click latency); then "w2.edits.uniform" (50,000 inserts of new ids and 50,000 \
            removes of existing ids, interleaved, on a fresh uniform tree; result = final count; \
            the edited tree is checked against brute force). A query line's result is the total \
            hit count over its queries. Then w3, "features that intersect a query polygon" as a \
            feature-table count query (quadtree built before timing): "w3.star_points" (a \
            1,001-vertex star, ~26% of the square, against the uniform points), "w3.walk_points" \
            (a 1,066-vertex polygon with 7 holes, 2%, against the same points), \
            "w3.star_polygons" (the star against 100,000 small polygons); features = table rows, \
            result = features that intersect. Timings: median, min and max of --rounds passes \
            after one warm-up pass.
            """
    )

    @Option(help: "Points per point set.")
    var points: Int = 1_000_000

    @Option(help: "Seed of the generator (same seed, same inputs).")
    var seed: UInt64 = 42

    @Option(help: "Measured rounds per measurement, after one warm-up round.")
    var rounds: Int = 5

    @Option(
        name: .customLong("emit-data"),
        help: ArgumentHelp(
            "Before measuring, write the inputs to DIR: little-endian float64 files (points_uniform.f64, points_clustered.f64, windows_small.f64, windows_large.f64, identify.f64) and WKT, one geometry a line (star.wkt, walk.wkt, polygons.wkt).",
            valueName: "DIR"))
    var emitData: String?

    @Option(
        name: .customLong("only"),
        help: ArgumentHelp(
            "Run only this measurement (build, window_small, window_large, identify, edits, star_points, walk_points, star_polygons; repeatable), e.g. to profile it.",
            valueName: "STAGE"))
    var only: [String] = []

    func validate() throws {
        guard points >= 1, points < Int(UInt32.max) - W2.edits.inserts else {
            throw ValidationError("--points must be between 1 and \(Int(UInt32.max) - W2.edits.inserts - 1)")
        }
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1") }
        for stage in only where W2.Stage(rawValue: stage) == nil && W3.Stage(rawValue: stage) == nil {
            let names = W2.Stage.allCases.map(\.rawValue) + W3.Stage.allCases.map(\.rawValue)
            throw ValidationError("--only must be one of \(names.joined(separator: ", "))")
        }
    }

    func run() throws {
        let generation = MonotonicClock.measure { W2.generate(points: points, seed: seed) }
        let inputs = generation.result
        note("generated 2 × \(points) points, windows and clicks in \(ResultLine.milliseconds(Double(generation.nanoseconds) / 1e6)) ms")

        let w3Stages = only.isEmpty ? W3.Stage.allCases : W3.Stage.allCases.filter { only.contains($0.rawValue) }
        var w3Inputs: W3.Inputs?
        if !w3Stages.isEmpty || emitData != nil {
            let timed = try MonotonicClock.measure { () throws -> W3.Inputs in try W3.generate(seed: seed) }
            w3Inputs = timed.result
            note("generated the w3 star, walk and \(W3.polygonCount) small polygons (checked valid by GEOS) in \(ResultLine.milliseconds(Double(timed.nanoseconds) / 1e6)) ms")
        }

        if let emitData {
            let directory = URL(fileURLWithPath: emitData, isDirectory: true)
            try W2.export(inputs, to: directory)
            note("wrote the w2 inputs to \(directory.path)")
            if let w3Inputs {
                try W3.export(w3Inputs, to: directory)
                note("wrote the w3 inputs to \(directory.path)")
            }
        }

        let w2Stages = only.isEmpty ? W2.Stage.allCases : W2.Stage.allCases.filter { only.contains($0.rawValue) }
        if !w2Stages.isEmpty { try runW2(inputs) }
        if let w3Inputs, !w3Stages.isEmpty { try runW3(w3Inputs, points: inputs.uniform, stages: w3Stages) }
    }

    /// Stage w3: the spatial filter through the feature table, query polygon by target set.
    private func runW3(_ w3: W3.Inputs, points: W2.Points, stages: [W3.Stage]) throws {
        if stages.contains(.starPoints) || stages.contains(.walkPoints) {
            let table = try W3.pointTable(points)
            if stages.contains(.starPoints) {
                emit(try W3.measure(workload: "w3.star_points", table: table, query: w3.star, rounds: rounds))
            }
            if stages.contains(.walkPoints) {
                emit(try W3.measure(workload: "w3.walk_points", table: table, query: w3.walk, rounds: rounds))
            }
        }
        if stages.contains(.starPolygons) {
            let table = try W3.makeTable(w3.polygons.map { .polygon($0) }, type: .polygon)
            emit(try W3.measure(workload: "w3.star_polygons", table: table, query: w3.star, rounds: rounds))
        }
    }

    /// Stage w2: every measurement of the quadtree, point set by point set.
    private func runW2(_ inputs: W2.Inputs) throws {
        let stages = only.isEmpty ? Set(W2.Stage.allCases) : Set(only.compactMap(W2.Stage.init(rawValue:)))
        for (name, set) in [("uniform", inputs.uniform), ("clustered", inputs.clustered)] {
            let queryStages: Set<W2.Stage> = [.build, .windowSmall, .windowLarge, .identify]
            guard !stages.isDisjoint(with: queryStages) else { continue }
            let (tree, buildLine) = W2.measureBuild(set, name: name, rounds: stages.contains(.build) ? rounds : 1)
            if stages.contains(.build) { emit(buildLine) }
            try W2.verify(tree, set, alive: nil, inputs: inputs, label: "w2.\(name)")

            var buffer: [UInt32] = []
            buffer.reserveCapacity(1 << 16)
            if stages.contains(.windowSmall) {
                emit(try W2.measureQueries(workload: "w2.window_small.\(name)", queries: inputs.smallWindows.count, rounds: rounds) {
                    W2.runWindows(tree, inputs.smallWindows, &buffer)
                })
            }
            if stages.contains(.windowLarge) {
                emit(try W2.measureQueries(workload: "w2.window_large.\(name)", queries: inputs.largeWindows.count, rounds: rounds) {
                    W2.runWindows(tree, inputs.largeWindows, &buffer)
                })
            }
            if stages.contains(.identify) {
                var line = try W2.measureQueries(workload: "w2.identify.\(name)", queries: inputs.clicks.count, rounds: rounds) {
                    W2.runClicks(tree, inputs.clicks, &buffer)
                }
                line.extras.append(("p99_us", W2.microseconds(W2.identifyP99(tree, inputs.clicks, rounds: rounds))))
                emit(line)
            }
        }
        if stages.contains(.edits) {
            emit(try W2.measureEdits(inputs.uniform, inputs.edits, inputs: inputs, name: "uniform", rounds: rounds))
        }
    }
}
