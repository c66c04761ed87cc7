import SieveCQL
import SieveFeatures
import SieveEditing
import SieveArcGISREST
import SieveFormats
import SieveGeometry
import SieveJSON
import SieveMap
import SieveProjection

/// The ArcGIS REST `query` operation of a layer: the request's parameters read into the
/// engine's query, run on the layer (its definition expression ANDed in), and written in the
/// shape ArcGIS answers with.
///
/// | parameter | reading |
/// |---|---|
/// | `where` | the where clause (empty or absent: `1=1`) |
/// | `objectIds` | comma-separated IDs, ANDed |
/// | `geometry`, `geometryType`, `inSR`, `spatialRel`, `relationParam` | the spatial filter (see ``SpatialRelationship/init(esriSpatialRel:relationParam:)``) |
/// | `outFields` | `*` or names; absent: the object ID only, as ArcGIS |
/// | `returnGeometry`, `outSR`, `geometryPrecision` | the geometries returned |
/// | `orderByFields` | `a ASC, b DESC`; ties and the default by object ID |
/// | `resultOffset`, `resultRecordCount` | the page, at most `maxRecordCount`; `exceededTransferLimit` when rows follow |
/// | `resultType` | which bound pages have: `none` (the default) `maxRecordCount`, `standard` ``ServerConfiguration/standardMaxRecordCount``, `tile` ``ServerConfiguration/tileMaxRecordCount`` |
/// | `returnExceededLimitFeatures` | with `resultType=tile`, `false` answers no feature when the page did not hold them all (`exceededTransferLimit` still says so), as ArcGIS does |
/// | `returnZ`, `returnM` | z and m values in the geometries, when the layer has them (default `false`: dropped); Esri JSON and GeoJSON (`f=pbf` answers carry x and y only) |
/// | `returnIdsOnly`, `returnCountOnly`, `returnExtentOnly` | IDs (never paged), count, extent (+count) |
/// | `returnDistinctValues` | distinct `outFields` combinations (+`returnCountOnly`: their count) |
/// | `outStatistics`, `groupByFieldsForStatistics`, `havingClause` | statistics |
/// | `maxAllowableOffset` | geometries generalized (``/SieveGeometry/Geometry/generalized(maxOffset:)``), in the output units |
/// | `quantizationParameters` | geometries as integer cells (``/SieveFormats/CoordinateQuantization``), `json`, `pjson` and `pbf` |
/// | `f` | `json` (default), `pjson` (indented), `geojson` (longitude/latitude unless `outSR`), `pbf` (Esri's `FeatureCollection` protocol buffer; not for `returnExtentOnly`) |
///
/// | `distance`, `units` | features within the distance of `geometry` (``/SieveFeatures/QueryDistance``): along the ellipsoid in geographic and Web Mercator tables, in the plane in projected ones; `units` `esriSRUnit_Meter`, `…_Kilometer`, `…_Foot` (the default, as ArcGIS Enterprise), `…_StatuteMile`, `…_NauticalMile`, `…_USNauticalMile`; with `esriSpatialRelIntersects` only |
///
/// | `time` | on a time-aware layer (``ServedTable/time``), `t` or `t1,t2` in epoch ms (`null`: open), as ``LayerTime`` selects |
///
/// `time` on a layer that is not time-aware is ignored, as ArcGIS does;
/// other parameters (`sqlFormat`, `returnTrueCurves`, …) are ignored, as ArcGIS ignores what it
/// does not know.
enum ArcGISQuery {
    /// The response formats.
    enum Format: String {
        case json, pjson, geojson, pbf
    }

