#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SieveColumns
import SieveCQL
import SieveFeatures
import SieveEditing
import SieveArcGISREST
import SieveFormats
import SieveGeometry
import SieveMap
import SieveJSON

/// `GET /ogc/collections/{id}/items` and `/items/{featureId}`: the request's selection read
/// into one CQL2 filter and a page, run on the layer, written as GeoJSON.
///
/// | parameter | reading |
/// |---|---|
/// | `bbox` (+`bbox-crs`) | 4 or 6 numbers; features intersecting it, and those without geometry (Part 1, `/req/core/fc-bbox-response` C); west > east crosses the antimeridian |
/// | `datetime` | an RFC 3339 date or date-time, or `start/end` (one end `..` or empty: open) against the layer's time (``ServedTable/time``: one field, or a start and an end field whose interval must overlap it, a NULL end open), else the first date field; features without a value match too (`fc-time-response` C); checked but ignored without a date field |
/// | `filter`, `filter-lang`, `filter-crs` | CQL2 text (default) or JSON |
/// | `FIELD=value` | equality on a queryable field, the value read as the field's type |
/// | `limit`, `offset` | the page: `limit` default from the configuration, clamped to the maximum (not an error, as the standard asks) |
/// | `sortby` | `+a,-b,c` |
/// | `properties` | the fields returned |
/// | `crs` | the CRS of the returned coordinates (see ``OGCDocuments/supportedCRS(of:)``); named in `Content-Crs` |
/// | `f` | `json` or `geojson` |
///
/// All of them are ANDed (Part 3 `/req/filter/mixing-expressions`). Any other parameter is an
/// error (400), as `/req/core/query-param-unknown` asks; `token` is always allowed.
enum OGCItems {
    /// The parameters every items request may carry besides queryable fields.
    static let known: Set<String> = [
        "f", "token", "bbox", "bbox-crs", "limit", "offset", "datetime", "filter", "filter-lang", "filter-crs", "crs", "sortby",
        "properties",
    ]

    /// The `filter-lang` values read: CQL2 text and JSON, and `cql-text`, the name drafts of
    /// Part 3 gave CQL text (GDAL 3.6 sends it), read as CQL2 text.
    static let filterLanguages = ["cql2-text", "cql2-json", "cql-text"]

    /// What an items request asks for, read before any query.
    struct ItemsRequest: Sendable {
        var query: QueryParameters
        var limit: Int
        var offset: Int
        var crsURI: String
        /// The query of `numberMatched`: the selection unpaged.
        var count: QueryParameters {
            var count = query
            count.maxFeatures = nil
            count.resultOffset = nil
            return count
        }
        /// Whether the page says how many match without a count: the first page, not cut.
        func matchedWithoutCount(_ result: FeatureQueryResult) -> Bool { offset == 0 && !result.exceededTransferLimit }
    }

    /// The items page `parameters` ask for, of a table held in memory (run on an engine thread).
    static func items(
        _ parameters: RequestParameters, served: ServedTable, base: String, path: String, configuration: ServerConfiguration,
        html: Bool = false
    ) throws(ServerRequestError) -> ServiceResponse {
        let read = try itemsRequest(parameters, served: served, configuration: configuration)
        return try ServerRequestError.catching(.badRequest) {
            let result = try served.layer.queryFeatures(read.query)
            let matched = read.matchedWithoutCount(result) ? result.count : try served.layer.queryFeatureCount(read.count)
            return try page(result, matched: matched, read, parameters, served: served, base: base, path: path, html: html)
        }
    }

    /// The items page `parameters` ask for, of a source that answers elsewhere (a database),
    /// which runs the queries.
    static func items(
        _ parameters: RequestParameters, served: ServedTable, base: String, path: String, configuration: ServerConfiguration,
        html: Bool = false
    ) async throws(ServerRequestError) -> ServiceResponse {
        let read = try itemsRequest(parameters, served: served, configuration: configuration)
        return try await ServerRequestError.catching(.badRequest) {
            let result = try await served.features(read.query)
            let matched = read.matchedWithoutCount(result) ? result.count : try await served.count(read.count)
            return try page(result, matched: matched, read, parameters, served: served, base: base, path: path, html: html)
        }
    }

