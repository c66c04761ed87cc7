import ArgumentParser
import Foundation
import GeoSieve
import Synchronization

/// `geosieve-bench edit`: the editing workload on a generated point table (the w1 attributes and
/// a point per row, uniform over 1,000 × 1,000).
struct EditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Editing workload: single adds, a mixed batch, reads during edits, compaction.",
        discussion: """
            Builds a --rows point table (w1 attributes, uniform points) and prints one JSON line \
            per measurement: "edit.single_adds" (--adds calls of addFeatures with one feature \
            each on the table, its quadtree built and maintained; result = features after; with \
            "adds_per_s"), "edit.single_adds_empty" (the same adds to an empty table of the same \
            schema), "edit.batch" (--rounds applyEdits batches of --batch edits, 40% adds, \
            40% updates of attributes and geometry, 20% deletes, each on the table as the previous \
            left it; result = features after), "edit.read_scan" and "edit.read_window" (a \
            where-clause count and 1,000 window queries on a reader thread, first alone, then \
            while a writer applies batches of 100 mixed edits without pause; median_ms is during \
            the edits; with "alone_ms" and "slowdown"), "edit.compaction" (deleting every other \
            feature and compacting; with the table's byteCount and its quadtree's, before and \
            after, and "ratio", their sum after over before). The single adds are the same \
            --adds features every round, each round on a fresh copy of the table. The lines of \
            single adds and batches carry "pop_sum", the sum of POP over the table after, a \
            checksum another engine can reproduce. With --emit-data DIR, DIR/edit_table.tsv, \
            DIR/edit_adds.tsv and DIR/edit_batches.tsv (every batch applied) are written for \
            Benchmarks/peers/edit_sqlite.c.
            """
    )

    @Option(help: "Rows of the table.")
    var rows: Int = 1_000_000

    @Option(help: "Single-feature adds.")
    var adds: Int = 100_000

    @Option(help: "Edits per batch.")
    var batch: Int = 10_000

    @Option(help: "Seed of the generator.")
    var seed: UInt64 = 42

    @Option(help: "Measured rounds per measurement, after one warm-up round.")
    var rounds: Int = 5

    @Option(
        name: .customLong("only"),
        help: ArgumentHelp(
            "Run only this measurement (single_adds, batch, reads, compaction; repeatable), e.g. to profile it.",
            valueName: "STAGE"))
    var only: [String] = []

    @Option(
        name: .customLong("emit-data"),
        help: ArgumentHelp(
            "Write the table, the single adds and every batch to DIR (tab-separated) for other engines.",
            valueName: "DIR"))
    var emitData: String?

    func validate() throws {
        guard rows >= 10, adds >= 1, batch >= 10, rounds >= 1 else {
            throw ValidationError("--rows must be at least 10, --batch at least 10, --adds and --rounds at least 1")
        }
    }

    func run() throws {
        let base = try Self.table(rows: rows, seed: seed)
        note("built \(rows) rows")
        func runs(_ stage: String) -> Bool { only.isEmpty || only.contains(stage) }
        var export = try emitData.map { directory in
            var random = SplitMix64(seed: seed)
            let adds = (0..<adds).map { Self.add(&random, tag: $0) }
            return try EditExport(directory: URL(fileURLWithPath: directory, isDirectory: true), table: base, adds: adds)
        }
        if runs("single_adds") { try singleAdds(base) }
        if runs("batch") { try batches(base, export: &export) }
        try export?.close()
        if runs("reads") { try readsDuringEdits(base) }
        if runs("compaction") { try compaction(base) }
    }

    /// The w1 table with a point per row.
    static func table(rows: Int, seed: UInt64) throws -> FeatureTable {
        let data = W1.generate(count: rows, seed: seed)
        let attributes = try W1.makeTable(data)
        var random = SplitMix64(seed: seed ^ 0x5EED)
        var geometries = GeometryColumn(storage: .points)
        geometries.reserveCapacity(rows)
        for _ in 0..<rows { geometries.appendPoint(x: random.nextUnit() * 1000, y: random.nextUnit() * 1000) }
        let fields = attributes.schema.fields
        let schema = try Schema(fields: fields, objectIdFieldName: "OBJECTID", geometryType: .point, spatialReference: SpatialReference(wkid: 3857))
        return try FeatureTable(schema: schema, columns: attributes.columns, geometryColumn: geometries)
    }

    /// A new feature.
    static func add(_ random: inout SplitMix64, tag: Int) -> FeatureEdit {
        FeatureEdit(
            attributes: [
                "POP": .integer(Int64(random.nextInt(below: 100_000))), "NAME": .string("added \(tag % 1000)"),
                "CATEGORY": .string(["Parks", "Schools", "Transit"][tag % 3]), "SCORE": .double(random.nextUnit()),
            ],
            geometry: .point(Point(x: random.nextUnit() * 1000, y: random.nextUnit() * 1000)))
    }

    private func singleAdds(_ base: FeatureTable) throws {
        try singleAdds(to: base, workload: "edit.single_adds")
        // The same adds to a new, empty table of the same schema (a data-collection session).
        let empty = try FeatureTable(
            schema: base.schema,
            columns: base.columns.map { column -> Column in
                switch column {
                case .integer: .integer(Int64Column(values: [Int64]()))
                case .date: .date(Int64Column(values: [Int64]()))
                case .double: .double(DoubleColumn(values: [Double]()))
                case .string: .string(StringColumn([String?]()))
                }
            },
            geometryColumn: GeometryColumn(storage: .points))
        try singleAdds(to: empty, workload: "edit.single_adds_empty")
    }

    private func singleAdds(to base: FeatureTable, workload: String) throws {
        var samples: [UInt64] = []
        var final = 0
        var popSum: Int64 = 0
        for round in 0...rounds {
            let editable = try EditableFeatureTable(base)
            _ = editable.snapshot.spatialIndex  // built before timing: the adds maintain it
            var random = SplitMix64(seed: seed)
            let edits = (0..<adds).map { Self.add(&random, tag: $0) }
            let timed = MonotonicClock.measure {
                var ok = 0
                for edit in edits where editable.addFeatures([edit])[0].success { ok += 1 }
                return ok
            }
            guard timed.result == adds else { throw ValidationError("only \(timed.result) of \(adds) adds succeeded") }
            final = editable.snapshot.featureCount
            if round == rounds { popSum = editable.snapshot.integerSum("POP") }
            if round > 0 { samples.append(timed.nanoseconds) }
        }
        let timing = TimingSummary(nanoseconds: samples)
        emit(ResultLine(
            workload: workload, timing: timing, rows: base.count, result: final,
            extras: [("adds_per_s", "\(Int(Double(adds) / (timing.medianMilliseconds / 1000)))"), ("pop_sum", "\(popSum)")]))
    }

    /// A mixed batch of `size` edits on `table`: adds, updates of live features, deletes of others.
    static func mixedBatch(_ table: FeatureTable, size: Int, random: inout SplitMix64, tag: Int) -> (adds: [FeatureEdit], updates: [FeatureEdit], deletes: [Int64]) {
        let addCount = size * 2 / 5, updateCount = size * 2 / 5, deleteCount = size - addCount - updateCount
        let adds = (0..<addCount).map { add(&random, tag: tag + $0) }
        var chosen = Set<Int64>()
        var updates: [FeatureEdit] = []
        var deletes: [Int64] = []
        while chosen.count < updateCount + deleteCount {
            let row = random.nextInt(below: table.count)
            guard !table.isDeleted(row: row) else { continue }
            let id = table.objectID(row: row)
            guard chosen.insert(id).inserted else { continue }
            if updates.count < updateCount {
                updates.append(FeatureEdit(
                    objectID: id, attributes: ["POP": .integer(Int64(random.nextInt(below: 1000)))],
                    geometry: .point(Point(x: random.nextUnit() * 1000, y: random.nextUnit() * 1000))))
            } else {
                deletes.append(id)
            }
        }
        return (adds, updates, deletes)
    }

    private func batches(_ base: FeatureTable, export: inout EditExport?) throws {
        let editable = try EditableFeatureTable(base)
        _ = editable.snapshot.spatialIndex
        var random = SplitMix64(seed: seed &+ 99)
        var samples: [UInt64] = []
        for round in 0...rounds {
            let edits = Self.mixedBatch(editable.snapshot, size: batch, random: &random, tag: round * batch)
            let timed = MonotonicClock.measure {
                editable.applyEdits(adds: edits.adds, updates: edits.updates, deletes: edits.deletes)
            }
            guard timed.result.allSucceeded else { throw ValidationError("a batch failed") }
            try export?.append(batch: round, edits: edits, results: timed.result)
            if round > 0 { samples.append(timed.nanoseconds) }
        }
        emit(ResultLine(
            workload: "edit.batch", timing: TimingSummary(nanoseconds: samples), rows: rows, result: editable.snapshot.featureCount,
            extras: [("pop_sum", "\(editable.snapshot.integerSum("POP"))")]))
    }

    private func readsDuringEdits(_ base: FeatureTable) throws {
        let editable = try EditableFeatureTable(base)
        _ = editable.snapshot.spatialIndex
        var windowRandom = SplitMix64(seed: seed &+ 7)
        let windows = (0..<1000).map { _ -> Geometry in
            let x = windowRandom.nextUnit() * 990, y = windowRandom.nextUnit() * 990
            return .envelope(Envelope(xmin: x, ymin: y, xmax: x + 10, ymax: y + 10))
        }
        let scan = QueryParameters(whereClause: W1.queries[2])
        func measureReads() throws -> (scan: [UInt64], window: [UInt64]) {
            var scans: [UInt64] = [], windowRuns: [UInt64] = []
            for _ in 0...rounds {
                let table = editable.snapshot
                scans.append(try MonotonicClock.measure { try table.queryFeatureCount(scan) }.nanoseconds)
                let timed = try MonotonicClock.measure {
                    var hits = 0
                    for window in windows { hits += try editable.snapshot.queryFeatureCount(QueryParameters(geometry: window)) }
                    return hits
                }
                windowRuns.append(timed.nanoseconds)
            }
            return (Array(scans.dropFirst()), Array(windowRuns.dropFirst()))
        }
        let alone = try measureReads()
        let stop = StopFlag()
        let writer = Thread {
            var random = SplitMix64(seed: 1234)
            var tag = 0
            while !stop.flag.load(ordering: .acquiring) {
                let edits = Self.mixedBatch(editable.snapshot, size: 100, random: &random, tag: tag)
                _ = editable.applyEdits(adds: edits.adds, updates: edits.updates, deletes: edits.deletes)
                tag += 100
            }
            stop.done.store(true, ordering: .releasing)
        }
        writer.start()
        let during = try measureReads()
        stop.flag.store(true, ordering: .releasing)
        while !stop.done.load(ordering: .acquiring) { usleep(1000) }
        for (name, aloneSamples, duringSamples) in [("edit.read_scan", alone.scan, during.scan), ("edit.read_window", alone.window, during.window)] {
            let aloneTiming = TimingSummary(nanoseconds: aloneSamples), duringTiming = TimingSummary(nanoseconds: duringSamples)
            let ratio = duringTiming.medianMilliseconds / aloneTiming.medianMilliseconds
            emit(ResultLine(
                workload: name, timing: duringTiming, rows: rows, result: editable.snapshot.featureCount,
                extras: [("alone_ms", ResultLine.milliseconds(aloneTiming.medianMilliseconds)), ("slowdown", String(format: "%.3f", ratio))]))
        }
    }

    private func compaction(_ base: FeatureTable) throws {
        var samples: [UInt64] = []
        var before = (table: 0, index: 0), after = (table: 0, index: 0)
        for round in 0...rounds {
            let editable = try EditableFeatureTable(base)
            let start = editable.snapshot
            before = (start.byteCount, start.spatialIndex.byteCount)
            let ids = start.objectIDs
            let half = stride(from: 0, to: ids.count, by: 2).map { ids[$0] }
            let timed = try MonotonicClock.measure { () throws -> Int in
                editable.deleteFeatures(objectIDs: half)
                try editable.compact()
                return editable.snapshot.featureCount
            }
            let compacted = editable.snapshot
            after = (compacted.byteCount, compacted.spatialIndex.byteCount)
            if round > 0 { samples.append(timed.nanoseconds) }
        }
        let ratio = Double(after.table + after.index) / Double(before.table + before.index)
        emit(ResultLine(
            workload: "edit.compaction", timing: TimingSummary(nanoseconds: samples), rows: rows, result: rows - rows / 2 - rows % 2,
            extras: [
                ("table_bytes_before", "\(before.table)"), ("index_bytes_before", "\(before.index)"),
                ("table_bytes_after", "\(after.table)"), ("index_bytes_after", "\(after.index)"),
                ("ratio", String(format: "%.3f", ratio)),
            ]))
    }
}

/// Flags shared with the writer thread.
final class StopFlag: Sendable {
    let flag = Atomic<Bool>(false)
    let done = Atomic<Bool>(false)
}
