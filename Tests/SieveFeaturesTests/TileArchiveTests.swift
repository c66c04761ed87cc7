import Foundation
import SieveGeometry
import SieveTestSupport
import Testing

@testable import SieveFeatures
@testable import SieveFormats
@testable import SieveMap

/// Tile archives (``TileArchiveWriter``): PMTiles' tile IDs and directories against the values
/// the PMTiles 3 specification lists, an archive's header and directories read back by hand,
/// and MBTiles' rows counted from the south.
@Suite("Tile archives")
struct TileArchiveTests {
    /// The table of the specification's section 4.1: tile IDs run along the Hilbert curve of
    /// each level after every tile of the levels above.
    @Test func tileIDsAreTheSpecificationsHilbertNumbers() throws {
        let listed: [(Int, Int, Int, UInt64)] = [(0, 0, 0, 0), (1, 0, 0, 1), (1, 0, 1, 2), (1, 1, 1, 3), (1, 1, 0, 4), (2, 0, 0, 5), (12, 3423, 1763, 19_078_479)]
        for (z, x, y, id) in listed {
            #expect(PMTilesBuilder.tileID(try TileAddress(zoom: z, x: x, y: y)) == id, "\(z)/\(x)/\(y)")
            #expect(PMTilesBuilder.zoom(ofTileID: id) == z)
        }
        // Each level's IDs are its (4^z − 1)/3 … (4^(z+1) − 1)/3 − 1, once each, and consecutive
        // IDs are neighbouring tiles (the curve never jumps).
        for z in 0...5 {
            let n = 1 << z
            var seen: [UInt64: (Int, Int)] = [:]
            for x in 0..<n {
                for y in 0..<n { seen[PMTilesBuilder.tileID(try TileAddress(zoom: z, x: x, y: y))] = (x, y) }
            }
            let first = (UInt64(1) << (2 * UInt64(z)) - 1) / 3
            #expect(Set(seen.keys) == Set(first..<first + UInt64(n * n)))
            for id in first..<first + UInt64(n * n) - 1 {
                let (a, b) = (seen[id] ?? (0, 0), seen[id + 1] ?? (0, 0))
                #expect(abs(a.0 - b.0) + abs(a.1 - b.1) == 1, "\(z): \(id)")
            }
        }
    }

    /// Section 4.2's example, worked by hand: IDs 5, 42, 69 written as deltas 5, 37, 27; run
    /// lengths 1; lengths 10, 20, 300 (300 = 0xAC 0x02 as a varint); offsets 0 + 1, then 0
    /// (right after the first), then 100 + 1 (not right after the second, which ends at 30).
    @Test func directoriesAreWrittenAsTheSpecificationSays() {
        let entries = [
            PMTilesBuilder.Entry(id: 5, offset: 0, length: 10), PMTilesBuilder.Entry(id: 42, offset: 10, length: 20),
            PMTilesBuilder.Entry(id: 69, offset: 100, length: 300),
        ]
        #expect(PMTilesBuilder.encode(entries, runLength: 1) == [3, 5, 37, 27, 1, 1, 1, 10, 20, 0xAC, 0x02, 1, 0, 101])
    }

    static func gunzip(_ bytes: ArraySlice<UInt8>) throws -> [UInt8] {
        // The gzip trailer's last four bytes are the uncompressed size (RFC 1952).
        let tail = Array(bytes.suffix(4))
        let size = Int(tail[0]) | Int(tail[1]) << 8 | Int(tail[2]) << 16 | Int(tail[3]) << 24
        return try Array(bytes).withUnsafeBytes { try ParquetCompression.decompress($0, codec: 2, expected: size) }
    }

