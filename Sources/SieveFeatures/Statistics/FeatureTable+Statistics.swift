import SieveColumns
import SieveGeometry
import SieveSQL
import SieveJSON

extension FeatureTable {
    /// Aggregates over the rows a query selects, grouped, filtered and ordered: the ArcGIS REST
    /// `query` operation with `outStatistics`, `groupByFieldsForStatistics`, `having` and
    /// `orderByFields`.
    ///
    /// Rows are selected as ``queryFeatures(_:)`` selects them (where clause AND object IDs AND
    /// spatial filter; deleted rows never count), then the statistics are computed as
    /// ``statistics(_:rows:)`` documents.
    ///
    /// ```swift
    /// let result = try table.queryStatistics(StatisticsQueryParameters(
    ///     statistics: try StatisticDefinition.list("count:fid:n,avg:pop_est:avgpop"),
    ///     groupByFields: ["continent"]))
    /// result.esriJSON  // {"displayFieldName":"","fieldAliases":{…},"fields":[…],"features":[…]}
    /// ```
    /// - Throws: `WhereClauseError` (SieveSQL) for a where clause that does not parse or bind;
    ///   ``FeatureTableError`` of kind ``FeatureTableError/Kind/invalidQuery`` as
    ///   ``queryFeatures(_:)`` and ``statistics(_:rows:)`` do.
    public func queryStatistics(_ parameters: StatisticsQueryParameters) throws -> StatisticsResult {
        let prepared = try PreparedQuery(parameters.query, table: self)
        let plan = try StatisticsPlan(parameters, table: self)
        return try plan.run(rows: prepared.matchingRows(in: self), table: self)
    }

    /// Aggregates over the given rows, ignoring the row selection of `parameters.query` (its
    /// collation still orders and groups strings): how a layer computes statistics over the
    /// rows its definition expression and the query select together.
    ///
    /// Semantics, as SQL and ArcGIS have them:
    /// - `count` counts the non-NULL values of its field (on the object-ID field: the rows);
    ///   every other statistic ignores NULL. Over no value `count` is 0 and the others are NULL.
    /// - `stddev` and `var` are the *sample* statistics (divided by n − 1), as ArcGIS computes
    ///   them; over a single value they are NULL, as `stddev_samp`/`var_samp` are in
    ///   PostgreSQL (SQL Server's `STDEV`/`VAR` likewise).
    /// - `sum`, `avg`, `stddev`, `var` and `percentile_cont` need a numeric field; `min`,
    ///   `max` also take strings (ordered by the collation) and dates; `percentile_disc` takes
    ///   numbers and dates.
    /// - NaN is a value, not NULL: it is counted, it makes `sum`, `avg`, `stddev` and `var` NaN
    ///   (written as `null` in JSON), and it orders below every number (as in ``queryFeatures(_:)``
    ///   ordering), so it is the `min` of its group and the `max` only of a group of NaNs.
    /// - Integer sums are exact 64-bit sums; a group whose sum overflows is summed as doubles
    ///   instead (and the output field becomes Double). Double sums are compensated, and the
    ///   variance takes two passes (mean, then deviations), so large values with a small spread
    ///   keep their precision.
    /// - `percentile_cont(p)` interpolates linearly at position `p·(n − 1)` of the ordered values,
    ///   as PostgreSQL's; `percentile_disc(p)` is the first ordered value whose cumulative
    ///   distribution (its 1-based position / n) reaches `p`. With `percentileDescending` the
    ///   values are ordered descending.
    /// - One output row per group (the distinct combinations of the group fields' values; NULL
    ///   is a group of its own; strings group by their bytes, or case-insensitively under the
    ///   nocase collation), the group fields first, then the statistics in definition order.
    ///   Without group fields there is exactly one row, even over no row.
    /// - ``StatisticsQueryParameters/having`` keeps the groups for which it is TRUE (NULL and
    ///   FALSE drop the group). Its aggregate calls `COUNT`, `SUM`, `MIN`, `MAX`, `AVG`,
    ///   `STDDEV` (`STDDEV_SAMP`), `VAR` (`VARIANCE`, `VAR_SAMP`), any case, take one field;
    ///   `COUNT(*)` counts the group's rows.
    /// - Rows come ordered by ``StatisticsQueryParameters/orderBy``, then by the group fields
    ///   ascending (NULL first).
    ///
    /// - Parameters:
    ///   - parameters: The statistics; `query`'s selection is not used.
    ///   - rows: Table rows, ascending, each once; deleted rows among them are left out.
    /// - Throws: ``FeatureTableError/Kind/invalidQuery`` for rows out of range or not
    ///   ascending, no statistic, an unknown field, a statistic the field's type does not
    ///   allow, a percentile missing or outside `0…1`, a repeated or colliding output name, a
    ///   having clause that does not parse, names a non-group field outside an aggregate or
    ///   does not bind, or an order field that is neither a group field nor an output name.
    public func statistics(_ parameters: StatisticsQueryParameters, rows: [UInt32]) throws(FeatureTableError) -> StatisticsResult {
        let plan = try StatisticsPlan(parameters, table: self)
        var previous: UInt32?
        for row in rows {
            guard Int(row) < count else {
                throw FeatureTableError(.invalidQuery, "row \(row) is out of range: the table has \(count) rows")
            }
            if let previous, row <= previous {
                throw FeatureTableError(.invalidQuery, "rows must be ascending and unique: \(row) follows \(previous)")
            }
            previous = row
        }
        return try plan.run(rows: tombstones.removingDeleted(from: rows), table: self)
    }

