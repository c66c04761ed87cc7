import SieveColumns

/// Evaluates a bound expression for one row at a time. It defines the semantics: the
/// vectorized kernels must give the same answers, and take over only where they are faster.
struct RowEvaluator {
    let columns: [Column]
    let collation: Collation

    /// The value of `expression` at `row`; conditions give `.boolean` or `.null` (unknown).
    func evaluate(_ expression: BoundExpression, row: Int) -> ScalarValue {
        switch expression {
        case .constant(let value, _):
            return value
        case .column(let index, _):
            return columns[index][row]
        case .not(let operand):
            guard case .boolean(let value) = evaluate(operand, row: row) else { return .null }
            return .boolean(!value)
        case .and(let operands):
            // FALSE wins over unknown; unknown over TRUE.
            var unknown = false
            for operand in operands {
                switch evaluate(operand, row: row) {
                case .boolean(false): return .boolean(false)
                case .boolean(true): continue
                default: unknown = true
                }
            }
            return unknown ? .null : .boolean(true)
        case .or(let operands):
            var unknown = false
            for operand in operands {
                switch evaluate(operand, row: row) {
                case .boolean(true): return .boolean(true)
                case .boolean(false): continue
                default: unknown = true
                }
            }
            return unknown ? .null : .boolean(false)
        case .compare(let op, let left, let right):
            let a = evaluate(left, row: row), b = evaluate(right, row: row)
            guard let order = ScalarSemantics.compare(a, b, collation: collation) else { return .null }
            return .boolean(op.holds(order))
        case .isNull(let operand, let negated):
            return .boolean(evaluate(operand, row: row).isNull != negated)
        case .inList(let operand, let list, let negated):
            let value = evaluate(operand, row: row)
            if value.isNull { return .null }
            var sawNull = false
            for item in list {
                let candidate = evaluate(item, row: row)
                guard let order = ScalarSemantics.compare(value, candidate, collation: collation) else {
                    sawNull = true
                    continue
                }
                if order == 0 { return .boolean(!negated) }
            }
            return sawNull ? .null : .boolean(negated)
        case .inSet(let operand, let set, let others, let negated):
            let value = evaluate(operand, row: row)
            if value.isNull { return .null }
            let found = set.contains(value)
            if found == true { return .boolean(!negated) }
            var sawNull = found == nil
            for item in others {
                guard let order = ScalarSemantics.compare(value, evaluate(item, row: row), collation: collation) else {
                    sawNull = true
                    continue
                }
                if order == 0 { return .boolean(!negated) }
            }
            return sawNull ? .null : .boolean(negated)
        case .between(let operand, let low, let high, let negated):
            let value = evaluate(operand, row: row)
            let lower = ScalarSemantics.compare(value, evaluate(low, row: row), collation: collation)
            let upper = ScalarSemantics.compare(value, evaluate(high, row: row), collation: collation)
            // x BETWEEN a AND b ≡ x >= a AND x <= b, in three-valued logic.
            let first: Bool? = lower.map { $0 >= 0 }, second: Bool? = upper.map { $0 <= 0 }
            let result: Bool?
            if first == false || second == false {
                result = false
            } else if let first, let second {
                result = first && second
            } else {
                result = nil
            }
            guard let result else { return .null }
            return .boolean(result != negated)
        case .like(let operand, let pattern, let negated):
            guard case .string(let text) = evaluate(operand, row: row) else { return .null }
            let key = collation.key(text)
            return .boolean(pattern.matches(key) != negated)
        case .likeDynamic(let operand, let patternExpression, let escape, let negated):
            guard case .string(let text) = evaluate(operand, row: row),
                case .string(let patternText) = evaluate(patternExpression, row: row),
                let pattern = try? LikePattern(collation.key(patternText), escape: escape.map(collation.key))
            else { return .null }
            return .boolean(pattern.matches(collation.key(text)) != negated)
        case .arithmetic(let op, let left, let right, let type):
            return ScalarSemantics.arithmetic(op, evaluate(left, row: row), evaluate(right, row: row), type: type)
        case .negate(let operand, _):
            switch evaluate(operand, row: row) {
            case .integer(let x): return x == .min ? .null : .integer(-x)
            case .double(let x): return .double(-x)
            default: return .null
            }
        case .function(let function, let arguments, let type):
            if function == .coalesce {
                for argument in arguments {
                    let value = evaluate(argument, row: row)
                    if !value.isNull { return Self.widened(value, to: type) }
                }
                return .null
            }
            return ScalarSemantics.call(function, arguments.map { evaluate($0, row: row) }, type: type, collation: collation)
        case .caseWhen(let branches, let otherwise, let type):
            for branch in branches {
                if case .boolean(true) = evaluate(branch.condition, row: row) {
                    return Self.widened(evaluate(branch.value, row: row), to: type)
                }
            }
            return otherwise.map { Self.widened(evaluate($0, row: row), to: type) } ?? .null
        case .cast(let operand, let target):
            return Cast.apply(evaluate(operand, row: row), to: target)
        }
    }