    /// A query read from its parameters, ready to run: what to answer and how to write it.
    struct Prepared: Sendable {
        /// The engine's request.
        var request: QueryRequest
        /// The response format.
        let format: Format
        /// How features are written.
        let options: FeatureWriterOptions
        /// Whether `geometryType`, when given, names an envelope or a point: a box written in the
        /// simple syntax but declared a polygon or line is not sized as a box.
        let declaresBox: Bool
        /// `maxAllowableOffset`, when greater than 0.
        let maxAllowableOffset: Double?
        /// The ordinates geometries keep beyond x and y: `returnZ` and `returnM`.
        let ordinates: CoordinateLayout
        /// Whether the features of a page that did not hold them all are left out
        /// (`resultType=tile` with `returnExceededLimitFeatures=false`).
        let dropsExceededFeatures: Bool
    }

    /// The `resultType` parameter: which of the layer's record counts bounds a page.
    enum ResultType: String {
        case none, standard, tile

        /// The most features a page of this type holds under `configuration`.
        func maxRecordCount(_ configuration: ServerConfiguration) -> Int {
            switch self {
            case .none: configuration.maxRecordCount
            case .standard: configuration.standardMaxRecordCount
            case .tile: configuration.tileMaxRecordCount
            }
        }

        /// The type `parameters` ask for (`none` when absent or empty).
        /// - Throws: ``ServerRequestError`` (bad request) for another value.
        static func read(_ parameters: RequestParameters) throws(ServerRequestError) -> ResultType {
            guard let text = parameters.nonEmpty("resultType") else { return .none }
            guard let type = ResultType(rawValue: text.lowercased()) else {
                throw ServerRequestError(
                    .badRequest, "Cannot perform query. Invalid query parameters.",
                    details: ["resultType must be none, standard or tile, not \(RequestParameters.quoted(text))"])
            }
            return type
        }
    }

    /// Reads the query `parameters` ask for on a layer of `schema`, before any engine work: the
    /// request's size is then decided from what was read (``EngineWorkSize/query(_:table:configuration:indexed:)``)
    /// rather than from the text again.
    /// - Throws: ``ServerRequestError`` (bad request) for invalid parameters, with the engine's
    ///   message as the detail.
    static func prepare(
        _ parameters: RequestParameters, schema: Schema, configuration: ServerConfiguration, time: LayerTime? = nil
    ) throws(ServerRequestError) -> Prepared {
        let format = try Self.format(parameters)
        return try ServerRequestError.catching(.badRequest, message: "Cannot perform query. Invalid query parameters.") {
            let resultType = try ResultType.read(parameters)
            let request = try request(
                parameters, format: format, schema: schema, configuration: configuration, time: time, resultType: resultType)
            var options = FeatureWriterOptions(pretty: format == .pjson, coordinatePrecision: try precision(parameters))
            options.esriFieldTypes = configuration.arcgisVersion.fieldTypes
            let offset = try number(parameters, "maxAllowableOffset")
            options.quantization = try quantization(
                parameters, format: format, outputReference: request.parameters.outSpatialReference ?? schema.spatialReference,
                maxAllowableOffset: offset)
            if format == .pbf, case .extent = request.answer {
                throw ServerRequestError(
                    .badRequest, "Cannot perform query. Invalid query parameters.",
                    details: ["returnExtentOnly has no f=pbf answer (the FeatureCollection protocol holds no extent): ask for f=json"])
            }
            let ordinates = CoordinateLayout(
                hasZ: try flag(parameters, "returnZ", default: false), hasM: try flag(parameters, "returnM", default: false))
            let returnsExceeded = try flag(parameters, "returnExceededLimitFeatures", default: true)
            return Prepared(
                request: request, format: format, options: options,
                declaresBox: ["esrigeometryenvelope", "esrigeometrypoint", nil].contains(parameters.nonEmpty("geometryType")?.lowercased()),
                maxAllowableOffset: offset.flatMap { $0 > 0 ? $0 : nil }, ordinates: ordinates,
                dropsExceededFeatures: !returnsExceeded && resultType == .tile)
        }
    }

