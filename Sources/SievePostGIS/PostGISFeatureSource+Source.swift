import PostgresNIO
import SieveColumns
import SieveSQL
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
            case .statistics(let statistics):
                if let grouped = try await groupedStatistics(parameters, statistics) { return .values(grouped) }
                return try await aggregatedInMemory(request)
            case .distinctValues, .distinctCount:
                return try await aggregatedInMemory(request)
            }
        } catch {
            throw QueryError(wrapping: error)
        }
    }

    /// Distinct values and statistics computed by GeoSieve over the fields they read: those of
    /// the selected rows in object-ID order (the order an in-memory table sums them in).
    private func aggregatedInMemory(_ request: QueryRequest) async throws -> QueryAnswer {
        let parameters = request.parameters
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

    /// Statistics grouped by the database (`GROUP BY`), when every aggregate is one it computes
    /// as GeoSieve does — counts, and integer sums, averages, minimums and maximums
    /// (``/SieveFeatures/FeatureTable/preaggregation(_:schema:)``); then typed, filtered by the
    /// having clause and ordered as in memory. `nil` when they are not, or an integer sum
    /// leaves 64 bits (GeoSieve then sums that group as doubles).
    private func groupedStatistics(_ query: QueryParameters, _ request: StatisticsRequest) async throws -> StatisticsResult? {
        let definition = StatisticsQueryParameters(
            query: query, statistics: request.statistics, groupByFields: request.groupByFields, having: request.having,
            orderBy: query.orderBy)
        guard let plan = try FeatureTable.preaggregation(definition, schema: schema) else { return nil }
        var parameters = PostgreSQLParameters()
        var unordered = query
        unordered.orderBy = []
        let condition = try PostGISQueryBuilder(table: table).condition(unordered, parameters: &parameters)
        var select: [String] = []
        for index in plan.groupFields { select.append(try table.selectExpression(table.columns[index])) }
        let fields = plan.counts.sorted()
        for index in fields {
            let value = try table.selectExpression(table.columns[index])
            select.append("count(\(value))::int8")
            if plan.sums.contains(index) { select.append("sum(\(value))::text") }
            if plan.minMax.contains(index) { select += ["min(\(value))", "max(\(value))"] }
        }
        var sql = "SELECT \(select.joined(separator: ", ")) FROM \(try table.qualifiedName()) WHERE \(condition)"
        if !plan.groupFields.isEmpty { sql += " GROUP BY " + (1...plan.groupFields.count).map(String.init).joined(separator: ", ") }
        var keys: [[ScalarValue]] = []
        var partials = Dictionary(uniqueKeysWithValues: fields.map { ($0, PreaggregatedGroups.Partial(counts: [])) })
        var overflowed = false
        try await run(PostGISStatement(sql: sql, parameters: parameters.values)) { row in
            let cells = row.makeRandomAccess()
            var column = 0
            var key: [ScalarValue] = []
            for index in plan.groupFields {
                key.append(try Self.value(cells[column], kind: table.columns[index].kind, type: schema.fields[index].columnType))
                column += 1
            }
            keys.append(key)
            for index in fields {
                partials[index]?.counts.append(try cells[column].decode(Int64.self))
                column += 1
                if plan.sums.contains(index) {
                    let text = try cells[column].decode(String?.self)
                    let sum = text.map { Int64($0) } ?? 0
                    if sum == nil { overflowed = true }
                    partials[index]?.sums.append(sum ?? 0)
                    column += 1
                }
                if plan.minMax.contains(index) {
                    partials[index]?.minimums.append(try cells[column].decode(Int64?.self) ?? 0)
                    partials[index]?.maximums.append(try cells[column + 1].decode(Int64?.self) ?? 0)
                    column += 2
                }
            }
        }
        if overflowed { return nil }
        return try FeatureTable.statistics(definition, schema: schema, preaggregated: PreaggregatedGroups(keys: keys, fields: partials))
    }

    /// A cell of a ``PostGISTable/selectExpression(_:)`` as the value an in-memory column of
    /// `type` holds.
    private static func value(_ cell: PostgresCell, kind: PostGISTable.ColumnKind, type: ColumnType) throws -> ScalarValue {
        switch kind {
        case .integer, .boolean, .instant:
            guard let value = try cell.decode(Int64?.self) else { return .null }
            return type == .date ? .date(value) : .integer(value)
        case .double, .numeric:
            guard let value = try cell.decode(Double?.self) else { return .null }
            return .double(value)
        case .text:
            guard let value = try cell.decode(String?.self) else { return .null }
            return .string(value)
        }
    }
}
