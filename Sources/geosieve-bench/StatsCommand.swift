import ArgumentParser
import Foundation
import GeoSieve

/// `geosieve-bench stats`: statistics queries (ArcGIS `outStatistics`) over a generated point
/// table with a 10-value string category, an integer and a double field.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Statistics workload: grouped and ungrouped count/sum/avg/stddev.",
        discussion: """
            Builds a --rows point table (OBJECTID; CATEGORY, one of 10 strings "cat0" … "cat9"; \
            AMOUNT, an integer in 0 ..< 1,000,000; SCORE, a normal double with mean 1,000 and \
            standard deviation 100; a uniform point) and prints one JSON line per query: \
            "stats.grouped" (count(OBJECTID), sum(AMOUNT), avg(SCORE), stddev(SCORE) grouped by \
            CATEGORY) and "stats.all" (the same without grouping); result = output rows, with \
            "sum_amount" (the sum of AMOUNT over the groups, to check peers) and \
            "mrows_per_s" (millions of rows per second). With --emit-data DIR, first writes DIR/stats.csv (header \
            OBJECTID,CATEGORY,AMOUNT,SCORE) for the peer engines.
            """
    )

    @Option(help: "Rows of the table.")
    var rows: Int = 1_000_000

    @Option(help: "Seed of the generator.")
    var seed: UInt64 = 42

    @Option(help: "Measured rounds per query, after one warm-up round.")
    var rounds: Int = 7

    @Option(
        name: .customLong("emit-data"),
        help: ArgumentHelp("Before measuring, write DIR/stats.csv for other engines.", valueName: "DIR"))
    var emitData: String?

    func validate() throws {
        guard rows >= 1, rounds >= 1 else { throw ValidationError("--rows and --rounds must be at least 1") }
    }

    /// The generated columns.
    struct Data {
        var categories: [String] = []
        var amounts: [Int64] = []
        var scores: [Double] = []
        var xs: [Double] = []
        var ys: [Double] = []
    }

    /// `count` rows from `seed`: each column from its own split stream.
    static func generate(count: Int, seed: UInt64) -> Data {
        var random = SplitMix64(seed: seed)
        var categoryStream = random.split(), amountStream = random.split(), scoreStream = random.split()
        var pointStream = random.split()
        let names = (0..<10).map { "cat\($0)" }
        var data = Data()
        data.categories = (0..<count).map { _ in names[categoryStream.nextInt(below: names.count)] }
        data.amounts = (0..<count).map { _ in Int64(amountStream.nextInt(below: 1_000_000)) }
        data.scores = (0..<count).map { _ in 1000 + 100 * scoreStream.nextNormal() }
        data.xs = (0..<count).map { _ in pointStream.nextUnit() * 1000 }
        data.ys = (0..<count).map { _ in pointStream.nextUnit() * 1000 }
        return data
    }

    /// The table of `data`.
    static func table(_ data: Data) throws -> FeatureTable {
        let schema = try Schema(
            fields: [
                Field(name: "OBJECTID", type: .oid), Field(name: "CATEGORY", type: .string), Field(name: "AMOUNT", type: .integer),
                Field(name: "SCORE", type: .double),
            ], objectIdFieldName: "OBJECTID", geometryType: .point, spatialReference: SpatialReference(wkid: 3857))
        var geometries = GeometryColumn(storage: .points)
        geometries.reserveCapacity(data.xs.count)
        for (x, y) in zip(data.xs, data.ys) { geometries.appendPoint(x: x, y: y) }
        return try FeatureTable(
            schema: schema,
            columns: [
                .integer(Int64Column(values: (1...Int64(data.amounts.count)).map { $0 })),
                .string(StringColumn(data.categories.map { Optional($0) })),
                .integer(Int64Column(values: data.amounts)), .double(DoubleColumn(values: data.scores)),
            ],
            geometryColumn: geometries)
    }

    /// Writes DIR/stats.csv.
    static func export(_ data: Data, to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var file = try BufferedFile(directory.appendingPathComponent("stats.csv"))
        file.buffer.append(contentsOf: "OBJECTID,CATEGORY,AMOUNT,SCORE\n".utf8)
        for i in data.amounts.indices {
            // Swift's shortest round-trip text: the peers read back the same doubles.
            file.buffer.append(contentsOf: "\(i + 1),\(data.categories[i]),\(data.amounts[i]),\(data.scores[i])\n".utf8)
            try file.flushIfFull()
        }
        _ = try file.close()
    }

    func run() throws {
        let data = Self.generate(count: rows, seed: seed)
        if let emitData {
            let directory = URL(fileURLWithPath: emitData, isDirectory: true)
            try Self.export(data, to: directory)
            note("wrote \(directory.appendingPathComponent("stats.csv").path)")
        }
        let table = try Self.table(data)
        note("built \(rows) rows")
        let statistics = try StatisticDefinition.list("count:OBJECTID:n,sum:AMOUNT:total,avg:SCORE:mean,stddev:SCORE:sd")
        for (workload, groups) in [("stats.grouped", ["CATEGORY"]), ("stats.all", [])] {
            let parameters = StatisticsQueryParameters(statistics: statistics, groupByFields: groups)
            var samples: [UInt64] = []
            var result = try table.queryStatistics(parameters)
            for _ in 0..<rounds {
                let timed = try MonotonicClock.measure { try table.queryStatistics(parameters) }
                result = timed.result
                samples.append(timed.nanoseconds)
            }
            let position = groups.count + 1
            var sum: Int64 = 0
            for row in result.rows {
                if case .integer(let value) = row[position] { sum += value }
            }
            let timing = TimingSummary(nanoseconds: samples)
            emit(ResultLine(
                workload: workload, timing: timing, rows: rows, result: result.rows.count,
                extras: [("sum_amount", "\(sum)"), ("mrows_per_s", String(format: "%.1f", Double(rows) / timing.medianMilliseconds / 1000))]))
        }
    }
}
