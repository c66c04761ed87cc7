// One cell of a column written as a JSON value (CellWriter), on JSONOutput's byte-level pieces.
import SieveFeatures
import SieveColumns
import SieveGeometry
import SieveJSON

/// Writes one field's `"name":value` member for any row, set up once per field: the member
/// name is escaped once; strings are escaped as they are written, from the column's bytes, so
/// setting a writer up costs nothing in proportion to the column.
package struct CellWriter {
    private enum Source {
        case integer(ColumnBuffer<Int64>)
        case double(ColumnBuffer<Double>)
        case dateText(ColumnBuffer<Int64>)
        case dateMilliseconds(ColumnBuffer<Int64>)
        /// Days of a date-only field, written `"yyyy-mm-dd"`.
        case dayText(ColumnBuffer<Int64>)
        /// A dictionary column: each row's string escaped as it is written, straight from the
        /// dictionary's bytes (escaping the whole dictionary up front would cost every request
        /// as much as the column has distinct strings, whatever it writes).
        case dictionary(codes: ColumnBuffer<UInt32>, dictionary: StringStorage)
        case plain(StringStorage)
        /// 0 and 1 written `false` and `true` (a property a file wrote as booleans).
        case boolean(ColumnBuffer<Int64>)
        /// Text written as the JSON it holds (a property a file wrote as arrays or objects).
        case json(Column)
        /// Instants written `"yyyy-mm-ddThh:mm:ssZ"` when they have no milliseconds.
        case secondsText(ColumnBuffer<Int64>)
    }

    /// What writing a cell of the common kinds reads: pointers to the elements of the buffers
    /// ``source`` and ``validity`` hold, and to the member name — no references, so that
    /// copying it (as the writers' loops do, cell by cell) retains and releases nothing, where
    /// copying the buffers cost a retain and a release each. The pointers stay valid while the
    /// writer lives: it holds the buffers and the name, and a column buffer's elements never
    /// move or change while it is alive (appends go past its count, or into new storage).
    package struct Pointers {
        fileprivate enum Values {
            case integer(UnsafePointer<Int64>)
            case double(UnsafePointer<Double>)
            case dictionary(codes: UnsafePointer<UInt32>, offsets: UnsafePointer<Int>, bytes: UnsafePointer<UInt8>)
            case plain(offsets: UnsafePointer<Int>, bytes: UnsafePointer<UInt8>)
            /// Written through the writer's ``CellWriter/source``.
            case other
        }

        fileprivate let key: UnsafeBufferPointer<UInt8>
        fileprivate let values: Values
        /// Whether the column has a validity bitmap; its complete words (`nil` when none), their
        /// count, and the last, partial word.
        fileprivate let hasValidity: Bool
        fileprivate let validWords: UnsafePointer<UInt64>?
        fileprivate let validWordCount: Int
        fileprivate let validTail: UInt64

        /// About how many bytes the cell of `row` takes written (see
        /// ``CellWriter/estimatedSize(_:rows:)``).
        @inline(__always)
        fileprivate func estimatedSize(row: Int) -> Int {
            let size = key.count &+ 4
            if hasValidity {
                let word = row >> 6 < validWordCount ? validWords.unsafelyUnwrapped[row >> 6] : validTail
                if word & (1 << UInt64(row & 63)) == 0 { return size }
            }
            switch values {
            case .integer(let values): return size &+ (values[row] == 0 ? 1 : 20)
            case .double(let values): return size &+ (values[row] == 0 ? 1 : 24)
            case .dictionary(let codes, let offsets, _):
                let code = Int(codes[row])
                return size &+ offsets[code + 1] &- offsets[code]
            case .plain(let offsets, _): return size &+ offsets[row + 1] &- offsets[row]
            case .other: return size &+ 32
            }
        }

        /// The value of `row` as the column stores it (see ``CellWriter/RawValue``).
        @inline(__always)
        package func raw(row: Int) -> RawValue {
            if hasValidity {
                let word = row >> 6 < validWordCount ? validWords.unsafelyUnwrapped[row >> 6] : validTail
                if word & (1 << UInt64(row & 63)) == 0 { return .null }
            }
            switch values {
            case .integer(let values): return .integer(values[row])
            case .double(let values): return .double(values[row])
            case .dictionary(let codes, let offsets, let strings):
                let code = Int(codes[row])
                return .text(UnsafeBufferPointer(start: strings + offsets[code], count: offsets[code + 1] - offsets[code]))
            case .plain(let offsets, let strings):
                return .text(UnsafeBufferPointer(start: strings + offsets[row], count: offsets[row + 1] - offsets[row]))
            case .other: return .other
            }
        }

        /// Appends `"name":` and, when the value of `row` is NULL or of a common kind, the
        /// value; `false` when the caller must write the value (``CellWriter/writeValue(row:into:)``).
        @inline(__always)
        package func write(row: Int, into bytes: inout [UInt8]) -> Bool {
            bytes.append(contentsOf: key)
            if hasValidity {
                let word = row >> 6 < validWordCount ? validWords.unsafelyUnwrapped[row >> 6] : validTail
                if word & (1 << UInt64(row & 63)) == 0 {
                    bytes.append(contentsOf: "null".utf8)
                    return true
                }
            }
            switch values {
            case .integer(let values):
                JSONOutput.appendInteger(values[row], to: &bytes)
            case .double(let values):
                JSONWriter.writeAttributeDouble(values[row], into: &bytes)
            case .dictionary(let codes, let offsets, let strings):
                let code = Int(codes[row])
                JSONWriter.writeString(utf8: UnsafeBufferPointer(start: strings + offsets[code], count: offsets[code + 1] - offsets[code]), into: &bytes)
            case .plain(let offsets, let strings):
                JSONWriter.writeString(utf8: UnsafeBufferPointer(start: strings + offsets[row], count: offsets[row + 1] - offsets[row]), into: &bytes)
            case .other:
                return false
            }
            return true
        }
    }

    /// A cell's value as its column stores it, for the writers of other formats (the `f=pbf`
    /// answers): NULL, an integer (a date as epoch milliseconds), a double, UTF-8 text, or
    /// ``other`` for what only the column's ``/SieveColumns/ScalarValue`` tells (date-only days).
    package enum RawValue {
        case null
        case integer(Int64)
        case double(Double)
        case text(UnsafeBufferPointer<UInt8>)
        case other
    }

    /// About how many bytes the cells of `rows` take written — their names and values, strings
    /// by their length, numbers as at most 20 — read from the columns in one pass over every
    /// cell: the writers reserve that much at once, and the pass brings the cells' words into
    /// the cache with their misses overlapping (each of a wide row's cells is in another
    /// column, so writing them one after the other would wait for each miss in turn).
    package static func estimatedSize(_ cells: [CellWriter], rows: some Sequence<Int>) -> Int {
        cells.withUnsafeBufferPointer { cells in
            var size = 0
            for row in rows {
                for j in cells.indices { size &+= cells[j].pointers.estimatedSize(row: row) }
            }
            return size
        }
    }

    private let key: [UInt8]
    private let source: Source
    private let validity: ValidityBitmap?
    /// See ``Pointers``.
    package let pointers: Pointers

    private init(key: [UInt8], source: Source, validity: ValidityBitmap?) {
        self.key = key
        self.source = source
        self.validity = validity
        func base<T>(_ buffer: ColumnBuffer<T>) -> UnsafePointer<T>? { buffer.withUnsafeBufferPointer { $0.baseAddress } }
        let fast: Pointers.Values
        switch source {
        case .integer(let values), .dateMilliseconds(let values):
            fast = base(values).map { .integer($0) } ?? .other
        case .double(let values):
            fast = base(values).map { .double($0) } ?? .other
        case .dictionary(let codes, let dictionary):
            if let codes = base(codes), let offsets = base(dictionary.offsets), let bytes = base(dictionary.bytes) {
                fast = .dictionary(codes: codes, offsets: offsets, bytes: bytes)
            } else {
                fast = .other
            }
        case .plain(let strings):
            if let offsets = base(strings.offsets), let bytes = base(strings.bytes) {
                fast = .plain(offsets: offsets, bytes: bytes)
            } else {
                fast = .other
            }
        default:
            fast = .other
        }
        let words = validity.flatMap { base($0.fullWords) }
        pointers = Pointers(
            key: key.withUnsafeBufferPointer { $0 }, values: fast, hasValidity: validity != nil, validWords: words,
            validWordCount: words == nil ? 0 : validity?.fullWords.count ?? 0, validTail: validity?.tailWord ?? 0)
    }

    /// This writer writing the 0 and 1 of an integer column as `false` and `true` (other
    /// numbers as they are): a property a file wrote as booleans.
    package func writingBooleans() -> CellWriter {
        guard case .integer(let values) = source else { return self }
        return CellWriter(key: key, source: .boolean(values), validity: validity)
    }

    /// This writer writing ISO-8601 dates in `style` when the instant allows (`yyyy-mm-dd` at
    /// midnight, `yyyy-mm-ddThh:mm:ssZ` without milliseconds): a property a file wrote so.
    package func writingDates(_ style: FileRepresentation.DateStyle) -> CellWriter {
        guard case .dateText(let values) = source else { return self }
        switch style {
        case .day: return CellWriter(key: key, source: .dayText(values), validity: validity)
        case .seconds: return CellWriter(key: key, source: .secondsText(values), validity: validity)
        }
    }

    /// This writer writing the text of `column` (its column, a string column) that is a JSON
    /// array or object as that JSON, other text as a string: a property a file wrote as arrays
    /// or objects, which the table holds as their JSON text.
    package func writingJSON(_ column: Column) -> CellWriter {
        guard case .string = column else { return self }
        return CellWriter(key: key, source: .json(column), validity: validity)
    }

    /// The writers of the fields at `indices` of `table` (schema indices, in output order), laid
    /// out as `layout` says; compact, their member names come from the table's
    /// ``FeatureTable/schemaJSON``, so that setting them up costs no text per field.
    /// With `daysAsMilliseconds`, the days of a date-only field are written as the epoch
    /// milliseconds of their midnight UTC (as a date field's values), for a document that
    /// declares them `esriFieldTypeDate`.
    package static func writers(
        of indices: [Int], in table: FeatureTable, datesAsText: Bool, daysAsMilliseconds: Bool = false, layout: JSONLayout
    ) -> [CellWriter] {
        let columns = table.columns, fields = table.schema.fields
        guard !layout.pretty else {
            let colon = layout.colon
            return indices.map {
                CellWriter(columns[$0], field: fields[$0], datesAsText: datesAsText, daysAsMilliseconds: daysAsMilliseconds, colon: colon)
            }
        }
        let names = table.schemaJSON.memberNames
        return indices.map {
            CellWriter(columns[$0], field: fields[$0], datesAsText: datesAsText, daysAsMilliseconds: daysAsMilliseconds, key: names[$0])
        }
    }

    /// A writer for `column`, the values of `field`; dates as ISO 8601 text when `datesAsText`,
    /// else as epoch milliseconds; the days of a date-only field always as `"yyyy-mm-dd"` (as
    /// ArcGIS writes `esriFieldTypeDateOnly` values) unless `daysAsMilliseconds` (the epoch
    /// milliseconds of their midnight, for a document that declares them `esriFieldTypeDate`);
    /// `colon` separates the name from the value.
    package init(
        _ column: Column, field: Field, datesAsText: Bool, daysAsMilliseconds: Bool = false, colon: [UInt8] = [UInt8(ascii: ":")]
    ) {
        var key: [UInt8] = []
        JSONWriter.writeString(field.name, into: &key)
        key.append(contentsOf: colon)
        self.init(column, field: field, datesAsText: datesAsText, daysAsMilliseconds: daysAsMilliseconds, key: key)
    }

    /// A writer for `column`, the values of `field`, as
    /// ``init(_:field:datesAsText:daysAsMilliseconds:colon:)``, with the member name and
    /// separator given as JSON text (`"name":`).
    package init(_ column: Column, field: Field, datesAsText: Bool, daysAsMilliseconds: Bool = false, key: [UInt8]) {
        let dateOnly = field.type == .dateOnly && !daysAsMilliseconds
        let source: Source
        switch column {
        case .integer(let column): source = .integer(column.values)
        case .double(let column): source = .double(column.values)
        case .date(let column):
            source = dateOnly ? .dayText(column.values) : datesAsText ? .dateText(column.values) : .dateMilliseconds(column.values)
        case .string(let column):
            switch column.encoding {
            case .dictionary(let codes, let dictionary):
                source = .dictionary(codes: codes, dictionary: dictionary)
            case .plain(let strings):
                source = .plain(strings)
            }
        }
        self.init(key: key, source: source, validity: column.validity)
    }

    /// Appends `"name":value` for `row`.
    @inline(__always)
    package func write(row: Int, into bytes: inout [UInt8]) {
        if !pointers.write(row: row, into: &bytes) { writeValue(row: row, into: &bytes) }
    }

    /// Appends `"name":value` for `row` with the writer at `index` of `cells`, copying only its
    /// ``pointers`` (see there).
    @inline(__always)
    package static func write(_ cells: UnsafeBufferPointer<CellWriter>, _ index: Int, row: Int, into bytes: inout [UInt8]) {
        if !cells[index].pointers.write(row: row, into: &bytes) { cells[index].writeValue(row: row, into: &bytes) }
    }

    /// Appends the value of `row` (not NULL) read through ``source``.
    package func writeValue(row: Int, into bytes: inout [UInt8]) {
        switch source {
        case .integer(let values), .dateMilliseconds(let values):
            JSONOutput.appendInteger(values[row], to: &bytes)
        case .double(let values):
            JSONWriter.writeAttributeDouble(values[row], into: &bytes)
        case .dateText(let values):
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: CivilTime.format(milliseconds: values[row]).utf8)
            bytes.append(UInt8(ascii: "\""))
        case .dayText(let values):
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: CivilTime.format(milliseconds: values[row], dateOnlyAtMidnight: true).utf8)
            bytes.append(UInt8(ascii: "\""))
        case .dictionary(let codes, let dictionary):
            JSONOutput.appendString(Int(codes[row]), of: dictionary, to: &bytes)
        case .plain(let strings):
            JSONOutput.appendString(row, of: strings, to: &bytes)
        case .boolean(let values):
            switch values[row] {
            case 0: bytes.append(contentsOf: "false".utf8)
            case 1: bytes.append(contentsOf: "true".utf8)
            default: JSONOutput.appendInteger(values[row], to: &bytes)
            }
        case .secondsText(let values):
            var text = CivilTime.format(milliseconds: values[row])
            if values[row] % 1000 == 0, text.hasSuffix(".000Z") { text = String(text.dropLast(5)) + "Z" }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: text.utf8)
            bytes.append(UInt8(ascii: "\""))
        case .json(let column):
            guard case .string(let text) = column[row] else {
                bytes.append(contentsOf: "null".utf8)
                return
            }
            if let first = text.utf8.first, first == UInt8(ascii: "[") || first == UInt8(ascii: "{"),
                (try? JSONReader.parse(text)) != nil
            {
                bytes.append(contentsOf: text.utf8)
            } else {
                JSONWriter.writeString(text, into: &bytes)
            }
        }
    }
}
