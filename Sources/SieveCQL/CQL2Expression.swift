import SieveGeometry

/// A CQL2 filter or value expression (OGC 21-065r2), as read from either encoding.
///
/// One tree serves both the text encoding (``CQL2Text``) and the JSON encoding: every construct
/// either encoding can say has a case here, and the tree holds no source positions, so the text
/// and JSON forms of one filter give equal trees.
///
/// Boolean and scalar expressions share the type, as they do in the grammar (a function or a
/// property can be either, and a comparison may compare booleans); the parsers check the shape
/// of the input, not the types of values, which a binder does against a schema.
///
/// ```swift
/// let filter = try CQL2Text.parse("pop > 1000 AND S_INTERSECTS(geom, BBOX(0, 0, 10, 10))")
/// // .and([.comparison(.greaterThan, .property("pop"), .integer(1000)),
/// //       .spatial(.intersects, .property("geom"), .bbox([0, 0, 10, 10]))])
/// ```
public indirect enum CQL2Expression: Hashable, Sendable {
    // MARK: Logical operators

    /// All operands true (`a AND b AND c`). A chain written without parentheses is one node
    /// with all its operands; parenthesized groups stay nested.
    case and([CQL2Expression])
    /// Any operand true (`a OR b OR c`), n-ary like ``and(_:)``.
    case or([CQL2Expression])
    /// Negation (`NOT a`).
    case not(CQL2Expression)

    // MARK: Comparison predicates

    /// A binary comparison (`a = b`, `a <> b`, `a < b`, `a <= b`, `a > b`, `a >= b`).
    case comparison(CQL2ComparisonOperator, CQL2Expression, CQL2Expression)
    /// `value [NOT] LIKE pattern`; the pattern uses `%` and `_` as wildcards and `\` as escape.
    case like(CQL2Expression, pattern: CQL2Expression, negated: Bool)
    /// `value [NOT] BETWEEN lower AND upper`.
    case between(CQL2Expression, lower: CQL2Expression, upper: CQL2Expression, negated: Bool)
    /// `value [NOT] IN (item, …)`.
    case inList(CQL2Expression, [CQL2Expression], negated: Bool)
    /// `value IS [NOT] NULL`.
    case isNull(CQL2Expression, negated: Bool)

    // MARK: Character functions

    /// `CASEI(value)`: the value with letter case ignored in comparisons.
    case caseInsensitive(CQL2Expression)
    /// `ACCENTI(value)`: the value with accents ignored in comparisons.
    case accentInsensitive(CQL2Expression)

    // MARK: Spatial, temporal and array predicates

    /// A spatial comparison function (`S_INTERSECTS(a, b)`, …).
    case spatial(CQL2SpatialFunction, CQL2Expression, CQL2Expression)
    /// A temporal comparison function (`T_AFTER(a, b)`, …).
    case temporal(CQL2TemporalFunction, CQL2Expression, CQL2Expression)
    /// An array comparison function (`A_CONTAINS(a, b)`, …).
    case arrayComparison(CQL2ArrayFunction, CQL2Expression, CQL2Expression)

    // MARK: Functions and arithmetic

    /// A call of any other function by name, with its arguments (possibly none). The name is
    /// kept as written.
    case function(name: String, arguments: [CQL2Expression])
    /// A binary arithmetic operation (`+ - * / % div ^`).
    case arithmetic(CQL2ArithmeticOperator, CQL2Expression, CQL2Expression)
    /// Unary minus before a property, a function call or a parenthesized expression (a minus
    /// before a number literal is part of the literal: `-5` is ``integer(_:)`` of `-5`).
    case negate(CQL2Expression)

    // MARK: Operands

    /// A property (a field of the features), by name, without quotes.
    case property(String)
    /// A character literal, unescaped.
    case string(String)
    /// A number literal written without fraction and exponent that fits in `Int64`.
    case integer(Int64)
    /// Any other number literal.
    case real(Double)
    /// `TRUE` or `FALSE`.
    case boolean(Bool)
    /// `DATE('yyyy-mm-dd')`, the date as written.
    case date(String)
    /// `TIMESTAMP('yyyy-mm-ddThh:mm:ss[.fff]Z')`, the timestamp as written.
    case timestamp(String)
    /// `INTERVAL(start, end)`.
    case interval(CQL2IntervalBound, CQL2IntervalBound)
    /// A geometry literal (WKT in the text encoding, GeoJSON in the JSON encoding).
    case geometry(Geometry)
    /// `BBOX(…)`: 4 numbers (west, south, east, north) or 6 (west, south, min elevation, east,
    /// north, max elevation), in that order.
    case bbox([Double])
    /// An array: `('a', 'b')` in text, `["a", "b"]` in JSON.
    case array([CQL2Expression])
}

