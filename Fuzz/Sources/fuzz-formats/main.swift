import FuzzSupport
import GeoSieve

/// The binary and tabular file readers on any bytes: the first byte picks the reader — FlatGeobuf,
/// a zipped shapefile, CSV or GeoParquet — and the rest is the file. Whatever reads must not
/// crash; a FlatGeobuf or GeoParquet table must also write and read back to the same values and
/// geometries, and a CSV table must hold as many rows as it says.
func fuzzFormats(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Fuzzing.bytes(data, count)
    guard let selector = bytes.first else { return 0 }
    let file = Array(bytes.dropFirst())
    switch selector % 4 {
    case 0:
        guard let layer = try? FlatGeobuf.read(bytes: file) else { return 0 }
        _ = try? FlatGeobuf.read(bytes: file, intersecting: Envelope(xmin: -1, ymin: -1, xmax: 1, ymax: 1))
        checkFlatGeobufRoundTrip(layer.table)
    case 1:
        _ = try? Shapefile.read(archive: file)
    case 2:
        guard let table = try? CSVFile.read(text: String(decoding: file, as: UTF8.self)) else { return 0 }
        Fuzzing.check(table.objectIDs.count == table.count, "CSV: \(table.objectIDs.count) object IDs for \(table.count) rows")
    default:
        fuzzGeoParquet(file)
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

/// A GeoParquet file, read whole, by a box, by one column and with a where clause's row-group
/// filter: none of these may crash. Read whole, the table holds every row of the file, its
/// integers fit their fields' types, and it writes and reads back to the same rows, values and
/// geometries — with a compression, a row group size and a covering picked from the input, so
/// that every writer path is taken — and writing what was read back gives the same bytes again.
func fuzzGeoParquet(_ file: [UInt8]) {
    guard let layer = try? GeoParquet.read(bytes: file) else { return }
    let table = layer.table
    Fuzzing.check(
        layer.rowsInFile == table.count && layer.rowGroupsRead == layer.rowGroups,
        "GeoParquet: \(table.count) rows read of the file's \(layer.rowsInFile), \(layer.rowGroupsRead) row groups of \(layer.rowGroups)")
    checkIntegerRanges(table)

    // The other ways of reading (statistics, covering and geometry boxes, column selection).
    let box = Envelope(xmin: -10, ymin: -10, xmax: 10, ymax: 10)
    if let part = try? GeoParquet.read(bytes: file, options: GeoParquetReadOptions(box: box)) {
        Fuzzing.check(part.table.count <= table.count, "GeoParquet: a box read of \(part.table.count) rows of \(table.count)")
    }
    let attributes = table.schema.fields.filter { $0.type != .oid }
    if let first = attributes.first {
        _ = try? GeoParquet.read(bytes: file, options: GeoParquetReadOptions(columns: [first.name]))
    }
    let numeric = attributes.filter { $0.type.integerRange != nil || $0.type == .double || $0.type == .single }
    let clauses = numeric.prefix(2).filter { isPlainIdentifier($0.name) }.map {
        "(\($0.name) BETWEEN -1 AND 100 OR \($0.name) IN (5, 7.5) OR \($0.name) IS NULL)"
    }
    if !clauses.isEmpty, let filter = try? ParquetStatisticsFilter(whereClause: clauses.joined(separator: " AND ")) {
        if let part = try? GeoParquet.read(bytes: file, options: GeoParquetReadOptions(rowGroupFilter: filter)) {
            Fuzzing.check(part.rowsInFile == layer.rowsInFile, "GeoParquet: \(part.rowsInFile) rows in the file, then \(layer.rowsInFile)")
        }
    }

    let compressions = GeoParquetWriteOptions.Compression.allCases
    let options = GeoParquetWriteOptions(
        compression: compressions[file.count % compressions.count],
        rowGroupSize: 1 + table.count / (1 + file.count % 3),
        covering: file.count % 2 == 0)
    checkGeoParquetRoundTrip(table, options: options)
}

/// Whether `name` can stand in a where clause unquoted: ASCII letters, digits and `_`, not
/// starting with a digit.
func isPlainIdentifier(_ name: String) -> Bool {
    guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
    return name.utf8.allSatisfy { $0 == UInt8(ascii: "_") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20) }
}

/// Every integer of an integer field lies in the field type's range (a SmallInteger field holds
/// 16-bit values, an Integer field 32-bit ones), whatever the file's annotations say.
func checkIntegerRanges(_ table: FeatureTable) {
    for (k, field) in table.schema.fields.enumerated() {
        guard let range = field.type.integerRange else { continue }
        for row in 0..<table.count {
            guard case .integer(let value) = table.value(row: row, fieldIndex: k) else { continue }
            Fuzzing.check(range.contains(value), "GeoParquet: \(value) in \(field.type.name) field \(field.name), row \(row)")
        }
    }
}

/// Written with `options` and read back, `table` gives the same rows, fields, values,
/// geometries and (when it has geometry) spatial reference; written again, the same bytes. A table the writer refuses
/// (``FileFormatError/Kind/cannotWrite``: a geometry collection, a spatial reference without a
/// PROJJSON definition) is fine.
func checkGeoParquetRoundTrip(_ table: FeatureTable, options: GeoParquetWriteOptions) {
    let written: [UInt8]
    do {
        written = try GeoParquet.encode(table, options: options)
    } catch {
        Fuzzing.check(error.kind == .cannotWrite, "GeoParquet: a table read from a file does not write: \(error)")
        return
    }
    let back: FeatureTable
    do {
        back = try GeoParquet.read(bytes: written).table
    } catch {
        Fuzzing.fail("GeoParquet: a file GeoSieve wrote (\(options)) does not read back: \(error)")
    }
    Fuzzing.check(back.count == table.count, "GeoParquet: \(back.count) rows back of \(table.count)")
    // A reference lives on a geometry column: a table without geometry (an empty layer of no
    // declared type, say) is written without one, so its reference does not come back.
    Fuzzing.check(
        table.schema.geometryType == nil || back.schema.spatialReference.wkid == table.schema.spatialReference.wkid,
        "GeoParquet: spatial reference \(table.schema.spatialReference.wkid) back as \(back.schema.spatialReference.wkid)")
    Fuzzing.check(
        (back.schema.geometryType == nil) == (table.schema.geometryType == nil),
        "GeoParquet: geometry type \(String(describing: table.schema.geometryType)) back as \(String(describing: back.schema.geometryType))")
    let fields = table.schema.fields.filter { $0.type != .oid }
    Fuzzing.check(
        back.schema.fields.filter { $0.type != .oid }.count == fields.count,
        "GeoParquet: fields \(fields.map(\.name)) back as \(back.schema.fields.map(\.name))")
    for field in fields {
        let type = back.schema.field(named: field.name)?.type
        // GUIDs are written as strings.
        Fuzzing.check(
            type == field.type || (field.type == .guid && type == .string),
            "GeoParquet: field \(field.name) of type \(field.type.name) back as \(type?.name ?? "none")")
    }
    for row in 0..<min(back.count, table.count) {
        for field in fields {
            let a = table.value(row: row, field: field.name)
            let b = back.value(row: row, field: field.name)
            Fuzzing.check(a == b || (isNaN(a) && isNaN(b)), "GeoParquet: \(field.name) row \(row): \(a) then \(b)")
        }
        // An empty geometry is written as NULL.
        let a = table.geometry(row: row).flatMap { $0.isEmpty ? nil : $0 }
        let b = back.geometry(row: row).flatMap { $0.isEmpty ? nil : $0 }
        Fuzzing.check(
            a == b || "\(String(describing: a))" == "\(String(describing: b))",
            "GeoParquet: geometry of row \(row) changed: \(Fuzzing.excerpt(String(describing: a))) then \(Fuzzing.excerpt(String(describing: b)))")
    }
    do {
        let again = try GeoParquet.encode(back, options: options)
        Fuzzing.check(again == written, "GeoParquet: writing what was read back gives other bytes (\(written.count), then \(again.count))")
    } catch {
        Fuzzing.fail("GeoParquet: a table read from GeoSieve's own file does not write: \(error)")
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
