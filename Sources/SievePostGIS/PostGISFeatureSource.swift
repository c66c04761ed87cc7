import Foundation
import Logging
import NIOSSL
import PostgresNIO
import SieveColumns
import SieveFeatures
import SieveGeometry
import SieveSQL
import SieveBase

/// A PostGIS table as a feature source: queries run in the database — the where clause, the
/// CQL2 filter and the spatial relationship pushed down as SQL with bound parameters
/// (``PostGISQueryBuilder``), ordering and paging done by the database, one round trip per
/// call — and answer in the shapes of the in-memory ``/SieveFeatures/FeatureTable``.
///
/// ```swift
/// let source = try await PostGISFeatureSource.open(
///     PostGISConnectionOptions(url: "postgresql://user@127.0.0.1:5432/gis?table=countries"))
/// let count = try await source.queryFeatureCount(QueryParameters(whereClause: "pop_est > 1e7"))
/// await source.close()
/// ```
///
/// Queries run on a pool of connections (postgres-nio's `PostgresClient`), at most
/// ``PostGISPoolOptions/maximumConnections`` at once; each connection's session has the time
/// zone `UTC`, so that dates are read as GeoSieve reads them, and, with
/// ``PostGISPoolOptions/statementTimeout``, a `statement_timeout`. A query whose task is
/// cancelled is cancelled in the database too (`pg_cancel_backend`).
public final class PostGISFeatureSource: Sendable {
    /// The table and its GeoSieve schema.
    public let table: PostGISTable
    /// The pool's options.
    public let pool: PostGISPoolOptions
    private let client: PostgresClient
    private let running: Task<Void, Never>
    /// Each pooled connection's server process, by connection ID, for cancelling its query.
    private let processes = Locked([PostgresConnection.ID: Int32]())
    let logger: Logger

    private init(table: PostGISTable, client: PostgresClient, pool: PostGISPoolOptions, logger: Logger) {
        self.table = table
        self.client = client
        self.pool = pool
        self.logger = logger
        // Started at once, on this thread up to its first suspension: the pool runs before any query
        // asks it for a connection.
        running = Task.immediate { await client.run() }
    }

    /// The GeoSieve schema of the table.
    public var schema: Schema { table.schema }

