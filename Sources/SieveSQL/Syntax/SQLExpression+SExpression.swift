extension SQLExpression {
    /// The tree as a one-line s-expression, for tests and debugging. The format is stable:
    ///
    /// | Node | Rendering |
    /// |---|---|
    /// | `NULL`, `TRUE`, `FALSE` | `null`, `true`, `false` |
    /// | integer, double | `42`, `-7`, `0.5`, `1e+20` (doubles always show `.`/`e`: `100.0`) |
    /// | string | `'it''s'` (single quotes, `'` doubled) |
    /// | date, timestamp, interval | `(date MS)`, `(timestamp MS)`, `(interval MS)`, MS in milliseconds |
    /// | field | `POP` as written, or `"my ""field"""` when quoted |
    /// | `CURRENT_DATE`, `CURRENT_TIMESTAMP` | `(current-date)`, `(current-timestamp)` |
    /// | `-x`, `+x`, `NOT x` | `(neg x)`, `(pos x)`, `(not x)` |
    /// | arithmetic, comparison | `(+ a b)`, `(- a b)`, `(* a b)`, `(/ a b)`, `(= a b)`, `(<> a b)`, `(< a b)`, `(<= a b)`, `(> a b)`, `(>= a b)` |
    /// | `AND`, `OR` | `(and a b …)`, `(or a b …)` |
    /// | `IS [NOT] NULL` | `(is-null x)`, `(is-not-null x)` |
    /// | `[NOT] IN` | `(in x v1 v2 …)`, `(not-in x v1 v2 …)` |
    /// | `[NOT] BETWEEN` | `(between x low high)`, `(not-between x low high)` |
    /// | `[NOT] LIKE` | `(like x p)`, `(like x p (escape e))`, `(not-like …)` |
    /// | `CASE` | searched `(case (when c r) … (else e))`; simple `(case x (when v r) … (else e))` |
    /// | `CAST`, `EXTRACT` | `(cast x integer)`, `(extract year x)` |
    /// | `TRIM` | `(trim both s)`, `(trim leading c s)` |
    /// | function call | `(UPPER x)`, `(PI)`: the name upper-cased, then the arguments |
    ///
    /// Built-in forms are lower-case and function names upper-case, so they never collide.
    public var sexpr: String {
        var output = ""
        Self.render(self, into: &output)
        return output
    }

    /// The ``sexpr`` rendering.
    public var description: String { sexpr }

    private static func render(_ expression: SQLExpression, into output: inout String) {
        func list(_ head: String, _ items: [SQLExpression]) {
            output += "(" + head
            for item in items {
                output += " "
                render(item, into: &output)
            }
            output += ")"
        }
        switch expression.kind {
        case .literal(let literal):
            output += render(literal)
        case .field(let field):
            output += field.isQuoted ? quoted(field.name, "\"") : field.name
        case .currentDate:
            output += "(current-date)"
        case .currentTimestamp:
            output += "(current-timestamp)"
        case .negate(let x):
            list("neg", [x])
        case .plus(let x):
            list("pos", [x])
        case .not(let x):
            list("not", [x])
        case .arithmetic(let op, let l, let r):
            list(op.rawValue, [l, r])
        case .comparison(let op, let l, let r):
            list(op.rawValue, [l, r])
        case .and(let operands):
            list("and", operands)
        case .or(let operands):
            list("or", operands)
        case .isNull(let x, let negated):
            list(negated ? "is-not-null" : "is-null", [x])
        case .inList(let x, let values, let negated):
            list(negated ? "not-in" : "in", [x] + values)
        case .between(let x, let lower, let upper, let negated):
            list(negated ? "not-between" : "between", [x, lower, upper])
        case .like(let x, let pattern, let escape, let negated):
            output += negated ? "(not-like " : "(like "
            render(x, into: &output)
            output += " "
            render(pattern, into: &output)
            if let escape {
                output += " "
                list("escape", [escape])
            }
            output += ")"
        case .caseWhen(let operand, let branches, let otherwise):
            output += "(case"
            if let operand {
                output += " "
                render(operand, into: &output)
            }
            for branch in branches {
                output += " "
                list("when", [branch.when, branch.then])
            }
            if let otherwise {
                output += " "
                list("else", [otherwise])
            }
            output += ")"
        case .cast(let x, let target):
            output += "(cast "
            render(x, into: &output)
            output += " \(target.rawValue))"
        case .extract(let field, let x):
            output += "(extract \(field.rawValue) "
            render(x, into: &output)
            output += ")"
        case .trim(let mode, let characters, let source):
            list("trim \(mode.rawValue)", (characters.map { [$0] } ?? []) + [source])
        case .function(let call):
            list(call.normalizedName, call.arguments)
        }
    }

    private static func render(_ literal: Literal) -> String {
        switch literal {
        case .null: return "null"
        case .boolean(let value): return value ? "true" : "false"
        case .integer(let value): return String(value)
        case .double(let value): return value.description
        case .string(let value): return quoted(value, "'")
        case .date(let ms): return "(date \(ms))"
        case .timestamp(let ms): return "(timestamp \(ms))"
        case .interval(let ms): return "(interval \(ms))"
        }
    }

    private static func quoted(_ text: String, _ quote: Character) -> String {
        var result = String(quote)
        for character in text {
            if character == quote { result.append(quote) }
            result.append(character)
        }
        result.append(quote)
        return result
    }
}
