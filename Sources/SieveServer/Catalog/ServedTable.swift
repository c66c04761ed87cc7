import SieveFeatures
import SieveCQL
import SieveEditing
import SieveFormats
import SieveMap
import SieveSQL
import SieveGeometry
import SieveColumns

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
/// The features come from a ``/SieveFeatures/FeatureSource``, and every answer from its one
/// operation through ``layer``: an editable table held in memory (edited in place when the
/// server allows edits), or a source that answers where its data lives — a PostGIS table,
/// whose queries run in the database and which is never loaded (served read-only).
///
/// Reads of an in-memory table go through ``layer`` over the editable table's published
/// snapshot, so a query never sees half an edit batch; edits are serialized by the
/// ``/SieveEditing/EditableFeatureTable``.
public struct ServedTable: Sendable {
    /// The OGC API collection id, unique in the server (and, for a table served as a service of
    /// its own, the service name): letters, digits, `_`, `-` and `.`, at most 128.
    public let id: String
    /// The human title (the layer name and collection title).
    public var title: String
    /// A description for the layer and collection documents.
    public var description: String
    /// Where the features come from.
    public let source: any FeatureSource
    /// The table, edited in place when the server allows edits; `nil` for a source that is not an
    /// editable table held in memory (served read-only).
    public let table: EditableFeatureTable?
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
    /// Runs edits one batch at a time, each saved (when a saver is given) before the next;
    /// `nil` for a source served read-only.
    let editor: TableEditor?
    /// What edits of a source that applies them where its features live (a database) allow and
    /// fill in; `nil` when the source is not edited so (held in memory, or read-only).
    let sourceEditing: EditingOptions?
    /// What was measured of a source not held in memory when it was published.
    let published: PublishedSummary?
    /// The user the layer's edits are made as (editor tracking, ownership): the one the
    /// request's token names (``acting(as:)``); `nil` for anonymous.
    public private(set) var editingUser: String?
    /// A number drawn when the table is published, in its tiles' cache keys and the entity tags
    /// of every answer: a layer published anew (a reloaded configuration that may change its
    /// definition or renderer) never answers with what its former self made.
    let instance = UInt64.random(in: .min ... .max)

    /// What the layer documents say of a source that answers elsewhere (a database), measured
    /// once when it is published, as ArcGIS Server measures a layer's extent when a service is
    /// published: its documents then cost no query of the whole table.
    struct PublishedSummary: Sendable {
        /// The extent of the layer's features (after its definition expression).
        var extent: Envelope
        /// The earliest and latest time of a time-aware layer, epoch milliseconds.
        var timeExtent: (start: Int64?, end: Int64?)
        /// How many features the layer had.
        var featureCount: Int
        /// Whether every feature had a geometry (then an OGC API `bbox` is a box query; else it
        /// also selects the features without one).
        var everyFeatureHasGeometry: Bool
    }

    /// Publishes `table` as collection `id` (and, unless a ``ServedService`` takes it, as the
    /// service `id` with the table as layer 0), as `settings` say; with the server's
    /// ``ServerConfiguration/allowEdits``, edits change it as its
    /// ``/SieveEditing/EditingOptions`` allow and `save` (when given) persists each batch before
    /// it is answered (a failed save undoes the batch).
    /// - Throws: ``ServerRequestError`` (bad request) for an id that is empty, too long or has
    ///   other characters than letters, digits, `_`, `-`, `.` (or is `.`/`..`); a negative layer
    ///   ID, a scale range with `maxScale` above `minScale`, a display field the table does not
    ///   have, a definition expression that does not bind, or one the table's editing options do
    ///   not hold edits to; ownership rules hiding others' features from queries
    ///   (`allowOthersToQuery` off: the server does not filter queries by user).
    public init(id: String, table: EditableFeatureTable, settings: LayerSettings, save: TableSaver? = nil) throws {
        let definition = settings.definitionExpression.allSatisfy(\.isWhitespace) ? "" : settings.definitionExpression
        let held = table.options.definitionExpression.map { $0.allSatisfy(\.isWhitespace) ? "" : $0 } ?? ""
        guard definition == held else {
            throw ServerRequestError(
                .badRequest,
                "the layer's definition expression \(RequestParameters.quoted(definition)) is not the one its table holds edits to (\(RequestParameters.quoted(held))): make the table editable with EditingOptions(definitionExpression:)")
        }
        try self.init(id: id, source: table, table: table, settings: settings, editor: TableEditor(table: table, save: save), published: nil)
    }

