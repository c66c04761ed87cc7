/// A parsed where-clause expression: a node ``Kind`` and the ``range`` of SQL text it came from.
///
/// The tree is what the parser read, with only these normalizations:
/// - `!=` becomes ``ComparisonOperator/notEqual`` (the same as `<>`);
/// - a `-` or `+` sign written directly before a number becomes part of the number literal
///   (`-5` is ``Literal/integer(_:)`` `-5`, and `-9223372036854775808` is `Int64.min`); signs
///   before anything else are ``Kind/negate(_:)`` and ``Kind/plus(_:)``;
/// - a chain `a AND b AND c` (likewise `OR`) is one n-ary ``Kind/and(_:)`` node; parentheses
///   keep their grouping, so `(a AND b) AND c` is an `and` inside an `and`;
/// - `POSITION(sub IN s)` is the call `POSITION(sub, s)`, and `SUBSTRING(s FROM i FOR n)` is
///   `SUBSTRING(s, i, n)`;
/// - `CURRENT_DATE()` is `CURRENT_DATE`, and `CAST` type names are reduced to ``CastTarget``.
///
/// The range of a node covers all of its text, including the parentheses written around it.
/// Every node's ``height`` is at most the parser's nesting limit, so recursive walks are safe.
///
/// ``description`` renders the tree as an s-expression (see ``sexpr``).
public struct SQLExpression: Hashable, Sendable, CustomStringConvertible {
    /// The node.
    public var kind: Kind {
        didSet { height = Self.height(of: kind) }
    }
    /// Where the node's text is in the SQL string.
    public var range: SourceRange
    /// The number of nodes on the longest path from this node down to a leaf (a leaf has
    /// height 1). The parser rejects trees taller than its nesting limit.
    public private(set) var height: Int

    /// A node of `kind` spanning `range`.
    public init(_ kind: Kind, range: SourceRange) {
        self.kind = kind
        self.range = range
        self.height = Self.height(of: kind)
    }

    /// The kinds of node.
    public indirect enum Kind: Hashable, Sendable {
        /// A constant.
        case literal(Literal)
        /// A reference to a field by name.
        case field(FieldReference)
        /// `CURRENT_DATE` (also written `CURRENT_DATE()`): today's date at midnight UTC.
        case currentDate
        /// `CURRENT_TIMESTAMP` (also written `CURRENT_TIMESTAMP()`): the current instant.
        case currentTimestamp
        /// Unary minus, `-x` (when `x` is not a number literal).
        case negate(SQLExpression)
        /// Unary plus, `+x` (when `x` is not a number literal).
        case plus(SQLExpression)
        /// `NOT x`.
        case not(SQLExpression)
        /// `l + r`, `l - r`, `l * r`, `l / r`.
        case arithmetic(ArithmeticOperator, SQLExpression, SQLExpression)
        /// `l = r`, `l <> r` (and `!=`), `l < r`, `l <= r`, `l > r`, `l >= r`.
        case comparison(ComparisonOperator, SQLExpression, SQLExpression)
        /// `a AND b AND …`: two or more operands, in order.
        case and([SQLExpression])
        /// `a OR b OR …`: two or more operands, in order.
        case or([SQLExpression])
        /// `x IS NULL`, or `x IS NOT NULL` when `negated`.
        case isNull(SQLExpression, negated: Bool)
        /// `x IN (v1, v2, …)`, or `x NOT IN (…)` when `negated`. The list is never empty.
        case inList(SQLExpression, [SQLExpression], negated: Bool)
        /// `x BETWEEN lower AND upper` (inclusive), or `NOT BETWEEN` when `negated`.
        case between(SQLExpression, lower: SQLExpression, upper: SQLExpression, negated: Bool)
        /// `x LIKE pattern [ESCAPE escape]`, or `NOT LIKE` when `negated`. The pattern and escape
        /// are additive expressions as written (usually string literals); the binder decides
        /// what it accepts.
        case like(SQLExpression, pattern: SQLExpression, escape: SQLExpression?, negated: Bool)
        /// `CASE [operand] WHEN … THEN … [ELSE …] END`. With an operand (simple `CASE`) each
        /// `when` is compared to the operand; without (searched `CASE`) each `when` is a
        /// condition. At least one branch.
        case caseWhen(operand: SQLExpression?, branches: [CaseBranch], otherwise: SQLExpression?)
        /// `CAST(x AS type)`.
        case cast(SQLExpression, to: CastTarget)
        /// `EXTRACT(field FROM x)`.
        case extract(DateTimeField, from: SQLExpression)
        /// `TRIM([BOTH|LEADING|TRAILING] [characters FROM] source)`; `characters` is `nil` when
        /// not written (trim spaces). The mode is ``TrimMode/both`` when not written.
        case trim(TrimMode, characters: SQLExpression?, source: SQLExpression)
        /// Any other call `NAME(arguments…)`, including the normalized `POSITION` and
        /// `SUBSTRING` forms. The binder checks the name and arity.
        case function(FunctionCall)
    }

