import CSQLite
import SieveColumns
import SieveFeatures
import SieveGeometry

/// The bytes of one INSERT batch's texts and blobs, gathered first and bound afterwards without
/// a copy (`SQLITE_STATIC`): the buffer does not move between binding and the statement's step.
struct ByteArena {
    private(set) var base: UnsafeMutableRawPointer
    private(set) var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 16)
    }

    /// Frees the buffer (once, when done).
    func deallocate() { base.deallocate() }

    /// Forgets the bytes, keeping the buffer.
    mutating func removeAll() { count = 0 }

    /// Room for `size` more bytes at the end: where to write them, valid until the next call.
    @inline(__always)
    mutating func append(_ size: Int) -> UnsafeMutableRawPointer {
        if count + size > capacity { grow(to: count + size) }
        let start = base + count
        count += size
        return start
    }

    /// Appends `bytes`; returns their offset.
    @inline(__always)
    mutating func append(_ bytes: UnsafeRawBufferPointer) -> Int {
        let offset = count
        let start = append(bytes.count)
        if let source = bytes.baseAddress { start.copyMemory(from: source, byteCount: bytes.count) }
        return offset
    }

    private mutating func grow(to size: Int) {
        let larger = max(size, capacity * 2)
        let moved = UnsafeMutableRawPointer.allocate(byteCount: larger, alignment: 16)
        moved.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = moved
        capacity = larger
    }
}

/// Inserts a table's rows into its feature table, many rows per statement: values bound column
/// by column, texts and geometry blobs gathered into one ``ByteArena`` and bound without a copy,
/// and, where the object IDs continue the table's (1, 2, 3, …), the primary key left for SQLite
/// to assign (it takes the largest rowid plus one without searching the b-tree, which a given
/// key costs); the file is the same either way.
struct GeoPackageRowInserter {
    /// What a field's values are bound from.
    enum Values {
        case integers(ColumnBuffer<Int64>)
        case doubles(ColumnBuffer<Double>)
        /// Instants, written as `DATETIME` texts, or days (`dateOnly`) as `DATE` texts.
        case dates(ColumnBuffer<Int64>, dateOnly: Bool)
        case plain(StringStorage)
        case dictionary(codes: ColumnBuffer<UInt32>, strings: StringStorage)
    }

    struct Field {
        let name: String
        let values: Values
        let validity: ValidityBitmap?
    }

    /// A text or blob to bind from the arena once the batch is complete.
    struct Pending {
        var parameter: Int32
        var offset: Int
        var count: Int32
        var isBlob: Bool
    }

    let connection: SQLiteConnection
    let table: FeatureTable
    let objectIDs: ColumnBuffer<Int64>
    let fields: [Field]
    let hasGeometry: Bool
    let srsID: Int32
    let multi: Bool
    /// Rows per batch statement.
    let batch: Int
    /// Parameters per row with the object ID (one fewer without).
    let perRow: Int
    /// Batch and single-row statements, with the object ID and without.
    let explicitBatch: SQLiteStatement
    let implicitBatch: SQLiteStatement
    let explicitOne: SQLiteStatement
    let implicitOne: SQLiteStatement
    /// Point storage without z or m: points are written from the coordinate arrays.
    let pointX: ColumnBuffer<Double>?
    let pointY: ColumnBuffer<Double>?

    var arena = ByteArena(capacity: 1 << 16)
    var pending: [Pending] = []
    var blob = GeoPackageBinaryWriter()
    /// The largest object ID inserted so far, `nil` before the first row.
    var largestID: Int64?
    /// The union of the envelopes of the rows inserted so far.
    var extent = Envelope.empty

