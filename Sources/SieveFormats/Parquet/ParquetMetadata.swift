// The parts of Parquet's footer and page headers (parquet.thrift) a GeoParquet reader and
// writer need, read and written with Thrift's compact protocol. Fields GeoSieve does not use
// are skipped when read and not written.

/// Parquet's physical types.
enum ParquetPhysicalType: Int32 {
    case boolean = 0, int32, int64, int96, float, double, byteArray, fixedLenByteArray

    var name: String {
        ["BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"][Int(rawValue)]
    }
}

/// Parquet's compression codecs.
enum ParquetCodec: Int32 {
    case uncompressed = 0, snappy, gzip, lzo, brotli, lz4, zstd, lz4Raw

    var name: String {
        ["UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW"][Int(rawValue)]
    }
}

/// Parquet's encodings (of values and of levels).
enum ParquetEncoding: Int32 {
    case plain = 0
    case plainDictionary = 2
    case rle = 3
    case bitPacked = 4
    case deltaBinaryPacked = 5
    case deltaLengthByteArray = 6
    case deltaByteArray = 7
    case rleDictionary = 8
    case byteStreamSplit = 9

    static func name(_ raw: Int32) -> String {
        switch ParquetEncoding(rawValue: raw) {
        case .plain: "PLAIN"
        case .plainDictionary: "PLAIN_DICTIONARY"
        case .rle: "RLE"
        case .bitPacked: "BIT_PACKED"
        case .deltaBinaryPacked: "DELTA_BINARY_PACKED"
        case .deltaLengthByteArray: "DELTA_LENGTH_BYTE_ARRAY"
        case .deltaByteArray: "DELTA_BYTE_ARRAY"
        case .rleDictionary: "RLE_DICTIONARY"
        case .byteStreamSplit: "BYTE_STREAM_SPLIT"
        case nil: "encoding \(raw)"
        }
    }
}

/// The logical types (annotations) GeoSieve reads; the others are `other`.
enum ParquetLogicalType: Hashable {
    case string
    case enumeration
    case json
    case date
    case decimal(scale: Int32, precision: Int32)
    case time
    /// A timestamp, in units of 10⁻³ (milliseconds), 10⁻⁶ or 10⁻⁹ seconds.
    case timestamp(unitsPerSecond: Int64)
    case integer(bitWidth: Int8, signed: Bool)
    case uuid
    case geometry(crs: String?)
    case geography
    case other(Int16)
}

/// A node of the schema: a column (a leaf, with a physical type) or a group.
struct ParquetSchemaElement {
    var type: ParquetPhysicalType?
    var typeLength: Int32?
    /// 0 required, 1 optional, 2 repeated; `nil` for the root.
    var repetition: Int32?
    var name: String
    var childCount: Int32?
    var convertedType: Int32?
    var scale: Int32?
    var precision: Int32?
    var logicalType: ParquetLogicalType?

    init(name: String) { self.name = name }

    static func read(_ r: inout ThriftCompactReader) throws(FileFormatError) -> ParquetSchemaElement {
        var element = ParquetSchemaElement(name: "")
        var physical: Int32?
        try r.readStruct { (r, id, type) throws(FileFormatError) in
            switch id {
            case 1: physical = try r.i32(type)
            case 2: element.typeLength = try r.i32(type)
            case 3: element.repetition = try r.i32(type)
            case 4: element.name = try r.string()
            case 5: element.childCount = try r.i32(type)
            case 6: element.convertedType = try r.i32(type)
            case 7: element.scale = try r.i32(type)
            case 8: element.precision = try r.i32(type)
            case 10 where type == .structure: element.logicalType = try readLogicalType(&r)
            default: try r.skip(type)
            }
        }
        if let physical {
            guard let known = ParquetPhysicalType(rawValue: physical) else { throw r.failure("physical type \(physical)") }
            element.type = known
        }
        return element
    }

