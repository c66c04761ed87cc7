import FuzzSupport
import GeoSieve

/// Where clauses: lex, parse, bind and run any text against two tables (the countries and a
/// table of extreme values), in both collations. A clause that compiles must select, through the
/// vectorized kernels, exactly the rows the row evaluator finds TRUE; a clause that does not
/// compile must say why in a bounded message.
let tables: [FeatureTable] = [FuzzTables.countries, FuzzTables.extremes].compactMap { $0 }
    .flatMap { [$0, $0.with(collation: .nocase)] }

func fuzzWhere(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    if tables.count != 4 { Fuzzing.fail("the fuzz tables did not load") }
    let sql = Fuzzing.text(data, count)
    for table in tables {
        let clause: CompiledWhereClause
        do {
            clause = try CompiledWhereClause(sql, schema: table.schema, collation: table.collation, now: 1_700_000_000_000)
        } catch {
            let message = error.description
            Fuzzing.check(message.utf8.count <= 1_000, "an error message of \(message.utf8.count) bytes")
            continue
        }
        let selected = clause.matchingRows(in: table.columns, rowCount: table.count)
        var expected: [UInt32] = []
        for row in 0..<table.count where clause.evaluate(row: row, in: table.columns) == true {
            expected.append(UInt32(row))
        }
        Fuzzing.check(selected == expected,
            "kernels select \(selected), the row evaluator \(expected), collation \(table.collation): \(Fuzzing.excerpt(sql))")
        Fuzzing.check(clause.count(in: table.columns, rowCount: table.count) == expected.count,
            "count disagrees with the selection: \(Fuzzing.excerpt(sql))")
    }
    return 0
}

#if FUZZING
@_cdecl("fuzz_where_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzzing.run(argc, argv, fuzzWhere)
}
#endif
