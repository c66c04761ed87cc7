import SieveColumns

/// Writes a bound expression as PostgreSQL SQL (see
/// ``CompiledWhereClause/postgreSQL(columns:parameters:extraColumn:)`` for the rules). Every
/// expression it writes is parenthesized, so its pieces compose without precedence questions.
struct PostgreSQLRenderer {
    let columns: [String]
    let extraColumn: ((Int, inout PostgreSQLParameters) throws(PostgreSQLRenderingError) -> String)?
    var parameters: PostgreSQLParameters

    static let int64Min = "-9223372036854775808"
    static let int64Max = "9223372036854775807"

    /// A condition (boolean or NULL-typed expression).
    mutating func condition(_ expression: BoundExpression) throws(PostgreSQLRenderingError) -> String {
        switch expression.type {
        case .boolean: return try render(expression)
        case .null: return "(NULL::boolean)"
        default: throw PostgreSQLRenderingError("a \(expression.type) value is not a condition")
        }
    }

    // MARK: Values

    /// `value` of `type` as a parameter (or a keyword for NULL and booleans).
    mutating func constant(_ value: ScalarValue, _ type: SQLType) throws(PostgreSQLRenderingError) -> String {
        switch value {
        case .null:
            return "(NULL\(Self.cast(type)))"
        case .boolean(let b):
            return b ? "TRUE" : "FALSE"
        case .integer(let x):
            guard type != .interval else { throw PostgreSQLRenderingError("intervals (date arithmetic) are not rendered") }
            return "(\(parameters.add(.integer(x)))::int8)"
        case .double(let x):
            return "(\(parameters.add(.double(x)))::float8)"
        case .string(let s):
            return "(\(parameters.add(.text(s)))::text)"
        case .date(let ms):
            return "(\(parameters.add(.text(Self.timestampText(ms))))::timestamptz)"
        }
    }

    /// The cast that gives a value of `type` its PostgreSQL type (empty for NULL and booleans).
    static func cast(_ type: SQLType) -> String {
        switch type {
        case .integer: "::int8"
        case .double: "::float8"
        case .string: "::text"
        case .date: "::timestamptz"
        case .boolean: "::boolean"
        case .interval, .null: ""
        }
    }

    /// An instant as text `timestamptz` reads exactly: `yyyy-mm-dd hh:mi:ss.fff+00`, with a
    /// year outside 1…9999 written as PostgreSQL writes it (`-` years as `… BC`).
    static func timestampText(_ ms: Int64) -> String {
        let c = CivilTime.components(milliseconds: ms)
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        // Year 0 is 1 BC, year -1 is 2 BC (ISO 8601 years, PostgreSQL's BC years).
        let year = c.year > 0 ? pad(c.year, 4) : pad(1 - c.year, 4)
        let text = "\(year)-\(pad(c.month, 2))-\(pad(c.day, 2)) \(pad(c.hour, 2)):\(pad(c.minute, 2)):\(pad(c.second, 2)).\(pad(c.millisecond, 3))+00"
        return c.year > 0 ? text : text + " BC"
    }

    /// An operand written with its engine type: integer columns (`int2`, `int4`) widened to
    /// `int8` and so on, so that arithmetic and functions work on GeoSieve's types.
    mutating func typed(_ expression: BoundExpression) throws(PostgreSQLRenderingError) -> String {
        let sql = try render(expression)
        if case .column = expression { return "(\(sql)\(Self.cast(expression.type)))" }
        return sql
    }

    // MARK: Nodes