    private static func readLogicalType(_ r: inout ThriftCompactReader) throws(FileFormatError) -> ParquetLogicalType? {
        var result: ParquetLogicalType?
        try r.readStruct { (r, id, type) throws(FileFormatError) in
            guard type == .structure else {
                try r.skip(type)
                return
            }
            switch id {
            case 1: result = .string
            case 4: result = .enumeration
            case 6: result = .date
            case 12: result = .json
            case 14: result = .uuid
            case 18: result = .geography
            case 5:
                var scale: Int32 = 0
                var precision: Int32 = 0
                try r.readStruct { (r, id, type) throws(FileFormatError) in
                    switch id {
                    case 1: scale = try r.i32(type)
                    case 2: precision = try r.i32(type)
                    default: try r.skip(type)
                    }
                }
                result = .decimal(scale: scale, precision: precision)
                return
            case 7: result = .time
            case 8:
                var units: Int64 = 1_000
                try r.readStruct { (r, id, type) throws(FileFormatError) in
                    guard id == 2, type == .structure else {
                        try r.skip(type)
                        return
                    }
                    try r.readStruct { (r, unit, type) throws(FileFormatError) in
                        units = [1: 1_000, 2: 1_000_000, 3: 1_000_000_000][unit] ?? units
                        try r.skip(type)
                    }
                }
                result = .timestamp(unitsPerSecond: units)
                return
            case 10:
                var width: Int8 = 32
                var signed = true
                try r.readStruct { (r, id, type) throws(FileFormatError) in
                    switch (id, type) {
                    case (1, .byte): width = Int8(bitPattern: try r.byte())
                    case (2, _) where type == .boolTrue || type == .boolFalse: signed = r.bool(type)
                    default: try r.skip(type)
                    }
                }
                result = .integer(bitWidth: width, signed: signed)
                return
            case 17:
                var crs: String?
                try r.readStruct { (r, id, type) throws(FileFormatError) in
                    if id == 1, type == .binary { crs = try r.string() } else { try r.skip(type) }
                }
                result = .geometry(crs: crs)
                return
            default: result = .other(id)
            }
            try r.skip(type)
        }
        return result
    }

    func write(_ w: inout ThriftCompactWriter) {
        w.structure(nil) { w in
            if let type { w.i32(1, type.rawValue) }
            if let typeLength { w.i32(2, typeLength) }
            if let repetition { w.i32(3, repetition) }
            w.string(4, name)
            if let childCount { w.i32(5, childCount) }
            if let convertedType { w.i32(6, convertedType) }
            if let logicalType {
                w.structure(10) { w in
                    switch logicalType {
                    case .string: w.structure(1) { _ in }
                    case .date: w.structure(6) { _ in }
                    case .json: w.structure(12) { _ in }
                    case .timestamp(let units):
                        w.structure(8) { w in
                            w.bool(1, true)
                            w.structure(2) { w in w.structure(units == 1_000 ? 1 : units == 1_000_000 ? 2 : 3) { _ in } }
                        }
                    case .integer(let width, let signed):
                        w.structure(10) { w in
                            w.fieldHeader(1, .byte)
                            w.varintByte(UInt8(bitPattern: width))
                            w.bool(2, signed)
                        }
                    default: break
                    }
                }
            }
        }
    }
}

/// A column chunk's (or page's) statistics: PLAIN-encoded bounds and the NULL count.
struct ParquetStatistics {
    var min: [UInt8]?
    var max: [UInt8]?
    var nullCount: Int64?

    static func read(_ r: inout ThriftCompactReader) throws(FileFormatError) -> ParquetStatistics {
        var statistics = ParquetStatistics()
        var legacyMin: [UInt8]?
        var legacyMax: [UInt8]?
        try r.readStruct { (r, id, type) throws(FileFormatError) in
            switch (id, type) {
            case (1, .binary): legacyMax = try r.binary()
            case (2, .binary): legacyMin = try r.binary()
            case (3, _): statistics.nullCount = try r.i64(type)
            case (5, .binary): statistics.max = try r.binary()
            case (6, .binary): statistics.min = try r.binary()
            default: try r.skip(type)
            }
        }
        // The deprecated min and max are kept only where the new ones are missing; they are
        // right (signed order) for the numeric types GeoSieve prunes on.
        if statistics.min == nil, statistics.max == nil {
            statistics.min = legacyMin
            statistics.max = legacyMax
            statistics.legacy = legacyMin != nil || legacyMax != nil
        }
        return statistics
    }

