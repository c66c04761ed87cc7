import SieveColumns
import SieveGeometry
import SieveProjection
import SieveSQL

/// A query checked and compiled once against a table, ready to run many times: the compiled
/// where clause (with any definition expression ANDed in), the spatial filter with its query
/// geometry already in the table's spatial reference, the resolved sort and out fields, and the
/// output projection.
///
/// ``FeatureTable/queryFeatures(_:)`` and its siblings prepare a query per call; a caller that
/// runs the same query repeatedly — a layer re-counting after every edit, a server answering
/// the same request, a benchmark — prepares it once:
///
/// ```swift
/// let prepared = try PreparedQuery(QueryParameters(whereClause: "pop_est > 1e7"), table: table)
///     .and(try CompiledWhereClause("continent = 'Asia'", schema: table.schema))
/// let count = try prepared.count(in: editable.snapshot)   // any snapshot of the same table
/// ```
///
/// A prepared query runs on any table with the same schema and spatial reference as the one it
/// was prepared for — in particular on every snapshot of an `EditableFeatureTable` — and
/// answers from the rows that table holds at the time (nothing about the rows is cached).
public struct PreparedQuery: Sendable {
    /// The parameters as given.
    public let parameters: QueryParameters
    /// The where clause every selected row satisfies: the query's, ANDed with any clause added
    /// by ``and(_:)``.
    public let whereClause: CompiledWhereClause
    /// The schema it was prepared for.
    let schema: Schema
    /// The spatial reference of the table it was prepared for.
    let spatialReference: SpatialReference
    /// The sort fields: schema index and direction.
    let sort: [SortColumn]
    /// The schema indices of the returned fields.
    let fieldIndices: [Int]
    /// The spatial filter, or `nil` for none.
    let spatial: SpatialFilter?
    /// The CQL2 filter, or `nil` for none.
    let filter: FeatureFilter?
    /// The projection of results into the output reference, or `nil` for the table's own.
    let projector: Projector?

    /// One resolved sort field.
    struct SortColumn: Sendable {
        let index: Int
        let ascending: Bool
    }

    /// Checks and compiles `query` against `table`.
    ///
    /// - Parameters:
    ///   - query: The query.
    ///   - table: The table whose schema and spatial reference the query is prepared for.
    ///   - definitionExpression: A clause ANDed with the query's where clause (a layer's
    ///     definition expression), compiled against the same schema; `nil` for none.
    /// - Throws: `WhereClauseError` (SieveSQL) for a where clause that does not parse or bind;
    ///   `CQL2Error` (SieveCQL) for a CQL2 filter that does not bind;
    ///   ``FeatureTableError`` of kind ``FeatureTableError/Kind/invalidQuery`` for an unknown
    ///   field in the out fields or sort fields, a negative offset or limit, an invalid relate
    ///   pattern, or a query geometry or output reference that cannot be projected.
    public init(_ query: QueryParameters, table: FeatureTable, definitionExpression: CompiledWhereClause? = nil) throws {
        let (clause, sort, fieldIndices) = try QueryPlan.prepare(query, table: table)
        parameters = query
        whereClause = definitionExpression.map { clause.and($0) } ?? clause
        schema = table.schema
        spatialReference = table.spatialReference
        self.sort = sort.map { SortColumn(index: $0.index, ascending: $0.ascending) }
        self.fieldIndices = fieldIndices
        spatial = try SpatialFilter(query, table: table)
        filter = try query.filter.map {
            try FeatureFilter($0, table: table, spatialReference: query.filterSpatialReference ?? .wgs84)
        }
        projector = try OutputProjection.projector(query, table: table)
    }

    /// The same query with `clause` ANDed to its where clause (`clause` must be compiled against
    /// the same schema). Selecting through the result never selects a row the original did not.
    public func and(_ clause: CompiledWhereClause) -> PreparedQuery {
        PreparedQuery(self, whereClause: clause.selectsEverything ? whereClause : whereClause.and(clause))
    }

    private init(_ other: PreparedQuery, whereClause: CompiledWhereClause) {
        parameters = other.parameters
        self.whereClause = whereClause
        schema = other.schema
        spatialReference = other.spatialReference
        sort = other.sort
        fieldIndices = other.fieldIndices
        spatial = other.spatial
        filter = other.filter
        projector = other.projector
    }

    /// Checks that `table` is one this query was prepared for.
    private func check(_ table: FeatureTable) throws(FeatureTableError) {
        guard table.spatialReference == spatialReference, table.schema == schema else {
            throw FeatureTableError(
                .invalidQuery, "the query was prepared for another table (its schema or spatial reference differs)")
        }
    }

