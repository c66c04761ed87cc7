import SieveColumns
import SieveFeatures
import SieveGeometry
import SieveJSON
import SieveProjection

/// How ``GeoParquet/write(_:rows:to:options:)`` writes.
public struct GeoParquetWriteOptions: Hashable, Sendable {
    /// The page compression.
    public enum Compression: String, Hashable, Sendable, CaseIterable {
        /// No compression.
        case none
        /// Snappy (the default, as pyarrow, GeoPandas and GDAL write).
        case snappy
        /// GZIP (zlib, level 6).
        case gzip
        /// Zstandard (level 3).
        case zstd
    }

    /// The page compression (default: Snappy).
    public var compression: Compression
    /// The most rows in a row group (default 65,536, as GDAL writes); each row group's statistics
    /// let readers skip it.
    public var rowGroupSize: Int
    /// Whether to write the `bbox` covering column (GeoParquet 1.1) that lets readers skip row
    /// groups and rows by box without decoding geometries (default: yes).
    public var covering: Bool

    /// Default options: Snappy, row groups of 65,536 rows, with the covering.
    public init(compression: Compression = .snappy, rowGroupSize: Int = 65_536, covering: Bool = true) {
        self.compression = compression
        self.rowGroupSize = rowGroupSize
        self.covering = covering
    }
}

extension GeoParquet {
    /// Writes `table` (or its `rows`) as a GeoParquet 1.1 file: the attributes (every column
    /// optional), the geometry as WKB in `geometry` with the `geo` metadata, and the `bbox`
    /// covering. The object-ID field is left out when it holds the positions 0, 1, 2, … or is
    /// named `FID`, as for shapefiles and FlatGeobuf files. Types are in <doc:GeoParquetFiles>.
    ///
    /// - Throws: ``FileFormatError/Kind/cannotWrite`` for a geometry collection or a row group
    ///   size under 1; ``FileFormatError/Kind/writeFailed`` when the file cannot be written. The
    ///   file is written beside its target and renamed into place.
    public static func write(
        _ table: FeatureTable, rows: [Int]? = nil, to path: String, options: GeoParquetWriteOptions = GeoParquetWriteOptions()
    ) throws(FileFormatError) {
        do throws(FileFormatError) {
            try AtomicFile.write(try encode(table, rows: rows, options: options), to: path)
        } catch {
            throw error.located(path: path)
        }
    }

    /// The bytes of the file ``write(_:rows:to:options:)`` would write, in memory.
    public static func encode(
        _ table: FeatureTable, rows: [Int]? = nil, options: GeoParquetWriteOptions = GeoParquetWriteOptions()
    ) throws(FileFormatError) -> [UInt8] {
        try GeoParquetWriter(table, rows: rows ?? table.liveRows, options: options).bytes()
    }
}

/// Writes a table as GeoParquet bytes: v1 data pages, PLAIN values, RLE definition levels, one
/// page per column chunk.
struct GeoParquetWriter {
    let table: FeatureTable
    let rows: [Int]
    let options: GeoParquetWriteOptions
    let codec: ParquetCodec
    /// The attribute columns written: field index, schema element.
    let columns: [(field: Int, element: ParquetSchemaElement)]
    let geometryName: String?
    let coveringName: String?

    init(_ table: FeatureTable, rows: [Int], options: GeoParquetWriteOptions) throws(FileFormatError) {
        guard options.rowGroupSize >= 1 else { throw FileFormatError(.cannotWrite, "a row group size of \(options.rowGroupSize)") }
        self.table = table
        self.rows = rows
        self.options = options
        codec =
            switch options.compression {
            case .none: .uncompressed
            case .snappy: .snappy
            case .gzip: .gzip
            case .zstd: .zstd
            }
        let schema = table.schema
        var skipped: Int?
        if let index = schema.index(ofField: schema.objectIdFieldName), case .integer(let ids) = table.columns[index],
            FeatureTable.isPositionalObjectIDName(schema.objectIdFieldName) || rows.enumerated().allSatisfy({ ids.values[$0.element] == Int64($0.offset) })
        {
            skipped = index
        }
        var columns: [(Int, ParquetSchemaElement)] = []
        for (k, field) in schema.fields.enumerated() where k != skipped {
            var element = ParquetSchemaElement(name: field.name)
            element.repetition = 1
            switch field.type {
            case .smallInteger:
                element.type = .int32
                element.logicalType = .integer(bitWidth: 16, signed: true)
                element.convertedType = 16
            case .integer:
                element.type = .int32
            case .oid, .bigInteger:
                element.type = .int64
            case .single:
                element.type = .float
            case .double:
                element.type = .double
            case .string, .guid, .globalID:
                element.type = .byteArray
                element.logicalType = .string
                element.convertedType = 0
            case .date:
                element.type = .int64
                element.logicalType = .timestamp(unitsPerSecond: 1_000)
                element.convertedType = 9
            case .dateOnly:
                element.type = .int32
                element.logicalType = .date
                element.convertedType = 6
            }
            columns.append((k, element))
        }
        self.columns = columns
        let taken = Set(columns.map { $0.1.name.lowercased() })
        func free(_ candidates: [String]) -> String {
            for name in candidates where !taken.contains(name.lowercased()) { return name }
            var k = 1
            while taken.contains("\(candidates[0])_\(k)") { k += 1 }
            return "\(candidates[0])_\(k)"
        }
        geometryName = schema.geometryType == nil ? nil : free(["geometry", "geom"])
        coveringName = geometryName != nil && options.covering ? free(["bbox", "geometry_bbox"]) : nil
    }

