import SieveColumns

/// Resolves a parsed where clause against a schema: field names to columns (ignoring case),
/// every node to a type, literals to values; checks operand types, function names and arity;
/// folds constant subexpressions. Errors point at the offending part of the SQL.
struct Binder {
    let sql: String
    let schema: any WhereClauseSchema
    let collation: Collation
    /// `CURRENT_TIMESTAMP`, fixed for the whole clause (epoch milliseconds).
    let now: Int64
    /// The language the tree was written in: which functions it may call by name and how
    /// strictly operand types must agree.
    var dialect: WhereClauseDialect = .arcGIS

    private func fail(_ kind: WhereClauseError.Kind, _ message: String, _ node: SQLExpression) -> WhereClauseError {
        WhereClauseError(kind, message, sql: sql, range: node.range)
    }

    /// Binds a whole where clause, which must be a condition.
    func bindCondition(_ node: SQLExpression) throws(WhereClauseError) -> BoundExpression {
        let bound = try bind(node)
        guard bound.type == .boolean || bound.type == .null else {
            throw fail(.typeMismatch, "the where clause must be a condition, not \(bound.type.withArticle) value", node)
        }
        return bound
    }

    /// Binds an expression whose value is wanted (a ``CompiledValueExpression``): any operand
    /// or condition, of any type.
    func bindValue(_ node: SQLExpression) throws(WhereClauseError) -> BoundExpression {
        try bind(node)
    }

    func bind(_ node: SQLExpression) throws(WhereClauseError) -> BoundExpression {
        let bound = try bindUnfolded(node)
        return fold(bound)
    }

    /// Evaluates constant subexpressions once.
    private func fold(_ bound: BoundExpression) -> BoundExpression {
        switch bound {
        case .constant, .column: return bound
        default: break
        }
        guard !bound.readsColumns else { return bound }
        let value = RowEvaluator(columns: [], collation: collation).evaluate(bound, row: 0)
        return .constant(value, bound.type)
    }

    private func bindUnfolded(_ node: SQLExpression) throws(WhereClauseError) -> BoundExpression {
        switch node.kind {
        case .literal(let literal):
            return literalValue(literal)
        case .field(let reference):
            guard let field = schema.resolveField(reference.name) else {
                throw fail(
                    .unknownField,
                    "unknown field \(WhereClauseError.quoted(reference.name))" + WhereClauseError.didYouMean(reference.name, among: schema.fieldNames),
                    node)
            }
            return .column(index: field.index, type: SQLType(field.type))
        case .currentDate:
            return .constant(CivilTime.startOfDay(milliseconds: now).map(ScalarValue.date) ?? .null, .date)
        case .currentTimestamp:
            return .constant(.date(now), .date)
        case .negate(let operand):
            let value = try bind(operand)
            guard value.type.isNumeric || value.type == .interval || value.type == .null else {
                throw fail(.typeMismatch, "cannot negate \(value.type.withArticle) value", node)
            }
            return .negate(value, value.type)
        case .plus(let operand):
            let value = try bind(operand)
            guard value.type.isNumeric || value.type == .interval || value.type == .null else {
                throw fail(.typeMismatch, "unary + needs a number, not \(value.type.withArticle) value", node)
            }
            return value
        case .not(let operand):
            return .not(try condition(operand, "NOT"))
        case .and(let operands):
            var bound: [BoundExpression] = []
            for operand in operands {
                let value = try condition(operand, "AND")
                if case .and(let inner) = value { bound += inner } else { bound.append(value) }
            }
            return .and(BoundExpression.mergingComparisons(bound, isOr: false, collation: collation))
        case .or(let operands):
            var bound: [BoundExpression] = []
            for operand in operands {
                let value = try condition(operand, "OR")
                if case .or(let inner) = value { bound += inner } else { bound.append(value) }
            }
            return .or(BoundExpression.mergingComparisons(bound, isOr: true, collation: collation))
        case .arithmetic(let op, let left, let right):
            return try arithmetic(op, left, right, node)
        case .comparison(let op, let left, let right):
            let (a, b) = try comparable(left, right, node)
            return .compare(op, a, b)
        case .isNull(let operand, let negated):
            return .isNull(try bind(operand), negated: negated)
        case .inList(let operand, let list, let negated):
            var value = try bind(operand)
            var items: [BoundExpression] = []
            for item in list {
                let (a, b) = try comparable(operand, item, item, left: value)
                value = a
                items.append(b)
            }
            return BoundExpression.membership(value, items, negated: negated, collation: collation)
        case .between(let operand, let lower, let upper, let negated):
            let value = try bind(operand)
            let (_, low) = try comparable(operand, lower, lower, left: value)
            let (bound, high) = try comparable(operand, upper, upper, left: value)
            return .between(bound, low, high, negated: negated)
        case .like(let operand, let patternNode, let escapeNode, let negated):
            return try like(operand, patternNode, escapeNode, negated: negated, node)
        case .caseWhen(let operand, let branches, let otherwise):
            return try caseWhen(operand, branches, otherwise, node)
        case .cast(let operand, let target):
            let value = try bind(operand)
            let type: SQLType
            switch target {
            case .integer: type = .integer
            case .float: type = .double
            case .varchar: type = .string
            case .date: type = .date
            }
            if value.type == .interval || (value.type == .boolean && type != .integer) {
                throw fail(.typeMismatch, "cannot cast \(value.type.withArticle) value to \(type)", node)
            }
            return .cast(value, to: type)
        case .extract(let field, let source):
            let value = try bind(source)
            guard value.type == .date || value.type == .null else {
                throw fail(.typeMismatch, "EXTRACT needs a date, not \(value.type.withArticle) value", source)
            }
            let function: BuiltinFunction
            switch field {
            case .year: function = .extractYear
            case .month: function = .extractMonth
            case .day: function = .extractDay
            case .hour: function = .extractHour
            case .minute: function = .extractMinute
            case .second: function = .extractSecond
            }
            return .function(function, [value], field == .second ? .double : .integer)
        case .trim(let mode, let characters, let source):
            var arguments: [BoundExpression] = []
            if let characters { arguments.append(try string(characters, "TRIM")) }
            arguments.append(try string(source, "TRIM"))
            // The TRIM, LTRIM or RTRIM entry, whose arity (one argument) the optional
            // characters of this form exceed; the checks above are the form's own.
            let function: BuiltinFunction = mode == .both ? .trimBoth : (mode == .leading ? .trimLeading : .trimTrailing)
            guard let definition = FunctionRegistry.builtin.definition(for: function) else {
                preconditionFailure("the function registry has no entry for \(function)")
            }
            var argumentNodes: [SQLExpression] = []
            if let characters { argumentNodes.append(characters) }
            argumentNodes.append(source)
            return try apply(definition, arguments, argumentNodes, node)
        case .function(let call):
            return try function(call, node)
        }
    }

