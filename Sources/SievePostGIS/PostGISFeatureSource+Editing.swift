import PostgresNIO
import SieveColumns
import SieveEditing
import SieveFeatures
import SieveGeometry
import SieveSQL

extension PostGISFeatureSource: EditableFeatureSource {
    /// Applies a batch of edits to the table where it lives, in one transaction, with the answers
    /// an in-memory ``/SieveEditing/EditableFeatureTable`` with the same `options` gives.
    ///
    /// The features the updates and deletes name are read and locked first (`SELECT … FOR
    /// UPDATE`, in object-ID order, so that two batches wait for each other instead of
    /// deadlocking); the batch is checked against them exactly as in memory (values, domains,
    /// geometries, capabilities, ownership, the definition expression, editor tracking); then
    /// the valid adds are inserted together (multi-row `INSERT`s, their object IDs drawn from the
    /// table's identity or sequence in the adds' order), and each update and delete is one
    /// statement: an `UPDATE` writing every field, a `DELETE`. When the database refuses one of
    /// the adds, they are inserted one by one instead, which tells which.
    ///
    /// With `rollbackOnFailure` (the default) a failed edit — one the checks refuse, or one the
    /// database refuses (a constraint, a trigger: ``/SieveEditing/EditError/Kind/refusedByStore``)
    /// — rolls the transaction back: the failed edit reports its error and the others
    /// ``/SieveEditing/EditError/Kind/rolledBack``. Without it, each edit runs under a savepoint:
    /// a refused one is undone alone and the others are committed.
    ///
    /// A concurrent batch on the same features (another server on the same table) waits for this
    /// one's transaction and then sees its outcome: an update applies to the committed values,
    /// a feature deleted meanwhile is missing (1019). No update is lost.
    /// - Parameters:
    ///   - request: The adds, updates and deletes.
    ///   - options: What the layer allows and fills in (capabilities, editor tracking, the
    ///     definition expression, geometry checks).
    ///   - rollbackOnFailure: Overrides the request's `rollbackOnFailure` (default: yes).
    ///   - user: The editing user, for editor tracking and ownership (`nil`: anonymous).
    /// - Returns: Each edit's result, as ArcGIS REST reports it.
    /// - Throws: ``PostGISError`` when the connection fails or the database refuses a statement
    ///   outside the edits (nothing is then committed);
    ///   ``/SieveFeatures/FeatureTableError`` when the options' definition expression does not
    ///   compile against the table.
    public func applyEdits(
        _ request: ApplyEditsRequest, options: EditingOptions = EditingOptions(), rollbackOnFailure: Bool? = nil, user: String? = nil
    ) async throws -> ApplyEditsResult {
        try await applyEdits(request, options: options, rollbackOnFailure: rollbackOnFailure, user: user, dryRun: false)
    }

    /// What ``applyEdits(_:options:rollbackOnFailure:user:)`` with `rollbackOnFailure` would
    /// answer now: the batch runs in a transaction that is then rolled back (the object IDs
    /// adds would get are answered as -1; the table's sequence advances, as sequences do).
    /// - Throws: As ``applyEdits(_:options:rollbackOnFailure:user:)`` throws.
    public func checkEdits(_ request: ApplyEditsRequest, options: EditingOptions = EditingOptions(), user: String? = nil) async throws
        -> ApplyEditsResult
    {
        var result = try await applyEdits(request, options: options, rollbackOnFailure: true, user: user, dryRun: true)
        for k in result.addResults.indices { result.addResults[k].objectID = -1 }
        return result
    }

