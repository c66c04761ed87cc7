import SieveFeatures
import SieveFormats
import SieveGeometry

extension FeatureLayer {
    /// The layer's features in the tile `address`, as a Mapbox Vector Tile of one layer named
    /// `layerName` (`FeatureQueryResult.vectorTile(_:layerName:options:)` (SieveFormats)).
    ///
    /// The features are those `query` selects (its where clause, CQL2 filter and out fields;
    /// every field when it names none), with the layer's definition expression, whose envelope
    /// meets the tile grown by ``/SieveFormats/VectorTileOptions/buffer``; `query`'s own
    /// geometry, paging and output spatial reference are replaced.
    ///
    /// ```swift
    /// let tile = try layer.vectorTile(try TileAddress(zoom: 4, x: 8, y: 5), layerName: "cities")
    /// ```
    /// - Throws: ``/SieveFeatures/QueryError`` when the query fails,
    ///   ``/SieveFormats/VectorTileError`` for options out of range.
    public func vectorTile(
        _ address: TileAddress, layerName: String, query: QueryParameters = QueryParameters(), options: VectorTileOptions = VectorTileOptions()
    ) throws -> [UInt8] {
        try encodedTileLayer(address, layerName: layerName, query: query, options: options).bytes
    }

    /// ``vectorTile(_:layerName:query:options:)`` with the number of features the tile holds and
    /// of rows the query found (none: no tile inside this one holds a feature either, since
    /// their grown squares lie inside this one's).
    package func encodedTileLayer(
        _ address: TileAddress, layerName: String, query: QueryParameters, options: VectorTileOptions
    ) throws -> (bytes: [UInt8], features: Int, rows: Int) {
        try options.validate()
        var query = query
        if query.outFields == nil { query.outFields = ["*"] }
        let (box, reference) = Self.tileSearchBox(address, options: options, tableReference: schema.spatialReference)
        query.geometry = .envelope(box)
        query.inSpatialReference = reference
        query.spatialRelationship = .envelopeIntersects
        query.outSpatialReference = nil
        query.maxFeatures = nil
        query.resultOffset = nil
        let result = try queryFeatures(query)
        let (bytes, features) = try result.encodedTileLayer(address, layerName: layerName, options: options)
        return (bytes, features, result.rows.count)
    }

    /// The box a tile's features are searched in, and its spatial reference: the tile grown by
    /// the buffer, in longitude and latitude for a geographic table (to the pole for the first
    /// and last rows, where Web Mercator draws what lies beyond 85.05°), else in Web Mercator
    /// metres (projected by the query to the table's reference).
    static func tileSearchBox(
        _ address: TileAddress, options: VectorTileOptions, tableReference: SpatialReference
    ) -> (Envelope, SpatialReference) {
        let margin = address.mercatorSize * Double(options.buffer) / Double(options.extent)
        let bounds = address.mercatorBounds
        let grown = Envelope(xmin: bounds.xmin - margin, ymin: bounds.ymin - margin, xmax: bounds.xmax + margin, ymax: bounds.ymax + margin)
        guard tableReference.latestWkid == 4326 else { return (grown, .webMercator) }
        let half = WebMercator.halfWorld
        let low = WebMercator.inverse(x: Swift.max(grown.xmin, -half), y: Swift.max(grown.ymin, -half))
        let high = WebMercator.inverse(x: Swift.min(grown.xmax, half), y: Swift.min(grown.ymax, half))
        let last = (1 << address.zoom) - 1
        let box = Envelope(
            xmin: low.longitude, ymin: address.y == last ? -90 : low.latitude, xmax: high.longitude, ymax: address.y == 0 ? 90 : high.latitude)
        return (box, .wgs84)
    }
}
