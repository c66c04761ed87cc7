import ArgumentParser
import Foundation
import GeoSieve

/// `geosieve-bench where`: workload w1, the where-clause scan. Generates the table, times its
/// load, then times each of the four queries (compile + count) over several rounds after one
/// warm-up round.
struct WhereCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "where",
        abstract: "Where-clause workload w1: four count queries over a generated table.",
        discussion: """
            Prints one JSON line for the table load ("w1.load") and one per query ("w1.q1" … \
            "w1.q4"): {"workload":…,"engine":"geosieve","median_ms":…,"min_ms":…,"max_ms":…,\
            "rows":…,"result":…}, result being the count. A query's time is compiling the where \
            clause against the schema plus counting the matching rows; the load is building the \
            FeatureTable (typed columns, validity bitmaps, dictionary encoding, object-ID index) \
            from the generated values.
            """
    )

    @Option(help: "Rows to generate.")
    var rows: Int = 1_000_000

    @Option(help: "Seed of the generator (same seed, same rows).")
    var seed: UInt64 = 42

    @Option(help: "Measured rounds per query, after one warm-up round.")
    var rounds: Int = 5

    @Option(
        name: .customLong("load-rounds"),
        help: ArgumentHelp(
            "Measured table loads (default: --rounds); fewer keeps profiles of many query rounds clean.",
            valueName: "N"))
    var loadRounds: Int?

    @Option(
        name: .customLong("emit-data"),
        help: ArgumentHelp(
            "Before measuring, write DIR/w1.csv and DIR/w1_queries.sql for other engines.",
            valueName: "DIR"))
    var emitData: String?

    @Option(
        name: .customLong("query"),
        help: ArgumentHelp(
            "Run only this query (1…4; repeatable), e.g. to profile one clause.", valueName: "N"))
    var onlyQueries: [Int] = []

    func validate() throws {
        guard rows >= 1 else { throw ValidationError("--rows must be at least 1") }
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1") }
        guard (loadRounds ?? 1) >= 1 else { throw ValidationError("--load-rounds must be at least 1") }
        for query in onlyQueries where !(1...W1.queries.count).contains(query) {
            throw ValidationError("--query must be between 1 and \(W1.queries.count)")
        }
    }

    func run() throws {
        let generation = MonotonicClock.measure { W1.generate(count: rows, seed: seed) }
        let data = generation.result
        note("generated \(rows) rows in \(ResultLine.milliseconds(Double(generation.nanoseconds) / 1e6)) ms")

        if let emitData {
            let directory = URL(fileURLWithPath: emitData, isDirectory: true)
            try W1.export(data, to: directory)
            note("wrote \(directory.appendingPathComponent("w1.csv").path) and w1_queries.sql")
        }

        // Load: one warm-up build, then `rounds` timed builds; the last table is queried.
        var table = try W1.makeTable(data)
        var loadSamples: [UInt64] = []
        for _ in 0..<(loadRounds ?? rounds) {
            let load = try MonotonicClock.measure { () throws(FeatureTableError) in try W1.makeTable(data) }
            table = load.result
            loadSamples.append(load.nanoseconds)
        }
        emit(ResultLine(workload: "w1.load", timing: TimingSummary(nanoseconds: loadSamples), rows: table.count, result: table.count))

        let selected = onlyQueries.isEmpty ? Array(1...W1.queries.count) : onlyQueries
        // Warm-up round (also fixes each query's answer), then the measured rounds, interleaved
        // so that machine noise spreads over all queries alike.
        var answers: [Int: Int] = [:]
        for query in selected {
            answers[query] = try runQuery(query, on: table)
        }
        var samples: [Int: [UInt64]] = [:]
        for _ in 0..<rounds {
            for query in selected {
                let timed = try MonotonicClock.measure { () throws(WhereClauseError) in try runQuery(query, on: table) }
                guard timed.result == answers[query] else {
                    throw ValidationError("query \(query) answered \(timed.result), then \(answers[query] ?? -1)")
                }
                samples[query, default: []].append(timed.nanoseconds)
            }
        }
        for query in selected {
            emit(ResultLine(
                workload: "w1.q\(query)", timing: TimingSummary(nanoseconds: samples[query] ?? []),
                rows: table.count, result: answers[query] ?? 0))
        }
    }

    /// Compiles query `number` (1-based) against the table's schema and counts the matching rows.
    private func runQuery(_ number: Int, on table: FeatureTable) throws(WhereClauseError) -> Int {
        let clause = try CompiledWhereClause(W1.queries[number - 1], schema: table.schema)
        return clause.count(in: table.columns, rowCount: table.count)
    }
}
