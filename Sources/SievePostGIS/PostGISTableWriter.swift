import Logging
import PostgresNIO
import SieveColumns
import SieveFeatures
import SieveGeometry
import SieveSQL

extension PostGISFeatureSource {
    /// Writes `table` into a new PostGIS table (the export): one column per field — the object
    /// ID as the `bigint` primary key, integers as `smallint`/`integer`/`bigint`, doubles as
    /// `real`/`double precision`, text (GUIDs too) as `text`, dates as `timestamptz`, date-only
    /// fields as `date` — and the
    /// geometries in a `geom` column of type `geometry` with the table's WKID as SRID, with a
    /// GiST index. Rows go in batches of multi-row `INSERT`s with bound parameters, in one
    /// transaction.
    /// - Parameters:
    ///   - table: The features.
    ///   - options: Where to write: the server, database and table name (`id` and `geometry`
    ///     are ignored: the columns are named after the fields and `geom`).
    ///   - replace: Whether to drop a table of that name first; otherwise an existing table is an
    ///     error.
    ///   - logger: Where the connection logs.
    /// - Returns: The new table as a source, open.
    /// - Throws: ``PostGISError`` when the server refuses a statement (the transaction is then
    ///   rolled back and nothing is left behind).
    public static func write(
        _ table: FeatureTable, to options: PostGISConnectionOptions, replace: Bool = false,
        logger: Logger = Logger(label: "geosieve.postgis")
    ) async throws -> PostGISFeatureSource {
        let connection = try await connect(options, logger: logger)
        do {
            try await insert(table, options: options, replace: replace, connection: connection, logger: logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            try? await connection.close()
            throw error
        }
        try? await connection.close()
        return try await open(options, logger: logger)
    }

    private static func insert(
        _ table: FeatureTable, options: PostGISConnectionOptions, replace: Bool, connection: PostgresConnection, logger: Logger
    ) async throws {
        let schema = table.schema
        let qualified = try postgreSQLIdentifier(options.namespace) + "." + postgreSQLIdentifier(options.table)
        let hasGeometry = schema.geometryType != nil
        let srid = table.spatialReference.wkid
        var definitions: [String] = []
        for field in schema.fields {
            let type: String
            switch field.type {
            case .oid: type = "bigint PRIMARY KEY"
            case .smallInteger: type = "smallint"
            case .integer: type = "integer"
            case .bigInteger: type = "bigint"
            case .single: type = "real"
            case .double: type = "double precision"
            case .string, .guid, .globalID: type = "text"
            case .date: type = "timestamptz"
            case .dateOnly: type = "date"
            }
            definitions.append("\(try postgreSQLIdentifier(field.name)) \(type)")
        }
        if hasGeometry { definitions.append("\"geom\" geometry(Geometry, \(srid))") }
        var statements: [String] = ["BEGIN"]
        if replace { statements.append("DROP TABLE IF EXISTS \(qualified)") }
        statements.append("CREATE TABLE \(qualified) (\(definitions.joined(separator: ", ")))")
        for sql in statements { try await run(PostGISStatement(sql: sql, parameters: []), connection: connection, logger: logger) }

        let fieldCount = schema.fields.count + (hasGeometry ? 1 : 0)
        var columnList: [String] = []
        for name in schema.fields.map(\.name) + (hasGeometry ? ["geom"] : []) { columnList.append(try postgreSQLIdentifier(name)) }
        // PostgreSQL takes at most 65,535 parameters per statement.
        let batch = max(1, 60_000 / max(1, fieldCount))
        let live = table.liveRows
        var start = 0
        while start < live.count {
            let end = min(start + batch, live.count)
            var parameters = PostgreSQLParameters()
            var tuples: [String] = []
            for row in live[start..<end] {
                var values: [String] = []
                for i in schema.fields.indices {
                    let value = table.columns[i][row]
                    switch value {
                    case .null: values.append("NULL")
                    case .integer(let x): values.append("\(parameters.add(.integer(x)))::int8")
                    case .double(let x): values.append("\(parameters.add(.double(x)))::float8")
                    case .string(let s): values.append("\(parameters.add(.text(s)))::text")
                    case .date(let ms): values.append("\(parameters.add(.text(PostgreSQLValue.timestampText(milliseconds: ms))))::timestamptz")
                    case .boolean(let b): values.append(b ? "1" : "0")
                    }
                }
                if hasGeometry {
                    if let geometry = table.geometry(row: row) {
                        values.append("ST_GeomFromWKB(\(parameters.add(.bytes(geometry.wkb())))::bytea, \(srid))")
                    } else {
                        values.append("NULL")
                    }
                }
                tuples.append("(" + values.joined(separator: ", ") + ")")
            }
            let sql = "INSERT INTO \(qualified) (\(columnList.joined(separator: ", "))) VALUES \(tuples.joined(separator: ", "))"
            try await run(PostGISStatement(sql: sql, parameters: parameters.values), connection: connection, logger: logger)
            start = end
        }
        if hasGeometry {
            try await run(
                PostGISStatement(sql: "CREATE INDEX ON \(qualified) USING GIST (\"geom\")", parameters: []), connection: connection,
                logger: logger)
        }
        try await run(PostGISStatement(sql: "COMMIT", parameters: []), connection: connection, logger: logger)
        try await run(PostGISStatement(sql: "ANALYZE \(qualified)", parameters: []), connection: connection, logger: logger)
    }
}
