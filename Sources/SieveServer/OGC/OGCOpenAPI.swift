import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import SieveJSON

/// The API definition of the OGC API – Features service (`/ogc/api`, linked from the landing
/// page as `service-desc`, as Part 1's `/req/core/root-success` asks): an OpenAPI 3.0 document
/// with one path per collection, listing every query parameter the items route reads —
/// including each queryable property (Part 3 "queryables as query parameters") and the filter
/// languages. Clients such as GDAL read it to decide what to send the server.
enum OGCOpenAPI {
    /// The media type of the document.
    static let mediaType = "application/vnd.oai.openapi+json;version=3.0"

    /// The document for `catalog`, served at `base` + `/ogc`.
    static func document(_ catalog: ServedCatalog, base: String, configuration: ServerConfiguration) -> JSONValue {
        var paths = JSONObject()
        paths.append("/", operation("getLandingPage", "The landing page", type: "application/json"))
        paths.append("/conformance", operation("getConformanceDeclaration", "The conformance classes", type: "application/json"))
        paths.append("/api", operation("getAPIDefinition", "This document", type: mediaType))
        paths.append("/collections", operation("getCollections", "The feature collections", type: "application/json"))
        paths.append("/tileMatrixSets", operation("getTileMatrixSetsList", "The tile matrix sets", type: "application/json"))
        paths.append(
            "/tileMatrixSets/{tileMatrixSetId}",
            operation("getTileMatrixSet", "A tile matrix set", type: "application/json", parameters: [tileMatrixSetParameter]))
        for served in catalog.tables {
            let path = "/collections/" + served.id
            let id = served.id.map { $0.isLetter || $0.isNumber ? $0 : "_" }
            let crs = OGCDocuments.supportedCRS(of: served.schema).map(\.uri)
            paths.append(path, operation("describeCollection_\(String(id))", "The collection \(served.id)", type: "application/json"))
            var items = pathItem(
                "getFeatures_\(String(id))", "Features of \(served.id)", type: ServiceResponse.geoJSONType,
                parameters: itemsParameters(served.visibleSchema, crs: crs, configuration: configuration))
            let featureId = parameter("featureId", in: "path", schema: ["type": .string("integer")], required: true)
            var item = pathItem(
                "getFeature_\(String(id))", "One feature of \(served.id)", type: ServiceResponse.geoJSONType,
                parameters: [featureId, crsParameter("crs", crs)])
            if configuration.allowEdits {
                // Part 4: create, replace, delete.
                items.append("post", edit("createFeature_\(String(id))", "Adds a feature to \(served.id)", body: true, success: "201"))
                item.append("put", edit("replaceFeature_\(String(id))", "Replaces a feature of \(served.id)", body: true, parameters: [featureId]))
                item.append("delete", edit("deleteFeature_\(String(id))", "Deletes a feature of \(served.id)", body: false, parameters: [featureId]))
            }
            paths.append(path + "/items", .object(items))
            paths.append(path + "/items/{featureId}", .object(item))
            paths.append(path + "/queryables", operation("getQueryables_\(String(id))", "The queryables of \(served.id)", type: "application/schema+json"))
            paths.append(path + "/tiles", operation("getTilesets_\(String(id))", "The vector tilesets of \(served.id)", type: "application/json"))
            paths.append(
                path + "/tiles/{tileMatrixSetId}",
                operation(
                    "getTileset_\(String(id))", "The vector tileset of \(served.id)", type: "application/json",
                    parameters: [
                        tileMatrixSetParameter,
                        parameter("f", schema: ["type": .string("string"), "enum": .array([.string("json"), .string("tilejson")])]),
                    ]))
            paths.append(
                path + "/tiles/{tileMatrixSetId}/{tileMatrix}/{tileRow}/{tileCol}",
                operation(
                    "getTile_\(String(id))", "A vector tile of \(served.id)", type: OGCTiles.mediaType,
                    parameters: tileParameters(served.visibleSchema, crs: crs)))
        }
        // `limit` also among the shared parameters, where QGIS looks for its maximum (without it
        // QGIS pages 100 features at a time).
        let components = JSONObject([("parameters", .object(JSONObject([("limit", limitParameter(configuration))])))])
        return .object(
            JSONObject([
                ("openapi", .string("3.0.3")),
                ("info", .object(JSONObject([("title", .string(configuration.title)), ("version", .string("1.0.0"))]))),
                ("servers", .array([.object(JSONObject([("url", .string(base + "/ogc"))]))])),
                ("paths", .object(paths)),
                ("components", .object(components)),
            ]))
    }

