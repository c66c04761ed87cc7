import SieveTestSupport
import Foundation
import SieveColumns
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveSQL
import Testing

/// The statistics of the Natural Earth countries per continent against SQLite's, over the
/// same rows inserted into an in-memory table; and the errors and parsing helpers.
@Suite("Statistics against SQLite, errors and parsing")
struct StatisticsDifferentialTests {
    static func relativelyClose(_ a: Double, _ b: Double, tolerance: Double = 1e-9) -> Bool {
        abs(a - b) <= tolerance * max(1, abs(a), abs(b))
    }

    @Test func perContinentMatchesSQLite() throws {
        let table = try FeatureTable.load(contentsOf: fixtureURL("naturalearth_lowres.geojson"))
        let db = try SQLiteTestDatabase()
        try db.run("CREATE TABLE countries (fid INTEGER, pop_est REAL, continent TEXT, name TEXT, gdp_md_est INTEGER)")
        var inserts: [[SQLiteTestCell]] = []
        func cell(_ value: ScalarValue) -> SQLiteTestCell {
            switch value {
            case .integer(let x): .integer(x)
            case .double(let x): .real(x)
            case .string(let x): .text(x)
            default: .null
            }
        }
        for row in 0..<table.count {
            inserts.append(["fid", "pop_est", "continent", "name", "gdp_md_est"].map { cell(table.value(row: row, field: $0)) })
        }
        try db.run("INSERT INTO countries VALUES (?, ?, ?, ?, ?)", parameters: inserts)
        let expected = try db.run(
            """
            SELECT continent, count(fid), sum(gdp_md_est), sum(pop_est), min(pop_est), max(pop_est), avg(pop_est),
                   min(name), max(name),
                   (sum(pop_est * pop_est) - sum(pop_est) * sum(pop_est) / count(pop_est)) / (count(pop_est) - 1)
            FROM countries GROUP BY continent ORDER BY continent
            """)
        #expect(expected.count == 8)

        let result = try table.queryStatistics(StatisticsQueryParameters(
            statistics: try StatisticDefinition.list(
                "count:fid:n,sum:gdp_md_est:gdp,sum:pop_est:pop,min:pop_est:lo,max:pop_est:hi,avg:pop_est:mean,"
                    + "min:name:first,max:name:last,var:pop_est:v,stddev:pop_est:sd"),
            groupByFields: ["continent"]))
        #expect(result.rows.count == expected.count)
        for (ours, theirs) in zip(result.rows, expected) {
            #expect(cell(ours[0]) == theirs[0])
            #expect(cell(ours[1]) == theirs[1])
            #expect(cell(ours[2]) == theirs[2])
            for column in [3, 6] {
                guard case .real(let x) = theirs[column], let y = ours[column].double else {
                    Issue.record("\(ours[0]) column \(column): \(ours[column]) vs \(theirs[column])")
                    continue
                }
                #expect(Self.relativelyClose(x, y), "\(ours[0]) column \(column): \(y) vs \(x)")
            }
            #expect(cell(ours[4]) == theirs[4] && cell(ours[5]) == theirs[5])
            #expect(cell(ours[7]) == theirs[7] && cell(ours[8]) == theirs[8])
            // Variance: SQLite's one-pass formula loses digits to cancellation, so a looser
            // tolerance; a continent of one country has none (NULL) in both.
            switch theirs[9] {
            case .real(let variance):
                let computed = try #require(ours[9].double)
                let deviation = try #require(ours[10].double)
                #expect(Self.relativelyClose(variance, computed, tolerance: 1e-6), "\(computed) vs \(variance)")
                #expect(Self.relativelyClose(variance.squareRoot(), deviation, tolerance: 1e-6), "\(deviation)")
            default:
                #expect(ours[9] == .null && ours[10] == .null, "\(ours[0]): one value has no sample variance")
            }
        }
        // Percentiles of pop_est in Oceania, worked out from its sorted values.
        let oceania = try db.run("SELECT pop_est FROM countries WHERE continent = 'Oceania' ORDER BY pop_est").compactMap { row -> Double? in
            if case .real(let x) = row[0] { return x }
            return nil
        }
        let p = try table.queryStatistics(StatisticsQueryParameters(
            query: QueryParameters(whereClause: "continent = 'Oceania'"),
            statistics: try StatisticDefinition.list("percentile_cont(0.5):pop_est:m,percentile_disc(0.5):pop_est:d")))
        let n = oceania.count
        #expect(n == 7)
        // n = 7: the median is the 4th value for both; cont at 3.0 exactly.
        #expect(p.rows == [[.double(oceania[3]), .double(oceania[3])]])
    }

