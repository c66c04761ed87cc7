import Foundation
import SieveBase
import SieveColumns
import SieveFeatures
import SieveGeometry
import SieveJSON

/// How ``CSVFile/read(at:options:)`` reads a CSV file.
public struct CSVReadOptions: Hashable, Sendable {
    /// The field delimiter, an ASCII character; `nil` (the default): the most frequent of `,`,
    /// `;`, tab and `|` in the header line.
    public var delimiter: Character?
    /// The column holding the x (longitude) of point geometries, with ``yField``; `nil`: the
    /// first pair found among `lon`/`lat`, `long`/`lat`, `lng`/`lat`, `longitude`/`latitude`,
    /// `x`/`y` and `easting`/`northing` (any case), unless a WKT column is found first.
    public var xField: String?
    /// The column holding the y (latitude) of point geometries, with ``xField``.
    public var yField: String?
    /// The column holding WKT geometries; `nil`: the first of `WKT`, `geometry`, `geom`,
    /// `the_geom`, `wkt_geom` and `shape` (any case).
    public var wktField: String?
    /// The spatial reference of the coordinates (WGS 84 by default).
    public var spatialReference: SpatialReference
    /// How many threads scan a large file: `nil` (the default) for one per core, 1 for the
    /// calling thread only. Results are identical whatever the count.
    public var threads: Int?
    /// Texts smaller than this (4 MiB) are scanned on one thread. Not public: tests lower it to
    /// split small texts.
    var parallelThreshold = 4 << 20

    /// Options; every field chosen by name, the delimiter detected, by default.
    public init(
        delimiter: Character? = nil, xField: String? = nil, yField: String? = nil, wktField: String? = nil,
        spatialReference: SpatialReference = .wgs84, threads: Int? = nil
    ) {
        self.delimiter = delimiter
        self.xField = xField
        self.yField = yField
        self.wktField = wktField
        self.spatialReference = spatialReference
        self.threads = threads
    }
}

/// CSV files as feature tables, read as `ogr2ogr` users expect: a header row of names, the
/// geometry from a WKT column or from x/y columns, each other column typed by its values.
///
/// ```swift
/// let stations = try CSVFile.read(at: "stations.csv")                                   // lon,lat,…
/// let parcels = try CSVFile.read(at: "parcels.csv", options: CSVReadOptions(wktField: "shape_wkt"))
/// ```
///
/// The rules are in <doc:CSVFiles>.
public enum CSVFile {
    /// The column names that hold WKT geometries, in the order they are looked for.
    static let wktNames = ["wkt", "geometry", "geom", "the_geom", "wkt_geom", "shape"]
    /// The x/y column pairs, in the order they are looked for.
    static let pointNames = [("lon", "lat"), ("long", "lat"), ("lng", "lat"), ("longitude", "latitude"), ("x", "y"), ("easting", "northing")]

    /// Reads the CSV file at `path`.
    /// - Throws: ``FileFormatError`` naming the file, the record (from 1, after the header), the
    ///   field and the byte offset: `malformed` for bad quoting or a record with too many fields,
    ///   `invalidValue` for text that is not UTF-8 or coordinates that are not numbers,
    ///   `invalidGeometry` for bad WKT or mixed geometry types, `cannotOpen` when the file
    ///   cannot be read, `invalidOption` for a named column the file does not have.
    public static func read(at path: String, options: CSVReadOptions = CSVReadOptions()) throws(FileFormatError) -> FeatureTable {
        do throws(FileFormatError) {
            let file = try FileBytes(path: path)
            return try file.withUnsafeBytes { (bytes) throws(FileFormatError) in try read(bytes, options: options) }
        } catch {
            throw error.located(path: path)
        }
    }

    /// Reads CSV text.
    /// - Throws: As ``read(at:options:)``.
    public static func read(text: String, options: CSVReadOptions = CSVReadOptions()) throws(FileFormatError) -> FeatureTable {
        let bytes = FileBytes(Array(text.utf8))
        return try bytes.withUnsafeBytes { (raw) throws(FileFormatError) in try read(raw, options: options) }
    }