    /// The tile matrix set in a path: `WebMercatorQuad`, the one served.
    static let tileMatrixSetParameter = parameter(
        "tileMatrixSetId", in: "path", schema: ["type": .string("string"), "enum": .array([.string("WebMercatorQuad")])], required: true)

    /// The parameters of a tile route: its address, and the filters and properties `/items`
    /// takes too.
    static func tileParameters(_ schema: Schema, crs: [String]) -> [JSONValue] {
        let whole: [String: JSONValue] = ["type": .string("integer"), "minimum": .integer(0)]
        var list = [
            tileMatrixSetParameter,
            parameter("tileMatrix", in: "path", schema: ["type": .string("integer"), "minimum": .integer(0), "maximum": .integer(OGCTiles.maximumZoom)], required: true),
            parameter("tileRow", in: "path", schema: whole, required: true),
            parameter("tileCol", in: "path", schema: whole, required: true),
            parameter("f", schema: ["type": .string("string"), "enum": .array([.string("mvt")])]),
        ]
        list += filterParameters(crs: crs) + [propertiesParameter] + queryableParameters(schema)
        return list
    }

    /// The `limit` parameter: 1 to the largest page, by default the default page. The shared
    /// definition (`components.parameters`, where QGIS reads the page size) declares the largest
    /// page as its `maximum`; the items routes' own (`clamped`) say it in words instead, since
    /// a larger limit is not an error but served as the largest page (Part 1,
    /// `/req/core/fc-limit-response-1`).
    static func limitParameter(_ configuration: ServerConfiguration, clamped: Bool = false) -> JSONValue {
        let largest = configuration.maxRecordCount
        var schema: [String: JSONValue] = [
            "type": .string("integer"), "minimum": .integer(1), "default": .integer(Swift.min(configuration.defaultOGCLimit, largest)),
        ]
        guard clamped else {
            schema["maximum"] = .integer(largest)
            return parameter("limit", schema: schema)
        }
        return parameter("limit", schema: schema, description: "The most features in a page; a larger limit is served as \(largest), the largest page")
    }

    /// The query parameters of an items route: the standard ones and one per queryable field;
    /// `crs` lists the CRS URIs the collection is offered in (``OGCDocuments/supportedCRS(of:)``).
    static func itemsParameters(_ schema: Schema, crs: [String], configuration: ServerConfiguration) -> [JSONValue] {
        let number = JSONValue.object(JSONObject([("type", .string("number"))]))
        var list: [JSONValue] = [
            parameter(
                "bbox",
                schema: ["type": .string("array"), "minItems": .integer(4), "maxItems": .integer(6), "items": number],
                style: "form", explode: false),
            crsParameter("bbox-crs", crs),
            limitParameter(configuration, clamped: true),
            parameter("offset", schema: ["type": .string("integer"), "minimum": .integer(0), "default": .integer(0)]),
        ]
        list += filterParameters(crs: crs)
        list.append(crsParameter("crs", crs))
        list.append(parameter("sortby", schema: ["type": .string("array"), "items": .object(JSONObject([("type", .string("string"))]))], style: "form", explode: false))
        list.append(propertiesParameter)
        return list + queryableParameters(schema)
    }

    /// `datetime` and the CQL2 filter, as `/items` and the tiles read them.
    static func filterParameters(crs: [String]) -> [JSONValue] {
        [
            parameter("datetime", schema: ["type": .string("string"), "pattern": .string(datetimePattern)]),
            parameter("filter", schema: ["type": .string("string"), "minLength": .integer(1)]),
            parameter(
                "filter-lang",
                schema: [
                    "type": .string("string"), "enum": .array(OGCItems.filterLanguages.map { .string($0) }),
                    "default": .string("cql2-text"),
                ]),
            crsParameter("filter-crs", crs),
        ]
    }

