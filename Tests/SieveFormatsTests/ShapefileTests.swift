import Foundation
import SieveColumns
import SieveFeatures
@testable import SieveFormats
import SieveGeometry
import Testing

/// Shapefiles written and read back by GeoSieve: every field type, NULLs, geometry kinds,
/// Z and M, zip archives, and the errors of broken files. The expected values are the format's
/// rules (ESRI Shapefile Technical Description, dBase III) as GDAL applies them; the suite below
/// checks them against GDAL itself.
@Suite("Shapefile")
struct ShapefileTests {
    /// A table of every field type, with NULLs, extremes and non-ASCII text.
    static func everyType() throws -> FeatureTable {
        let fields = [
            Field(name: "OBJECTID", type: .oid), Field(name: "NAME", type: .string), Field(name: "SMALL", type: .smallInteger),
            Field(name: "COUNT", type: .integer), Field(name: "BIG", type: .bigInteger), Field(name: "RATE", type: .double),
            Field(name: "DAY", type: .dateOnly), Field(name: "population_estimate", type: .integer),
            Field(name: "population_estimated", type: .integer),
        ]
        let features = [
            #"{"type":"Feature","id":1,"properties":{"NAME":"Zürich ☃","SMALL":-32768,"COUNT":2147483647,"BIG":9223372036854775807,"RATE":0.1,"DAY":"2024-02-29","population_estimate":1,"population_estimated":2},"geometry":{"type":"Point","coordinates":[8.5,47.25]}}"#,
            #"{"type":"Feature","id":2,"properties":{"NAME":null,"SMALL":null,"COUNT":null,"BIG":-9223372036854775808,"RATE":1e300,"DAY":null,"population_estimate":null,"population_estimated":null},"geometry":null}"#,
            #"{"type":"Feature","id":7,"properties":{"NAME":"  padded  ","SMALL":1,"COUNT":-5,"BIG":null,"RATE":-2.2250738585072014e-308,"DAY":"1900-01-01","population_estimate":3,"population_estimated":4},"geometry":{"type":"Point","coordinates":[-180,-90]}}"#,
            #"{"type":"Feature","id":9,"properties":{"NAME":"","SMALL":0,"COUNT":0,"BIG":0,"RATE":null,"DAY":"9999-12-31","population_estimate":0,"population_estimated":0},"geometry":{"type":"Point","coordinates":[1e-300,123456789.125]}}"#,
        ]
        return try FeatureTable.load(
            geoJSON: #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}", schema: fields)
    }

    @Test("every field type reads back as written; NULLs, empty and padded texts as GDAL reads them")
    func everyFieldTypeRoundTrips() throws {
        let table = try Self.everyType()
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("types.shp").path
            let report = try Shapefile.write(table, to: path)
            // dBase names hold 10 bytes: cut and numbered as GDAL launders them.
            #expect(
                report.warnings == [
                    #"field "population_estimate" written as "population" (dBase names hold 10 bytes)"#,
                    #"field "population_estimated" written as "populati_1" (dBase names hold 10 bytes)"#,
                ])
            #expect(try folderContents(folder) == ["types.cpg", "types.dbf", "types.prj", "types.shp", "types.shx"])
            #expect(try String(contentsOfFile: folder.appendingPathComponent("types.cpg").path, encoding: .utf8) == "UTF-8")
            let layer = try Shapefile.read(at: path)
            #expect(layer.name == "types")
            #expect(layer.encoding == "UTF-8")
            #expect(layer.unidentifiedProjection == nil)
            let read = layer.table
            #expect(read.spatialReference == .wgs84)
            #expect(read.schema.objectIdFieldName == "FID")
            #expect(
                read.schema.fields.map { "\($0.name) \($0.type.rawValue)" } == [
                    "FID esriFieldTypeOID", "OBJECTID esriFieldTypeInteger", "NAME esriFieldTypeString",
                    "SMALL esriFieldTypeInteger", "COUNT esriFieldTypeBigInteger", "BIG esriFieldTypeBigInteger",
                    "RATE esriFieldTypeDouble", "DAY esriFieldTypeDateOnly", "population esriFieldTypeInteger",
                    "populati_1 esriFieldTypeInteger",
                ])
            // FID is the record's position; the object IDs are a field.
            #expect(read.objectIDs == [0, 1, 2, 3])
            #expect((0..<4).map { read.value(row: $0, field: "OBJECTID") } == [.integer(1), .integer(2), .integer(7), .integer(9)])
            // Texts: blanks around are not kept and an empty text is blank, so NULL (as GDAL).
            #expect((0..<4).map { read.value(row: $0, field: "NAME") } == [.string("Zürich ☃"), .null, .string("padded"), .null])
            #expect(read.schema.field(named: "NAME")?.length == 11)  // "Zürich ☃" is 11 bytes of UTF-8
            #expect((0..<4).map { read.value(row: $0, field: "SMALL") } == [.integer(-32768), .null, .integer(1), .integer(0)])
            #expect((0..<4).map { read.value(row: $0, field: "COUNT") } == [.integer(2_147_483_647), .null, .integer(-5), .integer(0)])
            #expect(
                (0..<4).map { read.value(row: $0, field: "BIG") } == [.integer(.max), .integer(.min), .null, .integer(0)])
            #expect(
                (0..<4).map { read.value(row: $0, field: "RATE") } == [.double(0.1), .double(1e300), .double(-2.2250738585072014e-308), .null])
            let day = { (y: Int64, m: Int64, d: Int64) in ScalarValue.date(CivilTime.days(year: y, month: m, day: d) * 86_400_000) }
            #expect((0..<4).map { read.value(row: $0, field: "DAY") } == [day(2024, 2, 29), .null, day(1900, 1, 1), day(9999, 12, 31)])
            #expect((0..<4).map { read.value(row: $0, field: "population") } == [.integer(1), .null, .integer(3), .integer(0)])
            #expect(read.geometry(row: 0) == .point(Point(x: 8.5, y: 47.25)))
            #expect(read.geometry(row: 1) == nil)
            #expect(read.geometry(row: 2) == .point(Point(x: -180, y: -90)))
            #expect(read.geometry(row: 3) == .point(Point(x: 1e-300, y: 123456789.125)))
            // Written again, its FID (the records' positions) is not written as a field: the
            // copy reads back with the same fields and values.
            let again = folder.appendingPathComponent("again.shp").path
            #expect(try Shapefile.write(read, to: again).warnings.isEmpty)
            let reread = try Shapefile.read(at: again).table
            #expect(reread.schema.fields == read.schema.fields)
            for field in read.schema.fields {
                #expect((0..<4).map { reread.value(row: $0, field: field.name) } == (0..<4).map { read.value(row: $0, field: field.name) })
            }
        }
    }

    @Test("polygons with holes and several parts, lines, multipoints, Z and M come back as written")
    func geometriesRoundTrip() throws {
        let cases: [(String, String)] = [
            ("Polygon", #"{"type":"MultiPolygon","coordinates":[[[[0,0],[10,0],[10,10],[0,10],[0,0]],[[2,2],[2,4],[4,4],[4,2],[2,2]]],[[[20,20],[30,20],[30,30],[20,20]]]]}"#),
            ("LineString", #"{"type":"MultiLineString","coordinates":[[[0,0],[1,1],[2,0]],[[5,5],[6,6]]]}"#),
            ("MultiPoint", #"{"type":"MultiPoint","coordinates":[[0,0],[1,2],[-3,4.5]]}"#),
            ("PointZ", #"{"type":"Point","coordinates":[1,2,3]}"#),
            ("PolygonZ", #"{"type":"Polygon","coordinates":[[[0,0,1],[10,0,2],[10,10,3],[0,0,1]]]}"#),
        ]
        for (name, geometry) in cases {
            let text = #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"k":1},"geometry":"# + geometry
                + #"},{"type":"Feature","properties":{"k":2},"geometry":null}]}"#
            let table = try FeatureTable.load(geoJSON: text)
            try withTemporaryFolder { folder in
                let path = folder.appendingPathComponent("g.shp").path
                try Shapefile.write(table, to: path)
                let read = try Shapefile.read(at: path).table
                #expect(read.schema.geometryType == table.schema.geometryType, "\(name)")
                let original = try #require(table.geometry(row: 0))
                let expected: Geometry
                if case .polygon(let polygon) = original { expected = .polygon(polygon.outerRingsCounterClockwise(false)) } else { expected = original }
                var back = try #require(read.geometry(row: 0), "\(name)")
                if case .polygon(let polygon) = back { back = .polygon(polygon.outerRingsCounterClockwise(false)) }
                #expect(back == expected, "\(name)")
                #expect(read.geometry(row: 1) == nil, "\(name)")
            }
        }
    }

    @Test("a .shz and a .shp.zip hold the five files and read back as the .shp does")
    func zippedShapefiles() throws {
        let table = try Self.everyType()
        try withTemporaryFolder { folder in
            let plain = try Shapefile.read(at: { () throws -> String in
                let path = folder.appendingPathComponent("plain.shp").path
                try Shapefile.write(table, to: path)
                return path
            }()).table
            for name in ["types.shz", "types.shp.zip"] {
                let path = folder.appendingPathComponent(name).path
                try Shapefile.write(table, to: path, options: ShapefileWriteOptions(modified: 1_700_000_000_000))
                #expect(try Shapefile.layers(at: path) == ["types"])
                let layer = try Shapefile.read(at: path)
                #expect(layer.name == "types")
                #expect(layer.table.count == plain.count)
                for field in plain.schema.fields {
                    for row in 0..<plain.count {
                        #expect(layer.table.value(row: row, field: field.name) == plain.value(row: row, field: field.name), "\(name) \(field.name)")
                    }
                }
                #expect(Shapefile.source(path + ":types")?.layer == "types")
                #expect(try Shapefile.read(at: path, layer: "types").table.count == plain.count)
                #expect(throws: FileFormatError.self) { try Shapefile.read(at: path, layer: "roads") }
            }
        }
    }

    @Test("texts in ISO-8859-1 (GDAL's default language driver) and windows-1252 are read as the .cpg or header says")
    func codePages() throws {
        let table = try FeatureTable.load(
            geoJSON: #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"T":"abc"},"geometry":null}]}"#)
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("cp.shp").path
            try Shapefile.write(table, to: path)
            let dbfPath = folder.appendingPathComponent("cp.dbf").path
            var dbf = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dbfPath)))
            let layout = try #require(DBFLayout(dbf))
            let field = try #require(layout.fields.first { $0.name == "T" })
            let at = layout.headerLength + field.offset
            // The three bytes of the value: é (0xE9 in both), € (0x80 in windows-1252), ÿ (0xFF).
            dbf[at] = 0xE9
            dbf[at + 1] = 0x80
            dbf[at + 2] = 0xFF
            let cpg = folder.appendingPathComponent("cp.cpg").path
            try FileManager.default.removeItem(atPath: cpg)
            // Language driver 0x57, as GDAL writes by default: ISO-8859-1.
            dbf[29] = 0x57
            try Data(dbf).write(to: URL(fileURLWithPath: dbfPath))
            #expect(try Shapefile.read(at: path).table.value(row: 0, field: "T") == .string("é\u{80}ÿ"))
            // A .cpg says windows-1252.
            try Data("1252".utf8).write(to: URL(fileURLWithPath: cpg))
            let cp1252 = try Shapefile.read(at: path)
            #expect(cp1252.encoding == "windows-1252")
            #expect(cp1252.table.value(row: 0, field: "T") == .string("é€ÿ"))
            // The option overrides both.
            #expect(try Shapefile.read(at: path, options: ShapefileReadOptions(encoding: "ISO-8859-1")).table.value(row: 0, field: "T") == .string("é\u{80}ÿ"))
            // UTF-8 declared but not UTF-8: an error naming the record, field and byte.
            try Data("UTF-8".utf8).write(to: URL(fileURLWithPath: cpg))
            let error = try #require(throws: FileFormatError.self) { try Shapefile.read(at: path) }
            #expect(error.kind == .invalidValue)
            #expect(error.record == 1)
            #expect(error.fieldName == "T")
            #expect(error.byteOffset == at)
            #expect(error.member == "cp.dbf")
        }
    }

    @Test("broken files fail with the file, member, record and byte offset, and a reason")
    func brokenFiles() throws {
        let table = try FeatureTable.load(contentsOf: fixtureURL("naturalearth_lowres.geojson"))
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("c.shp").path
            try Shapefile.write(table, to: path)
            let shp = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            // Truncated: the index points past the end.
            try Data(shp[0..<(shp.count / 2)]).write(to: URL(fileURLWithPath: path))
            let truncated = try #require(throws: FileFormatError.self) { try Shapefile.read(at: path) }
            #expect(truncated.kind == .malformed)
            #expect(truncated.path == path)
            #expect(truncated.member == "c.shx")
            #expect(truncated.record != nil)
            #expect(truncated.byteOffset != nil)
            // Not a shapefile.
            try Data("hello".utf8).write(to: URL(fileURLWithPath: path))
            let notShapefile = try #require(throws: FileFormatError.self) { try Shapefile.read(at: path) }
            #expect(notShapefile.description.hasPrefix("malformed file in \(path) (c.shp), byte 0: not a shapefile"))
            // Missing.
            let missing = try #require(throws: FileFormatError.self) { try Shapefile.read(at: folder.appendingPathComponent("none.shp").path) }
            #expect(missing.kind == .cannotOpen)
            // A MultiPatch file.
            var multipatch = shp
            multipatch[32] = 31
            try Data(multipatch).write(to: URL(fileURLWithPath: path))
            let patch = try #require(throws: FileFormatError.self) { try Shapefile.read(at: path) }
            #expect(patch.kind == .unsupported)
            #expect(patch.byteOffset == 32)
            // A number that is not one.
            try Shapefile.write(table, to: path)
            let dbfPath = folder.appendingPathComponent("c.dbf").path
            var dbf = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dbfPath)))
            let reader = try #require(DBFLayout(dbf))
            let field = try #require(reader.fields.first { $0.name == "pop_est" })
            let at = reader.headerLength + 2 * reader.recordLength + field.offset
            for k in 0..<field.length { dbf[at + k] = UInt8(ascii: k == field.length - 1 ? "x" : " ") }
            try Data(dbf).write(to: URL(fileURLWithPath: dbfPath))
            let bad = try #require(throws: FileFormatError.self) { try Shapefile.read(at: path) }
            #expect(bad.kind == .invalidValue)
            #expect(bad.record == 3)
            #expect(bad.fieldName == "pop_est")
            #expect(bad.byteOffset == at)
            #expect(bad.description.hasSuffix(#": "x" is not a number (N 24.15)"#))
            // Fewer .dbf records than shapes.
            dbf[4] = dbf[4] &- 1
            try Data(dbf).write(to: URL(fileURLWithPath: dbfPath))
            let counts = try #require(throws: FileFormatError.self) { try Shapefile.read(at: path) }
            #expect(counts.message == "the .dbf holds \(table.count - 1) records and the .shp \(table.count); they must agree")
        }
    }

    @Test("hostile archives and headers fail cleanly: lying sizes, bad deflate data, huge counts")
    func hostileInputs() throws {
        let table = try FeatureTable.load(contentsOf: fixtureURL("naturalearth_cities.geojson"))
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("c.shz").path
            try Shapefile.write(table, to: path, options: ShapefileWriteOptions(modified: 0))
            let archive = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let zip = try ZipArchive(archive)
            let shp = try #require(zip.entries.first { $0.name == "c.shp" })
            let directory = try #require((0..<(archive.count - 4)).last { i in archive[i..<(i + 4)].elementsEqual([0x50, 0x4B, 0x01, 0x02]) && archive[(i + 46)..<(i + 51)].elementsEqual(Array("c.shp".utf8)) })
            func write(_ bytes: [UInt8]) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }
            // The central directory says the .shp inflates to 4 GiB - 2: refused, nothing allocated.
            var lying = archive
            for k in 0..<4 { lying[directory + 24 + k] = k == 0 ? 0xFE : 0xFF }
            try write(lying)
            let error = try #require(throws: FileFormatError.self) { try Shapefile.read(at: path) }
            #expect(error.kind == .malformed)
            #expect(error.member == "c.shp")
            // Deflate data overwritten.
            var garbled = archive
            let dataStart = shp.localHeaderOffset + 30 + 5
            for k in 0..<16 { garbled[dataStart + k] = 0xFF }
            try write(garbled)
            #expect(throws: FileFormatError.self) { try Shapefile.read(at: path) }
            // Not an archive at all, and an empty file.
            try write(Array("PK but not a zip".utf8))
            #expect(throws: FileFormatError.self) { try Shapefile.read(at: path) }
            try write([])
            #expect(throws: FileFormatError.self) { try Shapefile.read(at: path) }
            // A .dbf header announcing four billion records.
            let plain = folder.appendingPathComponent("p.shp").path
            try Shapefile.write(table, to: plain)
            let dbfPath = folder.appendingPathComponent("p.dbf").path
            var dbf = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dbfPath)))
            for k in 4..<8 { dbf[k] = 0xFF }
            try Data(dbf).write(to: URL(fileURLWithPath: dbfPath))
            let huge = try #require(throws: FileFormatError.self) { try Shapefile.read(at: plain) }
            #expect(huge.kind == .malformed)
            #expect(huge.byteOffset == 4)
            // A shape whose point count runs past its record.
            try Shapefile.write(table, to: plain)
            var shpBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain)))
            shpBytes[100 + 8] = 8  // the first record claims to be a MultiPoint
            try Data(shpBytes).write(to: URL(fileURLWithPath: plain))
            let shape = try #require(throws: FileFormatError.self) { try Shapefile.read(at: plain) }
            #expect(shape.kind == .invalidGeometry)
            #expect(shape.record == 1)
        }
    }

    @Test("what a shapefile cannot hold is refused, and nothing is written")
    func refusals() throws {
        let long = String(repeating: "é", count: 128)  // 256 bytes
        let table = try FeatureTable.load(
            geoJSON: #"{"type":"FeatureCollection","features":[{"type":"Feature","id":5,"properties":{"T":"\#(long)"},"geometry":null}]}"#)
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("t.shp").path
            let error = try #require(throws: FileFormatError.self) { try Shapefile.write(table, to: path) }
            #expect(error.kind == .cannotWrite)
            #expect(error.fieldName == "T")
            #expect(error.message == "a text of 256 bytes (feature 5): dBase texts hold at most 254")
            #expect(try folderContents(folder) == [])
            let bad = try #require(throws: FileFormatError.self) { try Shapefile.write(table, to: folder.appendingPathComponent("t.txt").path) }
            #expect(bad.kind == .cannotWrite)
        }
    }

    /// GDAL 3.6's names for these (ogr2ogr to ESRI Shapefile), but for "SHORT", which ogr2ogr
    /// renames "SHORT2" before the driver sees it; the driver gives "SHORT_1".
    @Test("dBase field names are laundered as GDAL's driver launders them")
    func laundering() {
        var used = Set<String>()
        let names = ["a_very_long_name_1", "a_very_long_name_2", "A_VERY_LON", "short", "SHORT"] + (3...11).map { "a_very_long_name_\($0)" }
        let laundered = names.map { DBFWriter.launder($0, used: &used) }
        #expect(
            laundered == [
                "a_very_lon", "a_very_l_1", "A_VERY_L_2", "short", "SHORT_1", "a_very_l_3", "a_very_l_4", "a_very_l_5", "a_very_l_6",
                "a_very_l_7", "a_very_l_8", "a_very_l_9", "a_very_l10", "a_very_l11",
            ])
    }
}

/// The header fields the tests edit files by.
struct DBFLayout {
    struct Field {
        var name: String
        var length: Int
        var offset: Int
    }

    var headerLength: Int
    var recordLength: Int
    var fields: [Field]

    init?(_ bytes: [UInt8]) {
        guard bytes.count > 32 else { return nil }
        headerLength = Int(UInt16(bytes[8]) | UInt16(bytes[9]) << 8)
        recordLength = Int(UInt16(bytes[10]) | UInt16(bytes[11]) << 8)
        var fields: [Field] = []
        var at = 32
        var offset = 1
        while bytes[at] != 0x0D {
            let name = String(decoding: bytes[at..<(at + 11)].prefix { $0 != 0 }, as: UTF8.self)
            fields.append(Field(name: name, length: Int(bytes[at + 16]), offset: offset))
            offset += Int(bytes[at + 16])
            at += 32
        }
        self.fields = fields
    }
}