    static func read(_ bytes: UnsafeRawBufferPointer, options: CSVReadOptions) throws(FileFormatError) -> FeatureTable {
        var start = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 }
        guard start < bytes.count else { throw FileFormatError(.malformed, "the file is empty: a CSV needs a header row", byteOffset: 0) }
        let delimiter: UInt8
        if let chosen = options.delimiter {
            guard let ascii = chosen.asciiValue, ascii != UInt8(ascii: "\""), ascii != 0x0A, ascii != 0x0D else {
                throw FileFormatError(.invalidOption, "the delimiter must be one ASCII character other than a quote or a line end, not \(JSONKey.quoted(String(chosen)))")
            }
            delimiter = ascii
        } else {
            delimiter = CSVRecords.detectDelimiter(bytes, from: start)
        }
        let (headerFields, next) = try CSVRecords.header(bytes, from: start, delimiter: delimiter)
        var names: [String] = []
        var scratch: [UInt8] = []
        for (k, range) in headerFields.enumerated() {
            let name = try CSVRecords.withValue(bytes, range, scratch: &scratch) { (value, _) throws(FileFormatError) -> String in
                guard isValidUTF8(value) else { throw FileFormatError(.invalidValue, "the header is not UTF-8", byteOffset: range.lowerBound) }
                return String(decoding: value, as: UTF8.self)
            }
            names.append(name.isEmpty ? "field_\(k + 1)" : name)
        }
        var seen = Set<String>()
        for (k, name) in names.enumerated() where !seen.insert(name.lowercased()).inserted {
            throw FileFormatError(.malformed, "two columns are named \(JSONKey.quoted(name)) (names are compared ignoring case)", byteOffset: headerFields[k].lowerBound)
        }
        let threads = max(1, options.threads ?? ProcessInfo.processInfo.activeProcessorCount)
        let records = try CSVRecords(
            bytes, from: next, columns: names.count, delimiter: delimiter, threads: threads, parallelThreshold: options.parallelThreshold,
            firstRecord: 1)
        let geometry = try geometryColumns(names, options: options)
        // The attribute columns, typed and built on several threads.
        let attributeIndices = names.indices.filter { $0 != geometry.wkt }
        let built = Locked([Result<(Field, Column), FileFormatError>?](repeating: nil, count: attributeIndices.count))
        let shared = SharedBytes(bytes: bytes)
        let columnNames = names
        DispatchQueue.concurrentPerform(iterations: attributeIndices.count) { i in
            let k = attributeIndices[i]
            let result: Result<(Field, Column), FileFormatError>
            do throws(FileFormatError) {
                result = .success(try CSVColumn.build(shared.bytes, records, field: k, name: columnNames[k]))
            } catch {
                result = .failure(error)
            }
            built.withLock { $0[i] = result }
        }
        var fields: [Field] = []
        var columns: [Column] = []
        for result in built.withLock({ $0 }) {
            switch result {
            case .success(let (field, column)):
                fields.append(field)
                columns.append(column)
            case .failure(let error): throw error
            case nil: throw FileFormatError(.malformed, "a column was not read")
            }
        }
        let rows = records.recordStarts.count
        // The object IDs: an OBJECTID column of unique integers, else 1, 2, 3, ….
        var objectIDName = "OBJECTID"
        if let k = fields.firstIndex(where: { $0.name.lowercased() == "objectid" }), case .integer(let ids) = columns[k], ids.validity == nil,
            Set(ids.values).count == rows
        {
            fields[k] = Field(name: fields[k].name, type: .oid)
            objectIDName = fields[k].name
        } else {
            var suffix = 0
            let taken = Set(fields.map { $0.name.lowercased() })
            while taken.contains(objectIDName.lowercased()) {
                suffix += 1
                objectIDName = "OBJECTID_\(suffix)"
            }
            fields.insert(Field(name: objectIDName, type: .oid), at: 0)
            columns.insert(.integer(Int64Column(values: (0..<rows).map { Int64($0 + 1) })), at: 0)
        }
        let (geometryType, geometries) = try readGeometries(bytes, records, geometry, names: names)
        do throws(FeatureTableError) {
            let schema = try Schema(
                fields: fields, objectIdFieldName: objectIDName, geometryType: geometryType, spatialReference: options.spatialReference)
            return try FeatureTable(schema: schema, columns: columns, geometryColumn: geometries)
        } catch {
            throw FileFormatError(.invalidValue, error.message, fieldName: error.fieldName)
        }
    }

    /// Which columns hold the geometry: a WKT column, or an x and a y column, or none.
    struct GeometryColumns {
        var wkt: Int?
        var x: Int?
        var y: Int?
    }

    static func geometryColumns(_ names: [String], options: CSVReadOptions) throws(FileFormatError) -> GeometryColumns {
        func index(_ name: String, option: String) throws(FileFormatError) -> Int {
            if let exact = names.firstIndex(of: name) { return exact }
            guard let folded = names.firstIndex(where: { $0.lowercased() == name.lowercased() }) else {
                throw FileFormatError(
                    .invalidOption,
                    "\(option) \(JSONKey.quoted(name)): no such column; the columns are \(names.map { JSONKey.quoted($0) }.joined(separator: ", "))")
            }
            return folded
        }
        if let wkt = options.wktField {
            guard options.xField == nil, options.yField == nil else {
                throw FileFormatError(.invalidOption, "name a WKT column or x and y columns, not both")
            }
            return GeometryColumns(wkt: try index(wkt, option: "the WKT column"))
        }
        if options.xField != nil || options.yField != nil {
            guard let x = options.xField, let y = options.yField else { throw FileFormatError(.invalidOption, "name both the x and the y column") }
            return GeometryColumns(x: try index(x, option: "the x column"), y: try index(y, option: "the y column"))
        }
        let lowered = names.map { $0.lowercased() }
        for name in wktNames {
            if let k = lowered.firstIndex(of: name) { return GeometryColumns(wkt: k) }
        }
        for (x, y) in pointNames {
            if let i = lowered.firstIndex(of: x), let j = lowered.firstIndex(of: y) { return GeometryColumns(x: i, y: j) }
        }
        return GeometryColumns()
    }

    /// The geometries of every record and the table's geometry type.
    static func readGeometries(
        _ bytes: UnsafeRawBufferPointer, _ records: CSVRecords, _ columns: GeometryColumns, names: [String]
    ) throws(FileFormatError) -> (GeometryType?, GeometryColumn) {
        let rows = records.recordStarts.count
        var scratch: [UInt8] = []
        if let x = columns.x, let y = columns.y {
            var geometries = GeometryColumn(storage: .points)
            for r in 0..<rows {
                let xValue = try coordinate(bytes, records, record: r, field: x, name: names[x], scratch: &scratch)
                let yValue = try coordinate(bytes, records, record: r, field: y, name: names[y], scratch: &scratch)
                switch (xValue, yValue) {
                case (let px?, let py?): geometries.appendPoint(x: px, y: py)
                case (nil, nil): geometries.append(nil)
                default:
                    throw FileFormatError(
                        .invalidValue, "one coordinate is empty and the other is not", record: r + 1,
                        fieldName: xValue == nil ? names[x] : names[y], byteOffset: records.fieldStart(record: r, field: xValue == nil ? x : y))
                }
            }
            return (.point, geometries)
        }
        guard let wkt = columns.wkt else { return (nil, GeometryColumn()) }
        var tracker = GeometryTypeTracker()
        var geometries: [Geometry?] = []
        geometries.reserveCapacity(rows)
        for r in 0..<rows {
            let end = records.fieldEnds[r * records.columns + wkt]
            let start = records.fieldStart(record: r, field: wkt)
            guard end > start else {
                geometries.append(nil)
                continue
            }
            let geometry = try CSVRecords.withValue(bytes, start..<end, scratch: &scratch) { (value, _) throws(FileFormatError) -> Geometry in
                do throws(GeometryError) {
                    return try Geometry(wkt: String(decoding: value, as: UTF8.self))
                } catch {
                    throw FileFormatError(.invalidGeometry, error.description, record: r + 1, fieldName: names[wkt], byteOffset: start)
                }
            }
            do throws(FeatureTableError) {
                try tracker.add(geometry, name: geometry.kind.rawValue, index: r, objectID: nil)
            } catch {
                throw FileFormatError(.invalidGeometry, error.message, record: r + 1, fieldName: names[wkt], byteOffset: start)
            }
            geometries.append(geometry)
        }
        if tracker.type == .multipoint, tracker.sawPoint {
            do throws(GeometryError) {
                geometries = try GeometryTypeTracker.pointsAsMultipoints(geometries) { (error, _) in error }
            } catch {
                throw FileFormatError(.invalidGeometry, error.message, fieldName: names[wkt])
            }
        }
        return (tracker.type, GeometryColumn(geometries))
    }

    /// The number in field `field` of record `r`, `nil` when empty.
    private static func coordinate(
        _ bytes: UnsafeRawBufferPointer, _ records: CSVRecords, record r: Int, field: Int, name: String, scratch: inout [UInt8]
    ) throws(FileFormatError) -> Double? {
        let end = records.fieldEnds[r * records.columns + field]
        let start = records.fieldStart(record: r, field: field)
        guard end > start else { return nil }
        return try CSVRecords.withValue(bytes, start..<end, scratch: &scratch) { (value, _) throws(FileFormatError) -> Double in
            guard let number = DecimalText.double(value) else {
                let shown = String(decoding: value.prefix(40), as: UTF8.self)
                throw FileFormatError(.invalidValue, "\(JSONKey.quoted(shown)) is not a coordinate (a number)", record: r + 1, fieldName: name, byteOffset: start)
            }
            return number
        }
    }
}