    /// The distinct combinations of the values of ``QueryParameters/outFields`` over the rows
    /// the query selects: the ArcGIS REST `returnDistinctValues=true`.
    ///
    /// Rows are selected as ``queryFeatures(_:)`` selects them. The combinations are ordered by
    /// ``QueryParameters/orderBy`` (which may only name out fields), then by the values
    /// ascending (NULL first, strings under the collation), and paged by
    /// ``QueryParameters/resultOffset`` and ``QueryParameters/maxFeatures``. NULL is a value of
    /// its own. The object-ID field is not added to the out fields.
    /// - Throws: As ``queryFeatures(_:)``; ``FeatureTableError/Kind/invalidQuery`` when the out
    ///   fields are missing or `*`, or an order field is not among them.
    public func queryDistinctValues(_ query: QueryParameters) throws -> StatisticsResult {
        try distinctValues(query, rows: PreparedQuery(query, table: self).matchingRows(in: self))
    }

    /// ``queryDistinctValues(_:)`` over the given rows (ascending, each once; deleted rows are
    /// left out), ignoring the query's own row selection: how a layer lists distinct values
    /// among the rows its definition expression and the query select together.
    /// - Throws: As ``queryDistinctValues(_:)``.
    public func distinctValues(_ query: QueryParameters, rows: [UInt32]) throws -> StatisticsResult {
        guard let outFields = query.outFields, !outFields.isEmpty, !outFields.contains(where: { $0.trimmingWhitespace() == "*" })
        else {
            throw FeatureTableError(.invalidQuery, "returnDistinctValues needs outFields naming the fields, not * or nothing")
        }
        let parameters = StatisticsQueryParameters(
            query: query, statistics: [], groupByFields: outFields.map { String($0.trimmingWhitespace()) }, orderBy: query.orderBy)
        let plan = try StatisticsPlan(parameters, table: self, distinct: true)
        let result = try plan.run(rows: tombstones.removingDeleted(from: rows), table: self)
        let offset = min(query.resultOffset ?? 0, result.rows.count)
        let end = query.maxFeatures.map { offset + min($0, result.rows.count - offset) } ?? result.rows.count
        return StatisticsResult(fields: result.fields, rows: Array(result.rows[offset..<end]))
    }
}

/// A statistics query resolved against a table: group fields, statistics with their output
/// names, the having condition and the order, all checked before any row is read.
struct StatisticsPlan {
    /// One statistic to compute: its definition (with the output name) and its field.
    struct Output {
        var definition: StatisticDefinition
        var fieldIndex: Int
        var hidden: Bool
    }

    let groupFields: [Int]
    let outputs: [Output]
    let having: HavingClause?
    /// Output positions (among the visible fields) and directions.
    let order: [(position: Int, ascending: Bool)]
    let collation: Collation

