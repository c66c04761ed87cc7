import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import SieveMap
import SieveJSON

/// The metadata documents of the ArcGIS REST FeatureServer (and of the read-only MapServer
/// beside it): the services directory, a service, a layer.
enum ArcGISDocuments {
    /// Which of a service's two faces a document describes: the feature service (queries, and
    /// edits when allowed) or the map service (queries only; ArcGIS publishes a feature service
    /// with a map service of the same layers, whose capabilities are `Map,Query,Data`).
    enum Kind: String {
        case featureServer = "FeatureServer"
        case mapServer = "MapServer"
    }

    /// The paths below the server root.
    static let root = "/arcgis/rest/services"

    /// `GET /arcgis/rest/services`: `{"currentVersion":…,"folders":[],"services":[{"name":…,"type":"FeatureServer"},{"name":…,"type":"MapServer"},…]}`,
    /// with a `VectorTileServer` for each service with a layer with geometry (``ArcGISVectorTiles``).
    static func directory(_ catalog: ServedCatalog, configuration: ServerConfiguration) -> JSONValue {
        .object(
            JSONObject([
                ("currentVersion", .double(configuration.arcgisVersion.number)),
                ("folders", .array([])),
                (
                    "services",
                    .array(
                        catalog.services.flatMap { service in
                            let tiled = service.layers.contains { $0.layer.schema.geometryType != nil }
                            let types = [Kind.featureServer.rawValue, Kind.mapServer.rawValue] + (tiled ? ["VectorTileServer"] : [])
                            return types.map { type in JSONValue.object(JSONObject([("name", .string(service.name)), ("type", .string(type))])) }
                        })
                ),
            ]))
    }

    /// The `capabilities` string: `Query`, and `Create,Delete,Query,Update,Editing` when edits are
    /// allowed (each as the table's editing options permit); `Map,Query,Data` for the map service.
    static func capabilities(_ table: ServedTable, configuration: ServerConfiguration, kind: Kind = .featureServer) -> String {
        capabilities(table.capabilities, configuration: configuration, kind: kind)
    }

    /// The `capabilities` string of what `allowed` permits.
    static func capabilities(_ allowed: TableCapabilities, configuration: ServerConfiguration, kind: Kind) -> String {
        guard kind == .featureServer else { return "Map,Query,Data" }
        guard configuration.allowEdits else { return "Query" }
        var names: [String] = []
        if allowed.contains(.create) { names.append("Create") }
        if allowed.contains(.delete) { names.append("Delete") }
        names.append("Query")
        if allowed.contains(.update) { names.append("Update") }
        if names.count > 1 { names.append("Editing") }
        return names.joined(separator: ",")
    }

    /// `GET …/FeatureServer` (or `…/MapServer`): the service with its layers (and tables,
    /// without geometries). The service's spatial reference and extents are its first layer's
    /// (the extent grows over the layers in that reference).
    static func service(_ service: ServedService, configuration: ServerConfiguration, kind: Kind = .featureServer) throws -> JSONValue {
        // A service has at least one layer (``ServedService/init``).
        guard let first = service.layers.first else { throw ServerRequestError(.internalError, "a service without layers") }
        let schema = first.schema
        var extent = Envelope.empty
        for served in service.layers where served.layer.schema.spatialReference == schema.spatialReference {
            let layerExtent = try served.fullExtent()
            if !layerExtent.isEmpty { extent.expand(toInclude: layerExtent) }
        }
        let editable = configuration.allowEdits && kind == .featureServer && service.allowsEditing
        let description = service.description.isEmpty ? first.description : service.description
        var root = JSONObject()
        root.append("currentVersion", .double(configuration.arcgisVersion.number))
        root.append("serviceDescription", .string(description))
        root.append("hasVersionedData", .bool(false))
        root.append("supportsDisconnectedEditing", .bool(false))
        root.append("hasStaticData", .bool(!editable))
        root.append("maxRecordCount", .integer(configuration.maxRecordCount))
        root.append("supportedQueryFormats", .string("JSON, geoJSON, PBF"))
        root.append("capabilities", .string(capabilities(service, configuration: configuration, kind: kind)))
        root.append("description", .string(description))
        root.append("copyrightText", .string(service.copyright))
        root.append("spatialReference", JSONOutput.spatialReferenceValue(schema.spatialReference))
        root.append("initialExtent", envelope(extent, schema.spatialReference))
        root.append("fullExtent", envelope(extent, schema.spatialReference))
        root.append("allowGeometryUpdates", .bool(editable))
        root.append("units", .string(schema.spatialReference.isGeographic ? "esriDecimalDegrees" : "esriMeters"))
        var layers: [JSONValue] = []
        var tables: [JSONValue] = []
        for served in service.layers {
            let geometryType = served.layer.schema.geometryType
            let entry = JSONValue.object(
                JSONObject([
                    ("id", .integer(served.layerID)), ("name", .string(served.title)), ("parentLayerId", .integer(-1)),
                    ("defaultVisibility", .bool(served.layer.isVisible)), ("subLayerIds", .null()),
                    ("minScale", .double(served.layer.minScale)), ("maxScale", .double(served.layer.maxScale)),
                    ("geometryType", geometryType.map { .string($0.rawValue) } ?? .null()),
                ]))
            if geometryType == nil { tables.append(entry) } else { layers.append(entry) }
        }
        root.append("layers", .array(layers))
        root.append("tables", .array(tables))
        return .object(root)
    }