    /// Publishes `source` read-only, as ``init(id:table:settings:save:)`` publishes a table: an
    /// editable table is published as that initializer does (without edits being saved);
    /// another source (a PostGIS table) answers every query itself, and what its documents say —
    /// the extent, the time extent, the feature count — is measured now, by queries of the
    /// source.
    /// - Throws: What ``init(id:table:settings:save:)`` throws; ``/SieveFeatures/QueryError`` when
    ///   the source fails to answer.
    public static func publishing(id: String, source: any FeatureSource, settings: LayerSettings) async throws -> ServedTable {
        try await publishing(id: id, source: source, settings: settings, editing: nil)
    }

    /// Publishes `source`, which applies edits where its features live, as
    /// ``publishing(id:source:settings:)`` does, editable as `editing` allows (with the server's
    /// ``ServerConfiguration/allowEdits``): each batch is applied by the source
    /// (``/SieveEditing/EditableFeatureSource/applyEdits(_:options:rollbackOnFailure:user:)``),
    /// under the layer's definition expression. Its features have attachments when the source
    /// keeps them (``/SieveEditing/AttachmentKeepingSource``).
    /// - Throws: What ``publishing(id:source:settings:)`` throws.
    public static func publishing(
        id: String, source: any EditableFeatureSource, settings: LayerSettings, editing: EditingOptions
    ) async throws -> ServedTable {
        try await publishing(id: id, source: source as any FeatureSource, settings: settings, editing: editing)
    }

    private static func publishing(
        id: String, source: any FeatureSource, settings: LayerSettings, editing: EditingOptions?
    ) async throws -> ServedTable {
        if let table = source as? EditableFeatureTable { return try ServedTable(id: id, table: table, settings: settings) }
        var editing = editing
        if editing != nil {
            // Edits are held to the layer's definition expression, as an in-memory table's are.
            let definition = settings.definitionExpression
            editing?.definitionExpression = definition.allSatisfy(\.isWhitespace) ? nil : definition
            editing?.hasAttachments = (source as? any AttachmentKeepingSource)?.keepsAttachments ?? false
        }
        let unmeasured = try ServedTable(id: id, source: source, table: nil, settings: settings, editor: nil, published: nil)
        let layer = unmeasured.layer
        guard case .extent(let count, let extent, _) = try await layer.query(QueryRequest(answer: .extent)) else {
            throw QueryError(.unsupported, "the source answered an extent request in another kind", category: .internal)
        }
        var summary = PublishedSummary(extent: extent, timeExtent: (nil, nil), featureCount: count, everyFeatureHasGeometry: true)
        if let geometry = FeatureFilter.geometryPropertyNames(of: source.schema).first {
            var missing = QueryParameters()
            missing.filter = CQL2Filter(.isNull(.property(geometry), negated: false))
            if case .count(let none) = try await layer.query(QueryRequest(missing, answer: .count)) { summary.everyFeatureHasGeometry = none == 0 }
        }
        if let time = settings.time {
            let statistics = [
                StatisticDefinition(.min, onField: time.startField, outputAlias: "tmin"),
                StatisticDefinition(.max, onField: time.endField ?? time.startField, outputAlias: "tmax"),
            ]
            if case .values(let result) = try await layer.query(QueryRequest(answer: .statistics(StatisticsRequest(statistics: statistics)))),
                let row = result.rows.first, row.count == 2
            {
                func instant(_ value: ScalarValue) -> Int64? { if case .date(let ms) = value { ms } else { nil } }
                summary.timeExtent = (instant(row[0]), instant(row[1]))
            }
        }
        return try ServedTable(id: id, source: source, table: nil, settings: settings, editor: nil, published: summary, sourceEditing: editing)
    }

