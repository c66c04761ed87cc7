import SieveColumns

/// An expression of the where-clause language parsed, bound to a schema and ready to compute
/// its value per row: what a renderer classifies by, what a statistic sums.
///
/// ```swift
/// let schema = SimpleSchema([("POP_EST", .integer), ("GDP_MD_EST", .double), ("NAME", .string)])
/// let density = try CompiledValueExpression("POP_EST / GDP_MD_EST", schema: schema)
/// density.resultType                                   // .double
/// density.value(row: 3, in: columns)                   // .double(…) or .null
/// let values = density.values(rowCount: count, in: columns)   // vectorized
/// values.doubles, values.isNull
/// try CompiledValueExpression("UPPER(NAME)", schema: schema).scalarValues(rowCount: count, in: columns)
/// ```
///
/// Anything the where-clause grammar accepts as an operand or a condition is a value
/// expression: fields, literals, arithmetic, functions, `CASE`, `CAST`, `EXTRACT`, date
/// arithmetic; a condition's value is a truth value (``SQLType/boolean``), NULL when unknown.
/// The values follow the where-clause semantics exactly (see ``CompiledWhereClause``): integer
/// arithmetic stays integral (`7 / 2` is 3, truncated toward zero), and integer overflow,
/// division by zero and a double result that is not finite give NULL.
///
/// The columns passed in are the table's, in the schema's order and types. A row beyond the
/// end of a column the expression reads (or a column missing from the array) reads as NULL.
/// The value is immutable and `Sendable`; one expression may be run from several threads at
/// once.
public struct CompiledValueExpression: Sendable, CustomStringConvertible {
    /// The SQL text.
    public let sql: String
    /// How strings compare (in `=`, `CASE`, `NULLIF`, `LIKE`, …).
    public let collation: Collation
    /// The type of every value: ``SQLType/integer``, ``SQLType/double``, ``SQLType/string``,
    /// ``SQLType/date``, ``SQLType/boolean`` (conditions), ``SQLType/interval``, or
    /// ``SQLType/null`` (an expression that is always NULL, such as `NULL + 1`). The values are
    /// of this type or NULL; ``SQLType/interval`` values are integers (milliseconds).
    public let resultType: SQLType
    /// The schema indices of the fields the expression reads, ascending (empty for a constant
    /// expression).
    public let referencedColumns: [Int]
    let expression: BoundExpression

    /// Parses and binds `sql`.
    /// - Parameters:
    ///   - sql: The expression, e.g. `POP_EST / GDP_MD_EST`, `UPPER(NAME)`,
    ///     `CASE WHEN POP > 1000000 THEN 'large' ELSE 'small' END` or `EXTRACT(YEAR FROM CREATED)`.
    ///   - schema: The fields the expression may name.
    ///   - collation: Binary (case-sensitive, the default) or case-insensitive string matching.
    ///   - now: The instant `CURRENT_TIMESTAMP` stands for, in epoch milliseconds; the current
    ///     time when `nil`. `CURRENT_DATE` and `CURRENT_TIMESTAMP` are fixed when the expression
    ///     is compiled.
    /// - Throws: ``WhereClauseError`` saying what is wrong and where: a syntax error, an unknown
    ///   field or function, mismatched types; empty text (or only spaces) is a
    ///   ``WhereClauseError/Kind/syntaxError``, since no value can be computed from it.
    public init(
        _ sql: String, schema: any WhereClauseSchema, collation: Collation = .binary, now: Int64? = nil
    ) throws(WhereClauseError) {
        if sql.allSatisfy(\.isWhitespace) {
            throw WhereClauseError(
                .syntaxError, "the value expression is empty: expected a field, a constant or an expression such as POP / AREA",
                sql: sql, range: SourceRange(at: 0))
        }
        let tree = try WhereClause.parse(sql)
        let binder = Binder(sql: sql, schema: schema, collation: collation, now: now ?? CompiledWhereClause.currentTime())
        let bound = try binder.bindValue(tree)
        self.sql = sql
        self.collation = collation
        self.expression = bound
        self.resultType = bound.type
        self.referencedColumns = bound.columns.sorted()
    }

    public var description: String { sql }

    /// Whether the values are numbers (integers or doubles): the expressions whose
    /// ``values(rowCount:in:)`` are their values without conversion.
    public var isNumeric: Bool { resultType.isNumeric }

    // MARK: One row

    /// The value at `row`: of ``resultType``, or `.null`. Conditions give `.boolean` or `.null`
    /// (unknown). This is the reference the vectorized methods agree with.
    public func value(row: Int, in columns: [Column]) -> ScalarValue {
        guard row >= 0, row < availableRows(in: columns) else { return .null }
        return RowEvaluator(columns: columns, collation: collation).evaluate(expression, row: row)
    }

    // MARK: Many rows

    /// The values at rows `0 ..< rowCount`, as ``value(row:in:)`` gives them.
    /// - Complexity: Column at a time where a kernel applies (see ``values(rowCount:in:)``), one
    ///   row evaluation per row elsewhere.
    public func scalarValues(rowCount: Int, in columns: [Column]) -> [ScalarValue] {
        vector(.first(max(rowCount, 0)), in: columns).scalars
    }