    private func applyEdits(
        _ request: ApplyEditsRequest, options: EditingOptions, rollbackOnFailure: Bool?, user: String?, dryRun: Bool
    ) async throws -> ApplyEditsResult {
        let rollback = (rollbackOnFailure ?? request.rollbackOnFailure ?? true) || !options.supportsRollbackOnFailureParameter
        let table = self.table
        let schema = table.schema
        let logger = self.logger
        return try await inTransaction { connection in
            // The features the batch names, locked until the transaction ends.
            var named: [Int64] = request.deletes
            for update in request.updates {
                if let id = try? update.namedObjectID(in: schema) { named.append(id) }
            }
            let locked = try await Self.lockedFeatures(Array(Set(named)).sorted(), table: table, connection: connection, logger: logger)
            let checked = try CheckedEditBatch(
                adds: request.adds, updates: request.updates, deletes: request.deletes, against: locked, options: options, user: user)
            if checked.hasFailures, rollback { return (checked.rolledBack(), false) }

            // One edit's statement; a value the column cannot take, or the database's refusal,
            // is that edit's error. Without rollback the edit runs under a savepoint, undone alone
            // when refused; with it, a refusal has aborted the transaction, which ends the batch.
            func apply(_ make: () throws -> PostGISStatement) async throws -> (id: Int64?, error: EditError?) {
                let statement: PostGISStatement
                do {
                    statement = try make()
                } catch let error as EditError {
                    return (nil, error)
                }
                func run(_ sql: String) async throws { try await Self.run(sql, connection: connection, logger: logger) }
                if !rollback { try await run("SAVEPOINT edit") }
                do {
                    var id: Int64?
                    try await Self.run(statement, connection: connection, logger: logger) { id = try $0.decode(Int64.self) }
                    if !rollback { try await run("RELEASE SAVEPOINT edit") }
                    return (id, nil)
                } catch let error as PostGISError where error.kind == .queryRefused {
                    if !rollback { try await run("ROLLBACK TO SAVEPOINT edit") }
                    return (nil, EditError(.refusedByStore, error.message))
                }
            }
            // The adds in a few statements when they can be; else (or when the database refuses
            // one of them) one by one, which tells which.
            var addResults: [FeatureEditResult] = []
            if let inserted = try await Self.insertTogether(checked.adds, table: table, connection: connection, logger: logger) {
                addResults = inserted
            } else {
                for (k, add) in checked.adds.enumerated() {
                    guard let row = add.row else {
                        addResults.append(FeatureEditResult(objectID: -1, error: add.error))
                        continue
                    }
                    let (id, error) = try await apply { try Self.insertStatement(row, table: table) }
                    if rollback, let error { return (checked.rolledBack(addFailures: [k: error]), false) }
                    addResults.append(FeatureEditResult(objectID: id ?? -1, globalID: error == nil ? row.globalID : nil, error: error))
                }
            }
            var updateResults: [FeatureEditResult] = []
            for (k, update) in checked.updates.enumerated() {
                var error = update.error
                if let row = update.row {
                    error = try await apply { try Self.updateStatement(row, table: table) }.error
                    if rollback, let error { return (checked.rolledBack(updateFailures: [k: error]), false) }
                }
                updateResults.append(FeatureEditResult(objectID: update.objectID, globalID: update.globalID, error: error))
            }
            var deleteResults: [FeatureEditResult] = []
            for (k, delete) in checked.deletes.enumerated() {
                var error = delete.error
                if error == nil {
                    error = try await apply { try Self.deleteStatement(delete.objectID, table: table) }.error
                    if rollback, let error { return (checked.rolledBack(deleteFailures: [k: error]), false) }
                }
                deleteResults.append(FeatureEditResult(objectID: delete.objectID, globalID: delete.globalID, error: error))
            }
            return (ApplyEditsResult(addResults: addResults, updateResults: updateResults, deleteResults: deleteResults), !dryRun)
        }
    }

    /// The features of `objectIDs` as they are now, locked for the transaction (`FOR UPDATE`,
    /// in object-ID order), as a table of the source's schema.
    static func lockedFeatures(
        _ objectIDs: [Int64], table: PostGISTable, connection: PostgresConnection, logger: Logger
    ) async throws -> FeatureTable {
        var rows = FeatureRows(table: table)
        if !objectIDs.isEmpty {
            let id = try postgreSQLIdentifier(table.columns[table.schema.objectIdFieldIndex].name)
            let sql = "SELECT \(try PostGISQueryBuilder(table: table).selectList()) FROM \(try table.qualifiedName()) "
                + "WHERE \(id) = ANY($1::int8[]) ORDER BY \(id) FOR UPDATE"
            try await run(PostGISStatement(sql: sql, parameters: [.integers(objectIDs)]), connection: connection, logger: logger) {
                try rows.append($0)
            }
        }
        return try rows.featureTable()
    }

