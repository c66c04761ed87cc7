import SieveColumns

/// Binding strength of operators, weakest first.
enum Precedence: Int, Comparable {
    case lowest, or, and, not, comparison, additive, multiplicative, unary

    static func < (a: Precedence, b: Precedence) -> Bool { a.rawValue < b.rawValue }
}

/// A Pratt parser for where clauses; see ``WhereClause/parse(_:maximumDepth:)`` for the grammar.
///
/// Tokens are pulled from the ``Lexer`` on demand, so the first error in reading order is the
/// one reported. Recursion is bounded: every nested operand goes through
/// ``parseExpression(above:)``, which refuses to go deeper than `maximumDepth`, and every node
/// built is checked against the same limit on its height (which catches long left-deep chains
/// such as `1 + 1 + … + 1` that are built without recursion).
struct Parser {
    private var lexer: Lexer
    private var buffer: [Token] = []
    private var previous: Token?
    private let sql: String
    private let maximumDepth: Int
    private var depth = 0

    init(_ sql: String, maximumDepth: Int) {
        self.sql = sql
        self.lexer = Lexer(sql)
        self.maximumDepth = max(1, maximumDepth)
    }

    // MARK: Token stream

    private mutating func peek(_ offset: Int = 0) throws(WhereClauseError) -> Token {
        while buffer.count <= offset {
            buffer.append(try lexer.next())
        }
        return buffer[offset]
    }

    @discardableResult
    private mutating func advance() throws(WhereClauseError) -> Token {
        let token = try peek()
        buffer.removeFirst()
        previous = token
        return token
    }

    /// Consumes the next token if it is `symbol`.
    private mutating func consume(_ symbol: Symbol) throws(WhereClauseError) -> Bool {
        guard try peek().is(symbol) else { return false }
        try advance()
        return true
    }

    /// Consumes the next token if it is `keyword`.
    private mutating func consume(_ keyword: Keyword) throws(WhereClauseError) -> Bool {
        guard try peek().is(keyword) else { return false }
        try advance()
        return true
    }

    /// Consumes `symbol` or fails with "expected `what`, found …".
    private mutating func expect(_ symbol: Symbol, _ what: String) throws(WhereClauseError) -> Token {
        let token = try peek()
        guard token.is(symbol) else { throw expected(what, found: token) }
        return try advance()
    }

    /// Consumes `keyword` or fails with "expected `what`, found …".
    private mutating func expect(_ keyword: Keyword, _ what: String) throws(WhereClauseError) -> Token {
        let token = try peek()
        guard token.is(keyword) else { throw expected(what, found: token) }
        return try advance()
    }

    // MARK: Errors

    private func error(_ kind: WhereClauseError.Kind, _ message: String, _ range: SourceRange) -> WhereClauseError {
        WhereClauseError(kind, message, sql: sql, range: range)
    }

    /// `"text"` of a token (shortened), `keyword AND` for reserved words, or `end of input`.
    private func describe(_ token: Token) -> String {
        switch token.kind {
        case .end:
            return "end of input"
        case .word(let text, let keyword?) where keyword.isReserved:
            return "keyword \(text.uppercased())"
        default:
            let text = token.range.text(in: sql)
            let shown = text.count > 24 ? String(text.prefix(21)) + "…" : text
            return "\"\(shown)\""
        }
    }

    private func expected(_ what: String, found token: Token) -> WhereClauseError {
        error(.syntaxError, "expected \(what), found \(describe(token))", token.range)
    }

    private func expectedExpression(found token: Token) -> WhereClauseError {
        var message = "expected an expression"
        if let previous { message += " after \(describe(previous))" }
        message += ", found \(describe(token))"
        if case .word(let text, let keyword?) = token.kind, keyword.isReserved {
            message += " (write \"\(text)\" in double quotes to use it as a field name)"
        }
        return error(.syntaxError, message, token.range)
    }

    /// Builds a node, enforcing the height limit.
    private func make(_ kind: SQLExpression.Kind, _ range: SourceRange) throws(WhereClauseError) -> SQLExpression {
        let expression = SQLExpression(kind, range: range)
        guard expression.height <= maximumDepth else { throw tooDeep(range) }
        return expression
    }

