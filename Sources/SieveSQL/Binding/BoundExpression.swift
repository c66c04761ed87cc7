import SieveColumns

/// A where clause after binding: field names resolved to column indices, every node typed,
/// literals converted, functions checked. This is what the evaluators run.
enum BoundExpression: Sendable {
    /// A constant (literals and folded constant subexpressions).
    case constant(ScalarValue, SQLType)
    /// Column `index` of the table.
    case column(index: Int, type: SQLType)
    /// `NOT x`.
    indirect case not(BoundExpression)
    /// `a AND b AND …` (flattened).
    case and([BoundExpression])
    /// `a OR b OR …` (flattened).
    case or([BoundExpression])
    /// A comparison of two operands of comparable types.
    indirect case compare(ComparisonOperator, BoundExpression, BoundExpression)
    /// `x IS [NOT] NULL`.
    indirect case isNull(BoundExpression, negated: Bool)
    /// `x [NOT] IN (…)`.
    indirect case inList(BoundExpression, [BoundExpression], negated: Bool)
    /// `x [NOT] IN (…)` with a long list: its constants hashed, its other items (rarely any)
    /// scanned.
    indirect case inSet(BoundExpression, ConstantSet, [BoundExpression], negated: Bool)
    /// `x [NOT] BETWEEN low AND high`.
    indirect case between(BoundExpression, BoundExpression, BoundExpression, negated: Bool)
    /// `x [NOT] LIKE pattern` with a constant pattern.
    indirect case like(BoundExpression, LikePattern, negated: Bool)
    /// `x [NOT] LIKE pattern [ESCAPE e]` with a pattern computed per row.
    indirect case likeDynamic(BoundExpression, BoundExpression, escape: String?, negated: Bool)
    /// Arithmetic with the result type decided by the binder.
    indirect case arithmetic(ArithmeticOperator, BoundExpression, BoundExpression, SQLType)
    /// Unary minus.
    indirect case negate(BoundExpression, SQLType)
    /// A built-in function.
    case function(BuiltinFunction, [BoundExpression], SQLType)
    /// `CASE WHEN c THEN v … [ELSE e] END` (simple CASE is rewritten to this form).
    indirect case caseWhen([(condition: BoundExpression, value: BoundExpression)], otherwise: BoundExpression?, SQLType)
    /// `CAST(x AS type)`.
    indirect case cast(BoundExpression, to: SQLType)

    /// The result type.
    var type: SQLType {
        switch self {
        case .constant(_, let type), .column(_, let type): type
        case .not, .and, .or, .compare, .isNull, .inList, .inSet, .between, .like, .likeDynamic: .boolean
        case .arithmetic(_, _, _, let type), .negate(_, let type), .function(_, _, let type),
            .caseWhen(_, _, let type):
            type
        case .cast(_, let type): type
        }
    }

    /// The columns this expression reads.
    var columns: Set<Int> {
        switch self {
        case .constant: []
        case .column(let index, _): [index]
        case .not(let x), .isNull(let x, _), .like(let x, _, _), .negate(let x, _), .cast(let x, _): x.columns
        case .and(let xs), .or(let xs), .function(_, let xs, _): xs.reduce(into: Set<Int>()) { $0.formUnion($1.columns) }
        case .compare(_, let a, let b), .arithmetic(_, let a, let b, _): a.columns.union(b.columns)
        case .likeDynamic(let a, let b, _, _): a.columns.union(b.columns)
        case .inList(let x, let list, _), .inSet(let x, _, let list, _): list.reduce(into: x.columns) { $0.formUnion($1.columns) }
        case .between(let x, let low, let high, _): x.columns.union(low.columns).union(high.columns)
        case .caseWhen(let branches, let otherwise, _):
            branches.reduce(into: otherwise?.columns ?? []) { $0.formUnion($1.condition.columns.union($1.value.columns)) }
        }
    }

    /// The constant value, when this is a constant.
    var constantValue: ScalarValue? {
        if case .constant(let value, _) = self { return value }
        return nil
    }
}

extension ComparisonOperator {
    /// Whether a three-way comparison result (negative, zero, positive: the left operand below,
    /// equal to or above the right one) satisfies the operator.
    @inline(__always)
    public func holds(_ order: Int) -> Bool {
        switch self {
        case .equal: order == 0
        case .notEqual: order != 0
        case .less: order < 0
        case .lessOrEqual: order <= 0
        case .greater: order > 0
        case .greaterOrEqual: order >= 0
        }
    }

    /// The operator with its operands swapped (`a < b` ⇔ `b > a`).
    public var swapped: ComparisonOperator {
        switch self {
        case .equal, .notEqual: self
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        }
    }
}

/// The built-in functions of the where-clause language. Those called by name bind through
/// their ``FunctionRegistry`` entries; the `EXTRACT` fields and the millisecond arithmetic of
/// `date ± INTERVAL …` come from those forms and have no name of their own.
enum BuiltinFunction: String, Sendable, Hashable, CaseIterable {
    case charLength = "CHAR_LENGTH"
    case concat = "CONCAT"
    case position = "POSITION"
    case substring = "SUBSTRING"
    case trimBoth = "TRIM"
    case trimLeading = "LTRIM"
    case trimTrailing = "RTRIM"
    case upper = "UPPER"
    case lower = "LOWER"
    case abs = "ABS"
    case ceiling = "CEILING"
    case floor = "FLOOR"
    case round = "ROUND"
    case truncate = "TRUNCATE"
    case mod = "MOD"
    case power = "POWER"
    case log = "LOG"
    case log10 = "LOG10"
    case sin = "SIN"
    case cos = "COS"
    case tan = "TAN"
    case sign = "SIGN"
    case coalesce = "COALESCE"
    case nullif = "NULLIF"
    case extractYear = "EXTRACT_YEAR"
    case extractMonth = "EXTRACT_MONTH"
    case extractDay = "EXTRACT_DAY"
    case extractHour = "EXTRACT_HOUR"
    case extractMinute = "EXTRACT_MINUTE"
    case extractSecond = "EXTRACT_SECOND"
    /// `date ± INTERVAL …`: adds a number of milliseconds to a date.
    case addMilliseconds = "ADD_MILLISECONDS"
    /// `date - INTERVAL …`: subtracts a number of milliseconds from a date.
    case subtractMilliseconds = "SUBTRACT_MILLISECONDS"
    /// CQL2's `CASEI`: full Unicode case folding.
    case caseFold = "CASEI"
    /// CQL2's `ACCENTI`: accents removed.
    case accentFold = "ACCENTI"
}
