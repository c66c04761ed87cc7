import SieveFeatures
import SieveFormats
import SieveGeometry
import SieveJSON
import SieveProjection

/// The ArcGIS `VectorTileServer` of each service with a layer with geometry: the vector tiles
/// of the OGC API – Tiles routes (the same bytes, from the same cache) under the paths and documents
/// ArcGIS clients (the Maps SDK's `VectorTileLayer`, QGIS's ArcGIS vector tile connection) read:
///
/// | route | answer |
/// |---|---|
/// | `…/{service}/VectorTileServer` | the service: `tiles` (`tile/{z}/{y}/{x}.pbf`), `tileInfo` (512-pixel tiles of Web Mercator, levels 0–22), extents, `defaultStyles` |
/// | `…/{service}/VectorTileServer/tile/{z}/{y}/{x}.pbf` | a Mapbox Vector Tile, a layer for each of the service's layers with geometry, named by its collection id, every field; 404 for a tile outside the grid |
/// | `…/{service}/VectorTileServer/resources/styles` (and `…/root.json`) | a Mapbox GL style of version 8 drawing the layers: circles, lines or fills with outlines |
///
/// Each layer's definition expression applies. A service without a layer with geometry has
/// no vector tile service (404). There are no fonts, sprites or tile maps: the style draws no labels or icons.
enum ArcGISVectorTiles {
    /// The deepest level published (as OGC API – Tiles).
    static let maximumLevel = OGCTiles.maximumZoom
    /// The tile size in pixels ArcGIS vector tile services declare.
    static let tileSize = 512
    /// The resolution of level 0 in meters a pixel: the world's width over one 512-pixel tile.
    static let resolution0 = 2 * WebMercator.halfWorld / Double(tileSize)
    /// Inches in a meter, for the scale at 96 DPI: 39.37, the US survey inch, as Esri's tiling
    /// schemes count (level 0 at 1:295,828,763.795777).
    static let inchesPerMeter = 39.37

    /// The layers of the service with geometry, the layers of its tiles.
    /// - Throws: ``ServerRequestError`` (not found) when there is none.
    static func tiledLayers(_ service: ServedService) throws(ServerRequestError) -> [ServedTable] {
        let layers = service.layers.filter { $0.schema.geometryType != nil }
        guard !layers.isEmpty else {
            throw ServerRequestError(.notFound, "\(RequestParameters.quoted(service.name)) has no vector tiles: no layer of it has geometry")
        }
        return layers
    }

    /// `GET …/VectorTileServer`.
    static func service(_ service: ServedService, configuration: ServerConfiguration) throws -> JSONValue {
        var union = Envelope.empty
        for layer in try tiledLayers(service) {
            let extent = try webMercatorExtent(layer)
            if !extent.isEmpty { union.expand(toInclude: extent) }
        }
        // Web Mercator as ArcGIS's tiling schemes name it.
        let mercator = JSONValue.object(JSONObject([("wkid", .integer(102_100)), ("latestWkid", .integer(3857))]))
        let extent = envelope(union, reference: mercator)
        let lods: [JSONValue] = (0...maximumLevel).map { level in
            let resolution = resolution0 / Double(1 << level)
            return .object(
                JSONObject([
                    ("level", .integer(level)), ("resolution", .double(resolution)),
                    ("scale", .double(resolution * 96 * inchesPerMeter)),
                ]))
        }
        let tileInfo = JSONObject([
            ("rows", .integer(tileSize)), ("cols", .integer(tileSize)), ("dpi", .integer(96)), ("format", .string("pbf")),
            ("origin", .object(JSONObject([("x", .double(-WebMercator.halfWorld)), ("y", .double(WebMercator.halfWorld))]))),
            ("spatialReference", mercator), ("lods", .array(lods)),
        ])
        return .object(
            JSONObject([
                ("currentVersion", .double(configuration.arcgisVersion.number)), ("name", .string(service.name)),
                ("capabilities", .string("TilesOnly")), ("type", .string("indexedVector")),
                ("defaultStyles", .string("resources/styles")), ("tiles", .array([.string("tile/{z}/{y}/{x}.pbf")])),
                ("exportTilesAllowed", .bool(false)), ("initialExtent", extent), ("fullExtent", extent),
                ("minScale", .integer(0)), ("maxScale", .integer(0)), ("tileInfo", .object(tileInfo)),
                ("maxzoom", .integer(maximumLevel)), ("minLOD", .integer(0)), ("maxLOD", .integer(maximumLevel)),
            ]))
    }