    // MARK: Pieces

    private func literalValue(_ literal: Literal) -> BoundExpression {
        switch literal {
        case .null: .constant(.null, .null)
        case .boolean(let value): .constant(.boolean(value), .boolean)
        case .integer(let value): .constant(.integer(value), .integer)
        case .double(let value): .constant(.double(value), .double)
        case .string(let value): .constant(.string(value), .string)
        case .date(let ms), .timestamp(let ms): .constant(.date(ms), .date)
        case .interval(let ms): .constant(.integer(ms), .interval)
        }
    }

    /// A subexpression that must be a condition.
    private func condition(_ node: SQLExpression, _ context: String) throws(WhereClauseError) -> BoundExpression {
        let value = try bind(node)
        guard value.type == .boolean || value.type == .null else {
            throw fail(.typeMismatch, "\(context) needs a condition, not \(value.type.withArticle) value", node)
        }
        return value
    }

    /// A subexpression that must be a string.
    private func string(_ node: SQLExpression, _ context: String) throws(WhereClauseError) -> BoundExpression {
        let value = try bind(node)
        guard value.type == .string || value.type == .null else {
            throw fail(.typeMismatch, "\(context) needs a string, not \(value.type.withArticle) value", node)
        }
        return value
    }

    /// Binds two operands that are compared with each other, converting a string literal
    /// compared with a date into a date.
    private func comparable(
        _ leftNode: SQLExpression, _ rightNode: SQLExpression, _ node: SQLExpression, left bound: BoundExpression? = nil
    ) throws(WhereClauseError) -> (BoundExpression, BoundExpression) {
        var left: BoundExpression
        if let bound { left = bound } else { left = try bind(leftNode) }
        var right = try bind(rightNode)
        switch dialect {
        case .arcGIS:
            if left.type == .date, right.type == .string { right = try dateFromText(right, rightNode) }
            if right.type == .date, left.type == .string { left = try dateFromText(left, leftNode) }
        case .cql2:
            // Booleans are stored as 0/1 integers: TRUE and FALSE compare with them as 1 and 0.
            if left.type == .integer, case .constant(.boolean(let value), _) = right { right = .constant(.integer(value ? 1 : 0), .integer) }
            if right.type == .integer, case .constant(.boolean(let value), _) = left { left = .constant(.integer(value ? 1 : 0), .integer) }
        }
        let a = left.type, b = right.type
        let compatible = a == .null || b == .null || a == b || (a.isNumeric && b.isNumeric)
        guard compatible else {
            throw fail(.typeMismatch, "cannot compare \(describe(left, leftNode)) with \(describe(right, rightNode))", node)
        }
        return (left, right)
    }