    /// The query, page and output CRS `parameters` ask for.
    static func itemsRequest(
        _ parameters: RequestParameters, served: ServedTable, configuration: ServerConfiguration
    ) throws(ServerRequestError) -> ItemsRequest {
        let schema = served.schema
        try checkFormat(parameters)
        var query = try selection(parameters, served: served, time: served.time)
        let limit = try integer(parameters, "limit", minimum: 1).map { Swift.min($0, configuration.maxRecordCount) }
            ?? Swift.min(configuration.defaultOGCLimit, configuration.maxRecordCount)
        let offset = try integer(parameters, "offset", minimum: 0) ?? 0
        query.maxFeatures = limit
        query.resultOffset = offset
        let (output, crsURI) = try outputCRS(parameters, schema: schema)
        query.outSpatialReference = output
        if let fields = outFields(parameters, schema: schema) { query.outFields = fields }
        if let sortby = parameters["sortby"] { query.orderBy = try sortFields(sortby) }
        try served.restrictToVisibleFields(&query)
        return ItemsRequest(query: query, limit: limit, offset: offset, crsURI: crsURI)
    }

    /// The items page of `result`, `matched` features matching in all.
    static func page(
        _ result: FeatureQueryResult, matched: Int, _ read: ItemsRequest, _ parameters: RequestParameters, served: ServedTable,
        base: String, path: String, html: Bool
    ) throws -> ServiceResponse {
        let (offset, limit) = (read.offset, read.limit)
        // The pages before and after, by offset.
        let next = result.exceededTransferLimit ? offset + result.count : nil
        let previous = offset > 0 ? Swift.max(0, offset - limit) : nil
        if html {
            // Relative links, for the browser to follow.
            let pages = [("← previous", previous), ("next →", next)].compactMap { label, page in
                page.map { (label, pageURL(path, parameters, offset: $0)) }
            }
            return OGCHTML.items(served, result: result, matched: matched, pages: pages, offset: offset).serving(served.id, features: result.count)
        }
        var links: [JSONValue] = [
            OGCDocuments.link(pageURL(base + path, parameters, offset: offset), rel: "self", type: ServiceResponse.geoJSONType),
            OGCDocuments.link(base + "/ogc/collections/" + served.id, rel: "collection", type: "application/json"),
        ]
        for (rel, page) in [("next", next), ("prev", previous)] {
            if let page { links.append(OGCDocuments.link(pageURL(base + path, parameters, offset: page), rel: rel, type: ServiceResponse.geoJSONType)) }
        }
        let members = JSONObject([
            ("numberMatched", .integer(matched)), ("numberReturned", .integer(result.count)),
            ("timeStamp", .string(timeStamp())), ("links", .array(links)),
        ])
        return ServiceResponse(
            contentType: ServiceResponse.geoJSONType, headers: [("Content-Crs", "<\(read.crsURI)>")],
            body: result.ogcFeatureCollection(members: members, options: FeatureWriterOptions())
        ).serving(served.id, features: result.count)
    }