    private func tooDeep(_ range: SourceRange) -> WhereClauseError {
        error(.nestingTooDeep, "expression nested too deeply (more than \(maximumDepth) levels)", range)
    }

    // MARK: Entry

    /// The whole input as one expression.
    mutating func parseWhereClause() throws(WhereClauseError) -> SQLExpression {
        let first = try peek()
        if first.kind == .end {
            throw error(.syntaxError, "empty where clause", first.range)
        }
        let expression = try parseExpression(above: .lowest)
        let next = try peek()
        switch next.kind {
        case .end:
            return expression
        case .symbol(.rightParenthesis):
            throw error(.syntaxError, "unbalanced \")\" with no matching \"(\"", next.range)
        default:
            throw error(.syntaxError, "unexpected \(describe(next)) after a complete expression", next.range)
        }
    }

    // MARK: Pratt core

    /// An expression whose top-level operators all bind more tightly than `above`.
    private mutating func parseExpression(above: Precedence) throws(WhereClauseError) -> SQLExpression {
        depth += 1
        defer { depth -= 1 }
        guard depth <= maximumDepth else { throw tooDeep(try peek().range) }
        let left = try parsePrefix(above: above)
        return try parseInfix(left, above: above)
    }

    private func infixPrecedence(_ token: Token) -> Precedence? {
        switch token.kind {
        case .symbol(.equal), .symbol(.notEqual), .symbol(.bangEqual), .symbol(.less),
            .symbol(.lessOrEqual), .symbol(.greater), .symbol(.greaterOrEqual):
            return .comparison
        case .symbol(.plus), .symbol(.minus):
            return .additive
        case .symbol(.star), .symbol(.slash):
            return .multiplicative
        case .word(_, .and?):
            return .and
        case .word(_, .or?):
            return .or
        case .word(_, .is?), .word(_, .in?), .word(_, .between?), .word(_, .like?), .word(_, .not?):
            return .comparison
        default:
            return nil
        }
    }

    /// Applies infix operators binding more tightly than `above` to `left`.
    private mutating func parseInfix(_ left: SQLExpression, above: Precedence) throws(WhereClauseError) -> SQLExpression {
        var left = left
        var leftIsComparison = false
        while true {
            let token = try peek()
            guard let precedence = infixPrecedence(token), precedence > above else { return left }
            switch precedence {
            case .or, .and:
                left = try parseChain(left, precedence)
            case .comparison:
                if leftIsComparison { throw chainedComparison(token) }
                left = try parseComparison(left)
            default:
                left = try parseArithmetic(left, precedence)
            }
            leftIsComparison = precedence == .comparison
        }
    }

    private func chainedComparison(_ token: Token) -> WhereClauseError {
        error(.syntaxError, "\(describe(token)) cannot follow a comparison; add parentheses", token.range)
    }

    /// `left + right` and the other arithmetic operators.
    private mutating func parseArithmetic(_ left: SQLExpression, _ precedence: Precedence) throws(WhereClauseError) -> SQLExpression {
        let op: ArithmeticOperator
        switch try advance().kind {
        case .symbol(.plus): op = .add
        case .symbol(.minus): op = .subtract
        case .symbol(.star): op = .multiply
        default: op = .divide
        }
        let right = try parseExpression(above: precedence)
        return try make(.arithmetic(op, left, right), left.range.union(right.range))
    }

    /// `first AND b AND c …` (or `OR`) as one n-ary node.
    private mutating func parseChain(_ first: SQLExpression, _ precedence: Precedence) throws(WhereClauseError) -> SQLExpression {
        let keyword: Keyword = precedence == .and ? .and : .or
        var operands = [first]
        while try consume(keyword) {
            operands.append(try parseExpression(above: precedence))
        }
        let range = first.range.union(operands[operands.count - 1].range)
        return try make(precedence == .and ? .and(operands) : .or(operands), range)
    }

    /// A comparison-level operator and its right side: `= <> != < <= > >=`, `IS [NOT] NULL`,
    /// `[NOT] IN`, `[NOT] BETWEEN`, `[NOT] LIKE`.
    private mutating func parseComparison(_ left: SQLExpression) throws(WhereClauseError) -> SQLExpression {
        switch try peek().kind {
        case .symbol: return try parseComparisonOperator(left)
        case .word(_, .is?): return try parseIsNull(left)
        default: return try parseNegatable(left)
        }
    }