    /// A phrase naming an operand for error messages: `string field "NAME"`, `a number`, ….
    private func describe(_ bound: BoundExpression, _ node: SQLExpression) -> String {
        if case .field(let reference) = node.kind, let field = schema.resolveField(reference.name) {
            return "\(SQLType(field.type)) field \(WhereClauseError.quoted(field.name))"
        }
        switch bound.type {
        case .integer, .double: return "a number"
        case .string: return "a string"
        case .date: return "a date"
        case .boolean: return "a condition"
        case .interval: return "an interval"
        case .null: return "NULL"
        }
    }

    /// A string constant read as a date (`'yyyy-mm-dd[ hh:mi:ss]'`, UTC).
    private func dateFromText(_ bound: BoundExpression, _ node: SQLExpression) throws(WhereClauseError) -> BoundExpression {
        guard case .constant(.string(let text), _) = bound else {
            throw fail(.typeMismatch, "cannot compare a date with a string expression; write DATE 'yyyy-mm-dd'", node)
        }
        guard let ms = CivilTime.parse(text, syntax: .sqlTimestamp) else {
            throw fail(.badLiteral, "\(WhereClauseError.quoted(text, quote: "'")) is not a date: expected 'yyyy-mm-dd' or 'yyyy-mm-dd hh:mi:ss'", node)
        }
        return .constant(.date(ms), .date)
    }

    private func arithmetic(
        _ op: ArithmeticOperator, _ leftNode: SQLExpression, _ rightNode: SQLExpression, _ node: SQLExpression
    ) throws(WhereClauseError) -> BoundExpression {
        let left = try bind(leftNode), right = try bind(rightNode)
        let a = left.type, b = right.type
        if a == .null || b == .null {
            let other = a == .null ? b : a
            return .constant(.null, other == .null ? .null : (other == .interval ? .interval : other))
        }
        if a.isNumeric && b.isNumeric {
            return .arithmetic(op, left, right, a == .integer && b == .integer ? .integer : .double)
        }
        switch (a, b, op) {
        case (.date, .integer, .add), (.date, .double, .add), (.date, .integer, .subtract), (.date, .double, .subtract):
            return .arithmetic(op, left, right, .date)
        case (.integer, .date, .add), (.double, .date, .add):
            return .arithmetic(op, right, left, .date)
        case (.date, .interval, .add):
            return .function(.addMilliseconds, [left, right], .date)
        case (.date, .interval, .subtract):
            // Not `date + (-interval)`: negating the interval -2^63 ms would overflow.
            return .function(.subtractMilliseconds, [left, right], .date)
        case (.interval, .date, .add):
            return .function(.addMilliseconds, [right, left], .date)
        case (.date, .date, .subtract):
            return .arithmetic(.subtract, left, right, .double)
        case (.interval, .interval, .add), (.interval, .interval, .subtract):
            return .arithmetic(op, left, right, .interval)
        default:
            let verb: String
            switch op {
            case .add: verb = "add"
            case .subtract: verb = "subtract"
            case .multiply: verb = "multiply"
            case .divide: verb = "divide"
            }
            throw fail(.typeMismatch, "cannot \(verb) \(describe(left, leftNode)) and \(describe(right, rightNode))", node)
        }
    }

    private func like(
        _ operandNode: SQLExpression, _ patternNode: SQLExpression, _ escapeNode: SQLExpression?, negated: Bool, _ node: SQLExpression
    ) throws(WhereClauseError) -> BoundExpression {
        let operand = try string(operandNode, "LIKE")
        let pattern = try string(patternNode, "LIKE")
        var escape: String?
        if let escapeNode {
            guard case .constant(.string(let text), _) = try bind(escapeNode), text.unicodeScalars.count == 1 else {
                throw fail(.badLiteral, "ESCAPE needs a string of exactly one character", escapeNode)
            }
            escape = text
        }
        if case .constant(let value, _) = pattern {
            guard case .string(let text) = value else { return .constant(.null, .boolean) }
            do {
                let compiled = try LikePattern(collation.key(text), escape: escape.map(collation.key))
                return .like(operand, compiled, negated: negated)
            } catch {
                throw fail(.badLiteral, "the LIKE pattern ends with its escape character", patternNode)
            }
        }
        return .likeDynamic(operand, pattern, escape: escape, negated: negated)
    }

    private func caseWhen(
        _ operandNode: SQLExpression?, _ branches: [CaseBranch], _ otherwise: SQLExpression?, _ node: SQLExpression
    ) throws(WhereClauseError) -> BoundExpression {
        var bound: [(condition: BoundExpression, value: BoundExpression)] = []
        var results: [(BoundExpression, SQLExpression)] = []
        let operand = try operandNode.map { (n) throws(WhereClauseError) in try bind(n) }
        for branch in branches {
            let condition: BoundExpression
            if let operand, let operandNode {
                let (a, b) = try comparable(operandNode, branch.when, branch.when, left: operand)
                condition = .compare(.equal, a, b)
            } else {
                condition = try self.condition(branch.when, "WHEN")
            }
            let value = try bind(branch.then)
            bound.append((condition, value))
            results.append((value, branch.then))
        }
        var elseValue: BoundExpression?
        if let otherwise {
            let value = try bind(otherwise)
            elseValue = value
            results.append((value, otherwise))
        }
        let type = try unify(results, node, context: "CASE")
        return .caseWhen(bound, otherwise: elseValue, type)
    }

    /// The common type of several result expressions: NULL fits anything, integers widen to
    /// doubles; anything else must agree.
    private func unify(_ values: [(BoundExpression, SQLExpression)], _ node: SQLExpression, context: String) throws(WhereClauseError) -> SQLType {
        var type = SQLType.null
        for (value, valueNode) in values where value.type != .null {
            if type == .null {
                type = value.type
            } else if type.isNumeric && value.type.isNumeric {
                if value.type == .double { type = .double }
            } else if type != value.type {
                throw fail(.typeMismatch, "\(context) mixes \(type) and \(value.type) results", valueNode)
            }
        }
        return type
    }

    // MARK: Functions

    private func function(_ call: FunctionCall, _ node: SQLExpression) throws(WhereClauseError) -> BoundExpression {
        let name = call.normalizedName
        var arguments: [BoundExpression] = []
        for argument in call.arguments { arguments.append(try bind(argument)) }
        func arity(_ allowed: ClosedRange<Int>) throws(WhereClauseError) {
            guard allowed.contains(arguments.count) else {
                let expected = allowed.count == 1 ? "\(allowed.lowerBound)" : "\(allowed.lowerBound) to \(allowed.upperBound)"
                throw fail(
                    .wrongArgumentCount,
                    "\(name) takes \(expected) argument\(allowed.upperBound == 1 ? "" : "s"), got \(arguments.count)", node)
            }
        }
        func expect(_ index: Int, _ accepts: (SQLType) -> Bool, _ what: String) throws(WhereClauseError) {
            let type = arguments[index].type
            guard type == .null || accepts(type) else {
                throw fail(.typeMismatch, "\(name) expects \(what) as argument \(index + 1), got \(type.withArticle) value", call.arguments[index])
            }
        }
        guard let definition = FunctionRegistry.builtin.definition(named: name, in: dialect) else {
            throw WhereClauseError(
                .unknownFunction,
                "unknown function \(WhereClauseError.quoted(call.name, quote: ""))"
                    + WhereClauseError.didYouMean(call.name, among: FunctionRegistry.builtin.suggestedNames(in: dialect)),
                sql: sql, range: call.nameRange)
        }
        try arity(definition.arity)
        for index in arguments.indices {
            guard let rule = definition.rule(forArgument: index) else { break }
            try expect(index, rule.accepts, rule.description)
        }
        return try apply(definition, arguments, call.arguments, node)
    }

    /// The call of a registry entry on checked arguments, typed by its ``ResultRule``.
    private func apply(
        _ definition: FunctionDefinition, _ arguments: [BoundExpression], _ argumentNodes: [SQLExpression], _ node: SQLExpression
    ) throws(WhereClauseError) -> BoundExpression {
        let type: SQLType
        switch definition.result {
        case .custom(let bind): return try bind(self, arguments, argumentNodes, node)
        case .fixed(let fixed): type = fixed
        case .firstArgument: type = arguments.first.map { $0.type == .null ? .double : $0.type } ?? .double
        case .integerWhenAllIntegers: type = arguments.allSatisfy { $0.type == .integer } ? .integer : .double
        }
        return .function(definition.function, arguments, type)
    }
}

extension Binder {
    /// `COALESCE(a, b, …)`: the arguments' common type (see `unify`).
    static func bindCoalesce(
        _ binder: Binder, _ arguments: [BoundExpression], _ argumentNodes: [SQLExpression], _ node: SQLExpression
    ) throws(WhereClauseError) -> BoundExpression {
        let type = try binder.unify(Array(zip(arguments, argumentNodes)), node, context: "COALESCE")
        return .function(.coalesce, arguments, type)
    }

    /// `NULLIF(a, b)`: two operands that could be compared (a string compared with a date is
    /// read as a date); the first one's type.
    static func bindNullif(
        _ binder: Binder, _ arguments: [BoundExpression], _ argumentNodes: [SQLExpression], _ node: SQLExpression
    ) throws(WhereClauseError) -> BoundExpression {
        let (a, b) = try binder.comparable(argumentNodes[0], argumentNodes[1], node, left: arguments[0])
        return .function(.nullif, [a, b], a.type)
    }
}
