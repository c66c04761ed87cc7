import Foundation
import SieveColumns
import SieveFeatures
import SieveGeometry
import SieveJSON
import SieveSQL
import SieveTestSupport
import Testing

@testable import SieveFormats

/// GeoParquet files written and read back (every field type, every codec, many row groups), the
/// encodings checked against bytes derived from the format's specification, box and where-clause
/// reads against filtering every row, and broken files. Files written by pyarrow, GeoPandas and
/// DuckDB are read in the interoperability suite below and by `Scripts/test-geoparquet.sh`.
@Suite("GeoParquet")
struct GeoParquetTests {
    static let codecs: [GeoParquetWriteOptions.Compression] = [.none, .snappy, .gzip, .zstd]

    static func cities() throws -> FeatureTable {
        try FeatureTable.load(contentsOf: fixtureURL("naturalearth_cities.geojson"))
    }

    /// The values of every field but the object ID, row by row.
    static func rows(_ table: FeatureTable, skipping: Set<String> = []) -> [[String: ScalarValue]] {
        (0..<table.count).map { row in
            var values: [String: ScalarValue] = [:]
            for field in table.schema.fields where field.type != .oid && !skipping.contains(field.name) {
                values[field.name] = table.value(row: row, field: field.name)
            }
            return values
        }
    }

    static func number(_ value: ScalarValue) -> Double {
        switch value {
        case .integer(let v): Double(v)
        case .double(let v): v
        default: 0
        }
    }

    /// `table` with another spatial reference.
    static func with(_ table: FeatureTable, wkid: Int) throws -> FeatureTable {
        let schema = table.schema
        return try FeatureTable(
            schema: try Schema(
                fields: schema.fields, objectIdFieldName: schema.objectIdFieldName, geometryType: schema.geometryType,
                spatialReference: SpatialReference(wkid: wkid)),
            columns: table.columns, geometryColumn: table.geometryColumn)
    }

    // MARK: - Encodings, from the specification

    @Test("the RLE/bit-packed hybrid: runs (low bit 0) and bit-packed groups (low bit 1), as Encodings.md lays them out")
    func hybridFromSpecification() throws {
        // A run of 2 values 1 at bit width 1 (the bytes pyarrow writes for two present values).
        try [UInt8]([0x04, 0x01]).withBytes { (raw) throws(FileFormatError) in
            var decoder = try RLEHybridDecoder(raw, start: 0, end: raw.count, bitWidth: 1)
            #expect(try decoder.decode(count: 2) == [1, 1])
        }
        // One group of eight 3-bit values 0…7, packed from the least significant bit: the
        // example of Encodings.md (10001000 11000110 11111010).
        try [UInt8]([0x03, 0b1000_1000, 0b1100_0110, 0b1111_1010]).withBytes { (raw) throws(FileFormatError) in
            var decoder = try RLEHybridDecoder(raw, start: 0, end: raw.count, bitWidth: 3)
            #expect(try decoder.decode(count: 8) == [0, 1, 2, 3, 4, 5, 6, 7])
        }
        // What the encoder writes reads back, for runs, groups and their mixes.
        var random = SeededGenerator(seed: 29)
        for _ in 0..<200 {
            let width = Int.random(in: 1...20, using: &random)
            var values: [UInt32] = []
            while values.count < Int.random(in: 0...300, using: &random) {
                let value = UInt32.random(in: 0...(UInt32(1) << UInt32(width) - 1), using: &random)
                values += Array(repeating: value, count: Bool.random(using: &random) ? Int.random(in: 1...40, using: &random) : 1)
            }
            var encoder = RLEHybridEncoder(bitWidth: width)
            encoder.encode(values)
            try encoder.bytes.withBytes { (raw) throws(FileFormatError) in
                var decoder = try RLEHybridDecoder(raw, start: 0, end: raw.count, bitWidth: width)
                #expect(try decoder.decode(count: values.count) == values)
            }
        }
    }