    /// Connects and reads the table's description from the catalogue: its columns
    /// (`pg_attribute`), its integer primary key (or the column `options.idColumn` names) and
    /// its geometry column with SRID and type (its type modifier). The first connection is made
    /// here, so that an unreachable server or a refused login fails now; the pool then makes
    /// connections as queries need them.
    /// - Throws: ``PostGISError`` when the server cannot be reached, the table does not exist,
    ///   has no integer key, or has several geometry columns and none is named.
    public static func open(
        _ options: PostGISConnectionOptions, pool: PostGISPoolOptions = PostGISPoolOptions(),
        logger: Logger = Logger(label: "geosieve.postgis")
    ) async throws -> PostGISFeatureSource {
        let connection = try await connect(options, logger: logger)
        let table: PostGISTable
        do {
            table = try await PostGISCatalog.describe(options, connection: connection, logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try? await connection.close()
        var configuration = PostgresClient.Configuration(
            host: options.host, port: options.port, username: options.user, password: options.password,
            database: options.database, tls: .disable)
        if let (tls, required) = try tlsConfiguration(options) {
            configuration.tls = required ? .require(tls) : .prefer(tls)
        }
        configuration.options.maximumConnections = pool.maximumConnections
        configuration.options.minimumConnections = 0
        configuration.options.additionalStartupParameters = sessionParameters(pool)
        return PostGISFeatureSource(table: table, client: PostgresClient(configuration: configuration, backgroundLogger: logger), pool: pool, logger: logger)
    }

    /// Opens the table, runs `body` on it and closes it, also when `body` throws.
    public static func using<T: Sendable>(
        _ options: PostGISConnectionOptions, pool: PostGISPoolOptions = PostGISPoolOptions(),
        logger: Logger = Logger(label: "geosieve.postgis"), _ body: (PostGISFeatureSource) async throws -> T
    ) async throws -> T {
        let source = try await open(options, pool: pool, logger: logger)
        do {
            let value = try await body(source)
            await source.close()
            return value
        } catch {
            await source.close()
            throw error
        }
    }

    /// The session settings every connection starts with (startup parameters, so that no
    /// statement is spent on them).
    static func sessionParameters(_ pool: PostGISPoolOptions = PostGISPoolOptions()) -> [(String, String)] {
        var parameters = [("TimeZone", "UTC")]
        if let seconds = pool.statementTimeout {
            parameters.append(("statement_timeout", String(Swift.max(1, Int((seconds * 1000).rounded(.up))))))
        }
        return parameters
    }

    /// A connection of its own (the catalogue's and the writer's), with the session settings the
    /// sources need.
    static func connect(_ options: PostGISConnectionOptions, logger: Logger) async throws -> PostgresConnection {
        var tls = PostgresConnection.Configuration.TLS.disable
        if let (configuration, required) = try tlsConfiguration(options) {
            let context: NIOSSLContext
            do {
                context = try NIOSSLContext(configuration: configuration)
            } catch {
                throw PostGISError(.invalidOptions, "cannot use the TLS settings (sslrootcert \(options.sslRootCertificate ?? "none")): \(error)")
            }
            tls = required ? .require(context) : .prefer(context)
        }
        var configuration = PostgresConnection.Configuration(
            host: options.host, port: options.port, username: options.user, password: options.password,
            database: options.database, tls: tls)
        configuration.options.additionalStartupParameters = sessionParameters()
        do {
            return try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        } catch {
            throw PostGISError("cannot connect to PostgreSQL at \(options.host):\(options.port): \(String(reflecting: error))")
        }
    }

    /// The TLS configuration of `options` and whether TLS is required; `nil` without TLS.
    /// - Throws: ``PostGISError`` when the root certificate cannot be read.
    static func tlsConfiguration(_ options: PostGISConnectionOptions) throws -> (TLSConfiguration, required: Bool)? {
        let check = options.verification
        guard check.encrypt else { return nil }
        var configuration = TLSConfiguration.makeClientConfiguration()
        if check.chain {
            configuration.certificateVerification = check.host ? .fullVerification : .noHostnameVerification
            switch options.sslRootCertificate {
            case "system", nil: configuration.trustRoots = .default
            case let path?:
                guard FileManager.default.isReadableFile(atPath: path) else {
                    throw PostGISError(.invalidOptions, "the root certificate \(path) (sslrootcert) cannot be read")
                }
                configuration.trustRoots = .file(path)
            }
        } else {
            configuration.certificateVerification = .none
        }
        return (configuration, check.required)
    }

    /// Whether this source's connections are encrypted: PostgreSQL's own view of one of them
    /// (`pg_stat_ssl`), for checking a deployment.
    /// - Throws: ``PostGISError`` when the database fails.
    public func connectionIsEncrypted() async throws -> Bool {
        var encrypted = false
        try await run(PostGISStatement(sql: "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", parameters: [])) {
            encrypted = try $0.decode(Bool.self)
        }
        return encrypted
    }

    /// Stops the pool: its connections close once their queries end.
    public func close() async {
        running.cancel()
        await running.value
    }

    // MARK: Queries

    /// The features `query` selects, ordered and paged by the database, in the shape
    /// ``/SieveFeatures/FeatureTable/queryFeatures(_:)`` gives.
    public func queryFeatures(_ query: QueryParameters) async throws -> FeatureQueryResult {
        // Only the columns the page writes, when the out fields name them (a page of the object
        // IDs of a wide table reads no text), and one row past the page: its arrival says rows
        // were left off.
        let columns = try pageColumns(query)
        let (page, exceeded) = try await fetch(
            PostGISQueryBuilder(table: table).featuresStatement(query, reading: columns), limit: query.maxFeatures, columns: columns)
        // The page in database order; out fields, geometry and the output reference as in memory.
        var local = QueryParameters(
            outFields: query.outFields, returnGeometry: query.returnGeometry, orderBy: query.orderBy,
            outSpatialReference: query.outSpatialReference)
        local.collation = .binary
        return try PreparedQuery(local, table: page).features(in: page).marking(exceededTransferLimit: exceeded)
    }

    /// How many features `query` selects.
    public func queryFeatureCount(_ query: QueryParameters) async throws -> Int {
        var count: Int64 = 0
        try await run(PostGISQueryBuilder(table: table).countStatement(query)) { count = try $0.decode(Int64.self) }
        return Int(count)
    }

    /// The object IDs `query` selects, ascending.
    public func queryObjectIDs(_ query: QueryParameters) async throws -> [Int64] {
        var ids: [Int64] = []
        try await run(PostGISQueryBuilder(table: table).objectIDsStatement(query)) { ids.append(try $0.decode(Int64.self)) }
        return ids
    }

    /// How many features `query` selects and the union of their envelopes, in the output
    /// reference (``/SieveGeometry/Envelope/empty`` when none has a geometry). In the table's
    /// reference the database computes it; in another, the geometries are fetched and projected one
    /// by one, as the in-memory table does.
    public func queryExtent(_ query: QueryParameters) async throws -> (count: Int, extent: Envelope) {
        if let target = query.outSpatialReference, target != table.spatialReference {
            var all = query
            all.maxFeatures = nil
            all.resultOffset = nil
            let page = try await fetch(PostGISQueryBuilder(table: table).featuresStatement(all), limit: nil).table
            return try PreparedQuery(QueryParameters(outSpatialReference: target), table: page).extent(in: page)
        }
        var result: (count: Int, extent: Envelope) = (0, .empty)
        try await run(PostGISQueryBuilder(table: table).extentStatement(query)) { row in
            let (count, x0, y0, x1, y1) = try row.decode((Int64, Double?, Double?, Double?, Double?).self)
            if let x0, let y0, let x1, let y1 {
                result = (Int(count), Envelope(xmin: x0, ymin: y0, xmax: x1, ymax: y1))
            } else {
                result = (Int(count), .empty)
            }
        }
        return result
    }

    /// The table's columns a page of `query` writes or is ordered by: the out fields, the order's
    /// fields, the object ID and the geometry (when returned); the whole table for all fields,
    /// or when one of them is not one of the table's (the in-memory check then names it among
    /// all fields).
    private func pageColumns(_ query: QueryParameters) throws -> PostGISTable {
        let schema = table.schema
        guard let fields = query.outFields, !fields.contains(where: { $0.trimmingCharacters(in: .whitespaces) == "*" }) else { return table }
        var indices = Set([schema.objectIdFieldIndex])
        // The order's fields too: the page is ordered again in memory, as an in-memory table orders it.
        for name in fields + query.orderBy.map(\.field) {
            guard let index = schema.index(ofField: name.trimmingCharacters(in: .whitespaces)) else { return table }
            indices.insert(index)
        }
        guard indices.count < schema.fields.count else { return table }
        return try narrowed(to: indices.sorted(), geometry: query.returnGeometry)
    }

    /// This table reduced to the fields at `indices` (ascending, the object ID among them),
    /// with its geometry or without.
    private func narrowed(to indices: [Int], geometry: Bool) throws -> PostGISTable {
        let schema = table.schema
        return PostGISTable(
            namespace: table.namespace, name: table.name, columns: indices.map { table.columns[$0] },
            geometryColumn: geometry ? table.geometryColumn : nil, srid: table.srid,
            schema: try Schema(
                fields: indices.map { schema.fields[$0] }, objectIdFieldName: schema.objectIdFieldName,
                geometryType: schema.geometryType, spatialReference: schema.spatialReference),
            geometryTypeName: table.geometryTypeName)
    }

    /// The values of `fields` (names the schema has, any case; others are left to the aggregate
    /// to refuse) and the object ID of the rows `query` selects, in object-ID order, without
    /// geometries: what an aggregate computed in memory reads, and nothing more.
    func selectedValues(_ query: QueryParameters, fields: [String]) async throws -> FeatureTable {
        let schema = table.schema
        var indices = Set([schema.objectIdFieldIndex])
        for name in fields { if let index = schema.index(ofField: name) { indices.insert(index) } }
        let narrow = try narrowed(to: indices.sorted(), geometry: false)
        var parameters = PostgreSQLParameters()
        let builder = PostGISQueryBuilder(table: table)
        let condition = try builder.condition(query, parameters: &parameters)
        let statement = PostGISStatement(
            sql: "SELECT \(try PostGISQueryBuilder(table: narrow).selectList()) FROM \(try table.qualifiedName()) WHERE \(condition) ORDER BY \(try builder.orderBy(QueryParameters()))",
            parameters: parameters.values)
        var rows = FeatureRows(table: narrow)
        try await run(statement) { try rows.append($0) }
        return try rows.featureTable()
    }

    /// Every feature of the table, as an in-memory ``/SieveFeatures/FeatureTable`` (the import).
    public func readTable() async throws -> FeatureTable {
        let builder = PostGISQueryBuilder(table: table)
        let statement = PostGISStatement(
            sql: "SELECT \(try builder.selectList()) FROM \(try table.qualifiedName()) ORDER BY \(try builder.orderBy(QueryParameters()))",
            parameters: [])
        return try await fetch(statement, limit: nil).table
    }

    // MARK: Running statements

    /// Runs `statement` on a pooled connection, handing each row to `body` as it arrives. When
    /// the calling task is cancelled, the statement is cancelled in the database.
    func run(_ statement: PostGISStatement, _ body: (PostgresRow) throws -> Void) async throws {
        try await withPooledConnection { connection in
            try await Self.run(statement, connection: connection, logger: self.logger, each: body)
        }
    }

    /// Runs `body` in a transaction on one pooled connection: `BEGIN`, `body`, then `COMMIT`
    /// when it says so and `ROLLBACK` when it does not or throws.
    func inTransaction<T: Sendable>(_ body: (PostgresConnection) async throws -> (result: T, commit: Bool)) async throws -> T {
        try await withPooledConnection { connection in
            try await Self.run(PostGISStatement(sql: "BEGIN", parameters: []), connection: connection, logger: self.logger)
            do {
                let (result, commit) = try await body(connection)
                try await Self.run(
                    PostGISStatement(sql: commit ? "COMMIT" : "ROLLBACK", parameters: []), connection: connection, logger: self.logger)
                return result
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: self.logger)
                throw error
            }
        }
    }

    /// Runs `body` on a pooled connection; when the calling task is cancelled, the statement
    /// running is cancelled in the database. The pool's own failures become
    /// ``PostGISError/Kind/connection`` errors, a cancellation before PostgreSQL answered
    /// ``PostGISError/Kind/cancelled``.
    private func withPooledConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        do {
            return try await client.withConnection { connection in
                let process = try await self.process(of: connection)
                return try await withTaskCancellationHandler {
                    try await body(connection)
                } onCancel: {
                    self.cancel(process)
                }
            }
        } catch let error as PostGISError {
            throw error
        } catch let error as FeatureTableError {
            throw error
        } catch is CancellationError {
            throw PostGISError(.cancelled, "the query was cancelled before PostgreSQL answered")
        } catch {
            // The pool's own failures: no connection could be made (the server is down or
            // refuses), or the pool gave up making them for a while.
            throw PostGISError(.connection, "no connection to PostgreSQL for the table \(table.name): \(error)")
        }
    }