    /// `GET …/FeatureServer/layers` (or `…/MapServer/layers`), ArcGIS's "all layers and
    /// tables": `{"layers":[…],"tables":[…]}`, each entry the layer's own document.
    static func allLayers(_ service: ServedService, configuration: ServerConfiguration, kind: Kind = .featureServer) throws -> JSONValue {
        var layers: [JSONValue] = []
        var tables: [JSONValue] = []
        for served in service.layers {
            let document = try layer(served, configuration: configuration, kind: kind, copyright: service.copyright)
            if served.layer.schema.geometryType == nil { tables.append(document) } else { layers.append(document) }
        }
        return .object(JSONObject([("layers", .array(layers)), ("tables", .array(tables))]))
    }

    /// The service's `capabilities`: what any of its layers allows.
    static func capabilities(_ service: ServedService, configuration: ServerConfiguration, kind: Kind) -> String {
        var allowed: TableCapabilities = [.query]
        for layer in service.layers { allowed.formUnion(layer.capabilities) }
        return capabilities(allowed, configuration: configuration, kind: kind)
    }

    /// `GET …/FeatureServer/{id}` (or `…/MapServer/{id}`): the layer — fields, geometry type,
    /// extent, scale range, visibility, renderer and transparency, display field, definition
    /// expression, types and templates, capabilities and query capabilities.
    static func layer(
        _ served: ServedTable, configuration: ServerConfiguration, kind: Kind = .featureServer, copyright: String = ""
    ) throws -> JSONValue {
        let layer = served.layer
        let schema = served.schema
        let editable = configuration.allowEdits && kind == .featureServer
        var root = JSONObject()
        root.append("currentVersion", .double(configuration.arcgisVersion.number))
        root.append("id", .integer(served.layerID))
        root.append("name", .string(served.title))
        root.append("type", .string(schema.geometryType == nil ? "Table" : "Feature Layer"))
        root.append("description", .string(served.description))
        root.append("copyrightText", .string(copyright))
        root.append("defaultVisibility", .bool(layer.isVisible))
        root.append("isDataVersioned", .bool(false))
        root.append("supportsRollbackOnFailureParameter", .bool(true))
        root.append("supportsStatistics", .bool(true))
        root.append("supportsAdvancedQueries", .bool(true))
        root.append("supportsValidateSql", .bool(false))
        root.append("supportsCoordinatesQuantization", .bool(true))
        root.append("supportedQueryFormats", .string("JSON, geoJSON, PBF"))
        root.append("useStandardizedQueries", .bool(true))
        root.append("advancedQueryCapabilities", advancedQueryCapabilities)
        if let geometryType = schema.geometryType {
            root.append("geometryType", .string(geometryType.rawValue))
            root.append("geometryField", .object(JSONObject([("name", .string("Shape")), ("type", .string("esriFieldTypeGeometry"))])))
            root.append("minScale", .double(layer.minScale))
            root.append("maxScale", .double(layer.maxScale))
            root.append("extent", envelope(try served.fullExtent(), schema.spatialReference))
            root.append("sourceSpatialReference", JSONOutput.spatialReferenceValue(schema.spatialReference))
            let drawing = DrawingInfo(renderer: layer.renderer, transparency: served.transparency)
            root.append("drawingInfo", try JSONReader.parse(drawing.esriJSON))
            root.append("hasZ", .bool(served.snapshot?.geometryColumn.hasZ ?? false))
            root.append("hasM", .bool(served.snapshot?.geometryColumn.hasM ?? false))
        }
        if let time = served.time { root.append("timeInfo", try timeInfo(time, served: served)) }
        root.append("allowGeometryUpdates", .bool(editable && schema.geometryType != nil))
        root.append("hasAttachments", .bool(kind == .featureServer && served.hasAttachments))
        root.append("htmlPopupType", .string("esriServerHTMLPopupTypeNone"))
        root.append("objectIdField", .string(schema.objectIdFieldName))
        root.append("globalIdField", .string(schema.globalIdFieldName ?? ""))
        root.append("displayField", .string(served.displayField))
        if let tracking = served.editorTracking, kind == .featureServer { appendEditorTracking(tracking, to: &root) }
        root.append("fields", .array(served.visibleSchema.fields.map { $0.esriJSONValue(types: configuration.arcgisVersion.fieldTypes) }))
        root.append("indexes", .array([]))
        if let types = try JSONReader.parse(schema.esriTypesJSON).objectValue {
            for member in types.members { root.append(member.key, member.value) }
        }
        root.append("relationships", .array([]))
        root.append("capabilities", .string(capabilities(served, configuration: configuration, kind: kind)))
        root.append("maxRecordCount", .integer(configuration.maxRecordCount))
        root.append("standardMaxRecordCount", .integer(configuration.standardMaxRecordCount))
        root.append("tileMaxRecordCount", .integer(configuration.tileMaxRecordCount))
        root.append("maxRecordCountFactor", .integer(1))
        root.append("definitionExpression", .string(layer.definitionExpression))
        root.append(
            "supportedSpatialRelationships",
            .array(
                [
                    "esriSpatialRelIntersects", "esriSpatialRelContains", "esriSpatialRelCrosses", "esriSpatialRelEnvelopeIntersects",
                    "esriSpatialRelIndexIntersects", "esriSpatialRelOverlaps", "esriSpatialRelTouches", "esriSpatialRelWithin",
                    "esriSpatialRelRelation",
                ].map { .string($0) }))
        return .object(root)
    }