    func bytes() throws(FileFormatError) -> [UInt8] {
        var out: [UInt8] = [0x50, 0x41, 0x52, 0x31]
        var groups: [ParquetRowGroup] = []
        var geometryTypes = Set<String>()
        var extent = Envelope.empty
        var start = 0
        while start < rows.count {
            let slice = Array(rows[start..<min(rows.count, start + options.rowGroupSize)])
            var group = ParquetRowGroup(rowCount: Int64(slice.count))
            for (field, element) in columns {
                group.columns.append(try writeChunk(attribute: field, element: element, rows: slice, into: &out))
            }
            if let geometryName {
                var wkb = ParquetByteValues()
                var boxes: [Envelope?] = []
                for row in slice {
                    guard let geometry = table.geometry(row: row), !geometry.isEmpty else {
                        boxes.append(nil)
                        continue
                    }
                    if case .collection = geometry {
                        throw FileFormatError(.cannotWrite, "a geometry collection in a one-type layer", record: row + 1)
                    }
                    let bytes = geometry.wkb()
                    bytes.withUnsafeBytes { wkb.append($0) }
                    geometryTypes.insert(Self.typeName(bytes))
                    let box = geometry.envelope
                    extent.expand(toInclude: box)
                    boxes.append(box)
                }
                var element = ParquetSchemaElement(name: geometryName)
                element.type = .byteArray
                element.repetition = 1
                group.columns.append(
                    try writeChunk(
                        path: [geometryName], type: .byteArray, present: boxes.map { $0 != nil }, values: .bytes(wkb), statistics: false, into: &out))
                if let coveringName {
                    let names = ["xmin", "ymin", "xmax", "ymax"]
                    for (k, name) in names.enumerated() {
                        let values = boxes.compactMap { box in box.map { [$0.xmin, $0.ymin, $0.xmax, $0.ymax][k] } }
                        group.columns.append(
                            try writeChunk(
                                path: [coveringName, name], type: .double, present: boxes.map { $0 != nil }, values: .doubles(values), statistics: true,
                                into: &out))
                    }
                }
            }
            group.totalByteSize = group.columns.reduce(0) { $0 + $1.uncompressedSize }
            groups.append(group)
            start += options.rowGroupSize
        }
        var meta = ParquetFileMetaData()
        meta.version = 1
        meta.rowCount = Int64(rows.count)
        meta.rowGroups = groups
        meta.createdBy = "GeoSieve"
        var root = ParquetSchemaElement(name: "schema")
        root.childCount = Int32(columns.count + (geometryName == nil ? 0 : 1) + (coveringName == nil ? 0 : 1))
        meta.schema = [root] + columns.map(\.element)
        if let geometryName {
            var element = ParquetSchemaElement(name: geometryName)
            element.type = .byteArray
            element.repetition = 1
            meta.schema.append(element)
            if let coveringName {
                var group = ParquetSchemaElement(name: coveringName)
                group.repetition = 1
                group.childCount = 4
                meta.schema.append(group)
                // Required members of an optional struct: a row without geometry has no box.
                for name in ["xmin", "ymin", "xmax", "ymax"] {
                    var child = ParquetSchemaElement(name: name)
                    child.type = .double
                    child.repetition = 0
                    meta.schema.append(child)
                }
            }
            // A table of no geometry (no rows, or none with a geometry) declares its schema's
            // type, so that it reads back as a layer of that type.
            if geometryTypes.isEmpty { geometryTypes = Self.declaredTypeNames(table.schema.geometryType) }
            meta.keyValues = [("geo", try geoMetadata(geometryName: geometryName, types: geometryTypes, extent: extent))]
        }
        let footer = meta.encoded()
        out += footer
        var length = LittleEndianWriter()
        length.uint32(UInt32(footer.count))
        out += length.bytes
        out += [0x50, 0x41, 0x52, 0x31]
        return out
    }