    /// The server process of a pooled connection (asked once per connection).
    private func process(of connection: PostgresConnection) async throws -> Int32 {
        if let known = processes.withLock({ $0[connection.id] }) { return known }
        var process: Int32 = 0
        try await Self.run(PostGISStatement(sql: "SELECT pg_backend_pid()", parameters: []), connection: connection, logger: logger) {
            process = try $0.decode(Int32.self)
        }
        let bound = 4 * pool.maximumConnections
        processes.withLock { processes in
            // The pool replaces idle connections with new ones (new IDs): the entries of closed
            // ones are forgotten in a while, and an open one's asked again.
            if processes.count >= bound { processes.removeAll(keepingCapacity: true) }
            processes[connection.id] = process
        }
        return process
    }

    /// Asks the database to cancel what server process `process` runs (a query whose request
    /// went away), on another pooled connection.
    private func cancel(_ process: Int32) {
        let client = self.client
        let logger = self.logger
        Task {
            _ = try? await client.withConnection { connection in
                try await connection.query("SELECT pg_cancel_backend(\(process))", logger: logger)
            }
        }
    }

    /// Runs `sql`, a statement without parameters (`SAVEPOINT`, `COMMIT`, DDL), on `connection`.
    static func run(_ sql: String, connection: PostgresConnection, logger: Logger) async throws {
        try await run(PostGISStatement(sql: sql, parameters: []), connection: connection, logger: logger)
    }

