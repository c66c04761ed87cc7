import CSQLite

/// A value read from or bound to SQLite in the differential tests.
public enum SQLiteTestCell: Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

/// A failed SQLite call in the differential tests.
public struct SQLiteTestError: Error, CustomStringConvertible {
    public let code: Int32
    public let message: String
    public var description: String { "SQLite error \(code): \(message)" }
}

/// One in-memory SQLite database for the differential tests (statistics, where clauses over the
/// fixtures): statements run to completion, every result code checked. Used on one task only.
public final class SQLiteTestDatabase {
    private let db: OpaquePointer

    public init() throws {
        var handle: OpaquePointer?
        let code = sqlite3_open(":memory:", &handle)
        guard code == SQLITE_OK, let handle else {
            sqlite3_close(handle)
            throw SQLiteTestError(code: code, message: "cannot open an in-memory database")
        }
        db = handle
    }

    deinit { sqlite3_close_v2(db) }

    private func failure(_ code: Int32, _ what: String) -> SQLiteTestError {
        SQLiteTestError(code: code, message: "\(String(cString: sqlite3_errmsg(db))) in \(what)")
    }

    /// Runs `sql` once per parameter row (or once with none), returning every result row.
    @discardableResult
    public func run(_ sql: String, parameters: [[SQLiteTestCell]] = [[]]) throws -> [[SQLiteTestCell]] {
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(db, sql, -1, &statement, nil)
        guard prepared == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw failure(prepared, sql)
        }
        defer { sqlite3_finalize(statement) }
        // SQLITE_TRANSIENT: SQLite copies bound text before the C string goes away.
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        var result: [[SQLiteTestCell]] = []
        for row in parameters {
            sqlite3_reset(statement)
            for (i, cell) in row.enumerated() {
                let index = Int32(i + 1)
                let code: Int32
                switch cell {
                case .null: code = sqlite3_bind_null(statement, index)
                case .integer(let x): code = sqlite3_bind_int64(statement, index, x)
                case .real(let x): code = sqlite3_bind_double(statement, index, x)
                case .text(let s): code = s.withCString { sqlite3_bind_text(statement, index, $0, -1, transient) }
                }
                guard code == SQLITE_OK else { throw failure(code, "bind \(index) of \(sql)") }
            }
            while true {
                let step = sqlite3_step(statement)
                if step == SQLITE_DONE { break }
                guard step == SQLITE_ROW else { throw failure(step, sql) }
                result.append(
                    (0..<sqlite3_column_count(statement)).map { column in
                        switch sqlite3_column_type(statement, column) {
                        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
                        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
                        case SQLITE_TEXT:
                            guard let text = sqlite3_column_text(statement, column) else { return .null }
                            return .text(String(cString: text))
                        default: return .null
                        }
                    })
            }
        }
        return result
    }
}