    init(
        connection: SQLiteConnection, table: FeatureTable, layer: String, geometryColumn: String?, fieldIndices: [Int],
        srsID: Int32, multi: Bool, namingEveryID: Bool = false
    ) throws(GeoPackageError) {
        self.connection = connection
        // Into a table that has rows already, object IDs are always named: SQLite would number
        // rows from the table's largest, not from the last inserted.
        if namingEveryID { largestID = .max }
        self.table = table
        self.srsID = srsID
        self.multi = multi
        hasGeometry = geometryColumn != nil
        guard case .integer(let oidColumn) = table.columns[table.schema.objectIdFieldIndex] else {
            throw GeoPackageError(.cannotWrite, "the object-ID column is not an integer column")
        }
        objectIDs = oidColumn.values
        fields = fieldIndices.map { index in
            let column = table.columns[index]
            let values: Values
            switch column {
            case .integer(let c): values = .integers(c.values)
            case .double(let c): values = .doubles(c.values)
            case .date(let c): values = .dates(c.values, dateOnly: table.schema.fields[index].type == .dateOnly)
            case .string(let c):
                switch c.encoding {
                case .plain(let storage): values = .plain(storage)
                case .dictionary(let codes, let dictionary): values = .dictionary(codes: codes, strings: dictionary)
                }
            }
            return Field(name: table.schema.fields[index].name, values: values, validity: column.validity)
        }
        let geometries = table.geometryColumn
        if geometries.storage == .points, !geometries.hasZ, !geometries.hasM {
            pointX = geometries.pointX
            pointY = geometries.pointY
        } else {
            pointX = nil
            pointY = nil
        }

        var names = [sqlIdentifier(table.schema.objectIdFieldName)]
        if let geometryColumn { names.append(sqlIdentifier(geometryColumn)) }
        names += fieldIndices.map { sqlIdentifier(table.schema.fields[$0].name) }
        perRow = names.count
        // SQLite takes at most 32766 parameters a statement (SQLITE_MAX_VARIABLE_NUMBER).
        batch = max(1, min(64, 32_766 / perRow))
        func insert(_ names: [String], rows: Int) throws(GeoPackageError) -> SQLiteStatement {
            let head = "INSERT INTO \(sqlIdentifier(layer)) (\(names.joined(separator: ", "))) VALUES "
            let tuple = "(" + Array(repeating: "?", count: names.count).joined(separator: ", ") + ")"
            return try connection.prepare(head + Array(repeating: tuple, count: rows).joined(separator: ", "))
        }
        explicitBatch = try insert(names, rows: batch)
        explicitOne = batch == 1 ? explicitBatch : try insert(names, rows: 1)
        // A table of object IDs only always names them (a row needs one value).
        let withoutID = perRow > 1 ? Array(names.dropFirst()) : names
        implicitBatch = perRow > 1 ? try insert(withoutID, rows: batch) : explicitBatch
        implicitOne = perRow > 1 ? (batch == 1 ? implicitBatch : try insert(withoutID, rows: 1)) : explicitOne
        pending.reserveCapacity(batch * perRow)
    }

    /// Frees the arena (once, when done).
    func deallocate() { arena.deallocate() }

    /// Inserts `rows` (row numbers of the table), in order, reporting to `progress` every
    /// 16,384 rows and at the end.
    mutating func insert(_ rows: [Int], progress: ((WriteProgress) -> Void)? = nil) throws(GeoPackageError) {
        let reportEvery = 1 << 14
        var k = 0
        var nextReport = reportEvery
        while k < rows.count {
            let n = rows.count - k >= batch ? batch : 1
            try insertBatch(rows[k..<(k + n)])
            k += n
            if k >= nextReport, let progress {
                progress(WriteProgress(features: k, totalFeatures: rows.count))
                nextReport = k + reportEvery
            }
        }
        progress?(WriteProgress(features: rows.count, totalFeatures: rows.count))
    }

    /// Whether the object IDs of `rows` are the largest inserted so far plus 1, 2, 3, …, so
    /// that SQLite assigns them itself (it takes the largest rowid plus one; 1 in an empty table).
    private func continuesIDs(_ rows: ArraySlice<Int>) -> Bool {
        var expected = largestID ?? 0
        for row in rows {
            guard expected < Int64.max else { return false }
            expected += 1
            guard objectIDs[row] == expected else { return false }
        }
        return true
    }