    /// Whether the bounds are the deprecated `min` and `max` (signed comparisons: wrong for
    /// byte arrays).
    var legacy = false

    func write(_ w: inout ThriftCompactWriter, id: Int16) {
        w.structure(id) { w in
            if let nullCount { w.i64(3, nullCount) }
            if let max { w.binary(5, max) }
            if let min { w.binary(6, min) }
        }
    }
}

/// A column chunk's metadata.
struct ParquetColumnMetaData {
    var type: ParquetPhysicalType = .boolean
    var encodings: [Int32] = []
    var path: [String] = []
    var codec: Int32 = 0
    var valueCount: Int64 = 0
    var uncompressedSize: Int64 = 0
    var compressedSize: Int64 = 0
    var dataPageOffset: Int64 = 0
    var dictionaryPageOffset: Int64?
    var statistics: ParquetStatistics?
    /// The bounding box of the geospatial statistics (a GEOMETRY column's), when written.
    var geospatialBox: (xmin: Double, xmax: Double, ymin: Double, ymax: Double)?

    static func read(_ r: inout ThriftCompactReader) throws(FileFormatError) -> ParquetColumnMetaData {
        var meta = ParquetColumnMetaData()
        var physical: Int32 = 0
        try r.readStruct { (r, id, type) throws(FileFormatError) in
            switch id {
            case 1: physical = try r.i32(type)
            case 2 where type == .list: meta.encodings = try r.readList { (r, type) throws(FileFormatError) in try r.i32(type) }
            case 3 where type == .list: meta.path = try r.readList { (r, _) throws(FileFormatError) in try r.string() }
            case 4: meta.codec = try r.i32(type)
            case 5: meta.valueCount = try r.i64(type)
            case 6: meta.uncompressedSize = try r.i64(type)
            case 7: meta.compressedSize = try r.i64(type)
            case 9: meta.dataPageOffset = try r.i64(type)
            case 11: meta.dictionaryPageOffset = try r.i64(type)
            case 12 where type == .structure: meta.statistics = try ParquetStatistics.read(&r)
            case 17 where type == .structure: meta.geospatialBox = try readGeospatialBox(&r)
            default: try r.skip(type)
            }
        }
        guard let known = ParquetPhysicalType(rawValue: physical) else { throw r.failure("physical type \(physical)") }
        meta.type = known
        return meta
    }

    private static func readGeospatialBox(_ r: inout ThriftCompactReader) throws(FileFormatError) -> (
        xmin: Double, xmax: Double, ymin: Double, ymax: Double
    )? {
        var box: (xmin: Double, xmax: Double, ymin: Double, ymax: Double)?
        try r.readStruct { (r, id, type) throws(FileFormatError) in
            guard id == 1, type == .structure else {
                try r.skip(type)
                return
            }
            var values: [Double] = [.nan, .nan, .nan, .nan]
            try r.readStruct { (r, id, type) throws(FileFormatError) in
                if (1...4).contains(id), type == .double { values[Int(id) - 1] = try r.double() } else { try r.skip(type) }
            }
            if values.allSatisfy({ $0.isFinite }) { box = (values[0], values[1], values[2], values[3]) }
        }
        return box
    }

    func write(_ w: inout ThriftCompactWriter, id: Int16) {
        w.structure(id) { w in
            w.i32(1, type.rawValue)
            w.listHeader(2, .i32, count: encodings.count)
            for encoding in encodings { w.zigzag(Int64(encoding)) }
            w.listHeader(3, .binary, count: path.count)
            for name in path { w.stringValue(name) }
            w.i32(4, codec)
            w.i64(5, valueCount)
            w.i64(6, uncompressedSize)
            w.i64(7, compressedSize)
            w.i64(9, dataPageOffset)
            if let dictionaryPageOffset { w.i64(11, dictionaryPageOffset) }
            statistics?.write(&w, id: 12)
        }
    }
}