    private mutating func parseComparisonOperator(_ left: SQLExpression) throws(WhereClauseError) -> SQLExpression {
        let op: ComparisonOperator
        switch try advance().kind {
        case .symbol(.equal): op = .equal
        case .symbol(.notEqual), .symbol(.bangEqual): op = .notEqual
        case .symbol(.less): op = .less
        case .symbol(.lessOrEqual): op = .lessOrEqual
        case .symbol(.greater): op = .greater
        default: op = .greaterOrEqual
        }
        let right = try parseExpression(above: .comparison)
        return try make(.comparison(op, left, right), left.range.union(right.range))
    }

    /// `IS [NOT] NULL`.
    private mutating func parseIsNull(_ left: SQLExpression) throws(WhereClauseError) -> SQLExpression {
        try advance()
        let negated = try consume(.not)
        let null = try expect(.null, negated ? "NULL after IS NOT" : "NULL or NOT NULL after IS")
        return try make(.isNull(left, negated: negated), left.range.union(null.range))
    }

    /// `[NOT] IN`, `[NOT] BETWEEN`, `[NOT] LIKE`.
    private mutating func parseNegatable(_ left: SQLExpression) throws(WhereClauseError) -> SQLExpression {
        let negated = try consume(.not)
        let next = try peek()
        switch next.keyword {
        case .in?:
            try advance()
            return try parseIn(left, negated: negated)
        case .between?:
            try advance()
            return try parseBetween(left, negated: negated)
        case .like?:
            try advance()
            return try parseLike(left, negated: negated)
        default:
            throw expected("IN, BETWEEN or LIKE after NOT", found: next)
        }
    }

    private mutating func parseIn(_ left: SQLExpression, negated: Bool) throws(WhereClauseError) -> SQLExpression {
        let open = try expect(.leftParenthesis, "\"(\" after IN")
        if try peek().is(.rightParenthesis) {
            let close = try advance()
            throw error(.emptyInList, "IN () needs at least one value", open.range.union(close.range))
        }
        var values: [SQLExpression] = []
        repeat {
            values.append(try parseExpression(above: .lowest))
        } while try consume(.comma)
        let close = try expect(.rightParenthesis, "\",\" or \")\" in the IN list")
        return try make(.inList(left, values, negated: negated), left.range.union(close.range))
    }

    private mutating func parseBetween(_ left: SQLExpression, negated: Bool) throws(WhereClauseError) -> SQLExpression {
        let lower = try parseExpression(above: .comparison)
        _ = try expect(.and, "AND after the lower bound of BETWEEN")
        let upper = try parseExpression(above: .comparison)
        return try make(.between(left, lower: lower, upper: upper, negated: negated), left.range.union(upper.range))
    }

    private mutating func parseLike(_ left: SQLExpression, negated: Bool) throws(WhereClauseError) -> SQLExpression {
        let pattern = try parseExpression(above: .comparison)
        var escape: SQLExpression?
        if try consume(.escape) {
            escape = try parseExpression(above: .comparison)
        }
        let end = escape?.range ?? pattern.range
        return try make(.like(left, pattern: pattern, escape: escape, negated: negated), left.range.union(end))
    }

    // MARK: Operands

    // The functions on the recursive path (parseExpression → parsePrefix → parseKeyword → a
    // form → parseExpression) are kept small, one per form, so that each nesting level costs
    // little stack even in unoptimized builds, where a function's frame holds every local and
    // temporary of all its branches.

    /// A literal, field, parenthesized expression, prefix operator, function call or special form.
    private mutating func parsePrefix(above: Precedence) throws(WhereClauseError) -> SQLExpression {
        let token = try peek()
        switch token.kind {
        case .symbol(.leftParenthesis):
            return try parseParenthesized()
        case .symbol(.minus), .symbol(.plus):
            return try parseSigned()
        case .word(_, _?):
            return try parseKeyword(above: above)
        default:
            return try parseSimpleOperand()
        }
    }