    @Test("DELTA_BINARY_PACKED: 1…5 (all deltas the minimum) and 7, 5, 3, 1, 2, 3, 4, 5 (the second example of Encodings.md)")
    func deltaBinaryPacked() throws {
        // Block 128, 4 miniblocks, 5 values, first 1 (zigzag 2); min delta 1 (zigzag 2), widths 0.
        try [UInt8]([0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 0, 0, 0]).withBytes { (raw) throws(FileFormatError) in
            var cursor = ParquetValueCursor(bytes: raw, position: 0, end: raw.count)
            #expect(try cursor.deltaBinaryPacked() == [1, 2, 3, 4, 5])
        }
        // Deltas -2, -2, -2, 1, 1, 1, 1: min delta -2 (zigzag 3), relative 0, 0, 0, 3, 3, 3, 3 in
        // 2 bits each: 0b11_000000 = 0xC0, 0b11_11_11 = 0x3F, then padding to 32 values (8 bytes).
        var bytes: [UInt8] = [0x80, 0x01, 0x04, 0x08, 0x0E, 0x03, 2, 0, 0, 0, 0xC0, 0x3F]
        bytes += [UInt8](repeating: 0, count: 6)
        try bytes.withBytes { (raw) throws(FileFormatError) in
            var cursor = ParquetValueCursor(bytes: raw, position: 0, end: raw.count)
            #expect(try cursor.deltaBinaryPacked() == [7, 5, 3, 1, 2, 3, 4, 5])
        }
    }

