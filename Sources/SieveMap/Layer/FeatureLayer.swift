import SieveColumns
import SieveFeatures
import SieveGeometry
import SieveSQL
import SieveJSON

/// A feature layer: a feature source seen through a definition expression, drawn with a
/// renderer, with a display filter, a scale range and a selection — the ArcGIS `FeatureLayer`.
///
/// The layer reads any ``/SieveFeatures/FeatureSource``: a ``/SieveFeatures/FeatureTable`` (its own
/// source; it never changes), an `EditableFeatureTable` (its latest published snapshot, so the
/// layer sees every edit at once), a GeoPackage layer, a PostGIS table, a feature service layer.
/// Its one query operation, ``query(_:)``, answers every ``/SieveFeatures/QueryRequest`` over every
/// source, the definition expression ANDed in. Over a source that holds its data in memory the
/// layer also answers synchronously (``answer(_:)`` and the `query…` conveniences), and draws,
/// identifies and selects; over one that does not (a database), those throw
/// ``/SieveFeatures/QueryError`` of kind ``/SieveFeatures/QueryError/Kind/unsupported``.
///
/// - The **definition expression** limits every query, count, extent, statistic, selection
///   and identify of the layer: it is ANDed with the caller's where clause. Nothing is cached:
///   each call reads the table as it is then, so a feature edited into or out of the expression
///   is counted correctly at once, and changing the expression re-filters immediately.
/// - The **display filter** (``displayFilterDefinition``) limits only what is drawn:
///   ``displayedFeatures(in:scale:returnGeometry:)`` and ``displayedFeatureCount(in:scale:)``, and
///   identify, which finds drawn features only. ``queryFeatureCount(_:)`` ignores it.
/// - The **scale range** (``minScale``, ``maxScale``; 0 = no bound) and ``isVisible`` decide
///   whether the layer draws at all at a map scale (see ``MapScale``).
/// - The **selection** holds features by object ID: a deleted feature leaves it, an updated
///   one stays selected, edits of other features do not touch it.
///
/// A layer is a value (`Sendable`); the table it reads is shared. Copies of a layer share the
/// table but not their definition expression, display filter or selection.
///
/// ```swift
/// var layer = FeatureLayer(source: countries, name: "countries")
/// try layer.setDefinitionExpression("continent = 'Africa'")
/// try layer.queryFeatureCount(QueryParameters())            // African countries only
/// try layer.selectFeatures(QueryParameters(whereClause: "pop_est > 1e8"), mode: .new)
/// ```
public struct FeatureLayer: Sendable {
    /// Where the features come from.
    public let source: any FeatureSource
    /// The layer's name (its title in a map and its id in an SVG).
    public var name: String
    /// Whether the layer is drawn and identified (with ``IdentifyLayerOption/top`` and
    /// ``IdentifyLayerOption/visible``). Default `true`.
    public var isVisible: Bool = true
    /// The most zoomed-out scale the layer draws at (a scale denominator); 0 for no bound.
    public var minScale: Double = 0
    /// The most zoomed-in scale the layer draws at; 0 for no bound.
    public var maxScale: Double = 0
    /// How features are drawn: the symbol class of each.
    public var renderer: Renderer {
        // A binding kept for the old renderer must not answer for the new one.
        didSet { boundRenderers = BoundRendererCache() }
    }
    /// The field identify labels this layer's features with (ArcGIS's `displayField`); `nil`
    /// for the table's display field (``/SieveFeatures/Schema/displayFieldIndex``).
    public var displayFieldName: String?
    /// How opaque the layer is drawn: 1 (opaque, the default) to 0 (invisible) — a service
    /// layer's `drawingInfo` transparency of T percent is an opacity of 1 − T/100. The SVG map
    /// draws the layer's group with it.
    public var opacity: Double = 1
    /// The definition expression the source applies itself (a service layer's
    /// `definitionExpression`): every feature the layer reads satisfies it already, and the
    /// layer's own ``definitionExpression`` narrows them further — the layer shows the features
    /// of both, ANDed (``effectiveDefinitionExpression``). Reported, never sent again. Empty for
    /// none.
    public var sourceDefinitionExpression: String = ""
    /// The layer's time, when its source is time-aware (a service layer's `timeInfo`); `nil`
    /// otherwise.
    public var timeInfo: LayerTimeInfo?
    /// The definition expression; empty for none.
    public private(set) var definitionExpression: String = ""
    /// The compiled definition expression, `nil` when empty.
    private var definitionClause: CompiledWhereClause?
    /// How display filters choose the features drawn; `nil` for none.
    public private(set) var displayFilterDefinition: DisplayFilterDefinition?
    /// The display filters' clauses, compiled, by name.
    private var displayClauses: [String: CompiledWhereClause] = [:]
    /// The selected object IDs, ascending, each once.
    var selection: [Int64] = []
    /// ``renderer`` as last bound to the layer's table, for identify: shared by copies of the
    /// layer until one sets its renderer, which starts it afresh.
    private(set) var boundRenderers = BoundRendererCache()

