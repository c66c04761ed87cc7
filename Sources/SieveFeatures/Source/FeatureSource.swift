import SieveGeometry
import SieveSQL

/// What a feature source can do beyond answering queries.
public struct FeatureSourceCapabilities: OptionSet, Hashable, Sendable {
    /// The raw bits.
    public let rawValue: Int
    /// Capabilities from their raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Answers ``QueryRequest``s (every source does).
    public static let query = FeatureSourceCapabilities(rawValue: 1 << 0)
    /// Answers statistics and distinct values (``QueryRequest/Answer/statistics(_:)``,
    /// ``QueryRequest/Answer/distinctValues``).
    public static let statistics = FeatureSourceCapabilities(rawValue: 1 << 1)
    /// Takes edits (an `EditableFeatureTable`).
    public static let editing = FeatureSourceCapabilities(rawValue: 1 << 2)
    /// Holds its data in memory: ``FeatureSource/inMemoryTable`` is never `nil`, and a query
    /// is answered synchronously, without a task hop.
    public static let inMemory = FeatureSourceCapabilities(rawValue: 1 << 3)
}

/// Where features come from: a table in memory, an edited table, a GeoPackage layer, a PostGIS
/// table, a feature service layer. Everything that reads features — ``FeatureTable``'s callers,
/// a feature layer, the command line, the server — reads them through this one protocol and its
/// one operation, ``query(_:)``.
///
/// A source that holds its data in memory gives it as ``inMemoryTable``: the default
/// ``query(_:)`` answers from it with ``FeatureTable/answer(_:definitionExpression:)``, and
/// callers that want no suspension point call that directly. A source that answers elsewhere
/// (a database) implements ``query(_:)`` itself and has no in-memory table.
///
/// ```swift
/// let source: any FeatureSource = try FeatureTable.load(contentsOfFile: "countries.geojson")
/// let answer = try await source.query(QueryRequest(QueryParameters(whereClause: "pop_est > 1e8"), answer: .count))
/// ```
public protocol FeatureSource: Sendable {
    /// The fields, the object-ID field, the geometry type and the spatial reference.
    var schema: Schema { get }
    /// What the source can do.
    var capabilities: FeatureSourceCapabilities { get }
    /// The data as it is now, when the source holds it in memory; `nil` for a source that
    /// answers elsewhere.
    var inMemoryTable: FeatureTable? { get }
    /// The answer to `request`, as ``FeatureTable/answer(_:definitionExpression:)`` describes it.
    /// - Throws: ``QueryError``.
    func query(_ request: QueryRequest) async throws(QueryError) -> QueryAnswer
}

extension FeatureSource {
    /// The spatial reference of the source's geometries.
    public var spatialReference: SpatialReference { schema.spatialReference }

    /// Query, statistics and in memory.
    public var capabilities: FeatureSourceCapabilities { [.query, .statistics, .inMemory] }

    /// The answer of ``inMemoryTable``.
    /// - Throws: ``QueryError`` of kind ``QueryError/Kind/unsupported`` when the source holds no
    ///   table in memory and does not implement this.
    public func query(_ request: QueryRequest) async throws(QueryError) -> QueryAnswer {
        guard let table = inMemoryTable else {
            throw QueryError(.unsupported, "\(type(of: self)) holds no table in memory and answers no query", category: .internal)
        }
        return try table.answer(request)
    }

    /// The extent of every feature (``/SieveGeometry/Envelope/empty`` when none has a geometry).
    /// - Throws: ``QueryError`` when the source fails.
    public func fullExtent() async throws(QueryError) -> Envelope {
        if case .extent(_, let extent, _) = try await query(QueryRequest(answer: .extent)) { return extent }
        return .empty
    }
}

extension FeatureTable: FeatureSource {
    /// The table itself: a table never changes.
    public var inMemoryTable: FeatureTable? { self }
}

extension FeatureTable {
    /// The answer to `request` over this table, with `definitionExpression` (a layer's) ANDed
    /// into the selection: the one place where every kind of answer is made. Each front door
    /// reads its parameters into a ``QueryRequest`` and calls this (through
    /// ``FeatureSource/query(_:)`` or a layer), so that they agree.
    ///
    /// The rows are selected as ``queryFeatures(_:)`` selects them; what each answer does with
    /// ordering, paging and out fields is tabled in ``QueryRequest``.
    /// - Throws: ``QueryError`` wrapping the failing stage's error.
    public func answer(_ request: QueryRequest, definitionExpression: CompiledWhereClause? = nil) throws(QueryError) -> QueryAnswer {
        do {
            var parameters = request.parameters
            if case .statistics = request.answer {
                // The order names group fields or output names; it orders the groups.
                parameters.orderBy = []
            }
            let prepared = try PreparedQuery(parameters, table: self, definitionExpression: definitionExpression)
            switch request.answer {
            case .features:
                return .features(try prepared.features(in: self))
            case .objectIDs:
                return .objectIDs(try prepared.objectIDs(in: self), objectIdFieldName: schema.objectIdFieldName)
            case .count:
                return .count(try prepared.count(in: self))
            case .extent:
                let (count, extent) = try prepared.extent(in: self)
                return .extent(count: count, extent: extent, spatialReference: parameters.outSpatialReference ?? spatialReference)
            case .distinctValues:
                return .values(try distinctValues(parameters, rows: prepared.matchingRows(in: self)))
            case .distinctCount:
                // A count of combinations: neither ordered nor paged.
                var unpaged = parameters
                unpaged.resultOffset = nil
                unpaged.maxFeatures = nil
                unpaged.orderBy = []
                return .count(try distinctValues(unpaged, rows: prepared.matchingRows(in: self)).rows.count)
            case .statistics(let statistics):
                let definition = StatisticsQueryParameters(
                    query: parameters, statistics: statistics.statistics, groupByFields: statistics.groupByFields,
                    having: statistics.having, orderBy: request.parameters.orderBy)
                return .values(try self.statistics(definition, rows: prepared.matchingRows(in: self)))
            }
        } catch {
            throw QueryError(wrapping: error)
        }
    }
}