    /// Runs `statement`, handing each row to `each` as it arrives (rows are not held); the
    /// server's errors, also those sent while rows arrive, become ``PostGISError``s with the
    /// server's message.
    static func run(
        _ statement: PostGISStatement, connection: PostgresConnection, logger: Logger, each: (PostgresRow) throws -> Void = { _ in }
    ) async throws {
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
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: statement.sql, binds: bindings), logger: logger) {
                try each(row)
            }
        } catch let error as PSQLError {
            // The server's own error (it answered) is the query's; anything else, the connection's.
            if error.serverInfo?[.sqlState] == "57014" {
                throw PostGISError(.cancelled, "PostgreSQL cancelled the query: \(error.serverInfo?[.message] ?? "statement timeout or cancel request")")
            }
            if let message = error.serverInfo?[.message] { throw PostGISError(.queryRefused, "PostgreSQL refused the query: \(message)") }
            throw PostGISError(.connection, "PostgreSQL refused the query: \(String(reflecting: error))")
        }
    }

    /// The rows of a feature `SELECT` (``PostGISQueryBuilder/selectList()``) as a table of the
    /// source's schema, decoded into typed columns as they arrive; with a `limit`, the rows past
    /// it are not kept, and `exceeded` says whether there were any.
    private func fetch(_ statement: PostGISStatement, limit: Int?, columns: PostGISTable? = nil) async throws -> (table: FeatureTable, exceeded: Bool) {
        var builder = FeatureRows(table: columns ?? table)
        var exceeded = false
        try await run(statement) { row in
            if let limit, builder.count >= limit {
                exceeded = true
                return
            }
            try builder.append(row)
        }
        return (try builder.featureTable(), exceeded)
    }
}

