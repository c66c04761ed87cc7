import SieveCQL
import SieveFeatures
import SieveGeometry
import SieveSQL

/// A query written as PostgreSQL SQL: the text with `$n` placeholders and their values.
public struct PostGISStatement: Sendable, Hashable {
    /// The SQL.
    public var sql: String
    /// The values of `$1`, `$2`, ….
    public var parameters: [PostgreSQLValue]
}

/// Writes ``/SieveFeatures/QueryParameters`` against a ``PostGISTable`` as PostgreSQL/PostGIS SQL
/// with the answers the in-memory table gives: the where clause and the CQL2 filter through
/// ``/SieveSQL/CompiledWhereClause/postgreSQL(columns:parameters:extraColumn:)``, the spatial
/// filter and the filter's spatial functions as PostGIS predicates (`&&` on the index, then
/// `ST_Intersects`, `ST_Within`, …, `ST_Relate` for a pattern) against the query geometry projected
/// into the table's reference by GeoSieve's own projector (with the same densification as in
/// memory), object IDs as `= ANY`, order by with NULLs first ascending and strings in byte order,
/// ties by object ID, paging by `LIMIT`/`OFFSET`.
///
/// Every value is a bound parameter and every name a quoted identifier: nothing the caller
/// gives is written into the SQL text.
public struct PostGISQueryBuilder: Sendable {
    /// The table.
    public let table: PostGISTable

    /// A builder for `table`.
    public init(table: PostGISTable) { self.table = table }

    /// The `WHERE` condition of `query` (`TRUE` when it selects everything), with its
    /// parameters added to `parameters`.
    /// - Throws: `WhereClauseError`, `CQL2Error`, ``/SieveFeatures/FeatureTableError`` as the
    ///   in-memory table throws for the same query; `PostgreSQLRenderingError` for what cannot be
    ///   rendered.
    public func condition(_ query: QueryParameters, parameters: inout PostgreSQLParameters) throws -> String {
        let schema = table.schema
        var columns: [String] = []
        for column in table.columns { columns.append(try table.conditionExpression(column)) }
        var terms: [String] = []
        let clause = try CompiledWhereClause(query.whereClause, schema: schema, collation: query.collation ?? .binary)
        if !clause.selectsEverything { terms.append(try clause.postgreSQL(columns: columns, parameters: &parameters)) }
        if let objectIDs = query.objectIDs {
            let id = try postgreSQLIdentifier(table.columns[schema.objectIdFieldIndex].name)
            terms.append("(\(id) = ANY(\(parameters.add(.integers(objectIDs)))::int8[]))")
        }
        if let geometry = query.geometry {
            guard query.distance == nil else {
                throw FeatureTableError(
                    .invalidQuery, "a query distance is not pushed down to PostGIS: read the table into memory (geosieve serve does)")
            }
            try SpatialFilter.validate(query.spatialRelationship)
            let source = query.inSpatialReference ?? table.spatialReference
            terms.append(try spatialTest(query.spatialRelationship, geometry, from: source, parameters: &parameters))
        }
        if let filter = query.filter {
            let lowered = try filter.lowered(
                geometryPropertyNames: FeatureFilter.geometryPropertyNames(of: schema),
                dateOnlyPropertyNames: schema.dateOnlyFieldNames)
            let compiled = try lowered.compile(schema: schema)
            let tests = lowered.geometryTests
            let fieldCount = schema.fields.count
            let filterReference = query.filterSpatialReference ?? .wgs84
            if filterReference.isGeographic { try lowered.validateCRS84Coordinates() }
            let rendered = try compiled.postgreSQL(columns: columns, parameters: &parameters) { index, parameters throws(PostgreSQLRenderingError) in
                do {
                    return try self.geometryTest(tests[index - fieldCount], from: filterReference, parameters: &parameters)
                } catch let error as PostgreSQLRenderingError {
                    throw error
                } catch {
                    throw PostgreSQLRenderingError("\(error)")
                }
            }
            terms.append(rendered)
        }
        return terms.isEmpty ? "TRUE" : terms.joined(separator: " AND ")
    }

    /// A CQL2 geometry test as a 0/1 (or NULL) integer.
    func geometryTest(_ test: CQL2GeometryTest, from source: SpatialReference, parameters: inout PostgreSQLParameters) throws -> String {
        switch test.kind {
        case .present:
            return "((\(try table.geometryIdentifier()) IS NOT NULL)::int)"
        case .relationship(let relationship, let geometry):
            return "((\(try spatialTest(relationship, geometry, from: source, parameters: &parameters)))::int)"
        case .literals(let relationship, let first, let second):
            let a = "ST_GeomFromWKB(\(parameters.add(.bytes(first.wkb())))::bytea, 0)"
            let b = "ST_GeomFromWKB(\(parameters.add(.bytes(second.wkb())))::bytea, 0)"
            return "((\(try Self.predicate(relationship, a, b, parameters: &parameters)))::int)"
        }
    }

    /// "the feature's geometry REL the query geometry", the query geometry given in `source`.
    func spatialTest(
        _ relationship: SpatialRelationship, _ geometry: Geometry, from source: SpatialReference,
        parameters: inout PostgreSQLParameters
    ) throws -> String {
        let projected = try SpatialFilter.queryGeometry(geometry, from: source, to: table.spatialReference)
        let feature = try table.geometryIdentifier()
        let query = "ST_GeomFromWKB(\(parameters.add(.bytes(projected.wkb())))::bytea, \(table.srid))"
        let test = try Self.predicate(relationship, feature, query, parameters: &parameters)
        // The index operator first, where the relationship needs the geometries to meet.
        return relationship.admitsDisjoint ? "(\(test))" : "(\(feature) && \(query) AND \(test))"
    }