    /// Runs a prepared query on `served`, held in memory, and writes its answer.
    /// - Throws: ``ServerRequestError`` (bad request) for what the engine refuses, with its
    ///   message as the detail.
    static func respond(_ prepared: Prepared, on served: ServedTable) throws(ServerRequestError) -> ServiceResponse {
        try ServerRequestError.catching(.badRequest, message: "Cannot perform query. Invalid query parameters.") {
            try write(try served.layer.answer(prepared.request), prepared, on: served)
        }
    }

    /// Has the source of `served` answer a prepared query (a database runs it) and writes its
    /// answer.
    /// - Throws: ``ServerRequestError``: bad request for what the engine refuses, with its
    ///   message as the detail; 503 for a query the database cancelled (its statement timeout);
    ///   502 when the database fails.
    static func respond(_ prepared: Prepared, on served: ServedTable) async throws(ServerRequestError) -> ServiceResponse {
        let answer = try await ServerRequestError.catching(.badRequest, message: "Cannot perform query. Invalid query parameters.") {
            try await served.layer.query(prepared.request)
        }
        return try ServerRequestError.catching(.badRequest, message: "Cannot perform query. Invalid query parameters.") {
            try write(answer, prepared, on: served)
        }
    }

    /// Writes the answer of a prepared query in its format.
    private static func write(_ answer: QueryAnswer, _ prepared: Prepared, on served: ServedTable) throws -> ServiceResponse {
        var answer = answer
        if case .features(var result) = answer {
            if prepared.dropsExceededFeatures, result.exceededTransferLimit { result = result.leavingOutFeatures() }
            if let offset = prepared.maxAllowableOffset { result = result.generalized(maxOffset: offset) }
            answer = .features(result.keepingOrdinates(prepared.ordinates))
        }
        var features = 0
        if case .features(let result) = answer { features = result.count }
        if prepared.format == .pbf, let body = answer.pbf(quantization: prepared.options.quantization) {
            return ServiceResponse(contentType: ServiceResponse.protobufType, body: body).serving(served.id, features: features)
        }
        guard case .features(let result) = answer else {
            return ServiceResponse(contentType: ServiceResponse.jsonType, body: answer.esriJSON(options: prepared.options))
        }
        let geoJSON = prepared.format == .geojson
        return ServiceResponse(
            contentType: geoJSON ? ServiceResponse.geoJSONType : ServiceResponse.jsonType,
            body: result.bytes(geoJSON ? .geoJSON : .esriJSON, options: prepared.options)
        ).serving(served.id, features: features)
    }

    /// The `f` parameter.
    static func format(_ parameters: RequestParameters) throws(ServerRequestError) -> Format {
        guard let text = parameters.nonEmpty("f") else { return .json }
        guard let format = Format(rawValue: text.lowercased()) else {
            throw ServerRequestError(.badRequest, "f=\(text) is not supported: use json, pjson, geojson or pbf")
        }
        return format
    }