    /// A number, string, quoted identifier, or a plain word as a field or function name.
    private mutating func parseSimpleOperand() throws(WhereClauseError) -> SQLExpression {
        let token = try peek()
        let kind: SQLExpression.Kind
        switch token.kind {
        case .integer, .double:
            kind = .literal(numberLiteral(token, negative: false))
        case .string(let text):
            kind = .literal(.string(text))
        case .quotedIdentifier(let name):
            kind = .field(FieldReference(name: name, isQuoted: true))
        case .word(let name, let keyword):
            if let keyword, keyword.isReserved { throw expectedExpression(found: token) }
            try advance()
            if try peek().is(.leftParenthesis) {
                return try parseFunctionCall(name: name, token)
            }
            return try make(.field(FieldReference(name: name, isQuoted: false)), token.range)
        case .symbol, .end:
            throw expectedExpression(found: token)
        }
        try advance()
        return try make(kind, token.range)
    }

    /// `( expression )`; the node's range grows to include the parentheses.
    private mutating func parseParenthesized() throws(WhereClauseError) -> SQLExpression {
        let open = try advance()
        var inner = try parseExpression(above: .lowest)
        let next = try peek()
        guard next.is(.rightParenthesis) else { throw unclosed(open, found: next) }
        inner.range = open.range.union(try advance().range)
        return inner
    }

    private func unclosed(_ open: Token, found: Token) -> WhereClauseError {
        let (line, column) = open.range.location(in: sql)
        return expected("\")\" to close the \"(\" at \(line):\(column)", found: found)
    }

    /// `-x` or `+x`; folded into the literal when `x` is a number.
    private mutating func parseSigned() throws(WhereClauseError) -> SQLExpression {
        let sign = try advance()
        let negative = sign.is(.minus)
        let next = try peek()
        switch next.kind {
        case .integer, .double:
            try advance()
            return try make(.literal(numberLiteral(next, negative: negative)), sign.range.union(next.range))
        default:
            let operand = try parseExpression(above: .multiplicative)
            return try make(negative ? .negate(operand) : .plus(operand), sign.range.union(operand.range))
        }
    }

    private func numberLiteral(_ token: Token, negative: Bool) -> Literal {
        switch token.kind {
        case .integer(let magnitude):
            if !negative {
                return magnitude <= UInt64(Int64.max) ? .integer(Int64(magnitude)) : .double(Double(magnitude))
            }
            if magnitude <= UInt64(Int64.max) { return .integer(-Int64(magnitude)) }
            if magnitude == UInt64(Int64.max) + 1 { return .integer(Int64.min) }
            return .double(-Double(magnitude))
        case .double(let value):
            return .double(negative ? -value : value)
        default:
            return .null
        }
    }

    /// The forms a word with a keyword meaning introduces; a plain field or function name when
    /// the keyword does not apply here.
    private mutating func parseKeyword(above: Precedence) throws(WhereClauseError) -> SQLExpression {
        switch try peek().keyword {
        case .null?, .true?, .false?: return try parseConstant()
        case .not?: return try parseNot(above: above)
        case .case?: return try parseCase()
        case .currentDate?, .currentTimestamp?: return try parseCurrent()
        case .date?, .timestamp?: return try parseDateLiteral()
        case .interval?: return try parseInterval()
        case .cast?: return try parseCast()
        case .extract?: return try parseExtract()
        case .position?: return try parsePosition()
        case .substring?: return try parseSubstring()
        case .trim?: return try parseTrim()
        default: return try parseSimpleOperand()
        }
    }

    /// `NULL`, `TRUE`, `FALSE`.
    private mutating func parseConstant() throws(WhereClauseError) -> SQLExpression {
        let token = try advance()
        let literal: Literal = token.is(.null) ? .null : .boolean(token.is(.true))
        return try make(.literal(literal), token.range)
    }

    /// Whether the word is followed by `(`, making it a special form rather than a field.
    private mutating func startsCall() throws(WhereClauseError) -> Bool {
        try peek(1).is(.leftParenthesis)
    }

    /// `NOT x`, only where a NOT-level expression may stand.
    private mutating func parseNot(above: Precedence) throws(WhereClauseError) -> SQLExpression {
        let not = try advance()
        guard above < .not else {
            throw error(.syntaxError, "NOT cannot appear here; put the NOT expression in parentheses", not.range)
        }
        let operand = try parseExpression(above: .and)
        return try make(.not(operand), not.range.union(operand.range))
    }