    /// What `datetime` takes: an RFC 3339 date or date-time, or an interval of two with one end
    /// open (`..` or empty). (Days are given up to the 28th: a pattern cannot tell which months
    /// have a 31st; the server takes every real day.)
    static let datetimePattern: String = {
        let instant =
            "[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])"
            + "([Tt]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9]))?"
        return "^(\(instant)|\(instant)/(\(instant)|\\.\\.)?|(\\.\\.)?/\(instant))$"
    }()

    /// A CRS parameter (`crs`, `bbox-crs`, `filter-crs`): one of the URIs `crs` lists.
    static func crsParameter(_ name: String, _ crs: [String]) -> JSONValue {
        parameter(name, schema: ["type": .string("string"), "format": .string("uri"), "enum": .array(crs.map { .string($0) })])
    }

    /// `properties`: the fields an answer holds.
    static let propertiesParameter = parameter(
        "properties", schema: ["type": .string("array"), "items": .object(JSONObject([("type", .string("string"))]))], style: "form",
        explode: false)

    /// One equality parameter per field (Part 3, queryables as query parameters).
    static func queryableParameters(_ schema: Schema) -> [JSONValue] {
        schema.fields.map { field in
            let type: String
            switch field.type {
            case .oid, .smallInteger, .integer, .bigInteger: type = "integer"
            case .single, .double: type = "number"
            case .string, .guid, .globalID, .date, .dateOnly: type = "string"
            }
            return parameter(field.name, schema: ["type": .string(type)])
        }
    }

    /// A parameter object.
    static func parameter(
        _ name: String, in location: String = "query", schema: [String: JSONValue], required: Bool = false, style: String? = nil,
        explode: Bool? = nil, description: String? = nil
    ) -> JSONValue {
        var object = JSONObject([("name", .string(name)), ("in", .string(location)), ("required", .bool(required))])
        if let description { object.append("description", .string(description)) }
        object.append("schema", .object(JSONObject(schema.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })))
        if let style { object.append("style", .string(style)) }
        if let explode { object.append("explode", .bool(explode)) }
        return .object(object)
    }

    /// A Part 4 operation: a GeoJSON feature as its body when `body`, answered `success` (201
    /// with a `Location`, or 204) or an error.
    static func edit(_ id: String, _ summary: String, body: Bool, success: String = "204", parameters: [JSONValue] = []) -> JSONValue {
        var object = JSONObject([("operationId", .string(id)), ("summary", .string(summary))])
        if !parameters.isEmpty { object.append("parameters", .array(parameters)) }
        if body {
            let schema = JSONObject([("type", .string("object"))])
            let content = JSONObject([(ServiceResponse.geoJSONType, .object(JSONObject([("schema", .object(schema))])))])
            object.append("requestBody", .object(JSONObject([("required", .bool(true)), ("content", .object(content))])))
        }
        var responses = JSONObject([(success, .object(JSONObject([("description", .string(summary))])))])
        for (status, description) in [
            ("400", "Invalid feature"), ("401", "A token is needed"), ("403", "Not allowed"), ("404", "Not found"), ("409", "A conflicting edit"),
        ] {
            responses.append(status, .object(JSONObject([("description", .string(description))])))
        }
        object.append("responses", .object(responses))
        return .object(object)
    }

    /// A path item with one GET operation answering `type`.
    static func operation(_ id: String, _ summary: String, type: String, parameters: [JSONValue] = []) -> JSONValue {
        .object(pathItem(id, summary, type: type, parameters: parameters))
    }

    /// The members of a path item with one GET operation answering `type`, for more to be added.
    static func pathItem(_ id: String, _ summary: String, type: String, parameters: [JSONValue] = []) -> JSONObject {
        var get = JSONObject([("operationId", .string(id)), ("summary", .string(summary))])
        if !parameters.isEmpty { get.append("parameters", .array(parameters)) }
        let content = JSONObject([(type, .object(JSONObject()))])
        let ok = JSONObject([("description", .string(summary)), ("content", .object(content))])
        let responses = JSONObject([
            ("200", .object(ok)), ("400", .object(JSONObject([("description", .string("Invalid parameters"))]))),
            ("404", .object(JSONObject([("description", .string("Not found"))]))),
        ])
        get.append("responses", .object(responses))
        return JSONObject([("get", .object(get))])
    }
}
