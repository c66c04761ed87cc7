import FuzzSupport
import GeoSieve

/// CQL2 filters: read any text as cql2-text and as cql2-json, and every filter that reads as
/// one: write it back (it must read back to an equal tree, and for text, write to the same text
/// again), then bind it to the countries and run it — through `FeatureFilter` and through a
/// query — which must agree. Errors must be bounded messages.
let countries = FuzzTables.countries

func fuzzCQL2(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let countries else { Fuzzing.fail("the fuzz tables did not load") }
    let source = Fuzzing.text(data, count)
    for encoding in [CQL2Error.Encoding.text, .json] {
        let filter: CQL2Filter
        do {
            filter = try CQL2Filter(source, encoding: encoding)
        } catch {
            // The message is short; the JSON path as long as the value is deep (≤ 200 levels of
            // member names cut to 80 characters).
            Fuzzing.check(error.message.utf8.count <= 2_000, "an error message of \(error.message.utf8.count) bytes")
            Fuzzing.check((error.path?.utf8.count ?? 0) <= 200 * 400, "an error path of \(error.path?.utf8.count ?? 0) bytes")
            continue
        }
        switch encoding {
        case .text:
            let text = CQL2Text.write(filter.expression)
            if let again = try? CQL2Text.parse(text) {
                Fuzzing.check(again == filter.expression, "text does not read back to the tree: \(Fuzzing.excerpt(source))")
                Fuzzing.check(CQL2Text.write(again) == text, "writing is not stable: \(Fuzzing.excerpt(source))")
            } else {
                Fuzzing.fail("the written text does not read back: \(Fuzzing.excerpt(text))")
            }
        case .json:
            if let json = try? CQL2JSON.write(filter.expression) {
                Fuzzing.check((try? CQL2JSON.parse(json)) == filter.expression, "JSON does not read back to the tree: \(Fuzzing.excerpt(source))")
            }
        }
        let rows: [UInt32]
        do {
            rows = try FeatureFilter(filter, table: countries, now: 1_700_000_000_000).matchingRows(in: countries)
        } catch {
            Fuzzing.check("\(error)".utf8.count <= 2_000, "an error message of \("\(error)".utf8.count) bytes")
            continue
        }
        let ids = rows.map { countries.objectID(row: Int($0)) }.sorted()
        let queried = try? countries.queryObjectIDs(QueryParameters(filter: filter))
        Fuzzing.check(queried == ids, "FeatureFilter and the query disagree: \(Fuzzing.excerpt(source))")
    }
    return 0
}

#if FUZZING
@_cdecl("fuzz_cql2_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzzing.run(argc, argv, fuzzCQL2)
}
#endif
