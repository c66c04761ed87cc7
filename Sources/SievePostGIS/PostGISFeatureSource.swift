import Foundation
import Logging
import PostgresNIO
import SieveColumns
import SieveFeatures
import SieveGeometry
import SieveSQL

/// What went wrong talking to PostgreSQL: the statement's purpose and the server's own message.
public struct PostGISError: Error, Sendable, CustomStringConvertible {
    /// What was being done and what the server said.
    public let message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

/// A PostGIS table as a feature source: queries run in the database — the where clause, the
/// CQL2 filter and the spatial relationship pushed down as SQL with bound parameters
/// (``PostGISQueryBuilder``), ordering and paging done by the database, one round trip per
/// call — and answer in the shapes of the in-memory ``FeatureTable``.
///
/// ```swift
/// let source = try await PostGISFeatureSource.open(
///     PostGISConnectionOptions(url: "postgresql://user@127.0.0.1:5432/gis?table=countries"))
/// let count = try await source.queryFeatureCount(QueryParameters(whereClause: "pop_est > 1e7"))
/// try await source.close()
/// ```
///
/// The connection runs every statement with `TimeZone` `UTC`, so that dates are read as
/// GeoSieve reads them. Calls are serialized on the one connection.
public final class PostGISFeatureSource: Sendable {
    /// The table and its GeoSieve schema.
    public let table: PostGISTable
    private let connection: PostgresConnection
    private let logger: Logger

    private init(table: PostGISTable, connection: PostgresConnection, logger: Logger) {
        self.table = table
        self.connection = connection
        self.logger = logger
    }

    /// The GeoSieve schema of the table.
    public var schema: Schema { table.schema }

