import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import SieveProjection
import SieveJSON

/// The documents of the OGC API – Features service that are not features: the landing page,
/// the conformance declaration, the collections and the queryables.
enum OGCDocuments {
    /// The URI of longitude/latitude WGS 84, the default CRS of OGC API – Features.
    static let crs84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84"

    /// The conformance classes implemented: Part 1 core, GeoJSON, HTML (every resource of Part 1
    /// as a page, `f=html` or `Accept: text/html`) and OpenAPI 3.0 (`/ogc/api`), Part 2 (CRS by
    /// reference), Part 3 (queryables, filters) and the CQL2 classes the filter language
    /// supports.
    static let conformance: [String] = {
        let features = [
            "ogcapi-features-1/1.0/conf/core", "ogcapi-features-1/1.0/conf/geojson", "ogcapi-features-1/1.0/conf/html",
            "ogcapi-features-1/1.0/conf/oas30", "ogcapi-features-2/1.0/conf/crs",
            "ogcapi-features-3/1.0/conf/queryables", "ogcapi-features-3/1.0/conf/queryables-query-parameters",
            "ogcapi-features-3/1.0/conf/filter", "ogcapi-features-3/1.0/conf/features-filter",
        ]
        let cql2 = [
            "cql2-text", "cql2-json", "basic-cql2", "advanced-comparison-operators", "case-insensitive-comparison",
            "accent-insensitive-comparison", "basic-spatial-functions", "basic-spatial-functions-plus", "spatial-functions",
            "temporal-functions", "array-functions", "property-property", "arithmetic",
        ]
        return features.map { "http://www.opengis.net/spec/" + $0 } + cql2.map { "http://www.opengis.net/spec/cql2/1.0/conf/" + $0 }
    }()

    /// A link object.
    static func link(_ href: String, rel: String, type: String, title: String? = nil) -> JSONValue {
        var object = JSONObject([("href", .string(href)), ("rel", .string(rel)), ("type", .string(type))])
        if let title { object.append("title", .string(title)) }
        return .object(object)
    }

    /// `GET /ogc`.
    static func landing(base: String, configuration: ServerConfiguration) -> JSONValue {
        .object(
            JSONObject([
                ("title", .string(configuration.title)),
                ("description", .string("Feature tables served by GeoSieve")),
                (
                    "links",
                    .array([
                        link(base + "/ogc", rel: "self", type: "application/json", title: "This document"),
                        link(base + "/ogc/api", rel: "service-desc", type: OGCOpenAPI.mediaType, title: "The API definition"),
                        link(base + "/ogc/conformance", rel: "conformance", type: "application/json", title: "Conformance classes"),
                        link(base + "/ogc/collections", rel: "data", type: "application/json", title: "Feature collections"),
                        link(
                            base + "/ogc/tileMatrixSets", rel: "http://www.opengis.net/def/rel/ogc/1.0/tiling-schemes", type: "application/json",
                            title: "Tile matrix sets"),
                    ])
                ),
            ]))
    }

    /// `GET /ogc/conformance`: Part 4 too when edits are allowed.
    static func conformanceDocument(edits: Bool) -> JSONValue {
        let classes = conformance + OGCTiles.conformance + (edits ? [OGCTransactions.conformance] : [])
        return .object(JSONObject([("conformsTo", .array(classes.map { .string($0) }))]))
    }

    /// `GET /ogc/collections`.
    static func collections(_ catalog: ServedCatalog, base: String) throws -> JSONValue {
        .object(
            JSONObject([
                ("links", .array([link(base + "/ogc/collections", rel: "self", type: "application/json")])),
                ("collections", .array(try catalog.tables.map { try collection($0, base: base) })),
            ]))
    }

    /// `GET /ogc/collections/{id}`: id, title, links, the extent in CRS84, the CRSs offered.
    static func collection(_ served: ServedTable, base: String) throws -> JSONValue {
        let href = base + "/ogc/collections/" + served.id
        let schema = served.schema
        var object = JSONObject()
        object.append("id", .string(served.id))
        object.append("title", .string(served.title))
        object.append("description", .string(served.description))
        object.append(
            "links",
            .array([
                link(href, rel: "self", type: "application/json"),
                link(href + "/items", rel: "items", type: ServiceResponse.geoJSONType, title: "Features"),
                link(href + "/queryables", rel: "http://www.opengis.net/def/rel/ogc/1.0/queryables", type: "application/schema+json"),
                link(href + "/tiles", rel: "http://www.opengis.net/def/rel/ogc/1.0/tilesets-vector", type: "application/json", title: "Vector tiles"),
            ]))
        object.append("itemType", .string("feature"))
        if schema.geometryType != nil {
            let extent = try served.fullExtent()
            let wgs84 = extent.isEmpty ? extent : try Projector(from: schema.spatialReference, to: .wgs84).projectEnvelope(extent)
            var spatial = JSONObject()
            if !wgs84.isEmpty {
                spatial.append("bbox", .array([.array([wgs84.xmin, wgs84.ymin, wgs84.xmax, wgs84.ymax].map { .double($0) })]))
            }
            spatial.append("crs", .string(crs84))
            object.append("extent", .object(JSONObject([("spatial", .object(spatial))])))
            object.append("crs", .array(supportedCRS(of: schema).map { .string($0.uri) }))
            object.append("storageCrs", .string(uri(of: schema.spatialReference)))
        }
        return .object(object)
    }