/// The operator of a ``CQL2Expression/comparison(_:_:_:)``.
public enum CQL2ComparisonOperator: String, Hashable, Sendable, CaseIterable {
    /// `=`
    case equal = "="
    /// `<>`
    case notEqual = "<>"
    /// `<`
    case lessThan = "<"
    /// `<=`
    case lessThanOrEqual = "<="
    /// `>`
    case greaterThan = ">"
    /// `>=`
    case greaterThanOrEqual = ">="
}

/// The operator of a ``CQL2Expression/arithmetic(_:_:_:)``; the raw value is its text spelling.
public enum CQL2ArithmeticOperator: String, Hashable, Sendable, CaseIterable {
    /// `+`
    case add = "+"
    /// `-`
    case subtract = "-"
    /// `*`
    case multiply = "*"
    /// `/`
    case divide = "/"
    /// `%`, the remainder.
    case remainder = "%"
    /// `div`, integer division.
    case integerDivide = "div"
    /// `^`, exponentiation.
    case power = "^"
}

/// The spatial comparison functions; the raw value is the function's name.
public enum CQL2SpatialFunction: String, Hashable, Sendable, CaseIterable {
    case intersects = "S_INTERSECTS"
    case equals = "S_EQUALS"
    case disjoint = "S_DISJOINT"
    case touches = "S_TOUCHES"
    case within = "S_WITHIN"
    case overlaps = "S_OVERLAPS"
    case crosses = "S_CROSSES"
    case contains = "S_CONTAINS"
}

/// The temporal comparison functions; the raw value is the function's name.
public enum CQL2TemporalFunction: String, Hashable, Sendable, CaseIterable {
    case after = "T_AFTER"
    case before = "T_BEFORE"
    case contains = "T_CONTAINS"
    case disjoint = "T_DISJOINT"
    case during = "T_DURING"
    case equals = "T_EQUALS"
    case finishedBy = "T_FINISHEDBY"
    case finishes = "T_FINISHES"
    case intersects = "T_INTERSECTS"
    case meets = "T_MEETS"
    case metBy = "T_METBY"
    case overlappedBy = "T_OVERLAPPEDBY"
    case overlaps = "T_OVERLAPS"
    case startedBy = "T_STARTEDBY"
    case starts = "T_STARTS"
}

extension CQL2TemporalFunction {
    /// Whether CQL2 1.0 defines the function on instants as well as intervals: T_AFTER,
    /// T_BEFORE, T_DISJOINT, T_EQUALS and T_INTERSECTS. The others (T_DURING, T_MEETS, …) take
    /// intervals only, and a date or timestamp argument is refused.
    public var acceptsInstants: Bool {
        switch self {
        case .after, .before, .disjoint, .equals, .intersects: true
        default: false
        }
    }
}

/// The array comparison functions; the raw value is the function's name.
public enum CQL2ArrayFunction: String, Hashable, Sendable, CaseIterable {
    case equals = "A_EQUALS"
    case contains = "A_CONTAINS"
    case containedBy = "A_CONTAINEDBY"
    case overlaps = "A_OVERLAPS"
}

/// One end of an ``CQL2Expression/interval(_:_:)``.
public enum CQL2IntervalBound: Hashable, Sendable {
    /// A date, `'yyyy-mm-dd'`, as written.
    case date(String)
    /// A timestamp, `'yyyy-mm-ddThh:mm:ss[.fff]Z'`, as written.
    case timestamp(String)
    /// `'..'`: the interval is open at this end.
    case unbounded
    /// A property or function call giving the instant.
    case expression(CQL2Expression)
}

extension CQL2Expression {
    /// Whether the node can stand where CQL2 expects a condition (a filter, an operand of
    /// AND, OR or NOT): a logical operation, a predicate, a function call or a boolean literal.
    /// A bare property, literal, arithmetic or array is not one (the grammar's `booleanPrimary`).
    public var isConditionShaped: Bool {
        switch self {
        case .and, .or, .not, .comparison, .like, .between, .inList, .isNull, .spatial, .temporal, .arrayComparison,
            .function, .boolean:
            true
        default:
            false
        }
    }

    /// Whether the node can be an end of an interval besides a date, a timestamp and `'..'`: a
    /// property or a function call (the grammar's `instantParameter`).
    public var isIntervalEnd: Bool {
        switch self {
        case .property, .function: true
        default: false
        }
    }

    /// Whether the node can stand as an argument of the temporal functions that CQL2 defines on
    /// intervals only (all but T_AFTER, T_BEFORE, T_DISJOINT, T_EQUALS and T_INTERSECTS): an
    /// interval, or a property or function call (whose value is checked when it is bound).
    public var isIntervalArgument: Bool {
        switch self {
        case .interval, .property, .function: true
        default: false
        }
    }

    /// Whether the node can be the pattern of LIKE: a string literal, or `CASEI`/`ACCENTI` of a
    /// pattern (the grammar's `patternExpression`).
    public var isLikePattern: Bool {
        switch self {
        case .string: true
        case .caseInsensitive(let inner), .accentInsensitive(let inner): inner.isLikePattern
        default: false
        }
    }
}
