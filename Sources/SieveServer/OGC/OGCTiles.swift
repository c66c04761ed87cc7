import SieveEditing
import SieveFeatures
import SieveFormats
import SieveGeometry
import SieveJSON
import SieveMap
import SieveProjection

/// OGC API – Tiles for every collection, as Mapbox Vector Tiles on the `WebMercatorQuad` grid:
///
/// | route | answer |
/// |---|---|
/// | `/ogc/tileMatrixSets`, `/ogc/tileMatrixSets/WebMercatorQuad` | the grid (OGC Two Dimensional Tile Matrix Set 2.0) |
/// | `/ogc/collections/{c}/tiles` | the collection's tilesets (one, vector, WebMercatorQuad) |
/// | `/ogc/collections/{c}/tiles/WebMercatorQuad` | the tileset's metadata; `f=tilejson`: TileJSON 3.0.0, for MapLibre |
/// | `/ogc/collections/{c}/tiles/WebMercatorQuad/{z}/{y}/{x}` | a tile, `application/vnd.mapbox-vector-tile` (`FeatureQueryResult.vectorTile(_:layerName:options:)`) |
///
/// A tile holds the features of the layer (its definition expression applied) whose envelope
/// meets the tile grown by its buffer, filtered as `/items` filters them (`filter`,
/// `filter-lang`, `filter-crs`, `datetime`, property equalities), with the fields `properties`
/// names (all by default). A tile with no feature is an empty tile (HTTP 200, a layer of no
/// features), so that a map client does not ask again.
enum OGCTiles {
    /// The media type of a Mapbox Vector Tile.
    static let mediaType = "application/vnd.mapbox-vector-tile"
    /// The grid's URI.
    static let gridURI = "http://www.opengis.net/def/tilematrixset/OGC/1.0/WebMercatorQuad"
    /// The conformance classes of OGC API – Tiles served (`oas30`: the API definition lists the
    /// tile routes).
    static let conformance = ["core", "tileset", "tilesets-list", "geodata-tilesets", "mvt", "oas30"].map {
        "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/" + $0
    }
    /// The parameters a tile request may carry besides queryable fields.
    static let known: Set<String> = ["f", "token", "filter", "filter-lang", "filter-crs", "datetime", "properties"]
    /// The deepest zoom the metadata advertise.
    static let maximumZoom = 22
    /// The tiles' options: the defaults of ``/SieveFormats/VectorTileOptions``.
    static let options = VectorTileOptions()

    /// The tile `z/y/x` of `served`.
    static func tile(_ z: String, _ y: String, _ x: String, _ parameters: RequestParameters, served: ServedTable) throws(ServerRequestError)
        -> ServiceResponse
    {
        guard let zoom = Int(z), let row = Int(y), let column = Int(x) else {
            throw ServerRequestError(.notFound, "no tile \(RequestParameters.quoted("\(z)/\(y)/\(x)")): zoom, row and column are integers")
        }
        let address: TileAddress
        do {
            address = try TileAddress(zoom: zoom, x: column, y: row)
        } catch {
            throw ServerRequestError(.notFound, "\(error)")
        }
        for name in parameters.names where OGCItems.known.contains(name) && !known.contains(name) {
            throw ServerRequestError(
                .badRequest, "unknown parameter \(RequestParameters.quoted(name)) for a tile: use filter, filter-lang, filter-crs, datetime, properties, f")
        }
        guard served.snapshot != nil else { throw Self.notFromDatabase(served) }
        var query = try OGCItems.selection(parameters, served: served, time: served.time)
        if let fields = OGCItems.outFields(parameters, schema: served.schema) { query.outFields = fields }
        try served.restrictToVisibleFields(&query)
        let restricted = query
        return try ServerRequestError.catching(.badRequest) {
            ServiceResponse(contentType: mediaType, body: try served.layer.vectorTile(address, layerName: served.id, query: restricted, options: options))
        }
    }

    /// The refusal of a tile of a layer served from a database: its tiles are not made (listed in
    /// the status table).
    static func notFromDatabase(_ served: ServedTable) -> ServerRequestError {
        ServerRequestError(
            .notImplemented,
            "layer \(RequestParameters.quoted(served.id)) is served from a database: vector tiles are made of layers held in memory only")
    }

