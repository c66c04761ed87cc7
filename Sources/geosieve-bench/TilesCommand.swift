import ArgumentParser
import Foundation
import GeoSieve

/// `geosieve-bench tiles`: Mapbox Vector Tiles of a generated point layer, as the server makes
/// them (the layer's query for the tile's box, then the encoding), for random tiles of zoom 0
/// to 14 and for the world tile.
struct TilesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tiles",
        abstract: "Vector tiles of generated points: random tiles of zoom 0-14, and the world tile.",
        discussion: """
            The points are those of `geosieve-bench gpkg` (uniform in longitude -180…180 and \
            latitude -85…85, with the where-clause workload's attributes). Prints \
            "tiles.random" (--tiles tiles, zoom uniform in 0…14, column and row uniform; median, \
            p99 and total), "tiles.z0" (the tile 0/0/0, --rounds times) and "tiles.z<N>" per \
            zoom, each with the features and bytes of the tiles. --write-points and \
            --write-tiles write the points (id,x,y) and the tiles (z,x,y) as CSV, for the same \
            work in PostGIS (Benchmarks/run_tiles.sh).
            """
    )

    @Option(help: "Points to generate.")
    var features: Int = 1_000_000

    @Option(help: "Seed of the generator.")
    var seed: UInt64 = 42

    @Option(help: "Random tiles to make.")
    var tiles: Int = 2_000

    @Option(help: "Times the world tile is made.")
    var rounds: Int = 50

    @Option(help: "Point thinning: one point per square of this side, in tile units (0: every point).")
    var spacing: Int = 16

    @Option(help: "Write the points as CSV (id,x,y and the attributes) to this file.")
    var writePoints: String?

    @Option(help: "Write the tiles as CSV (z,x,y) to this file.")
    var writeTiles: String?

    func validate() throws {
        guard features >= 1, tiles >= 1, rounds >= 1 else { throw ValidationError("--features, --tiles and --rounds must be at least 1") }
    }

    /// The random tiles of the run: zoom uniform in 0…14, then column and row.
    static func randomTiles(_ count: Int, seed: UInt64) throws -> [TileAddress] {
        var random = SplitMix64(seed: seed ^ 0x7417_E5)
        return try (0..<count).map { _ in
            let zoom = random.nextInt(below: 15)
            return try TileAddress(zoom: zoom, x: random.nextInt(below: 1 << zoom), y: random.nextInt(below: 1 << zoom))
        }
    }

    func run() throws {
        note("generating \(features) points (seed \(seed))")
        let table = try GeoPackageCommand.makeTable(features: features, seed: seed)
        let layer = FeatureLayer(source: table, name: "points")
        let addresses = try Self.randomTiles(tiles, seed: seed)
        if let writePoints {
            // id, x, y, then the attributes (dates as epoch milliseconds, text quoted as CSV).
            let fields = table.schema.fields.indices.filter { $0 != table.schema.objectIdFieldIndex }
            var text = "id,x,y," + fields.map { table.schema.fields[$0].name.lowercased() }.joined(separator: ",") + "\n"
            let ids = table.objectIDs
            for row in 0..<table.count {
                guard case .point(let point)? = table.geometry(row: row) else { continue }
                text += "\(ids[row]),\(point.x),\(point.y)"
                for field in fields {
                    switch table.columns[field][row] {
                    case .null: text += ","
                    case .integer(let value), .date(let value): text += ",\(value)"
                    case .double(let value): text += ",\(value)"
                    case .string(let value): text += ",\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                    case .boolean(let value): text += value ? ",1" : ",0"
                    }
                }
                text += "\n"
            }
            try text.write(toFile: writePoints, atomically: true, encoding: .utf8)
        }
        if let writeTiles {
            try addresses.map { "\($0.zoom),\($0.x),\($0.y)" }.joined(separator: "\n").appending("\n").write(toFile: writeTiles, atomically: true, encoding: .utf8)
        }
        var options = VectorTileOptions()
        options.pointSpacing = spacing
        try options.validate()
        // Warm: the spatial index built, as a running server has it.
        _ = try layer.vectorTile(try TileAddress(zoom: 14, x: 0, y: 0), layerName: "points", options: options)

        var byZoom: [Int: [UInt64]] = [:]
        var all: [UInt64] = []
        var bytes = 0
        var count = 0
        for address in addresses {
            let (tile, nanoseconds) = try MonotonicClock.measure { () throws -> [UInt8] in try layer.vectorTile(address, layerName: "points", options: options) }
            all.append(nanoseconds)
            byZoom[address.zoom, default: []].append(nanoseconds)
            bytes += tile.count
            count += try WireCount.features(tile)
        }
        emit(Self.line("tiles.random", all, tiles: addresses.count, features: count, bytes: bytes))
        for zoom in byZoom.keys.sorted() {
            guard let samples = byZoom[zoom] else { continue }
            emit(Self.line("tiles.z\(zoom)", samples, tiles: samples.count, features: 0, bytes: 0))
        }
        var world: [UInt64] = []
        var worldBytes = 0
        var worldFeatures = 0
        let zero = try TileAddress(zoom: 0, x: 0, y: 0)
        for _ in 0..<rounds {
            let (tile, nanoseconds) = try MonotonicClock.measure { () throws -> [UInt8] in try layer.vectorTile(zero, layerName: "points", options: options) }
            world.append(nanoseconds)
            worldBytes = tile.count
            worldFeatures = try WireCount.features(tile)
        }
        emit(Self.line("tiles.z0_world", world, tiles: rounds, features: worldFeatures, bytes: worldBytes))
    }

    /// A result line with the p99 and the total.
    static func line(_ workload: String, _ samples: [UInt64], tiles: Int, features: Int, bytes: Int) -> ResultLine {
        let sorted = samples.sorted()
        let p99 = Double(sorted[Swift.min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]) / 1e6
        let total = Double(samples.reduce(0, +)) / 1e6
        return ResultLine(
            workload: workload, timing: TimingSummary(nanoseconds: samples), rows: tiles, result: features, sizeName: "tiles",
            extras: [("p99_ms", ResultLine.milliseconds(p99)), ("total_ms", ResultLine.milliseconds(total)), ("bytes", String(bytes))])
    }
}