    /// The values at `rows` (any order, repeats allowed), as ``value(row:in:)`` gives them.
    public func scalarValues(rows: [UInt32], in columns: [Column]) -> [ScalarValue] {
        vector(.ids(rows), in: columns).scalars
    }

    /// The values at rows `0 ..< rowCount` as doubles, with the NULLs marked apart (see
    /// ``NumericValues``).
    ///
    /// Columns, constants, `+ - * /`, unary minus and `CAST(… AS FLOAT)` / `CAST(… AS INTEGER)`
    /// of numeric operands are computed column at a time; any other part of the expression
    /// (functions, `CASE`, …) row by row, and the kernels combine the results. The answers are
    /// exactly ``value(row:in:)``'s: integer subexpressions are computed in 64-bit integers
    /// (overflow → NULL) and converted to `Double` only at the end.
    public func values(rowCount: Int, in columns: [Column]) -> NumericValues {
        NumericValues(vector(.first(max(rowCount, 0)), in: columns))
    }

    /// The values at `rows` (any order, repeats allowed) as doubles, with the NULLs marked
    /// apart (see ``values(rowCount:in:)``).
    public func values(rows: [UInt32], in columns: [Column]) -> NumericValues {
        NumericValues(vector(.ids(rows), in: columns))
    }

    /// The values at rows `0 ..< rowCount` as doubles, NaN for NULL (see
    /// ``values(rowCount:in:)``, which keeps a NULL apart from a NaN a double column holds).
    public func doubles(rowCount: Int, in columns: [Column]) -> [Double] {
        values(rowCount: rowCount, in: columns).nanForNull
    }

    /// The values at `rows` as doubles, NaN for NULL (see ``values(rows:in:)``).
    public func doubles(rows: [UInt32], in columns: [Column]) -> [Double] {
        values(rows: rows, in: columns).nanForNull
    }

    // MARK: Evaluation

    /// How many rows every column the expression reads has (`Int.max` when it reads none).
    private func availableRows(in columns: [Column]) -> Int {
        var available = Int.max
        for index in referencedColumns {
            guard index < columns.count else { return 0 }
            available = min(available, columns[index].count)
        }
        return available
    }

    /// The values at `rows`; rows beyond the columns are NULL.
    func vector(_ rows: ValueRows, in columns: [Column]) -> ValueVector {
        let kernels = ValueKernels(columns: columns, collation: collation)
        let available = availableRows(in: columns)
        switch rows {
        case .first(let count) where count <= available:
            return kernels.evaluate(expression, rows: rows)
        case .ids(let ids) where ids.allSatisfy({ Int($0) < available }):
            return kernels.evaluate(expression, rows: rows)
        default:
            break
        }
        // Some rows are out of range: compute the others, NULL for these.
        var inside: [UInt32] = []
        var positions: [Int] = []
        for k in 0..<rows.count where rows.row(k) < available {
            inside.append(UInt32(truncatingIfNeeded: rows.row(k)))
            positions.append(k)
        }
        let computed = kernels.evaluate(expression, rows: .ids(inside))
        var result = Array(repeating: ScalarValue.null, count: rows.count)
        for (j, k) in positions.enumerated() { result[k] = computed.scalar(j) }
        return .scalars(result)
    }
}

/// The values of a ``CompiledValueExpression`` as doubles, with the NULLs marked apart.
///
/// `doubles[k]` is the value at the `k`-th row asked for, `isNull[k]` whether that value is
/// NULL (then `doubles[k]` is NaN). A non-NULL NaN is a NaN a double column holds (arithmetic
/// never produces one: a result that is not finite is NULL).
///
/// Values that are not numbers are given their numeric reading: a date its epoch
/// milliseconds, an interval its milliseconds, a truth value 1 or 0, a string what
/// `CAST(… AS FLOAT)` makes of it (NULL when it does not read as a number).
public struct NumericValues: Sendable {
    /// The values; NaN where NULL.
    public var doubles: [Double]
    /// Which values are NULL.
    public var isNull: [Bool]

    /// The number of values.
    public var count: Int { doubles.count }

    /// The values with NULL as NaN.
    public var nanForNull: [Double] { doubles }

    init(_ vector: ValueVector) {
        switch vector {
        case .integers(let values, let nulls):
            let isNull = nulls ?? Array(repeating: false, count: values.count)
            doubles = values.indices.map { isNull[$0] ? .nan : Double(values[$0]) }
            self.isNull = isNull
        case .doubles(let values, let nulls):
            let isNull = nulls ?? Array(repeating: false, count: values.count)
            doubles = nulls == nil ? values : values.indices.map { isNull[$0] ? .nan : values[$0] }
            self.isNull = isNull
        case .scalars(let values):
            let readings = values.map(Self.numericReading)
            doubles = readings.map { $0 ?? .nan }
            isNull = readings.map { $0 == nil }
        }
    }

    /// A value as a number, `nil` for NULL and text that is not a number.
    static func numericReading(_ value: ScalarValue) -> Double? {
        switch value {
        case .null: nil
        case .integer(let x), .date(let x): Double(x)
        case .double(let x): x
        case .boolean(let b): b ? 1 : 0
        case .string:
            if case .double(let x) = Cast.apply(value, to: .double) { x } else { nil }
        }
    }
}
