// Part of the RemoteSources trait (on by default): HTTP clients of feature services.
#if RemoteSources
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import SieveMap
import SieveJSON

/// What an ArcGIS feature service layer says of itself (`…/FeatureServer/{layerId}?f=json`, or
/// a map service's `…/MapServer/{layerId}`): the members a service table needs to read, query,
/// draw and edit it.
public struct ArcGISLayerInfo: Sendable {
    /// Which service a layer belongs to.
    public enum ServiceKind: String, Sendable {
        /// A feature service (`…/FeatureServer/{layerId}`): queries, and edits when its
        /// capabilities allow them.
        case featureServer = "FeatureServer"
        /// A map service (`…/MapServer/{layerId}`): its feature layers and tables answer the
        /// same queries, and are read-only whatever their capabilities say.
        case mapServer = "MapServer"
    }

    /// The layer's URL (`…/FeatureServer/0`), without query.
    public var url: String
    /// The service the layer belongs to, from its URL: a map service when the layer id follows
    /// a `MapServer` segment (`…/MapServer/3`).
    public var serviceKind: ServiceKind
    /// Its name.
    public var name: String
    /// `Feature Layer` or `Table` (the only layer types with features to query).
    public var type: String
    /// Its fields, the object-ID field among them.
    public var fields: [Field]
    /// The object-ID field's name.
    public var objectIdFieldName: String
    /// The global-ID field's name, when it has one.
    public var globalIdFieldName: String?
    /// The display field's name, when it names one.
    public var displayFieldName: String?
    /// Its geometry type; `nil` for a table.
    public var geometryType: GeometryType?
    /// Its spatial reference (the extent's, else 4326).
    public var spatialReference: SpatialReference
    /// Its extent, when it gives one.
    public var extent: Envelope?
    /// The most features one query answers (`maxRecordCount`; 1,000 when absent, ArcGIS's
    /// default).
    public var maxRecordCount: Int
    /// Whether queries page with `resultOffset`/`resultRecordCount`
    /// (`advancedQueryCapabilities.supportsPagination`); without it a table pages by object-ID
    /// batches.
    public var supportsPagination: Bool
    /// Whether queries may be ordered (`advancedQueryCapabilities.supportsOrderBy`): pages
    /// by offset need an order (by object ID) not to overlap or skip, so without it a table
    /// pages by object-ID batches, whatever ``supportsPagination`` says.
    public var supportsOrderBy: Bool
    /// Whether queries answer counts (`returnCountOnly`, which ArcGIS Server has answered
    /// since 10.0: `false` for a layer whose `currentVersion` is below 10). Without it a count
    /// is the length of the object IDs (`returnIdsOnly`), and a table pages by object-ID
    /// batches.
    public var supportsCount: Bool
    /// The layer's time (`timeInfo`: its start and end fields and `timeExtent`), when it is
    /// time-aware.
    public var timeInfo: LayerTimeInfo?
    /// Its capabilities (`Query,Create,Update,Delete,…`); only
    /// ``/SieveEditing/TableCapabilities/query`` for a map service's layer.
    public var capabilities: TableCapabilities
    /// Whether edits may change geometries (`allowGeometryUpdates`; absent: `true`).
    public var allowGeometryUpdates: Bool
    /// The smallest scale it draws at (`minScale`, the largest scale denominator: 1:1,000,000
    /// is 1,000,000), 0 for no limit; a value that is not a number of at least 0 reads as 0.
    public var minScale: Double
    /// The largest scale it draws at (`maxScale`), 0 for no limit; read as ``minScale``.
    public var maxScale: Double
    /// Whether maps show it at first (`defaultVisibility`; absent: `true`).
    public var defaultVisibility: Bool
    /// The definition query the service applies to every query of the layer
    /// (`definitionExpression`; empty for none). The service applies it itself: the features a
    /// table reads are inside it already.
    public var definitionExpression: String
    /// Its renderer, transparency and labels (`drawingInfo`), when it has one GeoSieve reads;
    /// see ``drawingInfoProblem`` for one it does not.
    public var drawingInfo: DrawingInfo?
    /// Why a `drawingInfo` the layer has could not be read (an Arcade expression or a picture
    /// symbol GeoSieve does not draw, say); `nil` when there was none or it was read. A layer
    /// is read without it.
    public var drawingInfoProblem: String?
    /// The field whose value says a feature's type (`typeIdField`), when the layer has types.
    public var typeIdFieldName: String?
    /// Its feature types (`types`: each with its domains and templates).
    public var types: [FeatureType]
    /// Its own templates (`templates`, used when there are no types).
    public var templates: [FeatureTemplate]
    /// Why the layer's `types` or `templates` could not be read (a type ID or template value
    /// that does not fit its field, say); `nil` when they were. A layer is read without them.
    public var typesProblem: String?
    /// The `typeIdField`, `types` and `templates` members as JSON text, for the tables read.
    package var typesJSON: String

