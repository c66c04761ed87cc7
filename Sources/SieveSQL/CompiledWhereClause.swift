import SieveColumns

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A where clause parsed, bound to a schema and ready to run: the unit a feature table queries
/// with, and the unit a user tests predicates with.
///
/// ```swift
/// let schema = SimpleSchema([("POP", .integer), ("NAME", .string)])
/// let clause = try CompiledWhereClause("pop > 1000 AND name LIKE 'San%'", schema: schema)
/// let rows = clause.matchingRows(in: columns, rowCount: count)     // vectorized scan
/// clause.evaluate(row: 3, in: columns)                            // true, false or nil (unknown)
/// ```
///
/// Field names resolve case-insensitively; string comparison and `LIKE` follow ``collation``.
/// `CURRENT_DATE` and `CURRENT_TIMESTAMP` are fixed when the clause is compiled.
/// The value is immutable and `Sendable`; running it creates per-call scratch space, so one
/// clause may be run from several threads at once.
public struct CompiledWhereClause: Sendable, CustomStringConvertible {
    /// The SQL text.
    public let sql: String
    /// How strings compare.
    public let collation: Collation
    let expression: BoundExpression

    /// Parses and binds `sql`.
    /// - Parameters:
    ///   - sql: The where clause, e.g. `POP > 100000 AND CATEGORY = 'Parks'`. Empty text (or
    ///     only spaces) selects every row, as `1=1` does.
    ///   - schema: The fields the clause may name.
    ///   - collation: Binary (case-sensitive, the default) or case-insensitive string matching.
    ///   - now: The instant `CURRENT_TIMESTAMP` stands for, in epoch milliseconds; the current
    ///     time when `nil`.
    /// - Throws: ``WhereClauseError`` saying what is wrong and where.
    public init(
        _ sql: String, schema: any WhereClauseSchema, collation: Collation = .binary, now: Int64? = nil
    ) throws(WhereClauseError) {
        self.sql = sql
        self.collation = collation
        // Empty text, and the `1=1` every client sends for "all" (the default of every query
        // and identify), select every row without parsing.
        if sql == "1=1" || sql.allSatisfy(\.isWhitespace) {
            expression = .constant(.boolean(true), .boolean)
            return
        }
        let tree = try WhereClause.parse(sql)
        let binder = Binder(sql: sql, schema: schema, collation: collation, now: now ?? Self.currentTime())
        expression = try binder.bindCondition(tree)
    }

    /// Binds a tree built in code or by another language's front end (CQL2), with `text`
    /// standing for it in ``sql`` and in error messages.
    ///
    /// Errors carry the ranges of the tree's nodes, whatever they mean to the caller: a front
    /// end that numbers its nodes in the ranges maps an error back to its own source.
    /// - Parameters:
    ///   - tree: The condition.
    ///   - text: The text the clause shows as ``sql``.
    ///   - schema: The fields the tree may name.
    ///   - collation: How strings compare.
    ///   - dialect: The language the tree was written in (what binding accepts).
    ///   - now: The instant `CURRENT_TIMESTAMP` stands for; the current time when `nil`.
    /// - Throws: ``WhereClauseError`` with the range of the offending node.
    public init(
        tree: SQLExpression, text: String, schema: any WhereClauseSchema, collation: Collation = .binary,
        dialect: WhereClauseDialect, now: Int64? = nil
    ) throws(WhereClauseError) {
        // The binder and evaluators recurse once per level: the parser's limit (plus the few
        // levels a front end's rewriting adds) keeps them within the stack it was measured for.
        let limit = WhereClause.defaultMaximumDepth + 16
        guard tree.height <= limit else {
            throw WhereClauseError(
                .nestingTooDeep, "expression nested too deeply (more than \(limit) levels)", sql: text, range: tree.range)
        }
        self.sql = text
        self.collation = collation
        var binder = Binder(sql: text, schema: schema, collation: collation, now: now ?? Self.currentTime())
        binder.dialect = dialect
        expression = try binder.bindCondition(tree)
    }

    private init(sql: String, collation: Collation, expression: BoundExpression) {
        self.sql = sql
        self.collation = collation
        self.expression = expression
    }

    /// A clause that selects every row.
    public static func all(collation: Collation = .binary) -> CompiledWhereClause {
        CompiledWhereClause(sql: "1=1", collation: collation, expression: .constant(.boolean(true), .boolean))
    }

    /// Both clauses (`(self) AND (other)`): how a layer's definition expression limits a query.
    /// The result uses this clause's collation. The conditions stay one flat AND however many
    /// clauses are combined, so evaluating them never recurses per clause.
    public func and(_ other: CompiledWhereClause) -> CompiledWhereClause {
        var operands: [BoundExpression] = []
        for expression in [expression, other.expression] {
            if case .and(let inner) = expression { operands += inner } else { operands.append(expression) }
        }
        return CompiledWhereClause(sql: "(\(sql)) AND (\(other.sql))", collation: collation, expression: .and(operands))
    }

    /// Whether the clause selects every row without looking at any (`1=1`, empty text).
    public var selectsEverything: Bool {
        if case .constant(.boolean(true), _) = expression { return true }
        return false
    }

    /// The clause's value at one row: `true`, `false`, or `nil` when unknown (NULL). A row is
    /// selected only when this is `true`.
    public func evaluate(row: Int, in columns: [Column]) -> Bool? {
        switch RowEvaluator(columns: columns, collation: collation).evaluate(expression, row: row) {
        case .boolean(let value): return value
        default: return nil
        }
    }

    /// The rows that pass, ascending: among `0 ..< rowCount`, or among `candidates` (sorted
    /// ascending) when given.
    /// - Complexity: One vectorized pass over the columns the clause reads.
    public func matchingRows(in columns: [Column], rowCount: Int, candidates: [UInt32]? = nil) -> [UInt32] {
        if selectsEverything { return candidates ?? (0..<UInt32(rowCount)).map { $0 } }
        return FilterProgram(expression, columns: columns, collation: collation).rows(rowCount: rowCount, candidates: candidates)
    }

    /// How many rows pass (see ``matchingRows(in:rowCount:candidates:)``).
    public func count(in columns: [Column], rowCount: Int, candidates: [UInt32]? = nil) -> Int {
        if selectsEverything { return candidates?.count ?? rowCount }
        return FilterProgram(expression, columns: columns, collation: collation).count(rowCount: rowCount, candidates: candidates)
    }

    public var description: String { sql }

    /// The current time in epoch milliseconds.
    static func currentTime() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}