    @Test func errorsSayWhatAndWhere() throws {
        let table = try StatisticsTests.small()
        func message(_ statistics: [StatisticDefinition], groupBy: [String] = [], having: String? = nil, orderBy: [SortField] = []) -> String? {
            let error = featureTableError {
                _ = try table.queryStatistics(StatisticsQueryParameters(
                    statistics: statistics, groupByFields: groupBy, having: having, orderBy: orderBy))
            }
            #expect(error?.kind == .invalidQuery)
            return error?.message
        }
        let count = StatisticDefinition(.count, onField: "OBJECTID", outputAlias: "k")
        #expect(message([StatisticDefinition(.count, onField: "nope")]) == #"unknown field "nope" in outStatistics[0]"#)
        #expect(message([StatisticDefinition(.sum, onField: "name")]) == #"outStatistics[0] (sum of "name"): sum needs a numeric field; "name" is String"#)
        #expect(message([StatisticDefinition(.avg, onField: "d")]) == #"outStatistics[0] (avg of "d"): avg needs a numeric field; "d" is Date"#)
        #expect(message([StatisticDefinition(.percentileCont, onField: "x", percentile: 1.5)]) == #"outStatistics[0] (percentile_cont of "x"): the percentile must be in 0…1, not 1.5"#)
        #expect(message([StatisticDefinition(.percentileDisc, onField: "x")]) == #"outStatistics[0] (percentile_disc of "x"): percentile_disc needs a percentile in 0…1"#)
        #expect(message([StatisticDefinition(.percentileDisc, onField: "name", percentile: 0.5)])?.contains("needs a numeric or date field") == true)
        #expect(message([count, StatisticDefinition(.sum, onField: "n", outputAlias: "K")]) == #"outStatistics[1] (sum of "n"): output name "K" is already the output name of another statistic "k""#)
        #expect(message([StatisticDefinition(.count, onField: "n", outputAlias: "CAT")], groupBy: ["cat"]) == #"outStatistics[0] (count of "n"): output name "CAT" is already the group-by field "cat""#)
        #expect(message([StatisticDefinition(.sum, onField: "n"), StatisticDefinition(.sum, onField: "n")])?.contains(#""SUM_n" is already"#) == true)
        #expect(message([]) == "a statistics query needs at least one statistic")
        #expect(message([count], groupBy: ["cat", "CAT"]) == #""cat" is named twice in groupByFieldsForStatistics"#)
        #expect(message([count], groupBy: ["cat"], having: "n > 1") == #"having: "n" at line 1, column 1 is neither a group-by field nor an output statistic; use it inside an aggregate such as SUM(n)"#)
        #expect(message([count], groupBy: ["cat"], having: "SUM(n + 1) > 1") == "having: SUM(…) at line 1, column 1 must have one field name as its argument")
        #expect(message([count], groupBy: ["cat"], having: "SUM(name) > 1") == #"having: SUM(name): sum needs a numeric field; "name" is String"#)
        #expect(message([count], groupBy: ["cat"], having: "COUNT(OBJECTID) >")?.hasPrefix(#"having "COUNT(OBJECTID) >": "#) == true)
        #expect(message([count], groupBy: ["cat"], having: "k = 'text'")?.hasPrefix(#"having "k = 'text'": "#) == true)
        #expect(message([count], groupBy: ["cat"], orderBy: [SortField("n")]) == #"orderByFields names "n", which is not a group-by field or an output statistic name"#)
    }

