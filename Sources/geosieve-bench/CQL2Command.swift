import ArgumentParser
import Foundation
import GeoSieve

/// `geosieve-bench cql2`: the cost of reading a filter — parse plus bind to the w1 schema — in
/// the ArcGIS where clause, in cql2-text and in cql2-json, for the four w1 queries written in
/// each language.
struct CQL2Command: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cql2",
        abstract: "Parse + bind of the w1 filters as ArcGIS SQL, cql2-text and cql2-json.",
        discussion: """
            Prints one JSON line per query and language ("cql2.q1.sql", "cql2.q1.text", \
            "cql2.q1.json", …): {"workload":…,"engine":"geosieve","median_ms":…,"min_ms":…,\
            "max_ms":…,"queries":N,"result":…,"per_filter_us":…,"ratio_to_sql":…}: the time to \
            parse and bind the filter N times, per filter, and against the SQL form. The result \
            is the count of the bound filter over a generated w1 table, the same in the three \
            languages (checked before timing).
            """
    )

    @Option(help: "Parses + binds per round.")
    var iterations: Int = 20_000

    @Option(help: "Measured rounds, after one warm-up round.")
    var rounds: Int = 5

    @Option(help: "Rows of the w1 table the answers are checked on.")
    var rows: Int = 100_000

    func validate() throws {
        guard iterations >= 1, rounds >= 1, rows >= 1 else { throw ValidationError("--iterations, --rounds and --rows must be at least 1") }
    }

    /// One filter in the three languages.
    struct Forms {
        let sql: String
        let text: String
        let json: String
    }

    func run() throws {
        let table = try W1.makeTable(W1.generate(count: rows, seed: 42))
        let schema = table.schema
        var forms: [Forms] = []
        for sql in W1.queries {
            // The w1 clauses are also CQL2 text (UPPER is a function of both languages); the JSON
            // form is written from the parsed text.
            let json = try CQL2JSON.write(try CQL2Text.parse(sql))
            forms.append(Forms(sql: sql, text: sql, json: json))
        }
        for (number, form) in forms.enumerated() {
            let sqlCount = try CompiledWhereClause(form.sql, schema: schema).count(in: table.columns, rowCount: table.count)
            var times: [String: TimingSummary] = [:]
            for language in ["sql", "text", "json"] {
                let bind: () throws -> CompiledWhereClause
                switch language {
                case "sql": bind = { try CompiledWhereClause(form.sql, schema: schema) }
                case "text": bind = { try CQL2Filter(form.text, encoding: .text).lowered(geometryPropertyNames: []).compile(schema: schema) }
                default: bind = { try CQL2Filter(form.json, encoding: .json).lowered(geometryPropertyNames: []).compile(schema: schema) }
                }
                let count = try bind().count(in: table.columns, rowCount: table.count)
                guard count == sqlCount else {
                    throw ValidationError("query \(number + 1): \(language) counts \(count), SQL \(sqlCount)")
                }
                var samples: [UInt64] = []
                for round in 0...rounds {
                    let timed = try MonotonicClock.measure { () throws -> Int in
                        var kept = 0
                        for _ in 0..<iterations { kept &+= try bind().sql.utf8.count }
                        return kept
                    }
                    if round > 0 { samples.append(timed.nanoseconds) }
                }
                times[language] = TimingSummary(nanoseconds: samples)
            }
            let sqlMedian = times["sql"]?.medianMilliseconds ?? 1
            for language in ["sql", "text", "json"] {
                guard let timing = times[language] else { continue }
                let perFilter = timing.medianMilliseconds * 1000 / Double(iterations)
                emit(ResultLine(
                    workload: "cql2.q\(number + 1).\(language)", timing: timing, rows: iterations, result: sqlCount,
                    sizeName: "queries",
                    extras: [
                        ("per_filter_us", ResultLine.milliseconds(perFilter)),
                        ("ratio_to_sql", ResultLine.milliseconds(timing.medianMilliseconds / sqlMedian)),
                    ]))
            }
        }
    }
}
