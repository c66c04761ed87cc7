import SieveGeometry

/// Writes a ``CQL2Expression`` as cql2-text, parenthesizing a child only when its precedence is
/// below what its place needs. Precedences: OR 1, AND 2, NOT 3, predicates 4, `+ -` 5,
/// `* / % div` 6, `^` 7, unary minus and negative numbers 8, everything else 9.
struct CQL2TextWriter {
    var text = ""

    static func precedence(of expression: CQL2Expression) -> Int {
        switch expression {
        case .or(let operands): operands.count >= 2 ? 1 : operands.first.map(precedence) ?? 9
        case .and(let operands): operands.count >= 2 ? 2 : operands.first.map(precedence) ?? 9
        case .not: 3
        case .comparison, .like, .between, .inList, .isNull: 4
        case .arithmetic(let operation, _, _):
            switch operation {
            case .add, .subtract: 5
            case .multiply, .divide, .remainder, .integerDivide: 6
            case .power: 7
            }
        case .negate: 8
        case .integer(let value): value < 0 ? 8 : 9
        case .real(let value): value.sign == .minus ? 8 : 9
        default: 9
        }
    }

    mutating func write(_ expression: CQL2Expression, minimum: Int) {
        let parenthesize = Self.precedence(of: expression) < minimum
        if parenthesize { text += "(" }
        writeBare(expression)
        if parenthesize { text += ")" }
    }

    private mutating func writeList(_ items: [CQL2Expression]) {
        for (position, item) in items.enumerated() {
            if position > 0 { text += ", " }
            write(item, minimum: 0)
        }
    }

    private mutating func writeCall(_ name: String, _ arguments: [CQL2Expression]) {
        text += name
        text += "("
        writeList(arguments)
        text += ")"
    }

    private mutating func writeBare(_ expression: CQL2Expression) {
        switch expression {
        case .and(let operands), .or(let operands):
            let isAnd: Bool
            if case .and = expression { isAnd = true } else { isAnd = false }
            guard let first = operands.first else {
                text += isAnd ? "TRUE" : "FALSE"
                return
            }
            guard operands.count >= 2 else {
                writeBare(first)
                return
            }
            for (position, operand) in operands.enumerated() {
                if position > 0 { text += isAnd ? " AND " : " OR " }
                write(operand, minimum: isAnd ? 3 : 2)
            }
        case .not(let operand):
            text += "NOT "
            write(operand, minimum: 3)
        case .comparison(let operation, let left, let right):
            write(left, minimum: 5)
            text += " \(operation.rawValue) "
            write(right, minimum: 5)
        case .like(let value, let pattern, let negated):
            write(value, minimum: 5)
            text += negated ? " NOT LIKE " : " LIKE "
            write(pattern, minimum: 5)
        case .between(let value, let lower, let upper, let negated):
            write(value, minimum: 5)
            text += negated ? " NOT BETWEEN " : " BETWEEN "
            write(lower, minimum: 5)
            text += " AND "
            write(upper, minimum: 5)
        case .inList(let value, let items, let negated):
            write(value, minimum: 5)
            text += negated ? " NOT IN (" : " IN ("
            writeList(items)
            text += ")"
        case .isNull(let value, let negated):
            write(value, minimum: 5)
            text += negated ? " IS NOT NULL" : " IS NULL"
        case .caseInsensitive(let value):
            writeCall("CASEI", [value])
        case .accentInsensitive(let value):
            writeCall("ACCENTI", [value])
        case .spatial(let function, let left, let right):
            writeCall(function.rawValue, [left, right])
        case .temporal(let function, let left, let right):
            writeCall(function.rawValue, [left, right])
        case .arrayComparison(let function, let left, let right):
            writeCall(function.rawValue, [left, right])
        case .function(let name, let arguments):
            writeCall(name, arguments)
        case .arithmetic(let operation, let left, let right):
            let (leftMinimum, rightMinimum) =
                switch operation {
                case .add, .subtract: (5, 6)
                case .multiply, .divide, .remainder, .integerDivide: (6, 7)
                case .power: (8, 7)
                }
            write(left, minimum: leftMinimum)
            text += " \(operation.rawValue) "
            write(right, minimum: rightMinimum)
        case .negate(let operand):
            text += "-"
            switch operand {
            case .integer(let value) where value >= 0:
                text += "(\(value))"
            case .real(let value) where value.sign == .plus:
                text += "(\(Self.number(value)))"
            default:
                if Self.precedence(of: operand) == 8 { text += " " }
                write(operand, minimum: 8)
            }
        case .property(let name):
            text += Self.propertyName(name)
        case .string(let value):
            text += Self.quoted(value)
        case .integer(let value):
            text += String(value)
        case .real(let value):
            text += Self.number(value)
        case .boolean(let value):
            text += value ? "TRUE" : "FALSE"
        case .date(let value):
            text += "DATE(\(Self.quoted(value)))"
        case .timestamp(let value):
            text += "TIMESTAMP(\(Self.quoted(value)))"
        case .interval(let start, let end):
            text += "INTERVAL("
            writeBound(start)
            text += ", "
            writeBound(end)
            text += ")"
        case .geometry(let geometry):
            text += geometry.wkt
        case .bbox(let values):
            text += "BBOX("
            text += values.map(Self.coordinate).joined(separator: ", ")
            text += ")"
        case .array(let items):
            text += "("
            writeList(items)
            text += ")"
        }
    }

    private mutating func writeBound(_ bound: CQL2IntervalBound) {
        switch bound {
        case .date(let value), .timestamp(let value): text += Self.quoted(value)
        case .unbounded: text += "'..'"
        case .expression(let expression): write(expression, minimum: 0)
        }
    }

    /// A real number in the shortest form that reads back as the same `Double` and as a real
    /// (it always has a fraction or an exponent).
    static func number(_ value: Double) -> String {
        value.description
    }

    /// A bounding-box coordinate: whole values without a fraction.
    static func coordinate(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 9_007_199_254_740_992 {
            return value == 0 ? "0" : String(Int64(value))
        }
        return value.description
    }

    static func quoted(_ value: String) -> String {
        // A quote is written `''`, except right after a backslash, where the reader would take
        // `\'` for an escaped quote and `''` for its end: there `\'` is the quote itself, and the
        // backslash before it stays a backslash (a backslash not before a quote is kept as is).
        var text = "'"
        var afterBackslash = false
        for scalar in value.unicodeScalars {
            if scalar == "'" {
                text += afterBackslash ? "\\'" : "''"
            } else {
                text.unicodeScalars.append(scalar)
            }
            afterBackslash = scalar == "\\"
        }
        return text + "'"
    }

    /// The name bare when it is an identifier that is no keyword, else in double quotes.
    static func propertyName(_ name: String) -> String {
        if let first = name.first, CQL2Lexer.isIdentifierStart(first), name.dropFirst().allSatisfy(CQL2Lexer.isIdentifierPart),
            !CQL2TextParser.reservedWords.contains(name.uppercased())
        {
            return name
        }
        return "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}
