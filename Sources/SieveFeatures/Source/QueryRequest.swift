/// One query of a feature source: which rows and fields (``parameters``, the REST query's
/// parameters, typed) and what kind of answer (``answer``).
///
/// Every front door reads its own parameters into a request and makes one call,
/// ``FeatureSource/query(_:)`` (or ``FeatureTable/answer(_:definitionExpression:)`` when the
/// data is in memory): `geosieve query`, the ArcGIS REST `query` route and the OGC API `items`
/// route all do, so they agree on every combination.
///
/// ```swift
/// var parameters = QueryParameters(whereClause: "continent = 'Africa'")
/// parameters.outFields = ["name"]
/// let answer = try await countries.query(QueryRequest(parameters, answer: .count))
/// ```
///
/// The rules each answer follows (as the ArcGIS REST API answers `returnCountOnly`,
/// `returnIdsOnly`, `returnExtentOnly`, `returnDistinctValues` and `outStatistics`):
///
/// | answer | ordering | paging | out fields |
/// |---|---|---|---|
/// | ``Answer/features`` | applies | applies | applies |
/// | ``Answer/objectIDs`` | ascending object ID | ignored (checked) | checked |
/// | ``Answer/count`` | ignored (checked) | ignored (checked) | checked |
/// | ``Answer/extent`` (with the count) | ignored (checked) | ignored (checked) | checked |
/// | ``Answer/distinctValues`` | applies (by out fields) | applies | the fields whose combinations are distinct (named; not `*`) |
/// | ``Answer/distinctCount`` | ignored | ignored | as ``Answer/distinctValues`` |
/// | ``Answer/statistics(_:)`` | by group fields or output names | ignored | ignored (checked) |
public struct QueryRequest: Hashable, Sendable {
    /// The kind of answer a request asks for.
    public enum Answer: Hashable, Sendable {
        /// The features, ordered and paged.
        case features
        /// The object IDs, ascending, unpaged.
        case objectIDs
        /// How many rows are selected.
        case count
        /// How many rows are selected and the union of their envelopes, in the output spatial
        /// reference.
        case extent
        /// The distinct combinations of the out fields' values (REST `returnDistinctValues`).
        case distinctValues
        /// How many distinct combinations there are (`returnDistinctValues` with
        /// `returnCountOnly`).
        case distinctCount
        /// Aggregates over the selected rows, grouped (REST `outStatistics`).
        case statistics(StatisticsRequest)
    }

    /// Which rows, which fields, in what order and which page.
    public var parameters: QueryParameters
    /// What kind of answer.
    public var answer: Answer

    /// A request for `answer` over the rows `parameters` select.
    public init(_ parameters: QueryParameters = QueryParameters(), answer: Answer = .features) {
        self.parameters = parameters
        self.answer = answer
    }
}

/// The aggregates of a statistics request (REST `outStatistics`, `groupByFieldsForStatistics`,
/// `havingClause`); the rows come from the request's parameters and the order from its
/// ``QueryParameters/orderBy``, which names group fields or output names.
public struct StatisticsRequest: Hashable, Sendable {
    /// The aggregates, in output order (after the group fields). At least one is needed.
    public var statistics: [StatisticDefinition]
    /// The fields to group by (ignoring case), in output order; empty for one group.
    public var groupByFields: [String]
    /// A condition over each group's aggregates; `nil` or blank keeps every group.
    public var having: String?

    /// A statistics request.
    public init(statistics: [StatisticDefinition], groupByFields: [String] = [], having: String? = nil) {
        self.statistics = statistics
        self.groupByFields = groupByFields
        self.having = having
    }
}
