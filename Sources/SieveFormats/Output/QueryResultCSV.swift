import SieveFeatures
import SieveColumns
import SieveGeometry
import SieveJSON

extension FeatureQueryResult {
    /// The features as comma-separated values, one record per feature, as
    /// `ogr2ogr -f CSV -lco GEOMETRY=AS_WKT` writes them:
    ///
    /// ```
    /// WKT,OBJECTID,name,founded
    /// POINT (10.7 59.9),7,Oslo,1048-01-01T00:00:00.000Z
    /// "POLYGON ((0 0, 1 0, 1 1, 0 0))",8,"Smith, John",
    /// ```
    ///
    /// - A header row names the columns: `WKT` first when the result returns geometries, then
    ///   the result's fields in order.
    /// - The geometry is Well-Known Text (``/SieveGeometry/Geometry/wkt``, coordinates rounded with
    ///   ``FeatureWriterOptions/coordinatePrecision``); a feature without one has an empty field.
    /// - Integers in decimal; doubles in the shortest text that reads back to the same value,
    ///   whole ones with `.0` (as in ``geoJSON``); dates as ISO 8601 UTC texts
    ///   `yyyy-mm-ddThh:mm:ss.sssZ`; strings as they are.
    /// - NULL is an empty field, unquoted; the empty string is `""`, so the two stay apart.
    /// - A field is quoted (`"…"`, a `"` inside doubled) only when it holds a comma, a quote,
    ///   a carriage return or a line feed, starts or ends with a space or a tab, or is empty.
    /// - Records end with a line feed (`\n`), as GDAL, DuckDB and most Unix tools write CSV;
    ///   RFC 4180 names CRLF, which CSV readers take as well as LF. Line breaks inside quoted
    ///   fields are kept as they are.
    /// - There is no place for ``/SieveFeatures/FeatureQueryResult/exceededTransferLimit``; it is
    ///   not written.
    public func csv(options: FeatureWriterOptions = FeatureWriterOptions()) -> String {
        text(.csv, options: options)
    }

    /// ``csv(options:)`` appended to `bytes`, handed to `flush` whenever it reaches the chunk
    /// size.
    func writeCSV<Failure: Error>(
        into bytes: inout [UInt8], options: FeatureWriterOptions, output: inout OutputChunks,
        flush: ([UInt8]) throws(Failure) -> Void
    ) throws(Failure) {
        let schema = table.schema
        let format = options.coordinateFormat
        var first = true
        if returnsGeometry {
            bytes.append(contentsOf: "WKT".utf8)
            first = false
        }
        for index in fieldIndices {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            CSVText.appendField(Array(schema.fields[index].name.utf8), to: &bytes)
        }
        bytes.append(UInt8(ascii: "\n"))
        let cells = fieldIndices.map { CSVCellWriter(table.columns[$0], field: table.schema.fields[$0]) }
        let number: (Double) -> String = { format.text($0) }
        let stored = storedGeometries
        var wkt: [UInt8] = []
        for (i, row) in rows.enumerated() {
            var first = true
            if returnsGeometry {
                wkt.removeAll(keepingCapacity: true)
                if let stored, stored.writeWKT(row: row, format: format, into: &wkt) {
                    // Written straight from the column.
                    CSVText.appendField(wkt, to: &bytes)
                } else if let geometry = geometry(at: i) {
                    let wkt = format == .shortest ? geometry.wkt : geometry.wkt(formattingNumbers: number)
                    CSVText.appendField(Array(wkt.utf8), to: &bytes)
                }
                first = false
            }
            for cell in cells {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                cell.write(row: row, into: &bytes)
            }
            bytes.append(UInt8(ascii: "\n"))
            try output.featureWritten(&bytes, flush: flush)
        }
    }
}

/// RFC 4180 field text.
enum CSVText {
    /// Whether `field` must be quoted: it is empty, holds a comma, a quote, CR or LF, or starts
    /// or ends with a space or a tab.
    static func needsQuotes<Bytes: Collection<UInt8>>(_ field: Bytes) -> Bool {
        guard let first = field.first else { return true }
        var last = first
        for byte in field {
            switch byte {
            case UInt8(ascii: ","), UInt8(ascii: "\""), UInt8(ascii: "\r"), UInt8(ascii: "\n"): return true
            default: last = byte
            }
        }
        return isBlank(first) || isBlank(last)
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    /// Appends `field`, quoted when it needs to be, a `"` inside doubled.
    static func appendField<Bytes: Collection<UInt8>>(_ field: Bytes, to bytes: inout [UInt8]) {
        guard needsQuotes(field) else {
            bytes.append(contentsOf: field)
            return
        }
        bytes.append(UInt8(ascii: "\""))
        for byte in field {
            if byte == UInt8(ascii: "\"") { bytes.append(UInt8(ascii: "\"")) }
            bytes.append(byte)
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

/// Writes one column's field for any row, set up once per column (in time that does not grow
/// with the column).
struct CSVCellWriter {
    private enum Source {
        case integer(ColumnBuffer<Int64>)
        case double(ColumnBuffer<Double>)
        case date(ColumnBuffer<Int64>)
        /// Days (a date-only field), written `yyyy-mm-dd`.
        case day(ColumnBuffer<Int64>)
        /// Each row's string quoted as it is written (quoting the whole dictionary up front
        /// would cost as much as the column has distinct strings, however few rows are written).
        case dictionary(codes: ColumnBuffer<UInt32>, dictionary: StringStorage)
        case plain(StringStorage)
    }

    private let source: Source
    private let validity: ValidityBitmap?

    /// A writer for `column`, the values of `field`.
    init(_ column: Column, field: Field) {
        let dateOnly = field.type == .dateOnly
        validity = column.validity
        switch column {
        case .integer(let column): source = .integer(column.values)
        case .double(let column): source = .double(column.values)
        case .date(let column): source = dateOnly ? .day(column.values) : .date(column.values)
        case .string(let column):
            switch column.encoding {
            case .dictionary(let codes, let dictionary):
                source = .dictionary(codes: codes, dictionary: dictionary)
            case .plain(let strings):
                source = .plain(strings)
            }
        }
    }

    /// Appends the field of `row` (nothing for NULL).
    @inline(__always)
    func write(row: Int, into bytes: inout [UInt8]) {
        if let validity, !validity.isValid(row) { return }
        switch source {
        case .integer(let values):
            JSONOutput.appendInteger(values[row], to: &bytes)
        case .double(let values):
            // Not-a-number and infinities have no CSV form: an empty field, as NULL.
            if values[row].isFinite { JSONWriter.writeAttributeDouble(values[row], into: &bytes) }
        case .date(let values):
            bytes.append(contentsOf: CivilTime.format(milliseconds: values[row]).utf8)
        case .day(let values):
            bytes.append(contentsOf: CivilTime.format(milliseconds: values[row], dateOnlyAtMidnight: true).utf8)
        case .dictionary(let codes, let dictionary):
            let code = Int(codes[row])
            CSVText.appendField(dictionary.bytes[dictionary.offsets[code]..<dictionary.offsets[code + 1]], to: &bytes)
        case .plain(let strings):
            CSVText.appendField(strings.bytes[strings.offsets[row]..<strings.offsets[row + 1]], to: &bytes)
        }
    }
}