    /// The direct children of the node, in source order.
    public var children: [SQLExpression] {
        switch kind {
        case .literal, .field, .currentDate, .currentTimestamp:
            return []
        case .negate(let x), .plus(let x), .not(let x), .isNull(let x, _), .cast(let x, _), .extract(_, let x):
            return [x]
        case .arithmetic(_, let l, let r), .comparison(_, let l, let r):
            return [l, r]
        case .and(let operands), .or(let operands):
            return operands
        case .inList(let x, let list, _):
            return [x] + list
        case .between(let x, let lower, let upper, _):
            return [x, lower, upper]
        case .like(let x, let pattern, let escape, _):
            return [x, pattern] + (escape.map { [$0] } ?? [])
        case .caseWhen(let operand, let branches, let otherwise):
            var result = operand.map { [$0] } ?? []
            for branch in branches { result += [branch.when, branch.then] }
            if let otherwise { result.append(otherwise) }
            return result
        case .trim(_, let characters, let source):
            return (characters.map { [$0] } ?? []) + [source]
        case .function(let call):
            return call.arguments
        }
    }

    /// The names of the fields the expression reads, as written (resolved case-insensitively by
    /// the binder).
    public var fieldNames: Set<String> {
        var names = Set<String>()
        var pending = [self]
        while let node = pending.popLast() {
            if case .field(let field) = node.kind { names.insert(field.name) }
            pending += node.children
        }
        return names
    }

    static func height(of kind: Kind) -> Int {
        var tallest = 0
        switch kind {
        case .literal, .field, .currentDate, .currentTimestamp:
            break
        case .negate(let x), .plus(let x), .not(let x), .isNull(let x, _), .cast(let x, _), .extract(_, let x):
            tallest = x.height
        case .arithmetic(_, let l, let r), .comparison(_, let l, let r):
            tallest = max(l.height, r.height)
        case .and(let operands), .or(let operands):
            tallest = operands.map(\.height).max() ?? 0
        case .inList(let x, let list, _):
            tallest = max(x.height, list.map(\.height).max() ?? 0)
        case .between(let x, let lower, let upper, _):
            tallest = max(x.height, lower.height, upper.height)
        case .like(let x, let pattern, let escape, _):
            tallest = max(x.height, pattern.height, escape?.height ?? 0)
        case .caseWhen(let operand, let branches, let otherwise):
            tallest = max(operand?.height ?? 0, otherwise?.height ?? 0)
            for branch in branches { tallest = max(tallest, branch.when.height, branch.then.height) }
        case .trim(_, let characters, let source):
            tallest = max(characters?.height ?? 0, source.height)
        case .function(let call):
            tallest = call.arguments.map(\.height).max() ?? 0
        }
        return tallest + 1
    }
}

/// A constant value written in the where clause.
public enum Literal: Hashable, Sendable {
    /// `NULL`.
    case null
    /// `TRUE` or `FALSE`.
    case boolean(Bool)
    /// A number written without `.` or exponent that fits `Int64`, e.g. `42`, `-7`.
    case integer(Int64)
    /// A number written with `.` or an exponent (`0.5`, `1e3`), or an integer too large for
    /// `Int64` (`9223372036854775808`).
    case double(Double)
    /// `'text'`, with `''` unescaped to `'`. `N'text'` is the same.
    case string(String)
    /// `DATE 'yyyy-mm-dd'`: midnight UTC of that day, in epoch milliseconds.
    case date(Int64)
    /// `TIMESTAMP 'yyyy-mm-dd hh:mi[:ss[.fff]][±hh:mm]'` in epoch milliseconds; a time without
    /// an offset is read as UTC.
    case timestamp(Int64)
    /// `INTERVAL '…' qualifier` (day-time intervals only), as a signed number of milliseconds.
    case interval(milliseconds: Int64)
}