    /// A layer over `source`, drawn with `renderer` (default: ``Renderer/default(for:)`` of the
    /// table's geometry type; a table without geometry gets a simple renderer that is never
    /// used to draw).
    public init(source: any FeatureSource, name: String, renderer: Renderer? = nil) {
        self.source = source
        self.name = name
        self.renderer = renderer ?? Renderer.default(for: source.schema.geometryType ?? .point)
    }

    /// The fields, object-ID field, geometry type and spatial reference of the source.
    public var schema: Schema { source.schema }

    /// The source's table as it is now, for a source that holds its data in memory.
    /// - Throws: ``/SieveFeatures/QueryError`` of kind
    ///   ``/SieveFeatures/QueryError/Kind/unsupported`` for a source that does not (a database):
    ///   query it with ``query(_:)``.
    public var table: FeatureTable {
        get throws(QueryError) {
            guard let table = source.inMemoryTable else {
                throw QueryError(
                    .unsupported,
                    "layer \(JSONKey.quoted(name)): its source answers queries only (query(_:)); drawing, identify, selection and synchronous queries need a source held in memory")
            }
            return table
        }
    }

    /// The string comparison of the source: the in-memory table's, else binary.
    private var collation: Collation { source.inMemoryTable?.collation ?? .binary }

    /// Sets the definition expression (empty or only spaces for none), checked against the
    /// table's fields. Selected features the new expression excludes leave the selection.
    /// - Throws: `WhereClauseError` for an expression that does not parse or bind; the layer is
    ///   unchanged then.
    public mutating func setDefinitionExpression(_ sql: String) throws {
        if sql.allSatisfy(\.isWhitespace) {
            definitionExpression = ""
            definitionClause = nil
            return
        }
        let clause = try CompiledWhereClause(sql, schema: schema, collation: collation)
        definitionExpression = sql
        definitionClause = clause
        if !selection.isEmpty { selection = try liveSelection(in: try table).objectIDs }
    }

    /// The definition the layer's features satisfy: ``sourceDefinitionExpression`` and
    /// ``definitionExpression`` ANDed (either alone when the other is empty; empty for none).
    public var effectiveDefinitionExpression: String {
        switch (sourceDefinitionExpression.isEmpty, definitionExpression.isEmpty) {
        case (true, _): definitionExpression
        case (false, true): sourceDefinitionExpression
        case (false, false): "(\(sourceDefinitionExpression)) AND (\(definitionExpression))"
        }
    }

    /// The compiled definition expression (`1=1` when there is none).
    public var definitionWhereClause: CompiledWhereClause {
        definitionClause ?? CompiledWhereClause.all(collation: collation)
    }

    /// Sets the display filter definition (`nil` for none), compiling each filter's where
    /// clause against the table's fields.
    /// - Throws: ``/SieveFeatures/FeatureTableError/Kind/invalidQuery`` for an empty or repeated
    ///   name, an empty where clause, an active filter that is not available, or a scale range with
    ///   `maxScale` above `minScale`; `WhereClauseError` for a clause that does not parse or bind
    ///   (prefixed with the filter's name). The layer is unchanged then.
    public mutating func setDisplayFilterDefinition(_ definition: DisplayFilterDefinition?) throws {
        guard let definition else {
            displayFilterDefinition = nil
            displayClauses = [:]
            return
        }
        try definition.validate()
        var clauses: [String: CompiledWhereClause] = [:]
        for (name, sql) in definition.clauses {
            do {
                clauses[name] = try CompiledWhereClause(sql, schema: schema, collation: collation)
            } catch {
                throw FeatureTableError(.invalidQuery, "display filter \(JSONKey.quoted(name)): \(error)")
            }
        }
        displayFilterDefinition = definition
        displayClauses = clauses
    }