    /// A `CASE` or `COALESCE` result in the expression's type: an integer chosen where the
    /// results mix integers and doubles becomes a double, as every other value of that
    /// expression is (so `COALESCE(A, 2.5) = 9223372036854775807` compares the double 2^63).
    @inline(__always)
    static func widened(_ value: ScalarValue, to type: SQLType) -> ScalarValue {
        if type == .double, case .integer(let x) = value { return .double(Double(x)) }
        return value
    }

    /// Whether the condition is TRUE at `row` (unknown counts as not).
    func passes(_ expression: BoundExpression, row: Int) -> Bool {
        if case .boolean(true) = evaluate(expression, row: row) { return true }
        return false
    }
}

/// `CAST(x AS type)`.
enum Cast {
    /// Converts a value. Doubles become integers by truncation toward zero, NULL when the result
    /// is outside `Int64`; text that does not read as the target type becomes NULL; dates cast
    /// to DATE drop their time of day (NULL for the instants before `-292275055-05-17`, whose
    /// midnight precedes `Int64.min` milliseconds); numbers and dates cast to VARCHAR use the
    /// forms `CONCAT` uses.
    static func apply(_ value: ScalarValue, to target: SQLType) -> ScalarValue {
        if value.isNull { return .null }
        switch target {
        case .integer:
            switch value {
            case .integer: return value
            case .double(let x):
                return ScalarSemantics.truncatedInt64(x).map(ScalarValue.integer) ?? .null
            case .string(let s):
                let trimmed = ScalarSemantics.trim(s, [" "], leading: true, trailing: true)
                if let x = Int64(trimmed) { return .integer(x) }
                if let x = decimal(trimmed), let integer = ScalarSemantics.truncatedInt64(x) { return .integer(integer) }
                return .null
            case .boolean(let b): return .integer(b ? 1 : 0)
            default: return .null
            }
        case .double:
            switch value {
            case .integer(let x): return .double(Double(x))
            case .double: return value
            case .string(let s):
                let trimmed = ScalarSemantics.trim(s, [" "], leading: true, trailing: true)
                guard let x = decimal(trimmed), x.isFinite else { return .null }
                return .double(x)
            default: return .null
            }
        case .string:
            return ScalarSemantics.text(value).map(ScalarValue.string) ?? .null
        case .date:
            switch value {
            case .date(let ms):
                return CivilTime.startOfDay(milliseconds: ms).map(ScalarValue.date) ?? .null
            case .string(let s):
                guard let ms = CivilTime.parse(s, syntax: .sqlTimestamp) else { return .null }
                return CivilTime.startOfDay(milliseconds: ms).map(ScalarValue.date) ?? .null
            default: return .null
            }
        default:
            return value
        }
    }

    /// A decimal number (`-1.5`, `2e10`, `.5`): Swift's `Double(_:)` also reads hexadecimal
    /// (`0x1p3`), `inf` and `nan`, which are not SQL numbers.
    static func decimal(_ text: String) -> Double? {
        guard text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E || $0 | 0x20 == 0x65 }) else {
            return nil
        }
        return Double(text)
    }
}