    @Test("Thrift's compact protocol: what the writer writes reads back; deep nesting and lengths past the end are errors")
    func thrift() throws {
        var meta = ParquetFileMetaData()
        var root = ParquetSchemaElement(name: "schema")
        root.childCount = 1
        var column = ParquetSchemaElement(name: "when")
        column.type = .int64
        column.repetition = 1
        column.logicalType = .timestamp(unitsPerSecond: 1_000)
        meta.schema = [root, column]
        meta.rowCount = 1 << 40
        meta.keyValues = [("geo", "{}"), ("empty", nil)]
        var chunk = ParquetColumnMetaData()
        chunk.type = .int64
        chunk.path = ["when"]
        chunk.statistics = ParquetStatistics(min: [1, 2], max: [3], nullCount: 0)
        meta.rowGroups = [ParquetRowGroup(columns: [chunk], totalByteSize: 7, rowCount: 1 << 40)]
        let bytes = meta.encoded()
        let read = try bytes.withBytes { (raw) throws(FileFormatError) in
            var reader = ThriftCompactReader(raw, start: 0, end: raw.count)
            return try ParquetFileMetaData.read(&reader)
        }
        #expect(read.rowCount == 1 << 40)
        #expect(read.schema.map(\.name) == ["schema", "when"])
        #expect(read.schema[1].logicalType == .timestamp(unitsPerSecond: 1_000))
        #expect(read.keyValues.map(\.key) == ["geo", "empty"] && read.keyValues[1].value == nil)
        #expect(read.rowGroups[0].columns[0].statistics?.min == [1, 2])
        #expect(read.rowGroups[0].columns[0].statistics?.nullCount == 0)
        // Structs nested 10,000 deep (field 1 of type struct, again and again).
        let deep = [UInt8](repeating: 0x1C, count: 10_000)
        let error = try #require(
            throws: FileFormatError.self,
            performing: {
                try deep.withBytes { (raw) throws(FileFormatError) in
                    var reader = ThriftCompactReader(raw, start: 0, end: raw.count)
                    try reader.skip(.structure)
                }
            })
        #expect(error.message.contains("nested more than 64"))
        // A binary whose length runs past the end.
        #expect(throws: FileFormatError.self) {
            try [UInt8]([0x18, 0xFF, 0x01, 0x41]).withBytes { (raw) throws(FileFormatError) in
                var reader = ThriftCompactReader(raw, start: 0, end: raw.count)
                try reader.skip(.structure)
            }
        }
    }

    // MARK: - Round trips

    @Test("every field type and NULL reads back as written, with every codec and one row group or many")
    func fieldTypesRoundTrip() throws {
        let table = try ShapefileTests.everyType()
        for codec in Self.codecs {
            for groupSize in [1, 3, 65_536] {
                let bytes = try GeoParquet.encode(table, options: GeoParquetWriteOptions(compression: codec, rowGroupSize: groupSize))
                let layer = try GeoParquet.read(bytes: bytes, name: "types")
                #expect(layer.rowGroups == (table.count + groupSize - 1) / groupSize)
                let read = layer.table
                #expect(read.spatialReference == .wgs84)
                #expect(
                    read.schema.fields.map { "\($0.name) \($0.type.rawValue)" } == [
                        "FID esriFieldTypeOID", "OBJECTID esriFieldTypeBigInteger", "NAME esriFieldTypeString", "SMALL esriFieldTypeSmallInteger",
                        "COUNT esriFieldTypeInteger", "BIG esriFieldTypeBigInteger", "RATE esriFieldTypeDouble", "DAY esriFieldTypeDateOnly",
                        "population_estimate esriFieldTypeInteger", "population_estimated esriFieldTypeInteger",
                    ], "\(codec)")
                #expect(read.count == table.count)
                for row in 0..<table.count {
                    #expect(read.value(row: row, field: "OBJECTID") == .integer(table.objectIDs[row]))
                    for field in table.schema.fields where field.type != .oid {
                        #expect(read.value(row: row, field: field.name) == table.value(row: row, field: field.name), "\(field.name) \(row) \(codec)")
                    }
                    #expect(read.geometry(row: row) == table.geometry(row: row))
                }
            }
        }
    }

    @Test("countries (polygons with holes and several parts) and dates survive; the written types and extent are in the geo metadata")
    func polygonsAndDates() throws {
        let countries = try FeatureTable.load(contentsOf: fixtureURL("naturalearth_lowres.geojson"))
        let bytes = try GeoParquet.encode(countries, options: GeoParquetWriteOptions(compression: .zstd, rowGroupSize: 40))
        let read = try GeoParquet.read(bytes: bytes).table
        #expect(read.count == countries.count)
        for row in 0..<countries.count {
            #expect(read.geometry(row: row) == countries.geometry(row: row))
        }
        #expect(Self.rows(read, skipping: ["OBJECTID"]) == Self.rows(countries, skipping: ["OBJECTID"]))
        #expect(read.value(row: 5, field: "OBJECTID") == .integer(countries.objectIDs[5]))
        let geo = try bytes.withBytes { (raw) throws(FileFormatError) in
            try ParquetFile(raw).metadata.keyValues.first { $0.key == "geo" }?.value
        }
        let column = try GeoParquetGeometryColumn.parse(try #require(geo))
        #expect(column.geometryTypes == ["MultiPolygon", "Polygon"])
        #expect(column.covering == [["bbox", "xmin"], ["bbox", "ymin"], ["bbox", "xmax"], ["bbox", "ymax"]])
        // Instants keep their milliseconds; days before 1970 stay days.
        let fields = [Field(name: "ID", type: .oid), Field(name: "AT", type: .date), Field(name: "ON", type: .dateOnly)]
        let dated = try FeatureTable.load(
            geoJSON: #"{"type":"FeatureCollection","features":[{"type":"Feature","id":1,"properties":{"AT":"1969-12-31T23:59:59.999Z","ON":"1601-01-01"},"geometry":null},{"type":"Feature","id":2,"properties":{"AT":"2262-04-11T23:47:16.854Z","ON":null},"geometry":null}]}"#,
            schema: fields)
        let back = try GeoParquet.read(bytes: try GeoParquet.encode(dated)).table
        #expect(back.value(row: 0, field: "AT") == dated.value(row: 0, field: "AT"))
        #expect(back.value(row: 0, field: "ON") == dated.value(row: 0, field: "ON"))
        #expect(back.value(row: 1, field: "AT") == dated.value(row: 1, field: "AT"))
        #expect(back.value(row: 1, field: "ON") == .null)
    }

    @Test("a layer of no geometry (no rows, or rows without one) keeps its geometry type: geometry_types declares it", arguments: [GeometryType.point, .multipoint, .polyline, .polygon])
    func typeWithoutGeometries(_ type: GeometryType) throws {
        for rows in [0, 2] {
            let schema = try Schema(fields: [Field(name: "ID", type: .oid)], objectIdFieldName: "ID", geometryType: type, spatialReference: SpatialReference(wkid: 4326))
            let table = try FeatureTable(
                schema: schema, columns: [.integer(Int64Column(values: (0..<Int64(rows)).map { $0 + 1 }))],
                geometryColumn: GeometryColumn(Array(repeating: nil, count: rows)))
            let bytes = try GeoParquet.encode(table)
            let back = try GeoParquet.read(bytes: bytes).table
            #expect(back.count == rows)
            #expect(back.schema.geometryType == type, "\(rows) rows")
            // Written again, the same bytes.
            #expect(try GeoParquet.encode(back) == bytes)
        }
    }

    @Test("a geometry column of no rows and no declared types reads as a table without geometry that keeps the file's reference; written, it has no geometry column to carry one")
    func typelessGeometryColumn() throws {
        let schema = try Schema(fields: [Field(name: "ID", type: .oid)], objectIdFieldName: "ID", geometryType: .point, spatialReference: SpatialReference(wkid: 2263))
        let empty = try FeatureTable(schema: schema, columns: [.integer(Int64Column(values: []))], geometryColumn: GeometryColumn([]))
        // The same file with its geo metadata declaring no types (padded to the same length, so
        // that the footer's lengths still hold).
        var bytes = try GeoParquet.encode(empty)
        let declared = Array(#""geometry_types":["Point"]"#.utf8)
        let undeclared = Array(#""geometry_types":[       ]"#.utf8)
        let at = try #require(bytes.indices.first { bytes[$0...].starts(with: declared) })
        bytes.replaceSubrange(at..<(at + declared.count), with: undeclared)
        let table = try GeoParquet.read(bytes: bytes).table
        #expect(table.schema.geometryType == nil)
        #expect(table.spatialReference.wkid == 2263)
        let back = try GeoParquet.read(bytes: try GeoParquet.encode(table)).table
        #expect(back.schema.geometryType == nil && back.spatialReference.wkid == 0)
    }

    @Test("a spatial reference other than WGS 84 is written as PROJJSON and read back as its EPSG code")
    func spatialReference() throws {
        let table = try FeatureTable.load(
            geoJSON: #"{"type":"FeatureCollection","features":[{"type":"Feature","id":1,"properties":{},"geometry":{"type":"Point","coordinates":[1000000,200000]}}]}"#)
        let projected = try Self.with(table, wkid: 2263)
        let bytes = try GeoParquet.encode(projected)
        #expect(try GeoParquet.read(bytes: bytes).table.spatialReference.wkid == 2263)
        let unknown = try Self.with(table, wkid: 0)
        #expect(try GeoParquet.read(bytes: try GeoParquet.encode(unknown)).table.spatialReference.wkid == 0)
    }

    // MARK: - Reading less

    @Test("a box read returns exactly the rows whose geometry boxes meet the box, and skips row groups by the covering's statistics")
    func boxReads() throws {
        let cities = try Self.cities()
        // Sorted by x, so that row groups cover bands of longitude.
        let order = (0..<cities.count).sorted { (cities.geometry(row: $0)?.envelope.xmin ?? 0) < (cities.geometry(row: $1)?.envelope.xmin ?? 0) }
        let bytes = try GeoParquet.encode(cities, rows: order, options: GeoParquetWriteOptions(rowGroupSize: 10))
        let all = try GeoParquet.read(bytes: bytes).table
        var random = SeededGenerator(seed: 7)
        var skipped = 0
        for _ in 0..<60 {
            let x = Double.random(in: -180...170, using: &random)
            let y = Double.random(in: -80...70, using: &random)
            let box = Envelope(xmin: x, ymin: y, xmax: x + Double.random(in: 0...40, using: &random), ymax: y + Double.random(in: 0...30, using: &random))
            for covering in [true, false] {
                let file = covering ? bytes : try GeoParquet.encode(cities, rows: order, options: GeoParquetWriteOptions(rowGroupSize: 10, covering: false))
                let layer = try GeoParquet.read(bytes: file, options: GeoParquetReadOptions(box: box))
                #expect(Set(layer.table.objectIDs) == FlatGeobufTests.boxFiltered(all, box), "\(box)")
                // The same rows, attributes included, as the whole read's.
                for row in 0..<layer.table.count {
                    let id = layer.table.objectIDs[row]
                    #expect(layer.table.value(row: row, field: "name") == all.value(row: Int(id), field: "name"))
                }
                if covering { skipped += layer.rowGroups - layer.rowGroupsRead } else { #expect(layer.rowGroupsRead == layer.rowGroups) }
            }
        }
        #expect(skipped > 60 * 10)
    }

    @Test("a where clause skips only row groups none of whose rows satisfies it: answers equal those of the whole read")
    func whereClauseRowGroups() throws {
        let countries = try FeatureTable.load(contentsOf: fixtureURL("naturalearth_lowres.geojson"))
        let order = (0..<countries.count).sorted {
            Self.number(countries.value(row: $0, field: "pop_est")) < Self.number(countries.value(row: $1, field: "pop_est"))
        }
        let bytes = try GeoParquet.encode(countries, rows: order, options: GeoParquetWriteOptions(rowGroupSize: 8))
        let all = try GeoParquet.read(bytes: bytes).table
        let clauses = [
            "pop_est > 100000000", "pop_est >= 1e9", "pop_est < 1000", "pop_est <= 140", "pop_est = 140", "140 = pop_est",
            "pop_est BETWEEN 1000000 AND 2000000", "gdp_md_est IN (16, 3, 1000000000)", "pop_est > 5e8 OR gdp_md_est < 20",
            "pop_est > 5e8 AND name = 'India'", "name = 'France'", "pop_est IS NULL", "NOT pop_est > 1e8", "pop_est > -1 AND gdp_md_est > 2e7",
            "gdp_md_est > 21433226.5", "gdp_md_est >= 21433226", "gdp_md_est < 9223372036854775807", "1e8 < pop_est",
        ]
        var skippedAny = false
        for clause in clauses {
            let filter = try ParquetStatisticsFilter(whereClause: clause)
            let layer = try GeoParquet.read(bytes: bytes, options: GeoParquetReadOptions(rowGroupFilter: filter))
            let expected = try all.queryFeatures(QueryParameters(whereClause: clause)).rows.map { all.objectIDs[$0] }
            let got = try layer.table.queryFeatures(QueryParameters(whereClause: clause)).rows.map { layer.table.objectIDs[$0] }
            #expect(got == expected, "\(clause)")
            if layer.rowGroupsRead < layer.rowGroups { skippedAny = true }
        }
        #expect(skippedAny)
        let selective = try GeoParquet.read(
            bytes: bytes, options: GeoParquetReadOptions(rowGroupFilter: try ParquetStatisticsFilter(whereClause: "pop_est > 100000000")))
        // The groups of 8 sorted rows holding a country of more than 100 million people.
        let groups = Set((0..<all.count).filter { Self.number(all.value(row: $0, field: "pop_est")) > 1e8 }.map { $0 / 8 })
        #expect(selective.rowGroupsRead == groups.count)
        #expect(groups.count < selective.rowGroups / 4)
    }

    @Test("an integer compared with a double bound exactly, at and around 2⁵³")
    func exactComparisons() {
        typealias B = ParquetStatisticsFilter.Bound
        #expect(ParquetStatisticsFilter.compare(B.integer(9_007_199_254_740_993), B.double(9_007_199_254_740_992)) == 1)
        #expect(ParquetStatisticsFilter.compare(B.double(9_007_199_254_740_992), B.integer(9_007_199_254_740_993)) == -1)
        #expect(ParquetStatisticsFilter.compare(B.integer(3), B.double(2.5)) == 1)
        #expect(ParquetStatisticsFilter.compare(B.integer(-3), B.double(-2.5)) == -1)
        #expect(ParquetStatisticsFilter.compare(B.integer(2), B.double(2)) == 0)
        #expect(ParquetStatisticsFilter.compare(B.integer(.max), B.double(9.3e18)) == -1)
        #expect(ParquetStatisticsFilter.compare(B.integer(.min), B.double(-9.3e18)) == 1)
    }

    @Test("only the columns asked for are read; an unknown one is an error naming the file's columns")
    func columns() throws {
        let bytes = try GeoParquet.encode(try Self.cities())
        let layer = try GeoParquet.read(bytes: bytes, options: GeoParquetReadOptions(columns: ["NAME"]))
        #expect(layer.table.schema.fields.map(\.name) == ["FID_1", "name"] || layer.table.schema.fields.map(\.name) == ["FID", "name"])
        let error = try #require(throws: FileFormatError.self) { try GeoParquet.read(bytes: bytes, options: GeoParquetReadOptions(columns: ["nope"])) }
        #expect(error.kind == .invalidOption)
        #expect(error.message.contains("nope") && error.message.contains("name"))
    }

    // MARK: - Broken files

    @Test("truncated and mutated files are errors, never crashes; the error says where")
    func brokenFiles() throws {
        let bytes = try GeoParquet.encode(try Self.cities(), options: GeoParquetWriteOptions(compression: .snappy, rowGroupSize: 50))
        for length in stride(from: 0, to: bytes.count, by: 131) {
            #expect(throws: FileFormatError.self) { try GeoParquet.read(bytes: Array(bytes[0..<length])) }
        }
        var random = SeededGenerator(seed: 11)
        var failures = 0
        for _ in 0..<400 {
            var mutated = bytes
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                mutated[Int.random(in: 0..<mutated.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            do {
                _ = try GeoParquet.read(bytes: mutated)
            } catch {
                failures += 1
            }
        }
        #expect(failures > 0)
        var magic = bytes
        magic[0] = 0x51
        let error = try #require(throws: FileFormatError.self) { try GeoParquet.read(bytes: magic) }
        #expect(error.description == #"malformed file byte 0: not a Parquet file: it does not start with "PAR1""#)
        // A page's error names the row group and the column.
        let layout = try bytes.withBytes { (raw) throws(FileFormatError) in try ParquetFile(raw).metadata }
        var broken = bytes
        let offset = Int(layout.rowGroups[1].columns[1].dataPageOffset)
        broken[offset] = 0x15
        broken[offset + 1] = 0x09  // a page type of -5
        broken[offset + 2] = 0x15
        broken[offset + 3] = 0x7F  // a size past the chunk
        let pageError = try #require(throws: FileFormatError.self) { try GeoParquet.read(bytes: broken) }
        #expect(pageError.rowGroup == 2)
        #expect(pageError.fieldName != nil)
    }
}

/// Files written by pyarrow, GeoPandas and DuckDB (Tests/Fixtures/geoparquet, with what those
/// libraries read in them in `expected.json`, written by its `make_fixtures.py`): row counts, NULL
/// counts, sample rows' values and geometries, references.
@Suite("GeoParquet files of other writers")
struct GeoParquetFixtureTests {
    var directory: URL { fixtureURL("geoparquet") }

    /// The value `expected` (JSON, in the conventions of `expected.json`) stands for, in a field
    /// of `type`. (GeoSieve's JSON reader: its numbers are correctly rounded.)
    static func value(_ expected: JSONValue, type: FieldType) throws -> ScalarValue {
        if expected.isNull { return .null }
        switch type {
        case .date, .dateOnly:
            let text = try #require(expected.stringValue)
            return .date(try #require(CivilTime.parse(text.hasSuffix("Z") || text.count == 10 ? text : text + "Z", syntax: .iso8601)))
        case .string, .guid, .globalID:
            return .string(try #require(expected.stringValue))
        case .single, .double:
            return .double(try #require(expected.doubleValue))
        default:
            if let flag = expected.boolValue { return .integer(flag ? 1 : 0) }
            return .integer(try #require(expected.numberValue?.int64))
        }
    }

    @Test("every fixture reads with the row count, NULL counts, sample values, geometries and reference the writing library reads")
    func fixtures() throws {
        let text = try String(contentsOf: directory.appendingPathComponent("expected.json"), encoding: .utf8)
        let document = try JSONTextReader<JSONSyntaxError>.parse(text)
        let files = try #require(document["files"]?.objectValue?.members)
        #expect(files.count >= 15)
        for (name, file) in files.sorted(by: { $0.key < $1.key }) {
            let layer = try GeoParquet.read(at: directory.appendingPathComponent(name).path)
            let table = layer.table
            #expect(table.count == file["rows"]?.numberValue?.int64.map(Int.init), "\(name)")
            if let crs = file["geo"]?["crs"]?.stringValue {
                #expect(table.spatialReference.wkid == (crs == "OGC:CRS84" ? 4326 : Int(crs.split(separator: ":").last ?? "")), "\(name)")
            }
            for column in file["columns"]?.arrayValue ?? [] {
                guard let columnName = column["name"]?.stringValue, column["role"]?.stringValue == "attribute" else { continue }
                guard table.schema.fields.contains(where: { $0.name == columnName }) else {
                    Issue.record("\(name): column \(columnName) not read (skipped: \(layer.skippedColumns))")
                    continue
                }
                let nulls = (0..<table.count).filter { table.value(row: $0, field: columnName) == .null }.count
                #expect(nulls == column["nulls"]?.numberValue?.int64.map(Int.init), "\(name): \(columnName)")
            }
            for sample in file["sample_rows"]?.arrayValue ?? [] {
                let row = try #require(sample["row"]?.numberValue?.int64.map(Int.init))
                for (field, expected) in sample["values"]?.objectValue?.members ?? [] {
                    guard let type = table.schema.fields.first(where: { $0.name == field })?.type else { continue }
                    let got = table.value(row: row, field: field)
                    let want = try Self.value(expected, type: type)
                    #expect(got == want, "\(name) row \(row) \(field)")
                }
                if let wkt = sample["geometry"]?.stringValue {
                    let want = try Geometry(wkt: wkt)
                    #expect(table.geometry(row: row) == want, "\(name) row \(row)")
                } else {
                    #expect(table.geometry(row: row) == nil, "\(name) row \(row)")
                }
            }
        }
    }
}
