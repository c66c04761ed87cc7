import SieveFeatures

extension FeatureLayer {
    /// Statistics over the layer's features the query of `parameters` selects: the
    /// definition expression applies (the display filter does not), then grouping, having and
    /// ordering as ``FeatureTable/statistics(_:rows:)`` describes.
    /// - Throws: As ``queryFeatures(_:)`` and ``FeatureTable/statistics(_:rows:)``.
    public func queryStatistics(_ parameters: StatisticsQueryParameters) throws -> StatisticsResult {
        let (prepared, table) = try prepare(parameters.query)
        return try table.statistics(parameters, rows: prepared.matchingRows(in: table))
    }

    /// The distinct combinations of the out fields over the layer's features `query` selects
    /// (REST `returnDistinctValues`); the definition expression applies.
    /// - Throws: As ``FeatureTable/queryDistinctValues(_:)``.
    public func queryDistinctValues(_ query: QueryParameters) throws -> StatisticsResult {
        let (prepared, table) = try prepare(query)
        return try table.distinctValues(query, rows: prepared.matchingRows(in: table))
    }
}