    /// `CURRENT_DATE` or `CURRENT_TIMESTAMP`, optionally followed by `()`.
    private mutating func parseCurrent() throws(WhereClauseError) -> SQLExpression {
        let token = try advance()
        var range = token.range
        if try peek().is(.leftParenthesis), try peek(1).is(.rightParenthesis) {
            try advance()
            range = range.union(try advance().range)
        }
        return try make(token.is(.currentDate) ? .currentDate : .currentTimestamp, range)
    }

    /// Whether `DATE` or `TIMESTAMP` is followed by a string.
    private mutating func startsDateLiteral() throws(WhereClauseError) -> Bool {
        if case .string = try peek(1).kind { return true }
        return false
    }

    /// Whether `INTERVAL` is followed by a string, possibly after a sign.
    private mutating func startsInterval() throws(WhereClauseError) -> Bool {
        let next = try peek(1)
        if case .string = next.kind { return true }
        guard next.is(.minus) || next.is(.plus) else { return false }
        if case .string = try peek(2).kind { return true }
        return false
    }

    /// `NAME(arguments…)`, the name already consumed.
    private mutating func parseFunctionCall(name: String, _ nameToken: Token) throws(WhereClauseError) -> SQLExpression {
        try advance()  // (
        var arguments: [SQLExpression] = []
        if try !peek().is(.rightParenthesis) {
            repeat {
                arguments.append(try parseExpression(above: .lowest))
            } while try consume(.comma)
        }
        let close = try expect(.rightParenthesis, "\",\" or \")\" in the arguments of \(name)")
        let call = FunctionCall(name: name, nameRange: nameToken.range, arguments: arguments)
        return try make(.function(call), nameToken.range.union(close.range))
    }

    /// `NAME(a, b, …)` after the first argument has been read.
    private mutating func finishCall(_ nameToken: Token, first: SQLExpression, what: String) throws(WhereClauseError) -> SQLExpression {
        guard case .word(let name, _) = nameToken.kind else { throw expected("a function name", found: nameToken) }
        var arguments = [first]
        while try consume(.comma) {
            arguments.append(try parseExpression(above: .lowest))
        }
        let close = try expect(.rightParenthesis, what)
        let call = FunctionCall(name: name, nameRange: nameToken.range, arguments: arguments)
        return try make(.function(call), nameToken.range.union(close.range))
    }

    // MARK: Special forms

    private mutating func parseCase() throws(WhereClauseError) -> SQLExpression {
        let caseToken = try advance()
        var operand: SQLExpression?
        let first = try peek()
        if first.is(.end) || first.is(.else) || first.is(.then) {
            throw expected("WHEN in CASE", found: first)
        }
        if !first.is(.when) {
            operand = try parseExpression(above: .lowest)
        }
        var branches: [CaseBranch] = []
        while try consume(.when) {
            let when = try parseExpression(above: .lowest)
            _ = try expect(.then, "THEN after the WHEN expression")
            let then = try parseExpression(above: .lowest)
            branches.append(CaseBranch(when: when, then: then))
        }
        guard !branches.isEmpty else { throw expected("WHEN in CASE", found: try peek()) }
        var otherwise: SQLExpression?
        if try consume(.else) {
            otherwise = try parseExpression(above: .lowest)
        }
        let end = try expect(.end, otherwise == nil ? "WHEN, ELSE or END in CASE" : "END to close the CASE")
        return try make(.caseWhen(operand: operand, branches: branches, otherwise: otherwise), caseToken.range.union(end.range))
    }

