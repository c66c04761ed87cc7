import Foundation
import SieveColumns
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveSQL
import Testing
import SieveTestSupport

/// Statistics over a six-row table whose every expected value is worked out by hand in the
/// comments (the rows are listed in ``small()``).
@Suite("Statistics queries")
struct StatisticsTests {
    /// OBJECTID | cat  | n    | x    | d    | name
    /// 1        | a    | 1    | 1.5  | 1000 | pear
    /// 2        | b    | 10   | NULL | 3000 | apple
    /// 3        | a    | 3    | 2.5  | 2000 | zoo
    /// 4        | NULL | 7    | 4.0  | NULL | NULL
    /// 5        | a    | NULL | 5.0  | 500  | Banana
    /// 6        | b    | 20   | 6.0  | 4000 | kiwi
    static func small() throws -> FeatureTable {
        let schema = try Schema(
            fields: [
                Field(name: "OBJECTID", type: .oid), Field(name: "cat", type: .string), Field(name: "n", type: .integer),
                Field(name: "x", type: .double), Field(name: "d", type: .date), Field(name: "name", type: .string),
            ], objectIdFieldName: "OBJECTID")
        func validity(_ valid: [Bool]) -> ValidityBitmap {
            var bitmap = ValidityBitmap(count: valid.count, allValid: true)
            for (i, v) in valid.enumerated() where !v { bitmap.set(i, valid: false) }
            return bitmap
        }
        return try FeatureTable(
            schema: schema,
            columns: [
                .integer(Int64Column(values: [1, 2, 3, 4, 5, 6])),
                .string(StringColumn(["a", "b", "a", nil, "a", "b"])),
                .integer(Int64Column(values: [1, 10, 3, 7, 0, 20], validity: validity([true, true, true, true, false, true]))),
                .double(DoubleColumn(values: [1.5, 0, 2.5, 4.0, 5.0, 6.0], validity: validity([true, false, true, true, true, true]))),
                .date(Int64Column(values: [1000, 3000, 2000, 0, 500, 4000], validity: validity([true, true, true, false, true, true]))),
                .string(StringColumn(["pear", "apple", "zoo", nil, "Banana", "kiwi"])),
            ])
    }

    static func run(_ table: FeatureTable, _ statistics: String, groupBy: [String] = [], where clause: String = "1=1",
                    having: String? = nil, orderBy: String = "") throws -> StatisticsResult {
        try table.queryStatistics(StatisticsQueryParameters(
            query: QueryParameters(whereClause: clause), statistics: try StatisticDefinition.list(statistics),
            groupByFields: groupBy, having: having, orderBy: try SortField.list(orderBy)))
    }

