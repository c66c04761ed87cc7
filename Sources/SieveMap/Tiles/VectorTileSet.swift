import SieveFeatures
import SieveFormats
import SieveGeometry
import SieveProjection

/// The vector tiles of layers over a range of zoom levels, written to a folder, an MBTiles file
/// or a PMTiles archive for static hosting (`geosieve tiles`).
///
/// Each tile holds one Mapbox Vector Tile layer per ``FeatureLayer`` that has features in it
/// (each as ``FeatureLayer/vectorTile(_:layerName:query:options:)`` writes it: the layer's
/// definition expression, `query`'s where clause and fields); a tile where no layer has a
/// feature is not written. The walk starts from the tiles of the first level that meet the
/// layers' extent (or ``Options/bounds``) and descends only into tiles whose grown square
/// holds a row, so that empty oceans cost one query per tile at the level where they empty.
///
/// ```swift
/// let writer = try TileArchiveWriter(path: "cities.pmtiles")
/// let summary = try VectorTileSet.write([cities], options: .init(zooms: 0...8), to: writer)
/// ```
public enum VectorTileSet {
    /// What to write.
    public struct Options: Sendable, Hashable {
        /// The zoom levels (0…24).
        public var zooms: ClosedRange<Int>
        /// The encoding of each tile: extent, buffer, simplification, point thinning.
        public var tile: VectorTileOptions
        /// The area to cover, in longitude and latitude; `nil` for the layers' extent.
        public var bounds: Envelope?
        /// The where clause and fields of each layer's features (its geometry and paging are
        /// the tile's); every field when it names none.
        public var query: QueryParameters

        /// Options; the defaults write every field of every feature in 4,096-unit tiles.
        public init(zooms: ClosedRange<Int>, tile: VectorTileOptions = VectorTileOptions(), bounds: Envelope? = nil, query: QueryParameters = QueryParameters()) {
            self.zooms = zooms
            self.tile = tile
            self.bounds = bounds
            self.query = query
        }
    }

    /// What was written.
    public struct Summary: Sendable, Hashable {
        /// Tiles written at each zoom level, from the first.
        public var tilesPerZoom: [Int]
        /// Tiles encoded and left out because no layer had a feature in them.
        public var emptyTiles: Int
        /// The tiles' bytes before compression.
        public var bytes: Int
        /// The features written, summed over tiles (a feature in four tiles counts four times).
        public var features: Int
        /// The area covered, in longitude and latitude.
        public var bounds: Envelope

        /// Tiles written in all.
        public var tiles: Int { tilesPerZoom.reduce(0, +) }
    }

