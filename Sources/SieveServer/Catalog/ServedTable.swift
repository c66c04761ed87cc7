import SieveFeatures
import SieveCQL
import SieveEditing
import SieveFormats
import SieveMap
import SieveSQL

/// How a served layer is published: what a service layer's author configures once, which every
/// answer then honours (``ServedTable``).
///
/// The definition expression limits every query, count, extent, statistic, tile and OGC API
/// page of the layer; edits are held to it by the table's
/// ``/SieveEditing/EditingOptions/definitionExpression``, which ``ServedTable`` requires to be
/// the same. The scale range, default visibility, display field and drawing info are what the
/// layer document publishes for map clients to obey.
public struct LayerSettings: Sendable {
    /// The layer's ID in its ArcGIS service (`…/FeatureServer/{id}`): 0 or more.
    public var id: Int
    /// The layer's name (its ArcGIS `name` and OGC API collection title); `nil` for the id of
    /// the table.
    public var name: String?
    /// The layer's description.
    public var description: String
    /// The definition expression (empty for none): a where clause over the table's fields.
    public var definitionExpression: String
    /// The most zoomed-out scale the layer should be drawn at (a scale denominator); 0 for no
    /// bound.
    public var minScale: Double
    /// The most zoomed-in scale the layer should be drawn at; 0 for no bound.
    public var maxScale: Double
    /// Whether map clients show the layer when they open the service (ArcGIS
    /// `defaultVisibility`).
    public var defaultVisibility: Bool
    /// The field that labels features (ArcGIS `displayField`); `nil` for the table's.
    public var displayField: String?
    /// The renderer and transparency (`drawingInfo`); `nil` for the default renderer of the
    /// geometry type, opaque.
    public var drawingInfo: DrawingInfo?
    /// The layer's time, when it is time-aware (ArcGIS `timeInfo`, OGC `datetime`).
    public var time: LayerTime?
    /// The fields clients never see (ArcGIS field visibility): left out of the layer's
    /// documents and of every answer, refused in where clauses, filters, orders, statistics and
    /// edits as fields the layer does not have. The object-ID, global-ID and type-ID fields,
    /// the display field and the time fields cannot be hidden; the definition expression may
    /// name hidden fields (it is the service's own).
    public var hiddenFields: [String]

    /// Settings; each argument defaults as described on its property.
    public init(
        id: Int = 0, name: String? = nil, description: String = "", definitionExpression: String = "", minScale: Double = 0,
        maxScale: Double = 0, defaultVisibility: Bool = true, displayField: String? = nil, drawingInfo: DrawingInfo? = nil,
        time: LayerTime? = nil, hiddenFields: [String] = []
    ) {
        self.id = id
        self.name = name
        self.description = description
        self.definitionExpression = definitionExpression
        self.minScale = minScale
        self.maxScale = maxScale
        self.defaultVisibility = defaultVisibility
        self.displayField = displayField
        self.drawingInfo = drawingInfo
        self.time = time
        self.hiddenFields = hiddenFields
    }
}

/// One table the server publishes: a layer of an ArcGIS FeatureServer service
/// (`/arcgis/rest/services/{service}/FeatureServer/{layer}`) and an OGC API collection at
/// `/ogc/collections/{id}`.
///
/// Reads go through ``layer`` over the editable table's published snapshot, so a query never
/// sees half an edit batch; edits are serialized by the ``/SieveEditing/EditableFeatureTable``.
public struct ServedTable: Sendable {
    /// The OGC API collection id, unique in the server (and, for a table served as a service of
    /// its own, the service name): letters, digits, `_`, `-` and `.`, at most 128.
    public let id: String
    /// The human title (the layer name and collection title).
    public var title: String
    /// A description for the layer and collection documents.
    public var description: String
    /// The table, edited in place when the server allows edits.
    public let table: EditableFeatureTable
    /// The layer the answers come from: its definition expression (if any) limits them, its
    /// renderer is the layer's `drawingInfo`, its scale range, visibility and display field
    /// are published.
    public let layer: FeatureLayer
    /// The layer's transparency in percent (0 opaque … 100 invisible), in its `drawingInfo`.
    public let transparency: Double
    /// The layer's ID in its service.
    public let layerID: Int
    /// The fields clients see, in order: the table's without ``LayerSettings/hiddenFields``
    /// (the table's own schema when none is hidden). Documents describe it; queries are held
    /// to it.
    public let visibleSchema: Schema
    /// The hidden fields' names, lower-cased; empty when none is hidden.
    let hidden: Set<String>
    /// The name of the ArcGIS service the layer belongs to (set by ``ServedCatalog``).
    public internal(set) var serviceName: String
    /// The layer's time, when it is time-aware: the ArcGIS `timeInfo`, what `time` and OGC
    /// `datetime` select by.
    public let time: LayerTime?
    /// Runs edits one batch at a time, each saved (when a saver is given) before the next.
    let editor: TableEditor
    /// A number drawn when the table is published, in its tiles' cache keys and the entity tags
    /// of every answer: a layer published anew (a reloaded configuration that may change its
    /// definition or renderer) never answers with what its former self made.
    let instance = UInt64.random(in: .min ... .max)