/// One attribute column of a CSV file, typed by its values as the JSON loaders type a property:
/// integers (JSON's syntax: no leading zeros or `+`, so that codes such as `02134` stay texts)
/// as Integer when all fit 32 bits, else BigInteger; numbers with a fraction or exponent as
/// Double; ISO 8601 dates and date-times as Date; anything else as String. An empty field is
/// NULL; a quoted empty field (`""`) is the empty string.
enum CSVColumn {
    static func build(_ bytes: UnsafeRawBufferPointer, _ records: CSVRecords, field k: Int, name: String) throws(FileFormatError) -> (Field, Column) {
        let rows = records.recordStarts.count
        var scratch: [UInt8] = []
        var integers = 0
        var fitInt32 = true
        var numbers = 0
        var dates = 0
        var values = 0
        var maxLength = 0
        for r in 0..<rows {
            let end = records.fieldEnds[r * records.columns + k]
            let start = records.fieldStart(record: r, field: k)
            guard end > start else { continue }
            values += 1
            try CSVRecords.withValue(bytes, start..<end, scratch: &scratch) { (value, quoted) throws(FileFormatError) in
                guard isValidUTF8(value) else {
                    throw FileFormatError(.invalidValue, "the text is not UTF-8 (CSV files are read as UTF-8)", record: r + 1, fieldName: name, byteOffset: start)
                }
                maxLength = max(maxLength, value.count)
                guard !quoted || value.count > 0 else { return }
                switch Self.number(value) {
                case .integer(let integer):
                    integers += 1
                    if fitInt32, Int32(exactly: integer) == nil { fitInt32 = false }
                case .double: numbers += 1
                case nil: if ValueConversion.isISODate(value) { dates += 1 }
                }
            }
        }
        var validity = ValidityBitmap(count: rows, allValid: true)
        var hasNull = false
        func markNull(_ r: Int) {
            validity.set(r, valid: false)
            hasNull = true
        }
        if values > 0, integers == values {
            var column = [Int64](repeating: 0, count: rows)
            for r in 0..<rows {
                guard let value = try text(bytes, records, r, k, &scratch, { (v) throws(FileFormatError) -> Int64? in
                    if case .integer(let i) = Self.number(v) { return i }
                    return nil
                }) else {
                    markNull(r)
                    continue
                }
                column[r] = value
            }
            return (Field(name: name, type: fitInt32 ? .integer : .bigInteger), .integer(Int64Column(values: column, validity: hasNull ? validity : nil)))
        }
        if values > 0, integers + numbers == values {
            var column = [Double](repeating: 0, count: rows)
            for r in 0..<rows {
                guard let value = try text(bytes, records, r, k, &scratch, { (v) throws(FileFormatError) -> Double? in
                    switch Self.number(v) {
                    case .integer(let i): return Double(i)
                    case .double(let d): return d
                    case nil: return nil
                    }
                }) else {
                    markNull(r)
                    continue
                }
                column[r] = value
            }
            return (Field(name: name, type: .double), .double(DoubleColumn(values: column, validity: hasNull ? validity : nil)))
        }
        if values > 0, dates == values {
            var column = [Int64](repeating: 0, count: rows)
            for r in 0..<rows {
                guard let value = try text(bytes, records, r, k, &scratch, { (v) throws(FileFormatError) -> Int64? in CivilTime.parse(v, syntax: .iso8601) }) else {
                    markNull(r)
                    continue
                }
                column[r] = value
            }
            return (Field(name: name, type: .date), .date(Int64Column(values: column, validity: hasNull ? validity : nil)))
        }
        var texts = TextColumnBuilder()
        texts.reserveCapacity(rows)
        for r in 0..<rows {
            let end = records.fieldEnds[r * records.columns + k]
            let start = records.fieldStart(record: r, field: k)
            guard end > start else {
                texts.appendNull()
                markNull(r)
                continue
            }
            try CSVRecords.withValue(bytes, start..<end, scratch: &scratch) { (value, _) throws(FileFormatError) in _ = texts.append(value) }
        }
        return (Field(name: name, type: .string, length: max(1, maxLength)), .string(texts.column(validity: hasNull ? validity : nil)))
    }