    /// `a REL b` as a PostGIS predicate.
    static func predicate(_ relationship: SpatialRelationship, _ a: String, _ b: String, parameters: inout PostgreSQLParameters)
        throws(PostgreSQLRenderingError) -> String
    {
        switch relationship {
        case .intersects: return "ST_Intersects(\(a), \(b))"
        case .contains: return "ST_Contains(\(a), \(b))"
        case .within: return "ST_Within(\(a), \(b))"
        case .touches: return "ST_Touches(\(a), \(b))"
        case .crosses: return "ST_Crosses(\(a), \(b))"
        case .overlaps: return "ST_Overlaps(\(a), \(b))"
        case .equals: return "ST_Equals(\(a), \(b))"
        case .disjoint: return "ST_Disjoint(\(a), \(b))"
        case .envelopeIntersects: return "(\(a) && \(b))"
        case .relate(let pattern): return "ST_Relate(\(a), \(b), \(parameters.add(.text(pattern)))::text)"
        }
    }

    /// `ORDER BY` for `query`: its fields (strings in byte order, NULLs first ascending and last
    /// descending, as in memory), then the object ID.
    public func orderBy(_ query: QueryParameters) throws -> String {
        let schema = table.schema
        var keys: [String] = []
        for field in query.orderBy {
            // The in-memory table's check and message.
            let index = try QueryPlan.resolve(field.field, in: schema, parameter: "orderByFields").index
            var key = try table.conditionExpression(table.columns[index])
            if schema.fields[index].columnType == .string { key = "(\(key)) COLLATE \"C\"" }
            keys.append(key + (field.ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST"))
        }
        keys.append(try postgreSQLIdentifier(table.columns[schema.objectIdFieldIndex].name) + " ASC")
        return keys.joined(separator: ", ")
    }

    /// The columns a `SELECT` of features reads: every field, then the geometry as WKB.
    public func selectList() throws -> String {
        var list: [String] = []
        for column in table.columns { list.append(try table.selectExpression(column)) }
        if let geometryColumn = table.geometryColumn { list.append("ST_AsBinary(\(try postgreSQLIdentifier(geometryColumn)))") }
        return list.joined(separator: ", ")
    }

    /// The statement selecting `query`'s features, ordered and paged, one row past the page to
    /// tell whether rows were left off.
    public func featuresStatement(_ query: QueryParameters) throws -> PostGISStatement {
        try featuresStatement(query, reading: table)
    }

    /// ``featuresStatement(_:)`` reading only the columns of `columns`, a table of some of this
    /// table's columns (its own description, as ``PostGISFeatureSource`` makes it for the
    /// fields a page writes).
    func featuresStatement(_ query: QueryParameters, reading columns: PostGISTable) throws -> PostGISStatement {
        var parameters = PostgreSQLParameters()
        let condition = try condition(query, parameters: &parameters)
        let select = try PostGISQueryBuilder(table: columns).selectList()
        var sql = "SELECT \(select) FROM \(try table.qualifiedName()) WHERE \(condition) ORDER BY \(try orderBy(query))"
        if let limit = query.maxFeatures { sql += " LIMIT \(parameters.add(.integer(Int64(limit) + 1)))::int8" }
        if let offset = query.resultOffset, offset > 0 { sql += " OFFSET \(parameters.add(.integer(Int64(offset))))::int8" }
        return PostGISStatement(sql: sql, parameters: parameters.values)
    }

    /// The statement counting `query`'s features.
    public func countStatement(_ query: QueryParameters) throws -> PostGISStatement {
        var parameters = PostgreSQLParameters()
        let condition = try condition(query, parameters: &parameters)
        return PostGISStatement(sql: "SELECT count(*)::int8 FROM \(try table.qualifiedName()) WHERE \(condition)", parameters: parameters.values)
    }

    /// The statement selecting `query`'s object IDs, ascending.
    public func objectIDsStatement(_ query: QueryParameters) throws -> PostGISStatement {
        var parameters = PostgreSQLParameters()
        let condition = try condition(query, parameters: &parameters)
        let id = try postgreSQLIdentifier(table.columns[table.schema.objectIdFieldIndex].name)
        return PostGISStatement(
            sql: "SELECT (\(id))::int8 FROM \(try table.qualifiedName()) WHERE \(condition) ORDER BY \(id) ASC", parameters: parameters.values)
    }

    /// The statement giving `query`'s count and the bounds of its geometries (doubles, from
    /// each geometry's own bounds: `ST_Extent`'s box is single precision).
    public func extentStatement(_ query: QueryParameters) throws -> PostGISStatement {
        var parameters = PostgreSQLParameters()
        let condition = try condition(query, parameters: &parameters)
        let g = try table.geometryIdentifier()
        return PostGISStatement(
            sql: "SELECT count(*)::int8, min(ST_XMin(\(g))), min(ST_YMin(\(g))), max(ST_XMax(\(g))), max(ST_YMax(\(g))) "
                + "FROM \(try table.qualifiedName()) WHERE \(condition)",
            parameters: parameters.values)
    }
}
