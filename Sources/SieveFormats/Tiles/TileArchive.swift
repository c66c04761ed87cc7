import Foundation
import SieveFeatures
import SieveGeometry
import SieveJSON

/// Where a tile set is written for static hosting.
public enum TileArchiveFormat: String, Sendable, Hashable, CaseIterable {
    /// A folder of `{z}/{x}/{y}.pbf` files (not compressed, as a static web server sends them
    /// as they are), with `metadata.json` beside them.
    case directory
    /// An MBTiles 1.3 file: SQLite, tiles gzipped in `tiles` with their rows counted from the
    /// south (TMS), the description in `metadata`.
    case mbtiles
    /// A PMTiles 3 archive: one file read by HTTP range requests, tiles and directories
    /// gzipped, tiles in Hilbert order.
    case pmtiles

    /// The format a path names: `.mbtiles` and `.pmtiles` files, else a directory.
    public init(path: String) {
        let lower = path.lowercased()
        if lower.hasSuffix(".mbtiles") {
            self = .mbtiles
        } else if lower.hasSuffix(".pmtiles") {
            self = .pmtiles
        } else {
            self = .directory
        }
    }
}

/// What a tile set says of itself: the TileJSON 3.0.0 members that MBTiles' `metadata` table,
/// PMTiles' header and JSON metadata, and a directory's `metadata.json` carry.
public struct TileSetMetadata: Sendable, Hashable {
    /// One layer of the tiles, as TileJSON's `vector_layers` lists it.
    public struct Layer: Sendable, Hashable {
        /// The layer's name in the tiles.
        public var id: String
        /// Its attributes and their TileJSON types (`Number`, `String`), in order.
        public var fields: [(name: String, type: String)]
        /// The first zoom level it is in.
        public var minZoom: Int
        /// The last zoom level it is in.
        public var maxZoom: Int

        /// A layer description.
        public init(id: String, fields: [(name: String, type: String)], minZoom: Int, maxZoom: Int) {
            self.id = id
            self.fields = fields
            self.minZoom = minZoom
            self.maxZoom = maxZoom
        }

        /// Whether two layers are described alike.
        public static func == (a: Layer, b: Layer) -> Bool {
            a.id == b.id && a.minZoom == b.minZoom && a.maxZoom == b.maxZoom && a.fields.elementsEqual(b.fields) { $0 == $1 }
        }

        /// Hashes what `==` compares.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(minZoom)
            hasher.combine(maxZoom)
            hasher.combine(id)
            for field in fields {
                hasher.combine(field.name)
                hasher.combine(field.type)
            }
        }
    }

    /// The tile set's name.
    public var name: String
    /// What the tile set shows.
    public var description: String
    /// The first zoom level written.
    public var minZoom: Int
    /// The last zoom level written.
    public var maxZoom: Int
    /// The area covered, in longitude and latitude (clamped to Web Mercator's ±85.0511°).
    public var bounds: Envelope
    /// The layers.
    public var layers: [Layer]

    /// A description of a tile set.
    public init(name: String, description: String = "", minZoom: Int, maxZoom: Int, bounds: Envelope, layers: [Layer]) {
        self.name = name
        self.description = description
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.bounds = bounds
        self.layers = layers
    }

    /// The bounds as written: clamped to the Web Mercator world, the whole world when empty.
    var clampedBounds: Envelope {
        guard !bounds.isEmpty else {
            return Envelope(xmin: -180, ymin: -WebMercator.maxLatitude, xmax: 180, ymax: WebMercator.maxLatitude)
        }
        return Envelope(
            xmin: Swift.max(bounds.xmin, -180), ymin: Swift.max(bounds.ymin, -WebMercator.maxLatitude),
            xmax: Swift.min(bounds.xmax, 180), ymax: Swift.min(bounds.ymax, WebMercator.maxLatitude))
    }

    /// The centre of the bounds, at the lowest zoom written.
    var center: (longitude: Double, latitude: Double, zoom: Int) {
        let b = clampedBounds
        return ((b.xmin + b.xmax) / 2, (b.ymin + b.ymax) / 2, minZoom)
    }

    /// `vector_layers` as TileJSON writes it.
    var vectorLayersJSON: JSONValue {
        .array(
            layers.map { layer in
                .object(
                    JSONObject([
                        ("id", .string(layer.id)),
                        ("fields", .object(JSONObject(layer.fields.map { ($0.name, JSONValue.string($0.type)) }))),
                        ("minzoom", .integer(layer.minZoom)), ("maxzoom", .integer(layer.maxZoom)),
                    ]))
            })
    }

    /// The TileJSON 3.0.0 document of tiles at `tiles` (URL templates); without them, the
    /// members a PMTiles archive's metadata holds (`tilejson` and `tiles` left out).
    func tileJSON(tiles: [String]?) -> JSONValue {
        let b = clampedBounds, c = center
        var object = JSONObject()
        if tiles != nil { object.append("tilejson", .string("3.0.0")) }
        object.append("name", .string(name))
        object.append("description", .string(description))
        if let tiles { object.append("tiles", .array(tiles.map { .string($0) })) }
        object.append("minzoom", .integer(minZoom))
        object.append("maxzoom", .integer(maxZoom))
        object.append("bounds", .array([b.xmin, b.ymin, b.xmax, b.ymax].map { .double($0) }))
        object.append("center", .array([.double(c.longitude), .double(c.latitude), .integer(c.zoom)]))
        object.append("vector_layers", vectorLayersJSON)
        return .object(object)
    }
}