    /// The one initializer: the settings checked against `source`'s schema.
    private init(
        id: String, source: any FeatureSource, table: EditableFeatureTable?, settings: LayerSettings, editor: TableEditor?,
        published: PublishedSummary?, sourceEditing: EditingOptions? = nil
    ) throws {
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
        let tracking = table?.options.editorTracking ?? sourceEditing?.editorTracking
        if let tracking, tracking.ownershipBasedAccessControl, !tracking.allowOthersToQuery {
            throw ServerRequestError(.badRequest, Self.unfilteredQueries)
        }
        let schema = source.schema
        if let field = settings.displayField, schema.index(ofField: field) == nil {
            throw ServerRequestError(
                .badRequest, "the display field \(RequestParameters.quoted(field)) is not a field of the table\(WhereClauseError.didYouMean(field, among: schema.fieldNames))")
        }
        (visibleSchema, hidden) = try Self.visible(schema, hiding: settings.hiddenFields, settings: settings)
        let definition = settings.definitionExpression.allSatisfy(\.isWhitespace) ? "" : settings.definitionExpression
        self.id = id
        title = settings.name ?? id
        description = settings.description
        self.source = source
        self.table = table
        var layer = FeatureLayer(source: source, name: title, renderer: settings.drawingInfo?.renderer)
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
        self.editor = editor
        self.published = published
        self.sourceEditing = sourceEditing
    }

    /// The table's fields, all of them (hidden ones too), its object-ID field, geometry type and
    /// spatial reference.
    public var schema: Schema { source.schema }

    /// The table as it is now, when the source holds it in memory; `nil` for one that answers
    /// elsewhere.
    public var snapshot: FeatureTable? { source.inMemoryTable }

    /// What the layer lets clients do: its editing options' capabilities, `Query` for a source
    /// served read-only.
    public var capabilities: TableCapabilities { table?.options.capabilities ?? sourceEditing?.capabilities ?? [.query] }

    /// The layer's editor tracking and ownership rules, when its edits have them.
    public var editorTracking: EditorTracking? { table?.options.editorTracking ?? sourceEditing?.editorTracking }

    /// Whether the layer keeps attachments (never for a source served read-only).
    public var hasAttachments: Bool { table?.options.hasAttachments ?? sourceEditing?.hasAttachments ?? false }

    /// The table's version, which every edit batch advances, for entity tags and tile cache keys;
    /// `nil` for a source whose data may change without this server knowing (a database):
    /// its answers then have no entity tag and its tiles are not cached.
    var version: UInt64? { table?.version }

    /// How many features the layer has: counted now in memory, else as published.
    /// - Throws: ``/SieveFeatures/QueryError`` when the count fails.
    func featureCount() throws(QueryError) -> Int {
        if snapshot != nil { return try layer.queryFeatureCount() }
        return published?.featureCount ?? 0
    }

    /// The extent of the layer's features: computed now in memory, else as published.
    /// - Throws: ``/SieveFeatures/QueryError`` when the extent fails.
    func fullExtent() throws(QueryError) -> Envelope {
        if snapshot != nil { return try layer.fullExtent() }
        return published?.extent ?? .empty
    }

    /// Whether every feature has a geometry: now in memory, else when published.
    var everyFeatureHasGeometry: Bool { snapshot?.everyFeatureHasGeometry ?? published?.everyFeatureHasGeometry ?? false }

    /// The features `query` selects among the layer's, answered by the source (in memory
    /// without suspending; a database runs it).
    /// - Throws: ``/SieveFeatures/QueryError``.
    func features(_ query: QueryParameters) async throws(QueryError) -> FeatureQueryResult {
        guard case .features(let result) = try await layer.query(QueryRequest(query, answer: .features)) else {
            throw QueryError(.unsupported, "the source answered a features request in another kind", category: .internal)
        }
        return result
    }

    /// How many of the layer's features `query` selects, answered by the source.
    /// - Throws: ``/SieveFeatures/QueryError``.
    func count(_ query: QueryParameters) async throws(QueryError) -> Int {
        guard case .count(let count) = try await layer.query(QueryRequest(query, answer: .count)) else {
            throw QueryError(.unsupported, "the source answered a count request in another kind", category: .internal)
        }
        return count
    }