    /// Resolves and checks `parameters` against `table`'s schema.
    init(_ parameters: StatisticsQueryParameters, table: FeatureTable, distinct: Bool = false) throws(FeatureTableError) {
        let schema = table.schema
        collation = parameters.query.collation ?? table.collation
        guard distinct || !parameters.statistics.isEmpty else {
            throw FeatureTableError(.invalidQuery, "a statistics query needs at least one statistic")
        }
        var groupFields: [Int] = []
        var names: [String] = []
        for name in parameters.groupByFields {
            let trimmed = String(name.trimmingWhitespace())
            guard !trimmed.isEmpty else { throw FeatureTableError(.invalidQuery, "empty field name in groupByFieldsForStatistics") }
            let parameter = distinct ? "outFields" : "groupByFieldsForStatistics"
            let (index, canonical) = try QueryPlan.resolve(trimmed, in: schema, parameter: parameter)
            guard !groupFields.contains(index) else {
                throw FeatureTableError(.invalidQuery, "\(JSONKey.quoted(canonical)) is named twice in \(parameter)")
            }
            groupFields.append(index)
            names.append(canonical)
        }
        var outputs: [Output] = []
        for (i, definition) in parameters.statistics.enumerated() {
            let place = "outStatistics[\(i)] (\(definition.type) of \(JSONKey.quoted(definition.onField)))"
            let (index, canonical) = try QueryPlan.resolve(definition.onField, in: schema, parameter: "outStatistics[\(i)]")
            try definition.checkPercentile(place: place)
            try Self.check(definition.type, field: schema.fields[index], place: place)
            var resolved = definition
            resolved.onField = canonical
            resolved.outputAlias = String(definition.outputAlias.trimmingWhitespace())
            if resolved.outputAlias.isEmpty { resolved.outputAlias = definition.type.rawValue.uppercased() + "_" + canonical }
            if let clash = names.firstIndex(where: { $0.lowercased() == resolved.outputAlias.lowercased() }) {
                let what = clash < groupFields.count ? "the group-by field" : "the output name of another statistic"
                throw FeatureTableError(.invalidQuery, "\(place): output name \(JSONKey.quoted(resolved.outputAlias)) is already \(what) \(JSONKey.quoted(names[clash]))")
            }
            names.append(resolved.outputAlias)
            outputs.append(Output(definition: resolved, fieldIndex: index, hidden: false))
        }
        if let text = parameters.having, !text.allSatisfy(\.isWhitespace) {
            var prefix = "__having_"
            while names.contains(where: { $0.lowercased().hasPrefix(prefix) }) { prefix = "_" + prefix }
            let having = try HavingClause(text, schema: schema, outputNames: names, hiddenPrefix: prefix)
            for aggregate in having.aggregates {
                let index = try QueryPlan.resolve(aggregate.onField, in: schema, parameter: "having").index
                try Self.check(aggregate.type, field: schema.fields[index], place: "having: \(aggregate.type.rawValue.uppercased())(\(aggregate.onField))")
                outputs.append(Output(definition: aggregate, fieldIndex: index, hidden: true))
            }
            self.having = having
        } else {
            having = nil
        }
        var order: [(position: Int, ascending: Bool)] = []
        for field in parameters.orderBy {
            guard let position = names.firstIndex(where: { $0.lowercased() == field.field.lowercased() }) else {
                let hint = WhereClauseError.didYouMean(field.field, among: names)
                let allowed = distinct ? "an out field" : "a group-by field or an output statistic name"
                throw FeatureTableError(.invalidQuery, "orderByFields names \(JSONKey.quoted(field.field)), which is not \(allowed)\(hint)")
            }
            order.append((position, field.ascending))
        }
        self.groupFields = groupFields
        self.outputs = outputs
        self.order = order
    }

    /// Checks that statistic `type` applies to `field`.
    private static func check(_ type: StatisticType, field: Field, place: String) throws(FeatureTableError) {
        let columnType = field.columnType
        let numeric = columnType == .integer || columnType == .double
        switch type {
        case .count, .min, .max: return
        case .sum, .avg, .stddev, .var, .percentileCont:
            guard numeric else {
                throw FeatureTableError(
                    .invalidQuery, "\(place): \(type) needs a numeric field; \(JSONKey.quoted(field.name)) is \(field.type.name)",
                    fieldName: field.name)
            }
        case .percentileDisc:
            guard numeric || columnType == .date else {
                throw FeatureTableError(
                    .invalidQuery,
                    "\(place): percentile_disc needs a numeric or date field; \(JSONKey.quoted(field.name)) is \(field.type.name)",
                    fieldName: field.name)
            }
        }
    }

