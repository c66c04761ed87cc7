import FuzzSupport
import GeoSieve

/// The binary and tabular file readers on any bytes: the first byte picks the reader — FlatGeobuf,
/// a zipped shapefile or CSV — and the rest is the file. Whatever reads must not crash; a
/// FlatGeobuf table must also write and read back to the same values and geometries, and a CSV
/// table must hold as many rows as it says.
func fuzzFormats(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Fuzzing.bytes(data, count)
    guard let selector = bytes.first else { return 0 }
    let file = Array(bytes.dropFirst())
    switch selector % 3 {
    case 0:
        guard let layer = try? FlatGeobuf.read(bytes: file) else { return 0 }
        _ = try? FlatGeobuf.read(bytes: file, intersecting: Envelope(xmin: -1, ymin: -1, xmax: 1, ymax: 1))
        checkFlatGeobufRoundTrip(layer.table)
    case 1:
        _ = try? Shapefile.read(archive: file)
    default:
        guard let table = try? CSVFile.read(text: String(decoding: file, as: UTF8.self)) else { return 0 }
        Fuzzing.check(table.objectIDs.count == table.count, "CSV: \(table.objectIDs.count) object IDs for \(table.count) rows")
    }
    return 0
}

/// Written and read back (without the index, so in the same order), `table` gives the same
/// values and geometries.
func checkFlatGeobufRoundTrip(_ table: FeatureTable) {
    do {
        let back = try FlatGeobuf.read(bytes: try FlatGeobuf.encode(table, options: FlatGeobufWriteOptions(index: false))).table
        Fuzzing.check(back.count == table.count, "FlatGeobuf: \(back.count) features back of \(table.count)")
        for row in 0..<min(back.count, table.count) {
            for field in table.schema.fields where field.type != .oid {
                let a = table.value(row: row, field: field.name)
                let b = back.value(row: row, field: field.name)
                Fuzzing.check(a == b || (isNaN(a) && isNaN(b)), "FlatGeobuf: \(field.name) row \(row): \(a) then \(b)")
            }
            let a = table.geometry(row: row)
            let b = back.geometry(row: row)
            Fuzzing.check(a == b || "\(String(describing: a))" == "\(String(describing: b))", "FlatGeobuf: geometry of row \(row) changed")
        }
    } catch {
        Fuzzing.check(false, "FlatGeobuf: a table read from a file does not write and read back: \(error)")
    }
}

/// Whether `value` is a NaN double (which equals nothing, itself included).
func isNaN(_ value: ScalarValue) -> Bool {
    if case .double(let d) = value { return d.isNaN }
    return false
}

#if FUZZING
@_cdecl("fuzz_formats_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzzing.run(argc, argv, fuzzFormats)
}
#endif