    /// The query request `parameters` make: the REST parameters read into the engine's one
    /// request, with the REST API's own rules — `outFields` absent means the object ID only,
    /// pages are at most the record count of their `resultType`, `returnIdsOnly` with `objectIds` is invalid,
    /// `returnCountOnly` wins over `returnIdsOnly`, `returnExtentOnly` answers the count too,
    /// `havingClause` and `groupByFieldsForStatistics` need `outStatistics`,
    /// `returnDistinctValues` needs `outFields`.
    static func request(
        _ parameters: RequestParameters, format: Format, schema: Schema, configuration: ServerConfiguration, time: LayerTime? = nil,
        resultType: ResultType = .none
    ) throws -> QueryRequest {
        var query = try selection(parameters)
        // `time` on a time-aware layer (ignored on another, as ArcGIS does).
        if let time, let text = parameters.nonEmpty("time") {
            let (from, to) = try LayerTime.arcGISInterval(text)
            if let target = LayerTime.target(from: from, to: to) { query.filter = CQL2Filter(time.expression(target, nullsMatch: false)) }
        }
        let outFields = try parameters.nonEmpty("outFields").map { try QueryParameters.outFieldList($0) }
        query.outFields = outFields ?? [schema.objectIdFieldName]
        query.returnGeometry = try flag(parameters, "returnGeometry", default: true)
        query.outSpatialReference = try spatialReference(parameters, "outSR") ?? (format == .geojson ? .wgs84 : nil)
        let statistics = parameters.nonEmpty("outStatistics")
        if let order = parameters.nonEmpty("orderByFields") {
            // Statistics are ordered by group fields or output names, checked by the statistics.
            query.orderBy = statistics == nil ? try SortField.list(order, schema: schema) : try SortField.list(order)
        }
        let offset = try integer(parameters, "resultOffset", minimum: 0)
        let count = try integer(parameters, "resultRecordCount", minimum: 1)
        query.resultOffset = offset
        let pageBound = resultType.maxRecordCount(configuration)
        query.maxFeatures = Swift.min(count ?? pageBound, pageBound)
        _ = try precision(parameters)  // checked in this order among the parameters
        let idsOnly = try flag(parameters, "returnIdsOnly", default: false)
        let countOnly = try flag(parameters, "returnCountOnly", default: false)
        let extentOnly = try flag(parameters, "returnExtentOnly", default: false)
        let distinct = try flag(parameters, "returnDistinctValues", default: false)

        if let statistics {
            let groups = try parameters.nonEmpty("groupByFieldsForStatistics").map {
                try QueryParameters.outFieldList($0, parameter: "groupByFieldsForStatistics")
            }
            let aggregates = StatisticsRequest(
                statistics: try StatisticDefinition.list(outStatisticsJSON: statistics), groupByFields: groups ?? [],
                having: parameters.nonEmpty("havingClause"))
            return QueryRequest(query, answer: .statistics(aggregates))
        }
        if parameters.nonEmpty("havingClause") != nil || parameters.nonEmpty("groupByFieldsForStatistics") != nil {
            throw ServerRequestError(
                .badRequest, "Cannot perform query. Invalid query parameters.",
                details: ["havingClause and groupByFieldsForStatistics need outStatistics"])
        }
        if distinct {
            guard outFields != nil else {
                throw ServerRequestError(.badRequest, "Cannot perform query. Invalid query parameters.", details: ["returnDistinctValues needs outFields"])
            }
            return QueryRequest(query, answer: countOnly ? .distinctCount : .distinctValues)
        }
        if extentOnly { return QueryRequest(query, answer: .extent) }
        if countOnly { return QueryRequest(query, answer: .count) }
        if idsOnly {
            if query.objectIDs != nil {
                throw ServerRequestError(
                    .badRequest, "Cannot perform query. Invalid query parameters.", details: ["returnIdsOnly cannot be used with objectIds"])
            }
            return QueryRequest(query, answer: .objectIDs)
        }
        return QueryRequest(query, answer: .features)
    }

    /// A number parameter of at least 0 (`maxAllowableOffset`), `nil` when absent or empty.
    static func number(_ parameters: RequestParameters, _ name: String) throws(ServerRequestError) -> Double? {
        guard let text = parameters.nonEmpty(name) else { return nil }
        guard let value = Double(text), value.isFinite, value >= 0 else {
            throw ServerRequestError(
                .badRequest, "Cannot perform query. Invalid query parameters.",
                details: ["\(name) must be a number of at least 0, not \(RequestParameters.quoted(text))"])
        }
        return value
    }