/// A row group: its column chunks' metadata, in schema order, and its row count.
struct ParquetRowGroup {
    var columns: [ParquetColumnMetaData] = []
    var totalByteSize: Int64 = 0
    var rowCount: Int64 = 0

    static func read(_ r: inout ThriftCompactReader) throws(FileFormatError) -> ParquetRowGroup {
        var group = ParquetRowGroup()
        try r.readStruct { (r, id, type) throws(FileFormatError) in
            switch id {
            case 1 where type == .list:
                group.columns = try r.readList { (r, type) throws(FileFormatError) in
                    guard type == .structure else { throw r.failure("a column chunk of type \(type)") }
                    var meta: ParquetColumnMetaData?
                    var external = false
                    try r.readStruct { (r, id, type) throws(FileFormatError) in
                        switch id {
                        case 1 where type == .binary: external = !(try r.string()).isEmpty
                        case 3 where type == .structure: meta = try ParquetColumnMetaData.read(&r)
                        default: try r.skip(type)
                        }
                    }
                    guard !external else {
                        throw FileFormatError(.unsupported, "a column chunk stored in another file (file_path)", byteOffset: r.position)
                    }
                    guard let meta else { throw r.failure("a column chunk without its metadata") }
                    return meta
                }
            case 2: group.totalByteSize = try r.i64(type)
            case 3: group.rowCount = try r.i64(type)
            default: try r.skip(type)
            }
        }
        return group
    }

    func write(_ w: inout ThriftCompactWriter) {
        w.structure(nil) { w in
            w.listHeader(1, .structure, count: columns.count)
            for column in columns {
                w.structure(nil) { w in
                    // 0: no column metadata outside the footer.
                    w.i64(2, 0)
                    column.write(&w, id: 3)
                }
            }
            w.i64(2, totalByteSize)
            w.i64(3, rowCount)
        }
    }
}

/// The footer: the schema, the row groups and the key-value metadata (where GeoParquet keeps
/// its `geo` document).
struct ParquetFileMetaData {
    var version: Int32 = 1
    var schema: [ParquetSchemaElement] = []
    var rowCount: Int64 = 0
    var rowGroups: [ParquetRowGroup] = []
    var keyValues: [(key: String, value: String?)] = []
    var createdBy: String?

    static func read(_ r: inout ThriftCompactReader) throws(FileFormatError) -> ParquetFileMetaData {
        var meta = ParquetFileMetaData()
        try r.readStruct { (r, id, type) throws(FileFormatError) in
            switch id {
            case 1: meta.version = try r.i32(type)
            case 2 where type == .list:
                meta.schema = try r.readList { (r, type) throws(FileFormatError) in
                    guard type == .structure else { throw r.failure("a schema element of type \(type)") }
                    return try ParquetSchemaElement.read(&r)
                }
            case 3: meta.rowCount = try r.i64(type)
            case 4 where type == .list:
                meta.rowGroups = try r.readList { (r, type) throws(FileFormatError) in
                    guard type == .structure else { throw r.failure("a row group of type \(type)") }
                    return try ParquetRowGroup.read(&r)
                }
            case 5 where type == .list:
                meta.keyValues = try r.readList { (r, type) throws(FileFormatError) in
                    guard type == .structure else { throw r.failure("a key-value pair of type \(type)") }
                    var key = ""
                    var value: String?
                    try r.readStruct { (r, id, type) throws(FileFormatError) in
                        switch (id, type) {
                        case (1, .binary): key = try r.string()
                        case (2, .binary): value = try r.string()
                        default: try r.skip(type)
                        }
                    }
                    return (key, value)
                }
            case 6 where type == .binary: meta.createdBy = try r.string()
            default: try r.skip(type)
            }
        }
        return meta
    }