    /// Writes the tiles of `layers` (named by their ``FeatureLayer/name``, which must differ)
    /// to `writer`, then finishes it with their description.
    /// - Throws: ``/SieveFormats/VectorTileError`` for zoom levels or options out of range or
    ///   equal layer names, ``/SieveFeatures/QueryError`` when a layer's query fails,
    ///   ``/SieveFormats/FileFormatError`` when writing fails.
    public static func write(_ layers: [FeatureLayer], options: Options, to writer: TileArchiveWriter) throws -> Summary {
        try options.tile.validate()
        guard options.zooms.lowerBound >= 0, options.zooms.upperBound <= TileAddress.maximumZoom else {
            throw VectorTileError("zoom levels must lie in 0…\(TileAddress.maximumZoom), not \(options.zooms.lowerBound)…\(options.zooms.upperBound)")
        }
        guard !layers.isEmpty else { throw VectorTileError("a tile set needs at least one layer") }
        guard Set(layers.map(\.name)).count == layers.count else {
            throw VectorTileError("the layers' names must differ: \(layers.map(\.name).joined(separator: ", "))")
        }
        let bounds = try options.bounds ?? geographicExtent(layers)
        var summary = Summary(tilesPerZoom: [], emptyTiles: 0, bytes: 0, features: 0, bounds: bounds)
        let clamped = Envelope(
            xmin: Swift.max(bounds.xmin, -180), ymin: Swift.max(bounds.ymin, -WebMercator.maxLatitude),
            xmax: Swift.min(bounds.xmax, 180), ymax: Swift.min(bounds.ymax, WebMercator.maxLatitude))
        var frontier: [TileAddress] = []
        if !bounds.isEmpty, clamped.xmin <= clamped.xmax, clamped.ymin <= clamped.ymax {
            let low = WebMercator.forward(longitude: clamped.xmin, latitude: clamped.ymin)
            let high = WebMercator.forward(longitude: clamped.xmax, latitude: clamped.ymax)
            let mercator = Envelope(xmin: low.x, ymin: low.y, xmax: high.x, ymax: high.y)
            if let range = TileAddress.range(covering: mercator, zoom: options.zooms.lowerBound) {
                for x in range.x {
                    for y in range.y { frontier.append(try TileAddress(zoom: options.zooms.lowerBound, x: x, y: y)) }
                }
            }
        }
        // Each layer's query once: the fields it has of those asked.
        let queries = layers.map { query(of: $0, options: options) }
        for zoom in options.zooms {
            var written = 0
            var next: [TileAddress] = []
            for address in frontier {
                var tile: [UInt8] = []
                var rows = 0
                for (layer, query) in zip(layers, queries) {
                    let encoded = try layer.encodedTileLayer(address, layerName: layer.name, query: query, options: options.tile)
                    rows += encoded.rows
                    if encoded.features > 0 {
                        tile += encoded.bytes
                        summary.features += encoded.features
                    }
                }
                if tile.isEmpty {
                    if rows > 0 { summary.emptyTiles += 1 }
                } else {
                    try writer.add(tile, at: address)
                    written += 1
                    summary.bytes += tile.count
                }
                if rows > 0, zoom < options.zooms.upperBound {
                    for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        next.append(try TileAddress(zoom: zoom + 1, x: 2 * address.x + dx, y: 2 * address.y + dy))
                    }
                }
            }
            summary.tilesPerZoom.append(written)
            frontier = next
        }
        try writer.finish(metadata(layers, options: options, bounds: clamped))
        return summary
    }

    /// The query of `layer`'s features: `options.query` with the asked fields the layer has
    /// (every field when none or `*` is asked).
    static func query(of layer: FeatureLayer, options: Options) -> QueryParameters {
        var query = options.query
        guard let asked = options.query.outFields.map({ Set($0.map { $0.lowercased() }) }), !asked.contains("*") else {
            query.outFields = nil
            return query
        }
        query.outFields = layer.schema.fields.map(\.name).filter { asked.contains($0.lowercased()) }
        return query
    }

    /// The union of the layers' extents in longitude and latitude.
    static func geographicExtent(_ layers: [FeatureLayer]) throws -> Envelope {
        var union = Envelope.empty
        for layer in layers {
            var extent = try layer.fullExtent()
            guard !extent.isEmpty else { continue }
            let reference = layer.schema.spatialReference
            if reference.latestWkid != 4326 {
                extent = try Projector(from: reference, to: .wgs84).projectEnvelope(extent)
            }
            union = union.union(extent)
        }
        return union
    }

    /// The tile set's description: each layer with its fields (numbers and texts as TileJSON
    /// names them; the object ID is each feature's `id`, not a field).
    static func metadata(_ layers: [FeatureLayer], options: Options, bounds: Envelope) -> TileSetMetadata {
        let described = layers.map { layer in
            let schema = layer.schema
            let written = query(of: layer, options: options).outFields.map(Set.init)
            let fields = schema.fields.filter { field in
                field.name != schema.objectIdFieldName && (written?.contains(field.name) ?? true)
            }
            return TileSetMetadata.Layer(
                id: layer.name,
                fields: fields.map { field in
                    switch field.type.columnType {
                    case .integer, .double: (field.name, "Number")
                    default: (field.name, "String")
                    }
                },
                minZoom: options.zooms.lowerBound, maxZoom: options.zooms.upperBound)
        }
        return TileSetMetadata(
            name: layers.map(\.name).joined(separator: ", "), minZoom: options.zooms.lowerBound, maxZoom: options.zooms.upperBound,
            bounds: bounds, layers: described)
    }
}