/// Writes vector tiles to a folder, an MBTiles file or a PMTiles archive
/// (``TileArchiveFormat``): ``add(_:at:)`` each tile, then ``finish(_:)``.
///
/// An MBTiles or PMTiles file is written beside its path and moved into place by
/// ``finish(_:)``, so that a failed run leaves what was there; a folder must be new or empty.
/// Not `Sendable`: one writer belongs to one task.
///
/// ```swift
/// let writer = try TileArchiveWriter(path: "cities.pmtiles")
/// try writer.add(tile, at: try TileAddress(zoom: 0, x: 0, y: 0))
/// try writer.finish(metadata)
/// ```
public final class TileArchiveWriter {
    /// The format written.
    public let format: TileArchiveFormat
    /// The path written.
    public let path: String
    private var storage: Storage
    /// Tiles added so far.
    public private(set) var tileCount = 0
    /// The bytes of the tiles added so far, as given (before any compression).
    public private(set) var byteCount = 0

    private enum Storage {
        case directory
        case mbtiles(SQLiteConnection, SQLiteStatement, temporary: String)
        case pmtiles(PMTilesBuilder)
        case finished
    }

    /// Starts writing to `path` in `format` (by default the one the path names).
    /// - Throws: ``FileFormatError`` when the folder is not empty or cannot be made, or the
    ///   temporary file cannot be created.
    public init(path: String, format: TileArchiveFormat? = nil) throws(FileFormatError) {
        self.path = path
        self.format = format ?? TileArchiveFormat(path: path)
        let temporary = path + ".geosieve-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))"
        switch self.format {
        case .directory:
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
                guard isDirectory.boolValue else {
                    throw FileFormatError(.cannotWrite, "\(path) is a file: tiles are written to a new or empty folder (or name a .mbtiles or .pmtiles file)", path: path)
                }
                let contents = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                guard contents.isEmpty else {
                    throw FileFormatError(.cannotWrite, "the folder \(path) is not empty: tiles are written to a new or empty folder", path: path)
                }
            }
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw FileFormatError(.cannotWrite, "cannot make the folder \(path): \(error.localizedDescription)", path: path)
            }
            storage = .directory
        case .mbtiles:
            do throws(GeoPackageError) {
                let connection = try SQLiteConnection(path: temporary, readOnly: false)
                try connection.execute(
                    """
                    PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
                    CREATE TABLE metadata (name TEXT, value TEXT);
                    CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
                    BEGIN;
                    """)
                let insert = try connection.prepare("INSERT INTO tiles (zoom_level, tile_column, tile_row, tile_data) VALUES (?, ?, ?, ?)")
                storage = .mbtiles(connection, insert, temporary: temporary)
            } catch {
                try? FileManager.default.removeItem(atPath: temporary)
                throw FileFormatError(.cannotWrite, "cannot create an MBTiles file beside \(path): \(error.message)", path: path)
            }
        case .pmtiles:
            storage = .pmtiles(try PMTilesBuilder(temporary: temporary, path: path))
        }
    }

    deinit {
        switch storage {
        case .mbtiles(_, _, let temporary): try? FileManager.default.removeItem(atPath: temporary)
        case .pmtiles(let builder): builder.discard()
        case .directory, .finished: break
        }
    }

    /// Adds the tile `tile` (a Mapbox Vector Tile, not compressed) at `address`. Each address
    /// is added at most once.
    /// - Throws: ``FileFormatError`` when writing fails.
    public func add(_ tile: [UInt8], at address: TileAddress) throws(FileFormatError) {
        switch storage {
        case .directory:
            let folder = "\(path)/\(address.zoom)/\(address.x)"
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try Data(tile).write(to: URL(fileURLWithPath: "\(folder)/\(address.y).pbf"))
            } catch {
                throw FileFormatError(.writeFailed, "cannot write the tile \(address): \(error.localizedDescription)", path: path)
            }
        case .mbtiles(_, let insert, let temporary):
            let data = try Self.gzip(tile)
            do {
                try insert.bind(1, int64: Int64(address.zoom))
                try insert.bind(2, int64: Int64(address.x))
                try insert.bind(3, int64: Int64((1 << address.zoom) - 1 - address.y))
                try data.withUnsafeBytes { try insert.bind(4, blob: $0) }
                try insert.run()
            } catch {
                throw FileFormatError(.writeFailed, "cannot write the tile \(address) to \(temporary): \(error)", path: path)
            }
        case .pmtiles(let builder):
            try builder.add(try Self.gzip(tile), id: PMTilesBuilder.tileID(address))
        case .finished:
            throw FileFormatError(.writeFailed, "the tile set is already finished", path: path)
        }
        tileCount += 1
        byteCount += tile.count
    }

    /// Writes the description and moves the file into place.
    /// - Throws: ``FileFormatError`` when writing fails (the temporary file is removed).
    public func finish(_ metadata: TileSetMetadata) throws(FileFormatError) {
        var current: Storage? = storage
        storage = .finished
        switch current ?? .finished {
        case .directory:
            let json = metadata.tileJSON(tiles: ["{z}/{x}/{y}.pbf"])
            try AtomicFile.write(Array(JSONWriter.string(json).utf8), to: path + "/metadata.json")
        case .mbtiles(let connection, _, let temporary):
            // The tile statement goes first: SQLite closes no connection with a statement open.
            current = nil
            let b = metadata.clampedBounds, c = metadata.center
            let rows: [(String, String)] = [
                ("name", metadata.name), ("description", metadata.description), ("format", "pbf"), ("type", "overlay"),
                ("version", "1"), ("minzoom", String(metadata.minZoom)), ("maxzoom", String(metadata.maxZoom)),
                ("bounds", [b.xmin, b.ymin, b.xmax, b.ymax].map { String($0) }.joined(separator: ",")),
                ("center", "\(c.longitude),\(c.latitude),\(c.zoom)"),
                ("json", JSONWriter.string(.object(JSONObject([("vector_layers", metadata.vectorLayersJSON)])))),
            ]
            do throws(GeoPackageError) {
                do {
                    let insert = try connection.prepare("INSERT INTO metadata (name, value) VALUES (?, ?)")
                    for (name, value) in rows {
                        try insert.bind(1, text: name)
                        try insert.bind(2, text: value)
                        try insert.run()
                    }
                }
                try connection.execute("CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row); COMMIT;")
                try connection.close()
            } catch {
                try? FileManager.default.removeItem(atPath: temporary)
                throw FileFormatError(.writeFailed, "cannot finish the MBTiles file: \(error.message)", path: path)
            }
            if rename(temporary, path) != 0 {
                let reason = String(cString: strerror(errno))
                try? FileManager.default.removeItem(atPath: temporary)
                throw FileFormatError(.writeFailed, "cannot move the new file into place: \(reason)", path: path)
            }
        case .pmtiles(let builder):
            try builder.finish(metadata)
        case .finished:
            throw FileFormatError(.writeFailed, "the tile set is already finished", path: path)
        }
    }

    /// `bytes` gzipped at zlib's default level.
    static func gzip(_ bytes: [UInt8]) throws(FileFormatError) -> [UInt8] {
        guard let compressed = Deflate.compress(bytes, windowBits: 31) else {
            throw FileFormatError(.writeFailed, "zlib could not compress a tile")
        }
        return compressed
    }
}