    /// The GeoParquet type name of a WKB geometry (ISO type codes, as GeoSieve writes them).
    static func typeName(_ wkb: [UInt8]) -> String {
        guard wkb.count >= 5 else { return "Unknown" }
        let code = wkb.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 1, as: UInt32.self)) }
        let names = ["Point", "LineString", "Polygon", "MultiPoint", "MultiLineString", "MultiPolygon"]
        let base = Int(code % 1000)
        guard (1...6).contains(base) else { return "Unknown" }
        return names[base - 1] + (code / 1000 == 1 || code / 1000 == 3 ? " Z" : "")
    }

    /// The GeoParquet type names a layer of `type` may hold (what GeoSieve writes for it).
    static func declaredTypeNames(_ type: GeometryType?) -> Set<String> {
        switch type {
        case .point: ["Point"]
        case .multipoint: ["MultiPoint"]
        case .polyline: ["LineString", "MultiLineString"]
        case .polygon, .envelope: ["Polygon", "MultiPolygon"]
        case nil: []
        }
    }

    /// The `geo` document.
    private func geoMetadata(geometryName: String, types: Set<String>, extent: Envelope) throws(FileFormatError) -> String {
        var column = JSONObject()
        column.append("encoding", .string("WKB"))
        column.append("geometry_types", .array(types.sorted().map { .string($0) }))
        if !extent.isEmpty {
            column.append("bbox", .array([extent.xmin, extent.ymin, extent.xmax, extent.ymax].map { .double($0) }))
        }
        let wkid = table.schema.spatialReference.wkid
        if wkid == 0 {
            column.append("crs", .null())
        } else if wkid != 4326 {
            let text: String
            do throws(ProjectionError) {
                text = try ProjectionContext.withCurrent { (context) throws(ProjectionError) in try context.projJSON(of: SpatialReference(wkid: wkid)) }
            } catch {
                throw FileFormatError(.cannotWrite, "the spatial reference \(wkid) has no PROJJSON definition: \(error.message)")
            }
            do throws(JSONSyntaxError) {
                column.append("crs", try JSONTextReader<JSONSyntaxError>.parse(text))
            } catch {
                throw FileFormatError(.cannotWrite, "PROJ's PROJJSON of \(wkid) does not parse: \(error.message)")
            }
        }
        if let coveringName {
            var bbox = JSONObject()
            for name in ["xmin", "ymin", "xmax", "ymax"] { bbox.append(name, .array([.string(coveringName), .string(name)])) }
            column.append("covering", .object(JSONObject([("bbox", .object(bbox))])))
        }
        let document = JSONObject([
            ("version", .string("1.1.0")), ("primary_column", .string(geometryName)),
            ("columns", .object(JSONObject([(geometryName, .object(column))]))),
        ])
        return JSONValue.object(document).description
    }

    /// Writes the chunk of attribute `field` for `rows`.
    private func writeChunk(attribute field: Int, element: ParquetSchemaElement, rows: [Int], into out: inout [UInt8]) throws(FileFormatError)
        -> ParquetColumnMetaData
    {
        var present: [Bool] = []
        present.reserveCapacity(rows.count)
        let values: ParquetValues
        switch table.columns[field] {
        case .integer(let c), .date(let c):
            var v: [Int64] = []
            v.reserveCapacity(rows.count)
            let days = element.logicalType == .date
            for row in rows {
                let valid = c.validity?.isValid(row) ?? true
                present.append(valid)
                if valid {
                    let value = c.values[row]
                    v.append(days ? (value >= 0 ? value / 86_400_000 : -((-value + 86_399_999) / 86_400_000)) : value)
                }
            }
            values = .integers(v)
        case .double(let c):
            var v: [Double] = []
            v.reserveCapacity(rows.count)
            for row in rows {
                let valid = c.validity?.isValid(row) ?? true
                present.append(valid)
                if valid { v.append(c.values[row]) }
            }
            values = .doubles(v)
        case .string(let c):
            var v = ParquetByteValues()
            for row in rows {
                let text = c[row]
                present.append(text != nil)
                if let text { Array(text.utf8).withUnsafeBytes { v.append($0) } }
            }
            values = .bytes(v)
        }
        return try writeChunk(path: [element.name], type: element.type ?? .byteArray, present: present, values: values, statistics: true, into: &out)
    }

    /// Writes a column chunk of one v1 data page: RLE definition levels (every column is
    /// optional), then the PLAIN values, compressed together; with `statistics`, the chunk's
    /// bounds and NULL count.
    private func writeChunk(
        path: [String], type: ParquetPhysicalType, present: [Bool], values: ParquetValues, statistics: Bool, into out: inout [UInt8]
    ) throws(FileFormatError) -> ParquetColumnMetaData {
        var levels = RLEHybridEncoder(bitWidth: 1)
        levels.encode(present.map { $0 ? 1 : 0 })
        var page = LittleEndianWriter()
        page.uint32(UInt32(levels.bytes.count))
        page.bytes += levels.bytes
        var bounds: (min: [UInt8], max: [UInt8])?
        switch values {
        case .integers(let v):
            if type == .int32 {
                for value in v { page.int32(Int32(truncatingIfNeeded: value)) }
                if let low = v.min(), let high = v.max() { bounds = (Self.le(Int32(truncatingIfNeeded: low)), Self.le(Int32(truncatingIfNeeded: high))) }
            } else {
                for value in v { page.int64(value) }
                if let low = v.min(), let high = v.max() { bounds = (Self.le(low), Self.le(high)) }
            }
        case .doubles(let v):
            let numbers = v.filter { !$0.isNaN }
            if type == .float {
                for value in v { page.uint32(Float(value).bitPattern) }
                if let low = numbers.min(), let high = numbers.max() {
                    bounds = (Self.le((low == 0 ? -0.0 : Float(low)).bitPattern), Self.le((high == 0 ? 0.0 : Float(high)).bitPattern))
                }
            } else {
                for value in v { page.double(value) }
                if let low = numbers.min(), let high = numbers.max() {
                    bounds = (Self.le((low == 0 ? -0.0 : low).bitPattern), Self.le((high == 0 ? 0.0 : high).bitPattern))
                }
            }
        case .bytes(let v):
            var low: ArraySlice<UInt8>?
            var high: ArraySlice<UInt8>?
            for k in 0..<v.count {
                let length = v.offsets[k + 1] - v.offsets[k]
                page.uint32(UInt32(length))
                let value = v.storage[v.offsets[k]..<v.offsets[k + 1]]
                page.bytes += value
                if statistics {
                    if low.map({ value.lexicographicallyPrecedes($0) }) ?? true { low = value }
                    if high.map({ $0.lexicographicallyPrecedes(value) }) ?? true { high = value }
                }
            }
            if let low, let high { bounds = (Array(low), Array(high)) }
        }
        let raw = page.bytes
        let compressed = try ParquetCompression.compress(raw, codec: codec)
        var header = ParquetPageHeader()
        header.type = 0
        header.uncompressedSize = Int32(clamping: raw.count)
        header.compressedSize = Int32(clamping: compressed.count)
        header.valueCount = Int32(clamping: present.count)
        header.encoding = ParquetEncoding.plain.rawValue
        guard raw.count < Int(Int32.max), compressed.count < Int(Int32.max) else {
            throw FileFormatError(.cannotWrite, "a column chunk of \(raw.count) bytes; write smaller row groups")
        }
        let headerBytes = header.encoded()
        var meta = ParquetColumnMetaData()
        meta.type = type
        meta.encodings = [ParquetEncoding.plain.rawValue, ParquetEncoding.rle.rawValue]
        meta.path = path
        meta.codec = codec.rawValue
        meta.valueCount = Int64(present.count)
        meta.uncompressedSize = Int64(headerBytes.count + raw.count)
        meta.compressedSize = Int64(headerBytes.count + compressed.count)
        meta.dataPageOffset = Int64(out.count)
        if statistics {
            var s = ParquetStatistics()
            s.nullCount = Int64(present.count(where: { !$0 }))
            s.min = bounds?.min
            s.max = bounds?.max
            meta.statistics = s
        }
        out += headerBytes
        out += compressed
        return meta
    }

    private static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }
}