    /// The output type of values of `field` (an object-ID field's values are BigInteger, a
    /// GlobalID's a GUID).
    static func valueType(_ field: Field) -> FieldType {
        switch field.type {
        case .oid: .bigInteger
        case .globalID: .guid
        default: field.type
        }
    }

    /// Computes the statistics over `rows` (ascending, live).
    func run(rows: [UInt32], table: FeatureTable) throws(FeatureTableError) -> StatisticsResult {
        let schema = table.schema
        let columns = table.columns
        let keys = GroupKeys(rows: rows, fields: groupFields, columns: columns, collation: collation)
        let slots = (0..<keys.slotCount).filter { keys.firstRow[$0] >= 0 }

        // What each field needs, then one accumulation per field.
        var needs: [Int: AggregateNeeds] = [:]
        for output in outputs {
            var need = needs[output.fieldIndex] ?? AggregateNeeds()
            switch output.definition.type {
            case .count: break
            case .sum, .avg: need.sum = true
            case .stddev, .var: need.variance = true
            case .min, .max: need.minMax = true
            case .percentileCont, .percentileDisc: need.sortedValues = true
            }
            needs[output.fieldIndex] = need
        }
        var aggregates: [Int: FieldAggregates] = [:]
        for (field, need) in needs {
            aggregates[field] = FieldAggregates(column: columns[field], rows: rows, keys: keys, needs: need, collation: collation)
        }

        var fields = groupFields.map { index -> Field in
            let field = schema.fields[index]
            return Field(name: field.name, type: Self.valueType(field), alias: field.alias, length: field.length)
        }
        var values: [[ScalarValue]] = slots.map { slot in groupFields.map { columns[$0][keys.firstRow[slot]] } }
        for output in outputs {
            guard let aggregate = aggregates[output.fieldIndex] else { continue }
            let field = schema.fields[output.fieldIndex]
            let (type, column) = Self.values(output.definition, field: field, column: columns[output.fieldIndex], aggregate, slots: slots)
            fields.append(Field(name: output.definition.outputAlias, type: type))
            for (r, value) in column.enumerated() { values[r].append(value) }
        }

        return try finish(fields: fields, values: values)
    }

    /// Keeps the groups the having clause keeps, orders them and drops the hidden outputs:
    /// what every way of computing the groups ends with.
    private func finish(fields: [Field], values: [[ScalarValue]]) throws(FeatureTableError) -> StatisticsResult {
        var kept = Array(values.indices)
        if let having {
            kept = try having.keptRows(fields: fields, rows: values, collation: collation)
        }
        let visible = outputs.count(where: { !$0.hidden }) + groupFields.count
        var order = self.order
        for position in groupFields.indices where !order.contains(where: { $0.position == position }) {
            order.append((position, true))
        }
        if !order.isEmpty {
            let collation = self.collation
            kept.sort { a, b in
                for (position, ascending) in order {
                    let c = ScalarValue.statisticsOrder(values[a][position], values[b][position], collation: collation)
                    if c != 0 { return ascending ? c < 0 : c > 0 }
                }
                return a < b
            }
        }
        return StatisticsResult(fields: Array(fields.prefix(visible)), rows: kept.map { Array(values[$0].prefix(visible)) })
    }

    /// What each field's statistics need from a database that aggregates the groups itself,
    /// or `nil` when one of them is not computed there exactly as here: only counts, and sums,
    /// averages, minimums and maximums of integer and date fields (no double: PostgreSQL sums
    /// doubles uncompensated and orders NaN above numbers), grouped by integer, date or string
    /// fields (strings by their bytes: the binary collation), the having clause's aggregates
    /// among them.
    func preaggregationNeeds(schema: Schema) -> [Int: AggregateNeeds]? {
        guard collation == .binary else { return nil }
        for index in groupFields where schema.fields[index].columnType == .double { return nil }
        var needs: [Int: AggregateNeeds] = [:]
        for output in outputs {
            var need = needs[output.fieldIndex] ?? AggregateNeeds()
            let columnType = schema.fields[output.fieldIndex].columnType
            let integral = columnType == .integer || columnType == .date
            switch output.definition.type {
            case .count: break
            case .sum, .avg:
                guard columnType == .integer else { return nil }
                need.sum = true
            case .min, .max:
                guard integral else { return nil }
                need.minMax = true
            case .stddev, .var, .percentileCont, .percentileDisc: return nil
            }
            needs[output.fieldIndex] = need
        }
        return needs
    }