    /// Publishes `table` as collection `id` (and, unless a ``ServedService`` takes it, as the
    /// service `id` with the table as layer 0), as `settings` say; with the server's
    /// ``ServerConfiguration/allowEdits``, edits change it as its
    /// ``/SieveEditing/EditingOptions`` allow and `save` (when given) persists each batch before
    /// it is answered (a failed save undoes the batch).
    /// - Throws: ``ServerRequestError`` (bad request) for an id that is empty, too long or has
    ///   other characters than letters, digits, `_`, `-`, `.` (or is `.`/`..`); a negative layer
    ///   ID, a scale range with `maxScale` above `minScale`, a display field the table does not
    ///   have, a definition expression that does not bind, or one the table's editing options do
    ///   not hold edits to.
    public init(id: String, table: EditableFeatureTable, settings: LayerSettings, save: TableSaver? = nil) throws {
        guard Self.isValidID(id) else {
            throw ServerRequestError(
                .badRequest,
                "\(RequestParameters.quoted(id)) is not a usable service name: use 1 to 128 letters, digits, '_', '-' or '.'")
        }
        guard settings.id >= 0 else { throw ServerRequestError(.badRequest, "a layer ID must be 0 or more, not \(settings.id)") }
        guard settings.minScale >= 0, settings.maxScale >= 0, settings.minScale.isFinite, settings.maxScale.isFinite,
            settings.minScale == 0 || settings.maxScale <= settings.minScale
        else {
            throw ServerRequestError(
                .badRequest,
                "the scale range must have 0 <= maxScale <= minScale (0 for no bound), not minScale \(settings.minScale), maxScale \(settings.maxScale)")
        }
        let schema = table.snapshot.schema
        if let field = settings.displayField, schema.index(ofField: field) == nil {
            throw ServerRequestError(
                .badRequest, "the display field \(RequestParameters.quoted(field)) is not a field of the table\(WhereClauseError.didYouMean(field, among: schema.fieldNames))")
        }
        (visibleSchema, hidden) = try Self.visible(schema, hiding: settings.hiddenFields, settings: settings)
        let definition = settings.definitionExpression.allSatisfy(\.isWhitespace) ? "" : settings.definitionExpression
        let held = table.options.definitionExpression.map { $0.allSatisfy(\.isWhitespace) ? "" : $0 } ?? ""
        guard definition == held else {
            throw ServerRequestError(
                .badRequest,
                "the layer's definition expression \(RequestParameters.quoted(definition)) is not the one its table holds edits to (\(RequestParameters.quoted(held))): make the table editable with EditingOptions(definitionExpression:)")
        }
        self.id = id
        title = settings.name ?? id
        description = settings.description
        self.table = table
        var layer = FeatureLayer(source: table, name: title, renderer: settings.drawingInfo?.renderer)
        if !definition.isEmpty { try layer.setDefinitionExpression(definition) }
        layer.minScale = settings.minScale
        layer.maxScale = settings.maxScale
        layer.isVisible = settings.defaultVisibility
        layer.displayFieldName = settings.displayField
        self.layer = layer
        transparency = settings.drawingInfo?.transparency ?? 0
        layerID = settings.id
        serviceName = id
        time = settings.time
        editor = TableEditor(table: table, save: save)
    }

    /// Publishes `table` under `id` as the service `id`'s layer 0, titled `title` (default
    /// `id`), drawn with `renderer`; see ``init(id:table:settings:save:)``.
    public init(
        id: String, title: String? = nil, description: String = "", table: EditableFeatureTable,
        renderer: Renderer? = nil, definitionExpression: String? = nil, time: LayerTime? = nil,
        save: TableSaver? = nil
    ) throws {
        try self.init(
            id: id, table: table,
            settings: LayerSettings(
                name: title, description: description, definitionExpression: definitionExpression ?? "",
                drawingInfo: renderer.map { DrawingInfo(renderer: $0) }, time: time),
            save: save)
    }