    func encoded() -> [UInt8] {
        ThriftCompactWriter.message { w in
            w.i32(1, version)
            w.listHeader(2, .structure, count: schema.count)
            for element in schema { element.write(&w) }
            w.i64(3, rowCount)
            w.listHeader(4, .structure, count: rowGroups.count)
            for group in rowGroups { group.write(&w) }
            w.listHeader(5, .structure, count: keyValues.count)
            for (key, value) in keyValues {
                w.structure(nil) { w in
                    w.string(1, key)
                    if let value { w.string(2, value) }
                }
            }
            if let createdBy { w.string(6, createdBy) }
            // Each column's statistics in the order of its type (readers ignore min_value and
            // max_value without it).
            let leaves = schema.filter { $0.type != nil }.count
            w.listHeader(7, .structure, count: leaves)
            for _ in 0..<leaves { w.structure(nil) { w in w.structure(1) { _ in } } }
        }
    }
}

/// A page header.
struct ParquetPageHeader {
    /// 0 data page, 1 index page, 2 dictionary page, 3 data page v2.
    var type: Int32 = 0
    var uncompressedSize: Int32 = 0
    var compressedSize: Int32 = 0
    /// Values (NULLs included) of a data page, entries of a dictionary page.
    var valueCount: Int32 = 0
    var encoding: Int32 = 0
    var definitionLevelEncoding: Int32 = ParquetEncoding.rle.rawValue
    /// Data page v2: the NULLs, the bytes of the (uncompressed) levels, whether the values are
    /// compressed.
    var nullCount: Int32 = 0
    var definitionLevelsLength: Int32 = 0
    var repetitionLevelsLength: Int32 = 0
    var isCompressed = true
    var statistics: ParquetStatistics?

    static func read(_ r: inout ThriftCompactReader) throws(FileFormatError) -> ParquetPageHeader {
        var header = ParquetPageHeader()
        try r.readStruct { (r, id, type) throws(FileFormatError) in
            switch id {
            case 1: header.type = try r.i32(type)
            case 2: header.uncompressedSize = try r.i32(type)
            case 3: header.compressedSize = try r.i32(type)
            case 5 where type == .structure:
                try r.readStruct { (r, id, type) throws(FileFormatError) in
                    switch id {
                    case 1: header.valueCount = try r.i32(type)
                    case 2: header.encoding = try r.i32(type)
                    case 3: header.definitionLevelEncoding = try r.i32(type)
                    default: try r.skip(type)
                    }
                }
            case 7 where type == .structure:
                try r.readStruct { (r, id, type) throws(FileFormatError) in
                    switch id {
                    case 1: header.valueCount = try r.i32(type)
                    case 2: header.encoding = try r.i32(type)
                    default: try r.skip(type)
                    }
                }
            case 8 where type == .structure:
                try r.readStruct { (r, id, type) throws(FileFormatError) in
                    switch id {
                    case 1: header.valueCount = try r.i32(type)
                    case 2: header.nullCount = try r.i32(type)
                    case 4: header.encoding = try r.i32(type)
                    case 5: header.definitionLevelsLength = try r.i32(type)
                    case 6: header.repetitionLevelsLength = try r.i32(type)
                    case 7 where type == .boolTrue || type == .boolFalse: header.isCompressed = r.bool(type)
                    default: try r.skip(type)
                    }
                }
            default: try r.skip(type)
            }
        }
        guard header.uncompressedSize >= 0, header.compressedSize >= 0, header.valueCount >= 0, header.nullCount >= 0,
            header.definitionLevelsLength >= 0, header.repetitionLevelsLength >= 0
        else { throw r.failure("a page header with a negative size or count") }
        return header
    }

    /// A v1 data page's or a dictionary page's header.
    func encoded() -> [UInt8] {
        ThriftCompactWriter.message { w in
            w.i32(1, type)
            w.i32(2, uncompressedSize)
            w.i32(3, compressedSize)
            if type == 2 {
                w.structure(7) { w in
                    w.i32(1, valueCount)
                    w.i32(2, encoding)
                }
            } else {
                w.structure(5) { w in
                    w.i32(1, valueCount)
                    w.i32(2, encoding)
                    w.i32(3, ParquetEncoding.rle.rawValue)
                    w.i32(4, ParquetEncoding.rle.rawValue)
                }
            }
        }
    }
}