    mutating func render(_ expression: BoundExpression) throws(PostgreSQLRenderingError) -> String {
        switch expression {
        case .constant(let value, let type):
            return try constant(value, type)
        case .column(let index, _):
            if index < columns.count { return "(\(columns[index]))" }
            guard let extraColumn else { throw PostgreSQLRenderingError("column \(index) has no PostgreSQL column") }
            return try extraColumn(index, &parameters)
        case .not(let operand):
            return "(NOT \(try render(operand)))"
        case .and(let operands), .or(let operands):
            var parts: [String] = []
            for operand in operands { parts.append(try render(operand)) }
            guard !parts.isEmpty else { return "TRUE" }
            let isAnd: Bool
            if case .and = expression { isAnd = true } else { isAnd = false }
            return "(" + parts.joined(separator: isAnd ? " AND " : " OR ") + ")"
        case .compare(let op, let a, let b):
            return try compare(op, a, b)
        case .isNull(let operand, let negated):
            return "(\(try render(operand)) IS \(negated ? "NOT " : "")NULL)"
        case .inList(let operand, let items, let negated):
            var list: [String] = []
            for item in items { list.append(try render(item)) }
            return "(\(try collated(operand)) \(negated ? "NOT " : "")IN (\(list.joined(separator: ", "))))"
        case .inSet(let operand, let set, let others, let negated):
            return try inSet(operand, set, others, negated: negated)
        case .between(let operand, let low, let high, let negated):
            return "(\(try collated(operand)) \(negated ? "NOT " : "")BETWEEN \(try render(low)) AND \(try render(high)))"
        case .like(let operand, let pattern, let negated):
            let text = parameters.add(.text(pattern.source))
            let escape = pattern.escape.map { parameters.add(.text($0)) + "::text" } ?? "''"
            return "(\(try render(operand)) COLLATE \"C\" \(negated ? "NOT " : "")LIKE \(text)::text ESCAPE \(escape))"
        case .likeDynamic:
            throw PostgreSQLRenderingError(
                "LIKE with a computed pattern: a pattern ending with its escape character is NULL here and an error in PostgreSQL")
        case .arithmetic(let op, let a, let b, let type):
            return try arithmetic(op, a, b, type)
        case .negate(let operand, let type):
            switch type {
            case .integer:
                return "(SELECT CASE WHEN x = \(Self.int64Min) THEN NULL ELSE -x END FROM (SELECT \(try typed(operand)) AS x) AS t)"
            case .double: return "(-\(try typed(operand)))"
            case .null: return "(NULL)"
            default: throw PostgreSQLRenderingError("negating a \(type) value (date arithmetic) is not rendered")
            }
        case .function(let function, let arguments, let type):
            return try self.function(function, arguments, type)
        case .caseWhen(let branches, let otherwise, let type):
            var sql = "(CASE"
            for branch in branches {
                sql += " WHEN \(try render(branch.condition)) THEN \(try typed(branch.value))\(Self.cast(type))"
            }
            if let otherwise { sql += " ELSE \(try typed(otherwise))\(Self.cast(type))" }
            return sql + " END)"
        case .cast(let operand, let type):
            if operand.type == type { return try render(operand) }
            if operand.type == .integer && type == .double { return "(\(try typed(operand))::float8)" }
            if operand.type == .null { return "(NULL\(Self.cast(type)))" }
            throw PostgreSQLRenderingError(
                "CAST of a \(operand.type) value to \(type): PostgreSQL converts it by other rules (rounding, text formats)")
        }
    }

    /// A string operand with the byte-order collation; other operands as they are.
    mutating func collated(_ expression: BoundExpression) throws(PostgreSQLRenderingError) -> String {
        let sql = try render(expression)
        return expression.type == .string ? "(\(sql) COLLATE \"C\")" : sql
    }

    mutating func compare(_ op: ComparisonOperator, _ a: BoundExpression, _ b: BoundExpression) throws(PostgreSQLRenderingError)
        -> String
    {
        // An integer against a double constant: compared exactly here, as GeoSieve compares.
        if a.type == .integer, case .constant(.double(let c), _) = b { return try integerAgainstDouble(op, a, c) }
        if b.type == .integer, case .constant(.double(let c), _) = a { return try integerAgainstDouble(op.swapped, b, c) }
        return "(\(try collated(a)) \(op.rawValue) \(try render(b)))"
    }

    /// `x op c`, x an integer expression and c a double, exactly: against the nearest integers.
    mutating func integerAgainstDouble(_ op: ComparisonOperator, _ x: BoundExpression, _ c: Double) throws(PostgreSQLRenderingError)
        -> String
    {
        let operand = try render(x)
        // TRUE or FALSE for every integer, NULL for NULL: `x = x` and `x <> x`.
        func always(_ value: Bool) -> String { "(\(operand) \(value ? "=" : "<>") \(operand))" }
        if c.isNaN { return "(\(operand) <> \(operand) AND NULL)" }
        if let whole = ConstantSet.integer(exactly: c) {
            return "(\(operand) \(op.rawValue) (\(parameters.add(.integer(whole)))::int8))"
        }
        if c >= 9_223_372_036_854_775_808.0 { return always(op == .notEqual || op == .less || op == .lessOrEqual) }
        if c < -9_223_372_036_854_775_808.0 { return always(op == .notEqual || op == .greater || op == .greaterOrEqual) }
        // c lies strictly between two integers: x < c ⇔ x ≤ floor(c), x > c ⇔ x ≥ ceil(c).
        let below = Int64(c.rounded(.down)), above = Int64(c.rounded(.up))
        switch op {
        case .equal: return always(false)
        case .notEqual: return always(true)
        case .less, .lessOrEqual: return "(\(operand) <= (\(parameters.add(.integer(below)))::int8))"
        case .greater, .greaterOrEqual: return "(\(operand) >= (\(parameters.add(.integer(above)))::int8))"
        }
    }