    /// Whether a table reads the layer by pages of `resultOffset`: only when the layer says it
    /// pages (``supportsPagination``), orders (``supportsOrderBy``) and counts
    /// (``supportsCount``); else by batches of object IDs.
    public var pagesByOffset: Bool { supportsPagination && supportsOrderBy && supportsCount }

    /// Reads a layer document.
    /// - Throws: ``ServiceError/Kind/invalidResponse`` naming the member that is missing or
    ///   wrong.
    package init(json: JSONValue, url: String) throws {
        func failure(_ message: String) -> ServiceError {
            ServiceError(.invalidResponse, "the layer document \(message)", url: url)
        }
        guard json.objectValue != nil else { throw failure("is not a JSON object") }
        self.url = url
        let segments = url.lowercased().split(separator: "/")
        serviceKind = segments.dropLast().last == "mapserver" ? .mapServer : .featureServer
        name = json["name"]?.stringValue ?? ""
        type = json["type"]?.stringValue ?? "Feature Layer"
        guard type == "Feature Layer" || type == "Table" else {
            throw failure("describes a \(type), not a feature layer or table: it has no features to query")
        }
        guard let fieldsValue = json["fields"], fieldsValue.arrayValue != nil else { throw failure("has no \"fields\" array") }
        let fields: [Field]
        do {
            fields = try Field.fields(esriJSON: fieldsValue)
        } catch {
            throw failure("has fields GeoSieve cannot use: \(error)")
        }
        let objectIdFieldName: String
        if let name = json["objectIdField"]?.stringValue, !name.isEmpty {
            objectIdFieldName = name
        } else if let oid = fields.first(where: { $0.type == .oid }) {
            objectIdFieldName = oid.name
        } else {
            throw failure("names no object-ID field (\"objectIdField\", or a field of type esriFieldTypeOID)")
        }
        guard fields.contains(where: { $0.name.lowercased() == objectIdFieldName.lowercased() }) else {
            throw failure("names the object-ID field \"\(objectIdFieldName)\", which is not among its fields")
        }
        self.fields = fields
        self.objectIdFieldName = objectIdFieldName
        globalIdFieldName = json["globalIdField"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        displayFieldName = json["displayField"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        if let name = json["geometryType"]?.stringValue, !name.isEmpty {
            guard let geometryType = GeometryType(rawValue: name) else { throw failure("has an unknown geometryType \"\(name)\"") }
            self.geometryType = geometryType
        } else {
            geometryType = nil
        }
        var reference: SpatialReference?
        if let box = json["extent"]?.objectValue {
            let numbers = ["xmin", "ymin", "xmax", "ymax"].map { box[$0]?.doubleValue }
            if let xmin = numbers[0], let ymin = numbers[1], let xmax = numbers[2], let ymax = numbers[3], xmin <= xmax, ymin <= ymax {
                extent = Envelope(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)
            }
            reference = try? EsriJSONLoader.spatialReference(box["spatialReference"])
        }
        if reference == nil { reference = try? EsriJSONLoader.spatialReference(json["sourceSpatialReference"]) }
        spatialReference = reference ?? .wgs84
        if let count = json["maxRecordCount"]?.doubleValue, let whole = Int(exactly: count), whole > 0 {
            maxRecordCount = whole
        } else {
            maxRecordCount = 1000
        }
        supportsPagination = json["advancedQueryCapabilities"]?["supportsPagination"]?.boolValue ?? false
        supportsOrderBy = json["advancedQueryCapabilities"]?["supportsOrderBy"]?.boolValue ?? false
        supportsCount = (json["currentVersion"]?.doubleValue ?? 10) >= 10
        if let time = json["timeInfo"], let start = time["startTimeField"]?.stringValue, !start.isEmpty {
            var info = LayerTimeInfo(startField: start, endField: time["endTimeField"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 })
            if let bounds = time["timeExtent"]?.arrayValue, bounds.count == 2, let low = bounds[0].doubleValue.flatMap({ Int64(exactly: $0) }),
                let high = bounds[1].doubleValue.flatMap({ Int64(exactly: $0) }), low <= high
            {
                info.extent = low...high
            }
            timeInfo = info
        }
        let declared = TableCapabilities(esriString: json["capabilities"]?.stringValue ?? "Query")
        capabilities = serviceKind == .mapServer ? declared.intersection(.query) : declared
        allowGeometryUpdates = json["allowGeometryUpdates"]?.boolValue ?? true
        func scale(_ name: String) -> Double {
            guard let value = json[name]?.doubleValue, value.isFinite, value > 0 else { return 0 }
            return value
        }
        minScale = scale("minScale")
        maxScale = scale("maxScale")
        defaultVisibility = json["defaultVisibility"]?.boolValue ?? true
        definitionExpression = json["definitionExpression"]?.stringValue ?? ""
        if let drawing = json["drawingInfo"], !drawing.isNull {
            do {
                drawingInfo = try DrawingInfo(esriJSON: JSONWriter.string(drawing))
            } catch {
                drawingInfoProblem = "\(error)"
            }
        }
        var members = JSONObject()
        for key in ["typeIdField", "types", "templates"] {
            if let value = json[key] { members.append(key, value) }
        }
        typesJSON = JSONWriter.string(.object(members))
        (typeIdFieldName, types, templates) = (nil, [], [])
        do {
            let schema = try Schema(fields: fields, objectIdFieldName: objectIdFieldName).withTypes(esriLayerJSON: typesJSON)
            (typeIdFieldName, types, templates) = (schema.typeIdFieldName, schema.types, schema.templates)
        } catch {
            // The features are read without them, as without a drawing info GeoSieve reads.
            typesProblem = "\(error)"
            typesJSON = "{}"
        }
    }
}

/// The features of an ArcGIS feature service layer that a query selects, read page by page.
///
/// With `supportsPagination` (and `supportsOrderBy` and counts, see
/// ``ArcGISLayerInfo/pagesByOffset``), the features are counted (`returnCountOnly`), then pages
/// of `maxRecordCount` features are asked for with `resultOffset`/`resultRecordCount`, ordered
/// by object ID (so that pages neither overlap nor skip), while the service says
/// `exceededTransferLimit` and up to the count; otherwise the object IDs come first
/// (`returnIdsOnly`, which ArcGIS never pages) and the features in batches of `maxRecordCount`
/// IDs: a service is asked only what its layer document says it supports. Either way every feature comes once; a page that adds nothing while the service still
/// says there is more, or features sent twice, are errors, never an endless loop. (Features the
/// service gains while it is read are not waited for: the read is of the features counted.)
public struct ArcGISLayerQuery: Sendable {
    /// The where clause. Default `1=1`.
    public var whereClause: String = "1=1"
    /// An envelope the features must intersect, in the layer's spatial reference.
    public var envelope: Envelope?
    /// The fields to read; `["*"]` for all. The object-ID field is always read.
    public var outFields: [String] = ["*"]
    /// The most features to read; `nil` for all.
    public var maxFeatures: Int?
    /// Features per page; at most the layer's `maxRecordCount` (its value when `nil`).
    public var pageSize: Int?
    /// Whether ``envelope`` selects the features whose envelope meets it
    /// (`esriSpatialRelEnvelopeIntersects`: what a map draws by, so a feature whose envelope
    /// spans the view is read though its geometry lies elsewhere) rather than those whose
    /// geometry does (`esriSpatialRelIntersects`, the default).
    public var matchEnvelopes = false

    /// A query for every feature passing `whereClause` (within `envelope` when given).
    public init(whereClause: String = "1=1", envelope: Envelope? = nil, outFields: [String] = ["*"], maxFeatures: Int? = nil) {
        self.whereClause = whereClause
        self.envelope = envelope
        self.outFields = outFields
        self.maxFeatures = maxFeatures
    }

    /// The parameters shared by every page.
    func parameters(_ info: ArcGISLayerInfo) -> [(name: String, value: String)] {
        var parameters: [(name: String, value: String)] = [("where", whereClause)]
        if let envelope {
            parameters += [
                ("geometry", "\(envelope.xmin),\(envelope.ymin),\(envelope.xmax),\(envelope.ymax)"),
                ("geometryType", "esriGeometryEnvelope"), ("inSR", String(info.spatialReference.wkid)),
                ("spatialRel", matchEnvelopes ? "esriSpatialRelEnvelopeIntersects" : "esriSpatialRelIntersects"),
            ]
        }
        return parameters
    }
}

/// Reads an ArcGIS feature service layer through a ``ServiceClient``.
public struct ArcGISLayerReader: Sendable {
    /// The client requests go through.
    public let client: ServiceClient
    /// The layer's document.
    public let info: ArcGISLayerInfo

    /// Reads the layer document at `url` (`…/FeatureServer/{layerId}`).
    /// - Throws: ``ServiceError``.
    public static func open(_ url: String, client: ServiceClient) async throws -> ArcGISLayerReader {
        let base = url.hasSuffix("/") ? String(url.dropLast()) : url
        let response = try await client.send(ServiceRequest(url: base, parameters: [("f", "json")]))
        return ArcGISLayerReader(client: client, info: try ArcGISLayerInfo(json: try response.json(), url: base))
    }

    /// The reader of a layer whose document is already read.
    public init(client: ServiceClient, info: ArcGISLayerInfo) {
        self.client = client
        self.info = info
    }

    /// The features `query` selects, as a table with the layer's fields (those of
    /// ``ArcGISLayerQuery/outFields``), in object-ID order.
    /// - Throws: ``ServiceError`` for a failed request or a page that cannot be read.
    public func features(_ query: ArcGISLayerQuery = ArcGISLayerQuery()) async throws -> FeatureTable {
        let fields = selectedFields(query.outFields)
        var pages = try Self.pagesReader(info, fields: fields)
        let pageSize = Swift.max(1, Swift.min(query.pageSize ?? info.maxRecordCount, info.maxRecordCount))
        let limit = query.maxFeatures ?? Int.max
        let url = info.url + "/query"
        let outFields = fields.map(\.name).joined(separator: ",")
        var common = query.parameters(info)
        common += [("outFields", outFields), ("returnGeometry", info.geometryType == nil ? "false" : "true"), ("f", "json")]
        if info.pagesByOffset {
            // The count bounds the paging: a service that always says there is more (or ignores
            // resultOffset) is read no further than the features it counted.
            let total = Swift.min(limit, try await featureCount(query))
            var offset = 0
            while offset < total {
                let count = Swift.min(pageSize, total - offset)
                let parameters = common + [
                    ("orderByFields", info.objectIdFieldName), ("resultOffset", String(offset)), ("resultRecordCount", String(count)),
                ]
                let page = try await read(ServiceRequest(url: url, parameters: parameters, method: .post, idempotent: true), into: &pages)
                offset += page.features
                guard page.exceededTransferLimit, offset < total else { break }
                guard page.features > 0 else {
                    throw ServiceError(
                        .invalidResponse, "a page at resultOffset \(offset) has no features but says exceededTransferLimit", url: url)
                }
            }
        } else {
            var ids = try await objectIDs(query)
            if ids.count > limit { ids.removeLast(ids.count - limit) }
            var start = 0
            while start < ids.count {
                let batch = ids[start..<Swift.min(ids.count, start + pageSize)]
                let parameters = common + [("objectIds", batch.map(String.init).joined(separator: ","))]
                let page = try await read(ServiceRequest(url: url, parameters: parameters, method: .post, idempotent: true), into: &pages)
                guard page.features <= batch.count else {
                    throw ServiceError(.invalidResponse, "asked for \(batch.count) object IDs, the service sent \(page.features) features", url: url)
                }
                start += batch.count
            }
        }
        return try Self.typedTable(&pages, info, url: url)
    }

    /// How many features `query` selects (`returnCountOnly`; the number of object IDs
    /// `returnIdsOnly` gives for a layer without counts, ``ArcGISLayerInfo/supportsCount``).
    /// - Throws: ``ServiceError``.
    public func featureCount(_ query: ArcGISLayerQuery = ArcGISLayerQuery()) async throws -> Int {
        guard info.supportsCount else { return try await objectIDs(query).count }
        let url = info.url + "/query"
        let response = try await client.send(ServiceRequest(
            url: url, parameters: query.parameters(info) + [("returnCountOnly", "true"), ("f", "json")], method: .post, idempotent: true))
        guard let number = try response.json()["count"]?.doubleValue, let count = Int(exactly: number), count >= 0 else {
            throw ServiceError(.invalidResponse, "the answer to returnCountOnly has no \"count\" that is a whole number", url: url)
        }
        return count
    }

    /// The object IDs `query` selects, ascending (`returnIdsOnly`, which ArcGIS never pages).
    /// - Throws: ``ServiceError``.
    public func objectIDs(_ query: ArcGISLayerQuery = ArcGISLayerQuery()) async throws -> [Int64] {
        let url = info.url + "/query"
        let response = try await client.send(ServiceRequest(
            url: url, parameters: query.parameters(info) + [("returnIdsOnly", "true"), ("f", "json")], method: .post, idempotent: true))
        let json = try response.json()
        guard let values = json["objectIds"]?.arrayValue ?? (json["objectIds"]?.isNull == true ? [] : nil) else {
            throw ServiceError(.invalidResponse, "the answer to returnIdsOnly has no \"objectIds\" array", url: url)
        }
        var ids: [Int64] = []
        ids.reserveCapacity(values.count)
        for value in values {
            guard let number = value.doubleValue, let id = Int64(exactly: number) else {
                throw ServiceError(.invalidResponse, "an object ID is \(value.kindDescription), not a whole number", url: url)
            }
            ids.append(id)
        }
        return ids.sorted()
    }

    /// The layer's fields that `outFields` names (all for `*`), the object-ID field always.
    func selectedFields(_ outFields: [String]) -> [Field] {
        guard !outFields.contains("*") else { return info.fields }
        let wanted = Set(outFields.map { $0.lowercased() } + [info.objectIdFieldName.lowercased()])
        return info.fields.filter { wanted.contains($0.name.lowercased()) }
    }

    /// A page reader for `fields` of layer `info` (the global-ID and display fields kept when
    /// among them).
    static func pagesReader(_ info: ArcGISLayerInfo, fields: [Field]) throws -> FeaturePages {
        let names = Set(fields.map { $0.name.lowercased() })
        func kept(_ name: String?) -> String? { name.flatMap { names.contains($0.lowercased()) ? $0 : nil } }
        do {
            return try FeaturePages(
                fields: fields, objectIdFieldName: info.objectIdFieldName, geometryType: info.geometryType,
                spatialReference: info.spatialReference, globalIdFieldName: kept(info.globalIdFieldName),
                displayFieldName: kept(info.displayFieldName))
        } catch {
            throw ServiceError(.invalidResponse, "the layer's fields cannot make a table: \(error)", url: info.url)
        }
    }

    /// The table of `pages`, typed as the layer's document says when it has the fields the
    /// types name (a query for some fields only is read untyped; the cache it goes into keeps
    /// the layer's types).
    static func typedTable(_ pages: inout FeaturePages, _ info: ArcGISLayerInfo, url: String) throws -> FeatureTable {
        let table: FeatureTable
        do {
            table = try pages.table()
        } catch {
            throw ServiceError(.invalidResponse, "the features cannot make one table: \(error)", url: url)
        }
        return (try? table.withTypes(esriLayerJSON: info.typesJSON)) ?? table
    }

    /// Sends `request` and reads its answer as a page.
    private func read(_ request: ServiceRequest, into pages: inout FeaturePages) async throws -> FeaturePages.Page {
        let response = try await client.send(request)
        do {
            return try pages.add(response.body)
        } catch {
            throw ServiceError(.invalidResponse, "a page cannot be read: \(error)", url: response.url, status: response.status)
        }
    }
}
#endif