    /// Inserts the rows of `adds` that passed their checks with a few multi-row `INSERT`s, their
    /// object IDs drawn from the object-ID column's sequence beforehand, in the adds' order (as
    /// one `INSERT` each would number them); the results in the adds' order (an add that
    /// failed its checks keeps its error). `nil`, with nothing inserted, when there are fewer
    /// than two rows, the column has no sequence, or a value or the database refuses a row:
    /// the adds are then inserted one by one, which tells which (the IDs drawn are left unused,
    /// as a rolled-back insert leaves its own).
    private static func insertTogether(
        _ adds: [CheckedEditBatch.Outcome], table: PostGISTable, connection: PostgresConnection, logger: Logger
    ) async throws -> [FeatureEditResult]? {
        let rows = adds.compactMap(\.row)
        guard rows.count >= 2 else { return nil }
        let idName = table.columns[table.schema.objectIdFieldIndex].name
        var sequence: String?
        try await run(
            PostGISStatement(sql: "SELECT pg_get_serial_sequence($1, $2)", parameters: [.text(try table.qualifiedName()), .text(idName)]),
            connection: connection, logger: logger
        ) { sequence = try $0.decode(String?.self) }
        guard let sequence else { return nil }
        var ids: [Int64] = []
        try await run(
            PostGISStatement(
                sql: "SELECT nextval($1::regclass) FROM generate_series(1, $2::int8)", parameters: [.text(sequence), .integer(Int64(rows.count))]),
            connection: connection, logger: logger
        ) { ids.append(try $0.decode(Int64.self)) }
        guard ids.count == rows.count else { return nil }
        ids.sort()

        try await run("SAVEPOINT adds", connection: connection, logger: logger)
        do {
            // Chunks well under PostgreSQL's 65,535 parameters a statement.
            let perRow = table.columns.count + 1
            let chunk = max(1, 30_000 / perRow)
            for start in stride(from: 0, to: rows.count, by: chunk) {
                var parameters = PostgreSQLParameters()
                var names: [String] = [try postgreSQLIdentifier(idName)]
                var tuples: [String] = []
                for k in start..<min(rows.count, start + chunk) {
                    let columns = try columnValues(rows[k], table: table, parameters: &parameters)
                    if tuples.isEmpty { names += columns.map(\.name) }
                    tuples.append("(" + ([parameters.add(.integer(ids[k])) + "::int8"] + columns.map(\.value)).joined(separator: ", ") + ")")
                }
                let sql = "INSERT INTO \(try table.qualifiedName()) (\(names.joined(separator: ", "))) OVERRIDING SYSTEM VALUE VALUES "
                    + tuples.joined(separator: ", ")
                try await run(PostGISStatement(sql: sql, parameters: parameters.values), connection: connection, logger: logger)
            }
            try await run("RELEASE SAVEPOINT adds", connection: connection, logger: logger)
        } catch let error where error is EditError || (error as? PostGISError)?.kind == .queryRefused {
            try await run("ROLLBACK TO SAVEPOINT adds", connection: connection, logger: logger)
            return nil
        }
        var next = 0
        return adds.map { add in
            guard let row = add.row else { return FeatureEditResult(objectID: -1, error: add.error) }
            defer { next += 1 }
            return FeatureEditResult(objectID: ids[next], globalID: row.globalID)
        }
    }

    /// `INSERT` of a new feature's row (the object ID left to the table), returning its object ID.
    private static func insertStatement(_ row: CheckedEditBatch.Row, table: PostGISTable) throws -> PostGISStatement {
        var parameters = PostgreSQLParameters()
        let columns = try columnValues(row, table: table, parameters: &parameters)
        let id = try postgreSQLIdentifier(table.columns[table.schema.objectIdFieldIndex].name)
        let sql = columns.isEmpty
            ? "INSERT INTO \(try table.qualifiedName()) DEFAULT VALUES RETURNING (\(id))::int8"
            : "INSERT INTO \(try table.qualifiedName()) (\(columns.map(\.name).joined(separator: ", "))) "
                + "VALUES (\(columns.map(\.value).joined(separator: ", "))) RETURNING (\(id))::int8"
        return PostGISStatement(sql: sql, parameters: parameters.values)
    }