    /// `body` of the value of field `k` of record `r`, `nil` for an empty field.
    private static func text<T>(
        _ bytes: UnsafeRawBufferPointer, _ records: CSVRecords, _ r: Int, _ k: Int, _ scratch: inout [UInt8],
        _ body: (UnsafeRawBufferPointer) throws(FileFormatError) -> T?
    ) throws(FileFormatError) -> T? {
        let end = records.fieldEnds[r * records.columns + k]
        let start = records.fieldStart(record: r, field: k)
        guard end > start else { return nil }
        return try CSVRecords.withValue(bytes, start..<end, scratch: &scratch) { (value, _) throws(FileFormatError) in try body(value) }
    }

    enum Number {
        case integer(Int64)
        case double(Double)
    }

    /// The value as a JSON number, when it is one (the whole value).
    static func number(_ value: UnsafeRawBufferPointer) -> Number? {
        guard let first = value.first, first == UInt8(ascii: "-") || (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) else { return nil }
        let buffer = value.bindMemory(to: UInt8.self)
        do throws(JSONNumberError) {
            let (number, end) = try JSONTextReader<JSONSyntaxError>.scanNumber(buffer, at: 0)
            guard end == buffer.count, number.double.isFinite else { return nil }
            if number.isIntegerLiteral, let integer = number.int64 { return .integer(integer) }
            return .double(number.double)
        } catch {
            return nil
        }
    }
}