    /// `schema` without the fields `names` hides, and their lower-cased names.
    private static func visible(_ schema: Schema, hiding names: [String], settings: LayerSettings) throws -> (Schema, Set<String>) {
        guard !names.isEmpty else { return (schema, []) }
        var hidden = Set<String>()
        let protected = [
            (schema.objectIdFieldName, "the object-ID field"), (schema.globalIdFieldName, "the global-ID field"),
            (schema.typeIdFieldName, "the type-ID field"), (settings.displayField, "the display field"),
            (settings.time?.startField, "the time field"), (settings.time?.endField, "the time field"),
        ]
        for name in names {
            guard let field = schema.field(named: name) else {
                throw ServerRequestError(
                    .badRequest, "the hidden field \(RequestParameters.quoted(name)) is not a field of the table\(WhereClauseError.didYouMean(name, among: schema.fieldNames))")
            }
            if let (_, what) = protected.first(where: { $0.0?.lowercased() == field.name.lowercased() }) {
                throw ServerRequestError(.badRequest, "\(RequestParameters.quoted(field.name)) is \(what): it cannot be hidden")
            }
            hidden.insert(field.name.lowercased())
        }
        let displayField = schema.displayFieldName.flatMap { hidden.contains($0.lowercased()) ? nil : $0 }
        let visible = try Schema(
            fields: schema.fields.filter { !hidden.contains($0.name.lowercased()) }, objectIdFieldName: schema.objectIdFieldName,
            globalIdFieldName: schema.globalIdFieldName, displayFieldName: displayField, geometryType: schema.geometryType,
            spatialReference: schema.spatialReference, typeIdFieldName: schema.typeIdFieldName, types: schema.types, templates: schema.templates)
        return (visible, hidden)
    }

    /// Holds `query` to the fields clients see: all fields (none named, or `*`) become the
    /// visible ones, and a hidden field named in the out fields, order, where clause, filter or
    /// statistics is refused as a field the layer does not have.
    /// - Throws: ``ServerRequestError`` (bad request) naming the field.
    public func restrictToVisibleFields(_ query: inout QueryParameters, statistics: StatisticsRequest? = nil) throws(ServerRequestError) {
        guard !hidden.isEmpty else { return }
        func check(_ names: some Sequence<String>, _ what: String) throws(ServerRequestError) {
            for name in names where hidden.contains(name.lowercased()) {
                throw ServerRequestError(
                    .badRequest, "Cannot perform query. Invalid query parameters.",
                    details: ["\(what): \(RequestParameters.quoted(name)) is not a field of the layer"])
            }
        }
        let visibleNames = visibleSchema.fields.map(\.name)
        if let fields = query.outFields, !fields.contains("*") {
            try check(fields, "outFields")
        } else {
            query.outFields = visibleNames
        }
        try check(query.orderBy.map(\.field), "orderByFields")
        if !query.whereClause.allSatisfy(\.isWhitespace), let tree = try? WhereClause.parse(query.whereClause) {
            try check(tree.fieldNames, "where")
        }
        if let filter = query.filter {
            let geometry = FeatureFilter.geometryPropertyNames(of: layer.schema)
            if let lowered = try? filter.lowered(geometryPropertyNames: geometry) { try check(lowered.tree.fieldNames, "filter") }
        }
        if let statistics {
            try check(statistics.statistics.map(\.onField), "outStatistics")
            try check(statistics.groupByFields, "groupByFieldsForStatistics")
        }
    }

    /// Refuses edits that give a hidden field a value, as giving a field the layer does not
    /// have.
    /// - Throws: ``ServerRequestError`` (bad request) naming the field.
    public func checkVisibleFields(_ edits: [FeatureEdit]) throws(ServerRequestError) {
        guard !hidden.isEmpty else { return }
        for edit in edits {
            for name in edit.attributes.keys where hidden.contains(name.lowercased()) {
                throw ServerRequestError(
                    .badRequest, "Unable to complete operation.", details: ["\(RequestParameters.quoted(name)) is not a field of the layer"])
            }
        }
    }

    /// Whether the layer has the feature `objectID`: the table has it and it satisfies the
    /// definition expression (a feature outside it does not exist for the layer's clients).
    public func contains(objectID: Int64) -> Bool {
        let table = table.snapshot
        guard let row = table.row(forObjectID: objectID) else { return false }
        return layer.definitionExpression.isEmpty || layer.definitionWhereClause.evaluate(row: row, in: table.columns) == true
    }

    /// The layer's display field: the configured one, else the table's, else its object-ID
    /// field.
    public var displayField: String {
        let schema = layer.schema
        return layer.displayFieldName ?? schema.displayFieldIndex.map { schema.fields[$0].name } ?? schema.objectIdFieldName
    }

    /// Whether `id` can name a service: 1 to 128 ASCII letters, digits, `_`, `-`, `.`, and not
    /// `.` or `..` (so it can never walk a path).
    public static func isValidID(_ id: String) -> Bool {
        guard !id.isEmpty, id.utf8.count <= 128, id != ".", id != ".." else { return false }
        return id.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."):
                true
            default: false
            }
        }
    }

    /// `text` made into a usable id: other characters become `_`, cut at 128 (`table` when
    /// nothing is left).
    public static func sanitizedID(_ text: String) -> String {
        var id = String(
            text.unicodeScalars.prefix(128).map { scalar -> Character in
                scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "_-.".unicodeScalars.contains(scalar))
                    ? Character(scalar) : "_"
            })
        if id.isEmpty || id == "." || id == ".." { id = "table" }
        return id
    }
}