    /// `/items/{featureId}`: the feature whose object ID is `featureID`.
    static func item(
        _ featureID: String, _ parameters: RequestParameters, served: ServedTable, base: String, path: String, html: Bool = false
    ) async throws(ServerRequestError) -> ServiceResponse {
        try checkFormat(parameters)
        for name in parameters.names where !["f", "token", "crs"].contains(name) {
            throw ServerRequestError(.badRequest, "unknown parameter \(RequestParameters.quoted(name)): a feature takes f and crs")
        }
        guard let id = Int64(featureID) else {
            throw ServerRequestError(.notFound, "feature \(RequestParameters.quoted(featureID)) does not exist: feature ids are integers")
        }
        var query = QueryParameters()
        query.objectIDs = [id]
        let (output, crsURI) = try outputCRS(parameters, schema: served.schema)
        query.outSpatialReference = output
        try served.restrictToVisibleFields(&query)
        let selected = query
        return try await ServerRequestError.catching(.badRequest) {
            let result = try await served.features(selected)
            guard !result.isEmpty else {
                throw ServerRequestError(.notFound, "feature \(id) does not exist in collection \(RequestParameters.quoted(served.id))")
            }
            if html { return OGCHTML.item(served, result: result).serving(served.id, features: 1) }
            let links: [JSONValue] = [
                OGCDocuments.link(base + path, rel: "self", type: ServiceResponse.geoJSONType),
                OGCDocuments.link(base + "/ogc/collections/" + served.id, rel: "collection", type: "application/json"),
            ]
            return ServiceResponse(
                contentType: ServiceResponse.geoJSONType, headers: [("Content-Crs", "<\(crsURI)>")],
                body: result.ogcFeature(at: 0, members: JSONObject([("links", .array(links))]), options: FeatureWriterOptions())
            ).serving(served.id, features: 1)
        }
    }

    // MARK: Reading the selection

    /// The query of the selection parameters: bbox, datetime, filter and property equalities as
    /// one CQL2 filter.
    /// `datetime` selects by the layer's `time` when it is time-aware, else by its first date field.
    static func selection(_ parameters: RequestParameters, served: ServedTable, time: LayerTime? = nil) throws(ServerRequestError)
        -> QueryParameters
    {
        let schema = served.schema
        var conditions: [CQL2Expression] = []
        for name in parameters.names where !known.contains(name) {
            guard let field = schema.field(named: name) else {
                throw ServerRequestError(
                    .badRequest,
                    "unknown parameter \(RequestParameters.quoted(name)): use bbox, bbox-crs, datetime, filter, filter-lang, filter-crs, "
                        + "limit, offset, sortby, properties, crs, f, or a queryable property")
            }
            conditions.append(.comparison(.equal, .property(field.name), try literal(parameters[name] ?? "", field: field)))
        }
        var query = QueryParameters()
        var filterCRS = try parameters["filter-crs"].map { text throws(ServerRequestError) in
            try OGCDocuments.reference(text, parameter: "filter-crs", schema: schema)
        }
        if let text = parameters["filter"] {
            let encoding: CQL2Error.Encoding
            switch parameters["filter-lang"] ?? "cql2-text" {
            case "cql2-text", "cql-text": encoding = .text
            case "cql2-json": encoding = .json
            case let other:
                throw ServerRequestError(.badRequest, "filter-lang: \(RequestParameters.quoted(other)) is not supported; use cql2-text or cql2-json (or cql-text, read as cql2-text)")
            }
            do {
                conditions.append(try CQL2Filter(text, encoding: encoding).expression)
            } catch {
                throw ServerRequestError(.badRequest, "filter: \(error)")
            }
        } else if parameters["filter-lang"] != nil || parameters["filter-crs"] != nil {
            throw ServerRequestError(.badRequest, "filter-lang and filter-crs need a filter")
        }
        if let text = parameters["bbox"] {
            let bboxCRS = try parameters["bbox-crs"].map { text throws(ServerRequestError) in
                try OGCDocuments.reference(text, parameter: "bbox-crs", schema: schema)
            } ?? .wgs84
            if let filterCRS, filterCRS != bboxCRS, parameters["filter"] != nil {
                throw ServerRequestError(.badRequest, "bbox-crs and filter-crs differ: give the bbox in the filter's CRS")
            }
            let box = try bbox(text, geographic: bboxCRS == .wgs84)
            if served.everyFeatureHasGeometry {
                // The quadtree path: the box as the query geometry (two boxes across the
                // antimeridian), no feature lacking a geometry to match as well.
                try query.setBox(box, in: bboxCRS)
            } else if let geometry = OGCDocuments.geometryPropertyName(of: schema) {
                filterCRS = bboxCRS
                // A CRS84 box reaching past ±180/±90 covers nothing more there; clamped, it is a
                // BBOX literal the filter accepts, as the quadtree path accepts the box.
                func clamp(_ value: Double, _ limit: Double) -> Double { min(max(value, -limit), limit) }
                let box = bboxCRS == .wgs84 ? [clamp(box[0], 180), clamp(box[1], 90), clamp(box[2], 180), clamp(box[3], 90)] : box
                conditions.append(.or([.spatial(.intersects, .property(geometry), .bbox(box)), .isNull(.property(geometry), negated: false)]))
            }
        } else if parameters["bbox-crs"] != nil {
            throw ServerRequestError(.badRequest, "bbox-crs needs a bbox")
        }
        if let text = parameters["datetime"], let condition = try datetime(text, schema: schema, time: time) {
            conditions.append(condition)
        }
        if !conditions.isEmpty {
            query.filter = CQL2Filter(conditions.count == 1 ? conditions[0] : .and(conditions))
            query.filterSpatialReference = filterCRS
        }
        return query
    }