    @Test func commandLineList() throws {
        let list = try StatisticDefinition.list(" count:fid:n, avg:pop_est:avgpop ,percentile_cont(0.9):pop:p90,PERCENTILE_DISC(0.25 desc):gdp,var:x")
        #expect(list == [
            StatisticDefinition(.count, onField: "fid", outputAlias: "n"), StatisticDefinition(.avg, onField: "pop_est", outputAlias: "avgpop"),
            StatisticDefinition(.percentileCont, onField: "pop", outputAlias: "p90", percentile: 0.9),
            StatisticDefinition(.percentileDisc, onField: "gdp", percentile: 0.25, percentileDescending: true),
            StatisticDefinition(.var, onField: "x"),
        ])
        #expect(list.map(\.description) == ["count:fid:n", "avg:pop_est:avgpop", "percentile_cont(0.9):pop:p90", "percentile_disc(0.25 DESC):gdp", "var:x"])
        func message(_ text: String) -> String? {
            featureTableError { _ = try StatisticDefinition.list(text) }?.message
        }
        #expect(message("") == #"no statistic in """#)
        #expect(message("count:a,,sum:b") == #"statistic 2 is empty in "count:a,,sum:b""#)
        #expect(message("count") == #"statistic 1 ("count") must be type:field or type:field:alias"#)
        #expect(message("count:a:b:c") == #"statistic 1 ("count:a:b:c") must be type:field or type:field:alias"#)
        #expect(message("sum:a,median:b")?.hasPrefix(#"statistic 2 ("median:b"): unknown statistic type "median"; expected one of count, sum"#) == true)
        #expect(message("sum:") == #"statistic 1 ("sum:"): missing field name"#)
        #expect(message("percentile_cont:x") == #"statistic 1 ("percentile_cont:x"): percentile_cont needs a fraction, e.g. percentile_cont(0.5)"#)
        #expect(message("percentile_cont(high):x") == #"statistic 1 ("percentile_cont(high):x"): expected a number (and optionally ASC or DESC) in parentheses, not "high""#)
        #expect(message("percentile_cont(2):x") == #"statistic 1 ("percentile_cont(2):x"): the percentile must be in 0…1, not 2.0"#)
        #expect(message("percentile_cont(0.5 UP):x") == #"statistic 1 ("percentile_cont(0.5 UP):x"): expected ASC or DESC, not "UP""#)
        #expect(message("percentile_cont(0.5:x") == #"statistic 1 ("percentile_cont(0.5:x"): missing ')' after the percentile"#)
        #expect(message("sum(0.5):x") == #"statistic 1 ("sum(0.5):x"): only percentile_cont and percentile_disc take a parameter"#)
    }

    @Test func restJSONList() throws {
        let list = try StatisticDefinition.list(outStatisticsJSON: """
            [{"statisticType":"sum","onStatisticField":"POP","outStatisticFieldName":"total"},
             {"statisticType":"Count","onStatisticField":"fid"},
             {"statisticType":"percentile_cont","onStatisticField":"POP","outStatisticFieldName":"med",
              "statisticParameters":{"value":0.5,"orderBy":"DESC"}}]
            """)
        #expect(list == [
            StatisticDefinition(.sum, onField: "POP", outputAlias: "total"), StatisticDefinition(.count, onField: "fid"),
            StatisticDefinition(.percentileCont, onField: "POP", outputAlias: "med", percentile: 0.5, percentileDescending: true),
        ])
        func message(_ text: String) -> String? {
            featureTableError { _ = try StatisticDefinition.list(outStatisticsJSON: text) }?.message
        }
        #expect(message("[{")?.hasPrefix("outStatistics is not JSON: ") == true)
        #expect(message(#"{"a":1}"#) == "outStatistics must be a JSON array, not an object")
        #expect(message("[]") == "outStatistics is empty")
        #expect(message("[1]") == "outStatistics[0] must be an object, not a number")
        #expect(message(#"[{"onStatisticField":"a"}]"#) == "outStatistics[0] has no statisticType")
        #expect(message(#"[{"statisticType":"sum","onStatisticField":3}]"#) == "outStatistics[0].onStatisticField must be a string, not a number")
        #expect(message(#"[{"statisticType":"mode","onStatisticField":"a"}]"#)?.hasPrefix(#"outStatistics[0].statisticType "mode" is not one of count, sum"#) == true)
        #expect(message(#"[{"statisticType":"sum","onStatisticField":" "}]"#) == "outStatistics[0].onStatisticField is empty")
        #expect(message(#"[{"statisticType":"sum","onStatisticField":"a"},{"statisticType":"percentile_disc","onStatisticField":"a"}]"#)
            == #"outStatistics[1] (percentile_disc) needs statisticParameters {"value": p}"#)
        #expect(message(#"[{"statisticType":"percentile_disc","onStatisticField":"a","statisticParameters":{"value":"x"}}]"#)
            == "outStatistics[0].statisticParameters.value must be a number")
        #expect(message(#"[{"statisticType":"percentile_disc","onStatisticField":"a","statisticParameters":{"value":-0.1}}]"#)
            == "outStatistics[0]: the percentile must be in 0…1, not -0.1")
        #expect(message(#"[{"statisticType":"percentile_disc","onStatisticField":"a","statisticParameters":{"value":0.1,"orderBy":"UP"}}]"#)
            == #"outStatistics[0].statisticParameters.orderBy must be "ASC" or "DESC""#)
    }
}
