import SieveBase
import SieveColumns

/// A value sent to PostgreSQL as a bound parameter (`$n`), never as text inside the SQL.
public enum PostgreSQLValue: Hashable, Sendable {
    /// A `bigint`.
    case integer(Int64)
    /// A `double precision`.
    case double(Double)
    /// A `text`; also instants, as ISO 8601 text the SQL casts to `timestamptz`.
    case text(String)
    /// A `bigint[]`.
    case integers([Int64])
    /// A `double precision[]`.
    case doubles([Double])
    /// A `text[]` (also instants, cast to `timestamptz[]`).
    case texts([String])
    /// A `bytea` (geometries as WKB).
    case bytes([UInt8])
}

extension PostgreSQLValue {
    /// An instant (epoch milliseconds) as text `timestamptz` reads exactly in any session time
    /// zone: `yyyy-mm-dd hh:mi:ss.fff+00`, years before 1 as PostgreSQL's `BC` years.
    public static func timestampText(milliseconds: Int64) -> String {
        PostgreSQLRenderer.timestampText(milliseconds)
    }
}

/// The parameters of a statement being written: each value added gets the next `$n`.
public struct PostgreSQLParameters: Sendable, Hashable {
    /// The values, `$1` first.
    public private(set) var values: [PostgreSQLValue] = []

    /// No parameters yet.
    public init() {}

    /// Adds `value` and returns its placeholder, `$n`.
    public mutating func add(_ value: PostgreSQLValue) -> String {
        values.append(value)
        return "$\(values.count)"
    }
}

/// Why a clause cannot be written as PostgreSQL SQL that gives the same answers. Its category is
/// ``/SieveBase/ErrorCategory/unsupported``: the clause is valid, but not one the database can
/// answer exactly (see ``CompiledWhereClause/postgreSQL(columns:parameters:extraColumn:)``).
public struct PostgreSQLRenderingError: GeoSieveError, Hashable {
    /// What cannot be rendered, and why.
    public let message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }

    /// ``/SieveBase/ErrorCategory/unsupported``: a clause GeoSieve cannot push down to PostgreSQL.
    public var category: ErrorCategory { .unsupported }

    /// `cannot render for PostgreSQL: MESSAGE`.
    public var description: String { "cannot render for PostgreSQL: \(message)" }
}

/// A PostgreSQL identifier in double quotes, any `"` doubled: safe for any field name.
/// - Throws: ``PostgreSQLRenderingError`` for a name PostgreSQL cannot hold (empty, or with a
///   NUL character).
public func postgreSQLIdentifier(_ name: String) throws(PostgreSQLRenderingError) -> String {
    guard !name.isEmpty, !name.unicodeScalars.contains("\0") else {
        throw PostgreSQLRenderingError("the field name \(name.debugDescription) cannot be a PostgreSQL identifier")
    }
    var quoted = "\""
    for character in name.unicodeScalars {
        if character == "\"" { quoted += "\"\"" } else { quoted.unicodeScalars.append(character) }
    }
    return quoted + "\""
}

extension CompiledWhereClause {
    /// The clause as a PostgreSQL condition with the same answers, for a `WHERE`.
    ///
    /// Every value of the clause is a bound parameter added to `parameters`; field names are
    /// quoted identifiers. Semantic differences are translated: strings compare and match `LIKE`
    /// byte for byte (`COLLATE "C"`, the escape stated explicitly — PostgreSQL's default is `\`);
    /// integer arithmetic that overflows, division by zero and `ABS`/negation of the smallest
    /// integer give NULL instead of PostgreSQL's errors; `LOG`/`LOG10` of a number ≤ 0 is NULL;
    /// `CEILING`/`FLOOR` keep integers integers; `EXTRACT` reads the instant in UTC. The
    /// statement must run with `TimeZone` set to `UTC`, so that `timestamp` and `date` columns
    /// are read as UTC as GeoSieve reads them.
    ///
    /// `ROUND(x)` and `TRUNCATE(x)` of a double are computed exactly from `trunc` (rounding half
    /// away from zero; PostgreSQL's `round` goes half to even), and `POWER` is NULL for 0 to a
    /// negative power and a negative number to a fractional one, as here.
    ///
    /// What the two engines do differently and cannot be translated is refused, never rendered
    /// with a different answer: the `nocase` collation, date arithmetic, casts other than integer
    /// to double, `LIKE` with a computed pattern, and the functions that have no exact PostgreSQL
    /// counterpart (`CONCAT`, `SUBSTRING`, `UPPER`, `LOWER`, `ROUND`/`TRUNCATE` to digits other
    /// than 0, `MOD` of doubles, `CASEI`, `ACCENTI`). Two documented differences remain, each an
    /// error or a difference beyond doubles' precision rather than another answer: a double
    /// operation that overflows (or a `POWER` that does) is PostgreSQL's error where GeoSieve gives
    /// NULL, and two integer and double columns are compared as doubles by PostgreSQL (an integer
    /// against a double constant is compared exactly).
    ///
    /// - Parameters:
    ///   - columns: The SQL of each field of the schema, by column index: a quoted identifier
    ///     (``postgreSQLIdentifier(_:)``), or an expression giving the field's GeoSieve type
    ///     (`("flag")::int` for a boolean column GeoSieve reads as 0/1).
    ///   - parameters: The statement's parameters so far; the clause's are added.
    ///   - extraColumn: How to write a column beyond `columns` (a CQL2 geometry test), adding
    ///     its own parameters; `nil` when there are none.
    /// - Throws: ``PostgreSQLRenderingError`` naming what cannot be rendered.
    public func postgreSQL(
        columns: [String], parameters: inout PostgreSQLParameters,
        extraColumn: ((Int, inout PostgreSQLParameters) throws(PostgreSQLRenderingError) -> String)? = nil
    ) throws(PostgreSQLRenderingError) -> String {
        guard collation == .binary else {
            throw PostgreSQLRenderingError(
                "the nocase collation folds case with Unicode tables PostgreSQL does not have; query with the binary collation")
        }
        var renderer = PostgreSQLRenderer(columns: columns, extraColumn: extraColumn, parameters: parameters)
        let sql = try renderer.condition(expression)
        parameters = renderer.parameters
        return sql
    }
}
