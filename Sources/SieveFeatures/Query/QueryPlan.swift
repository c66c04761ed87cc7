import SieveColumns
import SieveGeometry
import SieveSQL
import SieveJSON

/// The parts of running a query that do not depend on what it returns: resolving field names,
/// checking paging, selecting rows and ordering them.
package enum QueryPlan {
    /// The field `name` names in `schema` (ignoring case): its index and canonical name.
    /// - Throws: ``FeatureTableError/Kind/invalidQuery`` naming `parameter`, with a
    ///   suggestion when a field name is close.
    package static func resolve(_ name: String, in schema: Schema, parameter: String) throws(FeatureTableError) -> (
        index: Int, name: String
    ) {
        guard let index = schema.index(ofField: name) else {
            let hint = WhereClauseError.didYouMean(name, among: schema.fieldNames)
            throw FeatureTableError(.invalidQuery, "unknown field \(JSONKey.quoted(name)) in \(parameter)\(hint)")
        }
        return (index, schema.fields[index].name)
    }

    /// The schema indices of the fields `outFields` selects: every field for `nil` or a list
    /// holding `*`; else the object-ID field first unless listed, then the listed fields in
    /// order, each once.
    static func outFieldIndices(_ outFields: [String]?, schema: Schema) throws(FeatureTableError) -> [Int] {
        guard let outFields, !outFields.contains(where: { $0.trimmingWhitespace() == "*" }) else {
            return Array(schema.fields.indices)
        }
        var indices: [Int] = []
        var seen = Set<Int>()
        for name in outFields {
            let trimmed = String(name.trimmingWhitespace())
            guard !trimmed.isEmpty else {
                throw FeatureTableError(.invalidQuery, "empty field name in outFields")
            }
            let index = try resolve(trimmed, in: schema, parameter: "outFields").index
            if seen.insert(index).inserted { indices.append(index) }
        }
        if !seen.contains(schema.objectIdFieldIndex) {
            indices.insert(schema.objectIdFieldIndex, at: 0)
        }
        return indices
    }

    /// Checks the paging parameters.
    static func checkPaging(_ query: QueryParameters) throws(FeatureTableError) {
        if let offset = query.resultOffset, offset < 0 {
            throw FeatureTableError(.invalidQuery, "resultOffset must not be negative, not \(offset)")
        }
        if let limit = query.maxFeatures, limit < 0 {
            throw FeatureTableError(.invalidQuery, "maxFeatures must not be negative, not \(limit)")
        }
    }

    /// Every check that does not need the rows: where clause, out fields, sort fields, paging.
    /// Returns the compiled clause, the resolved sort fields (schema index, ascending) and the
    /// out fields' schema indices.
    static func prepare(_ query: QueryParameters, table: FeatureTable) throws -> (
        clause: CompiledWhereClause, sort: [(index: Int, ascending: Bool)], fieldIndices: [Int]
    ) {
        try checkPaging(query)
        let schema = table.schema
        var sort: [(index: Int, ascending: Bool)] = []
        for field in query.orderBy {
            sort.append((try resolve(field.field, in: schema, parameter: "orderByFields").index, field.ascending))
        }
        let fieldIndices = try outFieldIndices(query.outFields, schema: schema)
        let clause = try CompiledWhereClause(
            query.whereClause, schema: schema, collation: query.collation ?? table.collation)
        return (clause, sort, fieldIndices)
    }

    /// The candidate rows the object-ID list allows (ascending, each once), or `nil` for all.
    static func candidates(_ objectIDs: [Int64]?, table: FeatureTable) -> [UInt32]? {
        guard let objectIDs else { return nil }
        var rows = objectIDs.compactMap { table.row(forObjectID: $0).map(UInt32.init) }
        rows.sort()
        var unique: [UInt32] = []
        unique.reserveCapacity(rows.count)
        for row in rows where unique.last != row { unique.append(row) }
        return unique
    }

    /// The matching rows, ascending by row number: object-ID candidates, spatial candidates
    /// (quadtree), the where clause over what is left, then the exact spatial test. An areal
    /// query geometry with `intersects` or `within` takes the region filter instead (quadtree
    /// nodes classified by GEOS, only boundary features tested), then the where clause.
    static func matchingRows(_ query: QueryParameters, clause: CompiledWhereClause, table: FeatureTable) throws(
        FeatureTableError
    ) -> [UInt32] {
        try matchingRows(query, clause: clause, spatial: SpatialFilter(query, table: table), table: table)
    }

    /// ``matchingRows(_:clause:table:)`` with the spatial filter resolved already.
    static func matchingRows(
        _ query: QueryParameters, clause: CompiledWhereClause, spatial: SpatialFilter?, table: FeatureTable
    ) throws(FeatureTableError) -> [UInt32] {
        let listed = candidates(query.objectIDs, table: table)
        guard let spatial else {
            // Listed object IDs never find a deleted row; a scan leaves them out afterwards.
            let rows = clause.matchingRows(in: table.columns, rowCount: table.count, candidates: listed)
            return listed == nil ? table.tombstones.removingDeleted(from: rows) : rows
        }
        if var rows = try spatial.regionRows(in: table) {
            // Areal intersects/within: the region filter's answer is exact already.
            if let listed { rows = intersectSorted(rows, listed) }
            if clause.selectsEverything { return rows }
            return clause.matchingRows(in: table.columns, rowCount: table.count, candidates: rows)
        }
        var rows = spatial.candidates(in: table)
        if let listed { rows = intersectSorted(rows, listed) }
        if !clause.selectsEverything {
            rows = clause.matchingRows(in: table.columns, rowCount: table.count, candidates: rows)
        }
        return try spatial.filter(rows, table: table)
    }

    /// `rows` (ascending row numbers) put in ascending object-ID order.
    static func inObjectIDOrder(_ rows: [UInt32], table: FeatureTable) -> [Int] {
        let ids = table.objectIDs
        var result = rows.map(Int.init)
        var sorted = true
        var previous = Int64.min
        for row in result {
            let id = ids[row]
            if id < previous {
                sorted = false
                break
            }
            previous = id
        }
        if !sorted { result.sort { ids[$0] < ids[$1] } }
        return result
    }

    /// `rows` (in object-ID order) ordered by `sort`; ties keep their order.
    static func ordered(_ rows: [Int], by sort: [(index: Int, ascending: Bool)], table: FeatureTable, collation: Collation)
        -> [Int]
    {
        guard !sort.isEmpty, rows.count > 1 else { return rows }
        let keys = sort.map { SortKey(column: table.columns[$0.index], rows: rows, ascending: $0.ascending, collation: collation) }
        var positions = Array(0..<rows.count)
        positions.sort { a, b in
            for key in keys {
                let order = key.compare(a, b)
                if order != 0 { return order < 0 }
            }
            return a < b
        }
        return positions.map { rows[$0] }
    }

    /// `rows` cut to `offset ..< offset + limit`, and whether rows were left off at the end.
    static func page(_ rows: [Int], _ query: QueryParameters) -> (rows: [Int], exceeded: Bool) {
        let offset = min(query.resultOffset ?? 0, rows.count)
        let end = query.maxFeatures.map { offset + min($0, rows.count - offset) } ?? rows.count
        return (Array(rows[offset..<end]), end < rows.count)
    }
}

