import CSQLite

/// A failed SQLite call: the result code, SQLite's message and what was being done.
struct SQLiteError: Error, CustomStringConvertible {
    let code: Int32
    let message: String
    let context: String

    var description: String { "SQLite error \(code) (\(message)) in \(context)" }
}

/// A value bound to a statement parameter.
enum SQLiteValue {
    case null
    case integer(Int64)
    case double(Double)
    case text(String)
}

/// A thin wrapper over the SQLite C API, for the differential tests only: one in-memory
/// database, statements run to completion, every result code checked.
///
/// Not `Sendable`: a test creates, uses and closes its own database on one task.
final class SQLiteDatabase {
    private var handle: OpaquePointer?

    /// Opens a new, empty in-memory database.
    init() throws {
        var db: OpaquePointer?
        let code = sqlite3_open(":memory:", &db)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            throw SQLiteError(code: code, message: message, context: "sqlite3_open(\":memory:\")")
        }
        handle = db
    }

    /// Registers the two functions through which the differential test maps GeoSieve's
    /// overflow semantics onto SQLite's arithmetic (see ``SQLiteDifferentialTests``):
    ///
    /// - `gs_int(x)`: `x` when it is an INTEGER, NULL otherwise. SQLite turns an integer
    ///   overflow into a REAL; GeoSieve gives NULL. Wrapped around every integer `+ - * / %`,
    ///   negation and `abs`, it makes SQLite answer NULL where GeoSieve does, and nothing else.
    /// - `gs_real(x)`: `x`, except NULL for ±infinity. SQLite keeps an overflowing double as
    ///   ±Inf; GeoSieve gives NULL. (NaN is NULL in both already.)
    ///
    /// Both only filter a value SQLite computed; neither computes anything itself.
    func registerOverflowMappings() throws {
        let db = try open()
        let integerOnly: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
            guard let value = arguments?[0], sqlite3_value_type(value) == SQLITE_INTEGER else {
                sqlite3_result_null(context)
                return
            }
            sqlite3_result_int64(context, sqlite3_value_int64(value))
        }
        let finiteOnly: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
            guard let value = arguments?[0] else {
                sqlite3_result_null(context)
                return
            }
            if sqlite3_value_type(value) == SQLITE_FLOAT, sqlite3_value_double(value).isInfinite {
                sqlite3_result_null(context)
            } else {
                sqlite3_result_value(context, value)
            }
        }
        for (name, function) in [("gs_int", integerOnly), ("gs_real", finiteOnly)] {
            let code = sqlite3_create_function_v2(db, name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, function, nil, nil, nil)
            guard code == SQLITE_OK else { throw error(code, "sqlite3_create_function_v2(\(name))") }
        }
    }

    deinit {
        // `close()` is the checked path; this only keeps a forgotten database from leaking.
        if let handle { sqlite3_close_v2(handle) }
    }

    /// Closes the database; every statement must have been finalized.
    func close() throws {
        guard let db = handle else { return }
        let code = sqlite3_close(db)
        guard code == SQLITE_OK else { throw error(code, "sqlite3_close") }
        handle = nil
    }

    /// SQLite's library version, e.g. `3.40.1`.
    static var version: String { String(cString: sqlite3_libversion()) }

    private func open() throws -> OpaquePointer {
        guard let handle else { throw SQLiteError(code: SQLITE_MISUSE, message: "database closed", context: "use after close") }
        return handle
    }

    fileprivate func error(_ code: Int32, _ context: String) -> SQLiteError {
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "database closed"
        return SQLiteError(code: code, message: message, context: context)
    }

    /// Runs statements that return no rows (DDL, PRAGMA, BEGIN/COMMIT).
    func execute(_ sql: String) throws {
        let db = try open()
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(db, sql, nil, nil, &errorMessage)
        if code != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db))
            sqlite3_free(errorMessage)
            throw SQLiteError(code: code, message: message, context: sql)
        }
    }

    /// Prepares `sql`, hands the statement to `body`, and finalizes it afterwards.
    func withStatement<T>(_ sql: String, _ body: (SQLiteStatement) throws -> T) throws -> T {
        let db = try open()
        var raw: OpaquePointer?
        let code = sqlite3_prepare_v2(db, sql, -1, &raw, nil)
        guard code == SQLITE_OK, let raw else {
            sqlite3_finalize(raw)
            throw error(code, "prepare \(sql)")
        }
        let statement = SQLiteStatement(raw, database: self, sql: sql)
        let result: T
        do {
            result = try body(statement)
        } catch {
            sqlite3_finalize(raw)
            throw error
        }
        // After a successful run, finalize reports no error; anything else is worth knowing.
        let finalized = sqlite3_finalize(raw)
        guard finalized == SQLITE_OK else { throw error(finalized, "finalize \(sql)") }
        return result
    }

    /// The first column of every row `sql` returns, as 64-bit integers (`NULL` → error).
    func integers(_ sql: String) throws -> [Int64] {
        try withStatement(sql) { statement in
            var values: [Int64] = []
            while try statement.step() {
                values.append(try statement.int64(column: 0))
            }
            return values
        }
    }
}

/// A prepared statement owned by ``SQLiteDatabase/withStatement(_:_:)``.
struct SQLiteStatement {
    fileprivate let handle: OpaquePointer
    fileprivate let database: SQLiteDatabase
    let sql: String

    fileprivate init(_ handle: OpaquePointer, database: SQLiteDatabase, sql: String) {
        self.handle = handle
        self.database = database
        self.sql = sql
    }

    /// Binds parameter `index` (1-based).
    func bind(_ index: Int32, _ value: SQLiteValue) throws {
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(handle, index)
        case .integer(let x): code = sqlite3_bind_int64(handle, index, x)
        case .double(let x): code = sqlite3_bind_double(handle, index, x)
        case .text(let s):
            // SQLITE_TRANSIENT (the C macro `(sqlite3_destructor_type)-1`, not imported into
            // Swift): SQLite copies the bytes before `withCString`'s buffer goes away.
            let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
            code = s.withCString { sqlite3_bind_text(handle, index, $0, -1, transient) }
        }
        guard code == SQLITE_OK else { throw database.error(code, "bind \(index) in \(sql)") }
    }

    /// Advances: `true` when a row is ready, `false` when done.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.error(code, "step \(sql)")
        }
    }

    /// Makes the statement ready to run again (bindings are kept; rebind to change them).
    func reset() throws {
        let code = sqlite3_reset(handle)
        guard code == SQLITE_OK else { throw database.error(code, "reset \(sql)") }
    }

    /// The integer in result column `column` (0-based) of the current row.
    func int64(column: Int32) throws -> Int64 {
        guard sqlite3_column_type(handle, column) == SQLITE_INTEGER else {
            throw SQLiteError(code: SQLITE_MISMATCH, message: "column \(column) is not an integer", context: sql)
        }
        return sqlite3_column_int64(handle, column)
    }
}