    /// `/ogc/collections/{c}/tiles`.
    static func tilesets(_ served: ServedTable, base: String) -> JSONValue {
        .object(JSONObject([("tilesets", .array([tilesetSummary(served, base: base)]))]))
    }

    /// The summary of the collection's one tileset.
    static func tilesetSummary(_ served: ServedTable, base: String) -> JSONValue {
        let href = base + "/ogc/collections/" + served.id + "/tiles/WebMercatorQuad"
        return .object(
            JSONObject([
                ("title", .string(served.title)), ("dataType", .string("vector")), ("crs", .string("http://www.opengis.net/def/crs/EPSG/0/3857")),
                ("tileMatrixSetURI", .string(gridURI)),
                (
                    "links",
                    .array([
                        OGCDocuments.link(href, rel: "self", type: "application/json", title: "The tileset"),
                        OGCDocuments.link(
                            base + "/ogc/tileMatrixSets/WebMercatorQuad", rel: "http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme",
                            type: "application/json"),
                    ])
                ),
            ]))
    }

    /// `/ogc/collections/{c}/tiles/WebMercatorQuad`: the tileset, with the tile URL template,
    /// the layer and its fields, and the collection's extent.
    static func tileset(_ served: ServedTable, base: String) throws -> JSONValue {
        guard case .object(var object, _) = tilesetSummary(served, base: base) else { return .null() }
        let template = base + "/ogc/collections/" + served.id + "/tiles/WebMercatorQuad/{tileMatrix}/{tileRow}/{tileCol}"
        var links = object["links"]?.arrayValue ?? []
        links.append(
            .object(
                JSONObject([
                    ("href", .string(template)), ("rel", .string("item")), ("type", .string(mediaType)), ("templated", .bool(true)),
                    ("title", .string("A tile")),
                ])))
        links.append(OGCDocuments.link(base + "/ogc/collections/" + served.id + "/tiles/WebMercatorQuad?f=tilejson", rel: "alternate", type: "application/json", title: "TileJSON"))
        object.append("links", .array(links))
        let bounds = try geographicExtent(served)
        object.append(
            "boundingBox",
            .object(
                JSONObject([
                    ("lowerLeft", .array([.double(bounds.xmin), .double(bounds.ymin)])), ("upperRight", .array([.double(bounds.xmax), .double(bounds.ymax)])),
                    ("crs", .string(OGCDocuments.crs84)),
                ])))
        object.append(
            "layers",
            .array([
                .object(
                    JSONObject([
                        ("id", .string(served.id)), ("dataType", .string("vector")), ("geometryDimension", dimension(served)),
                        ("minTileMatrix", .string("0")), ("maxTileMatrix", .string(String(maximumZoom))),
                    ]))
            ]))
        return .object(object)
    }

    /// TileJSON 3.0.0 of the collection's tiles, as MapLibre and OpenLayers read it.
    static func tileJSON(_ served: ServedTable, base: String) throws -> JSONValue {
        let bounds = try geographicExtent(served)
        let schema = served.visibleSchema
        var fields = JSONObject()
        for field in schema.fields where field.name != schema.objectIdFieldName {
            let kind: String
            switch field.type.columnType {
            case .integer, .double: kind = "Number"
            default: kind = "String"
            }
            fields.append(field.name, .string(kind))
        }
        let clamped = [
            Swift.max(bounds.xmin, -180), Swift.max(bounds.ymin, -WebMercator.maxLatitude), Swift.min(bounds.xmax, 180),
            Swift.min(bounds.ymax, WebMercator.maxLatitude),
        ]
        return .object(
            JSONObject([
                ("tilejson", .string("3.0.0")), ("name", .string(served.title)), ("description", .string(served.description)),
                ("tiles", .array([.string(base + "/ogc/collections/" + served.id + "/tiles/WebMercatorQuad/{z}/{y}/{x}")])),
                ("minzoom", .integer(0)), ("maxzoom", .integer(maximumZoom)),
                ("bounds", .array(bounds.isEmpty ? [.integer(-180), .integer(-85), .integer(180), .integer(85)] : clamped.map { .double($0) })),
                (
                    "vector_layers",
                    .array([
                        .object(
                            JSONObject([
                                ("id", .string(served.id)), ("fields", .object(fields)), ("minzoom", .integer(0)), ("maxzoom", .integer(maximumZoom)),
                            ]))
                    ])
                ),
            ]))
    }