/// The rows of a feature `SELECT` decoded into one array per field (no value boxed per row).
struct FeatureRows {
    let table: PostGISTable
    private let kinds: [PostGISTable.ColumnKind]
    private var integers: [[Int64]]
    private var doubles: [[Double]]
    private var strings: [[String?]]
    private var valid: [[Bool]]
    private var geometries: [Geometry?] = []
    private(set) var count = 0

    init(table: PostGISTable) {
        self.table = table
        kinds = table.columns.map(\.kind)
        integers = Array(repeating: [], count: kinds.count)
        doubles = Array(repeating: [], count: kinds.count)
        strings = Array(repeating: [], count: kinds.count)
        valid = Array(repeating: [], count: kinds.count)
    }

    mutating func append(_ row: PostgresRow) throws {
        let cells = row.makeRandomAccess()
        for (i, kind) in kinds.enumerated() {
            switch kind {
            case .integer, .boolean, .instant:
                let value = try cells[i].decode(Int64?.self)
                integers[i].append(value ?? 0)
                valid[i].append(value != nil)
            case .double, .numeric:
                let value = try cells[i].decode(Double?.self)
                doubles[i].append(value ?? 0)
                valid[i].append(value != nil)
            case .text:
                strings[i].append(try cells[i].decode(String?.self))
            }
        }
        if table.geometryColumn != nil {
            var geometry: Geometry?
            if let bytes = try cells[kinds.count].decode(Data?.self) {
                do {
                    geometry = try Geometry(wkb: bytes)
                } catch {
                    throw PostGISError(.unsupported, "a geometry of \(table.name) is not WKB GeoSieve reads: \(error)")
                }
            }
            geometries.append(geometry)
        }
        count += 1
    }

    /// The rows as a feature table of the source's schema.
    func featureTable() throws -> FeatureTable {
        var columns: [Column] = []
        for (i, field) in table.schema.fields.enumerated() {
            var validity: ValidityBitmap?
            if valid[i].contains(false) {
                var bitmap = ValidityBitmap(count: count, allValid: true)
                for (row, isValid) in valid[i].enumerated() where !isValid { bitmap.set(row, valid: false) }
                validity = bitmap
            }
            switch field.columnType {
            case .integer: columns.append(.integer(Int64Column(values: integers[i], validity: validity)))
            case .date: columns.append(.date(Int64Column(values: integers[i], validity: validity)))
            case .double: columns.append(.double(DoubleColumn(values: doubles[i], validity: validity)))
            case .string: columns.append(.string(StringColumn(strings[i])))
            }
        }
        return try FeatureTable(schema: table.schema, columns: columns, geometries: geometries)
    }
}
