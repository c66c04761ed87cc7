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
        for served in catalog.tables {
            let path = "/collections/" + served.id
            let id = served.id.map { $0.isLetter || $0.isNumber ? $0 : "_" }
            paths.append(path, operation("describeCollection_\(String(id))", "The collection \(served.id)", type: "application/json"))
            paths.append(
                path + "/items",
                operation(
                    "getFeatures_\(String(id))", "Features of \(served.id)", type: ServiceResponse.geoJSONType,
                    parameters: itemsParameters(served.layer.schema, configuration: configuration)))
            paths.append(
                path + "/items/{featureId}",
                operation(
                    "getFeature_\(String(id))", "One feature of \(served.id)", type: ServiceResponse.geoJSONType,
                    parameters: [
                        parameter("featureId", in: "path", schema: ["type": .string("integer")], required: true),
                        parameter("crs", schema: ["type": .string("string"), "format": .string("uri")]),
                    ]))
            paths.append(path + "/queryables", operation("getQueryables_\(String(id))", "The queryables of \(served.id)", type: "application/schema+json"))
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

    /// The `limit` parameter: 1 to the largest page, by default the default page.
    static func limitParameter(_ configuration: ServerConfiguration) -> JSONValue {
        parameter(
            "limit",
            schema: [
                "type": .string("integer"), "minimum": .integer(1), "maximum": .integer(configuration.maxRecordCount),
                "default": .integer(Swift.min(configuration.defaultOGCLimit, configuration.maxRecordCount)),
            ])
    }

    /// The query parameters of an items route: the standard ones and one per queryable field.
    static func itemsParameters(_ schema: Schema, configuration: ServerConfiguration) -> [JSONValue] {
        let number = JSONValue.object(JSONObject([("type", .string("number"))]))
        var list: [JSONValue] = [
            parameter(
                "bbox",
                schema: ["type": .string("array"), "minItems": .integer(4), "maxItems": .integer(6), "items": number],
                style: "form", explode: false),
            parameter("bbox-crs", schema: ["type": .string("string"), "format": .string("uri")]),
            limitParameter(configuration),
            parameter("offset", schema: ["type": .string("integer"), "minimum": .integer(0), "default": .integer(0)]),
            parameter("datetime", schema: ["type": .string("string")]),
            parameter("filter", schema: ["type": .string("string")]),
            parameter(
                "filter-lang",
                schema: [
                    "type": .string("string"), "enum": .array(OGCItems.filterLanguages.map { .string($0) }),
                    "default": .string("cql2-text"),
                ]),
            parameter("filter-crs", schema: ["type": .string("string"), "format": .string("uri")]),
            parameter("crs", schema: ["type": .string("string"), "format": .string("uri")]),
            parameter("sortby", schema: ["type": .string("array"), "items": .object(JSONObject([("type", .string("string"))]))], style: "form", explode: false),
            parameter("properties", schema: ["type": .string("array"), "items": .object(JSONObject([("type", .string("string"))]))], style: "form", explode: false),
        ]
        for field in schema.fields {
            let type: String
            switch field.type {
            case .oid, .smallInteger, .integer, .bigInteger: type = "integer"
            case .single, .double: type = "number"
            case .string, .guid, .globalID, .date, .dateOnly: type = "string"
            }
            list.append(parameter(field.name, schema: ["type": .string(type)]))
        }
        return list
    }

    /// A parameter object.
    static func parameter(
        _ name: String, in location: String = "query", schema: [String: JSONValue], required: Bool = false, style: String? = nil,
        explode: Bool? = nil
    ) -> JSONValue {
        var object = JSONObject([("name", .string(name)), ("in", .string(location)), ("required", .bool(required))])
        object.append("schema", .object(JSONObject(schema.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })))
        if let style { object.append("style", .string(style)) }
        if let explode { object.append("explode", .bool(explode)) }
        return .object(object)
    }

    /// A path item with one GET operation answering `type`.
    static func operation(_ id: String, _ summary: String, type: String, parameters: [JSONValue] = []) -> JSONValue {
        var get = JSONObject([("operationId", .string(id)), ("summary", .string(summary))])
        if !parameters.isEmpty { get.append("parameters", .array(parameters)) }
        let content = JSONObject([(type, .object(JSONObject()))])
        let ok = JSONObject([("description", .string(summary)), ("content", .object(content))])
        let responses = JSONObject([
            ("200", .object(ok)), ("400", .object(JSONObject([("description", .string("Invalid parameters"))]))),
            ("404", .object(JSONObject([("description", .string("Not found"))]))),
        ])
        get.append("responses", .object(responses))
        return .object(JSONObject([("get", .object(get))]))
    }
}