    /// `GET …/VectorTileServer/resources/styles`: a style drawing the service's layers from
    /// its tiles (`sources.esri.url` is the service, relative to the style, as ArcGIS writes it),
    /// each with its layer's transparency.
    static func style(_ service: ServedService) throws -> JSONValue {
        let layers = try tiledLayers(service).flatMap(styleLayers)
        let sources = JSONObject([("esri", .object(JSONObject([("type", .string("vector")), ("url", .string("../../"))])))])
        return .object(JSONObject([("version", .integer(8)), ("sources", .object(sources)), ("layers", .array(layers))]))
    }

    /// The style layers drawing `served`.
    private static func styleLayers(_ served: ServedTable) -> [JSONValue] {
        let layer = served.id
        let opacity = 1 - served.transparency / 100
        func styleLayer(_ suffix: String, _ type: String, _ paint: [(String, JSONValue)]) -> JSONValue {
            .object(
                JSONObject([
                    ("id", .string(layer + suffix)), ("type", .string(type)), ("source", .string("esri")),
                    ("source-layer", .string(layer)), ("paint", .object(JSONObject(paint))),
                ]))
        }
        let color = JSONValue.string("#2b6cb0")
        switch served.schema.geometryType {
        case .point, .multipoint:
            return [
                styleLayer(
                    "", "circle",
                    [
                        ("circle-radius", .integer(4)), ("circle-color", color), ("circle-stroke-color", .string("#ffffff")),
                        ("circle-stroke-width", .integer(1)), ("circle-opacity", .double(opacity)), ("circle-stroke-opacity", .double(opacity)),
                    ])
            ]
        case .polyline:
            return [styleLayer("", "line", [("line-color", color), ("line-width", .double(1.5)), ("line-opacity", .double(opacity))])]
        case .polygon, .envelope, nil:
            return [
                styleLayer("", "fill", [("fill-color", color), ("fill-opacity", .double(0.35 * opacity))]),
                styleLayer("/outline", "line", [("line-color", color), ("line-width", .integer(1)), ("line-opacity", .double(opacity))]),
            ]
        }
    }

    /// The layer's extent in Web Mercator, its latitudes clamped to the grid's.
    static func webMercatorExtent(_ served: ServedTable) throws -> Envelope {
        let geographic = try OGCTiles.geographicExtent(served)
        guard !geographic.isEmpty else { return geographic }
        let lower = WebMercator.forward(
            longitude: Swift.max(geographic.xmin, -180), latitude: Swift.max(geographic.ymin, -WebMercator.maxLatitude))
        let upper = WebMercator.forward(
            longitude: Swift.min(geographic.xmax, 180), latitude: Swift.min(geographic.ymax, WebMercator.maxLatitude))
        return Envelope(xmin: lower.x, ymin: lower.y, xmax: upper.x, ymax: upper.y)
    }

    /// An Esri JSON envelope; the whole grid for an empty layer.
    static func envelope(_ extent: Envelope, reference: JSONValue) -> JSONValue {
        let box = extent.isEmpty
            ? Envelope(xmin: -WebMercator.halfWorld, ymin: -WebMercator.halfWorld, xmax: WebMercator.halfWorld, ymax: WebMercator.halfWorld)
            : extent
        return .object(
            JSONObject([
                ("xmin", .double(box.xmin)), ("ymin", .double(box.ymin)), ("xmax", .double(box.xmax)), ("ymax", .double(box.ymax)),
                ("spatialReference", reference),
            ]))
    }
}