/// A field named in the where clause.
public struct FieldReference: Hashable, Sendable {
    /// The name as written, without quotes and with doubled quotes unescaped. Field names
    /// resolve case-insensitively in the binder whether quoted or not.
    public var name: String
    /// Whether the name was written in double quotes (`"DATE"`) or in backticks. A quoted name is
    /// always a field, even when it spells a keyword (`"DATE"`, `"YEAR"`, `"AND"`).
    public var isQuoted: Bool

    /// A reference to `name`.
    public init(name: String, isQuoted: Bool) {
        self.name = name
        self.isQuoted = isQuoted
    }
}

/// A call of a function by name.
public struct FunctionCall: Hashable, Sendable {
    /// The function name as written (`upper`, `Upper`, …). For the normalized forms it is
    /// `POSITION` or `SUBSTRING` in whatever case the SQL used.
    public var name: String
    /// Where the name is in the SQL (for "unknown function" errors).
    public var nameRange: SourceRange
    /// The arguments, in order; empty for `NAME()`.
    public var arguments: [SQLExpression]

    /// A call of `name` with `arguments`.
    public init(name: String, nameRange: SourceRange, arguments: [SQLExpression]) {
        self.name = name
        self.nameRange = nameRange
        self.arguments = arguments
    }

    /// The name upper-cased, for case-insensitive lookup in a function catalogue.
    public var normalizedName: String { name.uppercased() }
}

/// One `WHEN when THEN then` of a `CASE`.
public struct CaseBranch: Hashable, Sendable {
    /// The condition (searched `CASE`) or the value compared with the operand (simple `CASE`).
    public var when: SQLExpression
    /// The result when the branch is taken.
    public var then: SQLExpression

    /// A branch.
    public init(when: SQLExpression, then: SQLExpression) {
        self.when = when
        self.then = then
    }
}

/// `+ - * /`.
public enum ArithmeticOperator: String, Hashable, Sendable, CaseIterable {
    /// `+`.
    case add = "+"
    /// `-`.
    case subtract = "-"
    /// `*`.
    case multiply = "*"
    /// `/`.
    case divide = "/"
}

/// `= <> < <= > >=` (`!=` is read as `<>`).
public enum ComparisonOperator: String, Hashable, Sendable, CaseIterable {
    /// `=`.
    case equal = "="
    /// `<>` or `!=`.
    case notEqual = "<>"
    /// `<`.
    case less = "<"
    /// `<=`.
    case lessOrEqual = "<="
    /// `>`.
    case greater = ">"
    /// `>=`.
    case greaterOrEqual = ">="
}

/// The type named in `CAST(x AS type)`, normalized.
public enum CastTarget: String, Hashable, Sendable, CaseIterable {
    /// `INTEGER`, `INT`, `SMALLINT`, `BIGINT`.
    case integer
    /// `FLOAT`, `DOUBLE [PRECISION]`, `REAL`.
    case float
    /// `VARCHAR[(n)]`, `CHAR[(n)]` (the length is not kept).
    case varchar
    /// `DATE`, `TIMESTAMP` (a date is an instant in epoch milliseconds).
    case date
}

/// The calendar field of `EXTRACT(field FROM x)`; also the qualifiers of `INTERVAL` literals.
public enum DateTimeField: String, Hashable, Sendable, CaseIterable {
    /// `YEAR`.
    case year
    /// `MONTH` (1…12).
    case month
    /// `DAY` (of the month, 1…31).
    case day
    /// `HOUR` (0…23).
    case hour
    /// `MINUTE` (0…59).
    case minute
    /// `SECOND` (0…59).
    case second
}

/// Which ends `TRIM` removes characters from.
public enum TrimMode: String, Hashable, Sendable, CaseIterable {
    /// `BOTH` (the default).
    case both
    /// `LEADING`.
    case leading
    /// `TRAILING`.
    case trailing
}