    @Test func groupedStatisticsByHand() throws {
        let result = try Self.run(
            try Self.small(),
            "count:OBJECTID:rows,count:n:cn,sum:n:sn,avg:n:an,var:n:vn,stddev:n:sdn,sum:x:sx,avg:x:ax,var:x:vx,min:name:lo,max:name:hi,min:d:d0,max:d:d1",
            groupBy: ["CAT"])
        #expect(result.fields.map(\.name) == ["cat", "rows", "cn", "sn", "an", "vn", "sdn", "sx", "ax", "vx", "lo", "hi", "d0", "d1"])
        #expect(result.fields.map(\.type) == [
            .string, .integer, .integer, .bigInteger, .double, .double, .double, .double, .double, .double, .string, .string, .date, .date,
        ])
        // NULL group (row 4), then a (rows 1, 3, 5), then b (rows 2, 6).
        #expect(result.rows.count == 3)
        #expect(result.rows[0] == [
            .null, .integer(1), .integer(1), .integer(7), .double(7), .null, .null, .double(4), .double(4), .null, .null, .null, .null, .null,
        ])
        // a: n = {1, 3}: sum 4, mean 2, var ((−1)² + 1²)/1 = 2; x = {1.5, 2.5, 5}: sum 9, mean 3,
        // var (2.25 + 0.25 + 4)/2 = 3.25; names pear, zoo, Banana: "B" (66) sorts before "p".
        #expect(result.rows[1] == [
            .string("a"), .integer(3), .integer(2), .integer(4), .double(2), .double(2), .double(2.0.squareRoot()), .double(9), .double(3),
            .double(3.25), .string("Banana"), .string("zoo"), .date(500), .date(2000),
        ])
        // b: n = {10, 20}: var (25 + 25)/1 = 50; x = {6}: one value, so var and stddev NULL.
        #expect(result.rows[2] == [
            .string("b"), .integer(2), .integer(2), .integer(30), .double(15), .double(50), .double(50.0.squareRoot()), .double(6), .double(6),
            .null, .string("apple"), .string("kiwi"), .date(3000), .date(4000),
        ])
    }

    @Test func withoutGroupsOneRowEvenOverNoRows() throws {
        let table = try Self.small()
        let all = try Self.run(table, "count:OBJECTID,sum:n,min:x,max:x")
        #expect(all.fields.map(\.name) == ["COUNT_OBJECTID", "SUM_n", "MIN_x", "MAX_x"])
        #expect(all.rows == [[.integer(6), .integer(41), .double(1.5), .double(6)]])
        let none = try Self.run(table, "count:OBJECTID,sum:n,avg:x,min:name,stddev:x", where: "1=0")
        #expect(none.rows == [[.integer(0), .null, .null, .null, .null]])
        let grouped = try Self.run(table, "count:OBJECTID", groupBy: ["cat"], where: "1=0")
        #expect(grouped.rows.isEmpty)
    }

    /// x over all rows: 1.5, 2.5, 4, 5, 6 (n = 5); n: 1, 3, 7, 10, 20.
    @Test func percentilesByHand() throws {
        let table = try Self.small()
        let result = try Self.run(
            table,
            "percentile_cont(0.5):x:c50,percentile_cont(0.9):x:c90,percentile_cont(0.9 DESC):x:c90d,percentile_cont(0.1):x:c10,"
                + "percentile_disc(0.5):x:d50,percentile_disc(0.4):x:d40,percentile_disc(0):x:d0,percentile_disc(1):x:d100,"
                + "percentile_disc(0.4 DESC):x:d40d,percentile_disc(0.5):n:nd50,percentile_cont(0.3):n:nc30,percentile_disc(0.5):d:dd")
        let row = try #require(result.rows.first)
        // cont: position p·(n − 1); 0.9 → 3.6 → 5 + 0.6·1 = 5.6; descending 6, 5, 4, 2.5, 1.5 at
        // 3.6 → 2.5 + 0.6·(1.5 − 2.5) = 1.9, the same as 0.1 ascending (0.4 → 1.5 + 0.4·1).
        #expect(row[0] == .double(4))
        #expect(abs((row[1].double ?? 0) - 5.6) < 1e-12)
        #expect(abs((row[2].double ?? 0) - 1.9) < 1e-12)
        #expect(abs((row[3].double ?? 0) - 1.9) < 1e-12)
        // disc: first k with k/5 ≥ p: 0.5 → 3rd (4), 0.4 → 2nd (2.5), 0 → 1st, 1 → 5th;
        // descending 0.4 → 2nd of 6, 5, … (5).
        #expect(Array(row[4...8]) == [.double(4), .double(2.5), .double(1.5), .double(6), .double(5)])
        // n: disc 0.5 → 7 (an integer); cont 0.3 → position 1.2 → 3 + 0.2·(7 − 3) = 3.8.
        #expect(row[9] == .integer(7))
        #expect(abs((row[10].double ?? 0) - 3.8) < 1e-12)
        #expect(result.fields[9].type == .integer && result.fields[10].type == .double)
        // d: 500, 1000, 2000, 3000, 4000 → the 3rd, a date.
        #expect(row[11] == .date(2000))
    }

    @Test func havingKeepsOnlyTrueGroups() throws {
        let table = try Self.small()
        func groups(_ having: String, _ statistics: String = "count:OBJECTID:cnt") throws -> [ScalarValue] {
            try Self.run(table, statistics, groupBy: ["cat"], having: having).rows.map { $0[0] }
        }
        #expect(try groups("COUNT(OBJECTID) > 1") == [.string("a"), .string("b")])
        // COUNT(*) counts rows; inside quotes it is text.
        #expect(try groups("count ( * ) = 3 OR MAX(name) = 'COUNT(*)'") == [.string("a")])
        #expect(try groups("COUNT(*) = 1 OR MIN(name) = 'x'") == [.null])
        #expect(try groups("avg(X) >= 4") == [.null, .string("b")])
        // Aliases, group fields and aggregates not among the statistics.
        #expect(try groups("cnt > 1 AND Max(name) = 'zoo'") == [.string("a")])
        #expect(try groups("cat = 'b' OR SUM(n) = 7") == [.null, .string("b")])
        // VAR is NULL for the NULL group and b (one x each): unknown drops them.
        #expect(try groups("VAR(x) > 0") == [.string("a")])
        #expect(try groups("NOT (STDDEV(x) > 100)") == [.string("a")])
        #expect(try groups("  ") == [.null, .string("a"), .string("b")])
    }

    @Test func orderByAliasAndGroupFields() throws {
        let table = try Self.small()
        // Sums of n: NULL group 7, a 4, b 30.
        let bySum = try Self.run(table, "sum:n:total", groupBy: ["cat"], orderBy: "TOTAL DESC")
        #expect(bySum.rows.map { $0[0] } == [.string("b"), .null, .string("a")])
        let byCat = try Self.run(table, "sum:n:total", groupBy: ["cat"], orderBy: "cat DESC")
        #expect(byCat.rows.map { $0[0] } == [.string("b"), .string("a"), .null])
        // Two group fields; ties on the order field fall back to the group values ascending.
        let pairs = try Self.run(table, "count:OBJECTID:k", groupBy: ["cat", "n"], orderBy: "k DESC")
        #expect(pairs.rows.map { [$0[0], $0[1], $0[2]] } == [
            [.null, .integer(7), .integer(1)], [.string("a"), .null, .integer(1)], [.string("a"), .integer(1), .integer(1)],
            [.string("a"), .integer(3), .integer(1)], [.string("b"), .integer(10), .integer(1)], [.string("b"), .integer(20), .integer(1)],
        ])
    }

    @Test func groupKeysOfEveryKind() throws {
        let schema = try Schema(
            fields: [Field(name: "OID", type: .oid), Field(name: "big", type: .bigInteger), Field(name: "f", type: .double),
                     Field(name: "s", type: .string)],
            objectIdFieldName: "OID")
        // `big` spans far more than the row count (the hashed path); `s` is plain-encoded (all
        // distinct up to case) and groups case-insensitively under nocase; -0 groups with 0.
        let table = try FeatureTable(schema: schema, columns: [
            .integer(Int64Column(values: Array(1...40))),
            .integer(Int64Column(values: (0..<40).map { $0 % 2 == 0 ? Int64.min : Int64.max })),
            .double(DoubleColumn(values: (0..<40).map { $0 % 4 == 0 ? -0.0 : ($0 % 4 == 1 ? 0 : .nan) })),
            .string(StringColumn((0..<40).map { $0 % 2 == 0 ? "Word\($0 / 2)" : "word\($0 / 2)" }, dictionaryLimit: 1)),
        ])
        let big = try Self.run(table, "count:OID:k", groupBy: ["big"])
        #expect(big.rows == [[.integer(.min), .integer(20)], [.integer(.max), .integer(20)]])
        let doubles = try Self.run(table, "count:OID:k", groupBy: ["f"])
        #expect(doubles.rows.count == 2)
        #expect(doubles.rows[0][0].double?.isNaN == true && doubles.rows[0][1] == .integer(20))
        #expect(doubles.rows[1][1] == .integer(20))
        #expect(try Self.run(table, "count:OID:k", groupBy: ["s"]).rows.count == 40)
        let folded = try table.with(collation: .nocase).queryStatistics(StatisticsQueryParameters(
            statistics: [StatisticDefinition(.count, onField: "OID", outputAlias: "k")], groupByFields: ["s"]))
        #expect(folded.rows.count == 20)
        #expect(folded.rows.allSatisfy { $0[1] == .integer(2) })
        let combined = try Self.run(table, "count:OID:k", groupBy: ["s", "big", "f"])
        #expect(combined.rows.count == 40)
    }

    /// Two integer fields of 300 values each: 301 × 301 key codes pass the arithmetic limit, so
    /// the pairs go through the hash map.
    @Test func manyCombinedKeysAreHashed() throws {
        let schema = try Schema(
            fields: [Field(name: "OID", type: .oid), Field(name: "a", type: .integer), Field(name: "b", type: .integer)], objectIdFieldName: "OID")
        let ids = Array(Int64(1)...600)
        let table = try FeatureTable(schema: schema, columns: [
            .integer(Int64Column(values: ids)), .integer(Int64Column(values: ids.map { $0 % 300 })),
            .integer(Int64Column(values: ids.map { 1000 - $0 % 300 })),
        ])
        let result = try Self.run(table, "count:OID:k,sum:OID:s", groupBy: ["b", "a"])
        #expect(result.rows.count == 300)
        // Ascending b = 701 … 1000, i.e. a = 299 … 0; group a holds OIDs a and a + 300 (a = 0: 300, 600).
        #expect(result.rows[0] == [.integer(701), .integer(299), .integer(2), .integer(299 + 599)])
        #expect(result.rows[299] == [.integer(1000), .integer(0), .integer(2), .integer(900)])
    }

    @Test func integerOverflowFallsBackToDouble() throws {
        let schema = try Schema(fields: [Field(name: "OID", type: .oid), Field(name: "v", type: .bigInteger)], objectIdFieldName: "OID")
        let table = try FeatureTable(schema: schema, columns: [
            .integer(Int64Column(values: [1, 2, 3])), .integer(Int64Column(values: [.max, 1, -5])),
        ])
        let result = try Self.run(table, "sum:v:s,avg:v:a")
        #expect(result.fields.map(\.type) == [.double, .double])
        // 2^63 − 1 + 1 − 5 = 2^63 − 5, as a double 2^63.
        #expect(result.rows == [[.double(9_223_372_036_854_775_803), .double(9_223_372_036_854_775_803 / 3)]])
        let fits = try Self.run(table, "sum:v:s", where: "OID > 1")
        #expect(fits.fields[0].type == .bigInteger && fits.rows == [[.integer(-4)]])
    }

    @Test func varianceOfLargeValuesIsAccurate() throws {
        let schema = try Schema(fields: [Field(name: "OID", type: .oid), Field(name: "v", type: .double)], objectIdFieldName: "OID")
        // Mean 1e9 + 10, deviations −6, −3, 3, 6: squares sum to 90, var 90/3 = 30. The
        // one-pass textbook formula loses it to cancellation.
        let base = 1e9
        let table = try FeatureTable(schema: schema, columns: [
            .integer(Int64Column(values: [1, 2, 3, 4])), .double(DoubleColumn(values: [base + 4, base + 7, base + 13, base + 16])),
        ])
        let result = try Self.run(table, "var:v,stddev:v,sum:v,avg:v")
        #expect(result.rows == [[.double(30), .double(30.0.squareRoot()), .double(4 * base + 40), .double(base + 10)]])
    }

    @Test func nanIsAValueThatPropagates() throws {
        let schema = try Schema(fields: [Field(name: "OID", type: .oid), Field(name: "v", type: .double)], objectIdFieldName: "OID")
        let table = try FeatureTable(schema: schema, columns: [
            .integer(Int64Column(values: [1, 2, 3])), .double(DoubleColumn(values: [2, .nan, 5])),
        ])
        let result = try Self.run(table, "count:v:c,sum:v:s,min:v:lo,max:v:hi")
        let row = try #require(result.rows.first)
        #expect(row[0] == .integer(3))
        #expect(row[1].double?.isNaN == true && row[2].double?.isNaN == true)
        #expect(row[3] == .double(5))
        #expect(result.esriJSON.hasSuffix(#""features":[{"attributes":{"c":3,"s":null,"lo":null,"hi":5.0}}]}"#))
        let infinite = try FeatureTable(schema: schema, columns: [
            .integer(Int64Column(values: [1, 2])), .double(DoubleColumn(values: [.infinity, 1])),
        ])
        #expect(try Self.run(infinite, "sum:v").rows == [[.double(.infinity)]])
    }

    @Test func esriJSONShape() throws {
        let result = try Self.run(try Self.small(), "count:OBJECTID:n,avg:x:ax,max:d:last", groupBy: ["cat"], where: "cat = 'b'")
        #expect(result.esriJSON == #"{"displayFieldName":"","fieldAliases":{"cat":"cat","n":"n","ax":"ax","last":"last"},"fields":["#
            + #"{"name":"cat","type":"esriFieldTypeString","alias":"cat","nullable":true,"editable":true},"#
            + #"{"name":"n","type":"esriFieldTypeInteger","alias":"n","nullable":true,"editable":true},"#
            + #"{"name":"ax","type":"esriFieldTypeDouble","alias":"ax","nullable":true,"editable":true},"#
            + #"{"name":"last","type":"esriFieldTypeDate","alias":"last","nullable":true,"editable":true}],"#
            + #""features":[{"attributes":{"cat":"b","n":2,"ax":6.0,"last":4000}}]}"#)
        #expect(result.esriJSONBytes == Array(result.esriJSON.utf8))
        #expect(result.value(row: 0, field: "AX") == .double(6))
    }

    @Test func distinctValues() throws {
        let table = try Self.small()
        let cats = try table.queryDistinctValues(QueryParameters(outFields: ["cat"]))
        #expect(cats.fields.map(\.name) == ["cat"])
        #expect(cats.rows == [[.null], [.string("a")], [.string("b")]])
        let ordered = try table.queryDistinctValues(QueryParameters(whereClause: "n > 1", outFields: ["cat"], orderBy: [SortField("cat", ascending: false)]))
        #expect(ordered.rows == [[.string("b")], [.string("a")], [.null]])
        let paged = try table.queryDistinctValues(QueryParameters(outFields: ["cat", "name"], resultOffset: 1, maxFeatures: 2))
        #expect(paged.rows == [[.string("a"), .string("Banana")], [.string("a"), .string("pear")]])
        #expect(featureTableError { _ = try table.queryDistinctValues(QueryParameters()) }?.kind == .invalidQuery)
        #expect(featureTableError { _ = try table.queryDistinctValues(QueryParameters(outFields: ["cat"], orderBy: [SortField("n")])) }?.kind == .invalidQuery)
    }

    @Test func givenRowsIgnoreTheQuery() throws {
        let table = try Self.small()
        let parameters = StatisticsQueryParameters(
            query: QueryParameters(whereClause: "1=0"), statistics: [StatisticDefinition(.sum, onField: "n", outputAlias: "s")])
        // Rows 0, 2, 5: n = 1, 3, 20.
        #expect(try table.statistics(parameters, rows: [0, 2, 5]).rows == [[.integer(24)]])
        #expect(featureTableError { _ = try table.statistics(parameters, rows: [2, 0]) }?.message == "rows must be ascending and unique: 0 follows 2")
        #expect(featureTableError { _ = try table.statistics(parameters, rows: [6]) }?.message == "row 6 is out of range: the table has 6 rows")
    }

    @Test func deletedRowsNeverCount() throws {
        let table = try FeatureTable.load(contentsOf: fixtureURL("naturalearth_lowres.geojson"))
        let parameters = StatisticsQueryParameters(
            query: QueryParameters(whereClause: "continent = 'Africa'"), statistics: [StatisticDefinition(.count, onField: "fid", outputAlias: "n")])
        #expect(try table.queryStatistics(parameters).rows == [[.integer(51)]])
        let editable = try EditableFeatureTable(table)
        let africa = try table.queryObjectIDs(QueryParameters(whereClause: "continent = 'Africa'"))
        #expect(editable.deleteFeatures(objectIDs: [africa[0]]).first?.error == nil)
        let snapshot = editable.snapshot
        #expect(try snapshot.queryStatistics(parameters).rows == [[.integer(50)]])
        // Given rows that include the deleted one still leave it out.
        let all = (0..<UInt32(snapshot.count)).map { $0 }
        let total = try snapshot.statistics(StatisticsQueryParameters(statistics: [StatisticDefinition(.count, onField: "fid")]), rows: all)
        #expect(total.rows == [[.integer(176)]])
    }
}

extension ScalarValue {
    /// The double, when this is one.
    var double: Double? {
        if case .double(let x) = self { return x }
        return nil
    }
}