    /// The editor of a table in memory, or the refusal a layer served read-only answers edits
    /// with (a layer edited where its features live keeps no attachments).
    /// - Throws: ``ServerRequestError`` (forbidden) for a source served read-only.
    func requireEditor() throws(ServerRequestError) -> TableEditor {
        guard let editor else {
            if sourceEditing != nil {
                throw ServerRequestError(
                    .forbidden, "layer \(RequestParameters.quoted(id)) is edited where its features live, which keeps no attachments")
            }
            throw Self.readOnly(id)
        }
        return editor
    }

    /// Throws the refusal a layer served read-only answers edits with; nothing for an editable
    /// layer (in memory, or edited where its features live).
    func requireEditing() throws(ServerRequestError) {
        if editor == nil, sourceEditing == nil { throw Self.readOnly(id) }
    }

    private static func readOnly(_ id: String) -> ServerRequestError {
        ServerRequestError(.forbidden, "layer \(RequestParameters.quoted(id)) is served read-only from its source: it takes no edits")
    }

    /// Why a layer whose ownership rules hide others' features is not served.
    static let unfilteredQueries =
        "the server does not filter queries by user: allowOthersToQuery must be true (its default); ownership limits updates and deletes"

    /// The layer with its edits made as `user` (``editingUser``).
    public func acting(as user: String?) -> ServedTable {
        var copy = self
        copy.editingUser = user
        return copy
    }

    /// Applies `request` as one batch, as ``editingUser``: through the editor of a table in
    /// memory, or by the source where its features live.
    /// - Throws: ``ServerRequestError``: forbidden for a layer served read-only; the source's
    ///   error (by its category: 502 for a lost connection, 503 for a timeout) when it fails.
    func applyEdits(_ request: ApplyEditsRequest, rollbackOnFailure: Bool) async throws(ServerRequestError) -> ApplyEditsResult {
        if let editor {
            return try await editor.run { table in
                table.applyEdits(
                    adds: request.adds, updates: request.updates, deletes: request.deletes, rollbackOnFailure: rollbackOnFailure, user: editingUser)
            }
        }
        guard let sourceEditing, let source = source as? any EditableFeatureSource else { throw Self.readOnly(id) }
        do {
            return try await source.applyEdits(request, options: sourceEditing, rollbackOnFailure: rollbackOnFailure, user: editingUser)
        } catch {
            throw Self.failure(error, "the edits were not applied")
        }
    }

    /// What ``applyEdits(_:rollbackOnFailure:)`` with rollback would answer now, changing nothing.
    /// - Throws: As ``applyEdits(_:rollbackOnFailure:)`` throws.
    func checkEdits(_ request: ApplyEditsRequest) async throws(ServerRequestError) -> ApplyEditsResult {
        if let editor {
            return editor.table.checkEdits(adds: request.adds, updates: request.updates, deletes: request.deletes, user: editingUser)
        }
        guard let sourceEditing, let source = source as? any EditableFeatureSource else { throw Self.readOnly(id) }
        do {
            return try await source.checkEdits(request, options: sourceEditing, user: editingUser)
        } catch {
            throw Self.failure(error, "the edits could not be checked")
        }
    }

    /// Whether the layer has feature `objectID` (within its definition expression), asked of
    /// the source when it is not held in memory.
    func containsFeature(_ objectID: Int64) async throws(ServerRequestError) -> Bool {
        if snapshot != nil { return contains(objectID: objectID) }
        do {
            return try await count(QueryParameters(objectIDs: [objectID])) > 0
        } catch {
            throw Self.failure(error, "the feature could not be looked up")
        }
    }

    /// `error` of a source as a request error of its category.
    static func failure(_ error: any Error, _ what: String) -> ServerRequestError {
        if let error = error as? ServerRequestError { return error }
        let category = (error as? any GeoSieveError)?.category ?? .internal
        return ServerRequestError(ServerRequestError.Kind(category), "\(what): \(error)")
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
        guard let table = snapshot else { return false }
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