/// Counts the features of a one-layer tile.
enum WireCount {
    struct Malformed: Error {}

    static func features(_ tile: [UInt8]) throws -> Int {
        var count = 0
        try walk(tile) { field, content in
            if field == 3, let content { try walk(content) { inner, _ in if inner == 2 { count += 1 } } }
        }
        return count
    }

    /// Calls `body` with each field's number and, for length-delimited ones, content.
    static func walk(_ bytes: ArraySlice<UInt8>, _ body: (UInt64, ArraySlice<UInt8>?) throws -> Void) throws {
        var i = bytes.startIndex
        func varint() throws -> UInt64 {
            var value: UInt64 = 0, shift: UInt64 = 0
            while i < bytes.endIndex, shift < 64 {
                let byte = bytes[i]
                i += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
            throw Malformed()
        }
        while i < bytes.endIndex {
            let key = try varint()
            switch key & 7 {
            case 0: _ = try varint(); try body(key >> 3, nil)
            case 1: i += 8; try body(key >> 3, nil)
            case 2:
                let length = Int(try varint())
                guard i + length <= bytes.endIndex else { throw Malformed() }
                try body(key >> 3, bytes[i..<(i + length)])
                i += length
            case 5: i += 4; try body(key >> 3, nil)
            default: throw Malformed()
            }
        }
    }

    static func walk(_ bytes: [UInt8], _ body: (UInt64, ArraySlice<UInt8>?) throws -> Void) throws {
        try walk(bytes[...], body)
    }
}