    private mutating func parseCast() throws(WhereClauseError) -> SQLExpression {
        guard try startsCall() else { return try parseSimpleOperand() }
        let castToken = try advance()
        try advance()  // (
        let operand = try parseExpression(above: .lowest)
        _ = try expect(.as, "AS in CAST")
        let typeToken = try advance()
        guard case .word(let typeName, _) = typeToken.kind else { throw expected("a type name after AS", found: typeToken) }
        let target: CastTarget
        switch typeName.uppercased() {
        case "INTEGER", "INT", "SMALLINT", "BIGINT":
            target = .integer
        case "FLOAT", "REAL":
            target = .float
        case "DOUBLE":
            target = .float
            if case .word(let next, _) = try peek().kind, next.uppercased() == "PRECISION" { try advance() }
        case "VARCHAR", "CHAR", "CHARACTER":
            target = .varchar
            if try peek().is(.leftParenthesis) {
                try advance()
                let length = try peek()
                guard case .integer = length.kind else { throw expected("a length", found: length) }
                try advance()
                _ = try expect(.rightParenthesis, "\")\" after the length")
            }
        case "DATE", "TIMESTAMP":
            target = .date
        default:
            throw error(.syntaxError, "unknown type \"\(typeName)\" in CAST; expected INTEGER, FLOAT, VARCHAR or DATE", typeToken.range)
        }
        let close = try expect(.rightParenthesis, "\")\" to close the CAST")
        return try make(.cast(operand, to: target), castToken.range.union(close.range))
    }

    private func dateTimeField(_ token: Token) -> DateTimeField? {
        switch token.keyword {
        case .year?: return .year
        case .month?: return .month
        case .day?: return .day
        case .hour?: return .hour
        case .minute?: return .minute
        case .second?: return .second
        default: return nil
        }
    }

    private mutating func parseExtract() throws(WhereClauseError) -> SQLExpression {
        guard try startsCall() else { return try parseSimpleOperand() }
        let extractToken = try advance()
        try advance()  // (
        let fieldToken = try advance()
        guard let field = dateTimeField(fieldToken) else {
            throw expected("YEAR, MONTH, DAY, HOUR, MINUTE or SECOND in EXTRACT", found: fieldToken)
        }
        _ = try expect(.from, "FROM after EXTRACT(\(field.rawValue.uppercased())")
        let source = try parseExpression(above: .lowest)
        let close = try expect(.rightParenthesis, "\")\" to close the EXTRACT")
        return try make(.extract(field, from: source), extractToken.range.union(close.range))
    }

    /// `POSITION(sub IN s)` → `POSITION(sub, s)`; `POSITION(a, b)` as written.
    private mutating func parsePosition() throws(WhereClauseError) -> SQLExpression {
        guard try startsCall() else { return try parseSimpleOperand() }
        let nameToken = try peek()
        guard case .word(let name, _) = nameToken.kind else { throw expected("POSITION", found: nameToken) }
        try advance()
        if try peek(1).is(.rightParenthesis) { return try parseFunctionCall(name: name, nameToken) }
        try advance()  // (
        let first = try parseExpression(above: .comparison)
        if try consume(.in) {
            let second = try parseExpression(above: .lowest)
            let close = try expect(.rightParenthesis, "\")\" to close the POSITION")
            let call = FunctionCall(name: name, nameRange: nameToken.range, arguments: [first, second])
            return try make(.function(call), nameToken.range.union(close.range))
        }
        let whole = try parseInfix(first, above: .lowest)
        return try finishCall(nameToken, first: whole, what: "IN, \",\" or \")\" in POSITION")
    }

    /// `SUBSTRING(s FROM i [FOR n])` → `SUBSTRING(s, i[, n])`; `SUBSTRING(s, i, n)` as written.
    private mutating func parseSubstring() throws(WhereClauseError) -> SQLExpression {
        guard try startsCall() else { return try parseSimpleOperand() }
        let nameToken = try peek()
        guard case .word(let name, _) = nameToken.kind else { throw expected("SUBSTRING", found: nameToken) }
        try advance()
        if try peek(1).is(.rightParenthesis) { return try parseFunctionCall(name: name, nameToken) }
        try advance()  // (
        let source = try parseExpression(above: .lowest)
        if try consume(.from) {
            var arguments = [source, try parseExpression(above: .lowest)]
            if try consume(.for) {
                arguments.append(try parseExpression(above: .lowest))
            }
            let close = try expect(.rightParenthesis, arguments.count == 2 ? "FOR or \")\" in SUBSTRING" : "\")\" to close the SUBSTRING")
            let call = FunctionCall(name: name, nameRange: nameToken.range, arguments: arguments)
            return try make(.function(call), nameToken.range.union(close.range))
        }
        return try finishCall(nameToken, first: source, what: "FROM, \",\" or \")\" in SUBSTRING")
    }