    /// The display filter clause in force at `scale`, or `nil` when none applies.
    func displayClause(atScale scale: Double) -> CompiledWhereClause? {
        guard let definition = displayFilterDefinition else { return nil }
        let name: String?
        switch definition {
        case .manual(let active, _): name = active
        case .scale(let filters): name = filters.first { $0.applies(atScale: scale) }?.name
        }
        return name.flatMap { displayClauses[$0] }
    }

    // MARK: Queries (the definition expression applies; the display filter does not)

    /// The answer to `request` over the layer's features: the definition expression is ANDed
    /// into the selection (the display filter does not apply). Over a source held in memory it
    /// is answered on the calling task, without suspending; over another source the source
    /// answers it (a database runs it), the definition expression sent along.
    /// - Throws: ``/SieveFeatures/QueryError``.
    public func query(_ request: QueryRequest) async throws(QueryError) -> QueryAnswer {
        if let table = source.inMemoryTable { return try table.answer(request, definitionExpression: definitionClause) }
        var request = request
        if !definitionExpression.isEmpty {
            // The caller's clause is checked alone first, so that its errors point into it.
            let own = request.parameters.whereClause
            do {
                _ = try CompiledWhereClause(own, schema: schema, collation: collation)
            } catch {
                throw QueryError(wrapping: error)
            }
            // No comments in the where-clause language: parentheses keep each clause whole.
            request.parameters.whereClause = "(\(definitionExpression)) AND (\(own.allSatisfy(\.isWhitespace) ? "1=1" : own))"
        }
        return try await source.query(request)
    }

    /// The answer to `request` over the layer's features, as ``query(_:)`` gives it, for a
    /// source held in memory: synchronous, no task hop.
    /// - Throws: ``/SieveFeatures/QueryError``, of kind
    ///   ``/SieveFeatures/QueryError/Kind/unsupported`` for a source not held in memory.
    public func answer(_ request: QueryRequest) throws(QueryError) -> QueryAnswer {
        try table.answer(request, definitionExpression: definitionClause)
    }

    /// `query` prepared against the current table with the definition expression ANDed in.
    /// - Throws: As ``/SieveFeatures/PreparedQuery/init(_:table:definitionExpression:)``.
    public func prepare(_ query: QueryParameters) throws -> (query: PreparedQuery, table: FeatureTable) {
        let table = try self.table
        return (try PreparedQuery(query, table: table, definitionExpression: definitionClause), table)
    }

    /// The features `query` selects among the layer's (see
    /// ``/SieveFeatures/FeatureTable/queryFeatures(_:)``).
    /// - Throws: ``/SieveFeatures/QueryError``.
    public func queryFeatures(_ query: QueryParameters) throws(QueryError) -> FeatureQueryResult {
        guard case .features(let result) = try answer(QueryRequest(query, answer: .features)) else { return try unexpected() }
        return result
    }

    /// How many of the layer's features `query` selects. The display filter does not apply.
    /// - Throws: ``/SieveFeatures/QueryError``.
    public func queryFeatureCount(_ query: QueryParameters = QueryParameters()) throws(QueryError) -> Int {
        guard case .count(let count) = try answer(QueryRequest(query, answer: .count)) else { return try unexpected() }
        return count
    }

    /// The object IDs of the layer's features `query` selects, ascending.
    /// - Throws: ``/SieveFeatures/QueryError``.
    public func queryObjectIDs(_ query: QueryParameters = QueryParameters()) throws(QueryError) -> [Int64] {
        guard case .objectIDs(let ids, _) = try answer(QueryRequest(query, answer: .objectIDs)) else { return try unexpected() }
        return ids
    }

