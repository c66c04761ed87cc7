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

/// Why a clause cannot be written as PostgreSQL SQL that gives the same answers.
public struct PostgreSQLRenderingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What cannot be rendered, and why.
    public let message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }

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
    /// What the two engines do differently and cannot be translated is refused, never rendered
    /// with a different answer: the `nocase` collation, date arithmetic, casts other than integer
    /// to double, `LIKE` with a computed pattern, and the functions whose registry entry says
    /// they have no PostgreSQL counterpart (`CONCAT`, `SUBSTRING`, `UPPER`, `LOWER`, `ROUND` and
    /// `TRUNCATE` of doubles or with digits, `MOD` of doubles, `CASEI`, `ACCENTI`). Two
    /// documented differences remain, each an error rather than a different answer or a
    /// difference beyond doubles' precision: a double operation that overflows or a `POWER` that
    /// is not finite is PostgreSQL's error where GeoSieve gives NULL, and an integer beyond ±2^53
    /// compared with a double is compared as a double by PostgreSQL.
    ///
    /// - Parameters:
    ///   - columns: The PostgreSQL column of each field of the schema, by column index.
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