    static func uint64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) }
    }

    /// Reads a directory: (id, offset, length, run length) per entry.
    static func directory(_ bytes: [UInt8]) throws -> [(id: UInt64, offset: UInt64, length: UInt64, run: UInt64)] {
        var reader = VarintReader(bytes: bytes)
        let count = Int(try reader.next())
        var ids: [UInt64] = [], last: UInt64 = 0
        for _ in 0..<count {
            last += try reader.next()
            ids.append(last)
        }
        let runs = try (0..<count).map { _ in try reader.next() }
        let lengths = try (0..<count).map { _ in try reader.next() }
        var offsets: [UInt64] = []
        for i in 0..<count {
            let value = try reader.next()
            offsets.append(i > 0 && value == 0 ? offsets[i - 1] + lengths[i - 1] : value - 1)
        }
        #expect(reader.position == bytes.count)
        return (0..<count).map { (ids[$0], offsets[$0], lengths[$0], runs[$0]) }
    }

    struct VarintReader {
        let bytes: [UInt8]
        var position = 0
        mutating func next() throws -> UInt64 {
            var value: UInt64 = 0, shift: UInt64 = 0
            while true {
                let byte = try #require(position < bytes.count ? bytes[position] : nil)
                position += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
        }
    }

    /// An archive of 30,000 tiles of random bytes: its root directory would not fit in the
    /// first 16 KiB, so it points to leaves; every tile is found through them, in ID order, at
    /// its bytes.
    @Test func largeArchivesUseLeafDirectories() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geosieve-pmtiles-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("many.pmtiles").path
        let writer = try TileArchiveWriter(path: path)
        #expect(writer.format == .pmtiles)
        var generator = SeededGenerator(state: 7)
        var tiles: [UInt64: [UInt8]] = [:]
        // Zoom 8 has 65,536 tiles: take 30,000 of them, added out of ID order.
        var addresses: [TileAddress] = []
        for x in 0..<256 {
            for y in 0..<256 where (x * 7 + y * 13) % 11 < 5 { addresses.append(try TileAddress(zoom: 8, x: x, y: y)) }
        }
        addresses = Array(addresses.prefix(30_000))
        addresses.shuffle(using: &generator)
        for address in addresses {
            let tile = (0..<Int.random(in: 1...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            tiles[PMTilesBuilder.tileID(address)] = tile
            try writer.add(tile, at: address)
        }
        try writer.finish(TileSetMetadata(name: "many", minZoom: 8, maxZoom: 8, bounds: Envelope(xmin: -10, ymin: -5, xmax: 10, ymax: 5), layers: []))
        let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Array(file.prefix(8)) == Array("PMTiles".utf8) + [3])
        let (rootOffset, rootLength) = (Int(Self.uint64(file, 8)), Int(Self.uint64(file, 16)))
        let (leavesOffset, leavesLength) = (Int(Self.uint64(file, 40)), Int(Self.uint64(file, 48)))
        let (tilesOffset, tilesLength) = (Int(Self.uint64(file, 56)), Int(Self.uint64(file, 64)))
        #expect(rootOffset == 127 && rootOffset + rootLength <= 16_384)
        #expect(leavesLength > 0)
        #expect(tilesOffset + tilesLength == file.count)
        #expect(Self.uint64(file, 72) == UInt64(addresses.count) && Self.uint64(file, 80) == UInt64(addresses.count))
        #expect(Array(file[96..<102]) == [1, 2, 2, 1, 8, 8])  // clustered, gzip, gzip, MVT, zoom 8…8
        let root = try Self.directory(try Self.gunzip(file[rootOffset..<rootOffset + rootLength]))
        #expect(root.allSatisfy { $0.run == 0 } && root.count > 1)
        var found: [UInt64] = []
        var nextOffset: UInt64 = 0
        for leafEntry in root {
            let start = leavesOffset + Int(leafEntry.offset)
            let leaf = try Self.directory(try Self.gunzip(file[start..<start + Int(leafEntry.length)]))
            #expect(leaf.first?.id == leafEntry.id)
            for entry in leaf {
                #expect(entry.run == 1)
                #expect(entry.offset == nextOffset)  // clustered: the tiles lie in ID order
                nextOffset = entry.offset + entry.length
                let data = try Self.gunzip(file[tilesOffset + Int(entry.offset)..<tilesOffset + Int(entry.offset + entry.length)])
                #expect(data == tiles[entry.id], "\(entry.id)")
                found.append(entry.id)
            }
        }
        #expect(found == tiles.keys.sorted())
    }

    /// MBTiles counts rows from the south (TMS): tile y of zoom z is row 2^z − 1 − y.
    @Test func mbtilesRowsCountFromTheSouth() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geosieve-mbtiles-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("rows.mbtiles").path
        let writer = try TileArchiveWriter(path: path)
        try writer.add([1, 2, 3], at: try TileAddress(zoom: 3, x: 2, y: 1))
        #expect(!FileManager.default.fileExists(atPath: path))  // moved into place when finished
        try writer.finish(TileSetMetadata(name: "rows", minZoom: 3, maxZoom: 3, bounds: .empty, layers: []))
        let connection = try SQLiteConnection(path: path, readOnly: true)
        let rows = try connection.rows("SELECT zoom_level, tile_column, tile_row, length(tile_data) FROM tiles")
        #expect(rows.count == 1 && rows.first?[0...2] == ["3", "2", "6"])
        let metadata = Dictionary(uniqueKeysWithValues: try connection.rows("SELECT name, value FROM metadata").compactMap { row in
            row[0].map { ($0, row[1] ?? "") }
        })
        #expect(metadata["format"] == "pbf" && metadata["minzoom"] == "3" && metadata["maxzoom"] == "3")
        #expect(metadata["bounds"] == "-180.0,-85.05112877980659,180.0,85.05112877980659")  // ±atan(sinh(π))
        #expect(metadata["json"] == #"{"vector_layers":[]}"#)
    }

    @Test func foldersMustBeNewOrEmpty() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geosieve-tiles-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let writer = try TileArchiveWriter(path: folder.path)
        try writer.add([9], at: try TileAddress(zoom: 0, x: 0, y: 0))
        try writer.finish(TileSetMetadata(name: "one", minZoom: 0, maxZoom: 0, bounds: .empty, layers: []))
        #expect(try Data(contentsOf: folder.appendingPathComponent("0/0/0.pbf")) == Data([9]))
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("metadata.json").path))
        #expect(throws: FileFormatError.self) { try TileArchiveWriter(path: folder.path) }
    }

    /// The walk writes exactly the tiles where a layer has a feature — found here by encoding
    /// every tile of every level — though it descends only into tiles holding rows.
    @Test func tileSetsHoldEveryTileWithAFeatureAndNoOther() throws {
        let cities = FeatureLayer(source: try FeatureTable.load(contentsOf: fixtureURL("naturalearth_cities.geojson")), name: "cities")
        let boroughs = FeatureLayer(source: try FeatureTable.load(contentsOf: fixtureURL("nybb.geojson")), name: "boroughs")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geosieve-tileset-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let writer = try TileArchiveWriter(path: folder.path)
        let summary = try VectorTileSet.write([cities, boroughs], options: .init(zooms: 1...4), to: writer)
        var expected: [String: [UInt8]] = [:]
        for z in 1...4 {
            for x in 0..<(1 << z) {
                for y in 0..<(1 << z) {
                    let address = try TileAddress(zoom: z, x: x, y: y)
                    var tile: [UInt8] = []
                    for layer in [cities, boroughs] {
                        let encoded = try layer.encodedTileLayer(address, layerName: layer.name, query: QueryParameters(), options: VectorTileOptions())
                        if encoded.features > 0 { tile += encoded.bytes }
                    }
                    if !tile.isEmpty { expected["\(z)/\(x)/\(y).pbf"] = tile }
                }
            }
        }
        var written: [String: [UInt8]] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        while let relative = enumerator?.nextObject() as? String {
            guard relative.hasSuffix(".pbf") else { continue }
            written[relative] = [UInt8](try Data(contentsOf: folder.appendingPathComponent(relative)))
        }
        #expect(written == expected)
        #expect(summary.tiles == expected.count && summary.tilesPerZoom.count == 4)
        // New York's boroughs share one tile per level with the cities there.
        #expect(summary.bounds.xmin < -170 && summary.bounds.xmax > 170)
        let metadata = try String(contentsOf: folder.appendingPathComponent("metadata.json"), encoding: .utf8)
        #expect(metadata.contains(#""vector_layers":[{"id":"cities""#) && metadata.contains(#"{"id":"boroughs""#))
    }
}
