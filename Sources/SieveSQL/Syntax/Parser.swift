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
    /// Tokens read ahead, a ring of four: `aheadCount` of them from `aheadStart`. The grammar
    /// looks at most three tokens ahead.
    private var ahead = [Token](repeating: Token(kind: .end, range: SourceRange(at: 0)), count: 4)
    private var aheadStart = 0
    private var aheadCount = 0
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

    /// The token `offset` (0…3) places ahead, read from the lexer if needed.
    mutating func peek(_ offset: Int = 0) throws(WhereClauseError) -> Token {
        while aheadCount <= offset {
            ahead[(aheadStart + aheadCount) & 3] = try lexer.next()
            aheadCount += 1
        }
        return ahead[(aheadStart + offset) & 3]
    }

    @discardableResult
    mutating func advance() throws(WhereClauseError) -> Token {
        let token = try peek()
        aheadStart = (aheadStart + 1) & 3
        aheadCount -= 1
        previous = token
        return token
    }

    /// Consumes the next token if it is `symbol`.
    mutating func consume(_ symbol: Symbol) throws(WhereClauseError) -> Bool {
        guard try peek().is(symbol) else { return false }
        try advance()
        return true
    }

    /// Consumes the next token if it is `keyword`.
    mutating func consume(_ keyword: Keyword) throws(WhereClauseError) -> Bool {
        guard try peek().is(keyword) else { return false }
        try advance()
        return true
    }

    /// Consumes `symbol` or fails with "expected `what`, found …".
    mutating func expect(_ symbol: Symbol, _ what: String) throws(WhereClauseError) -> Token {
        let token = try peek()
        guard token.is(symbol) else { throw expected(what, found: token) }
        return try advance()
    }

    /// Consumes `keyword` or fails with "expected `what`, found …".
    mutating func expect(_ keyword: Keyword, _ what: String) throws(WhereClauseError) -> Token {
        let token = try peek()
        guard token.is(keyword) else { throw expected(what, found: token) }
        return try advance()
    }

    // MARK: Errors

    func error(_ kind: WhereClauseError.Kind, _ message: String, _ range: SourceRange) -> WhereClauseError {
        WhereClauseError(kind, message, sql: sql, range: range)
    }

    /// `"text"` of a token (shortened), `keyword AND` for reserved words, or `end of input`.
    func describe(_ token: Token) -> String {
        switch token.kind {
        case .end:
            return "end of input"
        case .word(let text, let keyword?) where keyword.isReserved:
            return "keyword \(text.uppercased())"
        default:
            // 100 bytes hold more than 24 scalars, all that can be shown.
            let start = SourceRange(lower: token.range.lower, upper: min(token.range.upper, token.range.lower + 100))
            return "\"\(WhereClauseError.excerpt(start.text(in: sql), limit: 24).text)\""
        }
    }

    func expected(_ what: String, found token: Token) -> WhereClauseError {
        error(.syntaxError, "expected \(what), found \(describe(token))", token.range)
    }

    func expectedExpression(found token: Token) -> WhereClauseError {
        var message = "expected an expression"
        if let previous { message += " after \(describe(previous))" }
        message += ", found \(describe(token))"
        if case .word(let text, let keyword?) = token.kind, keyword.isReserved {
            message += " (write \"\(text)\" in double quotes to use it as a field name)"
        }
        return error(.syntaxError, message, token.range)
    }

    /// Builds a node, enforcing the height limit.
    func make(_ kind: SQLExpression.Kind, _ range: SourceRange) throws(WhereClauseError) -> SQLExpression {
        let expression = SQLExpression(kind, range: range)
        guard expression.height <= maximumDepth else { throw tooDeep(range) }
        return expression
    }

    func tooDeep(_ range: SourceRange) -> WhereClauseError {
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
    mutating func parseExpression(above: Precedence) throws(WhereClauseError) -> SQLExpression {
        depth += 1
        defer { depth -= 1 }
        guard depth <= maximumDepth else { throw tooDeep(try peek().range) }
        let left = try parsePrefix(above: above)
        return try parseInfix(left, above: above)
    }

    func infixPrecedence(_ token: Token) -> Precedence? {
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
    mutating func parseInfix(_ left: SQLExpression, above: Precedence) throws(WhereClauseError) -> SQLExpression {
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

    func chainedComparison(_ token: Token) -> WhereClauseError {
        error(.syntaxError, "\(describe(token)) cannot follow a comparison; add parentheses", token.range)
    }

    /// `left + right` and the other arithmetic operators.
    mutating func parseArithmetic(_ left: SQLExpression, _ precedence: Precedence) throws(WhereClauseError) -> SQLExpression {
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
    mutating func parseChain(_ first: SQLExpression, _ precedence: Precedence) throws(WhereClauseError) -> SQLExpression {
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
    mutating func parseComparison(_ left: SQLExpression) throws(WhereClauseError) -> SQLExpression {
        switch try peek().kind {
        case .symbol: return try parseComparisonOperator(left)
        case .word(_, .is?): return try parseIsNull(left)
        default: return try parseNegatable(left)
        }
    }

    mutating func parseComparisonOperator(_ left: SQLExpression) throws(WhereClauseError) -> SQLExpression {
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
    mutating func parseIsNull(_ left: SQLExpression) throws(WhereClauseError) -> SQLExpression {
        try advance()
        let negated = try consume(.not)
        let null = try expect(.null, negated ? "NULL after IS NOT" : "NULL or NOT NULL after IS")
        return try make(.isNull(left, negated: negated), left.range.union(null.range))
    }

    /// `[NOT] IN`, `[NOT] BETWEEN`, `[NOT] LIKE`.
    mutating func parseNegatable(_ left: SQLExpression) throws(WhereClauseError) -> SQLExpression {
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

    mutating func parseIn(_ left: SQLExpression, negated: Bool) throws(WhereClauseError) -> SQLExpression {
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

    mutating func parseBetween(_ left: SQLExpression, negated: Bool) throws(WhereClauseError) -> SQLExpression {
        let lower = try parseExpression(above: .comparison)
        _ = try expect(.and, "AND after the lower bound of BETWEEN")
        let upper = try parseExpression(above: .comparison)
        return try make(.between(left, lower: lower, upper: upper, negated: negated), left.range.union(upper.range))
    }

    mutating func parseLike(_ left: SQLExpression, negated: Bool) throws(WhereClauseError) -> SQLExpression {
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
    mutating func parsePrefix(above: Precedence) throws(WhereClauseError) -> SQLExpression {
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
    mutating func parseSimpleOperand() throws(WhereClauseError) -> SQLExpression {
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
    mutating func parseParenthesized() throws(WhereClauseError) -> SQLExpression {
        let open = try advance()
        var inner = try parseExpression(above: .lowest)
        let next = try peek()
        guard next.is(.rightParenthesis) else { throw unclosed(open, found: next) }
        inner.range = open.range.union(try advance().range)
        return inner
    }

    func unclosed(_ open: Token, found: Token) -> WhereClauseError {
        let (line, column) = open.range.location(in: sql)
        return expected("\")\" to close the \"(\" at \(line):\(column)", found: found)
    }

    /// `-x` or `+x`; folded into the literal when `x` is a number.
    mutating func parseSigned() throws(WhereClauseError) -> SQLExpression {
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

    func numberLiteral(_ token: Token, negative: Bool) -> Literal {
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
    mutating func parseKeyword(above: Precedence) throws(WhereClauseError) -> SQLExpression {
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
    mutating func parseConstant() throws(WhereClauseError) -> SQLExpression {
        let token = try advance()
        let literal: Literal = token.is(.null) ? .null : .boolean(token.is(.true))
        return try make(.literal(literal), token.range)
    }

    /// Whether the word is followed by `(`, making it a special form rather than a field.
    mutating func startsCall() throws(WhereClauseError) -> Bool {
        try peek(1).is(.leftParenthesis)
    }

    /// `NOT x`, only where a NOT-level expression may stand.
    mutating func parseNot(above: Precedence) throws(WhereClauseError) -> SQLExpression {
        let not = try advance()
        guard above < .not else {
            throw error(.syntaxError, "NOT cannot appear here; put the NOT expression in parentheses", not.range)
        }
        let operand = try parseExpression(above: .and)
        return try make(.not(operand), not.range.union(operand.range))
    }

    /// `CURRENT_DATE` or `CURRENT_TIMESTAMP`, optionally followed by `()`.
    mutating func parseCurrent() throws(WhereClauseError) -> SQLExpression {
        let token = try advance()
        var range = token.range
        if try peek().is(.leftParenthesis), try peek(1).is(.rightParenthesis) {
            try advance()
            range = range.union(try advance().range)
        }
        return try make(token.is(.currentDate) ? .currentDate : .currentTimestamp, range)
    }

    /// Whether `DATE` or `TIMESTAMP` is followed by a string.
    mutating func startsDateLiteral() throws(WhereClauseError) -> Bool {
        if case .string = try peek(1).kind { return true }
        return false
    }

    /// Whether `INTERVAL` is followed by a string, possibly after a sign.
    mutating func startsInterval() throws(WhereClauseError) -> Bool {
        let next = try peek(1)
        if case .string = next.kind { return true }
        guard next.is(.minus) || next.is(.plus) else { return false }
        if case .string = try peek(2).kind { return true }
        return false
    }

    /// `NAME(arguments…)`, the name already consumed.
    mutating func parseFunctionCall(name: String, _ nameToken: Token) throws(WhereClauseError) -> SQLExpression {
        try advance()  // (
        var arguments: [SQLExpression] = []
        if try !peek().is(.rightParenthesis) {
            repeat {
                arguments.append(try parseExpression(above: .lowest))
            } while try consume(.comma)
        }
        let close = try expect(.rightParenthesis, "\",\" or \")\" in the arguments of \(WhereClauseError.quoted(name, quote: ""))")
        let call = FunctionCall(name: name, nameRange: nameToken.range, arguments: arguments)
        return try make(.function(call), nameToken.range.union(close.range))
    }

    /// `NAME(a, b, …)` after the first argument has been read.
    mutating func finishCall(_ nameToken: Token, first: SQLExpression, what: String) throws(WhereClauseError) -> SQLExpression {
        guard case .word(let name, _) = nameToken.kind else { throw expected("a function name", found: nameToken) }
        var arguments = [first]
        while try consume(.comma) {
            arguments.append(try parseExpression(above: .lowest))
        }
        let close = try expect(.rightParenthesis, what)
        let call = FunctionCall(name: name, nameRange: nameToken.range, arguments: arguments)
        return try make(.function(call), nameToken.range.union(close.range))
    }
}