    /// The fields `properties` names (comma-separated; none at all: the object ID only), `nil`
    /// without the parameter.
    static func outFields(_ parameters: RequestParameters, schema: Schema) -> [String]? {
        guard let properties = parameters["properties"] else { return nil }
        let names = properties.split(separator: ",").map { String($0.trimmingWhitespace()) }.filter { !$0.isEmpty }
        return names.isEmpty ? [schema.objectIdFieldName] : names
    }

    /// `bbox=w,s,e,n` (or 6 numbers with heights, which are ignored) as west, south, east, north.
    /// Features intersecting the box match, and (Part 1, `/req/core/fc-bbox-response` C) those
    /// without a geometry.
    static func bbox(_ text: String, geographic: Bool) throws(ServerRequestError) -> [Double] {
        let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingWhitespace()) }
        guard numbers.count == 4 || numbers.count == 6, numbers.allSatisfy({ $0?.isFinite == true }) else {
            throw ServerRequestError(.badRequest, "bbox: \(RequestParameters.quoted(text)) is not 4 or 6 comma-separated numbers")
        }
        let values = numbers.compactMap { $0 }
        let box = values.count == 4 ? values : [values[0], values[1], values[3], values[4]]
        guard box[1] <= box[3] else { throw ServerRequestError(.badRequest, "bbox: the south edge \(box[1]) is above the north edge \(box[3])") }
        guard box[0] <= box[2] || geographic else {
            throw ServerRequestError(.badRequest, "bbox: the west edge is east of the east edge, which only CRS84 boxes may do (across the antimeridian)")
        }
        return box
    }

    /// `datetime`: an instant or an interval against the table's first date or date-only field
    /// (any value matches when the value is NULL); `nil` without a date field.
    ///
    /// The value is checked first, with or without a date field: an invalid one is a 400 naming
    /// it, as OGC API – Features asks of any invalid parameter value. It is, as Part 1's
    /// `/req/core/fc-time-definition` reads it, an RFC 3339 date-time (`2020-01-01T10:00:00Z`,
    /// seconds required, a fraction, `Z` or an offset such as `+02:00`) or full date
    /// (`2020-01-01`, the whole day), or an interval `start/end` of two of them where one end
    /// (not both) may be open, as `..` or empty. A space in place of an offset's `+` (a `+` sent
    /// unencoded reads as a space) is taken as `+`. `..`, `/`, `../..` and other intervals open
    /// at both ends are refused: Part 1's grammar has none.
    static func datetime(_ text: String, schema: Schema, time: LayerTime? = nil) throws(ServerRequestError) -> CQL2Expression? {
        let target = try datetimeTarget(text)
        if let time { return time.expression(target, nullsMatch: true) }
        guard let field = schema.fields.first(where: { $0.type == .date || $0.type == .dateOnly }) else { return nil }
        let property = CQL2Expression.property(field.name)
        return .or([.temporal(.intersects, property, target), .isNull(property, negated: false)])
    }

    /// The instant or interval of a `datetime` value (see ``datetime(_:schema:)``).
    static func datetimeTarget(_ text: String) throws(ServerRequestError) -> CQL2Expression {
        func invalid(_ why: String) -> ServerRequestError {
            ServerRequestError(.badRequest, "datetime: \(RequestParameters.quoted(text)) is not valid: \(why)")
        }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            let value = parts[0].trimmingWhitespace()
            if value.isEmpty || value == ".." { throw invalid("an instant cannot be open; give an RFC 3339 date or date-time") }
            switch rfc3339(value) {
            case .date(let day): return .date(day)
            case .timestamp(let instant): return .timestamp(instant)
            default: throw invalid("expected an RFC 3339 date (2020-01-01) or date-time (2020-01-01T10:00:00Z), or an interval start/end")
            }
        case 2:
            func bound(_ part: Substring, _ name: String) throws(ServerRequestError) -> CQL2IntervalBound {
                let value = part.trimmingWhitespace()
                if value.isEmpty || value == ".." { return .unbounded }
                guard let bound = rfc3339(value) else {
                    throw invalid("its \(name) \(RequestParameters.quoted(String(value))) is not an RFC 3339 date or date-time, '..' or empty")
                }
                return bound
            }
            let start = try bound(parts[0], "start")
            let end = try bound(parts[1], "end")
            if case .unbounded = start, case .unbounded = end { throw invalid("an interval needs at least one bound") }
            return .interval(start, end)
        default:
            throw invalid("expected an instant or one start/end interval")
        }
    }

    /// `text` as an RFC 3339 full date (`.date`) or date-time (`.timestamp`, in UTC as the
    /// filter engine reads it: `yyyy-mm-ddThh:mm:ss.fffZ`), `nil` when it is neither or names
    /// an impossible day or time.
    static func rfc3339(_ text: Substring) -> CQL2IntervalBound? {
        var bytes = Array(text.utf8)
        if bytes.count == 10 { return CivilTime.parse(String(text), syntax: .sqlDate) == nil ? nil : .date(String(text)) }
        // yyyy-mm-ddThh:mm:ss[.f…](Z|±hh:mm)
        guard bytes.count >= 20, bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"), bytes[13] == UInt8(ascii: ":"),
            bytes[16] == UInt8(ascii: ":"), bytes[17...18].allSatisfy({ $0 >= 48 && $0 <= 57 })
        else { return nil }
        var zone = 19
        if bytes[zone] == UInt8(ascii: ".") {
            zone += 1
            let digits = bytes[zone...].prefix { $0 >= 48 && $0 <= 57 }.count
            guard digits > 0 else { return nil }
            zone += digits
        }
        let rest = bytes.count - zone
        if rest == 1 {
            guard bytes[zone] == UInt8(ascii: "Z") || bytes[zone] == UInt8(ascii: "z") else { return nil }
        } else if rest == 6 {
            if bytes[zone] == UInt8(ascii: " ") { bytes[zone] = UInt8(ascii: "+") }
            guard bytes[zone] == UInt8(ascii: "+") || bytes[zone] == UInt8(ascii: "-"), bytes[zone + 3] == UInt8(ascii: ":") else { return nil }
        } else {
            return nil
        }
        guard let milliseconds = CivilTime.parse(String(decoding: bytes, as: UTF8.self), syntax: .iso8601) else { return nil }
        return .timestamp(CivilTime.format(milliseconds: milliseconds))
    }

    /// The literal of a `FIELD=value` parameter, read as the field's type.
    static func literal(_ value: String, field: Field) throws(ServerRequestError) -> CQL2Expression {
        func invalid(_ kind: String) -> ServerRequestError {
            ServerRequestError(.badRequest, "\(field.name): \(RequestParameters.quoted(value)) is not \(kind)")
        }
        switch field.type {
        case .oid, .smallInteger, .integer, .bigInteger:
            guard let number = Int64(value.trimmingWhitespace()) else { throw invalid("an integer") }
            return .integer(number)
        case .single, .double:
            guard let number = Double(value.trimmingWhitespace()), number.isFinite else { throw invalid("a number") }
            return .real(number)
        case .date, .dateOnly:
            return value.count == 10 ? .date(value) : .timestamp(value)
        case .string, .guid, .globalID:
            return .string(value)
        }
    }

    /// `sortby=+a,-b,c`.
    static func sortFields(_ text: String) throws(ServerRequestError) -> [SortField] {
        let items = text.split(separator: ",", omittingEmptySubsequences: false)
        guard items.count <= SortField.maximumCount else {
            throw ServerRequestError(.badRequest, "sortby lists \(items.count) fields; at most \(SortField.maximumCount) are allowed")
        }
        return try items.map { item throws(ServerRequestError) in
            var name = item.trimmingWhitespace()
            var ascending = true
            if name.hasPrefix("-") || name.hasPrefix("+") {
                ascending = name.first == "+"
                name = name.dropFirst()
            }
            guard !name.isEmpty else { throw ServerRequestError(.badRequest, "sortby: empty field name in \(RequestParameters.quoted(text))") }
            return SortField(String(name), ascending: ascending)
        }
    }

    /// The output CRS (`crs`, default CRS84) and its URI.
    static func outputCRS(_ parameters: RequestParameters, schema: Schema) throws(ServerRequestError) -> (SpatialReference, String) {
        guard let text = parameters["crs"] else { return (.wgs84, OGCDocuments.crs84) }
        let reference = try OGCDocuments.reference(text, parameter: "crs", schema: schema)
        return (reference, OGCDocuments.uri(of: reference))
    }

    /// `f`: JSON, GeoJSON or HTML.
    static func checkFormat(_ parameters: RequestParameters) throws(ServerRequestError) {
        if let format = parameters["f"], !["json", "geojson", "html"].contains(format.lowercased()) {
            throw ServerRequestError(.badRequest, "f=\(format) is not supported: use json, geojson or html")
        }
    }

    /// A whole-number parameter of at least `minimum`.
    static func integer(_ parameters: RequestParameters, _ name: String, minimum: Int) throws(ServerRequestError) -> Int? {
        guard let text = parameters[name] else { return nil }
        guard let value = Int(text.trimmingWhitespace()), value >= minimum else {
            throw ServerRequestError(.badRequest, "\(name) must be a whole number of at least \(minimum), not \(RequestParameters.quoted(text))")
        }
        return value
    }

    /// The URL of the page at `offset`: the request's parameters with `offset` replaced.
    static func pageURL(_ url: String, _ parameters: RequestParameters, offset: Int) -> String {
        var items = parameters.items.filter { $0.name != "offset" }
        items.append(("offset", String(offset)))
        return url + "?" + FormEncoding.encode(items)
    }

    /// The current time as RFC 3339 UTC.
    static func timeStamp() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return CivilTime.format(milliseconds: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
    }
}

extension QueryParameters {
    /// The spatial filter of an OGC `bbox` (west, south, east, north) in `reference`: features
    /// intersecting it; west > east (CRS84 only) spans the antimeridian, as two boxes.
    mutating func setBox(_ box: [Double], in reference: SpatialReference) throws(ServerRequestError) {
        let (west, south, east, north) = (box[0], box[1], box[2], box[3])
        if west <= east {
            geometry = .envelope(Envelope(xmin: west, ymin: south, xmax: east, ymax: north))
        } else {
            func ring(_ xmin: Double, _ xmax: Double) -> [Point] {
                [Point(x: xmin, y: south), Point(x: xmin, y: north), Point(x: xmax, y: north), Point(x: xmax, y: south), Point(x: xmin, y: south)]
            }
            do {
                geometry = .polygon(try Polygon(esriRings: [ring(west, 180), ring(-180, east)]))
            } catch {
                throw ServerRequestError(.badRequest, "bbox: \(error)")
            }
        }
        inSpatialReference = reference
        spatialRelationship = .intersects
    }
}