    /// How many of the layer's features `query` selects and the union of their envelopes.
    /// - Throws: ``/SieveFeatures/QueryError``.
    public func queryExtent(_ query: QueryParameters = QueryParameters()) throws(QueryError) -> (count: Int, extent: Envelope) {
        guard case .extent(let count, let extent, _) = try answer(QueryRequest(query, answer: .extent)) else { return try unexpected() }
        return (count, extent)
    }

    /// The extent of every feature of the layer (empty when none has a geometry).
    /// - Throws: ``/SieveFeatures/QueryError``.
    public func fullExtent() throws(QueryError) -> Envelope { try queryExtent().extent }

    /// Statistics over the layer's features the query of `parameters` selects: the
    /// definition expression applies (the display filter does not), then grouping, having and
    /// ordering as ``/SieveFeatures/FeatureTable/statistics(_:rows:)`` describes.
    /// - Throws: ``/SieveFeatures/QueryError``.
    public func queryStatistics(_ parameters: StatisticsQueryParameters) throws(QueryError) -> StatisticsResult {
        var query = parameters.query
        query.orderBy = parameters.orderBy
        let request = QueryRequest(
            query,
            answer: .statistics(StatisticsRequest(statistics: parameters.statistics, groupByFields: parameters.groupByFields, having: parameters.having)))
        guard case .values(let values) = try answer(request) else { return try unexpected() }
        return values
    }

    /// The distinct combinations of the out fields over the layer's features `query` selects
    /// (REST `returnDistinctValues`); the definition expression applies.
    /// - Throws: ``/SieveFeatures/QueryError``.
    public func queryDistinctValues(_ query: QueryParameters) throws(QueryError) -> StatisticsResult {
        guard case .values(let values) = try answer(QueryRequest(query, answer: .distinctValues)) else { return try unexpected() }
        return values
    }

    /// Never reached: ``/SieveFeatures/FeatureTable/answer(_:definitionExpression:)`` answers in
    /// the kind asked.
    private func unexpected<T>() throws(QueryError) -> T {
        throw QueryError(.unsupported, "the source answered in another kind than asked", category: .internal)
    }

    // MARK: Display

    /// Whether the layer draws at `scale`: visible and within its scale range.
    public func isDrawn(atScale scale: Double) -> Bool {
        isVisible && MapScale.isInRange(scale, minScale: minScale, maxScale: maxScale)
    }

    /// The rows drawn in a view of `extent` at `scale`, ascending: none when the layer is not
    /// drawn at that scale; else the features whose envelope meets the extent (through the
    /// quadtree) that pass the definition expression and the display filter in force.
    /// - Throws: ``/SieveFeatures/FeatureTableError/Kind/invalidQuery`` for an extent that is not
    ///   finite or has a negative size.
    public func displayedRows(in extent: Envelope, scale: Double) throws -> (rows: [UInt32], table: FeatureTable) {
        let table = try self.table
        guard isDrawn(atScale: scale) else { return ([], table) }
        guard extent.xmin.isFinite, extent.ymin.isFinite, extent.xmax.isFinite, extent.ymax.isFinite,
            extent.xmin <= extent.xmax, extent.ymin <= extent.ymax
        else {
            throw FeatureTableError(.invalidQuery, "the map extent must be finite with xmin ≤ xmax and ymin ≤ ymax")
        }
        let window = QueryParameters(geometry: .envelope(extent), spatialRelationship: .envelopeIntersects)
        var prepared = try PreparedQuery(window, table: table, definitionExpression: definitionClause)
        if let display = displayClause(atScale: scale) { prepared = prepared.and(display) }
        return (try prepared.matchingRows(in: table), table)
    }

    /// How many features are drawn in a view of `extent` at `scale`: the definition expression
    /// and the display filter apply.
    public func displayedFeatureCount(in extent: Envelope, scale: Double) throws -> Int {
        try displayedRows(in: extent, scale: scale).rows.count
    }

    /// The features drawn in a view of `extent` at `scale`, in ascending object-ID order.
    public func displayedFeatures(in extent: Envelope, scale: Double, returnGeometry: Bool = true) throws
        -> FeatureQueryResult
    {
        let (rows, table) = try displayedRows(in: extent, scale: scale)
        let prepared = try PreparedQuery(QueryParameters(returnGeometry: returnGeometry), table: table)
        return try prepared.features(in: table, rows: rows)
    }
}