    /// A hashed `IN` list: `= ANY` of one array parameter per kind of constant, plus the
    /// other items, in three-valued logic.
    mutating func inSet(_ operand: BoundExpression, _ set: ConstantSet, _ others: [BoundExpression], negated: Bool)
        throws(PostgreSQLRenderingError) -> String
    {
        let value = try collated(operand)
        var terms: [String] = []
        if !set.integers.isEmpty { terms.append("(\(value) = ANY(\(parameters.add(.integers(set.integers.sorted())))::int8[]))") }
        if !set.doubles.isEmpty {
            let doubles = set.doubles.map { Double(bitPattern: $0) }.sorted()
            terms.append("(\(value) = ANY(\(parameters.add(.doubles(doubles)))::float8[]))")
        }
        if !set.dates.isEmpty {
            let texts = set.dates.sorted().map(Self.timestampText)
            terms.append("(\(value) = ANY(\(parameters.add(.texts(texts)))::timestamptz[]))")
        }
        if !set.strings.isEmpty {
            let texts = set.strings.map(\.string).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            terms.append("(\(value) = ANY(\(parameters.add(.texts(texts)))::text[]))")
        }
        if set.booleans & 1 != 0 { terms.append("(\(value) = FALSE)") }
        if set.booleans & 2 != 0 { terms.append("(\(value) = TRUE)") }
        for other in others { terms.append("(\(value) = \(try render(other)))") }
        if set.hasIncomparable { terms.append("NULL") }
        let any = terms.isEmpty ? "FALSE" : "(" + terms.joined(separator: " OR ") + ")"
        return negated ? "(NOT \(any))" : any
    }

    mutating func arithmetic(_ op: ArithmeticOperator, _ a: BoundExpression, _ b: BoundExpression, _ type: SQLType)
        throws(PostgreSQLRenderingError) -> String
    {
        switch type {
        case .integer:
            let x = try typed(a), y = try typed(b)
            if op == .divide {
                return "(SELECT CASE WHEN y = 0 OR (x = \(Self.int64Min) AND y = -1) THEN NULL ELSE x / y END "
                    + "FROM (SELECT \(x)::int8 AS x, \(y)::int8 AS y) AS t)"
            }
            // Exact in numeric, NULL outside bigint's range.
            return "(SELECT CASE WHEN r BETWEEN \(Self.int64Min) AND \(Self.int64Max) THEN r::int8 END "
                + "FROM (SELECT \(x)::numeric \(op.rawValue) \(y)::numeric AS r) AS t)"
        case .double:
            let x = try typed(a), y = try typed(b)
            if op == .divide { return "(\(x)::float8 / NULLIF(\(y)::float8, 0))" }
            return "(\(x)::float8 \(op.rawValue) \(y)::float8)"
        case .null:
            return "(NULL)"
        case .date, .interval, .string, .boolean:
            throw PostgreSQLRenderingError(
                "date arithmetic: GeoSieve adds days and milliseconds to epoch instants with its own rounding")
        }
    }