    /// The collection's extent in longitude and latitude.
    static func geographicExtent(_ served: ServedTable) throws -> Envelope {
        let reference = served.schema.spatialReference
        let extent = try served.fullExtent()
        guard !extent.isEmpty, reference.latestWkid != 4326 else { return extent }
        return try Projector(from: reference, to: .wgs84).projectEnvelope(extent)
    }

    /// 0 for points, 1 for lines, 2 for areas (OGC's `geometryDimension`).
    static func dimension(_ served: ServedTable) -> JSONValue {
        switch served.schema.geometryType {
        case .point, .multipoint: .integer(0)
        case .polyline: .integer(1)
        case .polygon, .envelope: .integer(2)
        case nil: .null()
        }
    }

    /// `/ogc/tileMatrixSets`.
    static func tileMatrixSets(base: String) -> JSONValue {
        .object(
            JSONObject([
                (
                    "tileMatrixSets",
                    .array([
                        .object(
                            JSONObject([
                                ("id", .string("WebMercatorQuad")), ("title", .string("Google Maps Compatible for the World")),
                                ("uri", .string(gridURI)),
                                ("links", .array([OGCDocuments.link(base + "/ogc/tileMatrixSets/WebMercatorQuad", rel: "self", type: "application/json")])),
                            ]))
                    ])
                )
            ]))
    }

    /// `/ogc/tileMatrixSets/WebMercatorQuad`: the grid as OGC's Two Dimensional Tile Matrix Set
    /// standard (2.0) defines it, zoom 0 to ``/SieveFormats/TileAddress/maximumZoom``: 256-pixel
    /// tiles, a cell of 156543.034 m at zoom 0 halving at each level, the origin at the top
    /// left of the square world.
    static func webMercatorQuad() -> JSONValue {
        let matrices: [JSONValue] = (0...TileAddress.maximumZoom).map { zoom in
            let count = 1 << zoom
            return .object(
                JSONObject([
                    ("id", .string(String(zoom))), ("scaleDenominator", .double(559_082_264.028_717_2 / Double(count))),
                    ("cellSize", .double(2 * WebMercator.halfWorld / 256 / Double(count))), ("cornerOfOrigin", .string("topLeft")),
                    ("pointOfOrigin", .array([.double(-WebMercator.halfWorld), .double(WebMercator.halfWorld)])),
                    ("tileWidth", .integer(256)), ("tileHeight", .integer(256)), ("matrixWidth", .integer(count)), ("matrixHeight", .integer(count)),
                ]))
        }
        return .object(
            JSONObject([
                ("id", .string("WebMercatorQuad")), ("title", .string("Google Maps Compatible for the World")), ("uri", .string(gridURI)),
                ("crs", .string("http://www.opengis.net/def/crs/EPSG/0/3857")), ("orderedAxes", .array([.string("X"), .string("Y")])),
                ("wellKnownScaleSet", .string("http://www.opengis.net/def/wkss/OGC/1.0/GoogleMapsCompatible")),
                ("tileMatrices", .array(matrices)),
            ]))
    }
}

extension GeoSieveServer {
    /// The vector tile `z/y/x` of `served` (``OGCTiles/tile(_:_:_:_:served:)``) that the request
    /// `parameters`, written as `query`, ask for: made once per table version and request
    /// while the tile cache keeps it, for the OGC API and the ArcGIS `VectorTileServer` alike.
    func vectorTile(
        _ z: String, _ y: String, _ x: String, _ parameters: RequestParameters, served: ServedTable, query: String
    ) async throws -> ServiceResponse {
        guard let version = served.version else { throw OGCTiles.notFromDatabase(served) }
        let key = "\(served.id)\u{0}\(served.instance)\u{0}\(version)\u{0}\(z)/\(y)/\(x)\u{0}\(query)"
        if let bytes = tiles.tile(key) {
            return ServiceResponse(contentType: OGCTiles.mediaType, body: bytes).serving(served.id, features: 0, tileFromCache: true)
        }
        let response = try await timed { try OGCTiles.tile(z, y, x, parameters, served: served) }
        tiles.keep(response.body, as: key)
        return response.serving(served.id, features: 0, tileFromCache: false)
    }
}