    /// `TRIM([BOTH|LEADING|TRAILING] [characters FROM] source)`.
    ///
    /// `BOTH`, `LEADING` and `TRAILING` are the mode unless followed by `)` or `,`; write them in
    /// double quotes for fields of those names. `TRIM(LEADING s)` (mode without `FROM`) and
    /// `TRIM(FROM s)` are accepted too.
    private mutating func parseTrim() throws(WhereClauseError) -> SQLExpression {
        guard try startsCall() else { return try parseSimpleOperand() }
        let trimToken = try advance()
        try advance()  // (
        var mode: TrimMode?
        let first = try peek()
        if let keyword = first.keyword, [.both, .leading, .trailing].contains(keyword) {
            let after = try peek(1)
            if !after.is(.rightParenthesis), !after.is(.comma) {
                try advance()
                mode = keyword == .both ? .both : keyword == .leading ? .leading : .trailing
            }
        }
        var characters: SQLExpression?
        let source: SQLExpression
        let next = try peek()
        let after = try peek(1)
        if next.is(.from), mode != nil || (!after.is(.rightParenthesis) && !after.is(.comma)) {
            try advance()
            source = try parseExpression(above: .lowest)
        } else {
            let expression = try parseExpression(above: .lowest)
            if try consume(.from) {
                characters = expression
                source = try parseExpression(above: .lowest)
            } else {
                source = expression
            }
        }
        let close = try expect(.rightParenthesis, characters == nil ? "FROM or \")\" in TRIM" : "\")\" to close the TRIM")
        return try make(.trim(mode ?? .both, characters: characters, source: source), trimToken.range.union(close.range))
    }

    private mutating func parseDateLiteral() throws(WhereClauseError) -> SQLExpression {
        guard try startsDateLiteral() else { return try parseSimpleOperand() }
        let keywordToken = try advance()
        let stringToken = try advance()
        guard case .string(let text) = stringToken.kind else { throw expected("a string", found: stringToken) }
        let range = keywordToken.range.union(stringToken.range)
        if keywordToken.is(.date) {
            guard let milliseconds = CivilTime.parse(text, syntax: .sqlDate) else {
                throw error(.badLiteral, "invalid DATE literal '\(text)'; expected an existing date as 'yyyy-mm-dd'", range)
            }
            return try make(.literal(.date(milliseconds)), range)
        }
        guard let milliseconds = CivilTime.parse(text, syntax: .sqlTimestamp) else {
            throw error(.badLiteral, "invalid TIMESTAMP literal '\(text)'; expected 'yyyy-mm-dd hh:mi[:ss[.fff]][±hh:mm]'", range)
        }
        return try make(.literal(.timestamp(milliseconds)), range)
    }

    /// `INTERVAL [+|-] 'text' qualifier`.
    private mutating func parseInterval() throws(WhereClauseError) -> SQLExpression {
        guard try startsInterval() else { return try parseSimpleOperand() }
        let intervalToken = try advance()
        var negative = false
        if try consume(.minus) {
            negative = true
        } else {
            _ = try consume(.plus)
        }
        let stringToken = try advance()
        guard case .string(let text) = stringToken.kind else { throw expected("a string", found: stringToken) }

        let startToken = try peek()
        guard let start = dateTimeField(startToken) else {
            throw expected("DAY, HOUR, MINUTE or SECOND after the INTERVAL string", found: startToken)
        }
        guard start != .year, start != .month else {
            throw error(.badLiteral, "year-month intervals are not supported; use DAY, HOUR, MINUTE or SECOND", startToken.range)
        }
        var end = try advance().range
        end = try skipPrecision() ?? end
        var last = start
        if try consume(.to) {
            let lastToken = try advance()
            guard let field = dateTimeField(lastToken), field != .year, field != .month,
                Self.intervalRank(field) > Self.intervalRank(start)
            else {
                throw error(.syntaxError, "invalid interval qualifier \(start.rawValue.uppercased()) TO \(describe(lastToken))", lastToken.range)
            }
            last = field
            end = try skipPrecision() ?? lastToken.range
        }
        let range = intervalToken.range.union(end)
        guard let milliseconds = Self.intervalMilliseconds(text, from: start, to: last) else {
            let qualifier = start == last ? start.rawValue.uppercased() : "\(start.rawValue.uppercased()) TO \(last.rawValue.uppercased())"
            throw error(.badLiteral, "invalid INTERVAL literal '\(text)' for \(qualifier); expected \(Self.intervalFormat(from: start, to: last))", range)
        }
        return try make(.literal(.interval(milliseconds: negative ? -milliseconds : milliseconds)), range)
    }

