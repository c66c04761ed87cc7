// Needs the RemoteSources trait (on by default): PostGIS.
#if RemoteSources
import ArgumentParser
import Foundation
import GeoSieve
import SievePostGIS

/// `geosieve-bench postgis --url postgresql://…`: when does pushing a query down to PostGIS beat
/// reading the table into memory and querying it there? For each size, the w1 table with a
/// point per row is written to the server (as `bench_w1_N`), then timed: reading it whole
/// (`readTable`), a query on the table in memory, and the same query pushed down
/// (`queryFeatureCount`, one round trip).
struct PostGISCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "postgis",
        abstract: "Push-down against load-into-memory on a PostGIS server, over table sizes.",
        discussion: """
            Prints JSON lines: {"workload":"pg.N.export"…} the export (once), "pg.N.load" reading \
            the whole table into memory, and per query Q (w1.q1, w1.q2 and a 1% box, "box"): \
            "pg.N.Q.memory" the query on the loaded table and "pg.N.Q.pushdown" the query in \
            the database; result is the count, the same both ways (checked). Loading then \
            querying once costs load + memory; pushing down costs pushdown.
            """
    )

    @Option(help: "The server: postgresql://USER@HOST:PORT/DATABASE (the tables are created there).")
    var url: String

    @Option(help: "Table sizes (repeatable).")
    var rows: [Int] = [1_000, 10_000, 100_000]

    @Option(help: "Measured rounds, after one warm-up round.")
    var rounds: Int = 3

    func validate() throws {
        guard rounds >= 1, !rows.isEmpty, rows.allSatisfy({ $0 >= 1 }) else { throw ValidationError("--rows and --rounds must be at least 1") }
    }

    func run() async throws {
        for count in rows {
            let table = try Self.makeTable(count: count)
            var options = try PostGISConnectionOptions(url: url + (url.contains("?") ? "&" : "?") + "table=bench_w1_\(count)")
            options.table = "bench_w1_\(count)"
            let target = options
            let exportStart = MonotonicClock.nanoseconds()
            let written = try await PostGISFeatureSource.write(table, to: target, replace: true)
            await written.close()
            let export = MonotonicClock.nanoseconds() - exportStart
            emit(ResultLine(workload: "pg.\(count).export", timing: TimingSummary(nanoseconds: [export]), rows: count, result: count))
            let queries: [(String, QueryParameters)] = [
                ("w1.q1", QueryParameters(whereClause: W1.queries[0])),
                ("w1.q2", QueryParameters(whereClause: W1.queries[1])),
                ("box", QueryParameters(geometry: .envelope(Envelope(xmin: 0, ymin: 0, xmax: 10, ymax: 10)))),
            ]
            let rounds = rounds
            try await PostGISFeatureSource.using(target) { source in
                try await Self.measure(source: source, count: count, queries: queries, rounds: rounds)
            }
        }
    }

    private static func measure(source: PostGISFeatureSource, count: Int, queries: [(String, QueryParameters)], rounds: Int) async throws {
        var loadSamples: [UInt64] = []
        var loaded = try await source.readTable()
        for _ in 0..<rounds {
            let start = MonotonicClock.nanoseconds()
            loaded = try await source.readTable()
            loadSamples.append(MonotonicClock.nanoseconds() - start)
        }
        emit(ResultLine(workload: "pg.\(count).load", timing: TimingSummary(nanoseconds: loadSamples), rows: count, result: loaded.count))
        for (name, query) in queries {
            let expected = try loaded.queryFeatureCount(query)
            guard try await source.queryFeatureCount(query) == expected else {
                throw ValidationError("\(name): PostGIS and memory count differently")
            }
            var memory: [UInt64] = [], pushdown: [UInt64] = []
            for _ in 0..<rounds {
                let start = MonotonicClock.nanoseconds()
                _ = try loaded.queryFeatureCount(query)
                memory.append(MonotonicClock.nanoseconds() - start)
                let begin = MonotonicClock.nanoseconds()
                _ = try await source.queryFeatureCount(query)
                pushdown.append(MonotonicClock.nanoseconds() - begin)
            }
            emit(ResultLine(workload: "pg.\(count).\(name).memory", timing: TimingSummary(nanoseconds: memory), rows: count, result: expected))
            emit(ResultLine(workload: "pg.\(count).\(name).pushdown", timing: TimingSummary(nanoseconds: pushdown), rows: count, result: expected))
        }
    }

    /// The w1 table of `count` rows with a point per row, uniform in [-180, 180] × [-90, 90].
    static func makeTable(count: Int) throws -> FeatureTable {
        let attributes = try W1.makeTable(W1.generate(count: count, seed: 42))
        var random = SplitMix64(seed: 7)
        var points: [Geometry?] = []
        points.reserveCapacity(count)
        for _ in 0..<count {
            let x = Double(random.next() >> 11) / Double(1 << 53) * 360 - 180
            let y = Double(random.next() >> 11) / Double(1 << 53) * 180 - 90
            points.append(.point(Point(x: x, y: y)))
        }
        let schema = try Schema(fields: attributes.schema.fields, objectIdFieldName: "OBJECTID", geometryType: .point)
        return try FeatureTable(schema: schema, columns: attributes.columns, geometries: points)
    }
}
#endif