    /// The selected rows of `table`, ascending by row number (deleted rows never among them).
    /// - Throws: ``FeatureTableError`` when `table` is not one the query was prepared for, or
    ///   when GEOS fails on a feature's geometry.
    public func matchingRows(in table: FeatureTable) throws -> [UInt32] {
        try check(table)
        let rows = try QueryPlan.matchingRows(parameters, clause: whereClause, spatial: spatial, table: table)
        guard let filter else { return rows }
        return try filter.matchingRows(in: table, candidates: rows)
    }

    /// The selected features of `table`, ordered and paged: see ``FeatureTable/queryFeatures(_:)``.
    /// - Throws: As ``matchingRows(in:)``, and when a returned geometry cannot be projected.
    public func features(in table: FeatureTable) throws -> FeatureQueryResult {
        try features(in: table, rows: matchingRows(in: table))
    }

    /// The features of `rows` (ascending, live rows of `table` this query selects — a caller
    /// that narrowed ``matchingRows(in:)`` further) ordered and paged as the query says.
    public func features(in table: FeatureTable, rows matching: [UInt32]) throws -> FeatureQueryResult {
        try check(table)
        let ordered = QueryPlan.ordered(
            QueryPlan.inObjectIDOrder(matching, table: table), by: sort.map { ($0.index, $0.ascending) }, table: table,
            collation: whereClause.collation)
        let (rows, exceeded) = QueryPlan.page(ordered, parameters)
        let returnsGeometry = parameters.returnGeometry && schema.geometryType != nil
        var projected: [Geometry?]?
        if let projector, returnsGeometry {
            projected = try OutputProjection.geometries(rows: rows, table: table, projector: projector)
        }
        return FeatureQueryResult(
            table: table, rows: rows, fieldIndices: fieldIndices,
            returnsGeometry: returnsGeometry, exceededTransferLimit: exceeded,
            spatialReference: projector?.target ?? table.spatialReference, projectedGeometries: projected)
    }

    /// How many rows of `table` the query selects; ordering and paging do not apply.
    /// - Throws: As ``matchingRows(in:)``.
    public func count(in table: FeatureTable) throws -> Int {
        try check(table)
        if spatial != nil || filter != nil { return try matchingRows(in: table).count }
        let clause = whereClause
        let listed = QueryPlan.candidates(parameters.objectIDs, table: table)
        let total = clause.count(in: table.columns, rowCount: table.count, candidates: listed)
        // Listed object IDs never find a deleted row; a scan counts them, and they are taken off.
        guard listed == nil, table.tombstones.deletedCount > 0 else { return total }
        return total
            - clause.count(in: table.columns, rowCount: table.count, candidates: table.tombstones.deletedRows(below: table.count))
    }

    /// The object IDs of the rows of `table` the query selects, ascending.
    /// - Throws: As ``matchingRows(in:)``.
    public func objectIDs(in table: FeatureTable) throws -> [Int64] {
        let ids = table.objectIDs
        var result = try matchingRows(in: table).map { ids[Int($0)] }
        result.sort()
        return result
    }

    /// How many rows of `table` the query selects and the union of their envelopes (in the
    /// output reference): see ``FeatureTable/queryExtent(_:)``.
    /// - Throws: As ``matchingRows(in:)``, and when a geometry cannot be projected.
    public func extent(in table: FeatureTable) throws -> (count: Int, extent: Envelope) {
        let rows = try matchingRows(in: table)
        if let projector {
            return (rows.count, try OutputProjection.extent(rows: rows, table: table, projector: projector))
        }
        return (rows.count, table.envelope(ofRows: rows))
    }
}

extension FeatureTable {
    /// The union of the envelopes of `rows` (rows without a geometry add nothing); empty when
    /// none has one.
    public func envelope(ofRows rows: [UInt32]) -> Envelope {
        var x0 = Double.infinity, y0 = Double.infinity
        var x1 = -Double.infinity, y1 = -Double.infinity
        // The envelope arrays once (they are the geometry column's, computed properties).
        let (xmins, ymins, xmaxs, ymaxs) = (xmin, ymin, xmax, ymax)
        for row in rows {
            let r = Int(row)
            let xmin = xmins[r]
            guard !xmin.isNaN else { continue }
            x0 = Swift.min(x0, xmin)
            y0 = Swift.min(y0, ymins[r])
            x1 = Swift.max(x1, xmaxs[r])
            y1 = Swift.max(y1, ymaxs[r])
        }
        guard x0 <= x1, y0 <= y1 else { return .empty }
        return Envelope(xmin: x0, ymin: y0, xmax: x1, ymax: y1)
    }
}
