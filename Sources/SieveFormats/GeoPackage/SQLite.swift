import SieveFeatures
import CSQLite

/// `SQLITE_TRANSIENT` (the C macro `(sqlite3_destructor_type)-1`, not imported into Swift):
/// SQLite copies bound bytes before the call returns.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One SQLite connection, owned by one reader or writer on one thread (not `Sendable`).
///
/// Every failing call throws a ``GeoPackageError`` of kind ``GeoPackageError/Kind/sqlite``
/// with SQLite's message and what was being done; the connection is closed when the object
/// goes away (statements first).
final class SQLiteConnection {
    let handle: OpaquePointer

    /// Opens the database at `path`: read-only, or read-write and created when missing.
    init(path: String, readOnly: Bool) throws(GeoPackageError) {
        var db: OpaquePointer?
        let flags =
            (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
            | SQLITE_OPEN_EXRESCODE
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw GeoPackageError(.cannotOpen, message, path: path)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
    }

    deinit { sqlite3_close_v2(handle) }

    /// SQLite's message for the last failure.
    var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }

    /// An error for result `code` while doing `context`.
    func failure(_ code: Int32, _ context: String) -> GeoPackageError {
        GeoPackageError(.sqlite, "\(lastMessage) (code \(code)) in \(GeoPackageText.abbreviated(context))")
    }

    /// Runs statements that return no rows (DDL, PRAGMA, BEGIN/COMMIT).
    func execute(_ sql: String) throws(GeoPackageError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        guard code == SQLITE_OK else {
            let message = errorMessage.map { String(cString: $0) } ?? lastMessage
            sqlite3_free(errorMessage)
            throw GeoPackageError(.sqlite, "\(message) (code \(code)) in \(GeoPackageText.abbreviated(sql))")
        }
    }

    /// A prepared statement for `sql`.
    func prepare(_ sql: String) throws(GeoPackageError) -> SQLiteStatement {
        var raw: OpaquePointer?
        let code = sqlite3_prepare_v2(handle, sql, -1, &raw, nil)
        guard code == SQLITE_OK, let raw else {
            sqlite3_finalize(raw)
            throw failure(code, sql)
        }
        return SQLiteStatement(raw, connection: self, sql: sql)
    }

    /// The rows of `sql` (with `bindings` as text parameters), each as the texts of its
    /// columns (`nil` for NULL; numbers as SQLite prints them). For small metadata queries.
    func rows(_ sql: String, _ bindings: [String] = []) throws(GeoPackageError) -> [[String?]] {
        let statement = try prepare(sql)
        for (i, value) in bindings.enumerated() { try statement.bind(Int32(i + 1), text: value) }
        var rows: [[String?]] = []
        let columns = sqlite3_column_count(statement.handle)
        while try statement.step() {
            rows.append((0..<columns).map { statement.text($0) })
        }
        return rows
    }

    /// Closes the connection and reports a failure to do so (statements must be finalized).
    func close() throws(GeoPackageError) {
        let code = sqlite3_close(handle)
        guard code == SQLITE_OK else { throw failure(code, "close") }
    }
}

/// A prepared statement of a ``SQLiteConnection``; finalized when the object goes away.
final class SQLiteStatement {
    let handle: OpaquePointer
    let connection: SQLiteConnection
    let sql: String

    init(_ handle: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.handle = handle
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Advances: `true` when a row is ready, `false` when done.
    @inline(__always)
    func step() throws(GeoPackageError) -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        throw connection.failure(code, sql)
    }

    /// Runs the statement to its end (an INSERT, UPDATE, …), then resets it for the next run.
    @inline(__always)
    func run() throws(GeoPackageError) {
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE || code == SQLITE_ROW else {
            sqlite3_reset(handle)
            throw connection.failure(code, sql)
        }
        sqlite3_reset(handle)
    }

    /// Checks the result of a bind call.
    @inline(__always)
    private func check(_ code: Int32, _ index: Int32) throws(GeoPackageError) {
        guard code == SQLITE_OK else { throw connection.failure(code, "binding parameter \(index) of \(sql)") }
    }

    func bind(_ index: Int32, int64 value: Int64) throws(GeoPackageError) {
        try check(sqlite3_bind_int64(handle, index, value), index)
    }

    func bind(_ index: Int32, double value: Double) throws(GeoPackageError) {
        try check(sqlite3_bind_double(handle, index, value), index)
    }

    func bindNull(_ index: Int32) throws(GeoPackageError) {
        try check(sqlite3_bind_null(handle, index), index)
    }

    /// Binds a text (copied by SQLite).
    func bind(_ index: Int32, text value: String) throws(GeoPackageError) {
        guard let count = Int32(exactly: value.utf8.count) else {
            throw GeoPackageError(.cannotWrite, "a text of \(value.utf8.count) bytes is beyond SQLite's limit")
        }
        try check(sqlite3_bind_text(handle, index, value, count, sqliteTransient), index)
    }

    /// Binds UTF-8 bytes as text, without copying: the bytes must stay valid until the
    /// statement has run (or is rebound).
    func bind(_ index: Int32, utf8 bytes: UnsafeRawBufferPointer) throws(GeoPackageError) {
        guard let base = bytes.baseAddress else {
            try check(sqlite3_bind_text(handle, index, "", 0, sqliteTransient), index)
            return
        }
        guard let count = Int32(exactly: bytes.count) else {
            throw GeoPackageError(.cannotWrite, "a text of \(bytes.count) bytes is beyond SQLite's limit")
        }
        try check(sqlite3_bind_text(handle, index, base.assumingMemoryBound(to: CChar.self), count, nil), index)
    }

    /// Binds bytes as a blob, without copying: the bytes must stay valid until the statement
    /// has run (or is rebound).
    func bind(_ index: Int32, blob bytes: UnsafeRawBufferPointer) throws(GeoPackageError) {
        guard let count = Int32(exactly: bytes.count) else {
            throw GeoPackageError(.cannotWrite, "a blob of \(bytes.count) bytes is beyond SQLite's limit")
        }
        try check(sqlite3_bind_blob(handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), count, nil), index)
    }

    /// The storage class of result column `column` of the current row (`SQLITE_INTEGER`, …).
    @inline(__always)
    func type(_ column: Int32) -> Int32 { sqlite3_column_type(handle, column) }

    @inline(__always)
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    @inline(__always)
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    /// The bytes of a BLOB or TEXT result column, valid until the next step (empty for NULL).
    @inline(__always)
    func bytes(_ column: Int32) -> UnsafeRawBufferPointer {
        let base = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let base, count > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: base, count: count)
    }

    /// The text of result column `column` (`nil` for NULL; bytes that are not UTF-8 repaired).
    func text(_ column: Int32) -> String? {
        guard type(column) != SQLITE_NULL else { return nil }
        guard let base = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
    }
}

/// Reading `sqlite3_value`s (result columns taken with `sqlite3_column_value`, which costs one
/// call per column where `sqlite3_column_type`, `_blob` and `_bytes` cost one each).
enum SQLiteValue {
    /// The bytes of a BLOB or TEXT value, valid until the statement steps (empty for NULL).
    @inline(__always)
    static func bytes(_ value: OpaquePointer) -> UnsafeRawBufferPointer {
        let base = sqlite3_value_blob(value)
        let count = Int(sqlite3_value_bytes(value))
        guard let base, count > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: base, count: count)
    }
}

/// `"name"` as an SQL identifier (double quotes doubled).
func sqlIdentifier(_ name: String) -> String {
    "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
}

/// `'text'` as an SQL string literal (single quotes doubled).
func sqlLiteral(_ text: String) -> String {
    "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'"
}