    /// Inserts `rows` with one statement (a batch, or one row).
    private mutating func insertBatch(_ rows: ArraySlice<Int>) throws(GeoPackageError) {
        let implicit = perRow > 1 && continuesIDs(rows)
        let n = rows.count
        let statement = n == batch ? (implicit ? implicitBatch : explicitBatch) : (implicit ? implicitOne : explicitOne)
        let width = Int32(implicit ? perRow - 1 : perRow)
        arena.removeAll()
        pending.removeAll(keepingCapacity: true)
        var column: Int32 = 1
        if !implicit {
            for (j, row) in rows.enumerated() {
                try check(sqlite3_bind_int64(statement.handle, Int32(j) * width + column, objectIDs[row]), statement)
            }
            column += 1
        }
        if hasGeometry {
            try bindGeometries(rows, statement, column: column, width: width)
            column += 1
        }
        for field in fields {
            try bind(field, rows, statement, column: column, width: width)
            column += 1
        }
        let base = arena.base
        for item in pending {
            let pointer = base + item.offset
            let code =
                item.isBlob
                ? sqlite3_bind_blob(statement.handle, item.parameter, pointer, item.count, nil)
                : sqlite3_bind_text(
                    statement.handle, item.parameter, pointer.assumingMemoryBound(to: CChar.self), item.count, nil)
            try check(code, statement)
        }
        for row in rows {
            let id = objectIDs[row]
            if largestID.map({ id > $0 }) ?? true { largestID = id }
        }
        try statement.run()
    }

    @inline(__always)
    private func check(_ code: Int32, _ statement: SQLiteStatement) throws(GeoPackageError) {
        guard code == SQLITE_OK else { throw connection.failure(code, "binding a value of \(statement.sql)") }
    }

    /// Records `count` arena bytes at `offset` for `parameter`.
    @inline(__always)
    private mutating func later(_ parameter: Int32, offset: Int, count: Int, isBlob: Bool) throws(GeoPackageError) {
        guard let length = Int32(exactly: count) else {
            throw GeoPackageError(.cannotWrite, "a value of \(count) bytes is beyond SQLite's limit")
        }
        pending.append(Pending(parameter: parameter, offset: offset, count: length, isBlob: isBlob))
    }

    /// Binds the geometries of `rows`: points straight from the coordinate arrays, anything else
    /// through ``GeoPackageBinaryWriter``.
    private mutating func bindGeometries(
        _ rows: ArraySlice<Int>, _ statement: SQLiteStatement, column: Int32, width: Int32
    ) throws(GeoPackageError) {
        let geometries = table.geometryColumn
        for (j, row) in rows.enumerated() {
            let parameter = Int32(j) * width + column
            if geometries.isNull(row: row) {
                try check(sqlite3_bind_null(statement.handle, parameter), statement)
                continue
            }
            if let pointX, let pointY {
                let x = pointX[row]
                let y = pointY[row]
                if x.isFinite, y.isFinite {
                    let offset = arena.count
                    Self.writePointBlob(x: x, y: y, srsID: srsID, to: arena.append(29))
                    try later(parameter, offset: offset, count: 29, isBlob: true)
                    extent.expand(toInclude: Envelope(xmin: x, ymin: y, xmax: x, ymax: y))
                    continue
                }
            }
            guard let geometry = table.geometry(row: row) else {
                try check(sqlite3_bind_null(statement.handle, parameter), statement)
                continue
            }
            do throws(GeoPackageError) {
                try blob.write(geometry, srsID: srsID, multi: multi)
            } catch {
                var located = error
                located.featureID = objectIDs[row]
                throw located
            }
            if let envelope = table.envelope(row: row) { extent.expand(toInclude: envelope) }
            let offset = blob.bytes.withUnsafeBytes { arena.append($0) }
            try later(parameter, offset: offset, count: blob.bytes.count, isBlob: true)
        }
    }

    /// The blob ``GeoPackageBinaryWriter`` writes for a 2D point of finite coordinates (29
    /// bytes): the little-endian header without envelope, then ISO WKB.
    @inline(__always)
    static func writePointBlob(x: Double, y: Double, srsID: Int32, to blob: UnsafeMutableRawPointer) {
        // 'G', 'P', version 0, flags 0x01 (little-endian, no envelope, not empty).
        blob.storeBytes(of: UInt32(0x0100_5047).littleEndian, toByteOffset: 0, as: UInt32.self)
        blob.storeBytes(of: UInt32(bitPattern: srsID).littleEndian, toByteOffset: 4, as: UInt32.self)
        blob.storeBytes(of: 1, toByteOffset: 8, as: UInt8.self)  // WKB little-endian
        blob.storeBytes(of: UInt32(1).littleEndian, toByteOffset: 9, as: UInt32.self)  // Point
        blob.storeBytes(of: x.bitPattern.littleEndian, toByteOffset: 13, as: UInt64.self)
        blob.storeBytes(of: y.bitPattern.littleEndian, toByteOffset: 21, as: UInt64.self)
    }