    /// A layer's editor tracking, as Esri layer JSON describes it: `editFieldsInfo` (the fields
    /// set; dates in UTC, `dateFieldsTimeReference` null) and, with ownership-based access
    /// control, `ownershipBasedAccessControlForFeatures`.
    static func appendEditorTracking(_ tracking: EditorTracking, to root: inout JSONObject) {
        var fields = JSONObject()
        for (key, name) in [
            ("creationDateField", tracking.creationDateField), ("creatorField", tracking.creatorField),
            ("editDateField", tracking.editDateField), ("editorField", tracking.editorField),
        ] {
            if let name { fields.append(key, .string(name)) }
        }
        root.append("editFieldsInfo", .object(fields))
        root.append("dateFieldsTimeReference", .null())
        guard tracking.ownershipBasedAccessControl else { return }
        root.append(
            "ownershipBasedAccessControlForFeatures",
            .object(
                JSONObject(
                    [
                        ("allowOthersToQuery", tracking.allowOthersToQuery), ("allowOthersToUpdate", tracking.allowOthersToUpdate),
                        ("allowOthersToDelete", tracking.allowOthersToDelete), ("allowAnonymousToUpdate", tracking.allowAnonymousToUpdate),
                        ("allowAnonymousToDelete", tracking.allowAnonymousToDelete),
                    ].map { ($0.0, JSONValue.bool($0.1)) })))
    }

    /// The layer's `timeInfo`: its time fields and the extent of their values (epoch ms; null
    /// when no feature has one), UTC, without a track field.
    static func timeInfo(_ time: LayerTime, served: ServedTable) throws -> JSONValue {
        let statistics = [
            StatisticDefinition(.min, onField: time.startField, outputAlias: "tmin"),
            StatisticDefinition(.max, onField: time.endField ?? time.startField, outputAlias: "tmax"),
        ]
        let extent: (start: Int64?, end: Int64?)
        if let published = served.published {
            extent = published.timeExtent
        } else {
            let result = try served.layer.queryStatistics(StatisticsQueryParameters(statistics: statistics))
            func instant(_ index: Int) -> Int64? {
                guard let row = result.rows.first, index < row.count, case .date(let ms) = row[index] else { return nil }
                return ms
            }
            extent = (instant(0), instant(1))
        }
        func value(_ index: Int) -> JSONValue {
            guard let ms = index == 0 ? extent.start : extent.end else { return .null() }
            return .integer(Int(ms))
        }
        return .object(
            JSONObject([
                ("startTimeField", .string(time.startField)), ("endTimeField", time.endField.map { .string($0) } ?? .null()),
                ("trackIdField", .null()), ("timeExtent", .array([value(0), value(1)])), ("timeReference", .null()),
                ("timeInterval", .integer(1)), ("timeIntervalUnits", .string("esriTimeUnitsDays")), ("hasLiveData", .bool(false)),
            ]))
    }

    /// What the query operation supports (`advancedQueryCapabilities`).
    static let advancedQueryCapabilities = JSONValue.object(
        JSONObject(
            [
                ("useStandardizedQueries", true), ("supportsStatistics", true), ("supportsHavingClause", true),
                ("supportsCountDistinct", false), ("supportsOrderBy", true), ("supportsDistinct", true),
                ("supportsPagination", true), ("supportsTrueCurve", false), ("supportsReturningQueryExtent", true),
                ("supportsQueryWithDistance", true), ("supportsSqlExpression", false),
                ("supportsPaginationOnAggregatedQueries", false), ("supportsQueryWithResultType", true),
                ("supportsOutFieldSQLExpression", false), ("supportsPercentileStatistics", true), ("supportsQuantizationEditMode", true),
            ].map { ($0.0, JSONValue.bool($0.1)) }))

    /// An Esri JSON envelope with its spatial reference (null coordinates when empty).
    static func envelope(_ envelope: Envelope, _ reference: SpatialReference) -> JSONValue {
        func number(_ value: Double) -> JSONValue { envelope.isEmpty ? .null() : .double(value) }
        return .object(
            JSONObject([
                ("xmin", number(envelope.xmin)), ("ymin", number(envelope.ymin)), ("xmax", number(envelope.xmax)),
                ("ymax", number(envelope.ymax)), ("spatialReference", JSONOutput.spatialReferenceValue(reference)),
            ]))
    }
}