    /// The result of groups a database aggregated: `groups`' keys (the group fields' values, in
    /// order) and each field's partial aggregates, typed, ordered and filtered as ``run(rows:table:)``
    /// does.
    func run(_ groups: PreaggregatedGroups, schema: Schema) throws(FeatureTableError) -> StatisticsResult {
        let slots = Array(groups.keys.indices)
        var fields = groupFields.map { index -> Field in
            let field = schema.fields[index]
            return Field(name: field.name, type: Self.valueType(field), alias: field.alias, length: field.length)
        }
        var values = groups.keys
        for output in outputs {
            guard let partial = groups.fields[output.fieldIndex] else {
                throw FeatureTableError(.invalidQuery, "no aggregates of \(JSONKey.quoted(output.definition.onField)) were computed")
            }
            let field = schema.fields[output.fieldIndex]
            let column: Column = field.columnType == .date ? .date(Int64Column(values: [])) : .integer(Int64Column(values: []))
            let (type, computed) = Self.values(output.definition, field: field, column: column, FieldAggregates(partial), slots: slots)
            fields.append(Field(name: output.definition.outputAlias, type: type))
            for (r, value) in computed.enumerated() { values[r].append(value) }
        }
        return try finish(fields: fields, values: values)
    }

    /// One statistic's output type and its value for each of `slots`.
    private static func values(
        _ definition: StatisticDefinition, field: Field, column: Column, _ a: FieldAggregates, slots: [Int]
    ) -> (FieldType, [ScalarValue]) {
        let isDouble = column.type == .double
        let valueType = Self.valueType(field)
        func box(integer: Int64) -> ScalarValue { column.type == .date ? .date(integer) : .integer(integer) }
        switch definition.type {
        case .count:
            let counts = slots.map { a.counts[$0] }
            let type: FieldType = (counts.max() ?? 0) > Int64(Int32.max) ? .bigInteger : .integer
            return (type, counts.map { .integer($0) })
        case .sum:
            if isDouble || a.anyOverflow {
                return (.double, slots.map { slot in
                    guard a.counts[slot] > 0 else { return .null }
                    return .double(isDouble || a.overflowed[slot] ? a.doubleSums[slot] : Double(a.integerSums[slot]))
                })
            }
            return (.bigInteger, slots.map { a.counts[$0] > 0 ? .integer(a.integerSums[$0]) : .null })
        case .avg:
            return (.double, slots.map { a.counts[$0] > 0 ? .double(a.means[$0]) : .null })
        case .var, .stddev:
            return (.double, slots.map { slot in
                let n = a.counts[slot]
                guard n > 1 else { return .null }
                let variance = a.squaredDeviations[slot] / Double(n - 1)
                return .double(definition.type == .var ? variance : variance.squareRoot())
            })
        case .min, .max:
            let isMin = definition.type == .min
            return (valueType, slots.map { slot in
                guard a.counts[slot] > 0 else { return .null }
                switch column {
                case .integer, .date: return box(integer: isMin ? a.integerMin[slot] : a.integerMax[slot])
                case .double: return .double(isMin ? a.doubleMin[slot] : a.doubleMax[slot])
                case .string: return column[isMin ? a.minRow[slot] : a.maxRow[slot]]
                }
            })
        case .percentileCont, .percentileDisc:
            let p = definition.percentile ?? 0.5
            let continuous = definition.type == .percentileCont
            return (continuous ? .double : valueType, slots.map { slot in
                let start = a.offsets[slot], n = a.offsets[slot + 1] - start
                guard n > 0 else { return .null }
                // Position k of the values in the requested order.
                func at(_ k: Int) -> Int { start + (definition.percentileDescending ? n - 1 - k : k) }
                if continuous {
                    let position = p * Double(n - 1)
                    let lower = Int(position.rounded(.down)), upper = Int(position.rounded(.up))
                    let x = isDouble ? a.sortedDoubles[at(lower)] : Double(a.sortedIntegers[at(lower)])
                    let y = isDouble ? a.sortedDoubles[at(upper)] : Double(a.sortedIntegers[at(upper)])
                    return .double(lower == upper ? x : x + (position - Double(lower)) * (y - x))
                }
                // The smallest 1-based k with k / n ≥ p.
                var k = Swift.max(1, Swift.min(n, Int((p * Double(n)).rounded(.up))))
                while k > 1, Double(k - 1) / Double(n) >= p { k -= 1 }
                while k < n, Double(k) / Double(n) < p { k += 1 }
                return isDouble ? .double(a.sortedDoubles[at(k - 1)]) : box(integer: a.sortedIntegers[at(k - 1)])
            })
        }
    }
}

