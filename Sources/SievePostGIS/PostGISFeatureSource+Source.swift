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
    /// (their answers are those of an in-memory table holding the rows). A query with a
    /// distance asks the database for the features in the window the distance can reach, and
    /// measures the distance as the in-memory table does (PostGIS measures geodesic distances
    /// otherwise), then orders and pages them.
    /// - Throws: ``/SieveFeatures/QueryError``: of kind ``/SieveFeatures/QueryError/Kind/source``
    ///   when the database fails, else as the in-memory table's would be.
    public func query(_ request: QueryRequest) async throws(QueryError) -> QueryAnswer {
        do {
            let parameters = request.parameters
            if let window = try SpatialFilter.distanceWindow(parameters, reference: table.spatialReference) {
                var candidates = QueryParameters(
                    whereClause: parameters.whereClause, objectIDs: parameters.objectIDs, filter: parameters.filter,
                    filterSpatialReference: parameters.filterSpatialReference)
                candidates.collation = parameters.collation
                if window.isEmpty {
                    candidates.whereClause = "1=0"
                } else {
                    candidates.geometry = .envelope(window)
                    candidates.inSpatialReference = table.spatialReference
                    candidates.spatialRelationship = .envelopeIntersects
                }
                return try await queryFeatures(candidates).makeTable().answer(request)
            }
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
                // The fields the aggregate reads, of the selected rows in object-ID order (the
                // order an in-memory table sums them in), then the aggregate over them in memory.
                var needed = parameters.outFields ?? []
                if case .statistics(let statistics) = request.answer {
                    needed = statistics.groupByFields + statistics.statistics.map(\.onField)
                    if let having = statistics.having {
                        // The fields the having clause names (a name that only looks like one costs a column).
                        let words = Set(having.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map { $0.lowercased() })
                        needed += schema.fields.map(\.name).filter { words.contains($0.lowercased()) }
                    }
                }
                let rows = try await selectedValues(parameters, fields: needed)
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