    /// Skips `(p)` or `(p, s)` after an interval field; returns the range of `)` if present.
    private mutating func skipPrecision() throws(WhereClauseError) -> SourceRange? {
        guard try peek().is(.leftParenthesis), case .integer = try peek(1).kind else { return nil }
        try advance()
        try advance()
        if try consume(.comma) {
            let scale = try advance()
            guard case .integer = scale.kind else { throw expected("a fractional-seconds precision", found: scale) }
        }
        return try expect(.rightParenthesis, "\")\" after the interval precision").range
    }

    private static func intervalRank(_ field: DateTimeField) -> Int {
        switch field {
        case .day: return 0
        case .hour: return 1
        case .minute: return 2
        case .second: return 3
        case .year, .month: return -1
        }
    }

    private static func intervalFormat(from start: DateTimeField, to last: DateTimeField) -> String {
        let parts = ["d", "hh", "mi", "ss[.fff]"]
        let slice = parts[intervalRank(start)...intervalRank(last)]
        var format = ""
        for (offset, part) in slice.enumerated() {
            if offset > 0 { format += (part == "hh" ? " " : ":") }
            format += part
        }
        return "'[-]" + format + "'"
    }

    /// Reads `[+|-]lead[ sep field…][.fraction]` for the fields `start` through `last`
    /// (separators: spaces between days and hours, `:` otherwise); `nil` if malformed, out of
    /// range or overflowing.
    static func intervalMilliseconds(_ text: String, from start: DateTimeField, to last: DateTimeField) -> Int64? {
        var bytes = Array(text.utf8)[...]
        while bytes.first == 0x20 { bytes.removeFirst() }
        while bytes.last == 0x20 { bytes.removeLast() }
        var negative = false
        if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") {
            negative = bytes.first == UInt8(ascii: "-")
            bytes.removeFirst()
        }
        func number(maximumDigits: Int) -> Int64? {
            var value: Int64 = 0
            var count = 0
            while let byte = bytes.first, byte >= 48, byte <= 57 {
                let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = shifted.addingReportingOverflow(Int64(byte - 48))
                guard !overflow1, !overflow2 else { return nil }
                value = sum
                count += 1
                bytes.removeFirst()
            }
            return count > 0 && count <= maximumDigits ? value : nil
        }
        let units: [(field: DateTimeField, milliseconds: Int64, limit: Int64)] = [
            (.day, 86_400_000, Int64.max), (.hour, 3_600_000, 24), (.minute, 60_000, 60), (.second, 1000, 60),
        ]
        var total: Int64 = 0
        for index in intervalRank(start)...intervalRank(last) {
            let unit = units[index]
            let isLeading = index == intervalRank(start)
            if !isLeading {
                if unit.field == .hour {
                    guard bytes.first == 0x20 else { return nil }
                    while bytes.first == 0x20 { bytes.removeFirst() }
                } else {
                    guard bytes.first == UInt8(ascii: ":") else { return nil }
                    bytes.removeFirst()
                }
            }
            guard let value = number(maximumDigits: isLeading ? 18 : 2) else { return nil }
            guard isLeading || value < unit.limit else { return nil }
            let (scaled, overflow1) = value.multipliedReportingOverflow(by: unit.milliseconds)
            let (sum, overflow2) = total.addingReportingOverflow(scaled)
            guard !overflow1, !overflow2 else { return nil }
            total = sum
        }
        if last == .second, bytes.first == UInt8(ascii: ".") {
            bytes.removeFirst()
            var scale: Int64 = 100
            var any = false
            while let byte = bytes.first, byte >= 48, byte <= 57 {
                total += Int64(byte - 48) * scale
                scale /= 10
                any = true
                bytes.removeFirst()
            }
            guard any, total >= 0 else { return nil }
        }
        guard bytes.isEmpty else { return nil }
        return negative ? -total : total
    }
}