    mutating func function(_ function: BuiltinFunction, _ arguments: [BoundExpression], _ type: SQLType)
        throws(PostgreSQLRenderingError) -> String
    {
        var args: [String] = []
        for argument in arguments { args.append(try typed(argument)) }
        func refuse(_ why: String) -> PostgreSQLRenderingError {
            PostgreSQLRenderingError("\(function.rawValue): \(why)")
        }
        func guardedInteger(_ body: String, _ x: String) -> String {
            "(SELECT CASE WHEN x = \(Self.int64Min) THEN NULL ELSE \(body) END FROM (SELECT \(x)::int8 AS x) AS t)"
        }
        switch function {
        case .charLength: return "(char_length(\(args[0])))::int8"
        case .position: return "(strpos(\(args[1]), \(args[0])))::int8"
        case .trimBoth, .trimLeading, .trimTrailing:
            let name = function == .trimBoth ? "btrim" : (function == .trimLeading ? "ltrim" : "rtrim")
            // The characters come first in the TRIM form; PostgreSQL takes them second.
            return args.count == 2 ? "(\(name)(\(args[1]), \(args[0])))" : "(\(name)(\(args[0])))"
        case .abs:
            if type == .integer { return guardedInteger("abs(x)", args[0]) }
            return "(abs(\(args[0])::float8))"
        case .ceiling, .floor:
            if arguments[0].type == .integer { return args[0] }
            return "(\(function == .ceiling ? "ceil" : "floor")(\(args[0])::float8))"
        case .round, .truncate:
            var wholeNumbers = arguments.count == 1
            if arguments.count == 2, case .constant(.integer(0), _) = arguments[1] { wholeNumbers = true }
            guard wholeNumbers else {
                throw refuse("rounding to digits through PostgreSQL's numeric would round a 15-digit copy of the double, not the double")
            }
            if arguments[0].type == .integer { return args[0] }
            // Exact in doubles: the fraction x - trunc(x) is exact; ROUND goes half away from zero
            // (PostgreSQL's round(float8) goes half to even).
            if function == .truncate { return "(trunc(\(args[0])::float8))" }
            return "(SELECT trunc(x) + CASE WHEN abs(x - trunc(x)) >= 0.5 THEN sign(x) ELSE 0 END FROM (SELECT \(args[0])::float8 AS x) AS t)"
        case .mod:
            if type == .integer {
                return "(SELECT CASE WHEN y = 0 THEN NULL WHEN y = -1 THEN 0 ELSE mod(x, y) END "
                    + "FROM (SELECT \(args[0])::int8 AS x, \(args[1])::int8 AS y) AS t)"
            }
            throw refuse("the remainder of doubles (fmod) has no exact PostgreSQL counterpart")
        case .power:
            // NULL where GeoSieve's pow gives NaN or an infinity from finite operands other than by
            // overflow: 0 to a negative power, a negative number to a fractional one.
            return "(SELECT CASE WHEN (x = 0 AND y < 0) OR (x < 0 AND y <> trunc(y)) THEN NULL ELSE power(x, y) END "
                + "FROM (SELECT \(args[0])::float8 AS x, \(args[1])::float8 AS y) AS t)"
        case .log: return "(ln(CASE WHEN \(args[0])::float8 > 0 THEN \(args[0])::float8 END))"
        case .log10: return "(log(CASE WHEN \(args[0])::float8 > 0 THEN \(args[0])::float8 END))"
        case .sin, .cos, .tan: return "(\(function.rawValue.lowercased())(\(args[0])::float8))"
        case .sign: return "((sign(\(args[0])::float8))::int8)"
        case .coalesce: return "(coalesce(\(args.map { $0 + Self.cast(type) }.joined(separator: ", "))))"
        case .nullif:
            let first = arguments[0].type == .string ? "(\(args[0]) COLLATE \"C\")" : args[0]
            return "(nullif(\(first), \(args[1])))"
        case .extractYear, .extractMonth, .extractDay, .extractHour, .extractMinute:
            let field = String(function.rawValue.dropFirst("EXTRACT_".count))
            return "((EXTRACT(\(field) FROM \(args[0]) AT TIME ZONE 'UTC'))::int8)"
        case .extractSecond:
            // Seconds with milliseconds: the instant's own milliseconds, as GeoSieve stores it.
            return "((EXTRACT(SECOND FROM \(args[0]) AT TIME ZONE 'UTC'))::float8)"
        case .upper, .lower:
            throw refuse("PostgreSQL's upper and lower follow the database's locale (ASCII only under C); GeoSieve maps every Unicode letter")
        case .concat:
            throw refuse("PostgreSQL's text form of doubles and instants differs from GeoSieve's")
        case .substring:
            throw refuse("PostgreSQL's substring needs integer positions and fails on negative lengths")
        case .caseFold:
            throw refuse("PostgreSQL has no full Unicode case folding")
        case .accentFold:
            throw refuse("PostgreSQL has no accent folding without the unaccent extension, whose rules differ")
        case .addMilliseconds, .subtractMilliseconds:
            throw refuse("date arithmetic is not rendered")
        }
    }
}