/// Groups aggregated elsewhere (a database): each group's key, and per field the partial
/// aggregates of every group.
package struct PreaggregatedGroups: Sendable {
    /// One field's aggregates per group.
    package struct Partial: Sendable {
        /// The non-NULL values.
        package var counts: [Int64]
        /// Exact sums (integer fields; empty when not asked).
        package var sums: [Int64] = []
        /// Smallest and largest values (integers, or dates as epoch milliseconds; empty when not
        /// asked; any value where the count is 0).
        package var minimums: [Int64] = []
        package var maximums: [Int64] = []

        package init(counts: [Int64], sums: [Int64] = [], minimums: [Int64] = [], maximums: [Int64] = []) {
            self.counts = counts
            self.sums = sums
            self.minimums = minimums
            self.maximums = maximums
        }
    }

    /// Each group's values of the group fields, in their order.
    package var keys: [[ScalarValue]]
    /// The partial aggregates, by field index.
    package var fields: [Int: Partial]

    package init(keys: [[ScalarValue]], fields: [Int: Partial]) {
        self.keys = keys
        self.fields = fields
    }
}

extension FieldAggregates {
    /// The accumulations of a field a database aggregated.
    init(_ partial: PreaggregatedGroups.Partial) {
        counts = partial.counts
        integerSums = partial.sums
        overflowed = Array(repeating: false, count: partial.sums.count)
        means = zip(partial.sums, partial.counts).map { sum, count in count > 0 ? Double(sum) / Double(count) : 0 }
        integerMin = partial.minimums
        integerMax = partial.maximums
    }
}

extension FeatureTable {
    /// What a database must compute per group for `parameters` over a table of `schema` to give,
    /// through ``statistics(_:schema:preaggregated:)``, the answer an in-memory table gives —
    /// the needs of each field by index, the group fields' indices — or `nil` when it cannot
    /// (see the statistics' documentation: only counts, and integer sums, averages, minimums
    /// and maximums qualify).
    /// - Throws: ``FeatureTableError`` as ``statistics(_:rows:)`` throws for invalid parameters.
    package static func preaggregation(_ parameters: StatisticsQueryParameters, schema: Schema) throws(FeatureTableError)
        -> (groupFields: [Int], sums: Set<Int>, minMax: Set<Int>, counts: Set<Int>)?
    {
        let plan = try StatisticsPlan(parameters, table: try FeatureTable.empty(schema))
        guard let needs = plan.preaggregationNeeds(schema: schema) else { return nil }
        return (
            plan.groupFields, Set(needs.filter { $0.value.sum }.keys), Set(needs.filter { $0.value.minMax }.keys), Set(needs.keys)
        )
    }

    /// The statistics of `parameters` over groups a database aggregated, as ``statistics(_:rows:)``
    /// would give them over the rows.
    /// - Throws: ``FeatureTableError`` for invalid parameters.
    package static func statistics(
        _ parameters: StatisticsQueryParameters, schema: Schema, preaggregated groups: PreaggregatedGroups
    ) throws(FeatureTableError) -> StatisticsResult {
        try StatisticsPlan(parameters, table: try FeatureTable.empty(schema)).run(groups, schema: schema)
    }

    /// A table of `schema` without rows.
    static func empty(_ schema: Schema) throws(FeatureTableError) -> FeatureTable {
        let columns: [Column] = schema.fields.map { field in
            switch field.columnType {
            case .integer: .integer(Int64Column(values: []))
            case .date: .date(Int64Column(values: []))
            case .double: .double(DoubleColumn(values: []))
            case .string: .string(StringColumn([]))
            }
        }
        return try FeatureTable(schema: schema, columns: columns)
    }
}
