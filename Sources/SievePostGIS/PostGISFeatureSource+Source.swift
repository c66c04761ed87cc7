import SieveFeatures
import SieveGeometry

extension PostGISFeatureSource: FeatureSource {
    /// Query and statistics; the data stays in the database.
    public var capabilities: FeatureSourceCapabilities { [.query, .statistics] }

    /// `nil`: the table is queried where it lives.
    public var inMemoryTable: FeatureTable? { nil }

    /// The answer to `request`, run in the database: the where clause, the CQL2 filter, the
    /// spatial relationship, the order and the page are pushed down as SQL with bound
    /// parameters, and counts, object IDs and extents are computed there. Distinct values and
    /// statistics are computed by GeoSieve over the selected rows, which the database sends
    /// (their answers are those of an in-memory table holding the rows).
    /// - Throws: ``/SieveFeatures/QueryError``: of kind ``/SieveFeatures/QueryError/Kind/source``
    ///   when the database fails, else as the in-memory table's would be.
    public func query(_ request: QueryRequest) async throws(QueryError) -> QueryAnswer {
        do {
            let parameters = request.parameters
            switch request.answer {
            case .features:
                return .features(try await queryFeatures(parameters))
            case .count:
                return .count(try await queryFeatureCount(parameters))
            case .objectIDs:
                return .objectIDs(try await queryObjectIDs(parameters), objectIdFieldName: schema.objectIdFieldName)
            case .extent:
                let (count, extent) = try await queryExtent(parameters)
                return .extent(count: count, extent: extent, spatialReference: parameters.outSpatialReference ?? table.spatialReference)
            case .distinctValues, .distinctCount, .statistics:
                // The selected rows, whole and unordered, then the aggregate over them in memory.
                var selection = QueryParameters(
                    whereClause: parameters.whereClause, objectIDs: parameters.objectIDs, returnGeometry: false,
                    geometry: parameters.geometry, inSpatialReference: parameters.inSpatialReference,
                    spatialRelationship: parameters.spatialRelationship, filter: parameters.filter,
                    filterSpatialReference: parameters.filterSpatialReference)
                selection.collation = parameters.collation
                let rows = try await queryFeatures(selection).makeTable()
                var local = parameters
                local.whereClause = "1=1"
                local.objectIDs = nil
                local.geometry = nil
                local.filter = nil
                return try rows.answer(QueryRequest(local, answer: request.answer))
            }
        } catch {
            throw QueryError(wrapping: error)
        }
    }
}