    /// The URI of a spatial reference: CRS84 for 4326 (the coordinates GeoSieve stores are
    /// longitude first), the EPSG URI otherwise.
    static func uri(of reference: SpatialReference) -> String {
        reference.latestWkid == 4326 ? crs84 : "http://www.opengis.net/def/crs/EPSG/0/\(reference.latestWkid)"
    }

    /// The CRSs features can be asked in (`crs`) and boxes and filters given in (`bbox-crs`,
    /// `filter-crs`): CRS84, the table's own and Web Mercator, each only when its official
    /// axis order is east then north (GeoSieve writes x, y; EPSG 4326 itself, latitude first,
    /// is therefore not offered).
    static func supportedCRS(of schema: Schema) -> [(uri: String, reference: SpatialReference)] {
        var list: [(uri: String, reference: SpatialReference)] = [(crs84, .wgs84)]
        for reference in [schema.spatialReference, .webMercator] where !list.contains(where: { $0.reference == reference }) {
            let eastFirst = (try? ProjectionContext.withCurrent { context throws(ProjectionError) in
                try context.axisDirections(of: reference).first == "east"
            }) ?? false
            if eastFirst { list.append((uri(of: reference), reference)) }
        }
        return list
    }

    /// The spatial reference of a CRS URI `parameter` gives, one of ``supportedCRS(of:)``.
    /// - Throws: ``ServerRequestError`` (bad request) listing the supported ones.
    static func reference(_ text: String, parameter: String, schema: Schema) throws(ServerRequestError) -> SpatialReference {
        let supported = supportedCRS(of: schema)
        let given = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
        let normalized = given.replacingOccurrences(of: "https://", with: "http://")
        let short: [String: String] = ["OGC:CRS84": crs84]
        if let match = supported.first(where: { $0.uri == (short[normalized] ?? normalized) || "EPSG:\($0.reference.latestWkid)" == normalized && $0.uri != crs84 }) {
            return match.reference
        }
        throw ServerRequestError(
            .badRequest, "\(parameter): \(RequestParameters.quoted(text)) is not supported; use one of " + supported.map(\.uri).joined(separator: ", "))
    }

    /// `GET /ogc/collections/{id}/queryables`: a JSON Schema of the properties a filter may
    /// name — every field with its JSON type (dates as `date-time` strings, date-only fields as
    /// `date` strings) and the geometry.
    static func queryables(_ served: ServedTable, base: String) -> JSONValue {
        let schema = served.visibleSchema
        var properties = JSONObject()
        if let name = geometryPropertyName(of: schema) {
            properties.append(name, .object(JSONObject([("title", .string("Geometry")), ("format", .string("geometry-any"))])))
        }
        for field in schema.fields {
            var property = JSONObject([("title", .string(field.alias.isEmpty ? field.name : field.alias))])
            switch field.type {
            case .oid, .smallInteger, .integer, .bigInteger: property.append("type", .string("integer"))
            case .single, .double: property.append("type", .string("number"))
            case .date:
                property.append("type", .string("string"))
                property.append("format", .string("date-time"))
            case .dateOnly:
                property.append("type", .string("string"))
                property.append("format", .string("date"))
            case .string, .guid, .globalID: property.append("type", .string("string"))
            }
            properties.append(field.name, .object(property))
        }
        return .object(
            JSONObject([
                ("$schema", .string("https://json-schema.org/draft/2020-12/schema")),
                ("$id", .string(base + "/ogc/collections/" + served.id + "/queryables")),
                ("type", .string("object")),
                ("title", .string(served.title)),
                ("properties", .object(properties)),
                ("additionalProperties", .bool(false)),
            ]))
    }

    /// The name filters call the geometry by: `geometry`, unless a field has that name (then the
    /// next of ``FeatureFilter/geometryPropertyNames(of:)``); `nil` without geometries.
    static func geometryPropertyName(of schema: Schema) -> String? {
        let names = FeatureFilter.geometryPropertyNames(of: schema)
        return ["geometry", "geom", "the_geom", "shape", "wkb_geometry"].first { names.contains($0) }
    }
}