/// One sort field's values at the selected rows, reduced to numbers that order like the values
/// (strings become ranks under the collation), with NULL smallest.
struct SortKey {
    private enum Values {
        case integers([Int64])
        case doubles([Double])
    }

    private let values: Values
    /// `nulls[i]` is true when position `i` is NULL; `nil` when none is.
    private let nulls: [Bool]?
    private let ascending: Bool

    /// The key of `column` at `rows` (positions `0..<rows.count`).
    init(column: Column, rows: [Int], ascending: Bool, collation: Collation) {
        self.ascending = ascending
        if let validity = column.validity {
            nulls = rows.map { !validity.isValid($0) }
        } else {
            nulls = nil
        }
        switch column {
        case .integer(let column), .date(let column):
            values = .integers(rows.map { column.values[$0] })
        case .double(let column):
            values = .doubles(rows.map { column.values[$0] })
        case .string(let column):
            values = .integers(Self.stringRanks(column, rows: rows, collation: collation))
        }
    }

    /// Negative, zero or positive as position `a` sorts before, with or after position `b`.
    @inline(__always)
    func compare(_ a: Int, _ b: Int) -> Int {
        var order: Int
        if let nulls, nulls[a] || nulls[b] {
            order = nulls[a] == nulls[b] ? 0 : (nulls[a] ? -1 : 1)
        } else {
            switch values {
            case .integers(let values):
                order = values[a] < values[b] ? -1 : (values[a] > values[b] ? 1 : 0)
            case .doubles(let values):
                let x = values[a], y = values[b]
                if x.isNaN || y.isNaN {
                    order = x.isNaN == y.isNaN ? 0 : (x.isNaN ? -1 : 1)
                } else {
                    order = x < y ? -1 : (x > y ? 1 : 0)
                }
            }
        }
        return ascending ? order : -order
    }

    /// Each position's rank among the distinct strings at `rows` under `collation`: binary
    /// orders the UTF-8 bytes, nocase the bytes of the upper- then lower-cased strings; equal
    /// keys share a rank. A dictionary column ranks its dictionary once.
    private static func stringRanks(_ column: StringColumn, rows: [Int], collation: Collation) -> [Int64] {
        func key(_ storage: StringStorage, _ i: Int) -> [UInt8] {
            switch collation {
            case .binary: return Array(storage.bytes[storage.offsets[i]..<storage.offsets[i + 1]])
            case .nocase: return Array(storage[i].uppercased().lowercased().utf8)
            }
        }
        switch column.encoding {
        case .dictionary(let codes, let dictionary):
            let ranks = ranks(of: (0..<dictionary.count).map { key(dictionary, $0) })
            // A NULL's code is 0, which a column of NULLs alone has no entry for (its rank is
            // never read: NULLs order by themselves).
            return rows.map { row in
                let code = Int(codes[row])
                return code < ranks.count ? ranks[code] : 0
            }
        case .plain(let strings):
            return ranks(of: rows.map { key(strings, $0) })
        }
    }

    /// The dense rank of each key in byte order (equal keys, equal ranks).
    static func ranks(of keys: [[UInt8]]) -> [Int64] {
        let order = keys.indices.sorted { keys[$0].lexicographicallyPrecedes(keys[$1]) }
        var ranks = [Int64](repeating: 0, count: keys.count)
        var rank: Int64 = 0
        for (i, index) in order.enumerated() {
            if i > 0, keys[index] != keys[order[i - 1]] { rank += 1 }
            ranks[index] = rank
        }
        return ranks
    }
}