    /// Connects and reads the table's description from the catalogue: its columns
    /// (`pg_attribute`), its integer primary key (or the column `options.idColumn` names) and
    /// its geometry column with SRID and type (`geometry_columns`).
    /// - Throws: ``PostGISError`` when the server cannot be reached, the table does not exist,
    ///   has no integer key, or has several geometry columns and none is named.
    public static func open(_ options: PostGISConnectionOptions, logger: Logger = Logger(label: "geosieve.postgis")) async throws
        -> PostGISFeatureSource
    {
        let connection = try await connect(options, logger: logger)
        do {
            let table = try await PostGISCatalog.describe(options, connection: connection, logger: logger)
            return PostGISFeatureSource(table: table, connection: connection, logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// A connection with the session settings the sources need.
    static func connect(_ options: PostGISConnectionOptions, logger: Logger) async throws -> PostgresConnection {
        let configuration = PostgresConnection.Configuration(
            host: options.host, port: options.port, username: options.user, password: options.password,
            database: options.database, tls: .disable)
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        } catch {
            throw PostGISError("cannot connect to PostgreSQL at \(options.host):\(options.port): \(String(reflecting: error))")
        }
        do {
            try await connection.query("SET TIME ZONE 'UTC'", logger: logger)
        } catch {
            try? await connection.close()
            throw PostGISError("cannot set the session's time zone: \(String(reflecting: error))")
        }
        return connection
    }

    /// Closes the connection.
    public func close() async throws {
        try await connection.close()
    }

    // MARK: Queries

    /// The features `query` selects, ordered and paged by the database, in the shape
    /// ``FeatureTable/queryFeatures(_:)`` gives.
    public func queryFeatures(_ query: QueryParameters) async throws -> FeatureQueryResult {
        let statement = try PostGISQueryBuilder(table: table).featuresStatement(query)
        var page = try await Self.rows(statement, table: table, connection: connection, logger: logger)
        var exceeded = false
        if let limit = query.maxFeatures, page.count > limit {
            page.removeLast(page.count - limit)
            exceeded = true
        }
        let result = try Self.assemble(page, table: table)
        // The page in database order; out fields, geometry and the output reference as in memory.
        var local = QueryParameters(
            outFields: query.outFields, returnGeometry: query.returnGeometry, orderBy: query.orderBy,
            outSpatialReference: query.outSpatialReference)
        local.collation = .binary
        return try PreparedQuery(local, table: result).features(in: result).marking(exceededTransferLimit: exceeded)
    }

    /// How many features `query` selects.
    public func queryFeatureCount(_ query: QueryParameters) async throws -> Int {
        let statement = try PostGISQueryBuilder(table: table).countStatement(query)
        for row in try await run(statement) {
            return Int(try row.decode(Int64.self))
        }
        return 0
    }

    /// The object IDs `query` selects, ascending.
    public func queryObjectIDs(_ query: QueryParameters) async throws -> [Int64] {
        let statement = try PostGISQueryBuilder(table: table).objectIDsStatement(query)
        var ids: [Int64] = []
        for row in try await run(statement) { ids.append(try row.decode(Int64.self)) }
        return ids
    }

    /// How many features `query` selects and the union of their envelopes, in the output
    /// reference (``Envelope/empty`` when none has a geometry). In the table's reference the
    /// database computes it; in another, the geometries are fetched and projected one by one,
    /// as the in-memory table does.
    public func queryExtent(_ query: QueryParameters) async throws -> (count: Int, extent: Envelope) {
        if let target = query.outSpatialReference, target != table.spatialReference {
            var all = query
            all.maxFeatures = nil
            all.resultOffset = nil
            let page = try Self.assemble(
                try await Self.rows(try PostGISQueryBuilder(table: table).featuresStatement(all), table: table, connection: connection, logger: logger),
                table: table)
            return try PreparedQuery(QueryParameters(outSpatialReference: target), table: page).extent(in: page)
        }
        let statement = try PostGISQueryBuilder(table: table).extentStatement(query)
        for row in try await run(statement) {
            let (count, x0, y0, x1, y1) = try row.decode((Int64, Double?, Double?, Double?, Double?).self)
            guard let x0, let y0, let x1, let y1 else { return (Int(count), .empty) }
            return (Int(count), Envelope(xmin: x0, ymin: y0, xmax: x1, ymax: y1))
        }
        return (0, .empty)
    }

    /// Every feature of the table, as an in-memory ``FeatureTable`` (the import).
    public func readTable() async throws -> FeatureTable {
        let builder = PostGISQueryBuilder(table: table)
        let statement = PostGISStatement(
            sql: "SELECT \(try builder.selectList()) FROM \(try table.qualifiedName()) ORDER BY \(try builder.orderBy(QueryParameters()))",
            parameters: [])
        return try Self.assemble(try await Self.rows(statement, table: table, connection: connection, logger: logger), table: table)
    }

    // MARK: Running statements

    private func run(_ statement: PostGISStatement) async throws -> [PostgresRow] {
        try await Self.run(statement, connection: connection, logger: logger)
    }

    /// Runs `statement` and returns its rows; the server's errors (also those sent while rows
    /// arrive) become ``PostGISError``s with the server's message.
    @discardableResult
    static func run(_ statement: PostGISStatement, connection: PostgresConnection, logger: Logger) async throws -> [PostgresRow] {
        var bindings = PostgresBindings(capacity: statement.parameters.count)
        for value in statement.parameters {
            switch value {
            case .integer(let x): bindings.append(x)
            case .double(let x): bindings.append(x)
            case .text(let s): bindings.append(s)
            case .integers(let xs): bindings.append(xs)
            case .doubles(let xs): bindings.append(xs)
            case .texts(let xs): bindings.append(xs)
            case .bytes(let bytes): try bindings.append(Data(bytes))
            }
        }
        do {
            return try await connection.query(PostgresQuery(unsafeSQL: statement.sql, binds: bindings), logger: logger).collect()
        } catch let error as PSQLError {
            throw PostGISError("PostgreSQL refused the query: \(error.serverInfo?[.message] ?? String(reflecting: error))")
        }
    }

    /// One decoded row: the field values in schema order and the geometry.
    struct Row {
        var values: [ScalarValue]
        var geometry: Geometry?
    }

    /// The rows of a feature `SELECT` (``PostGISQueryBuilder/selectList()``), decoded.
    static func rows(_ statement: PostGISStatement, table: PostGISTable, connection: PostgresConnection, logger: Logger) async throws
        -> [Row]
    {
        var rows: [Row] = []
        let kinds = table.columns.map(\.kind)
        for row in try await run(statement, connection: connection, logger: logger) {
            let cells = row.makeRandomAccess()
            var values: [ScalarValue] = []
            values.reserveCapacity(kinds.count)
            for (i, kind) in kinds.enumerated() {
                switch kind {
                case .integer, .boolean: values.append(try cells[i].decode(Int64?.self).map(ScalarValue.integer) ?? .null)
                case .double, .numeric: values.append(try cells[i].decode(Double?.self).map(ScalarValue.double) ?? .null)
                case .instant: values.append(try cells[i].decode(Int64?.self).map(ScalarValue.date) ?? .null)
                case .text: values.append(try cells[i].decode(String?.self).map(ScalarValue.string) ?? .null)
                }
            }
            var geometry: Geometry?
            if table.geometryColumn != nil, let bytes = try cells[kinds.count].decode(Data?.self) {
                do {
                    geometry = try Geometry(wkb: bytes)
                } catch {
                    throw PostGISError("a geometry of \(table.name) is not WKB GeoSieve reads: \(error)")
                }
            }
            rows.append(Row(values: values, geometry: geometry))
        }
        return rows
    }

    /// The rows as a feature table of the source's schema.
    static func assemble(_ rows: [Row], table: PostGISTable) throws -> FeatureTable {
        var columns: [Column] = []
        for (i, field) in table.schema.fields.enumerated() {
            var validity = ValidityBitmap(count: rows.count, allValid: true)
            switch field.columnType {
            case .integer, .date:
                var values = [Int64](repeating: 0, count: rows.count)
                for (r, row) in rows.enumerated() {
                    switch row.values[i] {
                    case .integer(let x), .date(let x): values[r] = x
                    default: validity.set(r, valid: false)
                    }
                }
                let column = Int64Column(values: values, validity: validity)
                columns.append(field.columnType == .date ? .date(column) : .integer(column))
            case .double:
                var values = [Double](repeating: 0, count: rows.count)
                for (r, row) in rows.enumerated() {
                    if case .double(let x) = row.values[i] { values[r] = x } else { validity.set(r, valid: false) }
                }
                columns.append(.double(DoubleColumn(values: values, validity: validity)))
            case .string:
                columns.append(.string(StringColumn(rows.map { if case .string(let s) = $0.values[i] { s } else { nil } })))
            }
        }
        return try FeatureTable(schema: table.schema, columns: columns, geometries: table.geometryColumn == nil ? [] : rows.map(\.geometry))
    }
}
