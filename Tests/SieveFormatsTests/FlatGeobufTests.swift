import Foundation
import SieveColumns
import SieveFeatures
import SieveGeometry
import SieveTestSupport
import Testing

@testable import SieveFormats

/// FlatGeobuf files written and read back: every field type, geometry kinds with Z and M, the
/// index (a box read equals filtering every feature by box), without the index, and broken
/// files. The GDAL suite below reads the same files with GDAL's driver.
@Suite("FlatGeobuf")
struct FlatGeobufTests {
    /// The rows of `table` whose geometry's box meets `box`, by object ID.
    static func boxFiltered(_ table: FeatureTable, _ box: Envelope) -> Set<Int64> {
        Set((0..<table.count).compactMap { row in
            guard let e = table.geometry(row: row)?.envelope, e.xmin <= box.xmax, e.xmax >= box.xmin, e.ymin <= box.ymax, e.ymax >= box.ymin
            else { return nil }
            return table.objectIDs[row]
        })
    }

    @Test("every field type and NULL reads back as written, with and without the index")
    func fieldTypesRoundTrip() throws {
        let table = try ShapefileTests.everyType()
        try withTemporaryFolder { folder in
            for index in [true, false] {
                let path = folder.appendingPathComponent("t\(index).fgb").path
                try FlatGeobuf.write(table, to: path, options: FlatGeobufWriteOptions(index: index, layerName: "types"))
                let layer = try FlatGeobuf.read(at: path)
                #expect(layer.name == "types")
                #expect(layer.hasIndex == index)
                let read = layer.table
                #expect(read.spatialReference == .wgs84)
                #expect(
                    read.schema.fields.map { "\($0.name) \($0.type.rawValue)" } == [
                        "FID esriFieldTypeOID", "OBJECTID esriFieldTypeBigInteger", "NAME esriFieldTypeString", "SMALL esriFieldTypeSmallInteger",
                        "COUNT esriFieldTypeInteger", "BIG esriFieldTypeBigInteger", "RATE esriFieldTypeDouble", "DAY esriFieldTypeDate",
                        "population_estimate esriFieldTypeInteger", "population_estimated esriFieldTypeInteger",
                    ])
                // Sorted along the Hilbert curve with the index: match rows by OBJECTID.
                for row in 0..<table.count {
                    let id = table.objectIDs[row]
                    let back = try #require((0..<read.count).first { read.value(row: $0, field: "OBJECTID") == .integer(id) })
                    for field in table.schema.fields where field.name != "OBJECTID" {
                        // Texts keep their blanks and the empty text (unlike a shapefile).
                        #expect(read.value(row: back, field: field.name) == table.value(row: row, field: field.name), "\(field.name) \(id)")
                    }
                    #expect(read.geometry(row: back) == table.geometry(row: row))
                }
                // Written again, the FIDs (positions) are not written as a column.
                let again = folder.appendingPathComponent("again.fgb").path
                try FlatGeobuf.write(read, to: again, options: FlatGeobufWriteOptions(index: false))
                #expect(try FlatGeobuf.read(at: again).table.schema.fields == read.schema.fields)
            }
        }
    }

    @Test("polygons with holes and several parts, lines, multipoints, Z and M come back as written")
    func geometriesRoundTrip() throws {
        let cases: [String] = [
            #"{"type":"MultiPolygon","coordinates":[[[[0,0],[10,0],[10,10],[0,10],[0,0]],[[2,2],[2,4],[4,4],[4,2],[2,2]]],[[[20,20],[30,20],[30,30],[20,20]]]]}"#,
            #"{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,0]]]}"#,
            #"{"type":"MultiLineString","coordinates":[[[0,0],[1,1],[2,0]],[[5,5],[6,6]]]}"#,
            #"{"type":"LineString","coordinates":[[0,0],[1,1]]}"#,
            #"{"type":"MultiPoint","coordinates":[[0,0],[1,2],[-3,4.5]]}"#,
            #"{"type":"Point","coordinates":[1,2,3]}"#,
            #"{"type":"LineString","coordinates":[[0,0,1],[1,1,2]]}"#,
        ]
        for geometry in cases {
            let text = #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"k":1},"geometry":"# + geometry
                + #"},{"type":"Feature","properties":{"k":2},"geometry":null}]}"#
            let table = try FeatureTable.load(geoJSON: text)
            try withTemporaryFolder { folder in
                let path = folder.appendingPathComponent("g.fgb").path
                try FlatGeobuf.write(table, to: path)
                let read = try FlatGeobuf.read(at: path).table
                #expect(read.schema.geometryType == table.schema.geometryType, "\(geometry)")
                let row = try #require((0..<2).first { read.value(row: $0, field: "k") == .integer(1) })
                #expect(read.geometry(row: row) == table.geometry(row: 0), "\(geometry)")
                #expect(read.geometry(row: 1 - row) == nil)
            }
        }
    }

    /// A file of point features (geometry type 1), built field by field: the header says `hasZ`,
    /// each feature's `Geometry` table holds `xy` and, when given, `z`.
    static func pointFile(hasZ: Bool, features: [(xy: [Double], z: [Double]?)]) -> [UInt8] {
        var header = FlatBufferBuilder()
        var headerFields: [(id: Int, value: FlatBufferBuilder.Value)] = [(2, .uint8(1))]
        if hasZ { headerFields.append((3, .uint8(1))) }
        headerFields.append((8, .uint64(UInt64(features.count))))
        headerFields.append((9, .uint16(0)))  // no index (its default is 16)
        let headerRoot = header.table(headerFields)
        let headerBytes = header.finish(root: headerRoot)
        var out = LittleEndianWriter()
        out.bytes = [0x66, 0x67, 0x62, 0x03, 0x66, 0x67, 0x62, 0x01]
        out.uint32(UInt32(headerBytes.count))
        out.bytes += headerBytes
        for feature in features {
            var builder = FlatBufferBuilder()
            let geometry: (inout FlatBufferBuilder) -> Int = { builder in
                var fields: [(id: Int, value: FlatBufferBuilder.Value)] = [(1, .offset { $0.doubles(feature.xy) })]
                if let z = feature.z { fields.append((2, .offset { $0.doubles(z) })) }
                return builder.table(fields)
            }
            let root = builder.table([(0, .offset(geometry))])
            let bytes = builder.finish(root: root)
            out.uint32(UInt32(bytes.count))
            out.bytes += bytes
        }
        return out.bytes
    }

    @Test("a point of NaN coordinates reads as no geometry (POINT EMPTY), so it writes and reads back the same")
    func emptyPointIsNoGeometry() throws {
        let file = Self.pointFile(hasZ: false, features: [(xy: [.nan, .nan], z: nil), (xy: [1, 2], z: nil)])
        let table = try FlatGeobuf.read(bytes: file).table
        #expect(table.count == 2)
        #expect(table.geometry(row: 0) == nil)
        #expect(table.geometry(row: 1) == .point(Point(x: 1, y: 2)))
        let back = try FlatGeobuf.read(bytes: try FlatGeobuf.encode(table, options: FlatGeobufWriteOptions(index: false))).table
        #expect(back.geometry(row: 0) == nil)
        #expect(back.geometry(row: 1) == .point(Point(x: 1, y: 2)))
    }

    @Test("a geometry without the z values its file's header promises is corrupt: an error at its feature, as GDAL reads it")
    func missingZIsAnError() throws {
        let good = try FlatGeobuf.read(bytes: Self.pointFile(hasZ: true, features: [(xy: [1, 2], z: [3])])).table
        #expect(good.geometry(row: 0) == .point(Point(x: 1, y: 2, z: 3)))
        let error = try #require(throws: FileFormatError.self) {
            try FlatGeobuf.read(bytes: Self.pointFile(hasZ: true, features: [(xy: [1, 2], z: [3]), (xy: [4, 5], z: nil)]))
        }
        #expect(error.kind == .invalidGeometry)
        #expect(error.record == 2)
        #expect(error.message.contains("Z values"))
    }

    @Test("a box read through the index finds exactly the features whose boxes meet it")
    func boxReads() throws {
        let countries = try FeatureTable.load(contentsOf: fixtureURL("naturalearth_lowres.geojson"))
        let cities = try FeatureTable.load(contentsOf: fixtureURL("naturalearth_cities.geojson"))
        var random = SeededGenerator(seed: 5)
        try withTemporaryFolder { folder in
            for (name, table) in [("countries", countries), ("cities", cities)] {
                let indexed = folder.appendingPathComponent("\(name).fgb").path
                let plain = folder.appendingPathComponent("\(name)-plain.fgb").path
                try FlatGeobuf.write(table, to: indexed)
                try FlatGeobuf.write(table, to: plain, options: FlatGeobufWriteOptions(index: false))
                for _ in 0..<40 {
                    let x = Double.random(in: -180...170, using: &random)
                    let y = Double.random(in: -90...80, using: &random)
                    let box = Envelope(xmin: x, ymin: y, xmax: x + Double.random(in: 0...40, using: &random), ymax: y + Double.random(in: 0...30, using: &random))
                    let expected = Self.boxFiltered(table, box)
                    for path in [indexed, plain] {
                        let read = try FlatGeobuf.read(at: path, intersecting: box).table
                        let ids = Set((0..<read.count).compactMap { row -> Int64? in
                            if case .integer(let id) = read.value(row: row, field: "OBJECTID") { return id }
                            return nil
                        })
                        #expect(ids == expected, "\(name) \(box)")
                    }
                }
            }
        }
    }

    @Test("a file without the index is streamed feature by feature: the same bytes as the file built in memory")
    func streamedWrite() throws {
        try withTemporaryFolder { folder in
            for name in ["naturalearth_lowres.geojson", "naturalearth_cities.geojson", "nybb.geojson"] {
                let table = try FeatureTable.load(contentsOf: fixtureURL(name))
                let path = folder.appendingPathComponent("streamed.fgb").path
                let options = FlatGeobufWriteOptions(index: false, layerName: "layer")
                try FlatGeobuf.write(table, rows: Array(stride(from: table.count - 1, through: 0, by: -1)), to: path, options: options)
                let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
                let built = try FlatGeobuf.encode(table, rows: Array(stride(from: table.count - 1, through: 0, by: -1)), options: options)
                #expect(written == built, "\(name)")
                let read = try FlatGeobuf.read(at: path)
                #expect(!read.hasIndex)
                #expect(read.table.count == table.count)
                #expect(read.table.geometry(row: 0) == table.geometry(row: table.count - 1))
            }
            // Nothing is left beside the target when a write fails.
            let collection = try FeatureTable.load(
                geoJSON: #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[1,2]}}]}"#)
            let missing = folder.appendingPathComponent("no/such/folder.fgb").path
            #expect(throws: FileFormatError.self) { try FlatGeobuf.write(collection, to: missing, options: FlatGeobufWriteOptions(index: false)) }
            #expect(try folderContents(folder) == ["streamed.fgb"])
        }
    }

    @Test("broken files fail with the feature and byte offset")
    func brokenFiles() throws {
        let table = try FeatureTable.load(contentsOf: fixtureURL("naturalearth_cities.geojson"))
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("c.fgb").path
            try FlatGeobuf.write(table, to: path)
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            func read(_ bytes: [UInt8], box: Envelope? = nil) throws -> FileFormatError {
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                return try #require(throws: FileFormatError.self) { try FlatGeobuf.read(at: path, intersecting: box) }
            }
            #expect(try read(Array("not a flatgeobuf".utf8)).byteOffset == 0)
            var version = bytes
            version[3] = 2
            #expect(try read(version).kind == .unsupported)
            // Truncated in the middle of the features.
            let truncated = try read(Array(bytes[0..<(bytes.count * 2 / 3)]))
            #expect(truncated.kind == .malformed)
            #expect(truncated.record != nil)
            #expect(truncated.path == path)
            // The header size past the end.
            var header = bytes
            header[11] = 0x7F
            #expect(try read(header).kind == .malformed)
            // Every byte of a feature overwritten: an error, never a crash.
            let headerSize = Int(UInt32(bytes[8]) | UInt32(bytes[9]) << 8 | UInt32(bytes[10]) << 16 | UInt32(bytes[11]) << 24)
            var garbled = bytes
            for k in (12 + headerSize)..<min(bytes.count, 12 + headerSize + 20_000) where k % 7 == 0 { garbled[k] = 0xFF }
            _ = try? FlatGeobuf.read(at: { try? Data(garbled).write(to: URL(fileURLWithPath: path)); return path }())
            _ = try? FlatGeobuf.read(at: path, intersecting: Envelope(xmin: -10, ymin: -10, xmax: 10, ymax: 10))
        }
    }
}