    /// Binds `field`'s values of `rows`.
    private mutating func bind(
        _ field: Field, _ rows: ArraySlice<Int>, _ statement: SQLiteStatement, column: Int32, width: Int32
    ) throws(GeoPackageError) {
        let handle = statement.handle
        let validity = field.validity
        @inline(__always) func isNull(_ row: Int) -> Bool { validity.map { !$0.isValid(row) } ?? false }
        switch field.values {
        case .integers(let values):
            for (j, row) in rows.enumerated() {
                let parameter = Int32(j) * width + column
                let code =
                    isNull(row)
                    ? sqlite3_bind_null(handle, parameter) : sqlite3_bind_int64(handle, parameter, values[row])
                try check(code, statement)
            }
        case .doubles(let values):
            for (j, row) in rows.enumerated() {
                let parameter = Int32(j) * width + column
                let code =
                    isNull(row)
                    ? sqlite3_bind_null(handle, parameter) : sqlite3_bind_double(handle, parameter, values[row])
                try check(code, statement)
            }
        case .dates(let values, let dateOnly):
            for (j, row) in rows.enumerated() {
                let parameter = Int32(j) * width + column
                if isNull(row) {
                    try check(sqlite3_bind_null(handle, parameter), statement)
                    continue
                }
                let milliseconds = values[row]
                guard GeoPackageDates.datetimeRange.contains(milliseconds) else {
                    throw GeoPackageError(
                        .cannotWrite,
                        "the date \(CivilTime.format(milliseconds: milliseconds)) is outside the years 0000–9999 a "
                            + "GeoPackage \(dateOnly ? "DATE" : "DATETIME") holds",
                        featureID: objectIDs[row], fieldName: field.name)
                }
                let offset = arena.count
                GeoPackageDates.writeDatetime(milliseconds, to: arena.append(24))
                // A DATE text is the DATETIME text's first ten bytes, `yyyy-mm-dd`.
                try later(parameter, offset: offset, count: dateOnly ? 10 : 24, isBlob: false)
            }
        case .plain(let storage):
            try bindTexts(storage, rows, statement, column: column, width: width, validity: validity) { $0 }
        case .dictionary(let codes, let strings):
            try bindTexts(strings, rows, statement, column: column, width: width, validity: validity) { Int(codes[$0]) }
        }
    }

    /// Binds string `index(row)` of `storage` for each of `rows` (NULL where `validity` says).
    @inline(__always)
    private mutating func bindTexts(
        _ storage: StringStorage, _ rows: ArraySlice<Int>, _ statement: SQLiteStatement, column: Int32, width: Int32,
        validity: ValidityBitmap?, index: (Int) -> Int
    ) throws(GeoPackageError) {
        let offsets = storage.offsets
        let result = storage.bytes.withUnsafeBytes { bytes in
            Result { () throws(GeoPackageError) in
                try bindTexts(
                    bytes, offsets, rows, statement, column: column, width: width, validity: validity, index: index)
            }
        }
        try result.get()
    }

    /// ``bindTexts(_:_:_:column:width:validity:index:)`` over the storage's bytes.
    @inline(__always)
    private mutating func bindTexts(
        _ bytes: UnsafeRawBufferPointer, _ offsets: ColumnBuffer<Int>, _ rows: ArraySlice<Int>, _ statement: SQLiteStatement,
        column: Int32,
        width: Int32, validity: ValidityBitmap?, index: (Int) -> Int
    ) throws(GeoPackageError) {
        let handle = statement.handle
        for (j, row) in rows.enumerated() {
            let parameter = Int32(j) * width + column
            if let validity, !validity.isValid(row) {
                try check(sqlite3_bind_null(handle, parameter), statement)
                continue
            }
            let i = index(row)
            let start = offsets[i]
            let count = offsets[i + 1] - start
            guard count > 0 else {
                try check(sqlite3_bind_text(handle, parameter, "", 0, sqliteTransient), statement)
                continue
            }
            let offset = arena.append(UnsafeRawBufferPointer(rebasing: bytes[start..<(start + count)]))
            try later(parameter, offset: offset, count: count, isBlob: false)
        }
    }
}