    /// `quantizationParameters`: `{"mode":"view"|"edit","originPosition":"upperLeft"|"lowerLeft",
    /// "tolerance":t,"extent":{"xmin":…,"ymin":…,"xmax":…,"ymax":…,"spatialReference":…}}`
    /// (mode view and the upper left unless given; the tolerance `maxAllowableOffset` when
    /// absent; the extent in the output spatial reference), for `f=json`, `pjson` and `pbf`.
    static func quantization(
        _ parameters: RequestParameters, format: Format, outputReference: SpatialReference?, maxAllowableOffset: Double?
    ) throws(ServerRequestError) -> CoordinateQuantization? {
        guard let text = parameters.nonEmpty("quantizationParameters") else { return nil }
        func invalid(_ reason: String) -> ServerRequestError {
            ServerRequestError(.badRequest, "Cannot perform query. Invalid query parameters.", details: ["quantizationParameters: \(reason)"])
        }
        guard format != .geojson else { throw invalid("not with f=geojson (use f=json or f=pbf)") }
        let object: JSONValue
        do {
            object = try JSONReader.parse(text)
        } catch {
            throw invalid("\(error)")
        }
        guard object.objectValue != nil else { throw invalid("must be a JSON object") }
        func name<T: RawRepresentable & CaseIterable>(_ key: String, _ defaultValue: T) throws(ServerRequestError) -> T
        where T.RawValue == String {
            guard let value = object[key], !value.isNull else { return defaultValue }
            guard let text = value.stringValue, let parsed = T.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) else {
                throw invalid("\(key) must be one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return parsed
        }
        let mode = try name("mode", CoordinateQuantization.Mode.view)
        let origin = try name("originPosition", CoordinateQuantization.OriginPosition.upperLeft)
        let tolerance: Double
        if let value = object["tolerance"], !value.isNull {
            guard let number = value.doubleValue, number.isFinite, number > 0 else {
                throw invalid("tolerance must be a number greater than 0")
            }
            tolerance = number
        } else if let maxAllowableOffset, maxAllowableOffset > 0 {
            tolerance = maxAllowableOffset
        } else {
            throw invalid("tolerance is required (or maxAllowableOffset)")
        }
        guard let extentJSON = object["extent"], extentJSON.objectValue != nil else {
            throw invalid("extent is required: {\"xmin\":…,\"ymin\":…,\"xmax\":…,\"ymax\":…}")
        }
        var corners: [Double] = []
        for key in ["xmin", "ymin", "xmax", "ymax"] {
            guard let number = extentJSON[key]?.doubleValue, number.isFinite else {
                throw invalid("extent.\(key) must be a finite number")
            }
            corners.append(number)
        }
        guard corners[0] <= corners[2], corners[1] <= corners[3] else { throw invalid("extent has xmin > xmax or ymin > ymax") }
        if let referenceJSON = extentJSON["spatialReference"], !referenceJSON.isNull, let outputReference {
            let code = (referenceJSON["latestWkid"] ?? referenceJSON["wkid"])?.numberValue?.exactInt
            guard let code, SpatialReference(wkid: code) == outputReference else {
                throw invalid("extent.spatialReference must be the output's (\(outputReference.wkid)): the grid is in output units")
            }
        }
        return CoordinateQuantization(
            mode: mode, originPosition: origin, tolerance: tolerance,
            extent: Envelope(xmin: corners[0], ymin: corners[1], xmax: corners[2], ymax: corners[3]))
    }

    /// `geometryPrecision`: 0 to 17 decimals, `nil` when absent.
    private static func precision(_ parameters: RequestParameters) throws(ServerRequestError) -> Int? {
        let precision = try integer(parameters, "geometryPrecision", minimum: 0)
        if let precision, precision > 17 {
            throw ServerRequestError(.badRequest, "Cannot perform query. Invalid query parameters.", details: ["geometryPrecision must be 0 to 17"])
        }
        return precision
    }

    /// The rows `where`, `objectIds` and `geometry` (with `geometryType`, `inSR`, `spatialRel`,
    /// `relationParam`) select, as the query and `deleteFeatures` read them.
    static func selection(_ parameters: RequestParameters) throws -> QueryParameters {
        var query = QueryParameters(whereClause: parameters.nonEmpty("where") ?? "1=1")
        if let ids = parameters.nonEmpty("objectIds") { query.objectIDs = try QueryParameters.objectIDList(ids) }
        // Checked even without a geometry, so that a misspelt relationship is never ignored.
        let relationship = try SpatialRelationship(
            esriSpatialRel: parameters.nonEmpty("spatialRel") ?? "esriSpatialRelIntersects", relationParam: parameters.nonEmpty("relationParam"))
        if let geometry = parameters.nonEmpty("geometry") {
            try query.setSpatialFilter(
                geometry: geometry, geometryType: parameters.nonEmpty("geometryType"),
                inSpatialReference: try spatialReference(parameters, "inSR"), relationship: relationship)
        }
        if let text = parameters.nonEmpty("distance") {
            guard let value = Double(text), value.isFinite, value >= 0 else {
                throw ServerRequestError(
                    .badRequest, "Cannot perform query. Invalid query parameters.",
                    details: ["distance must be a number of at least 0, not \(RequestParameters.quoted(text))"])
            }
            // ArcGIS Enterprise's default unit is the foot (ArcGIS Online's the metre).
            let unitText = parameters.nonEmpty("units") ?? QueryDistance.Unit.foot.rawValue
            guard let unit = QueryDistance.Unit.allCases.first(where: { $0.rawValue.lowercased() == unitText.lowercased() }) else {
                throw ServerRequestError(
                    .badRequest, "Cannot perform query. Invalid query parameters.",
                    details: [
                        "units must be one of \(QueryDistance.Unit.allCases.map(\.rawValue).joined(separator: ", ")), not \(RequestParameters.quoted(unitText))"
                    ])
            }
            // Without a geometry a distance has nothing to measure from, and 0 is the relationship alone.
            if query.geometry != nil, value > 0 { query.distance = QueryDistance(value, unit) }
        }
        return query
    }

    /// A `true`/`false` parameter (any case; absent or empty: `default`).
    static func flag(_ parameters: RequestParameters, _ name: String, default value: Bool) throws(ServerRequestError) -> Bool {
        guard let text = parameters.nonEmpty(name) else { return value }
        switch text.lowercased() {
        case "true": return true
        case "false": return false
        default:
            throw ServerRequestError(
                .badRequest, "Cannot perform query. Invalid query parameters.", details: ["\(name) must be true or false, not \(RequestParameters.quoted(text))"])
        }
    }

    /// A whole-number parameter of at least `minimum`, `nil` when absent or empty.
    static func integer(_ parameters: RequestParameters, _ name: String, minimum: Int) throws(ServerRequestError) -> Int? {
        guard let text = parameters.nonEmpty(name) else { return nil }
        guard let value = Int(text), value >= minimum else {
            throw ServerRequestError(
                .badRequest, "Cannot perform query. Invalid query parameters.",
                details: ["\(name) must be a whole number of at least \(minimum), not \(RequestParameters.quoted(text))"])
        }
        return value
    }

    /// A spatial reference parameter: a WKID (`4326`) or Esri JSON (`{"wkid":102100}`), one PROJ
    /// knows; `nil` when absent or empty.
    static func spatialReference(_ parameters: RequestParameters, _ name: String) throws(ServerRequestError) -> SpatialReference? {
        guard let text = parameters.nonEmpty(name) else { return nil }
        func invalid(_ reason: String) -> ServerRequestError {
            ServerRequestError(.badRequest, "Cannot perform query. Invalid query parameters.", details: ["\(name): \(reason)"])
        }
        var code = Int(text)
        if code == nil, text.hasPrefix("{") {
            let object = try? JSONReader.parse(text)
            code = (object?["latestWkid"] ?? object?["wkid"])?.numberValue?.exactInt
        }
        guard let code, code > 0 else { throw invalid("\(RequestParameters.quoted(text)) is not a WKID or {\"wkid\":…}") }
        let reference = SpatialReference(wkid: code)
        do {
            try Projector.validate(reference)
        } catch {
            throw invalid("\(error)")
        }
        return reference
    }
}

extension QueryRequest {
    /// The statistics asked for, when the answer is statistics.
    var statisticsRequest: StatisticsRequest? {
        if case .statistics(let request) = answer { return request }
        return nil
    }
}