    /// `UPDATE` of a feature's row: every field but the object ID, and the geometry.
    private static func updateStatement(_ row: CheckedEditBatch.Row, table: PostGISTable) throws -> PostGISStatement {
        var parameters = PostgreSQLParameters()
        let columns = try columnValues(row, table: table, parameters: &parameters)
        let id = try postgreSQLIdentifier(table.columns[table.schema.objectIdFieldIndex].name)
        let placeholder = parameters.add(.integer(row.objectID))
        // A table of the object ID alone has nothing to set: the statement only finds the row.
        let sql = columns.isEmpty
            ? "SELECT (\(id))::int8 FROM \(try table.qualifiedName()) WHERE \(id) = \(placeholder)"
            : "UPDATE \(try table.qualifiedName()) SET \(columns.map { "\($0.name) = \($0.value)" }.joined(separator: ", ")) WHERE \(id) = \(placeholder)"
        return PostGISStatement(sql: sql, parameters: parameters.values)
    }

    /// Each column a row writes (every field but the object ID, then the geometry): its
    /// identifier and the SQL of its value.
    private static func columnValues(
        _ row: CheckedEditBatch.Row, table: PostGISTable, parameters: inout PostgreSQLParameters
    ) throws -> [(name: String, value: String)] {
        var columns: [(name: String, value: String)] = []
        for (i, column) in table.columns.enumerated() where i != table.schema.objectIdFieldIndex {
            columns.append(
                (try postgreSQLIdentifier(column.name), try value(row.values[i], column: column, field: table.schema.fields[i], parameters: &parameters)))
        }
        if let geometryColumn = table.geometryColumn {
            columns.append((try postgreSQLIdentifier(geometryColumn), geometry(row.geometry, table: table, parameters: &parameters)))
        }
        return columns
    }

    /// `DELETE` of a feature.
    private static func deleteStatement(_ objectID: Int64, table: PostGISTable) throws -> PostGISStatement {
        let id = try postgreSQLIdentifier(table.columns[table.schema.objectIdFieldIndex].name)
        return PostGISStatement(sql: "DELETE FROM \(try table.qualifiedName()) WHERE \(id) = $1", parameters: [.integer(objectID)])
    }

    /// The SQL of a checked value for `column`: a bound parameter in the column's type. Integers
    /// as `int8` (booleans from 0 and 1), numbers as `float8`, dates as UTC instants (the session's
    /// time zone is UTC, so a `date` column takes the day), text cast to the column's type (a
    /// `uuid`, an enum).
    private static func value(
        _ value: ScalarValue, column: PostGISTable.Column, field: Field, parameters: inout PostgreSQLParameters
    ) throws -> String {
        switch value {
        case .null:
            return "NULL"
        case .integer(let x), .date(let x):
            switch column.kind {
            case .boolean:
                guard x == 0 || x == 1 else {
                    throw EditError(.outOfRange, "field \(field.name) is a boolean column: 0 or 1, not \(x)", fieldName: field.name)
                }
                return "(\(parameters.add(.integer(x)))::int4)::boolean"
            case .instant:
                return "(TIMESTAMPTZ 'epoch' + \(parameters.add(.integer(x)))::int8 * INTERVAL '1 millisecond')"
            case .double, .numeric:
                return "\(parameters.add(.double(Double(x))))::float8"
            case .integer:
                return "\(parameters.add(.integer(x)))::int8"
            case .text:
                return cast("\(parameters.add(.text(String(x))))::text", to: column)
            }
        case .double(let x):
            return "\(parameters.add(.double(x)))::float8"
        case .string(let text):
            return cast("\(parameters.add(.text(text)))::text", to: column)
        case .boolean(let b):
            return "\(parameters.add(.integer(b ? 1 : 0)))::int8"
        }
    }

    /// `expression` cast to the column's own type, unless it is text already.
    private static func cast(_ expression: String, to column: PostGISTable.Column) -> String {
        // The catalogue names the type (`format_type`): an identifier PostgreSQL wrote, not input.
        let type = column.typeName
        guard !type.isEmpty, !["text", "character varying", "character"].contains(type) else { return expression }
        return "CAST(\(expression) AS \(type))"
    }

    /// The SQL of a geometry: EWKB with the column's SRID, made multi for a `MULTI…` column.
    private static func geometry(_ geometry: Geometry?, table: PostGISTable, parameters: inout PostgreSQLParameters) -> String {
        guard let geometry, !geometry.isEmpty, let ewkb = CopyText.ewkb(geometry, srid: table.srid) else { return "NULL" }
        let expression = "ST_GeomFromEWKB(\(parameters.add(.bytes(ewkb))))"
        return table.geometryTypeName.hasPrefix("MULTI") ? "ST_Multi(\(expression))" : expression
    }
}
